"""Corrections are claims (issue 19, item 5, for the seeds' generic claims).

An erratum's member claim is *generic* when ``Claim.spec`` is set: (kind, Domain, fields) of a generic
checker.  For each such member the erratum either

* carries ``corrected_check = {claim: {field: "SymPy expression"}}``: the corrected side, written in the
  claim's own symbols (and functions) -- the test substitutes it for the printed field and runs the same
  checker on the same domain; the corrected claim must be proved or hold numerically; or
* carries ``correction_unchecked``: why no separate check exists (the corrected form is the truth side
  itself, or lives outside the claim's fields) and what is true instead.

Custom members (hand-written checks) are outside this test: their corrections are stated in the entry's
``corrected``/``explanation`` and, where a second claim checks the corrected reading, it is named there.
"""
import pytest
import sympy as sp

import derive
from derive import checkers, kinds, registry
from derive import functions as FN
from dpderive.errata import grouping_table

registry.load_all()
PASSING = ("proved", "holds_numerically")


def _cases():
    out = []
    for key in registry.PAPERS:
        for e in grouping_table(key):
            for cid in e["claims"]:
                c = registry.CLAIMS[cid]
                if c.spec is None:
                    continue
                short = cid.removeprefix(key + ".")
                out.append(pytest.param(key, e, short, id=f"{e['key']}:{short}"))
    return out


CASES = _cases()


def _namespace(fields: dict) -> dict:
    ns = {}
    for v in fields.values():
        if isinstance(v, sp.Basic):
            for s in v.atoms(sp.Symbol):
                ns[s.name] = s
            for f in v.atoms(sp.Function):
                ns.setdefault(type(f).__name__, f.func)
    ns.setdefault("x", sp.Symbol("x", real=True))
    for name in ("Phi", "PhiInv"):            # the library's normal CDF and quantile (a field may have lost them)
        ns.setdefault(name, getattr(FN, name))
    return ns


def corrected_fields(key: str, e: dict, short: str) -> dict:
    kind, dom, fields = registry.CLAIMS[f"{key}.{short}"].spec
    ns = _namespace(fields)
    new = dict(fields)
    for name, text in e["corrected_check"][short].items():
        assert name in fields, (e["key"], short, name)
        new[name] = sp.sympify(text, locals=ns)
    return new


def test_every_generic_member_is_covered():
    assert CASES
    bad = [(e["key"], short) for _, e, short in (p.values for p in CASES)
           if short not in e.get("corrected_check", {}) and not e.get("correction_unchecked")]
    assert not bad, f"errata with a generic member but neither a checked correction nor a reason: {bad}"


@pytest.mark.parametrize("key,e,short", [p for p in CASES if p.values[2] in p.values[1].get("corrected_check", {})])
def test_corrected_form_passes_the_same_check(key, e, short):
    kind, dom, fields = registry.CLAIMS[f"{key}.{short}"].spec
    new = corrected_fields(key, e, short)
    assert new != fields, "the correction changes the printed field"
    v = kinds.check(kind, dom, **new)
    assert v.status in PASSING, (e["key"], short, v.status, v.counterexample, v.note)


def test_the_printed_form_fails_where_the_correction_passes():
    # the substitution is what the erratum says: the printed member itself still fails
    for p in CASES:
        key, e, short = p.values
        if short in e.get("corrected_check", {}):
            assert derive.claim(f"{key}.{short}").check().status == "fails", (e["key"], short)


# ----------------------------------------------------------------------------- custom members
def _custom_errata():
    out = []
    for key in registry.PAPERS:
        for e in grouping_table(key):
            if any(registry.CLAIMS[cid].spec is None for cid in e["claims"]):
                out.append((key, e))
    return out


CUSTOM = _custom_errata()


def test_every_custom_erratum_names_the_check_of_its_correction_or_says_what_is_true():
    """A hand-checked member's correction is either checked by other claims (``corrected_by``: the claims
    that test the corrected reading) or the entry says why no check exists and what is true instead."""
    assert CUSTOM
    bad = [e["key"] for _, e in CUSTOM if not e.get("corrected_by") and not e.get("correction_unchecked")]
    assert not bad, f"errata with a custom member but neither corrected_by nor correction_unchecked: {bad}"
    both = [e["key"] for _, e in CUSTOM if e.get("corrected_by") and e.get("correction_unchecked")]
    assert not both, f"corrected_by and correction_unchecked together: {both}"


BY = [pytest.param(key, e, cid, id=f"{e['key']}:{cid}") for key, e in CUSTOM for cid in e.get("corrected_by", ())]


@pytest.mark.parametrize("key,e,cid", BY)
def test_the_claim_checking_a_correction_passes(key, e, cid):
    full = cid if cid.startswith(key + ".") else f"{key}.{cid}"
    assert full in registry.CLAIMS, (e["key"], cid)
    assert full not in e["claims"], "a correction is checked by another claim than the failing one"
    v = registry.CLAIMS[full].check()
    assert v.status in PASSING, (e["key"], cid, v.status, v.note)


def _entries():
    return [(key, e) for key in registry.PAPERS for e in grouping_table(key)]


def test_a_bound_that_still_holds_is_harmless_and_its_result_checks():
    """Issue 32, item 2: severity from the mathematics.  An entry naming the stated results that still
    hold (``result_holds_by``: Prop. 1's (42) keeps 1 - beta(0) >= 0, so it stays a valid, looser
    bound) is 'wrong but harmless', and each named claim holds when run here."""
    named = [(key, e) for key, e in _entries() if e.get("result_holds_by")]
    assert any(e["key"] == "appH_mass_at_zero" for _, e in named)
    for key, e in named:
        assert e["severity"] == "wrong but harmless", e["key"]
        for cid in e["result_holds_by"]:
            assert derive.claim(f"{key}.{cid}").check().status in PASSING, (e["key"], cid)


def test_every_correction_claim_is_registered_and_not_a_member():
    """A correction is checked by claims of its own (never by one of the failing members)."""
    for key, e in _entries():
        for cid in e.get("corrected_by", ()):
            assert f"{key}.{cid}" in registry.CLAIMS, (e["key"], cid)
            assert cid not in e["claims"], (e["key"], cid)


def test_probable_dump_errors_are_marked_and_not_counted_as_the_papers_mistakes():
    """Issue 32 item 3: the four entries of seed 002 that a PDF-to-text conversion very probably made
    (e^ell, App. F's 1/pi and 1/2 beside its (.)_perp, G_{1/2}, b for b-bar) carry ``dump_suspect``;
    the report lists them with the errata, marked, and leaves them out of the papers' totals."""
    import json
    from pathlib import Path

    from dpderive import errata as ER
    root = Path(__file__).resolve().parent.parent
    suspects = {e["key"] for e in ER.grouping_table("asoodeh2021") if e.get("dump_suspect")}
    assert suspects == {"eq13_ell", "appF_ranges", "remark2_gauss", "eq45_binary_kl"}
    recs = {k: json.loads((root / "reports" / f"{k}.json").read_text()) for k in ("asoodeh2021", "zheng2020", "ghazi_issa")}
    rep = ER.assemble(recs, {})
    marked = {e["key"].split(".", 1)[1] for e in rep["errata"] if e["dump_suspect"]}
    assert marked == suspects
    assert rep["n_dump"] == 4 and rep["n_mistakes"] == len(rep["errata"]) - 4
    assert sum(c["total"] for c in rep["counts"]) == rep["n_mistakes"]
    assert sum(c[ER.DUMP] for c in rep["counts"]) == 4
    md = ER.markdown(rep)
    assert md.splitlines()[2].startswith(f"{rep['n_mistakes']} mistakes of the papers")
    assert md.count("(probable dump error)") == 4 and md.count("Confirm against the published PDF") == 4


def _graded_entries():
    """The committed errata of the seeds with their failing claims' records (reports/*.json)."""
    import json
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent / "reports"
    rep = json.loads((root / "errata.json").read_text())
    recs = {}
    for key in registry.PAPERS:
        recs.update({r["id"]: r for r in json.loads((root / f"{key}.json").read_text())})
    return rep["errata"], recs


def test_each_severity_follows_from_the_checks_that_grade_it():
    """Issue 32, item 2: the graded severity of every entry is the one its checks infer
    (``errata.grade`` of the table's judgement and its failing claims' records), and the inference
    is pinned on entries of each grade: a notation / reference check grades a slip as notation, a
    formula's slip as a constant, sign or term, a stated result by where its counterexamples lie, a
    bound that stays valid as harmless."""
    from dpderive import errata as ER
    entries, recs = _graded_entries()
    by_key = {e["key"]: e for e in entries}
    for e in entries:
        members = [recs[c["id"]] for c in e["claims"]]
        assert e["severity"] == ER.grade(e["judgement"], members), e["key"]
        if e["severity"] == ER.G_NOTATION:
            assert all(m["kind"] in ER.NOTATION_KINDS for m in members), e["key"]
        if e["severity"] == ER.G_ALL:
            assert any(m["counterexample"].get("extent", "").startswith("everywhere") for m in members)
    expect = {"asoodeh2021.fdp_ref": ER.G_NOTATION, "ghazi_issa.lemma4_ref": ER.G_NOTATION,
              "ghazi_issa.def5_p0": ER.G_NOTATION, "asoodeh2021.eq76_sign": ER.G_TERM,
              "zheng2020.He7": ER.G_TERM, "asoodeh2021.appH_mass_at_zero": ER.G_HARMLESS,
              "zheng2020.asym_variance": ER.G_PART}
    for key, g in expect.items():
        assert by_key[key]["severity"] == g, key
    # every grade the model has but the proof step (none in the seeds) occurs
    assert {e["severity"] for e in entries} >= {ER.G_PART, ER.G_TERM, ER.G_HARMLESS, ER.G_NOTATION}


def test_grade_inference_on_records():
    from dpderive import errata as ER
    every = {"kind": "inequality", "counterexample": {"extent": "everywhere on the domain (16 of 16)"}}
    part = {"kind": "bound", "counterexample": {"extent": "on part of the domain (3 of 16)"}}
    note = {"kind": "notation", "counterexample": {}}
    assert ER.grade("changes a stated result", [part, every]) == ER.G_ALL
    assert ER.grade("changes a stated result", [part]) == ER.G_PART
    assert ER.grade("changes a stated result", [{"kind": "property", "counterexample": {}}]) == ER.G_PART
    assert ER.grade("typo", [note, dict(note, kind="reference")]) == ER.G_NOTATION
    assert ER.grade("typo", [note, part]) == ER.G_TERM
    assert ER.grade("wrong but harmless", [every]) == ER.G_HARMLESS
    assert ER.grade(ER.PROOF_STEP, [every]) == ER.PROOF_STEP
