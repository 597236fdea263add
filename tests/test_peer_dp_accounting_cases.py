"""dp_accounting's own concrete cases (``rdp/rdp_privacy_accountant_test.py`` and
``pld/pld_privacy_accountant_test.py`` of the installed dp_accounting), ported to
DpDeriveAccountant (issue 35).

Each case asserts what the peer's test asserts where it is a statement about the privacy of
the events (a refusal, a no-op, a non-private answer, a value at a pure-DP epsilon), and for
a numeric answer that ours is *valid* -- at least an independent truth (a closed form in
mpmath, the exact pmf sum) or at least a certified lower bound (dpderive's PLD bracket) -- and
*at most the peer's answer* (plus a small tolerance where both are exact up to discretisation).
Where our documented semantics differ from a peer's (Laplace under REPLACE_ONE, Poisson
sampling under REPLACE_ONE, events we do not account), the case says so and asserts ours.
"""
import math

import pytest

dpa = pytest.importorskip("dp_accounting", reason="dp_accounting not installed (extra [interop])")
import mpmath as mp  # noqa: E402
import numpy as np  # noqa: E402
from dp_accounting import dp_event as de  # noqa: E402
from dp_accounting.pld import PLDAccountant  # noqa: E402
from dp_accounting.rdp import RdpAccountant  # noqa: E402

from dpderive.interop.dp_accounting import DpDeriveAccountant  # noqa: E402

NR = dpa.NeighboringRelation


def _gauss_delta(mu, eps):
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.e ** eps * mp.ncdf(-eps / mu - mu / 2)


def _gauss_eps(mu, delta):
    lo, hi = mp.mpf(0), mp.mpf(200)
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _gauss_delta(mu, mid) > delta else (lo, mid)
    return float(lo)


def _acc(ev, nr=NR.ADD_OR_REMOVE_ONE, count=1):
    return DpDeriveAccountant(nr).compose(ev, count)


# ----------------------------------------------------------------------------- rdp_privacy_accountant_test
def test_supports():                                           # RdpPrivacyAccountantTest.test_supports
    aor, ro, rs = (DpDeriveAccountant(nr) for nr in (NR.ADD_OR_REMOVE_ONE, NR.REPLACE_ONE, NR.REPLACE_SPECIAL))
    composed = de.ComposedDpEvent([de.GaussianDpEvent(1.0), de.GaussianDpEvent(2.0)])
    for ev in (de.GaussianDpEvent(1.0), de.ZCDpEvent(1.0, 2.0), de.SelfComposedDpEvent(de.GaussianDpEvent(1.0), 6),
               composed):
        assert aor.supports(ev) and ro.supports(ev) and rs.supports(ev)
    for ev in (de.PoissonSampledDpEvent(0.1, de.GaussianDpEvent(1.0)), de.PoissonSampledDpEvent(0.1, composed)):
        assert aor.supports(ev) and not ro.supports(ev) and rs.supports(ev)
    for ev in (de.SampledWithoutReplacementDpEvent(1000, 10, de.GaussianDpEvent(1.0)),
               de.SampledWithoutReplacementDpEvent(1000, 10, composed)):
        assert not aor.supports(ev) and ro.supports(ev) and not rs.supports(ev)
    ev = de.SampledWithReplacementDpEvent(1000, 10, de.GaussianDpEvent(1.0))
    assert not aor.supports(ev) and not ro.supports(ev)
    ev = de.RandomizedResponseDpEvent(0.3, 15)
    assert rs.supports(ev) and ro.supports(ev) and not aor.supports(ev)


def test_rdp_composition():                                    # every way of writing 6 steps is one answer
    base = de.GaussianDpEvent(3.14159)
    ref = _acc(base, count=6).get_epsilon(1e-5)
    for ev, count in ((de.SelfComposedDpEvent(base, 6), 1), (de.SelfComposedDpEvent(base, 2), 3),
                      (de.ComposedDpEvent([base] * 6), 1),
                      (de.ComposedDpEvent([de.SelfComposedDpEvent(base, i) for i in (1, 2, 3)]), 1)):
        assert _acc(ev, count=count).get_epsilon(1e-5) == ref
    mp.mp.dps = 30
    assert _gauss_eps(math.sqrt(6) / 3.14159, 1e-5) <= ref <= RdpAccountant().compose(base, 6).get_epsilon(1e-5)


@pytest.mark.parametrize("ev", [de.PoissonSampledDpEvent(0, de.GaussianDpEvent(1.0)),
                                de.PoissonSampledDpEvent(0, de.GaussianDpEvent(0.0))])
def test_zero_poisson_sample(ev):
    acc = _acc(ev)
    assert acc.get_epsilon(1e-10) == 0 and acc.get_delta(1e-10) == 0


def test_zero_fixed_batch_sample():
    acc = _acc(de.SampledWithoutReplacementDpEvent(1000, 0, de.GaussianDpEvent(1.0)), NR.REPLACE_ONE)
    assert acc.get_epsilon(1e-10) == 0 and acc.get_delta(1e-10) == 0


def test_epsilon_non_private_gaussian():
    assert _acc(de.GaussianDpEvent(0)).get_epsilon(1e-1) == math.inf


def test_compute_rdp_gaussian_and_multi_gaussian():
    """alpha / (2 sigma^2) (summed over a Poisson(1)-sampled composition); our RDP is the
    curve's, and epsilon is the exact profile of mu = sqrt(sum sigma_i^-2)."""
    alpha, s1, s2 = 3.14159, 2.71828, 6.28319
    acc = _acc(de.GaussianDpEvent(s1))
    (e,) = acc.state.events()
    assert float(e.mechanism.rdp()(np.array([alpha]))[0]) == pytest.approx(alpha / (2 * s1 ** 2), rel=1e-15)
    ev = de.PoissonSampledDpEvent(1.0, de.ComposedDpEvent([de.GaussianDpEvent(s1), de.GaussianDpEvent(s2)]))
    ours = _acc(ev).get_epsilon(1e-5)
    mp.mp.dps = 30
    mu = math.sqrt(s1 ** -2 + s2 ** -2)
    assert _gauss_eps(mu, 1e-5) <= ours <= _gauss_eps(mu, 1e-5) * (1 + 1e-6)
    assert ours <= RdpAccountant().compose(ev).get_epsilon(1e-5)


def test_effective_gaussian_noise_multiplier_composed():
    sig = np.random.default_rng(0xBAD5EED).uniform(size=4) + 0.5
    ev = de.PoissonSampledDpEvent(0.01, de.ComposedDpEvent([
        de.GaussianDpEvent(sig[0]), de.SelfComposedDpEvent(de.GaussianDpEvent(sig[1]), 3),
        de.ComposedDpEvent([de.GaussianDpEvent(sig[2]), de.GaussianDpEvent(sig[3])])]))
    (e,) = _acc(ev).state.events()
    expected = sum(s ** -2 for s in list(sig) + [sig[1]] * 2) ** -0.5
    assert expected * (1 - 1e-14) <= e.mechanism.sigma <= expected           # rounded down, never up


def test_compute_rdp_multi_zcdp():
    xi1, xi2, rho1, rho2 = 3.14159, 1.23456, 2.71828, 6.28319
    acc = _acc(de.ComposedDpEvent([de.ZCDpEvent(rho1, xi1), de.ZCDpEvent(rho2, xi2)]))
    rdp = sum(e.count * float(e.mechanism.rdp()(np.array([2.0]))[0]) for e in acc.state.events())
    exact = xi1 + xi2 + 2.0 * (rho1 + rho2)
    assert exact <= rdp <= exact * (1 + 1e-14)
    peer = RdpAccountant().compose(de.ComposedDpEvent([de.ZCDpEvent(rho1, xi1), de.ZCDpEvent(rho2, xi2)]))
    assert acc.get_epsilon(1e-5) <= peer.get_epsilon(1e-5) * (1 + 1e-9)


def test_zcdp_matches_gaussian():
    """rho = 1/(2 sigma^2): the same RDP curve as the Gaussian's, so the same RDP answer; the
    Gaussian's exact profile (tighter: a zCDP event may be any mechanism of that curve) below it."""
    sigma = 3.14159
    z = _acc(de.ZCDpEvent(1 / (2 * sigma ** 2)))
    rdp_route = DpDeriveAccountant(method="rdp").compose(de.GaussianDpEvent(sigma)).get_epsilon(1e-5)
    mp.mp.dps = 30
    assert _gauss_eps(1 / sigma, 1e-5) <= z.get_epsilon(1e-5) == pytest.approx(rdp_route, rel=1e-9)
    assert z.get_epsilon(1e-5) <= RdpAccountant().compose(de.ZCDpEvent(1 / (2 * sigma ** 2))).get_epsilon(1e-5)


def test_compute_rdp_poisson_sampled_gaussian():
    orders = np.array([1.5, 2.5, 5, 50, 100])
    expected = np.array([6.70579741e-04, 1.08548710e-03, 2.18075656e-03, 2.38460375e-02, 1.67416308e02])
    ev = de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.01, de.GaussianDpEvent(2.5)), 50)
    acc = _acc(ev)
    (e,) = acc.state.events()
    ours = e.count * np.asarray(e.sampling.rdp(e.mechanism)(orders))
    # the truth by quadrature of Mironov-Talwar-Zhang's A_alpha (the larger order of the pair);
    # the peer's fractional orders lie above it (3% at alpha = 1.5): ours between
    mp.mp.dps = 30
    q, s = mp.mpf(0.01), mp.mpf(2.5)
    for a, got, peer in zip(orders, ours, expected):
        A = mp.quad(lambda x: mp.npdf(x, 0, s) * ((1 - q) + q * mp.e ** ((2 * x - 1) / (2 * s * s))) ** a,
                    [-mp.inf, -20, 0, 20, mp.inf])
        truth = float(50 * mp.log(A) / (a - 1))
        assert truth <= got <= max(peer * (1 + 1e-4), truth * (1 + 1e-9))
    assert acc.get_epsilon(1e-5) <= RdpAccountant().compose(ev).get_epsilon(1e-5)
    assert acc.last_answer.lower <= acc.get_epsilon(1e-5)


RR_SPECIAL = [(0.3, 10, [1.5030552584146897, 1.7801182478869704, 1.9091969256833639, 1.9814516798923105,
                         1.9846954517418232, 1.9878743481543455]),
              (0.05, 20, [2.8985312222056674, 2.9615414620514047, 2.982908949957726, 2.994685471627712,
                          2.9952141594692665, 2.995732273553991]),
              (0.01, 3, [3.851345343526459, 4.334924907685137, 4.503803908976894, 4.596895387863428,
                         4.601074578835478, 4.605170185988092])]
RR_ONE = [(0.3, 10, [2.6946320226546314, 2.983865364028855, 3.11316970070507, 3.1854244842182466,
                     3.1886682560677593, 3.1918471524802814]),
          (0.05, 20, [5.850317703374384, 5.910360162307462, 5.930633082131939, 5.94180620835157,
                      5.942307807732949, 5.942799375126701]),
          (0.01, 3, [5.684126770932727, 5.692634596034571, 5.695421239467805, 5.696956976543137,
                     5.697025920968522, 5.697093486505405])]


@pytest.mark.parametrize("nr,p,k,expected", [(NR.REPLACE_SPECIAL, *c) for c in RR_SPECIAL]
                         + [(NR.REPLACE_ONE, *c) for c in RR_ONE])
def test_compute_rdp_randomized_response(nr, p, k, expected):
    """The peer's RDP values at orders 1.5, 2.5, 5, 50, 100, inf: ours is the certified curve
    (>= the definition, held to mpmath in test_interop_dp_accounting) and the pure epsilon."""
    acc = _acc(de.RandomizedResponseDpEvent(p, k), nr)
    (e,) = acc.state.events()
    ours = np.append(e.mechanism.rdp()(np.array([1.5, 2.5, 5, 50, 100])), e.mechanism.pure_epsilon())
    assert np.allclose(ours, expected, rtol=1e-4)
    assert acc.get_epsilon(0) == pytest.approx(expected[-1], rel=1e-12) and acc.get_epsilon(0) >= expected[-1] * (1 - 1e-15)
    peer = RdpAccountant(None, nr).compose(de.RandomizedResponseDpEvent(p, k))
    assert acc.get_epsilon(1e-5) <= peer.get_epsilon(1e-5)


@pytest.mark.parametrize("nr", [NR.REPLACE_SPECIAL, NR.REPLACE_ONE])
def test_compute_rdp_randomized_response_boundary(nr):
    for p, k in ((1, 2), (0.1, 1)):
        acc = _acc(de.RandomizedResponseDpEvent(p, k), nr)
        assert acc.get_epsilon(1e-5) == 0 and acc.get_delta(0) == 0
    acc = _acc(de.RandomizedResponseDpEvent(0.0, 2), nr)
    assert acc.get_epsilon(1e-5) == math.inf and acc.get_delta(1.0) == 1


@pytest.mark.parametrize("nr,expected", [(NR.REPLACE_SPECIAL, 2.302585092994046), (NR.REPLACE_ONE, 4.51085950651685)])
def test_compute_rdp_randomized_response_inf_order(nr, expected):
    e0 = _acc(de.RandomizedResponseDpEvent(0.1, 10), nr).get_epsilon(0)
    assert e0 == pytest.approx(expected, rel=1e-14) and e0 >= expected


def test_compute_rdp_randomized_response_raises():
    for nr in (NR.REPLACE_SPECIAL, NR.REPLACE_ONE):
        for ev, name in ((de.RandomizedResponseDpEvent(-1, 10), "noise_parameter"),
                         (de.RandomizedResponseDpEvent(2, 10), "noise_parameter"),
                         (de.RandomizedResponseDpEvent(0.1, 0), "num_buckets")):
            with pytest.raises(ValueError, match=name):
                _acc(ev, nr)


def test_compute_epsilon_delta_gaussian():
    """sigma = 4.530877117 is exactly (1, 1e-6)-DP by the peer's RDP conversion (its test: almost
    equal 1); the exact profile (ours, route exact) is tighter: 0.927."""
    acc = _acc(de.GaussianDpEvent(4.530877117))
    mp.mp.dps = 30
    truth = _gauss_eps(1 / 4.530877117, 1e-6)
    assert truth <= acc.get_epsilon(1e-6) <= truth * (1 + 1e-9) and acc.get_epsilon(1e-6) <= 1
    assert float(_gauss_delta(1 / 4.530877117, 1)) <= acc.get_delta(1) <= 1e-6


def test_delta_bounds_gaussian():
    """The optimal Gaussian delta (Balle and Wang 2018 Thm. 8) below ours, ours at most the
    'standard' bound exp(-(eps - 1/2)^2 / 2) (peer: the RDP answer between them)."""
    acc = _acc(de.GaussianDpEvent(1.0))
    for eps in np.arange(0, 50, 2.5):
        d = acc.get_delta(float(eps))
        d0 = math.erfc((eps - 0.5) / math.sqrt(2)) / 2 - math.exp(eps) * math.erfc((eps + 0.5) / math.sqrt(2)) / 2
        assert d0 <= d + 1e-300
        assert d <= (math.exp(-0.5 * (eps - 0.5) ** 2) if eps >= 0.5 else 1) + 1e-300


def test_epsilon_delta_consistency():
    """get_delta(get_epsilon(delta)) <= delta (both certified: delta(eps(delta)) of the truth is
    at most delta; ours meets it to the bracket's width)."""
    for q in (0, 0.01, 0.8, 1.0):
        for nm in (0.0, 1.0, 10.0):
            acc = _acc(de.PoissonSampledDpEvent(q, de.GaussianDpEvent(nm)))
            for delta in (0.9, 1e-3, 1e-9):
                eps = acc.get_epsilon(delta)
                d2 = acc.get_delta(eps)
                if math.isinf(eps):
                    assert d2 == 1.0
                elif eps == 0:
                    assert d2 <= delta
                else:
                    assert d2 <= delta * (1 + 1e-3)


@pytest.mark.parametrize("nr", [NR.ADD_OR_REMOVE_ONE, NR.REPLACE_ONE])
def test_tree_wrong_neighbor_rel(nr):
    assert not DpDeriveAccountant(nr).supports(de.SingleEpochTreeAggregationDpEvent(1.0, 1))


@pytest.mark.parametrize("nm,eps", [(1.13, 19.74), (8.83, 2.04)])
def test_compute_eps_tree(nm, eps):
    ours = _acc(de.SingleEpochTreeAggregationDpEvent(nm, 1600), NR.REPLACE_SPECIAL).get_epsilon(1e-6)
    mp.mp.dps = 30
    assert _gauss_eps(math.sqrt(11) / nm, 1e-6) <= ours < eps       # depth bit_length(1600) = 11


@pytest.mark.parametrize("steps", [[400] * 4, [800] * 2, [10, 400, 400, 400, 390]])
def test_compose_tree_and_decreasing(steps):
    """Trees restarted between epochs compose (one event per tree); epsilon decreases with the noise."""
    def acc(nm):
        return DpDeriveAccountant(NR.REPLACE_SPECIAL).compose(
            de.ComposedDpEvent([de.SingleEpochTreeAggregationDpEvent(nm, s) for s in steps]))
    depth2 = sum(s.bit_length() for s in steps)
    mp.mp.dps = 30
    ours = acc(1.0).get_epsilon(1e-6)
    assert _gauss_eps(math.sqrt(depth2), 1e-6) <= ours <= _gauss_eps(math.sqrt(depth2), 1e-6) * (1 + 1e-6)
    prev = math.inf
    for nm in (0.1 * x for x in range(1, 100, 20)):
        e = acc(nm).get_epsilon(1e-6)
        assert e < prev
        prev = e


def test_single_epoch_multi_tree():
    """One epoch over several trees (a record in one of them): the deepest tree's Gaussian."""
    multi = _acc(de.SingleEpochTreeAggregationDpEvent(1.0, [10, 40, 30, 20]), NR.REPLACE_SPECIAL).get_epsilon(1e-6)
    assert multi == _acc(de.SingleEpochTreeAggregationDpEvent(1.0, 40), NR.REPLACE_SPECIAL).get_epsilon(1e-6)


@pytest.mark.parametrize("nm,steps", [(-1, [3]), (1, [-3]), (1, 0), (1, [])])
def test_compute_rdp_tree_raise(nm, steps):
    with pytest.raises(ValueError):
        _acc(de.SingleEpochTreeAggregationDpEvent(nm, steps), NR.REPLACE_SPECIAL)


@pytest.mark.parametrize("total,nm", [(100, 0.1), (1000, 0.01)])
def test_no_tree_no_sampling(total, nm):
    """Trees of one step each are plain Gaussian steps."""
    tree = _acc(de.ComposedDpEvent([de.SingleEpochTreeAggregationDpEvent(nm, 1)] * total), NR.REPLACE_SPECIAL)
    plain = _acc(de.SelfComposedDpEvent(de.GaussianDpEvent(nm), total), NR.REPLACE_SPECIAL)
    assert tree.get_epsilon(1e-6) == plain.get_epsilon(1e-6)


@pytest.mark.parametrize("eps,count", [(0.01, 1), (1.0, 1), (100.0, 1), (1.0, 100)])
def test_laplace(eps, count):
    """Basic composition at a small delta: at most eps * count (pure DP), at least the truth
    (one step: delta(e) = 1 - e^{(e - eps)/2} for e < eps, Balle et al.; many: our PLD's lower end)."""
    ev = de.LaplaceDpEvent(1 / eps)
    acc = _acc(de.SelfComposedDpEvent(ev, count) if count != 1 else ev)
    got = acc.get_epsilon(1e-10)
    assert got <= eps * count * (1 + 1e-12)
    assert acc.get_delta(eps * count) == 0
    if count == 1:
        truth = eps + 2 * math.log1p(-1e-10) if eps > 1e-9 else 0    # solves 1 - e^{(e - eps)/2} = delta
        assert truth * (1 - 1e-9) <= got
    else:
        assert acc.last_answer.lower <= got
    assert got <= RdpAccountant().compose(de.SelfComposedDpEvent(ev, count)).get_epsilon(1e-10) * (1 + 1e-9)


@pytest.mark.parametrize("q", [-0.1, 1.1])
def test_raises_on_invalid_sampling_rate(q):
    with pytest.raises(ValueError, match="sampling_probability"):
        _acc(de.PoissonSampledDpEvent(q, de.GaussianDpEvent(1.0)))


def test_raises_on_invalid_noise_multiplier():
    with pytest.raises(ValueError, match="noise_multiplier"):
        _acc(de.PoissonSampledDpEvent(0.1, de.GaussianDpEvent(-1.0)))


_RS_CASES = [  # (inner event, mean, shape): rdp_privacy_accountant_test's repeat-and-select cases
    (de.LaplaceDpEvent(1 / 0.1), 10.0, 1.0), (de.LaplaceDpEvent(1.0), 2.0, 0.0),
    (de.LaplaceDpEvent(1 / 0.5), 100.0, 0.5), (de.GaussianDpEvent(math.sqrt(0.5 / 0.01)), 5.0, 1.0),
    (de.GaussianDpEvent(1.0), 10.0, 5.0), (de.GaussianDpEvent(1.0), 1.0, 2.0),
    (de.GaussianDpEvent(2.0), 10.0, math.inf), (de.GaussianDpEvent(1.0), 100.0, math.inf),
    (de.PoissonSampledDpEvent(0.01, de.GaussianDpEvent(1.0)), 20.0, 1.0),
]


@pytest.mark.parametrize("inner, mean, shape", _RS_CASES)
def test_repeat_and_select(inner, mean, shape):
    """Papernot-Steinke repeat-and-select (the peer's RDP accountant supports it): a valid
    answer <= the peer's; mean 1 is the inner run itself."""
    ev = de.RepeatAndSelectDpEvent(inner, mean, shape)
    ours = _acc(ev, count=3).get_epsilon(1e-5)
    peer = RdpAccountant().compose(ev, 3).get_epsilon(1e-5)
    assert 0 < ours <= peer + 1e-9
    if mean == 1.0:                  # K = 1: exactly one run, at least its certified lower end
        one = DpDeriveAccountant(method="pld").compose(inner, 3)
        one.get_epsilon(1e-5)
        assert ours >= one.last_answer.lower


def test_repeat_and_select_edges():
    acc = DpDeriveAccountant()
    assert acc.supports(de.RepeatAndSelectDpEvent(de.GaussianDpEvent(1.0), 10, 1))
    non_private = _acc(de.RepeatAndSelectDpEvent(de.NonPrivateDpEvent(), 10, 1))
    assert non_private.get_epsilon(1e-5) == math.inf and non_private.get_delta(1.0) == 1
    noop = _acc(de.RepeatAndSelectDpEvent(de.NoOpDpEvent(), 10, 1))
    assert noop.get_epsilon(1e-5) == 0
    for bad, field in ((de.RepeatAndSelectDpEvent(de.GaussianDpEvent(1.0), 0.5, 1), "mean"),
                       (de.RepeatAndSelectDpEvent(de.GaussianDpEvent(1.0), 10, -1), "shape"),
                       (de.RepeatAndSelectDpEvent(de.GaussianDpEvent(-1.0), 10, 1), "noise_multiplier")):
        with pytest.raises(ValueError, match=field):
            DpDeriveAccountant().compose(bad)
    # a refused inner leaf is named, not the repeat-and-select around it
    leaf = de.MixtureOfGaussiansDpEvent(1.0, [1.0], [1.0])
    err = DpDeriveAccountant(NR.REPLACE_ONE)._maybe_compose(de.RepeatAndSelectDpEvent(leaf, 10, 1), 1, False)
    assert err is not None and err.invalid_event == leaf


# ----------------------------------------------------------------------------- pld_privacy_accountant_test
def test_composition_errors_for_neighboring_relation():
    """The peer's refusals, and where ours differ (documented in the module docstring)."""
    assert not DpDeriveAccountant().supports(de.RandomizedResponseDpEvent(0.1, 3))
    assert not DpDeriveAccountant(NR.REPLACE_ONE).supports(de.PoissonSampledDpEvent(0.1, de.LaplaceDpEvent(1.0)))
    assert not DpDeriveAccountant(NR.REPLACE_ONE).supports(de.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5]))
    # ours at 2C where the peer's PLD refuses: Laplace and the discrete Laplace under REPLACE_ONE
    assert DpDeriveAccountant(NR.REPLACE_ONE).supports(de.LaplaceDpEvent(1.0))
    assert DpDeriveAccountant(NR.REPLACE_ONE).supports(de.DiscreteLaplaceDpEvent(0.1, 1))


@pytest.mark.parametrize("nr,ok", [(NR.REPLACE_ONE, True), (NR.REPLACE_SPECIAL, True), (NR.ADD_OR_REMOVE_ONE, False)])
def test_supports_randomized_response(nr, ok):
    assert DpDeriveAccountant(nr).supports(de.RandomizedResponseDpEvent(0.1, 3)) == ok


@pytest.mark.parametrize("nr", [NR.REPLACE_ONE, NR.REPLACE_SPECIAL])
def test_randomized_response_with_single_bucket(nr):
    acc = _acc(de.RandomizedResponseDpEvent(0.0, 1), nr)
    assert acc.get_delta(0) == 0 and acc.get_epsilon(0) == 0


def test_randomized_response_with_zero_noise_parameter():
    acc = _acc(de.RandomizedResponseDpEvent(0.0, 3), NR.REPLACE_SPECIAL)
    assert acc.get_delta(1.0) == 1 and acc.get_epsilon(0.01) == math.inf


@pytest.mark.parametrize("nr,p,k", [(NR.REPLACE_ONE, 4 / (3 + math.exp(1)), 4),
                                    (NR.REPLACE_SPECIAL, (4 - math.exp(1)) / 3, 4),
                                    (NR.REPLACE_SPECIAL, math.exp(-1), 2)])
def test_randomized_response(nr, p, k):
    """Pure epsilon 1 (to the rounding of p): delta(1) is 0 up to that rounding; ours is exactly
    0 where the true pure epsilon of the float p is <= 1 and at least the truth otherwise."""
    acc = _acc(de.RandomizedResponseDpEvent(p, k), nr)
    mp.mp.dps = 40
    pp = mp.mpf(p)
    e0 = mp.log(1 + k * (1 - pp) / pp) if nr == NR.REPLACE_ONE else \
        max(mp.log(1 + (k - 1) * (1 - pp)), -mp.log(pp))
    d = acc.get_delta(1.0)
    assert d == 0 if e0 <= 1 else 0 <= d <= 1e-12
    assert d <= PLDAccountant(nr).compose(de.RandomizedResponseDpEvent(p, k)).get_delta(1.0) + 1e-15


@pytest.mark.parametrize("nr", list(NR))
def test_supports_gaussian(nr):
    events = [de.GaussianDpEvent(1.0), de.SelfComposedDpEvent(de.GaussianDpEvent(1.0), 6),
              de.ComposedDpEvent([de.GaussianDpEvent(1.0), de.GaussianDpEvent(2.0)])]
    sampled = [de.PoissonSampledDpEvent(0.1, de.GaussianDpEvent(1.0)),
               de.ComposedDpEvent([de.PoissonSampledDpEvent(0.1, de.GaussianDpEvent(1.0)), de.GaussianDpEvent(2.0)])]
    acc = DpDeriveAccountant(nr)
    assert all(acc.supports(e) for e in events)
    # Poisson sampling under REPLACE_ONE: the peer's PLD supports it; ours refuses (no proved pair)
    assert all(acc.supports(e) == (nr != NR.REPLACE_ONE) for e in sampled)


@pytest.mark.parametrize("nr,ok", [(NR.REPLACE_ONE, False), (NR.REPLACE_SPECIAL, True), (NR.ADD_OR_REMOVE_ONE, False)])
def test_supports_subsampled_gaussian_and_rr_composition(nr, ok):
    ev = de.ComposedDpEvent([de.PoissonSampledDpEvent(0.1, de.GaussianDpEvent(1.0)),
                             de.RandomizedResponseDpEvent(noise_parameter=0.1, num_buckets=3)])
    assert DpDeriveAccountant(nr).supports(ev) == ok      # the peer: True under REPLACE_ONE too


def test_subsampled_gaussian_and_rr_under_replace_special():
    """Both factors face one fixed pair of data sets (x vs the special record): composed in
    consistent orders, at most the peer's RDP answer and at least the PLD's certified lower end."""
    ev = de.ComposedDpEvent([de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.1, de.GaussianDpEvent(1.0)), 20),
                             de.SelfComposedDpEvent(de.RandomizedResponseDpEvent(0.5, 3), 5)])
    acc = _acc(ev, NR.REPLACE_SPECIAL)
    e = acc.get_epsilon(1e-5)
    assert acc.last_answer.lower <= e <= RdpAccountant(None, NR.REPLACE_SPECIAL).compose(ev).get_epsilon(1e-5)


def test_negative_composition_count_value_error():
    for count in (0, -1):          # count 0: dp_accounting's own ledger refuses it (ValueError)
        with pytest.raises(ValueError, match="count"):
            DpDeriveAccountant().compose(de.GaussianDpEvent(1.0), count)


@pytest.mark.parametrize("ev", [de.GaussianDpEvent(0), de.LaplaceDpEvent(0), de.DiscreteLaplaceDpEvent(0, 1),
                                de.PoissonSampledDpEvent(0.1, de.GaussianDpEvent(0)),
                                de.PoissonSampledDpEvent(0.1, de.LaplaceDpEvent(0))])
def test_additive_noise_mechanisms_with_zero_noise_multiplier(ev):
    acc = _acc(ev)
    assert acc.get_delta(1.0) == 1 and acc.get_epsilon(0.01) == math.inf


@pytest.mark.parametrize("ev", [de.PoissonSampledDpEvent(0, de.GaussianDpEvent(1)),
                                de.PoissonSampledDpEvent(0, de.LaplaceDpEvent(1)),
                                de.PoissonSampledDpEvent(0, de.GaussianDpEvent(0)),
                                de.PoissonSampledDpEvent(0, de.LaplaceDpEvent(0))])
def test_poisson_subsampling_with_zero_probability(ev):
    acc = _acc(ev)
    assert acc.get_delta(0) == 0 and acc.get_epsilon(0) == 0


def test_gaussian_basic():
    """sigma = sqrt(3), 3 steps: one Gaussian of mu = 1, exactly (1, 0.126936)."""
    acc = DpDeriveAccountant()
    ev = de.GaussianDpEvent(math.sqrt(3))
    acc.compose(ev, 1)
    acc.compose(ev, 2)
    peer = PLDAccountant()
    peer.compose(ev, 1)
    peer.compose(ev, 2)
    mp.mp.dps = 30
    truth = float(_gauss_delta(1.0, 1.0))
    assert truth <= acc.get_delta(1) <= truth * (1 + 1e-9) and acc.get_delta(1) <= peer.get_delta(1) + 1e-9
    assert acc.get_delta(1) == pytest.approx(0.126936, abs=1e-3)
    e = acc.get_epsilon(truth)
    assert 1 - 1e-9 <= e <= 1 + 1e-9 and e <= peer.get_epsilon(truth) + 1e-9


@pytest.mark.parametrize("self_composed", [False, True])
def test_poisson_subsampled_gaussian(self_composed):
    """q = 0.2, sigma = 0.5, 3 steps: delta(1) = 0.15594 (peer), ours certified within its bracket."""
    acc = DpDeriveAccountant()
    ev = de.PoissonSampledDpEvent(0.2, de.GaussianDpEvent(0.5))
    if self_composed:
        acc.compose(de.SelfComposedDpEvent(ev, 3))
    else:
        acc.compose(ev, 1)
        acc.compose(ev, 2)
    peer = PLDAccountant().compose(de.SelfComposedDpEvent(ev, 3))
    d = acc.get_delta(1.0)
    assert acc.last_answer.lower <= d <= peer.get_delta(1.0) * (1 + 1e-3)
    assert d == pytest.approx(0.15594, abs=1e-3)
    e = acc.get_epsilon(0.15594)
    assert acc.last_answer.lower <= e <= peer.get_epsilon(0.15594) + 1e-3 and e == pytest.approx(1, abs=1e-3)


def test_laplace_basic():
    """3 x Laplace(1) + 2 x Laplace(2): pure DP at 4, delta(4) = 0 exactly (the peer: 1e-14)."""
    acc = DpDeriveAccountant()
    acc.compose(de.LaplaceDpEvent(1), 3)
    acc.compose(de.LaplaceDpEvent(2), 2)
    assert acc.get_delta(4) == 0.0 and acc.get_epsilon(0) == 4.0
    assert 4 - 1e-6 <= acc.get_epsilon(1e-14) <= 4


def test_poisson_subsampled_laplace():
    """q = 0.2, scale 0.5, 3 steps: pure DP at 3 log(1 + 0.2 (e^2 - 1)) = 2.46964...; delta there 0."""
    acc = DpDeriveAccountant()
    ev = de.PoissonSampledDpEvent(0.2, de.LaplaceDpEvent(0.5))
    acc.compose(ev, 1)
    acc.compose(ev, 2)
    mp.mp.dps = 40
    e0 = 3 * mp.log1p(mp.mpf(0.2) * mp.expm1(2))
    got = acc.get_epsilon(0)
    assert e0 <= got <= e0 * (1 + 1e-15) and acc.get_delta(got) == 0
    assert acc.get_delta(2.46964) <= 1e-6
    peer = PLDAccountant().compose(de.SelfComposedDpEvent(ev, 3))
    assert acc.get_epsilon(1e-14) <= peer.get_epsilon(1e-14) + 1e-9 and acc.get_epsilon(1e-14) == pytest.approx(2.46964, abs=1e-3)


def test_discrete_laplace_basic():
    acc = DpDeriveAccountant()
    acc.compose(de.DiscreteLaplaceDpEvent(noise_parameter=1, sensitivity=1), 3)
    acc.compose(de.DiscreteLaplaceDpEvent(noise_parameter=0.5, sensitivity=1), 2)
    assert acc.get_delta(4) == 0.0 and acc.get_epsilon(0.0) == 4.0


def test_truncated_sampling_is_refused():
    """TruncatedSubsampledGaussianDpEvent is not accounted by dpderive (dp_accounting's PLD
    accounts it with its REPLACE_ONE Poisson pair, which dpderive does not certify): refused,
    naming the event."""
    ev = de.TruncatedSubsampledGaussianDpEvent(4, 0.5, 2, 1.0)
    acc = DpDeriveAccountant()
    assert not acc.supports(ev)
    err = acc._maybe_compose(de.SelfComposedDpEvent(ev, 3), 1, False)
    assert err.invalid_event == ev


def _mog_delta_one_step(sd, cs, ps, eps, order):
    """delta(eps) of one step of P = N(0, sd^2) vs Q = sum p_i N(c_i, sd^2) in closed form at
    40 digits (the independent truth): the likelihood ratio Q/P is increasing in x, so the
    hockey-stick's region is one half-line beyond the root x* of log(Q/P) = eps (remove) or
    log(P/Q) = eps (add), and its integral is sums of normal tails."""
    mp.mp.dps = 40
    sd, cs, ps, eps = mp.mpf(sd), [mp.mpf(c) for c in cs], [mp.mpf(p) for p in ps], mp.mpf(eps)
    L = lambda x: mp.log(mp.fsum(p * mp.e ** ((c * x - c * c / 2) / sd ** 2) for c, p in zip(cs, ps)))  # noqa: E731
    if order == "remove":
        x = mp.findroot(lambda t: L(t) - eps, 1)
        return float(mp.fsum(p * mp.ncdf((c - x) / sd) for c, p in zip(cs, ps)) - mp.e ** eps * mp.ncdf(-x / sd))
    p0 = mp.fsum(p for c, p in zip(cs, ps) if c == 0)
    if p0 > 0 and eps >= -mp.log(p0):      # log(P/Q) < -log p0 everywhere: no region
        return 0.0
    x = mp.findroot(lambda t: -L(t) - eps, -1)
    return float(mp.ncdf(x / sd) - mp.e ** eps * mp.fsum(p * mp.ncdf((x - c) / sd) for c, p in zip(cs, ps)))


@pytest.mark.parametrize("sd, cs, ps", [(1.0, [0.0, 1.0], [0.5, 0.5]), (1.5, [0.0, 1.0, 2.0], [0.5, 0.3, 0.2]),
                                        (2.0, [1.0, 3.0], [0.7, 0.3])])
def test_mixture_of_gaussians_one_step(sd, cs, ps):
    """pld_privacy_accountant_test's MixtureOfGaussiansDpEvent: one step's certified delta holds
    the closed-form hockey-stick of the worse order, and is <= the peer's PLD (+ its rounding)."""
    from dp_accounting.pld import PLDAccountant
    ev = de.MixtureOfGaussiansDpEvent(sd, cs, ps)
    for eps in (0.1, 0.5, 1.0):
        truth = max(_mog_delta_one_step(sd, cs, ps, eps, o) for o in ("remove", "add"))
        acc = _acc(ev)
        d = acc.get_delta(eps)
        assert acc.last_answer.lower <= truth * (1 + 1e-9) + 1e-15 and truth <= d * (1 + 1e-9) + 1e-15
        assert d <= PLDAccountant(value_discretization_interval=1e-3).compose(ev).get_delta(eps) * (1 + 1e-3)


def test_mixture_of_gaussians_many_steps_le_peer():
    """100 steps: a valid answer (>= our certified lower end) <= the peer's PLD (its default
    discretisation 1e-4 would take minutes here: 1e-3, a pessimistic upper estimate).  At the
    default lattice ours is within 1e-6 above it; asked for that accuracy, below it."""
    from dp_accounting.pld import PLDAccountant
    ev = de.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0, 2.0], [0.9, 0.08, 0.02])
    peer = PLDAccountant(value_discretization_interval=1e-3).compose(ev, 100).get_epsilon(1e-5)
    acc = _acc(ev, count=100)
    ours = acc.get_epsilon(1e-5)
    assert acc.last_answer.lower <= peer and ours <= peer * (1 + 1e-6)
    fine = DpDeriveAccountant(accuracy=1e-6).compose(ev, 100)
    ours = fine.get_epsilon(1e-5)
    assert fine.last_answer.lower <= ours <= peer and (ours - fine.last_answer.lower) / ours <= 1e-6


def test_mixture_of_gaussians_edges():
    """The peer's edge readings: every sensitivity 0 is a no-op, sd 0 is not private; REPLACE_ONE
    is refused (as the peer's PLD); invalid fields raise ValueError naming the field."""
    assert _acc(de.MixtureOfGaussiansDpEvent(1, [0], [1.0])).get_epsilon(1e-5) == 0
    assert _acc(de.MixtureOfGaussiansDpEvent(0, [0], [1.0])).get_epsilon(1e-5) == 0
    assert _acc(de.MixtureOfGaussiansDpEvent(0, [1, 2], [0.5, 0.5])).get_epsilon(0.01) == math.inf
    ev = de.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5])
    assert DpDeriveAccountant(NR.REPLACE_SPECIAL).supports(ev)
    assert not DpDeriveAccountant(NR.REPLACE_ONE).supports(ev)
    for bad, field in ((de.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.6]), "sampling_probs"),
                       (de.MixtureOfGaussiansDpEvent(1.0, [-1.0, 1.0], [0.5, 0.5]), "sensitivities"),
                       (de.MixtureOfGaussiansDpEvent(-1.0, [1.0], [1.0]), "standard_deviation")):
        with pytest.raises(ValueError, match=field):
            DpDeriveAccountant().compose(bad)


