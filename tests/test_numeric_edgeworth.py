"""numeric/edgeworth.py (004 Secs. 3-4; approximations) against independent computations:
exact curves from closed forms and from the certified PLD bracket, Hermite polynomials
from their recurrence, the CLT limit, and Section 4's interpreter on G_mu."""
import numpy as np
import pytest
from scipy.special import ndtr

import derive
from derive.core import DomainError
from numeric import cumulants as C
from numeric import edgeworth as E
from numeric import fdp, pld

A = np.linspace(0.0, 1.0, 501)


def test_hermite_polynomials_satisfy_recurrence():
    """He_{k+1} = h He_k - k He_{k-1}; (A.7) prints He_7 = h^7 - 21h^5 + 105h^3, dropping -105h."""
    h = np.linspace(-3, 3, 13)
    prev, cur = np.ones_like(h), h.copy()
    for k in range(1, 8):
        assert np.allclose(np.polynomial.hermite_e.hermeval(h, E.hermite(k)), cur)
        prev, cur = cur, h * cur - k * prev
    he7 = np.polynomial.hermite_e.hermeval(h, E.hermite(7))
    printed = h ** 7 - 21 * h ** 5 + 105 * h ** 3
    assert np.allclose(he7, printed - 105 * h) and not np.allclose(he7, printed)


def test_gaussian_case_is_exact():
    """Higher cumulants vanish: every degree gives G_{mu sqrt n}."""
    for deg in (0, 2):
        f = E.gaussian(0.6, 9, degree=deg)
        assert np.max(np.abs(f(A) - fdp.Gaussian(1.8)(A))) < 1e-9


def test_edgeworth_cdf_derivative_and_inverse():
    F = E.EdgeworthCDF(10.0, 3.0, 2.0)
    h = np.linspace(-4, 4, 81)
    num = (F(h + 1e-6) - F(h - 1e-6)) / 2e-6
    assert np.allclose(F.pdf(h), num, atol=1e-7)
    y = np.array([1e-6, 0.01, 0.3, 0.9, 0.999])
    assert np.allclose(F(F.inverse(y)), y, atol=1e-12)


def _laplace_exact(theta, n):
    """The certified PLD bracket of T(Lap(0,1)^n, Lap(theta,1)^n) (fine lattice)."""
    r = pld.laplace(theta, n, resolution=0.01)
    return r.tradeoff("pessimistic")(A), r.tradeoff("optimistic")(A)


def _laplace_n1(theta):
    """n = 1 in closed form (Neyman-Pearson): reject for x > c; for 0 <= c <= theta,
    alpha = P(x > c) = e^{-c}/2, beta = Q(x <= c) = e^{c - theta}/2; the loss is constant
    beyond [0, theta], so the curve is linear from (0, 1) and to (1, 0) (randomised tests)."""
    c = np.linspace(0, theta, 4001)
    al = np.exp(-c) / 2
    be = np.exp(c - theta) / 2
    return fdp.PiecewiseLinear(np.concatenate(([0.0, 1.0], al)), np.concatenate(([1.0, 0.0], be)))


def test_laplace_pld_matches_closed_form_n1():
    lo, hi = _laplace_exact(3.0, 1)
    ex = _laplace_n1(3.0)(A)
    assert np.all(lo <= ex + 2e-6) and np.all(ex <= hi + 2e-6)


def test_edgeworth_beats_clt_on_laplace_and_error_falls():
    """004 Sec. 5.2 (Figs. 5.1): theta = 3/sqrt(n); Edgeworth is closer to the exact curve
    than the CLT for n = 1, 3, 5, 10, and its error falls with n."""
    errs = []
    for n in (1, 3, 5, 10):
        th = 3 / np.sqrt(n)
        lo, hi = _laplace_exact(th, n)
        mid = (lo + hi) / 2
        ew = np.max(np.abs(E.laplace(th, n)(A) - mid))
        cl = np.max(np.abs(E.clt(C.laplace_cumulants(th, 4, "P"), C.laplace_cumulants(th, 4, "Q"), n)(A) - mid))
        assert ew < cl
        errs.append(ew)
    assert errs[-1] < errs[0] / 3 and errs[-1] < 0.03


def test_edgeworth_noisy_sgd_close_to_exact_clt_far():
    """004 Sec. 5.3: p = 0.5/n^{1/4}, sigma = 1, n = 500: Edgeworth ~ exact, CLT far."""
    n, p = 500, 0.5 / 500 ** 0.25
    r = pld.subsampled_gaussian(1.0, p, n, directions=("remove",))
    lo, hi = r.tradeoff("pessimistic")(A), r.tradeoff("optimistic")(A)
    ew = E.subsampled_gaussian(1.0, p, n)(A)
    cl = E.clt_sgd(1.0, p, n)(A)
    assert np.max(np.abs(ew - (lo + hi) / 2)) < 5e-3
    assert np.max(np.abs(cl - (lo + hi) / 2)) > 0.05


def test_clt_limit():
    """p sqrt(n) = nu fixed: Edgeworth and the paper's CLT both tend to G_{nu sqrt(e^{1/s^2} - 1)}."""
    nu, s = 1.0, 1.0
    g = fdp.Gaussian(nu * np.sqrt(np.expm1(1 / s ** 2)))(A)
    errs = [np.max(np.abs(E.subsampled_gaussian(s, nu / np.sqrt(n), n)(A) - g)) for n in (100, 10_000)]
    assert errs[1] < errs[0] / 5 and errs[1] < 0.01
    assert np.max(np.abs(E.clt_sgd(s, nu / 100, 10_000)(A) - g)) < 1e-12


def test_cornish_fisher_agrees_with_numerical_inverse_for_large_n():
    f_num = E.laplace(0.1, 500)
    f_cf = E.laplace(0.1, 500, inverse_method="cornish-fisher")
    inner = (A > 0.01) & (A < 0.99)
    assert np.max(np.abs(f_num(A[inner]) - f_cf(A[inner]))) < 1e-4


def test_cornish_fisher_formula_matches_inverse_to_order():
    """(3.9) inverts (3.8) up to O(n^{-3/2}): the residual F_EW(CF(z)) - Phi(z) shrinks ~n^{-3/2}."""
    res = []
    for n in (10, 40):
        kP = n * C.laplace_cumulants(1.0, 4, "P")
        F = E.EdgeworthCDF(*kP[1:4])
        z = np.linspace(-2, 2, 21)
        res.append(np.max(np.abs(F(E.cornish_fisher(z, *kP[1:4])) - ndtr(z))))
    assert res[0] / res[1] > 4          # (40/10)^{3/2} = 8


def test_interpreter_on_gaussian():
    out = E.interpreter(fdp.Gaussian(1.3))
    assert out["alpha_star"] == pytest.approx(ndtr(-0.65), abs=1e-12)
    assert out["mu_star"] == pytest.approx(1.3, abs=1e-9)
    assert out["gamma"] == pytest.approx(ndtr(-1.3 / np.sqrt(2)), abs=1e-10)


def test_symmetric_pair_has_unit_variance_ratio_and_asymmetric_not():
    assert E.laplace(0.8, 5).ratio == pytest.approx(1.0, abs=1e-12)
    assert E.subsampled_gaussian(1.0, 0.3, 5).ratio < 1


def test_epsilon_delta_from_edgeworth_close_to_pld():
    n, th = 10, 3 / np.sqrt(10)
    ew = E.laplace(th, n)
    lo, hi = pld.laplace(th, n, resolution=0.02).delta(np.array([0.5, 1.0]))
    d = ew.delta(np.array([0.5, 1.0]))
    assert np.all(np.abs(d - (lo + hi) / 2) < 0.01)
    assert ew.approximation and "approximation" in ew.name


FORMULAS = {"zheng2020.eq3_7": "FQ", "zheng2020.eq3_8": "FP", "zheng2020.eq3_9": "CF"}


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_hand_kernels_equal_registry_formulas(name):
    """The hand-written Edgeworth kernels against the registered printed formulas."""
    f = derive.formula(name)
    from numeric.kernels import compile_numpy
    fn = compile_numpy(name)
    rng = np.random.default_rng(3)
    syms = [s.name for s in f.symbols]
    for _ in range(20):
        vals = {"h": rng.uniform(-3, 3), "z": rng.uniform(-3, 3), "sigma_n": rng.uniform(1, 4),
                "kappa_3": rng.uniform(-2, 2), "kappa_4": rng.uniform(-2, 2)}
        vals["kappatilde_3"], vals["kappatilde_4"] = vals["kappa_3"], vals["kappa_4"]
        args = [vals[s] for s in syms]
        k2 = vals["sigma_n"] ** 2
        if FORMULAS[name] == "CF":
            ours = E.cornish_fisher(vals["z"], k2, vals["kappa_3"], vals["kappa_4"])
        else:
            ours = E.EdgeworthCDF(k2, vals["kappa_3"], vals["kappa_4"])(vals["h"])
        assert float(fn(*args)) == pytest.approx(float(ours), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("call", [
    lambda: E.EdgeworthCDF(0.0, 1.0, 1.0),
    lambda: E.EdgeworthCDF(1.0, 1.0, 1.0, degree=1),
    lambda: E.Edgeworth([0, 1, 0], [0, 1, 0]),
    lambda: E.laplace(1.0, 3, inverse_method="newton"),
    lambda: E.laplace(1.0, 0),
    lambda: E.laplace(-1.0, 3),
    lambda: E.subsampled_gaussian(0.0, 0.1, 3),
    lambda: E.clt_sgd(1.0, 1.5, 3),
])
def test_bad_input_raises(call):
    with pytest.raises(DomainError):
        call()
