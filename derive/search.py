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

import math
import random
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Sequence
from collections.abc import Sequence as _SequenceABC

import mpmath as mp
import sympy as sp

#: how far the search goes into unbounded domains, in decades (10**-U .. 10**U)
DECADES = 6
#: a bounded domain wider than 10^WIDE_DECADES (without a search range) is searched on log scales
WIDE_DECADES = 4


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
    @cached_property
    def _float_ends(self):
        """(lo, hi) as Python floats when each end is absent or exactly a float (then comparing a
        float point with them decides exactly as comparing with the mpmath ends); else None."""
        out = []
        for x in (self.lo, self.hi):
            if x is None:
                out.append(None)
                continue
            try:
                f = float(x)
            except (TypeError, ValueError, OverflowError):
                return None
            if not (math.isfinite(f) and mp.mpf(f) == x):
                return None
            out.append(f)
        return tuple(out)

    def contains(self, v) -> bool:
        if type(v) is float and self._float_ends is not None:
            return self._contains_float(v)    # the float screen's points: the same answer, in floats
        if v is None or not mp.isfinite(v):
            return False
        if self.integer and v != mp.floor(v):
            return False
        if self.lo is not None and (v < self.lo or (self.lo_open and v == self.lo)):
            return False
        if self.hi is not None and (v > self.hi or (self.hi_open and v == self.hi)):
            return False
        return True

    def _contains_float(self, v: float) -> bool:
        lo, hi = self._float_ends
        if not math.isfinite(v):
            return False
        if self.integer and v != math.floor(v):
            return False
        if lo is not None and (v < lo or (self.lo_open and v == lo)):
            return False
        if hi is not None and (v > hi or (self.hi_open and v == hi)):
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
        elif self.lo is not None and self.hi is not None and self.wide:
            a, b = mp.mpf(self.lo), mp.mpf(self.hi)
            g = mp.e ** self._wide_exponent(abs(u), mp.log(b - a))
            v = a + g if u <= 0 else b - g
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

    def value_float(self, u: float) -> float:
        """``value`` in floats (the screen's points; mpmath re-derives the point it reports).  Raises
        OverflowError beyond the floats (a Python float, never a NumPy scalar that would only warn)."""
        u = float(u)
        if self.search is not None:
            a, b = (float(x) for x in self.search)
            t = (u + 1) / 2
            if a > 0 and b / a > 100:
                v = math.exp(math.log(a) + (math.log(b) - math.log(a)) * t)
            else:
                v = a + (b - a) * t
        elif self.lo is not None and self.hi is not None and self.wide:
            a, b = float(self.lo), float(self.hi)
            g = math.exp(self._wide_exponent(abs(u), math.log(b - a)))
            v = a + g if u <= 0 else b - g
        elif self.lo is not None and self.hi is not None:
            a, b = float(self.lo), float(self.hi)
            k = 6 * u if abs(u) <= 1 else math.copysign(6 + 34 * (abs(u) - 1), u)
            v = a + (b - a) / (1 + math.exp(-k))
        elif self.lo is not None:
            v = float(self.lo) + 10.0 ** (DECADES * u)
        elif self.hi is not None:
            v = float(self.hi) - 10.0 ** (DECADES * u)
        else:
            v = math.sinh(u * DECADES * math.log(10))
        if self.integer:
            v = float(round(v))
            if self.lo is not None and v < self.lo:
                v = float(math.ceil(self.lo))
            if self.hi is not None and v > self.hi:
                v = float(math.floor(self.hi))
        return v

    @cached_property
    def wide(self) -> bool:
        """A bounded domain without a search range spanning more than WIDE_DECADES decades: searched
        on a log scale of the distance to each end (``_wide_exponent``), so that x in (0, 1e300) is
        tried at 1e-12, 1, 1e150 and 1e300 - 1e288, not only near its middle."""
        if self.search is not None or self.lo is None or self.hi is None or self.integer:
            return False
        try:
            return float(mp.mpf(self.hi) - mp.mpf(self.lo)) > 10.0 ** WIDE_DECADES
        except (TypeError, ValueError):
            return False

    @staticmethod
    def _wide_exponent(r, log_width):
        """log of the distance to the nearer end at |u| = r: from log(1e-12) at r = 1 (and on, down
        to e^-40 below it at r = 2) to log(width / 2) at r = 0, linearly (a log scale that passes
        through 1)."""
        lo_exp = -12 * math.log(10)
        if r <= 1:
            return log_width - math.log(2) + (lo_exp - log_width + math.log(2)) * r
        return lo_exp - 40 * (r - 1)

    def coordinate(self, value) -> float:
        """The coordinate ``u`` with ``value(u) == value`` (up to rounding), for a variable with a
        search range (linear or log); the seeds of a search are given as values."""
        if self.search is None:
            raise ValueError(f"{self.name}: coordinates of seeds need a search range")
        a, b = (float(x) for x in self.search)
        x = float(value)
        if a > 0 and b / a > 100:
            t = (math.log(x) - math.log(a)) / (math.log(b) - math.log(a))
        else:
            t = (x - a) / (b - a)
        return 2 * t - 1

    def special_coordinates(self) -> list[float]:
        """Coordinates of the ends and the middle (of the search range, or of a bounded
        domain: then also within e^-40 of its ends)."""
        if self.search is None and self.lo is not None and self.hi is not None:
            return [-2.0, -1.0, 0.0, 1.0, 2.0]
        return [-1.0, 0.0, 1.0]


class LazyProduct(_SequenceABC):
    """``itertools.product(values, repeat=d)`` as a sequence, in the same order, without building it;
    with ``outer=k``, only the tuples with at least one coordinate among ``values[k:]``.  Indexing
    costs O(d len(values)), so ``random.sample`` (which only takes its ``len`` and indexes it when the
    population is large) draws from 7^9 tuples the sample it would draw from the list."""

    def __init__(self, values, d: int, outer: int | None = None):
        self.values, self.d, self.outer = tuple(values), int(d), outer
        self._inner = len(self.values) if outer is None else outer

    def _count(self, r: int, has_outer: bool) -> int:
        m = len(self.values)
        return m ** r if self.outer is None or has_outer else m ** r - self._inner ** r

    def __len__(self) -> int:
        return self._count(self.d, False)

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(len(self)))]
        n = len(self)
        j = j + n if j < 0 else j
        if not 0 <= j < n:
            raise IndexError(j)
        out, has = [], False
        for pos in range(self.d):
            r = self.d - pos - 1
            for k, x in enumerate(self.values):
                h = has or (self.outer is not None and k >= self.outer)
                c = self._count(r, h)
                if j < c:
                    out.append(x)
                    has = h
                    break
                j -= c
        return tuple(out)


class MixedProduct(_SequenceABC):
    """``itertools.product(*lists)`` as a sequence, in the same order, without building it: with
    14 variables of 3 special coordinates each the list was 3^14 tuples (about 0.7 GB) to sample
    81 of.  ``random.sample`` on it draws the same tuples, in the same order, as on the list."""

    def __init__(self, lists):
        self.lists = [tuple(v) for v in lists]
        self._n = math.prod(len(v) for v in self.lists)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(len(self)))]
        j = j + self._n if j < 0 else j
        if not 0 <= j < self._n:
            raise IndexError(j)
        out = []
        for v in reversed(self.lists):        # the last coordinate varies fastest
            j, r = divmod(j, len(v))
            out.append(v[r])
        return tuple(reversed(out))


def _special_combos(vars_, most: int, rng) -> list:
    """The product of the variables' special coordinates, or ``most`` of them drawn by ``rng``."""
    combos = MixedProduct([v.special_coordinates() for v in vars_])
    return rng.sample(combos, most) if len(combos) > most else list(combos)


@dataclass
class SearchResult:
    point: dict | None          # the worst point found (None: no usable point)
    violation: object           # its violation (mpf), or None
    evaluations: int            # usable evaluations (mpmath)
    tried: int                  # points tried (including undefined ones)
    screened: int = 0           # points screened in floats (0: no float screen)


def _point(vars_: Sequence[Var], us) -> dict:
    return {v.name: v.value(u) for v, u in zip(vars_, us)}


def worst_point(violation: Callable[[dict], object], vars_: Sequence[Var], *,
                where: Callable[[dict], bool] | None = None, n_random: int = 48,
                starts: int = 3, maxfev: int = 60, seed: int = 2024, dps: int = 30,
                stop_at=None, screen: Callable[[dict], float | None] | None = None,
                screen_points: int = 2048, floor=None, seeds: Sequence[dict] = ()) -> SearchResult:
    """Maximise ``violation`` over the domain (see the module docstring).

    ``where(point)`` encodes the claim's conditions (False: not in the domain).
    ``stop_at``: stop early once a violation above it is found (a counterexample is
    enough; the shrink step makes it readable).  ``floor``: a violation at or below it is taken as
    computed, without the recomputation at higher precision (the claim does not count it).

    ``screen``: the same violation in floats (a function of a point of Python floats; None where
    floats cannot tell).  With it the search screens the ends, the middles and many random points
    (``screen_points`` of them: a fixed number, so that the verdict never depends on the machine's
    speed) in floats, runs Nelder-Mead in floats, and
    evaluates in mpmath only the worst few of them, the points floats could not evaluate, and a
    short Nelder-Mead from the best (``_screened``).

    ``seeds``: points (variable name -> value; the others at the middle of their range) tried
    before the random ones, such as the extremal pairs the literature names."""
    seed_us = seed_coordinates(vars_, seeds)
    if screen is not None:
        return _screened(violation, screen, vars_, where=where, starts=starts, maxfev=maxfev, seed=seed,
                         dps=dps, stop_at=stop_at, n=screen_points, floor=floor, seed_us=seed_us)
    rng = random.Random(seed)
    d = len(vars_)
    best = SearchResult(None, None, 0, 0)
    ev = _mp_evaluator(violation, vars_, where, dps, floor, best)

    # 1. ends and middles
    combos = _special_combos(vars_, 81, rng)
    starts_pool = []
    for us in seed_us:
        starts_pool.append((us, ev(us)))
        if _done(best, stop_at):
            return best
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


#: points of the float screen that go to mpmath: the worst, and at most this many that floats
#: could not evaluate
SCREEN_TOP = 6
SCREEN_UNDEFINED = 12
#: the screened search goes on down its list until this many mpmath values are usable
SCREEN_USABLE = 4
#: and, while mpmath confirms none of the float violations, through at most this many more
SCREEN_NOISE = 12


def seed_coordinates(vars_: Sequence[Var], seeds: Sequence[dict]) -> list[tuple]:
    """The search coordinates of ``seeds`` (name -> value; a variable a seed does not name sits at
    the middle of its range); a seed naming a variable without a search range is left out."""
    out = []
    for sd in seeds:
        try:
            out.append(tuple(v.coordinate(sd[v.name]) if v.name in sd else 0.0 for v in vars_))
        except (ValueError, ZeroDivisionError, OverflowError):
            continue
    return out


def _screened(violation, screen, vars_, *, where, starts, maxfev, seed, dps, stop_at, n, floor=None,
              seed_us=()):
    rng = random.Random(seed)
    d = len(vars_)
    best = SearchResult(None, None, 0, 0)
    ev = _mp_evaluator(violation, vars_, where, dps, floor, best)   # mpmath: the verdict's value
    mp_cache = ev.cache

    def in_domain(pt) -> bool:
        return all(v.contains(pt[v.name]) for v in vars_) and (where is None or _safe_bool(where, pt))

    def fev(us):                                  # floats: where to look
        try:
            pt = {v.name: v.value_float(u) for v, u in zip(vars_, us)}
        except (OverflowError, ValueError):
            pt = None
        if pt is None or not in_domain(pt):
            # within a rounding of an open end (1 - e^-40 is 1.0 in floats): the mpmath point decides,
            # and the screen sees its floats, as before
            with mp.workdps(dps):
                mpt = _point(vars_, us)
            if not in_domain(mpt):
                return "out"
            pt = {k: float(x) for k, x in mpt.items()}
        try:
            v = screen(pt)
        except (ZeroDivisionError, ValueError, OverflowError, TypeError, ArithmeticError, AttributeError):
            return None
        if v is None:
            return None
        v = float(v)
        return v if math.isfinite(v) or v == math.inf else None

    scored, undefined = [], []

    def take(us):
        v = fev(us)
        best.screened += 1
        if v is None:
            undefined.append(us)
        elif v != "out":
            scored.append((v, us))

    for us in seed_us:
        take(us)
    combos = _special_combos(vars_, 243, rng)
    for us in combos:
        take(tuple(u * 0.999 if abs(u) == 1 else u for u in us))
    for i in range(n):
        take(tuple(-1 + 2 * (rng.random() + (i % 4)) / 4 if j == i % max(d, 1) else rng.uniform(-1, 1)
                   for j in range(d)))
    scored.sort(key=lambda t: t[0], reverse=True)
    # Nelder-Mead in floats from the worst few
    if d > 0 and scored:
        from scipy.optimize import minimize

        def fobj(x):
            v = fev(tuple(x))
            if v is None or v == "out":
                return 1e300
            return -_squash_float(v)
        for _, us in scored[:starts]:
            r = minimize(fobj, list(us), method="Nelder-Mead",
                         options={"maxfev": 150, "xatol": 1e-10, "fatol": 1e-16, "initial_simplex": _simplex(us)})
            scored.append((-r.fun if r.fun < 1e300 else -math.inf, tuple(r.x)))
        scored.sort(key=lambda t: t[0], reverse=True)
    # the worst in mpmath, then what floats could not see
    for _, us in scored[:SCREEN_TOP]:
        ev(us)
        if _done(best, stop_at):
            return best
    for us in undefined[:SCREEN_UNDEFINED]:
        ev(us)
        if _done(best, stop_at):
            return best
    # a violation that holds to the last digit is rounding noise at every precision (``_stable`` calls
    # such a point undefined): go on down the list until a few points are usable
    k = SCREEN_TOP
    while best.evaluations < SCREEN_USABLE and k < min(len(scored), SCREEN_TOP + 48):
        ev(scored[k][1])
        k += 1
        if _done(best, stop_at):
            return best
    # floats saw a violation that mpmath does not confirm at the top of the list (rounding noise of
    # floats: 1 - e^{-D/2} at D = 1e-16 is 1.1e-16 against an exact 0, a relative violation of 1 at
    # every P = Q corner): go on down the float-violating points, a bounded number of them
    # (points whose float value repeats one mpmath already refuted are the same noise: skipped)
    refuted = {v for v, _ in scored[:k]}
    extra = 0
    while (best.violation is None or best.violation <= 0) and k < len(scored) and scored[k][0] > 0 \
            and extra < SCREEN_NOISE:
        v, us = scored[k]
        k += 1
        if v in refuted:
            continue
        refuted.add(v)
        ev(us)
        extra += 1
        if _done(best, stop_at):
            return best
    # a short Nelder-Mead in mpmath from the best mpmath point (precision floats lack)
    usable = [(us, v) for us, v in ((k, mp_cache[k]) for k in mp_cache) if v is not None]
    usable.sort(key=lambda t: t[1], reverse=True)
    if d and usable:
        from scipy.optimize import minimize

        def obj(x):
            if _done(best, stop_at):
                raise _Stop
            v = ev(tuple(x))
            return 1e300 if v is None else -float(_squash(v))
        try:
            minimize(obj, list(usable[0][0]), method="Nelder-Mead",
                     options={"maxfev": max(8, maxfev // 3), "xatol": 1e-9, "fatol": 1e-14,
                              "initial_simplex": _simplex(usable[0][0])})
        except _Stop:
            pass
    return best


def _mp_evaluator(violation, vars_, where, dps, floor, best: SearchResult):
    """The violation at search coordinates ``us`` in mpmath (``_stable``), cached by coordinates
    (``.cache``); points outside the domain are None; ``best`` keeps count and the worst point."""
    cache: dict = {}

    def ev(us):
        key = tuple(round(float(u), 12) for u in us)
        if key in cache:
            return cache[key]
        with mp.workdps(dps):
            pt = _point(vars_, us)
        best.tried += 1
        val = None
        if all(v.contains(pt[v.name]) for v in vars_) and (where is None or _safe_bool(where, pt)):
            val = _stable(violation, pt, dps, floor)
            if val is not None and not mp.isfinite(val):
                val = mp.mpf(10) ** 30 if val > 0 else None   # +inf violation: a real one
        cache[key] = val
        if val is not None:
            best.evaluations += 1
            if best.violation is None or val > best.violation:
                best.point, best.violation = pt, val
        return val
    ev.cache = cache
    return ev


def _squash_float(v: float) -> float:
    if v == math.inf:
        return 1e300
    return math.copysign(math.log1p(abs(v) * 1e30), v)


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


def _stable(violation, pt, dps, floor=None):
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
    if floor is not None and val <= floor:
        return val        # at or below what the claim counts as a violation: no need to look closer
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
    if (third is not None and again is not None and mp.isfinite(third) and mp.isfinite(again)
            and 0 < third < again * mp.mpf(10) ** -(dps // 2)):
        return third      # it vanishes as the precision grows: rounding noise of a relation that holds
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
    (1, 2, ... ``max_digits``) that keep it in the domain and violating; a coordinate next to a
    finite end of its domain is rounded in its offset from that end (1 + 3e-12, not 1.0000000000031)."""
    pt = dict(point)
    for v in vars_:
        x = pt[v.name]
        for k in range(1, max_digits + 1):
            cands = [mp.mpf(mp.nstr(x, k)) if x != 0 else mp.mpf(0)]
            for end in (v.lo, v.hi):
                if end is not None and x != end:
                    e = mp.mpf(end)
                    cands.append(e + mp.mpf(mp.nstr(x - e, k)))
            done = False
            for cand in cands:
                if v.integer:
                    cand = mp.nint(cand)
                trial = dict(pt)
                trial[v.name] = cand
                if v.contains(cand) and _safe_bool(still_violates, trial):
                    pt, done = trial, True
                    break
            if done:
                break
    return _round_pmfs(pt, vars_, still_violates)


def _logit_groups(names) -> list:
    """The softmax logit coordinates of each pmf among ``names``: [[X_u1, ..., X_uk], [X_v1, ...], ...]."""
    import re
    groups: dict = {}
    for n in names:
        m = re.fullmatch(r"(.+_[uv])(\d+)", n)
        if m:
            groups.setdefault(m.group(1), []).append((int(m.group(2)), n))
    return [[n for _, n in sorted(g)] for g in groups.values() if len(g) >= 2]


def _round_pmfs(pt: dict, vars_: Sequence[Var], still_violates: Callable[[dict], bool]) -> dict:
    """A violating point whose coordinates include pmf logits (``X_u1 .. X_uk``), each pmf rounded to
    the fewest digits (1, 2, 3; its largest entry taking the remainder, no entry rounded to 0) that
    keep the point in the box and violating: its logits become log P, centred as before, so the pmf a
    referee reads is (0.25, 0.5, 0.25), not (0.2531, ...)."""
    by_name = {v.name: v for v in vars_}
    for group in _logit_groups(by_name):
        with mp.workdps(max(mp.mp.dps, 30)):
            us = [mp.mpf(pt[n]) for n in group]
            top = max(us)
            w = [mp.exp(u - top) for u in us]
            P = [x / mp.fsum(w) for x in w]
            big = max(range(len(P)), key=lambda i: P[i])
            for k in (1, 2, 3):
                R = [mp.mpf(mp.nstr(x, k)) for x in P]
                R[big] = 1 - mp.fsum(R[i] for i in range(len(R)) if i != big)
                if any(r <= 0 for r in R):
                    continue
                logs = [mp.log(r) for r in R]
                shift = mp.fsum(logs) / len(logs) - mp.fsum(us) / len(us)   # the point's own centring
                trial = dict(pt)
                for n, lg in zip(group, logs):
                    trial[n] = lg - shift
                if all(by_name[n].contains(trial[n]) for n in group) and _safe_bool(still_violates, trial):
                    pt = trial
                    break
    return pt


def pull_in(point: dict, vars_: Sequence[Var], still_violates: Callable[[dict], bool]) -> dict:
    """Move each coordinate of a violating point towards the middle of its search range, a decade
    at a time, as far as it keeps violating: a coordinate 3e-12 above its domain's end 1 becomes
    1 + 10^-k for the largest k that still violates, 4e-18 becomes the largest power of ten, 1e15
    the smallest.  A referee quotes alpha = 1.01, not alpha = 1.000000000003."""
    pt = dict(point)
    for v in vars_:
        if v.integer:
            continue
        x, mid = mp.mpf(pt[v.name]), mp.mpf(v.value(0.0))
        base = None                      # the reference the offset is taken from
        for end in (v.lo, v.hi):
            if end is not None and abs(x - mp.mpf(end)) * 10 < abs(mid - mp.mpf(end)):
                base = mp.mpf(end)
        if base is None and x != 0 and (abs(x) * 10 < abs(mid) or abs(x) > 10 * max(abs(mid), 1)):
            base = mp.mpf(0)
        if base is None or x == base:
            continue
        sign = 1 if x > base else -1
        lo_k, hi_k = int(mp.floor(mp.log10(abs(x - base)))), int(mp.floor(mp.log10(abs(mid - base) or 1)))
        ks = range(hi_k, lo_k, -1) if hi_k > lo_k else range(hi_k, lo_k)
        for k in list(ks)[:40]:
            cand = base + sign * mp.mpf(10) ** k
            trial = dict(pt)
            trial[v.name] = cand
            if v.contains(cand) and _safe_bool(still_violates, trial):
                pt = trial
                break
    return pt
