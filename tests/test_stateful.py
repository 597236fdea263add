"""numeric.stateful.StatefulAccountant: per-step answers are certified (upper >= the true
epsilon's certified lower bound, >= the best route's upper is not required but <= the RDP
route's grid value), grouped history, best route cached, JSON round trip."""
import math

import pytest

from numeric import Event, Gaussian, Laplace, Poisson, WithoutReplacement, epsilon, delta
from numeric.stateful import StatefulAccountant


def test_steps_fast_answers_bracket_the_truth():
    acct = StatefulAccountant()
    q, s = 0.01, 1.0
    prev = 0.0
    for t in range(1, 401):
        acct.step(noise_multiplier=s, sample_rate=q)
        a = acct.epsilon(1e-5)
        assert a.lower <= a.value == a.upper and a.steps == t
        assert a.value >= prev - 1e-12 or a.route != "rdp-grid"
        if t in (1, 37, 200, 400):
            ref = epsilon([Event(Gaussian(s), Poisson(q), t)], 1e-5)
            rdp = epsilon([Event(Gaussian(s), Poisson(q), t)], 1e-5, method="rdp").value
            assert a.lower <= ref.value and ref.extras["epsilon_lower"] <= a.value
            assert a.value <= rdp * 1.02      # the grid of orders costs at most ~1-2%
        prev = a.value
    assert acct.history == [[(Gaussian(s), Poisson(q)), 400]]
    best = acct.epsilon(1e-5, method="best")
    assert best is acct.epsilon(1e-5, method="best")            # cached
    assert best.value == epsilon([Event(Gaussian(s), Poisson(q), 400)], 1e-5).value


def test_delta_and_heterogeneous_history():
    acct = StatefulAccountant()
    acct.compose(Event(Gaussian(2.0), Poisson(0.004), 100))
    acct.step(noise_multiplier=1.0, sample_rate=0.004, count=50)
    acct.compose(Event(Laplace(20.0), None, 3))
    acct.step(noise_multiplier=2.0, sample_rate=0.004, count=10)
    assert [c for _, c in acct.history] == [100, 50, 3, 10] and len(acct) == 163
    evs = [Event(Gaussian(2.0), Poisson(0.004), 110), Event(Gaussian(1.0), Poisson(0.004), 50),
           Event(Laplace(20.0), None, 3)]
    ref = epsilon(evs, 1e-6)
    for m in ("fast", "best", "rdp", "pld"):
        a = acct.epsilon(1e-6, method=m)
        assert a.lower <= ref.value + 1e-9 and a.value >= ref.extras["epsilon_lower"] - 1e-9
    d = acct.delta(1.0)
    dref = delta(evs, 1.0)
    assert d.value >= dref.extras["delta_lower"] and d.lower <= dref.value
    assert acct.delta(1.0, method="best").value == pytest.approx(dref.value, rel=1e-9)


def test_json_round_trip_and_restart():
    acct = StatefulAccountant()
    for _ in range(30):
        acct.step(noise_multiplier=1.1, sample_rate=0.02)
    e1 = acct.epsilon(1e-5)
    again = StatefulAccountant.from_json(acct.to_json())
    assert again.history == acct.history and again.steps == 30
    e2 = again.epsilon(1e-5)
    assert e2.value == pytest.approx(e1.value, rel=1e-12) and e2.lower >= e1.lower - 1e-15
    again.step(noise_multiplier=1.1, sample_rate=0.02)
    assert again.epsilon(1e-5).value >= e1.value - 1e-12
    fixed = StatefulAccountant("replace_one")
    fixed.compose(Event(Gaussian(2.0, 2.0), WithoutReplacement(256, 60000), 234))
    f2 = StatefulAccountant.from_json(fixed.to_json())
    assert f2.epsilon(1e-5, "best").value == fixed.epsilon(1e-5, "best").value


def test_bad_input():
    with pytest.raises(ValueError):
        StatefulAccountant("replace_two")
    acct = StatefulAccountant()
    with pytest.raises(ValueError):
        acct.step(noise_multiplier=-1.0, sample_rate=0.1)
    with pytest.raises(ValueError):
        acct.compose(Event(Gaussian(1.0), WithoutReplacement(10, 100)))   # fixed batches: replace-one
    with pytest.raises(ValueError):
        acct.epsilon(2.0)
    with pytest.raises(ValueError):
        acct.epsilon(1e-5, method="magic")
    assert acct.epsilon(1e-5).value == 0.0 and len(acct) == 0
    assert math.isfinite(acct.delta(1.0).value)
