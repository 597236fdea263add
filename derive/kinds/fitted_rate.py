"""The fitted_rate kind: an error of order var^-rate, fitted on a grid."""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ..checkers import (Domain, mp_function)
from ..core import Verdict
from .base import MAX_AT, Kind, number


# ----------------------------------------------------------------------------- fitted rates
def _grid(dom: Domain, skip: str, total: int = 49) -> list[dict]:
    """A product grid over the variables other than ``skip`` (about ``total`` points)."""
    import itertools
    others = [v for v in dom.vars if v.name != skip]
    if not others:
        return [{}]
    k = max(2, int(round(total ** (1 / len(others)))))
    axes = [[v.value(-1 + 2 * j / (k - 1)) for j in range(k)] for v in others]
    return [dict(zip([v.name for v in others], c)) for c in itertools.product(*axes)]


def check_fitted_rate(f, n: sp.Symbol, rate, dom: Domain, *, at=(50, 100, 200, 400), tolerance=0.2,
                      at_least: bool = False) -> Verdict:
    """``f`` (an error in ``n``) decays like n^-rate: e(n) = sup of |f| over a grid of the other
    variables at each n of ``at``; the order fitted from the last doubling, log(e_i/e_{i+1}) /
    log(n_{i+1}/n_i), must be within ``tolerance`` of ``rate`` (``at_least``: at least rate - tolerance,
    an O-bound that may be loose).  A failure carries the table of errors and the fitted order."""
    ns = [mp.mpf(x) for x in at]
    if len(ns) < 2 or any(b <= a for a, b in zip(ns, ns[1:])):
        raise ValueError(f"at={list(at)} must be at least two increasing values of {n}")
    fn = mp_function(f, dom)
    grid = _grid(dom, n.name)
    errs = []
    with mp.workdps(30):
        for nv in ns:
            vals = [fn(dict(pt, **{n.name: nv})) for pt in grid]
            vals = [abs(v) for v in vals if v is not None]
            if not vals:
                return Verdict("inconclusive", "fitted rate", note=f"no real value of the error at {n} = {nv}")
            errs.append(max(vals))
    table = {mp.nstr(nv, 6): mp.nstr(e, 5) for nv, e in zip(ns, errs)}
    method = (f"sup of |error| over {len(grid)} grid points of the other symbols at {n} = "
              f"{', '.join(mp.nstr(x, 6) for x in ns)}; order from the last step")
    if errs[-1] == 0 or errs[-2] == 0:
        ok = errs[-1] == 0
        return Verdict("holds_numerically" if ok else "fails", method, points=len(ns) * len(grid),
                       worst_error=float(errs[-1]), precision=30,
                       note="the error vanishes" if ok else "",
                       counterexample=None if ok else {"errors": table})
    last = mp.log(errs[-2] / errs[-1]) / mp.log(ns[-1] / ns[-2])
    rate = mp.mpf(sp.Float(sp.sympify(rate), 30))
    ok = last >= rate - tolerance if at_least else abs(last - rate) < tolerance
    if ok:
        return Verdict("holds_numerically", method, points=len(ns) * len(grid), worst_error=float(errs[-1]),
                       precision=30, note=f"fitted order {n}^-{mp.nstr(last, 3)}; errors {table}")
    return Verdict("fails", method, points=len(ns) * len(grid), worst_error=float(errs[-1]), precision=30,
                   counterexample={"errors": table, "fitted exponent": mp.nstr(-last, 3),
                                   "stated exponent": mp.nstr(-rate, 3),
                                   "relation": f"fitted order {'>=' if at_least else '='} stated order "
                                               f"(within {tolerance}) is violated"},
                   certificate={"method": "a fitted order at 30 digits (no ball enclosure)",
                                "violation": f"|fitted - stated| = {mp.nstr(abs(last - rate), 3)}",
                                "budget": f"{tolerance}",
                                "budget_rule": "fails only when the fitted order misses the stated one by more "
                                               "than the tolerance"})


class FittedRate(Kind):
    name = "fitted_rate"
    required = ("of", "var", "rate")
    optional = ("at", "tolerance", "at_least")
    doc = ("`of` (an error) is of order var^-rate: its sup over a grid of the other symbols is computed at "
           "each value of `at`, and the order fitted from the last step, log(e_i/e_{i+1})/log(n_{i+1}/n_i), "
           "must be within `tolerance` of `rate`; a failure carries the table of errors and the fitted "
           "order")
    example = {"of": r"\frac{1}{x^2} + \frac{1}{x^3}", "var": "x", "rate": "2"}
    expect = "holds_numerically"
    field_docs = {
        "var": "the symbol the rate is in (n)",
        "rate": "the stated order r in error = O(var^-r) (a number)",
        "at": "the values of var the error is computed at, increasing (default [50, 100, 200, 400])",
        "tolerance": "how far the fitted order may be from `rate` (default 0.2)",
        "at_least": "`true`: the fitted order need only be at least rate - tolerance (a loose O-bound); "
                    "default `false` (the stated order is sharp)",
    }

    def read(self, r):
        s = r.spec
        at = s.get("at", [50, 100, 200, 400])
        if not (isinstance(at, list) and 2 <= len(at) <= MAX_AT and all(isinstance(a, (int, float)) and
                                                               not isinstance(a, bool) for a in at)
                and all(b > a for a, b in zip(at, at[1:]))):
            raise r.error(f"at={at!r} must be 2 to {MAX_AT} increasing numbers", "at")
        tol = s.get("tolerance", 0.2)
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or tol <= 0:
            raise r.error(f"tolerance={tol!r} must be a positive number")
        x = r.symbol("var")
        iv = r.interval(x)
        bad = [a for a in at if not iv.contains(sp.nsimplify(a))]
        if bad:
            raise r.error(f"at: {bad} outside {x.name}'s domain {iv}", "at")
        return {"f": r.parse("of"), "x": x, "rate": number(s["rate"], r.error("rate must be a number")),
                "at": tuple(at), "tolerance": float(tol), "at_least": bool(s.get("at_least", False))}

    def printed(self, s):
        return f"{s['of']} = O({s['var']}^{{-{s['rate']}}})"

    def statement(self, s):
        return f"an error of order {s['var']}^-{s['rate']}"

    def check(self, dom, **kw):
        return check_fitted_rate(kw["f"], kw["x"], kw["rate"], dom, at=kw.get("at", (50, 100, 200, 400)),
                                 tolerance=kw.get("tolerance", 0.2), at_least=kw.get("at_least", False))
