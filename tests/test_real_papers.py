"""Real papers' claim files (benchmarks/corpus/papers/, issue 31 item 5 and issue 30): every
claim is proved or holds, except the printed proof steps of Mironov 2017 that are false as
printed, which fail with a certified counterexample inside their stated domain.  A wrong verdict
either way (a false alarm, or a missed slip) fails this test."""
from __future__ import annotations

from pathlib import Path

import pytest

from derive.claimfile import ClaimFile
from dpderive import execution

PAPERS = Path(__file__).resolve().parent.parent / "benchmarks" / "corpus" / "papers"

#: file stem -> the claims that fail as printed (benchmarks/corpus/papers/README.md says why)
EXPECTED_FAILS = {
    "mironov2017_rdp": {"lemma1_proof_tv_printed", "prop4_proof_case1_step", "sec7_markov_printed"},
    "bun_steinke2016_zcdp": set(),
}


def test_each_real_paper_file_is_large_and_cites_its_locations():
    assert sorted(p.stem for p in PAPERS.glob("*.toml")) == sorted(EXPECTED_FAILS)
    for p in PAPERS.glob("*.toml"):
        claims = ClaimFile(p).claims
        assert len(claims) >= 60, p.name
        assert all(c.source.location.strip() for c in claims)


@pytest.mark.slow
@pytest.mark.parametrize("stem", sorted(EXPECTED_FAILS))
def test_real_paper_verdicts(stem):
    claims = ClaimFile(PAPERS / f"{stem}.toml").claims
    execution.check_claims(claims, progress=False, workers=2)
    status = {c.id.split(".", 1)[1]: c._verdict for c in claims}
    fails = {k for k, v in status.items() if v.status == "fails"}
    assert fails == EXPECTED_FAILS[stem], ("unexpected fails", fails - EXPECTED_FAILS[stem],
                                           "missed", EXPECTED_FAILS[stem] - fails)
    other = {k: v.status for k, v in status.items() if v.status not in ("proved", "holds_numerically", "fails")}
    assert not other, other
    for k in fails:
        assert status[k].counterexample and status[k].certificate, k
