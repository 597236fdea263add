"""Cumulants of the privacy loss (log-likelihood ratio) L = log(q/p), numerically.

The Edgeworth approximation of Zheng, Dong, Long, Su 2020 (Sec. 3.1,
eqs. (3.7)-(3.9)) needs the cumulants kappa_r(L) under P and kappa~_r(L) under Q
of one step; this module computes them for the paper's two examples.

* **Laplace** (Sec. 5.2): P = Lap(0, b), Q = Lap(theta, b).  With t = theta/b,
  L = |x| - |x - theta| (in units of b) is -t w.p. 1/2, +t w.p. e^{-t}/2 and
  2x - t on (0, t) (x ~ P).  The moments of L/t are closed form,
      E_P[(L/t)^k] = (-1)^k/2 + e^{-t}/2 + (t e^{-t/2}/4) J_k(t/2),
      J_k(a) = int_{-1}^{1} v^k e^{-a v} dv = sum_{m: k+m even} (-a)^m/m! * 2/(k+m+1),
  a series whose terms all have one sign (no cancellation), summed to machine
  precision; cumulants follow from the moment-cumulant recursion and scale as
  t^r.  Under Q, L has the law of -L under P, so kappa~_r = (-1)^r kappa_r.
* **Mixture** (Sec. 5.3, App. C): P = N(0,1), Q = p N(mu,1) + (1-p) N(0,1),
  L(x) = log(1 - p + p e^{mu x - mu^2/2}) = log1p(p Y), Y = expm1(mu x - mu^2/2).
  Central moments are computed by composite Gauss-Legendre quadrature against
  the normal density (weights carried in log space), vectorised over a batch of
  (p, mu) pairs (e.g. one per number of steps).  The mean, which is O(p^2) while L
  is O(p), is computed without cancellation from E_P[Y] = 0 and
  E_{N(mu,1)}[Y_mu] = e^{mu^2} - 1 exactly: E[L] = E[log1pmx(pY)] + p E[Y].
  This stays accurate for tiny p (1e-12) and orders up to ~12.
* ``mixture_cumulant_series``: the expansion of the same cumulants in powers of p
  with closed-form coefficients, from E_{N(0,1)}[e^{j mu x - j mu^2/2}] = e^{j(j-1)mu^2/2}
  (issue 4, item 2): asymptotic, not convergent; its leading terms are the CLT
  constants (kappa_2 ~ p^2 (e^{mu^2} - 1)).

All functions return arrays whose last axis is the order r = 1..orders.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np

from . import kernels as K
from derive.errors import DomainError

__all__ = ["cumulants_from_moments", "cumulants_from_central", "log1pmx",
           "laplace_cumulants", "mixture_loss", "mixture_cumulants",
           "mixture_cumulant_series", "gaussian_cumulants"]


# ----------------------------------------------------------------------------- generic helpers
def cumulants_from_moments(m) -> np.ndarray:
    """Cumulants kappa_1..kappa_R from raw moments m_1..m_R (last axis), by the
    recursion kappa_n = m_n - sum_{k=1}^{n-1} C(n-1, k-1) kappa_k m_{n-k}
    (equivalent to Appendix B's Bell-polynomial formula).
    HAND (tests/test_kernel_ties.py): recursion (moments to cumulants by the Bell recursion)."""
    m = np.asarray(m, dtype=float)
    R = m.shape[-1]
    kap = np.zeros_like(m)
    for n in range(1, R + 1):
        acc = m[..., n - 1].copy()
        for k in range(1, n):
            acc = acc - comb(n - 1, k - 1) * kap[..., k - 1] * m[..., n - k - 1]
        kap[..., n - 1] = acc
    return kap


def cumulants_from_central(mean, c) -> np.ndarray:
    """Cumulants from the mean and central moments c_1..c_R (c_1 = 0): the
    recursion applied to central moments, with kappa_1 replaced by the mean.
    HAND (tests/test_kernel_ties.py): recursion (central moments to cumulants)."""
    c = np.array(c, dtype=float, copy=True)
    c[..., 0] = 0.0
    kap = cumulants_from_moments(c)
    kap[..., 0] = mean
    return kap


def _check_orders(orders) -> int:
    if not (isinstance(orders, (int, np.integer)) and 1 <= orders <= 40):
        raise DomainError("orders", orders, "integers in [1, 40]")
    return int(orders)


def _check_under(under: str) -> str:
    if under not in ("P", "Q"):
        raise DomainError("under", under, "'P' or 'Q'")
    return under


def log1pmx(u):
    """log(1 + u) - u for u > -1, without cancellation near 0 (series for |u| < 0.1)."""
    u = np.asarray(u, dtype=float)
    small = np.abs(u) < 0.1
    us = np.where(small, u, 0.0)
    ser = np.zeros_like(us)
    for k in range(18, 1, -1):              # -u^2/2 + u^3/3 - ... (Horner)
        ser = us * (ser + (-1.0) ** (k + 1) / k)
    ser = us * ser
    with np.errstate(invalid="ignore", divide="ignore"):
        big = np.log1p(np.where(small, 0.0, u)) - np.where(small, 0.0, u)
    return np.where(small, ser, big)


# ----------------------------------------------------------------------------- Gaussian
def gaussian_cumulants(mu, orders: int = 4, under: str = "P") -> np.ndarray:
    """N(0,1) vs N(mu,1): L = mu x - mu^2/2 is N(-+mu^2/2, mu^2) under P/Q.
    HAND (tests/test_kernel_ties.py): array assembly of the cumulant vector by order and side."""
    orders, under = _check_orders(orders), _check_under(under)
    m = K.check_nonneg(mu, "mu")
    out = np.zeros(m.shape + (orders,))
    out[..., 0] = (m * m / 2) * (1 if under == "Q" else -1)
    if orders > 1:
        out[..., 1] = m * m
    return out


# ----------------------------------------------------------------------------- Laplace
def _laplace_J(k: int, a: np.ndarray, terms: int) -> np.ndarray:
    """J_k(a) = int_{-1}^1 v^k e^{-a v} dv as the same-sign series sum over m."""
    m = np.arange(terms)
    keep = (k + m) % 2 == 0
    m = m[keep]
    with np.errstate(divide="ignore", invalid="ignore"):      # a = 0: 0 * log 0 is masked below
        la = np.log(a)[..., None]
        logt = np.where(m == 0, 0.0, m * la) - K._log_factorial_table(terms)[m]
    sign = (-1.0) ** m
    return np.sum(sign * np.exp(logt) * 2.0 / (k + m + 1.0), axis=-1)


def laplace_cumulants(theta, orders: int = 4, under: str = "P", scale: float = 1.0) -> np.ndarray:
    """Cumulants kappa_1..kappa_orders of L = log(q/p) for P = Lap(0, b), Q = Lap(theta, b)
    (b = ``scale``), under P (``under="P"``) or Q; closed form (module docstring).
    HAND (tests/test_kernel_ties.py): series summation in log space (chunked/windowed log-sum-exp of many terms)."""
    orders, under = _check_orders(orders), _check_under(under)
    th = K.check_nonneg(theta, "theta")
    b = float(K.check_positive(scale, "scale"))
    t = np.atleast_1d(th / b).astype(float)
    a = t / 2
    terms = int(60 + 4 * np.max(a, initial=0.0))
    mom = np.empty(t.shape + (orders,))
    for k in range(1, orders + 1):
        J = _laplace_J(k, a, terms)
        mom[..., k - 1] = 0.5 * (-1.0) ** k + 0.5 * np.exp(-t) + t * np.exp(-a) / 4 * J
    kap = cumulants_from_moments(mom) * t[..., None] ** np.arange(1, orders + 1)
    if under == "Q":
        kap = kap * (-1.0) ** np.arange(1, orders + 1)
    return kap.reshape(np.shape(th) + (orders,))


# ----------------------------------------------------------------------------- Gaussian mixture
def mixture_loss(x, p, mu):
    """L(x) = log(1 - p + p e^{mu x - mu^2/2}) (App. C), stable for tiny p and large x.
    HAND (tests/test_kernel_ties.py): log-domain trick: log1p or logaddexp chosen where 1 + u cancels, the other branch evaluated only where used (it overflows elsewhere)."""
    x, p, mu = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x, p, mu)))
    z = mu * x - mu * mu / 2
    zc = np.minimum(z, 30.0)
    u = p * np.expm1(zc)
    # log1p(u) is exact to a few ulp unless 1 + u is small (p near 1, z very negative), where 1 + u
    # cancels: there the log-sum-exp form is the accurate one (evaluated only where it is used)
    use_small = (z < 30.0) & (u > -0.5)
    with np.errstate(divide="ignore"):
        out = np.asarray(np.log1p(np.where(use_small, u, 0.0)))
    if not use_small.all():
        bad = ~use_small
        with np.errstate(divide="ignore"):
            out[bad] = np.logaddexp(np.log1p(-p[bad]), np.log(p[bad]) + z[bad])
    return out


def _gl_panels(lo: float, hi: float, panels: int, nodes: int):
    """Composite Gauss-Legendre nodes/weights on [lo, hi]."""
    g, w = np.polynomial.legendre.leggauss(nodes)
    edges = np.linspace(lo, hi, panels + 1)
    half = np.diff(edges)[:, None] / 2
    mid = (edges[:-1] + edges[1:])[:, None] / 2
    return (mid + half * g).ravel(), (half * w).ravel()


_XN, _XW = _gl_panels(-38.5, 38.5, 154, 12)       # |x| > 38.5 carries < 1e-320 of N(0,1)
_LOGW = np.log(_XW) - _XN ** 2 / 2 - 0.5 * np.log(2 * np.pi)


def _mixture_check(p, mu):
    p = np.asarray(p, dtype=float)
    ok = np.isfinite(p) & (p > 0) & (p <= 1)
    if not ok.all():
        raise DomainError("p", float(p[~ok].flat[0]), "(0, 1]")
    mu = K.check_nonneg(mu, "mu")
    if np.any(mu > 12):
        raise DomainError("mu", float(mu[mu > 12].flat[0]), "[0, 12] (quadrature range)")
    return np.broadcast_arrays(p, mu)


def _component_moments(p, mu, shift: bool):
    """L at the quadrature nodes for x ~ N(shift*mu, 1), and E[L] computed as
    E[log1pmx(pY)] + p E[Y] with E[Y] exact (no O(p) cancellation)."""
    x = _XN + (mu[:, None] if shift else 0.0)
    z = mu[:, None] * x - (mu * mu / 2)[:, None]
    L = mixture_loss(x, p[:, None], mu[:, None])
    EY = np.expm1(mu * mu) if shift else np.zeros_like(mu)        # E[Y] exactly
    u = p[:, None] * np.expm1(np.minimum(z, 700.0))
    r = np.where(z < 30.0, log1pmx(u), L - u)
    w = np.exp(_LOGW)[None, :]
    mean = np.sum(w * r, axis=1) + p * EY
    # where p E[Y] is large (the shifted component at large mu: e^{mu^2}) the split cancels two huge sums
    # (1e11 absolute at p = 0.3, mu = 8); there E[L] is O(mu^2), not O(p^2), and the plain sum is accurate
    return L, np.where(p * EY > 1.0, np.sum(w * L, axis=1), mean)


def mixture_cumulants(p, mu, orders: int = 4, under: str = "P") -> np.ndarray:
    """Cumulants kappa_1..kappa_orders of L = log(q/p) for P = N(0,1) vs
    Q = p N(mu,1) + (1-p) N(0,1), under P or Q, by quadrature (module docstring).
    ``p`` and ``mu`` broadcast; the result has shape broadcast(p, mu).shape + (orders,).
    HAND (tests/test_kernel_ties.py): quadrature (Gauss-Legendre panels)."""
    orders, under = _check_orders(orders), _check_under(under)
    p, mu = _mixture_check(p, mu)
    shape = p.shape
    pf, mf = p.ravel(), mu.ravel()
    w = np.exp(_LOGW)[None, :]
    L0, m0 = _component_moments(pf, mf, False)
    if under == "P":
        comps = [(1.0, L0)]
        mean = m0
    else:
        L1, m1 = _component_moments(pf, mf, True)
        comps = [((1 - pf)[:, None], L0), (pf[:, None], L1)]
        mean = (1 - pf) * m0 + pf * m1
    c = np.zeros((pf.size, orders))
    for wt, L in comps:
        d = L - mean[:, None]
        pw = np.ones_like(d)
        for r in range(1, orders + 1):
            pw = pw * d
            c[:, r - 1] += np.sum(wt * w * pw, axis=1)
    return cumulants_from_central(mean, c).reshape(shape + (orders,))


# ----------------------------------------------------------------------------- series in p
# The coefficients cancel badly in double precision at small mu: E[Y^k] is an alternating sum
# of O(2^k) terms equal to O(mu^{2 ceil(k/2)}), and the moment-cumulant recursion cancels
# O(mu^4) terms down to O(mu^6) (kappa_4's p^4 coefficient).  tests/test_cumulants_tie.py,
# which holds these coefficients equal to derive/cumulants.py, found 1e-8 relative errors at
# mu = 1e-4; the series is therefore summed in mpmath at a precision that absorbs the
# cancellation and is raised until two precisions agree.
def _log1p_power_coeffs(r: int, degree: int) -> list:
    """Exact coefficients a_{r,k}, k = 0..degree, of (log1p(u))^r (Fractions)."""
    base = [Fraction(0)] + [Fraction((-1) ** (k + 1), k) for k in range(1, degree + 1)]
    out = [Fraction(1)] + [Fraction(0)] * degree
    for _ in range(r):
        out = [sum(out[i] * base[k - i] for i in range(k + 1)) for k in range(degree + 1)]
    return out


def _y_moments(mu, kmax: int) -> list:
    """E_{N(0,1)}[Y^k], Y = e^{mu x - mu^2/2} - 1, k = 0..kmax, at the current mpmath precision,
    from E[e^{i mu x - i mu^2/2}] = e^{i(i-1)mu^2/2} (binomial expansion; exact formula)."""
    import mpmath as mp
    m = mp.mpf(mu)
    return [mp.fsum(mp.binomial(k, i) * (-1) ** (k - i) * mp.exp(i * (i - 1) * m * m / 2)
                    for i in range(k + 1)) for k in range(kmax + 1)]


def _series_mp(mu: float, orders: int, degree: int, under: str) -> list:
    """The coefficient table of ``mixture_cumulant_series`` at the current mpmath precision."""
    import mpmath as mp
    ey = _y_moments(mu, degree + 1)
    mom = [[mp.mpf(0)] * (degree + 1) for _ in range(orders)]
    for r in range(1, orders + 1):
        a = [mp.mpf(c.numerator) / c.denominator for c in _log1p_power_coeffs(r, degree)]
        for k in range(degree + 1):
            mom[r - 1][k] += a[k] * ey[k]
            if under == "Q" and k + 1 <= degree:
                mom[r - 1][k + 1] += a[k] * ey[k + 1]
    kap = []
    for n in range(1, orders + 1):
        acc = list(mom[n - 1])
        for k in range(1, n):
            c = comb(n - 1, k - 1)
            x, y = kap[k - 1], mom[n - k - 1]
            for j in range(degree + 1):
                acc[j] -= c * mp.fsum(x[i] * y[j - i] for i in range(j + 1))
        kap.append(acc)
    return kap


def mixture_cumulant_series(mu: float, orders: int = 4, degree: int = 6, under: str = "P") -> np.ndarray:
    """Coefficients c[r-1, k] of the expansion kappa_r = sum_k c[r-1, k] p^k + O(p^{degree+1})
    of the mixture cumulants (App. C pair) in powers of p, shape (orders, degree+1).

    E_P[L^r] = sum_k a_{r,k} p^k E[Y^k]; E_Q[L^r] = E_P[(1 + pY) L^r]; cumulants by the
    moment recursion on truncated power series.  Asymptotic in p, not convergent.  Summed in
    mpmath (see above); every coefficient is correct to double precision.
    HAND (tests/test_kernel_ties.py): series summation (mpmath power series)."""
    import mpmath as mp                  # imported here: the accountant's start-up does not need it
    orders, under = _check_orders(orders), _check_under(under)
    if not (isinstance(degree, (int, np.integer)) and 1 <= degree <= 30):
        raise DomainError("degree", degree, "integers in [1, 30]")
    mu = float(K.check_nonneg(mu, "mu"))
    lost = ((degree + 2) // 2 + 1) * max(0.0, -np.log10(mu * mu)) if mu > 0 else 0.0
    dps, prev = 30 + int(lost) + degree, None
    while True:
        with mp.workdps(dps):
            cur = _series_mp(mu, orders, int(degree), under)
            if prev is not None and all(abs(a - b) <= mp.mpf(10) ** -20 * abs(a)
                                        for ra, rb in zip(cur, prev) for a, b in zip(ra, rb)):
                break
        if dps > 20000:
            raise ArithmeticError(f"mixture_cumulant_series(mu={mu}): no stable value up to {dps} digits")
        prev, dps = cur, dps + 30
    out = np.array([[float(v) for v in row] for row in cur])
    if not np.all(np.isfinite(out)):
        raise DomainError("mu", mu, f"values whose degree-{degree} coefficients fit in double "
                          f"precision (e^(degree (degree+1) mu^2 / 2) < 1e308)")
    return out
