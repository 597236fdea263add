"""Zheng et al. (seed 004), Appendix C (and its use in Sec. 5.3): N(0,1) vs the mixture
p N(mu,1) + (1-p) N(0,1) has trade-off function p G_mu + (1-p) Id (Lemma C.1).
"""
from __future__ import annotations

import sympy as sp

from ...core import Verdict
from ...symbols import MU, P as PP, alpha, mu, p
from ...verify import symbolic_zero
from ._paper import ALPHA01, H, P, erf_form, h, x


# G_mu and Id as printed, expanded by their definitions (Def. 2.2; Id(alpha) = 1 - alpha)
_GMU, _ID = sp.Symbol("G_{mu}"), sp.Symbol("Id")
F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of app_c.toml
lr = F["lemmaC1.lr"]


LR_L = r"p\mathrm{e}^{-\frac{1}{2}(x-\mu)^{2}+\frac{1}{2}x^{2}}+1-p"


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


P.load(__file__)  # the claims declared in app_c.toml (after the checks they name)
