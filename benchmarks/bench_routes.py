"""dpderive's accounting routes side by side with dp_accounting and prv_accountant, in one
run: epsilon and seconds per query (warm, in-process, median of ``--repeats``).

Columns: ours ``rdp`` (RDP + exact optimal conversion), ours ``pld`` (certified bracket: the
upper end is the guarantee), ours ``pld_up`` (the same guarantee without the lower end: only the
pessimistic discretisation, as dp_accounting's PLD computes), ours ``best`` (the default: min of both), dp_accounting's
``RdpAccountant`` and ``PLDAccountant`` (value_discretization_interval 1e-4, pessimistic),
prv_accountant's ``PRVAccountant`` (eps_error 0.01; its upper estimate).  Peers are optional
(``pip install .[bench]``).  Targets are reported, not asserted.

    python3 benchmarks/bench_routes.py [--repeats 3] [--out benchmarks/results_routes.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
warnings.filterwarnings("ignore")

import _harness  # noqa: E402
from _harness import ROUTE_CASES, median_time  # noqa: E402
from numeric import account  # noqa: E402
from numeric import events as EV  # noqa: E402

DELTA = 1e-5
CASES = ROUTE_CASES


def ours(method, sigma, q, T):
    ev = [EV.Event(EV.Gaussian(sigma), None if q == 1 else EV.Poisson(q), T)]
    return lambda: account.epsilon(ev, DELTA, method).value


def ours_pld_upper(sigma, q, T):
    """The PLD route's guarantee alone (pessimistic discretisation only, ``bounds="upper"``):
    what dp_accounting's PLDAccountant computes, for a like-for-like time."""
    ev = [EV.Event(EV.Gaussian(sigma), None if q == 1 else EV.Poisson(q), T)]
    return lambda: float(np.max(EV.pld_accountant(ev, bounds="upper").epsilon(DELTA)[1]))


def dp_rdp(sigma, q, T):
    from dp_accounting import dp_event as E
    from dp_accounting.rdp import rdp_privacy_accountant as R
    ev = E.SelfComposedDpEvent(E.GaussianDpEvent(sigma) if q == 1 else
                               E.PoissonSampledDpEvent(q, E.GaussianDpEvent(sigma)), T)

    def run():
        a = R.RdpAccountant()
        a.compose(ev)
        return a.get_epsilon(DELTA)
    return run


def dp_pld(sigma, q, T):
    from dp_accounting import dp_event as E
    from dp_accounting.pld import pld_privacy_accountant as P
    ev = E.SelfComposedDpEvent(E.GaussianDpEvent(sigma) if q == 1 else
                               E.PoissonSampledDpEvent(q, E.GaussianDpEvent(sigma)), T)

    def run():
        a = P.PLDAccountant(value_discretization_interval=1e-4)
        a.compose(ev)
        return a.get_epsilon(DELTA)
    return run


def prv(sigma, q, T):
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    def run():
        m = PoissonSubsampledGaussianMechanism(noise_multiplier=sigma, sampling_probability=q)
        a = PRVAccountant(prvs=[m], max_self_compositions=[T], eps_error=0.01, delta_error=1e-10)
        return a.compute_epsilon(delta=DELTA, num_self_compositions=[T])[2]
    return run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    alloc = _harness.fix()                                       # see benchmarks/_harness.py
    ours("rdp", 2.0, 0.01, 10)()                              # warm: kernels, imports
    ours("pld", 2.0, 0.01, 10)()
    rows = []
    for name, s, q, T in CASES:
        row = {"case": name}
        cols = [("ours_rdp", ours("rdp", s, q, T)), ("ours_pld", ours("pld", s, q, T)),
                ("ours_pld_up", ours_pld_upper(s, q, T)), ("ours_best", ours("best", s, q, T)), ("dp_rdp", dp_rdp(s, q, T)),
                ("dp_pld", dp_pld(s, q, T))]
        if q < 1 and T <= 1_000_000:     # prv_accountant at T = 1e7 needs > 24 GB (killed here)
            cols.append(("prv", prv(s, q, T)))
        for col, fn in cols:
            try:
                fn()                                         # warm this configuration
                t, e = median_time(fn, args.repeats if T <= 100_000 else 1)
                row[col] = {"epsilon": float(e), "seconds": t}
            except Exception as exc:                         # a peer's refusal is a result
                row[col] = {"error": f"{type(exc).__name__}: {str(exc)[:80]}"}
            print(name, col, row[col], flush=True)
        rows.append(row)
    # calibration of sigma for (c) at epsilon = 1
    ev = lambda x: [EV.Event(EV.Gaussian(x), EV.Poisson(256 / 60000), 14063)]   # noqa: E731
    cal = {}
    for m in ("rdp", "pld", "best"):
        t0 = time.perf_counter()
        r = account.calibrate(ev, 1.0, DELTA, "sigma", 0.3, 50.0, m)
        cal["ours_" + m] = {"sigma": r.value, "seconds": time.perf_counter() - t0}
    try:
        from dp_accounting import dp_event as E
        from dp_accounting import mechanism_calibration as MC
        from dp_accounting.rdp import rdp_privacy_accountant as R
        t0 = time.perf_counter()
        s = MC.calibrate_dp_mechanism(
            R.RdpAccountant, lambda x: E.SelfComposedDpEvent(
                E.PoissonSampledDpEvent(256 / 60000, E.GaussianDpEvent(x)), 14063),
            1.0, DELTA, MC.LowerEndpointAndGuess(0.3, 1.0), tol=1e-4)
        cal["dp_rdp"] = {"sigma": s, "seconds": time.perf_counter() - t0}
        from dp_accounting.pld import pld_privacy_accountant as PA
        t0 = time.perf_counter()
        s = MC.calibrate_dp_mechanism(
            lambda: PA.PLDAccountant(value_discretization_interval=1e-4), lambda x: E.SelfComposedDpEvent(
                E.PoissonSampledDpEvent(256 / 60000, E.GaussianDpEvent(x)), 14063),
            1.0, DELTA, MC.LowerEndpointAndGuess(0.3, 1.0), tol=1e-4)
        cal["dp_pld"] = {"sigma": s, "seconds": time.perf_counter() - t0}
    except Exception as exc:
        cal.setdefault("dp_rdp", {"error": str(exc)[:80]})
    out = {"delta": DELTA, "rows": rows, "calibration_c_eps1": cal, **alloc}
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1))
    cols = ("ours_rdp", "ours_pld", "ours_pld_up", "ours_best", "dp_rdp", "dp_pld", "prv")
    print(f"{'case':28s} " + " ".join(f"{c:>20s}" for c in cols))
    for row in rows:
        cells = []
        for c in cols:
            v = row.get(c)
            cells.append(f"{'-':>20s}" if v is None else (f"{'error':>20s}" if "error" in v else
                         f"{v['epsilon']:9.5g} {v['seconds'] * 1e3:8.1f}ms"))
        print(f"{row['case']:28s} " + " ".join(cells))
    print("\nspeed-up (peer seconds / ours), same run; epsilon gap (ours - peer)")
    for row in rows:
        for ours_c, peer_c in (("ours_rdp", "dp_rdp"), ("ours_pld", "dp_pld"), ("ours_pld_up", "dp_pld")):
            o, pr = row.get(ours_c, {}), row.get(peer_c, {})
            if "seconds" in o and "seconds" in pr:
                print(f"  {row['case']:28s} {ours_c} vs {peer_c}: {pr['seconds'] / o['seconds']:7.2f}x, "
                      f"eps gap {o['epsilon'] - pr['epsilon']:+.3g}")
    for k, v in cal.items():
        print(f"calibrate (c) eps=1 {k:10s} " + (f"sigma={v['sigma']:.6g} {v['seconds']:.2f}s"
                                                  if "sigma" in v else v["error"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
