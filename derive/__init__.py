"""dpderive's symbolic side: formulas defined once, claims checked independently."""
from .core import Claim, DomainError, Formula, Source, Verdict
from .printing import latex
from .registry import claim, claims, formula, formulas, load_all, PAPERS

__all__ = ["Claim", "DomainError", "Formula", "Source", "Verdict", "latex", "claim", "claims",
           "formula", "formulas", "load_all", "PAPERS"]
