"""The sampled kind: a relation at random draws of a named sampler."""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ..checkers import (Domain, _params, mp_function)
from ..core import Verdict
from .base import MAX_DRAWS, MAX_TOL_DIGITS, OPS, Kind, count, op_latex, read_op


# ----------------------------------------------------------------------------- sampled relations
def _draw_uniform(rng, dom: Domain, pairs: dict) -> dict:
    """Every variable at ``Var.value(u)`` for u uniform on [-1, 1]: evenly over its search range
    (log-evenly over more than two decades), or over the core of its domain."""
    return {v.name: v.value(rng.uniform(-1, 1)) for v in dom.vars}


def _draw_simplex(rng, dom: Domain, pairs: dict) -> dict:
    """As ``uniform``, but each pmf of a pair uniform on the simplex (Dirichlet(1, ..., 1)): its
    softmax logits are the logs of independent Exp(1) draws."""
    pt = _draw_uniform(rng, dom, pairs)
    for expr in pairs.values():
        if all(isinstance(c, sp.Symbol) for c in expr.args):       # coordinates: both pmfs' logits
            for c in expr.args:
                if str(c) in pt:
                    pt[str(c)] = mp.log(mp.mpf(rng.expovariate(1.0)) + mp.mpf(10) ** -30)
            continue
        # coordinates u, d, s with Q's logits u + s d (a claim file's [pairs] entry)
        k = len(expr.args) // 2
        name = str(expr.args[0]).rsplit("_", 1)[0]
        lu = [mp.log(mp.mpf(rng.expovariate(1.0)) + mp.mpf(10) ** -30) for _ in range(k)]
        lv = [mp.log(mp.mpf(rng.expovariate(1.0)) + mp.mpf(10) ** -30) for _ in range(k)]
        scale = max(max(abs(b - a) for a, b in zip(lu, lv)), mp.mpf(10) ** -4)
        for i in range(k):
            pt[f"{name}_u{i + 1}"] = lu[i]
            pt[f"{name}_d{i + 1}"] = (lv[i] - lu[i]) / scale
        pt[f"{name}_s"] = scale
    return pt


#: named samplers of a ``sampled`` claim: name -> (draw(rng, dom, pairs) -> point, description)
SAMPLERS = {
    "uniform": (_draw_uniform, "each symbol uniform over its search range (log-uniform over more than two "
                               "decades); pairs' logits uniform in [-4, 4]"),
    "simplex": (_draw_simplex, "as uniform, with each pmf of a pair uniform on the simplex (Dirichlet(1))"),
}


def check_sampled(lhs, op: str, rhs, dom: Domain, *, sampler: str = "uniform", draws: int = 20,
                  seed: int = 7, tol_digits: int | None = None, pairs: dict | None = None) -> Verdict:
    """``lhs op rhs`` (op in ==, <=, <, >=, >) at ``draws`` random points of the domain drawn by the
    named ``sampler`` (``SAMPLERS``) from a fixed seed: the relation over random pairs or mechanisms
    that a search cannot afford (every value a quadrature or an optimisation).  "==" holds within a
    relative error of 10^-tol_digits, an inequality within that slack (``derive.verify.check_draws``);
    a failure carries the draw and both sides."""
    from ..verify import check_draws
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler={sampler!r} is not one of {', '.join(SAMPLERS)}")
    if op not in ("==", "<=", "<", ">=", ">"):
        raise ValueError(f"op={op!r} is not one of ==, <=, <, >=, >")
    draw_point, _ = SAMPLERS[sampler]
    pairs = pairs or {}
    fl, fr = mp_function(lhs, dom), mp_function(rhs, dom)

    def draw(rng):
        pt = draw_point(rng, dom, pairs)
        if not all(v.contains(pt[v.name]) for v in dom.vars) or not dom.where(pt):
            return None
        a, b = fl(pt), fr(pt)
        if a is None or b is None:
            return None
        return _params(pt), a, b
    method = f"{draws} draws of the '{sampler}' sampler (seed {seed})"
    return check_draws(draw, op, n=draws, seed=seed, method=method, tol_digits=tol_digits)


class Sampled(Kind):
    name = "sampled"
    required = ("lhs", "op", "rhs", "sampler")
    optional = ("draws", "random_seed", "tol_digits")
    relation = "any"
    doc = ("lhs op rhs at random draws of the domain from a named sampler and a fixed seed (a relation over "
           "random pairs or mechanisms whose every value is a quadrature or an optimisation, too costly for "
           "a search): `==` within a relative error of 10^-tol_digits, an inequality within that slack; a "
           "failure names the draw")
    example = {"latex": r"\frac{x}{1 + x} \le \log(1 + x)", "sampler": "uniform"}
    expect = "holds_numerically"
    field_docs = {
        "op": "`==` (`=`), `<=`, `<`, `>=` or `>`",
        "sampler": "the law of the draws, one of " + ", ".join(f"`{k}` ({d})" for k, (_, d) in SAMPLERS.items()),
        "draws": "how many draws (default 20)",
        "random_seed": "the random seed of the draws (default 7; the same seed gives the same points)",
        "tol_digits": "`==` holds within a relative error of 10^-tol_digits, an inequality within that slack "
                      "(default 25)",
    }
    #: the draws of a pmf pair's coordinates come from the pairs the claim uses (``pairs``)
    takes_pairs = True

    def read(self, r):
        s = r.spec
        op = read_op(r, dict(OPS, **{"=": "==", "==": "=="}), "==, <=, <, >=, >")
        if s["sampler"] not in SAMPLERS:
            raise r.error(f"sampler={s['sampler']!r} is not one of {', '.join(SAMPLERS)}", "sampler")
        return {"lhs": r.parse("lhs"), "op": op, "rhs": r.parse("rhs"), "sampler": s["sampler"],
                "draws": count(s.get("draws", 20), r.error(f"draws={s.get('draws')!r} must be an integer in "
                                                           f"[1, {MAX_DRAWS}]"), MAX_DRAWS),
                "seed": count(s.get("random_seed", 7), r.error(f"random_seed={s.get('random_seed')!r} must be an "
                                                               "integer in [1, 2^32 - 1]"), 2**32 - 1),
                "tol_digits": count(s.get("tol_digits", 25), r.error(f"tol_digits={s.get('tol_digits')!r} must be "
                                                                     f"an integer in [1, {MAX_TOL_DIGITS}]"),
                                    MAX_TOL_DIGITS)}

    def printed(self, s):
        op = {"==": "=", "=": "="}.get(str(s["op"]).strip()) or op_latex(s["op"])
        return f"{s['lhs']} {op} {s['rhs']}"

    def statement(self, s):
        return f"relation lhs {s['op']} rhs at random draws of the '{s['sampler']}' sampler"

    def check(self, dom, **kw):
        return check_sampled(kw["lhs"], kw["op"], kw["rhs"], dom, sampler=kw.get("sampler", "uniform"),
                             draws=kw.get("draws", 20), seed=kw.get("seed", 7), tol_digits=kw.get("tol_digits"),
                             pairs=kw.get("pairs"))
