"""The inequality kind: lhs op rhs on the claim's domain (op one of <=, <, >=, >)."""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ..checkers import (ABS_FLOOR, CONFIRM_DPS, Domain, FLOAT_FLOOR, INEQ_RTOL, _box_proof, _certified_point,
                        _confirm, _float_screen, _method, _params, _search, _unconfirmed, float_function,
                        mp_function)
from ..core import Verdict
from .base import OPS, Kind, is_inf, op_latex, read_op


# ----------------------------------------------------------------------------- inequality
_STRICT = {"<": True, "<=": False, ">": True, ">=": False}


#: ``simplify`` is tried on an inequality's difference of at most this many operations.  Measured
#: on the seed papers, the examples and the benchmark corpus (2026-12-02): every sign proof that
#: needed ``simplify`` had at most 22 operations, while the 34 attempts on the seeds' differences
#: (up to 120 operations) proved nothing and took 28 s of the 118 s a cold check of all seed claims
#: costs.  A deterministic cap (an operation count, not a clock), so verdicts do not depend on load.
SIGN_SIMPLIFY_MAX_OPS = 48


def sign_nonnegative(expr, dom: Domain) -> bool:
    """True when SymPy shows ``expr >= 0`` for every point of the domain (assumptions
    of the symbols, shifted so that a lower end a becomes a + positive)."""
    subs = {}
    for v in dom.vars:
        if v.lo is not None and v.lo != 0 and v.hi is None and not v.integer:
            s = sp.Symbol(v.name + "_shift", positive=True)
            subs[v.symbol] = sp.nsimplify(v.lo) + s
    e = sp.sympify(expr).xreplace(subs) if subs else sp.sympify(expr)

    def forms():                  # lazily: factor/simplify only when the forms before did not show it
        yield e
        yield sp.factor(e) if sp.count_ops(e) < 200 else e
        if sp.count_ops(e) <= SIGN_SIMPLIFY_MAX_OPS:
            yield sp.simplify(e)
    for form in forms():
        try:
            if form.is_nonnegative:
                return True
        except Exception:  # noqa: BLE001
            pass
    return False


def check_inequality(lhs, op: str, rhs, dom: Domain) -> Verdict:
    """``lhs op rhs`` on the domain (op in <, <=, >, >=).  A strict inequality fails where
    both sides agree to 35 digits at a point of the domain."""
    if op not in _STRICT:
        raise ValueError(f"op={op!r} is not one of <, <=, >, >=")
    small, big = (lhs, rhs) if op in ("<", "<=") else (rhs, lhs)
    strict = _STRICT[op]
    if not strict and sign_nonnegative(sp.sympify(big) - sp.sympify(small), dom):
        return Verdict("proved", "SymPy: the difference is non-negative under the domain's assumptions")
    fs, fb = mp_function(small, dom), mp_function(big, dom)
    tol = INEQ_RTOL if not strict else -mp.mpf(10) ** -35

    def viol(pt):
        a, b = fs(pt), fb(pt)
        if a is None or b is None:
            return None
        m = max(abs(a), abs(b))
        if m <= ABS_FLOOR:
            return mp.mpf(0) if strict else -mp.mpf(1)
        return (a - b) / m
    def fviol(pt, a, b):
        m = max(abs(a), abs(b))
        return (0.0 if strict else -1.0) if m <= FLOAT_FLOOR else (a - b) / m
    screen = _float_screen([float_function(small, dom), float_function(big, dom)], fviol)
    res = _search(viol, dom, stop_at=mp.mpf(10) ** -6, screen=screen)
    method = _method("SymPy sign of the difference", res)
    if res.point is None:
        return Verdict("inconclusive", method, note="no point of the domain gave real values on both sides")
    worst = _confirm(viol, res.point)
    if worst is None or worst <= tol:
        proof = _box_proof(small, big, dom, strict=strict, what="SymPy sign: not shown; ")
        if proof is not None:
            return proof
        return Verdict("holds_numerically", method, points=res.evaluations,
                       worst_error=float(max(worst, 0)) if worst is not None else 0.0, precision=CONFIRM_DPS)

    def bad(pt):
        w = _confirm(viol, pt)
        return w is not None and w > tol
    pt, cert, extent = _certified_point(res.point, viol, dom, bad, small, big, strict=strict)
    if cert is None or "unconfirmed" in cert:
        return _unconfirmed(cert, method, res, worst)
    with mp.workdps(CONFIRM_DPS):
        a, b = mp_function(lhs, dom)(pt), mp_function(rhs, dom)(pt)
    what = "equality is attained" if strict and abs(a - b) <= max(abs(a), abs(b)) * mp.mpf(10) ** -35 \
        else f"lhs {op} rhs is violated"
    ce = {"params": _params(pt), "lhs": mp.nstr(a, 15), "rhs": mp.nstr(b, 15), "relation": what,
          "precision": CONFIRM_DPS}
    if extent:
        ce["extent"] = extent
    return Verdict("fails", method, points=res.evaluations, worst_error=float(abs(a - b)),
                   precision=CONFIRM_DPS, counterexample=ce, certificate=cert)


class Inequality(Kind):
    name = "inequality"
    required = ("lhs", "op", "rhs")
    relation = "<"
    doc = ("lhs op rhs on the domain: SymPy's sign of the difference under the domain's assumptions, "
           "else an adversarial search for a violation (a failure certified in ball arithmetic), and "
           "where it holds, a proof on the search box by interval branch-and-bound")
    example = {"latex": r"\log(1 + x) \le x"}
    expect = "proved"

    def read(self, r):
        return {"lhs": r.parse("lhs"), "op": read_op(r, OPS, "<=, <, >=, >"), "rhs": r.parse("rhs")}

    def printed(self, s):
        return f"{s['lhs']} {op_latex(s['op'])} {s['rhs']}"

    def statement(self, s):
        return f"inequality lhs {OPS.get(str(s['op']).strip(), s['op'])} rhs on the stated domain"

    def infinite(self, kw):
        """A >= oo says A is oo everywhere; A <= oo is true."""
        small, big = (kw["lhs"], kw["rhs"]) if kw["op"] in ("<", "<=") else (kw["rhs"], kw["lhs"])
        strict = kw["op"] in ("<", ">")
        if (is_inf(big) == 1 or is_inf(small) == -1) and not strict:
            return Verdict("proved", "every extended real is <= oo and >= -oo")
        if is_inf(small) == 1:
            return big, 1
        if is_inf(big) == -1:
            return small, -1
        return None

    def check(self, dom, **kw):
        return check_inequality(kw["lhs"], kw["op"], kw["rhs"], dom)
