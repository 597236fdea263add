"""Named functions the papers use, as SymPy functions that carry their own facets:
closed-form evaluation, derivative, LaTeX in the papers' notation, and mpmath/NumPy
printing (the pattern of ``sympy.codegen.numpy_nodes.logaddexp``).

* ``Phi(x)``: the standard normal CDF; ``Phi(x).rewrite(sp.erf)`` gives (1 + erf(x/sqrt 2))/2.
* ``PhiInv(u)``: its inverse, sqrt(2) erfinv(2u - 1).
"""
from __future__ import annotations

import sympy as sp


class Phi(sp.Function):
    """The standard normal CDF Phi(x)."""

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x is sp.S.Zero:
            return sp.S.Half
        if x is sp.S.Infinity:
            return sp.S.One
        if x is sp.S.NegativeInfinity:
            return sp.S.Zero
        if isinstance(x, PhiInv):
            return x.args[0]

    def fdiff(self, argindex=1):
        x = self.args[0]
        return sp.exp(-x ** 2 / 2) / sp.sqrt(2 * sp.pi)

    def _eval_rewrite_as_erf(self, x, **kwargs):
        return (1 + sp.erf(x / sp.sqrt(2))) / 2

    def _eval_is_positive(self):
        return self.args[0].is_extended_real

    def _eval_evalf(self, prec):
        return self.rewrite(sp.erf)._eval_evalf(prec)

    def _latex(self, printer, exp=None):
        s = r"\Phi\left(%s\right)" % printer._print(self.args[0])
        return s if exp is None else r"\Phi^{%s}\left(%s\right)" % (exp, printer._print(self.args[0]))

    _dplatex = _latex

    def _mpmathcode(self, printer):
        return "%s(%s)" % (printer._module_format("mpmath.ncdf"), printer._print(self.args[0]))

    def _numpycode(self, printer):
        return "%s(%s)" % (printer._module_format("scipy.special.ndtr"), printer._print(self.args[0]))

    _scipycode = _numpycode


class PhiInv(sp.Function):
    """The standard normal quantile Phi^{-1}(u), u in (0, 1)."""

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u == sp.S.Half:
            return sp.S.Zero
        if isinstance(u, Phi):
            return u.args[0]

    def fdiff(self, argindex=1):
        return sp.sqrt(2 * sp.pi) * sp.exp(self ** 2 / 2)

    def _eval_rewrite_as_erfinv(self, u, **kwargs):
        return sp.sqrt(2) * sp.erfinv(2 * u - 1)

    def _eval_evalf(self, prec):
        return self.rewrite(sp.erfinv)._eval_evalf(prec)

    def _latex(self, printer, exp=None):
        s = r"\Phi^{-1}\left(%s\right)" % printer._print(self.args[0])
        return s if exp is None else r"\left(%s\right)^{%s}" % (s, exp)

    _dplatex = _latex

    def _mpmathcode(self, printer):
        return "(%s(2)*%s(2*(%s) - 1))" % (printer._module_format("mpmath.sqrt"), printer._module_format("mpmath.erfinv"), printer._print(self.args[0]))

    def _numpycode(self, printer):
        return "%s(%s)" % (printer._module_format("scipy.special.ndtri"), printer._print(self.args[0]))

    _scipycode = _numpycode


#: LaTeX function names a parsed formula may use, mapped to SymPy
LATEX_FUNCTIONS = {"Phi": Phi, "Phi^{-1}": PhiInv, "erf": sp.erf, "erfc": sp.erfc,
                   "Gamma": sp.gamma, "exp": sp.exp}
