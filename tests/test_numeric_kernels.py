"""Compiled registry kernels vs mpmath, and stable forms vs paper forms (002 Thm. 4, Lemma 1)."""
import math
import warnings

import mpmath as mp
import numpy as np
import pytest

from derive.errors import DomainError
from numeric import kernels as K

warnings.filterwarnings("ignore", category=RuntimeWarning)
RNG = np.random.default_rng(7)


def _pts(n=40):
    a = 1 + 10 ** RNG.uniform(-2, 3, n)
    e = RNG.uniform(0, 5, n)
    d = 10 ** RNG.uniform(-12, -0.1, n)
    d = np.minimum(d, 0.9 / a)
    return a, e, d


@pytest.mark.parametrize("name", ["asoodeh2021.thm4.g", "asoodeh2021.thm4.f"])
def test_compiled_numpy_matches_mpmath(name):
    fn, fm = K.compile_numpy(name), K.compile_mpmath(name)
    a, e, d = _pts()
    a = np.minimum(a, 200.0)       # paper form is finite here
    vals = fn(a, e, d)
    with mp.workdps(40):
        ref = np.array([float(fm(mp.mpf(x), mp.mpf(y), mp.mpf(z))) for x, y, z in zip(a, e, d)])
    ok = np.isfinite(vals)
    assert ok.sum() > 30
    np.testing.assert_allclose(vals[ok], ref[ok], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("stable,name", [(K.gamma_lower, "asoodeh2021.thm4.g"),
                                         (K.gamma_upper, "asoodeh2021.thm4.f")])
def test_stable_thm4_equals_paper_form(stable, name):
    fm = K.compile_mpmath(name)
    a, e, d = _pts(60)
    with mp.workdps(60):
        ref = np.array([float(fm(mp.mpf(x), mp.mpf(y), mp.mpf(z))) for x, y, z in zip(a, e, d)])
    np.testing.assert_allclose(stable(a, e, d), ref, rtol=1e-10, atol=1e-13)


def test_thm4_f_at_alpha_5000_finite_and_exact():
    a, e, d = 5000.0, 1.0, 1e-5
    with mp.workdps(60):
        ref = float(K.compile_mpmath("asoodeh2021.thm4.f")(mp.mpf(a), mp.mpf(e), mp.mpf(d)))
    v = float(K.gamma_upper(a, e, d))
    assert np.isfinite(v) and abs(v - ref) <= 1e-12 * abs(ref)


def test_zeta_stable_at_1e8():
    a = 1e8
    with mp.workdps(50):
        ref = float((1 - 1 / mp.mpf(a)) ** (mp.mpf(a) - 1) / a)
    assert abs(K.zeta(a) - ref) <= 1e-12 * ref
    zc = K.compile_numpy("asoodeh2021.thm4.zeta")
    aa = np.array([1.5, 2.0, 10.0, 1e3])
    np.testing.assert_allclose(K.zeta(aa), zc(aa), rtol=1e-12)


def test_lemma1_eq25_stable_vs_paper():
    fm = K.compile_mpmath("asoodeh2021.lemma1.eq25")
    a = 1 + 10 ** RNG.uniform(-1, 2, 40)
    g = 10 ** RNG.uniform(-4, 1, 40)
    d = np.minimum(10 ** RNG.uniform(-10, -1, 40), 0.9 / a)
    with mp.workdps(60):
        ref = np.array([float(fm(mp.mpf(x), mp.mpf(y), mp.mpf(z))) for x, y, z in zip(a, g, d)])
    np.testing.assert_allclose(K.eps_asoodeh_small_delta(a, g, d), ref, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(K.compile_numpy("asoodeh2021.lemma1.eq25")(a, g, d), ref, rtol=1e-9)


def test_extremes_finite():
    # (alpha-1) gamma beyond 709, delta down to 1e-300
    v = K.eps_asoodeh_small_delta(1e4, 1.0, 1e-300)
    assert np.isfinite(v) and 1.0 < v < 1.1
    assert np.isfinite(K.gamma_upper(1e4, 1.0, 1e-300)) and np.isfinite(K.gamma_lower(1e4, 1.0, 1e-300))


def test_balle_equals_canonne_kamath_steinke_form():
    a = 1 + 10 ** RNG.uniform(-2, 3, 50)
    g = RNG.uniform(0, 3, 50)
    d = 10 ** RNG.uniform(-12, -1, 50)
    cks = g + np.log((a - 1) / a) - (np.log(d) + np.log(a)) / (a - 1)
    np.testing.assert_allclose(K.eps_balle(a, g, d), cks, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(K.compile_numpy("asoodeh2021.balle2020")(np.minimum(a, 300), g, d),
                               K.eps_balle(np.minimum(a, 300), g, d), rtol=1e-9)


def test_domain_errors():
    from derive.core import DomainError
    with pytest.raises(DomainError, match="alpha"):
        K.check_alpha(1.0)
    with pytest.raises(DomainError, match="delta"):
        K.check_open01(np.nan, "delta")


def test_compiled_kernels_check_their_declared_domains():
    """002 Thm. 4's f is stated for alpha > 1 and delta in (0, 1): the compiled kernels refuse
    alpha = 0.5 and delta = 0 (arrays included) naming the parameter and its range."""
    f, fm = K.compile_numpy("asoodeh2021.thm4.f"), K.compile_mpmath("asoodeh2021.thm4.f")
    with pytest.raises(K.DomainError, match=r"alpha=0.5 is outside the allowed range: \(1, oo\)"):
        f(0.5, 1.0, 1e-5)
    with pytest.raises(K.DomainError, match="delta"):
        f(np.array([2.0, 3.0]), np.array([1.0, 1.0]), np.array([1e-5, 0.0]))
    with pytest.raises(K.DomainError, match="alpha"):
        fm(mp.mpf("0.9"), mp.mpf(1), mp.mpf("1e-5"))
    assert np.isfinite(f(2.0, 1.0, 1e-5))


# --------------------------------------------------------------- NumPy-only special functions
# (the accountant's start-up path avoids importing scipy.special; these hold its stand-ins to
# independent values at 40 digits, extremes included)
def test_expit_matches_mpmath_and_scipy_at_both_ends():
    from scipy.special import expit
    x = np.concatenate([np.linspace(-700, 700, 2801), [-745.0, -1e300, 0.0, 1e-300, 1e300]])
    mp.mp.dps = 40
    truth = np.array([float(1 / (1 + mp.exp(-mp.mpf(float(v))))) for v in x])
    got = K.expit(x)
    normal = truth > 1e-300
    assert np.all(np.abs(got[normal] - truth[normal]) <= 4e-16 * truth[normal])
    assert np.array_equal(got[~normal] == 0, truth[~normal] == 0)
    assert np.allclose(got[normal], expit(x[normal]), rtol=4e-16, atol=0)
    # the float path (numeric.fastconv's, math.exp) is as accurate
    scal = np.array([K.expit_scalar(float(v)) for v in x])
    assert np.all(np.abs(scal[normal] - truth[normal]) <= 4e-16 * truth[normal])
    assert np.array_equal(scal[~normal] == 0, truth[~normal] == 0)
    assert all(K.expit(float(v)) == K.expit_scalar(float(v)) for v in x[::97])


def test_log_binom_int_matches_mpmath():
    mp.mp.dps = 40
    for n in (0, 1, 2, 7, 64, 255, 256, 1000, 4097):
        for k in sorted({0, min(1, n), n // 3, n // 2, max(n - 1, 0), n}):
            got = float(K.log_binom_int(float(n), float(k)))
            truth = mp.log(mp.binomial(n, k))
            # the table's lgamma values err by ~1 ulp of log(n!), which the differences keep
            assert abs(got - truth) <= 4e-16 * (1 + math.lgamma(n + 1.0)), (n, k)
    grid = K.log_binom_int(np.arange(5.0)[:, None], np.minimum(np.arange(5.0)[None, :], np.arange(5.0)[:, None]))
    assert grid.shape == (5, 5) and grid[4, 2] == pytest.approx(math.log(6.0), rel=1e-15)


@pytest.mark.parametrize("x", [-1e6, -1e3, -40.0, -30.000001, -30.0, -29.99999, -20.0, -8.5, -1.0,
                               -1e-9, 0.0, 1e-9, 1.0, 4.0, 9.5, 30.0, 1e3])
def test_log_ndtr_scalar_matches_mpmath(x):
    from scipy.special import log_ndtr
    mp.mp.dps = 50
    xm = mp.mpf(x)
    truth = mp.log1p(-mp.ncdf(-xm)) if x > 0 else mp.log(mp.ncdf(xm))   # 1 - Phi(x) kept exactly
    got = K.log_ndtr_scalar(x)
    assert abs(got - truth) <= 2e-14 * abs(truth) + 1e-30   # relative, or absolute near log 1 = 0
    assert got == pytest.approx(float(log_ndtr(x)), rel=1e-12, abs=1e-30)


def test_log_ndtr_scalar_edges():
    assert K.log_ndtr_scalar(-math.inf) == -math.inf and K.log_ndtr_scalar(math.inf) == 0.0
    assert K.log_ndtr_scalar(1e300) == 0.0 and math.isfinite(K.log_ndtr_scalar(-1e150))
    with pytest.raises(K.DomainError, match="x"):
        K.log_ndtr_scalar(math.nan)


def test_logaddexp_scalar():
    for x, y in [(0.0, 0.0), (-math.inf, 3.0), (700.0, 710.0), (-1e300, -1e300), (5.0, -40.0)]:
        assert K.logaddexp_scalar(x, y) == pytest.approx(float(np.logaddexp(x, y)), rel=1e-15)
    assert K.logaddexp_scalar(-math.inf, -math.inf) == -math.inf


def test_ndtr_scalar_matches_mpmath_in_both_tails():
    # erfc(-x/sqrt2) sees x/sqrt2 rounded: relative error ~ x^2 ulp in the tail (SciPy's too)
    from scipy.special import ndtr
    for x in [-37.0, -30.0, -12.5, -3.0, -1e-3, 0.0, 1e-8, 0.7, 5.0, 8.3, 40.0]:
        with mp.workdps(40):
            want = mp.ncdf(mp.mpf(x))
        got = K.ndtr(x)
        assert abs(got - want) <= 4.5e-16 * (1 + x * x) * want, x
        assert abs(got - ndtr(x)) <= 4.5e-16 * (1 + x * x) * want, x
    arr = np.array([-20.0, 0.0, 3.0])
    assert np.array_equal(K.ndtr(arr), ndtr(arr))           # arrays go to SciPy
    with pytest.raises(DomainError):
        K.ndtr(float("nan"))


@pytest.mark.parametrize("p", [1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 0.025, 0.3, 0.5, 0.8, 1 - 1e-9, 1 - 2**-52])
def test_ndtri_scalar_is_the_40_digit_root(p):
    with mp.workdps(40):
        lower = min(mp.mpf(p), 1 - mp.mpf(p))           # Phi(-|x|), exact in mpmath
        root = mp.findroot(lambda x: mp.log(mp.ncdf(x)) - mp.log(lower), -mp.sqrt(-2 * mp.log(lower)))
        root = root if p < 0.5 else -root
    got = K.ndtri(p)
    assert abs(got - float(root)) <= 6e-16 * max(1.0, abs(float(root))), (got, root)
    for bad in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(DomainError):
            K.ndtri(bad)


def test_next_fast_len_is_scipys_real_size():
    from scipy.fft import next_fast_len
    rng = np.random.default_rng(7)
    ns = list(range(1, 2000)) + [int(v) for v in rng.integers(2000, 10**9, 300)]
    assert [K.next_fast_len(n) for n in ns] == [next_fast_len(n, real=True) for n in ns]
