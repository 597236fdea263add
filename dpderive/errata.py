"""The errata report: failing claims grouped into one erratum per mistake of a paper.

Each paper may carry a grouping table ``derive.papers.<key>.errata.ERRATA`` (root cause ->
failing claims, severity, printed and corrected forms with the differing term).  This module
joins that table with the claims' records (verdicts, counterexamples) and with the reproduction
findings that disagree with the paper, and renders

* ``errata.md``  : a summary table (paper, location, severity, one line), one section per
  erratum (printed vs corrected as a diff, the counterexample as a table of named parameters),
  the reproduction disagreements, and a short list of transcription artifacts;
* ``errata.json``: the same, one record per erratum (the failing claims' records inside);
* the LaTeX context of the PDF's errata section (templates/errata.tex.j2).

Nothing here is time- or machine-dependent: same records, same bytes.
"""
from __future__ import annotations

import importlib
import re

from derive import registry
from derive.core import SEED_CITES, cite_location

#: the severity model: a stated result is false; a display is wrong but nothing stated depends on it; a
#: step of a proof is false while the result it proves still checks; a slip the text corrects
PROOF_STEP = "a step of the proof is wrong; the result stands"
SEVERITIES = ("changes a stated result", "wrong but harmless", "typo", PROOF_STEP, "unclassified")

#: the graded model an entry reports (``grade``), inferred from the checks of its failing claims:
#: a stated result false everywhere on its domain or on part of it (the counterexample's extent);
#: a slip of a constant, a sign or a term (a formula of the text); wrong but harmless (the printed
#: statement is false, yet every result derived from it checks, or the printed bound is still valid,
#: only looser); notation or a cross-reference (its checks are of notation or reference); a proof step
G_ALL = "wrong everywhere on its domain"
G_PART = "wrong on part of its domain"
G_TERM = "a constant, sign or term"
G_HARMLESS = "wrong but harmless"
G_NOTATION = "notation or cross-reference"
GRADES = (G_ALL, G_PART, G_TERM, G_HARMLESS, PROOF_STEP, G_NOTATION)
_SEV_ORDER = {s: i for i, s in enumerate(GRADES)}
#: claim kinds whose checks are of the text's notation or references
NOTATION_KINDS = ("notation", "reference")


def grade(severity: str, members: list[dict]) -> str:
    """The graded severity of an entry (``GRADES``) from its judgement (``severity``: the table's,
    or ``severity_of``'s) and its failing claims' records: a false stated result is graded by where
    its counterexamples lie (``everywhere`` when a member's check found it false at every spread point
    of the domain; else on part of it: the milder reading where a custom check measures no extent); a
    slip whose every member is a notation or reference check is notation, any other slip a constant,
    sign or term; harmless and proof steps stay as judged (their checks: ``result_holds_by``, the
    proved result)."""
    if severity in (G_HARMLESS, PROOF_STEP):
        return severity
    if severity == "typo":
        if members and all(m.get("kind") in NOTATION_KINDS for m in members):
            return G_NOTATION
        return G_TERM
    extents = [((m.get("counterexample") or {}).get("extent", "") if isinstance(m.get("counterexample"), dict)
                else "") for m in members]
    return G_ALL if any(x.startswith("everywhere") for x in extents) else G_PART


def grouping_table(key: str) -> list[dict]:
    """The paper's erratum table (``derive/papers/<key>/errata.toml``, served by its errata.py), or [] when it has none."""
    try:
        mod = importlib.import_module(f"derive.papers.{key}.errata")
    except ModuleNotFoundError as exc:
        if exc.name not in (f"derive.papers.{key}", f"derive.papers.{key}.errata"):
            raise
        return []   # a claim file, or a paper without a table: one erratum per failing claim
    out = []
    for e in mod.ERRATA:
        if e["severity"] not in SEVERITIES:
            raise ValueError(f"erratum {key}.{e['key']}: severity={e['severity']!r} is not one of {SEVERITIES}")
        out.append(dict(e, paper_key=key, claims=[c if c.startswith(key + ".") else f"{key}.{c}"
                                                 for c in e["claims"]]))
    return out


# ----------------------------------------------------------------------------- counterexample tables
_GREEK = {"alpha": r"\alpha", "beta": r"\beta", "gamma": r"\gamma", "delta": r"\delta", "varepsilon": r"\varepsilon",
          "eps": r"\varepsilon", "epsilon": r"\varepsilon", "zeta": r"\zeta", "eta": r"\eta", "theta": r"\theta",
          "kappa": r"\kappa", "lambda": r"\lambda", "mu": r"\mu", "nu": r"\nu", "pi": r"\pi", "rho": r"\rho",
          "sigma": r"\sigma", "tau": r"\tau", "phi": r"\phi", "chi": r"\chi", "psi": r"\psi", "omega": r"\omega",
          "Delta": r"\Delta", "Gamma": r"\Gamma", "Phi": r"\Phi", "Sigma": r"\Sigma", "ell": r"\ell"}
_SIDE_LABELS = {"lhs": "left-hand side", "rhs": "right-hand side", "true": "true value (recomputed)",
                "printed": "printed form", "relation": "required relation", "relative_error": "relative error",
                "worst_point": "worst point found", "extent": "where it fails"}


def param_tex(name: str) -> str | None:
    """A parameter name as math ('alpha' -> \\alpha, 'Delta_2' -> \\Delta_{2}, 'E_P' -> E_{P}), or None
    when the name is prose ('printed equation')."""
    m = re.fullmatch(r"([A-Za-z]+)(?:_\{?([A-Za-z0-9]+)\}?)?", name)
    if not m:
        return None
    base, sub = m.groups()
    if base in _GREEK:
        base = _GREEK[base]
    elif len(base) > 1:
        return None
    if sub:
        sub = _GREEK.get(sub, sub)
        return f"{base}_{{{sub}}}"
    return base


_INTEGRAL_DECIMAL = re.compile(r"(?<![\w.])(-?\d+)\.0(?![\d.eE])")


def referee_numbers(text: str) -> str:
    """Numbers as a referee writes them: an integral decimal without its ``.0`` (10.0 -> 10,
    (0.5, 0.0) -> (0.5, 0)); every other digit kept (the JSON records keep the values as computed)."""
    return _INTEGRAL_DECIMAL.sub(r"\1", text)


def _val(v) -> str:
    if isinstance(v, (list, tuple)):
        return ", ".join(_val(x) for x in v)
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_val(x)}" for k, x in v.items())
    if isinstance(v, bool):
        return "yes" if v else "no"
    return referee_numbers(str(v))


_PMF_PAIR = re.compile(r"^\(\[([^\]]*)\],\s*\[([^\]]*)\]\)$")


def pair_value(v) -> str:
    """A searched pmf pair as a referee writes it: "P = (0.0177, 0.965), Q = (...)" (three
    significant digits; the record keeps every digit), else the value unchanged."""
    m = _PMF_PAIR.match(str(v).strip())
    if not m:
        return v
    try:
        p, q = ([float(x) for x in g.split(",")] for g in m.groups())
    except ValueError:
        return v
    fmt = lambda xs: "(" + ", ".join(f"{x:.3g}" for x in xs) + ")"     # noqa: E731
    return f"P = {fmt(p)}, Q = {fmt(q)}"


def counterexample_rows(ce) -> list[dict]:
    """Rows (name, math name or None, value) of a counterexample: the named parameters first, then
    both sides' values and the relation the check required.  The search's worst point (its own
    record) is left to the JSON: the entry quotes the counterexample, at a moderate point."""
    if not ce:
        return []
    rows = []
    if isinstance(ce, dict):
        params = ce.get("params")
        if isinstance(params, dict):
            for k, v in params.items():
                rows.append({"name": k, "math": param_tex(k), "value": _val(pair_value(v)), "kind": "parameter"})
        for k, v in ce.items():
            if k in ("params", "worst_point"):
                continue
            label = _SIDE_LABELS.get(k, k)
            if k == "relation":
                v = re.sub(r"\blhs\b", "left side", re.sub(r"\brhs\b", "right side", str(v)))
            if k == "distributions" and " with " in str(v):
                from .render import truth_latex
                parts = []
                for piece in str(v).split("; "):
                    head, _, tail = piece.partition(" with ")
                    tl = truth_latex(f"truth {head} from derive.truths; ") if tail else ""
                    parts.append(f"${tl}$, the library pair {tail}" if tl else piece)
                rows.append({"name": label, "math": None, "value": "; ".join(parts), "kind": "math"})
                continue
            if k == "quantity":
                from .render import truth_latex
                tl = truth_latex(f"truth {v} from derive.truths; ")
                if tl:
                    rows.append({"name": label, "math": None, "value": f"${tl}$", "kind": "math"})
                    continue
            rows.append({"name": label, "math": None, "value": _val(v), "kind": "value"})
    else:
        rows.append({"name": "counterexample", "math": None, "value": _val(ce), "kind": "value"})
    return rows


# ----------------------------------------------------------------------------- highlighting
def highlight(tex: str, fragment: str, macro: str) -> str:
    """``tex`` with every occurrence of ``fragment`` wrapped in ``\\macro{...}``."""
    if not fragment or fragment not in tex:
        return tex
    return tex.replace(fragment, "\\" + macro + "{" + fragment + "}")


# ----------------------------------------------------------------------------- assembling
def _loc(rec: dict) -> str:
    return rec.get("citation") or f"{SEED_CITES.get(rec['paper'], rec['paper'])}, {cite_location(rec['location'])}"


def _short_loc(rec: dict) -> str:
    return cite_location(rec["location"])


def assemble(records: dict[str, list[dict]], findings: dict[str, list[dict]] | None = None) -> dict:
    """Errata, artifacts and reproduction disagreements from each paper's claim records
    (``{paper_key: [Claim.record(), ...]}``) and its reproduction findings."""
    findings = findings or {}
    errata, artifacts, disagreements = [], [], []
    for key, recs in records.items():
        by_id = {r["id"]: r for r in recs}
        failing = {r["id"] for r in recs if r["verdict"] == "fails"}
        grouped = set()
        for g in grouping_table(key):
            members = [by_id[c] for c in g["claims"] if c in failing]
            grouped.update(g["claims"])
            if not members:
                continue                        # the mistake is gone (a claim re-verdicted): no erratum
            errata.append(dict(_erratum(key, g, members), **correction_of(key, g, by_id)))
        for cid in sorted(failing - grouped, key=list(by_id).index):
            g = generated_entry(by_id[cid], by_id)
            errata.append(dict(_erratum(key, g, [by_id[cid]], short=True), **correction_of(key, g, by_id)))
        for r in recs:
            if r["verdict"] == "artifact":
                a = r.get("artifact") or {}
                artifacts.append({"paper_key": key, "id": r["id"], "location": _loc(r), "seed": r["paper"],
                                  "printed_latex": r["printed_latex"], "version": a.get("version", ""),
                                  "version_printed": a.get("printed", ""), "version_claim": a.get("claim", ""),
                                  "why": a.get("why", "")})
        for x in findings.get(key, []):
            if not x.get("agrees", True):
                disagreements.append({"paper_key": key, "paper_cite": _paper_cite(key), "what": x["what"],
                                      "paper": x["paper"], "recomputed": x["recomputed"]})
    errata.sort(key=lambda e: (list(records).index(e["paper_key"]), _SEV_ORDER[e["severity"]], e["order"]))
    for i, e in enumerate(errata, 1):
        e["number"] = i
    mistakes, dump = _split(errata)
    return {"errata": errata, "artifacts": artifacts, "disagreements": disagreements,
            "counts": _counts(errata), "n_mistakes": mistakes, "n_dump": dump}


_STATUS_WORDS = {"proved": "proved", "holds_numerically": "holds numerically", "fails": "FAILS",
                 "inconclusive": "inconclusive", "artifact": "artifact"}


def correction_of(key: str, g: dict, by_id: dict) -> dict:
    """How the entry's correction is known to be right: the claims that check the corrected reading
    (``corrected_by``, with their verdicts), the corrected fields that pass the member's own checker
    (``corrected_check``, held by tests/test_corrections.py), or why no check exists
    (``correction_unchecked``).  ``correction`` is the sentence (Markdown); the other keys serve TeX."""
    by = []
    for cid in g.get("corrected_by", ()):
        full = cid if cid.startswith(key + ".") else f"{key}.{cid}"
        r = by_id.get(full)
        by.append({"id": full, "status": _STATUS_WORDS.get(r["verdict"], r["verdict"]) if r else "not checked"})
    # the member claims whose printed side the corrected form replaces (their field names are internal)
    members = [c if c.startswith(key + ".") else f"{key}.{c}" for c in (g.get("corrected_check") or {})]
    fields = ", ".join(members)
    unchecked = g.get("correction_unchecked", "")
    stands = []             # the stated results that still hold (a wrong display whose bound stays valid)
    for cid in g.get("result_holds_by", ()):
        full = cid if cid.startswith(key + ".") else f"{key}.{cid}"
        r = by_id.get(full)
        stands.append({"id": full, "status": _STATUS_WORDS.get(r["verdict"], r["verdict"]) if r else "not checked"})
    parts = []
    if by:
        parts.append("Correction checked by claim" + ("s " if len(by) > 1 else " ")
                     + ", ".join(f"`{b['id']}` ({b['status']})" for b in by) + ".")
    if fields:
        parts.append("Correction checked: the corrected form, put in place of the printed one in claim"
                     + ("s " if len(members) > 1 else " ") + ", ".join(f"`{m}`" for m in members)
                     + ", passes the same check on the same domain.")
    if unchecked:
        parts.append(f"Correction not checked separately: {unchecked}.")
    if stands:
        parts.append("The stated result still holds: claim" + ("s " if len(stands) > 1 else " ")
                     + ", ".join(f"`{b['id']}` ({b['status']})" for b in stands) + ".")
    return {"correction": " ".join(parts), "correction_by": by, "correction_fields": fields,
            "correction_unchecked": unchecked, "result_holds_by": stands}


def _sig(text, digits: int = 6) -> str:
    """A recorded value to ``digits`` significant digits for a title (the entry's table keeps them all)."""
    text = referee_numbers(str(text))
    if len(re.sub(r"[^0-9]", "", text.split("e")[0]).strip("0")) <= digits:
        return text
    try:
        return f"{float(text):.{digits}g}"
    except ValueError:
        return text


def severity_of(r: dict, by_id: dict | None = None) -> str:
    """The severity of a failing claim, from the checks: a step of a proof (``step_of``) whose result
    still checks is ``PROOF_STEP``; a slip by a constant factor or term is a typo; any other false
    statement changes a stated result, wherever on its domain it fails (near an edge included)."""
    ce = r.get("counterexample") or {}
    note = r.get("note") or ""
    extent = ce.get("extent", "") if isinstance(ce, dict) else ""
    result = (by_id or {}).get(r.get("step_of") or "")
    if result is not None and result.get("verdict") in ("proved", "holds_numerically"):
        return PROOF_STEP
    if "constant factor" in note or "constant term" in note:
        return "typo"
    if extent or r.get("verdict") == "fails":
        return "changes a stated result"
    return "unclassified"


def generated_entry(r: dict, by_id: dict | None = None) -> dict:
    """An erratum written from a failing claim's record alone (claim files, and seed claims no table
    groups): what is wrong in words and formulas, the printed form beside the true one where the
    checker derived it, and a severity from the checks (``severity_of``; ``by_id``: the file's records,
    for the result a proof step belongs to)."""
    ce = r.get("counterexample") or {}
    note = r.get("note") or ""
    extent = ce.get("extent", "") if isinstance(ce, dict) else ""
    printed, derived = r.get("printed_latex") or "", r.get("derived_latex") or ""
    severity = severity_of(r, by_id)
    if r["kind"] == "bound" and isinstance(ce, dict) and "bound" in ce:
        what = {"bound >= truth is violated": "is not an upper bound on",
                "bound <= truth is violated": "is not a lower bound on",
                "bound = truth is violated": "is not equal to"}.get(ce.get("relation", ""), "fails against")
        at = ", ".join(f"${param_tex(k) or k} = {v}$" for k, v in (ce.get("params") or {}).items())
        from .render import truth_latex
        tl = derived or truth_latex(r.get("method", "")) or truth_latex(f"truth {ce.get('quantity', '')} from derive.truths; ")
        truth = f"${tl}$" if tl else ce.get("quantity", "the truth")
        bound = f"${printed}$ " if printed else ""
        title = (f"the printed bound {bound}{what} {truth}: at {at} it is {_sig(ce['bound'])}, while the true "
                 f"value is {_sig(ce['truth'])}")
    elif derived and printed:
        title = f"the printed form is wrong: the true value is ${derived}$"
    elif isinstance(ce, dict) and ce.get("relation") and printed and "lhs" in ce and "rhs" in ce:
        nums, pairs = [], []
        for k, v in (ce.get("params") or {}).items():
            pv = pair_value(v)
            if str(pv).startswith("P ="):
                pairs.append(f"the pair {k} with {pv}")
            else:
                nums.append(f"${param_tex(k) or k} = {_sig(pv, 3)}$" if param_tex(k) else f"{k} = {_sig(pv, 3)}")
        at = " and ".join(x for x in (", ".join(nums), ", ".join(pairs)) if x)
        sides = re.split(r"\\(?:le|ge|leq|geq)\b|(?<![<>!])=|<|>", printed)
        if len(sides) == 2 and all(x.strip() for x in sides):
            left, right = (f"${x.strip()}$" for x in sides)
        else:
            left, right = "the left side", "the right side"
        title = (f"${printed}$ is false: {'at ' + at + ', ' if at else ''}{left} is {_sig(ce['lhs'], 3)} "
                 f"and {right} is {_sig(ce['rhs'], 3)}")
    elif isinstance(ce, dict) and ce.get("relation"):
        title = f"{r['statement']}: {ce['relation']}"
    else:
        title = f"{r['statement']}: fails"
    if extent:
        title += f" ({extent.split(' (')[0]})"
    step = (by_id or {}).get(r.get("step_of") or "")
    stands = (f"The result it is a step of, claim {step['id']} at {step['location']}, "
              f"{_STATUS_WORDS.get(step['verdict'], step['verdict'])}." if severity == PROOF_STEP else "")
    explanation = "; ".join(x for x in (note, f"The claim fails {extent}." if extent else "") if x)
    explanation = " ".join(x for x in (explanation, stands) if x)
    return {"key": r["id"].split(".", 1)[1], "severity": severity, "title": title,
            "printed": printed, "corrected": derived, "wrong": "", "right": "", "setting": "",
            "explanation": explanation, "claims": [r["id"]]}


def _paper_cite(key: str) -> str:
    seeds = registry.PAPERS.get(key, {}).get("seeds", ())
    return SEED_CITES.get(seeds[0], key) if seeds else key


def _erratum(key: str, g: dict, members: list[dict], short: bool = False) -> dict:
    """``short``: the locations without the paper's name (an entry written from its record names the
    paper once, in its heading)."""
    first = members[0]
    return {
        "paper_key": key, "key": f"{key}.{g['key']}", "severity": grade(g["severity"], members),
        "judgement": g["severity"], "title": g["title"],
        "paper_cite": SEED_CITES.get(first["paper"], first["paper"]),
        "locations": list(dict.fromkeys(_short_loc(r) if short else _loc(r) for r in members)),  # each once
        "short_locations": ", ".join(dict.fromkeys(_short_loc(r) if r["paper"] == first["paper"] else _loc(r)
                                                   for r in members)),
        "printed": g.get("printed", ""), "corrected": g.get("corrected", ""),
        "wrong": g.get("wrong", ""), "right": g.get("right", ""),
        "printed_hl": highlight(g.get("printed", ""), g.get("wrong", ""), "wrongterm"),
        "corrected_hl": highlight(g.get("corrected", ""), g.get("right", ""), "rightterm"),
        "setting": _method_words(g.get("setting", "")), "explanation": g.get("explanation", ""),
        "dump_suspect": g.get("dump_suspect", ""),
        "claims": [{"id": r["id"], "location": _short_loc(r) if short else _loc(r), "statement": r["statement"],
                    "method": _method_words(r["method"] or ""),
                    # the method may name its digits already ("confirmed at 50", "at 30 digits"): once
                    "precision": None if _NAMES_DIGITS.search(r["method"] or "") else r.get("precision"),
                    "points": r.get("points"),
                    "rows": counterexample_rows(r["counterexample"]), "note": r["note"],
                    "seed": r["paper"], "counterexample": r["counterexample"],
                    "certificate": certificate_line(r.get("certificate"))} for r in members],
        "order": min(_order_of(r) for r in members),
    }


def _method_words(method: str) -> str:
    """A check's method as the entry prints it: digits said once, internal names in words, the truth
    it compared with typeset in the literature's notation."""
    from .render import _TRUTH_METHOD, truth_latex
    m = _TRUTH_METHOD.match(method or "")
    tl = truth_latex(method) if m else ""
    if tl:
        method = f"truth ${tl}$ (dpderive's independent computation); " + method[m.end():]
    method = _CONFIRMED_AT.sub(r"confirmed at \1 digits", method)
    for internal, words in _INTERNAL_NAMES:
        method = method.replace(internal, words)
    return method


_INTERNAL_NAMES = ((" from derive.truths", " (dpderive's independent computation)"),
                   ("mp_minimize", "numerical minimisation"))
_CONFIRMED_AT = re.compile(r"confirmed at (\d+)(?![\d-]| digits)")
_NAMES_DIGITS = re.compile(r"\b\d+ digits\b|confirmed at \d+|\d+-digit")


def certificate_line(cert: dict | None) -> str:
    """One line naming how the failure is known: the balls (precision, the difference's enclosure), the
    truth's error budget, or the kind of evidence of a custom check."""
    if not cert:
        return ""
    return referee_numbers(_certificate_line(cert))


def _certificate_line(cert: dict) -> str:
    m = cert.get("method", "")
    if "difference_ball" in cert:
        return f"{m}: difference {cert['difference_ball']} at {cert.get('precision_bits')} bits (excludes 0)"
    if "budget" in cert and "violation" in cert:
        return f"{m}: violation {cert['violation']} > budget {cert['budget']}"
    return m


def _order_of(rec: dict) -> int:
    return list(registry.CLAIMS).index(rec["id"]) if rec["id"] in registry.CLAIMS else 0


#: the column of entries that are probably conversion errors of a text dump (``dump_suspect``)
DUMP = "probable dump error"


def _counts(errata: list[dict]) -> list[dict]:
    """Per paper: its mistakes by severity and their total; the probable dump errors beside them,
    not in the total (a conversion of the PDF may have made them: the paper may print them right)."""
    out = {}
    for e in errata:
        c = out.setdefault(e["paper_cite"], {**{s: 0 for s in GRADES}, DUMP: 0})
        c[DUMP if e.get("dump_suspect") else e["severity"]] += 1
    return [{"paper": p, **c, "total": sum(c[s] for s in GRADES)} for p, c in out.items()]


def _split(errata: list[dict]) -> tuple[int, int]:
    """(the papers' mistakes, the probable dump errors) among the entries."""
    dump = sum(1 for e in errata if e.get("dump_suspect"))
    return len(errata) - dump, dump


# ----------------------------------------------------------------------------- JSON and Markdown
def json_records(rep: dict) -> dict:
    """errata.json: one record per erratum (with its failing claims' records), then the artifacts and
    the reproduction disagreements."""
    errata = []
    for e in rep["errata"]:
        errata.append({k: e[k] for k in ("number", "key", "paper_key", "paper_cite", "severity", "judgement", "title",
                                         "locations", "printed", "corrected", "wrong", "right", "setting",
                                         "explanation", "dump_suspect")}
                      | {"claims": [{k: c[k] for k in ("id", "location", "seed", "statement", "method",
                                                       "precision", "counterexample", "certificate", "note")}
                                    for c in e["claims"]]})
    return {"errata": errata, "transcription_artifacts": rep["artifacts"],
            "reproduction_disagreements": rep["disagreements"], "counts": rep["counts"]}


def _md_cell(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def markdown(rep: dict) -> str:
    errata = rep["errata"]
    mistakes, dump = _split(errata)
    L = ["# Errata found by dpderive", "",
         f"{_count(mistakes, 'mistake')} of the papers (each may appear at several locations), "
         + (f"{_count(dump, 'probable conversion error')} of the text dumps (marked; to be confirmed against "
            "the published PDF, and not counted among the papers' mistakes), " if dump else "")
         + f"{_count(len(rep['disagreements']), 'reproduced number')} that disagree with the text"
         + (f", and {_count(len(rep['artifacts']), 'transcription artifact')} of the text dumps (not errata)."
            if rep["artifacts"] else "."),
         "Every counterexample lies inside the paper's stated domain; the values are reproducible from "
         "the entry alone (distributions and precision are named).", "",
         "## Summary", "", "| # | paper | location | severity | mistake |", "| ---: | --- | --- | --- | --- |"]
    for e in errata:
        sev = f"{e['severity']} ({DUMP})" if e.get("dump_suspect") else e["severity"]
        L.append(f"| {e['number']} | {e['paper_cite']} | {_md_cell(e['short_locations'])} | {sev} | "
                 f"{_md_cell(e['title'])} |")
    L += ["", "| paper | wrong everywhere | wrong on part of the domain | a constant, sign or term | wrong but "
          "harmless | proof step (result stands) | notation or reference | total | probable dump errors (not in "
          "the total) |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for c in rep["counts"]:
        L.append(f"| {c['paper']} | " + " | ".join(str(c[g]) for g in GRADES) + f" | {c['total']} | {c[DUMP]} |")
    L += ["", "Severity is graded from the checks: a stated result false everywhere on its domain or on part "
          "of it (where the counterexamples lie); a slip of a constant, sign or term in a formula; wrong but "
          "harmless (the printed statement is false, but what the paper derives from it checks, or the "
          "printed bound stays valid, looser); notation or a cross-reference.  Slips of notation and "
          "cross-references are reported wherever found, in every paper, each as an entry of its own; slips "
          "of typesetting that change no symbol (spacing, fonts, punctuation) are not listed."]
    L.append("")
    for e in errata:
        L += [f"## {e['number']}. {e['paper_cite']}, {e['short_locations']}: {e['title']}", "",
              f"*Severity:* {e['severity']}.  *Locations:* " + "; ".join(e["locations"]) + ".", ""]
        if e.get("dump_suspect"):
            L += [f"*Probably a conversion error of the text dump, not of the paper:* {e['dump_suspect']}. "
                  "Confirm against the published PDF before correcting.", ""]
        if e["printed"] or e["corrected"]:
            if e["printed"] and e["corrected"]:
                L += ["```diff", f"- {e['printed']}", f"+ {e['corrected']}", "```"]
            else:
                L += [f"Printed: `{e['printed']}`." if e["printed"] else f"Corrected: `{e['corrected']}`."]
            if e["wrong"] or e["right"]:
                L.append(f"Changed term: `{e['wrong'] or '(nothing)'}` → `{e['right']}`.")
            L.append("")
        if e["explanation"]:
            L += [e["explanation"], ""]
        if e.get("correction"):
            L += [e["correction"], ""]
        for c in e["claims"]:
            prec = f", {c['precision']} digits" if c["precision"] else ""
            setting = f" Setting: {e['setting']}." if e["setting"] else ""
            L += [f"**Counterexample** ({c['location']}; claim `{c['id']}`).{setting} Check: {c['method']}{prec}.", ""]
            if c.get("certificate"):
                L += [f"Certificate: {c['certificate']}.", ""]
            if c["rows"]:
                L += ["| quantity | value |", "| --- | --- |"]
                L += [f"| {_md_cell(r['name'])} | {_md_cell(r['value'])} |" for r in c["rows"]]
                L.append("")
            if c["note"]:
                L += [f"Note: {c['note']}", ""]
    if rep["disagreements"]:
        L += ["## Reproduced numbers that disagree with the text", "",
              "| paper | what | the paper says | recomputed |", "| --- | --- | --- | --- |"]
        L += [f"| {d['paper_cite']} | {_md_cell(d['what'])} | {_md_cell(d['paper'])} | {_md_cell(d['recomputed'])} |"
              for d in rep["disagreements"]]
        L.append("")
    if rep["artifacts"]:
        L += ["## Transcription artifacts (not errata)", "",
              "The printed form in one text dump fails, but another version of the same paper prints it "
              "correctly.", ""]
    for a in rep["artifacts"]:
        L.append(f"- {a['location']} (`{a['id']}`): {a['why']}. Correct in {a['version']}: "
                 f"`{a['version_printed']}`" + (f" (claim `{a['version_claim']}` holds)" if a["version_claim"] else "")
                 + ".")
    return "\n".join(L).rstrip("\n") + "\n"
