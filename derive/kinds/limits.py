"""The limit and asymptotic kinds: lim f = value, and f = g + O(h), as x -> x0."""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ..checkers import (CONFIRM_DPS, Domain, _params, mp_function)
from ..core import Verdict
from ..printing import plain, sstr
from ..verify import symbolic_zero
from .identity import check_identity
from .base import Kind, number


# ----------------------------------------------------------------------------- limits
def _approach(x0, side: str, k: int):
    """The k-th point of a sequence tending to x0 (from the given side)."""
    if x0 == sp.oo:
        return mp.mpf(10) ** k
    if x0 == -sp.oo:
        return -mp.mpf(10) ** k
    h = mp.mpf(10) ** (-k)
    return mp.mpf(sp.Float(x0, 60)) + (h if side == "+" else -h)


def _sequence_domain(dom: Domain, x: sp.Symbol) -> Domain:
    others = [v for v in dom.vars if v.symbol != x]
    return Domain(others, ())


def _sequence_text(x, x0, side: str, k: str = "k", log_spaced: bool = False) -> str:
    """How the probe sequence toward x0 reads, in the claim's variable: "alpha = 10^k" toward oo,
    "varepsilon = 0 + 10^-k" toward a finite point from above (10^(2^j) and 10^-(2^j) when
    ``log_spaced``)."""
    e = f"(2^{k})" if log_spaced else k
    if x0 == sp.oo:
        return f"{x} = 10^{e}"
    if x0 == -sp.oo:
        return f"{x} = -10^{e}"
    return f"{x} = {sstr(x0)} {'+' if side == '+' else '-'} 10^-{e}"


def _opaque_in(expr, x) -> bool:
    """True when ``expr`` has a quantity of the truths (an undefined function) depending on x:
    SymPy's limit and series would treat it as an unknown smooth function, so numbers decide."""
    from sympy.core.function import AppliedUndef
    return any(x in a.free_symbols for a in sp.sympify(expr).atoms(AppliedUndef))


def check_limit(f, x: sp.Symbol, x0, value, dom: Domain, side: str = "+") -> Verdict:
    """lim_{x -> x0} f = value (value may depend on the other variables)."""
    try:
        if sp.count_ops(f) < 150 and not _opaque_in(f, x):
            lim = sp.limit(f, x, x0, side if x0 not in (sp.oo, -sp.oo) else "+-"[0])
            if not lim.has(sp.Limit) and lim.is_finite is not False:
                if symbolic_zero(lim - value):
                    return Verdict("proved", "SymPy limit", derived=lim)
                if lim.free_symbols <= set(dom.symbols) and not lim.has(sp.AccumBounds):
                    v = check_identity(lim, value, _sequence_domain(dom, x), truth_side="lhs")
                    if v.status == "fails":
                        v.method = "SymPy limit, then " + v.method
                        v.derived = lim
                        return v
    except Exception:  # noqa: BLE001 - fall back to numbers
        pass
    return _numeric_limit(f - value, x, x0, dom, side, "limit")


def _tail_values(expr, x, x0, dom: Domain, side: str, ks):
    fn = mp_function(expr, dom)
    others = _sequence_domain(dom, x)
    import random
    rng = random.Random(11)
    rows = []
    for _ in range(4):
        base = {}
        for v in others.vars:           # two significant digits: the point a counterexample quotes
            val = v.value(rng.uniform(-0.8, 0.8))
            short = mp.nint(val) if v.integer else (mp.mpf(mp.nstr(val, 2)) if val != 0 else val)
            base[v.name] = short if v.contains(short) else val
        seq = []
        with mp.workdps(CONFIRM_DPS + 20):
            for k in ks:
                pt = dict(base)
                pt[x.name] = _approach(x0, side, k)
                xv = next(v for v in dom.vars if v.symbol == x)
                if not xv.contains(pt[x.name]) or not dom.where(pt):
                    seq.append(None)
                    continue
                seq.append(fn(pt))
        rows.append((base, seq))
    return rows


def _numeric_limit(diff, x, x0, dom, side, what) -> Verdict:
    ks = list(range(2, 16))
    rows = _tail_values(diff, x, x0, dom, side, ks)
    method = (f"SymPy limit: not shown; f - value along {x} -> {sstr(x0)}{'' if x0 in (sp.oo, -sp.oo) else side} "
              f"({_sequence_text(x, x0, side)}, k = 2..15) at 4 points of the other variables")
    used = 0
    for base, seq in rows:
        tail = [s for s in seq[-4:] if s is not None]
        if len(tail) < 3:
            continue
        used += 1
        last = abs(tail[-1])
        if last > mp.mpf(10) ** -3 and abs(tail[-1] - tail[-2]) < mp.mpf(10) ** -6 * max(1, last):
            ce = {"params": _params(base), f"{x}": f"-> {x0}", "f - value at the end": mp.nstr(tail[-1], 12),
                  "relation": "f converges to a different value"}
            return Verdict("fails", method, points=used, counterexample=ce, precision=CONFIRM_DPS)
        if last > mp.mpf(10) ** -6:
            return Verdict("inconclusive", method, note=f"f - value is {mp.nstr(tail[-1], 5)} at the end of the sequence")
    if used == 0:
        return Verdict("inconclusive", method, note="no point of the sequence is in the domain")
    return Verdict("holds_numerically", method, points=used, worst_error=0.0, precision=CONFIRM_DPS)


# ----------------------------------------------------------------------------- asymptotics
def check_asymptotic(f, g, h, x: sp.Symbol, x0, dom: Domain, side: str = "+") -> Verdict:
    """f = g + O(h) as x -> x0: the scaled remainder (f - g)/h stays bounded.  SymPy's limit of
    (f - g)/h first; otherwise numbers (``_asymptotic_numeric``).  A failing claim carries the
    leading term of f - g."""
    r = (f - g) / h
    try:
        if sp.count_ops(r) < 120 and not _opaque_in(r, x):
            lim = sp.limit(r, x, x0, side if x0 not in (sp.oo, -sp.oo) else "+")
            if not lim.has(sp.Limit) and lim.is_finite:
                return Verdict("proved", f"SymPy limit of (f - g)/h is finite ({sstr(lim)})")
    except Exception:  # noqa: BLE001
        pass
    return _asymptotic_numeric(f, g, h, x, x0, dom, side)


#: the log-spaced sequence x = 10^(2^j) (or x0 +- 10^-(2^j)): log x doubles at each step
LOG_SPACED_J = tuple(range(1, 9))


def _asymptotic_numeric(f, g, h, x: sp.Symbol, x0, dom: Domain, side: str = "+") -> Verdict:
    """|R| = |(f - g)/h| along x = 10^k (x0 = oo) or x0 +- 10^-k, k = 1..18, at 4 points of the other
    variables: bounded when the increments of log|R| die out geometrically; suspect when they stay
    positive and decay no faster than 1/k (a log factor or a power the O-term misses).

    A remainder that approaches its limit like a power of 1/log x looks the same at close points (its
    increments decay like 1/k^2), so a suspect row is tested again along x = 10^(2^j), j = 1..8, where
    log x doubles at each step: there a power of log x (or more) adds a constant to log|R| at each step
    and log log x a 1/j, while c + d/(log x)^p moves by a factor 2^-p less each step.  The row fails
    when over the last three steps the increments stay above 0.005 and the last is more than 0.45 times
    the one three steps before (log log x: ~0.65; 1/(log x)^p: 2^(-3p), below 0.45 for p >= 0.4);
    each value there is computed at 4 * 2^j + 70 digits and kept only when it agrees with twice as many
    (the cancellation in f - g grows with x)."""
    r = (f - g) / h
    ks = list(range(1, 19))
    rows = _tail_values(r, x, x0, dom, side, ks)
    method = (f"SymPy limit: not shown; |(f - g)/h| along {x} -> {sstr(x0)}"
              f"{'' if x0 in (sp.oo, -sp.oo) else side} ({_sequence_text(x, x0, side)}, k = 1..18) at 4 points "
              f"of the other variables")
    used, relooked = 0, 0
    fn = None
    for base, seq in rows:
        logs = [mp.log10(abs(s)) if s not in (None,) and s != 0 else None for s in seq]
        tail = [l for l in logs[-8:] if l is not None]
        if len(tail) < 6:
            continue
        used += 1
        inc = [b - a for a, b in zip(tail[:-1], tail[1:])]
        growing = all(i > mp.mpf("0.005") for i in inc[-5:])
        slow = inc[-1] > inc[-5] * mp.mpf("0.3")     # geometric decay would shrink it far more
        if not (growing and slow):
            continue
        fn = fn or mp_function(r, dom)
        log_inc = _log_spaced_increments(fn, x, x0, dom, side, base)
        if log_inc is not None and not (all(i > mp.mpf("0.005") for i in log_inc[-3:])
                                        and log_inc[-1] > mp.mpf("0.45") * log_inc[-4]):
            relooked += 1                             # a slow approach to a bound, not growth
            continue
        lead = _leading_term(f - g, x, x0)
        ce = {"params": _params(base), f"k ({_sequence_text(x, x0, side)})": f"{ks[-8]}..{ks[-1]}",
              "log10|R| increments": ", ".join(mp.nstr(i, 3) for i in inc[-5:]),
              "relation": "the scaled remainder (f - g)/h grows"}
        if log_inc is not None:
            ce[f"log10|R| increments along {_sequence_text(x, x0, side, 'j', True)}"] = ", ".join(mp.nstr(i, 3) for i in log_inc[-4:])
        note = "the remainder f - g is not O(h)"
        if lead is not None:
            note += f"; its leading term is {plain(lead)}"
        return Verdict("fails", method, points=used, counterexample=ce, derived=lead,
                       note=note, precision=CONFIRM_DPS)
    if used == 0:
        return Verdict("inconclusive", method, note="the scaled remainder is undefined along the sequence")
    if relooked:
        method += (f"; {relooked} slowly rising row{'s' if relooked != 1 else ''} tested again along "
                   f"{_sequence_text(x, x0, side, 'j', True)}, j = 1..8 (the log of the distance doubling): "
                   f"the increments of log|R| decay geometrically")
    return Verdict("holds_numerically", method, points=used, worst_error=0.0, precision=CONFIRM_DPS)


def _log_spaced_point(x0, side: str, j: int):
    """x = 10^(2^j) (x0 = +-oo) or x0 +- 10^-(2^j)."""
    e = mp.mpf(2) ** j
    if x0 == sp.oo:
        return mp.mpf(10) ** e
    if x0 == -sp.oo:
        return -mp.mpf(10) ** e
    h = mp.mpf(10) ** (-e)
    return mp.mpf(sp.Float(x0, int(e) + 60)) + (h if side == "+" else -h)


def _log_spaced_increments(fn, x, x0, dom: Domain, side: str, base: dict):
    """The increments of log10|R| along ``_log_spaced_point`` (``LOG_SPACED_J``) at the other variables
    ``base``; each value at 4 * 2^j + 70 digits, kept when it agrees to 1e-6 with twice the digits.  None
    when fewer than five consecutive values are usable (the sequence stops at the first that is not)."""
    xv = next(v for v in dom.vars if v.symbol == x)
    logs = []
    for j in LOG_SPACED_J:
        d = 4 * 2 ** j + 70
        vals = []
        for dps in (d, 2 * d):
            with mp.workdps(dps):
                pt = {k: mp.mpf(v) for k, v in base.items()}
                pt[x.name] = _log_spaced_point(x0, side, j)
                if not xv.contains(pt[x.name]) or not dom.where(pt):
                    vals.append(None)
                    break
                vals.append(fn(pt))
        if len(vals) < 2 or any(v is None or v == 0 or not mp.isfinite(v) for v in vals) \
                or abs(vals[0] - vals[1]) > mp.mpf(10) ** -6 * abs(vals[1]):
            break
        logs.append(mp.log10(abs(vals[1])))
    if len(logs) < 5:
        return None
    return [b - a for a, b in zip(logs[:-1], logs[1:])]


def _leading_term(expr, x, x0):
    try:
        if sp.count_ops(expr) > 150:
            return None
        if x0 == sp.oo:
            t = sp.Symbol("t_", positive=True)
            lt = sp.sympify(expr).subs(x, 1 / t).as_leading_term(t)
            return sp.simplify(lt.subs(t, 1 / x))
        return sp.simplify(sp.sympify(expr).as_leading_term(x) if x0 == 0 else
                           sp.sympify(expr).subs(x, x0 + x).as_leading_term(x).subs(x, x - x0))
    except Exception:  # noqa: BLE001
        return None


class _ToPoint(Kind):
    """A claim about ``of`` as ``var`` tends to ``to`` (a point or an end of var's domain)."""
    about_variable = True
    keeps_ends = True
    optional = ("side",)

    def read(self, r):
        s = r.spec
        x = r.symbol("var")
        x0 = number(s["to"], r.error(f"to={s['to']!r} must be a number, oo or -oo"))
        iv = r.interval(x)
        if not (x0 in (sp.oo, -sp.oo) and (iv.end if x0 == sp.oo else iv.start) == x0) and \
                not (x0 not in (sp.oo, -sp.oo) and bool(iv.closure.contains(x0))):
            raise r.error(f"to={s['to']!r} is not a point or end of {x.name}'s domain {iv}", "to")
        side = s.get("side", "+")
        if side not in ("+", "-"):
            raise r.error(f"side={side!r} must be \"+\" or \"-\"")
        return {"f": r.parse("of"), "x": x, "x0": x0, "side": side}


class Limit(_ToPoint):
    name = "limit"
    required = ("of", "var", "to", "equals")
    doc = ("lim_{var -> to} of = equals: `sympy.limit`, else the values along var = 10^k (to = oo) or "
           "to + 10^-k (a finite point) at a few points of the other symbols")
    example = {"of": r"\frac{\sin x}{x}", "var": "x", "to": "0", "equals": "1"}
    expect = "proved"
    field_docs = {"equals": "LaTeX: the claimed limit (may depend on the other symbols)",
                  "side": "`+` (from above, the default) or `-`, for a finite `to`"}

    def read(self, r):
        return dict(super().read(r), value=r.parse("equals"))

    def printed(self, s):
        return f"\\lim_{{{s['var']} \\to {s['to']}}} {s['of']} = {s['equals']}"

    def statement(self, s):
        return f"limit as {s['var']} -> {s['to']}"

    def check(self, dom, **kw):
        return check_limit(kw["f"], kw["x"], kw["x0"], kw["value"], dom, kw.get("side", "+"))


class Asymptotic(_ToPoint):
    name = "asymptotic"
    required = ("of", "approx", "error", "var", "to")
    doc = ("of = approx + O(error) as var -> to: `sympy.limit` of (of - approx)/error is finite, else "
           "that ratio stays bounded along var -> to; a failing claim carries the leading term of "
           "of - approx")
    example = {"of": r"\log(1 + x)", "approx": "x", "error": "x^2", "var": "x", "to": "0"}
    expect = "proved"
    field_docs = {"approx": "LaTeX: g in f = g + O(h)", "error": "LaTeX: h in f = g + O(h)",
                  "side": "`+` (from above, the default) or `-`, for a finite `to`"}

    def read(self, r):
        return dict(super().read(r), g=r.parse("approx"), h=r.parse("error"))

    def printed(self, s):
        return f"{s['of']} = {s['approx']} + O({s['error']})"

    def statement(self, s):
        return f"asymptotic expansion as {s['var']} -> {s['to']}"

    def check(self, dom, **kw):
        return check_asymptotic(kw["f"], kw["g"], kw["h"], kw["x"], kw["x0"], dom, kw.get("side", "+"))
