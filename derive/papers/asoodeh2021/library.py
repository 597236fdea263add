"""The paper's printed formulas that the numeric kernels compute are claims about library
quantities ("printed = library"): the kernels are generated from ``derive.lib``, never from
this paper, and these claims check that what the paper printed is that quantity."""
from __future__ import annotations

from ...lib import quantity
from ...symbols import ALPHA, DELTA, EPS, P as PP, RHO, SIGMA, TSTEPS
from ._paper import P
from .sec2_3 import M_LATEX, objective
from .sec4 import EQ28_LATEX, EQ29_LATEX, eq28, eq29


def _printed_is(cid, location, section, f, name, latex, params, conditions=()):
    q = quantity(name)
    P.generic(cid, location, "identity",
              f"the printed {location} is the library quantity {name} ({q.cite})",
              latex=latex, section=section, formulas=(f.name.split(".", 1)[1],), params=params,
              conditions=conditions, lhs=f.expr, rhs=q(*[prm.symbol for prm in params]))


_printed_is("lib.eq28", "(28)", "Sec. IV", eq28, "gaussian_rdp", EQ28_LATEX, (ALPHA, SIGMA))
_printed_is("lib.thm3_objective", "(20)", "Sec. III", objective, "conversion_objective", M_LATEX,
            (ALPHA, EPS, DELTA, PP), conditions=objective.conditions)
_printed_is("lib.eq29", "(29)", "Sec. IV", eq29, "ma_epsilon", EQ29_LATEX, (RHO, TSTEPS, DELTA))
