"""Exact numerical composition by the privacy-loss distribution (PLD), with
certified upper and lower bounds.

For one step with densities p (first hypothesis) and q (second), the privacy
loss is L = log(q/p) and the *PLD* is its law under Q (plus a mass at +oo where
p = 0 < q).  For any eps in R (004 Lemma 5.1)

    delta(eps) = int (q - e^eps p)_+ = E_Q[(1 - e^{eps - L})_+] + Q[L = +oo],

and losses add under composition, so the n-fold PLD is the n-fold convolution
of the one-step PLD (the fast replacement of 004 Sec. 5.1's O(nN) recursion,
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
(Lap(0,b) vs Lap(theta,b), 004 Sec. 5.2), ``subsampled_gaussian(sigma, q, steps)``
(Poisson subsampling; both neighbouring directions: "remove" is
N(0,1) vs q N(1/sigma,1) + (1-q) N(0,1), 004 App. C, i.e. the paper's
g = (q G_{1/sigma} + (1-q) Id)^{(x)n}; "add" is the reverse order, g^{-1}; the
worse is reported), ``discrete(p, q, steps)`` (a pair of pmfs).  Fixed-size batches
(sampling without replacement, replace-one neighbours; ``fixed_gaussian_models``,
``fixed_laplace_models``, ``fixed_discrete_models``): the upper bound composes the symmetric
dominating pair min{f_gamma, f_gamma^{-1}}** (Dong, Roth, Su 2019 Thm. 4.2, quoted in 004
Sec. 2), the lower bound the worse of the two attained fixed orders (section "fixed-size
batches" below).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable
import math

import numpy as np
from numpy.fft import irfft, rfft

from .kernels import expit, ndtr, ndtri, next_fast_len   # NumPy/math only: no scipy at start-up

from derive.errors import DomainError

from . import cumulants as C
from . import fdp
from . import kernels as K
from .solvers import round_down, round_up

__all__ = ["PLDResult", "gaussian", "laplace", "subsampled_gaussian", "discrete",
           "LossModel", "discretise", "compose", "lines_envelope", "fixed_gaussian_models",
           "fixed_laplace_models", "fixed_discrete_models", "discrete_gaussian_models",
           "fixed_discrete_gaussian_models"]

_EPS = np.finfo(float).eps
_LOG2PI_2 = 0.5 * np.log(2 * np.pi)
_GL_X, _GL_W = np.polynomial.legendre.leggauss(8)
TAIL_BOUND = 1e-18          # one-step tail mass beyond the range (each side) and n-fold window tails
SIGMA_MIN_SUBSAMPLED = 1.0 / 12.0   # numeric.cumulants' quadrature range (1/sigma <= 12)
MAX_ONE_STEP_BINS = 2 ** 17        # cap on the default lattice of one step
DEFAULT_RESOLUTION = 0.05  # default h = resolution * (std of one-step loss under Q)
CHERNOFF_BLOCKS = 2 ** 18         # the Chernoff window uses the pmf itself up to this length
MAX_WINDOW_BINS = 2 ** 22          # cap on the n-fold window (memory ~ 0.5 GB): coarser h beyond
COMPOSITE_BINS = 2 ** 18           # lattice points of a heterogeneous composition's windows


# ============================================================================= one-step loss models
@dataclass
class LossModel:
    """The law under Q of the privacy loss L = log(q/p) of one step.

    Continuous part (optional): x ~ Q with log-density ``log_q(x)`` on the support
    (x_lo, x_hi); L(x) increasing with derivative ``dL``; ``x_of`` its inverse (clipped
    to the support); ``mass_below(x)``/``mass_above(x)`` the Q-mass of the continuous
    part beyond x; ``x_tail`` the x-range outside which each tail carries <= TAIL_BOUND.
    Atoms: ``atoms`` = [(loss, Q-mass)] (or an (n, 2) array of them), ``inf_mass`` = Q[L = +oo];
    ``tail_mass`` >= the Q-mass left out of the atoms (a truncated support): +oo in the
    pessimistic discretisation, dropped (loss -oo) in the optimistic one."""

    name: str
    std: float                                   # std of L under Q (sets the default h)
    L: Callable | None = None
    dL: Callable | None = None
    x_of: Callable | None = None
    log_q: Callable | None = None
    mass_below: Callable | None = None
    mass_above: Callable | None = None
    x_tail: tuple[float, float] = (0.0, 0.0)
    atoms: list = field(default_factory=list)
    inf_mass: float = 0.0
    dx_max: float = 0.25                         # panel width of the x-quadrature
    grid_anchor: float | None = None             # h must divide this loss (Laplace atoms)
    own_h: float | None = None                   # its own lattice step when composed alone
    tail_mass: float = 0.0                       # Q-mass not in the atoms (pessimistic: +oo)
    log_q_of: Callable | None = None             # log_q(x) given L(x) (cheaper), optional

    @property
    def continuous(self) -> bool:
        return self.L is not None

    def l_range(self) -> tuple[float, float]:
        """Losses spanned by the continuous part inside the tail cut, and the atoms."""
        if isinstance(self.atoms, np.ndarray):
            vals = [float(self.atoms[:, 0].min()), float(self.atoms[:, 0].max())] if len(self.atoms) else []
        else:
            vals = [a for a, _ in self.atoms]
        if self.continuous:
            vals += [float(self.L(np.array(self.x_tail[0]))), float(self.L(np.array(self.x_tail[1])))]
        return min(vals), max(vals)

    def log_density_L(self, l):
        """log of the Q-density of L at loss l (continuous part)."""
        x = self.x_of(l)
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.log_q(x) - np.log(self.dL(x))


# Gauss-Legendre rules of n nodes and the largest panel "rate" c for which each is used: on a
# panel mapped to s in [-1, 1] the integrand behaves like e^{c s} (c = half-width times the
# log-derivative scale of the density in x, plus half the loss span, the weights being functions
# of e^{-L}), and the n-node rule errs by ~ K_n c^{2n} e^c with K_n = 2^{2n+1} (n!)^4 /
# ((2n+1) ((2n)!)^3) (Davis-Rabinowitz 2.7.12); c_max(n) makes that <= 1e-17 of the panel's
# integral (~2).  Panels with larger c keep the 8-node rule on panels of width <= dx_max.
_GL_RULES = tuple((n, *np.polynomial.legendre.leggauss(n), c) for n, c in
                  ((2, 1.9e-4), (3, 7.3e-3), (4, 0.048), (5, 0.158), (6, 0.35)))


_MAX_PANELS = 2 ** 20


def _integrate(model: LossModel, la, lb, ref, weights):
    """For loss intervals [la_i, lb_i] return, for each weight function w in ``weights``,
    int_{L in [la,lb]} w(L - ref_i) dQ  (continuous part, x clipped to the tail cut).
    ``weights`` may also be one function returning a tuple of weight arrays (shared work)."""
    la, lb, ref = (np.asarray(v, dtype=float) for v in np.broadcast_arrays(la, lb, ref))
    if la.ndim == 1 and la.size > 1 and np.array_equal(la[1:], lb[:-1]):   # adjacent cells
        xall = np.clip(model.x_of(np.append(la[:1], lb)), *model.x_tail)
        xa, xb = xall[:-1], xall[1:]
    else:
        xa = np.clip(model.x_of(la), *model.x_tail)
        xb = np.clip(model.x_of(lb), *model.x_tail)
    xb = np.maximum(xb, xa)
    npan = np.clip(np.ceil((xb - xa) / model.dx_max), 1, 10_000).astype(np.int64)
    if la.ndim == 1 and la.size > 1 and int(npan.sum()) > _MAX_PANELS:
        # bounded memory: blocks of intervals with at most ~_MAX_PANELS panels each (a tiny
        # lattice step under a wide loss range, e.g. tail integrals of subsampled Laplace at
        # t = 40, asks for ~2.5e7)
        cut = np.searchsorted(np.cumsum(npan), np.arange(_MAX_PANELS, int(npan.sum()), _MAX_PANELS))
        parts = [_integrate(model, a, b, r, weights) for a, b, r in
                 zip(np.split(la, cut), np.split(lb, cut), np.split(ref, cut)) if a.size]
        return [np.concatenate(v) for v in zip(*parts)]
    # panels: the intervals of one panel (most) as they are, then the panels of the others
    multi = npan > 1
    single = np.flatnonzero(~multi) if multi.any() else None
    half = (xb - xa) / 2
    mid = xa + half
    with np.errstate(invalid="ignore"):
        dl = np.where(np.isfinite(lb - la), np.abs(lb - la), np.inf)
    rep = None
    if single is not None:
        mi = np.flatnonzero(multi)
        cnt = npan[mi]
        rep = np.repeat(mi, cnt)
        j = np.arange(rep.size) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        width = (xb - xa)[rep] / npan[rep]
        half = np.concatenate((half[single], width / 2))
        mid = np.concatenate((mid[single], xa[rep] + j * width + width / 2))
        dl = np.concatenate((dl[single], dl[rep]))
        idx = np.concatenate((single, rep))
    else:
        idx = None
    rate = half * (np.abs(mid) + half + 1.0 / model.dx_max) + dl / 2
    nodes = np.full(half.size, 8)
    for n, _, _, cmax in _GL_RULES[::-1]:
        nodes[rate <= cmax] = n
    refp = ref if idx is None else ref[idx]
    vals = None
    for n, gx, gw in [(r[0], r[1], r[2]) for r in _GL_RULES] + [(8, _GL_X, _GL_W)]:
        sel = np.flatnonzero(nodes == n)
        if sel.size == 0:
            continue
        hs = half[sel]
        x = mid[sel][:, None] + hs[:, None] * gx[None, :]
        Lx = model.L(x)
        lq = model.log_q_of(x, Lx) if model.log_q_of is not None else model.log_q(x)
        dens = np.exp(lq)
        dens *= np.maximum(hs, 0.0)[:, None] * gw[None, :]      # the weights times the density
        t = Lx - refp[sel][:, None]
        ws = weights(t) if callable(weights) else [w(t) for w in weights]
        if vals is None:
            vals = [np.zeros(half.size) for _ in ws]
        for v, wt in zip(vals, ws):
            v[sel] = np.einsum("ij,ij->i", dens, wt)
    if vals is None:
        return [np.zeros(la.size) for _ in (weights(np.zeros(1)) if callable(weights) else weights)]
    if idx is None:
        return vals
    out = []
    ns = single.size
    for v in vals:
        o = np.bincount(rep, weights=v[ns:], minlength=la.size)
        o[single] = v[:ns]
        out.append(o)
    return out


# ============================================================================= discretisation
@dataclass
class DiscretePLD:
    """A PLD on the lattice h Z: Q-masses ``w`` at losses (k0 + i) h, plus ``inf_mass``."""

    h: float
    k0: int
    w: np.ndarray
    inf_mass: float

    @property
    def losses(self) -> np.ndarray:
        return (self.k0 + np.arange(self.w.size)) * self.h


def _one(t):
    return np.ones_like(t)


def discretise(model: LossModel, h: float, pessimistic: bool) -> DiscretePLD:
    """Pessimistic (spread / round up) or optimistic (contraction / round down)
    discretisation of one step on the lattice h Z (module docstring)."""
    lmin, lmax = model.l_range()
    k_lo, k_hi = int(np.floor(lmin / h)) - 1, int(np.ceil(lmax / h)) + 1
    n = k_hi - k_lo + 1
    w = np.zeros(n)
    inf_mass = float(model.inf_mass) + (float(model.tail_mass) if pessimistic else 0.0)
    grid = (k_lo + np.arange(n)) * h
    if model.continuous:
        if pessimistic:
            w += _continuous_pessimistic(model, h, grid)
            inf_mass += float(model.mass_above(model.x_tail[1]))
        else:
            w += _continuous_optimistic(model, h, grid)
    if isinstance(model.atoms, np.ndarray):              # many atoms (the discrete Gaussian)
        _atoms_vectorised(model.atoms, w, grid, h, pessimistic)
    for loss, mass in ([] if isinstance(model.atoms, np.ndarray) else model.atoms):
        if mass <= 0:
            continue
        j = (loss - grid[0]) / h
        i = int(np.floor(j))
        frac = j - i
        if abs(frac) < 1e-12 or abs(frac - 1) < 1e-12:     # on the lattice
            w[int(round(j))] += mass
        elif pessimistic:                                   # spread keeping mass and E[e^-L]
            t = loss - grid[i]
            up = mass * (-np.expm1(-t)) / (-np.expm1(-h))
            w[i + 1] += up
            w[i] += mass - up
        else:
            w[i] += mass                                    # round down
    nz = np.nonzero(w > 0)[0]
    if nz.size == 0:
        return DiscretePLD(h, 0, np.zeros(1), inf_mass)
    return DiscretePLD(h, k_lo + int(nz[0]), w[nz[0]: nz[-1] + 1].copy(), inf_mass)


def _atoms_vectorised(atoms: np.ndarray, w: np.ndarray, grid: np.ndarray, h: float,
                      pessimistic: bool) -> None:
    """``discretise``'s treatment of many atoms (an (n, 2) array): on the lattice kept; off it
    spread keeping mass and E[e^-L] (pessimistic), or (optimistic) contracted by cells,
    ``_atoms_contracted``."""
    loss, mass = atoms[:, 0], atoms[:, 1]
    keep = mass > 0
    loss, mass = loss[keep], mass[keep]
    if not pessimistic:
        _atoms_contracted(loss, mass, w, grid, h)
        return
    j = (loss - grid[0]) / h
    i = np.floor(j).astype(np.int64)
    frac = j - i
    on = (np.abs(frac) < 1e-12) | (np.abs(frac - 1) < 1e-12)
    np.add.at(w, np.rint(j[on]).astype(np.int64), mass[on])
    off = ~on
    io, mo = i[off], mass[off]
    if pessimistic:
        up = mo * (-np.expm1(-(loss[off] - grid[io]))) / (-np.expm1(-h))
        np.add.at(w, io + 1, up)
        np.add.at(w, io, mo - up)
    else:
        np.add.at(w, io, mo)


def _atoms_contracted(loss, mass, w, grid, h) -> None:
    """Optimistic discretisation of many atoms, O(h^2) per step where they are dense: the
    atoms of the cell (g_k - h/2, g_k + h/2] (sorted by loss) have imbalance S = sum m_i
    (e^{-(l_i - g_k)} - 1); if S <= 0 their conditional mean of u = e^{-L} is at most e^{-g_k}
    and the cell is contracted to one point of loss >= g_k, rounded down to g_k.  Otherwise the
    lowest atoms (each with a positive term) are moved, whole and the last one in part, to
    g_{k-1} (their losses exceed g_k - h/2 > g_{k-1}: rounded down) until what is left has
    imbalance <= 0 and is contracted and rounded down to g_k as before.  A contraction followed
    by rounding down: a lower bound (module docstring).  The sums carry a bound on their float
    error (added to the amount moved down, which is always valid)."""
    order = np.argsort(loss, kind="stable")
    loss, mass = loss[order], mass[order]
    c = np.floor(loss / h + 0.5).astype(np.int64)                 # nearest lattice point
    v = mass * np.expm1(-(loss - c * h))                          # > 0 below g_k
    n = v.size
    new = np.diff(c, prepend=c[0] - 1) != 0
    starts = np.flatnonzero(new)
    cell = np.cumsum(new) - 1
    last = np.append(starts[1:], n)[cell] - 1                     # last index of the cell
    cs = np.concatenate(([0.0], np.cumsum(v)))                    # cs[i] = sum_{t < i} v_t
    ca = np.concatenate(([0.0], np.cumsum(np.abs(v))))
    base = cs[starts[cell]]
    S = cs[last + 1] - base                                       # the cell's imbalance
    err = 2 * (n + 8) * _EPS * (ca[last + 1] + ca[starts[cell]])
    target = S + err                                              # positive terms to move down
    before = cs[:n] - base                                        # prefix sums of the cell, i excluded
    upto = before + v
    pos = v > 0
    frac = np.where(upto <= target, 1.0,
                    np.where(before < target, (target - before) / np.where(pos, v, 1.0), 0.0))
    frac = np.where(pos & (target > 0), np.clip(frac, 0.0, 1.0), 0.0)
    down = mass * frac
    k = c - int(round(grid[0] / h))
    np.add.at(w, k, mass - down)
    np.add.at(w, k - 1, down)


def _continuous_pessimistic(model: LossModel, h: float, grid: np.ndarray) -> np.ndarray:
    em1h, e1h = -np.expm1(-h), np.expm1(-h)

    def down_up(t):
        e = np.expm1(-t)
        return np.clip(e - e1h, 0, None) / em1h, np.clip(-e, 0, None) / em1h
    a, b = _integrate(model, grid[:-1], grid[1:], grid[:-1], down_up)
    w = np.zeros(grid.size)
    w[:-1] += a
    w[1:] += b
    # Q-mass below the tail cut has loss < L(x_tail[0]) < grid[1]: round it up to grid[1]
    w[1] += float(model.mass_below(model.x_tail[0]))
    return w


def _cell_shift(model: LossModel, h: float, b: np.ndarray) -> np.ndarray:
    """O(h^2) shift of the cell ends that centres each cell's conditional mean of
    e^{-L} on its lattice point: s = (1/2 - kappa) h^2/12, kappa the log-density
    slope of L at the cell end (any shift gives a valid bound; this one a tight one)."""
    d = h / 8
    with np.errstate(invalid="ignore"):
        kappa = (model.log_density_L(b + d) - model.log_density_L(b - d)) / (2 * d)
    s = (0.5 - kappa) * h * h / 12
    return np.clip(np.nan_to_num(s, nan=0.0, posinf=0.0, neginf=0.0), -h / 4, h / 4)


def _continuous_optimistic(model: LossModel, h: float, grid: np.ndarray) -> np.ndarray:
    ends = np.concatenate((grid - h / 2, [grid[-1] + h / 2]))
    ends = ends + _cell_shift(model, h, ends)
    lo, hi = ends[:-1], ends[1:]
    phi = lambda t: np.expm1(-t)                                                  # noqa: E731
    mass, imb = _integrate(model, lo, hi, grid, (_one, phi))
    w = mass.copy()
    bad = np.nonzero(imb > 0)[0]              # conditional mean of L below g_k: fix by a slice
    if bad.size:
        slice_mass = _bottom_slices(model, h, grid[bad], lo[bad], imb[bad])
        moved = np.minimum(slice_mass, w[bad])
        w[bad] -= moved
        below = np.maximum(bad - 1, 0)
        np.add.at(w, below, np.where(bad > 0, moved, 0.0))   # bottom cell: drop (-> -oo)
    # Q-mass beyond the tail cuts is dropped (moved to loss -oo): optimistic
    return w


def _bottom_slices(model: LossModel, h, g, lo, imb):
    """Q-mass of the thinnest tried bottom slice [lo, lo + s] of each cell whose removal
    leaves a non-positive imbalance int (e^{-(L-g)} - 1) dQ <= 0 (so the rest may be
    rounded down to g).  Tries s = s0 (1.001, 1.01, 1.1, 2, 8) with the linear estimate s0
    (at least 1e-9 h), then the whole lower half [lo, g], which always works."""
    phi = lambda t: np.expm1(-t)                                                  # noqa: E731
    with np.errstate(invalid="ignore", over="ignore"):
        dens = np.exp(model.log_density_L(lo))
        s0 = imb / (np.expm1(-(lo - g)) * dens)
    s0 = np.where(np.isfinite(s0) & (s0 > 0), s0, np.inf)
    chosen = np.full(g.size, np.nan)
    out = np.zeros(g.size)
    s_min = 1e-9 * h                          # keeps the slice resolvable in floating point
    for f in (1.001, 1.01, 1.1, 2.0, 8.0):
        todo = np.isnan(chosen)
        if not todo.any():
            break
        s = np.minimum(np.maximum(s0 * f, s_min), g - lo)
        m, j = _integrate(model, lo[todo], lo[todo] + s[todo], g[todo], (_one, phi))
        ok = j >= imb[todo]
        ii = np.nonzero(todo)[0][ok]
        chosen[ii] = s[ii]
        out[ii] = m[ok]
    todo = np.isnan(chosen)
    if todo.any():
        m, = _integrate(model, lo[todo], g[todo], g[todo], (_one,))
        out[todo] = m
    return out


# ============================================================================= composition
@dataclass
class Composed:
    """n-fold composition of a DiscretePLD restricted to a window: masses ``c`` at
    losses (j0 + i) h (aliasing included), ``t_out`` >= mass outside the window,
    ``fft_err`` >= sum of absolute floating-point errors of c, and the +oo mass."""

    h: float
    j0: int
    c: np.ndarray
    t_out: float
    fft_err: float
    inf_mass: float
    cache: dict = field(default_factory=dict, repr=False)

    @property
    def losses(self) -> np.ndarray:
        if "losses" not in self.cache:
            self.cache["losses"] = (self.j0 + np.arange(self.c.size)) * self.h
        return self.cache["losses"]


def _chernoff_end(pmf: DiscretePLD, n: int, ltail: float, sign: float) -> float:
    """min over lam > 0 of (n K(sign lam) - log tail)/lam: a loss t with
    P[sign * S >= t] <= tail (Chernoff).  A pmf longer than ``CHERNOFF_BLOCKS`` is first
    merged into blocks placed at their largest value of sign*loss (a valid bound; the
    blocks are kept small because the shift of the mean, n times the block width, widens
    the window), and any lam is valid.  The objective is unimodal in lam (its derivative has
    the sign of g(lam) = lam n K'(lam) - n K(lam) + log tail, and g' = lam n K'' >= 0), so
    the minimiser is found by safeguarded Newton steps (below) from the Gaussian guess, each
    step one pass over the pmf for K, K' and K''; the value returned is the smallest
    objective evaluated (each is a valid end)."""
    spread = max(pmf.w.size * pmf.h, pmf.h)
    ls = sign * pmf.losses
    w = pmf.w
    if sign < 0:
        ls, w = ls[::-1], w[::-1]
    r = int(np.ceil(w.size / CHERNOFF_BLOCKS))
    wb = np.add.reduceat(w, np.arange(0, w.size, r))
    lb = ls[np.minimum(np.arange(0, w.size, r) + r - 1, w.size - 1)]
    keep = wb > 0
    lw, lb = np.log(wb[keep]), lb[keep]

    c = -ltail                                  # > 0
    if lb.size == 0:
        return np.inf

    def moments(lam):
        """K(lam), K'(lam), K''(lam) in one pass over the (blocked) pmf."""
        x = lw + lam * lb
        xm = float(np.max(x))
        keep = x > xm - 500.0                   # the rest is below 1e-217 of the largest term:
        e, lk = np.exp(x[keep] - xm), lb[keep]  # left out, as subnormal products slow the sums ~20x
        s0 = float(np.sum(e))                   # sums, not np.dot: BLAS threads cost ms per call
        m1 = float(np.sum(e * lk)) / s0
        return xm + np.log(s0), m1, float(np.sum(e * (lk - m1) ** 2)) / s0

    # g(lam) = n (lam K' - K) - c, with lam K' - K = -K(0) + int_0^lam t K''(t) dt >= 0
    # increasing; Newton runs on G(u) = log(n (lam K' - K)) - log c in u = log lam, which is
    # nearly linear both where K is quadratic and where it grows exponentially (a subsampled
    # mixture's upper tail), inside the bracket [lo, hi] kept from the signs of G.
    lo, hi = np.log(1e-2 / spread), np.log(1e5 / spread)
    v0 = n * moments(0.0)[2]                        # Gaussian guess sqrt(2c / (n K''(0)))
    u = float(np.clip(0.5 * np.log(2 * c / v0), lo, hi)) if v0 > 0 else hi
    best = np.inf
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for _ in range(100):
            lam = np.exp(u)
            k, k1, k2 = moments(lam)
            val = (n * k + c) / lam
            a = lam * k1 - k
            G = np.log(n * a) - np.log(c)
            dG = lam * lam * k2 / a
            if not np.isfinite(val):                    # K overflowed: lam is too large
                hi = u
                u = 0.5 * (lo + hi)
                continue
            best = min(best, val)
            if G < 0:
                lo = u
            else:
                hi = u
            nxt = u - G / dG if dG > 0 and np.isfinite(G) else np.nan
            if not lo < nxt < hi:                       # Newton left the bracket: bisect
                nxt = 0.5 * (lo + hi)
            if abs(nxt - u) <= 1e-4 or hi - lo <= 1e-9:  # lam to 1e-4 relative: the value is flat
                break
            u = nxt
    return float(best)


def _window(pmf: DiscretePLD, n: int, tail: float) -> tuple[int, int, float]:
    """Lattice window [J_lo, J_hi] of the n-fold sum with Chernoff tail bounds: returns
    (J_lo, J_hi, bound on the mass outside)."""
    h = pmf.h
    full_lo, full_hi = n * pmf.k0, n * (pmf.k0 + pmf.w.size - 1)
    if n == 1:
        return full_lo, full_hi, 0.0
    ltail = np.log(tail)
    hi = _chernoff_end(pmf, n, ltail, 1.0)
    lo = -_chernoff_end(pmf, n, ltail, -1.0)
    J_hi = min(full_hi, int(np.ceil(hi / h))) if np.isfinite(hi) else full_hi
    J_lo = max(full_lo, int(np.floor(lo / h))) if np.isfinite(lo) else full_lo
    t_out = (tail if J_hi < full_hi else 0.0) + (tail if J_lo > full_lo else 0.0)
    return J_lo, J_hi, t_out


_ULD = float(np.finfo(np.longdouble).eps)
_PI_LD = np.longdouble("3.14159265358979323846264338327950288")   # pi to extended precision
_SIG_LOG = np.log(1e-40)        # Fourier modes with |w^_k|^n below this are dropped (and bounded)
ACCURATE_TARGET = 1e-14         # FFT error budget left to double precision (rest: long double)


def _mult(M: int, k: np.ndarray) -> np.ndarray:
    """How often rfft mode k appears in the full spectrum (1 for k = 0 and k = M/2, else 2)."""
    return np.where((k == 0) | ((M % 2 == 0) & (k == M // 2)), 1.0, 2.0)


SPLIT_TAU = 1e-6                # _dft_accurate: mass left to double precision (relative)
SPLIT_MIN = 4096                # ... for pmfs at least this long


def _dft_accurate(w: np.ndarray, M: int, ks: np.ndarray) -> tuple[np.ndarray, float]:
    """``_dft_accurate_block`` over blocks of the modes ``ks`` (bounded memory: each block's
    twiddle matrices hold at most ~2^21 extended-precision entries).  The error bound is
    componentwise, so the blocks' bounds combine by max."""
    nz = int(np.count_nonzero(w))
    per = max(1, 2 ** 21 // max(nz if nz * 8 <= w.size else 2 * int(np.sqrt(w.size)) + 2, 1))
    if ks.size <= per:
        return _dft_accurate_block(w, M, ks)
    outs, errs = zip(*(_dft_accurate_block(w, M, ks[i:i + per]) for i in range(0, ks.size, per)))
    return np.concatenate(outs), max(errs)


def _dft_accurate_block(w: np.ndarray, M: int, ks: np.ndarray) -> tuple[np.ndarray, float]:
    """w^_k = sum_j w_j e^{-2 pi i j k / M} for the modes ``ks`` in extended precision
    (np.longdouble), twiddles as products of a block of powers and block steps.  Returns the
    values and a componentwise error bound.  A long pmf whose mass sits in a short stretch
    [i0, i1) (outside it at most SPLIT_TAU of the mass: a subsampled mechanism's long tails)
    has that stretch summed in extended precision and the rest in double (``_dft_double``:
    its error bound is relative to the little mass outside)."""
    Kw = w.size
    nz = np.flatnonzero(w)
    if nz.size * 8 <= Kw:                                       # sparse: sum over the atoms only
        out = _twiddles_ld(ks, nz, M) @ w[nz].astype(np.clongdouble)
        return out, (nz.size + 16) * 8 * _ULD * float(w.sum())
    if Kw >= SPLIT_MIN:
        mass = float(w.sum())
        cut = SPLIT_TAU * mass
        i0 = int(np.searchsorted(np.cumsum(w), cut, side="right"))       # sum w[:i0] <= cut
        i1 = Kw - int(np.searchsorted(np.cumsum(w[::-1]), cut, side="right"))
        if i1 - i0 <= Kw // 4:
            main, e_main = _dft_blocks_ld(w[i0:i1], M, ks)
            main = main * _twiddles_ld(ks, np.array([i0]), M)[:, 0]   # the stretch starts at i0
            rest = w.copy()
            rest[i0:i1] = 0.0
            out_d, e_out = _dft_double(rest, M, ks)
            return (main + out_d.astype(np.clongdouble),
                    e_main + e_out + 40 * _ULD * mass)
    return _dft_blocks_ld(w, M, ks)


def _dft_double(w: np.ndarray, M: int, ks: np.ndarray) -> tuple[np.ndarray, float]:
    """The same sum in double precision by blocks (j = B m + r: twiddles e^{-2 pi i k r / M}
    and e^{-2 pi i k B m / M} from exact integer angles, one complex matrix product), with the
    bound (2 (B + nblk) + 32) eps sum|w| (each twiddle within a few ulp; the two summation
    stages of B and nblk terms, gamma_n with n the number of terms, complex arithmetic)."""
    Kw = w.size
    B = int(max(1, np.sqrt(Kw)))
    nblk = -(-Kw // B)
    k = ks.astype(np.int64)
    a_small = (-2 * np.pi / M) * ((k[:, None] * np.arange(B)[None, :]) % M)
    a_big = (-2 * np.pi / M) * ((k[:, None] * (B * np.arange(nblk))[None, :]) % M)
    wl = np.zeros(nblk * B)
    wl[:Kw] = w
    # (nblk, ks): sum over r; einsum, not @: BLAS threads cost ms per call on a loaded machine
    blocks = np.einsum("mr,kr->mk", wl.reshape(nblk, B), np.exp(1j * a_small))
    out = np.sum(blocks * np.exp(1j * a_big).T, axis=0)
    return out, (2 * (B + nblk) + 32) * _EPS * float(np.sum(np.abs(w)))


def _twiddles_ld(ks: np.ndarray, js: np.ndarray, M: int) -> np.ndarray:
    """e^{-2 pi i k j / M} in extended precision from the exact integer k j mod M (each within
    ~16 u_ld: the angle to 1.5 u_ld relative, cos and sin to a few u_ld; no chained powers,
    whose error would grow like j times that of the first power)."""
    kj = (ks.astype(np.int64)[:, None] * js.astype(np.int64)[None, :]) % M    # exact (< 2^46)
    if kj.size > 2 * M:     # more twiddles than angles: all M of them once, then a lookup
        r = np.arange(M, dtype=np.longdouble) * (-2 * _PI_LD / np.longdouble(M))
        return (np.cos(r) + 1j * np.sin(r))[kj]
    ang = (-2 * _PI_LD / np.longdouble(M)) * kj.astype(np.longdouble)
    return np.cos(ang) + 1j * np.sin(ang)


def _dft_blocks_ld(w: np.ndarray, M: int, ks: np.ndarray) -> tuple[np.ndarray, float]:
    """``_dft_accurate``'s extended-precision block sum (w from index 0): j = B m + r, with
    twiddles omega^r and omega^{B m} each computed directly (``_twiddles_ld``); their product
    is within ~34 u_ld, and the sums over r and m add (B + nblk) complex roundings."""
    Kw = w.size
    B = int(max(1, np.sqrt(Kw)))
    nblk = -(-Kw // B)
    small = _twiddles_ld(ks, np.arange(B), M)                  # omega_k^r, r < B
    big = _twiddles_ld(ks, B * np.arange(nblk), M)             # omega_k^{B m}
    wl = np.zeros(nblk * B, dtype=np.longdouble)
    wl[:Kw] = w
    wl = wl.reshape(nblk, B)
    out = np.zeros(ks.size, dtype=np.clongdouble)
    for m in range(nblk):
        out += big[:, m] * (small @ wl[m].astype(np.clongdouble))
    err = (2 * B + 2 * nblk + 80) * _ULD * float(w.sum())
    return out, err


def _power_spectrum(w: np.ndarray, n: int, M: int):
    """Spectrum of the n-fold self-convolution on a circular buffer of size M, with a
    bound on sum_j |error of the result| after the inverse FFT (double precision):

    * forward FFT in double; componentwise error e <= 10 u log2(M) sum w;
    * modes with (|w^_k| + e)^n < 1e-40 are dropped (their moduli are added to the bound);
    * for n > 1 the kept modes whose error matters are recomputed in extended precision
      (error e'), since the n-th power amplifies input errors n-fold: n e' A^{n-1} with
      A = |w^_k| + e' (a sparse pmf costs its atoms, not its length);
    * the power in polar form adds u A^n (n |log A| + n pi + 4) (u of its precision);
    * the inverse FFT adds 10 u log2(M) sum |s^_k| plus the rounding of s^ to double."""
    buf = np.zeros(M)
    buf[: w.size] = w
    what = rfft(buf)
    mass = float(w.sum())
    e = 10 * _EPS * np.log2(M) * mass
    A = np.abs(what) + e
    with np.errstate(divide="ignore"):
        logAn = n * np.log(A)
    ks = np.nonzero(logAn > _SIG_LOG)[0]
    err = M * np.exp(_SIG_LOG)                 # the dropped modes: each |s^_k| < 1e-40
    mult = _mult(M, ks)
    z, e_k = what[ks].astype(np.clongdouble), np.full(ks.size, e)
    if n > 1 and ks.size:
        # recompute in extended precision the modes whose double-precision bound
        # n e A^{n-1} is largest, until the rest sum to <= ACCURATE_TARGET
        contrib = mult * n * e * np.exp(logAn[ks] - np.log(A[ks]))
        order = np.argsort(-contrib)
        rest = np.cumsum(contrib[order][::-1])[::-1]
        need = order[rest > ACCURATE_TARGET]
        if need.size and need.size * min(w.size, 8 * np.count_nonzero(w)) <= 6e7:
            z[need], e_k[need] = _dft_accurate(w, M, ks[need])
    z = z.astype(np.clongdouble)              # the power in extended precision (u_ld)
    r = np.abs(z)
    with np.errstate(divide="ignore"):
        lr = n * np.log(r)
    ph = n * np.angle(z)
    sk = np.exp(lr) * (np.cos(ph) + 1j * np.sin(ph))
    Ak = (r + e_k).astype(float)
    lA = np.log(Ak)
    per = n * e_k * np.exp((n - 1) * lA) + _ULD * np.exp(n * lA) * (n * np.abs(lA) + n * np.pi + 4)
    mk = mult
    err += float(np.sum(mk * (per + _EPS * np.exp(n * lA))))
    err += 10 * _EPS * np.log2(M) * float(np.sum(mk * (np.exp(n * lA) + per)))
    spec = np.zeros(what.size, dtype=complex)
    spec[ks] = sk.astype(complex)
    return spec, err


def compose(pmf: DiscretePLD, n: int, tail: float = TAIL_BOUND, window: tuple | None = None) -> Composed:
    """n-fold self-convolution of a lattice PLD by one FFT (module docstring).  ``window`` is
    ``_window(pmf, n, tail)`` when the caller has computed it already."""
    inf_n = float(-np.expm1(n * np.log1p(-pmf.inf_mass))) if pmf.inf_mass > 0 else 0.0
    if n == 1:
        return Composed(pmf.h, pmf.k0, pmf.w.copy(), 0.0, 0.0, pmf.inf_mass)
    J_lo, J_hi, t_out = window if window is not None else _window(pmf, n, tail)
    W = J_hi - J_lo + 1
    M = next_fast_len(max(W, pmf.w.size), real=True)
    spec, err = _power_spectrum(pmf.w, n, M)
    out = irfft(spec, n=M)
    start = (J_lo - n * pmf.k0) % M
    c = out[start:start + W] if start + W <= M else np.concatenate((out[start:], out[: start + W - M]))
    return Composed(pmf.h, J_lo, c, t_out, err, inf_n)


# ============================================================================= delta / epsilon
def _profile_arrays(comp: Composed, upper: bool, cut: float = -np.inf):
    """(losses, A, B, c) restricted to the lattice points from the one just below ``cut``
    on (queries at eps >= cut need no lower point; suffix sums are unaffected).  Cached:
    a computation from a lower start serves every higher cut by slicing."""
    full = _Lattice(comp.j0, comp.h, 0, comp.c.size)
    s = max(0, int(full.searchsorted(cut)) - 1) if np.isfinite(cut) else 0
    key = "upper" if upper else "lower"
    got = comp.cache.get(key)
    if got is None or got[0] > s:
        got = (s,) + _profile_arrays_uncached(comp, upper, s)
        comp.cache[key] = got
    off = s - got[0]
    return _Lattice(comp.j0, comp.h, s, comp.c.size - s), got[1][off:], got[2][off:], got[3][off:]


class _Lattice:
    """The losses (j0 + start + i) h, i < size, of a composed PLD without forming the array
    (the inversions read a few of them): indexing gives exactly the values of
    ``Composed.losses[start:]``; ``searchsorted(v)`` is np.searchsorted(..., side="right")."""

    def __init__(self, j0: int, h: float, start: int, size: int):
        self.j0, self.h, self.start, self.size = int(j0), float(h), int(start), int(size)

    def __getitem__(self, i):
        return (self.j0 + self.start + np.asarray(i, dtype=np.int64)) * self.h

    def searchsorted(self, v):
        """Number of losses <= v (v scalar or array)."""
        v = np.asarray(v, dtype=float)
        with np.errstate(invalid="ignore", over="ignore"):
            g = np.floor(v / self.h) - (self.j0 + self.start) + 1
        i = np.clip(np.nan_to_num(g, nan=0.0, posinf=self.size, neginf=0.0), 0, self.size)
        i = i.astype(np.int64)
        for _ in range(2):                        # v / h rounded: correct by one step each way
            i = np.where((i > 0) & (self[np.maximum(i - 1, 0)] > v), i - 1, i)
            i = np.where((i < self.size) & (self[np.minimum(i, self.size - 1)] <= v), i + 1, i)
        return i


def _profile_arrays_uncached(comp: Composed, upper: bool, s: int):
    """Suffix sums A_j = sum_{i>=j} c_i and B_j = sum_{i>=j} c_i e^{-(l_i - l_j)} for j >= s,
    with c made sound: negative float noise clipped (upper) and, for the lower bound,
    mass T_out + fft_err removed greedily from the top."""
    c = np.clip(comp.c[s:], 0.0, None)
    if not upper:
        budget = comp.t_out + comp.fft_err
        cs = np.cumsum(c[::-1])[::-1]                    # mass at and above j
        above = np.concatenate((cs[1:], [0.0]))          # mass strictly above j
        c = np.clip(c - np.clip(budget - above, 0.0, None), 0.0, None)
    A = np.cumsum(c[::-1])[::-1]
    B = _suffix_discounted(c, comp.h)
    return A, B, c


def _suffix_discounted(c: np.ndarray, h: float) -> np.ndarray:
    """B_j = sum_{i>=j} c_i e^{-(i-j) h} without overflow: one reversed cumulative sum
    of c_i e^{-(i - i0) h} per chunk of losses spanning < 600, chunks chained.  (Few large
    temporaries: each fresh multi-MB array costs page faults comparable to the arithmetic.)"""
    n = c.size
    span = max(1, int(600.0 / h))
    out = np.empty(n)
    carry, carry_at = 0.0, n
    for start in range(((n - 1) // span) * span, -1, -span):
        end = min(n, start + span)
        e = np.arange(end - start, dtype=float)
        e *= -h
        np.exp(e, out=e)                                      # e^{-k h}
        x = c[start:end] * e
        part = np.cumsum(x[::-1])[::-1]
        seg = out[start:end]
        np.divide(part, e, out=seg)                           # * e^{k h}
        if carry:
            seg += (carry * np.exp(-(carry_at - start) * h)) / e
        carry, carry_at = out[start], start
    return out


class _SlackAt:
    """An absolute bound on the float error of A_j - e^{eps - l_j} B_j (e^{eps - l_j} <= 1):
    sequential suffix sums of n terms err by at most (n - 1) u times their sum (Higham), so
    (n + 8) u (|A_j| + |B_j|), n = A.size; indexed on demand (the inversions read it at a few j)."""

    def __init__(self, A, B):
        self.A, self.B, self.f = A, B, (A.size + 8) * _EPS

    def __getitem__(self, j):
        return self.f * (abs(self.A[j]) + abs(self.B[j]))


def _delta_from(comp: Composed, eps: np.ndarray, upper: bool) -> np.ndarray:
    losses, A, B, _ = _profile_arrays(comp, upper, min(0.0, float(np.min(eps, initial=0.0))))
    j = losses.searchsorted(eps)                           # first loss > eps
    inside = j < losses.size
    jj = np.minimum(j, losses.size - 1)
    with np.errstate(over="ignore"):
        val = np.where(inside, A[jj] - np.exp(eps - losses[jj]) * B[jj], 0.0)
    val = np.maximum(val, 0.0)
    extra = comp.inf_mass
    if upper:
        extra += comp.t_out + comp.fft_err
        # the difference cancels (delta << A): cover the float error of the suffix sums
        val = round_up(val * (1 + 64 * _EPS) + np.where(inside, _SlackAt(A, B)[jj], 0.0)
                       + extra)
    else:
        val = round_down(np.maximum(val * (1 - 64 * _EPS), 0.0) + extra)
    return np.clip(val, 0.0, 1.0)


def _eps_from(comp: Composed, delta: np.ndarray, upper: bool) -> np.ndarray:
    """Smallest eps >= 0 with delta_bound(eps) <= delta: exact inversion of the
    piecewise form A_j - e^{eps - l_j} B_j on each lattice interval."""
    losses, A, B, _ = _profile_arrays(comp, upper, 0.0)
    extra = comp.inf_mass + (comp.t_out + comp.fft_err if upper else 0.0)
    scale = (1 + 64 * _EPS) if upper else (1 - 64 * _EPS)
    # delta at the lattice points: D_j = delta(l_j) = A_{j+1} - e^{-h} B_{j+1} (in place: few
    # large temporaries); the upper side adds the _SlackAt bound at j + 1 (A, B >= 0)
    S = _SlackAt(A, B)
    slack = S.f if upper else 0.0
    D = np.empty(A.size)
    np.multiply(B[1:], -np.exp(-comp.h), out=D[:-1])
    D[:-1] += A[1:]
    D[-1] = 0.0
    np.maximum(D, 0.0, out=D)
    D *= scale
    D += extra
    if upper:
        D[:-1] += slack * A[1:]
        D[:-1] += slack * B[1:]
    # make monotone (non-increasing) in the sound direction
    D = np.maximum.accumulate(D[::-1])[::-1] if upper else np.minimum.accumulate(D)
    if not upper:
        S.f = 0.0
    out = np.empty(delta.size)
    for i, d in enumerate(delta.ravel()):
        if extra >= d:
            out[i] = np.inf
            continue
        k = np.searchsorted(-D, -d, side="left")     # first j with D_j <= d
        if k == 0:
            # below the window every loss exceeds eps: delta(eps) = 1*A_0 - e^{eps-l_0} B_0 (+extra)
            num = (A[0] * scale + extra + S[0] - d)
            e = losses[0] + np.log(num / (B[0] * scale)) if num > 0 and B[0] > 0 else -np.inf
        else:
            jn = k                                    # eps in (l_{k-1}, l_k]: losses >= l_k count
            num = A[jn] * scale + extra + S[jn] - d
            e = losses[jn] + np.log(num / (B[jn] * scale)) if num > 0 and B[jn] > 0 else losses[k - 1]
            e = min(max(e, losses[k - 1]), losses[jn])
        out[i] = e
    out = np.maximum(out, 0.0)
    return (round_up(out) if upper else round_down(out)).reshape(delta.shape)


# ============================================================================= optimistic refinement
REFINE_TOL = 1e-2            # refine the optimistic lattice when n * excess > this * sqrt(n) * std


def _u_excess(model: LossModel, pmf: DiscretePLD) -> float:
    """How much the optimistic pmf raises E[e^{-L}] over the model (its atoms and continuous part
    inside the tail cut): the rounding down's loss per step, which n steps turn into a shift of
    about n times it in the losses (nan when e^{-L} overflows)."""
    with np.errstate(over="ignore", invalid="ignore"):
        got = float(np.sum(pmf.w * np.exp(-pmf.losses)))
        true = 0.0
        if model.continuous:
            lo, hi = model.l_range()
            true += float(_integrate(model, np.array([lo - pmf.h]), np.array([hi + pmf.h]),
                                     np.array([0.0]), (lambda t: np.exp(-t),))[0][0])
        if isinstance(model.atoms, np.ndarray):
            true += float(np.sum(model.atoms[:, 1] * np.exp(-model.atoms[:, 0])))
        else:
            true += sum(m * math.exp(-l) for l, m in model.atoms if m > 0)
    return got - true if math.isfinite(got) and math.isfinite(true) else math.nan


def _refine_optimistic(model: LossModel, h: float, pmf: DiscretePLD, win, n: int, tail: float):
    """The optimistic (lower) side of a continuous model on the lattice h/2 when the rounding
    down's loss, n * ``_u_excess``, exceeds REFINE_TOL sqrt(n) std (a sharp bottom edge of the
    loss law, e.g. log(1 - q) of a subsampled mechanism at small q, which the O(h^2) cell
    shifts do not resolve), if its window fits and its excess is smaller.  Any lattice gives a
    certified lower bound: this only chooses a tighter one.  Returns (h, pmf, window)."""
    if not model.continuous or n < 2:
        return h, pmf, win
    ex = _u_excess(model, pmf)
    if not (ex * n > REFINE_TOL * math.sqrt(n) * model.std):
        return h, pmf, win
    h2 = h / 2
    pmf2 = discretise(model, h2, False)
    win2 = _window(pmf2, n, tail)
    if max(win2[1] - win2[0] + 1, pmf2.w.size) > MAX_WINDOW_BINS:
        return h, pmf, win
    ex2 = _u_excess(model, pmf2)
    return (h2, pmf2, win2) if ex2 < ex else (h, pmf, win)


# ============================================================================= the result object
class PLDResult:
    """Certified bounds for the n-fold composition of one or two loss directions.

    ``delta(eps)`` and ``epsilon(delta)`` return ``(lower, upper)`` arrays: the true
    value lies in between (worst case over the directions).  With ``bounds="upper"``
    only the pessimistic side is computed (as fast as a one-sided accountant) and the
    lower bounds reported are the trivial 0.  ``tradeoff(kind)`` returns a
    ``numeric.fdp`` curve: "pessimistic" lies below the true trade-off curve,
    "optimistic" above it.  Compositions are computed on first use and cached."""

    def __init__(self, name: str, models: dict, steps: int, h: float, tail: float = TAIL_BOUND,
                 bounds: str = "both"):
        if bounds not in ("both", "upper"):
            raise DomainError("bounds", bounds, "'both' or 'upper'")
        self.name, self.models, self.steps, self.h = name, models, int(steps), float(h)
        self.tail, self.bounds = float(tail), bounds
        self._parts: dict = {}
        self.h_used: dict = {}
        self._unrefined: dict = {}      # optimistic parts _refine_lower may still refine

    def part(self, direction: str, pessimistic: bool) -> Composed:
        """The composed lattice PLD of one direction (cached).  When the n-fold window
        would exceed ``MAX_WINDOW_BINS`` lattice points the lattice step is coarsened
        (a coarser lattice is still certified, only looser) so that memory stays
        bounded at any number of steps; ``h_used`` records the step of each part."""
        key = (direction, bool(pessimistic))
        if key not in self._parts:
            model = self.models[direction]
            h = model.own_h or self.h
            if pessimistic and model.continuous and model.own_h and model.own_h < self.h:
                # own_h puts the atoms (nearly) on the lattice for the optimistic side, whose
                # rounding down costs O(h) per step; the pessimistic side spreads an off-lattice
                # atom at O(h^2): the default step, anchored at the top atom
                a = model.grid_anchor
                h = a / np.ceil(a / self.h * (1 - 1e-12)) if a else self.h
            lmin, lmax = model.l_range()
            h_min = (lmax - lmin) / MAX_WINDOW_BINS     # the window holds one step at least
            if h < h_min:     # an own step aligned to a small atom under a wide loss range
                a = model.grid_anchor     # (subsampled Laplace at t = 50: 3.7e8 bins)
                h = a / max(1.0, np.floor(a / h_min)) if a and a >= h_min else h_min
            for _ in range(8):
                pmf = discretise(model, h, pessimistic)
                win = _window(pmf, self.steps, self.tail)
                J_lo, J_hi, _ = win
                width = max(J_hi - J_lo + 1, pmf.w.size)
                if width <= MAX_WINDOW_BINS:
                    break
                h = h * 1.25 * width / MAX_WINDOW_BINS
                if model.grid_anchor and h <= model.grid_anchor:   # else: atoms off the lattice
                    h = model.grid_anchor / max(1.0, np.floor(model.grid_anchor / h))
            else:
                raise DomainError("steps", self.steps, "a composition whose PLD window fits "
                                  f"{MAX_WINDOW_BINS} lattice points")
            if not pessimistic:
                self._unrefined[key] = (model, h, pmf, win)
            self.h_used[key] = h
            self._parts[key] = compose(pmf, self.steps, self.tail, window=win)
        return self._parts[key]

    @property
    def parts(self) -> dict:
        """direction -> (optimistic, pessimistic) composed PLDs (computes both; None for the
        side a direction does not bound)."""
        return {d: (self.part(d, False) if _role(d) != "upper" else None,
                    self.part(d, True) if _role(d) != "lower" else None) for d in self.models}

    # --- profiles -----------------------------------------------------------------------------
    def _dirs(self, upper: bool) -> list:
        """The directions that bound from above (pessimistic side) or below (optimistic side):
        a fixed batch's symmetric dominating pair only above, its two fixed orders only below."""
        return [d for d in self.models if _role(d) in ("both", "upper" if upper else "lower")]

    def _both(self, fn, x):
        hi = np.max([fn(self.part(d, True), x, True) for d in self._dirs(True)], axis=0)
        if self.bounds == "upper":
            return np.zeros_like(hi), hi
        dirs = self._dirs(False)
        los = [fn(self.part(d, False), x, False) for d in dirs]
        # the direction(s) giving the lower bound: a finer optimistic lattice where it pays
        for i in sorted(set(np.argmax(los, axis=0).ravel().tolist())):
            if self._refine_lower(dirs[i]):
                los[i] = fn(self.part(dirs[i], False), x, False)
        return np.max(los, axis=0), hi

    def _refine_lower(self, direction: str) -> bool:
        """Replace the optimistic part of ``direction`` by ``_refine_optimistic``'s (once; any
        lattice gives a certified lower bound).  True when it changed."""
        got = self._unrefined.pop((direction, False), None)
        if got is None:
            return False
        model, h, pmf, win = got
        h2, pmf2, win2 = _refine_optimistic(model, h, pmf, win, self.steps, self.tail)
        if h2 == h:
            return False
        self.h_used[(direction, False)] = h2
        self._parts[(direction, False)] = compose(pmf2, self.steps, self.tail, window=win2)
        return True

    def delta(self, eps):
        """(lower, upper) bounds on delta(eps) = sup over the directions of
        int (q - e^eps p)_+ of the composed pair; any real eps."""
        e = np.asarray(eps, dtype=float)
        if not np.all(np.isfinite(e)):
            raise DomainError("epsilon", float(e[~np.isfinite(e)].flat[0]), "finite reals")
        lo, hi = self._both(_delta_from, e.ravel())
        return lo.reshape(e.shape), hi.reshape(e.shape)

    def epsilon(self, delta):
        """(lower, upper) bounds on the smallest eps >= 0 with delta(eps) <= delta
        (upper rounded up, lower rounded down; inf when the +oo mass exceeds delta)."""
        d = K.check_open01(delta, "delta")
        lo, hi = self._both(_eps_from, d.ravel())
        return lo.reshape(d.shape), hi.reshape(d.shape)

    # --- trade-off curves ---------------------------------------------------------------------
    def tradeoff(self, kind: str = "pessimistic", direction: str | None = None,
                 max_atoms: int = 20_000) -> fdp.TradeOff:
        """The trade-off curve of the composed pair(s) as a ``fdp.Discrete``: for two
        directions (subsampling) the symmetrised min{g, g^-1}** (``direction=`` picks one)."""
        if kind not in ("pessimistic", "optimistic"):
            raise DomainError("kind", kind, "'pessimistic' or 'optimistic'")
        pes = kind == "pessimistic"
        dirs = self._dirs(pes) if direction is None else [direction]
        for d in dirs:
            if d not in self.models:
                raise DomainError("direction", d, f"one of {list(self.models)}")
        curves = [self._discrete(self.part(d, pes), pes, max_atoms) for d in dirs]
        # the direction whose PLD is the law of log(p/q) under P gives T(Q, P) = g^{-1}
        curves = [c.inverse() if self.models[d].name.endswith("(reversed)") else c
                  for c, d in zip(curves, dirs)]
        if len(curves) == 1:
            return curves[0]
        return fdp.PiecewiseLinear(np.concatenate([c.x for c in curves] + [c.y for c in curves]),
                                   np.concatenate([c.y for c in curves] + [c.x for c in curves]))

    def _discrete(self, comp: Composed, upper: bool, max_atoms: int) -> fdp.PiecewiseLinear:
        """The Neyman-Pearson curve of the composed lattice pair: vertices
        (P[L >= l_j], Q[L < l_j]) = (e^{-l_j} B_j, 1 - E - A_j).  Its convex conjugate is
        exactly the bound on delta(eps) for every real eps, so the pessimistic curve lies
        below the truth and the optimistic one above it.  Beyond ``max_atoms`` vertices
        the pessimistic curve keeps a subset of its supporting lines (an envelope of
        fewer lines is lower) and the optimistic one a subset of its vertices (a chord
        polygon through fewer vertices is higher)."""
        losses, A, B, _ = _profile_arrays(comp, upper)
        E = comp.inf_mass + (comp.t_out + comp.fft_err if upper else 0.0)
        step = int(np.ceil(losses.size / max_atoms))
        sel = np.unique(np.concatenate((np.arange(0, losses.size, step), [losses.size - 1])))
        if upper:
            return _envelope_curve(losses, A, B, comp.h, E, sel)
        with np.errstate(over="ignore"):
            ax = np.exp(-losses[sel]) * B[sel]
        fx = np.concatenate(([0.0], ax))
        fy = np.concatenate(([1 - E], 1 - E - A[sel]))
        return fdp.PiecewiseLinear(np.clip(fx, 0.0, 1.0), np.clip(fy, 0.0, 1.0))


def _envelope_curve(losses, A, B, h, E, sel) -> fdp.PiecewiseLinear:
    """The pessimistic curve from the delta bound D_j at the lattice eps = l_j (j in ``sel``)."""
    A1, B1 = np.append(A[1:], 0.0), np.append(B[1:], 0.0)
    D = np.maximum(A1 - np.exp(-h) * B1, 0.0)[sel] * (1 + 64 * _EPS) + E
    return lines_envelope(losses[sel], D)


def lines_envelope(eps, delta) -> fdp.PiecewiseLinear:
    """f(alpha) = max(0, max_j 1 - delta_j - e^{eps_j} alpha) for a one-sided profile
    (any real eps; 004 Lemma 5.1 and Prop. 2.4 without symmetrisation), exactly, as the
    upper envelope of the lines (``fdp.upper_envelope``), vertices lowered by a few ulp."""
    e = np.asarray(eps, dtype=float).ravel()
    d = np.asarray(delta, dtype=float).ravel()
    ok = np.isfinite(e) & (e < 700)
    xs, ys = fdp.upper_envelope(np.concatenate(([0.0], 1 - d[ok])),
                                 np.concatenate(([0.0], -np.exp(e[ok]))))
    return fdp.PiecewiseLinear(xs, np.clip(ys - 4 * _EPS, 0.0, 1.0))


# ============================================================================= mechanisms
def _gauss_model(mu: float) -> LossModel:
    """N(0,1) vs N(mu,1): L = mu x - mu^2/2, x ~ N(mu, 1)."""
    z = -ndtri(TAIL_BOUND)
    return LossModel(
        name=f"gaussian(mu={mu:g})", std=mu,
        L=lambda x: mu * x - mu * mu / 2, dL=lambda x: np.full_like(x, mu),
        x_of=lambda l: (np.asarray(l) + mu * mu / 2) / mu,
        log_q=lambda x: -(x - mu) ** 2 / 2 - _LOG2PI_2,
        mass_below=lambda x: ndtr(x - mu), mass_above=lambda x: ndtr(mu - x),
        x_tail=(mu - z, mu + z), dx_max=0.25 / max(1.0, mu))


def _laplace_model(t: float) -> LossModel:
    """Lap(0,1) vs Lap(t,1): L = -t (Q-mass e^{-t}/2), 2x - t on (0, t), +t (Q-mass 1/2)."""
    std = float(np.sqrt(C.laplace_cumulants(t, 2, "Q")[..., 1]))
    return LossModel(
        name=f"laplace(theta={t:g})", std=std,
        L=lambda x: 2 * x - t, dL=lambda x: np.full_like(x, 2.0),
        x_of=lambda l: np.clip((np.asarray(l) + t) / 2, 0.0, t),
        log_q=lambda x: np.log(0.5) - (t - x),
        mass_below=lambda x: 0.0 * x, mass_above=lambda x: 0.0 * x,
        x_tail=(0.0, t), atoms=[(-t, 0.5 * np.exp(-t)), (t, 0.5)], dx_max=0.25,
        grid_anchor=t)


def _mixture_models(mu: float, q: float) -> dict:
    """Poisson-subsampled Gaussian, both orders (module docstring)."""
    z = -ndtri(TAIL_BOUND)
    lq, l1q = np.log(q), np.log1p(-q)
    logit = lq - l1q

    def LA(x):
        return C.mixture_loss(x, q, mu)

    def dLA(x):
        return mu * expit(mu * x - mu * mu / 2 + logit)

    def xA(l):
        l = np.asarray(l, dtype=float)
        arg = np.expm1(l) + q
        with np.errstate(divide="ignore", invalid="ignore"):
            x = (np.log(arg) - lq + mu * mu / 2) / mu
        return np.where(arg > 0, x, -np.inf)

    def logqA(x):
        return np.logaddexp(l1q - x * x / 2, lq - (x - mu) ** 2 / 2) - _LOG2PI_2

    k2q = float(C.mixture_cumulants(q, mu, 2, "Q")[..., 1])
    k2p = float(C.mixture_cumulants(q, mu, 2, "P")[..., 1])
    remove = LossModel(
        name=f"subsampled-gaussian(mu={mu:g}, q={q:g})", std=np.sqrt(k2q),
        L=LA, dL=dLA, x_of=xA, log_q=logqA,
        log_q_of=lambda x, L: L - x * x / 2 - _LOG2PI_2,     # q(x) = phi(x) e^{L(x)}
        mass_below=lambda x: (1 - q) * ndtr(x) + q * ndtr(x - mu),
        mass_above=lambda x: (1 - q) * ndtr(-x) + q * ndtr(mu - x),
        x_tail=(-z, mu + z), dx_max=0.25 / max(1.0, mu))
    # reverse order: loss log(p/q) = -L_A(x) under P = N(0,1); in y = -x it is increasing
    add = LossModel(
        name=f"subsampled-gaussian(mu={mu:g}, q={q:g}) (reversed)", std=np.sqrt(k2p),
        L=lambda y: -LA(-y), dL=lambda y: dLA(-y), x_of=lambda l: -xA(-np.asarray(l, dtype=float)),
        log_q=lambda y: -y * y / 2 - _LOG2PI_2,
        mass_below=lambda y: ndtr(y), mass_above=lambda y: ndtr(-y),
        x_tail=(-z, z), dx_max=0.25 / max(1.0, mu))
    return {"remove": remove, "add": add}


def _discrete_model(p: np.ndarray, q: np.ndarray, name: str) -> LossModel:
    fin = (p > 0) & (q > 0)
    losses = np.log(q[fin]) - np.log(p[fin])
    mass = q[fin]
    mean = np.sum(mass * losses) / max(mass.sum(), 1e-300)
    std = float(np.sqrt(np.sum(mass * (losses - mean) ** 2) / max(mass.sum(), 1e-300)))
    return LossModel(name=name, std=std, atoms=list(zip(losses.tolist(), mass.tolist())),
                     inf_mass=float(q[(p == 0) & (q > 0)].sum()))


def _steps(steps) -> int:
    s = np.asarray(steps)
    if s.ndim or not np.isfinite(s) or s < 1 or s != np.round(s) or s > 1e9:
        raise DomainError("steps", steps if s.ndim else float(s), "integers in [1, 1e9]")
    return int(s)


def _choose_h(models, value_discretization, resolution, anchor=None) -> float:
    if value_discretization is None:
        std = min(m.std for m in models.values())
        h = float(K.check_positive(resolution, "resolution")) * std
        # cap the one-step lattice (a coarser lattice is still certified, only looser): a
        # tiny loss spread in one direction (small q) would otherwise ask for ~1e7 bins
        span = max(np.subtract(*m.l_range()[::-1]) for m in models.values())
        h = max(h, span / MAX_ONE_STEP_BINS)
    else:
        h = float(K.check_positive(value_discretization, "value_discretization"))
    if anchor:
        h = anchor / np.ceil(anchor / h * (1 - 1e-12))   # the atoms lie on the lattice
    return h


def gaussian(mu, steps=1, *, value_discretization=None, resolution=DEFAULT_RESOLUTION,
             tail_bound=TAIL_BOUND, bounds="both") -> PLDResult:
    """n-fold N(0,1) vs N(mu,1) (exactly G_{mu sqrt(n)}; here as a test of the machinery)."""
    m = float(K.check_positive(mu, "mu"))
    models = {"single": _gauss_model(m)}
    h = _choose_h(models, value_discretization, resolution)
    return PLDResult(f"gaussian(mu={m:g})", models, _steps(steps), h, tail_bound, bounds)


def laplace(theta, steps=1, *, scale=1.0, value_discretization=None,
            resolution=DEFAULT_RESOLUTION, tail_bound=TAIL_BOUND, bounds="both") -> PLDResult:
    """n-fold Lap(0, b) vs Lap(theta, b) (004 Sec. 5.2); symmetric, so one direction.
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


# ============================================================================= heterogeneous composition
def convolve(a: Composed, b: Composed) -> Composed:
    """The lattice PLD of the composition of two composed PLDs on the same lattice h Z.

    With c = (true window mass) + (aliased mass, >= 0, <= t_out) + (float error, sum <= fft_err)
    for each factor, the product keeps that form with t_out = t_a + t_b and
    fft_err = E_a |c_b|_1 + E_b (|c_a|_1 + E_a) + E_conv, where E_conv bounds the error of
    the FFT convolution: |error|_1 <= sqrt(M) |error|_2 <= 10 u log2(M) sqrt(M)
    (|c_a|_2 + |c_b|_2 + 2 |c|_2) (Higham, Accuracy and Stability, Thm. 24.2, applied to
    the forward transforms, the product and the inverse transform)."""
    if not np.isclose(a.h, b.h, rtol=1e-12, atol=0.0):
        raise DomainError("h", b.h, f"the lattice step of the other factor ({a.h!r})")
    ca, cb = np.clip(a.c, 0.0, None), np.clip(b.c, 0.0, None)
    n = ca.size + cb.size - 1
    M = next_fast_len(n, real=True)
    c = irfft(rfft(ca, M) * rfft(cb, M), n=M)[:n]
    l2 = np.linalg.norm
    e_conv = 10 * _EPS * np.log2(max(M, 2)) * np.sqrt(M) * (l2(ca) + l2(cb) + 2 * l2(c))
    e = a.fft_err * ca.sum() + b.fft_err * (cb.sum() + a.fft_err) + e_conv
    inf = float(-np.expm1(np.log1p(-a.inf_mass) + np.log1p(-b.inf_mass)))
    return Composed(a.h, a.j0 + b.j0, c, a.t_out + b.t_out, float(e), inf)


class CompositePLD(PLDResult):
    """Certified bounds for a heterogeneous composition: ``models`` maps each direction
    ("remove", "add" or "single") to a list of (LossModel, count); every factor is
    discretised on one lattice h Z, self-composed by ``compose`` and the factors are
    multiplied by ``convolve``.  Under add/remove neighbours the whole composition faces
    one fixed pair of data sets, so each direction is composed on its own and the worse
    direction is reported (symmetric mechanisms contribute their single model to both)."""

    def part(self, direction: str, pessimistic: bool) -> Composed:
        key = (direction, bool(pessimistic))
        if key not in self._parts:
            out = None
            for model, count in self.models[direction]:
                pmf = discretise(model, self.h, pessimistic)
                comp = compose(pmf, int(count), self.tail)
                out = comp if out is None else convolve(out, comp)
            self.h_used[key] = self.h
            self._parts[key] = out
        return self._parts[key]


def composite(factors, *, resolution=DEFAULT_RESOLUTION, tail_bound=TAIL_BOUND,
              bounds="both") -> CompositePLD:
    """Heterogeneous composition of ``factors`` = [(models dict, count)], each models dict as
    built by ``gaussian_models`` / ``laplace_models`` / ``mixture_models`` / ``discrete_models``
    (keys "single" or "remove"/"add").  The lattice step is the finest default step of the
    factors, coarsened until the sum of the factors' n-fold windows fits ``COMPOSITE_BINS``
    points (a coarser lattice stays certified; it trades width of the bracket for time)."""
    if not factors:
        raise DomainError("events", "[]", "a non-empty list of events")
    dirs = sorted({d for m, _ in factors for d in m if d != "single"}) or ["single"]
    h = min(_choose_h(m, None, resolution) for m, _ in factors)
    for _ in range(12):
        width = 0
        for m, count in factors:
            for d in m:
                pmf = discretise(m[d], h, True)
                lo, hi, _ = _window(pmf, int(count), tail_bound)
                width += max(hi - lo + 1, pmf.w.size) / max(1, len(m))
        if width <= COMPOSITE_BINS:
            break
        h *= 1.25 * width / COMPOSITE_BINS
    models = {d: [(m.get(d, m.get("single")), int(c)) for m, c in factors] for d in dirs}
    steps = int(sum(c for _, c in factors))
    return CompositePLD("composition", models, steps, h, tail_bound, bounds)


def gaussian_models(mu: float) -> dict:
    """One-step loss models of N(0,1) vs N(mu,1) (symmetric: one direction)."""
    return {"single": _gauss_model(float(K.check_positive(mu, "mu")))}


def laplace_models(t: float) -> dict:
    """One-step loss models of Lap(0,1) vs Lap(t,1) (symmetric: one direction)."""
    return {"single": _laplace_model(float(K.check_positive(t, "theta")))}


def mixture_models(mu: float, q: float) -> dict:
    """Poisson-subsampled Gaussian (rate q < 1), both add/remove directions."""
    return _mixture_models(float(mu), float(q))


def discrete_models(p, q, rate: float = 1.0) -> dict:
    """A pair of pmfs; with Poisson subsampling at ``rate`` < 1 the add/remove pairs
    (p, (1-rate) p + rate q) and ((1-rate) p + rate q, p) (Zhu, Dong, Wang 2022,
    Poisson subsampling dominating pairs); without, the pair in both orders (one "single"
    model when q is p reversed, e.g. randomized response: both orders have one PLD)."""
    p, q = (np.asarray(v, dtype=float) for v in (p, q))
    mix = (1 - rate) * p + rate * q if rate < 1 else q
    out = {"remove": _discrete_model(p, mix, "discrete (remove)"),
           "add": _discrete_model(mix, p, "discrete (add)")}
    losses = {abs(l) for m in out.values() for l, _ in m.atoms}
    for m in out.values():
        if len(losses) == 1:        # +-l (randomized response): the lattice l Z holds every atom
            m.std, m.grid_anchor = losses.pop() / DEFAULT_RESOLUTION, None
            losses = {m.std * DEFAULT_RESOLUTION}
        else:                       # a few atoms off the lattice: ask for a fine lattice
            m.std = min(m.std, DISCRETE_H / DEFAULT_RESOLUTION)
    if rate >= 1 and np.array_equal(q, p[::-1]):
        return {"single": out["remove"]}   # (p, p reversed) and its reverse share one PLD
    return out


DISCRETE_H = 1e-4


MAX_DGAUSS_ATOMS = 2 ** 20       # support points of a discrete Gaussian pair (sigma up to ~5e4)


def _dgauss_tail(s: float, k: int) -> float:
    """An upper bound on N_Z(0, s^2)[X > k], k >= 0: sum_{y > k} e^{-y^2/(2s^2)} <=
    e^{-(k+1)^2/(2s^2)} + int_{k+1}^oo e^{-y^2/(2s^2)} dy (the terms decrease), over the
    normaliser Z >= max(1, s sqrt(2 pi)) (Z >= s sqrt(2 pi) by Poisson summation: Z =
    s sqrt(2 pi) sum_m e^{-2 pi^2 s^2 m^2}).  Rounded up."""
    z = (k + 1) / s
    num = math.exp(-z * z / 2) + s * math.sqrt(2 * math.pi) * 0.5 * math.erfc(z / math.sqrt(2))
    return num / max(1.0, s * math.sqrt(2 * math.pi)) * (1 + 1e-12)


def discrete_gaussian_models(sigma: float, sensitivity: int = 1, rate: float = 1.0) -> dict:
    """One-step loss models of the discrete Gaussian pair P = N_Z(0, sigma^2) vs Q =
    N_Z(Delta, sigma^2), P(x) = e^{-x^2/(2 sigma^2)} / sum_y e^{-y^2/(2 sigma^2)} on the integers
    (Canonne, Kamath, Steinke 2020, "The Discrete Gaussian for Differential Privacy", Def. 1),
    Delta a positive integer.  For an integer shift the normalisers cancel: the loss is
    L(x) = log(Q(x)/P(x)) = (Delta/(2 sigma^2)) (2x - Delta), on the lattice (Delta/(2 sigma^2)) Z
    (``grid_anchor``: alone, the lattice step divides it and the discretisation is exact).  The
    pair dominates every pair of neighbours of a scalar integer query with |f(d) - f(d')| <=
    Delta: the shifts form a monotone-likelihood-ratio family, so the threshold tests are most
    powerful for every shift and their power grows with it (Karlin-Rubin).  The pair is
    symmetric (x -> Delta - x swaps P and Q): one model.

    The support is truncated to x in [-k, Delta + k] with N_Z(0, sigma^2)[X > k] <= TAIL_BOUND/4
    (``_dgauss_tail``); the masses are e^{-x^2/(2 sigma^2)}/Z_hi with Z_hi >= Z (the window sum
    plus the bound on the rest), so every kept mass is at most the true one, and
    ``tail_mass`` = 4 x the tail bound covers both what is left out and what Z_hi shaved off:
    +oo in the upper bound, dropped in the lower.  With Poisson subsampling at ``rate`` < 1 the
    add/remove dominating pairs (P, M) and (M, P), M = (1 - rate) P + rate Q (Zhu, Dong, Wang
    2022), on the same truncated support; their losses are off any lattice, and the lower
    bound rounds each atom down by up to h per step, so the default step is a tenth of the
    usual (h <= min(0.005 std, DISCRETE_H / 10)): at q = 0.01, sigma = 3, 1000 steps the
    bracket on eps(1e-5) is [0.375, 0.3794] instead of [0.323, 0.3795]."""
    s = float(K.check_positive(sigma, "sigma"))
    d = sensitivity
    if isinstance(d, bool) or not isinstance(d, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(d)) or float(d) != int(d) or d < 1:
        raise DomainError("sensitivity", d, "positive integers (the discrete Gaussian shifts "
                          "by an integer)")
    d = int(d)
    r = float(rate)
    if not 0 < r <= 1:
        raise DomainError("sampling_rate", rate, "(0, 1]")
    k = max(1, int(math.ceil(s * math.sqrt(2 * math.log(4 / TAIL_BOUND)))) - 1)
    while _dgauss_tail(s, k) > TAIL_BOUND / 4:
        k += 1
    n_atoms = 2 * k + d + 1
    if n_atoms > MAX_DGAUSS_ATOMS:
        raise DomainError("sigma", s, f"(0, {s * MAX_DGAUSS_ATOMS / n_atoms:.3g}] for the exact "
                          f"pmf pair ({n_atoms} support points > {MAX_DGAUSS_ATOMS})")
    tail = _dgauss_tail(s, k)
    x = np.arange(-k, d + k + 1, dtype=float)
    c = 1.0 / (2 * s * s)
    ys = np.arange(-k, k + 1, dtype=float)
    z_hi = (float(np.sum(np.exp(-c * ys * ys))) * (1 + 4 * _EPS * math.log2(ys.size + 2))
            + 2 * tail * max(1.0, s * math.sqrt(2 * math.pi)))
    lz = math.log(z_hi)
    lp = -c * x * x - lz                       # log P(x)
    lq = lp[::-1]                              # log Q(x) = log P(Delta - x): the window is symmetric
    base = (d * c) * (2 * x - d)               # log(Q/P), exactly on the lattice (d c) Z
    tail_mass = 4 * tail
    if r >= 1:
        atoms = np.column_stack((base, np.exp(lq)))
        mq = atoms[:, 1]
        mean = float(np.sum(mq * base) / np.sum(mq))
        std = float(np.sqrt(np.sum(mq * (base - mean) ** 2) / np.sum(mq)))
        m = LossModel(name=f"discrete-gaussian(sigma={s:g}, sensitivity={d})", std=std,
                      atoms=atoms, tail_mass=tail_mass, grid_anchor=d * c)
        return {"single": m}
    lr, l1r = math.log(r), math.log1p(-r)
    L = np.logaddexp(l1r, lr + base)           # log(M/P) = log(1 - r + r e^{base})
    lm = np.logaddexp(l1r + lp, lr + lq)       # log M(x)
    out = {}
    for key, loss, lmass, name in (("remove", L, lm, "(P, M)"), ("add", -L, lp, "(M, P)")):
        mass = np.exp(lmass)
        mean = float(np.sum(mass * loss) / np.sum(mass))
        std = float(np.sqrt(np.sum(mass * (loss - mean) ** 2) / np.sum(mass)))
        out[key] = LossModel(name=f"subsampled discrete-gaussian(sigma={s:g}, sensitivity={d}, "
                             f"q={r:g}) {name}", std=min(max(std, 1e-300), DISCRETE_H / DEFAULT_RESOLUTION) / 10,
                             atoms=np.column_stack((loss, mass)), tail_mass=tail_mass)
    return out


def fixed_discrete_gaussian_models(sigma: float, sensitivity: int, gamma: float) -> dict:
    """A fixed batch (ratio ``gamma`` = B/N < 1, replace-one neighbours) of the discrete Gaussian
    pair P = N_Z(0, sigma^2) vs Q = N_Z(Delta, sigma^2), Delta = the replace-one sensitivity (an
    integer), M = (1 - gamma) P + gamma Q; section "fixed-size batches" below.  The two fixed orders
    (P, M) and (M, P) (lower bound) are the Poisson pairs of ``discrete_gaussian_models`` at rate
    gamma on its truncated support [-k, Delta + k]; the symmetric dominating pair (upper bound) has
    the atoms of (P, M) with positive loss, L(x) = log(M(x)/P(x)) > 0 for 2x > Delta, with their
    M-masses; their mirrors -L(x) with the P-masses P(x) = e^{-L(x)} M(x); and m0 at loss 0, the
    slope -1 segment of the hull.  Every kept mass is at most the true one (the truncated pmf over
    Z_hi >= Z), so m0 is taken as a lower bound, m0 = 1 - M[kept, 2x > Delta] - P[kept, 2x > Delta]
    - 2 tail_mass - (float slack); all the rest (the dropped tails of both sides, what Z_hi shaved
    off and the slack) is the +oo mass of the upper bound (moving mass up to +oo only raises every
    delta(eps))."""
    g = _check_gamma(gamma)
    allm = discrete_gaussian_models(sigma, sensitivity, g)
    rem, add = allm["remove"], allm["add"]
    d = int(sensitivity)
    n = rem.atoms.shape[0]
    k = (n - d - 1) // 2
    x = np.arange(-k, d + k + 1)
    if x.size != n or add.atoms.shape[0] != n:            # the support [-k, Delta + k] of both orders
        raise AssertionError("discrete_gaussian_models changed its support layout")
    pos = 2 * x > d                                       # base loss (Delta/sigma^2)(x - Delta/2) > 0
    lpos, mpos = rem.atoms[pos, 0], rem.atoms[pos, 1]     # law of log(M/P) under M
    ppos = add.atoms[pos, 1]                              # P at the same points (the (M, P) order)
    s_kept = float(np.sum(mpos)) + float(np.sum(ppos))
    slack = 16 * _EPS * (math.log2(n + 2) + 1) * max(s_kept, 1.0)
    tail = 2 * rem.tail_mass + slack
    m0 = max(0.0, 1.0 - s_kept - tail)
    atoms = np.concatenate((np.column_stack((lpos, mpos)), np.column_stack((-lpos, ppos)),
                            [[0.0, m0]]))
    sym = LossModel(name=f"fixed-batch discrete-gaussian(sigma={float(sigma):g}, sensitivity={d}, "
                    f"gamma={g:g}) (substitution)", std=min(rem.std, add.std), atoms=atoms,
                    tail_mass=tail)
    return {"substitution": sym, "order (P, M)": rem, "order (M, P)": add}


def _std_of(values, weights) -> float:
    w = np.asarray(weights, float)
    v = np.asarray(values, float)
    m = np.sum(w * v) / np.sum(w)
    return float(np.sqrt(max(np.sum(w * (v - m) ** 2) / np.sum(w), 1e-300)))


def subsampled_laplace_models(t: float, q: float) -> dict:
    """Poisson-subsampled Laplace, Lap(0,1) vs Lap(t,1) (t = sensitivity/scale), rate q < 1:
    the add/remove dominating pairs (P, M) and (M, P) with M = (1-q) P + q Q (Zhu, Dong, Wang
    2022, Poisson subsampling).  With l(x) = |x| - |x-t| the base loss, the loss of (P, M) is
    L = log(1 - q + q e^{l(x)}) under M: atoms at x <= 0 and x >= t, increasing on (0, t)."""
    t = float(K.check_positive(t, "theta"))
    lq, l1q = np.log(q), np.log1p(-q)

    def Lmix(l):                                   # log(1 - q + q e^l)
        return np.logaddexp(l1q, lq + l)

    lo_atom, hi_atom = float(Lmix(-t)), float(Lmix(t))
    xs = np.linspace(0.0, t, 2001)[1:-1]

    # remove: (P, M), law under M
    def L_r(x):
        return Lmix(2 * x - t)

    def dL_r(x):
        return 2 * expit(lq - l1q + 2 * x - t)

    def x_r(l):
        l = np.asarray(l, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = (np.log(np.maximum(np.expm1(l) + q, 1e-300)) - lq + t) / 2
        return np.clip(np.where(np.expm1(l) + q > 0, x, 0.0), 0.0, t)

    def logm(x):                                   # density of M on (0, t)
        return np.logaddexp(l1q - x, lq - (t - x)) + np.log(0.5)

    m_lo = 0.5 * (1 - q) + 0.5 * q * np.exp(-t)
    m_hi = 0.5 * (1 - q) * np.exp(-t) + 0.5 * q
    dens = np.exp(logm(xs)) * (t / 2000)
    remove = LossModel(
        name=f"subsampled-laplace(t={t:g}, q={q:g})",
        std=_std_of(np.concatenate(([lo_atom, hi_atom], L_r(xs))),
                    np.concatenate(([m_lo, m_hi], dens))),
        L=L_r, dL=dL_r, x_of=x_r, log_q=logm,
        log_q_of=lambda x, L: L - x + np.log(0.5),            # m(x) = p(x) e^{L(x)}
        mass_below=lambda x: 0.0 * x, mass_above=lambda x: 0.0 * x,
        x_tail=(0.0, t), atoms=[(lo_atom, m_lo), (hi_atom, m_hi)], dx_max=0.25)

    # add: (M, P), loss -L(x) under P; in y = -x it is increasing, y in (-t, 0)
    def L_a(y):
        return -Lmix(2 * (-y) - t)

    def x_a(l):
        return -x_r(-np.asarray(l, dtype=float))

    def logp(y):                                   # density of P at x = -y in (0, t)
        return np.log(0.5) + y

    p_lo = 0.5 * np.exp(-t)                        # x >= t: loss -hi_atom
    p_hi = 0.5                                     # x <= 0: loss -lo_atom
    densp = np.exp(logp(-xs)) * (t / 2000)
    add = LossModel(
        name=f"subsampled-laplace(t={t:g}, q={q:g}) (reversed)",
        std=_std_of(np.concatenate(([-hi_atom, -lo_atom], -L_r(xs))),
                    np.concatenate(([p_lo, p_hi], densp))),
        L=L_a, dL=lambda y: dL_r(-y), x_of=x_a, log_q=logp,
        mass_below=lambda y: 0.0 * y, mass_above=lambda y: 0.0 * y,
        x_tail=(-t, 0.0), atoms=[(-hi_atom, p_lo), (-lo_atom, p_hi)], dx_max=0.25)
    # each direction on its own lattice nearly holding both its atoms (rounding an atom down in
    # the lower bound costs O(h) per step)
    _align((remove, add), DEFAULT_RESOLUTION * min(remove.std, add.std), widen=4)
    return {"remove": remove, "add": add}


# ============================================================================= fixed-size batches
# Sampling without replacement (a batch of B of N records, gamma = B/N) under replace-one
# neighbours.  With (P, Q) the replace-one pair of the base mechanism (symmetric: T(P,Q) =
# T(Q,P) = f) and M = (1 - gamma) P + gamma Q, one step satisfies C_gamma(f) = min{f_gamma,
# f_gamma^{-1}}**, f_gamma = gamma f + (1 - gamma) Id = T(P, M) (Dong, Roth, Su 2019 Thm. 4.2,
# quoted in 004 Sec. 2 "Subsampling"; Zhu, Dong, Wang 2022 for the dominating-pair form).  The
# order (P, M) is attained (every other record equal to the replaced one), and so is (M, P);
# but the pair is not symmetric, and under replace-one an adaptive composition may meet
# either order at every step, so neither order composed with itself dominates the
# composition (Lebeda, Regehr, Kamath, Steinke 2024: the pitfall of self-composing the
# worst-case pair of one step).  The dominating pair used for the upper bound realises the
# symmetric C_gamma(f): its privacy-loss law under the second hypothesis is
#
#     omega(dl) = omega_M(dl)            for l > 0   (the law of L = log(dM/dP) under M),
#                 m0 delta_0(dl)                     (the slope -1 segment of the hull),
#                 e^{l} omega_M(d(-l))   for l < 0   (the mirror: the law of -L under P),
#
# with m0 = 1 - M[L > 0] - P[L > 0] - M[L = oo] >= 0; for the base pairs here
# m0 = (1 - gamma)(1 - 2 P[l > 0]) + gamma P[l = 0], l the base loss.  Its profile is
# max(delta_{P,M}, delta_{M,P}) = delta_{P,M} at eps >= 0 and 1 - e^eps + e^eps delta(-eps) at
# eps < 0, as a symmetric pair must have.  The lower bound is the larger of the two fixed
# orders composed with themselves (each attained by one pair of data sets), so it stays a
# true lower bound whether or not the symmetric pair is attained under composition.
UPPER_ONLY, LOWER_ONLY = ("substitution",), ("order (P, M)", "order (M, P)")


def _role(direction: str) -> str:
    return "upper" if direction in UPPER_ONLY else "lower" if direction in LOWER_ONLY else "both"


def _substitution_model(rem: LossModel, x0: float, log_p, p_sf, m0: float, name: str) -> LossModel:
    """The symmetric dominating pair of a fixed batch from the order (P, M) (``rem``: the law
    of L = log(dM/dP) under M, increasing in x, L(x0) = 0).  In the variable y the continuous
    part is L(y) under M for y >= x0 and its mirror -L(2 x0 - y) with the P-density at
    2 x0 - y for y < x0; ``p_sf(x)`` is the P-mass of the continuous part above x."""
    def xm(y):
        return 2 * x0 - np.asarray(y, dtype=float)

    def L(y):
        y = np.asarray(y, dtype=float)
        return np.where(y >= x0, rem.L(np.maximum(y, x0)), -rem.L(np.maximum(xm(y), x0)))

    def dL(y):
        y = np.asarray(y, dtype=float)
        return np.where(y >= x0, rem.dL(np.maximum(y, x0)), rem.dL(np.maximum(xm(y), x0)))

    def x_of(l):
        l = np.asarray(l, dtype=float)
        return np.where(l >= 0, rem.x_of(np.abs(l)), xm(rem.x_of(np.abs(l))))

    def log_q(y):
        y = np.asarray(y, dtype=float)
        return np.where(y >= x0, rem.log_q(np.maximum(y, x0)), log_p(np.maximum(xm(y), x0)))

    pos = [(float(l), float(m)) for l, m in rem.atoms if l > 0 and m > 0]
    atoms = pos + [(-l, m * np.exp(-l)) for l, m in pos] + [(0.0, float(m0))]
    hi = rem.x_tail[1]
    return LossModel(name=name, std=rem.std, L=L, dL=dL, x_of=x_of, log_q=log_q,
                     mass_below=lambda y: p_sf(xm(y)), mass_above=rem.mass_above,
                     x_tail=(2 * x0 - hi, hi), atoms=atoms, inf_mass=rem.inf_mass,
                     dx_max=rem.dx_max)


def _check_gamma(gamma) -> float:
    g = np.asarray(gamma, dtype=float)
    if not (g.ndim == 0 and np.isfinite(g) and 0 < g < 1):
        raise DomainError("sampling_ratio", gamma, "(0, 1) (a batch smaller than the data set; "
                          "gamma = 1 is the plain mechanism)")
    return float(g)


def fixed_gaussian_models(mu: float, gamma: float) -> dict:
    """A fixed batch (ratio ``gamma`` = B/N < 1) of the Gaussian mechanism N(0,1) vs N(mu,1),
    mu = (replace-one sensitivity)/sigma, replace-one neighbours: the symmetric dominating
    pair ("substitution", upper bound) and the two fixed orders (lower bound); see above."""
    mu, g = float(K.check_positive(mu, "mu")), _check_gamma(gamma)
    allm = _mixture_models(mu, g)
    rem, add = allm["remove"], allm["add"]
    m0 = (1 - g) * math.erf(mu / (2 * math.sqrt(2.0)))      # (1-g)(1 - 2 Phi(-mu/2))
    sym = _substitution_model(rem, mu / 2, lambda x: -x * x / 2 - _LOG2PI_2, lambda x: ndtr(-x),
                              m0, f"fixed-batch gaussian(mu={mu:g}, gamma={g:g}) (substitution)")
    return {"substitution": sym, "order (P, M)": rem, "order (M, P)": add}


def fixed_laplace_models(t: float, gamma: float) -> dict:
    """A fixed batch (ratio ``gamma`` < 1) of the Laplace mechanism Lap(0,1) vs Lap(t,1),
    t = (replace-one sensitivity)/scale, replace-one neighbours (see above)."""
    t, g = float(K.check_positive(t, "theta")), _check_gamma(gamma)
    allm = subsampled_laplace_models(t, g)
    rem, add = allm["remove"], allm["add"]
    m0 = -(1 - g) * float(np.expm1(-t / 2))                  # (1-g)(1 - 2 * e^{-t/2}/2)
    sym = _substitution_model(rem, t / 2, lambda x: np.log(0.5) - x, lambda x: 0.0 * x, m0,
                              f"fixed-batch laplace(t={t:g}, gamma={g:g}) (substitution)")
    # subsampled_laplace_models put each fixed order on a lattice nearly holding its atoms;
    # the symmetric pair's atoms -a, 0, a lie exactly on a Z / n
    _align((sym,), DEFAULT_RESOLUTION * min(rem.std, add.std), widen=4)
    return {"substitution": sym, "order (P, M)": rem, "order (M, P)": add}


def fixed_discrete_models(p, q, gamma: float) -> dict:
    """A fixed batch (ratio ``gamma`` < 1) of a mechanism with a symmetric pair of pmfs
    (q = p reversed, e.g. randomized response), replace-one neighbours (see above)."""
    p, q = (np.asarray(v, dtype=float) for v in (p, q))
    g = _check_gamma(gamma)
    if p.shape != q.shape or not np.allclose(np.sort(p), np.sort(q), rtol=1e-12, atol=0):
        raise DomainError("q", "given vector", "a permutation of p (a symmetric pair)")
    mix = (1 - g) * p + g * q
    rem = _discrete_model(p, mix, "discrete (P, M)")
    add = _discrete_model(mix, p, "discrete (M, P)")
    with np.errstate(divide="ignore"):
        up = (p > 0) & (q > p)                               # base loss l = log(q/p) > 0
    m0 = float(np.sum(mix[~up]) - np.sum(p[up]))             # M[L <= 0] - P[L > 0]
    pos = [(float(np.log(mix[i] / p[i])), float(mix[i])) for i in np.nonzero(up)[0]]
    atoms = pos + [(-l, float(p[i])) for (l, _), i in zip(pos, np.nonzero(up)[0])]
    atoms.append((0.0, max(m0, 0.0)))
    ls = np.array([a for a, _ in atoms])
    ws = np.array([w for _, w in atoms])
    sym = LossModel(name="discrete (substitution)", std=_std_of(ls, ws), atoms=atoms)
    for m in (sym, rem, add):       # a shared lattice (heterogeneous compositions): a fine one
        m.std = DISCRETE_H / DEFAULT_RESOLUTION
    _align((rem, add), DISCRETE_H, widen=16)      # alone: each on a lattice nearly holding its atoms
    top = max(l for l, _ in sym.atoms)
    if all(abs(abs(l) - top) <= 1e-12 * top or l == 0 for l, _ in sym.atoms):
        sym.own_h, sym.grid_anchor = top, top     # atoms -a, 0, a (randomized response): exact
    return {"substitution": sym, "order (P, M)": rem, "order (M, P)": add}


def _align(models, h_max: float, widen: int) -> None:
    """Give each model with a positive atom its own lattice step (``own_h``, used when its
    direction is composed alone) from ``_aligned_step`` anchored at its largest atom."""
    for m in models:
        ls = [l for l, w in m.atoms if w > 0]
        if ls and max(ls) > 0:
            h = _aligned_step(max(ls), ls, h_max, widen)
            if h is not None:
                m.own_h, m.grid_anchor = h, max(ls)


def _aligned_step(top: float, losses, h_max: float, widen: int = 16) -> float | None:
    """A lattice step h = top/n (n in [top/h_max, widen top/h_max]) on which the atoms of
    ``losses`` sit just above a lattice point: rounding an atom down costs frac(l/h) h of loss
    per step in the optimistic (lower) bound, so n is the smallest with max_l frac(l/h) h <=
    h_max/1000 (else the minimiser; a few atoms, e.g. the two of a subsampled randomized
    response, are then nearly exact)."""
    n0 = max(1, int(np.ceil(top / h_max)))
    if n0 > MAX_ONE_STEP_BINS:      # a tiny spread (e.g. subsampled Laplace at t = 100: 1e-20)
        return None                 # would ask for ~1e15 candidate steps: the default lattice
    n = np.arange(n0, widen * n0 + 1, dtype=float)
    hs = top / n
    ls = np.asarray(losses, dtype=float)[:, None] / hs[None, :]
    frac = ls - np.floor(ls)
    frac = np.where(np.abs(frac - 1) < 1e-12, 0.0, frac)             # as ``discretise`` reads it
    err = np.max(frac * hs[None, :], axis=0)                          # round-down distance
    ok = np.nonzero(err <= 1e-3 * h_max)[0]          # the coarsest lattice that is good enough
    best = n[int(ok[0])] if ok.size else n[int(np.argmin(err))]
    return float(top / best)
