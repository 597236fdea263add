"""Asoodeh, Liao, Calmon, Kosut, Sankar (JSAIT 2021, seed 002; ISIT 2020, seed 000).

The modules follow the paper's order: Sections II-III, Section IV,
Appendices A-C, Appendices D-G, and the ISIT 2020 variants.
"""
from . import sec2_3, sec4, app_a_c, app_d_g, isit2020, sec5_apph  # noqa: F401
from . import domains  # noqa: F401,E402  (stated ranges, issue 10; last)
from . import library  # noqa: F401,E402  (printed = library quantity, issue 21)
