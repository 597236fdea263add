"""The PLD engine, part 1: one-step loss models (``LossModel``), their bin integrals and
the pessimistic / optimistic discretisation on a lattice h Z (``discretise``).  The
method is described in ``numeric.pld``'s docstring."""
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
    edge: float | None = None                    # a sharp bottom edge of the loss law (log(1-q))

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
