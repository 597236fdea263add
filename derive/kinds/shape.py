"""The shape kinds: monotone, convex and concave in one variable."""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ..checkers import (ABS_FLOOR, CONFIRM_DPS, Domain, _box_proof, _certified_point, _confirm, _float_screen,
                        _method, _params, _search, _unconfirmed, float_function, mp_function)
from ..core import Verdict
from ..printing import sstr
from ..search import shrink, worst_point
from .inequality import sign_nonnegative
from .derivative import (FD_BUDGET, FD_CONFIRM_DPS, FD_DPS, _coordinate_of, _fd_method, _symbolic_derivative,
                         numeric_derivative)
from .base import Kind


# ----------------------------------------------------------------------------- shape
_DIRECTIONS = {"increasing": 1, "nondecreasing": 1, "decreasing": -1, "nonincreasing": -1}


def check_shape(f, x: sp.Symbol, dom: Domain, kind: str, subs: dict | None = None) -> Verdict:
    """Monotone (kind = increasing/nondecreasing/decreasing/nonincreasing), convex or
    concave in ``x`` on the domain: the sign of the first or second derivative (by
    ``sympy.diff``, or by finite differences where SymPy cannot differentiate: ``_shape_numeric``)."""
    if kind in _DIRECTIONS:
        order, sign = 1, _DIRECTIONS[kind]
    elif kind in ("convex", "concave"):
        order, sign = 2, (1 if kind == "convex" else -1)
    else:
        raise ValueError(f"kind={kind!r} is not one of {', '.join(list(_DIRECTIONS) + ['convex', 'concave'])}")
    subs = subs or {}
    f_orig = f
    sym = _symbolic_derivative(f, x, order, dom, subs)
    if sym is None:
        if x in subs:       # x = lo + (hi - lo) t_x is increasing and affine in t_x: the same shape
            t = _coordinate_of(x, dom, subs)
            v = _shape_numeric(f.xreplace(subs), t, dom, kind, order, sign)
            v.method += f" (in {t}, the coordinate of {x}: {x} = {sstr(subs[x])} is increasing and affine in it)"
            return v
        return _shape_numeric(f.xreplace(subs), x, dom, kind, order, sign)
    d, fd = sym
    xvalue = mp_function(x.xreplace(subs), dom) if x in subs else (lambda pt: pt[x.name])
    f = f.xreplace(subs) if subs else f
    what = "first" if order == 1 else "second"
    if d == 0 and kind in ("increasing", "decreasing"):
        return Verdict("fails", f"SymPy differentiation: the {what} derivative is identically 0",
                       note=f"f is constant in {x}, not strictly {kind}",
                       counterexample={"params": {}, "lhs": "0", "rhs": "0", "relation": f"{what} derivative is 0"})
    if sign_nonnegative(sign * d, dom):
        return Verdict("proved", f"SymPy: sign of the {what} derivative under the domain's assumptions")
    ff = mp_function(f, dom)
    f1 = (_symbolic_derivative(f_orig, x, 1, dom, subs) or (None, lambda pt: None))[1] if order == 2 else fd

    def viol(pt):
        val, dv = ff(pt), fd(pt)
        if val is None or dv is None:
            return None
        xv = xvalue(pt)
        xv = abs(xv) if xv else mp.mpf(1)
        scale = abs(val) + xv * abs(f1(pt) or 0) + xv ** order * abs(dv) + ABS_FLOOR
        return -sign * dv * xv ** order / scale
    d_s = d.xreplace(subs) if subs else d          # the derivative in the search's coordinates
    d1_s = (sp.diff(f_orig, x).xreplace(subs) if subs else sp.diff(f, x)) if order == 2 else d_s
    fx = float_function(x.xreplace(subs), dom) if x in subs else (lambda pt: pt[x.name])

    def fviol(pt, val, dv, d1, xv):
        xv = abs(xv) if xv else 1.0
        scale = abs(val) + xv * abs(d1) + xv ** order * abs(dv) + 1e-300
        return -sign * dv * xv ** order / scale
    screen = _float_screen([float_function(f, dom), float_function(d_s, dom), float_function(d1_s, dom),
                            fx], fviol) if fx is not None else None
    res = _search(viol, dom, stop_at=mp.mpf(10) ** -6, screen=screen)
    method = _method(f"SymPy sign of the {what} derivative", res)
    if res.point is None:
        return Verdict("inconclusive", method, note="no point of the domain gave a real derivative")
    worst = _confirm(viol, res.point)
    if worst is None or worst <= mp.mpf(10) ** -25:
        proof = _box_proof(sp.S.Zero, sign * d_s, dom, strict=kind in ("increasing", "decreasing"),
                           what=f"sign of the {what} derivative (SymPy differentiation) by ")
        if proof is not None:
            return proof
        return Verdict("holds_numerically", method, points=res.evaluations,
                       worst_error=0.0, precision=CONFIRM_DPS)
    def bad(p):
        return (_confirm(viol, p) or 0) > mp.mpf(10) ** -25
    pt, cert, extent = _certified_point(res.point, viol, dom, bad, sp.S.Zero, sign * d_s)
    if cert is None or "unconfirmed" in cert:
        return _unconfirmed(cert, method, res, mp.mpf(0) if cert is None else _confirm(viol, pt) or 0)
    with mp.workdps(CONFIRM_DPS):
        dv = fd(pt)
    ce = {"params": _params(pt), f"d^{order}f/d{x}^{order}": mp.nstr(dv, 15),
          "relation": f"the {what} derivative has the wrong sign for '{kind}'", "precision": CONFIRM_DPS}
    if extent:
        ce["extent"] = extent
    return Verdict("fails", method, points=res.evaluations, worst_error=float(abs(dv)),
                   precision=CONFIRM_DPS, counterexample=ce, derived=d, certificate=cert)


def _shape_numeric(f, x, dom: Domain, kind: str, order: int, sign: int) -> Verdict:
    """A shape claim on an expression SymPy cannot differentiate: the search maximises the wrong-
    signed finite difference of ``numeric_derivative`` at *both* steps h and h/2 (the smaller of
    the two, so that rounding noise at one step is no violation).  A violation at a finite step is
    itself a counterexample: two points where f moves the wrong way (monotone), or three equally
    spaced points where the middle value lies above (convex) or below (concave) the chord; the
    verdict prints them.  Kinks are harmless: a difference across one keeps the sign the claim
    predicts when the claim holds.  The expensive search budget keeps slow truths cheap."""
    xv = next(v for v in dom.vars if v.symbol == x)
    ff = mp_function(f, dom)

    def viol(pt):
        r = numeric_derivative(ff, pt, xv, order)
        if r is None:
            return None
        xs = abs(pt[x.name]) if pt[x.name] != 0 else mp.mpf(1)
        scale = abs(r["f"]) + xs * abs(r["slope"]) + xs ** order * abs(r["d_h2"]) + ABS_FLOOR
        return min(-sign * r["d_h"], -sign * r["d_h2"]) * xs ** order / scale
    res = worst_point(viol, dom.vars, where=dom.where, dps=FD_DPS, stop_at=mp.mpf(10) ** -6, seed=2024,
                      **FD_BUDGET)
    tol = mp.mpf(10) ** -12
    if res.point is None:
        return Verdict("inconclusive", _fd_method(order, x=x),
                       note="no point of the domain gave a numeric derivative")

    def confirmed(p):
        """The violation at FD_DPS and FD_CONFIRM_DPS digits when both see one, else 0."""
        a = viol(p)
        with mp.workdps(FD_CONFIRM_DPS):
            b = viol(p)
        if a is None or b is None or a <= tol or b <= tol:
            return mp.mpf(0) if b is None else min(b, mp.mpf(0)) if a is not None else mp.mpf(0)
        return b
    with mp.workdps(FD_DPS):
        worst = confirmed(res.point)
    with mp.workdps(FD_CONFIRM_DPS):
        r = numeric_derivative(ff, res.point, xv, order)
    method = _fd_method(order, r, x) + (f"; adversarial search over the domain ({res.evaluations} points, ends "
                                      f"and Nelder-Mead) at {FD_DPS} digits, the worst point confirmed at "
                                      f"{FD_CONFIRM_DPS}")
    if worst <= tol:
        return Verdict("holds_numerically", method, points=res.evaluations, worst_error=0.0, precision=FD_DPS)

    def bad(p):
        with mp.workdps(FD_DPS):
            return confirmed(p) > tol
    pt = shrink(res.point, dom.vars, bad, max_digits=4)
    with mp.workdps(FD_CONFIRM_DPS):
        r = numeric_derivative(ff, pt, xv, order)
    pts = r["points"]
    what = "first" if order == 1 else "second"
    ce = {"params": _params(pt)}
    shown = [pts[0], pts[-1]] if order == 1 else [pts[0], pts[len(pts) // 2], pts[-1]]
    for xk, fk in shown:
        ce[f"f at {x} = {mp.nstr(xk, 15)}"] = mp.nstr(fk, 15)
    if order == 1:
        ce["relation"] = (f"f {'decreases' if sign > 0 else 'increases'} between the two points "
                          f"(not {kind} in {x})")
    else:
        ce["relation"] = (f"the middle value is {'above' if sign > 0 else 'below'} the chord of the "
                          f"outer two (not {kind} in {x})")
    ce[f"numeric {what} derivative"] = (f"{mp.nstr(r['value'], 10)} (Richardson error {mp.nstr(r['err'], 2)}, "
                                         f"h = {mp.nstr(r['h'], 3)})")
    ce["precision"] = FD_CONFIRM_DPS
    return Verdict("fails", method, points=res.evaluations, worst_error=float(abs(r["value"])),
                   precision=FD_DPS, counterexample=ce)


class _Shape(Kind):
    """A shape of ``of`` in the symbol ``in``: the sign of a derivative (``check_shape``)."""
    required = ("of", "in")
    about_variable = True
    differentiates = True
    field_docs = {"in": "the symbol the shape is in"}

    def read(self, r):
        direction = r.spec.get("direction", self.name)
        if self.name == "monotone" and direction not in _DIRECTIONS:
            raise r.error(f"direction={direction!r} is not one of {', '.join(_DIRECTIONS)}")
        return {"f": r.parse("of"), "x": r.symbol("in"), "direction": direction}

    def printed(self, s):
        return s["of"]

    def statement(self, s):
        return f"{self.name} in {s['in']}"

    def check(self, dom, **kw):
        return check_shape(kw["f"], kw["x"], dom, kw.get("direction", self.name), subs=kw.get("subs"))


class Monotone(_Shape):
    name = "monotone"
    required = ("of", "in", "direction")
    doc = ("`of` is monotone in `in` on the domain: the sign of the first derivative (SymPy, or finite "
           "differences over quantities of the truths; a violation is printed as two points)")
    example = {"of": r"\frac{\log(1 + x)}{x}", "in": "x", "direction": "decreasing"}
    expect = "holds_numerically"
    field_docs = dict(_Shape.field_docs,
                      direction="`increasing`, `nondecreasing`, `decreasing` or `nonincreasing`")

    def statement(self, s):
        return f"{s['direction']} in {s['in']}"


class Convex(_Shape):
    name = "convex"
    doc = ("`of` is convex in `in`: the sign of the second derivative (SymPy, or finite differences: a "
           "violation is three points, the middle one above the chord)")
    example = {"of": r"x \log x", "in": "x"}
    expect = "proved"


class Concave(_Shape):
    name = "concave"
    doc = "`of` is concave in `in`: as convex, the other sign"
    example = {"of": r"\sqrt{x}", "in": "x"}
    expect = "proved"
