"""Asoodeh, Liao, Calmon, Kosut, Sankar (JSAIT 2021, seed 002; ISIT 2020, seed 000).

The modules follow the paper's order: Sections II-III, Section IV,
Appendices A-C, Appendices D-G, and the ISIT 2020 variants.

Each module registers the formulas declared in the claim file beside it (``sec2_3.toml`` ...: the format users
write, with [formulas] tables), defines its irreducible checks, then loads that file's claims; ``domains.toml``
holds the stated parameter ranges and ``errata.toml`` the grouping of failing claims.
"""
from . import sec2_3, sec4, app_a_c, app_d_g, isit2020, sec5_apph  # noqa: F401
from . import library  # noqa: F401,E402  (printed = library quantity, issue 21)
from ._paper import P

P.load(__file__, "domains.toml")   # stated ranges (issue 10; last)

#: the reproduced figures: modules with ``build(outdir, progress) -> {"figures", "tables", "findings"}``,
#: imported by the report only when it draws them (importing the paper imports no plotting)
FIGURES = ("derive.papers.asoodeh2021.figures", "derive.papers.asoodeh2021.figures_sec5")
