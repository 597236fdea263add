"""Issue 33 item 5: every accounting answer reads the same way, whichever route or object gave it:
``.value``, ``.lower``, ``.upper``, ``.route`` and ``.citation``, with lower <= value <= upper for
a guarantee, and the bracket around the exact answer where one is known in closed form."""
from __future__ import annotations

import math

import pytest
from scipy.optimize import brentq
from scipy.stats import norm

from numeric import account
from numeric import events as EV
from numeric.stateful import StatefulAccountant

SIGMA, T, DELTA = 2.0, 50, 1e-5


def exact_gaussian_eps(mu: float, delta: float) -> float:
    """epsilon(delta) of G_mu from its closed-form privacy profile (Balle and Wang 2018)."""
    return brentq(lambda e: norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2) - delta,
                  0.0, 100.0, xtol=1e-14)


def gaussian_events(sampling=None):
    return [EV.Event(EV.Gaussian(SIGMA), sampling, T)]


def _read_alike(r, name="epsilon"):
    for attr in ("value", "lower", "upper", "route", "citation"):
        assert hasattr(r, attr), attr
    assert isinstance(r.route, str) and r.route
    assert isinstance(r.citation, str) and r.citation
    assert 0.0 <= r.lower <= r.value <= r.upper


@pytest.mark.parametrize("method", ["best", "rdp", "pld"])
def test_every_route_brackets_the_exact_gaussian_epsilon(method):
    r = account.epsilon(gaussian_events(), DELTA, method=method)
    _read_alike(r)
    exact = exact_gaussian_eps(math.sqrt(T) / SIGMA, DELTA)
    assert r.lower <= exact * (1 + 1e-12) and exact <= r.upper * (1 + 1e-12)
    if method == "best":           # the exact route: a bracket within rounding of the truth
        assert r.route == "exact" and r.upper - r.lower < 1e-6
    elif method == "pld":          # a certified bracket of a discretisation
        assert r.route == "pld" and 0 < r.lower < r.upper < r.lower * 1.01
    else:                          # an upper bound alone
        assert r.route == "rdp" and r.lower == 0.0 and r.upper == r.value > exact


def test_the_subsampled_routes_and_the_stateful_accountant_read_alike():
    ev = gaussian_events(EV.Poisson(0.01))
    full = account.epsilon(ev, DELTA, method="best")
    _read_alike(full)
    assert full.route == "pld" and full.lower > 0
    acct = StatefulAccountant()
    acct.compose(EV.Event(EV.Gaussian(SIGMA), EV.Poisson(0.01), 1), T)
    for method in ("fast", "best"):
        a = acct.epsilon(DELTA, method=method)
        _read_alike(a)
        # both certified: each bracket contains the other's interior point of truth
        assert a.lower <= full.upper and full.lower <= a.upper
    assert acct.epsilon(DELTA, method="best").citation == full.citation


def test_an_approximation_says_it_has_no_certified_upper_bound_of_its_own():
    r = account.epsilon(gaussian_events(EV.Poisson(0.01)), DELTA, method="clt")
    assert r.route == "clt" and r.lower == 0.0
    try:
        hi = r.upper
    except ValueError as exc:
        assert "approximation" in str(exc)
    else:                        # the certified PLD bound computed beside it
        assert hi == r.extras["pld_epsilon_upper"] and hi >= r.value * 0.5


def test_no_events_spend_nothing_and_say_so():
    a = StatefulAccountant().epsilon(DELTA)
    assert (a.value, a.lower, a.upper, a.route) == (0.0, 0.0, 0.0, "none") and "nothing" in a.citation
