"""Soundness audit of the accountant: random compositions, each accounted by the default
route (``numeric.account.epsilon``, method ``best``: the smaller certified upper bound of
rdp and pld, with PLD's certified lower bound), compared with an independent reference.

References (never the route under test):

* ``gauss``   Gaussian phases without subsampling: the composition is exactly G_mu with
              mu = sqrt(sum_i T_i Delta_i^2 / sigma_i^2) (Dong, Roth, Su 2019, Cor. 3.3);
              epsilon(delta) solved from the closed form in log space (``exact_gdp_eps``).
* ``rr``      randomized response, Poisson-subsampled or not, T-fold: the n-fold product of
              two-point laws is binomial, delta(eps) summed exactly in both directions.
* ``sgauss``, ``laplace``, ``mixed``: a finer PLD's *optimistic* end (resolution 1/3 of the
              default), a certified lower bound of the truth: the route's upper bound must
              not fall below it.

An *under-report* is a certified upper bound below the reference (relative slack 1e-9);
a *lower-bound violation* is a certified lower bound above an exact reference.  Both must be 0.

    python3 benchmarks/soundness_audit.py --cases 10000 --seed 1 --chunk 0/4 --out audit_0.json
    python3 benchmarks/soundness_audit.py --merge results_soundness_audit.json audit_*.json
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr
from scipy.stats import binom

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from numeric import account, pld  # noqa: E402
from numeric import events as EV  # noqa: E402

SLACK = 1e-9


# ----------------------------------------------------------------------------- references
def gdp_log_delta(eps, mu):
    """log delta(eps) of G_mu: log[Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)]."""
    la = log_ndtr(-eps / mu + mu / 2)
    lb = eps + log_ndtr(-eps / mu - mu / 2)
    return la + np.log(-np.expm1(lb - la))


def exact_gdp_eps(mu, delta):
    """epsilon(delta) of G_mu, to 1e-13 (brentq on the log of the closed form)."""
    if gdp_log_delta(0.0, mu) <= math.log(delta):
        return 0.0
    hi = 1.0
    while gdp_log_delta(hi, mu) > math.log(delta):
        hi *= 2
    return brentq(lambda e: gdp_log_delta(e, mu) - math.log(delta), 0.0, hi, xtol=1e-14, rtol=1e-15)


def rr_delta(eps_rr, q, n, eps):
    """delta(eps) of n-fold (Poisson q) randomized response, exact, worse direction."""
    p = np.array([1.0, math.exp(-eps_rr)]) / (1 + math.exp(-eps_rr))
    mix = (1 - q) * p + q * p[::-1]
    k = np.arange(n + 1)
    out = 0.0
    for P, Q in ((p, mix), (mix, p)):
        lp, lq = binom.logpmf(k, n, P[1]), binom.logpmf(k, n, Q[1])
        x = np.minimum(eps + lp - lq, 0.0)                  # terms with q > e^eps p only
        out = max(out, float(np.sum(np.exp(lq) * -np.expm1(x))))
    return out


def exact_rr_eps(eps_rr, q, n, delta):
    f = lambda e: rr_delta(eps_rr, q, n, e) - delta          # noqa: E731
    if f(0.0) <= 0:
        return 0.0
    hi = n * eps_rr
    if f(hi) > 0:
        return hi
    return brentq(f, 0.0, hi, xtol=1e-13)


def fine_pld_lower(events, delta):
    """The optimistic end of a PLD 3x finer than the default: a lower bound on the truth."""
    factors = [(EV._pld_models(e), e.count) for e in events]
    acc = pld.composite(factors, resolution=pld.DEFAULT_RESOLUTION / 3)
    return float(np.max(acc.epsilon(delta)[0]))


# ----------------------------------------------------------------------------- random cases
def _loguni(rng, a, b):
    return float(math.exp(rng.uniform(math.log(a), math.log(b))))


def random_case(rng):
    """(kind, events, delta): a random composition with a reference."""
    delta = _loguni(rng, 1e-12, 1e-3)
    kind = rng.choice(["gauss"] * 8 + ["rr"] * 4 + ["sgauss"] * 4 + ["laplace"] * 3 + ["mixed"] * 1)
    if kind == "gauss":
        evs = [EV.Event(EV.Gaussian(_loguni(rng, 0.5, 30), _loguni(rng, 0.5, 2)), None,
                        int(_loguni(rng, 1, 1e5))) for _ in range(int(rng.integers(1, 4)))]
    elif kind == "rr":
        q = 1.0 if rng.random() < 0.3 else _loguni(rng, 1e-3, 0.5)
        evs = [EV.Event(EV.RandomizedResponse(_loguni(rng, 0.05, 2.0)),
                        None if q == 1 else EV.Poisson(q), int(_loguni(rng, 1, 3000)))]
    elif kind == "sgauss":
        evs = [EV.Event(EV.Gaussian(_loguni(rng, 0.5, 20)), EV.Poisson(_loguni(rng, 1e-4, 0.5)),
                        int(_loguni(rng, 1, 3e4)))]
    elif kind == "laplace":
        evs = [EV.Event(EV.Laplace(_loguni(rng, 0.5, 50)), None, int(_loguni(rng, 1, 2000)))]
    else:
        evs = [EV.Event(EV.Gaussian(_loguni(rng, 0.8, 10)), EV.Poisson(_loguni(rng, 1e-3, 0.2)),
                        int(_loguni(rng, 10, 2e4))),
               EV.Event(EV.Gaussian(_loguni(rng, 2, 30)), None, int(_loguni(rng, 1, 100))),
               EV.Event(EV.Laplace(_loguni(rng, 5, 50)), None, int(_loguni(rng, 1, 20)))]
    return str(kind), evs, delta


def reference(kind, evs, delta):
    """(value, exact): the reference epsilon and whether it is exact (else a lower bound)."""
    if kind == "gauss":
        mu = math.sqrt(sum(e.count * (e.mechanism.sensitivity / e.mechanism.sigma) ** 2 for e in evs))
        return exact_gdp_eps(mu, delta), True
    if kind == "rr":
        e = evs[0]
        return exact_rr_eps(e.mechanism.epsilon, e.rate, e.count, delta), True
    return fine_pld_lower(evs, delta), False


def check(kind, evs, delta):
    rec = {"kind": kind, "events": EV.describe(evs), "delta": delta}
    t0 = time.perf_counter()
    try:
        r = account.epsilon(evs, delta)
    except ValueError as exc:                     # a refusal (named parameter / route), not a bug
        rec.update(refused=str(exc)[:200])
        return rec
    rec["seconds"] = time.perf_counter() - t0
    ref, exact = reference(kind, evs, delta)
    up, lo = r.value, r.extras["epsilon_lower"]
    rec.update(upper=up, lower=lo, route=r.extras["route"], reference=ref, exact=exact,
               under_report=bool(up < ref * (1 - SLACK) - 1e-12),
               lower_violation=bool(exact and lo > ref * (1 + SLACK) + 1e-12),
               finite=bool(math.isfinite(up)))
    return rec


def merge(paths, out):
    """Merge chunk files into one summary (kept with the records of any failure)."""
    recs, seeds = [], []
    for p in paths:
        d = json.loads(Path(p).read_text())
        recs += d["records"]
        seeds.append(f"{d['summary']['seed']}:{d['summary']['chunk']}")
    bad = [r for r in recs if r.get("under_report") or r.get("lower_violation")]
    summary = {
        "cases": len(recs), "chunks": seeds,
        "refused": sum("refused" in r for r in recs),
        "under_reports": sum(r.get("under_report", False) for r in recs),
        "lower_violations": sum(r.get("lower_violation", False) for r in recs),
        "not_finite": sum(("upper" in r) and not r["finite"] for r in recs),
        "exact_reference": sum(bool(r.get("exact")) for r in recs),
        "by_kind": {k: sum(r["kind"] == k for r in recs) for k in sorted({r["kind"] for r in recs})},
        "by_route": {k: sum(r.get("route") == k for r in recs) for k in ("rdp", "pld")},
        "max_relative_gap_upper_vs_exact": max(
            ((r["upper"] - r["reference"]) / r["reference"] for r in recs
             if r.get("exact") and r.get("reference", 0) > 0), default=0.0),
    }
    Path(out).write_text(json.dumps({"summary": summary, "failures": bad}, indent=1))
    print(json.dumps(summary))
    return 1 if bad else 0


def main(argv=None):
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--merge":
        return merge(sys.argv[3:], sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunk", default="0/1", help="i/n: run every n-th case starting at i")
    ap.add_argument("--out", default=None, help="write the records (JSON) here")
    args = ap.parse_args(argv)
    i, n = (int(x) for x in args.chunk.split("/"))
    rng = np.random.default_rng(args.seed)
    recs = []
    t0 = time.time()
    with np.errstate(all="ignore"):
        for j in range(args.cases):
            case = random_case(rng)
            if j % n != i:
                continue
            recs.append(check(*case))
            if args.out and len(recs) % 200 == 0:
                _write(args, recs, t0)
    summary = _write(args, recs, t0)
    print(json.dumps(summary))
    bad = [r for r in recs if r.get("under_report") or r.get("lower_violation")]
    for r in bad[:20]:
        print("BAD", json.dumps(r))
    return 1 if bad else 0


def _write(args, recs, t0):
    summary = {
        "cases": len(recs), "seed": args.seed, "chunk": args.chunk,
        "refused": sum("refused" in r for r in recs),
        "under_reports": sum(r.get("under_report", False) for r in recs),
        "lower_violations": sum(r.get("lower_violation", False) for r in recs),
        "not_finite": sum(("upper" in r) and not r["finite"] for r in recs),
        "by_kind": {k: sum(r["kind"] == k for r in recs) for k in sorted({r["kind"] for r in recs})},
        "by_route": {k: sum(r.get("route") == k for r in recs) for k in ("rdp", "pld")},
        "seconds": round(time.time() - t0, 1),
    }
    if args.out:
        Path(args.out).write_text(json.dumps({"summary": summary, "records": recs}, indent=0))
    return summary


if __name__ == "__main__":
    sys.exit(main())
