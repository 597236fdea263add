"""Zheng et al. (seed 004), Appendix E: noisy SGD with sampling rate p = 0.5/sqrt(n)."""
from __future__ import annotations


from ...core import Verdict
from ._paper import P, n

F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of app_e.toml


def _figref_check():
    return Verdict("fails", "cross-reference in the text",
                   counterexample={"printed": "See Figure E.2 and E.2", "figures in App. E": ["E.1", "E.2"]},
                   note="presumably 'Figures E.1 and E.2'")

P.load(__file__)  # the claims declared in app_e.toml (after the checks they name)
