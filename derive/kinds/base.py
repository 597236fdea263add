"""What a claim kind is: one class holding everything about it.

A kind names its fields (required and optional) and what each means, says what it checks and how
(the reference page's paragraph, with a minimal example and the verdict it gets), reads its
fields from a claim file into the checker's SymPy inputs, checks them, and prints the claim and a
default statement.  Subclassing ``Kind`` with a ``name`` registers the kind in ``KINDS``: the
claim-file loader (``derive.claimfile``), the reference page (``docs/claim-files.md``), the
built-in papers' generic claims (``derive.paperkit``) and the dispatcher (``derive.kinds.check``)
all read that table, so adding a kind is writing one class.
"""
from __future__ import annotations

from typing import Any, ClassVar, Protocol

import mpmath as mp
import sympy as sp

from ..checkers import CONFIRM_DPS, SEARCH_DPS, Domain, _params, _search, mp_function
from ..core import Verdict
from ..search import shrink

#: every kind by name, in the order the reference page lists them (filled by subclassing Kind)
KINDS: dict[str, "Kind"] = {}

#: the caps of a claim's counts: every check runs in bounded time and memory
MAX_DRAWS, MAX_TOL_DIGITS, MAX_ORDER, MAX_AT = 10_000, 200, 8, 50

#: the comparison operators a claim file may write, and how the report prints them
OPS = {r"\le": "<=", r"\leq": "<=", r"\ge": ">=", r"\geq": ">=", "<": "<", ">": ">", "<=": "<=",
       ">=": ">="}
OP_LATEX = {"<=": r"\le", "<": "<", ">=": r"\ge", ">": ">"}

#: what a field means in every kind that takes it (a kind's ``field_docs`` override these)
SHARED_FIELD_DOCS = {
    "lhs": "LaTeX (or `@formula`): the left side",
    "rhs": "LaTeX (or `@formula`): the right side",
    "op": "`<=`, `<`, `>=` or `>` (`\\le`, `\\ge` also read)",
    "of": "LaTeX (or `@formula`): the expression the claim is about; may use `[quantities]` names",
    "var": "the symbol that tends to `to`",
    "to": "a number, `oo` or `-oo`: a point or an end of the domain of `var`",
}


class FieldReader(Protocol):
    """What a kind reads a claim's fields through (``derive.claimfile`` provides it): the raw
    ``spec``, each expression field parsed, a declared symbol by its field, its declared interval,
    and an error naming the file, the line (of ``field`` when given) and the claim."""
    spec: dict

    def parse(self, field: str) -> sp.Expr: ...

    def symbol(self, field: str) -> sp.Symbol: ...

    def interval(self, symbol: sp.Symbol) -> sp.Interval: ...

    def error(self, problem: str, field: str | None = None) -> Exception: ...


class Kind:
    """One kind of claim; subclass with a ``name`` to add one (see the module docstring).

    ``relation``: the claim may be written as one relation in ``latex`` instead of lhs, op, rhs:
    ``"="`` (an equality), ``"<"`` (an inequality, any of <, <=, >, >=) or ``"any"``.
    ``about_variable``: the claim is about the symbol in its field ``x`` (derivative, shape, limit,
    asymptotic): no other symbol's domain may move with it.  ``differentiates``: the checker
    differentiates in ``x`` first, so a dependent domain's substitution goes to it (``subs``)
    rather than into the fields.  ``keeps_ends``: the variable keeps its own domain's ends as
    conditions (a sequence toward a point is explicit)."""
    name: ClassVar[str] = ""
    required: ClassVar[tuple[str, ...]] = ()
    optional: ClassVar[tuple[str, ...]] = ()
    relation: ClassVar[str | None] = None
    about_variable: ClassVar[bool] = False
    differentiates: ClassVar[bool] = False
    keeps_ends: ClassVar[bool] = False
    #: what is checked and how (the reference page's paragraph), a minimal example, its verdict
    doc: ClassVar[str] = ""
    example: ClassVar[dict] = {}
    expect: ClassVar[str] = ""
    #: what a field means in this kind (else ``SHARED_FIELD_DOCS``)
    field_docs: ClassVar[dict] = {}

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.name:
            KINDS[cls.name] = cls()

    # ------------------------------------------------------------------ the claim file
    def field_doc(self, field: str) -> str:
        return self.field_docs.get(field) or SHARED_FIELD_DOCS.get(field, "")

    def read(self, r: FieldReader) -> dict[str, Any]:
        """The checker's keywords from the claim's fields (raise ``r.error(...)`` on a bad one)."""
        raise NotImplementedError

    def printed(self, s: dict) -> str:
        """The claim as the report prints it, from its fields as written."""
        raise NotImplementedError

    def statement(self, s: dict) -> str:
        """The default statement of a claim of this kind (when the file gives none)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ checking
    def check(self, dom: Domain, **kw) -> Verdict:
        raise NotImplementedError

    def infinite(self, kw: dict):
        """A claim whose side is a literal infinity: (what must equal it, +1/-1), a Verdict, or None
        (no side is infinite, or the kind has no such reading)."""
        return None


# ----------------------------------------------------------------------------- field readers
def count(v, err: Exception, most: int | None = None) -> int:
    """``v`` if it is an integer in [1, ``most``], else raise ``err``."""
    if isinstance(v, bool) or not isinstance(v, int) or v < 1 or (most is not None and v > most):
        raise err
    return v


def number(v, err: Exception):
    """A number, ``oo`` or ``-oo`` (in any of their spellings) as SymPy, else raise ``err``."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return sp.nsimplify(v)
    s = str(v).strip()
    table = {"oo": sp.oo, "+oo": sp.oo, "inf": sp.oo, "infty": sp.oo, "\\infty": sp.oo,
             "-oo": -sp.oo, "-inf": -sp.oo, "-\\infty": -sp.oo}
    if s in table:
        return table[s]
    try:
        x = sp.sympify(s)
    except (sp.SympifyError, SyntaxError, TypeError):
        raise err from None
    if not x.is_number:
        raise err
    return x


def op_latex(op) -> str:
    """A claim file's operator as the report prints it."""
    return OP_LATEX.get(OPS.get(str(op).strip(), op), op)


def read_op(r: FieldReader, allowed: dict, choices: str) -> str:
    op = allowed.get(str(r.spec["op"]).strip())
    if op is None:
        raise r.error(f"op={r.spec['op']!r} is not one of {choices}")
    return op


# ----------------------------------------------------------------------------- infinite sides
def is_inf(e) -> int:
    """+1 / -1 when ``e`` is the claimed value +oo / -oo (a literal \\infty), else 0."""
    e = sp.sympify(e)
    return 1 if e is sp.oo else (-1 if e is sp.S.NegativeInfinity else 0)


def check_infinite(expr, sign: int, dom: Domain) -> Verdict:
    """``expr`` equals +oo (``sign`` 1) or -oo everywhere on the domain: an adversarial search for a
    point where it is a finite real number (a counterexample, enclosed in ball arithmetic where the
    expression has an enclosure); holds when every point tried gives the infinity."""
    f = mp_function(expr, dom, extended=True)
    target = mp.inf if sign > 0 else -mp.inf

    def viol(pt):
        v = f(pt)
        if v is None:
            return None
        return mp.mpf(0) if v == target else mp.mpf(1)
    res = _search(viol, dom, stop_at=mp.mpf(1) / 2)
    what = "oo" if sign > 0 else "-oo"
    method = (f"adversarial search for a point where the side claimed to be {what} is a finite number "
              f"({res.evaluations} point{'s' if res.evaluations != 1 else ''} at {SEARCH_DPS} digits)")
    if res.point is None:
        return Verdict("inconclusive", method, note=f"the side claimed {what} could not be evaluated on the domain")
    if res.violation is None or res.violation <= 0:
        return Verdict("holds_numerically", method, points=res.evaluations, worst_error=0.0, precision=SEARCH_DPS)

    def bad(p):
        with mp.workdps(CONFIRM_DPS):
            x = f(p)
        return x is not None and x != target
    pt = shrink(res.point, dom.vars, bad) if bad(res.point) else res.point
    with mp.workdps(CONFIRM_DPS):
        v = f(pt)
    if v is None or v == target:
        return Verdict("inconclusive", method, note="the finite value the search found is not confirmed at 50 digits")
    from .. import certify
    cert = None
    try:
        b = certify.enclose(expr, _params(pt))
        cert = {"method": "ball arithmetic (Arb)", "point": _params(pt), "ball": certify.text(b),
                "finite": "the enclosure is a finite ball, so the value is not infinite"}
    except Exception as exc:  # noqa: BLE001 - no enclosure: the mpmath value at two precisions stands
        with mp.workdps(4 * CONFIRM_DPS):
            v2 = f(pt)
        if v2 is None or v2 == target:
            return Verdict("inconclusive", method, note="the finite value the search found is not confirmed")
        cert = {"method": f"mpmath at {CONFIRM_DPS} and {4 * CONFIRM_DPS} digits (no ball enclosure)",
                "reason": str(exc).splitlines()[0] if str(exc) else "no enclosure", "point": _params(pt)}
    ce = {"params": _params(pt), "value": mp.nstr(v, 15), "claimed": what,
          "relation": f"the side is {mp.nstr(v, 6)} here, not {what}", "precision": CONFIRM_DPS}
    return Verdict("fails", method, points=res.evaluations, precision=CONFIRM_DPS, counterexample=ce,
                   certificate=cert)
