"""The PLD route for fixed-size batches (sampling B of N without replacement, gamma = B/N,
replace-one neighbours; numeric/pld.py "fixed-size batches") against independent truths:

(a) gamma = 1 is the plain mechanism under replace-one: the Gaussian's closed-form profile
    with mu = sensitivity / sigma (sensitivity 2 = 2C: mu = 2/sigma);
(b) mpmath truths of the dominating pair built independently of numeric.pld: one step from
    derive.truths' Poisson-subsampled Gaussian pair (both orders), two steps by quadrature over
    an explicitly constructed symmetric pair, randomized response by exact pmf composition of
    the pair read off the convex hull of min{f_gamma, f_gamma^{-1}} (Dong, Roth, Su 2019
    Thm. 4.2; 004 Sec. 2); the bracket contains them, and the lower end stays below the
    attained fixed orders;
(c) dp_accounting's PLD of the fixed-order pair (its Poisson add/remove accountant at noise
    multiplier sigma/sensitivity is exactly the worse of the two orders composed with
    themselves): our lower end agrees with it, our upper end is not below it;
(d) on DP-SGD-like cases the PLD upper bound is below the rdp bound and above the PLD lower.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from derive import truths
from derive.errors import DomainError
from numeric import account, pld
from numeric import events as EV


@pytest.fixture(autouse=True)
def _mp_dps():
    old = mp.mp.dps
    mp.mp.dps = 20
    yield
    mp.mp.dps = old


def _fixed(mech, b, n, count):
    return [EV.Event(mech, EV.WithoutReplacement(b, n), count)]


def _bracket(events, eps):
    acc = EV.pld_accountant(events, "replace_one")
    lo, hi = acc.delta(np.asarray(eps, dtype=float))
    return lo, hi


# ----------------------------------------------------------------------------- (a) gamma = 1
@pytest.mark.parametrize("sigma,sens,count", [(2.0, 2.0, 1), (4.0, 2.0, 10), (1.5, 2.0, 3)])
def test_whole_batch_is_the_plain_gaussian_under_replace_one(sigma, sens, count):
    """B = N: every step sees the whole data set; replacing one record moves the sum by at
    most the replace-one sensitivity, so T steps are G_mu with mu = sqrt(T) sens / sigma:
    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (computed in mpmath)."""
    events = _fixed(EV.Gaussian(sigma, sens), 1000, 1000, count)
    mu = mp.sqrt(count) * mp.mpf(sens) / mp.mpf(sigma)
    eps = [-0.5, 0.0, 0.5, 1.0, 2.0]
    lo, hi = _bracket(events, eps)
    for e, a, b in zip(eps, lo, hi):
        e = mp.mpf(e)
        ex = float(mp.ncdf(-e / mu + mu / 2) - mp.e ** e * mp.ncdf(-e / mu - mu / 2))
        assert a <= ex <= b and b - a <= 1e-2 * ex + 1e-12
    r = account.epsilon(events, 1e-5, "pld", neighbouring="replace_one")
    ex = truths.eps_of_delta(truths.gaussian_pair(mu), mp.mpf("1e-5"))
    assert r.extras["epsilon_lower"] <= float(ex) <= r.value <= float(ex) * 1.01


def test_fixed_models_refuse_gamma_one_and_asymmetric_pairs():
    with pytest.raises(DomainError, match="sampling_ratio"):
        pld.fixed_gaussian_models(1.0, 1.0)
    with pytest.raises(DomainError, match="q"):
        pld.fixed_discrete_models(np.array([0.5, 0.5]), np.array([0.9, 0.1]), 0.1)


# ----------------------------------------------------------------------------- (b) truths
def _sym_pair_hockey(g, mu, t):
    """E_{e^t}(Q~ || P~) of the symmetric pair built explicitly on three pieces: the right
    copy of {x > mu/2} carrying (P, M) = (N(0,1), (1-g) N(0,1) + g N(mu,1)), the left copy of
    {x > mu/2} carrying them swapped (M, P), and a point of mass m0 under both, where
    m0 = 1 - M(x > mu/2) - P(x > mu/2).  Closed form from the CDFs at the crossings of the
    (monotone) likelihood ratio."""
    g, mu, t = mp.mpf(g), mp.mpf(mu), mp.mpf(t)
    x0 = mu / 2
    P_sf = lambda x: mp.ncdf(-x)                                         # noqa: E731
    M_sf = lambda x: (1 - g) * mp.ncdf(-x) + g * mp.ncdf(mu - x)         # noqa: E731

    def cross(s):            # x with log(dM/dP)(x) = s, None when dM/dP > e^s everywhere
        y = (mp.e ** s - 1 + g) / g
        return (mp.log(y) + mu * mu / 2) / mu if y > 0 else None

    c = cross(t)
    a = x0 if c is None or c < x0 else c
    right = M_sf(a) - mp.e ** t * P_sf(a)
    b = cross(-t)
    left = mp.mpf(0)
    if b is not None and b > x0:
        left = (P_sf(x0) - P_sf(b)) - mp.e ** t * (M_sf(x0) - M_sf(b))
    m0 = 1 - M_sf(x0) - P_sf(x0)
    return right + left + m0 * max(1 - mp.e ** t, 0)


def _fixed_order_hockey(g, mu, t, order):
    """E_{e^t}(M || P) ("PM": the pair (P, M)) or E_{e^t}(P || M) ("MP") from the CDFs."""
    g, mu, t = mp.mpf(g), mp.mpf(mu), mp.mpf(t)
    y = (mp.e ** (t if order == "PM" else -t) - 1 + g) / g
    c = (mp.log(y) + mu * mu / 2) / mu if y > 0 else -mp.inf
    P_cdf = lambda x: mp.ncdf(x)                                         # noqa: E731
    M_cdf = lambda x: (1 - g) * mp.ncdf(x) + g * mp.ncdf(x - mu)         # noqa: E731
    if order == "PM":
        return max((1 - M_cdf(c)) - mp.e ** t * (1 - P_cdf(c)), 0)
    return max(P_cdf(c) - mp.e ** t * M_cdf(c), 0) if c > -mp.inf else mp.mpf(0)


def _two_steps(g, mu, eps, hockey):
    """delta_2(eps) = E_{a ~ Q~}[E_{e^{eps - L(a)}}(Q~ || P~)] by mpmath quadrature over the
    first outcome (the inner step in closed form)."""
    g, mu = mp.mpf(g), mp.mpf(mu)
    x0 = mu / 2
    p = lambda x: mp.npdf(x)                                             # noqa: E731
    m = lambda x: (1 - g) * mp.npdf(x) + g * mp.npdf(x, mu)              # noqa: E731
    L = lambda x: mp.log(m(x) / p(x))                                    # noqa: E731
    pts = [x0, x0 + 1, mu + 2, mu + 6, mp.inf]
    if hockey == "sym":
        h = lambda t: _sym_pair_hockey(g, mu, t)                         # noqa: E731
        m0 = 1 - ((1 - g) * mp.ncdf(-x0) + g * mp.ncdf(mu - x0)) - mp.ncdf(-x0)
        right = mp.quad(lambda x: m(x) * h(eps - L(x)), pts)
        left = mp.quad(lambda x: p(x) * h(eps + L(x)), pts)
        return right + left + m0 * h(eps)
    h = lambda t: _fixed_order_hockey(g, mu, t, hockey)                 # noqa: E731
    if hockey == "PM":       # outcomes under M with loss log(m/p)
        return mp.quad(lambda x: m(x) * h(eps - L(x)), [-mp.inf, -6, 0, x0, mu + 6, mp.inf])
    return mp.quad(lambda x: p(x) * h(eps + L(x)), [-mp.inf, -6, 0, x0, mu + 6, mp.inf])


@pytest.mark.parametrize("g,sigma,sens", [(0.2, 2.0, 2.0), (0.05, 1.0, 2.0)])
def test_one_step_gaussian_is_the_subsampling_theorem(g, sigma, sens):
    """T = 1, eps >= 0: the profile is max(E(M||P), E(P||M)) of derive.truths' Poisson-
    subsampled Gaussian pair at noise sigma/sens (Balle, Barthe, Gaboardi 2018; the left part
    of C_gamma(f)); eps < 0: 1 - e^eps + e^eps delta(-eps), as for any symmetric pair."""
    events = _fixed(EV.Gaussian(sigma, sens), int(round(g * 1000)), 1000, 1)
    pair = truths.subsampled_gaussian_pair(g, mp.mpf(sigma) / sens)
    eps = [0.0, 0.1, 0.5, 1.0, 2.0]
    lo, hi = _bracket(events, eps + [-e for e in eps[1:]])
    for i, e in enumerate(eps):
        ex = truths.delta_of_eps(pair, e)
        assert lo[i] <= float(ex) <= hi[i] and hi[i] - lo[i] <= 1e-3 * float(ex) + 1e-12
        assert float(ex) == pytest.approx(float(_sym_pair_hockey(g, sens / sigma, e)), rel=1e-12)
        if i:
            neg = 1 - mp.e ** -e + mp.e ** -e * ex
            j = len(eps) + i - 1
            assert lo[j] <= float(neg) <= hi[j]
            assert float(neg) == pytest.approx(float(_sym_pair_hockey(g, sens / sigma, -e)), rel=1e-12)


@pytest.mark.parametrize("g,mu", [(0.2, 1.0), (0.5, 2.0)])
def test_two_gaussian_steps_bracket_the_symmetric_pair(g, mu):
    """T = 2 by quadrature: the symmetric pair's delta lies in the bracket, and it is strictly
    larger than both fixed orders composed with themselves (self-composing the worst-case
    pair of one step would under-report: the pitfall), which lie above the lower end."""
    events = _fixed(EV.Gaussian(2.0 / mu, 2.0), int(round(g * 100)), 100, 2)
    eps = [0.0, 0.5, 1.0, 2.0]
    lo, hi = _bracket(events, eps)
    for e, a, b in zip(eps, lo, hi):
        sym = _two_steps(g, mu, mp.mpf(e), "sym")
        fixed = max(_two_steps(g, mu, mp.mpf(e), "PM"), _two_steps(g, mu, mp.mpf(e), "MP"))
        assert a <= float(fixed) * (1 + 1e-9) and float(sym) <= b
        assert b <= float(sym) * (1 + 2e-3) + 1e-12       # the upper end is tight for the pair
        assert fixed < sym * (1 - 1e-4)                    # the orders do not dominate


def _rr_hull_pair(e, g):
    """The pmf pair whose trade-off curve is the lower convex hull of the vertices of
    f_gamma = T(p, (1-g) p + g q) and of f_gamma^{-1} (its reflection), randomized response
    p = (e^e, 1)/(1+e^e), q = p reversed; one outcome per hull segment."""
    e, g = mp.mpf(e), mp.mpf(g)
    p = [mp.e ** e / (1 + mp.e ** e), 1 / (1 + mp.e ** e)]
    q = p[::-1]
    mix = [(1 - g) * a + g * b for a, b in zip(p, q)]
    hull = truths.symmetrised_pair(truths.DPair(p, mix).vertices(), "rr hull",
                                   mp.mpf(10) ** -18)                     # rounding slivers
    return hull, truths.DPair(p, mix, "rr (P, M)")


@pytest.mark.parametrize("e,g,T", [(1.0, 0.1, 1), (1.0, 0.1, 8), (2.0, 0.3, 20), (0.5, 0.01, 40)])
def test_randomized_response_brackets_the_hull_pair(e, g, T):
    hull, order = _rr_hull_pair(e, g)
    assert float(mp.fsum(hull.P)) == pytest.approx(1, abs=1e-15)
    assert float(mp.fsum(hull.Q)) == pytest.approx(1, abs=1e-15)
    assert len(hull.P) == 3                     # f_gamma, the slope -1 segment, f_gamma^{-1}
    comp, fixed = truths.compose(hull, T), truths.compose(order, T)
    events = _fixed(EV.RandomizedResponse(e), int(round(g * 1000)), 1000, T)
    eps = [0.0, 0.05, 0.2, 0.5]
    lo, hi = _bracket(events, eps)
    for x, a, b in zip(eps, lo, hi):
        sym = truths.delta_of_eps(comp, x)
        fx = truths.delta_of_eps(fixed, x)
        assert a <= float(fx) * (1 + 1e-12) and fx <= sym * (1 + 1e-15) and float(sym) <= b * (1 + 1e-12)
        assert b <= float(sym) * (1 + 1e-2) + 1e-11       # + the certified float-error allowance
        # the lattice nearly holds both atoms of the fixed orders: their lower end is tight
        assert a >= float(fx) * (1 - 1e-2) - 1e-11


@pytest.mark.parametrize("g,t", [(0.1, 1.0), (0.3, 0.5)])
def test_one_laplace_step(g, t):
    """T = 1: eps >= 0 is E_{e^eps}(M || P) with M = (1-g) Lap(0,1) + g Lap(t,1), P = Lap(0,1)
    (mpmath quadrature split at the kinks and the crossing); eps < 0 the symmetric-pair identity."""
    g, t = mp.mpf(g), mp.mpf(t)
    events = _fixed(EV.Laplace(1.0, float(t)), int(round(g * 100)), 100, 1)
    p = lambda x: mp.e ** (-abs(x)) / 2                                  # noqa: E731
    m = lambda x: (1 - g) * p(x) + g * mp.e ** (-abs(x - t)) / 2         # noqa: E731

    def hs(e):
        lam = mp.e ** e
        return mp.quad(lambda x: max(m(x) - lam * p(x), 0), [-mp.inf, 0, t / 2, t, mp.inf])
    eps = [0.0, 0.05, 0.2]
    lo, hi = _bracket(events, eps + [-0.05, -0.2])
    for i, e in enumerate(eps):
        ex = hs(e)
        # the upper end is tight; so is the lower end, whose lattice nearly holds the fixed
        # order's two atoms (rounding them down would cost O(h))
        assert lo[i] <= float(ex) <= hi[i] <= float(ex) * (1 + 1e-4) and lo[i] >= (1 - 1e-3) * float(ex)
    for j, e in enumerate([0.05, 0.2]):
        ex = 1 - mp.e ** -e + mp.e ** -e * hs(e)
        assert lo[3 + j] <= float(ex) <= hi[3 + j]


def test_substitution_model_masses():
    """The symmetric pair's discretised law has Q-mass 1 and E[e^{-L}] = 1 (it is a pair of
    probability measures), for the three mechanisms."""
    for models in (pld.fixed_gaussian_models(1.0, 0.01), pld.fixed_laplace_models(1.0, 0.2),
                   pld.fixed_discrete_models(np.array([0.7, 0.3]), np.array([0.3, 0.7]), 0.05)):
        d = pld.discretise(models["substitution"], 1e-3, True)
        assert d.w.sum() + d.inf_mass == pytest.approx(1, abs=1e-12)
        assert np.sum(d.w * np.exp(-d.losses)) == pytest.approx(1, abs=1e-12)


# ----------------------------------------------------------------------------- (c) dp_accounting
@pytest.mark.parametrize("mech,g,T", [("gaussian", 256 / 60000, 235), ("gaussian", 0.05, 40),
                                      ("laplace", 0.1, 20), ("laplace", 0.01, 500)])
def test_against_dp_accounting_fixed_order_pld(mech, g, T):
    dpa = pytest.importorskip("dp_accounting", reason="dp_accounting not installed (pip install "
                              "dp-accounting; the bench extra)")
    from dp_accounting.pld import pld_privacy_accountant
    interval = 1e-4
    acc = pld_privacy_accountant.PLDAccountant(dpa.NeighboringRelation.ADD_OR_REMOVE_ONE,
                                               value_discretization_interval=interval)
    if mech == "gaussian":
        sigma, sens = 2.0, 2.0             # noise multiplier sigma/sens = 1 at sensitivity 1
        inner = dpa.GaussianDpEvent(sigma / sens)
        ours = EV.Gaussian(sigma, sens)
    else:
        scale, sens = 4.0, 2.0
        inner = dpa.LaplaceDpEvent(scale / sens)
        ours = EV.Laplace(scale, sens)
    acc.compose(dpa.PoissonSampledDpEvent(g, inner), T)
    theirs = acc.get_epsilon(1e-5)
    n = 60000 if g == 256 / 60000 else 1000
    r = account.epsilon(_fixed(ours, int(round(g * n)), n, T), 1e-5, "pld", neighbouring="replace_one")
    lo, hi = r.extras["epsilon_lower"], r.value
    # their pessimistic PLD of the fixed orders is >= that truth >= our optimistic lower end
    assert lo <= theirs * (1 + 1e-6)
    assert theirs - lo <= 2e-3 * theirs            # the same pair: the two agree closely
    # our upper end bounds the symmetric pair, which dominates the fixed orders; their
    # discretisation adds at most T * interval to the loss
    assert hi >= theirs - T * interval


# ----------------------------------------------------------------------------- (d) vs rdp
@pytest.mark.parametrize("mech,b,n,T", [(EV.Gaussian(2.0, 2.0), 256, 60000, 235),
                                        (EV.Gaussian(1.1, 2.0), 256, 60000, 2350),
                                        (EV.Laplace(8.0, 2.0), 100, 10000, 500),
                                        (EV.RandomizedResponse(1.0), 100, 10000, 500)])
def test_pld_is_tighter_than_rdp_and_best_takes_it(mech, b, n, T):
    events = _fixed(mech, b, n, T)
    rdp = account.epsilon(events, 1e-5, "rdp", neighbouring="replace_one").value
    r = account.epsilon(events, 1e-5, "pld", neighbouring="replace_one")
    assert r.extras["epsilon_lower"] <= r.value < rdp
    assert rdp >= r.extras["epsilon_lower"]
    best = account.epsilon(events, 1e-5, "best", neighbouring="replace_one")
    assert best.extras["route"] == "pld" and best.value == r.value
    assert best.extras["epsilon_lower"] == r.extras["epsilon_lower"]
    assert best.extras["rdp_epsilon"] == rdp


def test_heterogeneous_fixed_batches_compose():
    """Two fixed-batch phases and an unsampled randomized-response step: the composition's
    bracket sits between each part's own lower end and the sum of the parts' upper ends."""
    ph1 = EV.Event(EV.Gaussian(2.0, 2.0), EV.WithoutReplacement(256, 60000), 100)
    ph2 = EV.Event(EV.Gaussian(1.5, 2.0), EV.WithoutReplacement(512, 60000), 50)
    rr = EV.Event(EV.RandomizedResponse(0.3), None, 1)
    whole = account.epsilon([ph1, ph2, rr], 1e-5, "pld", neighbouring="replace_one")
    parts = [account.epsilon([e], 1e-5, "pld", neighbouring="replace_one") for e in (ph1, ph2)]
    assert whole.extras["epsilon_lower"] <= whole.value
    assert whole.extras["epsilon_lower"] >= max(p.extras["epsilon_lower"] for p in parts)
    rdp = account.epsilon([ph1, ph2, rr], 1e-5, "rdp", neighbouring="replace_one").value
    assert whole.value < rdp
