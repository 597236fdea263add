"""Pairs of pmfs on a finite set (``DPair``): divergences as finite sums of their definitions,
hockey-stick divergences and trade-off curves by brute force over events and tests, and the
pairs built from them (randomized response, the canonical (eps, delta) pair, Bernoulli, softmax
and explicit tables, the staircase mechanism reduced to its likelihood-ratio classes)."""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import mpmath as mp



# ----------------------------------------------------------------------------- binary divergences
def d_alpha(a, b, al):
    """D_alpha(Bern(a) || Bern(b)) from definition (1) on a two-point space."""
    return mp.log(b * (a / b) ** al + (1 - b) * ((1 - a) / (1 - b)) ** al) / (al - 1)


def d_kl(a, b):
    """KL(Bern(a) || Bern(b)) = E_P[log dP/dQ] on a two-point space (0 log 0 = 0)."""
    def term(x, y):
        return mp.mpf(0) if x == 0 else x * mp.log(x / y)
    return term(a, b) + term(1 - a, 1 - b)


# ----------------------------------------------------------------------------- pmfs as lists
def _exact(xs) -> bool:
    return all(isinstance(x, (int, Fraction)) for x in xs)


def hockey(P, Q, g):
    """E_g(P||Q) = sum_x (P(x) - g Q(x))_+ on a finite space: the sup over events of P(A) - g Q(A) is
    attained at A = {P > g Q} (Asoodeh et al. 2021, the E_gamma divergence; Ghazi and Issa 2023, Def. 1).  Exact for Fractions."""
    terms = [max(p - g * q, 0) for p, q in zip(P, Q)]
    return sum(terms, Fraction(0)) if _exact(list(P) + list(Q) + [g]) else mp.fsum(terms)


def hockey_events(P, Q, g):
    """sup over every event A of P(A) - g Q(A), by brute force over the 2^k events (the definition,
    no use of the positive-part form).  Exact for Fractions."""
    k, exact = len(P), _exact(list(P) + list(Q) + [g])
    total = (lambda xs: sum(xs, Fraction(0))) if exact else mp.fsum
    best = Fraction(0) if exact else mp.mpf(0)
    for r in range(k + 1):
        for A in itertools.combinations(range(k), r):
            best = max(best, total([P[i] for i in A]) - g * total([Q[i] for i in A]))
    return best


def product(*pmfs):
    """The product distribution of the given pmfs: one entry per tuple of outcomes, in lexicographic
    order (exact for Fractions)."""
    out = []
    for xs in itertools.product(*pmfs):
        v = 1
        for x in xs:
            v = v * x
        out.append(v)
    return out


def kfold(P, k: int):
    """The k-fold product P^k (``product`` of k copies)."""
    return product(*[P] * int(k))


# ----------------------------------------------------------------------------- discrete pairs
def lower_hull(points):
    """The lower convex hull of ``points`` sorted by their first coordinate (monotone chain)."""
    hull = []
    for p in points:
        while len(hull) >= 2 and ((hull[-1][0] - hull[-2][0]) * (p[1] - hull[-2][1])
                                  - (hull[-1][1] - hull[-2][1]) * (p[0] - hull[-2][0])) <= 0:
            hull.pop()
        hull.append(p)
    return hull


def symmetrised_pair(vertices, label: str = "symmetrised", floor=mp.mpf(10) ** -40) -> "DPair":
    """The pmf pair whose trade-off curve is C(f) = min{f, f^{-1}}** (Dong, Roth, Su 2019
    Thm. 4.2), f given by its vertices (tau, beta), tau increasing: the lower convex hull of the
    vertices and their reflections, one outcome per hull segment (segments below ``floor``,
    rounding slivers, dropped)."""
    hull = lower_hull(sorted(set(vertices) | {(b, a) for a, b in vertices}))
    seg = [(b[0] - a[0], a[1] - b[1]) for a, b in zip(hull[:-1], hull[1:])]
    seg = [(max(x, 0), max(y, 0)) for x, y in seg if max(x, y) > floor]
    return DPair([x for x, _ in seg], [y for _, y in seg], label)


def tradeoff_np(P, Q, t):
    """The Neyman-Pearson trade-off T(P, Q)(t) of a pmf pair: the smallest type II error Q(accept)
    among randomised tests with type I error P(reject) <= t, rejecting P on outcomes in decreasing
    order of Q/P (O(k log k): for the large k-fold products where ``DPair.tradeoff``'s hull of all
    2^k tests is out of reach)."""
    order = sorted(range(len(P)), key=lambda i: -(Q[i] / P[i]) if P[i] > 0 else -mp.inf)
    used, beta = mp.mpf(0), mp.mpf(1)
    for i in order:
        p, q = mp.mpf(P[i]), mp.mpf(Q[i])
        if p == 0:
            beta -= q
            continue
        take = min(p, t - used)
        if take <= 0:
            break
        used += take
        beta -= q * take / p
    return max(beta, mp.mpf(0))


@dataclass
class DPair:
    P: list
    Q: list
    label: str = "discrete"

    def swapped(self) -> "DPair":
        return DPair(self.Q, self.P, self.label + " (swapped)")

    @property
    def test_points(self):
        """(type I, type II) of every deterministic test (rejection set A)."""
        if not hasattr(self, "_pts"):
            k = len(self.P)
            pts = []
            for r in range(k + 1):
                for A in itertools.combinations(range(k), r):
                    tau = mp.fsum(self.P[i] for i in A)
                    beta = 1 - mp.fsum(self.Q[i] for i in A)
                    pts.append((tau, beta))
            self._pts = pts
        return self._pts

    def tradeoff(self, tau):
        """beta(tau): the lower convex hull of all deterministic tests' (type I, type II) points
        (randomised tests are their mixtures), read at tau."""
        tau = mp.mpf(tau)
        vs = self.vertices()
        for (t1, b1), (t2, b2) in zip(vs[:-1], vs[1:]):
            if t1 <= tau <= t2:
                return b1 if t2 == t1 else b1 + (b2 - b1) * (tau - t1) / (t2 - t1)
        return vs[-1][1]

    def tradeoff_bruteforce(self, tau):
        """beta(tau) = inf over randomised tests with type I error <= tau: the least interpolation
        over all pairs of deterministic tests straddling tau (O(4^k); for tests)."""
        tau = mp.mpf(tau)
        pts = self.test_points
        best = min(b for t, b in pts if t <= tau + mp.mpf(10) ** (-mp.mp.dps + 3))
        for (t1, b1), (t2, b2) in itertools.product(pts, pts):
            if t1 < tau < t2:
                best = min(best, b1 + (b2 - b1) * (tau - t1) / (t2 - t1))
        return max(best, mp.mpf(0))

    def vertices(self):
        """Vertices of the trade-off curve (lower hull of the test points), tau increasing."""
        if hasattr(self, "_verts"):
            return self._verts
        pts = sorted(set((mp.mpf(t), mp.mpf(b)) for t, b in self.test_points))
        taus = sorted(set(t for t, _ in pts))
        low = [(t, min(b for s, b in pts if s == t)) for t in taus]
        self._verts = lower_hull(low)          # beta(0) is the hull's first point
        return self._verts

    def renyi(self, al):
        """D_alpha(P||Q) from (1); inf when P has mass where Q has none."""
        if any(p > 0 and q == 0 for p, q in zip(self.P, self.Q)):
            return mp.inf
        s = mp.fsum(q * (p / q) ** al for p, q in zip(self.P, self.Q) if q > 0)
        return mp.log(s) / (al - 1)

    def kl(self):
        if any(p > 0 and q == 0 for p, q in zip(self.P, self.Q)):
            return mp.inf
        return mp.fsum(p * mp.log(p / q) for p, q in zip(self.P, self.Q) if p > 0)

    def E(self, lam):
        """E_lambda(P||Q) = sup_A P(A) - lambda Q(A) (definition (8)), brute force over events."""
        return hockey_events(self.P, self.Q, lam)

    def f_div(self, f: Callable, f0, fprime_inf=None):
        """D_f(P||Q) = E_Q[f(dP/dQ)] (definition (2)) with the conventions for singular parts:
        points with q = 0 contribute p f'(oo) (inf unless given)."""
        tot = []
        for p, q in zip(self.P, self.Q):
            if q > 0:
                tot.append(q * f(p / q) if p > 0 else q * f0)
            elif p > 0:
                if fprime_inf is None:
                    return mp.inf
                tot.append(p * fprime_inf)
        return mp.fsum(tot)

    def ratios(self):
        """Values of dP/dQ on points with p + q > 0 (q = 0 -> inf)."""
        return [(p / q if q > 0 else mp.inf) for p, q in zip(self.P, self.Q) if p + q > 0]

    def P_of(self, pred):
        return mp.fsum(p for p, q in zip(self.P, self.Q) if p + q > 0 and pred(p / q if q > 0 else mp.inf))

    def Q_of(self, pred):
        return mp.fsum(q for p, q in zip(self.P, self.Q) if p + q > 0 and pred(p / q if q > 0 else mp.inf))

    def hockey(self, lam):
        """E_lambda(P||Q) = sum_x (P(x) - lambda Q(x))_+ (the sup over events is attained at {P > lambda Q})."""
        return hockey(self.P, self.Q, mp.mpf(lam))


def random_pmf(rng: random.Random, k: int, zeros: int = 0):
    w = [mp.mpf(rng.random()) ** 2 + mp.mpf(10) ** -3 for _ in range(k)]
    for i in rng.sample(range(k), zeros):
        w[i] = mp.mpf(0)
    s = mp.fsum(w)
    return [x / s for x in w]


def randomized_response(e):
    """Binary randomized response with parameter eps: the (eps, 0)-DP pair."""
    pe = mp.e ** e / (1 + mp.e ** e)
    return DPair([pe, 1 - pe], [1 - pe, pe], "randomized response")


def eps_delta_pair(e, d):
    """The canonical (eps, delta)-DP pair of Kairouz et al.: four outcomes, one of them
    impossible under Q and another impossible under P."""
    e, d = mp.mpf(e), mp.mpf(d)
    a = (1 - d) * mp.e ** e / (1 + mp.e ** e)
    b = (1 - d) / (1 + mp.e ** e)
    return DPair([d, a, b, mp.mpf(0)], [mp.mpf(0), b, a, d], "(eps, delta) pair")

def bernoulli_pair(a, b):
    """P = Bern(a), Q = Bern(b)."""
    a, b = mp.mpf(a), mp.mpf(b)
    return DPair([a, 1 - a], [b, 1 - b], "Bernoulli")

def pmf_pair(*logits):
    """The pair (softmax(u), softmax(v)) of pmfs on k points from 2k real logits (u..., v...): the
    coordinates in which claim files search over all pairs of pmfs."""
    if len(logits) % 2 or len(logits) < 4:
        raise ValueError(f"logits={len(logits)} values: need 2k with k >= 2")
    k = len(logits) // 2

    def soft(xs):
        m = max(xs)
        w = [mp.e ** (mp.mpf(x) - m) for x in xs]
        s = mp.fsum(w)
        return [x / s for x in w]
    return DPair(soft(logits[:k]), soft(logits[k:]), f"pmfs on {k} points")

# ----------------------------------------------------------------------------- explicit pmf pairs
def discrete_pair(*probs):
    """The pair of pmfs on k points given by their probabilities ``(p_1..p_k, q_1..q_k)`` (zeros
    allowed: outcomes impossible under one side).  Each side must be non-negative and sum to 1 (to
    1e-20 relative to the working precision); a claim whose pair is a printed mechanism's table
    (a dominating mechanism, an LDP channel's two rows) names it ``Discrete(p_1, .., q_k)``."""
    if len(probs) % 2 or len(probs) < 4:
        raise ValueError(f"probs={len(probs)} values: need 2k with k >= 2")
    k = len(probs) // 2
    P, Q = [mp.mpf(x) for x in probs[:k]], [mp.mpf(x) for x in probs[k:]]
    tol = max(mp.mpf(10) ** -20, mp.mpf(10) ** (-mp.mp.dps + 5))
    for side, xs in (("P", P), ("Q", Q)):
        if any(x < -tol for x in xs) or abs(mp.fsum(xs) - 1) > tol:
            raise ValueError(f"{side}={[mp.nstr(x, 6) for x in xs]} is outside the allowed range: "
                             "non-negative probabilities summing to 1")
    P, Q = [max(x, mp.mpf(0)) for x in P], [max(x, mp.mpf(0)) for x in Q]
    return DPair(P, Q, f"pmfs on {k} points")

# ----------------------------------------------------------------------------- the staircase mechanism
def staircase_pair(e, g, D=1):
    """The staircase mechanism of Geng et al. (2015) at sensitivity ``D``: P has the density
    f(x) = a e^{-k eps} on k D <= |x| < (k + g) D and a e^{-(k+1) eps} on (k + g) D <= |x| < (k+1) D,
    a = (1 - e^-eps) / (2 D (g + e^-eps (1 - g))), 0 <= g <= 1; Q = P shifted by D.

    Both densities are constant between the break points k D and (k +- g) D, so the pair reduces
    exactly to the discrete pair of its likelihood-ratio classes (every hockey-stick, divergence and
    trade-off function depends on a pair only through the law of dP/dQ): each interval's P- and
    Q-mass, merged by the ratio p/q, over |x| up to where the mass left is below 10^-(dps+5)."""
    e, g, D = mp.mpf(e), mp.mpf(g), mp.mpf(D)
    if not e > 0:
        raise ValueError(f"eps={mp.nstr(e, 8)} is outside the allowed range: eps > 0")
    if not 0 <= g <= 1:
        raise ValueError(f"gamma={mp.nstr(g, 8)} is outside the allowed range: 0 <= gamma <= 1 "
                         "(the staircase density integrates to 1 only there)")
    key = (mp.nstr(e, mp.mp.dps), mp.nstr(g, mp.mp.dps), mp.nstr(D, mp.mp.dps), mp.mp.dps)
    if key not in _STAIRCASE_CACHE:
        _STAIRCASE_CACHE[key] = _staircase_atoms(e, g, D)
    P, Q = _STAIRCASE_CACHE[key]
    return DPair(list(P), list(Q), "staircase")


_STAIRCASE_CACHE: dict = {}


def _staircase_atoms(e, g, D):
    """(P-masses, Q-masses) of the staircase pair's likelihood-ratio classes.  On an interval between
    break points the density is a r^j with r = e^-eps and j = k (first part of step k) or k + 1
    (second part); the ratio p/q there is r^(j_p - j_q), so the integer j_p - j_q names the class."""
    r = mp.e ** -e
    a = (1 - r) / (2 * D * (g + r * (1 - g)))

    def level(k: int, first_pos: bool, first_neg: bool) -> int:
        """j at a point x = k D + c of period k (0 <= c < D): |x| = k D + c for k >= 0 and
        (-k-1) D + (D - c) for k < 0; ``first_*`` says whether c (resp. D - c) is below g D."""
        return k + (0 if first_pos else 1) if k >= 0 else (-k - 1) + (0 if first_neg else 1)
    n = int(mp.ceil((mp.mp.dps + 5) * mp.log(10) / e)) + 2
    powers = [mp.mpf(1)]
    for _ in range(n + 4):
        powers.append(powers[-1] * r)
    cuts = sorted({mp.mpf(0), g * D, (1 - g) * D, D})        # the break points inside one period
    pieces = [(c1 - c0, (c0 + c1) / 2 < g * D, D - (c0 + c1) / 2 < g * D)
              for c0, c1 in zip(cuts[:-1], cuts[1:]) if c1 > c0]
    atoms: dict = {}
    masses: dict = {}             # width * r^j, once per (piece, j): each occurs for k and for -k-1

    def mass(i: int, width, j: int):
        m = masses.get((i, j))
        if m is None:
            m = masses[(i, j)] = width * powers[j]
        return m
    for k in range(-n, n + 1):
        for i, (width, fp, fn) in enumerate(pieces):
            jp, jq = level(k, fp, fn), level(k - 1, fp, fn)          # Q's density at x is P's at x - D
            if jp > n + 3 or jq > n + 3:
                continue                  # beyond the truncation: mass below 10^-(dps+5)
            _add(atoms, jp, jq, mass(i, width, jp), mass(i, width, jq))
    classes = sorted(atoms)
    return (tuple(a * mp.fsum(atoms[c][0]) for c in classes), tuple(a * mp.fsum(atoms[c][1]) for c in classes))


def _add(atoms: dict, jp: int, jq: int, p, q):
    u, v = atoms.setdefault(jp - jq, ([], []))
    u.append(p)
    v.append(q)
