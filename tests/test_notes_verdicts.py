"""A verdict and its note never disagree: read every seed claim's record in the committed sidecars
(reports/<paper>.json, one record per claim; the note there is the verdict's note and the claim's
note joined) and fail on any contradiction.  Fast: nothing is re-checked.

The word list (MISTAKE_WORDS) is built from the ways a note can say "the paper is wrong here", in four
families; each entry is a phrase that, in this project's notes, has no other use:

* judgement   -- the note names a mistake: "typo", "misprint", "slip", "wrong", "incorrect",
  "mistake", "erratum"/"errata", "sign error";
* prescription -- the note says what the paper should have printed: "should be", "should read",
  "must be", "is meant", "instead of";
* omission    -- the note says something printed is absent: "omit" (omits, omitted), "omission",
  "missing", "misses", "is missed", "drops the", "dropped";
* contrast    -- the note sets the printed text against the truth: "not O(" (a printed order
  contradicted), "printed '" (quoting the printed form against another), "upside down",
  "calls it" ("the footnote calls it X; it is Y"), and "printed ... differs" (a regex: the printed
  form gives something else than what was checked).

Checked on the sidecars before this test existed, the list flags four of the six records issue 19
names (remark2_lines "printed '", footnote2 "calls it", he_err "omission", eq45 "printed ... differs");
appG.eq110 (note pointing to a failing claim, statement contradicting the verdict) and sec3_2.f_EW
(checking a corrected mu_n without saying so) are not visible in words: they were fixed in the claims.

Deliberately not in the list: "error" (approximation errors are the subject of many true claims),
"printed" alone (notes describe what was checked "as printed"), "not" alone.

Rules:
1. A passing verdict (proved, holds_numerically) whose note uses a MISTAKE_WORDS phrase contradicts
   itself, unless the note names (by id) another claim that fails and is grouped in an erratum: then
   the mistake is reported where it belongs and the note only points there.
2. A failing verdict whose note says that the printed statement holds ("holds as printed", "the
   mapping is right", "no mistake", "not an erratum") contradicts itself.  Notes of failing claims may
   say that a *corrected* form holds ("'<=' is right", "holds with b-bar"), which is not a
   contradiction, so only assertions about the printed statement itself are matched.
3. Every failing record is reported: it is listed in its paper's errata table.
4. The sidecars cover the registry: one record per registered seed claim (else rules 1-3 would read a
   stale file).
"""
import json
import re
from pathlib import Path

import pytest

from derive import registry
from dpderive.errata import grouping_table

registry.load_all()
REPORTS = Path(__file__).resolve().parents[1] / "reports"
PAPERS = ("asoodeh2021", "zheng2020", "ghazi_issa")

MISTAKE_WORDS = (
    # judgement
    "typo", "misprint", "slip", "wrong", "incorrect", "mistake", "erratum", "errata", "sign error",
    # prescription
    "should be", "should read", "must be", "is meant", "instead of",
    # omission
    "omit", "omission", "missing", "misses", "is missed", "drops the", "dropped",
    # contrast with the printed text
    "not o(", "printed '", "upside down", "calls it",
)
PASSING = ("proved", "holds_numerically")
# an unqualified assertion that the printed statement holds ("right only when ..." is a qualification,
# i.e. the statement fails elsewhere, which agrees with a failing verdict)
HOLDS_AS_PRINTED = (r"\bholds as printed\b(?! only)", r"\bas printed,? (it )?holds\b(?! only)",
                    r"\bthe mapping is right\b(?! only)",
                    r"\bthe printed (form|statement|display|bound) (holds|is right|is correct)\b(?! only)",
                    r"\bno (mistake|erratum)\b", r"\bnot an? (mistake|erratum)\b")


@pytest.fixture(scope="module")
def records():
    out = {}
    for key in PAPERS:
        for r in json.loads((REPORTS / f"{key}.json").read_text()):
            out[r["id"]] = r
    return out


@pytest.fixture(scope="module")
def grouped():
    return {c for key in PAPERS for e in grouping_table(key) for c in e["claims"]}


def _named(note: str, paper: str, records: dict) -> set:
    ids = set()
    for tok in re.findall(r"[A-Za-z][\w]*(?:\.[\w]+)+", note):
        for cid in (tok, f"{paper}.{tok}"):
            if cid in records:
                ids.add(cid)
    return ids


CONTRAST_RE = (r"\bprinted\b[^;]*\bdiffers?\b",)


def mistake_words(note: str) -> list:
    low = note.lower()
    return [w for w in MISTAKE_WORDS if w in low] + [p for p in CONTRAST_RE if re.search(p, low)]


def test_the_word_list_reads_as_documented():
    flagged = ["the printed O(1/L^2) omits log factors", "typo for rho alpha", "sign slip in the second term",
               "the second line has slope -e^eps (printed 'slope e^eps')", "remainder O(log^3 L/L^2), not O(1/L^2)",
               "the footnote then calls it an approximation to F_n(h)", "F~_n where F_n is meant",
               "the list of terms inherits the omission of claim chi_err",
               "with d as printed (b for b-bar) the set differs"]
    clean = ["the remainder is checked as O((log L)^3/L^2)", "fitted order n^-2.0, faster than the stated n^-3/2",
             "worst error 1e-30 at 30 digits", "the range is wider than the feasible TVs"]
    assert all(mistake_words(n) for n in flagged)
    assert not any(mistake_words(n) for n in clean)


def test_sidecars_hold_one_record_per_registered_claim(records):
    registered = {c.id for key in PAPERS for c in registry.claims(key)}
    assert set(records) == registered, (sorted(registered - set(records))[:10], sorted(set(records) - registered)[:10])


def test_no_passing_verdict_speaks_of_a_mistake(records, grouped):
    bad = []
    for cid, r in records.items():
        if r["verdict"] not in PASSING:
            continue
        words = mistake_words(r["note"] or "")
        if not words:
            continue
        carriers = [x for x in _named(r["note"], r["paper_key"], records)
                    if x != cid and records[x]["verdict"] == "fails" and x in grouped]
        if not carriers:
            bad.append((cid, r["verdict"], words, r["note"][:160]))
    assert not bad, "passing verdicts whose note describes a mistake no erratum reports:\n" + "\n".join(map(str, bad))


def test_the_holds_patterns_read_as_documented():
    said = ["the mapping is right; the list of terms is not", "holds as printed", "this is not a mistake"]
    qualified = ["the printed form is right only when beta(0) = 1", "'<=' is right and the strict '<' is the slip",
                 "sup is needed (sec5.remark2_lines holds with it)"]
    assert all(any(re.search(p, n) for p in HOLDS_AS_PRINTED) for n in said)
    assert not any(any(re.search(p, n) for p in HOLDS_AS_PRINTED) for n in qualified)


def test_no_failing_verdict_says_the_printed_form_holds(records):
    bad = [(cid, r["note"][:160]) for cid, r in records.items() if r["verdict"] == "fails"
           and any(re.search(p, (r["note"] or "").lower()) for p in HOLDS_AS_PRINTED)]
    assert not bad, bad


def test_every_failing_record_is_reported(records, grouped):
    missing = [cid for cid, r in records.items() if r["verdict"] == "fails" and cid not in grouped]
    assert not missing, f"failing claims in no erratum: {missing}"
    assert all(records[c]["counterexample"] for c in records if records[c]["verdict"] == "fails")
