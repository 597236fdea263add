"""The exact privacy profile of the T-fold Gaussian mechanism: the ground truth
against which every RDP-route epsilon is checked for soundness.

T-fold composition of N(f(d), sigma^2 I) with L2 sensitivity Delta is the
Gaussian mechanism with mu = sqrt(T) Delta / sigma (Asoodeh et al. 2021, Sec. V: the composition
has variance sigma^2/T; its trade-off function is G_mu, eq. (41), (50)), and

    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)        (Asoodeh et al. 2021, eq. (40))

(Asoodeh et al. 2021, eq. (40) is the case T = 1, Delta = 1, mu = 1/sigma.)  ``log_delta_exact`` and
``mu_of`` are the generated kernels of the library quantities ``gauss_log_delta`` (log space,
``log_ndtr``) and ``gauss_mu``; ``log_delta_float`` is a hand copy kept for the SciPy-free scalar
start of a search; ``delta_upper`` adds the float-error allowance (rounding, not a formula); ``eps_exact`` inverts it by a bracketed
Newton iteration (d delta/d eps = -e^eps Phi(-eps/mu - mu/2)) and returns the
upper end of the final bracket, rounded up: an epsilon never below the truth.
"""
from __future__ import annotations

import math

import numpy as np

from . import _kernels_generated as G
from . import kernels as K
from .solvers import bracketed_newton, round_up

__all__ = ["mu_of", "log_delta_exact", "log_delta_float", "delta_exact", "delta_upper", "eps_exact"]

CITATION = "Asoodeh et al. 2021, eq. (40) with mu = sqrt(T) Delta/sigma (Gaussian trade-off G_mu, Asoodeh et al. 2021, eqs. (41), (50))"


def mu_of(sigma, steps=1, sensitivity=1.0):
    """mu = sqrt(T) Delta / sigma of the T-fold Gaussian mechanism (GENERATED: the library
    quantity ``gauss_mu``; arguments checked by the shared validators)."""
    s = K.check_positive(sigma, "sigma")
    t = K.check_steps(steps)
    d = K.check_positive(sensitivity, "sensitivity")
    return G.gauss_mu(s, t, d)


def log_delta_exact(eps, mu):
    """log delta(eps) of Asoodeh et al. 2021, eq. (40) generalised to mu: log(Phi(a) - e^eps Phi(b)),
    a = -eps/mu + mu/2, b = -eps/mu - mu/2, as logPhi(a) + log1p(-exp(eps + logPhi(b) - logPhi(a)))
    (GENERATED: the library quantity ``gauss_log_delta`` in its stable form)."""
    return G.gauss_log_delta(eps, mu)


def log_delta_float(eps: float, mu: float) -> float:
    """``log_delta_exact`` for floats without SciPy (``kernels.log_ndtr_scalar``, 2e-14
    relative): for search starts (the calibration's first guess), not for guarantees;
    -inf where the difference cancels below 1e-15 relative.  HAND: the same formula in
    ``math`` for the SciPy-free start-up path (a printer targets NumPy/SciPy).
    HAND (tests/test_kernel_ties.py): SciPy-free scalar copy for the start-up path (math, log_ndtr_scalar)."""
    la = K.log_ndtr_scalar(-eps / mu + mu / 2)
    r = eps + K.log_ndtr_scalar(-eps / mu - mu / 2) - la
    return la + math.log(-math.expm1(r)) if r < -1e-15 else -math.inf


def _log_slope(e, mu):
    """log(-d delta/d eps) = eps + log Phi(-eps/mu - mu/2), the Newton slope of ``eps_exact`` and
    ``_certify_eps``.  HAND (tests/test_writings.py): a solver's step only (the bracket and
    ``delta_upper`` decide the value); tied to d/d eps of the library's ``gauss_delta``."""
    return e + K.log_ndtr(-e / mu - mu / 2)


def delta_exact(eps, sigma, steps=1, sensitivity=1.0):
    """delta(eps) of the T-fold Gaussian mechanism (Asoodeh et al. 2021, eq. (40)); exact."""
    K.check_nonneg(eps, "epsilon")
    return G.gauss_delta(eps, mu_of(sigma, steps, sensitivity))


def eps_exact(delta, sigma, steps=1, sensitivity=1.0):
    """The smallest eps >= 0 with delta(eps) <= delta for the T-fold Gaussian
    (inverse of Asoodeh et al. 2021, eq. (40)); rounded up (never below the truth).
    HAND (tests/test_kernel_ties.py): root finding: bracketed Newton on the generated kernels, rounded up (a solver, not a formula)."""
    d = K.check_open01(delta, "delta")
    mu = mu_of(sigma, steps, sensitivity)
    d, mu = np.broadcast_arrays(d, mu)
    shape = d.shape
    d, mu = d.ravel().astype(float), mu.ravel().astype(float)
    ld = np.log(d)
    out = np.zeros(d.size)
    need = log_delta_exact(0.0, mu) > ld
    # mu > 1e150: eps(delta) >= mu^2/2 - mu sqrt(2 log(1/delta)) is beyond the largest double
    # (the bracket below overflows): no finite eps is certified
    huge = need & (mu > 1e150)
    out[huge] = np.inf
    need &= ~huge
    if need.any():
        m, l = mu[need], ld[need]
        # upper bracket: delta(eps) <= exp(-(eps - mu^2/2)^2/(2 mu^2)) (Gaussian tail), so
        # eps_hi = mu^2/2 + mu sqrt(2 log(1/delta)) satisfies delta(eps_hi) <= delta
        hi = m * m / 2 + m * np.sqrt(-2 * l) + 1e-12
        lo = np.zeros_like(hi)

        def fun(e, idx):
            mm = m[idx]
            lde = log_delta_exact(e, mm)
            # f = log(delta_target) - log delta(eps): increasing in eps
            dlog = -np.exp(_log_slope(e, mm) - lde)
            return l[idx] - lde, -dlog

        _, ehi, _ = bracketed_newton(fun, lo, hi, None, rtol=1e-14, atol=1e-300,
                                     what="exact Gaussian eps(delta) (Asoodeh et al. 2021, eq. (40))")
        out[need] = _certify_eps(round_up(ehi), m, np.exp(l))
    return out.reshape(shape)


def delta_upper(eps, mu):
    """delta(eps) of G_mu (Asoodeh et al. 2021, eq. (40)) plus a bound on its float error: Phi(a) - e^eps Phi(b)
    cancels when mu is small (a - b = mu), so the computed value can fall ~u/mu below
    the truth; the allowance (8 + 4|log Phi(a)| + 4|eps + log Phi(b)|) u (Phi(a) + e^eps Phi(b))
    covers the subtraction and log_ndtr's few-ulp error in the log.  An upper bound (never 0: delta(eps) > 0 always).
    HAND (tests/test_kernel_ties.py): float-error allowance added to the generated profile (outward rounding)."""
    e, m = np.asarray(eps, dtype=float), np.asarray(mu, dtype=float)
    la, lb = K.log_ndtr(-e / m + m / 2), K.log_ndtr(-e / m - m / 2)
    with np.errstate(over="ignore"):
        r = np.exp(e + lb - la)
        # log_ndtr errs by a few ulp of its (large, in the tails) value: relative error
        # ~ |log Phi| u in Phi itself, on top of the subtraction's rounding
        slack = (8 + 4 * np.abs(la) + 4 * np.abs(lb + e)) * np.finfo(float).eps * np.exp(la) * (1 + r)
    return np.maximum(round_up(np.exp(log_delta_exact(e, m)) + slack), np.nextafter(0.0, 1.0))


def _certify_eps(e, mu, d, iters: int = 60):
    """Raise eps until the certified delta_upper(eps, mu) <= d (Newton steps on the
    allowance; d delta/d eps = -e^eps Phi(-eps/mu - mu/2)).  Raises if it cannot."""
    e = np.array(e, dtype=float, copy=True)
    for _ in range(iters):
        over = delta_upper(e, mu) > d
        if not over.any():
            return e
        slope = np.exp(_log_slope(e, mu))
        step = (delta_upper(e, mu) - d) / np.maximum(slope, 1e-300)
        e = np.where(over, round_up(e + 1.5 * step + 1e-15 * np.maximum(e, 1.0)), e)
    raise K.DomainError("delta", float(np.min(d)), "a value the Gaussian profile resolves in "
                        "double precision (certification of eps did not settle)")
