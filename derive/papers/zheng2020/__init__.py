"""Zheng, Dong, Long, Su, "Sharp Composition Bounds for Gaussian Differential
Privacy via Edgeworth Expansion" (2020), seed 004 - in the paper's order.

Modules: Sections 1-2 (``sec2``), 3 (``sec3``: the Edgeworth formulas eq3_5, eq3_7,
eq3_8, eq3_9 used by the numeric side), 4 (``sec4``), 5 (``sec5``), Appendices A-E
(``app_a`` ... ``app_e``).  Independent truths live in ``_truth``; privacy-loss
cumulants in ``derive.cumulants``.

Each module registers the formulas declared in the claim file beside it (``sec2.toml`` ...: the format users
write, with [formulas] tables), defines its irreducible checks, then loads that file's claims; ``domains.toml``
holds the stated parameter ranges and ``errata.toml`` the grouping of failing claims.
"""
from . import sec2  # noqa: F401
from . import sec3  # noqa: F401
from . import sec4  # noqa: F401
from . import sec5  # noqa: F401
from . import app_a  # noqa: F401
from . import app_b  # noqa: F401
from . import app_c  # noqa: F401
from . import app_d  # noqa: F401
from . import app_e  # noqa: F401
from ._paper import P

P.load(__file__, "domains.toml")   # stated ranges (issue 10; last)

#: the reproduced figures: modules with ``build(outdir, progress) -> {"figures", "tables", "findings"}``,
#: imported by the report only when it draws them (importing the paper imports no plotting)
FIGURES = ("derive.papers.zheng2020.figures",)
