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
    return {k: mp.nstr(v, digits) for k, v in pt.items()}


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


def _symbolic_zero(expr, max_ops: int) -> bool:
    if expr == 0:
        return True
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
    worst, worst_pt, used = mp.mpf(0), None, 0
    with mp.workdps(DPS):
        for pt in pts:
            args = [pt[p.name] for p in params]
            a, b = _real(ft(*args)), _real(fp(*args))
            if a is None or b is None:
                continue
            used += 1
            err = _relerr(a, b)
            if err > worst:
                worst, worst_pt = err, (pt, a, b)
    if used == 0:
        return Verdict("inconclusive", "random points", note="no in-domain point gave real values")
    tol = mp.mpf(10) ** -tol_digits
    if worst <= tol:
        return Verdict("holds_numerically", method or "random in-domain points", points=used,
                       worst_error=float(worst), precision=DPS, derived=derived)
    pt, a, b = worst_pt
    return Verdict("fails", method or "random in-domain points", points=used,
                   worst_error=float(worst), precision=DPS, derived=derived,
                   counterexample={"params": point_str(pt), "true": fmt(a), "printed": fmt(b),
                                   "relative_error": fmt(worst, 3)},
                   certificate=numeric_certificate(worst, tol_digits, "relative error"))


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
    used, worst, worst_pt = 0, None, None
    with mp.workdps(DPS):
        for pt in pts:
            args = [mp.mpf(pt[p.name]) for p in params]
            a, b = _real(fl(*args)), _real(fr(*args))
            if a is None or b is None:
                continue
            used += 1
            slack = mp.mpf(10) ** -tol_digits * max(abs(a), abs(b), 1)
            if not _OPS[op](a, b, slack):
                gap = abs(a - b)
                if worst is None or gap > worst:
                    worst, worst_pt = gap, (pt, a, b)
    if used == 0:
        return Verdict("inconclusive", "random points", note="no in-domain point gave real values")
    if worst is None:
        return Verdict("holds_numerically", method or "random in-domain points", points=used,
                       worst_error=0.0, precision=DPS)
    pt, a, b = worst_pt
    return Verdict("fails", method or "random in-domain points", points=used, precision=DPS,
                   worst_error=float(worst),
                   counterexample={"params": point_str(pt), "lhs": fmt(a), "rhs": fmt(b),
                                   "relation": f"lhs {op} rhs is violated"},
                   certificate=numeric_certificate(worst, tol_digits, "gap"))


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
    used, worst, worst_case, quoted = 0, mp.mpf(0), None, None
    for i in range(len(at) + n * 20):
        got = draw(rng, at=at[i]) if i < len(at) else draw(rng)
        if got is None:
            continue
        desc, a, b = got
        a, b = _real(a), _real(b)
        if a is None or b is None:
            continue
        used += 1
        if op == "==":
            err = _relerr(a, b)
            bad = err > tol
        else:
            slack = tol * max(abs(a), abs(b), 1)
            err = abs(a - b) if not _OPS[op](a, b, slack) else mp.mpf(0)
            bad = err > 0
        if bad and i < len(at) and quoted is None:
            quoted = (desc, a, b, err)
        if bad and (worst_case is None or err > worst):
            worst, worst_case = err, (desc, a, b)
        elif not bad and op == "==" and err > worst and worst_case is None:
            worst = err
        if used >= n + len(at):
            break
    if used == 0:
        return Verdict("inconclusive", method, note="no usable draw")
    if worst_case is None:
        return Verdict("holds_numerically", method, points=used, worst_error=float(worst),
                       precision=mp.mp.dps)
    desc, a, b = worst_case
    shown = worst
    if quoted is not None:              # a referee's point: quoted ahead of the worst draw
        desc, a, b, shown = quoted
    return Verdict("fails", method, points=used, worst_error=float(worst), precision=mp.mp.dps,
                   counterexample={"params": {k: _param_str(v) for k, v in desc.items()},
                                   "lhs": fmt(a), "rhs": fmt(b), "relation": f"lhs {op} rhs"},
                   certificate=numeric_certificate(shown, tol_digits, "relative error" if op == "==" else "gap"))


def _param_str(v):
    """A counterexample's parameter as a referee writes it: 3 (not 3.0), 0.2, else 8 digits."""
    if isinstance(v, (mp.mpf, float)):
        if mp.isfinite(v) and v == int(v) and abs(v) < 10**15:
            return str(int(v))
        return mp.nstr(v, 8)
    return v


def numeric_certificate(violation, tol_digits: int, what: str) -> dict:
    """The certificate of a custom check's failure: no ball enclosure (the sides are mpmath
    computations), so the error budget it was judged against, at its working precision."""
    return {"method": f"mpmath at {mp.mp.dps} digits (a custom check: no ball enclosure)",
            "violation": f"{what} {fmt(violation, 3)}", "budget": f"1e-{tol_digits}",
            "budget_rule": f"fails only when the {what} exceeds 1e-{tol_digits} (times max(1, |sides|) for a gap)"}
