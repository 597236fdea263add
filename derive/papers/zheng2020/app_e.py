"""Zheng et al. (seed 004), Appendix E: noisy SGD with sampling rate p = 0.5/sqrt(n)."""
from __future__ import annotations


from ...core import Verdict
from ._paper import P, n

SE = "App. E"
F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of app_e.toml


@P.custom("appE.figref", "App. E", "reference", "the comparison is in Figures E.1 and E.2",
          latex="See Figure E.2 and E.2 for the comparison.", section=SE,
          why_custom='a cross-reference in the text, not a mathematical statement')
def _figref_check():
    return Verdict("fails", "cross-reference in the text",
                   counterexample={"printed": "See Figure E.2 and E.2", "figures in App. E": ["E.1", "E.2"]},
                   note="presumably 'Figures E.1 and E.2'")

P.load(__file__)  # the generic claims: app_e.toml
