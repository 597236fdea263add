"""Adversarial search for the worst point of a claim over its stated domain.

A claim's checker hands ``worst_point`` a *violation* function of a point (a
dict of mpmath numbers): positive where the claim is violated, larger where it
is violated more, ``None`` where the formula is undefined.  The search looks
where random draws rarely look:

1. every variable near each end of its domain and in the middle (all
   combinations for up to four variables, a random subset beyond);
2. random points, stratified in a coordinate that spreads each domain over
   decades (``Var.value``);
3. Nelder-Mead (SciPy) from the worst few starts, in those coordinates;

and returns the worst point found.  ``shrink`` then rounds a violating point to
as few significant digits as keep it violating, so that a counterexample reads
like one a referee would write.  Everything is deterministic for a given seed.
"""
from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass
from typing import Callable, Sequence

import mpmath as mp
import sympy as sp

#: how far the search goes into unbounded domains, in decades (10**-U .. 10**U)
DECADES = 6


@dataclass(frozen=True)
class Var:
    """A variable of a claim and its stated domain: ``lo``/``hi`` (``None`` for an
    infinite end), open or closed ends, integer or real, and an optional finite
    ``search`` range (a claim file's ``search = [lo, hi]``) that the search
    explores instead of the default decades."""

    name: str
    symbol: sp.Symbol
    lo: object = None
    hi: object = None
    lo_open: bool = True
    hi_open: bool = True
    integer: bool = False
    search: tuple | None = None

    # ------------------------------------------------------------------ domain
    def contains(self, v) -> bool:
        if v is None or not mp.isfinite(v):
            return False
        if self.integer and v != mp.floor(v):
            return False
        if self.lo is not None and (v < self.lo or (self.lo_open and v == self.lo)):
            return False
        if self.hi is not None and (v > self.hi or (self.hi_open and v == self.hi)):
            return False
        return True

    def describe(self) -> str:
        lo = "-oo" if self.lo is None else mp.nstr(mp.mpf(self.lo), 8)
        hi = "oo" if self.hi is None else mp.nstr(mp.mpf(self.hi), 8)
        lb = "(" if self.lo is None or self.lo_open else "["
        rb = ")" if self.hi is None or self.hi_open else "]"
        return f"{self.name} in {lb}{lo}, {hi}{rb}" + (" (integer)" if self.integer else "")

    # ------------------------------------------------------------------ coordinates
    def value(self, u: float):
        """The domain point at coordinate ``u``.  On [-1, 1] the map spreads points evenly
        over the search range (log-evenly over decades for positive ranges spanning more than
        two); beyond +-1 it runs on towards the domain's ends (for a bounded domain to within
        e^-40 of them at |u| = 2), so that Nelder-Mead and the end probes reach them."""
        u = mp.mpf(u)
        if self.search is not None:
            a, b = (mp.mpf(x) for x in self.search)
            t = (u + 1) / 2                          # 0..1 on the range, linear beyond it
            if a > 0 and b / a > 100:
                v = mp.e ** (mp.log(a) + (mp.log(b) - mp.log(a)) * t)
            else:
                v = a + (b - a) * t
        elif self.lo is not None and self.hi is not None:
            a, b = mp.mpf(self.lo), mp.mpf(self.hi)
            k = 6 * u if abs(u) <= 1 else mp.sign(u) * (6 + 34 * (abs(u) - 1))
            v = a + (b - a) / (1 + mp.e ** (-k))
        elif self.lo is not None:
            v = mp.mpf(self.lo) + mp.mpf(10) ** (DECADES * u)
        elif self.hi is not None:
            v = mp.mpf(self.hi) - mp.mpf(10) ** (DECADES * u)
        else:
            v = mp.sinh(u * DECADES * mp.log(10))
        if self.integer:
            v = mp.nint(v)
            if self.lo is not None and v < self.lo:
                v = mp.ceil(self.lo)
            if self.hi is not None and v > self.hi:
                v = mp.floor(self.hi)
        return v

    def special_coordinates(self) -> list[float]:
        """Coordinates of the ends and the middle (of the search range, or of a bounded
        domain: then also within e^-40 of its ends)."""
        if self.search is None and self.lo is not None and self.hi is not None:
            return [-2.0, -1.0, 0.0, 1.0, 2.0]
        return [-1.0, 0.0, 1.0]


@dataclass
class SearchResult:
    point: dict | None          # the worst point found (None: no usable point)
    violation: object           # its violation (mpf), or None
    evaluations: int            # usable evaluations
    tried: int                  # points tried (including undefined ones)


def _point(vars_: Sequence[Var], us) -> dict:
    return {v.name: v.value(u) for v, u in zip(vars_, us)}


def worst_point(violation: Callable[[dict], object], vars_: Sequence[Var], *,
                where: Callable[[dict], bool] | None = None, n_random: int = 48,
                starts: int = 3, maxfev: int = 60, seed: int = 2024, dps: int = 30,
                stop_at=None) -> SearchResult:
    """Maximise ``violation`` over the domain (see the module docstring).

    ``where(point)`` encodes the claim's conditions (False: not in the domain).
    ``stop_at``: stop early once a violation above it is found (a counterexample is
    enough; the shrink step makes it readable)."""
    rng = random.Random(seed)
    d = len(vars_)
    best = SearchResult(None, None, 0, 0)
    cache: dict = {}

    def ev(us) -> object:
        key = tuple(round(float(u), 12) for u in us)
        if key in cache:
            return cache[key]
        with mp.workdps(dps):
            pt = _point(vars_, us)
        best.tried += 1
        val = None
        if all(v.contains(pt[v.name]) for v in vars_) and (where is None or _safe_bool(where, pt)):
            val = _stable(violation, pt, dps)
            if val is not None and not mp.isfinite(val):
                val = mp.mpf(10) ** 30 if val > 0 else None   # +inf violation: a real one
        cache[key] = val
        if val is not None:
            best.evaluations += 1
            if best.violation is None or val > best.violation:
                best.point, best.violation = pt, val
        return val

    # 1. ends and middles
    specials = [v.special_coordinates() for v in vars_]
    combos = list(itertools.product(*specials))
    if len(combos) > 81:
        combos = rng.sample(combos, 81)
    starts_pool = []
    for us in combos:
        # pull exact ends slightly inside (an open end is not a point of the domain)
        us = tuple(u * 0.999 if abs(u) == 1 else u for u in us)
        starts_pool.append((us, ev(us)))
        if _done(best, stop_at):
            return best
    # 2. stratified random points
    for i in range(n_random):
        us = tuple(-1 + 2 * (rng.random() + (i % 4)) / 4 if j == i % max(d, 1) else rng.uniform(-1, 1)
                   for j in range(d))
        starts_pool.append((us, ev(us)))
        if _done(best, stop_at):
            return best
    # 3. local search from the worst starts
    usable = [(us, v) for us, v in starts_pool if v is not None]
    usable.sort(key=lambda t: t[1], reverse=True)
    if d == 0 or not usable:
        return best
    from scipy.optimize import minimize

    def obj(x):
        if _done(best, stop_at):
            raise _Stop
        v = ev(tuple(x))
        if v is None:
            return 1e300
        return -float(_squash(v))

    for us, _ in usable[:starts]:
        try:
            minimize(obj, list(us), method="Nelder-Mead",
                     options={"maxfev": maxfev, "xatol": 1e-9, "fatol": 1e-14,
                              "initial_simplex": _simplex(us)})
        except _Stop:
            break
        if _done(best, stop_at):
            break
    return best


def _eval(violation, pt, dps):
    with mp.workdps(dps):
        try:
            return violation(pt)
        except (ZeroDivisionError, ValueError, OverflowError, TypeError):
            return None


def _agree(a, b) -> bool:
    """Two values of a violation agree: both +inf, or both finite, of one sign and within 1e-3
    relative."""
    if a is None or b is None or mp.isnan(a) or mp.isnan(b):
        return False
    if mp.isinf(a) or mp.isinf(b):
        return a == b
    return (a > 0) == (b > 0) and abs(a - b) <= mp.mpf(10) ** -3 * max(abs(a), abs(b))


def _settled_no(v) -> bool:
    """A value that says "no violation" (finite or -inf, not positive)."""
    return v is not None and not mp.isnan(v) and not (v > 0)


def _stable(violation, pt, dps):
    """The violation at ``dps`` digits; a positive one is recomputed at twice the digits and
    kept only when the two agree (cancellation that eats the working precision makes a
    violation out of rounding).  When the recomputation says "no violation" (the sign flips)
    its value is returned; when it disagrees otherwise (another magnitude, not finite, not a
    number, undefined) a third value at four times the digits decides: kept when it agrees
    with the second, its value when it says "no violation", else the point counts as
    undefined.  So a violation rounding made is never returned, and one that agrees at two
    successive precisions is never discarded."""
    val = _eval(violation, pt, dps)
    if val is None or not (val > 0):
        return val
    again = _eval(violation, pt, 2 * dps)
    if _settled_no(again):
        return again
    if _agree(val, again):
        return again
    third = _eval(violation, pt, 4 * dps)
    if _settled_no(third):
        return third
    if _agree(again, third):
        return third
    return None


class _Stop(Exception):
    pass


def _done(best: SearchResult, stop_at) -> bool:
    return stop_at is not None and best.violation is not None and best.violation > stop_at


def _squash(v):
    """A violation mapped monotonically into a bounded range (Nelder-Mead's objective)."""
    v = float(v) if abs(v) < 1e300 else math.copysign(1e300, float(mp.sign(v)))
    return math.copysign(math.log1p(abs(v) * 1e30), v)


def _simplex(us):
    d = len(us)
    pts = [list(us)]
    for j in range(d):
        p = list(us)
        p[j] = p[j] + (0.15 if p[j] < 0.7 else -0.15)
        pts.append(p)
    return pts


def _safe_bool(fn, pt) -> bool:
    try:
        return bool(fn(pt))
    except (ZeroDivisionError, ValueError, TypeError, OverflowError):
        return False


def shrink(point: dict, vars_: Sequence[Var], still_violates: Callable[[dict], bool],
           max_digits: int = 8) -> dict:
    """Round each coordinate of a violating point to the fewest significant digits
    (1, 2, ... ``max_digits``) that keep it in the domain and violating."""
    pt = dict(point)
    for v in vars_:
        x = pt[v.name]
        for k in range(1, max_digits + 1):
            cand = mp.mpf(mp.nstr(x, k)) if x != 0 else mp.mpf(0)
            if v.integer:
                cand = mp.nint(cand)
            trial = dict(pt)
            trial[v.name] = cand
            if v.contains(cand) and _safe_bool(still_violates, trial):
                pt = trial
                break
    return pt
