"""Pairs of densities on the line whose likelihood ratio p/q is monotone (``CPair``): Gaussian,
Laplace, exponential, uniform and the Poisson-subsampled Gaussian.  Hockey-stick divergences are
read off the CDFs at the likelihood-ratio crossing; everything else is a checked quadrature of
its definition."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import mpmath as mp

from ..verify import mp_sup
from .pmf import DPair


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

    def hockey(self, lam):
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

def gaussian_mechanism(mu, sigma=1):
    """The Gaussian mechanism with sensitivity mu*sigma and noise sigma: P = N(0, s^2), Q = N(mu s, s^2)
    (the pair depends on mu only; ``sigma`` is kept for the record)."""
    mu, sigma = mp.mpf(mu), mp.mpf(sigma)
    pr = gaussian_pair(mu * sigma, sigma)
    pr.params.update({"sigma": sigma, "mu": mu})
    return pr

def gauss_renyi_closed(mu, a):
    """D_alpha(N(mu, 1) || N(0, 1)) = alpha mu^2/2 (KL at alpha = 1), the truths' shortcut for a Gaussian
    shift.  HAND (tests/test_writings.py): the closed form at any mpmath precision; the truth it shortcuts
    is the quadrature of the definition (CPair.quad_checked), tied to the library's gaussian_rdp."""
    return a * mu ** 2 / 2


def _gauss_mu(pr):
    """mu = |shift| / sigma of a Gaussian shift pair (either order), else None."""
    if isinstance(pr, CPair) and pr.label.startswith("Gaussian") and "mu" in pr.params:
        return abs(pr.params["mu"])
    return None
