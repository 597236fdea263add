"""The house LaTeX printer: every style decision for printed mathematics.

Paper notation: ``\\varepsilon``, ``\\bar{p}`` for ``1 - p``, ``(x)_+`` for
``max(x, 0)``, ``\\log`` (natural), ``e^{x}``, and ``\\zeta_{\\alpha}``.
"""
from __future__ import annotations

import sympy as sp
from sympy.printing.latex import LatexPrinter

_BAR_NAMES = {"p", "q", "delta", "lambda", "tau"}
_NAMES = {
    "varepsilon": r"\varepsilon",
    "zeta_alpha": r"\zeta_{\alpha}",
    "lambda": r"\lambda",
}


class DPLatexPrinter(LatexPrinter):
    printmethod = "_dplatex"

    def __init__(self, settings=None):
        base = {"ln_notation": False, "mul_symbol": None, "inv_trig_style": "abbreviated"}
        base.update(settings or {})
        super().__init__(base)

    def _print_Symbol(self, expr, style="plain"):
        if expr.name in _NAMES:
            return _NAMES[expr.name]
        return super()._print_Symbol(expr, style=style)

    # SymPy's own constants print through their ``_latex`` methods, which a custom
    # ``printmethod`` bypasses; spell them out
    def _print_Pi(self, expr):
        return r"\pi"

    def _print_ImaginaryUnit(self, expr):
        return "i"

    def _print_Infinity(self, expr):
        return r"\infty"

    def _print_NegativeInfinity(self, expr):
        return r"-\infty"

    def _print_Exp1(self, expr):
        return "e"

    def _print_log(self, expr, exp=None):
        arg = self._print(expr.args[0])
        s = r"\log\left(%s\right)" % arg
        return s if exp is None else r"\log^{%s}\left(%s\right)" % (exp, arg)

    def _print_exp(self, expr, exp=None):
        s = "e^{%s}" % self._print(expr.args[0])
        return s if exp is None else r"\left(%s\right)^{%s}" % (s, exp)

    def _print_Max(self, expr, exp=None):
        args = list(expr.args)
        if len(args) == 2 and sp.S.Zero in args:
            other = args[0] if args[1] == 0 else args[1]
            s = r"\left(%s\right)_+" % self._print(other)
            return s if exp is None else r"\left(%s\right)^{%s}" % (s, exp)
        return super()._print_Max(expr, exp)

    def _print_Add(self, expr, order=None):
        # 1 - x  ->  \bar{x} for the probabilities the papers write that way
        if len(expr.args) == 2:
            one, rest = sorted(expr.args, key=lambda a: a != 1)
            if one == 1 and rest.could_extract_minus_sign():
                neg = -rest
                if isinstance(neg, sp.Symbol) and neg.name in _BAR_NAMES:
                    return r"\bar{%s}" % self._print(neg)
        return super()._print_Add(expr, order=order)


class _CanonicalStr(__import__("sympy.printing.str", fromlist=["StrPrinter"]).StrPrinter):
    """StrPrinter with the terms of every sum sorted by their structural sort key alone.  SymPy's own
    order of the terms of a sum of non-polynomial pieces (f(x - 1), f(x - 1.0)) follows the sum's
    internal order, which can depend on string hashing (randomised per process): the same verdict
    note came out two ways in a cold and a warm report."""

    def _as_ordered_terms(self, expr, order=None):
        return sorted(expr.args, key=lambda t: t.sort_key())


_SSTR = _CanonicalStr()


def sstr(expr) -> str:
    """``sympy.sstr`` with the terms of every sum in a canonical order (``_CanonicalStr``): for the text
    of verdicts (notes), which must not depend on the process that computed them."""
    return _SSTR.doprint(expr)


class _PlainStr(_CanonicalStr):
    """Plain-text mathematics for prose (the Markdown errata, verdict notes): powers as ``x^2``,
    products as ``2·alpha·x``, the terms of a sum in ``_CanonicalStr``'s order; no Python syntax."""

    def _print_Pow(self, expr, rational=False):
        b, e = expr.as_base_exp()
        if e == sp.S.Half:
            return f"sqrt({self._print(b)})"
        if e == -1:
            return f"1/{self.parenthesize(b, 50)}"
        base = self.parenthesize(b, 59) if not (b.is_Symbol or (b.is_Integer and b >= 0)) else self._print(b)
        ex = self._print(e)
        if not (e.is_Symbol or (e.is_Integer and e >= 0)):
            ex = f"({ex})"
        return f"{base}^{ex}"

    def _print_Mul(self, expr):
        return super()._print_Mul(expr).replace("*", "·")

    def _print_Float(self, expr):
        f = float(expr)
        return str(int(f)) if f == int(f) and abs(f) < 1e15 else super()._print_Float(expr)


_PLAIN = _PlainStr()


def plain(expr) -> str:
    """``expr`` as readable plain-text mathematics (``x^2``, ``2·alpha``), never ``**``: for the
    notes and Markdown reports, where LaTeX would not render."""
    if isinstance(expr, str):
        return expr
    return _PLAIN.doprint(sp.sympify(expr))


_PRINTER = DPLatexPrinter()


def latex(expr) -> str:
    """Render ``expr`` in the house style."""
    if isinstance(expr, str):
        return expr
    return _PRINTER.doprint(expr)
