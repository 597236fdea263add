"""Independent truths for Zheng, Dong, Long, Su (2020), computed from definitions in mpmath.
The generic ones live in the shared library ``derive.truths`` (the normal quantile ``nquantile``,
hockey-stick sums, products of pmfs, random pmfs, trade-off conjugates, and the quadratures of
privacy-loss cumulants of the Laplace and App. C Gaussian-mixture pairs); here only:

* an exactly solvable asymmetric pair, P = Exp(1) vs Q = Exp(rate lam): the
  privacy loss is L = log lam - (lam - 1) x, so T_n is affine in S ~ Gamma(n, 1)
  under P (lam S ~ Gamma(n, 1) under Q); F_n, F~_n, their quantiles and the
  trade-off function are regularized incomplete gamma functions, and L's
  cumulants are those of a scaled exponential variable.
"""
from __future__ import annotations

import mpmath as mp

WORK_DPS = 30


# ----------------------------------------------------------------------------- normal
from ...truths import nquantile  # noqa: E402,F401  (the one mpmath Phi^{-1}; the CDF is mpmath.ncdf)


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


# ----------------------------------------------------------------------------- exact symmetric pair
class SymExpPair:
    """A symmetric trade-off (Sec. 3.2's assumption) with a skewed privacy loss: each step is
    P = Exp(1) x Exp(rate lam) vs Q = Exp(rate lam) x Exp(1) (swapping the coordinates maps P to Q,
    so T(P, Q) = T(Q, P)).  log dQ/dP = (lam - 1)(x_2 - x_1), so after n steps
    T_n = (lam - 1) D, D = S_2 - S_1, with S_1 ~ Gamma(n, 1), S_2 ~ Gamma(n, rate lam) under P, and
    T_n under Q distributed as -T_n under P.

    E_P T_n = -n (lam - 1)^2/lam = -E_Q T_n; Var_P = Var_Q = n (lam - 1)^2 (1 + lam^-2);
    cumulants of the per-step loss under P: (lam - 1)^r (r-1)! (lam^-r + (-1)^r), under Q the same
    times (-1)^r.  F_n(h) = P_P(D <= d) by one quadrature over S_1 of an incomplete gamma function;
    F~_n(h) = 1 - F_n(-h)."""

    def __init__(self, n, lam=2):
        self.n, self.lam = mp.mpf(n), mp.mpf(lam)

    @classmethod
    def with_mu(cls, n, mu=1):
        """The pair whose mu_n = (E_Q - E_P)/sd equals mu exactly (lam solves
        2 sqrt(n)(lam - 1)/sqrt(lam^2 + 1) = mu)."""
        k2 = (mp.mpf(mu) / (2 * mp.sqrt(n))) ** 2
        lam = (1 + mp.sqrt(1 - (1 - k2) ** 2)) / (1 - k2)
        return cls(n, lam)

    def moments(self):
        n, l = self.n, self.lam
        v = n * (l - 1) ** 2 * (1 + l ** -2)
        return {"E_P": -n * (l - 1) ** 2 / l, "E_Q": n * (l - 1) ** 2 / l, "V_P": v, "V_Q": v}

    def mu_n(self):
        m = self.moments()
        return (m["E_Q"] - m["E_P"]) / mp.sqrt(m["V_P"])

    def cumulant_sums(self, under):
        """{r: sum_i kappa_r(log dQ_i/dP_i)} under P or Q, r = 2, 3, 4."""
        l, sgn = self.lam, (1 if under == "P" else -1)
        return {r: self.n * (l - 1) ** r * mp.factorial(r - 1) * (l ** -r + (-1) ** r) * sgn ** r
                for r in (2, 3, 4)}

    def _G(self, d):
        """P_P(S_2 - S_1 <= d)."""
        n, l = self.n, self.lam
        lo = max(mp.mpf(0), -d)
        dens = lambda s: mp.exp((n - 1) * mp.log(s) - s - mp.loggamma(n)) if s > 0 else mp.mpf(0)
        cdf2 = lambda x: mp.gammainc(n, 0, l * x, regularized=True) if x > 0 else mp.mpf(0)
        sd = mp.sqrt(n)
        pts = sorted({lo} | {x for x in (n - 8 * sd, n - 3 * sd, n, n + 3 * sd, n + 8 * sd, n + 40 * sd + 40)
                             if x > lo})
        return mp.quad(lambda s: cdf2(s + d) * dens(s), pts)

    def F(self, h):
        """F_n(h) = P_P((T_n - E_P T_n)/sd <= h); each value is computed once per working precision
        (``Ft(h)`` is ``1 - F(-h)``: a check reading both at +-h does one quadrature per point)."""
        h = mp.mpf(h)
        memo = self.__dict__.setdefault("_F_memo", {})
        key = (h, mp.mp.prec)
        if key not in memo:
            m = self.moments()
            memo[key] = self._G((m["E_P"] + h * mp.sqrt(m["V_P"])) / (self.lam - 1))
        return memo[key]

    def Ft(self, h):
        """F~_n(h) = P_Q((T_n - E_Q T_n)/sd <= h) = 1 - F_n(-h)."""
        return 1 - self.F(-mp.mpf(h))
