"""Soundness of the accountant at random (issue 11, item 6): the certified upper bound is
never below an independent reference, and an exact reference is never below the certified
lower bound.  A CI-sized seeded sample of ``benchmarks/soundness_audit.py`` (which runs
>= 1e4 cases); the references are closed forms (heterogeneous Gaussian phases compose to
one G_mu), exact binomial sums (randomized response) or a finer PLD's optimistic end."""
from __future__ import annotations

import dataclasses
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from numeric import account, pld
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


def _audited(case):
    """The audit's record of one case: answered (not refused), finite, its upper bound not below the
    reference, its bracket not crossed, its lower bound not above the reference's upper end where the
    reference is exact (``lower_violation`` is never set for a lower-only reference)."""
    kind, evs, delta = case
    with np.errstate(all="ignore"):
        rec = audit.check(kind, evs, delta)
    assert "refused" not in rec, rec
    assert rec["finite"] and not rec["under_report"] and not rec["crossed"], rec
    assert not rec["lower_violation"], rec
    return rec


def _cases(n, seed, kinds, draw=None):
    """The first ``n`` audit cases of the given kinds drawn by ``draw`` (the audit's old mix by
    default) from ``seed``."""
    draw = draw or audit.random_case
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        case = draw(rng)
        if case[0] in kinds:
            out.append(case)
    return out


@pytest.mark.parametrize("case", _cases(160, 11, {"gauss", "rr"}), ids=lambda c: c[0])
def test_exact_references(case):
    _audited(case)


@pytest.mark.parametrize("case", _cases(24, 12, {"sgauss", "laplace", "mixed"}), ids=lambda c: c[0])
def test_finer_pld_reference(case):
    _audited(case)


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


# ----------------------------------------------------------------------------- new kinds
def test_mixes_keep_the_old_cases():
    """--mix v1 is the original case sequence of a seed; v2's old-kind cases are its prefix."""
    rng = np.random.default_rng(5)
    old = [audit.random_case(rng) for _ in range(100)]
    v1 = list(audit.generate(5, 100, "v1"))
    v2 = list(audit.generate(5, 100, "v2"))
    key = lambda c: (c[0], EV.describe(c[1]), c[2])                    # noqa: E731
    assert [key(c) for c in v1] == [key(c) for c in old]
    v2_old = [key(c) for c in v2 if c[0] in ("gauss", "rr", "sgauss", "laplace", "mixed")]
    assert 40 <= len(v2_old) < 100 and v2_old == [key(c) for c in old[:len(v2_old)]]
    new = {c[0] for c in v2} - {"gauss", "rr", "sgauss", "laplace", "mixed"}
    assert new == {"dgauss", "sdgauss", "fixed"}



def test_mix_v3_is_the_v2_sequence_thinned():
    """--mix v3 (the 10^5-case run): the v2 cases of the seed, in order, the expensive kinds
    thinned by V3_KEEP, every kind still present."""
    key = lambda c: (c[0], EV.describe(c[1]), c[2])                    # noqa: E731
    v2 = [key(c) for c in audit.generate(5, 6000, "v2")]
    v3 = [key(c) for c in audit.generate(5, 1500, "v3")]
    it = iter(v2)
    assert all(any(c == d for d in it) for c in v3)                    # an in-order subsequence
    kinds = {audit.kind_key(k, e) for k, e, _ in audit.generate(5, 20000, "v3")}
    assert kinds >= set(audit.V3_KEEP) | {"gauss", "dgauss", "fixed/laplace"}
    assert len(v3) == 1500 and len(v3) < v2.index(v3[-1]) + 1

def _dgauss_brute_delta(s, d, T, eps):
    """delta(eps) of T-fold N_Z(0, s^2) vs N_Z(d, s^2) by summing (P(x) - e^eps Q(x))_+ over
    x in Z^T directly (T <= 2), pmfs normalised on a window far wider than the mass."""
    k = np.arange(-int(40 * s) - 40, int(40 * s) + 40 + d)
    w = np.exp(-k.astype(float) ** 2 / (2 * s * s))
    P = w / math.fsum(w)
    Q = np.exp(-(k - d).astype(float) ** 2 / (2 * s * s)) / math.fsum(w)
    if T == 2:
        P, Q = np.outer(P, P), np.outer(Q, Q)
    return math.fsum(np.maximum(P - math.exp(eps) * Q, 0.0).ravel())


@pytest.mark.parametrize("s,d,T", [(0.7, 1, 1), (2.5, 2, 1), (1.3, 1, 2), (4.0, 3, 2)])
def test_dgauss_reference_brackets_brute_force(s, d, T):
    """The dgauss reference (T-fold loss linear in the sum of the draws) against brute force
    over the product of the pmfs, and its epsilon bracket against the brute-force delta."""
    lo_fn, hi_fn, _ = audit.dgauss_delta_fns(s, d, T)
    for eps in (0.0, 0.3, 1.0, 2.5):
        b = _dgauss_brute_delta(s, d, T, eps)
        assert lo_fn(eps) <= b * (1 + 1e-12) and hi_fn(eps) >= b * (1 - 1e-12)
        assert hi_fn(eps) - lo_fn(eps) <= 1e-10 * b + 1e-25      # float-error allowance only
    delta = _dgauss_brute_delta(s, d, T, 1.0)
    lo, hi = audit.dgauss_eps_bracket(s, d, T, delta)
    assert lo <= 1.0 <= hi and hi - lo < 1e-9
    lo, hi = audit.dgauss_eps_bracket(s, d, T, 1e-6)
    assert _dgauss_brute_delta(s, d, T, lo) >= 1e-6 * (1 - 1e-9)       # eps below the truth
    assert _dgauss_brute_delta(s, d, T, hi) <= 1e-6 * (1 + 1e-9)       # eps above the truth


@pytest.mark.parametrize("eps_rr,b,n,T", [(0.5, 10, 1000, 50), (1.5, 300, 1000, 20)])
def test_fixed_references_agree(eps_rr, b, n, T):
    """Randomized response on fixed batches: the finer PLD of the two fixed orders (the Gaussian
    and Laplace reference) is below the exact binomial reference of the same orders, and close."""
    e = EV.Event(EV.RandomizedResponse(eps_rr), EV.WithoutReplacement(b, n), T)
    exact = audit.exact_rr_eps(eps_rr, b / n, T, 1e-6)
    fine = audit.fixed_order_lower(e, 1e-6)
    assert fine <= exact * (1 + 1e-12) and fine >= exact * 0.98


@pytest.mark.parametrize("g,T", [(0.01, 50), (0.2, 5)])
def test_fixed_dgauss_reference_near_the_gaussian(g, T):
    """At sigma = 8 the discrete Gaussian pmfs equal the sampled Gaussian density to ~e^{-2 pi^2
    sigma^2} (Poisson summation), so the fixed orders of N_Z(0, 64) vs N_Z(2, 64) have the
    epsilon of the continuous N(0, 64) vs N(2, 64) ones: the dgauss reference (built from the
    pmfs) lies below the continuous orders' certified PLD upper end and near their lower end."""
    e = EV.Event(EV.DiscreteGaussian(8.0, 2), EV.WithoutReplacement(int(g * 1000), 1000), T)
    ref = audit.dgauss_fixed_order_lower(e, 1e-6)
    models = EV._pld_models(EV.Event(EV.Gaussian(8.0, 2.0), e.sampling, T))
    ups = []
    for d in pld.LOWER_ONLY:
        h = pld._choose_h(models, None, pld.DEFAULT_RESOLUTION) / 3
        comp = pld.PLDResult(d, {d: models[d]}, T, h).part(d, True)
        ups.append(float(pld._eps_from(comp, np.array([1e-6]), True)[0]))
    cont_lo = audit.fixed_order_lower(EV.Event(EV.Gaussian(8.0, 2.0), e.sampling, T), 1e-6)
    assert ref <= max(ups) * (1 + 1e-9) and ref >= cont_lo * 0.99, (ref, cont_lo, ups)


def _new_cases(n, seed, kinds):
    return _cases(n, seed, kinds, audit.random_new_case)


@pytest.mark.parametrize("case", _new_cases(20, 21, {"dgauss"}) + _new_cases(30, 22, {"fixed"}),
                         ids=lambda c: c[0])
def test_new_kinds(case):
    """dgauss: the bracket's lower end below the route's upper bound, its upper end above the
    route's lower bound; fixed (replace-one): the route's upper bound above the larger of
    the two attained fixed orders; the route's bracket not crossed."""
    _audited(case)


@pytest.mark.parametrize("case", _new_cases(8, 25, {"sdgauss"}), ids=lambda c: c[0])
def test_subsampled_dgauss(case):
    """A seed whose sample has >= 20 steps (a few steps at delta ~ 1e-12 take the route ~2-8 s
    each here; the full audit has them)."""
    _audited(case)


@pytest.mark.parametrize("shift,flag", [(0.999, "under_report"), (1.001, "lower_violation")])
def test_audit_flags_a_wrong_route(monkeypatch, shift, flag):
    """The harness itself: a route whose upper bound (shift < 1) or lower bound (shift > 1) is
    moved by 0.1% past the truth on a dgauss case (bracket width ~1e-12) is flagged."""
    evs = [EV.Event(EV.DiscreteGaussian(2.0, 1), None, 10)]
    real = account.epsilon

    def moved(events, delta, *a, **k):
        r = real(events, delta, *a, **k)
        lo, hi = audit.dgauss_eps_bracket(2.0, 1, 10, delta)
        if shift < 1:
            return dataclasses.replace(r, value=lo * shift)
        r.extras["epsilon_lower"] = hi * shift
        return r

    monkeypatch.setattr(audit.account, "epsilon", moved)
    rec = audit.check("dgauss", evs, 1e-6)
    assert rec[flag], rec


@pytest.mark.parametrize("sigma, c, eps", [(1.0, 1.0, 0.5), (2.0, 1.0, 0.1), (0.7, 1.3, 2.0), (5.0, 0.4, 0.0)])
def test_mixture_reference_is_the_gaussian_profile_for_one_sensitivity(sigma, c, eps):
    """The mixture-of-Gaussians reference (written from the mechanism's definition) with one
    sensitivity is the Gaussian pair: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2),
    mu = c / sigma (Balle and Wang 2018), to 1e-14 relative."""
    from scipy.stats import norm
    mu = c / sigma
    exact = norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)
    assert audit.mog_delta(sigma, (c,), (1.0,), eps) == pytest.approx(exact, rel=1e-14)


def test_mixture_reference_orders():
    """A zero sensitivity with weight 1 - q is the Poisson-subsampled Gaussian: its remove order
    (Q, P) has no mass at eps >= log(1/(1-q)) ({L <= -eps} is empty) and its add order is the
    quadrature of (p - e^eps g)_+, split where p = e^eps g: x* = 1/2 + log((e^eps - 1 + q)/q) at
    sigma = 1, the likelihood ratio's closed-form crossing (not the reference's bisection)."""
    import mpmath as mp
    q, eps = 0.3, 0.5
    assert eps >= -math.log(1 - q)
    with mp.workdps(30):
        x0 = mp.mpf(1) / 2 + mp.log((mp.e ** eps - 1 + q) / q)
        gap = lambda x: (1 - q) * mp.npdf(x) + q * mp.npdf(x, 1) - mp.e ** eps * mp.npdf(x)  # noqa: E731
        add = mp.quad(gap, [x0, x0 + 2, x0 + 8, mp.inf])
        assert gap(x0 - mp.mpf(10) ** -6) < 0 < gap(x0 + mp.mpf(10) ** -6)
    assert audit.mog_delta(1.0, (0.0, 1.0), (1 - q, q), eps) == pytest.approx(float(add), rel=1e-12)
    # below log(1/(1-q)) the remove order has mass, below x1 = 1/2 + log((e^-eps - 1 + q)/q);
    # delta is the larger order's
    e2 = 0.1
    with mp.workdps(30):
        x1 = mp.mpf(1) / 2 + mp.log((mp.e ** -e2 - 1 + q) / q)
        x2 = mp.mpf(1) / 2 + mp.log((mp.e ** e2 - 1 + q) / q)
        p_ = lambda x: (1 - q) * mp.npdf(x) + q * mp.npdf(x, 1)  # noqa: E731
        rem = mp.quad(lambda x: mp.npdf(x) - mp.e ** e2 * p_(x), [-mp.inf, x1 - 8, x1 - 2, x1])
        add = mp.quad(lambda x: p_(x) - mp.e ** e2 * mp.npdf(x), [x2, x2 + 2, x2 + 8, mp.inf])
    assert rem > 0 and add > 0
    assert audit.mog_delta(1.0, (0.0, 1.0), (1 - q, q), e2) == pytest.approx(float(max(add, rem)), rel=1e-12)


@pytest.mark.parametrize("case", _cases(12, 31, {"interop/mog"}, audit.random_mog_case), ids=lambda c: c[0])
def test_mixture_of_gaussians(case):
    """The mixture-of-Gaussians cases of the v5 mix: one step against the exact reference (both
    ends), T steps against the larger of the one-step epsilon and the finer PLD's optimistic end."""
    _audited(case)
