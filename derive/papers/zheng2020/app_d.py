"""Zheng et al. (seed 004), Appendix D: proofs of Lemma 5.1 (D.1) and Lemma 5.2 (D.2).
Every step of both chains is evaluated on random finite pairs (counting measure) and
compared with the brute-force optimum over all events.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ...symbols import EPS
from ... import truths as TS
from ._paper import P


_XY = {"x": sp.Symbol("x", real=True), "y": sp.Symbol("y", real=True)}
F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of app_d.toml


def _conj_delta(P_, Q_, e):
    """1 + T(P, Q)^*(-e^eps): the conjugate of the pmf pair's trade-off curve, exact over its vertices."""
    return 1 + TS.tradeoff_conjugate(TS.DPair(P_, Q_), -mp.e ** e)


def d2_steps(P1, Q1, P2, Q2, e):
    """The seven right-hand sides of the D.2 chain on finite spaces (counting measure)."""
    Pp, Qp = TS.product(P1, P2), TS.product(Q1, Q2)
    conj = _conj_delta(Pp, Qp, e)                               # lines 1-2: conjugate of T(P1xP2, Q1xQ2)
    l3 = mp.fsum(max(q1 * q2 - mp.e ** e * p1 * p2, 0) for p1, q1 in zip(P1, Q1) for p2, q2 in zip(P2, Q2))
    l4 = mp.fsum(q2 * max(q1 - mp.e ** e * p1 * p2 / q2, 0) for p1, q1 in zip(P1, Q1) for p2, q2 in zip(P2, Q2))
    L2 = [mp.log(q2 / p2) for p2, q2 in zip(P2, Q2)]
    l5 = mp.fsum(q2 * max(q1 - mp.e ** (e - l) * p1, 0) for p1, q1 in zip(P1, Q1) for q2, l in zip(Q2, L2))
    l6 = mp.fsum(q2 * mp.fsum(max(q1 - mp.e ** (e - l) * p1, 0) for p1, q1 in zip(P1, Q1)) for q2, l in zip(Q2, L2))
    l7 = mp.fsum(q2 * _conj_delta(P1, Q1, e - l) for q2, l in zip(Q2, L2))
    return [conj, conj, l3, l4, l5, l6, l7]


def _d2_check(rng):
    P1, Q1 = TS.random_pmf(rng, 3), TS.random_pmf(rng, 3)
    P2, Q2 = TS.random_pmf(rng, 3), TS.random_pmf(rng, 3)
    e = mp.mpf(rng.uniform(-2, 2))
    steps = d2_steps(P1, Q1, P2, Q2, e)
    truth = TS.hockey_events(TS.product(Q1, Q2), TS.product(P1, P2), mp.e ** e)   # max_E Q[E] - e^eps P[E]
    worst = max(steps, key=lambda s: abs(s - truth))
    return {"varepsilon": e}, truth, worst

P.load(__file__)  # the claims declared in app_d.toml (after the checks they name)
