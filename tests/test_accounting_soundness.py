"""Soundness of the accountant at random (issue 11, item 6): the certified upper bound is
never below an independent reference, and an exact reference is never below the certified
lower bound.  A CI-sized seeded sample of ``benchmarks/soundness_audit.py`` (which runs
>= 1e4 cases); the references are closed forms (heterogeneous Gaussian phases compose to
one G_mu), exact binomial sums (randomized response) or a finer PLD's optimistic end."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from numeric import account
from numeric import events as EV

_spec = importlib.util.spec_from_file_location(
    "soundness_audit", Path(__file__).resolve().parent.parent / "benchmarks" / "soundness_audit.py")
audit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(audit)


def test_references_are_right():
    """The references themselves: G_mu at mu = 1 (a known value) and RR with n = 1."""
    # delta(eps) of G_1 at eps = 1: Phi(-1/2) - e Phi(-3/2) = 0.308537539 - e 0.066807201
    assert math.exp(audit.gdp_log_delta(1.0, 1.0)) == pytest.approx(0.308537539 - math.e * 0.066807201, abs=2e-9)
    e = audit.exact_gdp_eps(1.0, math.exp(audit.gdp_log_delta(1.0, 1.0)))
    assert e == pytest.approx(1.0, abs=1e-10)
    # one randomized response at eps_rr: delta(eps) = (e^eps_rr - e^eps)/(1 + e^eps_rr) for eps < eps_rr
    assert audit.rr_delta(1.0, 1.0, 1, 0.3) == pytest.approx((math.e - math.exp(0.3)) / (1 + math.e))


def _cases(n, seed, kinds):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        case = audit.random_case(rng)
        if case[0] in kinds:
            out.append(case)
    return out


@pytest.mark.parametrize("case", _cases(160, 11, {"gauss", "rr"}), ids=lambda c: c[0])
def test_exact_references(case):
    kind, evs, delta = case
    with np.errstate(all="ignore"):
        rec = audit.check(kind, evs, delta)
    assert "refused" not in rec, rec
    assert rec["finite"] and not rec["under_report"] and not rec["lower_violation"], rec


@pytest.mark.parametrize("case", _cases(24, 12, {"sgauss", "laplace", "mixed"}), ids=lambda c: c[0])
def test_finer_pld_reference(case):
    kind, evs, delta = case
    with np.errstate(all="ignore"):
        rec = audit.check(kind, evs, delta)
    assert "refused" not in rec, rec
    assert rec["finite"] and not rec["under_report"], rec


@pytest.mark.parametrize("seed", range(12))
def test_delta_route_sound_on_gaussian_phases(seed):
    """delta(eps) by the default route is at least the exact G_mu delta."""
    rng = np.random.default_rng(100 + seed)
    evs = [EV.Event(EV.Gaussian(float(rng.uniform(1, 20))), None, int(rng.integers(1, 500)))
           for _ in range(int(rng.integers(1, 4)))]
    mu = math.sqrt(sum(e.count / e.mechanism.sigma ** 2 for e in evs))
    eps = float(rng.uniform(0.1, 3 * mu + 1))
    truth = math.exp(audit.gdp_log_delta(eps, mu))
    r = account.delta(evs, eps)
    assert r.value >= truth * (1 - 1e-9)
    assert r.extras["delta_lower"] <= truth * (1 + 1e-9)
