"""Repeat and select (Papernot and Steinke 2022, "Hyperparameter tuning with Renyi DP", ICLR):
``numeric.repeat_select``'s RDP curve and mechanism held against values computed independently
(the papers' closed forms, mpmath, SciPy's minimiser, dp_accounting's accountant)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath as mp
import numpy as np
import pytest

from derive.errors import DomainError
from numeric import account
from numeric import events as EV
from numeric import rdp as R
from numeric.errors import UserInputError, user_input
from numeric.mechanism import Mechanism, NotSupported
from numeric.repeat_select import RepeatAndSelect, RepeatAndSelectRDP, _tnb_log_inverse_gamma, _tnb_mean

ORDERS = np.array([1.0 + 1e-6, 1.01, 1.1, 1.5, 2.0, 3.0, 5.0, 10.0, 32.0, 100.0, 1e3, 1e4, 1e5])


def _mp_mean(gamma, shape):
    """E[K] of TNB(shape, gamma) (Papernot and Steinke 2022, Def. 1), in mpmath."""
    g = mp.mpf(gamma)
    if shape == 0:
        return (1 - g) / (g * mp.log(1 / g))
    return shape * (1 - g) / (g * (1 - g ** shape))


# ----------------------------------------------------------------------------- gamma of the law
@pytest.mark.parametrize("shape", [0, 0.5, 1, 2, 5])
@pytest.mark.parametrize("gamma", [0.001, 0.1, 0.5, 0.99, 0.999])
def test_log_inverse_gamma_is_rounded_up(shape, gamma):
    with mp.workdps(50):
        mean = float(_mp_mean(gamma, shape))
        assert _tnb_mean(gamma, shape) == pytest.approx(mean, rel=1e-13)
        t = _tnb_log_inverse_gamma(mean, shape)
        # the mean at the returned t is at least the target (gamma = e^-t rounded down) ...
        assert _mp_mean(mp.exp(-mp.mpf(t)), shape) >= mean
        # ... and t is the root to double precision
        assert t == pytest.approx(-math.log(gamma), rel=1e-9)


def test_log_inverse_gamma_near_one_and_geometric():
    assert _tnb_log_inverse_gamma(1, 0) == 0.0
    t = _tnb_log_inverse_gamma(1 + 2.0 ** -40, 0)
    with mp.workdps(50):
        assert _mp_mean(mp.exp(-mp.mpf(t)), 0) >= 1 + 2.0 ** -40
    assert _tnb_log_inverse_gamma(1000, 1) >= math.log(1000)
    assert _tnb_log_inverse_gamma(1000, 1) == pytest.approx(math.log(1000), rel=1e-15)


# ----------------------------------------------------------------------------- mean = 1
@pytest.mark.parametrize("shape,sigma", [(0, 1), (0.5, 10), (1, 0.1), (2, 1)])
def test_mean_one_is_the_inner_curve(shape, sigma):
    """K = 1 when E[K] = 1 (the truncated law): the curve is the inner one at every order."""
    inner = R.Gaussian(sigma)
    assert np.array_equal(RepeatAndSelectRDP(inner, 1, shape)(ORDERS), inner(ORDERS))
    ev = (EV.Event(EV.Gaussian(sigma), EV.Poisson(0.05), 20),)
    got = RepeatAndSelect(ev, 1.0, shape).rdp()(ORDERS)
    assert np.array_equal(got, EV.rdp_curve(list(ev))(ORDERS))


def test_mean_one_poisson_is_not_one_run():
    """Poisson(1) runs 0, 1, 2, ... times: Theorem 6 adds mean * deltahat, the curve is above."""
    inner = R.Gaussian(1.0)
    v = RepeatAndSelectRDP(inner, 1, math.inf)(ORDERS)
    assert np.all(v >= inner(ORDERS)) and np.all(np.isfinite(v))


# ----------------------------------------------------------------------------- Theorem 2
@pytest.mark.parametrize("rho,gamma,shape", [
    (0.01, 0.01, 0), (1, 0.1, 0), (10, 0.99, 0), (0.01, 0.01, 0.5), (1, 0.1, 0.5), (10, 0.99, 0.5),
    (0.01, 0.01, 1), (1, 0.1, 1), (10, 0.99, 1), (0.01, 0.01, 5), (1, 0.1, 5), (10, 0.99, 5)])
def test_gaussian_corollary4(rho, gamma, shape):
    """Gaussian inner mechanism, D_lambda = rho lambda: Papernot and Steinke 2022 Cor. 4 (the
    closed form of dp_accounting's test_repeat_select_gaussian_negative_binomial), the exact
    optimum over lamhat and over the larger orders.  Ours lies above it (a valid bound cannot go
    below the optimum of the theorem) and within 1e-4 relative of it (the grid)."""
    mean = float(_mp_mean(gamma, shape))
    rho = min(rho, -math.log(gamma))
    curve = RepeatAndSelectRDP(R.Gaussian(math.sqrt(0.5 / rho)), mean, shape)
    lm, lg = math.log(mean), -math.log(gamma)
    orders = np.array([1.1, 2, math.sqrt(lg / rho), 1 + math.sqrt(lm / rho), 3, 5, 10, 100, 1e3, 1e4])
    orders = orders[orders > 1]
    common = 2 * (1 + shape) * math.sqrt(rho * lg) - shape * rho
    ref = np.where(orders <= 1 + math.sqrt(lm / rho), 2 * math.sqrt(rho * lm) + common,
                   rho * (orders - 1) + lm / (orders - 1) + common)
    got = curve(orders)
    assert np.all(got >= ref * (1 - 1e-12))
    assert np.all(got <= ref * (1 + 1e-4))
    # the order-free term is the optimum over lamhat, sqrt(log(1/gamma)/rho) (>= 1 here)
    assert curve.tnb_term == pytest.approx((1 + shape) * (2 * math.sqrt(rho * lg) - rho), rel=1e-9)


@pytest.mark.parametrize("mean,shape", [(10, 1), (100, 0)])
def test_theorem2_minimum_matches_scipy(mean, shape):
    """The min over lamhat of (1 - 1/lamhat) eps(lamhat) + log(1/gamma)/lamhat for a curved inner
    RDP (the Poisson-subsampled Gaussian), against SciPy's bounded minimiser in log(lamhat - 1)."""
    from scipy.optimize import minimize_scalar
    inner = R.SubsampledGaussian(0.1, 2.0)
    curve = RepeatAndSelectRDP(inner, mean, shape)
    t = curve.log_inv_gamma

    def f(x):
        lam = 1.0 + math.exp(x)
        return (1 - 1 / lam) * float(inner(np.array([lam]))[0]) + t / lam

    xs = np.linspace(math.log(1e-4), math.log(inner.alpha_max - 1), 48)
    j = int(np.argmin([f(x) for x in xs]))
    r = minimize_scalar(f, bounds=(xs[max(j - 1, 0)], xs[min(j + 1, xs.size - 1)]), method="bounded",
                        options={"xatol": 1e-8})
    ref = (1 + shape) * min(r.fun, t)
    assert curve.tnb_term == pytest.approx(ref, rel=1e-6)
    # the curve: eps(lambda) + that term + log(mean)/(lambda - 1), or less (larger orders' bound)
    lam = np.array([2.0, 8.0, 40.0])
    assert np.all(curve(lam) <= (inner(lam) + curve.tnb_term + math.log(mean) / (lam - 1)) * (1 + 1e-12))


@pytest.mark.parametrize("mean,shape", [(1000, 0), (1000, 1), (1000, 0.5), (100, 2), (1000, 5)])
def test_pure_dp_corollary3(mean, shape):
    """Laplace inner mechanism (eps-DP, eps = 1), order 1e10 standing for pure DP as in
    dp_accounting's test_repeat_select_pure_negative_binomial: (2 + shape) eps (Cor. 3; here
    log(1/gamma) >= eps, so lamhat -> oo is the optimum)."""
    eps = 1.0
    curve = RepeatAndSelectRDP(R.Laplace(1 / eps), mean, shape)
    assert curve.log_inv_gamma >= eps
    v = float(curve(1e10))
    assert eps * (2 + shape) <= v <= eps * (2 + shape) * (1 + 1e-12)
    m = RepeatAndSelect((EV.Event(EV.Laplace(1 / eps)),), mean, shape)
    assert m.pure_epsilon() == pytest.approx(eps * (2 + shape), rel=1e-12)
    assert m.pure_epsilon() >= eps * (2 + shape)
    best = account.epsilon([EV.Event(m)], 1e-10)              # the pure-DP route: that bound
    assert best.value <= eps * (2 + shape) * (1 + 1e-9)


# ----------------------------------------------------------------------------- Theorem 6
def _gauss_delta(eps, sigma):
    """The Gaussian mechanism's exact delta(eps) (Balle and Wang 2018), mpmath."""
    e, s = mp.mpf(eps), mp.mpf(sigma)
    return mp.ncdf(-e * s + 1 / (2 * s)) - mp.exp(e) * mp.ncdf(-e * s - 1 / (2 * s))


@pytest.mark.parametrize("sigma", [0.001, 1, 1000])
@pytest.mark.parametrize("mean", [1, 1000, 1e9])
def test_poisson_theorem6_gaussian(sigma, mean):
    """K ~ Poisson(mean): eps(lambda) + mean delta(epshat) + log(mean)/(lambda - 1),
    epshat = log(1 + 1/(lambda - 1)), with the Gaussian's exact delta (the mechanism uses the
    exact profile, certified).  Ours is at most it (up to the allowance) and at least the bound
    below it: delta(epshat) grows with the order, so for lambda2 >= lambda the theorem's value is
    >= mean delta(epshat(lambda)) + rho lambda2 + log(mean)/(lambda2 - 1)."""
    rho = 0.5 / sigma ** 2
    curve = RepeatAndSelect((EV.Event(EV.Gaussian(sigma)),), mean, math.inf).rdp()
    got = curve(ORDERS)
    lm = math.log(mean)
    with mp.workdps(30):
        d = np.array([float(_gauss_delta(mp.log1p(1 / (mp.mpf(o) - 1)), sigma)) for o in ORDERS])
    thm6 = rho * ORDERS + mean * d + lm / (ORDERS - 1)
    assert np.all(got <= thm6 * (1 + 1e-9) + mean * 1e-13)
    x = np.maximum(ORDERS - 1, math.sqrt(lm / rho))           # the best lambda2 - 1 >= lambda - 1
    lower = mean * d + rho * (1 + x) + (lm / x if lm > 0 else 0.0)
    assert np.all(got >= lower * (1 - 1e-12))


@pytest.mark.parametrize("eps,mean", [(1, 1), (0.1, 2), (10, 10), (0.001, 100), (2, 1000), (1, 1e10)])
def test_poisson_pure_laplace(eps, mean):
    """dp_accounting's test_repeat_and_select_pure_poisson: at alpha = 1 + 1/expm1(eps),
    epshat = eps and the Laplace mechanism's delta(eps) = 0, so Theorem 6 is its RDP plus
    log(mean) expm1(eps); ours is at most that (the eps-DP delta bound at epshat rounded down)."""
    alpha = 1 + 1 / math.expm1(eps)
    ans = (eps + math.log1p(math.expm1((1 - 2 * alpha) * eps) * (alpha - 1) / (2 * alpha - 1)) / (alpha - 1)
           + math.log(mean) * math.expm1(eps))
    curve = RepeatAndSelectRDP(R.Laplace(1 / eps), mean, math.inf)
    got = float(curve(np.array([alpha]))[0])
    assert got <= ans * (1 + 1e-9) + mean * 1e-14
    assert np.isfinite(curve(np.array([1e10, 1e100]))).all()


# ----------------------------------------------------------------------------- against dp_accounting
def _cases():
    G, L, P = EV.Gaussian, EV.Laplace, EV.Poisson
    return [
        ("gaussian geometric", [EV.Event(G(1.0))], lambda d: d.GaussianDpEvent(1.0), 10, 1),
        ("gaussian logarithmic", [EV.Event(G(2.0))], lambda d: d.GaussianDpEvent(2.0), 100, 0),
        ("gaussian x10 nb(2)", [EV.Event(G(3.0), None, 10)],
         lambda d: d.SelfComposedDpEvent(d.GaussianDpEvent(3.0), 10), 5, 2),
        ("gaussian poisson", [EV.Event(G(2.0))], lambda d: d.GaussianDpEvent(2.0), 1000, math.inf),
        ("sampled gaussian logarithmic", [EV.Event(G(1.0), P(0.01), 100)],
         lambda d: d.SelfComposedDpEvent(d.PoissonSampledDpEvent(0.01, d.GaussianDpEvent(1.0)), 100), 100, 0),
        ("sampled gaussian poisson", [EV.Event(G(1.0), P(0.01), 100)],
         lambda d: d.SelfComposedDpEvent(d.PoissonSampledDpEvent(0.01, d.GaussianDpEvent(1.0)), 100), 20, math.inf),
        ("laplace nb(0.5)", [EV.Event(L(1.0))], lambda d: d.LaplaceDpEvent(1.0), 10, 0.5),
        ("laplace x3 poisson", [EV.Event(L(2.0), None, 3)],
         lambda d: d.SelfComposedDpEvent(d.LaplaceDpEvent(2.0), 3), 10, math.inf),
        ("gaussian mean 1", [EV.Event(G(1.0))], lambda d: d.GaussianDpEvent(1.0), 1, 1),
    ]


@pytest.mark.parametrize("name,events,peer,mean,shape", _cases(), ids=[c[0] for c in _cases()])
def test_epsilon_not_above_dp_accounting(name, events, peer, mean, shape):
    """eps(1e-5) of the RDP route on our curve <= dp_accounting's RdpAccountant for the same
    RepeatAndSelectDpEvent (both valid bounds of the same theorems; ours uses the exact optimal
    conversion and a finer order search); and >= the run's own eps (our bound adds
    (1 + shape) C >= 0, mean delta >= 0 and log(mean)/(lambda - 1) >= 0 to the run's curve)."""
    de = pytest.importorskip("dp_accounting.dp_event")
    rpa = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    ours = account.epsilon([EV.Event(RepeatAndSelect(tuple(events), mean, shape))], 1e-5, method="rdp").value
    acc = rpa.RdpAccountant()
    acc.compose(de.RepeatAndSelectDpEvent(peer(de), mean, shape))
    theirs = acc.get_epsilon(1e-5)
    assert ours <= theirs + 1e-9
    one_run = account.epsilon(events, 1e-5, method="rdp").value
    assert ours >= one_run * (1 - 1e-6)


@pytest.mark.parametrize("shape", [0, 1, 3, math.inf])
def test_monotone_in_mean(shape):
    """More runs on average never give a smaller bound (pointwise on the curve, and eps)."""
    ev = (EV.Event(EV.Gaussian(1.5), None, 3), EV.Event(EV.Laplace(4.0)))
    means = [1, 2, 10, 100]
    mechs = [RepeatAndSelect(ev, m, shape) for m in means]
    curves = [m.rdp()(ORDERS) for m in mechs]
    for lo, hi in zip(curves, curves[1:]):
        assert np.all(hi >= lo * (1 - 1e-9))
    eps = [account.epsilon([EV.Event(m)], 1e-5, method="rdp").value for m in mechs]
    assert all(b >= a * (1 - 1e-6) for a, b in zip(eps, eps[1:]))


# ----------------------------------------------------------------------------- the protocol
def test_values_never_nan():
    orders = np.array([1 + 1e-12, 1.5, 2.0, 1e3, 1e6, 1e12, 1e300])
    for mean, shape in [(1e300, 0), (1e300, 1e300), (1 + 1e-15, 3), (1e300, math.inf), (5, 1e300)]:
        for inner in (R.Gaussian(1.0), R.Gaussian(1e-200), R.Gaussian(1e200), R.Laplace(1.0)):
            v = RepeatAndSelectRDP(inner, mean, shape)(orders)
            assert not np.isnan(v).any() and np.all(v >= 0)


def test_routes_and_text():
    m = RepeatAndSelect((EV.Event(EV.Gaussian(1.0)),), 10, 1)
    assert str(m) == "repeat-and-select(mean=10, shape=1; gaussian(sigma=1))"
    assert str(RepeatAndSelect(EV.Event(EV.Gaussian(1.0), EV.Poisson(0.1), 5), 3, math.inf)) == \
        "repeat-and-select(mean=3, shape=inf; gaussian(sigma=1) o poisson(q=0.1) x 5)"
    ev = [EV.Event(m)]
    with pytest.raises(EV.RouteError):
        account.epsilon(ev, 1e-5, method="pld")
    r = account.epsilon(ev, 1e-5, method="rdp")
    best = account.epsilon(ev, 1e-5)
    assert best.value == r.value and best.extras["route"] == "rdp"
    assert m.pure_epsilon() == math.inf
    with pytest.raises(NotSupported):
        m.spec()
    # under replace-one, a fixed batch inside
    fb = RepeatAndSelect((EV.Event(EV.Gaussian(1.0), EV.WithoutReplacement(10, 1000), 100),), 10, 0,
                         "replace_one")
    assert math.isfinite(account.epsilon([EV.Event(fb)], 1e-5, method="rdp", neighbouring="replace_one").value)
    # nested, and subsampled from outside (the generic Zhu-Wang bound over our curve)
    nest = RepeatAndSelect((EV.Event(m),), 3, 0)
    assert account.epsilon([EV.Event(nest)], 1e-5, method="rdp").value >= r.value * (1 - 1e-6)
    assert math.isfinite(account.epsilon([EV.Event(m, EV.Poisson(0.1), 10)], 1e-5, method="rdp").value)


@dataclass(frozen=True)
class _NoRDP(Mechanism):
    """A mechanism without an RDP curve."""

    def __str__(self):
        return "no-rdp"


def test_inner_route_error_is_not_supported():
    m = RepeatAndSelect((EV.Event(_NoRDP()),), 10, 1)
    with pytest.raises(NotSupported, match="no-rdp"):
        m.rdp()
    with pytest.raises(EV.RouteError):
        account.epsilon([EV.Event(m)], 1e-5, method="rdp")
    assert m.pure_epsilon() == math.inf


@pytest.mark.parametrize("kw,name", [
    (dict(mean=0.5, shape=1), "mean"), (dict(mean=math.nan, shape=1), "mean"),
    (dict(mean=math.inf, shape=1), "mean"), (dict(mean=True, shape=1), "mean"),
    (dict(mean="10", shape=1), "mean"), (dict(mean=10, shape=-1), "shape"),
    (dict(mean=10, shape=math.nan), "shape")])
def test_validation_names_the_parameter(kw, name):
    ev = (EV.Event(EV.Gaussian(1.0)),)
    with pytest.raises(DomainError) as exc:
        RepeatAndSelect(ev, **kw)
    assert exc.value.name == name and name in str(exc.value) and "[" in exc.value.allowed
    with pytest.raises(DomainError, match=name):
        RepeatAndSelectRDP(R.Gaussian(1.0), kw["mean"], kw["shape"])
    with pytest.raises(UserInputError, match=name), user_input():
        RepeatAndSelect(ev, **kw)


def test_validation_of_events_and_relation():
    with pytest.raises(DomainError, match="events"):
        RepeatAndSelect((), 10, 1)
    with pytest.raises(DomainError, match="neighbouring"):
        RepeatAndSelect((EV.Event(EV.Gaussian(1.0)),), 10, 1, "swap")
    with pytest.raises(DomainError, match="neighbouring"):       # Poisson sampling is add/remove
        RepeatAndSelect((EV.Event(EV.Gaussian(1.0), EV.Poisson(0.1)),), 10, 1, "replace_one")
