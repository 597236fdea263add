"""The derivative kind: d^order f / dx^order = g, symbolically or by finite differences."""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ..checkers import (ABS_FLOOR, Domain, _params, mp_function)
from ..core import Verdict
from ..search import Var, shrink, worst_point
from .identity import check_identity
from .base import MAX_ORDER, Kind, count


# ----------------------------------------------------------------------------- derivative
def check_derivative(f, x: sp.Symbol, g, dom: Domain, order: int = 1, subs: dict | None = None) -> Verdict:
    """d^order f / dx^order = g: the derivative by ``sympy.diff``, then an identity check;
    a failing claim carries the true derivative and the differing terms.  Where SymPy cannot
    differentiate (a quantity of ``derive.truths`` depends on x) the derivative is computed by
    central differences (``numeric_derivative``) and compared within its Richardson error.

    ``subs`` (a domain whose ends depend on other symbols, see ``derive.claimfile``): the symbols
    searched through coordinates, {x: lo + (hi - lo) t_x}; SymPy differentiates in x first, then
    substitutes; numbers differentiate in t_x and scale the claimed derivative by (hi - lo)^order."""
    subs = subs or {}
    sym = _symbolic_derivative(f, x, order, dom, subs)
    if sym is None:
        if x in subs:
            t = _coordinate_of(x, dom, subs)
            v = _numeric_derivative_claim(f.xreplace(subs), t, g.xreplace(subs) * sp.diff(subs[x], t) ** order,
                                          dom, order)
            v.method += f" (in {t}, the coordinate of {x}: the claimed derivative times d{x}/d{t}^{order})"
            return v
        return _numeric_derivative_claim(f.xreplace(subs), x, g.xreplace(subs), dom, order)
    v = check_identity(sym[0], g.xreplace(subs), dom, truth_side="lhs")
    v.method = "SymPy differentiation, then " + v.method
    return v


# ----------------------------------------------------------------------------- numeric differentiation
#: central differences: the step is FD_STEP * |x| (FD_STEP at x = 0), at most a third of the
#: distance to a finite end of x's domain; one-sided at a closed end
FD_STEP = mp.mpf(10) ** -6
#: the digits central differences are computed at (at least), and confirmed at
FD_DPS = 30
FD_CONFIRM_DPS = 60
#: the search budget of a numerically differentiated claim (each point costs 4 to 6 values of
#: the quantity, and a truth by quadrature costs a tenth of a second at 40 digits)
FD_BUDGET = dict(n_random=10, starts=1, maxfev=12)


def _coordinate_of(x, dom: Domain, subs: dict):
    """The search coordinate standing for x (a symbol of a dependent domain): t_x or s_x."""
    names = {f"t_{x.name}", f"s_{x.name}"}
    return next(s for s in sp.sympify(subs[x]).free_symbols if s.name in names)


def _symbolic_derivative(f, x, order, dom, subs=None):
    """(sympy.diff(f, x, order), its mpmath function) with ``subs`` applied after differentiating,
    or None where SymPy leaves a Derivative (a quantity of the truths, or any undefined function
    of x) or cannot print the result."""
    try:
        d = sp.diff(f, x, order)
        if d.has(sp.Derivative, sp.Subs):
            return None
        if subs:
            d = d.xreplace(subs)
        return d, mp_function(d, dom)
    except Exception:  # noqa: BLE001 - the printer's errors: differentiate numerically
        return None


def _fd_stencil(order: int, side: int):
    """(offsets in steps, weights, divisor power base) of the order-th difference: central
    (side 0: offsets n - 2k, divisor (2h)^n, error O(h^2)) or one-sided (side +-1: offsets
    side*k, divisor (side*h)^n, error O(h))."""
    from math import comb
    n = order
    if side == 0:
        return [n - 2 * k for k in range(n + 1)], [(-1) ** k * comb(n, k) for k in range(n + 1)], 2
    return [side * k for k in range(n + 1)], [(-1) ** (n - k) * comb(n, k) for k in range(n + 1)], side


def numeric_derivative(fn, pt: dict, xv: Var, order: int = 1, *, dps: int | None = None):
    """The order-th derivative of ``fn`` (a function of a point) in ``xv`` at ``pt`` by finite
    differences at steps h and h/2 (h = FD_STEP |x|, FD_STEP at x = 0, at most a third of the
    distance to a finite end; central, or one-sided at a closed end), computed at ``dps`` digits
    (default the working precision, at least FD_DPS) plus the digits the step loses.  A dict:
    ``value`` (Richardson-extrapolated), ``err`` (|D(h) - D(h/2)|, the Richardson error
    estimate), ``d_h``, ``d_h2`` (the two differences), ``h``, ``side``, ``f`` (fn at pt),
    ``slope`` (a first-difference estimate, for scales) and ``points`` [(x, f(x))] of the h/2
    stencil; None where a value is undefined or no stencil fits in the domain."""
    base = max(dps or mp.mp.dps, FD_DPS)
    x0 = mp.mpf(pt[xv.name])
    n = order
    s = abs(x0) if x0 != 0 else mp.mpf(1)
    h = FD_STEP * s
    d_lo = (x0 - xv.lo) if xv.lo is not None else mp.inf
    d_hi = (xv.hi - x0) if xv.hi is not None else mp.inf
    side = 0
    if min(d_lo, d_hi) < 3 * n * h:
        if min(d_lo, d_hi) > 0 and min(d_lo, d_hi) > FD_STEP * s * mp.mpf(10) ** -12:
            h = min(d_lo, d_hi) / (3 * n)                # central, nearer the end
        elif d_lo == 0 and not xv.lo_open and d_hi > 0:
            side, h = 1, min(h, d_hi / (3 * n))
        elif d_hi == 0 and not xv.hi_open and d_lo > 0:
            side, h = -1, min(h, d_lo / (3 * n))
        else:
            return None
    offs, wts, dv = _fd_stencil(n, side)
    lost = int(n * max(0, float(mp.log10(max(abs(x0), 1) / h)))) + 4
    work = base + min(lost, 120)
    with mp.workdps(work):
        x0 = mp.mpf(pt[xv.name])
        cache = {}

        def at(step, k):
            key = (step, k)
            if key not in cache:
                q = dict(pt)
                q[xv.name] = x0 + k * step
                cache[key] = fn(q)
            return cache[key]
        ds = []
        for step in (mp.mpf(h), mp.mpf(h) / 2):
            vals = [at(step, k) for k in offs]
            if any(v is None for v in vals):
                return None
            ds.append(mp.fsum(w * v for w, v in zip(wts, vals)) / (dv * step) ** n)
        # f at x (order 1 central: the mean of its two neighbours, for scales only)
        f0 = at(mp.mpf(h) / 2, 0) if 0 in offs else (at(mp.mpf(h) / 2, offs[0]) + at(mp.mpf(h) / 2, offs[-1])) / 2
        p = 2 if side == 0 else 1
        value = ds[1] + (ds[1] - ds[0]) / (2 ** p - 1)
        hh = mp.mpf(h) / 2
        if n == 1:
            slope = ds[1]
        else:
            a, b = (at(hh, min(offs)), at(hh, max(offs)))
            slope = (b - a) / ((max(offs) - min(offs)) * hh)
        points = [(x0 + k * hh, at(hh, k)) for k in sorted(offs)]
    return {"value": value, "err": abs(ds[0] - ds[1]), "d_h": ds[0], "d_h2": ds[1], "h": mp.mpf(h),
            "side": side, "f": f0, "slope": slope, "points": points}


def _fd_method(order: int, worst=None, x="x") -> str:
    what = "first" if order == 1 else ("second" if order == 2 else f"order-{order}")
    s = (f"numeric {what} derivative in {x} (SymPy cannot differentiate a quantity of the truths): "
         f"central differences (one-sided at a closed end) at steps h = 1e-6 |{x}| (1e-6 at {x} = 0; "
         f"nearer an end a third of the distance to it) and h/2, at {FD_DPS}+ digits, the two steps "
         f"compared (Richardson)")
    if worst is not None:
        s += (f"; at the worst point h = {mp.nstr(worst['h'], 3)}, derivative "
              f"{mp.nstr(worst['value'], 8)} with Richardson error {mp.nstr(worst['err'], 3)}")
    return s


def _numeric_derivative_claim(f, x, g, dom: Domain, order: int) -> Verdict:
    """d^order f/dx^order = g with the derivative by ``numeric_derivative``: the claim fails where
    the two differ by more than 1e-8 relative and 100 times the Richardson error estimate."""
    xv = next(v for v in dom.vars if v.symbol == x)
    ff, fg = mp_function(f, dom), mp_function(g, dom)
    rtol = mp.mpf(10) ** -8

    def viol(pt):
        r = numeric_derivative(ff, pt, xv, order)
        gv = fg(pt)
        if r is None or gv is None:
            return None
        m = max(abs(r["value"]), abs(gv))
        if m <= ABS_FLOOR:
            return -mp.mpf(1)
        return (abs(r["value"] - gv) - 100 * r["err"]) / m - rtol
    res = worst_point(viol, dom.vars, where=dom.where, dps=FD_DPS, stop_at=mp.mpf(10) ** -3, seed=2024,
                      **FD_BUDGET)
    if res.point is None:
        return Verdict("inconclusive", _fd_method(order, x=x), note="no point of the domain gave a numeric derivative")
    with mp.workdps(FD_CONFIRM_DPS):
        worst = viol(res.point)
        r = numeric_derivative(ff, res.point, xv, order)
    method = _fd_method(order, r, x) + (f", then compared with the claimed derivative over the domain "
                                      f"({res.evaluations} points, ends and Nelder-Mead), the worst point "
                                      f"confirmed at {FD_CONFIRM_DPS} digits")
    if worst is None or worst <= 0:
        return Verdict("holds_numerically", method, points=res.evaluations,
                       worst_error=float(max(worst + rtol, 0)) if worst is not None else 0.0, precision=8)

    def bad(p):
        with mp.workdps(FD_CONFIRM_DPS):
            return (viol(p) or 0) > 0
    pt = shrink(res.point, dom.vars, bad, max_digits=4)
    with mp.workdps(FD_CONFIRM_DPS):
        r, gv = numeric_derivative(ff, pt, xv, order), fg(pt)
    ce = {"params": _params(pt), "numeric derivative": f"{mp.nstr(r['value'], 12)} (Richardson error "
          f"{mp.nstr(r['err'], 2)}, h = {mp.nstr(r['h'], 3)})", "claimed": mp.nstr(gv, 12),
          "relation": f"d^{order}f/d{x}^{order} = claimed is violated", "precision": 8}
    return Verdict("fails", method, points=res.evaluations, worst_error=float(abs(r["value"] - gv)),
                   precision=8, counterexample=ce)


class Derivative(Kind):
    name = "derivative"
    required = ("of", "wrt", "equals")
    optional = ("order",)
    about_variable = True
    differentiates = True
    doc = ("d^order(of)/d wrt^order = equals: `sympy.diff`, then an identity check; over quantities of "
           "the truths, central differences at steps h and h/2 (30+ digits), within their Richardson error")
    example = {"of": r"\log(1 + x)", "wrt": "x", "equals": r"\frac{1}{1 + x}"}
    expect = "proved"
    field_docs = {
        "wrt": "the symbol to differentiate in",
        "equals": "LaTeX: the claimed derivative",
        "order": "the order of the derivative, an integer >= 1 (default 1)",
    }

    def read(self, r):
        s = r.spec
        return {"f": r.parse("of"), "x": r.symbol("wrt"), "g": r.parse("equals"),
                "order": count(s.get("order", 1), r.error(f"order={s.get('order')!r} must be an integer in "
                                                          f"[1, {MAX_ORDER}]"), MAX_ORDER)}

    def printed(self, s):
        order = s.get("order", 1)
        d = f"\\frac{{d}}{{d{s['wrt']}}}" if order == 1 else f"\\frac{{d^{{{order}}}}}{{d{s['wrt']}^{{{order}}}}}"
        return f"{d} \\left({s['of']}\\right) = {s['equals']}"

    def statement(self, s):
        return f"derivative in {s['wrt']}"

    def check(self, dom, **kw):
        return check_derivative(kw["f"], kw["x"], kw["g"], dom, kw.get("order", 1), subs=kw.get("subs"))
