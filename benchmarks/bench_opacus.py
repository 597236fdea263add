"""Opacus's accountants and dpderive's (dpderive.interop.opacus) in a DP-SGD loop: one
get_epsilon(delta) after every step, sigma = 1.1, q = 256/60000, delta = 1e-5, 2,000 steps.
Writes benchmarks/results_opacus.json.

    python3 benchmarks/bench_opacus.py [--steps 2000] [--repeats 3]

Columns, each a fresh accountant per repeat, stepped and queried in one interleaved loop (so a
change of the machine's load reaches every column alike):

* ``dpderive_best`` (the default), ``dpderive_fast``, ``opacus_rdp``: per-step get_epsilon time,
  amortised over the whole run (total query time / steps, the first query included), and over
  the last 10% of the steps (``ms_per_step_last10pct``); the median over repeats;
* ``opacus_prv``: its query costs ~0.2 s, so it is timed at sampled steps only (every
  ``steps // 10`` and the last); ``ms_per_query_at_end`` (median over repeats of the query at the
  last step) is its per-step cost in such a loop;
* ``before``: what the previous version answered per step, timed at the last step: the full route
  (``method="full"``, the old default) and ``numeric.stateful``'s fast route (the old "fast");
* final epsilon of each, with dpderive's certified bracket, against dp_accounting's PLD
  (``PLDAccountant``, value discretisation 1e-4 and 1e-5): the relative difference;
* calibration: ``get_noise_multiplier`` (dpderive's calibrator, what
  ``make_private_with_epsilon(accountant="dpderive")`` now calls) against Opacus's own bisection
  over dpderive's accountant (what it called before), and Opacus's rdp / prv calibrations;
* the load average at the start and at the end.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _harness  # noqa: E402

MALLOC = _harness.fix()

import warnings  # noqa: E402

from opacus.accountants import PRVAccountant, RDPAccountant  # noqa: E402

import dpderive.interop.opacus as O  # noqa: E402
from dpderive.interop.opacus import DpDeriveOpacusAccountant  # noqa: E402

SIGMA, Q, DELTA = 1.1, 256 / 60000, 1e-5


def loop(steps):
    """One interleaved run; per column the query times per step (PRV: at sampled steps)."""
    accts = {"dpderive_best": DpDeriveOpacusAccountant(), "dpderive_fast": DpDeriveOpacusAccountant(method="fast"),
             "opacus_rdp": RDPAccountant()}
    prv = PRVAccountant()
    times = {k: [] for k in accts}
    prv_times, eps, answers = {}, {}, {}
    every = max(1, steps // 10)
    for t in range(1, steps + 1):
        for k, a in accts.items():
            a.step(noise_multiplier=SIGMA, sample_rate=Q)
            t0 = time.perf_counter()
            eps[k] = a.get_epsilon(DELTA)
            times[k].append(time.perf_counter() - t0)
        prv.step(noise_multiplier=SIGMA, sample_rate=Q)
        if t % every == 0 or t == steps:
            t0 = time.perf_counter()
            eps["opacus_prv"] = prv.get_epsilon(DELTA)
            prv_times[t] = time.perf_counter() - t0
    for k in ("dpderive_best", "dpderive_fast"):
        answers[k] = accts[k].last_answer.to_dict()
    return times, prv_times, eps, answers


def before(steps, repeats):
    """The previous version's per-step answers at the last step: the full route (the old
    default) and numeric.stateful's fast route (the old method="fast", amortised over a run)."""
    from numeric.stateful import StatefulAccountant
    ts = []
    for _ in range(repeats):
        full = DpDeriveOpacusAccountant(method="full")
        full.history = [(SIGMA, Q, steps - 1)]
        full.get_epsilon(DELTA)                          # the state synced at steps - 1
        full.step(noise_multiplier=SIGMA, sample_rate=Q)
        t0 = time.perf_counter()
        e_full = full.get_epsilon(DELTA)                 # the last step's query, as in a loop
        ts.append(time.perf_counter() - t0)
        bracket = [full.last_answer.lower, full.last_answer.upper]
    st = StatefulAccountant(resolution=0.01)
    t_fast = 0.0
    for _ in range(steps):
        st.step(noise_multiplier=SIGMA, sample_rate=Q)
        t0 = time.perf_counter()
        a = st.epsilon(DELTA)
        t_fast += time.perf_counter() - t0
    return {"full_route_ms_per_query_at_end": round(1e3 * statistics.median(ts), 3),
            "full_route_epsilon": e_full, "full_route_bracket": bracket,
            "stateful_fast_ms_per_step": round(1e3 * t_fast / steps, 3),
            "stateful_fast_epsilon": a.value, "stateful_fast_bracket": [a.lower, a.upper]}


def dp_accounting_pld(steps):
    import dp_accounting
    out = {}
    for disc in (1e-4, 1e-5):
        acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=disc)
        t0 = time.perf_counter()
        acc.compose(dp_accounting.PoissonSampledDpEvent(Q, dp_accounting.GaussianDpEvent(SIGMA)), steps)
        out[f"{disc:g}"] = {"epsilon": acc.get_epsilon(DELTA), "seconds": round(time.perf_counter() - t0, 3)}
    return out


def calibration():
    from opacus.accountants.utils import get_noise_multiplier as opacus_gnm
    out = []
    for target, epochs in ((2.0, 3), (3.0, 60)):
        kw = dict(target_epsilon=target, target_delta=DELTA, sample_rate=Q, epochs=epochs)
        row = {"target_epsilon": target, "epochs": epochs, "steps": int(epochs / Q)}
        for name, fn in (("dpderive_calibrator", lambda: O.get_noise_multiplier(**kw)),
                         ("opacus_bisection_over_dpderive",
                          lambda: opacus_gnm._dpderive_original(accountant="dpderive", **kw)),
                         ("opacus_rdp", lambda: opacus_gnm(accountant="rdp", **kw)),
                         ("opacus_prv", lambda: opacus_gnm(accountant="prv", **kw))):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")        # Opacus's RDP: "optimal order is the largest alpha"
                sigma = fn()
            sec = time.perf_counter() - t0
            a = DpDeriveOpacusAccountant()
            a.history = [(sigma, Q, row["steps"])]
            row[name] = {"sigma": sigma, "seconds": round(sec, 3),
                         "dpderive_epsilon_at_sigma": a.get_epsilon(DELTA)}
        out.append(row)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results_opacus.json"))
    args = ap.parse_args()
    steps = args.steps
    out = {"machine": platform.platform(), "python": platform.python_version(), "malloc": MALLOC,
           "load_average": os.getloadavg(), "setting": {"sigma": SIGMA, "q": Q, "delta": DELTA, "steps": steps,
                                                         "repeats": args.repeats}}
    runs = [loop(steps) for _ in range(args.repeats)]
    tail = max(1, steps // 10)
    cols = {}
    for k in ("dpderive_best", "dpderive_fast", "opacus_rdp"):
        cols[k] = {"ms_per_step": round(1e3 * statistics.median(sum(r[0][k]) / steps for r in runs), 3),
                   "ms_per_step_last10pct": round(1e3 * statistics.median(sum(r[0][k][-tail:]) / tail
                                                                          for r in runs), 3),
                   "epsilon": runs[-1][2][k]}
    for k in ("dpderive_best", "dpderive_fast"):
        cols[k]["answer"] = runs[-1][3][k]
    cols["opacus_prv"] = {"ms_per_query_at_end": round(1e3 * statistics.median(r[1][steps] for r in runs), 3),
                          "ms_per_query_sampled": {str(t): round(1e3 * v, 3) for t, v in runs[-1][1].items()},
                          "epsilon": runs[-1][2]["opacus_prv"]}
    out["columns"] = cols
    out["before"] = before(steps, args.repeats)
    ref = dp_accounting_pld(steps)
    out["dp_accounting_pld"] = ref
    fine = ref["1e-05"]["epsilon"]
    out["relative_to_dp_accounting_pld_1e-5"] = {
        k: round((cols[k]["epsilon"] - fine) / fine, 7) for k in ("dpderive_best", "dpderive_fast", "opacus_rdp",
                                                                  "opacus_prv")}
    out["relative_to_dp_accounting_pld_1e-5"]["before_full_route"] = round(
        (out["before"]["full_route_epsilon"] - fine) / fine, 7)
    out["relative_to_dp_accounting_pld_1e-5"]["before_stateful_fast"] = round(
        (out["before"]["stateful_fast_epsilon"] - fine) / fine, 7)
    out["default_not_slower_than_opacus_rdp"] = cols["dpderive_best"]["ms_per_step"] <= cols["opacus_rdp"]["ms_per_step"]
    out["calibration"] = calibration()
    out["load_average_end"] = os.getloadavg()
    with open(args.out, "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(json.dumps({k: {kk: v for kk, v in c.items() if kk != "answer" and kk != "ms_per_query_sampled"}
                      for k, c in cols.items()}, indent=1))
    print(json.dumps({"before": out["before"], "rel": out["relative_to_dp_accounting_pld_1e-5"],
                      "load": [out["load_average"], out["load_average_end"]]}, indent=1))


if __name__ == "__main__":
    main()
