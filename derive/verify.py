"""Checking engine: symbolic attempts first, then random in-domain points at
high precision (mpmath).  Everything here is independent of what a paper says:
the caller passes the *true* side (computed from definitions) and the
*printed* side, and gets a ``Verdict``.
"""
from __future__ import annotations

import math
import random
import time
from typing import Callable, Iterable, Sequence

import mpmath as mp
import sympy as sp

from . import budget, symcache
from .core import Verdict
from .symbols import Param
from .truths_float import grid_golden

symcache.install()     # Integral.doit memoised in this process (the same values, once each)

DPS = 50          # working precision for numeric checks (decimal digits)
TOL_DIGITS = 30   # an identity "holds" when the relative error is below 10**-TOL_DIGITS
NPOINTS = 40


# ----------------------------------------------------------------------------- sampling
def _draw(prm: Param, rng: random.Random):
    kind, *a = prm.sample
    if kind == "uniform":
        lo, hi = a
        return mp.mpf(lo) + (mp.mpf(hi) - lo) * mp.mpf(rng.random())
    if kind == "loguniform":
        lo, hi = a
        return mp.exp(mp.log(lo) + (mp.log(hi) - mp.log(lo)) * mp.mpf(rng.random()))
    if kind == "above":
        base, lo, hi = a
        return base + mp.exp(mp.log(lo) + (mp.log(hi) - mp.log(lo)) * mp.mpf(rng.random()))
    if kind == "integer":
        lo, hi = a
        return mp.mpf(rng.randint(lo, hi))
    raise ValueError(f"unknown sampling law {kind!r}")


def sample_points(params: Sequence[Param], n: int = NPOINTS, conditions: Iterable = (),
                  seed: int = 20210126, where: Callable | None = None) -> list[dict]:
    """``n`` random points of the parameters' domains satisfying ``conditions``
    (SymPy relations) and the predicate ``where(point)``; deterministic."""
    rng = random.Random(seed)
    conds = [sp.lambdify([p.symbol for p in params], c, modules="mpmath") for c in conditions]
    pts: list[dict] = []
    with mp.workdps(DPS):
        for _ in range(400 * n):
            vals = [_draw(prm, rng) for prm in params]
            if not all(prm.domain.contains(sp.Float(str(v), 30)) for prm, v in zip(params, vals)):
                continue
            if not all(bool(c(*vals)) for c in conds):
                continue
            pt = {prm.name: v for prm, v in zip(params, vals)}
            if where is not None and not where(pt):
                continue
            pts.append(pt)
            if len(pts) == n:
                break
    return pts


def mpfunc(expr, params: Sequence[Param]):
    """An mpmath function of the parameters (positional, in ``params`` order)."""
    return sp.lambdify([p.symbol for p in params], expr, modules="mpmath")


def _real(x):
    """Real value of an mpmath result, or None when it is not real / not finite."""
    if isinstance(x, mp.mpc):
        if abs(x.imag) > mp.mpf(10) ** (-(DPS - 5)) * max(1, abs(x.real)):
            return None
        x = x.real
    try:
        x = mp.mpf(x)
    except (TypeError, ValueError):
        return None
    if mp.isnan(x) or mp.isinf(x):
        return None
    return x


def _relerr(a, b):
    """Relative error, absolute when one side is exactly zero."""
    if a == 0 or b == 0:
        return abs(a - b)
    return abs(a - b) / max(abs(a), abs(b))


def fmt(x, digits: int = 12) -> str:
    return mp.nstr(x, digits) if x is not None else "undefined"


def point_str(pt: dict, digits: int = 8) -> dict:
    """A point as a referee writes it: 30000 (not 30000.0), else ``digits`` significant digits."""
    return {k: (str(int(v)) if mp.isfinite(v) and v == int(v) and abs(v) < 10 ** 15 else mp.nstr(v, digits))
            for k, v in pt.items()}


# ----------------------------------------------------------------------------- referee points
def magnitude(pt: dict) -> float:
    """How far a point's coordinates are from magnitude 1 (sum of |log10 |x||; 0 for x = 0): the
    smaller, the more a referee would quote it."""
    out = 0.0
    for x in pt.values():
        for y in (x if isinstance(x, (tuple, list)) else (x,)):
            if isinstance(y, (tuple, list)):
                out += magnitude({0: y})
            elif isinstance(y, (mp.mpf, float, int)) and y != 0 and mp.isfinite(y):
                out += abs(float(mp.log10(abs(mp.mpf(y)))))
    return out


def moderate_failure(failures: list, key=lambda f: f[0]):
    """Of failing cases ``(point, error, ...)``, the one a referee would quote: among those whose
    error is at least 1e-3 of the worst, the one with the most moderate coordinates (``magnitude``);
    a clear violation at sigma = 1 reads better than the largest one at sigma = 1e-4."""
    top = max(f[1] for f in failures)
    return min((f for f in failures if f[1] >= top * mp.mpf("1e-3")), key=lambda f: magnitude(key(f)))


def _rounded(x, k: int, ends=()):
    """``x`` to ``k`` significant digits, and (next to a finite end ``e``) ``e`` + its offset to ``k``
    digits: candidates, simplest first.  A probability vector (entries >= 0 summing to 1) is
    rounded entry by entry with its largest entry taking the remainder, so it stays one."""
    if isinstance(x, (tuple, list)):
        xs = [mp.mpf(y) for y in x]
        if xs and all(y >= 0 for y in xs) and abs(sum(xs) - 1) < mp.mpf(10) ** -20:
            big = max(range(len(xs)), key=lambda i: xs[i])
            ys = [mp.mpf(mp.nstr(y, k)) if i != big else None for i, y in enumerate(xs)]
            rest = 1 - sum(y for y in ys if y is not None)
            ys[big] = rest
            if all(y >= 0 for y in ys) and all((y > 0) == (z > 0) for y, z in zip(ys, xs)):
                return [type(x)(ys)]
            return []
        return [type(x)(mp.mpf(mp.nstr(y, k)) if y != 0 else mp.mpf(0) for y in xs)]
    x = mp.mpf(x)
    out = [mp.mpf(mp.nstr(x, k)) if x != 0 else mp.mpf(0)]
    for e in ends:
        if e is not None and x != e:
            out.append(mp.mpf(e) + mp.mpf(mp.nstr(x - e, k)))
    return out


def referee_point(pt: dict, names, violates: Callable[[dict], bool], *, ends=None,
                  max_digits: int = 8) -> dict:
    """Round the coordinates ``names`` of a violating point, one at a time, to the fewest significant
    digits (1, 2, ...) that keep it violating (``violates(point)``, which also says whether the
    point is in the domain); a coordinate above 10 then moves down to the first of 1, 2, 5, 10, ... that
    still violates (``_smaller_integer``), other integers and exact numbers stay.  ``ends`` maps a name to the
    finite ends of its domain (a coordinate next to one is rounded in its offset: 1 + 3e-12)."""
    ends = ends or {}
    for name in names:
        x = pt[name]
        if isinstance(x, (str, bool)):
            continue
        if isinstance(x, (int, mp.mpf, float)):
            if not mp.isfinite(x):
                continue
            if x == int(x):
                pt = _smaller_integer(pt, name, violates)
                continue
        for k in range(1, max_digits + 1):
            found = False
            for cand in _rounded(x, k, ends.get(name, ())):
                trial = dict(pt)
                trial[name] = cand
                try:
                    ok = bool(violates(trial))
                except (ZeroDivisionError, ValueError, TypeError, OverflowError):
                    ok = False
                if ok:
                    pt, found = trial, True
                    break
            if found:
                break
        if isinstance(x, (mp.mpf, float)):
            pt = _smaller_integer(pt, name, violates)
    return pt


def _smaller_integer(pt: dict, name: str, violates: Callable[[dict], bool]) -> dict:
    """A coordinate above 10 (a count such as T or n, or a real rounded to one figure) replaced by the
    smallest of 1, 2, 5, 10, 20, 50, ... below it that keeps the point violating (a referee quotes T = 100, not
    T = 30000, when both show the slip); the type of the coordinate is kept."""
    x = pt[name]
    if abs(x) <= 10:
        return pt
    sign, mag, cands = (1 if x > 0 else -1), abs(int(x)), []
    k = 0
    while True:
        c = (1, 2, 5)[k % 3] * 10 ** (k // 3)
        if c >= mag:
            break
        cands.append(c)
        k += 1
    for c in cands:
        trial = dict(pt)
        trial[name] = type(x)(sign * c)
        try:
            ok = bool(violates(trial))
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            ok = False
        if ok:
            return trial
    return pt


def _interval_ends(prm: Param) -> tuple:
    dom = prm.domain
    if not isinstance(dom, sp.Interval):
        return ()
    return tuple(mp.mpf(str(e)) for e in (dom.start, dom.end) if e.is_finite)


def _param_inside(params: Sequence[Param], conds, where):
    """The domain test of ``sample_points``, for a point not drawn by it (a rounded counterexample)."""
    def inside(pt: dict) -> bool:
        vals = [pt[p.name] for p in params]
        if not all(p.domain.contains(sp.Float(str(v), 30)) for p, v in zip(params, vals)):
            return False
        if not all(bool(c(*vals)) for c in conds):
            return False
        return where is None or bool(where(pt))
    return inside


# ----------------------------------------------------------------------------- symbolic
SIMPLIFY_MAX_OPS = 400   # sympy.simplify is attempted on expressions of at most this many operations


def symbolic_zero(expr, max_ops: int = SIMPLIFY_MAX_OPS) -> bool:
    """True when cheap SymPy rewrites (and ``simplify`` on small expressions)
    reduce ``expr`` to 0.  False means "not shown", never "shown nonzero".

    The budget is deterministic (an operation count, never a clock): past ``max_ops``
    operations ``simplify`` is skipped and ``derive.budget`` records it, so the claim's
    verdict says the numeric path was taken because of the budget."""
    t0 = time.perf_counter()
    got = None
    try:
        got = _symbolic_zero(expr, max_ops)
        return got
    finally:
        budget.record_call(time.perf_counter() - t0, got, expr)


#: assumptions a probe value is checked against (a value that does not satisfy one of the symbol's
#: assumptions, or an assumption outside this list, means no probe)
_PROBE_ASSUMPTIONS = ("real", "positive", "negative", "nonnegative", "nonpositive", "nonzero", "zero",
                      "integer", "even", "odd", "finite", "rational", "extended_real", "extended_positive",
                      "extended_negative", "extended_nonnegative", "extended_nonpositive", "extended_nonzero",
                      "complex", "commutative", "infinite", "hermitian", "imaginary", "algebraic",
                      "noninteger", "irrational", "transcendental", "composite", "prime")
_UNPROBED = (sp.Integral, sp.Sum, sp.Product, sp.Derivative, sp.Limit, sp.core.function.AppliedUndef,
             sp.Piecewise)


def _probe_value(sym, k: int):
    """An exact value for ``sym`` that has every one of its assumptions (None when none is found)."""
    a = sym.assumptions0
    if a.get("integer"):
        v = sp.Integer(4 + 2 * k if a.get("even") else 3 + 2 * k)
    else:
        v = sp.Rational(5 + 3 * k, 7 + 2 * k) + sp.Rational(1, 11 + k)    # in (0, 1.4), not an integer
    if a.get("negative") or a.get("nonpositive") or a.get("extended_negative"):
        v = -v
    for key, want in a.items():
        if key not in _PROBE_ASSUMPTIONS:
            return None
        have = getattr(v, "is_" + key, None)
        if have is not want:
            return None
    return v


def numerically_nonzero(expr) -> bool:
    """True when ``expr`` is shown not identically 0: at one exact point satisfying every symbol's
    assumptions it evaluates in mpmath, at 30 and at 60 digits, to the same number (10 digits) of
    modulus above 1e-20 (fixed precision, so the probe's time is bounded).  An identity under the symbols' assumptions is 0 at such a point, so SymPy's simplify
    could not reduce it to 0; False means only "not shown" (unevaluated integrals, sums, undefined
    functions and piecewise forms are not probed)."""
    try:
        if expr.has(*_UNPROBED):
            return False
        pt = {}
        for k, x in enumerate(sorted(expr.free_symbols, key=lambda z: z.name)):
            v = _probe_value(x, k)
            if v is None:
                return False
            pt[x] = v
        syms = list(pt)
        fn = sp.lambdify(syms, expr, "mpmath")
        vals = []
        for dps in (30, 60):          # fixed precision: never SymPy's adaptive evalf, which can run unbounded
            with mp.workdps(dps):
                vals.append(mp.mpc(fn(*[mp.mpf(v.p) / v.q for v in pt.values()])))
        a, b = vals
    except Exception:  # noqa: BLE001 - a probe that cannot be evaluated shows nothing
        return False
    if not (mp.isfinite(a) and mp.isfinite(b)):
        return False
    with mp.workdps(60):
        return abs(b) > mp.mpf(10) ** -20 and abs(a - b) <= mp.mpf(10) ** -10 * abs(b)


def _symbolic_zero(expr, max_ops: int) -> bool:
    if expr == 0:
        return True
    if numerically_nonzero(expr):      # not an identity: no rewrite can reach 0 (and simplify would try)
        budget.probed_nonzero()
        return False
    tries = (sp.expand, sp.cancel, lambda e: sp.together(sp.expand(e)),
             lambda e: sp.expand(sp.powsimp(sp.expand_power_base(e, force=True), force=True)),
             lambda e: sp.expand(sp.expand_log(e, force=True)))
    for fn in tries:
        try:
            if fn(expr) == 0:
                return True
        except Exception:
            pass
    ops = sp.count_ops(expr)
    if ops <= max_ops:
        try:
            return sp.simplify(expr) == 0
        except Exception:
            return False
    budget.skipped(ops, max_ops)
    return False


# ----------------------------------------------------------------------------- checks
def check_equal(truth, printed, params: Sequence[Param], *, conditions=(), n: int = NPOINTS,
                symbolic: bool = True, derived=None, method: str = "", where=None,
                seed: int = 20210126, tol_digits: int = TOL_DIGITS) -> Verdict:
    """Is ``printed == truth`` on the domain?  ``truth`` and ``printed`` are
    SymPy expressions or mpmath callables of the parameters (in order)."""
    sym_ok = isinstance(truth, sp.Basic) and isinstance(printed, sp.Basic)
    if symbolic and sym_ok and symbolic_zero(sp.sympify(truth) - sp.sympify(printed)):
        return Verdict("proved", method or "SymPy simplification of the difference to 0",
                       derived=derived)
    ft = mpfunc(truth, params) if isinstance(truth, sp.Basic) else truth
    fp = mpfunc(printed, params) if isinstance(printed, sp.Basic) else printed
    pts = sample_points(params, n, conditions, seed=seed, where=where)
    tol = mp.mpf(10) ** -tol_digits
    worst, used, failures = mp.mpf(0), 0, []

    def at(pt):
        args = [pt[p.name] for p in params]
        a, b = _real(ft(*args)), _real(fp(*args))
        return (None, a, b) if a is None or b is None else (_relerr(a, b), a, b)

    with mp.workdps(DPS):
        for pt in pts:
            err, a, b = at(pt)
            if err is None:
                continue
            used += 1
            worst = max(worst, err)
            if err > tol:
                failures.append((pt, err))
    if used == 0:
        return Verdict("inconclusive", "random points", note="no in-domain point gave real values")
    if not failures:
        return Verdict("holds_numerically", method or "random in-domain points", points=used,
                       worst_error=float(worst), precision=DPS, derived=derived)
    with mp.workdps(DPS):
        inside = _param_inside(params, [sp.lambdify([p.symbol for p in params], c, modules="mpmath")
                                        for c in conditions], where)
        pt = referee_point(moderate_failure(failures)[0], [p.name for p in params],
                           lambda t: inside(t) and (at(t)[0] or 0) > tol,
                           ends={p.name: _interval_ends(p) for p in params})
        err, a, b = at(pt)
    return Verdict("fails", method or "random in-domain points", points=used,
                   worst_error=float(worst), precision=DPS, derived=derived,
                   counterexample={"params": point_str(pt), "true": fmt(a), "printed": fmt(b),
                                   "relative_error": fmt(err, 3)},
                   certificate=numeric_certificate(err, tol_digits, "relative error", DPS))


_OPS = {">=": lambda a, b, s: a >= b - s, ">": lambda a, b, s: a > b - s,
        "<=": lambda a, b, s: a <= b + s, "<": lambda a, b, s: a < b + s}


def check_relation(lhs, op: str, rhs, params: Sequence[Param], *, conditions=(),
                   n: int = NPOINTS, method: str = "", where=None, strict_slack: bool = False,
                   seed: int = 20210126, extra_points: Sequence[dict] = (),
                   tol_digits: int = TOL_DIGITS) -> Verdict:
    """Does ``lhs op rhs`` hold on the domain?  Sides are SymPy expressions or
    mpmath callables.  A relative slack of 10**-TOL_DIGITS absorbs rounding."""
    fl = mpfunc(lhs, params) if isinstance(lhs, sp.Basic) else lhs
    fr = mpfunc(rhs, params) if isinstance(rhs, sp.Basic) else rhs
    pts = list(extra_points) + sample_points(params, n, conditions, seed=seed, where=where)
    used, worst, failures = 0, None, []

    def at(pt):
        args = [mp.mpf(pt[p.name]) for p in params]
        a, b = _real(fl(*args)), _real(fr(*args))
        if a is None or b is None:
            return None, a, b
        slack = mp.mpf(10) ** -tol_digits * max(abs(a), abs(b), 1)
        return (mp.mpf(0) if _OPS[op](a, b, slack) else abs(a - b)), a, b

    with mp.workdps(DPS):
        for pt in pts:
            gap, a, b = at(pt)
            if gap is None:
                continue
            used += 1
            if gap > 0:
                failures.append((pt, gap))
                worst = gap if worst is None else max(worst, gap)
    if used == 0:
        return Verdict("inconclusive", "random points", note="no in-domain point gave real values")
    if worst is None:
        return Verdict("holds_numerically", method or "random in-domain points", points=used,
                       worst_error=0.0, precision=DPS)
    with mp.workdps(DPS):
        inside = _param_inside(params, [sp.lambdify([p.symbol for p in params], c, modules="mpmath")
                                        for c in conditions], where)
        pt = referee_point(moderate_failure(failures)[0], [p.name for p in params],
                           lambda t: inside(t) and (at(t)[0] or 0) > 0,
                           ends={p.name: _interval_ends(p) for p in params})
        gap, a, b = at(pt)
    return Verdict("fails", method or "random in-domain points", points=used, precision=DPS,
                   worst_error=float(worst),
                   counterexample={"params": point_str(pt), "lhs": fmt(a), "rhs": fmt(b),
                                   "relation": f"lhs {op} rhs is violated"},
                   certificate=numeric_certificate(gap, tol_digits, "gap", DPS))


# ----------------------------------------------------------------------------- 1-D optimisation
_LOGIT_GRIDS: dict = {}


def _logit_grid(grid: int, span: int, prec: int):
    """``mp_minimize``'s grid in logit coordinates at the working precision ``prec`` and the
    denominators 1 + e^-u of its points (the same numbers at every call with these arguments:
    computed once; the values are those the call would compute)."""
    key = (grid, span, prec)
    out = _LOGIT_GRIDS.get(key)
    if out is None:
        sp_ = mp.mpf(span)
        us = tuple(-sp_ + 2 * sp_ * k / (grid - 1) for k in range(grid))
        out = _LOGIT_GRIDS[key] = (us, {u: 1 + mp.exp(-u) for u in us})
    return out


def mp_minimize(fn: Callable, lo, hi, *, grid: int = 240, iters: int = 220):
    """Minimise a unimodal ``fn`` on the open interval (lo, hi) in mpmath.

    Works in logit coordinates u -> lo + (hi-lo)/(1+e^-u) so that optima within
    1e-40 of an end are resolved; a grid scan brackets the minimum, then golden
    section refines it.  Returns (x*, fn(x*))."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    span = mp.mpf(min(90, 2 * mp.mp.dps))  # stay where x_of(u) is distinct from the ends
    us, dens = _logit_grid(grid, int(span), mp.mp.prec)

    def x_of(u):
        den = dens.get(u)        # 1 + e^-u on the grid, computed once per (grid, precision)
        return lo + (hi - lo) / (den if den is not None else 1 + mp.exp(-u))

    def g(u):
        try:
            v = _real(fn(x_of(u)))
        except (ZeroDivisionError, ValueError, OverflowError):
            v = None
        return v if v is not None else mp.inf

    a, b, _ = grid_golden(g, list(us), iters, (mp.sqrt(5) - 1) / 2)
    u = (a + b) / 2
    return x_of(u), g(u)


def mp_sup(fn: Callable, lo, hi, **kw):
    x, v = mp_minimize(lambda z: -fn(z), lo, hi, **kw)
    return x, -v


def finite(x) -> bool:
    return x is not None and not (isinstance(x, float) and (math.isnan(x) or math.isinf(x)))


def check_draws(draw: Callable, op: str = "==", *, n: int = 20, seed: int = 7,
                method: str = "random draws", tol_digits: int | None = None,
                fail_note: str = "", at: Sequence[dict] = ()) -> Verdict:
    """Check ``lhs op rhs`` on ``n`` random draws; ``draw(rng)`` returns
    (description dict, lhs, rhs) with mpmath numbers, or None to skip.  For
    "==" the relative error must be below 10**-tol_digits (default
    TOL_DIGITS); draws run at DPS digits.  ``fail_note`` explains a failure (what the
    paper should say) and is attached only when the check fails.

    ``at`` lists points a referee would quote (the paper's own example values, round numbers
    inside the regime), evaluated first as ``draw(rng, at=point)``: the first of them that fails is
    the counterexample reported, ahead of the random draws' worst (which still count in the
    points and the worst error)."""
    with mp.workdps(DPS):
        v = _check_draws(draw, op, n, seed, method,
                         tol_digits if tol_digits is not None else TOL_DIGITS, tuple(at))
    if fail_note and v.status == "fails":
        v.note = fail_note
    return v


def _check_draws(draw, op, n, seed, method, tol_digits, at=()) -> Verdict:
    rng = random.Random(seed)
    tol = mp.mpf(10) ** -tol_digits

    def judge(got):
        """(error, a, b) of a draw's result, error > 0 when it violates; None when unusable."""
        if got is None:
            return None
        _, a, b = got
        a, b = _real(a), _real(b)
        if a is None or b is None:
            return None
        if op == "==":
            err = _relerr(a, b)
            return (err if err > tol else -err), a, b
        slack = tol * max(abs(a), abs(b), 1)
        return (mp.mpf(0) if _OPS[op](a, b, slack) else abs(a - b)), a, b

    used, worst, failures, quoted = 0, mp.mpf(0), [], None
    for i in range(len(at) + n * 20):
        got = draw(rng, at=at[i]) if i < len(at) else draw(rng)
        judged = judge(got)
        if judged is None:
            continue
        err, a, b = judged
        used += 1
        if err > 0:
            if i < len(at) and quoted is None:       # its coordinates beyond the given ones are derived
                quoted = ({k: (v if k in at[i] else _derived(v)) for k, v in got[0].items()}, err, a, b)
            failures.append((got[0], err, a, b))
            worst = max(worst, err) if len(failures) > 1 else err
        elif not failures and op == "==" and -err > worst:
            worst = -err
        if used >= n + len(at):
            break
    if used == 0:
        return Verdict("inconclusive", method, note="no usable draw")
    if not failures:
        return Verdict("holds_numerically", method, points=used, worst_error=float(worst),
                       precision=mp.mp.dps)
    # a referee's point (``at``) is quoted ahead of the draws; else the most moderate clear failure,
    # rounded where the draw can be evaluated at a given point
    desc, shown, a, b = quoted if quoted is not None else _referee_draw(draw, rng, moderate_failure(failures), judge)
    return Verdict("fails", method, points=used, worst_error=float(worst), precision=mp.mp.dps,
                   counterexample={"params": {k: _param_str(v) for k, v in desc.items()},
                                   "lhs": fmt(a), "rhs": fmt(b), "relation": f"lhs {op} rhs"},
                   certificate=numeric_certificate(shown, tol_digits, "relative error" if op == "==" else "gap"))


def pick(at, name: str, sample: Callable):
    """A draw's coordinate ``name``: ``at[name]`` when the draw is evaluated at a given point
    (``draw(rng, at=point)``: a referee's point, a rounded counterexample), else ``sample()``.  A draw
    written with ``pick`` can be replayed at any point of its regime, so its counterexample is shown
    rounded."""
    if at is None:
        return sample()
    v = at[name]
    return type(v)(mp.mpf(y) for y in v) if isinstance(v, (tuple, list)) else mp.mpf(v)


def hint(at, name: str):
    """A derived coordinate of a given point, read without counting it among the draw's inputs (a
    discrete choice the draw snaps to: the atom of a rounded pmf nearest the one described)."""
    return mp.mpf(dict.__getitem__(at, name))


def takes_at(draw) -> bool:
    """Can ``draw`` be evaluated at a given point (an ``at`` keyword)?"""
    import inspect
    try:
        return "at" in inspect.signature(draw).parameters
    except (TypeError, ValueError):
        return False


class _Reads(dict):
    """A point handed to ``draw(rng, at=point)`` that records which coordinates the draw read: those
    are its inputs (the others in its description are derived from them)."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.read: set = set()

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)


def _referee_draw(draw, rng, failure, judge):
    """A failing draw's point rounded to the fewest digits that keep it failing, when ``draw`` can be
    evaluated at a given point (``draw(rng, at=point)`` reading its inputs from ``point``); the derived
    coordinates of the description are those the draw computes at the rounded point."""
    desc, err, a, b = failure
    if not takes_at(draw):
        return failure
    probe = _Reads(desc)
    replay = judge(draw(rng, at=probe))
    if replay is None or replay[0] <= 0:
        return failure                  # the draw does not reproduce its own point: keep it as drawn
    inputs = [k for k in desc if k in probe.read]

    def violates(pt):
        j = judge(draw(rng, at=dict(pt)))
        return j is not None and j[0] > 0

    pt = referee_point({k: desc[k] for k in desc}, inputs, violates)
    got = draw(rng, at=dict(pt))
    err, a, b = judge(got)
    return {k: (v if k in probe.read else _derived(v)) for k, v in got[0].items()}, err, a, b


def _derived(v):
    """A coordinate computed from the rounded inputs: 3 significant digits (it is not chosen)."""
    if isinstance(v, (mp.mpf, float)) and mp.isfinite(v) and v != int(v):
        return mp.mpf(mp.nstr(v, 3))
    if isinstance(v, (tuple, list)) and all(isinstance(y, (mp.mpf, float)) for y in v):
        return type(v)(mp.mpf(mp.nstr(y, 3)) for y in v)
    return v


def _param_str(v):
    """A counterexample's parameter as a referee writes it: 3 (not 3.0), 0.2, else 8 digits; a vector
    (a pmf) as (0.25, 0.75), its entries to 4 digits."""
    if isinstance(v, (tuple, list)) and all(isinstance(y, (mp.mpf, float, int)) for y in v):
        return "(" + ", ".join(mp.nstr(mp.mpf(y), 4) for y in v) + ")"
    if isinstance(v, (mp.mpf, float)):
        if mp.isfinite(v) and v == int(v) and abs(v) < 10**15:
            return str(int(v))
        return mp.nstr(v, 8)
    return v


def numeric_certificate(violation, tol_digits: int, what: str, dps: int | None = None) -> dict:
    """The certificate of a custom check's failure: no ball enclosure (the sides are mpmath
    computations), so the error budget it was judged against, at its working precision."""
    return {"method": f"mpmath at {dps or mp.mp.dps} digits (a custom check: no ball enclosure)",
            "violation": f"{what} {fmt(violation, 3)}", "budget": f"1e-{tol_digits}",
            "budget_rule": f"fails only when the {what} exceeds 1e-{tol_digits} (times max(1, |sides|) for a gap)"}
