"""Verdict discipline: a verdict never contradicts its own note, an artifact names the version that
prints the statement correctly, and the errata tables cover exactly the failing claims.

The rule for notes (documented here, applied to the claim's note and the verdict's note together):

* A claim whose verdict is ``proved``, ``holds_numerically`` or ``inconclusive`` must not say that
  the paper is wrong: its note may not contain any of ``ERROR_WORDS`` ("omits", "should read",
  "typo", "sign slip", ...) -- unless the note names, by id, another claim whose verdict is ``fails``
  or ``artifact`` (the mistake is carried by that claim, e.g. "the printed O-term itself is claim
  appG.eq110_oterm").  A mistake described in a note is therefore always a failing claim somewhere.
* A ``fails`` verdict carries a counterexample.
* An ``artifact`` claim names another version of the paper (``Claim.artifact``) whose printed
  fragment occurs verbatim in that version's seed text, and the claim checking that version (if
  named) holds.
* Every failing claim belongs to exactly one erratum of its paper's grouping table, and every claim a
  table lists fails (so a re-verdicted claim cannot leave a stale erratum behind).
"""
import re

import pytest

from derive import registry
from dpderive.errata import SEVERITIES, grouping_table

from conftest import SEEDS

pytestmark = pytest.mark.slow      # checks every claim (about a minute); still runs in CI

ERROR_WORDS = ("omit", "should read", "should be", "typo", "slip", "misprint", "wrong", "erratum", "incorrect",
               "upside down", "missing", "is missed", "misses", "sign error", "drops the", "must be")

registry.load_all()
CLAIMS = registry.claims()


@pytest.fixture(scope="module")
def verdicts():
    return {c.id: c.check() for c in CLAIMS}


def _notes(c, v) -> str:
    return "; ".join(x for x in (v.note, c.note) if x)


def _named_claims(text: str, paper: str) -> set[str]:
    """Claim ids a note names: full ids, or ids relative to the paper ('appG.eq110_oterm')."""
    out = set()
    for tok in re.findall(r"[A-Za-z][\w]*(?:\.[\w]+)+", text):
        for cid in (tok, f"{paper}.{tok}"):
            if cid in registry.CLAIMS:
                out.add(cid)
    return out


def test_error_words_are_matched_as_documented():
    # the rule itself: these notes would be flagged on a claim that holds, these would not
    flagged = ["the printed O(1/L^2) omits log factors", "typo for rho alpha", "sign slip in the second term"]
    clean = ["the remainder is checked as O((log L)^3/L^2)", "the strict form asks more than the proof needs"]
    assert all(any(w in n.lower() for w in ERROR_WORDS) for n in flagged)
    assert not any(any(w in n.lower() for w in ERROR_WORDS) for n in clean)


def test_no_note_contradicts_its_verdict(verdicts):
    bad = []
    for c in CLAIMS:
        v = verdicts[c.id]
        if v.status in ("fails", "artifact"):
            continue
        note = _notes(c, v).lower()
        words = [w for w in ERROR_WORDS if w in note]
        if not words:
            continue
        carriers = [x for x in _named_claims(_notes(c, v), c.paper) if verdicts.get(x, registry.CLAIMS[x].check()).status
                    in ("fails", "artifact")]
        if not carriers:
            bad.append((c.id, v.status, words, _notes(c, v)[:160]))
    assert not bad, "notes that describe a mistake while the verdict says it holds:\n" + "\n".join(map(str, bad))


def test_failing_claims_carry_a_counterexample(verdicts):
    assert not [cid for cid, v in verdicts.items() if v.status in ("fails", "artifact") and not v.counterexample]


def _seed_text(name: str) -> str:
    return re.sub(r"\s+", " ", (SEEDS / name).read_text(errors="replace"))


# the renderings of one version of a paper (seed files): an artifact is only where two of them disagree
# (000 and 001 are two dumps of the ISIT 2020 paper), or where a dump's text disagrees with its own LaTeX
# alt-text (same seed).  A form one version prints and another version fixes is an erratum of the first.
SAME_VERSION = [{"000_719a574de2899529.txt", "001_7a33c8c9f53e52ce.txt"}]


def _same_version(a: str, b: str) -> bool:
    return a == b or any({a, b} <= group for group in SAME_VERSION)


def test_artifacts_name_a_version_that_prints_it_right(verdicts):
    arts = [c for c in CLAIMS if verdicts[c.id].status == "artifact"]
    for c in arts:
        a = c.artifact
        assert _same_version(a["seed"], c.source.seed), (c.id, "an artifact names another rendering of the "
                                                          "same version, not another version", a["seed"])
        assert a["why"] and a["version"], c.id
        if a.get("claim"):
            assert verdicts[a["claim"]].status in ("proved", "holds_numerically"), (c.id, a["claim"])
    # an artifact marker on a claim that does not fail would hide nothing: it must fail as printed
    for c in CLAIMS:
        if c.artifact:
            assert verdicts[c.id].status == "artifact", c.id


@pytest.mark.provenance
def test_artifacts_other_version_prints_it_as_quoted():
    """The other version's fragment an artifact claim quotes occurs verbatim in that version's seed text
    (every claim with an artifact marker has the verdict ``artifact``: the test above)."""
    for c in (c for c in CLAIMS if c.artifact):     # none today: every former artifact is an erratum
        a = c.artifact
        assert re.sub(r"\s+", " ", a["printed"]) in _seed_text(a["seed"]), (c.id, a["printed"])


def test_errata_tables_cover_exactly_the_failing_claims(verdicts):
    for key in registry.PAPERS:
        failing = {cid for cid, v in verdicts.items() if v.status == "fails" and registry.CLAIMS[cid].paper == key}
        listed = []
        for e in grouping_table(key):
            assert e["severity"] in SEVERITIES[:3], e["key"]
            assert e["title"] and e["corrected"] and e["setting"], e["key"]
            if e["wrong"]:
                assert e["wrong"] in e["printed"], (e["key"], e["wrong"])
            if e["right"]:
                assert e["right"] in e["corrected"], (e["key"], e["right"])
            listed += e["claims"]
        assert len(listed) == len(set(listed)), f"{key}: a claim is in two errata"
        assert set(listed) == failing, (f"{key}: not grouped {sorted(failing - set(listed))}; "
                                        f"listed but not failing {sorted(set(listed) - failing)}")


def test_counterexamples_stay_in_the_stated_domain(verdicts):
    """eps >= 0, delta in (0, 1), sigma > 0, alpha > 1 (for Renyi orders), 0 < q <= 1 wherever a
    counterexample names those parameters."""
    ranges = {"varepsilon": lambda x: x >= 0, "delta": lambda x: 0 < x < 1, "sigma": lambda x: x > 0,
              "q": lambda x: 0 < x <= 1, "mu": lambda x: x > 0}
    bad = []
    for cid, v in verdicts.items():
        if v.status != "fails" or not isinstance(v.counterexample, dict):
            continue
        params = v.counterexample.get("params")
        if not isinstance(params, dict):
            continue
        for k, ok in ranges.items():
            if k in params:
                try:
                    x = float(params[k])
                except (TypeError, ValueError):
                    continue
                if not ok(x):
                    bad.append((cid, k, params[k]))
        if "alpha" in params and cid.startswith("asoodeh2021") and "plug" not in cid:
            try:
                if float(params["alpha"]) <= 1:
                    bad.append((cid, "alpha", params["alpha"]))
            except (TypeError, ValueError):
                pass
    assert not bad, bad
