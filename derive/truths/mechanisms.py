"""Mechanisms as lists of pairs closed under swapping (neighbouring is symmetric), random
mechanisms for property tests, and the (eps, delta) region of a mechanism."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

import mpmath as mp

from ..verify import mp_sup
from .continuous import CPair, gaussian_pair, laplace_pair, sup_over_curve
from .pmf import DPair, random_pmf, randomized_response


# ----------------------------------------------------------------------------- mechanisms
@dataclass
class Mechanism:
    """Neighbouring pairs, closed under swapping; the paper's inf/sup over d ~ d'.
    ``symmetric_pairs`` marks pairs with T(P,Q) = T(Q,P) (a shift of a symmetric law), for
    which the swapped pair's divergences equal the pair's and are computed once."""

    pairs: list
    label: str
    symmetric_pairs: bool = False
    _cache: dict = field(default_factory=dict)

    def _max(self, key, fn):
        if key not in self._cache:
            prs = self.pairs[::2] if self.symmetric_pairs else self.pairs
            self._cache[key] = max(fn(pr) for pr in prs)
        return self._cache[key]

    def tradeoff(self, tau):
        prs = self.pairs[::2] if self.symmetric_pairs else self.pairs
        return min(pr.tradeoff(tau) for pr in prs)

    def renyi(self, al):
        return self._max(("renyi", al), lambda pr: pr.renyi(al))

    def kl(self):
        return self._max("kl", lambda pr: pr.kl())

    def E(self, lam):
        return self._max(("E", lam), lambda pr: pr.E(lam))

    def constraint_sup(self, g):
        """sup over the boundary of C_M of g(tau, beta).  ``pairs`` alternate (P, Q), (Q, P), and
        T(Q, P)'s graph is the reflection of T(P, Q)'s, so each original pair's curve is scanned
        with g at the point and at its reflection."""
        return max(sup_over_curve(pr, lambda t, b: max(g(t, b), g(b, t))) for pr in self.pairs[::2])


def symmetric(pair, label=None) -> Mechanism:
    """The mechanism whose only neighbouring datasets give (P, Q) and (Q, P)."""
    sym = isinstance(pair, CPair) and pair.label in ("Gaussian", "Laplace")
    sym = sym or (isinstance(pair, DPair) and list(pair.P) == list(pair.Q)[::-1])
    return Mechanism([pair, pair.swapped()], label or pair.label, sym)


def random_mechanism(rng: random.Random, kinds=("gauss", "laplace", "rr", "discrete")) -> Mechanism:
    """A random mechanism with finite RDP of every order (both directions)."""
    kind = rng.choice(kinds)
    if kind == "gauss":
        return symmetric(gaussian_pair(mp.mpf(10) ** rng.uniform(-1, 0.5)))
    if kind == "laplace":
        return symmetric(laplace_pair(mp.mpf(10) ** rng.uniform(-1, 0.3)))
    if kind == "rr":
        return symmetric(randomized_response(mp.mpf(10) ** rng.uniform(-1, 0.5)))
    P = random_pmf(rng, rng.randint(2, 4))
    Q = random_pmf(rng, len(P))
    return symmetric(DPair(P, Q))


def dp_delta_from_region(mech: Mechanism, e):
    """sup over C_M's boundary of max(1 - tau - e^eps beta, 1 - beta - e^eps tau): the least
    delta with C_M inside C(eps, delta) (39)."""
    lam = mp.e ** e
    return max(mech.constraint_sup(lambda t, b: max(1 - t - lam * b, 1 - b - lam * t)), mp.mpf(0))


def conjugate_delta(tradeoff: Callable, lam, grid: int = 80):
    """sup_tau (1 - tau - lam beta(tau)): the hockey-stick divergence a trade-off curve
    certifies (the Legendre dual of the curve)."""
    _, v = mp_sup(lambda t: 1 - t - lam * tradeoff(t), 0, 1, grid=grid, iters=70)
    return max(v, mp.mpf(0))
