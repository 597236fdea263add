"""CLT and Edgeworth approximations of composed trade-off curves (Zheng et al. 2020,
Zheng, Dong, Long, Su 2020, Secs. 3-4).  **Approximations, not certified
bounds**: every object here says so (``approximation = True``); compare with
``numeric.pld`` for certified answers.

For n independent steps with privacy loss L_i = log(q_i/p_i), cumulants
kappa_r (under P) and kappa~_r (under Q), sums bold-kappa_r = sum_i kappa_r(L_i),
eq. (3.5) reads

    f(alpha) = F~_n((F_n^{-1}(1 - alpha) - mu_n) sqrt(Var_P[T_n] / Var_Q[T_n])),
    mu_n = (E_Q[T_n] - E_P[T_n]) / sqrt(Var_P[T_n])                 (eq. (3.4))

with F_n, F~_n the CDFs of T_n standardised under P and Q.  The degree-2
Edgeworth approximations (eqs. (3.7), (3.8)) are

    F_EW(h) = Phi(h) - [s^-3 k3/6 He_2(h) + s^-4 k4/24 He_3(h) + s^-6 k3^2/72 He_5(h)] phi(h)

with s = sqrt(k2) of the side in question (Q for (3.7); for (3.8) we standardise by
the P-side variance, which is what F_n's definition requires - the paper reuses
the symbol sigma_n there), Hermite polynomials He_k from SymPy's ``hermite_prob``: F_EW, its
density and (3.9) are the generated kernels of the library quantities ``edgeworth_cdf``,
``edgeworth_pdf``, ``cornish_fisher`` (``derive.lib``; not typed by hand).  F_EW^{-1} is computed
numerically (Method (i): the paper prints the equation to solve as
F_EW(h) - 1 - alpha = 0; the quantile needs F_EW(h) = 1 - alpha) or by the
Cornish-Fisher expansion (3.9) (Method (ii)).  F_EW need not be monotone: the
numerical inverse uses its running maximum on a grid, refined by safeguarded
Newton steps (d/dh [He_k phi] = -He_{k+1} phi).

The CLT is the degree-0 case: G_mu with mu = mu_n (for the noisy-SGD example the
paper uses mu = p sqrt(n (e^{1/sigma^2} - 1)), ``clt_sgd``).  Section 4's
two-parameter interpreter: the fixed point alpha* = f(alpha*), mu* =
Phi^{-1}(1 - alpha*) - Phi^{-1}(alpha*), gamma = int_0^1 f.
"""
from __future__ import annotations

import numpy as np

from derive.errors import DomainError

from . import _kernels_generated as G
from . import cumulants as C
from . import fdp
from . import kernels as K
from .kernels import ndtri      # arrays import scipy.special on first use

__all__ = ["EdgeworthCDF", "Edgeworth", "edgeworth", "clt", "clt_sgd", "laplace",
           "subsampled_gaussian", "gaussian", "cornish_fisher", "interpreter", "hermite"]

H_MAX = 12.0                 # quantile grid [-H_MAX, H_MAX] of the numerical inverse
_GRID = np.linspace(-H_MAX, H_MAX, 2401)


def hermite(k: int):
    """He_k as a coefficient vector for ``numpy.polynomial.hermite_e.hermeval``.
    HAND (tests/test_kernel_ties.py): a coefficient vector for numpy's hermeval (data, not a formula evaluation)."""
    c = np.zeros(k + 1)
    c[k] = 1.0
    return c


class EdgeworthCDF:
    """Degree-2 Edgeworth approximation of the CDF of a standardised sum with total
    cumulants k2, k3, k4 (eqs. (3.7)/(3.8)); ``degree=0`` is Phi (the CLT).  GENERATED: the CDF,
    its density and the coefficients are the kernels of the library quantities ``edgeworth_cdf``,
    ``edgeworth_pdf`` (sympy.diff of the CDF) and ``edgeworth_c2/c3/c5``; ``inverse`` is a HAND
    root finder (grid search and Newton steps: not a formula)."""

    def __init__(self, k2: float, k3: float, k4: float, degree: int = 2):
        if not (np.isfinite(k2) and k2 > 0):
            raise DomainError("kappa_2", k2, "(0, oo) (total variance of the privacy loss)")
        if degree not in (0, 2):
            raise DomainError("degree", degree, "0 (CLT) or 2 (Edgeworth)")
        self.k2, self.k3, self.k4, self.degree = float(k2), float(k3), float(k4), degree
        # the cumulants the kernels see: degree 0 drops the corrections (k3 = k4 = 0)
        self._k = (self.k2, self.k3, self.k4) if degree else (self.k2, 0.0, 0.0)
        self.c2 = float(G.edgeworth_c2(self.k2, self._k[1]))    # coefficient of He_2 phi
        self.c3 = float(G.edgeworth_c3(self.k2, self._k[2]))    # of He_3 phi
        self.c5 = float(G.edgeworth_c5(self.k2, self._k[1]))    # of He_5 phi
        self._grid_F = None

    def __call__(self, h):
        return G.edgeworth_cdf(h, *self._k)

    def pdf(self, h):
        return G.edgeworth_pdf(h, *self._k)

    def inverse(self, y, newton: int = 2):
        """Numerical quantile: smallest h on the grid where the running maximum of
        F_EW reaches y, refined by Newton steps kept inside the grid cell."""
        y = np.asarray(y, dtype=float)
        if self._grid_F is None:
            self._grid_F = np.maximum.accumulate(self(_GRID))
        F = self._grid_F
        i = np.clip(np.searchsorted(F, y, side="left"), 1, _GRID.size - 1)
        lo, hi = _GRID[i - 1], _GRID[i]
        Flo, Fhi = F[i - 1], F[i]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(Fhi > Flo, (y - Flo) / (Fhi - Flo), 0.5)
        h = lo + np.clip(t, 0, 1) * (hi - lo)
        for _ in range(newton):
            d = self.pdf(h)
            with np.errstate(divide="ignore", invalid="ignore"):
                step = (self(h) - y) / d
            hn = h - np.where(np.isfinite(step) & (d > 0), step, 0.0)
            h = np.clip(hn, lo, hi)
        h = np.where(y >= F[-1], np.inf, h)
        return np.where(y <= F[0], -np.inf, h)


def cornish_fisher(z, k2: float, k3: float, k4: float):
    """Eq. (3.9): F_n^{-1}(1 - alpha) ~ z + s^-3 k3 (z^2-1)/6 + s^-4 k4 (z^3-3z)/24
    - s^-6 k3^2 (2z^3-5z)/36, z = Phi^{-1}(1 - alpha) (Hermite forms He_2, He_3 and
    2 He_3 + z = 2z^3 - 5z).  GENERATED (the library quantity ``cornish_fisher``)."""
    return G.cornish_fisher(z, k2, k3, k4)


class Edgeworth(fdp.TradeOff):
    """The Edgeworth (or CLT, ``degree=0``) approximation of f = T(P^n, Q^n), eq. (3.5)
    with (3.7)-(3.8); ``inverse_method`` "numerical" (Method (i)) or "cornish-fisher"
    (Method (ii), eq. (3.9)).  An approximation: not certified; values clipped to [0, 1]."""

    name = "edgeworth (approximation)"
    approximation = True

    def __init__(self, kP, kQ, degree: int = 2, inverse_method: str = "numerical"):
        kP, kQ = np.asarray(kP, dtype=float), np.asarray(kQ, dtype=float)
        if kP.shape[-1] < 4 or kQ.shape[-1] < 4:
            raise DomainError("cumulants", f"{kP.shape[-1]} orders", "kappa_1..kappa_4 (>= 4 orders)")
        if inverse_method not in ("numerical", "cornish-fisher"):
            raise DomainError("inverse_method", inverse_method, "'numerical' or 'cornish-fisher'")
        self.kP, self.kQ = kP[..., :4], kQ[..., :4]
        self.degree, self.inverse_method = degree, inverse_method
        self.FP = EdgeworthCDF(*self.kP[1:4], degree=degree)
        self.FQ = EdgeworthCDF(*self.kQ[1:4], degree=degree)
        self.mu_n = (self.kQ[0] - self.kP[0]) / np.sqrt(self.kP[1])        # eq. (3.4)
        self.ratio = np.sqrt(self.kP[1] / self.kQ[1])
        if degree == 0:
            self.name = "clt (approximation)"

    def quantile_P(self, y):
        """F_n^{-1}(y) by the chosen method."""
        if self.inverse_method == "numerical" or self.degree == 0:
            return self.FP.inverse(y)
        z = ndtri(y)
        with np.errstate(invalid="ignore"):
            return np.where(np.isfinite(z), cornish_fisher(z, *self.kP[1:4]), z)

    def _f(self, a):
        h = self.quantile_P(1.0 - a)
        with np.errstate(invalid="ignore"):
            v = self.FQ((h - self.mu_n) * self.ratio)
        v = np.where(np.isnan(v), np.where(a <= 0.5, 1.0, 0.0), v)
        return np.clip(v, 0.0, 1.0 - a)

    def params(self) -> dict:
        return {"kappa_P": self.kP.tolist(), "kappa_Q": self.kQ.tolist(), "degree": self.degree,
                "inverse": self.inverse_method, "approximation": True}


# ----------------------------------------------------------------------------- constructors
def _steps(n):
    return K.check_steps(n, integer=True)


def edgeworth(kP, kQ, steps=1, degree: int = 2, inverse_method: str = "numerical") -> Edgeworth:
    """From one-step cumulants (orders 1..4, under P and under Q) of n iid steps, or
    per-step arrays of shape (n, >=4) (heterogeneous steps: cumulants add)."""
    kP, kQ = np.asarray(kP, dtype=float), np.asarray(kQ, dtype=float)
    if kP.ndim == 2:
        kP, kQ = kP.sum(axis=0), kQ.sum(axis=0)
    else:
        n = _steps(steps)
        kP, kQ = n * kP, n * kQ
    return Edgeworth(kP, kQ, degree, inverse_method)


def clt(kP, kQ, steps=1) -> Edgeworth:
    """The CLT approximation G_{mu_n} written through eq. (3.5) with degree 0."""
    return edgeworth(kP, kQ, steps, degree=0)


def clt_sgd(sigma, p, steps) -> fdp.Gaussian:
    """The paper's CLT for noisy SGD (Sec. 2, [BDLS19]): G_mu, mu = p sqrt(n (e^{1/sigma^2} - 1)).
    An approximation (not certified)."""
    s = float(K.check_positive(sigma, "sigma"))
    pp = float(K.check_open01(p, "p")) if p != 1 else 1.0
    g = fdp.Gaussian(float(G.clt_sgd_mu(s, pp, _steps(steps))))      # GENERATED: library ``clt_sgd_mu``
    g.approximation = True
    return g


def laplace(theta, steps, degree: int = 2, inverse_method: str = "numerical") -> Edgeworth:
    """Lap(0,1)^n vs Lap(theta,1)^n (Zheng et al. 2020, Sec. 5.2)."""
    return edgeworth(C.laplace_cumulants(theta, 4, "P"), C.laplace_cumulants(theta, 4, "Q"),
                     steps, degree, inverse_method)


def subsampled_gaussian(sigma, p, steps, degree: int = 2, inverse_method: str = "numerical") -> Edgeworth:
    """The paper's g = (p G_{1/sigma} + (1-p) Id)^{(x)n} = T(N(0,1)^n, (p N(1/sigma,1) + (1-p) N(0,1))^n)
    (Zheng et al. 2020, Sec. 5.3, App. C); ``.symmetrised()`` gives min{g, g^-1}**."""
    s = float(K.check_positive(sigma, "sigma"))
    if not s >= 1 / 12:         # the cumulants' quadrature covers mu = 1/sigma <= 12
        raise DomainError("sigma", s, "[1/12, oo) on the Edgeworth route (its cumulant quadrature covers "
                          "1/sigma <= 12)")
    mu = 1.0 / s
    return edgeworth(C.mixture_cumulants(p, mu, 4, "P"), C.mixture_cumulants(p, mu, 4, "Q"),
                     steps, degree, inverse_method)


def gaussian(mu, steps, degree: int = 2) -> Edgeworth:
    """N(0,1)^n vs N(mu,1)^n: all higher cumulants vanish, so every degree gives G_{mu sqrt n}."""
    return edgeworth(C.gaussian_cumulants(mu, 4, "P"), C.gaussian_cumulants(mu, 4, "Q"), steps, degree)


# ----------------------------------------------------------------------------- Section 4
def interpreter(f: fdp.TradeOff, n_quad: int = 2001) -> dict:
    """Section 4's two parameters of a (symmetric) curve: the fixed point alpha* with
    f(alpha*) = alpha*, mu* = Phi^{-1}(1 - alpha*) - Phi^{-1}(alpha*), and the area under
    the curve gamma = int_0^1 f (Gauss-Legendre on [0, alpha*] and [alpha*, 1]).
    HAND (tests/test_kernel_ties.py): root finding (the fixed point alpha*) and quadrature."""
    lo, hi = np.array([0.0]), np.array([0.5])
    for _ in range(60):                      # alpha - f(alpha) increases from -f(0) to 1/2 - f(1/2) >= 0
        mid = 0.5 * (lo + hi)
        neg = (mid - f(mid)) < 0
        lo, hi = np.where(neg, mid, lo), np.where(neg, hi, mid)
    a_star = float(0.5 * (lo + hi)[0])
    mu_star = float(-2.0 * ndtri(a_star))          # Phi^{-1}(1 - a*) - Phi^{-1}(a*); 1 - a* would round
    if isinstance(f, fdp.PiecewiseLinear):          # exact: trapezoids between the vertices
        return {"alpha_star": a_star, "mu_star": mu_star,
                "gamma": float(np.sum(np.diff(f.x) * (f.y[1:] + f.y[:-1]) / 2))}
    g, w = np.polynomial.legendre.leggauss(64)
    gamma = 0.0
    # panels graded geometrically in alpha (a trade-off curve varies on the scale of alpha itself: the
    # area of G_mu at mu = 10 lies at alpha ~ 1e-23, which a uniform grid missed), from 1e-300 to
    # alpha*, from alpha* to 1/2, and in 1 - alpha from 1/2 to 1 - 1e-16
    m = max(n_quad // 13, 16)
    left = np.concatenate(([0.0], a_star * np.geomspace(1e-300, 1.0, m)))
    mid = np.geomspace(a_star, 0.5, max(int(2 * np.log10(0.5 / a_star)) + 2, 2)) if a_star < 0.5 else [a_star]
    right = np.concatenate((mid, 1.0 - np.geomspace(0.5, 1e-16, 33), [1.0]))
    for edges in (left, np.unique(np.maximum(right, a_star))):
        for c, d in zip(edges[:-1], edges[1:]):
            x = 0.5 * (c + d) + 0.5 * (d - c) * g
            gamma += 0.5 * (d - c) * float(np.sum(w * f(x)))
    return {"alpha_star": a_star, "mu_star": mu_star, "gamma": gamma}
