"""The library of independent truths: DP quantities computed from their
definitions in mpmath, shared by every paper, by claim files and by the tests.

Nothing here is taken from any paper's results.  Divergences are sums or
quadratures of their defining integrals, hockey-stick divergences are read off
the CDFs at the likelihood-ratio crossing (the definition's sup over events
for a monotone ratio), trade-off curves come from Neyman-Pearson threshold
tests or, for pmfs, from the lower convex hull of every deterministic test,
and the optimal RDP-to-DP conversion minimises the Bernoulli program by a
1-D search (checked against the two-parameter brute force by a test).

Two kinds of test pairs (P, Q) (H0: X ~ P, H1: X ~ Q; type I error tau = P(reject),
type II error beta = Q(accept)):

* ``DPair``: pmfs on a finite set.  The trade-off curve is computed by brute force
  over tests; divergences are finite sums of their definitions.
* ``CPair``: densities on the line whose likelihood ratio p/q is monotone in x (Gaussian,
  Laplace, exponential, uniform, the Poisson-subsampled Gaussian of noisy SGD).

A "mechanism" is a list of pairs closed under swapping (neighbouring is symmetric).

``QUANTITIES`` and ``PAIRS`` name what a claim file may reference (``Renyi(Gaussian(mu), alpha)``);
``describe()`` says what each computes and at what precision.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import mpmath as mp

from .verify import mp_minimize, mp_sup

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
    Sp: Callable | None = None      # survival functions 1 - F (exact in the upper tail), when known
    Sq: Callable | None = None
    lp: Callable | None = None      # log densities, when known in closed form (one exp per tilted node)
    lq: Callable | None = None
    loglinear: bool = False         # lp and lq are linear in x between consecutive kinks and on both
                                    # tails (Laplace): the tilted integral is a finite sum (exact)

    def tilted(self, al):
        """x -> p(x)^al q(x)^(1-al), the integrand of the Renyi divergence: exp(al log p + (1-al) log q)
        with the log densities when known (a third of the work of two densities and two powers)."""
        if self.lp is not None and self.lq is not None:
            lp, lq = self.lp, self.lq
            return lambda x: mp.exp(al * lp(x) + (1 - al) * lq(x))
        return lambda x: self.p(x) ** al * self.q(x) ** (1 - al)

    def tilted_integral(self, al):
        """int p^al q^(1-al) over the line for a ``loglinear`` pair: on each piece between kinks
        the exponent al lp + (1-al) lq is c x + d (read off at two points of the piece), whose
        integral is (e^{c v + d} - e^{c u + d}) / c (e^d (v - u) when c = 0); a tail whose exponent
        does not decrease outwards makes the integral +oo."""
        f = lambda x: al * self.lp(x) + (1 - al) * self.lq(x)
        ks = sorted(set(mp.mpf(k) for k in self.kinks))
        ends = [-mp.inf] + ks + [mp.inf]
        total = mp.mpf(0)
        for u, v in zip(ends[:-1], ends[1:]):
            if mp.isinf(u) and mp.isinf(v):
                a, b_ = mp.mpf(-1), mp.mpf(1)
            elif mp.isinf(u):
                a, b_ = v - 1, v
            elif mp.isinf(v):
                a, b_ = u, u + 1
            else:
                a, b_ = u, v
            c = (f(b_) - f(a)) / (b_ - a)
            d = f(a) - c * a
            if mp.isinf(u) and not c > 0 or mp.isinf(v) and not c < 0:
                return mp.inf
            if c == 0:
                total += mp.exp(d) * (v - u)
            else:
                hi = mp.mpf(0) if mp.isinf(v) else mp.exp(c * v + d)
                lo = mp.mpf(0) if mp.isinf(u) else mp.exp(c * u + d)
                total += (hi - lo) / c
        return total

    def sp_(self, x):
        return self.Sp(x) if self.Sp is not None else 1 - self.Fp(x)

    def sq_(self, x):
        return self.Sq(x) if self.Sq is not None else 1 - self.Fq(x)

    def swapped(self) -> "CPair":
        return CPair(self.label + " (swapped)", self.q, self.p, self.Fq, self.Fp, self.Fq_inv, self.Fp_inv,
                     self.lo, self.hi, lambda lam: self.cross(1 / lam), self.breaks, self.kinks,
                     not self.decreasing, _swap_shift(self.params), self.Sq, self.Sp, self.lq, self.lp,
                     self.loglinear)

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
        return mp.log(self.quad(self.tilted(al), self._tilted_breaks(al))) / (al - 1)

    def _tilted_breaks(self, al):
        """Break points around the mass of p^al q^(1-al): for Gaussian shifts it is a Gaussian
        bump centred at (1 - al) mu_Q + al mu_P, which a fixed grid misses when |al mu| is large."""
        if self.label.startswith("Gaussian") and "shift" in self.params:
            mp_, mq, s = self.params["shift"]
            c = al * mp_ + (1 - al) * mq
            return [c - 40 * s, c - 10 * s, c, c + 10 * s, c + 40 * s]
        return []

    def quad_checked(self, g, extra=(), rtol=None):
        """``quad`` with mpmath's error estimate; raises ValueError when the estimate is above
        ``rtol`` relative (default 10^(4 - working digits): a truth must not be a poor quadrature)."""
        if rtol is None:
            rtol = mp.mpf(10) ** (4 - mp.mp.dps)
        val, err = mp.quad(g, self._edges(extra), error=True)
        if not mp.isfinite(val) or err > rtol * abs(val) + mp.mpf(10) ** (-mp.mp.dps + 5):
            raise ValueError(f"quadrature error estimate {mp.nstr(err, 3)} for {self.label}")
        return val

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


def _swap_shift(params: dict) -> dict:
    out = dict(params)
    if "shift" in out:
        a, b, s = out["shift"]
        out["shift"] = (b, a, s)
    return out


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


def nquantile(u, m=0, s=1):
    """The N(m, s^2) quantile m + s Phi^{-1}(u), Phi^{-1}(u) = sqrt(2) erfinv(2u - 1) in mpmath (the numeric
    twin of ``derive.functions.PhiInv``; the normal CDF itself is ``mpmath.ncdf``)."""
    return m + s * mp.sqrt(2) * mp.erfinv(2 * mp.mpf(u) - 1)


def _at_precision(make):
    """make() evaluated once per working precision (a constant of a density, recomputed when the
    checkers raise the precision)."""
    memo = {}

    def get():
        prec = mp.mp.prec
        if prec not in memo:
            memo[prec] = make()
        return memo[prec]
    return get


def gaussian_pair(mu, s=1):
    """P = N(0, s^2), Q = N(mu, s^2): log p/q = (mu^2 - 2 mu x)/(2 s^2), decreasing in x for
    mu > 0 and increasing for mu < 0 (the crossing formula holds for either sign)."""
    mu, s = mp.mpf(mu), mp.mpf(s)
    c = _at_precision(lambda: mp.log(s) + mp.log(2 * mp.pi) / 2)
    return CPair("Gaussian", lambda x: mp.npdf(x, 0, s), lambda x: mp.npdf(x, mu, s),
                 lambda x: mp.ncdf(x / s), lambda x: mp.ncdf((x - mu) / s),
                 lambda u: nquantile(u, 0, s), lambda u: nquantile(u, mu, s), -mp.inf, mp.inf,
                 lambda lam: (mu ** 2 - 2 * s ** 2 * mp.log(lam)) / (2 * mu),
                 [mu / 2, mu / 2 - 8 * s, mu / 2 + 8 * s], [], bool(mu >= 0),
                 {"mu": mu / s, "shift": (mp.mpf(0), mu, s)},
                 lambda x: mp.ncdf(-x / s), lambda x: mp.ncdf(-(x - mu) / s),
                 lambda x: -(x / s) ** 2 / 2 - c(), lambda x: -((x - mu) / s) ** 2 / 2 - c())


def _lap_cdf(x, m, b):
    return mp.e ** ((x - m) / b) / 2 if x < m else 1 - mp.e ** (-(x - m) / b) / 2


def _lap_sf(x, m, b):
    return mp.e ** (-(x - m) / b) / 2 if x >= m else 1 - mp.e ** ((x - m) / b) / 2


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
                 [mp.mpf(0), m, -30 * b, m + 30 * b], [mp.mpf(0), m], True, {"m": m, "b": b},
                 lambda x: _lap_sf(x, 0, b), lambda x: _lap_sf(x, m, b),
                 lambda x: -abs(x) / b - mp.log(2 * b), lambda x: -abs(x - m) / b - mp.log(2 * b),
                 loglinear=True)


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
                 lambda x: mp.ncdf(x / s), Fq, lambda u: nquantile(u, 0, s), _inverse_cdf(Fq, -mp.inf, mp.inf),
                 -mp.inf, mp.inf, cross, [mp.mpf(0), mp.mpf(1), -10 * s, 1 + 10 * s], [], True,
                 {"q": q, "sigma": s}, lambda x: mp.ncdf(-x / s),
                 lambda x: (1 - q) * mp.ncdf(-x / s) + q * mp.ncdf(-(x - 1) / s))


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


# ----------------------------------------------------------------------------- the Gaussian privacy profile
def gauss_delta(e, mu):
    """delta(eps) = E_{e^eps}(N(mu,1) || N(0,1)) for any real eps, by quadrature of the definition
    int (p - e^eps q)_+ beyond the point x0 = eps/mu + mu/2 where the ratio e^{mu x - mu^2/2} reaches
    e^eps (not the closed forms of Asoodeh et al. 2021 and Zheng et al. 2020, Lemma 5.1, it checks), at 30 digits."""
    with mp.workdps(WORK_DPS):
        e, mu = mp.mpf(e), mp.mpf(mu)
        x0 = e / mu + mu / 2
        lam = mp.e ** e
        return mp.quad(lambda x: mp.npdf(x, mu) - lam * mp.npdf(x), [x0, x0 + 1, x0 + 10, mp.inf])


# ----------------------------------------------------------------------------- privacy-loss cumulants
def _cumulants_by_quad(L, dens, points):
    """[kappa_1..kappa_4] of L(x), x ~ dens, by quadrature: mean and central moments m_2..m_4, with
    the textbook kappa_2 = m_2, kappa_3 = m_3, kappa_4 = m_4 - 3 m_2^2 (no Bell-polynomial conversion)."""
    mean = mp.quad(lambda x: L(x) * dens(x), points)
    m2, m3, m4 = (mp.quad(lambda x, k=k: (L(x) - mean) ** k * dens(x), points) for k in (2, 3, 4))
    return [mean, m2, m3, m4 - 3 * m2 ** 2]


def laplace_cumulants_quad(theta, under="P"):
    """[kappa_1..kappa_4] of L = |x| - |x - theta| under Lap(0,1) ("P") or Lap(theta,1) ("Q")."""
    th = mp.mpf(theta)
    loc = 0 if under == "P" else th
    L = lambda x: abs(x) - abs(x - th)  # noqa: E731
    dens = lambda x: mp.exp(-abs(x - loc)) / 2  # noqa: E731
    return _cumulants_by_quad(L, dens, [-mp.inf, 0, th, mp.inf])


def mixture_llr(x, p, mu):
    """log(1 - p + p e^{mu x - mu^2/2}) via log-sum-exp (the privacy loss of a Gaussian mixture, Zheng et al. 2020, App. C)."""
    a = mp.log1p(-p) if p < 1 else -mp.inf
    b = mp.log(p) + mu * x - mu ** 2 / 2
    m = max(a, b)
    return m + mp.log(mp.e ** (a - m) + mp.e ** (b - m))


def mixture_cumulants_quad(p, mu, under="P"):
    """[kappa_1..kappa_4] of the privacy loss of N(0,1) vs p N(mu,1) + (1-p) N(0,1) (Zheng et al. 2020, App. C), under
    P = N(0,1) or Q = the mixture, by quadrature in log space."""
    p, mu = mp.mpf(p), mp.mpf(mu)
    L = lambda x: mixture_llr(x, p, mu)  # noqa: E731
    n0 = lambda x: mp.exp(-x ** 2 / 2) / mp.sqrt(2 * mp.pi)  # noqa: E731
    dens = n0 if under == "P" else (lambda x: p * n0(x - mu) + (1 - p) * n0(x))
    return _cumulants_by_quad(L, dens, [-mp.inf, -8, 0, mu, mu + 8, mp.inf])


# ----------------------------------------------------------------------------- subsampled Gaussian RDP
def subsampled_shift_renyi(al, q, kind: str, scale, reverse: bool = False):
    """D_alpha((1-q) K + q K_1 || K), or with ``reverse`` D_alpha(K || (1-q) K + q K_1), K = N(0, s^2)
    (``kind="gauss"``) or Lap(0, b) (``"laplace"``), K_1 = K shifted by 1, by quadrature of definition (1):
    the pair of outputs of a subsampled mechanism adding the noise K to the sum of records in [0, 1]
    (Poisson rate q, one record added; or a fixed-size subsample, ratio q, one record 0 replaced by 1).
    A lower bound on that mechanism's subsampled RDP at order alpha (a sup over such pairs)."""
    al, q, s = mp.mpf(al), mp.mpf(q), mp.mpf(scale)
    if kind == "gauss":
        k0 = lambda x: mp.npdf(x, 0, s)  # noqa: E731
        k1 = lambda x: mp.npdf(x, 1, s)  # noqa: E731
        w = 12 * s + 2 * al
    elif kind == "laplace":
        k0 = lambda x: mp.e ** (-abs(x) / s) / (2 * s)  # noqa: E731
        k1 = lambda x: mp.e ** (-abs(x - 1) / s) / (2 * s)  # noqa: E731
        w = 60 * s + 2 * al
    else:
        raise ValueError(f"kind={kind!r} is not one of 'gauss', 'laplace'")
    mix = lambda x: (1 - q) * k0(x) + q * k1(x)  # noqa: E731
    num, den = (k0, mix) if reverse else (mix, k0)
    pts = sorted({-w, -w / 4, mp.mpf(0), mp.mpf(1) / 2, mp.mpf(1), w / 4, w}
                 | {mp.mpf(i) / 2 for i in range(-8, 9)})
    v = mp.quad(lambda x: num(x) ** al * den(x) ** (1 - al), [-mp.inf] + pts + [mp.inf])
    return mp.log(v) / (al - 1)


def sgm_renyi_quad(al, q, s):
    """D_alpha((1-q)N(0,s^2) + q N(1,s^2) || N(0,s^2)) by quadrature of definition (1):
    E_{x ~ N(0,s^2)}[((1-q) + q e^{(2x-1)/(2 s^2)})^alpha]."""
    al, q, s = mp.mpf(al), mp.mpf(q), mp.mpf(s)
    g = lambda x: mp.npdf(x, 0, s) * ((1 - q) + q * mp.e ** ((2 * x - 1) / (2 * s ** 2))) ** al  # noqa: E731
    c = al * mp.mpf(1)  # the integrand's mass moves right as alpha grows
    return mp.log(mp.quad(g, [-mp.inf, -10 * s, 0, 1, c, c + 10 * s, mp.inf])) / (al - 1)


# ----------------------------------------------------------------------------- the optimal RDP -> DP conversion (Asoodeh et al. 2021)
WORK_DPS = 30


def h1(p, a, d, e):
    """The objective of (78) (Theorem 3's M), written from (75) at q = (p-d)e^-e."""
    return p ** a * (p - d) ** (1 - a) + (1 - p) ** a * (mp.e ** e - p + d) ** (1 - a)


def gamma_exact(a, e, d):
    """gamma_alpha^eps(delta) by minimising (78) over p in (delta, 1).

    For alpha delta < 1 the minimiser lies in p - delta in ((alpha-1) delta, 1 - delta) (the
    objective is convex in p and decreasing at p = alpha delta), so the search runs over
    t = log(p - delta) on that interval: a minimiser within (alpha-1) delta of delta is
    resolved even at delta = 1e-300, where a search over p itself cannot see it; at delta = 0
    the search runs over log p, so an infimum approached as p -> 0+ is found too."""
    with mp.workdps(WORK_DPS):
        a, e, d = mp.mpf(a), mp.mpf(e), mp.mpf(d)
        lam, b = mp.e ** e, 1 - a

        def h(p):   # h1(p, a, d, e), the same operations, with e^eps and 1 - alpha computed once
            return p ** a * (p - d) ** b + (1 - p) ** a * (lam - p + d) ** b
        if 0 < a * d < 1:
            _, m = mp_minimize(lambda t: h(d + mp.exp(t)), mp.log((a - 1) * d),
                               mp.log(1 - d), grid=64, iters=130)
        elif d == 0:
            # the infimum may sit at p -> 0+, where the objective tends to e^{-(alpha-1) eps}: search
            # log p down to where p is negligible beside that
            _, m = mp_minimize(lambda t: h(mp.exp(t)), -((a - 1) * e + 100), 0, grid=128,
                               iters=130)
        else:
            _, m = mp_minimize(h, d, 1, grid=64, iters=130)
        return e + mp.log(m) / (a - 1)


def gamma_bruteforce(a, e, d):
    """gamma_alpha^eps(delta) from the two-parameter program (75): minimise
    (1/(a-1)) log(p^a q^(1-a) + (1-p)^a (1-q)^(1-a)) over 0<q<p<1 with
    p - q e^eps >= delta, by nested numeric minimisation (no substitution)."""
    with mp.workdps(WORK_DPS):
        a, e, d = mp.mpf(a), mp.mpf(e), mp.mpf(d)
        lam = mp.e ** e

        b = 1 - a

        def inner(p):
            qmax = (p - d) / lam  # feasible q: (0, qmax]
            if qmax <= 0:
                return mp.inf
            # the same objective with p^a, (1-p)^a computed once per p (identical values)
            pa, pb = p ** a, (1 - p) ** a
            f = lambda q: pa * q ** b + pb * (1 - q) ** b
            # include the end point of the feasible set explicitly
            _, v = mp_minimize(f, 0, qmax, grid=60, iters=80)
            return min(v, f(qmax))

        _, m = mp_minimize(inner, d, 1, grid=60, iters=80)
        return mp.log(m) / (a - 1)


def _illinois_upper(f, lo, hi, tol):
    """The root of an increasing ``f`` with f(lo) < 0 <= f(hi), by the Illinois variant of
    regula falsi (the bracket always shrinks; superlinear).  Once two iterates agree to
    ``tol``, one probe just above them closes the bracket; returns its upper end, so that
    f(result) >= 0."""
    flo, fhi = f(lo), f(hi)
    side, last = 0, None
    for _ in range(200):
        w = tol * max(1, hi)
        if hi - lo <= w:
            return hi
        x = (lo * fhi - hi * flo) / (fhi - flo)
        if not lo < x < hi:
            x = (lo + hi) / 2
        if last is not None and abs(x - last) <= w / 4:
            up = min(x + w / 2, hi)      # the root is within a few tol of x: close the bracket
            down = max(x - w / 2, lo)
            if f(up) >= 0:
                hi = up
                fd = f(down)
                if fd < 0:
                    return hi
                hi, fhi = down, fd
                continue
        last = x
        fx = f(x)
        if fx >= 0:
            hi, fhi = x, fx
            if side == 1:
                flo /= 2
            side = 1
        else:
            lo, flo = x, fx
            if side == -1:
                fhi /= 2
            side = -1
    raise ArithmeticError("the Illinois root finder did not converge in 200 steps")


def eps_exact(a, g, d, tol_digits: int = 20):
    """epsilon_alpha^delta(gamma) = inf{eps >= 0 : gamma_alpha^eps(delta) >= gamma} (14):
    a bracket by doubling, then the Illinois bracketing root finder (a dozen evaluations of
    ``gamma_exact`` instead of ~70 bisections); returns the bracket's upper end, so that
    gamma_alpha^eps(delta) >= gamma at the returned eps."""
    with mp.workdps(WORK_DPS):
        a, g, d = mp.mpf(a), mp.mpf(g), mp.mpf(d)
        f = lambda e: gamma_exact(a, e, d) - g  # noqa: E731  (increasing in eps)
        if f(0) >= 0:
            return mp.mpf(0)
        lo, hi = mp.mpf(0), g + mp.log(1 / d) / (a - 1) + 1
        while f(hi) < 0:
            lo, hi = hi, 2 * hi
        return _illinois_upper(f, lo, hi, mp.mpf(10) ** -tol_digits)


def delta_exact(a, g, e, tol_digits: int = 20):
    """The optimal conversion read the other way: the least delta such that every
    (alpha, gamma)-RDP mechanism is (eps, delta)-DP, i.e. sup{delta : gamma_alpha^eps(delta) <= gamma}
    (gamma_alpha^eps(delta) is increasing in delta); bisection in log delta."""
    with mp.workdps(WORK_DPS):
        a, g, e = mp.mpf(a), mp.mpf(g), mp.mpf(e)
        if g <= 0:
            return mp.mpf(0)
        lo, hi = mp.mpf(-4000), mp.mpf(0)   # log delta
        if gamma_exact(a, e, mp.e ** lo) > g:
            return mp.e ** lo   # below 1e-1700: report the bracket's end (sound: an upper bound)
        for _ in range(400):
            mid = (lo + hi) / 2
            if gamma_exact(a, e, mp.e ** mid) <= g:
                lo = mid
            else:
                hi = mid
            if hi - lo <= mp.mpf(10) ** -tol_digits:
                break
        return mp.e ** hi


# ----------------------------------------------------------------------------- hockey-stick, profiles
def _dpair_hockey(self, lam):
    """E_lambda(P||Q) = sum_x (P(x) - lambda Q(x))_+ (the sup over events is attained at {P > lambda Q})."""
    return hockey(self.P, self.Q, mp.mpf(lam))


def _cpair_hockey(self, lam):
    """E_lambda(P||Q) = P(A) - lambda Q(A) with A = {p > lambda q}: a half-line at the
    likelihood-ratio crossing, read off the CDFs (exact); quadrature when the ratio never
    equals lambda (flat tails, disjoint supports)."""
    lam = mp.mpf(lam)
    c = self.crossing(lam)
    if c is None:
        return self.E(lam)
    if self.decreasing:     # p/q > lam on x < c
        v = self.Fp(c) - lam * self.Fq(c)
    else:
        v = self.sp_(c) - lam * self.sq_(c)
    return max(v, mp.mpf(0))


DPair.hockey = _dpair_hockey
CPair.hockey = _cpair_hockey


def delta_of_eps(pair, e):
    """The privacy profile of the symmetric mechanism {(P, Q), (Q, P)}:
    delta(eps) = max(E_{e^eps}(P||Q), E_{e^eps}(Q||P))."""
    lam = mp.e ** mp.mpf(e)
    return max(pair.hockey(lam), pair.swapped().hockey(lam))


def eps_of_delta(pair, d, tol_digits: int = 25):
    """eps(delta) = inf{eps >= 0 : delta(eps) <= delta}, by bisection (delta(eps) is
    non-increasing); mp.inf when delta(eps) > delta for every eps (delta below the profile's floor)."""
    d = mp.mpf(d)
    tol_digits = min(tol_digits, mp.mp.dps - 3)   # no finer than the working precision resolves
    if delta_of_eps(pair, 0) <= d:
        return mp.mpf(0)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while delta_of_eps(pair, hi) > d:
        lo, hi = hi, 2 * hi
        if hi > 1e6:
            return mp.inf
    for _ in range(400):
        mid = (lo + hi) / 2
        if delta_of_eps(pair, mid) <= d:
            hi = mid
        else:
            lo = mid
        if hi - lo <= mp.mpf(10) ** -tol_digits * max(1, hi):
            break
    return hi


# ----------------------------------------------------------------------------- composition
def compose(pair, k):
    """The k-fold product pair (P^k, Q^k).  Gaussian shifts compose to a Gaussian shift with
    mean mu sqrt(k) (rotation invariance of the isotropic Gaussian); pmfs compose exactly through
    their privacy-loss atoms (likelihood ratio, P-mass, Q-mass), merged by equal ratio."""
    k = int(k)
    if k != mp.mpf(k) or k < 1:
        raise ValueError(f"k={k!r} is outside the allowed range: integers >= 1")
    if isinstance(pair, CPair) and pair.label == "Gaussian":
        s = pair.params["sigma"] if "sigma" in pair.params else mp.mpf(1)
        return gaussian_pair(pair.params["mu"] * s * mp.sqrt(k), s)
    if isinstance(pair, DPair):
        atoms = _loss_atoms(pair)
        out = {(mp.mpf(0), 0): (mp.mpf(1), mp.mpf(1))}   # (log-ratio, inf-count) -> (P, Q) masses
        for _ in range(k):
            nxt: dict = {}
            for (l1, i1), (p1, q1) in out.items():
                for (l2, i2), (p2, q2) in atoms.items():
                    key = (mp.mpf(mp.nstr(l1 + l2, mp.mp.dps - 5)), i1 + i2)
                    a, b = nxt.get(key, (mp.mpf(0), mp.mpf(0)))
                    nxt[key] = (a + p1 * p2, b + q1 * q2)
            if len(nxt) > 200_000:
                raise ValueError(f"k={k} is outside the allowed range for exact pmf composition "
                                 "(more than 2e5 distinct privacy-loss atoms)")
            out = nxt
        P = [v[0] for v in out.values()]
        Q = [v[1] for v in out.values()]
        return DPair(P, Q, f"{pair.label}^{k}")
    raise ValueError(f"pair={pair.label!r}: exact k-fold composition is available for Gaussian "
                     "shifts and pmfs only")


def _loss_atoms(pair):
    """{(log P(x)/Q(x) rounded, +-1 for an infinite ratio): (P-mass, Q-mass)}."""
    atoms: dict = {}
    for p, q in zip(pair.P, pair.Q):
        if p == 0 and q == 0:
            continue
        if q == 0:
            key = (mp.mpf(0), 1)
        elif p == 0:
            key = (mp.mpf(0), -1)
        else:
            key = (mp.mpf(mp.nstr(mp.log(p / q), mp.mp.dps - 5)), 0)
        a, b = atoms.get(key, (mp.mpf(0), mp.mpf(0)))
        atoms[key] = (a + p, b + q)
    return atoms


def tv(pair):
    """Total variation TV(P, Q) = E_1(P||Q)."""
    return pair.hockey(1)


def max_divergence(pair):
    """The max-divergence D_inf(P||Q) = sup_x log (dP/dQ)(x) = lim_{alpha -> oo} D_alpha(P||Q) (Renyi
    1961; Dwork and Roth 2014, Def. 3.6 writes pure DP as a bound on it): the largest log-ratio of
    masses of a finite pair (oo where Q misses a point P charges); |shift|/scale for a Laplace shift;
    oo for a Gaussian shift (its log-ratio is unbounded)."""
    if isinstance(pair, DPair):
        out = None
        for p, q in zip(pair.P, pair.Q):
            if p > 0:
                if q == 0:
                    return mp.inf
                r = mp.log(p / q)
                out = r if out is None or r > out else out
        return out
    if pair.label == "Laplace":
        return abs(pair.params["m"]) / pair.params["b"]
    if pair.label == "Gaussian":
        return mp.inf if pair.params["mu"] != 0 else mp.mpf(0)
    raise ValueError(f"MaxDivergence of the {pair.label} pair has no computation here")


def chi_alpha(pair, a):
    """chi^alpha(P||Q) = E_Q[((dP/dQ)^alpha - 1)/(alpha - 1)] = (e^{(alpha-1) D_alpha} - 1)/(alpha - 1)
    written from the integral of p^alpha q^(1-alpha)."""
    a = mp.mpf(a)
    if isinstance(pair, DPair):
        if any(p > 0 and q == 0 for p, q in zip(pair.P, pair.Q)):
            return mp.inf
        s = mp.fsum(q * (p / q) ** a for p, q in zip(pair.P, pair.Q) if q > 0)
    elif _gauss_mu(pair) is not None:     # int p^a q^(1-a) = e^{a (a - 1) mu^2 / 2} for a Gaussian shift
        s = mp.e ** (a * (a - 1) * _gauss_mu(pair) ** 2 / 2)
    else:
        s = pair.quad_checked(lambda x: pair.p(x) ** a * pair.q(x) ** (1 - a), pair._tilted_breaks(a))
    return (s - 1) / (a - 1)


def bernoulli_pair(a, b):
    """P = Bern(a), Q = Bern(b)."""
    a, b = mp.mpf(a), mp.mpf(b)
    return DPair([a, 1 - a], [b, 1 - b], "Bernoulli")


def gaussian_mechanism(mu, sigma=1):
    """The Gaussian mechanism with sensitivity mu*sigma and noise sigma: P = N(0, s^2), Q = N(mu s, s^2)
    (the pair depends on mu only; ``sigma`` is kept for the record)."""
    mu, sigma = mp.mpf(mu), mp.mpf(sigma)
    pr = gaussian_pair(mu * sigma, sigma)
    pr.params.update({"sigma": sigma, "mu": mu})
    return pr


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


# ----------------------------------------------------------------------------- names claim files use
#: pair constructors: name -> (function, description)
PAIRS = {
    "Gaussian": (lambda mu, sigma=1: gaussian_mechanism(mu, sigma),
                 "Gaussian(mu, sigma=1): P = N(0, sigma^2), Q = N(mu sigma, sigma^2) (mu = sensitivity/noise)"),
    "Laplace": (lambda m, b=1: laplace_pair(m, b), "Laplace(m, b=1): P = Lap(0, b), Q = Lap(m, b)"),
    "RandomizedResponse": (lambda e: randomized_response(e),
                           "RandomizedResponse(eps): binary randomized response, P = (e^eps, 1)/(1+e^eps), Q reversed"),
    "Bernoulli": (bernoulli_pair, "Bernoulli(a, b): P = Bern(a), Q = Bern(b)"),
    "EpsDeltaPair": (eps_delta_pair, "EpsDeltaPair(eps, delta): the canonical four-point (eps, delta)-DP pair"),
    "SubsampledGaussian": (lambda q, sigma: subsampled_gaussian_pair(q, sigma),
                           "SubsampledGaussian(q, sigma): P = N(0, sigma^2), Q = (1-q) N(0, sigma^2) + q N(1, sigma^2)"),
    "Exponential": (exponential_pair, "Exponential(r): P = Exp(1), Q = Exp(r), 0 < r < 1"),
    "Uniform": (uniform_pair, "Uniform(c): P = U[0, 1], Q = U[0, c], c > 1"),
    "Swapped": (lambda pr: pr.swapped(), "Swapped(pair): (Q, P)"),
    "Pmf": (pmf_pair, "Pmf(u1..uk, v1..vk): P = softmax(u), Q = softmax(v) (a [pairs] entry of a claim file)"),
    "Composed": (compose, "Composed(pair, k): the k-fold product (P^k, Q^k) (Gaussian shifts and pmfs)"),
}

#: quantities: name -> (function, description, precision note)
QUANTITIES = {
    "HockeyStick": (lambda pr, g: pr.hockey(g), "HockeyStick(pair, gamma): E_gamma(P||Q) = sup_A P(A) - gamma Q(A)"),
    "SupOverEvents": (lambda pr, g: pr.E(g), "SupOverEvents(pmf pair, gamma): sup over every event A of P(A) - gamma Q(A), "
                      "by brute force over all 2^k events"),
    "Renyi": (lambda pr, a: _renyi_checked(pr, a), "Renyi(pair, alpha): D_alpha(P||Q) = log(int p^alpha q^(1-alpha))/(alpha-1)"),
    "KL": (lambda pr: _kl_checked(pr), "KL(pair): int p log(p/q)"),
    "MaxDivergence": (max_divergence, "MaxDivergence(pair): D_inf(P||Q) = sup log dP/dQ, the max-divergence"),
    "TV": (tv, "TV(pair): sup_A |P(A) - Q(A)|"),
    "ChiAlpha": (chi_alpha, "ChiAlpha(pair, alpha): E_Q[((dP/dQ)^alpha - 1)/(alpha - 1)]"),
    "DeltaOfEps": (delta_of_eps, "DeltaOfEps(pair, eps): max(E_{e^eps}(P||Q), E_{e^eps}(Q||P)), the privacy profile"),
    "EpsOfDelta": (eps_of_delta, "EpsOfDelta(pair, delta): inf{eps >= 0 : DeltaOfEps(pair, eps) <= delta}"),
    "Tradeoff": (lambda pr, a: pr.tradeoff(a), "Tradeoff(pair, a): T(P, Q)(a), the least type II error at type I error a"),
    "OptimalRdpGamma": (gamma_exact, "OptimalRdpGamma(alpha, eps, delta): gamma_alpha^eps(delta) of Asoodeh et al. 2021 (16)"),
    "OptimalRdpEps": (lambda a, g, d: eps_exact(a, g, d, tol_digits=17), "OptimalRdpEps(alpha, gamma, delta): the least eps every (alpha, gamma)-RDP mechanism satisfies at delta (optimal conversion)"),
    "OptimalRdpDelta": (lambda a, g, e: delta_exact(a, g, e, tol_digits=17), "OptimalRdpDelta(alpha, gamma, eps): the least delta every (alpha, gamma)-RDP mechanism satisfies at eps"),
}

#: each quantity's convention: (least value, greatest value, what the definition says); a printed
#: bound that differs from the truth only where the convention binds (a negative upper bound on an
#: eps >= 0) is read with the same clamp, and the verdict says so
CONVENTIONS = {
    "EpsOfDelta": (0, None, "eps >= 0 (the infimum runs over eps >= 0)"),
    "OptimalRdpEps": (0, None, "eps >= 0 (the infimum runs over eps >= 0)"),
    "OptimalRdpDelta": (0, 1, "delta in [0, 1]"),
    "DeltaOfEps": (0, 1, "delta in [0, 1]"),
    "HockeyStick": (0, None, "E_gamma >= 0 (the empty event)"),
    "SupOverEvents": (0, None, "E_gamma >= 0 (the empty event)"),
    "TV": (0, 1, "TV in [0, 1]"),
    "MaxDivergence": (0, None, "D_inf >= 0 (P and Q are probability measures)"),
    "Tradeoff": (0, 1, "T(P, Q)(a) in [0, 1]"),
}

#: how accurate each quantity's mpmath value is at the checkers' confirmation precision (30 digits):
#: |computed - true| <= rel |true| + abs.  Where the truth has no ball enclosure (derive.certify), a
#: bound fails only by more than this budget.
ACCURACY = {
    "HockeyStick": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    "SupOverEvents": (mp.mpf(10) ** -25, mp.mpf(10) ** -28),
    "Renyi": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    "KL": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    "MaxDivergence": (mp.mpf(10) ** -25, mp.mpf(10) ** -28),
    "TV": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    "ChiAlpha": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    "DeltaOfEps": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    # bisection to 10^-25 max(1, eps) (an absolute width below eps = 1), on a profile good to 1e-18
    "EpsOfDelta": (mp.mpf(10) ** -17, mp.mpf(10) ** -24),
    "Tradeoff": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    # a golden-section minimum over p and an Illinois bracket to 10^-17 max(1, eps)
    "OptimalRdpGamma": (mp.mpf(10) ** -15, mp.mpf(10) ** -16),
    "OptimalRdpEps": (mp.mpf(10) ** -15, mp.mpf(10) ** -16),
    "OptimalRdpDelta": (mp.mpf(10) ** -15, mp.mpf(10) ** -300),
}


def accuracy_of(expr):
    """(rel, abs) error budget of a truth expression: the loosest of the quantities it uses, times 10
    for the arithmetic around them; (1e-25, 1e-40) for an expression without named quantities."""
    from sympy.core.function import AppliedUndef
    names = {type(f).__name__ for f in expr.atoms(AppliedUndef)} & set(QUANTITIES)
    if not names:
        return mp.mpf(10) ** -25, mp.mpf(10) ** -40
    rel = max(ACCURACY.get(n, (mp.mpf(10) ** -15, mp.mpf(10) ** -15))[0] for n in names)
    ab = max(ACCURACY.get(n, (mp.mpf(10) ** -15, mp.mpf(10) ** -15))[1] for n in names)
    return 10 * rel, 10 * ab


def convention_of(expr):
    """(lo, hi, text) when the truth expression is one named quantity with a convention, else None."""
    from sympy.core.function import AppliedUndef
    if isinstance(expr, AppliedUndef) and type(expr).__name__ in CONVENTIONS:
        return CONVENTIONS[type(expr).__name__]
    return None


def _gauss_mu(pr):
    """mu = |shift| / sigma of a Gaussian shift pair (either order), else None."""
    if isinstance(pr, CPair) and pr.label.startswith("Gaussian") and "mu" in pr.params:
        return abs(pr.params["mu"])
    return None


def _renyi_checked(pr, a):
    """D_alpha(P||Q): exact sums for finite pairs and Laplace shifts; alpha mu^2 / 2 for a Gaussian shift
    (Gil, Alajaji and Linder 2013; Mironov 2017, Prop. 7: tied to the quadrature of the definition by
    tests/test_truths.py); else a checked quadrature of the definition."""
    a = mp.mpf(a)
    if isinstance(pr, DPair):
        return pr.renyi(a)
    mu = _gauss_mu(pr)
    if mu is not None:
        return a * mu ** 2 / 2
    if pr.loglinear and pr.lp is not None and pr.lq is not None:
        return mp.log(pr.tilted_integral(a)) / (a - 1)
    v = pr.quad_checked(pr.tilted(a), pr._tilted_breaks(a))
    return mp.log(v) / (a - 1)


def _kl_checked(pr):
    """KL(P||Q): mu^2 / 2 for a Gaussian shift (the limit alpha -> 1 of alpha mu^2 / 2), else the
    sum or a checked quadrature of the definition."""
    if isinstance(pr, DPair):
        return pr.kl()
    mu = _gauss_mu(pr)
    if mu is not None:
        return mu ** 2 / 2
    return pr.quad_checked(lambda x: pr.p(x) * pr.log_ratio(x) if pr.p(x) > 0 else mp.mpf(0))


#: relative accuracy the checkers allow a truth (quadrature and bisection at 30+ digits)
TRUTH_RTOL = mp.mpf(10) ** -18


def namespace() -> dict:
    """name -> callable, for evaluating truth expressions (mpmath arguments)."""
    ns = {k: v[0] for k, v in PAIRS.items()}
    ns.update({k: v[0] for k, v in QUANTITIES.items()})
    return ns


def describe() -> str:
    lines = ["Distribution pairs:"] + [f"  {d}" for _, d in PAIRS.values()]
    lines += ["Quantities:"] + [f"  {d}" for _, d in QUANTITIES.values()]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- trade-off functions (Zheng et al. Sec. 2)
def tradeoff_over_tests(pr, tau):
    """T(P, Q)(tau) as the definition reads it: the least type II error over every randomised test
    with type I error <= tau, by brute force over all pairs of the 2^k deterministic tests of a pmf
    pair (no Neyman-Pearson ordering is used)."""
    if not isinstance(pr, DPair):
        raise ValueError(f"pair={pr.label!r}: TradeoffOverTests needs a pmf pair (brute force over tests)")
    return pr.tradeoff_bruteforce(tau)


def tradeoff_inverse(pr, a):
    """The generalised inverse f^{-1}(a) = inf{0 <= t <= 1 : f(t) <= a} of f = T(P, Q), by bisection
    on the non-increasing f to the working precision (Zheng et al. 2020, Sec. 2)."""
    a = mp.mpf(a)
    lo, hi = mp.mpf(0), mp.mpf(1)
    if pr.tradeoff(lo) <= a:
        return lo
    for _ in range(mp.mp.prec + 10):
        mid = (lo + hi) / 2
        if pr.tradeoff(mid) <= a:
            hi = mid
        else:
            lo = mid
    return hi


def tradeoff_conjugate(pr, y):
    """The convex conjugate f^*(y) = sup_{0 <= x <= 1} (y x - f(x)) of f = T(P, Q): exactly, over the
    vertices of the piecewise-linear curve of a pmf pair, else by a bracketed maximisation over x."""
    y = mp.mpf(y)
    return sup_over_curve(pr, lambda t, b: y * t - b)


QUANTITIES.update({
    "TradeoffOverTests": (tradeoff_over_tests, "TradeoffOverTests(pmf pair, a): inf{1 - E_Q(phi) : E_P(phi) <= a} "
                          "by brute force over all randomised tests (mixtures of the 2^k deterministic ones)"),
    "TradeoffInverse": (tradeoff_inverse, "TradeoffInverse(pair, a): inf{0 <= t <= 1 : T(P, Q)(t) <= a}, "
                        "the generalised inverse of the trade-off function (bisection)"),
    "TradeoffConjugate": (tradeoff_conjugate, "TradeoffConjugate(pair, y): sup_{0 <= x <= 1} y x - T(P, Q)(x), "
                          "the convex conjugate of the trade-off function"),
})
# ----------------------------------------------------------------------------- likelihood-ratio CDFs (appended)
def _likelihood_ratio_mass(pair, lam, under: str, upper: bool):
    """P or Q (``under``) of {dP/dQ <= lam} (``upper`` False) or {dP/dQ >= lam} (True), the atom at
    lam included.  On pmfs an exact sum (atoms where q = 0 have ratio +inf); on a continuous pair
    with a monotone ratio the mass of the half-line on the right side of the crossing p/q = lam,
    read off the CDFs.  Where the ratio of a continuous pair never equals lam (flat tails,
    disjoint supports) the event may hold an atom of the ratio, and a ValueError is raised rather
    than a guess."""
    lam = mp.mpf(lam)
    if under not in ("P", "Q"):
        raise ValueError(f"under={under!r} is not one of P, Q")
    if isinstance(pair, DPair):
        return (pair.P_of if under == "P" else pair.Q_of)(
            (lambda r: r >= lam) if upper else (lambda r: r <= lam))
    c = pair.crossing(lam)
    if c is None:
        raise ValueError(f"lam={mp.nstr(lam, 8)} is outside the allowed range for {pair.label}: "
                         "values the likelihood ratio crosses")
    right = pair.decreasing != upper        # the event is the half-line x >= c
    if right:
        return pair.sp_(c) if under == "P" else pair.sq_(c)
    return pair.Fp(c) if under == "P" else pair.Fq(c)


def likelihood_ratio_cdf(pair, lam, under: str = "P"):
    """P(dP/dQ <= lam) (``under="P"``) or Q(dP/dQ <= lam): the CDF of the privacy loss
    log(dP/dQ) at log(lam), under P or Q (see ``_likelihood_ratio_mass``)."""
    return _likelihood_ratio_mass(pair, lam, under, upper=False)


def likelihood_ratio_tail(pair, lam, under: str = "P"):
    """P(dP/dQ >= lam) (``under="P"``) or Q(dP/dQ >= lam): the upper tail of the likelihood ratio,
    an atom at lam included (see ``_likelihood_ratio_mass``)."""
    return _likelihood_ratio_mass(pair, lam, under, upper=True)


for _name, _fn, _side, _what in (("LikelihoodRatioCdf", likelihood_ratio_cdf, "P", "P(dP/dQ <= lam), the CDF of the privacy loss under P at log(lam)"),
                                 ("LikelihoodRatioCdfQ", likelihood_ratio_cdf, "Q", "Q(dP/dQ <= lam), the CDF of the privacy loss under Q at log(lam)"),
                                 ("LikelihoodRatioTail", likelihood_ratio_tail, "P", "P(dP/dQ >= lam), the upper tail of the likelihood ratio under P"),
                                 ("LikelihoodRatioTailQ", likelihood_ratio_tail, "Q", "Q(dP/dQ >= lam), the upper tail of the likelihood ratio under Q")):
    QUANTITIES[_name] = ((lambda fn, side: (lambda pr, lam: fn(pr, lam, side)))(_fn, _side),
                         f"{_name}(pair, lam): {_what}")


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


PAIRS["Discrete"] = (discrete_pair, "Discrete(p1..pk, q1..qk): P = (p_i), Q = (q_i) given by their "
                                    "probabilities (a printed mechanism's table; zeros allowed)")


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


PAIRS["Staircase"] = (staircase_pair, "Staircase(eps, gamma, D=1): P = the staircase density of Geng et al., "
                                      "Q = P shifted by D (0 <= gamma <= 1), reduced exactly to its "
                                      "likelihood-ratio classes")


# ----------------------------------------------------------------------------- area under a trade-off curve
def tradeoff_area(pair):
    """gamma = int_0^1 T(P, Q)(tau) dtau, the area under the trade-off curve (Zheng et al. 2020,
    Sec. 4; 1/2 for Id, the curve of P = Q).  A pmf pair's curve is piecewise linear: the trapezoids
    over its vertices, exactly.  A continuous pair's curve is read through the threshold tests
    (tau = P(reject), beta = Q(accept) at the threshold x): the substitution tau -> x turns the area
    into int beta(x) p(x) dx (beta = F_Q for a decreasing ratio p/q, 1 - F_Q otherwise), integrated by
    mpmath's tanh-sinh quadrature between the pair's break points after scaling by the integrand's
    largest value at them (mpmath's error test is absolute: an area of 1e-100 would be returned to
    a few digits).  Raises ValueError when the quadrature's error estimate is not small."""
    if isinstance(pair, DPair):
        vs = pair.vertices()
        return mp.fsum((t2 - t1) * (b1 + b2) / 2 for (t1, b1), (t2, b2) in zip(vs[:-1], vs[1:]))
    beta = pair.Fq if pair.decreasing else pair.sq_

    def g(x):
        px = pair.p(x)
        return px * beta(x) if px != 0 else mp.mpf(0)
    edges = pair._edges(pair.kinks)
    finite = [x for x in edges if mp.isfinite(x)] or [mp.mpf(0)]
    probes = finite + [(a + b) / 2 for a, b in zip(finite, finite[1:])]
    scale = max((abs(g(x)) for x in probes), default=mp.mpf(0))
    if not scale > 0:
        scale = mp.mpf(1)
    return scale * pair.quad_checked(lambda x: g(x) / scale, pair.kinks)


QUANTITIES["TradeoffArea"] = (tradeoff_area, "TradeoffArea(pair): int_0^1 T(P, Q)(tau) dtau, the area under the "
                                             "trade-off curve (trapezoids over a pmf pair's vertices; quadrature "
                                             "over the threshold x for a continuous pair)")
