"""Ghazi, Issa, "Total Variation Meets Differential Privacy", seed 003 - in the
paper's order: Sections II-III with App. F, Sections IV-V with Apps. G-H,
Section VI with Apps. I-K, Section VII with Apps. L-M.

Each section module registers the paper's formulas (parsed from the seed) and its custom checks, then
loads the claim file beside it (``sec2_3.toml`` ...: the generic claims, in the format users write);
``domains.toml`` holds the stated parameter ranges and ``errata.toml`` the grouping of failing claims.
"""
from . import sec2_3, sec4_5, sec6, sec7  # noqa: F401
from ._paper import P

P.load(__file__, "domains.toml")   # stated ranges (issue 10; last)
