"""derive.cumulants: Bell-polynomial conversions against known cumulants, the Laplace
privacy-loss cumulants against quadrature, and the Gaussian-mixture expansion in p against
log-space quadrature (the truncation error scales like the first omitted power of p)."""
import mpmath as mp
import pytest
import sympy as sp

from derive import cumulants as C
from derive.core import DomainError
from derive import truths as TR
from derive.symbols import mu, p

lam, m, s, b, t = sp.symbols("lambda m s b t", positive=True)


def test_poisson_moments_give_constant_cumulants():
    # raw moments of Poisson(lambda): Touchard polynomials sum_k S(r,k) lambda^k
    moms = [sum(sp.functions.combinatorial.numbers.stirling(r, k) * lam ** k for k in range(1, r + 1))
            for r in range(1, 7)]
    assert [sp.expand(k - lam) for k in C.moments_to_cumulants(moms)] == [0] * 6


def test_gaussian_moments_give_two_cumulants():
    mgf = sp.exp(m * t + s ** 2 * t ** 2 / 2)
    ser = sp.series(mgf, t, 0, 7).removeO()
    moms = [sp.expand(ser.coeff(t, r) * sp.factorial(r)) for r in range(1, 7)]
    assert [sp.simplify(k) for k in C.moments_to_cumulants(moms)] == [m, s ** 2, 0, 0, 0, 0]


def test_laplace_moments_give_known_cumulants():
    # Lap(0, b): E X^{2k} = (2k)! b^{2k}; cumulants kappa_{2k} = 2 (2k-1)! b^{2k}, odd ones vanish
    moms = [sp.factorial(r) * b ** r if r % 2 == 0 else 0 for r in range(1, 7)]
    got = C.moments_to_cumulants(moms)
    want = [0, 2 * b ** 2, 0, 12 * b ** 4, 0, 240 * b ** 6]
    assert [sp.expand(g - w) for g, w in zip(got, want)] == [0] * 6


def test_round_trip_and_cgf_route():
    ks = sp.symbols("k1:7")
    assert [sp.expand(a - b_) for a, b_ in zip(C.moments_to_cumulants(C.cumulants_to_moments(ks)), ks)] == [0] * 6
    assert C.cumulants_from_cgf(lam * (sp.exp(t) - 1), t, 5) == [lam] * 5


def test_bad_orders_raise():
    with pytest.raises(DomainError):
        C.laplace_llr_cumulants(0)
    with pytest.raises(DomainError):
        C.laplace_llr_cumulants(3, "R")
    with pytest.raises(DomainError):
        C.mixture_llr_cumulants(0, 3)


@pytest.mark.parametrize("th", ["0.3", "1.5"])
@pytest.mark.parametrize("under", ["P", "Q"])
def test_laplace_llr_cumulants_match_quadrature(th, under):
    closed = [sp.lambdify(sp.Symbol("theta", positive=True), e, "mpmath") for e in C.laplace_llr_cumulants(4, under)]
    with mp.workdps(30):
        quad = TR.laplace_cumulants_quad(mp.mpf(th), under)
        for f, q in zip(closed, quad):
            assert abs(f(mp.mpf(th)) - q) < mp.mpf(10) ** -20 * max(1, abs(q))


def test_laplace_pair_is_symmetric():
    kP, kQ = C.laplace_llr_cumulants(4, "P"), C.laplace_llr_cumulants(4, "Q")
    assert all(sp.simplify(q - (-1) ** r * pp) == 0 for r, (pp, q) in enumerate(zip(kP, kQ), start=1))


def test_mixture_leading_terms_are_the_clt_constants():
    kP, kQ = C.mixture_llr_cumulants(2, 2, "P"), C.mixture_llr_cumulants(2, 2, "Q")
    c = sp.exp(mu ** 2) - 1
    assert sp.simplify(kP[1] - p ** 2 * c) == 0
    assert sp.simplify(kQ[0] - kP[0] - p ** 2 * c) == 0


def _mixture_error(order, k, under, pv, muv="0.5"):
    expr = C.mixture_llr_cumulants(order, 4, under)[k - 1]
    approx = sp.lambdify([p, mu], expr, "mpmath")(mp.mpf(pv), mp.mpf(muv))
    with mp.workdps(30):
        exact = TR.mixture_cumulants_quad(mp.mpf(pv), mp.mpf(muv), under)[k - 1]
    return abs(exact - approx)


@pytest.mark.parametrize("order,k,under", [(3, 2, "P"), (4, 2, "P"), (4, 3, "Q"), (5, 4, "P"), (3, 1, "Q")])
def test_mixture_truncation_error_scales_like_next_power(order, k, under):
    # the first omitted coefficient is non-zero in these cases, so halving p divides the error by ~2^(order+1)
    # (mu = 1/2: at mu = 1 the coefficients grow like e^{j^2/2} and p = 0.004 is not yet asymptotic)
    nxt = sp.Poly(C.mixture_llr_cumulants(order + 1, 4, under)[k - 1], p).coeff_monomial(p ** (order + 1))
    assert nxt.subs(mu, sp.Rational(1, 2)) != 0
    e1, e2 = _mixture_error(order, k, under, "0.004"), _mixture_error(order, k, under, "0.002")
    ratio = e1 / e2
    assert 0.9 * 2 ** (order + 1) < ratio < 1.1 * 2 ** (order + 1), ratio


def test_mixture_expansion_is_asymptotic_not_convergent():
    # the coefficients of kappa_2 under P grow super-geometrically in the order (mu = 2)
    ser = sp.Poly(C.mixture_llr_cumulants(8, 2, "P")[1].subs(mu, 2), p)
    coeffs = [abs(float(ser.coeff_monomial(p ** j))) for j in range(2, 9)]
    ratios = [b_ / a for a, b_ in zip(coeffs, coeffs[1:]) if a > 0]
    assert ratios[-1] > 10 * ratios[0] and ratios[-1] > 1e6
