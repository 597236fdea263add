"""The PLD engine, part 3: ``PLDResult`` (certified (lower, upper) profiles and trade-off
curves of a composition of one event, per neighbouring direction), ``CompositePLD``
(heterogeneous compositions) and the choice of the lattice step."""
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

from . import pld_compose as _PC
from .pld_lattice import (_EPS, LossModel, TAIL_BOUND, DEFAULT_RESOLUTION, MAX_ONE_STEP_BINS,
    COMPOSITE_BINS, discretise)
from .pld_compose import (Composed, compose, convolve, _window, _delta_from, _eps_from,
    _profile_arrays, _refine_optimistic)

UPPER_ONLY, LOWER_ONLY = ("substitution",), ("order (P, M)", "order (M, P)")
GAP_TARGET = 0.005      # refine the optimistic lattice while (upper - lower) > this * upper
MAX_GAP_REFINE = 4      # ... at most this many halvings beyond the default step


def _role(direction: str) -> str:
    return "upper" if direction in UPPER_ONLY else "lower" if direction in LOWER_ONLY else "both"


# ============================================================================= the result object
class PLDResult:
    """Certified bounds for the n-fold composition of one or two loss directions.

    ``delta(eps)`` and ``epsilon(delta)`` return ``(lower, upper)`` arrays: the true
    value lies in between (worst case over the directions).  With ``bounds="upper"``
    only the pessimistic side is computed (as fast as a one-sided accountant) and the
    lower bounds reported are the trivial 0.  ``tradeoff(kind)`` returns a
    ``numeric.fdp`` curve: "pessimistic" lies below the true trade-off curve,
    "optimistic" above it.  Compositions are computed on first use and cached."""

    GAP_REFINE = True       # the optimistic lattice may be refined while the gap is wide

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
        would exceed ``_PC.MAX_WINDOW_BINS`` lattice points the lattice step is coarsened
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
            h_min = (lmax - lmin) / _PC.MAX_WINDOW_BINS     # the window holds one step at least
            if h < h_min:     # an own step aligned to a small atom under a wide loss range
                a = model.grid_anchor     # (subsampled Laplace at t = 50: 3.7e8 bins)
                h = a / max(1.0, np.floor(a / h_min)) if a and a >= h_min else h_min
            for _ in range(8):
                pmf = discretise(model, h, pessimistic)
                win = _window(pmf, self.steps, self.tail)
                J_lo, J_hi, _ = win
                width = max(J_hi - J_lo + 1, pmf.w.size)
                if width <= _PC.MAX_WINDOW_BINS:
                    break
                h = h * 1.25 * width / _PC.MAX_WINDOW_BINS
                if model.grid_anchor and h <= model.grid_anchor:   # else: atoms off the lattice
                    h = model.grid_anchor / max(1.0, np.floor(model.grid_anchor / h))
            else:
                raise DomainError("steps", self.steps, "a composition whose PLD window fits "
                                  f"{_PC.MAX_WINDOW_BINS} lattice points")
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
        # a bracket still wider than GAP_TARGET (relative): finer optimistic lattices
        for _ in range(MAX_GAP_REFINE):
            lo = np.max(los, axis=0)
            with np.errstate(invalid="ignore"):
                gap = np.where(np.isfinite(hi) & (hi > 0), (hi - lo) / np.where(hi > 0, hi, 1.0), 0.0)
            j = int(np.argmax(gap))
            if not gap.flat[j] > GAP_TARGET:
                break
            i = int(np.argmax([np.ravel(v)[j] for v in los]))
            if not self._refine_again(dirs[i], float(gap.flat[j])):
                break
            los[i] = fn(self.part(dirs[i], False), x, False)
        return np.max(los, axis=0), hi

    def _refine_again(self, direction: str, gap: float) -> bool:
        """Refine the optimistic lattice of ``direction`` once more (``GAP_TARGET``): by 1/2, or by
        1/4 when the relative ``gap`` is over 8 GAP_TARGET (the rounding's cost is O(h)), with a lattice
        point on the model's sharp bottom edge (the subsampled Gaussian's log(1 - q), where the
        loss law piles up: rounding down there costs O(h) per step): only for a model with such an
        edge bounding both sides (a fixed batch's gap is structural; elsewhere the O(h^2) cell
        shifts already give the lattice's accuracy) while the window fits
        MAX_WINDOW_BINS and h stays above h / 2^MAX_GAP_REFINE.  Any lattice gives a certified
        lower bound: this only chooses a tighter one."""
        if not self.GAP_REFINE:
            return False
        model = self.models[direction]
        key = (direction, False)
        if self._refine_lower(direction):             # the excess-driven first halving, if due
            return True
        h = self.h_used.get(key)
        if h is None or not model.edge or _role(direction) != "both" or self.steps < 2 \
                or h < self.h / 2 ** MAX_GAP_REFINE:
            return False
        h2 = h / (4 if gap > 8 * GAP_TARGET else 2)
        e = abs(model.edge)
        if e > h2:
            h2 = e / math.ceil(e / h2 * (1 - 1e-12))       # the edge on the lattice
        if self._blocked_window_too_wide(model, h2):
            return False
        pmf = discretise(model, h2, False)
        win = _window(pmf, self.steps, self.tail)
        if max(win[1] - win[0] + 1, pmf.w.size) > _PC.MAX_WINDOW_BINS:
            return False
        self.h_used[key] = h2
        self._parts[key] = compose(pmf, self.steps, self.tail, window=win)
        return True

    def _blocked_window_too_wide(self, model: LossModel, h: float) -> bool:
        """True when the n-fold window of ``model`` on the lattice h cannot fit MAX_WINDOW_BINS,
        told before discretising (at small q and large n that discretisation is most of a
        query's time, spent for nothing): a one-step pmf longer than CHERNOFF_BLOCKS is merged
        into blocks of r bins placed at their ends for the Chernoff window (``_window``), which
        moves each end of the n-fold window outwards by about n (r - 1) / 2 bins.  Told only
        with a factor 2 to spare (a wrong guess would only skip a tighter lower bound)."""
        lmin, lmax = model.l_range()
        r = math.ceil((lmax - lmin) / h / _PC.CHERNOFF_BLOCKS)
        return r > 1 and self.steps * (r - 1) / 2 > _PC.MAX_WINDOW_BINS

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
        curves = [c.inverse() if self._reversed(d) else c for c, d in zip(curves, dirs)]
        if len(curves) == 1:
            return curves[0]
        return fdp.PiecewiseLinear(np.concatenate([c.x for c in curves] + [c.y for c in curves]),
                                   np.concatenate([c.y for c in curves] + [c.x for c in curves]))

    def _reversed(self, direction: str) -> bool:
        """Is ``direction``'s loss law that of log(p/q) under P (its curve is T(Q, P))?"""
        return self.models[direction].name.endswith("(reversed)")

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
        Bs = B[sel]
        with np.errstate(divide="ignore"):      # P[L >= l_j] = e^{log B_j - l_j}: no inf * 0 where B_j = 0
            ax = np.where(Bs > 0, np.exp(np.minimum(np.log(np.where(Bs > 0, Bs, 1.0)) - losses[sel], 0.0)), 0.0)
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
    (any real eps; Zheng et al. 2020, Lemma 5.1 and Prop. 2.4 without symmetrisation), exactly, as the
    upper envelope of the lines (``fdp.upper_envelope``), vertices lowered by a few ulp."""
    e = np.asarray(eps, dtype=float).ravel()
    d = np.asarray(delta, dtype=float).ravel()
    ok = np.isfinite(e) & (e < 700)
    xs, ys = fdp.upper_envelope(np.concatenate(([0.0], 1 - d[ok])),
                                 np.concatenate(([0.0], -np.exp(e[ok]))))
    return fdp.PiecewiseLinear(xs, np.clip(ys - 4 * _EPS, 0.0, 1.0))


def _steps(steps) -> int:
    """A whole number of compositions in [1, 1e9] (the lattice's window is sized for at most that)."""
    return K.check_steps(steps, integer=True, hi=1e9)


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


class CompositePLD(PLDResult):
    """Certified bounds for a heterogeneous composition: ``models`` maps each direction
    ("remove", "add" or "single") to a list of (LossModel, count); every factor is
    discretised on one lattice h Z, self-composed by ``compose`` and the factors are
    multiplied by ``convolve``.  Under add/remove neighbours the whole composition faces
    one fixed pair of data sets, so each direction is composed on its own and the worse
    direction is reported (symmetric mechanisms contribute their single model to both)."""

    GAP_REFINE = False      # one shared lattice for every factor

    def _reversed(self, direction: str) -> bool:
        # a direction lists (model, count) per factor; a symmetric factor reads the same both ways
        return any(m.name.endswith("(reversed)") for m, _ in self.models[direction])

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
