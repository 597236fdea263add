"""False alarms and mutation detection on the corpus of correct claims (issue 19, item 10).

``benchmarks/corpus/*.toml`` holds well-known *correct* results of the DP literature as claim
files.  This script

1. checks every claim (through the verdict cache of ``dpderive check``): a ``fails`` verdict on
   one of them is a FALSE ALARM of the engine (see ``benchmarks/corpus/FALSE_ALARMS.md``);
2. mutates every claim that does not fail with the operators of ``bench_mutation.py`` (sign,
   drop, dup, exponent, swap, const, minmax on the printed side; reverse/strict for
   inequalities) and, beyond what ``bench_mutation.py --claims`` covers, for the kinds
   ``monotone``/``convex``/``concave`` (the direction flipped, the function mutated), ``limit``
   (the value mutated) and ``asymptotic`` (the approximation mutated);
3. drops mutants equivalent to the original: SymPy proves the mutated field equal to the
   original one, or the two agree (relative 1e-20) at every one of a few hundred random points of
   the claim's domain at 30 digits ("equivalent on the domain");
4. checks every other mutant with ``derive.kinds.check`` (a per-mutant timeout); an unflagged
   mutant counts as *missed* only when it is actually false: every non-equivalent mutant of an
   equality (identity, derivative, bound side=equal, limit) is false; a mutant of a one-sided
   claim (inequality, one-sided bound, monotone/convex with a mutated function, asymptotic) is
   judged by an independent oracle (random points, no search; finite differences for shapes;
   the error ratio along x -> x0 for asymptotics) and is *not violated* otherwise; a mutant
   that takes no real value anywhere on the domain (e.g. Phi^{-1}(2 - a)) is *undefined* and left
   out of the rate, like the equivalent ones;
5. reports per claim kind: claims, false alarms, share of proofs among the originals' verdicts,
   mutants (non-equivalent), flagged, missed, not violated, timeouts, detected % =
   flagged / (flagged + missed).

Results go to ``benchmarks/results_corpus.json``.  Every mutant's verdict is cached on disk
(``$DPDERIVE_CACHE/bench_corpus``, keyed by the claim's definition, the mutant and the engine's
source), so an interrupted run resumes; ``--budget-minutes`` stops early (mutants are visited
round-robin over the claims, so a partial run samples every claim) and the output says
``"complete": false``.

    python3 benchmarks/bench_corpus.py [--budget-minutes 40] [--timeout 120] [--files a.toml ...]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import signal
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import mpmath as mp
import sympy as sp
from sympy.core.function import AppliedUndef

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_mutation as bm  # noqa: E402
from derive import checkers, kinds  # noqa: E402
from derive.claimfile import ClaimFile  # noqa: E402
from derive.verify import symbolic_zero  # noqa: E402
from dpderive import execution  # noqa: E402

CORPUS = ROOT / "benchmarks" / "corpus"
EQUALITIES = {"identity", "derivative", "limit"}
#: bump when an oracle changes: cached oracle outcomes of another version are recomputed
ORACLE_VERSION = 3
_FLIP = {"increasing": "decreasing", "decreasing": "increasing", "nondecreasing": "nonincreasing",
         "nonincreasing": "nondecreasing", "convex": "concave", "concave": "convex"}


class _Timeout(Exception):
    pass


def _alarm(signum, frame):  # noqa: ARG001
    raise _Timeout()


# ----------------------------------------------------------------------------- mutants
def _field_mutants(kw: dict, field: str, rng: random.Random):
    out = []
    for mk in bm.KINDS:
        try:
            m = bm.mutate(sp.sympify(kw[field]), mk, rng)
        except Exception:  # noqa: BLE001 - a mutation SymPy cannot build
            m = None
        if m is None or m == kw[field] or m.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
            continue
        try:
            eq = symbolic_zero(sp.sympify(m) - kw[field])
        except Exception:  # noqa: BLE001
            eq = False
        out.append((f"{field}:{mk}", None if eq else dict(kw, **{field: m})))
    return out


def mutants(c, rng: random.Random):
    """(label, mutated keyword arguments or None when SymPy proves it equivalent)."""
    kind, dom, kw = c.spec
    if kind in ("identity", "bound", "derivative", "inequality"):
        return bm.claim_mutants(c, rng)
    if kind in ("monotone", "convex", "concave"):
        d = kw.get("direction", kind)
        out = [("direction", dict(kw, direction=_FLIP[d]))] if d in _FLIP else []
        return out + _field_mutants(kw, "f", rng)
    if kind == "limit":
        return _field_mutants(kw, "value", rng)
    if kind == "asymptotic":
        return _field_mutants(kw, "g", rng)
    return []


def _changed_field(kw, mkw):
    for k, v in mkw.items():
        if isinstance(v, sp.Basic) and k in kw and v != kw[k]:
            return k
    return None


def _points(dom, n, seed=7):
    rng = random.Random(seed)
    out = []
    for _ in range(20 * n):
        pt = {v.name: v.value(rng.uniform(-1.2, 1.2)) for v in dom.vars}
        if all(v.contains(pt[v.name]) for v in dom.vars):
            try:
                if not dom.where(pt):
                    continue
            except Exception:  # noqa: BLE001
                continue
            out.append(pt)
            if len(out) >= n:
                break
    return out


def equivalent_on_domain(kind, dom, kw, mkw) -> bool:
    """The mutated field agrees with the original (relative 1e-20) at random points of the
    domain (30 digits): then the mutant is the same claim."""
    f = _changed_field(kw, mkw)
    if f is None:
        return False
    a, b = sp.sympify(kw[f]), sp.sympify(mkw[f])
    heavy = a.atoms(AppliedUndef) or b.atoms(AppliedUndef)
    fa, fb = checkers.mp_function(a, dom), checkers.mp_function(b, dom)
    seen = 0
    with mp.workdps(30):
        for pt in _points(dom, 30 if heavy else 300):
            x, y = fa(pt), fb(pt)
            if x is None and y is None:
                continue
            if (x is None) != (y is None):
                return False
            seen += 1
            if abs(x - y) > mp.mpf(10) ** -20 * max(abs(x), abs(y), mp.mpf(10) ** -30):
                return False
    return seen > 0


def shape_violated(dom, kw, n=200) -> bool:
    """Finite differences at random points: is the mutated shape claim false?"""
    x = kw["x"]
    d = kw.get("direction")
    order, sign = (1, {"increasing": 1, "nondecreasing": 1, "decreasing": -1, "nonincreasing": -1}[d]) \
        if d in ("increasing", "nondecreasing", "decreasing", "nonincreasing") else (2, 1 if d == "convex" else -1)
    fd = checkers.mp_function(sp.diff(kw["f"], x, order), dom)
    with mp.workdps(30):
        for pt in _points(dom, n, seed=11):
            v = fd(pt)
            if v is not None and sign * v < -mp.mpf(10) ** -20:
                return True
    return False


def asymptotic_violated(dom, kw) -> bool:
    """(f - g)/h along x -> x0 (10^-3 ... 10^-12 from x0, or 10^3 ... 10^12 towards oo) at a few
    random values of the other variables: violated when it grows more than 100-fold."""
    f, g, h, x, x0 = kw["f"], kw["g"], kw["h"], kw["x"], kw["x0"]
    r = checkers.mp_function((f - g) / h, dom)
    with mp.workdps(60):
        for pt in _points(dom, 8, seed=13):
            vals = []
            for k in (3, 6, 9, 12):
                p = dict(pt)
                if x0 == sp.oo:
                    p[x.name] = mp.mpf(10) ** k
                else:
                    p[x.name] = mp.mpf(sp.Float(x0, 60)) + (1 if kw.get("side", "+") == "+" else -1) * mp.mpf(10) ** -k
                v = r(p)
                if v is not None:
                    vals.append(abs(v))
            if len(vals) >= 2 and vals[-1] > 100 * (vals[0] + mp.mpf(10) ** -30):
                return True
    return False


def _evaluable(dom, kw, mkw) -> bool:
    """Does the mutated field take a real value somewhere on the domain?"""
    f = _changed_field(kw, mkw)
    if f is None:
        return True
    fn = checkers.mp_function(mkw[f], dom)
    heavy = sp.sympify(mkw[f]).atoms(AppliedUndef)
    with mp.workdps(30):
        return any(fn(pt) is not None for pt in _points(dom, 20 if heavy else 200, seed=17))


def inequality_violated(dom, kw, n=300) -> bool:
    """Random points (no search): lhs op rhs violated by more than 1e-20 relative?  A strict
    relation is violated where the two sides are equal: sides that agree to 30 digits are compared
    again at 1000 (a gap of 1e-40 is no equality: a < (c e^{D_alpha})^{(alpha-1)/alpha} is strict
    on (0, 1), by a margin far below 30 digits at large alpha)."""
    fl, fr = checkers.mp_function(kw["lhs"], dom), checkers.mp_function(kw["rhs"], dom)
    tol = mp.mpf(10) ** -20
    strict = kw["op"] in ("<", ">")

    def rel(pt):
        a, b = fl(pt), fr(pt)
        if a is None or b is None:
            return None
        m = max(abs(a), abs(b), mp.mpf(10) ** -(mp.mp.dps - 2))
        return {"<=": a - b, "<": a - b, ">=": b - a, ">": b - a}[kw["op"]] / m
    with mp.workdps(30):
        for pt in _points(dom, n, seed=5):
            d = rel(pt)
            if d is None:
                continue
            if d > tol:
                return True
            if strict and d > -mp.mpf(10) ** -25:
                with mp.workdps(1000):
                    d2 = rel({k: mp.mpf(v) for k, v in pt.items()})
                if d2 is not None and d2 > -mp.mpf(10) ** -990:
                    return True
    return False


def is_false(kind, dom, kw, mkw, label) -> bool | None:
    """Is an unflagged, non-equivalent mutant actually false?  None: the mutant is nowhere
    defined on the domain (e.g. Phi^{-1} of a number outside (0, 1)): no verdict can flag it as
    violated, and it is left out of the rate."""
    if not _evaluable(dom, kw, mkw):
        return None
    if kind in EQUALITIES or (kind == "bound" and mkw.get("side") == "equal"):
        return True
    if kind == "inequality":
        return inequality_violated(dom, mkw)
    if kind in ("monotone", "convex", "concave"):
        return shape_violated(dom, mkw)
    if kind == "asymptotic":
        return asymptotic_violated(dom, mkw)
    return bm.claim_oracle_violated(kind, dom, mkw, n=300 if kind != "bound" else 40)


# ----------------------------------------------------------------------------- cache
def _engine_digest() -> str:
    return execution.files_digest(execution.engine_files())


def _key(c, label, mkw, engine) -> str:
    h = hashlib.sha256()
    mtxt = json.dumps({k: sp.srepr(v) if isinstance(v, sp.Basic) else str(v) for k, v in sorted(mkw.items())},
                      sort_keys=True)
    for part in (c.id, c.definition, label, mtxt, engine, sp.__version__, mp.__version__):
        h.update(str(part).encode() + b"\0")
    return h.hexdigest()


# ----------------------------------------------------------------------------- run
def _rates(st: dict) -> dict:
    live = st.get("flagged", 0) + st.get("missed", 0)
    row = dict(st)
    row["mutants"] = live + st.get("not_violated", 0)
    row["detected_pct"] = round(100 * st.get("flagged", 0) / live, 1) if live else None
    row["proof_share_pct"] = round(100 * st.get("verdict_proved", 0) / st["claims"], 1) if st.get("claims") else None
    return row


def merge(paths, out) -> dict:
    """Sum the counts of runs on disjoint sets of files (each run's JSON) into one result."""
    per_kind = defaultdict(Counter)
    res = {"files": [], "complete": True, "seconds": 0.0, "false_alarms": [], "misses": [],
           "timeouts_and_errors": [], "unchecked_claims": [], "merged_from": [str(p) for p in paths]}
    derived = {"mutants", "detected_pct", "proof_share_pct"}
    for p in paths:
        r = json.loads(Path(p).read_text())
        for kind, row in r["per_kind"].items():
            per_kind[kind].update({k: v for k, v in row.items() if k not in derived and isinstance(v, int)})
        for k in ("files", "false_alarms", "misses", "timeouts_and_errors", "unchecked_claims"):
            res[k] += r.get(k, [])
        res["complete"] = res["complete"] and r.get("complete", False)
        res["seconds"] += r.get("seconds", 0)
    tot = Counter()
    for st in per_kind.values():
        tot.update(st)
    res["per_kind"] = {k: _rates(v) for k, v in sorted(per_kind.items())}
    res["total"] = _rates(tot)
    Path(out).write_text(json.dumps(res, indent=1, sort_keys=True, default=str) + "\n")
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--merge", nargs="*", help="sum the JSON results of runs on disjoint files into --out")
    ap.add_argument("--files", nargs="*", help="claim files (default: benchmarks/corpus/*.toml)")
    ap.add_argument("--out", default=str(Path(__file__).with_name("results_corpus.json")))
    ap.add_argument("--timeout", type=int, default=120, help="seconds per mutant check")
    ap.add_argument("--budget-minutes", type=float, default=0, help="stop after this long (0: no limit)")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--cached-only", action="store_true",
                    help="compute nothing: report the claims and mutants whose verdicts are cached")
    args = ap.parse_args(argv)
    if args.merge:
        res = merge(args.merge, args.out)
        for kind, row in list(res["per_kind"].items()) + [("total", res["total"])]:
            print(kind, {k: row.get(k) for k in ("claims", "false_alarms", "verdict_proved", "proof_share_pct",
                                                  "mutants", "flagged", "missed", "detected_pct")})
        return 0
    files = [Path(f) for f in args.files] if args.files else sorted(CORPUS.glob("*.toml"))
    claims = []
    for f in files:
        claims += ClaimFile(f).claims
    t0 = time.perf_counter()
    unchecked = []
    if args.cached_only:
        vstore = execution.DiskCache("verdicts")
        for c in claims:
            c._verdict = vstore.get(execution.verdict_key(c))
        unchecked = [c.id for c in claims if c._verdict is None]
        claims = [c for c in claims if c._verdict is not None]
    execution.check_claims(claims, cache=not args.no_cache, progress=True, desc="corpus originals")
    store = None if args.no_cache else execution.DiskCache("bench_corpus")
    engine = _engine_digest()

    per_kind = defaultdict(Counter)
    false_alarms, misses, timeouts = [], [], []
    queues = []
    for c in claims:
        kind = c.spec[0]
        st = per_kind[kind]
        st["claims"] += 1
        v = c._verdict
        st[f"verdict_{v.status}"] += 1
        if v.status == "fails":
            st["false_alarms"] += 1
            false_alarms.append({"claim": c.id, "where": c.source.location if hasattr(c.source, "location") else "",
                                 "counterexample": v.counterexample, "method": v.method})
            continue
        rng = random.Random(hashlib.sha256(c.id.encode()).hexdigest())
        queues.append((c, mutants(c, rng)))

    # round-robin over the claims, so that a run stopped by the budget samples every claim
    order = []
    depth = max((len(q) for _, q in queues), default=0)
    for i in range(depth):
        for c, q in queues:
            if i < len(q):
                order.append((c, q[i]))
    complete = True
    signal.signal(signal.SIGALRM, _alarm)
    done = 0
    for c, (label, mkw) in order:
        if args.budget_minutes and time.perf_counter() - t0 > 60 * args.budget_minutes:
            complete = False
            break
        kind, dom, kw = c.spec
        st = per_kind[kind]
        if mkw is None:
            st["equivalent"] += 1
            continue
        key = _key(c, label, mkw, engine)
        rec = store.get(key) if store is not None else None
        if args.cached_only and rec is None:
            complete = False
            per_kind[kind]["not_run"] += 1
            continue
        if rec is None or ("verdict" not in rec and rec.get("outcome") != "equivalent_on_domain"):
            t1 = time.perf_counter()
            signal.alarm(args.timeout)
            try:
                if equivalent_on_domain(kind, dom, kw, mkw):
                    rec = {"outcome": "equivalent_on_domain"}
                else:
                    rec = {"verdict": kinds.check(kind, dom, **mkw).status}
            except _Timeout:
                rec = {"outcome": "timeout"}
            except Exception as exc:  # noqa: BLE001 - a mutant the engine cannot evaluate
                rec = {"outcome": "error", "error": f"{type(exc).__name__}: {exc}"[:300]}
            finally:
                signal.alarm(0)
            rec["seconds"] = round(time.perf_counter() - t1, 1)
            if store is not None and rec.get("outcome") != "timeout":
                store.put(key, rec)
        rec = dict(rec)
        if "verdict" in rec:
            # the verdict is cached; whether an unflagged mutant is false is decided afresh (cheap oracles)
            if rec["verdict"] == "fails":
                rec["outcome"] = "flagged"
            elif rec.get("oracle_version") == ORACLE_VERSION and "oracle" in rec:
                rec["outcome"] = rec["oracle"]
            else:
                signal.alarm(args.timeout)
                try:
                    bad = is_false(kind, dom, kw, mkw, label)
                    rec["outcome"] = {True: "missed", False: "not_violated", None: "undefined"}[bad]
                except _Timeout:
                    rec["outcome"] = "oracle_timeout"
                finally:
                    signal.alarm(0)
                if store is not None and rec["outcome"] != "oracle_timeout":
                    store.put(key, dict(rec, oracle=rec["outcome"], oracle_version=ORACLE_VERSION))
        st[rec["outcome"]] += 1
        st["mutants_planted"] += 1
        mut = {k: sp.sstr(v) for k, v in mkw.items() if isinstance(v, sp.Basic) and kw.get(k) != v}
        if rec["outcome"] == "missed":
            misses.append({"claim": c.id, "mutation": label, "verdict": rec.get("verdict"), "mutant": mut
                           or {k: str(v) for k, v in mkw.items() if k in ("op", "direction", "side")}})
        elif rec["outcome"] in ("timeout", "error", "undefined", "oracle_timeout"):
            timeouts.append({"claim": c.id, "mutation": label, "outcome": rec["outcome"],
                             "error": rec.get("error", ""), "mutant": mut})
        done += 1
        print(f"[{done}/{len(order)}] {c.id} {label}: {rec['outcome']} ({time.perf_counter() - t0:.0f} s)",
              file=sys.stderr)

    table = {}
    tot = Counter()
    for kind in sorted(per_kind):
        st = per_kind[kind]
        live = st["flagged"] + st["missed"]
        row = dict(st)
        row["mutants"] = live + st["not_violated"]
        row["detected_pct"] = round(100 * st["flagged"] / live, 1) if live else None
        row["proof_share_pct"] = round(100 * st["verdict_proved"] / st["claims"], 1) if st["claims"] else None
        table[kind] = row
        tot.update(st)
    live = tot["flagged"] + tot["missed"]
    total = dict(tot, mutants=live + tot["not_violated"],
                 detected_pct=round(100 * tot["flagged"] / live, 1) if live else None,
                 proof_share_pct=round(100 * tot["verdict_proved"] / tot["claims"], 1) if tot["claims"] else None)
    res = {"unchecked_claims": unchecked, "files": [str(f.relative_to(ROOT)) if f.is_absolute() else str(f) for f in files],
           "complete": complete, "seconds": round(time.perf_counter() - t0, 1),
           "timeout_per_mutant_s": args.timeout, "per_kind": table, "total": total,
           "false_alarms": false_alarms, "misses": misses, "timeouts_and_errors": timeouts}
    Path(args.out).write_text(json.dumps(res, indent=1, sort_keys=True, default=str) + "\n")
    hdr = ["claims", "false_alarms", "verdict_proved", "proof_share_pct", "mutants", "flagged", "missed",
           "not_violated", "equivalent", "equivalent_on_domain", "undefined", "timeout", "detected_pct"]
    print(f"{'kind':12s} " + " ".join(f"{h[:9]:>9s}" for h in hdr))
    for kind, row in list(table.items()) + [("total", total)]:
        print(f"{kind:12s} " + " ".join(f"{str(row.get(h, 0) if row.get(h) is not None else '-'):>9s}" for h in hdr))
    print(f"complete: {complete}; {len(false_alarms)} false alarms; {len(misses)} missed mutants")
    return 0


if __name__ == "__main__":
    sys.exit(main())
