"""Exact optimal RDP <-> DP conversion (Asoodeh et al. 2021, Theorem 3) and its inverses, vectorised.

Theorem 3 (Asoodeh et al. 2021, eq. (20)): for alpha > 1, eps >= 0, delta in (0, 1)

    gamma_alpha^eps(delta) = eps + log M / (alpha - 1),
    M = min_{p in (delta, 1)} p^alpha (p-delta)^(1-alpha) + (1-p)^alpha (e^eps - p + delta)^(1-alpha).

How it is computed.  Substituting p = delta + u (u in (0, 1-delta)) keeps
p - delta = u exact down to delta = 1e-300.  The objective (the library quantity
``conversion_objective``, ``derive.lib``) is split into its two terms, each taken to log
space with ``expand_log``: L_A(u) = alpha log(delta+u) + (1-alpha) log u and
L_B(u) = alpha log(1-delta-u) + (1-alpha) log(e^eps - u).  SymPy differentiates
them (``sympy.diff``; e^eps is rewritten through W = e^-eps so the kernels stay
finite for large eps), and

    d/du log(objective) = w_A L_A' + w_B L_B',   w_A = expit(L_A - L_B), w_B = 1 - w_A,
    d2/du2 log(objective) = w_A L_A'' + w_B L_B'' + w_A w_B (L_A' - L_B')^2.

The objective is convex in p (Asoodeh et al. 2021, after Thm. 3), so d/du log(objective) changes
sign once.  L_B' < 0 on the whole interval and L_A' < 0 exactly for
u < (alpha-1) delta, so the minimiser lies in ((alpha-1)delta, 1-delta) when
alpha*delta < 1 (at alpha*delta >= 1 the minimum is at the end p -> 1 and
gamma is eq. (22)).  A vectorised safeguarded Newton iteration in t = log u
(``numeric.solvers.bracketed_newton``) finds the root; gamma is then evaluated
as log(e^{L_A + (alpha-1)eps} + e^{L_B + (alpha-1)eps})/(alpha-1) with
log1p/expm1 forms (``_excess``, ``_log_sum_shifted``) that keep full relative
accuracy when gamma is small against eps.

Inverses.  gamma_alpha^eps(delta) increases in eps and in delta, so
eps_alpha^delta(gamma) (Asoodeh et al. 2021, eq. (14)) and delta_alpha^eps(gamma) (Asoodeh et al. 2021, eq. (13))
are found by the same bracketed Newton iteration, with derivatives from the
envelope theorem (partial derivatives of log(objective) at the minimiser) and
brackets from Lemma 1 (Asoodeh et al. 2021, eq. (25)) and Theorem 4 (Asoodeh et al. 2021, eq. (23)).  The
closed cases alpha*delta >= 1 use eqs. (22) and (24).  These results are
privacy guarantees: they are rounded up (the upper end of the final bracket,
then ``numeric.solvers.round_up``).
"""
from __future__ import annotations

import functools

import numpy as np
from . import kernels as K
from .solvers import ConvergenceError, bracketed_newton, round_up

__all__ = ["gamma_exact", "eps_exact", "delta_exact", "log_objective_terms",
           "derived_kernels", "derived_exprs", "minimiser_u", "ConvergenceError"]

CITE_OPTIMAL = "Asoodeh et al. 2021, Theorem 3, eq. (20)"
_RTOL_U = 1e-13     # minimiser, relative in u (the value error is quadratic in this)
_RTOL_OUT = 1e-14   # eps / log-delta inversion


# ----------------------------------------------------------------------------- symbolic side
def derived_exprs():
    """The SymPy-derived pieces of d/du log(objective) of Asoodeh et al. 2021, eq. (20): the library's
    ``derive.lib.quantities.conversion_pieces`` (``dA, d2A, dB, d2B, dB_deps, dA_ddelta, dB_ddelta``
    as functions of (alpha, W, delta, u), W = e^-eps; ``LA, LB`` of (alpha, eps, delta, u)).
    ``numeric.codegen`` writes them to ``numeric/_kernels_generated.py`` (imported at run time,
    no SymPy needed)."""
    from derive.lib.quantities import conversion_pieces
    return conversion_pieces()


@functools.lru_cache(maxsize=None)
def derived_kernels():
    """NumPy kernels of ``derived_exprs()`` (same names and arguments), from the generated
    module ``numeric/_kernels_generated.py`` (``tests/test_numeric_codegen.py`` fails when it
    is out of date with the SymPy definitions)."""
    from . import _kernels_generated as G
    return {k: getattr(G, "objective_" + k) for k in G.OBJECTIVE_NAMES}


def _excess(a, e, d, u):
    """(x_A, x_B) with L_A + (a-1)e = log u + x_A and L_B + (a-1)e = log(1-u) + x_B:

    x_A = a log1p(d/u) + (a-1) e
    x_B = a log1p(-d/(1-u)) + (a-1) log1p(u expm1(-e)/(1 - u e^-e))

    (hand-written stable forms; ``tests/test_numeric_conversion.py`` holds
    log u + x_A, log(1-u) + x_B equal to the compiled L_A, L_B shifted).  HAND (tests/test_writings.py):
    the library's conversion_objective terms in excess form, tied to it in mpmath."""
    xa = a * np.log1p(d / u) + (a - 1.0) * e
    xb = a * np.log1p(-d / (1.0 - u)) + (a - 1.0) * np.log1p(u * np.expm1(-e) / (1.0 - u * np.exp(-e)))
    return xa, xb


def _log_terms_shifted(a, e, d, u):
    """L_A + (alpha-1)eps and L_B + (alpha-1)eps of Asoodeh et al. 2021, eq. (20) at p = delta + u, stable."""
    xa, xb = _excess(a, e, d, u)
    return np.log(u) + xa, np.log1p(-u) + xb


def _log_sum_shifted(a, e, d, u):
    """(alpha-1) gamma at u: log(e^{L_A + (a-1)e} + e^{L_B + (a-1)e}) = log S.

    S - 1 = u expm1(x_A) + (1-u) expm1(x_B) keeps full relative accuracy when S is
    close to 1 (gamma small against eps), where log(S) from logaddexp would not."""
    xa, xb = _excess(a, e, d, u)
    with np.errstate(over="ignore", invalid="ignore"):
        sm1 = u * np.expm1(xa) + (1.0 - u) * np.expm1(xb)
        direct = np.logaddexp(np.log(u) + xa, np.log1p(-u) + xb)
    return np.where(np.abs(sm1) < 0.5, np.log1p(sm1), direct)


def log_objective_terms(alpha, eps, delta, u):
    """(L_A, L_B): the two log-terms of the objective of Asoodeh et al. 2021, eq. (20) at p = delta + u.
    HAND (tests/test_kernel_ties.py): log-domain trick: the excess forms shift by (alpha-1) eps with log1p/expm1 split by the size of u (a branch a printer would evaluate both ways)."""
    la, lb = _log_terms_shifted(alpha, eps, delta, u)
    s = (np.asarray(alpha) - 1.0) * np.asarray(eps)
    return la - s, lb - s


# ----------------------------------------------------------------------------- the minimiser
def _score(a, e, d, u, W, kern):
    """(g, dg/dt): d/du log(objective) and its derivative in t = log u."""
    la, lb = _log_terms_shifted(a, e, d, u)
    wa = K.expit(la - lb)
    wb = K.expit(lb - la)
    dA, dB = kern["dA"](a, W, d, u), kern["dB"](a, W, d, u)
    g = wa * dA + wb * dB
    gp = wa * kern["d2A"](a, W, d, u) + wb * kern["d2B"](a, W, d, u) + wa * wb * (dA - dB) ** 2
    return g, u * gp


def minimiser_u(alpha, eps, delta, t0=None):
    """u* = p* - delta, the minimiser of Asoodeh et al. 2021, eq. (20) in (0, 1-delta), for
    0 < alpha*delta < 1 (1-D arrays of equal length).  Returns (u*, t-bracket)."""
    a, e, d = alpha, eps, delta
    W = np.exp(-e)
    kern = derived_kernels()
    lo = np.log((a - 1.0) * d)
    hi = np.log1p(-d)

    def fun(t, idx):
        return _score(a[idx], e[idx], d[idx], np.exp(t), W[idx], kern)

    with np.errstate(all="ignore"):
        cold = np.ones(a.size, bool) if t0 is None else ~np.isfinite(np.asarray(t0, float))
        if cold.any():
            lo, hi, t0 = _coarse_bracket(fun, lo, hi, t0, cold)
        tlo, thi, _ = bracketed_newton(fun, lo, hi, t0, rtol=2e-15, atol=_RTOL_U,
                                       what="Theorem 3 minimiser (Asoodeh et al. 2021, eq. (20))")
    return np.exp(0.5 * (tlo + thi)), (tlo, thi)


_COARSE = 6   # interior grid points of the cold-start scan


def _coarse_bracket(fun, lo, hi, t0, cold):
    """Narrow the brackets of the cold-started elements by one vectorised scan of the
    score at the lower end and ``_COARSE`` interior points (it changes sign once: the
    objective is convex in p), and start Newton at the secant root of the bracketing
    pair.  Including the lower end matters: the root often sits within 1e-8 of it
    (u* ~ (alpha-1) delta), where Newton from inside overshoots and would crawl."""
    lo, hi = lo.copy(), hi.copy()
    t0 = np.full(lo.size, np.nan) if t0 is None else np.array(t0, dtype=float, copy=True)
    idx = np.flatnonzero(cold)
    frac = np.arange(0, _COARSE + 1) / (_COARSE + 1)             # 0 = the lower end itself
    T = lo[idx, None] + (hi[idx] - lo[idx])[:, None] * frac[None, :]
    m = frac.size
    g, _ = fun(T.ravel(), np.repeat(idx, m))
    g = g.reshape(T.shape)
    pos = g >= 0
    k = np.where(pos.any(axis=1), np.argmax(pos, axis=1), m)   # first point at or past the root
    rows = np.arange(idx.size)
    at_end = k == 0                                             # root at the lower end (rounding)
    kk = np.clip(k, 1, m - 1)
    new_lo = T[rows, kk - 1]
    new_hi = np.where(k < m, T[rows, kk], hi[idx])
    glo, ghi = g[rows, kk - 1], np.where(k < m, g[rows, kk], np.nan)
    with np.errstate(all="ignore"):
        sec = new_lo - glo * (new_hi - new_lo) / (ghi - glo)
    sec = np.where(np.isfinite(sec) & (sec > new_lo) & (sec < new_hi), sec, 0.5 * (new_lo + new_hi))
    lo[idx], hi[idx] = new_lo, np.where(at_end, T[rows, 1], new_hi)
    t0[idx] = np.where(at_end, T[rows, 0], sec)
    return lo, hi, t0


def _gamma_interior(a, e, d, t0=None):
    """gamma for 0 < a*d < 1 (1-D arrays), plus the minimiser's t = log u and weights."""
    u, (tlo, thi) = minimiser_u(a, e, d, t0)
    la, lb = _log_terms_shifted(a, e, d, u)
    g = _log_sum_shifted(a, e, d, u) / (a - 1.0)
    return g, np.log(u), u, la, lb


def _prep(*xs):
    arrs = np.broadcast_arrays(*[np.asarray(x, dtype=float) for x in xs])
    shape = arrs[0].shape
    return shape, [x.ravel().copy() for x in arrs]


def gamma_exact(alpha, eps, delta):
    """gamma_alpha^eps(delta) of Asoodeh et al. 2021, Theorem 3, eq. (20), elementwise (broadcasting).

    Closed forms: eq. (22) where alpha*delta >= 1.  Accuracy about 1e-13
    relative (float rounding of the log-objective; see module docstring).
    Raises DomainError for alpha <= 1, eps < 0, delta outside (0, 1) or NaN.
    """
    K.check_alpha(alpha)
    K.check_nonneg(eps, "epsilon")
    K.check_open01(delta, "delta")
    shape, (a, e, d) = _prep(alpha, eps, delta)
    out = np.empty_like(a)
    big = a * d >= 1.0
    out[big] = K.gamma_large_delta(a[big], e[big], d[big])
    sm = ~big
    if sm.any():
        out[sm] = _gamma_interior(a[sm], e[sm], d[sm])[0]
    return out.reshape(shape)


# ----------------------------------------------------------------------------- eps_alpha^delta(gamma)
def eps_exact(alpha, gamma, delta):
    """eps_alpha^delta(gamma) (Asoodeh et al. 2021, eq. (14)): the smallest eps such that every
    (alpha, gamma)-RDP mechanism is (eps, delta)-DP, i.e. the root in eps of
    gamma_alpha^eps(delta) = gamma (Theorem 3, eq. (20)).

    Closed case alpha*delta >= 1: eq. (24).  Otherwise a bracketed Newton
    iteration in eps on [0, Lemma 1 bound (25)], with d gamma/d eps from the
    envelope theorem.  Rounded up (privacy guarantee).
    """
    K.check_alpha(alpha)
    K.check_nonneg(gamma, "gamma")
    K.check_open01(delta, "delta")
    shape, (a, g, d) = _prep(alpha, gamma, delta)
    out = np.zeros_like(a)
    big = a * d >= 1.0
    out[big] = round_up(K.eps_large_delta(a[big], g[big], d[big]))
    sm = (~big) & (g > 0)
    if sm.any():
        out[sm] = _eps_interior(a[sm], g[sm], d[sm])
    return out.reshape(shape)


def _eps_interior(a, g, d):
    n = a.size
    kern = derived_kernels()
    res = np.zeros(n)
    g0 = _gamma_interior(a, np.zeros(n), d)[0]
    need = g0 < g          # else eps = 0 already suffices
    if not need.any():
        return res
    a, g, d = a[need], g[need], d[need]
    hi = K.eps_asoodeh_small_delta(a, g, d)
    hi = hi * (1 + 1e-9) + 1e-12                 # a strict upper bracket (eq. (25) is an upper bound)
    lo = np.zeros_like(hi)
    tcache = np.full(a.size, np.nan)

    def fun(e, idx):
        t0 = tcache[idx]
        gam, t, u, la, lb = _gamma_interior(a[idx], e, d[idx], np.where(np.isfinite(t0), t0, np.nan))
        tcache[idx] = t
        wb = K.expit(lb - la)
        dgam = 1.0 + wb * kern["dB_deps"](a[idx], np.exp(-e), d[idx], u) / (a[idx] - 1.0)
        return gam - g[idx], dgam

    # start next to the Lemma 1 bound (eq. (25)): it is within a few per cent of the root,
    # so Newton needs fewer iterations than from the midpoint (measured in bench_routes)
    _, ehi, _ = bracketed_newton(fun, lo, hi, hi * 0.995, rtol=_RTOL_OUT, atol=1e-300,
                                 what="eps_alpha^delta(gamma) inversion (Asoodeh et al. 2021, eq. (14))")
    res[need] = round_up(ehi)
    return res


# ----------------------------------------------------------------------------- delta_alpha^eps(gamma)
LOG_DELTA_FLOOR = np.log(1e-300)


def delta_exact(alpha, gamma, eps):
    """delta_alpha^eps(gamma) (Asoodeh et al. 2021, eq. (13)): the smallest delta such that every
    (alpha, gamma)-RDP mechanism is (eps, delta)-DP, i.e. the root in delta of
    gamma_alpha^eps(delta) = gamma.

    Closed case: delta = 1 - e^(eps-gamma) when that is >= 1/alpha (eq. (22)).
    Otherwise bracketed Newton in log(delta) on (lo, min(1/alpha, Thm. 4 g-inverse)];
    results below 1e-300 are reported as 1e-300 (an upper bound).  Rounded up.
    """
    K.check_alpha(alpha)
    K.check_nonneg(gamma, "gamma")
    K.check_nonneg(eps, "epsilon")
    shape, (a, g, e) = _prep(alpha, gamma, eps)
    out = np.zeros_like(a)
    with np.errstate(over="ignore"):
        closed = -np.expm1(e - g)                       # eq. (22) solved for delta
    big = closed >= 1.0 / a
    out[big] = round_up(closed[big])
    sm = (~big) & (g > 0)
    if sm.any():
        out[sm] = _delta_interior(a[sm], g[sm], e[sm])
    return np.minimum(out, 1.0).reshape(shape)


def _delta_interior(a, g, e):
    kern = derived_kernels()
    hi = np.minimum(np.log(1.0 / a) + np.log1p(-1e-15),
                    K.log_zeta(a) + (a - 1.0) * (g - e))  # Thm. 4's g inverted: g(delta_hi) = gamma
    res = np.empty(a.size)
    # lower bracket: step down until gamma^eps(delta_lo) < gamma
    lo = hi - 40.0
    for _ in range(20):
        lo = np.maximum(lo, LOG_DELTA_FLOOR)
        gl = _gamma_interior(a, e, np.exp(lo))[0]
        bad = (gl >= g) & (lo > LOG_DELTA_FLOOR)
        if not bad.any():
            break
        lo = np.where(bad, lo - 80.0, lo)
    floor = (gl >= g)
    res[floor] = np.exp(LOG_DELTA_FLOOR)
    ok = ~floor
    if ok.any():
        a2, g2, e2, lo2, hi2 = a[ok], g[ok], e[ok], lo[ok], hi[ok]
        tcache = np.full(a2.size, np.nan)

        def fun(s, idx):
            d = np.exp(s)
            gam, t, u, la, lb = _gamma_interior(a2[idx], e2[idx], d, tcache[idx])
            tcache[idx] = t
            wa, wb = K.expit(la - lb), K.expit(lb - la)
            W = np.exp(-e2[idx])
            dl = (wa * kern["dA_ddelta"](a2[idx], W, d, u) + wb * kern["dB_ddelta"](a2[idx], W, d, u))
            return gam - g2[idx], d * dl / (a2[idx] - 1.0)

        _, shi, _ = bracketed_newton(fun, lo2, hi2, 0.5 * (lo2 + hi2), rtol=2e-15, atol=_RTOL_OUT,
                                     what="delta_alpha^eps(gamma) inversion (Asoodeh et al. 2021, eq. (13))")
        res[ok] = round_up(np.exp(shi))
    return res
