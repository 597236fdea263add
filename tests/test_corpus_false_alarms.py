"""The false-alarm corpus (issue 19, item 10): every claim in benchmarks/corpus/*.toml is a
well-known CORRECT result of the DP literature, so no verdict may be ``fails``.

EXPECTED TO FAIL until the engine rewrite of issue 19 (items 1-3) lands: the claims listed in
benchmarks/corpus/FALSE_ALARMS.md fail today (tolerance of tight bounds against root-finding
truths, the eps >= 0 convention of OptimalRdpEps, ...).  The test is not an xfail on purpose: it
is the acceptance test of that rewrite.  Failing today (2026-11-27): dwork_roth (laplace_pure_dp),
amplification_corners (pure_amplification_tiny_eps), balle2020_hockey (rdp_to_dp),
canonne_kamath_steinke (cks_eps_form, cks_corner), dong_roth_su_gdp (primal_dual); kairouz_composition
and zhu_wang_subsampling were still being checked when this was written (see FALSE_ALARMS.md).  Each corpus file is its own test case, so the report names
the files with false alarms; verdicts come from the cache of ``dpderive check`` when it is warm.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from derive.claimfile import ClaimFile
from dpderive import execution

CORPUS = Path(__file__).resolve().parent.parent / "benchmarks" / "corpus"
FILES = sorted(CORPUS.glob("*.toml"))


def test_corpus_is_large_enough():
    """At least 60 correct claims, with every claim kind represented."""
    claims = [c for f in FILES for c in ClaimFile(f).claims]
    assert len(claims) >= 60
    kinds = {c.spec[0] for c in claims}
    assert kinds >= {"identity", "inequality", "bound", "monotone", "convex", "concave", "derivative",
                     "limit", "asymptotic"}
    for c in claims:
        assert c.source.location.strip(), f"{c.id} cites no location in its source"


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_no_false_alarm(path):
    claims = ClaimFile(path).claims
    execution.check_claims(claims, progress=False, workers=2)
    bad = [f"{c.id}: {c._verdict.counterexample}" for c in claims if c._verdict.status == "fails"]
    assert not bad, "false alarms on correct claims:\n" + "\n".join(bad)
