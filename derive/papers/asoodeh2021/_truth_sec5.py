"""Independent truths for Asoodeh et al. Section V and Appendix H (hypothesis-testing
privacy), computed from definitions in mpmath.

Two kinds of test pairs (P, Q) (H0: X ~ P, H1: X ~ Q; type I error tau = P(reject),
type II error beta = Q(accept), as in 002 (37)-(38)):

* ``DPair``: pmfs on a finite set.  The trade-off curve is computed by **brute force
  over tests**: every deterministic test (a rejection set A, 2^k of them) gives the point
  (P(A), Q(A^c)); randomised tests fill in their convex hull, so beta(tau) is the least
  interpolation over pairs of points straddling tau (no use of the Neyman-Pearson
  ordering).  Divergences are finite sums of their definitions; E_lambda is a sup over
  events (``_truth.E_sup``).
* ``CPair``: densities on the line whose likelihood ratio p/q is monotone in x (Gaussian,
  Laplace, exponential, uniform, the subsampled Gaussian of noisy SGD).  Divergences and
  E_lambda are quadratures of their defining integrals; the trade-off curve comes from the
  threshold tests {x > t} (Neyman-Pearson for a monotone ratio), i.e. from the CDFs.

A "mechanism" here is a list of pairs closed under swapping (neighbouring is symmetric):
its trade-off inf_{d~d'} beta is the pointwise minimum over the pairs, its RDP level and
privacy profile are maxima over the pairs.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Callable

import mpmath as mp

from ...verify import mp_sup

DPS = 20


# ----------------------------------------------------------------------------- binary divergences
def d_alpha(a, b, al):
    """D_alpha(Bern(a) || Bern(b)) from definition (1) on a two-point space."""
    return mp.log(b * (a / b) ** al + (1 - b) * ((1 - a) / (1 - b)) ** al) / (al - 1)


def d_kl(a, b):
    """KL(Bern(a) || Bern(b)) = E_P[log dP/dQ] on a two-point space (0 log 0 = 0)."""
    def term(x, y):
        return mp.mpf(0) if x == 0 else x * mp.log(x / y)
    return term(a, b) + term(1 - a, 1 - b)


# ----------------------------------------------------------------------------- discrete pairs
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
        hull = []
        for p in low:
            while len(hull) >= 2 and ((hull[-1][0] - hull[-2][0]) * (p[1] - hull[-2][1])
                                      - (hull[-1][1] - hull[-2][1]) * (p[0] - hull[-2][0])) <= 0:
                hull.pop()
            hull.append(p)
        self._verts = hull          # beta(0) is the hull's first point
        return hull

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
        best = mp.mpf(0)
        for r in range(len(self.P) + 1):
            for A in itertools.combinations(range(len(self.P)), r):
                best = max(best, mp.fsum(self.P[i] for i in A) - lam * mp.fsum(self.Q[i] for i in A))
        return best

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


# ----------------------------------------------------------------------------- continuous pairs
@dataclass
class CPair:
    """A pair of densities with p/q non-increasing in x (``decreasing``) or non-decreasing.

    ``cross(lam)`` is the x where p/q = lam (closed form; None when the ratio never equals lam),
    ``kinks`` the x where the ratio is not smooth (breakpoints of quadratures in tau)."""

    label: str
    p: Callable
    q: Callable
    Fp: Callable
    Fq: Callable
    Fp_inv: Callable
    Fq_inv: Callable
    lo: object
    hi: object
    cross: Callable
    breaks: list = field(default_factory=list)
    kinks: list = field(default_factory=list)
    decreasing: bool = True
    params: dict = field(default_factory=dict)

    def swapped(self) -> "CPair":
        return CPair(self.label + " (swapped)", self.q, self.p, self.Fq, self.Fp, self.Fq_inv, self.Fp_inv,
                     self.lo, self.hi, lambda lam: self.cross(1 / lam), self.breaks, self.kinks,
                     not self.decreasing, self.params)

    def _edges(self, extra=()):
        pts = sorted(set([x for x in list(self.breaks) + list(extra)
                          if (self.lo == -mp.inf or x > self.lo) and (self.hi == mp.inf or x < self.hi)]))
        return [self.lo] + pts + [self.hi]

    def quad(self, g, extra=()):
        return mp.quad(g, self._edges(extra))

    def threshold(self, tau):
        """t with P(reject) = tau for the Neyman-Pearson threshold test."""
        return self.Fp_inv(1 - tau) if self.decreasing else self.Fp_inv(tau)

    def tau_of(self, x):
        return 1 - self.Fp(x) if self.decreasing else self.Fp(x)

    def tradeoff(self, tau):
        tau = mp.mpf(tau)
        t = self.threshold(tau)
        return self.Fq(t) if self.decreasing else 1 - self.Fq(t)

    def tau_breaks(self, lams=()):
        """The type I errors at which the trade-off curve has kinks, and those where its slope
        is -lam for lam in ``lams`` (kinks of an integrand f(|beta'|))."""
        xs = list(self.kinks) + [x for x in (self.crossing(l) for l in lams) if x is not None]
        return sorted(set(min(max(self.tau_of(x), mp.mpf(0)), mp.mpf(1)) for x in xs) | {mp.mpf(0), mp.mpf(1)})

    def slope(self, tau):
        """beta'(tau) = -q(t)/p(t) at the threshold (chain rule through the CDFs)."""
        t = self.threshold(mp.mpf(tau))
        return -self.q(t) / self.p(t)

    def log_ratio(self, x):
        return mp.log(self.p(x)) - mp.log(self.q(x))

    def crossing(self, lam):
        return self.cross(mp.mpf(lam))

    def renyi(self, al):
        return mp.log(self.quad(lambda x: self.p(x) ** al * self.q(x) ** (1 - al))) / (al - 1)

    def kl(self):
        return self.quad(lambda x: self.p(x) * self.log_ratio(x) if self.p(x) > 0 else mp.mpf(0))

    def E(self, lam):
        """E_lambda(P||Q) = int (p - lam q)_+ (definition (8)) by quadrature."""
        c = self.crossing(lam)
        return self.quad(lambda x: max(self.p(x) - lam * self.q(x), 0), [c] if c is not None else [])

    def f_div(self, f: Callable, f0, fprime_inf=None, kinks=()):
        """D_f(P||Q) = int q f(p/q) (definition (2)), by quadrature (p = 0 -> f(0)); ``kinks``:
        values of the ratio where f is not smooth (quadrature breakpoints)."""
        def g(x):
            px, qx = self.p(x), self.q(x)
            if qx == 0:
                return mp.mpf(0) if px == 0 else (px * fprime_inf if fprime_inf is not None else mp.inf)
            return qx * (f(px / qx) if px > 0 else f0)
        return self.quad(g, self.ratio_points(kinks))

    def ratio_points(self, lams):
        """The x where p/q equals one of ``lams``."""
        return [x for x in (self.crossing(l) for l in lams) if x is not None]


def _inverse_cdf(F, lo, hi):
    """Inverse of a CDF by bisection (used only for mixtures)."""
    def inv(u):
        a = lo if lo != -mp.inf else mp.mpf(-80)
        b = hi if hi != mp.inf else mp.mpf(80)
        for _ in range(mp.mp.prec + 10):
            m = (a + b) / 2
            if F(m) < u:
                a = m
            else:
                b = m
        return (a + b) / 2
    return inv


def _nppf(u, m=0, s=1):
    return m + s * mp.sqrt(2) * mp.erfinv(2 * u - 1)


def gaussian_pair(mu, s=1):
    """P = N(0, s^2), Q = N(mu, s^2): log p/q = (mu^2 - 2 mu x)/(2 s^2), decreasing in x."""
    mu, s = mp.mpf(mu), mp.mpf(s)
    return CPair("Gaussian", lambda x: mp.npdf(x, 0, s), lambda x: mp.npdf(x, mu, s),
                 lambda x: mp.ncdf(x / s), lambda x: mp.ncdf((x - mu) / s),
                 lambda u: _nppf(u, 0, s), lambda u: _nppf(u, mu, s), -mp.inf, mp.inf,
                 lambda lam: (mu ** 2 - 2 * s ** 2 * mp.log(lam)) / (2 * mu),
                 [mu / 2, mu / 2 - 8 * s, mu / 2 + 8 * s], [], True, {"mu": mu / s})


def _lap_cdf(x, m, b):
    return mp.e ** ((x - m) / b) / 2 if x < m else 1 - mp.e ** (-(x - m) / b) / 2


def _lap_inv(u, m, b):
    return m + (b * mp.log(2 * u) if u < mp.mpf(1) / 2 else -b * mp.log(2 * (1 - u)))


def laplace_pair(m, b=1):
    """P = Lap(0, b), Q = Lap(m, b), m > 0: p/q = e^{(|x-m| - |x|)/b}, non-increasing and
    constant (= e^{+-m/b}) on both tails."""
    m, b = mp.mpf(m), mp.mpf(b)

    def cross(lam):
        x = (m - b * mp.log(lam)) / 2
        return x if 0 < x < m else None
    return CPair("Laplace", lambda x: mp.e ** (-abs(x) / b) / (2 * b), lambda x: mp.e ** (-abs(x - m) / b) / (2 * b),
                 lambda x: _lap_cdf(x, 0, b), lambda x: _lap_cdf(x, m, b),
                 lambda u: _lap_inv(u, 0, b), lambda u: _lap_inv(u, m, b), -mp.inf, mp.inf, cross,
                 [mp.mpf(0), m, -30 * b, m + 30 * b], [mp.mpf(0), m], True, {"m": m, "b": b})


def exponential_pair(r):
    """P = Exp(1), Q = Exp(r), 0 < r < 1: p/q = e^{-(1-r)x}/r decreasing from 1/r."""
    r = mp.mpf(r)

    def cross(lam):
        x = -(mp.log(lam) + mp.log(r)) / (1 - r)
        return x if x > 0 else None
    return CPair("exponential", lambda x: mp.e ** (-x), lambda x: r * mp.e ** (-r * x),
                 lambda x: 1 - mp.e ** (-x), lambda x: 1 - mp.e ** (-r * x),
                 lambda u: -mp.log(1 - u), lambda u: -mp.log(1 - u) / r, mp.mpf(0), mp.inf, cross,
                 [mp.mpf(5), 40 / r], [mp.mpf(0)], True, {"r": r})


def uniform_pair(c):
    """P = U[0, 1], Q = U[0, c], c > 1: Q puts mass 1 - 1/c where P has none."""
    c = mp.mpf(c)
    return CPair("uniform", lambda x: mp.mpf(1) if 0 <= x <= 1 else mp.mpf(0),
                 lambda x: 1 / c if 0 <= x <= c else mp.mpf(0),
                 lambda x: min(max(x, 0), 1), lambda x: min(max(x / c, 0), 1),
                 lambda u: u, lambda u: c * u, mp.mpf(0), c, lambda lam: None,
                 [mp.mpf(1)], [mp.mpf(1)], True, {"c": c})


def subsampled_gaussian_pair(q, s):
    """P = N(0, s^2), Q = (1-q) N(0, s^2) + q N(1, s^2) (one step of noisy SGD, Poisson rate q):
    p/q = 1/((1-q) + q e^{(2x-1)/(2 s^2)}) decreasing in x."""
    q, s = mp.mpf(q), mp.mpf(s)
    Fq = lambda x: (1 - q) * mp.ncdf(x / s) + q * mp.ncdf((x - 1) / s)  # noqa: E731

    def cross(lam):
        y = (1 / lam - (1 - q)) / q
        return (1 + 2 * s ** 2 * mp.log(y)) / 2 if y > 0 else None
    return CPair("subsampled Gaussian", lambda x: mp.npdf(x, 0, s),
                 lambda x: (1 - q) * mp.npdf(x, 0, s) + q * mp.npdf(x, 1, s),
                 lambda x: mp.ncdf(x / s), Fq, lambda u: _nppf(u, 0, s), _inverse_cdf(Fq, -mp.inf, mp.inf),
                 -mp.inf, mp.inf, cross, [mp.mpf(0), mp.mpf(1), -10 * s, 1 + 10 * s], [], True,
                 {"q": q, "sigma": s})


def curve_point(pair, tau):
    """(tau, beta(tau)) on the pair's trade-off curve."""
    tau = mp.mpf(tau)
    return tau, pair.tradeoff(tau)


def sup_over_curve(pair, g, grid: int = 32, iters: int = 50):
    """sup over tau in (0, 1) of g(tau, beta(tau)) on one pair's trade-off curve: exact at the
    vertices for discrete pairs when g is convex along segments (g linear or a divergence),
    mp_sup for continuous ones."""
    if isinstance(pair, DPair):
        vals = []
        for t, b in pair.vertices():
            try:
                v = g(t, b)
            except (ZeroDivisionError, ValueError):
                continue
            if isinstance(v, mp.mpf) and mp.isfinite(v):
                vals.append(v)
        return max(vals)
    _, v = mp_sup(lambda t: g(t, pair.tradeoff(t)), 0, 1, grid=grid, iters=iters)
    return v


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


# ----------------------------------------------------------------------------- subsampled Gaussian RDP
def sgm_renyi_quad(al, q, s):
    """D_alpha((1-q)N(0,s^2) + q N(1,s^2) || N(0,s^2)) by quadrature of definition (1):
    E_{x ~ N(0,s^2)}[((1-q) + q e^{(2x-1)/(2 s^2)})^alpha]."""
    al, q, s = mp.mpf(al), mp.mpf(q), mp.mpf(s)
    g = lambda x: mp.npdf(x, 0, s) * ((1 - q) + q * mp.e ** ((2 * x - 1) / (2 * s ** 2))) ** al  # noqa: E731
    c = al * mp.mpf(1)  # the integrand's mass moves right as alpha grows
    return mp.log(mp.quad(g, [-mp.inf, -10 * s, 0, 1, c, c + 10 * s, mp.inf])) / (al - 1)
