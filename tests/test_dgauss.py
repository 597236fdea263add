"""The discrete Gaussian mechanism N_Z(0, sigma^2) vs N_Z(Delta, sigma^2) (Canonne, Kamath,
Steinke 2020, "The Discrete Gaussian for Differential Privacy", NeurIPS) end to end: the PLD
bracket against exact mpmath composition of the pmf pair (derive.truths), the RDP curve above
the exact Renyi divergence of the pair, the approach to the continuous Gaussian as sigma grows,
the ``best`` route, and the command line's bad-input errors."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

from derive import truths
from derive.errors import DomainError
from numeric import account, pld, rdp
from numeric import events as EV

ROOT = Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------------------- the truth in mpmath
def _logz(sigma):
    """log sum_y e^{-y^2/(2 sigma^2)} over |y| <= 40 sigma + 10 (the rest is below e^-800)."""
    s2 = 2 * mp.mpf(sigma) ** 2
    Y = int(40 * sigma) + 10
    return mp.log(mp.fsum(mp.exp(-mp.mpf(y) ** 2 / s2) for y in range(-Y, Y + 1)))


def _pmf(sigma, mu, xs):
    s2 = 2 * mp.mpf(sigma) ** 2
    lz = _logz(sigma)
    return [mp.exp(-(mp.mpf(x) - mu) ** 2 / s2 - lz) for x in xs]


def _truth_pair(sigma, delta, q=None):
    """The pair on x in [-K, Delta + K] (N_Z(0, sigma^2)[|X| > K] < 1e-36) plus one outcome
    'rest' merging the outcomes outside: a post-processing of the true pair, so its profile is
    <= the truth and >= the truth - T * (rest mass) after T-fold composition.  With ``q`` the
    Poisson-subsampled pair (P, (1 - q) P + q Q).  Returns (DPair, rest mass)."""
    K = int(math.ceil(13 * sigma)) + 2
    xs = list(range(-K, delta + K + 1))
    P, Q = _pmf(sigma, 0, xs), _pmf(sigma, delta, xs)
    if q is not None:
        q = mp.mpf(q)
        Q = [(1 - q) * p + q * qq for p, qq in zip(P, Q)]
    rp, rq = 1 - mp.fsum(P), 1 - mp.fsum(Q)
    tiny = mp.mpf(10) ** (-mp.mp.dps + 5)                 # rounding of the working precision
    assert -tiny <= rp < mp.mpf(10) ** -30 and -tiny <= rq < mp.mpf(10) ** -30
    rp, rq = max(rp, 0) + tiny, max(rq, 0) + tiny
    return truths.DPair(P + [rp], Q + [rq], "discrete gaussian"), max(rp, rq) + tiny


CASES = [(s, d, t) for s in (0.5, 1.0, 2.0) for d in (1, 2) for t in (1, 2, 3)]


@pytest.mark.parametrize("sigma,delta,steps", CASES)
def test_pld_bracket_contains_exact_composition(sigma, delta, steps):
    """delta(eps) of the T-fold composition, exact in mpmath (truths.compose of the pmf pair),
    lies in PLD's certified bracket, and the bracket is tight (the losses lie on the lattice
    (Delta/(2 sigma^2)) Z, which the PLD lattice holds: the discretisation is exact)."""
    r = EV.pld_accountant([EV.Event(EV.DiscreteGaussian(sigma, delta), None, steps)])
    eps = np.array([0.0, 0.3, 1.0, 2.5, 5.0])
    lo, hi = r.delta(eps)
    with mp.workdps(45):
        pair, rest = _truth_pair(sigma, delta)
        comp = truths.compose(pair, steps)
        for e, l, h in zip(eps, lo, hi):
            t = truths.delta_of_eps(comp, e)          # <= truth <= t + steps * rest
            assert l <= t + steps * rest and h >= t, (e, l, float(t), h)
            assert h - l <= 1e-10 + 1e-7 * float(t), (e, l, h)
        d = mp.mpf("1e-4")
        if truths.delta_of_eps(comp, 0) > d:
            e_lo = truths.eps_of_delta(comp, d)                  # <= the true eps
            e_hi = truths.eps_of_delta(comp, d - steps * rest)   # >= the true eps
            el, eh = r.epsilon(1e-4)
            assert float(el) <= e_hi + mp.mpf(10) ** -12 and float(eh) >= e_lo, (el, eh, e_lo)


@pytest.mark.parametrize("steps", [1, 2])
def test_pld_bracket_contains_exact_subsampled_composition(steps):
    """Poisson subsampling (q = 0.1): the add/remove pairs (P, M), (M, P), M = (1-q) P + q Q,
    composed exactly in mpmath; the worse order's delta lies in the bracket."""
    sigma, delta, q = 1.0, 1, 0.1
    r = EV.pld_accountant([EV.Event(EV.DiscreteGaussian(sigma, delta), EV.Poisson(q), steps)])
    eps = np.array([0.0, 0.05, 0.2, 0.6])
    lo, hi = r.delta(eps)
    with mp.workdps(40):
        pair, rest = _truth_pair(sigma, delta, q)
        comp = truths.compose(pair, steps)
        for e, l, h in zip(eps, lo, hi):
            t = truths.delta_of_eps(comp, e)
            assert l <= t + steps * rest and h >= t, (e, l, float(t), h)
            assert h - t <= 0.02 * t + 1e-6, (e, float(t), h)     # and not vacuous


# ----------------------------------------------------------------------------- RDP soundness
def _renyi_exact(sigma, delta, alpha, q=None, reverse=False):
    """D_alpha of the discrete pair by mpmath sums (truths.chi_alpha) on a window that holds
    the tilted mass near x = -(alpha - 1) Delta (the rest is below e^-400 relative)."""
    W = int(alpha * delta + 30 * sigma + 10)
    xs = list(range(-W, W + delta + 1))
    P, Q = _pmf(sigma, 0, xs), _pmf(sigma, delta, xs)
    if q is not None:
        Q = [(1 - mp.mpf(q)) * p + mp.mpf(q) * qq for p, qq in zip(P, Q)]
    pair = truths.DPair(Q, P) if reverse else truths.DPair(P, Q)
    a = mp.mpf(alpha)
    return mp.log1p((a - 1) * truths.chi_alpha(pair, a)) / (a - 1)


def test_rdp_curve_is_at_least_the_exact_renyi_divergence():
    """CKS 2020 Prop. 5: D_alpha(N_Z(0) || N_Z(Delta)) <= alpha Delta^2/(2 sigma^2) for every
    alpha > 1, with equality at integer alpha (the theta-function ratio is 1 there) and a strict
    gap at fractional alpha when sigma is small (so the mpmath truth is independent of the curve)."""
    gaps = []
    for sigma in (0.5, 1.0, 2.0):
        for delta in (1, 2):
            curve = rdp.DiscreteGaussian(sigma, delta)
            for alpha in (1.5, 2.0, 10.0, 100.0):
                with mp.workdps(40):
                    t = _renyi_exact(sigma, delta, alpha)
                g = float(curve(np.array([alpha]))[0])
                assert g >= float(t) * (1 - 4 * np.finfo(float).eps), (sigma, delta, alpha, g, t)
                if alpha == int(alpha):
                    assert abs(g - float(t)) <= 1e-13 * g          # equality at integer orders
                else:
                    gaps.append((sigma, float((g - t) / g)))
    assert max(gp for s, gp in gaps if s == 0.5) > 1e-3            # a real gap at sigma = 0.5, 1.5


def test_subsampled_rdp_is_at_least_the_exact_renyi_divergence():
    """The generic Zhu-Wang bound on the Poisson-subsampled discrete Gaussian (both orders of
    (P, M)) is above the exact divergence computed by mpmath sums."""
    curve = EV.rdp_curve([EV.Event(EV.DiscreteGaussian(1.0, 1), EV.Poisson(0.05), 1)])
    for alpha in (2, 3, 10, 32):
        g = float(curve(np.array([float(alpha)]))[0])
        with mp.workdps(40):
            t = max(_renyi_exact(1.0, 1, alpha, q=0.05), _renyi_exact(1.0, 1, alpha, q=0.05, reverse=True))
        assert g >= float(t), (alpha, g, t)
        assert g <= 3 * float(t) + 1e-6, (alpha, g, t)              # not vacuous
    assert not isinstance(curve.curves[0], rdp.SubsampledGaussian)  # never the continuous exact RDP


# ----------------------------------------------------------------------------- towards the continuous Gaussian
def test_discrete_approaches_continuous_gaussian_as_sigma_grows():
    """eps(1e-5) of 1000 steps: the discrete and the continuous Gaussian differ visibly at
    sigma = 0.5 and agree to < 1e-6 relative at sigma = 8 and 20 (both certified brackets)."""
    rel = {}
    for sigma in (0.5, 8.0, 20.0):
        d = account.epsilon([EV.Event(EV.DiscreteGaussian(sigma), None, 1000)], 1e-5, method="pld")
        g = account.epsilon([EV.Event(EV.Gaussian(sigma), None, 1000)], 1e-5, method="best")
        assert d.extras["epsilon_lower"] <= d.value and np.isfinite(d.value)
        rel[sigma] = abs(d.value - g.value) / g.value
    assert rel[0.5] > 1e-3
    assert rel[8.0] < 1e-6 and rel[20.0] < 1e-6


def test_rdp_curve_equals_the_continuous_one():
    """The certified RDP bound is the continuous Gaussian's curve (Prop. 5 makes it so)."""
    a = np.array([1.5, 2.0, 7.0, 300.0])
    np.testing.assert_array_equal(rdp.DiscreteGaussian(1.3, 2)(a), rdp.Gaussian(1.3, 2)(a))


# ----------------------------------------------------------------------------- best route
@pytest.mark.parametrize("sampling,count,nb", [
    (None, 1000, "add_remove"), ("poisson", 500, "add_remove"), ("fixed", 100, "replace_one")])
def test_best_is_min_of_rdp_and_pld(sampling, count, nb):
    samp = {None: None, "poisson": EV.Poisson(0.02), "fixed": EV.WithoutReplacement(100, 5000)}[sampling]
    ev = [EV.Event(EV.DiscreteGaussian(1.5, 2 if sampling == "fixed" else 1), samp, count)]
    b = account.epsilon(ev, 1e-5, neighbouring=nb)
    r = account.epsilon(ev, 1e-5, method="rdp", neighbouring=nb)
    p = account.epsilon(ev, 1e-5, method="pld", neighbouring=nb)
    assert b.value == min(r.value, p.value)
    if sampling == "fixed":          # the pld route answers fixed batches and is the tighter here
        assert b.extras["route"] == "pld" and p.value < r.value
        assert b.extras["epsilon_lower"] == p.extras["epsilon_lower"]
    assert p.extras["epsilon_lower"] <= p.value <= r.value * (1 + 1e-12) or p.value > r.value
    assert b.extras["epsilon_lower"] <= b.value and np.isfinite(b.value)


def test_heterogeneous_composition_with_a_gaussian():
    """dgauss composes with other events (one shared PLD lattice: atoms spread, still certified):
    the bracket contains the single-lattice answer of the dgauss part alone plus the Gaussian."""
    ev = [EV.Event(EV.DiscreteGaussian(2.0), None, 50), EV.Event(EV.Gaussian(3.0), None, 50)]
    r = EV.pld_accountant(ev)
    lo, hi = r.epsilon(1e-5)
    assert 0 < lo <= hi < math.inf
    rd = account.epsilon(ev, 1e-5, method="rdp").value
    assert hi <= rd


# ----------------------------------------------------------------------------- input
def test_validation_and_spec():
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(DomainError, match="sigma"):
            EV.DiscreteGaussian(bad)
    for bad in (0, 1.5, -2, True, float("nan")):
        with pytest.raises(DomainError, match="sensitivity"):
            EV.DiscreteGaussian(1.0, bad)
    assert EV.DiscreteGaussian(1.0, 2.0).sensitivity == 2
    ev = EV.events_from_spec(json.dumps([{"mechanism": "dgauss", "sigma": 1.5, "sensitivity": 2,
                                          "sampling": {"kind": "poisson", "rate": 0.01}, "count": 7}]))
    assert ev == [EV.Event(EV.DiscreteGaussian(1.5, 2), EV.Poisson(0.01), 7)]
    with pytest.raises(DomainError, match="sensitivity"):
        EV.events_from_spec('[{"mechanism": "dgauss", "sigma": 1, "sensitivity": 0.5, "count": 1}]')
    with pytest.raises(DomainError, match="sensitivity"):
        pld.discrete_gaussian_models(1.0, 1.5)
    with pytest.raises(EV.RouteError, match="support points"):       # too wide for the exact pmf
        EV.pld_accountant([EV.Event(EV.DiscreteGaussian(1e6), None, 1)])


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "dpderive.cli", *args], capture_output=True,
                          text=True, cwd=ROOT)


@pytest.mark.parametrize("args,name", [
    (["--sigma", "0"], "sigma"), (["--sigma", "-2"], "sigma"), ([], "sigma"),
    (["--sigma", "1", "--sensitivity", "1.5"], "sensitivity"),
    (["--sigma", "1", "--sensitivity", "0"], "sensitivity")])
def test_cli_bad_input_is_one_line_exit_2(args, name):
    r = _cli("epsilon", "--mechanism", "dgauss", "--delta", "1e-5", *args)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"error: {name}") and r.stdout == ""


def test_cli_answers():
    r = _cli("epsilon", "--mechanism", "dgauss", "--sigma", "1", "--steps", "1000", "--delta",
             "1e-5", "--json")
    assert r.returncode == 0 and r.stderr == ""
    rec = json.loads(r.stdout)
    assert rec["route"] in ("rdp", "pld") and rec["guarantee"] is True
    assert rec["epsilon_lower"] <= rec["epsilon"] and math.isfinite(rec["epsilon"])


def _pair_product(a, b):
    """The product pair (P_a x P_b, Q_a x Q_b) of two pmf pairs (the composition of two
    different mechanisms), as one DPair."""
    return truths.DPair([p * r for p in a.P for r in b.P], [q * t for q in a.Q for t in b.Q], "product")


def test_off_lattice_atoms_bracket_contains_the_truth():
    """Where the PLD lattice does not hold the atoms (a heterogeneous composition shares one
    lattice; sigma = 300 with subsampling has ~1.5 atoms per lattice cell) the pessimistic spread
    and the optimistic cell contraction (``pld._atoms_contracted``) still bracket the exact
    profile, and the bracket is not vacuous."""
    ev = [EV.Event(EV.DiscreteGaussian(1.0), None, 2), EV.Event(EV.DiscreteGaussian(2.0, 1), None, 1)]
    r = EV.pld_accountant(ev)
    eps = np.array([0.0, 0.5, 1.5, 3.0])
    lo, hi = r.delta(eps)
    with mp.workdps(40):
        p1, r1 = _truth_pair(1.0, 1)
        p2, r2 = _truth_pair(2.0, 1)
        comp = _pair_product(truths.compose(p1, 2), p2)
        for e, l, h in zip(eps, lo, hi):
            t = truths.delta_of_eps(comp, e)
            assert l <= t + 2 * r1 + r2 and h >= t, (e, l, float(t), h)
            assert h - l <= 0.05 * t + 1e-9, (e, l, h)
    r = EV.pld_accountant([EV.Event(EV.DiscreteGaussian(300.0), EV.Poisson(0.5), 1)])
    eps = np.array([0.0, 0.001, 0.003, 0.006])
    lo, hi = r.delta(eps)
    with mp.workdps(30):
        pair, rest = _truth_pair(300.0, 1, 0.5)
        for e, l, h in zip(eps, lo, hi):
            t = truths.delta_of_eps(pair, e)
            assert l <= t + rest and h >= t, (e, l, float(t), h)
            assert h - l <= 0.05 * t + 1e-9, (e, l, h)


# ----------------------------------------------------------------------------- fixed batches
def _np_vertices(P, Q):
    """Vertices (P[S], 1 - Q[S]) of the Neyman-Pearson curve T(P, Q): S the outcomes of the
    largest likelihood ratios Q/P, added one by one (tau increasing)."""
    order = sorted(range(len(P)), key=lambda i: -(Q[i] / P[i]) if P[i] > 0 else -mp.inf)
    pts, a, b = [(mp.mpf(0), mp.mpf(1))], mp.mpf(0), mp.mpf(1)
    for i in order:
        a, b = a + P[i], b - Q[i]
        pts.append((a, b))
    return pts


def _hull_pair(P, M):
    """The pmf pair whose trade-off curve is C(f) = min{f, f^{-1}}** with f = T(P, M), built from
    the pmfs alone (``truths.symmetrised_pair``), independently of numeric.pld."""
    return truths.symmetrised_pair(_np_vertices(P, M), "dgauss hull", mp.mpf(10) ** -40)


FIXED_CASES = [(0.5, 1, 0.1, 1), (0.5, 1, 0.1, 2), (1.0, 1, 0.3, 1), (1.0, 1, 0.3, 2),
               (1.0, 2, 0.05, 2), (0.7, 2, 0.5, 2)]


@pytest.mark.parametrize("sigma,delta,g,steps", FIXED_CASES)
def test_fixed_batch_bracket_contains_exact_composition(sigma, delta, g, steps):
    """Fixed batches (gamma = B/N, replace-one): the T-fold composition of the symmetric pair
    realising min{f_gamma, f_gamma^{-1}}** (hull of the exact mpmath pmfs, composed exactly) lies
    below the upper end; the worse of the two fixed orders (P, M), (M, P) composed with itself
    (attained) lies above the lower end; both ends are close to their truths."""
    n = 1000
    ev = [EV.Event(EV.DiscreteGaussian(sigma, delta), EV.WithoutReplacement(int(round(g * n)), n), steps)]
    r = EV.pld_accountant(ev, "replace_one")
    eps = np.array([0.0, 0.05, 0.3, 1.0, 2.0])
    lo, hi = r.delta(eps)
    neg = np.array([-0.05, -0.5])                 # a symmetric pair: 1 - e^eps + e^eps delta(-eps)
    nlo, nhi = r.delta(neg)
    with mp.workdps(40):
        pair, rest = _truth_pair(sigma, delta, g)            # (P, M) and a merged rest outcome
        hull = _hull_pair(pair.P, pair.Q)
        assert abs(mp.fsum(hull.P) - 1) < mp.mpf(10) ** -30 and abs(mp.fsum(hull.Q) - 1) < mp.mpf(10) ** -30
        sym, fixed = truths.compose(hull, steps), truths.compose(pair, steps)
        for e, l, h in zip(eps, lo, hi):
            ts = truths.delta_of_eps(sym, e)                 # <= the dominating pair's delta
            tf = truths.delta_of_eps(fixed, e)               # max of the two fixed orders
            assert tf <= ts * (1 + mp.mpf(10) ** -20) + mp.mpf(10) ** -30
            assert h >= ts, (e, float(ts), h)
            assert l <= tf + 2 * steps * rest, (e, l, float(tf))
            assert h <= float(ts) * 1.01 + 1e-10, (e, float(ts), h)     # not vacuous
            assert l >= float(tf) * 0.99 - 1e-10, (e, l, float(tf))
        for e, l, h in zip(neg, nlo, nhi):
            ts, tf = truths.delta_of_eps(sym, e), truths.delta_of_eps(fixed, e)
            assert l <= tf + 2 * steps * rest and h >= ts, (e, l, float(tf), float(ts), h)
            assert h <= float(ts) * 1.01 + 1e-10, (e, float(ts), h)
        if steps == 1:       # one step, eps >= 0: the hull's profile is the worse fixed order
            for e in eps:
                ts, tf = truths.delta_of_eps(sym, e), truths.delta_of_eps(fixed, e)
                assert abs(ts - tf) <= mp.mpf(10) ** -25 * (1 + ts), (e, ts, tf)
            return
        # composed, the dominating pair is strictly worse than both orders (the pitfall is real)
        assert any(truths.delta_of_eps(sym, e) > truths.delta_of_eps(fixed, e) * (1 + 1e-6)
                   for e in (0.0, 0.05, 0.3))


@pytest.mark.parametrize("sigma,delta,g", [(0.5, 1, 0.1), (1.0, 2, 0.3), (2.0, 4, 0.5)])
def test_fixed_batch_zero_loss_mass_is_a_lower_bound(sigma, delta, g):
    """The symmetric pair's mass at loss 0 (slope -1 segment) is, in closed form,
    m0 = (1 - g)(1 - 2 P[X > Delta/2]) + g P[X = Delta/2] (X ~ N_Z(0, sigma^2), the last term
    when Delta is even); the model's m0 is at most it (sound) and within 1e-12 of it, and the
    model's masses plus its +oo mass sum to at least 1."""
    m = pld.fixed_discrete_gaussian_models(sigma, delta, g)["substitution"]
    zero = m.atoms[m.atoms[:, 0] == 0.0, 1]
    assert zero.size == 1
    with mp.workdps(40):
        K = int(40 * sigma) + 10
        sf = mp.fsum(_pmf(sigma, 0, [x for x in range(-K, K + 1) if 2 * x > delta]))
        at = _pmf(sigma, 0, [delta // 2])[0] if delta % 2 == 0 else 0
        m0 = (1 - g) * (1 - 2 * sf) + g * at
    assert float(m0) - 1e-12 <= zero[0] <= float(m0), (zero[0], float(m0))
    assert m.atoms[:, 1].sum() + m.tail_mass >= 1 - 1e-15


def test_fixed_batch_best_route_and_cli():
    """A DP-SGD-like fixed-batch dgauss run: pld answers, below rdp, and best reports it."""
    ev = [EV.Event(EV.DiscreteGaussian(3.0, 2), EV.WithoutReplacement(256, 60000), 2350)]
    p = account.epsilon(ev, 1e-5, "pld", neighbouring="replace_one")
    r = account.epsilon(ev, 1e-5, "rdp", neighbouring="replace_one")
    b = account.epsilon(ev, 1e-5, "best", neighbouring="replace_one")
    assert p.extras["epsilon_lower"] <= p.value < r.value
    assert b.value == min(p.value, r.value) and b.extras["route"] == "pld"
    g = account.epsilon([EV.Event(EV.Gaussian(3.0, 2.0), EV.WithoutReplacement(256, 60000), 2350)],
                        1e-5, "pld", neighbouring="replace_one")
    assert abs(p.value - g.value) <= 0.01 * g.value      # sigma = 3: close to the continuous one
    # and so is the lower end (the fixed orders on their finer own lattice for a long run:
    # rounding the off-lattice atoms down on the shared lattice gave 0.5535 against 0.5666)
    assert p.extras["epsilon_lower"] >= 0.99 * g.extras["epsilon_lower"]
    out = _cli("epsilon", "--mechanism", "dgauss", "--sigma", "3", "--sensitivity", "2",
               "--steps", "2350", "--batch-size", "256", "--dataset-size", "60000",
               "--sampling", "fixed", "--delta", "1e-5", "--json")
    assert out.returncode == 0 and out.stderr == "", out.stderr
    rec = json.loads(out.stdout)
    assert rec["route"] == "pld" and rec["epsilon"] == pytest.approx(b.value, rel=1e-12)


def test_fixed_batch_heterogeneous_composition():
    """A fixed-batch dgauss phase composed with a fixed-batch Gaussian phase (one shared lattice):
    the bracket sits above each part's lower end, below rdp, and at sigma = 3 agrees within 1%
    with the same composition where the dgauss phase is a continuous Gaussian."""
    a = EV.Event(EV.DiscreteGaussian(3.0, 2), EV.WithoutReplacement(256, 60000), 100)
    b = EV.Event(EV.Gaussian(2.0, 2.0), EV.WithoutReplacement(256, 60000), 100)
    w = account.epsilon([a, b], 1e-5, "pld", neighbouring="replace_one")
    parts = [account.epsilon([e], 1e-5, "pld", neighbouring="replace_one") for e in (a, b)]
    assert max(p.extras["epsilon_lower"] for p in parts) <= w.extras["epsilon_lower"] <= w.value
    assert w.value < account.epsilon([a, b], 1e-5, "rdp", neighbouring="replace_one").value
    g = account.epsilon([EV.Event(EV.Gaussian(3.0, 2.0), a.sampling, 100), b], 1e-5, "pld",
                        neighbouring="replace_one")
    assert abs(w.value - g.value) <= 0.01 * g.value
