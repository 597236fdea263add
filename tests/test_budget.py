"""A claim's wall-time budget (issue 31): a check past it ends ``inconclusive`` saying so, at
about the budget, the run goes on, and the verdict is not cached; the budget is set per file
and per claim; an outer timer (a harness's) survives a budgeted check."""
from __future__ import annotations

import signal
import time

import pytest

from derive import budget
from derive.claimfile import ClaimFile, ClaimFileError
from derive.core import Claim, Source, Verdict


def _claim(fn, seconds):
    return Claim(id="t.slow", paper="t", source=Source("x", "(1)"), kind="identity", statement="",
                 printed_latex="", check_fn=fn, budget_seconds=seconds)


def _spin():
    while True:                 # pure Python: interrupted between bytecodes
        sum(range(1000))


def test_a_check_past_its_budget_is_inconclusive_at_the_budget():
    t0 = time.perf_counter()
    v = _claim(_spin, 0.5).check()
    assert time.perf_counter() - t0 < 3
    assert v.status == "inconclusive" and v.method == "budget"
    assert "budget of 0.5 s" in v.note and "budget_seconds" in v.note


def test_a_check_within_its_budget_is_untouched():
    v = _claim(lambda: Verdict("proved", "sympy"), 5).check()
    assert v.status == "proved"
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)     # no timer left behind


def test_an_outer_timer_still_fires_after_a_budgeted_check():
    fired = []
    old = signal.signal(signal.SIGALRM, lambda *_: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.5)
        _claim(_spin, 0.3).check()
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0         # re-armed with what was left
        time.sleep(1.6)
        assert fired == [1]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_an_outer_deadline_sooner_than_the_budget_stays_in_charge():
    class Outer(BaseException):
        pass

    def alarm(*_):
        raise Outer()
    old = signal.signal(signal.SIGALRM, alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(Outer):
            _claim(_spin, 30).check()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


HEAD = '[paper]\nkey = "budget31"\ntitle = "t"\n{paper}\n[symbols]\nx = {{ domain = "(0, 1)" }}\n\n'
CLAIM = '[[claim]]\nid = "c"\nwhere = "(1)"\nkind = "inequality"\nlatex = \'x^{{2}} \\le x\'\n{extra}\n'


def test_budgets_come_from_the_claim_the_file_or_the_default(tmp_path, monkeypatch):
    f = tmp_path / "b.toml"
    f.write_text(HEAD.format(paper="budget_seconds = 7") + CLAIM.format(extra="budget_seconds = 2.5")
                 + CLAIM.format(extra="").replace('id = "c"', 'id = "d"'))
    cf = ClaimFile(f)
    by = {c.id: c for c in cf.claims}
    assert by["budget31.c"].budget_seconds == 2.5 and by["budget31.d"].budget_seconds == 7.0
    f.write_text(HEAD.format(paper="") + CLAIM.format(extra=""))
    (c,) = ClaimFile(f).claims
    assert c.budget_seconds is None
    monkeypatch.setenv("DPDERIVE_CLAIM_BUDGET", "42")
    assert budget.wall_seconds(c.budget_seconds) == 42.0
    monkeypatch.delenv("DPDERIVE_CLAIM_BUDGET")
    assert budget.wall_seconds(None) == budget.DEFAULT_WALL_SECONDS


@pytest.mark.parametrize("value", ["0", "-1", '"soon"', "true", "1e9"])
def test_a_bad_budget_is_one_clear_error(tmp_path, value):
    f = tmp_path / "b.toml"
    f.write_text(HEAD.format(paper="") + CLAIM.format(extra=f"budget_seconds = {value}"))
    with pytest.raises(ClaimFileError, match=r"budget_seconds=.* must be a number of seconds in \(0, 86400\]"):
        ClaimFile(f)


def test_a_budget_verdict_is_not_cached(tmp_path, monkeypatch):
    from dpderive.execution import DiskCache, check_claims, verdict_key
    monkeypatch.setenv("DPDERIVE_CACHE", str(tmp_path))
    c = _claim(_spin, 0.3)
    check_claims([c], workers=1, cache=True, progress=False)
    assert c._verdict.method == "budget"
    assert DiskCache("verdicts").get(verdict_key(c)) is None
