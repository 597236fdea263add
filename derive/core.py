"""The two core types, ``Formula`` and ``Claim``, and the ``Verdict`` a claim's
check returns.  See ARCHITECTURE.md ("The two core types").
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import sympy as sp

from . import budget
from .errors import DomainError  # noqa: F401  (re-exported: derive.core.DomainError)
from .printing import latex
from .records import assemble_record
from .symbols import Param

ROLES = ("definition", "identity", "equality", "lower_bound", "upper_bound", "approximation")
VERDICTS = ("proved", "holds_numerically", "fails", "artifact", "inconclusive")
# "artifact": the printed form fails, but it is a transcription artifact of one dump (or a slip of one
# version): another version of the same paper prints the statement correctly (``Claim.artifact`` says
# where).  An artifact is not an erratum of the paper.

from .sources import SEED_CITES  # noqa: E402,F401  (source file -> how an author cites it)


def cite_location(location: str) -> str:
    """'(25)' -> 'eq. (25)', '(104)-(105)' -> 'eqs. (104)-(105)'; 'Thm. 6', 'App. G' unchanged."""
    import re
    loc = location.strip()
    if re.fullmatch(r"\([0-9A-Z.]+\)", loc):
        return f"eq. {loc}"
    if re.fullmatch(r"\([0-9A-Z.]+\)\s*[-,]\s*\([0-9A-Z.]+\)", loc):
        return f"eqs. {loc}"
    return loc


@dataclass(frozen=True)
class Source:
    """Where a formula or claim comes from: seed file and location as printed."""

    seed: str
    location: str  # "(20)", "Thm. 4", "App. C"
    section: str = ""

    def cite(self) -> str:
        s = f"{self.seed} {self.location}"
        return f"{s}, {self.section}" if self.section else s

    def cite_paper(self) -> str:
        """The citation an author expects: 'Asoodeh et al. 2021, eq. (25)'."""
        return f"{SEED_CITES.get(self.seed, self.seed)}, {cite_location(self.location)}"


@dataclass(frozen=True)
class Formula:
    """One formula of a paper, defined once and immutable (a frozen dataclass: a paper
    module declares it whole; nothing patches it after registration).

    ``printed`` is the expression as the paper prints it (parsed from
    ``printed_latex``, the verbatim LaTeX of the seed, or from ``parse_fragment``, the
    verbatim part of it that is the expression, followed by ``continuation``, the display's
    further lines as the seed prints them, when the expression runs over several); ``expr`` is the same expression with the
    paper's named sub-definitions (e.g. zeta_alpha) expanded, which is what is computed
    with.  ``encoding`` is "parsed" or "hand" (the parser could not cope; ``encoding_note``
    says why).
    """

    name: str
    paper: str
    source: Source
    role: str
    quantity: str
    params: tuple[Param, ...]
    printed_latex: str
    printed: sp.Expr
    expr: sp.Expr
    lhs_latex: str = ""
    conditions: tuple = ()
    encoding: str = "parsed"
    encoding_note: str = ""
    description: str = ""
    parse_fragment: str | None = None
    continuation: tuple[str, ...] = ()     # further lines of the display, verbatim, parsed after it

    def __post_init__(self):
        if self.role not in ROLES:
            raise ValueError(f"role={self.role!r} is not one of {ROLES}")

    @property
    def symbols(self) -> tuple[sp.Symbol, ...]:
        return tuple(p.symbol for p in self.params)

    def derived_latex(self) -> str:
        return latex(self.expr)

    def _repr_latex_(self) -> str:
        lhs = f"{self.lhs_latex} = " if self.lhs_latex else ""
        return f"$\\displaystyle {lhs}{latex(self.expr)}$"

    def check_domain(self, **values) -> None:
        for prm in self.params:
            if prm.name in values:
                v = values[prm.name]
                if v != v or not prm.contains(v):
                    raise DomainError(prm.name, v, str(prm.domain))


@dataclass
class Verdict:
    status: str
    method: str
    points: int | None = None
    worst_error: float | None = None
    precision: int | None = None  # decimal digits
    counterexample: dict | None = None
    derived: Any = None  # a SymPy expression: the corrected/true formula, when derivable
    note: str = ""
    seconds: float = 0.0
    # how a failure is known to be one (derive.certify): the enclosure of the violation in ball
    # arithmetic (method, precision, the balls) or, where the truth has no enclosure, the error
    # budget it states for itself; None for verdicts other than "fails"
    certificate: dict | None = None

    def __post_init__(self):
        if self.status not in VERDICTS:
            raise ValueError(f"status={self.status!r} is not one of {VERDICTS}")

    def _repr_html_(self) -> str:
        return _html_table([("verdict", self.summary())] + _verdict_rows(self))

    def summary(self) -> str:
        if self.status == "proved":
            return f"proved ({self.method})"
        if self.status == "holds_numerically":
            how = (f"at {self.precision} digits" if self.precision is not None
                   else "in exact arithmetic")
            err = f"{self.worst_error:.1e}" if self.worst_error is not None else "not recorded"
            return (f"holds numerically at {self.points} points, worst error "
                    f"{err} {how} ({self.method})")
        if self.status == "fails":
            return f"FAILS ({self.method})"
        if self.status == "artifact":
            return f"transcription artifact: the printed form fails ({self.method}), another version is right"
        return f"inconclusive: {self.note}"


@dataclass
class Claim:
    """One checkable statement of a paper or of one of its proofs.

    ``check_fn`` computes the truth independently (sympy.diff of the defined
    function, a numeric optimum, quadrature, ...) and compares it with what the
    paper states; it returns a ``Verdict``.
    """

    id: str
    paper: str
    source: Source
    kind: str
    statement: str
    printed_latex: str
    check_fn: Callable[[], Verdict]
    formulas: tuple[str, ...] = ()
    note: str = ""
    checker: str = "custom"    # the generic kind of derive.checkers that checks it, or "custom"
    why_custom: str = ""       # a custom check: why no generic kind carries the claim (in the record)
    definition: str = ""       # canonical text of a declared claim (claim files): what its verdict depends on
    spec: tuple | None = field(default=None, repr=False)   # (kind, Domain, fields) of a generic claim
    # a transcription artifact: {"version": "Asoodeh et al. 2020 (ISIT), eq. (10)", "seed": <other seed file>,
    # "printed": <verbatim LaTeX fragment of the other seed, the correct form>, "claim": <id of the claim
    # checking that version, or "">, "why": <one line>}.  When the check fails the verdict is "artifact".
    artifact: dict | None = None
    #: a step of the proof of that claim (its id): a failing step whose result still checks is an
    #: erratum of the proof, not of the result (dpderive.errata's severity model)
    step_of: str = ""
    #: the check's wall-time budget in seconds (None: ``derive.budget.wall_seconds``'s default)
    budget_seconds: float | None = None
    _verdict: Verdict | None = field(default=None, repr=False)

    def check(self, refresh: bool = False) -> Verdict:
        if self._verdict is None or refresh:
            # SymPy's cache may return an equal object of another form (1 for 1.0) computed by an
            # earlier claim in this process: start every check from an empty cache, so that a verdict's
            # text does not depend on what ran before it (cold vs warm, serial vs workers)
            from sympy.core.cache import clear_cache
            clear_cache()
            t0 = time.perf_counter()
            seconds = budget.wall_seconds(self.budget_seconds)
            with budget.collect() as skips:
                try:
                    with budget.wall(seconds):
                        v = self.check_fn()
                except budget.WallBudgetExceeded:
                    v = Verdict("inconclusive", "budget", note=(
                        f"stopped at its wall-time budget of {seconds:g} s before it reached a verdict; "
                        "raise it with budget_seconds in the claim file, or $DPDERIVE_CLAIM_BUDGET"))
                except Exception as exc:  # a check that crashes is reported, not hidden
                    from .errors import plain_reason
                    v = Verdict("inconclusive", "error", note=f"the check could not be completed: "
                                f"{plain_reason(exc)}")
            v.seconds = time.perf_counter() - t0
            if skips and v.status != "proved":   # the SymPy budget sent it to the numeric path
                v.method = f"{v.method}; {budget.method_note(skips)}" if v.method else budget.method_note(skips)
            if v.status == "fails" and self.artifact:
                v.status = "artifact"
            self._verdict = v
        return self._verdict

    @property
    def location(self) -> str:
        return self.source.location

    def _repr_html_(self) -> str:
        v = self.check()
        rows = [("claim", self.id), ("where", self.source.cite()), ("kind", self.kind),
                ("statement", self.statement), ("as printed", f"\\({self.printed_latex}\\)"),
                ("verdict", v.summary())] + _verdict_rows(v)
        return _html_table(rows)

    def record(self) -> dict:
        """The JSON record of ``dpderive check --json``."""
        return assemble_record(self.static_record(), verdict_view(self.check()))

    def static_record(self) -> dict:
        """The record's fields that do not depend on the verdict (those are None here; the note
        is the claim's own): with ``verdict_view`` of its verdict, ``assemble_record`` gives
        ``record()`` (what the on-disk registry index of dpderive keeps, dpderive/index.py)."""
        rec = {
            "id": self.id,
            "paper": self.source.seed,
            "paper_key": self.paper,
            "citation": self.source.cite_paper(),
            "location": self.source.location,
            "section": self.source.section,
            "kind": self.kind,
            "checker": self.checker,
            "statement": self.statement,
            "verdict": None,
            "method": None,
            "printed_latex": self.printed_latex,
            "derived_latex": None,
            "counterexample": None,
            "points": None,
            "worst_error": None,
            "precision": None,
            "note": self.note,
            "certificate": None,
            "formulas": list(self.formulas),
        }
        if self.checker == "custom":
            rec["why_custom"] = self.why_custom
        if self.artifact:
            rec["artifact"] = dict(self.artifact)
        if self.step_of:
            rec["step_of"] = self.step_of
        return rec


_EXACT_METHODS = ("SymPy", "sympy", "exact rational", "textual", "cross-reference", "headers of",
                  "free symbols", "enumeration", "symbol check", "Table 2 entries", "fixed point and area")


def certificate_of(v: Verdict) -> dict | None:
    """A failing verdict's certificate: its own (the generic checkers enclose the violation in balls
    or state the truth's error budget), else what a custom check's evidence is, named from its
    method: exact (SymPy, rational arithmetic, the paper's text) or numeric at its working precision,
    or a sequence (limits and asymptotics: no finite enclosure).  None unless the verdict fails."""
    if v.status not in ("fails", "artifact"):
        return None
    if v.certificate:
        return v.certificate
    m = (v.method or "").split("; SymPy budget:")[0]   # the budget note (derive.budget) is no evidence
    if "along" in m or "sequence" in m or "limit" in m.lower() and "SymPy" not in m:
        return {"method": "sequence evidence (a limit or an order is not enclosed at finitely many points)",
                "budget_rule": "the scaled values keep growing (or converge elsewhere) at every precision tried"}
    if any(k in m for k in _EXACT_METHODS):
        return {"method": "exact: " + m}
    digits = f"{v.precision} digits" if v.precision else "its working precision"
    return {"method": f"mpmath at {digits} (a custom check: no ball enclosure)",
            "budget_rule": "the violation exceeds the check's stated tolerance"}


def verdict_view(v: Verdict) -> dict:
    """What a claim's record and ``dpderive show`` print of its verdict, in plain Python values
    (no SymPy object: the derived form is typeset)."""
    return {"verdict": v.status, "method": v.method,
            "derived_latex": latex(v.derived) if v.derived is not None else None,
            "counterexample": v.counterexample, "points": v.points, "worst_error": v.worst_error,
            "precision": v.precision, "verdict_note": v.note, "certificate": certificate_of(v),
            "summary": v.summary(),
            **({"steps": [{"what": w, "latex": t} for w, t in v.steps]} if getattr(v, "steps", None) else {})}


def _verdict_rows(v: Verdict) -> list[tuple[str, str]]:
    rows = []
    if v.counterexample:
        rows += [(f"counterexample: {k}", str(val)) for k, val in v.counterexample.items()]
    if v.derived is not None:
        rows.append(("derived", f"\\({latex(v.derived)}\\)"))
    if v.note:
        rows.append(("note", v.note))
    return rows


def _html_table(rows) -> str:
    from html import escape
    body = "".join(f"<tr><th style='text-align:left'>{escape(str(k))}</th><td style='text-align:left'>"
                   f"{escape(str(val))}</td></tr>" for k, val in rows)
    return f"<table>{body}</table>"
