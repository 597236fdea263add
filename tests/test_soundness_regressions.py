"""Soundness regressions found in review: each test pins a case where a reported
guarantee once fell below the truth (float cancellation), a NaN escaped, or bad input
was not named.  Truths are closed forms evaluated with mpmath."""

import mpmath as mp
import numpy as np
import pytest

from derive.core import DomainError
from numeric import fdp, methods, pld, tv


def _gauss_delta(eps, mu):
    """delta(eps) of N(mu,1) vs N(0,1) by quadrature of the definition (derive.truths.gauss_delta)."""
    from derive import truths
    return truths.gauss_delta(eps, mu)


@pytest.mark.parametrize("mu, delta", [(1e-8, 1e-12), (1e-8, 1e-300), (1e-6, 1e-12), (1e-3, 1e-100)])
def test_gaussian_profile_sound_at_small_mu(mu, delta):
    g = fdp.Gaussian(mu)
    assert g.delta(0.0) >= _gauss_delta(0, mu)            # Phi(a) - e^eps Phi(b) cancels here
    assert tv.gdp_delta(0.0, mu) >= _gauss_delta(0, mu)
    e = float(g.epsilon(delta))
    assert _gauss_delta(e, mu) <= delta


@pytest.mark.parametrize("sigma, q", [(100.0, 1e-6), (1e5, 3e-6), (1e4, 1e-6), (300.0, 1e-5)])
def test_pld_upper_delta_sound_for_tiny_q(sigma, q):
    # one step, eps = 0: delta = q TV(N(1/sigma, 1), N(0, 1)) = q (2 Phi(1/(2 sigma)) - 1)
    with mp.workdps(60):
        true = mp.mpf(q) * (2 * mp.ncdf(1 / (2 * mp.mpf(sigma))) - 1)
    lo, hi = pld.subsampled_gaussian(sigma, q, 1).delta(0.0)
    assert lo <= true <= hi


def test_no_nan_at_huge_epsilon():
    f = fdp.EpsDelta(1.0, 1e-5)
    d = f.delta([710.0, 1000.0])
    assert np.all(np.isfinite(d)) and np.allclose(d, 1e-5, rtol=1e-9) and np.all(d >= 1e-5)
    assert np.all(np.isfinite(fdp.Gaussian(1.0).delta([50.0, 800.0])))
    assert np.all(fdp.Gaussian(1.0).delta([50.0, 800.0]) > 0)      # underflow never reports 0


def test_pld_calibration_loose_target_and_domain():
    from numeric import account, events as EV          # the one calibrator (issue 22)
    res = account.calibrate(lambda s: [EV.Event(EV.Gaussian(s), EV.Poisson(0.01), 100)], 10.0, 1e-5,
                            "sigma", 0.05, 1e6, method="pld")
    lo, hi = pld.subsampled_gaussian(res.value, 0.01, 100).epsilon(1e-5)
    assert hi <= 10.0 and res.epsilon <= 10.0
    with pytest.raises(DomainError) as ei:
        pld.subsampled_gaussian(0.05, 0.01, 10)
    assert ei.value.name == "sigma"
    with pytest.raises(DomainError) as ei:
        pld.discrete([1.0, 0.0], [0.0, 1.0], 2)
    assert ei.value.name == "q"
    assert fdp.Discrete([1.0, 0.0], [0.0, 1.0]).delta(5.0) == pytest.approx(1.0)
