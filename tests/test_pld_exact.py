"""Issue 22 item 4: tighter certified lower ends.  Two-atom loss laws (randomized response,
with or without Poisson subsampling) by exact binomial sums in ball arithmetic
(numeric.pld_exact), checked against mpmath; the small-q subsampled Gaussian by the
gap-driven refinement of the optimistic lattice, checked against prv_accountant's bracket."""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from numeric import account, pld_exact
from numeric import events as EV


def _rr_eps_mpmath(e0, q, T, delta, dps=40):
    """The exact eps(delta) of T-fold Poisson(q)-subsampled randomized response (both add/remove
    orders, the worse), by binomial sums in mpmath and bisection to 1e-20."""
    with mp.workdps(dps):
        e0, q, delta = mp.mpf(e0), mp.mpf(q), mp.mpf(delta)
        p1 = 1 / (1 + mp.e ** e0)
        p0, q1 = 1 - p1, 1 - p1
        m1 = (1 - q) * p1 + q * q1 if q < 1 else q1
        m0 = 1 - m1
        out = []
        for P0, P1, Q0, Q1 in ((p0, p1, m0, m1), (m0, m1, p0, p1)):
            terms = [(mp.binomial(T, k) * Q1 ** k * Q0 ** (T - k), mp.binomial(T, k) * P1 ** k * P0 ** (T - k))
                     for k in range(T + 1)]

            def d(eps):
                return mp.fsum(max(a - mp.e ** eps * b, 0) for a, b in terms)
            lo, hi = mp.mpf(0), T * e0 + 1
            if d(lo) <= delta:
                out.append(lo)
                continue
            while hi - lo > mp.mpf("1e-20"):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
            out.append(hi)
        return float(max(out))


@pytest.mark.parametrize("e0,q,T,delta", [(1.0, 0.01, 400, 1e-6), (0.5, 0.5, 300, 1e-5),
                                          (0.5, 1.0, 300, 1e-5),
                                          (2.0, 0.1, 200, 1e-8)])
def test_rr_exact_bracket_contains_mpmath(e0, q, T, delta):
    sampling = EV.Poisson(q) if q < 1 else None
    r = account.epsilon([EV.Event(EV.RandomizedResponse(e0), sampling, T)], delta, "pld")
    truth = _rr_eps_mpmath(e0, q, T, delta)
    lo, hi = r.extras["epsilon_lower"], r.value
    assert lo <= truth <= hi
    # plain randomized response stays on its lattice (exact up to the FFT's float error)
    assert hi - lo <= (1e-9 if q < 1 else 1e-7) * max(truth, 1.0)


def test_rr_issue_case_gap():
    """eps0 = 1, q = 0.01, T = 5000, delta = 1e-6: the lattice gave [3.235, 3.496]; the exact
    value (mpmath, 50 digits, both orders) is 3.4959092315704628."""
    r = account.epsilon([EV.Event(EV.RandomizedResponse(1.0), EV.Poisson(0.01), 5000)], 1e-6)
    lo, hi = r.extras["epsilon_lower"], r.value
    assert lo <= 3.4959092315704628 <= hi
    assert hi - lo <= 1e-9


def test_rr_exact_delta_matches_profile_and_is_monotone():
    acc = EV.pld_accountant([EV.Event(EV.RandomizedResponse(1.0), EV.Poisson(0.05), 300)])
    assert isinstance(acc, pld_exact.ExactBinomialPLD)
    eps = np.linspace(0.0, 4.0, 9)
    lo, hi = acc.delta(eps)
    assert np.all(lo <= hi) and np.all(np.diff(hi) <= 0)
    elo, ehi = acc.epsilon(float(hi[3]))
    assert elo <= eps[3] * (1 + 1e-9) and ehi >= eps[3] * (1 - 1e-9)


def test_fixed_batch_rr_stays_on_the_lattice():
    """The fixed-batch symmetric pair has three atoms: the lattice PLD, not the binomial route."""
    acc = EV.pld_accountant([EV.Event(EV.RandomizedResponse(1.0), EV.WithoutReplacement(100, 10000), 50)],
                            "replace_one")
    assert not isinstance(acc, pld_exact.ExactBinomialPLD)


@pytest.mark.slow
def test_small_q_gap_within_half_percent():
    """sigma = 0.8, q = 1e-4, T = 2e5, delta = 1e-6: the lower end was 0.3203 (upper 0.3494).
    prv_accountant (eps_error 0.002) certifies [0.347058, 0.351062] around 0.349060."""
    r = account.epsilon([EV.Event(EV.Gaussian(0.8), EV.Poisson(1e-4), 200000)], 1e-6, "pld")
    lo, hi = r.extras["epsilon_lower"], r.value
    assert hi - lo <= 0.005 * hi
    assert lo <= 0.351062 and hi >= 0.347058
