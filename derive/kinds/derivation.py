"""The derivation kind: a claim that states no answer; dpderive derives it (``derive.derivation``)."""
from __future__ import annotations

import random

from ..checkers import Domain, _domain_ok
from ..core import Verdict
from .base import MAX_ORDER, Kind, count


def _draws(dom: Domain, n: int = 4, seed: int = 1) -> list[dict]:
    """Points of the claim's domain (its conditions included) for the derivation's numerical check."""
    rng = random.Random(seed)
    out = []
    for _ in range(200 * n):
        pt = {v.name: v.value(rng.uniform(-0.8, 0.8)) for v in dom.vars}
        if all(v.contains(pt[v.name]) for v in dom.vars) and _domain_ok(dom, pt):
            out.append(pt)
            if len(out) == n:
                break
    return out


def check_derivation(f, dom: Domain, wrt=None, order: int = 1, limit=None, series=None) -> Verdict:
    """Derive ``f`` as asked (closed forms of the library quantities it names, then the derivative,
    limit or series) and check the result numerically at points of the claim's domain.  A confirmed
    derivation holds numerically, its result in ``derived`` and its steps in ``steps``; a derivation
    that cannot be made, or whose check disagrees (a wrong step of the derivation, not of the paper),
    is inconclusive, never a failure of the paper."""
    from ..derivation import DerivationError, derive_expr
    try:
        d = derive_expr(f, wrt=None if wrt is None else str(wrt), order=order, limit=limit, series=series,
                        draws=_draws(dom))
    except DerivationError as exc:
        return Verdict("inconclusive", "derivation", note=f"not derived: {exc}")
    c = d.check
    steps = [(s.what, s.latex()) for s in d.steps[1:]]
    method = f"derived in {len(steps)} step{'s' if len(steps) != 1 else ''}; checked {c.get('method', '')}"
    if c.get("status") == "confirmed":
        v = Verdict("holds_numerically", method, points=len(_draws(dom)), worst_error=float(c.get("worst") or 0),
                    precision=30, derived=d.result)
    else:
        v = Verdict("inconclusive", method, derived=d.result,
                    note=("the derived form disagrees with the independent computation at "
                          f"{c.get('point')}: a step of the derivation is wrong, not the paper"
                          if c.get("status") == "fails" else c.get("method", "not checked")))
    v.steps = steps
    return v


class Derivation(Kind):
    name = "derivation"
    required = ("of",)
    optional = ("wrt", "order", "limit", "series")
    doc = ("no answer is stated: dpderive derives `of` (closed forms of the library quantities it names: "
           "`Renyi` and `KL` of the `Gaussian` and `Laplace` pairs from their densities, the series in q of "
           "`LossCumulant` of `SubsampledGaussian`; then the derivative in `wrt`, the limit `limit = \"x=a\"` or "
           "the series `series = \"x=a:n\"`), the report prints the result and its steps, and the result is "
           "checked numerically against an independent computation at points of the domain (`holds_numerically` "
           "when it agrees; `inconclusive` when it cannot be derived or checked: a derivation is never an "
           "erratum); `dpderive derive` does the same from the command line")
    example = {"of": r"\log(1 + x)", "wrt": "x"}
    expect = "holds_numerically"
    field_docs = {
        "wrt": "optional: the symbol to differentiate in",
        "order": "the order of the derivative, an integer >= 1 (default 1)",
        "limit": "optional: `\"x=a\"` (`x=a-` from below, `x=oo`): the limit to take",
        "series": "optional: `\"x=a:n\"`: the series in x at a, to order n (the O-term dropped)",
    }

    def read(self, r):
        from ..derivation import DerivationError, parse_point
        s = r.spec
        kw = {"f": r.parse("of"), "order": count(s.get("order", 1), r.error(
            f"order={s.get('order')!r} must be an integer in [1, {MAX_ORDER}]", "order"), MAX_ORDER)}
        if "wrt" in s:
            kw["wrt"] = r.symbol("wrt")
        for field, with_order in (("limit", False), ("series", True)):
            if field in s:
                if not isinstance(s[field], str):
                    example = '"alpha=1:3"' if with_order else '"alpha=1"'
                    raise r.error(f"{field}={s[field]!r} must be a string such as {example}", field)
                try:
                    kw[field] = parse_point(field, s[field], with_order)
                except DerivationError as exc:
                    raise r.error(str(exc), field) from None
        if "limit" in kw and "series" in kw:
            raise r.error("limit and series: give one of them", "series")
        return kw

    def printed(self, s):
        import sympy as sp

        def tex(name):               # alpha -> \alpha, as the paper's symbols are printed
            return sp.latex(sp.Symbol(name.strip()))
        what = s["of"]
        if "wrt" in s:
            what = f"\\frac{{d}}{{d{tex(s['wrt'])}}} \\left({what}\\right)"
        if "limit" in s:
            x, _, a = s["limit"].partition("=")
            what = f"\\lim_{{{tex(x)} \\to {a}}} {what}"
        if "series" in s:
            what = f"{what} \\text{{ (series in {s['series']})}}"
        return f"{what} = \\;?"

    def statement(self, s):
        return "derived on request"

    def check(self, dom, **kw):
        return check_derivation(kw["f"], dom, kw.get("wrt"), kw.get("order", 1), kw.get("limit"), kw.get("series"))
