"""The fields a claim takes whatever its kind, the fields of a built-in paper's claims, the error a
claim file raises, and the reader a kind's class reads its fields through."""
from __future__ import annotations

import sympy as sp


#: names the LaTeX reads as constants, so a symbol may not take them (the error says why)
RESERVED_NAMES = {
    "e": "'e' is Euler's number in the LaTeX (e^{x}, \\mathrm{e}); a symbol cannot take that name: "
         "call it e_0, E or \\epsilon",
    "pi": "'pi' is the constant pi in the LaTeX (\\pi); a symbol cannot take that name",
}
COMMON_FIELDS = ("id", "where", "kind", "section", "statement", "note", "conditions", "domain",
                 "latex", "seed", "step_of", "budget_seconds")
#: the fields that are text, whatever the kind (a number there is refused, not printed as one)
TEXT_FIELDS = ("where", "section", "statement", "note", "seed", "step_of")
#: further fields of a built-in paper's claim file (``derive/papers/<key>/*.toml``, loaded by
#: ``ClaimFile(path, paper=key)``): the verbatim seed text, the paper's word for the claim, the
#: registered formulas it is about, which side an identity's truth is, and the order of its variables
PAPER_FIELDS = ("printed", "shown_kind", "formulas", "truth_side", "over")
#: a built-in paper's custom claim (``check`` names the function of the section module that checks it)
CUSTOM_FIELDS = ("id", "where", "kind", "section", "statement", "note", "seed", "printed", "formulas",
                 "check", "draw", "check_with", "check_args", "why_custom", "budget_seconds")

class ClaimFileError(ValueError):
    """A problem in a claim file, naming the file, the line and the item."""

    def __init__(self, path, line: int | None, item: str, problem: str):
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {item}: {problem}" if item else f"{where}: {problem}")


# ----------------------------------------------------------------------------- a claim's fields
class _Fields:
    """What a kind reads a claim's fields through (``derive.kinds.base.FieldReader``): each field
    parsed on its own line (a relation's sides on the line of ``latex``), declared symbols and
    their intervals, and errors naming the file, the line and the claim (``cf``: the ``ClaimFile``)."""

    def __init__(self, cf, spec: dict, line, item, side_line):
        self.cf, self.spec, self.line, self.item, self.side_line = cf, spec, line, item, side_line

    def parse(self, field: str):
        line = self.side_line if field in ("lhs", "rhs") else self.line
        return self.cf.parse(self.spec[field], line=line, item=self.item, what=field)

    def truth(self, field: str):
        return self.cf.truth(self.spec[field], line=self.line, item=self.item)

    def symbol(self, field: str) -> sp.Symbol:
        return self.cf._sym(self.spec[field], self.line, self.item, field)

    def interval(self, symbol: sp.Symbol) -> sp.Interval:
        return self.cf.symbols[symbol.name].interval

    def error(self, problem: str, field: str | None = None) -> Exception:
        line = self.cf.lines.field(self.line, field) if field else self.line
        return self.cf._err(line, self.item, problem)
