"""Exact Theorem 3 conversion (002 eq. (20)) against independent mpmath minimisation."""
import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from derive.core import DomainError
from numeric import conversion as C
from numeric import kernels as K

warnings.filterwarnings("ignore", category=RuntimeWarning)


def mp_gamma(a, e, d, dps=40, grid=400):
    """gamma_alpha^eps(delta) by direct 40-digit minimisation of the objective of (20)
    over t = log(p - delta): a log grid, then findroot on the derivative."""
    with mp.workdps(dps):
        a, e, d = mp.mpf(a), mp.mpf(e), mp.mpf(d)
        if a * d >= 1:
            return float(e - mp.log(1 - d))

        def h(t):
            u = mp.e ** t
            return (d + u) ** a * u ** (1 - a) + (1 - d - u) ** a * (mp.e ** e - u) ** (1 - a)
        lo, hi = mp.log((a - 1) * d), mp.log(1 - d)
        ts = [lo + (hi - lo) * k / grid for k in range(1, grid)]
        t0 = min(ts, key=h)
        try:
            t = mp.findroot(lambda t: mp.diff(h, t), t0)
            m = min(h(t), h(t0))
        except (ValueError, ZeroDivisionError):
            m = h(t0)
        return float(e + mp.log(m) / (a - 1))


POINTS = [(2, 1, 1e-3), (5, 1, 1e-5), (10, 2, 1e-2), (1.5, 0.3, 1e-8), (100, 0.5, 1e-6),
          (1e4, 1.0, 1e-300), (3.0, 0.0, 1e-4), (1.01, 4.0, 1e-10), (50, 0.01, 1e-3)]


@pytest.mark.parametrize("a,e,d", POINTS)
def test_gamma_exact_vs_mpmath(a, e, d):
    ref = mp_gamma(a, e, d)
    val = float(C.gamma_exact(a, e, d))
    assert abs(val - ref) <= 1e-12 * max(abs(ref), 1e-300) + 1e-15 * e


def test_gamma_vs_registry_truth():
    from derive import truths as tr
    for a, e, d in [(2, 1, 1e-3), (7.5, 0.7, 1e-4)]:
        assert abs(C.gamma_exact(a, e, d) - float(tr.gamma_exact(a, e, d))) <= 1e-12 * float(tr.gamma_exact(a, e, d))


def test_closed_case_eq22():
    assert C.gamma_exact(4.0, 1.0, 0.3) == pytest.approx(1.0 - np.log(0.7), rel=1e-15)


def test_stable_log_terms_equal_compiled():
    kern = C.derived_kernels()
    rng = np.random.default_rng(3)
    a = 1 + 10 ** rng.uniform(-2, 2, 50)
    e = rng.uniform(0, 5, 50)
    d = 10 ** rng.uniform(-10, -2, 50)
    u = (1 - d) * rng.uniform(0.01, 0.99, 50)
    la, lb = C.log_objective_terms(a, e, d, u)
    np.testing.assert_allclose(la, kern["LA"](a, e, d, u), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lb, kern["LB"](a, e, d, u), rtol=1e-12, atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(st.floats(1.01, 200), st.floats(0.0, 6.0), st.floats(-12, -0.5))
def test_thm4_never_exceeds_exact(a, e, ld):
    d = 10 ** ld
    g = C.gamma_exact(a, e, d)
    if a * d < 1:
        lb = max(K.gamma_lower(a, e, d), K.gamma_upper(a, e, d))
        assert lb <= g * (1 + 1e-12) + 1e-14


@settings(max_examples=30, deadline=None)
@given(st.floats(1.01, 200), st.floats(1e-4, 5.0), st.floats(-12, -0.5))
def test_lemma1_never_below_exact_eps_and_inverse(a, g, ld):
    d = 10 ** ld
    e = float(C.eps_exact(a, g, d))
    assert K.eps_asoodeh(a, g, d) >= e * (1 - 1e-11) - 1e-14
    if e > 0:
        # soundness of the rounding: gamma^eps(delta) >= gamma at the returned eps
        assert C.gamma_exact(a, e, d) >= g * (1 - 1e-14)


@pytest.mark.parametrize("a,g,d", [(2, 1, 1e-3), (5, 0.3, 1e-5), (1.5, 0.01, 1e-8), (100, 0.5, 1e-6)])
def test_eps_and_delta_inverse_vs_mpmath(a, g, d):
    e = float(C.eps_exact(a, g, d))
    # independent: bisection in mpmath on gamma^eps(delta) = gamma
    lo, hi = 0.0, float(K.eps_asoodeh(a, g, d)) + 1e-9
    for _ in range(48):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if mp_gamma(a, mid, d, dps=30, grid=60) < g else (lo, mid)
    assert lo * (1 - 1e-12) <= e <= hi * (1 + 2e-12) + 1e-13
    dd = float(C.delta_exact(a, g, e))
    assert d * (1 - 1e-10) <= dd <= d * (1 + 1e-9)


def test_vectorised_matches_scalar_and_errors():
    a = np.array([2.0, 5.0, 10.0])
    e = np.array([1.0, 1.0, 2.0])
    d = np.array([1e-3, 1e-5, 1e-2])
    vec = C.gamma_exact(a, e, d)
    for i in range(3):
        assert vec[i] == pytest.approx(float(C.gamma_exact(a[i], e[i], d[i])), rel=1e-14)
    with pytest.raises(DomainError, match="delta"):
        C.gamma_exact(2.0, 1.0, 1.5)
    with pytest.raises(DomainError, match="alpha"):
        C.eps_exact(1.0, 1.0, 1e-5)
    with pytest.raises(DomainError, match="epsilon"):
        C.gamma_exact(2.0, -1.0, 1e-5)


def test_solver_raises_when_not_converging():
    from numeric.solvers import ConvergenceError, bracketed_newton
    with pytest.raises(ConvergenceError):
        bracketed_newton(lambda x, i: (x ** 3 - 0.3, 3 * x ** 2), [0.0], [1.0], rtol=0, atol=1e-300,
                         maxiter=3)
