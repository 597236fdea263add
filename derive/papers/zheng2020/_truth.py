"""Independent truths for Zheng, Dong, Long, Su (2020), computed from definitions in mpmath.

* quadrature of privacy-loss cumulants (Laplace pair, Gaussian-mixture pair), in
  log space (L = log(1 - p + p e^{mu x - mu^2/2}) through a log-sum-exp), using
  the textbook central-moment formulas kappa_2 = m_2, kappa_3 = m_3,
  kappa_4 = m_4 - 3 m_2^2 (not the Bell-polynomial conversion under test);
* an exactly solvable asymmetric pair, P = Exp(1) vs Q = Exp(rate lam): the
  privacy loss is L = log lam - (lam - 1) x, so T_n is affine in S ~ Gamma(n, 1)
  under P (lam S ~ Gamma(n, 1) under Q); F_n, F~_n, their quantiles and the
  trade-off function are regularized incomplete gamma functions, and L's
  cumulants are those of a scaled exponential variable;
* the threshold test of N(0,1) vs N(mu,1) (type I/II errors by quadrature);
* Neyman-Pearson on finite distributions, both by sorting likelihood ratios and
  by brute force over all events (lower convex hull);
* hockey-stick divergences on finite spaces, by brute force over events and as
  sums of positive parts.
"""
from __future__ import annotations

import itertools
import random

import mpmath as mp

WORK_DPS = 30


# ----------------------------------------------------------------------------- normal
def ncdf(x):
    return mp.ncdf(x)


def nquantile(y):
    return mp.sqrt(2) * mp.erfinv(2 * mp.mpf(y) - 1)


def threshold_test(mu, c):
    """(alpha, beta) of the Neyman-Pearson test 'reject when x > c' of N(0,1) vs N(mu,1), by
    quadrature of the two densities (the likelihood ratio e^{mu x - mu^2/2} increases in x)."""
    mu, c = mp.mpf(mu), mp.mpf(c)
    dens = lambda x, m: mp.exp(-(x - m) ** 2 / 2) / mp.sqrt(2 * mp.pi)
    return (mp.quad(lambda x: dens(x, 0), [c, c + 6, mp.inf]),
            mp.quad(lambda x: dens(x, mu), [-mp.inf, c - 6, c]))


# ----------------------------------------------------------------------------- cumulant quadrature
def _central_to_cumulants(mean, m2, m3, m4):
    return [mean, m2, m3, m4 - 3 * m2 ** 2]


def _cumulants_by_quad(L, dens, points):
    mean = mp.quad(lambda x: L(x) * dens(x), points)
    ms = [mp.quad(lambda x, k=k: (L(x) - mean) ** k * dens(x), points) for k in (2, 3, 4)]
    return _central_to_cumulants(mean, *ms)


def laplace_cumulants_quad(theta, under="P"):
    """[kappa_1..kappa_4] of L = |x| - |x - theta| under Lap(0,1) ("P") or Lap(theta,1) ("Q")."""
    th = mp.mpf(theta)
    loc = 0 if under == "P" else th
    L = lambda x: abs(x) - abs(x - th)
    dens = lambda x: mp.exp(-abs(x - loc)) / 2
    return _cumulants_by_quad(L, dens, [-mp.inf, 0, th, mp.inf])


def mixture_llr(x, p, mu):
    """log(1 - p + p e^{mu x - mu^2/2}) via log-sum-exp."""
    a = mp.log1p(-p) if p < 1 else -mp.inf
    b = mp.log(p) + mu * x - mu ** 2 / 2
    m = max(a, b)
    return m + mp.log(mp.e ** (a - m) + mp.e ** (b - m))


def mixture_cumulants_quad(p, mu, under="P"):
    """[kappa_1..kappa_4] of the privacy loss of N(0,1) vs p N(mu,1) + (1-p) N(0,1)."""
    p, mu = mp.mpf(p), mp.mpf(mu)
    L = lambda x: mixture_llr(x, p, mu)
    n0 = lambda x: mp.exp(-x ** 2 / 2) / mp.sqrt(2 * mp.pi)
    if under == "P":
        dens = n0
    else:
        dens = lambda x: p * n0(x - mu) + (1 - p) * n0(x)
    return _cumulants_by_quad(L, dens, [-mp.inf, -8, 0, mu, mu + 8, mp.inf])


# ----------------------------------------------------------------------------- exact asymmetric pair
class ExpPair:
    """P = Exp(1)^n vs Q = Exp(rate lam)^n, lam > 1; L = log lam - (lam - 1) x,
    T_n = n log lam - (lam - 1) S with S ~ Gamma(n, 1) under P and lam S ~ Gamma(n, 1) under Q.

    E_P T_n = n (log lam - (lam - 1)), Var_P = n (lam - 1)^2; E_Q T_n = n (log lam - (lam - 1)/lam),
    Var_Q = n (lam - 1)^2 / lam^2.  Cumulants of L for r >= 2: (1 - lam)^r (r-1)! under P and
    (1 - lam)^r (r-1)!/lam^r under Q (those of a scaled exponential variable).  Both standardised
    statistics are distributed as -(G - n)/sqrt(n), G ~ Gamma(n, 1)."""

    def __init__(self, n, lam=2):
        self.n, self.lam = mp.mpf(n), mp.mpf(lam)

    def _sf_gamma(self, s):            # P(G >= s), G ~ Gamma(n, 1)
        return mp.mpf(1) if s <= 0 else mp.gammainc(self.n, s, mp.inf, regularized=True)

    def F(self, h):
        """F_n(h) = P_P((T_n - E_P T_n)/sqrt(Var_P) <= h) = P(S >= n - h sqrt n)."""
        return self._sf_gamma(self.n - mp.mpf(h) * mp.sqrt(self.n))

    def Ft(self, h):
        """F~_n(h) = P_Q((T_n - E_Q T_n)/sqrt(Var_Q) <= h) = P(lam S >= n - h sqrt n)."""
        return self._sf_gamma(self.n - mp.mpf(h) * mp.sqrt(self.n))

    def F_inv(self, y):
        return _invert(self.F, y)

    def moments(self):
        n, l = self.n, self.lam
        return {"E_P": n * (mp.log(l) - (l - 1)), "E_Q": n * (mp.log(l) - (l - 1) / l),
                "V_P": n * (l - 1) ** 2, "V_Q": n * (l - 1) ** 2 / l ** 2}

    def cumulant_sums(self, under):
        """{r: sum_i kappa_r(L_i)} under P or Q, r = 2, 3, 4."""
        scale = 1 if under == "P" else 1 / self.lam
        return {r: self.n * ((1 - self.lam) * scale) ** r * mp.factorial(r - 1) for r in (2, 3, 4)}

    def f(self, a):
        """Exact T(P^n, Q^n)(alpha): reject when S < s0 with P_P(S < s0) = alpha."""
        s0 = _invert(lambda s: mp.gammainc(self.n, 0, s, regularized=True), a, lo=0,
                     hi=self.n * 10 + 50)
        return mp.gammainc(self.n, self.lam * s0, mp.inf, regularized=True)


def _invert(F, y, lo=-60, hi=60, iters=200):
    """x with F(x) = y for a non-decreasing F, by bisection (never returns a non-converged iterate)."""
    lo, hi, y = mp.mpf(lo), mp.mpf(hi), mp.mpf(y)
    if not (F(lo) <= y <= F(hi)):
        raise ValueError(f"{y} outside [F(lo), F(hi)] = [{F(lo)}, {F(hi)}]")
    for _ in range(iters):
        mid = (lo + hi) / 2
        if F(mid) < y:
            lo = mid
        else:
            hi = mid
        if hi - lo < mp.mpf(10) ** (-mp.mp.dps + 3) * max(1, abs(hi)):
            return (lo + hi) / 2
    raise ArithmeticError("bisection did not converge")


# ----------------------------------------------------------------------------- finite distributions
def random_pmf(rng: random.Random, k: int):
    w = [mp.mpf(rng.random()) ** 2 + mp.mpf(10) ** -4 for _ in range(k)]
    s = mp.fsum(w)
    return [v / s for v in w]


def np_vertices(P, Q):
    """Vertices (alpha, beta) of T(P,Q) by Neyman-Pearson: reject outcomes in decreasing q/p."""
    order = sorted(range(len(P)), key=lambda i: -(Q[i] / P[i]))
    a, b = mp.mpf(0), mp.mpf(1)
    pts = [(a, b)]
    for i in order:
        a, b = a + P[i], b - Q[i]
        pts.append((a, b))
    return pts


def eval_pl(pts, a):
    """Evaluate the piecewise-linear curve through sorted vertices at alpha."""
    a = mp.mpf(a)
    for (a0, b0), (a1, b1) in zip(pts, pts[1:]):
        if a0 <= a <= a1:
            return b0 if a1 == a0 else b0 + (b1 - b0) * (a - a0) / (a1 - a0)
    return pts[-1][1]


def tradeoff_np(P, Q, a):
    return eval_pl(np_vertices(P, Q), a)


def tradeoff_bruteforce(P, Q, a):
    """inf over randomized tests of the type II error at level alpha: the lower convex hull of
    the (P(E), 1 - Q(E)) points of all 2^k deterministic tests, at alpha (LP in 1-D)."""
    k = len(P)
    pts = []
    for r in range(k + 1):
        for E in itertools.combinations(range(k), r):
            pts.append((mp.fsum(P[i] for i in E), 1 - mp.fsum(Q[i] for i in E)))
    a = mp.mpf(a)
    best = mp.inf
    for (a0, b0) in pts:                 # mixtures of two tests reach every hull point
        for (a1, b1) in pts:
            if a0 <= a <= a1:
                v = b0 if a1 == a0 else b0 + (b1 - b0) * (a - a0) / (a1 - a0)
                best = min(best, v)
    return best


def hockey(P, Q, eps):
    """sum (q - e^eps p)_+ (Lemma 5.1's right-hand side on a finite space)."""
    return mp.fsum(max(q - mp.e ** eps * p, 0) for p, q in zip(P, Q))


def hockey_events(P, Q, eps):
    """max over events E of Q(E) - e^eps P(E), by brute force."""
    k = len(P)
    best = mp.mpf(0)
    for r in range(k + 1):
        for E in itertools.combinations(range(k), r):
            best = max(best, mp.fsum(Q[i] - mp.e ** eps * P[i] for i in E))
    return best


def conjugate_delta(pts, eps):
    """1 + f*(-e^eps) = sup_alpha 1 - f(alpha) - e^eps alpha for a piecewise-linear f
    (the sup of a concave piecewise-linear function is at a vertex)."""
    return max(1 - b - mp.e ** eps * a for a, b in pts)


def product(P1, P2):
    return [x * y for x in P1 for y in P2]
