"""dpderive's numeric side.  The public accounting API (documented in
``numeric.events`` and ``numeric.account``) is exported here, loaded on first use:

    from numeric import Event, Gaussian, Laplace, RandomizedResponse, Poisson
    from numeric import WithoutReplacement, epsilon, delta, calibrate, table

    run = [Event(Gaussian(sigma=4.0), None, count=100),                  # phase 1
           Event(Gaussian(sigma=1.1), Poisson(0.004), count=10_000),     # phase 2
           Event(Laplace(scale=20.0), None, count=5)]                    # a few counts
    r = epsilon(run, 1e-5)            # tightest certified route
    r.value, r.extras["epsilon_lower"], r.extras["route"]

Heterogeneous composition is a list of events; ``numeric.events.rdp_curve(run)`` and
``numeric.events.pld_accountant(run)`` give each route's object directly.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "Event": "events", "Gaussian": "events", "Laplace": "events",
    "RandomizedResponse": "events", "DiscreteGaussian": "events", "Poisson": "events", "WithoutReplacement": "events",
    "RouteError": "events", "Composition": "account", "events_from_spec": "events", "rdp_curve": "events",
    "pld_accountant": "events", "epsilon": "account", "delta": "account",
    "calibrate": "account", "table": "account", "AccountingResult": "accountant",
    "StatefulAccountant": "stateful", "calibrate_risk": "risk",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'numeric' has no attribute {name!r}")
