"""The mechanism protocol: what a mechanism can give the accounting routes.

A mechanism (``numeric.events.Gaussian``, ``Laplace``, ``RandomizedResponse``,
``DiscreteGaussian``, or a user's own subclass of ``Mechanism``) is one step's neighbouring
pair (P, Q) at the mechanism's own sensitivity.  It says what it can give; each route asks
for the capability it needs and reports ``RouteError`` when the mechanism lacks it:

==========================  ==================================================================
``rdp()``                   its RDP curve (a ``numeric.rdp`` curve of one step), route ``rdp``
``pld_models()``            its privacy-loss law: one-step ``numeric.pld`` loss models
                            (``{"single": m}`` for a symmetric pair, else ``{"remove", "add"}``)
``pmf_pair()``              a dominating pair of pmfs on a finite support (p, q), if it has one:
                            the generic PLD and the exact small-support route (``numeric.exact_pmf``)
``gaussian_noise()``        (sigma, sensitivity) when it is the Gaussian mechanism: the closed
                            forms (exact route, CLT/Edgeworth cumulants, the calibration's start)
==========================  ==================================================================

Sampling is a wrapper over any mechanism (``Poisson.rdp(mech)``, ``Poisson.pld(mech, count)``
and likewise ``WithoutReplacement``), dispatching to the capabilities below, whose *generic*
forms (defined here, from ``rdp()`` / ``pmf_pair()`` alone) are

* Poisson subsampling, RDP: Zhu and Wang 2019 Thm. 6 (``rdp.PoissonSubsampledRDP``);
* fixed batches, RDP: Wang, Balle, Kasiviswanathan 2019 Thm. 9 (``rdp.WithoutReplacementRDP``);
* Poisson subsampling, PLD: the add/remove dominating pairs (P, M), (M, P), M = (1 - q) P + q Q
  (Zhu, Dong, Wang 2022) of the pmf pair (``pld.discrete_models``);
* fixed batches, PLD: the symmetric dominating pair C_gamma(f) (upper bound) and the two attained
  fixed orders (lower bound) of the pmf pair (``pld.fixed_discrete_models``).

A mechanism overrides a generic form only where its own construction is what makes a bound
tight (each override says why): the Gaussian's exact subsampled RDP curve (Mironov, Talwar,
Zhang 2019) instead of the generic upper bound; the continuous mechanisms' (Gaussian, Laplace)
PLD pairs written in the mechanism's variable x, so that every lattice bin is an integral in x
by Gauss-Legendre quadrature (a continuous law has no pmf pair); the discrete Gaussian's pairs
on its certified truncated support (vectorised atoms, the tail as +oo).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["Mechanism", "NotSupported"]


class NotSupported(Exception):
    """A mechanism cannot give a capability here (the route reports it as ``RouteError``)."""


class Mechanism:
    """Base class of the mechanisms (see the module docstring).  A subclass gives at least
    ``pmf_pair`` (then every generic form follows) or ``rdp`` / ``pld_models``."""

    # --- RDP ---------------------------------------------------------------------------------
    def rdp(self):
        """The RDP curve of one step (a ``numeric.rdp`` curve)."""
        raise NotSupported(f"{self} gives no RDP curve")

    def rdp_poisson(self, rate: float):
        """Poisson subsampling at ``rate`` < 1 (add/remove): generic Zhu-Wang bound."""
        from . import rdp as R
        return R.PoissonSubsampledRDP(self.rdp(), rate)

    def rdp_fixed(self, gamma: float):
        """A fixed batch, gamma = B/N < 1 (replace-one): generic Wang-Balle-Kasiviswanathan bound."""
        from . import rdp as R
        return R.WithoutReplacementRDP(self.rdp(), gamma)

    # --- PLD ---------------------------------------------------------------------------------
    def pmf_pair(self):
        """(p, q): a dominating pair of pmfs on a common finite support, or None."""
        return None

    def _pair(self):
        pq = self.pmf_pair()
        if pq is None:
            raise NotSupported(f"{self} gives no privacy-loss law")
        return pq

    def pld_models(self) -> dict:
        """One-step loss models without sampling (generic: the pmf pair)."""
        from . import pld
        p, q = self._pair()
        return pld.discrete_models(p, q)

    def pld_poisson(self, rate: float) -> dict:
        """Poisson subsampling at ``rate`` < 1: the add/remove dominating pairs of the pmf pair."""
        from . import pld
        p, q = self._pair()
        return pld.discrete_models(p, q, rate)

    def pld_fixed(self, gamma: float, count: int) -> dict:
        """A fixed batch, gamma = B/N < 1: the symmetric dominating pair and the fixed orders."""
        from . import pld
        p, q = self._pair()
        return pld.fixed_discrete_models(p, q, gamma)

    # --- closed forms ------------------------------------------------------------------------
    def gaussian_noise(self):
        """(sigma, sensitivity) when this is the Gaussian mechanism, else None."""
        return None


def binary_pair(eps: float):
    """Randomized response's pmf pair (true bit 0 reported with probability e^eps/(1+e^eps))."""
    p = np.array([1.0, math.exp(-eps)]) / (1.0 + math.exp(-eps))
    return p, p[::-1]
