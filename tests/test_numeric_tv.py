"""numeric.tv: Theorem 2 at large k against independent computations (exact
brute force for small k, mpmath at k = 10^4), the fdp region object, subsampling,
mechanism TVs and the DP-SGD accountant."""
import math
import time
from fractions import Fraction as Fr

import mpmath as mp
import numpy as np
import pytest

from derive.core import DomainError
from derive import truths_pmf as TR
from derive import truths as T
from derive.papers.ghazi_issa.sec2_3 import dominating
from numeric import fdp, tv


@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("a", [0.0, 0.3, 0.8])
@pytest.mark.parametrize("d", [0.0, 0.05])
def test_theorem2_matches_brute_force(k, a, d):
    e = math.log(2)
    eta = d + (1 - d) * (1 - a) * math.tanh(e / 2)
    pr = tv.tv_composition_deltas(k, e, d, eta)
    P0, P1 = dominating(Fr(2), Fr(a).limit_denominator(1000), Fr(d).limit_denominator(1000))
    p0, p1 = T.kfold(P0, k), T.kfold(P1, k)
    for j in range(k + 1):
        exact = float(T.hockey(p0, p1, Fr(2) ** j))
        assert pr.delta_prime[j] >= exact * (1 - 1e-15)          # sound: never below the truth
        assert pr.delta_prime[j] == pytest.approx(exact, rel=1e-12, abs=1e-300)


def test_kairouz_is_theorem2_at_maximal_eta():
    e, k = 0.7, 40
    a = tv.kairouz_deltas(k, e, 0.0).delta_prime
    b = tv.tv_composition_deltas(k, e, 0.0, tv.eta_max(e)).delta_prime
    assert np.allclose(a, b, rtol=1e-12, atol=0)


def test_window_equals_full_sum():
    for k, e, a in ((300, 0.1, 0.3), (500, 2.0, 0.05), (400, 0.01, 0.97)):
        w, f = tv.loss_distribution(k, e, a), tv.loss_distribution(k, e, a, window=False)
        fin = np.isfinite(f)
        assert np.array_equal(fin, np.isfinite(w))
        assert np.max(np.abs(w[fin] - f[fin])) < 1e-11


@pytest.mark.parametrize("d", [0, 3000, 9000, 9990])
def test_loss_distribution_at_1e4_against_mpmath(d):
    k, e, a = 10_000, 0.05, 0.3
    lg = tv.loss_distribution(k, e, a)
    assert lg[d] == pytest.approx(float(TR.log_G_mp(k, e, a, d, dps=40)), rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("j", [0, 10, 40])
def test_theorem2_at_1e4_against_mpmath(j):
    k, e, a = 10_000, 0.02, 0.995         # few non-erased outputs: the mpmath reference stays cheap
    eta = (1 - a) * math.tanh(e / 2)
    pr = tv.tv_composition_deltas(k, e, 0.0, eta)
    ref = float(TR.delta_j_binomial(k, e, a, j, dps=40))
    assert pr.delta_prime[j] == pytest.approx(ref, rel=1e-10)
    assert pr.delta_prime[j] >= ref


def test_theorem2_1e4_is_fast_and_finite():
    t0 = time.perf_counter()
    pr = tv.tv_composition_deltas(10_000, 1.0, 1e-6, 0.4)
    dt = time.perf_counter() - t0
    assert np.all(np.isfinite(pr.delta_prime)) and np.all((pr.delta_prime >= 0) & (pr.delta_prime <= 1))
    assert np.all(np.diff(pr.delta_prime) <= 1e-15)              # delta'_j decreases in j
    assert dt < 2.0                                              # < 1 s on an idle core


def test_region_object():
    c = tv.TVComposition(5, 1.0, 0.0, 0.7 * math.tanh(0.5))
    P0, P1 = (np.array(x, float) for x in dominating(math.e, 0.3))
    ex = fdp.Discrete(P0, P1)
    for _ in range(4):
        ex = ex.compose(fdp.Discrete(P0, P1))
    t = np.linspace(0, 1, 201)
    assert np.allclose(c(t), ex.symmetrised()(t), atol=1e-12)
    assert c.area() == pytest.approx(ex.symmetrised().area(), abs=1e-12)
    k_only = tv.KairouzComposition(5, 1.0, 0.0)
    assert np.all(c(t) >= k_only(t) - 1e-15) and c.area() < k_only.area()


def test_subsample_and_domain_errors():
    e1, d1, n1 = tv.subsample(1.0, 1e-3, 0.3, 0.01)
    assert e1 == pytest.approx(math.log1p(0.01 * math.expm1(1.0))) and d1 == 1e-5 and n1 == pytest.approx(0.003)
    for bad in (dict(eps=-1, delta=0, eta=0.1), dict(eps=1, delta=1.2, eta=0.1), dict(eps=1, delta=0, eta=0.9),
                dict(eps=float("nan"), delta=0, eta=0.1)):
        with pytest.raises(DomainError):
            tv.tv_composition_deltas(3, **bad)
    with pytest.raises(DomainError):
        tv.tv_composition_deltas(0, 1.0, 0.0, 0.1)
    with pytest.raises(DomainError):
        tv.subsample(1.0, 0.0, 0.1, 1.5)


def test_mechanism_tvs_by_quadrature():
    with mp.workdps(20):
        e = mp.mpf("0.8")
        lap = TR.tv_quad(TR.laplace_pdf(1 / e), TR.laplace_pdf(1 / e, 1), [-mp.inf, 0, 0.5, 1, mp.inf])
        g = TR.tv_quad(TR.gauss_pdf(1), TR.gauss_pdf(1, mp.mpf("0.7")), [-mp.inf, 0.35, mp.inf])
    assert tv.tv_laplace(0.8) == pytest.approx(float(lap), rel=1e-12)
    assert tv.tv_gaussian(0.7) == pytest.approx(float(g), rel=1e-12)
    for gam in (0.1, 0.7):
        p = TR.staircase_pdf(1.0, gam)
        st = TR.piecewise_const_integral(lambda x: max(p(x) - p(x - 1), 0), TR.staircase_breaks(gam, n=70))
        assert tv.tv_staircase(1.0, gam) == pytest.approx(float(st), rel=1e-12)


def test_gdp_delta_rounds_up():
    with mp.workdps(30):
        m, e = mp.mpf("0.8"), mp.mpf("0.5")
        ref = mp.ncdf(-e / m + m / 2) - mp.e ** e * mp.ncdf(-e / m - m / 2)
    assert float(tv.gdp_delta(0.5, 0.8)) >= float(ref) and float(tv.gdp_delta(0.5, 0.8)) == pytest.approx(float(ref), rel=1e-12)


def test_dpsgd_small():
    r = tv.dpsgd_regions(n=6000, batch=256, sigma=1.3, epochs=2, eps_grid=[0.5, 1.0, 2.0])
    t = np.linspace(0, 1, 101)
    assert np.all(r.tv_aware(t) >= r.kairouz(t) - 1e-12)        # the TV constraint only adds privacy
    s = r.summary(1e-5)
    assert s["tv_aware_eps"] <= s["kairouz_eps"]
