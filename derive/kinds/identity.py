"""The identity kind: lhs = rhs on the claim's domain."""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ..checkers import (CONFIRM_DPS, Domain, IDENTITY_RTOL, SEARCH_DPS, _certified_point, _confirm,
                        _float_screen, _frel, _method, _params, _rel, _search, _tidy, _unconfirmed,
                        constant_discrepancy, differing_terms, float_function, mp_function)
from ..core import Verdict
from ..verify import symbolic_zero
from .base import Kind, is_inf


# ----------------------------------------------------------------------------- identity
def check_identity(lhs, rhs, dom: Domain, *, truth_side: str | None = None) -> Verdict:
    """``lhs = rhs`` on the domain.  ``truth_side`` ("lhs"/"rhs") names the side that is
    the derived truth, for the corrected formula of a failing claim."""
    diff = sp.sympify(lhs) - sp.sympify(rhs)
    if symbolic_zero(diff):
        return Verdict("proved", "SymPy simplification of lhs - rhs to 0")
    fl, fr = mp_function(lhs, dom), mp_function(rhs, dom)

    def relerr(pt):
        a, b = fl(pt), fr(pt)
        if a is None or b is None:
            return None
        return _rel(a, b)
    screen = _float_screen([float_function(lhs, dom), float_function(rhs, dom)], lambda pt, a, b: _frel(a, b))
    res = _search(relerr, dom, stop_at=mp.mpf(10) ** -6, screen=screen, floor=IDENTITY_RTOL)
    return _identity_verdict(res, relerr, fl, fr, dom, lhs, rhs, truth_side,
                             _method("SymPy simplification of lhs - rhs", res))


def _one_side_real(fl, fr, dom: Domain):
    """(point, which side is real) when one side is a real number somewhere on the domain and
    the other side nowhere among the same points (the ends, the middle and 24 spread points);
    None otherwise."""
    import itertools
    us = [v.special_coordinates() for v in dom.vars]
    combos = list(itertools.islice(itertools.product(*us), 81))
    combos += [tuple(-0.95 + 1.9 * ((k * (j + 1) * 0.618) % 1) for j in range(len(dom.vars))) for k in range(24)]
    real_l, real_r = None, None
    with mp.workdps(SEARCH_DPS):
        for c in combos:
            pt = {v.name: v.value(u * (0.999 if abs(u) == 1 else 1)) for v, u in zip(dom.vars, c)}
            if not all(v.contains(pt[v.name]) for v in dom.vars) or not dom.where(pt):
                continue
            a, b = fl(pt), fr(pt)
            if a is not None and real_l is None:
                real_l = pt
            if b is not None and real_r is None:
                real_r = pt
            if real_l is not None and real_r is not None:
                return None
    if real_l is not None and real_r is None:
        return real_l, "lhs"
    if real_r is not None and real_l is None:
        return real_r, "rhs"
    return None


def _not_evaluable(expr, pt) -> str:
    """Why ``expr`` has no value at ``pt`` when it is not a number there at all (an unevaluated
    sum, an unknown function), "" when it evaluates to a number that is simply not real (complex,
    infinite): only the latter is a failure of a claimed identity."""
    e = sp.sympify(expr)
    if e.has(sp.Sum, sp.Product, sp.Integral):
        done = e.doit()
        if done.has(sp.Sum, sp.Product, sp.Integral):
            return ("a sum, product or integral without a closed form here, which numerical summation "
                    "did not settle")
    try:
        sub = {s: sp.Float(str(pt[s.name]), 30) for s in sp.sympify(expr).free_symbols if s.name in pt}
        v = sp.sympify(expr).xreplace(sub).evalf(30)
    except Exception as exc:  # noqa: BLE001 - the reason is what we report
        from ..errors import plain_reason
        return f"it cannot be evaluated there ({plain_reason(exc)})"
    if v.is_Float and v._prec < 10:
        return "no numeric value (no significant digits)"
    if v.is_number and v is not sp.nan and (v.is_finite is not None or v.has(sp.zoo, sp.oo)):
        return ""
    from sympy.core.function import AppliedUndef
    left = sorted({type(f).__name__ for f in v.atoms(AppliedUndef)} | {type(f).__name__ for f in v.atoms(sp.Sum, sp.Product, sp.Integral)})
    return "unevaluated " + ", ".join(left) if left else "no numeric value"


def _identity_verdict(res, relerr, fl, fr, dom, lhs, rhs, truth_side, method) -> Verdict:
    if res.point is None:
        one = _one_side_real(fl, fr, dom)
        if one is not None:
            pt, side = one
            with mp.workdps(CONFIRM_DPS):
                val = (fl if side == "lhs" else fr)(pt)
            other = "rhs" if side == "lhs" else "lhs"
            why = _not_evaluable(rhs if side == "lhs" else lhs, pt)
            if why:
                return Verdict("inconclusive", method, note=f"the {other} could not be evaluated ({why}): "
                               "not evaluable is not false")
            ce = {"params": _params(pt), side: mp.nstr(val, 15), other: "not a real number",
                  "relation": f"the {other} is not a real number anywhere on the domain", "precision": CONFIRM_DPS}
            return Verdict("fails", method, points=res.tried, precision=CONFIRM_DPS, counterexample=ce,
                           note=f"the {other} is undefined (not real) at every point tried where the {side} is real")
        return Verdict("inconclusive", method, note="no point of the domain gave real values on both sides")
    worst = _confirm(relerr, res.point)
    if worst is None or worst <= IDENTITY_RTOL:
        return Verdict("holds_numerically", method, points=res.evaluations,
                       worst_error=float(worst or 0), precision=CONFIRM_DPS)

    def bad(pt):
        e = _confirm(relerr, pt)
        return e is not None and e > IDENTITY_RTOL
    pt, cert, extent = _certified_point(res.point, relerr, dom, bad, lhs, rhs, equal=True)
    if cert is None or "unconfirmed" in cert:
        return _unconfirmed(cert, method, res, worst)
    with mp.workdps(CONFIRM_DPS):
        a, b = fl(pt), fr(pt)
    ce = {"params": _params(pt), "lhs": mp.nstr(a, 15), "rhs": mp.nstr(b, 15),
          "relation": "lhs = rhs", "relative_error": mp.nstr(_rel(a, b), 3), "precision": CONFIRM_DPS}
    if extent:
        ce["extent"] = extent
    derived, note = None, ""
    if truth_side in ("lhs", "rhs"):
        truth, printed = (lhs, rhs) if truth_side == "lhs" else (rhs, lhs)
        derived = _tidy(truth)
        ft, fp = (fl, fr) if truth_side == "lhs" else (fr, fl)
        note = constant_discrepancy(ft, fp, dom) or differing_terms(truth, printed)
    return Verdict("fails", method, points=res.evaluations, worst_error=float(_rel(a, b)),
                   precision=CONFIRM_DPS, counterexample=ce, derived=derived, note=note, certificate=cert)


class Identity(Kind):
    name = "identity"
    required = ("lhs", "rhs")
    relation = "="
    doc = ("lhs = rhs on the domain: SymPy simplification of the difference, else an adversarial "
           "search for the worst relative error (30 digits, confirmed at 50)")
    example = {"latex": r"\log(x y) = \log x + \log y"}
    expect = "proved"

    def read(self, r):
        kw = {"lhs": r.parse("lhs"), "rhs": r.parse("rhs")}
        if "truth_side" in r.spec:
            if r.spec["truth_side"] not in ("lhs", "rhs"):
                raise r.error(f"truth_side={r.spec['truth_side']!r} must be lhs or rhs")
            kw["truth_side"] = r.spec["truth_side"]
        return kw

    def printed(self, s):
        return f"{s['lhs']} = {s['rhs']}"

    def statement(self, s):
        return "identity on the stated domain"

    def infinite(self, kw):
        """A = oo says A is oo everywhere."""
        for a, b in ((kw["lhs"], kw["rhs"]), (kw["rhs"], kw["lhs"])):
            if is_inf(b):
                return a, is_inf(b)
        return None

    def check(self, dom, **kw):
        return check_identity(kw["lhs"], kw["rhs"], dom, truth_side=kw.get("truth_side"))
