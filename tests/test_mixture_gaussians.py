"""The mixture-of-Gaussians mechanism (numeric.mixture; dp_accounting's MixtureOfGaussiansDpEvent,
Choquette-Choo et al. 2023, arXiv 2310.15526): P = N(0, sigma^2) vs Q = sum_i p_i N(c_i, sigma^2).
Every certified bracket is checked against an independent computation: the Poisson-subsampled
Gaussian's own PLD models (numeric.pld_models), mpmath quadrature of the hockey-stick integrals
(one step at 30 digits; two steps as a 1-D integral of the closed-form one-step profile), and
dp_accounting's PLDAccountant."""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from derive.errors import DomainError
from numeric import account, pld
from numeric import events as EV
from numeric import rdp as R
from numeric.mixture import MixtureOfGaussians, mixture_gaussian_models, validate_mixture

THREE = (1.5, (0.0, 1.0, 2.0), (0.5, 0.3, 0.2))       # sigma, sensitivities, probabilities


def _one_direction(sigma, c, p, key, steps, h=None):
    """A PLDResult of one neighbouring order alone ("remove": (P, Q); "add": (Q, P))."""
    models = mixture_gaussian_models(sigma, c, p)
    if h is None:
        h = pld._choose_h(models, None, pld.DEFAULT_RESOLUTION)
    return pld.PLDResult("mog", {key: models[key]}, steps, h, pld.TAIL_BOUND, "both")


# ----------------------------------------------------------------------------- an independent reference
class _Reference:
    """delta(eps) of one and two steps of the pair in mpmath: x*(e) solves L(x) = e (float
    bisection polished by mpmath's Newton), the one-step profiles in closed form

        remove: int (q - e^e p)_+ = sum_i p_i Phi(mu_i - x*) - e^e Phi(-x*)   (1 - e^e below log p_0)
        add:    int (p - e^e q)_+ = Phi(x*(-e)) - e^e sum_i p_i Phi(x*(-e) - mu_i)   (0 if -e <= log p_0)

    (also by direct quadrature of the hockey-stick integrand), and two steps as
    int q(x) delta_remove(eps - L(x)) dx, resp. int p(x) delta_add(eps + L(x)) dx."""

    def __init__(self, sigma, c, p, dps):
        mp.mp.dps = dps
        self.muf = [ci / sigma for ci in c]
        self.pf = list(p)
        self.mu = [mp.mpf(ci) / mp.mpf(sigma) for ci in c]
        self.w = [mp.mpf(pi) for pi in p]
        p0 = sum((wi for wi, mi in zip(self.w, self.mu) if mi == 0), mp.mpf(0))
        self.lp0 = mp.log(p0) if p0 > 0 else -mp.inf

    def L(self, x):
        return mp.log(sum(wi * mp.exp(mi * x - mi * mi / 2) for wi, mi in zip(self.w, self.mu)))

    def _Lf(self, x):
        return math.log(sum(pi * math.exp(mi * x - mi * mi / 2) for pi, mi in zip(self.pf, self.muf)))

    def xstar(self, e):
        e = mp.mpf(e)
        if e <= self.lp0:
            return -mp.inf
        a, b = -60.0, 60.0
        for _ in range(60):
            m = (a + b) / 2
            a, b = (m, b) if self._Lf(m) < float(e) else (a, m)
        return mp.findroot(lambda x: self.L(x) - e, mp.mpf((a + b) / 2))

    def phi(self, x):
        return mp.exp(-x * x / 2) / mp.sqrt(2 * mp.pi)

    def q(self, x):
        return sum(wi * self.phi(x - mi) for wi, mi in zip(self.w, self.mu))

    def d1(self, key, e):
        e = mp.mpf(e)
        if key == "remove":
            x = self.xstar(e)
            if x == -mp.inf:
                return 1 - mp.exp(e)
            return sum(wi * mp.ncdf(mi - x) for wi, mi in zip(self.w, self.mu)) - mp.exp(e) * mp.ncdf(-x)
        if -e <= self.lp0:
            return mp.mpf(0)
        x = self.xstar(-e)
        return mp.ncdf(x) - mp.exp(e) * sum(wi * mp.ncdf(x - mi) for wi, mi in zip(self.w, self.mu))

    def d1_quad(self, key, e):
        """The hockey-stick integral itself, by quadrature beyond its crossing point."""
        e = mp.mpf(e)
        if key == "remove":
            x = self.xstar(e)
            f = lambda t: self.q(t) - mp.exp(e) * self.phi(t)                   # noqa: E731
            return mp.quad(f, [x, x + 2, x + 6, mp.inf]) if x != -mp.inf else 1 - mp.exp(e)
        if -e <= self.lp0:
            return mp.mpf(0)
        x = self.xstar(-e)
        f = lambda t: self.phi(t) - mp.exp(e) * self.q(t)                       # noqa: E731
        return mp.quad(f, [-mp.inf, x - 6, x - 2, x])

    def d2(self, key, eps):
        eps = mp.mpf(eps)
        grid = [-8, -4, -2, 0, 2, 4, 8]
        if key == "remove":
            xb = self.xstar(eps - self.lp0)        # beyond it the inner profile is 1 - e^e
            pts = sorted(set(grid + ([xb] if -8 < xb < 12 else [])))
            return mp.quad(lambda x: self.q(x) * self.d1("remove", eps - self.L(x)),
                           [-mp.inf] + pts + [mp.inf])
        xc = self.xstar(-self.lp0 - eps)           # beyond it the inner profile is 0
        pts = [t for t in grid if t < xc]
        return mp.quad(lambda x: self.phi(x) * self.d1("add", eps + self.L(x)), [-mp.inf] + pts + [xc])


# ----------------------------------------------------------------------------- the subsampled Gaussian
@pytest.mark.parametrize("sigma, q, steps", [(1.0, 0.01, 1), (1.0, 0.01, 100), (0.8, 0.2, 100)])
def test_two_point_mixture_is_the_poisson_subsampled_gaussian(sigma, q, steps):
    """Sensitivities (0, 1) with probabilities (1 - q, q) are the Poisson-subsampled Gaussian:
    the brackets overlap those of Event(Gaussian(sigma), Poisson(q)) (its own models,
    numeric.pld_models._mixture_models) and are as wide."""
    mine = EV.pld_accountant([EV.Event(MixtureOfGaussians(sigma, (0.0, 1.0), (1 - q, q)), None, steps)])
    ref = EV.pld_accountant([EV.Event(EV.Gaussian(sigma), EV.Poisson(q), steps)])
    eps = np.array([0.0, 0.25, 0.5, 1.0, 2.0])
    (la, ha), (lb, hb) = mine.delta(eps), ref.delta(eps)
    assert np.all(la <= hb) and np.all(lb <= ha)
    assert np.all(ha - la <= 1.5 * (hb - lb) + 1e-15) and np.all(hb - lb <= 1.5 * (ha - la) + 1e-15)
    (la, ha), (lb, hb) = mine.epsilon(1e-5), ref.epsilon(1e-5)
    assert la <= hb and lb <= ha and ha - la <= 1.5 * (hb - lb) + 1e-12
    assert abs(ha - hb) <= 1e-6 * hb


def test_two_point_models_match_the_subsampled_gaussian_models():
    q, mu = 0.01, 1.0 / 1.3
    mine = mixture_gaussian_models(1.3, (0.0, 1.0), (1 - q, q))
    ref = pld.mixture_models(mu, q)
    x = np.linspace(-9.0, 10.0, 101)
    for key in ("remove", "add"):
        a, b = mine[key], ref[key]
        np.testing.assert_allclose(a.L(x), b.L(x), rtol=1e-13, atol=1e-17)
        np.testing.assert_allclose(a.dL(x), b.dL(x), rtol=1e-13)
        np.testing.assert_allclose(a.log_q(x), b.log_q(x), rtol=1e-13)
        assert a.std == pytest.approx(b.std, rel=1e-8)
        assert a.x_tail == pytest.approx(b.x_tail, rel=1e-15)
        ls = np.linspace(*b.l_range(), 41)[1:-1]
        np.testing.assert_allclose(a.x_of(ls), b.x_of(ls), rtol=1e-10, atol=1e-10)
    assert mine["remove"].edge == pytest.approx(math.log1p(-q), rel=1e-14)


# ----------------------------------------------------------------------------- the inverse loss
def test_x_of_inverts_the_loss_to_double_precision():
    ref = _Reference(*THREE, dps=30)
    m = mixture_gaussian_models(*THREE)["remove"]
    ls = [-0.69, -0.6, -0.3, 0.0, 0.4, 1.5, 5.0, 20.0]
    got = m.x_of(np.array(ls))
    for l, x in zip(ls, got):
        true = ref.xstar(l)
        assert abs(x - float(true)) <= 1e-13 * (1 + abs(float(true))) / float(m.dL(np.array(float(true))))
    # below the bottom edge log p_0 = log 0.5: -oo (the loss never goes there)
    assert np.all(m.x_of(np.array([math.log(0.5), -1.0, -50.0])) == -np.inf)
    assert m.x_of(np.array([np.inf]))[0] == np.inf
    add = mixture_gaussian_models(*THREE)["add"]
    y = np.linspace(-8.0, 8.0, 33)
    np.testing.assert_allclose(add.x_of(add.L(y)), y, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- one step
def test_one_step_brackets_contain_the_hockey_stick_integrals():
    ref = _Reference(*THREE, dps=30)
    for key, grid in (("remove", (-0.5, 0.0, 0.3, 1.0, 2.0, 3.0)), ("add", (-0.5, 0.0, 0.3, 0.6, 1.0))):
        r = _one_direction(*THREE, key, 1)
        lo, hi = r.delta(np.array(grid))
        for e, a, b in zip(grid, lo, hi):
            v = ref.d1_quad(key, e)
            assert abs(v - ref.d1(key, e)) <= mp.mpf(10) ** -25      # quadrature = closed form
            assert a <= v <= b, (key, e, a, v, b)
            assert b - a <= 2e-3 * b + 1e-17 or (key == "add" and e > 0.5)   # near the top edge
    # at eps = 0 both orders give the total variation distance
    assert ref.d1("remove", 0) == pytest.approx(float(ref.d1("add", 0)), rel=1e-25)
    # delta(eps) = 0 beyond the largest loss of the add order, -log p_0 = log 2
    lo, hi = _one_direction(*THREE, "add", 1).delta(1.0)
    assert lo == 0 and hi <= 1e-17


# ----------------------------------------------------------------------------- two steps
def test_two_fold_brackets_contain_the_quadrature_of_the_product_pair():
    ref = _Reference(*THREE, dps=20)
    for key, grid in (("remove", (0.5, 2.0)), ("add", (0.3, 1.0))):
        r = _one_direction(*THREE, key, 2)
        lo, hi = r.delta(np.array(grid))
        for e, a, b in zip(grid, lo, hi):
            v = ref.d2(key, e)
            assert a <= v <= b, (key, e, a, v, b)
            assert b - a <= 0.03 * b
    # both orders at once, and dp_accounting 0.6.0's PLDAccountant on MixtureOfGaussiansDpEvent(1.5,
    # (0, 1, 2), (0.5, 0.3, 0.2)) x 2 at value_discretization_interval = 1e-5 (326 s to compute, so
    # pinned): delta(0.5) = 0.13359252095359644 (pessimistic), above the quadrature value by 2e-10
    both = EV.pld_accountant([EV.Event(MixtureOfGaussians(*THREE), None, 2)])
    lo, hi = both.delta(0.5)
    v = ref.d2("remove", 0.5)
    assert v >= ref.d2("add", 0.5) and lo <= v <= hi
    assert lo <= 0.13359252095359644 and v <= 0.13359252095359644 + 1e-9


# ----------------------------------------------------------------------------- many steps: dp_accounting
# dp_accounting 0.6.0, PLDAccountant() (value_discretization_interval = 1e-4, pessimistic), epsilon
# at delta = 1e-5 after 1000 steps of MixtureOfGaussiansDpEvent(sigma, c, p): 23 s and 14 s to
# compute, so pinned; the live comparison below uses a coarser interval
DPA_DEFAULT = {(1.0, (0.0, 1.0), (0.99, 0.01)): 1.828243646515083,
               (2.0, (0.0, 1.0, 2.0), (0.97, 0.02, 0.01)): 3.295963531114337}


@pytest.mark.parametrize("case", list(DPA_DEFAULT))
def test_many_steps_against_dp_accounting_default(case):
    dpa = DPA_DEFAULT[case]
    ours = EV.pld_accountant([EV.Event(MixtureOfGaussians(*case), None, 1000)])
    lo, hi = ours.epsilon(1e-5)
    assert lo <= dpa <= hi and hi - lo <= 1e-3 * hi          # our default lattice
    fine = pld.PLDResult("mog", mixture_gaussian_models(*case), 1000, 1e-4, pld.TAIL_BOUND, "both")
    lo, hi = fine.epsilon(1e-5)                               # dp_accounting's interval
    assert lo <= dpa and hi <= dpa * (1 + 1e-6) and hi - lo <= 2e-5 * hi


def test_many_steps_against_dp_accounting_live():
    dpa = pytest.importorskip("dp_accounting", reason="dp_accounting not installed (extra [interop])")
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
    sigma, c, p = 2.0, (0.0, 1.0, 2.0), (0.97, 0.02, 0.01)
    acc = PLDAccountant(value_discretization_interval=1e-3)
    acc.compose(dpa.dp_event.MixtureOfGaussiansDpEvent(sigma, c, p), 1000)
    theirs = acc.get_epsilon(1e-5)
    lo, hi = EV.pld_accountant([EV.Event(MixtureOfGaussians(sigma, c, p), None, 1000)]).epsilon(1e-5)
    assert lo <= theirs
    fine = pld.PLDResult("mog", mixture_gaussian_models(sigma, c, p), 1000, 2e-4, pld.TAIL_BOUND, "both")
    assert fine.epsilon(1e-5)[1] <= theirs + 1e-9
    r = account.epsilon([EV.Event(MixtureOfGaussians(sigma, c, p), None, 1000)], 1e-5, "pld")
    assert r.extras["epsilon_lower"] == float(lo) and r.value == float(hi)


# ----------------------------------------------------------------------------- the mechanism
def test_mechanism_protocol():
    m = MixtureOfGaussians(*THREE)
    assert m.noise_multiplier() == 0.75 and m.pure_epsilon() == math.inf and m.gaussian_noise() is None
    assert str(m) == "mixture-of-gaussians(sigma=1.5, sensitivities=(0, 1, 2), probs=(0.5, 0.3, 0.2))"
    assert set(m.pld_models()) == {"remove", "add"}
    assert m.pld_models()["remove"].edge == pytest.approx(math.log(0.5))
    for samp in (EV.Poisson(0.1), EV.WithoutReplacement(10, 100)):
        nb = samp.neighbouring
        with pytest.raises(EV.RouteError):
            EV.pld_accountant([EV.Event(m, samp, 10)], nb)
        with pytest.raises(EV.RouteError):
            EV.rdp_curve([EV.Event(m, samp, 10)], nb)
    with pytest.raises(EV.RouteError):
        EV.rdp_curve([EV.Event(m, None, 10)])
    best = account.epsilon([EV.Event(m, None, 10)], 1e-5)
    assert best.extras["route"] == "pld" and 0 < best.extras["epsilon_lower"] <= best.value < math.inf
    # the two special cases that are mechanisms with certified RDP curves
    sg = MixtureOfGaussians(1.2, (0.0, 2.0), (0.9, 0.1)).rdp()
    ref = R.SubsampledGaussian(0.1, 1.2, 2.0)
    assert isinstance(sg, R.SubsampledGaussian) and sg(np.array([2.0, 8.0])) == pytest.approx(ref(np.array([2.0, 8.0])))
    g = MixtureOfGaussians(1.2, (2.0, 2.0), (0.5, 0.5))        # one sensitivity (merged): the Gaussian
    assert g.gaussian_noise() == (1.2, 2.0) and isinstance(g.rdp(), R.Gaussian)
    assert set(g.pld_models()) == {"single"}
    # merged and dropped components: the same models
    a = mixture_gaussian_models(1.5, (2.0, 0.0, 1.0, 0.0, 3.0), (0.2, 0.3, 0.3, 0.2, 0.0))
    b = mixture_gaussian_models(*THREE)
    x = np.linspace(-5.0, 6.0, 23)
    for key in ("remove", "add"):
        np.testing.assert_allclose(a[key].L(x), b[key].L(x), rtol=1e-14, atol=1e-16)
        np.testing.assert_allclose(a[key].log_q(x), b[key].log_q(x), rtol=1e-14)


@pytest.mark.parametrize("args, name", [
    ((0.0, (0, 1), (0.5, 0.5)), "sigma"), ((-1.0, (0, 1), (0.5, 0.5)), "sigma"),
    ((math.inf, (0, 1), (0.5, 0.5)), "sigma"), ((math.nan, (0, 1), (0.5, 0.5)), "sigma"),
    ((True, (0, 1), (0.5, 0.5)), "sigma"), (("1", (0, 1), (0.5, 0.5)), "sigma"),
    ((1.0, (0, -1), (0.5, 0.5)), "sensitivities[1]"), ((1.0, (0, math.nan), (0.5, 0.5)), "sensitivities[1]"),
    ((1.0, (math.inf,), (1.0,)), "sensitivities[0]"), ((1.0, (), ()), "sensitivities"),
    ((1.0, "01", (0.5, 0.5)), "sensitivities"),
    ((1.0, (0, 1), (0.5,)), "probs"), ((1.0, (0, 1), (1.2, -0.2)), "probs[1]"),
    ((1.0, (0, 1), (0.5, 0.6)), "probs"), ((1.0, (0, 1), (0.5, 0.5 + 2e-9)), "probs"),
    ((1.0, (0, 0), (0.5, 0.5)), "sensitivities"), ((1.0, (0, 1), (1.0, 0.0)), "sensitivities"),
])
def test_validation_names_the_parameter(args, name):
    for make in (MixtureOfGaussians, mixture_gaussian_models):
        with pytest.raises(DomainError) as exc:
            make(*args)
        assert exc.value.name == name and exc.value.allowed


def test_probabilities_are_renormalised():
    s, c, p = validate_mixture(2, [0, 1], [0.75, 0.25 + 5e-10])
    assert (s, c) == (2.0, (0.0, 1.0)) and math.fsum(p) == pytest.approx(1.0, abs=1e-16)
    assert MixtureOfGaussians(2, [0, 1], [0.75, 0.25 + 5e-10]).probs == p
