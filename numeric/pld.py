"""Exact numerical composition by the privacy-loss distribution (PLD), with
certified upper and lower bounds.

For one step with densities p (first hypothesis) and q (second), the privacy
loss is L = log(q/p) and the *PLD* is its law under Q (plus a mass at +oo where
p = 0 < q).  For any eps in R (Zheng et al. 2020, Lemma 5.1)

    delta(eps) = int (q - e^eps p)_+ = E_Q[(1 - e^{eps - L})_+] + Q[L = +oo],

and losses add under composition, so the n-fold PLD is the n-fold convolution
of the one-step PLD (the fast replacement of Zheng et al. 2020, Sec. 5.1's O(nN) recursion,
see ``numeric.recursion``).  The map omega -> E_omega[g_eps(sum of n draws)],
g_eps(L) = (1 - e^{eps - L})_+, is monotone in each factor for

* the usual order (g_eps is increasing in L): rounding losses **up** gives an
  upper bound, rounding **down** a lower bound; and
* the convex order in u = e^{-L} (g_eps is convex in u): a mean-preserving
  *spread* of u gives an upper bound, a *contraction* (replacing the mass of a
  cell by a point at its conditional mean of u) a lower bound.

Discretisation on the lattice h Z (``value_discretization`` = h):

* **pessimistic** ("connect the dots", Doroshenko et al. 2022): the Q-mass of
  each bin [kh, (k+1)h] is split between its two ends so that the mass and
  E_Q[e^{-L}] are kept (a spread); Q-mass below the range is rounded up to its
  lowest point, mass above the range goes to +oo.  delta is exact at lattice
  eps for one step and the n-fold error is O(n h^2) instead of O(n h).
* **optimistic**: cells [b_k, b_{k+1}] around the lattice points g_k = kh are
  contracted to their conditional mean of u and rounded down to g_k; the cell
  ends are shifted by O(h^2) (from the local log-density slope of L) so that the
  conditional mean sits at g_k up to O(h^4); any residual imbalance is removed by
  rounding a thin bottom slice down to g_{k-1}.  Mass below the range is dropped,
  mass above is rounded down to the top point.  Where the loss law piles up against a
  sharp edge within a few lattice steps (log(1 - q) of a subsampled mechanism at small q)
  this rounding costs O(h) per step; the direction giving the lower end is then
  recomposed on the lattice h/2 (``_refine_optimistic``).

The bin integrals are computed by composite Gauss-Legendre quadrature in the
mechanism's own variable x (weights e.g. -expm1(-t)/-expm1(-h) formed without
cancellation).

n-fold composition: one real FFT of a circular buffer covering a window
[lo, hi] of the n-fold sum chosen by Chernoff bounds, P[S >= hi] <= exp(n K(l) - l hi),
so that the mass outside the window is at most ``tail_bound`` (~1e-18).
Aliased mass (outside mass folded into the window by the circular convolution)
and the floating-point error of the FFT are accounted for rigorously:

    upper:  delta <= sum_window c_j g_eps(l_j) + T_out + E_fft + Q_n[+oo]
    lower:  delta >= sum_window c_j g_eps(l_j) - (mass T_out + E_fft removed
            greedily from the top of the window) + Q_n[+oo]

with E_fft a componentwise a-priori bound on the error of forward FFT, n-th
power (polar form) and inverse FFT (``_fft_error_bound``).  Quadrature of the
one-step bin integrals is trusted to ~1e-15 relative.

Mechanisms: ``gaussian(mu, steps)`` (N(0,1) vs N(mu,1)), ``laplace(theta, steps)``
(Lap(0,b) vs Lap(theta,b), Zheng et al. 2020, Sec. 5.2), ``subsampled_gaussian(sigma, q, steps)``
(Poisson subsampling; both neighbouring directions: "remove" is
N(0,1) vs q N(1/sigma,1) + (1-q) N(0,1), Zheng et al. 2020, App. C, i.e. the paper's
g = (q G_{1/sigma} + (1-q) Id)^{(x)n}; "add" is the reverse order, g^{-1}; the
worse is reported), ``discrete(p, q, steps)`` (a pair of pmfs).  Fixed-size batches
(sampling without replacement, replace-one neighbours; ``fixed_gaussian_models``,
``fixed_laplace_models``, ``fixed_discrete_models``): the upper bound composes the symmetric
dominating pair min{f_gamma, f_gamma^{-1}}** (Dong, Roth, Su 2019 Thm. 4.2, quoted by Zheng et al. 2020
Sec. 2), the lower bound the worse of the two attained fixed orders (section "fixed-size
batches" below).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from numpy.fft import irfft, rfft

from derive.errors import DomainError

from .kernels import expit, ndtr, ndtri, next_fast_len   # NumPy/math only: no scipy at start-up
from . import cumulants as C
from . import fdp
from . import kernels as K
from .solvers import round_down, round_up

from .pld_lattice import *   # noqa: F401,F403  (the engine and the models, re-exported)
from .pld_lattice import (_EPS, _LOG2PI_2, _GL_RULES, _integrate, _one, _atoms_contracted,  # noqa: F401
                          LossModel, DiscretePLD, discretise, TAIL_BOUND, SIGMA_MIN_SUBSAMPLED,
                          MAX_ONE_STEP_BINS, DEFAULT_RESOLUTION, CHERNOFF_BLOCKS, COMPOSITE_BINS)
from .pld_compose import *   # noqa: F401,F403
from .pld_compose import (Composed, compose, convolve, _window, _dft_accurate, _Lattice,  # noqa: F401
                          _delta_from, _eps_from, _profile_arrays, MAX_WINDOW_BINS)
from .pld_result import *    # noqa: F401,F403
from .pld_result import (PLDResult, CompositePLD, composite, lines_envelope, _choose_h,  # noqa: F401
                         _steps, _role, UPPER_ONLY, LOWER_ONLY)
from .pld_models import *    # noqa: F401,F403
from .pld_models import (_gauss_model, _laplace_model, _mixture_models, _discrete_model,  # noqa: F401
                         DISCRETE_H, MAX_DGAUSS_ATOMS, gaussian_models, laplace_models,
                         mixture_models, discrete_models, discrete_gaussian_models,
                         fixed_discrete_gaussian_models, subsampled_laplace_models,
                         fixed_gaussian_models, fixed_laplace_models, fixed_discrete_models)

__all__ = ["PLDResult", "gaussian", "laplace", "subsampled_gaussian", "discrete",
           "LossModel", "discretise", "compose", "lines_envelope", "fixed_gaussian_models",
           "fixed_laplace_models", "fixed_discrete_models", "discrete_gaussian_models",
           "fixed_discrete_gaussian_models"]


def gaussian(mu, steps=1, *, value_discretization=None, resolution=DEFAULT_RESOLUTION,
             tail_bound=TAIL_BOUND, bounds="both") -> PLDResult:
    """n-fold N(0,1) vs N(mu,1) (exactly G_{mu sqrt(n)}; here as a test of the machinery)."""
    m = float(K.check_positive(mu, "mu"))
    models = {"single": _gauss_model(m)}
    h = _choose_h(models, value_discretization, resolution)
    return PLDResult(f"gaussian(mu={m:g})", models, _steps(steps), h, tail_bound, bounds)


def laplace(theta, steps=1, *, scale=1.0, value_discretization=None,
            resolution=DEFAULT_RESOLUTION, tail_bound=TAIL_BOUND, bounds="both") -> PLDResult:
    """n-fold Lap(0, b) vs Lap(theta, b) (Zheng et al. 2020, Sec. 5.2); symmetric, so one direction.
    The lattice step divides theta/b so that the two atoms +-theta/b lie on it."""
    th = float(K.check_positive(theta, "theta"))
    t = th / float(K.check_positive(scale, "scale"))
    models = {"single": _laplace_model(t)}
    h = _choose_h(models, value_discretization, resolution, anchor=t)
    return PLDResult(f"laplace(theta={th:g}, b={scale:g})", models, _steps(steps), h, tail_bound,
                     bounds)


def subsampled_gaussian(sigma, q, steps=1, *, value_discretization=None,
                        resolution=DEFAULT_RESOLUTION, tail_bound=TAIL_BOUND,
                        directions=("remove", "add"), bounds="both") -> PLDResult:
    """n-fold Poisson-subsampled Gaussian mechanism, sensitivity 1, noise sigma, rate q;
    both neighbouring directions unless ``directions`` says otherwise; the worse is reported."""
    s = float(K.check_positive(sigma, "sigma"))
    qq = np.asarray(q, dtype=float)
    if not (qq.ndim == 0 and np.isfinite(qq) and 0 < qq <= 1):
        raise DomainError("q", float(qq) if qq.ndim == 0 else q, "(0, 1]")
    qq = float(qq)
    if qq == 1.0:
        r = gaussian(1.0 / s, steps, value_discretization=value_discretization,
                     resolution=resolution, tail_bound=tail_bound, bounds=bounds)
        r.name = f"subsampled-gaussian(sigma={s:g}, q=1)"
        return r
    if s < SIGMA_MIN_SUBSAMPLED:
        raise DomainError("sigma", s, f"[{SIGMA_MIN_SUBSAMPLED:.6g}, oo) with subsampling (the "
                          "loss cumulants' quadrature covers 1/sigma <= 12)")
    allm = _mixture_models(1.0 / s, qq)
    for d in directions:
        if d not in allm:
            raise DomainError("directions", d, "'remove' and/or 'add'")
    models = {d: allm[d] for d in directions}
    h = _choose_h(models, value_discretization, resolution)
    return PLDResult(f"subsampled-gaussian(sigma={s:g}, q={qq:g})", models, _steps(steps), h,
                     tail_bound, bounds)


def discrete(p, q, steps=1, *, value_discretization=1e-4, tail_bound=TAIL_BOUND,
             bounds="both") -> PLDResult:
    """n-fold composition of a pair of pmfs on a common finite support (order P vs Q:
    the profile delta(eps) = sum (q - e^eps p)_+ and the curve T(P, Q))."""
    p, q = (np.asarray(v, dtype=float).ravel() for v in (p, q))
    for nm, v in (("p", p), ("q", q)):
        if v.size == 0 or not np.all(np.isfinite(v) & (v >= 0)) or abs(v.sum() - 1) > 1e-9:
            raise DomainError(nm, "given vector", "a pmf (non-negative, summing to 1)")
    if p.shape != q.shape:
        raise DomainError("q", f"{q.size} outcomes", f"{p.size} outcomes like p")
    if not np.any((p > 0) & (q > 0)):
        raise DomainError("q", "a pmf disjoint from p", "pmfs sharing an outcome (disjoint supports "
                          "are perfectly distinguishable: delta = 1 at every eps; see fdp.Discrete)")
    models = {"single": _discrete_model(p, q, "discrete")}
    h = _choose_h(models, value_discretization, DEFAULT_RESOLUTION)
    return PLDResult("discrete", models, _steps(steps), h, tail_bound, bounds)
