"""The exists kind: some point of the domain satisfies a relation (a witness)."""
from __future__ import annotations

from ..checkers import Domain
from ..core import Verdict
from .inequality import Inequality, check_inequality


# ----------------------------------------------------------------------------- existence
_NEGATION = {"<=": ">", "<": ">=", ">=": "<", ">": "<="}


def check_exists(lhs, op: str, rhs, dom: Domain) -> Verdict:
    """Some point of the domain satisfies ``lhs op rhs``: the universal claim of the negated relation
    is checked (``check_inequality``); its certified counterexample is the witness (the claim holds,
    the witness enclosed in ball arithmetic), its proof is a refutation (the claim fails), and when it
    merely holds numerically no witness was found (inconclusive: absence of a witness is not shown)."""
    if op not in _NEGATION:
        raise ValueError(f"op={op!r} is not one of <, <=, >, >=")
    neg = check_inequality(lhs, _NEGATION[op], rhs, dom)
    if neg.status == "fails":
        ce = neg.counterexample or {}
        cert = neg.certificate or {}
        return Verdict("proved", f"a witness: {neg.method}", points=neg.points, precision=neg.precision,
                       note=(f"witness {ce.get('params')}: lhs = {ce.get('lhs')}, rhs = {ce.get('rhs')}"
                             + (f" (enclosed: {cert.get('method')})" if cert.get("method") else "")))
    if neg.status == "proved":
        return Verdict("fails", f"the negation lhs {_NEGATION[op]} rhs is proved: {neg.method}",
                       counterexample={"relation": f"lhs {op} rhs holds at no point of the domain",
                                       "domain": dom.describe()},
                       certificate={"method": f"symbolic: {neg.method}", "violation": "no witness exists",
                                    "budget": "exact", "budget_rule": "a proof of the negation on the whole domain"})
    if neg.status == "holds_numerically":
        return Verdict("inconclusive", f"witness search: {neg.method}",
                       note=f"no witness of lhs {op} rhs in {neg.points} evaluations (none may exist)")
    return Verdict("inconclusive", neg.method, note=neg.note)


class Exists(Inequality):
    """An inequality's fields and reading; checked for a witness rather than everywhere."""
    name = "exists"
    doc = ("some point of the domain satisfies lhs op rhs (a witness): the negated relation is checked as an "
           "inequality; its counterexample, enclosed in ball arithmetic, is the witness (`proved`); a proof of "
           "the negation is a refutation (`fails`); no witness found is `inconclusive`")
    example = {"latex": r"\log x > 1"}
    expect = "proved"

    def printed(self, s):
        return f"\\exists: {super().printed(s)}"

    def statement(self, s):
        return f"some point of the domain has lhs {s['op']} rhs"

    def infinite(self, kw):
        return None            # a witness claim has no reading of an infinite side

    def check(self, dom, **kw):
        return check_exists(kw["lhs"], kw["op"], kw["rhs"], dom)
