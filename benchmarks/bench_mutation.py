"""Mutation benchmark of the generic checker (issue 9, item 6).

Take the printed formulas of the seed papers (and of the example claim file) and
plant realistic typos mechanically, one per mutant:

  sign      a term's sign flipped             drop     a term of a sum dropped
  dup       a term doubled                    exponent an exponent changed (e -> e + 1)
  swap      two symbols swapped               const    a numeric constant changed (c -> c + 1)
  minmax    max <-> min

A mutant is skipped as *equivalent* when SymPy proves mutant - original = 0 (and
dropped when SymPy's own evaluation turns it into an infinity or NaN).  Every
other mutant is checked with ``derive.kinds.check_identity(original, mutant)``
(the claim "the printed formula equals its definition") and counts as *flagged*
when the verdict is ``fails``.  A mutant the checker does not flag is looked at by an
independent brute-force oracle (2,000 random points of the parameters' sampling
ranges at 50 digits, no search, no shrinking): if the oracle finds no difference
either, the mutant is reported as *equivalent on the domain* (not provable by SymPy,
e.g. Max(x, 0) with x > 0) and left out of the rate; otherwise it is a *miss*.

Claims (``--claims``): every generic claim of the registry and of the example claim file
that holds is mutated in its printed side (the bound of a ``bound`` claim, the printed side of
an ``identity``, the derivative of a ``derivative`` claim, either side of an ``inequality``),
and inequalities also get their relation reversed or made strict/non-strict.  A mutant of an
equality is false unless equivalent; a mutant of a one-sided bound may stay true, so an
unflagged one counts as missed only when the oracle (random points of the search ranges, no
search) finds a violation.

False alarms: each original is checked against an equivalent rewriting of itself
(``expand``, ``expand_log(force=True)``, ``together``; the first that differs
syntactically) with SymPy's stage switched off, so that the numeric search alone
must not report a difference.

    python3 benchmarks/bench_mutation.py [--limit N] [--out benchmarks/results_mutation.json]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import mpmath as mp
import sympy as sp
from sympy.core.function import AppliedUndef

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import derive.papers  # noqa: E402,F401  (declares the seed papers to the registry)
from derive import checkers, kinds, registry, truths  # noqa: E402
from derive.paperkit import param_var  # noqa: E402
from derive.verify import sample_points, symbolic_zero  # noqa: E402

KINDS = ("sign", "drop", "dup", "exponent", "swap", "const", "minmax")


# ----------------------------------------------------------------------------- mutations
def _subexprs(expr, pred):
    return [e for e in sp.preorder_traversal(expr) if pred(e)]


def mutate(expr, kind: str, rng: random.Random):
    """One mutant of ``expr`` of the given kind, or None when the kind does not apply."""
    if kind in ("sign", "drop", "dup"):
        adds = _subexprs(expr, lambda e: isinstance(e, sp.Add))
        if not adds:
            if kind == "sign":
                return -expr
            return None
        node = rng.choice(adds)
        terms = list(node.args)
        i = rng.randrange(len(terms))
        if kind == "sign":
            terms[i] = -terms[i]
        elif kind == "drop":
            del terms[i]
        else:
            terms.append(terms[i])
        return expr.xreplace({node: sp.Add(*terms, evaluate=False)}).doit()
    if kind == "exponent":
        pows = _subexprs(expr, lambda e: isinstance(e, sp.Pow) and e.exp not in (-1,) or isinstance(e, sp.exp))
        if not pows:
            return None
        node = rng.choice(pows)
        if isinstance(node, sp.exp):
            return expr.xreplace({node: sp.exp(node.args[0] + 1)})
        return expr.xreplace({node: sp.Pow(node.base, node.exp + 1)})
    if kind == "swap":
        syms = sorted(expr.free_symbols, key=lambda s: s.name)
        if len(syms) < 2:
            return None
        a, b = rng.sample(syms, 2)
        return expr.xreplace({a: b, b: a})
    if kind == "const":
        nums = _subexprs(expr, lambda e: isinstance(e, (sp.Integer, sp.Rational)) and e not in (1, -1, 0))
        if not nums:
            nums = _subexprs(expr, lambda e: isinstance(e, (sp.Integer, sp.Rational)) and e != 0)
        if not nums:
            return None
        node = rng.choice(nums)
        return expr.xreplace({node: node + 1})
    if kind == "minmax":
        mm = _subexprs(expr, lambda e: isinstance(e, (sp.Max, sp.Min)))
        if not mm:
            return None
        node = rng.choice(mm)
        return expr.xreplace({node: (sp.Min if isinstance(node, sp.Max) else sp.Max)(*node.args)})
    raise ValueError(kind)


# ----------------------------------------------------------------------------- corpus
def corpus():
    """(name, expr, Domain, params) for every formula that can be evaluated on its parameters."""
    registry.load_all()
    from derive.claimfile import ClaimFile
    root = Path(__file__).resolve().parent.parent
    out = []
    for f in registry.formulas():
        if f.expr.atoms(AppliedUndef) or not f.expr.free_symbols <= set(f.symbols) or not f.params:
            continue
        if f.expr.has(sp.Integral, sp.Sum, sp.Limit, sp.Derivative):
            continue
        dom = checkers.Domain([param_var(p) for p in f.params], tuple(f.conditions))
        out.append((f.name, f.expr, dom, f.params, f.conditions))
    cf = ClaimFile(root / "examples" / "rdp_facts.toml")
    for name, f in cf.formulas.items():
        dom = checkers.Domain([cf.symbols[s.name].var() for s in sorted(f.expr.free_symbols, key=lambda s: s.name)])
        out.append((f"rdp_facts.{name}", f.expr, dom, f.params, ()))
    return out


def oracle_differs(a, b, params, conditions, n: int = 2000) -> bool:
    """Brute force: do ``a`` and ``b`` differ (relative 1e-20) at one of n random points?"""
    syms = [p.symbol for p in params]
    fa = sp.lambdify(syms, a, modules="mpmath")
    fb = sp.lambdify(syms, b, modules="mpmath")
    for pt in sample_points(params, n, conditions, seed=99):
        args = [pt[p.name] for p in params]
        with mp.workdps(50):
            try:
                x, y = fa(*args), fb(*args)
            except (ZeroDivisionError, ValueError, OverflowError, TypeError):
                continue
            if isinstance(x, mp.mpc) or isinstance(y, mp.mpc) or not (mp.isfinite(x) and mp.isfinite(y)):
                continue
            if abs(x - y) > mp.mpf(10) ** -20 * max(abs(x), abs(y), mp.mpf(10) ** -30):
                return True
    return False


def rewrite(expr):
    for fn in (sp.expand, lambda e: sp.expand_log(e, force=True), sp.together, sp.factor):
        try:
            r = fn(expr)
        except Exception:  # noqa: BLE001
            continue
        if r != expr:
            return r
    return None


def numeric_identity(a, b, dom):
    """check_identity with the SymPy stage switched off (the numeric search alone)."""
    orig = checkers.symbolic_zero
    checkers.symbolic_zero = lambda e, **kw: False
    try:
        return kinds.check_identity(a, b, dom)
    finally:
        checkers.symbolic_zero = orig


def generic_claims():
    """Every generic claim that holds: built-in papers and the example claim files."""
    from derive.claimfile import ClaimFile
    registry.load_all()
    root = Path(__file__).resolve().parent.parent
    cls = [c for c in registry.claims() if c.spec is not None]
    for f in sorted((root / "examples").glob("*.toml")):
        cls += ClaimFile(f).claims
    return [c for c in cls if c.check().status in ("proved", "holds_numerically")]


def claim_mutants(c, rng):
    """(kind label, mutated spec fields) for one claim."""
    kind, dom, kw = c.spec
    out = []
    if kind == "identity":
        side = "rhs" if kw.get("truth_side") != "rhs" else "lhs"
        targets = [side]
    elif kind == "bound":
        targets = ["bound"]
    elif kind == "derivative":
        targets = ["g"]
    elif kind == "inequality":
        targets = ["lhs", "rhs"]
        flip = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}
        strict = {"<=": "<", "<": "<=", ">=": ">", ">": ">="}
        out.append(("reverse", dict(kw, op=flip[kw["op"]])))
        out.append(("strict", dict(kw, op=strict[kw["op"]])))
    else:
        return out
    for t in targets:
        for mk in KINDS:
            try:
                m = mutate(sp.sympify(kw[t]), mk, rng)
            except Exception:  # noqa: BLE001
                m = None
            if m is None or m == kw[t] or m.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
                continue
            if symbolic_zero(sp.sympify(m) - kw[t]):
                out.append((mk, None))
                continue
            out.append((mk, dict(kw, **{t: m})))
    return out


#: the two sides an oracle compares
SIDES = {"inequality": ("lhs", "rhs"), "bound": ("bound", "truth")}


def _conventional(b, kw):
    """The printed bound read with the truth's convention (eps >= 0, delta <= 1: truths.CONVENTIONS),
    as the checker reads it: a negative upper bound on an eps that is 0 there says eps >= 0."""
    conv = truths.convention_of(sp.sympify(kw["truth"])) if kw["side"] in ("upper", "equal") else None
    if conv is not None:
        lo, hi, _ = conv
        if lo is not None and b < lo:
            b = mp.mpf(lo)
        if kw["side"] == "equal" and hi is not None and b > hi:
            b = mp.mpf(hi)
    return b


def claim_oracle_violated(kind, dom, kw, n: int = 300) -> bool:
    """Random points of the search ranges (no search): is the mutated claim violated?"""
    fn = {"identity": lambda: checkers.mp_function(kw["lhs"] - kw["rhs"], dom),
          "derivative": lambda: checkers.mp_function(sp.diff(kw["f"], kw["x"], kw.get("order", 1)) - kw["g"], dom)}
    rng = random.Random(5)
    with mp.workdps(30):
        if kind in fn:
            f = fn[kind]()
            rel = checkers.mp_function(sp.Abs(kw.get("lhs", kw.get("g", 1))) + 1, dom)
        for _ in range(n):
            pt = {v.name: v.value(rng.uniform(-1, 1)) for v in dom.vars}
            if not all(v.contains(pt[v.name]) for v in dom.vars) or not dom.where(pt):
                continue
            if kind in fn:
                d, r = f(pt), rel(pt)
                if d is not None and r is not None and abs(d) > mp.mpf(10) ** -20 * r:
                    return True
            elif kind in ("inequality", "bound"):
                a, b = (checkers.mp_function(kw[k], dom)(pt) for k in SIDES[kind])
                if a is None or b is None:
                    continue
                if kind == "inequality":
                    if not {"<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b}[kw["op"]]:
                        return True
                    continue
                b, t = _conventional(a, kw), b
                m = max(abs(b), abs(t), mp.mpf(10) ** -30)
                if {"upper": t - b, "lower": b - t, "equal": abs(b - t)}[kw["side"]] > mp.mpf(10) ** -12 * m:
                    return True
    return False


def run_claims(rng) -> dict:
    stats = defaultdict(Counter)
    misses = []
    items = generic_claims()
    t0 = time.perf_counter()
    for k, c in enumerate(items, 1):
        kind, dom, kw = c.spec
        for mk, mkw in claim_mutants(c, rng):
            st = stats[f"{kind}:{mk}"]
            st["planted"] += 1
            if mkw is None:
                st["equivalent"] += 1
                continue
            v = kinds.check(kind, dom, **mkw)
            if v.status == "fails":
                st["flagged"] += 1
            elif claim_oracle_violated(kind, dom, mkw, n=300 if kind != "bound" else 40):
                st["missed"] += 1
                misses.append({"claim": c.id, "kind": mk, "verdict": v.status,
                               "mutant": {k2: sp.sstr(v2) for k2, v2 in mkw.items() if isinstance(v2, sp.Basic)}})
            else:
                st["not_violated"] += 1
        print(f"[claims {k}/{len(items)}] {c.id} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    tot = Counter()
    for st in stats.values():
        tot.update(st)
    live = tot["flagged"] + tot["missed"]
    return {"claims": len(items), "per_kind": {k: dict(v) for k, v in sorted(stats.items())},
            "total": dict(tot, rate=tot["flagged"] / live if live else None), "misses": misses}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0, help="use only the first N formulas")
    ap.add_argument("--out", default=str(Path(__file__).with_name("results_mutation.json")))
    ap.add_argument("--claims", action="store_true", help="mutate the generic claims instead of the formulas")
    args = ap.parse_args(argv)
    rng = random.Random(20261125)
    if args.claims:
        res = run_claims(rng)
        out = Path(args.out).with_name(Path(args.out).stem + "_claims.json") if args.out.endswith(".json") else Path(args.out)
        out.write_text(json.dumps(res, indent=1, sort_keys=True, default=str) + "\n")
        print(f"{'claim kind:mutation':28s} {'planted':>8s} {'equiv':>6s} {'not viol.':>9s} {'flagged':>8s} {'missed':>7s}")
        for k2, st in res["per_kind"].items():
            print(f"{k2:28s} {st.get('planted', 0):8d} {st.get('equivalent', 0):6d} {st.get('not_violated', 0):9d} "
                  f"{st.get('flagged', 0):8d} {st.get('missed', 0):7d}")
        t = res["total"]
        print(f"total: {t.get('flagged', 0)} flagged, {t.get('missed', 0)} missed, rate {t['rate']}")
        return 0
    items = corpus()
    if args.limit:
        items = items[:args.limit]
    stats = defaultdict(Counter)
    misses, false_alarms, on_domain = [], [], []
    t0 = time.perf_counter()
    for k, (name, expr, dom, params, conds) in enumerate(items, 1):
        # false alarms on the original (an equivalent rewriting, numeric stage only)
        rw = rewrite(expr)
        if rw is not None:
            v = numeric_identity(expr, rw, dom)
            stats["original"]["checked"] += 1
            if v.status == "fails":
                false_alarms.append({"formula": name, "rewrite": sp.sstr(rw), "counterexample": v.counterexample})
                stats["original"]["false_alarm"] += 1
        for kind in KINDS:
            try:
                m = mutate(expr, kind, rng)
            except Exception:  # noqa: BLE001 - a mutation that SymPy cannot build
                m = None
            if m is None or m == expr or m.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
                continue
            st = stats[kind]
            st["planted"] += 1
            if symbolic_zero(sp.sympify(m) - expr):
                st["equivalent"] += 1
                continue
            v = kinds.check_identity(expr, m, dom)
            if v.status == "fails":
                st["flagged"] += 1
            elif not oracle_differs(expr, m, params, conds):
                st["equivalent_on_domain"] += 1
                on_domain.append({"formula": name, "kind": kind, "original": sp.sstr(expr),
                                  "mutant": sp.sstr(m)})
            else:
                st["missed"] += 1
                misses.append({"formula": name, "kind": kind, "mutant": sp.sstr(m), "verdict": v.status,
                               "note": v.note})
        print(f"[{k}/{len(items)}] {name} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    table = {}
    tot = Counter()
    for kind in KINDS:
        st = stats[kind]
        live = st["flagged"] + st["missed"]
        table[kind] = dict(st, rate=(st["flagged"] / live) if live else None)
        tot.update(st)
    live = tot["flagged"] + tot["missed"]
    result = {"formulas": len(items), "per_kind": table,
              "total": dict(tot, rate=tot["flagged"] / live if live else None),
              "originals": dict(stats["original"]), "false_alarms": false_alarms, "misses": misses,
              "equivalent_on_domain": on_domain,
              "seconds": round(time.perf_counter() - t0, 1)}
    Path(args.out).write_text(json.dumps(result, indent=1, sort_keys=True, default=str) + "\n")
    print(f"{'kind':10s} {'planted':>8s} {'equiv':>6s} {'eq.dom':>6s} {'flagged':>8s} {'missed':>7s} {'rate':>6s}")
    for kind, st in list(table.items()) + [("total", result["total"])]:
        r = st.get("rate")
        print(f"{kind:10s} {st.get('planted', 0):8d} {st.get('equivalent', 0):6d} {st.get('equivalent_on_domain', 0):6d} "
              f"{st.get('flagged', 0):8d} {st.get('missed', 0):7d} {('%.3f' % r) if r is not None else '-':>6s}")
    o = stats["original"]
    print(f"originals: {o['checked']} equivalent rewritings checked numerically, {o['false_alarm']} false alarms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
