"""The exact optimal RDP -> DP conversion (Asoodeh et al. 2021, Theorem 3, eq. (14)) for ONE point, in plain
floats: the per-query path of the accountant.

``numeric.conversion`` solves many points at once with NumPy; for a single query its
array bookkeeping dominates (about 2 ms per call).  Here the same equations are solved
with the ``math`` module in a few tens of microseconds:

* the minimiser u* = p* - delta of Asoodeh et al. 2021, eq. (20) at fixed eps, by Newton's method in
  t = log u safeguarded by bisection on the sign of the score d/du log(objective)
  (the objective is convex in p, so the score changes sign once in
  ((alpha-1) delta, 1 - delta));
* eps_alpha^delta(gamma), the root in eps of gamma_alpha^eps(delta) = gamma, by Newton's
  method with d gamma/d eps from the envelope theorem, inside the bracket
  [0, Lemma 1 bound (eq. (25))] and warm-starting the inner solve from the previous u*.

The log-terms and their u-derivatives are the same expressions as the SymPy-derived
kernels of ``numeric.conversion.derived_exprs`` (written here in the stable forms of
``conversion._excess``); ``tests/test_fastconv.py`` holds this module equal to the
vectorised solver and to mpmath over the domain, extremes included.  A solve that does not
reach its tolerance falls back to ``numeric.conversion.eps_exact``, which raises if it
fails too: no last iterate is ever returned.  Results are rounded up (privacy guarantee).
"""
from __future__ import annotations

import math

from ._kernels_generated import eps_large_delta_scalar, eps_asoodeh_small_delta_scalar
from .kernels import expit_scalar as _expit
from .solvers import round_up as _round_up

__all__ = ["eps_exact_scalar", "eps_solve", "gamma_exact_scalar", "eps_asoodeh_small_delta_scalar"]

_TOL_T = 1e-13        # inner: |step| in t = log u (the value error is quadratic in it)
_TOL_E = 1e-14        # outer: relative width in eps
_TOL_CERT = 1e-12     # outer: a point above the root closer than this is returned
_MAXIT = 100
_ULP = 2.0 ** -52


def _state(a: float, e: float, d: float, W: float, Wm1: float, t: float):
    """(u * score, its t-derivative, log-sum (alpha-1)gamma, w_B, u, 1 - u e^-eps) at u = e^t
    (Asoodeh et al. 2021, eq. (20)).  HAND (tests/test_writings.py): the library's conversion_objective
    and its u-derivatives for one float in math (NumPy calls cost more than the formula)."""
    u = math.exp(t)
    v = 1.0 - u
    x_a = a * math.log1p(d / u) + (a - 1.0) * e
    q = 1.0 - u * W
    x_b = a * math.log1p(-d / v) + (a - 1.0) * math.log1p(u * Wm1 / q) if d < v else -math.inf
    la, lb = t + x_a, (math.log1p(-u) + x_b)
    w_a = _expit(la - lb)
    w_b = _expit(lb - la)
    # the score times u (same sign, bounded as u -> 0) and its t-derivative:
    # S = u (w_A L_A' + w_B L_B'),  dS/dt = S + u^2 (w_A L_A'' + w_B L_B'' + w_A w_B (L_A' - L_B')^2)
    f_a = 1.0 / (1.0 + d / u)                              # u / (delta + u)
    ua = a * f_a - (a - 1.0)                               # u L_A'
    uua = (a - 1.0) - a * f_a * f_a                        # u^2 L_A''
    r = 1.0 - d - u
    if w_b > 0.0 and r > 0.0:
        f_b, g_b = u / r, W * u / q
        ub = -a * f_b + (a - 1.0) * g_b                    # u L_B'
        uub = -a * f_b * f_b + (a - 1.0) * g_b * g_b       # u^2 L_B''
    else:
        ub = uub = 0.0
    dd = ua - ub
    S = w_a * ua + w_b * ub
    dS = S + w_a * uua + w_b * uub + w_a * w_b * (dd * dd)
    ta, tb = (u * math.expm1(x_a), v * math.expm1(x_b)) if x_a < 700 else (math.inf, 0.0)
    sm1 = ta + tb
    if abs(sm1) < 0.5:
        logsum, mag = math.log1p(sm1), abs(ta) + abs(tb)    # mag: scale of its rounding error
    else:
        m = max(la, lb)
        logsum = m + math.log(math.exp(la - m) + math.exp(lb - m))
        mag = abs(logsum) + 1.0
    return S, dS, logsum, w_b, u, q, w_a * abs(ua) + w_b * abs(ub), mag


_COARSE = 7     # cold start: points of the scan of [lo, hi) in t


def _minimiser(a: float, e: float, d: float, t0: float | None):
    """Newton-bisection for the root in t of the score; returns the state there (plus t).

    The score is <= 0 at the lower end t = log((alpha-1) delta) (d/du L_A = 0 there,
    d/du L_B < 0) and > 0 near 1 - delta, with one sign change (the objective is convex
    in p).  A cold start scans ``_COARSE`` points from the lower end (where the root
    often sits within 1e-8) and starts at the secant root of the bracketing pair."""
    W, Wm1 = math.exp(-e), math.expm1(-e)
    lo, hi = math.log((a - 1.0) * d), math.log1p(-d)
    if t0 is not None and lo < t0 < hi:
        t = t0
    else:
        prev = None
        for k in range(_COARSE):
            tk = lo + (hi - lo) * k / _COARSE
            sk = _state(a, e, d, W, Wm1, tk)[0]
            if sk > 0:
                break
            prev = (tk, sk)
        else:
            tk = None
        if prev is None:                       # positive at the lower end (rounding): root there
            st = _state(a, e, d, W, Wm1, lo)
            return st[:6] + (st[7], lo)
        lo = prev[0]
        if tk is None:
            t = 0.5 * (lo + hi)
        else:
            hi = tk
            t = prev[0] - prev[1] * (tk - prev[0]) / (sk - prev[1])
            if not (lo <= t < hi):
                t = 0.5 * (lo + hi)
    for _ in range(_MAXIT):
        st = _state(a, e, d, W, Wm1, t)
        s, ds = st[0], st[1]
        if s > 0:
            hi = t
        else:
            lo = t
        tol = _TOL_T * max(1.0, abs(t))
        # converged: a Newton step below the tolerance, or the score at its rounding level
        # (the value error is then ~ s^2 / ds, far below the float resolution of gamma)
        if abs(s) <= 1e-15 * st[6]:
            return st[:6] + (st[7], t)
        step = -s / ds if 0.0 < ds < math.inf else math.nan   # Newton on u * score
        if abs(step) <= tol:
            return st[:6] + (st[7], t)
        tn = t + step
        if not (lo < tn < hi):
            tn = 0.5 * (lo + hi)
        if hi - lo <= tol:
            st = _state(a, e, d, W, Wm1, tn)
            return st[:6] + (st[7], tn)
        t = tn
    return None


def gamma_exact_scalar(a: float, e: float, d: float) -> float | None:
    """gamma_alpha^eps(delta) of Asoodeh et al. 2021, eq. (20) for 0 < alpha*delta < 1 (None if unsolved).
    HAND (tests/test_kernel_ties.py): root finding for one float in math (the minimiser of the objective)."""
    st = _minimiser(a, e, d, None)
    return None if st is None else st[2] / (a - 1.0)


# ``eps_asoodeh_small_delta_scalar``: the upper bound on eps_alpha^delta(gamma) of Asoodeh et al. 2021,
# Lemma 1 (0 < alpha delta < 1), GENERATED: the library quantity printed for one float in ``math``.


def _certified(a, d, target, e_hi, dh_hi, mag_hi, at_hi):
    """The result of ``eps_solve`` at the certified upper end e_hi of the root: e_hi plus the
    rounding error of h (a few ulp of its terms, moved to eps by the slope, so that the root lies
    below the returned value also where h is noise), rounded up; the warm start (e_hi, t); and
    dH/dalpha, dH/deps there by the envelope theorem.  HAND (tests/test_writings.py): dH/dalpha is
    d/d alpha of the library's log conversion_objective at fixed u (a derivative the generator does not print)."""
    w_b, u, t = at_hi
    noise = 8.0 * _ULP * (mag_hi + abs(target))
    dhda = ((1.0 - w_b) * (e_hi + math.log1p(d / u))
            + (w_b * (math.log(1.0 - d - u) - math.log1p(-u * math.exp(-e_hi))) if w_b > 0 else 0.0))
    return _round_up(e_hi + (noise / dh_hi if dh_hi > 0 else 0.0)), (e_hi, t), dhda, dh_hi


def eps_exact_scalar(a: float, g: float, d: float) -> float:
    """eps_alpha^delta(gamma) (Asoodeh et al. 2021, eq. (14)) for one point, rounded up.

    Closed case alpha*delta >= 1: eq. (24).  Falls back to the vectorised solver
    (``numeric.conversion.eps_exact``, which raises on failure) when Newton stalls.
    HAND (tests/test_kernel_ties.py): root finding for one float in math (Newton in t = log u; ~30 us a query)."""
    return eps_solve(a, g, d)[0]


def eps_solve(a: float, g: float, d: float, warm: tuple | None = None):
    """(eps rounded up, warm, dH/dalpha, dH/deps) for eps_alpha^delta(gamma), where
    H(alpha, eps) = (alpha-1) gamma_alpha^eps(delta) (Asoodeh et al. 2021, eq. (20)) at the root, its partial
    derivatives by the envelope theorem (None in the closed cases), and ``warm`` = (eps, t)
    at the root: pass it back to start a solve at a nearby alpha.
    HAND (tests/test_kernel_ties.py): root finding for one float in math (the per-query path; NumPy calls cost more)."""
    if not (a > 1.0 and g >= 0.0 and 0.0 < d < 1.0):
        from . import conversion as C
        return float(C.eps_exact(a, g, d)), None, None, None   # raises the DomainError
    if g == 0.0:
        return 0.0, None, None, None
    if a * d >= 1.0:
        return _round_up(eps_large_delta_scalar(a, g, d)), None, None, None
    target = (a - 1.0) * g
    e_hi = eps_asoodeh_small_delta_scalar(a, g, d) * (1 + 1e-9) + 1e-12
    e_lo, e, t = 0.0, e_hi * 0.995, None           # the eps = 0 minimiser is a poor start
    if warm is not None and 0.0 < warm[0] < e_hi:
        e, t = warm
    # eps = 0 suffices iff gamma <= gamma_alpha^0(delta).  The objective at any u bounds
    # gamma_alpha^0(delta) from above, so a target above its value at u = (1 - delta)/2
    # needs eps > 0 and the (cold) eps = 0 minimiser is skipped
    if target <= _state(a, 0.0, d, 1.0, 0.0, math.log1p(-d) - math.log(2.0))[2]:
        st0 = _minimiser(a, 0.0, d, None)
        if st0 is not None and st0[2] >= target:
            return 0.0, None, None, None          # (0, delta)-DP already
    dh_hi, mag_hi, at_hi = 0.0, 0.0, None
    for _ in range(_MAXIT):
        st = _minimiser(a, e, d, t)
        if st is None:
            break
        _, _, logsum, w_b, u, q, mag, t = st
        h = logsum - target
        dh = (a - 1.0) - w_b * (a - 1.0) / q       # dH/deps (envelope theorem)
        if h >= 0:
            e_hi, dh_hi, mag_hi, at_hi = e, dh, mag, (w_b, u, t)
        else:
            e_lo = e
        step = -h / dh if dh > 0 else math.nan
        # done when the bracket is closed, or when e is above the root (h(e) >= 0) and the
        # Newton step shows it within 1e-12 of it: e_hi is then a certified answer
        if at_hi is not None and (e_hi - e_lo <= 4.0 * _TOL_E * e_hi
                                  or (h >= 0 and abs(step) <= _TOL_CERT * e)):
            return _certified(a, d, target, e_hi, dh_hi, mag_hi, at_hi)
        # Newton, aimed a hair above the root so that the next iterate usually certifies
        en = e + step + _TOL_E * e_hi
        if not (e_lo < en < e_hi):
            en = 0.5 * (e_lo + e_hi)
        e = en
    from . import conversion as C
    return float(C.eps_exact(a, g, d)), None, None, None
