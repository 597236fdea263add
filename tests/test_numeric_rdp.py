"""RDP curves vs mpmath quadrature of the defining integral (Mironov-Talwar-Zhang 2019)."""
import warnings

import mpmath as mp
import numpy as np
import pytest

from numeric import rdp as R


def quad_rdp(a, q, s):
    with mp.workdps(30):
        a, q, s = mp.mpf(a), mp.mpf(q), mp.mpf(s)
        f = lambda x: mp.npdf(x, 0, s) * ((1 - q) + q * mp.exp((2 * x - 1) / (2 * s ** 2))) ** a
        v = mp.quad(f, [-mp.inf, -10 * s, 0, mp.mpf(1) / 2, 10 * s, a + 10 * s, mp.inf])
        return float(mp.log(v) / (a - 1))


@pytest.mark.parametrize("q,s", [(0.001, 4.0), (256 / 60000, 1.1), (0.1, 0.8), (0.5, 2.0)])
@pytest.mark.parametrize("a", [2, 3.5, 10, 32.7])
def test_subsampled_vs_quadrature(q, s, a):
    ref = quad_rdp(a, q, s)
    val = float(R.SubsampledGaussian(q, s)(np.array([float(a)]))[0])
    if float(a).is_integer():
        assert abs(val - ref) <= 1e-12 * ref
    else:  # fractional series is rounded up by its error bound
        assert ref * (1 - 1e-13) <= val <= ref * (1 + 1e-6)


def test_fractional_series_equals_binomial_at_integers():
    a = np.array([2.0, 5.0, 17.0, 64.0])
    fr = R.log_a_fractional(a, 0.05, 1.3)
    it = R.log_a_integer(a, 0.05, 1.3)
    assert np.all(fr >= it * (1 - 1e-15)) and np.allclose(fr, it, rtol=1e-9)


def test_gaussian_and_sensitivity_and_composition():
    g = R.Gaussian(2.0, sensitivity=3.0)
    assert g(np.array([4.0]))[0] == pytest.approx(4 * 9 / 8)
    c = R.Gaussian(1.0) * 10 + R.SubsampledGaussian(0.1, 1.0)
    a = np.array([2.0, 7.0])
    np.testing.assert_allclose(c(a), 10 * a / 2 + R.SubsampledGaussian(0.1, 1.0)(a))
    assert R.SubsampledGaussian(1.0, 2.0)(np.array([3.0]))[0] == pytest.approx(3 / 8)


def test_abadi_approximation_warns_outside_validity():
    with pytest.warns(R.RDPValidityWarning):
        R.AbadiApproxSubsampledGaussian(0.1, 4.0)          # q >= 1/(16 sigma)
    c = R.AbadiApproxSubsampledGaussian(0.001, 4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c(np.array([10.0]))
    with pytest.warns(R.RDPValidityWarning):
        c(np.array([500.0]))
    assert c.rho == pytest.approx(1e-6 / (0.999 * 16))


def test_integer_only_rejects_fractional():
    from derive.core import DomainError
    c = R.SubsampledGaussian(0.01, 1.0, fractional=False)
    with pytest.raises(DomainError):
        c(np.array([2.5]))


@pytest.mark.parametrize("q, s", [(0.004267, 1.1), (1e-3, 4.0), (0.05, 1.3), (0.5, 0.7), (1e-6, 0.6), (0.9, 3.0)])
def test_one_order_series_equals_the_array_series(q, s):
    """The accountant evaluates one order at a time by a float loop (``_log_a_fractional_one``);
    the vectorised series evaluates several.  Same terms and stopping rule, each rounded up by
    its own float-error bound (which dominates where the signed sum cancels: small q, alpha
    near 1).  Both must stay above the quadrature truth, and the one-order loop (fewer terms,
    a smaller bound) must be no looser than the array series."""
    for a in (1.01, 1.5, 2.5, 3.7, 10.3, 33.3, 77.7, 150.5):
        one = R.log_a_fractional(np.array([a]), q, s)[0]
        arr = R.log_a_fractional(a + 0.1 * np.arange(9.0), q, s)[0]   # > 8 orders: the array path
        truth = quad_rdp(a, q, s) * (a - 1)          # log A = (alpha - 1) * RDP
        assert truth * (1 - 1e-12) <= one <= arr * (1 + 1e-13), (a, truth, one, arr)
