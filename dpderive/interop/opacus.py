"""Opacus interoperability (``pip install dpderive[opacus]``; Opacus is imported when this
module is, torch with it).

* ``DpDeriveOpacusAccountant``: an ``opacus.accountants.IAccountant`` (``step``,
  ``get_epsilon``, ``history``, ``len``, ``mechanism()``, ``state_dict`` /
  ``load_state_dict`` as Opacus's own accountants), registered with Opacus under the
  mechanism name ``"dpderive"`` so that ``PrivacyEngine(accountant="dpderive")`` and
  ``make_private_with_epsilon`` use it.  ``get_epsilon(delta)`` is dpderive's tightest
  certified upper bound (route ``best``); ``get_epsilon(delta, method="fast")`` the
  per-step answer of ``numeric.stateful`` (RDP grid / PLD look-ahead); ``last_answer``
  holds the route and certified bracket.
* ``get_noise_multiplier(target_epsilon=, target_delta=, sample_rate=, epochs= | steps=)``:
  Opacus's function of the same name (``opacus.accountants.utils``), solved by dpderive's
  calibration (``numeric.account.calibrate``: the smallest sigma whose certified epsilon
  meets the target, to 1e-4 relative).

Opacus's ``history`` is a list of (noise_multiplier, sample_rate, steps) with consecutive
identical steps grouped; Opacus's own ``get_noise_multiplier`` assigns it directly, so the
accounting is always derived from ``history`` (cached by its value).
"""
from __future__ import annotations

import math

from opacus.accountants import IAccountant
from opacus.accountants.registry import _ACCOUNTANTS, register_accountant

from numeric import events as EV

__all__ = ["DpDeriveOpacusAccountant", "get_noise_multiplier", "MECHANISM"]

MECHANISM = "dpderive"


class DpDeriveOpacusAccountant(IAccountant):
    """Opacus accountant answering with dpderive's certified bounds (module docstring)."""

    def __init__(self, method: str = "best", resolution: float | None = 0.01):
        super().__init__()
        self.method = method
        self.resolution = resolution      # PLD lattice of method "best" (as DpDeriveAccountant)
        self.last_answer = None
        self._state = None
        self._state_history = ()

    def step(self, *, noise_multiplier: float, sample_rate: float):
        if self.history and self.history[-1][0] == noise_multiplier and self.history[-1][1] == sample_rate:
            nm, q, n = self.history[-1]
            self.history[-1] = (nm, q, n + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def _synced(self):
        """The stateful accountant for the current ``history`` (extended in place when the
        history only grew at its end; rebuilt when it was assigned or loaded)."""
        from numeric.stateful import StatefulAccountant
        h = tuple(tuple(x) for x in self.history)
        old = self._state_history
        if self._state is not None and len(h) >= len(old) and h[:max(len(old) - 1, 0)] == old[:-1] \
                and (not old or (h[len(old) - 1][:2] == old[-1][:2] and h[len(old) - 1][2] >= old[-1][2])):
            if old:
                extra = h[len(old) - 1][2] - old[-1][2]
                if extra:
                    self._state.step(noise_multiplier=old[-1][0], sample_rate=old[-1][1], count=extra)
            for nm, q, n in h[len(old):]:
                self._state.step(noise_multiplier=nm, sample_rate=q, count=n)
        else:
            self._state = StatefulAccountant(resolution=self.resolution)
            for nm, q, n in h:
                self._state.step(noise_multiplier=nm, sample_rate=q, count=n)
        self._state_history = h
        return self._state

    def get_epsilon(self, delta: float, method: str | None = None, **kwargs) -> float:
        """The certified epsilon(delta) spent so far (``method``: best, rdp, pld or fast)."""
        if not self.history:
            return 0.0
        if any(nm == 0 for nm, _, _ in self.history):
            return math.inf
        self.last_answer = self._synced().epsilon(delta, method or self.method)
        return float(self.last_answer.value)

    def get_privacy_spent(self, *, delta: float, **kwargs):
        """(epsilon, route) (Opacus's RDP accountant returns (epsilon, best alpha))."""
        eps = self.get_epsilon(delta, **kwargs)
        return eps, (self.last_answer.route if self.last_answer else None)

    def __len__(self) -> int:
        return int(sum(n for _, _, n in self.history))

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM


if MECHANISM not in _ACCOUNTANTS:
    register_accountant(MECHANISM, DpDeriveOpacusAccountant)


def get_noise_multiplier(*, target_epsilon: float, target_delta: float, sample_rate: float,
                         epochs: int | None = None, steps: int | None = None,
                         accountant: str = MECHANISM, epsilon_tolerance: float = 0.01,
                         method: str = "best", **kwargs) -> float:
    """The smallest noise multiplier whose certified epsilon(target_delta) after ``steps``
    (or ``epochs`` / ``sample_rate``, rounded as Opacus: int(epochs / sample_rate)) Poisson
    steps is at most ``target_epsilon`` (``accountant`` and ``epsilon_tolerance`` accepted
    for Opacus's signature; dpderive's calibration solves to 1e-4 relative in sigma)."""
    from numeric import account
    if (steps is None) == (epochs is None):
        raise ValueError("get_noise_multiplier takes as input EITHER a number of steps or a number of epochs")
    if steps is None:
        steps = int(epochs / sample_rate)
    samp = EV.Poisson(sample_rate) if sample_rate < 1 else None

    def make(sigma):
        return [EV.Event(EV.Gaussian(sigma), samp, int(steps))]

    r = account.calibrate(make, target_epsilon, target_delta, "sigma", 0.05, 1e4, method=method)
    return float(r.value)
