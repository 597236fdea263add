"""numeric/cumulants.py against independent computations: mpmath quadrature of the
defining integrals at 40-70 digits, SymPy's Bell-polynomial formula (004 App. B), and the
closed-form expansion in p (issue 4, item 2)."""
import math

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from derive.core import DomainError
from numeric import cumulants as C


def _mp_cumulants(L, dens, breaks, orders, dps=40):
    """Cumulants of L(x), x ~ dens, by mpmath quadrature: mean, central moments, recursion."""
    with mp.workdps(dps):
        m = mp.quad(lambda x: L(x) * dens(x), breaks)
        c = [mp.quad(lambda x: (L(x) - m) ** r * dens(x), breaks) for r in range(1, orders + 1)]
        c[0] = mp.mpf(0)
        kap = []
        for n in range(1, orders + 1):
            acc = c[n - 1]
            for k in range(1, n):
                acc -= mp.binomial(n - 1, k - 1) * kap[k - 1] * c[n - k - 1]
            kap.append(acc)
        kap[0] = m
        return [float(k) for k in kap]


@pytest.mark.parametrize("theta", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("under", ["P", "Q"])
def test_laplace_cumulants_match_mpmath(theta, under):
    t = mp.mpf(theta)
    L = lambda x: abs(x) - abs(x - t)                                        # noqa: E731
    dens = (lambda x: mp.e ** (-abs(x)) / 2) if under == "P" else (lambda x: mp.e ** (-abs(x - t)) / 2)
    ref = _mp_cumulants(L, dens, [-mp.inf, 0, t, mp.inf], 6)
    got = C.laplace_cumulants(theta, 6, under)
    np.testing.assert_allclose(got, ref, rtol=1e-11, atol=1e-15 * theta ** 2)


def test_laplace_scale_and_symmetry():
    k = C.laplace_cumulants(2.0, 5, "P", scale=2.0)
    np.testing.assert_allclose(k, C.laplace_cumulants(1.0, 5, "P"), rtol=1e-14)
    kq = C.laplace_cumulants(0.7, 5, "Q")
    np.testing.assert_allclose(kq, C.laplace_cumulants(0.7, 5, "P") * (-1.0) ** np.arange(1, 6))


@pytest.mark.parametrize("p,mu", [(0.5, 1.0), (1e-3, 0.25), (0.05, 2.0),
                                  pytest.param(1e-8, 0.25, marks=pytest.mark.slow)])
@pytest.mark.parametrize("under", ["P", "Q"])
def test_mixture_cumulants_match_mpmath(p, mu, under):
    P_, M_ = mp.mpf(p), mp.mpf(mu)
    L = lambda x: mp.log(1 - P_ + P_ * mp.e ** (M_ * x - M_ ** 2 / 2))       # noqa: E731
    phi = lambda x: mp.npdf(x)                                              # noqa: E731
    dens = phi if under == "P" else (lambda x: (1 - P_) * phi(x) + P_ * phi(x - M_))
    ref = _mp_cumulants(L, dens, [-mp.inf, -3, 0, 3, 10, mp.inf], 5, dps=70 if p < 1e-6 else 35)
    got = C.mixture_cumulants(p, mu, 5, under)
    np.testing.assert_allclose(got, ref, rtol=2e-9)


def test_mixture_vectorised_over_steps():
    n = np.arange(1, 6)
    p = 0.5 / n ** 0.25
    k = C.mixture_cumulants(p, 1.0, 4, "Q")
    assert k.shape == (5, 4)
    for i in range(5):
        np.testing.assert_allclose(k[i], C.mixture_cumulants(p[i], 1.0, 4, "Q"), rtol=1e-13)


@pytest.mark.parametrize("under", ["P", "Q"])
def test_series_in_p_matches_quadrature_to_first_omitted_order(under):
    """Truncation at degree D leaves an O(p^{D+1}) error: halving p divides it by ~2^{D+1}."""
    mu, D = 0.5, 5
    coef = C.mixture_cumulant_series(mu, 4, D, under)
    errs = []
    for p in (2e-2, 1e-2):
        quad = C.mixture_cumulants(p, mu, 4, under)
        ser = np.array([np.polyval(coef[r][::-1], p) for r in range(4)])
        errs.append(np.abs(quad - ser)[1])                  # kappa_2
    ratio = errs[0] / errs[1]
    assert 2 ** (D + 1) / 1.6 < ratio < 2 ** (D + 1) * 1.6


def test_series_leading_terms_are_clt_constants():
    mu = 0.8
    coef = C.mixture_cumulant_series(mu, 3, 4, "P")
    assert coef[1][2] == pytest.approx(math.expm1(mu * mu), rel=1e-13)      # kappa_2 ~ p^2 (e^{mu^2}-1)
    assert coef[0][2] == pytest.approx(-math.expm1(mu * mu) / 2, rel=1e-13)  # kappa_1 ~ -p^2 (...)/2
    assert coef[1][0] == coef[1][1] == 0


def test_moment_cumulant_recursion_equals_bell_polynomials():
    """App. B: kappa_r = sum_k (-1)^{k-1} (k-1)! B_{r,k}(mu_1, ..., mu_{r-k+1})."""
    rng = np.random.default_rng(1)
    m = rng.uniform(-1, 2, 6)
    got = C.cumulants_from_moments(m)
    mus = [sp.Float(v, 30) for v in m]
    for r in range(1, 7):
        ref = sum((-1) ** (k - 1) * sp.factorial(k - 1) * sp.bell(r, k, mus[: r - k + 1])
                  for k in range(1, r + 1))
        assert got[r - 1] == pytest.approx(float(ref), rel=1e-12, abs=1e-12)


def test_gaussian_cumulants():
    k = C.gaussian_cumulants(1.5, 4, "Q")
    np.testing.assert_allclose(k, [1.125, 2.25, 0, 0])


def test_log1pmx_small_and_large():
    for u in (1e-12, -3e-5, 0.05, -0.09, 0.5, 7.0):
        assert C.log1pmx(u) == pytest.approx(float(mp.log1p(u) - u), rel=1e-14)


@pytest.mark.parametrize("call", [
    lambda: C.laplace_cumulants(-1.0),
    lambda: C.laplace_cumulants(1.0, orders=0),
    lambda: C.laplace_cumulants(1.0, under="R"),
    lambda: C.mixture_cumulants(0.0, 1.0),
    lambda: C.mixture_cumulants(1.5, 1.0),
    lambda: C.mixture_cumulants(0.1, float("nan")),
    lambda: C.mixture_cumulant_series(1.0, 4, 0),
])
def test_bad_input_raises(call):
    with pytest.raises(DomainError):
        call()
