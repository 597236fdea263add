"""Issue 34, item 3: the ordinary DP-SGD trade-off query runs in bounded memory and its curve
is still a sound lower bound on the true trade-off curve.

``dpderive tradeoff --sigma 0.15 --sampling-rate 0.01 --steps 100`` peaked at 3.5 GB: the
upper envelope of the pessimistic curve's 2e4 supporting lines was evaluated as a
(breakpoints x lines) matrix (``numeric.fdp.upper_envelope``).  Here: its peak RSS in a
subprocess, its values against those the quadratic evaluation printed, the Gaussian case
against the exact G_mu, and the subsampled case against dp_accounting's PLD in the dual
(a convex curve f lies below the truth f_true exactly when its privacy profile
delta_f(eps) = sup_alpha (1 - f(alpha) - e^eps alpha) lies above delta_true at every eps; a
certified lower bound on delta_true is dp_accounting's optimistic PLD).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

from numeric import fdp, pld

ROOT = Path(__file__).resolve().parent.parent
QUERY = ["tradeoff", "--sigma", "0.15", "--sampling-rate", "0.01", "--steps", "100"]
LIMIT_KB = 1536 * 1024            # 1.5 GB (the target is 1 GB; it measures ~0.11 GB)
# the curve this query printed before the change (alpha = 0, 0.1, ..., 1; --json)
BEFORE_BETA = [0.4969678381229714, 0.26923795864700784, 0.1692379586470078, 0.06923795864700777,
               4.882363262393937e-06, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
# ... and pld.subsampled_gaussian(0.15, 0.01, 100).tradeoff() at smaller alpha
BEFORE_AT = {1e-9: 0.49579334074288317, 1e-6: 0.4205330382984711, 1e-4: 0.37636437139744416,
             1e-3: 0.36868704129277924, 0.01: 0.3592379586470078, 0.05: 0.3192379586470078,
             0.35: 0.019237958647007836}
ROUNDING = 1e-12                  # what a different FFT build may move a value by (numpy 2.4.6's moves
                                  # alpha = 0.1..0.3 up by 1.2e-15 after 100 compositions; the curve's
                                  # soundness is held by the G_mu and dp_accounting tests below)
LOOSER = 1e-4                     # how much lower (looser) than before a value may be


def _no_higher_and_close(new, old):
    new, old = np.asarray(new, float), np.asarray(old, float)
    assert np.all(new <= old + ROUNDING), "the curve rose above the previous sound curve"
    assert np.all(new >= old - LOOSER), "the curve got looser by more than 1e-4"


def test_tradeoff_query_peak_rss_and_values():
    """The query in a child of a fresh interpreter (so that RUSAGE_CHILDREN's maximum is this
    query's alone): under 1.5 GB, and the printed curve as before (never above it)."""
    probe = ("import json, resource, subprocess, sys\n"
             "r = subprocess.run([sys.executable, '-m', 'dpderive.cli', *sys.argv[1:], '--json'],"
             " capture_output=True, text=True)\n"
             "print(json.dumps({'rc': r.returncode, 'out': r.stdout, 'err': r.stderr[-500:],"
             " 'maxrss_kb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))\n")
    got = subprocess.run([sys.executable, "-c", probe, *QUERY], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    rec = json.loads(got.stdout)
    assert rec["rc"] == 0, rec["err"]
    assert rec["maxrss_kb"] < LIMIT_KB, f"peak RSS {rec['maxrss_kb'] / 1024:.0f} MB"
    info = json.loads(rec["out"])
    assert info["guarantee"] is True and info["method"] == "pld"
    assert info["alpha"] == pytest.approx(np.linspace(0, 1, 11).tolist(), abs=0)
    _no_higher_and_close(info["beta"], BEFORE_BETA)


def test_tradeoff_curve_at_small_alpha_as_before():
    c = pld.subsampled_gaussian(0.15, 0.01, 100).tradeoff("pessimistic")
    a = np.array(list(BEFORE_AT))
    _no_higher_and_close(c(a), list(BEFORE_AT.values()))


@pytest.mark.parametrize("sigma,steps", [(2.0, 16), (1.0, 100), (0.5, 3)])
def test_gaussian_pld_curve_below_exact(sigma, steps):
    """Without subsampling the truth is G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu), mu = sqrt(T)/sigma
    (Dong, Roth, Su 2019): the PLD curve lies below it, and close."""
    c = pld.subsampled_gaussian(sigma, 1.0, steps).tradeoff("pessimistic")
    a = np.concatenate((np.logspace(-12, -1, 23), np.linspace(0.1, 1.0, 19)))
    exact = norm.cdf(norm.ppf(1 - a) - np.sqrt(steps) / sigma)
    b = c(a)
    assert np.all(b <= exact + ROUNDING)
    assert np.max(exact - b) < 1e-3


@pytest.mark.parametrize("sigma,q,steps,h,tight_above", [(0.15, 0.01, 100, 1e-3, 0.51),
                                                         (1.0, 0.01, 500, 1e-4, 1e-9)])
def test_subsampled_curve_profile_above_dp_accounting_optimistic(sigma, q, steps, h, tight_above):
    """The profile of our pessimistic curve (computed exactly from its vertices) is never below
    dp_accounting's optimistic PLD (a lower bound on the true delta, add-or-remove neighbours:
    the worse direction, as our symmetrised curve); so the curve lies below the truth.  Where
    dp_accounting's pessimistic delta exceeds ``tight_above`` ours is within 1% of it (our
    curve's +oo mass, 0.503 at sigma = 0.15, floors its profile beyond eps ~ 15)."""
    pytest.importorskip("dp_accounting", reason="dp_accounting not installed (the bench extra)")
    from dp_accounting.pld import privacy_loss_distribution as P
    eps = np.array([0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 40.0])
    theirs = {}
    for pess in (True, False):
        d = P.from_gaussian_mechanism(standard_deviation=sigma, sampling_prob=q,
                                      pessimistic_estimate=pess, use_connect_dots=pess,
                                      value_discretization_interval=h).self_compose(steps)
        theirs[pess] = np.array([d.get_delta_for_epsilon(float(e)) for e in eps])
    ours = pld.subsampled_gaussian(sigma, q, steps).tradeoff("pessimistic").delta(eps)
    assert np.all(ours >= theirs[False] - 1e-12)
    tight = theirs[True] > tight_above
    assert tight.sum() >= 4
    assert np.all(ours[tight] <= theirs[True][tight] * 1.01)


def test_upper_envelope_is_the_maximum_of_the_lines_in_linear_memory():
    """At each breakpoint the value is the maximum over every line (up to rounding, never above
    it), and 2e4 lines take a few MB (the quadratic evaluation took 3.5 GB)."""
    rng = np.random.default_rng(7)
    for n in (3, 50, 2000):
        e = np.sort(rng.uniform(-3, 25, n))
        d = np.clip(np.exp(-rng.uniform(0.2, 2) * e), 0, 1)
        b, m = np.concatenate(([0.0], 1 - d)), np.concatenate(([0.0], -np.exp(e)))
        xs, ys = fdp.upper_envelope(b, m)
        full = np.max(b[None, :] + m[None, :] * xs[:, None], axis=1)
        assert np.all(ys <= full) and np.max(full - ys) <= 1e-15
        assert np.all(ys >= 0)                      # the line 0 is always among those evaluated
    e = np.linspace(-2, 400, 20_000)
    d = np.minimum(np.exp(-e / 8), 1.0)
    tracemalloc.start()
    try:
        fdp.upper_envelope(np.concatenate(([0.0], 1 - d)), np.concatenate(([0.0], -np.exp(e))))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64e6


def test_piecewise_linear_profile_by_blocks_matches_one_block():
    """delta / epsilon of a curve with many vertices at many queries: blocks of (query, vertex)
    pairs give what one (queries x vertices) matrix gives."""
    c = pld.subsampled_gaussian(1.0, 0.01, 500).tradeoff("pessimistic")
    eps = np.linspace(0.0, 12.0, 2001)
    assert eps.size * c.x.size > fdp._BLOCK_ENTRIES           # several blocks
    with np.errstate(divide="ignore", over="ignore"):
        ex = np.where(c.x[None, :] > 0, np.exp(eps[:, None] + np.log(np.maximum(c.x, 1e-320))[None, :]),
                      0.0)
    best = np.max(1.0 - c.y[None, :] - ex, axis=1)
    from numeric.solvers import round_up
    want = np.clip(round_up(best) + fdp._ABS_SLACK * (best > 0), 0.0, 1.0)
    assert np.array_equal(c.delta(eps), want)
    dl = np.logspace(-12, -0.5, 300)
    assert np.array_equal(c.epsilon(dl), np.array([float(c.epsilon(float(v))) for v in dl]))
    assert c.delta(np.array([[1.0, 2.0]])).shape == (1, 2)


def _loky_workers() -> list[int]:
    """This process's loky worker processes (from /proc: their command line names loky's popen)."""
    me, out = str(os.getpid()), []
    for d in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
            cmd = Path(f"/proc/{d}/cmdline").read_bytes()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] == me and b"popen_loky" in cmd:
            out.append(int(d))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_release_workers_stops_the_idle_check_workers(tmp_path, monkeypatch):
    """``report`` releases the loky workers of its check before the figures (each idle worker
    holds SymPy and the papers, ~170 MB); a later parallel check starts fresh ones."""
    from derive import registry
    from dpderive import execution as E
    monkeypatch.setenv("DPDERIVE_CACHE", str(tmp_path))
    registry.load_paper("zheng2020")
    claims = list(registry.claims("zheng2020"))[:3]
    saved = [c._verdict for c in claims]
    try:
        for c in claims:
            c._verdict = None
        E.check_claims(claims, workers=2, cache=False, progress=False)
        if E.available_cores() < 2:
            pytest.skip("one core: the check ran in this process")
        assert _loky_workers()
        E.release_workers()
        assert not _loky_workers()
        for c in claims:
            c._verdict = None
        E.check_claims(claims, workers=2, cache=False, progress=False)
        assert all(c._verdict is not None for c in claims)
    finally:
        E.release_workers()
        for c, v in zip(claims, saved):
            c._verdict = v
