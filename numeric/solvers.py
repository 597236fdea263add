"""Vectorised root finding and search used by the conversions and accountants.

``bracketed_newton`` is a safeguarded Newton iteration run on whole arrays at
once: each element keeps its own bracket; a Newton step is taken when it stays
inside the bracket (a prediction just outside it probes just inside the
nearest end), and the element bisects instead whenever its bracket has not
halved over the last two iterations, so convergence is at least geometric.  Steps are
overshot by half the tolerance so that the iterate lands on the far side of
the root and the bracket closes from both ends; an element has converged when
its bracket is narrower than ``atol + rtol*|x|``.  Elements that have not
converged after ``maxiter`` iterations raise ``ConvergenceError``: the last
iterate is never returned as an answer.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

__all__ = ["ConvergenceError", "bracketed_newton", "round_up", "round_down", "zoom_minimize"]

#: relative outward rounding applied to privacy guarantees (epsilon, delta):
#: dominates the float error of the objective and the quadratic error of the
#: inner minimiser (see numeric/conversion.py).
ROUND_REL = 2.0 ** -40  # ~9.1e-13


class ConvergenceError(ArithmeticError):
    """A solver did not reach its tolerance; carries the offending inputs."""

    def __init__(self, what: str, n_bad: int, example: dict | None = None):
        self.what, self.n_bad, self.example = what, n_bad, example
        super().__init__(f"{what}: {n_bad} element(s) did not converge"
                         + (f"; e.g. {example}" if example else ""))


def round_up(x, rel: float = ROUND_REL):
    """x rounded outward (up) by a relative margin, then to the next float up (0 stays 0): the one
    outward rounding of numeric/.  A float (or numpy.float64) is answered with ``math`` as a float (the
    per-query scalar path, numeric.fastconv); anything else as a float array."""
    if isinstance(x, float):                    # float and numpy.float64
        return 0.0 if x == 0 else math.nextafter(x + abs(x) * rel, math.inf)
    x = np.asarray(x, dtype=float)
    return np.where(x == 0, 0.0, np.nextafter(x + np.abs(x) * rel, np.inf))


def round_down(x, rel: float = ROUND_REL):
    x = np.asarray(x, dtype=float)
    return np.where(x == 0, 0.0, np.nextafter(x - np.abs(x) * rel, -np.inf))


def bracketed_newton(fun: Callable, lo, hi, x0=None, *, rtol: float = 1e-14,
                     atol: float = 0.0, maxiter: int = 200, what: str = "root"):
    """Find roots of increasing-through-the-root functions, elementwise.

    ``fun(x, idx)`` returns ``(f, df)`` at points ``x`` for the elements
    ``idx`` (an index array into the problem batch).  The caller guarantees
    f(lo) < 0 <= f(hi) (ends are not evaluated).  Returns ``(lo, hi, x_last)``
    with final brackets satisfying ``hi - lo <= atol + rtol*max(|lo|,|hi|)``
    (or an exact zero, where lo == hi); ``x_last`` is the last point evaluated.
    """
    lo = np.array(lo, dtype=float, copy=True).ravel()
    hi = np.array(hi, dtype=float, copy=True).ravel()
    n = lo.size
    x = 0.5 * (lo + hi) if x0 is None else np.array(x0, dtype=float, copy=True).ravel()
    x = np.where((x > lo) & (x < hi) & np.isfinite(x), x, 0.5 * (lo + hi))
    step1 = np.full(n, np.inf)       # |last step| and |the step before| (rtsafe's dxold)
    step2 = np.full(n, np.inf)
    widths = np.full((4, n), np.inf)  # bracket widths of the last four iterations
    probed = np.zeros(n, bool)        # the last step probed the inside of a bracket end
    active = np.arange(n)
    for it in range(maxiter):
        if active.size == 0:
            break
        xa = x[active]
        f, df = fun(xa, active)
        f = np.asarray(f, dtype=float)
        df = np.asarray(df, dtype=float)
        if np.isnan(f).any():
            bad = active[np.isnan(f)][0]
            raise ConvergenceError(what + " (function is NaN)", int(np.isnan(f).sum()),
                                   {"index": int(bad), "x": float(x[bad])})
        neg = f < 0
        la = np.where(neg, xa, lo[active])
        ha = np.where(neg, hi[active], xa)
        zero = f == 0
        la = np.where(zero, xa, la)
        lo[active], hi[active] = la, ha
        tol = atol + rtol * np.maximum(np.abs(la), np.abs(ha))
        width = ha - la
        done = (width <= tol) | zero
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            xp = xa - f / df                                   # Newton's prediction
        xn = xp + np.sign(xp - xa) * 0.6 * tol                 # overshoot: straddle the root
        near = np.isfinite(xn) & (xp > la - tol) & (xp < ha + tol)
        pad = np.minimum(0.4 * tol, 0.25 * width)
        xn = np.clip(np.where(near, xn, 0.5 * (la + ha)), la + pad, ha - pad)
        # bisect when Newton's step has not halved against the step before last
        # (Numerical Recipes' rtsafe rule: Newton is not converging quadratically), or
        # when the bracket has not halved in four iterations (steps shrinking geometrically
        # towards a point short of the root)
        ring = it % 4                                          # ring buffer of widths
        slow = (np.abs(xp - xa) > 0.5 * step2[active]) | (width > 0.5 * widths[ring, active])
        widths[ring, active] = width
        # Newton's step left the bracket: the root is likely close to the end it jumped
        # past (a steep, curved function).  Probe just inside that end once; bisect if the
        # previous iteration was such a probe already.
        out = np.isfinite(xp) & ~near & ~probed[active]
        edge = np.minimum(np.maximum(1e-6 * width, 2 * tol), 0.25 * width)
        probe = np.where(xp <= la, la + edge, ha - edge)
        xn = np.where(near & ~slow, xn, np.where(out, probe, 0.5 * (la + ha)))
        probed[active] = out & ~(near & ~slow)
        step2[active] = step1[active]
        step1[active] = np.abs(xn - xa)
        x[active] = np.where(done, xa, xn)
        active = active[~done]
    if active.size:
        i = int(active[0])
        raise ConvergenceError(what, int(active.size),
                               {"index": i, "lo": float(lo[i]), "hi": float(hi[i])})
    return lo, hi, x


def zoom_minimize(fun: Callable, lo, hi, *, n_grid: int = 48, n_zoom: int = 16,
                  rtol: float = 1e-7, max_rounds: int = 40, log: bool = True,
                  parabolic: bool = False):
    """Minimise ``fun`` over a continuous 1-D variable, for a batch of problems.

    ``fun(X)`` takes an array of shape (n_problems, k) and returns values of the
    same shape (+inf where infeasible).  Starts from a grid of ``n_grid`` points
    on [lo, hi] (log-spaced when ``log``), then repeatedly places ``n_zoom``
    points between the neighbours of each problem's best point, until the
    interval is narrower than ``rtol`` relative (or ``max_rounds`` is reached).
    With ``parabolic``, a final parabola through the best point and its two
    neighbours proposes one more point.  Returns ``(x_best, f_best)``: the best
    point *evaluated* and its value.

    Used for the optimisation over the Renyi order alpha (Asoodeh et al. 2021, eqs. (27), (30)):
    every alpha gives a valid bound, so a local optimum is never unsound.
    """
    lo = np.atleast_1d(np.asarray(lo, dtype=float))
    hi = np.atleast_1d(np.asarray(hi, dtype=float))
    lo, hi = np.broadcast_arrays(lo, hi)
    m = lo.size
    tr = np.log if log else (lambda v: v)
    itr = np.exp if log else (lambda v: v)
    a, b = tr(lo).astype(float), tr(hi).astype(float)
    best_x = np.full(m, np.nan)
    best_f = np.full(m, np.inf)
    k = n_grid
    for _ in range(max_rounds):
        s = np.linspace(0.0, 1.0, k)[None, :]
        Y = a[:, None] + (b - a)[:, None] * s
        X = itr(Y)
        F = np.asarray(fun(X), dtype=float)
        F = np.where(np.isnan(F), np.inf, F)
        j = np.argmin(F, axis=1)
        rows = np.arange(m)
        fj = F[rows, j]
        better = fj < best_f
        best_f = np.where(better, fj, best_f)
        best_x = np.where(better, X[rows, j], best_x)
        # next interval: the neighbours of the best grid point
        jl = np.maximum(j - 1, 0)
        jh = np.minimum(j + 1, k - 1)
        a, b = Y[rows, jl], Y[rows, jh]
        width = np.abs(itr(b) - itr(a))
        if np.all(width <= rtol * np.abs(itr(0.5 * (a + b)))):
            break
        k = n_zoom
    if parabolic:
        inner = (j > 0) & (j < k - 1)
        y0, y1, y2 = Y[rows, jl], Y[rows, j], Y[rows, jh]
        f0, f1, f2 = F[rows, jl], F[rows, j], F[rows, jh]
        with np.errstate(divide="ignore", invalid="ignore"):
            num = (y1 - y0) ** 2 * (f1 - f2) - (y1 - y2) ** 2 * (f1 - f0)
            den = (y1 - y0) * (f1 - f2) - (y1 - y2) * (f1 - f0)
            yv = y1 - 0.5 * num / den
        good = inner & np.isfinite(yv) & (yv > y0) & (yv < y2)
        yv = np.where(good, yv, y1)
        fv = np.asarray(fun(itr(yv)[:, None]), dtype=float)[:, 0]
        fv = np.where(np.isnan(fv), np.inf, fv)
        better = fv < best_f
        best_f = np.where(better, fv, best_f)
        best_x = np.where(better, itr(yv), best_x)
    return best_x, best_f
