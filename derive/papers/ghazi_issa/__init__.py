"""Ghazi, Issa, "Total Variation Meets Differential Privacy", seed 003 - in the
paper's order: Sections II-III with App. F, Sections IV-V with Apps. G-H,
Section VI with Apps. I-K, Section VII with Apps. L-M.

Each section module registers the formulas declared in the claim file beside it (``sec2_3.toml`` ...: the
format users write, with [formulas] tables), defines its irreducible checks, then loads that file's claims;
``domains.toml`` holds the stated parameter ranges and ``errata.toml`` the grouping of failing claims.
"""
from . import sec2_3, sec4_5, sec6, sec7  # noqa: F401
from ._paper import P

P.load(__file__, "domains.toml")   # stated ranges (issue 10; last)

#: the reproduced figures: modules with ``build(outdir, progress) -> {"figures", "tables", "findings"}``,
#: imported by the report only when it draws them (importing the paper imports no plotting)
FIGURES = ("derive.papers.ghazi_issa.figures",)
