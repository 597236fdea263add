"""dp_accounting interop (dpderive.interop.dp_accounting): DpEvent <-> events round trip,
the PrivacyAccountant subclass against dp_accounting's own PLD accountant."""
import math

import pytest

dpa = pytest.importorskip("dp_accounting", reason="dp_accounting not installed (extra [interop])")
from dp_accounting import dp_event as de  # noqa: E402
from dp_accounting.pld import PLDAccountant  # noqa: E402
from dp_accounting.rdp import RdpAccountant  # noqa: E402

from dpderive.interop.dp_accounting import (DpDeriveAccountant, Unsupported, from_events,  # noqa: E402
                                            to_events)
from numeric import (Event, Gaussian, Laplace, Poisson, RandomizedResponse,  # noqa: E402
                     WithoutReplacement, epsilon)

NR = dpa.NeighboringRelation

ADD_REMOVE = [
    de.GaussianDpEvent(1.3),
    de.LaplaceDpEvent(2.5),
    de.SelfComposedDpEvent(de.GaussianDpEvent(4.0), 100),
    de.PoissonSampledDpEvent(0.01, de.GaussianDpEvent(1.1)),
    de.SelfComposedDpEvent(de.PoissonSampledDpEvent(256 / 60000, de.GaussianDpEvent(1.1)), 14063),
    de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.02, de.LaplaceDpEvent(3.0)), 50),
    de.ComposedDpEvent([de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.004, de.GaussianDpEvent(2.0)), 2344),
                        de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.004, de.GaussianDpEvent(1.0)), 4688),
                        de.SelfComposedDpEvent(de.LaplaceDpEvent(20.0), 10)]),
]
REPLACE_ONE = [
    de.SelfComposedDpEvent(de.SampledWithoutReplacementDpEvent(60000, 256, de.GaussianDpEvent(2.0)), 234),
    de.RandomizedResponseDpEvent(0.5, 2),
    de.SelfComposedDpEvent(de.RandomizedResponseDpEvent(0.25, 2), 30),
    de.ComposedDpEvent([de.GaussianDpEvent(3.0), de.SampledWithoutReplacementDpEvent(1000, 10, de.LaplaceDpEvent(1.5))]),
]


@pytest.mark.parametrize("ev", ADD_REMOVE)
def test_round_trip_add_remove(ev):
    evs = to_events(ev, NR.ADD_OR_REMOVE_ONE)
    assert from_events(evs, "add_remove") == ev
    assert to_events(from_events(evs)) == evs


@pytest.mark.parametrize("ev", REPLACE_ONE)
def test_round_trip_replace_one(ev):
    evs = to_events(ev, "replace_one")
    assert from_events(evs, NR.REPLACE_ONE) == ev


def test_mapping_semantics():
    # replace-one: a replaced record moves a C-bounded sum by 2C
    (e,) = to_events(de.SampledWithoutReplacementDpEvent(60000, 256, de.GaussianDpEvent(2.0)), "replace_one")
    assert e == Event(Gaussian(2.0, 2.0), WithoutReplacement(256, 60000), 1)
    (e,) = to_events(de.GaussianDpEvent(2.0), "add_remove")
    assert e == Event(Gaussian(2.0, 1.0), None, 1)
    (e,) = to_events(de.RandomizedResponseDpEvent(0.5, 2), "replace_one")
    assert math.isclose(e.mechanism.epsilon, math.log(3.0))
    # a Poisson-sampled composition of Gaussians is one Gaussian of the same privacy
    (e,) = to_events(de.PoissonSampledDpEvent(0.1, de.ComposedDpEvent([de.GaussianDpEvent(1.0),
                                                                     de.GaussianDpEvent(1.0)])))
    assert math.isclose(e.mechanism.sigma, 1 / math.sqrt(2))
    (back,) = to_events(from_events([Event(RandomizedResponse(1.0))], "replace_one"), "replace_one")
    assert 1.0 <= back.mechanism.epsilon <= 1.0 + 1e-14      # rounded up, never down
    assert to_events(de.NoOpDpEvent()) == []
    assert Event(Laplace(3.0, 1.0), Poisson(0.5), 2) == to_events(
        de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.5, de.LaplaceDpEvent(3.0)), 2))[0]


def test_unsupported_like_dp_accounting():
    acc = DpDeriveAccountant()
    for ev in (de.UnsupportedDpEvent(), de.ZCDpEvent(0.1), de.RandomizedResponseDpEvent(0.5, 3),
               de.PoissonSampledDpEvent(0.1, de.LaplaceDpEvent(1.0)).__class__(0.1, de.ZCDpEvent(0.1)),
               de.SingleEpochTreeAggregationDpEvent(1.0, 10)):
        assert not acc.supports(ev)
        with pytest.raises(dpa.UnsupportedEventError):
            acc.compose(ev)
    assert not DpDeriveAccountant(NR.REPLACE_SPECIAL).supports(de.GaussianDpEvent(1.0))
    assert not DpDeriveAccountant(NR.REPLACE_ONE).supports(de.PoissonSampledDpEvent(0.1, de.GaussianDpEvent(1.0)))
    with pytest.raises(Unsupported):
        to_events(de.ZCDpEvent(0.1))
    # nothing was composed by the refusals
    assert acc.get_epsilon(1e-5) == 0.0
    # a non-private event: epsilon = inf, as dp_accounting
    acc.compose(de.NonPrivateDpEvent())
    assert acc.get_epsilon(1e-5) == math.inf and acc.get_delta(1.0) == 1.0


def _user_script(accountant):
    """A dp_accounting user's script, unchanged whatever the accountant."""
    event = de.SelfComposedDpEvent(de.PoissonSampledDpEvent(256 / 60000, de.GaussianDpEvent(1.1)), 14063)
    accountant.compose(event)
    return accountant.get_epsilon(target_delta=1e-5)


def test_drop_in_accountant_between_certified_lower_and_dp_accounting_pld():
    ours = DpDeriveAccountant()
    eps = _user_script(ours)
    theirs = _user_script(PLDAccountant())
    assert eps <= theirs
    lower = epsilon([Event(Gaussian(1.1), Poisson(256 / 60000), 14063)], 1e-5).extras["epsilon_lower"]
    assert lower <= eps
    assert ours.last_answer.lower <= eps
    assert eps <= _user_script(RdpAccountant())
    # the ledger and get_delta behave as in dp_accounting
    assert isinstance(ours.ledger, de.DpEvent)
    d = ours.get_delta(eps)
    assert 0 < d <= 1e-5 * (1 + 1e-6)


def test_composition_and_replace_one():
    ours = DpDeriveAccountant()
    ours.compose(ADD_REMOVE[-1])
    ref = epsilon(to_events(ADD_REMOVE[-1]), 1e-5)
    assert ours.get_epsilon(1e-5) <= ref.value and ours.get_epsilon(1e-5) >= ref.extras["epsilon_lower"]
    r1 = DpDeriveAccountant(NR.REPLACE_ONE)
    r1.compose(REPLACE_ONE[0])
    e = r1.get_epsilon(1e-5)
    assert e == pytest.approx(0.4369, abs=2e-3)      # README's fixed-batch example (pld upper)
    # dp_accounting's PLD accountant, replace-one Gaussian without sampling: sensitivity 2 too
    g = DpDeriveAccountant(NR.REPLACE_ONE).compose(de.GaussianDpEvent(2.0)).get_epsilon(1e-5)
    p = PLDAccountant(NR.REPLACE_ONE).compose(de.GaussianDpEvent(2.0)).get_epsilon(1e-5)
    assert g <= p + 1e-9 and g == pytest.approx(p, abs=1e-3)


def test_dp_accounting_calibration_runs_with_our_accountant():
    """dp_accounting's own calibrate_dp_mechanism takes DpDeriveAccountant as its factory."""
    def make(s):
        return de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.01, de.GaussianDpEvent(s)), 200)
    s = dpa.calibrate_dp_mechanism(DpDeriveAccountant, make, 1.0, 1e-5,
                                   dpa.LowerEndpointAndGuess(0.3, 1.0), tol=1e-3)
    assert DpDeriveAccountant().compose(make(s)).get_epsilon(1e-5) <= 1.0
    assert DpDeriveAccountant().compose(make(s - 2e-3)).get_epsilon(1e-5) > 1.0
