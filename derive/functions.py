"""Named functions the papers use, as SymPy functions that carry their own facets:
closed-form evaluation, derivative, LaTeX in the papers' notation, and mpmath/NumPy
printing (the pattern of ``sympy.codegen.numpy_nodes.logaddexp``).

* ``Phi(x)``: the standard normal CDF; ``Phi(x).rewrite(sp.erf)`` gives (1 + erf(x/sqrt 2))/2.
* ``PhiInv(u)``: its inverse, sqrt(2) erfinv(2u - 1).
* ``GaussTradeoff(mu, tau)``: G_mu(tau) = Phi(Phi^{-1}(1 - tau) - mu), the trade-off function of
  N(0,1) vs N(mu,1) (Zheng et al. 2020, Def. 2.2; Asoodeh et al. 2021, eq. (41)).
* ``GaussHockey(mu, gamma)``: E_gamma(N(mu,1) || N(0,1)), the hockey-stick divergence of two unit
  Gaussians (Asoodeh et al. 2021, eq. (40) at gamma = e^eps; Balle and Wang 2018).
* ``ZetaAlpha(alpha)``: zeta_alpha = (1/alpha)(1 - 1/alpha)^(alpha-1) (Asoodeh et al. 2021, Thm. 4).
* ``Chi(alpha, x)`` = (e^{(alpha-1)x} - 1)/(alpha - 1), the map from D_alpha to chi^alpha
  (Asoodeh et al. 2021, Sec. III), and ``ChiInv(alpha, y)`` = log(1 + (alpha-1) y)/(alpha - 1), its inverse.
* ``BinaryRenyi(alpha, p, q)``: d_alpha(p||q), the Renyi divergence of Bern(p) and Bern(q)
  (Asoodeh et al. 2021, Lemma 4).
* ``LogSubExp(x, y)``: log(e^x - e^y) for x > y (``sympy.codegen.numpy_nodes.logaddexp`` is the sum).
* ``LogPhi(x)``, ``Log1mExp(x)`` = log(1 - e^{-x}), ``LogExpm1(x)`` = log(e^x - 1): the log-domain
  helpers the generated kernels print in their stable forms.

Apart from Phi and PhiInv, each is defined once by ``definition()``, its closed form in
elementary functions and Phi: derivatives, evaluation and the mpmath/NumPy printers come from
it, and its LaTeX is the papers' notation.
"""
from __future__ import annotations

import mpmath
import sympy as sp
from sympy.core.evalf import prec_to_dps


def _real_arg(arg, prec):
    """``arg`` evaluated to prec + 40 bits as an mpmath real (exact, whatever mpmath's context
    precision), or None when it is not a finite real number."""
    v = arg.evalf(prec_to_dps(prec + 40))
    if not (v.is_Number and v.is_real and v.is_finite):
        return None
    with mpmath.workprec(prec + 40):
        return +v._to_mpmath(prec + 40)


#: the exact values of Phi (and so of its inverse): Phi(0) = 1/2, Phi(+-oo) = 1, 0
_PHI_AT = {sp.S.Zero: sp.S.Half, sp.S.Infinity: sp.S.One, sp.S.NegativeInfinity: sp.S.Zero}
_PHI_INV_AT = {v: k for k, v in _PHI_AT.items()}


class Phi(sp.Function):
    """The standard normal CDF Phi(x)."""

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x in _PHI_AT:
            return _PHI_AT[x]
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
        # mpmath.ncdf (erfc in the lower tail: no cancellation in 1 + erf(x/sqrt 2)), with guard bits
        # for the argument's relative error, amplified by |x|^2 in the tail
        x = _real_arg(self.args[0], prec)
        if x is None:
            return self.rewrite(sp.erf)._eval_evalf(prec)
        with mpmath.workprec(prec + 30 + 2 * max(0, int(mpmath.log(abs(x) + 1, 2)))):
            return sp.Expr._from_mpmath(mpmath.ncdf(x), prec)

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
        if u in _PHI_INV_AT:
            return _PHI_INV_AT[u]
        if isinstance(u, Phi):
            return u.args[0]

    def fdiff(self, argindex=1):
        return sp.sqrt(2 * sp.pi) * sp.exp(self ** 2 / 2)

    def _eval_rewrite_as_erfinv(self, u, **kwargs):
        return sp.sqrt(2) * sp.erfinv(2 * u - 1)

    def _eval_evalf(self, prec):
        # sqrt(2) erfinv(2u - 1) at a working precision where 2u - 1 keeps u's digits (u near 0)
        u = _real_arg(self.args[0], prec)
        if u is None or not 0 < u < 1:
            return self.rewrite(sp.erfinv)._eval_evalf(prec)
        with mpmath.workprec(prec + 30 + max(0, int(-mpmath.log(min(u, 1 - u), 2)))):
            return sp.Expr._from_mpmath(mpmath.sqrt(2) * mpmath.erfinv(2 * u - 1), prec)

    def _latex(self, printer, exp=None):
        s = r"\Phi^{-1}\left(%s\right)" % printer._print(self.args[0])
        return s if exp is None else r"\left(%s\right)^{%s}" % (s, exp)

    _dplatex = _latex

    def _mpmathcode(self, printer):
        return "(%s(2)*%s(2*(%s) - 1))" % (printer._module_format("mpmath.sqrt"), printer._module_format("mpmath.erfinv"), printer._print(self.args[0]))

    def _numpycode(self, printer):
        return "%s(%s)" % (printer._module_format("scipy.special.ndtri"), printer._print(self.args[0]))

    _scipycode = _numpycode


class _Named(sp.Function):
    """A named function whose every facet comes from ``definition()`` (its closed form):
    ``fdiff`` differentiates it, ``doit``/``evalf`` evaluate it, the mpmath and NumPy printers
    print it; subclasses give ``definition`` and ``_latex``."""

    def definition(self):
        raise TypeError(f"{type(self).__name__} must define definition() (_Named is abstract)")

    def doit(self, deep=True, **hints):
        args = [a.doit(deep=deep, **hints) for a in self.args] if deep else self.args
        return self.func(*args).definition()

    def fdiff(self, argindex=1):
        x = sp.Dummy("x")
        args = list(self.args)
        args[argindex - 1] = x
        return sp.diff(self.func(*args).definition(), x).subs(x, self.args[argindex - 1])

    def _eval_evalf(self, prec):
        return self.definition()._eval_evalf(prec)

    def _mpmathcode(self, printer):
        return printer._print(self.definition())

    def _numpycode(self, printer):
        return printer._print(self.definition())

    _scipycode = _numpycode

    def _wrap(self, s, exp):
        return s if exp is None else r"\left(%s\right)^{%s}" % (s, exp)


class GaussTradeoff(_Named):
    """G_mu(tau) = Phi(Phi^{-1}(1 - tau) - mu): the trade-off function T(N(0,1), N(mu,1))
    (Zheng et al. 2020, Def. 2.2; Asoodeh et al. 2021, eq. (41))."""

    nargs = 2

    def definition(self):
        mu, tau = self.args
        return Phi(PhiInv(1 - tau) - mu)

    def _latex(self, printer, exp=None):
        mu, tau = (printer._print(a) for a in self.args)
        return self._wrap(r"G_{%s}\left(%s\right)" % (mu, tau), exp)

    _dplatex = _latex


class GaussHockey(_Named):
    """E_gamma(N(mu,1) || N(0,1)) = Phi(mu/2 - log(gamma)/mu) - gamma Phi(-mu/2 - log(gamma)/mu)
    (Asoodeh et al. 2021, eq. (40) with gamma = e^eps; Balle and Wang 2018, Thm. 8)."""

    nargs = 2

    def definition(self):
        mu, g = self.args
        return Phi(mu / 2 - sp.log(g) / mu) - g * Phi(-mu / 2 - sp.log(g) / mu)

    def _latex(self, printer, exp=None):
        mu, g = (printer._print(a) for a in self.args)
        return self._wrap(r"\mathsf{E}_{%s}\left(\mathcal{N}(%s,1)\,\|\,\mathcal{N}(0,1)\right)" % (g, mu), exp)

    _dplatex = _latex


class ZetaAlpha(_Named):
    """zeta_alpha = (1/alpha)(1 - 1/alpha)^(alpha-1) (Asoodeh et al. 2021, Thm. 4)."""

    nargs = 1

    def definition(self):
        a = self.args[0]
        return (1 - 1 / a) ** (a - 1) / a

    def _latex(self, printer, exp=None):
        s = r"\zeta_{%s}" % printer._print(self.args[0])
        return s if exp is None else r"%s^{%s}" % (s, exp)

    _dplatex = _latex


class Chi(_Named):
    """chi(x) = (e^{(alpha-1)x} - 1)/(alpha - 1): D_alpha = x gives chi^alpha = chi(x) (Asoodeh et al. 2021, Sec. III)."""

    nargs = 2

    def definition(self):
        a, x = self.args
        return (sp.exp((a - 1) * x) - 1) / (a - 1)

    def _latex(self, printer, exp=None):
        return self._wrap(r"\chi\left(%s\right)" % printer._print(self.args[1]), exp)

    _dplatex = _latex


class ChiInv(_Named):
    """chi^{-1}(y) = log(1 + (alpha-1) y)/(alpha - 1), the inverse of ``Chi`` (Asoodeh et al. 2021, Sec. III)."""

    nargs = 2

    def definition(self):
        a, y = self.args
        return sp.log(1 + (a - 1) * y) / (a - 1)

    def _latex(self, printer, exp=None):
        return self._wrap(r"\chi^{-1}\left(%s\right)" % printer._print(self.args[1]), exp)

    _dplatex = _latex


class BinaryRenyi(_Named):
    """d_alpha(p||q) = log(p^alpha q^(1-alpha) + (1-p)^alpha (1-q)^(1-alpha))/(alpha - 1):
    D_alpha(Bern(p) || Bern(q)) (Asoodeh et al. 2021, Lemma 4)."""

    nargs = 3

    def definition(self):
        a, p, q = self.args
        return sp.log(p ** a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a)) / (a - 1)

    def _latex(self, printer, exp=None):
        a, p, q = (printer._print(x) for x in self.args)
        return self._wrap(r"d_{%s}\left(%s\,\|\,%s\right)" % (a, p, q), exp)

    _dplatex = _latex


class LogSubExp(_Named):
    """log(e^x - e^y) for x > y, as x + log1p(-e^(y-x)) in NumPy."""

    nargs = 2

    def definition(self):
        x, y = self.args
        return x + sp.log(1 - sp.exp(y - x))

    def _latex(self, printer, exp=None):
        x, y = (printer._print(a) for a in self.args)
        return self._wrap(r"\log\left(e^{%s} - e^{%s}\right)" % (x, y), exp)

    _dplatex = _latex

    def _numpycode(self, printer):
        x, y = (printer._print(a) for a in self.args)
        return "(%s + %s(-%s((%s) - (%s))))" % (x, printer._module_format("numpy.log1p"),
                                              printer._module_format("numpy.exp"), y, x)

    _scipycode = _numpycode


class LogPhi(_Named):
    """log Phi(x), printed as ``scipy.special.log_ndtr`` (a few ulp everywhere, deep tails included)."""

    nargs = 1

    def definition(self):
        return sp.log(Phi(self.args[0]))

    def _latex(self, printer, exp=None):
        return self._wrap(r"\log \Phi\left(%s\right)" % printer._print(self.args[0]), exp)

    _dplatex = _latex

    def _numpycode(self, printer):
        return "%s(%s)" % (printer._module_format("scipy.special.log_ndtr"), printer._print(self.args[0]))

    _scipycode = _numpycode


class Log1mExp(_Named):
    """log(1 - e^{-x}) for x > 0, printed in Maechler's (2012) two-branch form: log1p(-e^{-x})
    above log 2, log(-expm1(-x)) below (full relative accuracy at both ends)."""

    nargs = 1

    def definition(self):
        return sp.log(1 - sp.exp(-self.args[0]))

    def _latex(self, printer, exp=None):
        return self._wrap(r"\log\left(1 - e^{-%s}\right)" % printer._print(self.args[0]), exp)

    _dplatex = _latex

    def _numpycode(self, printer):
        x = printer._print(self.args[0])
        return "%s(%s > %r, %s(-%s(-(%s))), %s(-%s(-(%s))))" % (
            printer._module_format("numpy.where"), x, 0.6931471805599453, printer._module_format("numpy.log1p"),
            printer._module_format("numpy.exp"), x, printer._module_format("numpy.log"),
            printer._module_format("numpy.expm1"), x)

    _scipycode = _numpycode


class LogExpm1(_Named):
    """log(e^x - 1) for x > 0, printed as x + log(1 - e^{-x}) (``Log1mExp``): finite beyond x = 709."""

    nargs = 1

    def definition(self):
        return sp.log(sp.exp(self.args[0]) - 1)

    def _latex(self, printer, exp=None):
        return self._wrap(r"\log\left(e^{%s} - 1\right)" % printer._print(self.args[0]), exp)

    _dplatex = _latex

    def _numpycode(self, printer):
        x = self.args[0]
        return "(%s + %s)" % (printer._print(x), printer._print(Log1mExp(x)))

    _scipycode = _numpycode


#: every named function, by class name
NAMED = {c.__name__: c for c in (Phi, PhiInv, GaussTradeoff, GaussHockey, ZetaAlpha, Chi, ChiInv,
                                 BinaryRenyi, LogSubExp, LogPhi, Log1mExp, LogExpm1)}


#: LaTeX function names a parsed formula may use, mapped to SymPy
LATEX_FUNCTIONS = {"Phi": Phi, "Phi^{-1}": PhiInv, "erf": sp.erf, "erfc": sp.erfc,
                   "Gamma": sp.gamma, "exp": sp.exp}
