"""Section 5.1's numerical method of Zheng, Dong, Long, Su 2020, as
the paper describes it: a slow O(n N M) reference for small n.

With f = T(P, Q), L = log(q/p) and a grid {eps_j}_{j=1}^N the paper iterates

    delta_0(eps_j)     = max{1 - e^{eps_j}, 0}
    delta_{k+1}(eps_j) = int delta_k(floor(eps_j - L(x))) dx          (as printed)
    f^{(x)n}(alpha)    = sup_j 1 - delta_n(eps_j) - e^{eps_j} alpha

with floor(e) = max{eps_l : eps_l <= e}.  The printed recursion has no density
in the integral; Lemma 5.2 (and its proof in App. D.2) integrates against
q(x) dx:  delta_(x)(eps) = int delta_1(eps - L_2(y)) q_2(y) dy.  We implement
Lemma 5.2's form (``weight="q"``, the default) and keep the printed one
(``weight="dx"``) for the erratum check; ``tests/test_numeric_pld.py`` shows
the printed form is not even a probability bound (delta_1(-oo) = int dx = oo
on an unbounded support).

Choices the paper leaves open, made in the sound direction:
* rounding down to the grid (as printed) over-estimates delta_k (it decreases in
  eps), so with exact integrals the result is an upper bound on delta_n at the
  grid points;
* below the grid, delta_k(eps) <= delta_k(eps_1) + e^{eps_1} - e^{eps} (delta is
  convex decreasing in e^eps with slope >= -1);
* integrals by composite Gauss-Legendre quadrature in x between the density's
  breakpoints (so not certified: a reference, not an accountant).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from derive.errors import DomainError

from . import fdp
from . import kernels as K
from .pld import lines_envelope

__all__ = ["RecursionResult", "recursion", "laplace", "gaussian", "subsampled_gaussian",
           "quadrature_nodes"]


def quadrature_nodes(breaks, panels_per_unit: float = 8.0, nodes: int = 12):
    """Composite Gauss-Legendre nodes/weights on [breaks[0], breaks[-1]] with panel
    edges at every breakpoint (where the integrand may kink)."""
    g, w = np.polynomial.legendre.leggauss(nodes)
    xs, ws = [], []
    for a, b in zip(breaks[:-1], breaks[1:]):
        m = max(1, int(np.ceil((b - a) * panels_per_unit)))
        e = np.linspace(a, b, m + 1)
        half = np.diff(e)[:, None] / 2
        mid = (e[:-1] + e[1:])[:, None] / 2
        xs.append((mid + half * g).ravel())
        ws.append((half * w).ravel())
    return np.concatenate(xs), np.concatenate(ws)


@dataclass
class RecursionResult:
    """delta_n on the grid ``eps`` (an upper bound at the grid points, up to quadrature)."""

    eps: np.ndarray
    delta_n: np.ndarray
    steps: int

    rounding: str = "floor"

    def delta(self, eps) -> np.ndarray:
        """delta_n at eps by the same rule as the recursion (and the bound below the grid)."""
        e = np.asarray(eps, dtype=float)
        return _lookup(self.delta_n, self.eps, e, self.rounding)

    def tradeoff(self) -> fdp.TradeOff:
        """f^{(x)n}(alpha) = sup_j 1 - delta_n(eps_j) - e^{eps_j} alpha (Zheng et al. 2020, Sec. 5.1, step 3)."""
        return lines_envelope(self.eps, np.clip(self.delta_n, 0.0, 1.0))


def _lookup(dk: np.ndarray, grid: np.ndarray, e: np.ndarray, rounding: str = "floor") -> np.ndarray:
    """delta_k at e: the paper's floor rule (or linear interpolation, which the paper
    allows); below the grid the convexity bound delta(eps_1) + e^{eps_1} - e^eps."""
    step = grid[1] - grid[0]
    u = (e - grid[0]) / step
    idx = np.floor(u + 1e-9).astype(np.int64)
    i0 = np.clip(idx, 0, grid.size - 1)
    val = dk[i0]
    if rounding == "interp":
        fr = np.clip(u - idx, 0.0, 1.0)
        val = val + fr * (dk[np.minimum(i0 + 1, grid.size - 1)] - val)
    below = dk[0] + np.exp(grid[0]) - np.exp(np.minimum(e, grid[0]))
    return np.where(idx >= 0, val, np.minimum(below, 1.0))


def recursion(loss: Callable, log_q: Callable, steps: int, eps_grid, x_nodes, x_weights,
              weight: str = "q", rounding: str = "floor") -> RecursionResult:
    """The Sec. 5.1 recursion for a pair of 1-D densities: ``loss(x)`` = log(q/p)(x),
    ``log_q`` the log-density of Q, quadrature nodes/weights in x, a uniform eps grid.
    ``weight="dx"`` is the recursion as printed (no density), ``"q"`` Lemma 5.2's;
    ``rounding`` "floor" (as printed; an upper bound) or "interp"."""
    n = int(steps)
    if n < 0 or n != steps:
        raise DomainError("steps", steps, "integers >= 0")
    if weight not in ("q", "dx"):
        raise DomainError("weight", weight, "'q' (Lemma 5.2) or 'dx' (as printed)")
    if rounding not in ("floor", "interp"):
        raise DomainError("rounding", rounding, "'floor' (as printed) or 'interp'")
    grid = np.asarray(eps_grid, dtype=float)
    if grid.ndim != 1 or grid.size < 2 or not np.allclose(np.diff(grid), grid[1] - grid[0]):
        raise DomainError("eps_grid", "given grid", "a uniform 1-D grid of >= 2 points")
    x = np.asarray(x_nodes, dtype=float)
    wq = np.asarray(x_weights, dtype=float) * (np.exp(log_q(x)) if weight == "q" else 1.0)
    keep = wq > 1e-300
    L, wq = loss(x[keep]), wq[keep]
    dk = np.maximum(-np.expm1(grid), 0.0)          # delta_0 = max{1 - e^eps, 0}
    shifted = grid[:, None] - L[None, :]            # eps_j - L(x_m)
    for _ in range(n):
        dk = _lookup(dk, grid, shifted, rounding) @ wq
    return RecursionResult(grid, dk, n, rounding)


# ----------------------------------------------------------------------------- the paper's examples
def laplace(theta, steps, *, scale=1.0, n_grid: int = 2001, rounding: str = "floor",
            panels_per_unit: float = 4.0):
    """P = Lap(0, b), Q = Lap(theta, b) (Zheng et al. 2020, Sec. 5.2): L = |x|/b - |x - theta|/b in [-t, t],
    t = theta/b; the grid spans [-n t, n t] (delta_n = 1 - e^eps below, 0 above)."""
    th = float(K.check_positive(theta, "theta"))
    b = float(K.check_positive(scale, "scale"))
    t = th / b
    grid = np.linspace(-steps * t, steps * t, n_grid)
    x, w = quadrature_nodes([-40.0, 0.0, t, t + 40.0], panels_per_unit)
    return recursion(lambda x: np.abs(x) - np.abs(x - t), lambda x: np.log(0.5) - np.abs(x - t),
                     steps, grid, x, w, rounding=rounding)


def gaussian(mu, steps, *, n_grid: int = 2001, rounding: str = "floor",
             panels_per_unit: float = 4.0):
    """P = N(0,1), Q = N(mu,1): L = mu x - mu^2/2."""
    m = float(K.check_positive(mu, "mu"))
    s = np.sqrt(steps) * m
    grid = np.linspace(-steps * m * m / 2 - 9 * s, steps * m * m / 2 + 9 * s, n_grid)
    x, w = quadrature_nodes([m - 10.0, m + 10.0], panels_per_unit)
    return recursion(lambda x: m * x - m * m / 2, lambda x: -(x - m) ** 2 / 2 - 0.5 * np.log(2 * np.pi),
                     steps, grid, x, w, rounding=rounding)


def subsampled_gaussian(sigma, q, steps, *, n_grid: int = 2001, eps_max=None,
                        rounding: str = "floor", panels_per_unit: float = 4.0):
    """P = N(0,1), Q = q N(1/sigma, 1) + (1-q) N(0,1) (Zheng et al. 2020, App. C; the paper's g).  The
    grid starts at n log(1 - q) (L >= log(1 - q), so delta_n = 1 - e^eps below it) and
    ends at ``eps_max`` (default: where the PLD upper bound of delta_n is < 1e-12)."""
    from .cumulants import mixture_loss
    from .pld import subsampled_gaussian as pld_sg
    mu = 1.0 / float(K.check_positive(sigma, "sigma"))
    qq = float(K.check_open01(q, "q"))
    if eps_max is None:
        r = pld_sg(sigma, qq, steps, directions=("remove",), bounds="upper")
        eps_max = float(r.epsilon(1e-12)[1]) + 0.5
    grid = np.linspace(steps * np.log1p(-qq), eps_max, n_grid)
    x, w = quadrature_nodes([-10.0, mu + 10.0], panels_per_unit)

    def log_q(x):
        return np.logaddexp(np.log1p(-qq) - x * x / 2, np.log(qq) - (x - mu) ** 2 / 2) - 0.5 * np.log(2 * np.pi)
    return recursion(lambda x: mixture_loss(x, qq, mu), log_q, steps, grid, x, w, rounding=rounding)
