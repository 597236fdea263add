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

K_LATEX = r"K(t)=\log\operatorname{\mathbb{E}}\left(e^{tX}\right)=\sum_{r=0}^{\infty}\kappa_{r}t^{r}/r!."
P.formula("def3_1.K", "Def. 3.1", K_LATEX, role="definition", quantity="K(t)", params=(),
          parse=r"\log\operatorname{\mathbb{E}}\left(e^{tX}\right)", symbols=_SYMS, section="Sec. 3.1")
P.formula("appB.K", "App. B", r"K(t)=\log\operatorname{\mathbb{E}}\left(e^{tX}\right),", role="definition",
          quantity="K(t)", params=(), parse=r"\log\operatorname{\mathbb{E}}\left(e^{tX}\right)", symbols=_SYMS,
          section=SB)
P.formula("appB.mu_r", "App. B", r"\mu_{r}=\operatorname{\mathbb{E}}(X^{r})", role="definition", quantity=r"\mu_r",
          params=(), parse=r"\operatorname{\mathbb{E}}(X^{r})", symbols=_SYMS, section=SB)
P.formula("appB.M", "App. B",
          r"M(t)=\operatorname{\mathbb{E}}\left(e^{tX}\right)=\sum_{r=0}^{\infty}\mu_{r}t^{r}/r!=\exp\left(K(t)\right).",
          role="identity", quantity="M(t)", params=(), parse=r"\exp\left(K(t)\right)", symbols=_SYMS, section=SB)

GENERIC_M = 1 + sum(MU[r - 1] * _t ** r / sp.factorial(r) for r in range(1, 7))


def cgf_cumulants(kmax=6):
    """kappa_1..kappa_kmax as polynomials in the raw moments: Taylor coefficients of log M(t)."""
    return C.cumulants_from_cgf(sp.log(GENERIC_M), _t, kmax)


BELL_LATEX = r"\kappa_{r}=\sum_{k=1}^{r}(-1)^{k-1}(k-1)!B_{r,k}(\mu_{1},\ldots,\mu_{r-k+1})"
P.formula("appB.bell", "App. B", BELL_LATEX, role="identity", quantity=r"\kappa_r", params=(),
          hand=sp.Symbol("kappa_r"), hand_reason="a sum of incomplete Bell polynomials (derive.cumulants."
          "moments_to_cumulants implements it with sympy.bell)", section=SB)


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
KAPPA = {
    0: (r"\displaystyle\kappa_{0}=0,", "0", None, ""),
    1: (r"\displaystyle\kappa_{1}=\mu_{1},", r"\mu_{1}", None, ""),
    2: (r"\displaystyle\kappa_{2}=\mu_{2}-\mu_{1}^{2},", r"\mu_{2}-\mu_{1}^{2}", None, ""),
    3: (r"\displaystyle\kappa_{3}=\mu_{3}-3\mu_{2}\mu_{1}+2\mu^{3}_{1},", r"\mu_{3}-3\mu_{2}\mu_{1}+2\mu^{3}_{1}", None, ""),
    4: (r"\displaystyle\kappa_{4}=\mu_{4}-4\mu_{3}\mu_{1}-3\mu^{2}_{2}+12\mu_{2}\mu_{1}^{2}-6\mu^{4}_{1}.",
        r"\mu_{4}-4\mu_{3}\mu_{1}-3\mu^{2}_{2}+12\mu_{2}\mu_{1}^{2}-6\mu^{4}_{1}", None, ""),
}
KF = {}
for r, (lx, frag, hand, why) in KAPPA.items():
    kw = dict(parse=frag, symbols=NAMES) if frag else dict(hand=hand, hand_reason=why or "a constant")
    KF[r] = P.formula(f"appB.kappa{r}", "App. B", lx, role="identity", quantity=rf"\kappa_{r}", params=(),
                      section=SB, **kw)


P.load(__file__)  # the generic claims: app_b.toml
