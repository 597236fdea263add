"""Symbols and their domains: intervals, search ranges, domain ends that depend on other symbols
(``DepInterval``) and the change of variables that makes such a domain a box."""
from __future__ import annotations

import json
import keyword
import re
from dataclasses import dataclass

import mpmath as mp
import sympy as sp

from ..core import Verdict
from ..search import Var
from ..symbols import Param


# ----------------------------------------------------------------------------- symbols and domains
_INTERVAL = re.compile(r"^\s*([\(\[])\s*(.+?)\s*,\s*(.+?)\s*([\)\]])\s*$")


def _canon(name: str) -> str:
    """A symbol name as written in TOML or produced by the LaTeX parser, without braces
    and backslashes: ``\\sigma_{0}`` and ``sigma_0`` are the same symbol."""
    return name.replace("\\", "").replace("{", "").replace("}", "").replace(" ", "")


def _search_within(search: tuple | None, iv: sp.Interval) -> tuple | None:
    """A declared search range seen through a claim's narrower domain: its part inside the domain
    (a claim on p in (1/2, 1) of a symbol searched over [0.001, 0.999] searches [1/2, 0.999]), or
    None (the domain's own default) when none of it is inside; every point searched then lies in
    the claim's domain."""
    if search is None:
        return None
    lo = max(float(search[0]), float(iv.start)) if iv.start != -sp.oo else float(search[0])
    hi = min(float(search[1]), float(iv.end)) if iv.end != sp.oo else float(search[1])
    if not lo < hi:
        return None
    return (search[0] if lo == float(search[0]) else lo, search[1] if hi == float(search[1]) else hi)


@dataclass
class SymbolSpec:
    name: str
    symbol: sp.Symbol
    interval: sp.Interval
    integer: bool
    search: tuple | None
    dep: "DepInterval | None" = None     # a domain whose ends depend on other symbols (interval: its hull)

    def var(self, interval: sp.Interval | None = None) -> Var:
        iv = interval if interval is not None else self.interval
        lo = None if iv.start == -sp.oo else mp.mpf(sp.Float(iv.start, 60))
        hi = None if iv.end == sp.oo else mp.mpf(sp.Float(iv.end, 60))
        return Var(self.name, self.symbol, lo, hi, bool(iv.left_open), bool(iv.right_open),
                   self.integer, _search_within(self.search, iv))

    def param(self) -> Param:
        iv = self.interval
        a, b = iv.start, iv.end
        if self.integer:
            lo = int(sp.ceiling(a)) if a != -sp.oo else -1000
            law = ("integer", lo, int(sp.floor(b)) if b != sp.oo else lo + 1000)
        elif self.search is not None:
            law = ("uniform", float(self.search[0]), float(self.search[1]))
        elif a != -sp.oo and b != sp.oo:
            law = ("uniform", float(a), float(b))
        elif a != -sp.oo:
            law = ("above", float(a), 1e-3, 1e3)
        elif b != sp.oo:
            law = ("uniform", float(b) - 1e3, float(b))
        else:
            law = ("uniform", -1e3, 1e3)
        return Param(self.symbol, iv, law)


@dataclass
class DepInterval:
    """A domain whose ends depend on other symbols (``"[0, 1/b]"``, ``"(1, 1/delta]"``): ``lo`` and
    ``hi`` are SymPy expressions over the file's symbols (or +-oo).  A claim over it searches a unit
    coordinate t in [0, 1] (or an offset s >= 0 beyond a finite end of a half-line) and maps it
    through the ends, x = lo + (hi - lo) t: both ends are probed as for a constant domain."""
    lo: sp.Expr
    hi: sp.Expr
    left_open: bool
    right_open: bool
    text: str

    def __str__(self):
        return self.text

    @property
    def depends_on(self) -> set:
        return {s.name for s in (sp.sympify(self.lo).free_symbols | sp.sympify(self.hi).free_symbols)}

    def resolved(self, symbols: dict) -> "DepInterval":
        """The ends with the file's symbols (parsing made plain symbols of the same names)."""
        m = {sp.Symbol(n): symbols[n] for n in self.depends_on}
        return DepInterval(sp.sympify(self.lo).xreplace(m), sp.sympify(self.hi).xreplace(m),
                           self.left_open, self.right_open, self.text)

    def hull(self) -> sp.Interval:
        """A constant interval holding every value (for the symbol's assumptions and formulas)."""
        lo, hi = sp.sympify(self.lo), sp.sympify(self.hi)
        if lo == -sp.oo or lo.is_number:
            a, aopen = lo, self.left_open or lo == -sp.oo
        elif lo.is_positive:
            a, aopen = sp.S.Zero, True
        elif lo.is_nonnegative:
            a, aopen = sp.S.Zero, self.left_open
        else:
            a, aopen = -sp.oo, True
        if hi == sp.oo or hi.is_number:
            b, bopen = hi, self.right_open or hi == sp.oo
        elif hi.is_negative:
            b, bopen = sp.S.Zero, True
        elif hi.is_nonpositive:
            b, bopen = sp.S.Zero, self.right_open
        else:
            b, bopen = sp.oo, True
        return sp.Interval(a, b, left_open=bool(aopen), right_open=bool(bopen))


def parse_interval(text: str, names=None):
    """A constant ``sp.Interval``; with ``names`` (the declared symbols) an interval whose ends are
    expressions in them is a ``DepInterval``."""
    m = _INTERVAL.match(str(text))
    if m and names:
        lb, a, b, rb = m.groups()
        local = {n: sp.Symbol(n) for n in names}
        # a symbol named as a Python keyword (lambda, the Laplace scale) is spelled apart for sympify
        kw = {n: f"{n}_kw__" for n in names if keyword.iskeyword(n)}
        local.update({alias: sp.Symbol(n) for n, alias in kw.items()})

        def spelled(end: str) -> str:
            for n, alias in kw.items():
                end = re.sub(rf"\b{n}\b", alias, end)
            return end
        try:
            lo, hi = sp.sympify(spelled(a), locals=local), sp.sympify(spelled(b), locals=local)
        except (sp.SympifyError, TypeError, SyntaxError):
            lo = hi = None
        words = {w for w in re.findall(r"\b[A-Za-z_]\w*\b(?!\s*\()", f"{a} {b}")} - set(names) - \
            {"oo", "pi", "E", "inf"}
        if words:
            raise ValueError(f"domain {text!r}: its ends name {', '.join(sorted(words))}, which "
                             f"{'is' if len(words) == 1 else 'are'} not declared under [symbols]")
        if lo is not None and (getattr(lo, "free_symbols", None) or getattr(hi, "free_symbols", None)):
            unknown = {x.name for x in lo.free_symbols | hi.free_symbols} - set(names)
            if unknown:
                raise ValueError(f"domain {text!r}: its ends name {', '.join(sorted(unknown))}, which "
                                 f"{'is' if len(unknown) == 1 else 'are'} not declared under [symbols]")
            return DepInterval(lo, hi, lb == "(" or lo == -sp.oo, rb == ")" or hi == sp.oo, str(text).strip())
    m = _INTERVAL.match(str(text))
    if not m:
        raise ValueError(f"domain {text!r} is not an interval like \"(0, oo)\" or \"[0, 1)\"")
    lb, a, b, rb = m.groups()
    try:
        lo, hi = sp.sympify(a), sp.sympify(b)
    except (sp.SympifyError, TypeError, SyntaxError):
        raise ValueError(f"domain {text!r}: its ends must be numbers, oo or -oo") from None
    if not (lo.is_number or lo in (sp.oo, -sp.oo)) or not (hi.is_number or hi in (sp.oo, -sp.oo)):
        raise ValueError(f"domain {text!r}: its ends must be numbers, oo or -oo"
                         + (" or expressions in other symbols (\"[0, 1/b]\")" if names is not None else ""))
    for end in (lo, hi):        # 1/0 is zoo, sqrt(-1) is I: no end of a real interval
        if end.has(sp.zoo, sp.nan) or end.is_extended_real is not True:
            raise ValueError(f"domain {text!r}: its end {a if end is lo else b} is not a real number "
                             "(oo and -oo are the infinite ends)")
    if not lo < hi:
        raise ValueError(f"domain {text!r} is empty")
    return sp.Interval(lo, hi, left_open=(lb == "(" or lo == -sp.oo), right_open=(rb == ")" or hi == sp.oo))


def _make_symbol(name: str, iv: sp.Interval, integer: bool) -> sp.Symbol:
    kw = {"real": True}
    if iv.start >= 0:
        kw["nonnegative"] = True
        if iv.start > 0 or iv.left_open:
            kw["positive"] = True
    if iv.end <= 0:
        kw["nonpositive"] = True
        if iv.end < 0 or iv.right_open:
            kw["negative"] = True
    if integer:
        kw["integer"] = True
    return sp.Symbol(name, **kw)

# ----------------------------------------------------------------------------- dependent domains
def _change_variables(kind, kw: dict, subs: dict, units: dict) -> dict:
    """The claim's fields over the coordinates of its dependent-domain symbols.  Pointwise claims
    (and limits, whose variable keeps its own ends as conditions) substitute; a derivative or shape
    claim takes ``subs`` to its checker, which differentiates in the claim's variable first."""
    if kind.differentiates:
        return dict(kw, subs=subs), sp.S.One
    return {k: (sp.sympify(v).xreplace(subs) if isinstance(v, sp.Basic) and k != "x" else v)
            for k, v in kw.items()}, sp.S.One


def _original_coordinates(v: Verdict, units: dict, x=None, factor=sp.S.One) -> Verdict:
    """A verdict over unit coordinates told in the claim's own symbols: a counterexample's t_x
    (s_x) becomes x = lo + (hi - lo) t_x (lo + s_x), and a note says what t_x is when the verdict
    still names it."""
    ce = v.counterexample
    if ce and isinstance(ce.get("params"), dict):
        params = ce["params"]
        vals = {}
        for k, val in params.items():
            try:
                vals[k] = mp.mpf(val)
            except (TypeError, ValueError):
                pass
        out = {}
        for k, val in params.items():
            if k in units:
                name, sym, expr, iv = units[k]
                try:
                    with mp.workdps(30):
                        fn = sp.lambdify(sorted(expr.free_symbols, key=lambda s: s.name), expr, modules="mpmath")
                        args = [vals[s.name] for s in sorted(expr.free_symbols, key=lambda s: s.name)]
                        out[name] = mp.nstr(fn(*args), 10)
                except (KeyError, TypeError, ValueError, ZeroDivisionError):
                    out[k] = val
            else:
                out[k] = val
        ce["params"] = out
    text = json.dumps(v.counterexample, default=str) + v.method + (v.note or "")
    named = [k for k in units if k in text]
    if named:
        what = "; ".join(f"{k} is the coordinate of {units[k][0]} on its domain {units[k][3].text} "
                         f"({units[k][0]} = {sp.sstr(units[k][2])})" for k in named)
        v.note = f"{v.note}; {what}" if v.note else what
    if v.derived is not None and x is not None:
        inv = {}
        for k, (name, sym, expr, iv) in units.items():
            t = [s for s in expr.free_symbols if s.name == k]
            if t:
                sol = sp.solve(sp.Eq(sym, expr), t[0])
                if len(sol) == 1:
                    inv[t[0]] = sol[0]
        v.derived = (sp.sympify(v.derived) / factor).xreplace(inv)
    return v
