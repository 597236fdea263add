"""Zheng et al. (seed 004), Appendix E: noisy SGD with sampling rate p = 0.5/sqrt(n)."""
from __future__ import annotations

import sympy as sp

from ...core import Verdict
from ._paper import P, n
from .sec5 import caption_check

SE = "App. E"
PE_LATEX = r"p=\frac{0.5}{\sqrt{n}}"
P.formula("appE.p", "App. E", PE_LATEX, parse=r"\frac{0.5}{\sqrt{n}}", role="definition", quantity="p", params=(),
          symbols={"n": n}, section=SE, description="sampling rate of Figs. E.1-E.2 (sigma = 1)")


def _pe_check():
    pp = sp.Rational(1, 2) / sp.sqrt(n)
    lim = sp.limit(pp * sp.sqrt(n), n, sp.oo)
    if lim == sp.Rational(1, 2):
        return Verdict("proved", "SymPy: p sqrt(n) = 1/2 = nu > 0 (the CLT regime of [BDLS19]) and p <= 1/2", derived=lim)
    return Verdict("fails", "SymPy limit", derived=lim)


P.claim("appE.p", "App. E", "limit", "p = 0.5/sqrt(n) is in the CLT regime p sqrt(n) -> nu > 0",
        latex=PE_LATEX, section=SE, formulas=("appE.p",), check=_pe_check)
P.claim("figE_1.caption", "Fig. E.1", "notation",
        "the caption's 0.5/n^{1/2}(G_1 + Id)^{(x)n} denotes (p G_1 + (1-p) Id)^{(x)n}, p = 0.5/n^{1/2}",
        latex=r"0.5/n^{\frac{1}{2}}(G_{1}+\text{Id})^{\otimes n}", section=SE,
        check=caption_check(sp.Rational(1, 2)))


def _figref_check():
    return Verdict("fails", "cross-reference in the text",
                   counterexample={"printed": "See Figure E.2 and E.2", "figures in App. E": ["E.1", "E.2"]},
                   note="presumably 'Figures E.1 and E.2'")


P.claim("appE.figref", "App. E", "reference", "the comparison is in Figures E.1 and E.2",
        latex="See Figure E.2 and E.2 for the comparison.", section=SE, check=_figref_check)
