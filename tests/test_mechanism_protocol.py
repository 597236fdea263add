"""Issue 22 item 1: the mechanism protocol.  A user's own pmf pair is one class; Poisson and
fixed-batch sampling wrap it generically; routes it cannot serve say so (RouteError)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from numeric import account, pld
from numeric import events as EV
from numeric.mechanism import Mechanism


@dataclass(frozen=True)
class ThreePoint(Mechanism):
    """A user's own mechanism: a symmetric pmf pair on three outcomes."""

    def pmf_pair(self):
        p = np.array([0.6, 0.3, 0.1])
        return p, p[::-1].copy()

    def __str__(self):
        return "three-point"


def test_user_pmf_pair_is_accounted_by_pld_and_best_names_rdp_unsupported():
    ev = [EV.Event(ThreePoint(), EV.Poisson(0.1), 200)]
    r = account.epsilon(ev, 1e-6, "pld")
    p, q = ThreePoint().pmf_pair()
    direct = pld.PLDResult("x", pld.discrete_models(p, q, 0.1), 200,
                           pld._choose_h(pld.discrete_models(p, q, 0.1), None, pld.DEFAULT_RESOLUTION))
    lo, hi = direct.epsilon(1e-6)
    assert r.value == float(hi) and r.extras["epsilon_lower"] == float(lo)
    with pytest.raises(EV.RouteError):
        account.epsilon(ev, 1e-6, "rdp")
    best = account.epsilon(ev, 1e-6, "best")
    assert best.extras["route"] == "pld" and best.value == r.value


def test_fixed_batch_wraps_a_user_pair():
    ev = [EV.Event(ThreePoint(), EV.WithoutReplacement(10, 1000), 100)]
    r = account.epsilon(ev, 1e-6, "pld", neighbouring="replace_one")
    assert 0 <= r.extras["epsilon_lower"] <= r.value < np.inf


def test_dispatch_is_by_capability():
    """The built-in mechanisms declare their capabilities; only the Gaussian has closed forms."""
    assert EV.Gaussian(1.0, 2.0).gaussian_noise() == (1.0, 2.0)
    for m in (EV.Laplace(1.0), EV.RandomizedResponse(1.0), EV.DiscreteGaussian(2.0)):
        assert m.gaussian_noise() is None and isinstance(m, Mechanism)
    assert EV.RandomizedResponse(1.0).pmf_pair() is not None
    with pytest.raises(Exception):
        EV.Event(object(), None, 1)
