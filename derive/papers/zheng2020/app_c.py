"""Zheng et al. (seed 004), Appendix C (and its use in Sec. 5.3): N(0,1) vs the mixture
p N(mu,1) + (1-p) N(0,1) has trade-off function p G_mu + (1-p) Id (Lemma C.1).
"""
from __future__ import annotations

import sympy as sp

from ...core import Verdict
from ...symbols import MU, P as PP, alpha, mu, p
from ...verify import symbolic_zero
from ._paper import ALPHA01, H, P, Phi, erf_form, h, x
from ...functions import Phi as PhiF, PhiInv

SC = "App. C"

C1_LATEX = r"T(P,Q)=pG_{\mu}+(1-p)\mathrm{Id}."
# G_mu and Id as printed, expanded by their definitions (Def. 2.2; Id(alpha) = 1 - alpha)
_GMU, _ID = sp.Symbol("G_{mu}"), sp.Symbol("Id")
_GID = {_GMU: PhiF(PhiInv(1 - alpha) - mu), _ID: 1 - alpha,
        sp.Function("G_mu")(alpha): PhiF(PhiInv(1 - alpha) - mu), sp.Function("Id")(alpha): 1 - alpha}
P.formula("lemmaC1", "Lemma C.1", C1_LATEX, role="equality", quantity="T(P,Q)(\\alpha)", params=(ALPHA01, MU, PP),
          parse=C1_LATEX.partition("=")[2], symbols={"G_mu": _GMU, "Id": _ID}, subs=_GID, transform=erf_form,
          section=SC,
          description="trade-off function of N(0,1) vs p N(mu,1) + (1-p) N(0,1), mu >= 0")


LR_L = r"p\mathrm{e}^{-\frac{1}{2}(x-\mu)^{2}+\frac{1}{2}x^{2}}+1-p"
LR_R = r"p\mathrm{e}^{\mu x-\frac{1}{2}\mu^{2}}+1-p"
LR_LATEX = LR_L + "=" + LR_R + "."
lr = P.formula("lemmaC1.lr", "App. C", LR_LATEX, parse=LR_R, role="identity", quantity="q(x)/p(x)",
               params=(MU, PP), symbols={"x": x}, section=SC)


def _lr_check():
    from ...parse import parse_printed
    left = parse_printed(LR_L, {"x": x})
    dens = lambda m: sp.exp(-(x - m) ** 2 / 2) / sp.sqrt(2 * sp.pi)
    truth = (p * dens(mu) + (1 - p) * dens(0)) / dens(0)
    steps = [symbolic_zero(sp.simplify(truth - left)), symbolic_zero(sp.simplify(truth - lr.expr))]
    slope = sp.simplify(sp.diff(lr.expr, x))
    increasing = bool(slope.is_positive)           # mu > 0, p > 0 assumed by the symbols
    if all(steps) and increasing:
        return Verdict("proved", "SymPy: both printed forms equal q(x)/p(x); d/dx = p mu e^{mu x - mu^2/2} > 0, "
                       "so likelihood-ratio tests threshold x", derived=slope)
    return Verdict("fails", "SymPy", counterexample={"steps": steps, "slope": sp.sstr(slope)})


# custom: two facts, the printed equality of q/p and its monotonicity in x (a derivative's sign)
P.claim("lemmaC1.lr", "App. C", "identity",
        "likelihood ratio q/p = p e^{mu x - mu^2/2} + 1 - p, increasing in x for mu >= 0 (tests threshold x)",
        latex=LR_LATEX, section=SC, formulas=("lemmaC1.lr",), check=_lr_check,
        why_custom="two facts, the printed equality of q/p and its monotonicity in x (a derivative's sign)")

B_LATEX = r"\displaystyle=p\Phi(h-\mu)+(1-p)\Phi(h)."
P.formula("lemmaC1.beta", "App. C", B_LATEX, role="equality", quantity=r"\beta", params=(H, MU, PP),
          parse=B_LATEX.partition("=")[2], symbols={"h": h}, transform=erf_form, section=SC)
P.formula("lemmaC1.alpha", "App. C", r"\displaystyle=P\{x:x>h\}=1-\Phi(h),", role="equality", quantity=r"\alpha",
          params=(H,), parse=r"1-\Phi(h)", symbols={"h": h}, transform=erf_form, section=SC)


P.formula("lemmaC1.final", "App. C", r"T(P,Q)(\alpha)=\beta=pG_{\mu}(\alpha)+(1-p)\mathrm{Id}(\alpha).",
          role="equality", quantity=r"T(P,Q)(\alpha)", params=(ALPHA01, MU, PP),
          parse=r"pG_{\mu}(\alpha)+(1-p)\mathrm{Id}(\alpha)", subs=_GID, transform=erf_form, section=SC)

P.load(__file__)  # the generic claims: app_c.toml
