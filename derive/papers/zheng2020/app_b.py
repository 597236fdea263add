"""Zheng et al. (seed 004), Definition 3.1 and Appendix B: cumulants from moments.

The general Bell-polynomial formula and the printed kappa_0..kappa_4 are checked against
the Taylor coefficients of log M(t) (SymPy, generic moments) and, numerically, against
privacy-loss cumulants of the Laplace pair (closed form, ``derive.cumulants``) and the
Gaussian-mixture pair, whose raw and central moments come from quadrature.
"""
from __future__ import annotations

import sympy as sp

from ... import cumulants as C
from ...symbols import Param
from ._paper import P

SB = "App. B"
MU = sp.symbols("mu_1:7")           # raw moments mu_1..mu_6
_t = sp.Symbol("t")
_SYMS = {"t": _t, "X": sp.Symbol("X"), "r": sp.Symbol("r")}


GENERIC_M = 1 + sum(MU[r - 1] * _t ** r / sp.factorial(r) for r in range(1, 7))


def cgf_cumulants(kmax=6):
    """kappa_1..kappa_kmax as polynomials in the raw moments: Taylor coefficients of log M(t)."""
    return C.cumulants_from_cgf(sp.log(GENERIC_M), _t, kmax)


BELL_LATEX = r"\kappa_{r}=\sum_{k=1}^{r}(-1)^{k-1}(k-1)!B_{r,k}(\mu_{1},\ldots,\mu_{r-k+1})"


CGF6 = cgf_cumulants(6)             # kappa_1..kappa_6 from log M(t), computed once
# raw moments are free real parameters; w is the variable of the generating polynomial sum_r kappa_r w^r
MU_PARAMS = tuple(Param(m, sp.Interval(-sp.oo, sp.oo), ("uniform", -2, 2)) for m in MU)
_w = sp.Symbol("w", real=True)
P.generic("appB.bell", "App. B", "identity", "kappa_r = sum_k (-1)^(k-1) (k-1)! B_{r,k}(mu_1, ..., mu_{r-k+1})",
          latex=BELL_LATEX, section=SB, formulas=("appB.bell",),
          params=MU_PARAMS + (Param(_w, sp.Interval(-sp.oo, sp.oo), ("uniform", -1, 1)),),
          lhs=sum(k * _w ** r for r, k in enumerate(CGF6, 1)),
          rhs=sum(k * _w ** r for r, k in enumerate(C.moments_to_cumulants(MU), 1)), truth_side="lhs")

NAMES = {f"mu_{{{j}}}": MU[j - 1] for j in range(1, 7)}
F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of app_b.toml


P.load(__file__)  # the claims declared in app_b.toml (after the checks they name)
