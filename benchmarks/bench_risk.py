"""Attack risk side by side with riskcal (Kulynych et al. 2024; riskcal 1.5.x, on
dp_accounting's PLD at its default grid 1e-4 with connect-the-dots): DP-SGD
(Poisson-subsampled Gaussian) cases, TPR at FPR 0.01 and 0.1 and the advantage, value and
time; plus calibration of sigma to TPR 0.1 at FPR 0.01 on one case.  Ours: numeric.risk,
certified bracket [lower, upper]; riskcal's value is an estimate (no stated guarantee; its
calibration tolerance beta_tol defaults to 1e-3).  Writes benchmarks/results_risk.json.

    python3 benchmarks/bench_risk.py [--no-calibration]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from numeric import Event, Gaussian, Poisson  # noqa: E402
from numeric.risk import calibrate_risk, risk  # noqa: E402

CASES = [  # (sigma, q, T)
    (1.1, 256 / 60000, 14063),     # README's training run (60 epochs of 60000 at batch 256)
    (2.0, 0.01, 1000),
    (0.8, 0.004, 5000),
    (1.0, 0.02, 500),
    (4.0, 0.001, 10000),
    (1.5, 0.1, 100),
    (1.0, 1.0, 10),                # no subsampling: exact route for ours
]
FPRS = [0.01, 0.1]
RISKCAL_TOL = 1e-3


def riskcal_values(sigma, q, T):
    from riskcal.calibration.dpsgd import get_advantage_for_dpsgd, get_beta_for_dpsgd
    t = time.perf_counter()
    beta = get_beta_for_dpsgd(sigma, q, T, FPRS)
    adv = get_advantage_for_dpsgd(sigma, q, T)
    return {"tpr": {a: float(1 - b) for a, b in zip(FPRS, beta)}, "advantage": float(adv),
            "seconds": round(time.perf_counter() - t, 4)}


def ours(sigma, q, T):
    t = time.perf_counter()
    r = risk([Event(Gaussian(sigma), Poisson(q) if q < 1 else None, T)], FPRS)
    return {"tpr": r.tpr, "tpr_lower": r.tpr_lower, "advantage": r.advantage,
            "advantage_lower": r.advantage_lower, "route": r.route,
            "seconds": round(time.perf_counter() - t, 4)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-calibration", action="store_true")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results_risk.json"))
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import riskcal
    out = {"machine": platform.platform(), "python": platform.python_version(),
           "riskcal": getattr(riskcal, "__version__", "1.5.x"), "load_average": os.getloadavg(),
           "fprs": FPRS, "riskcal_tolerance": RISKCAL_TOL, "cases": []}
    for sigma, q, T in CASES:
        o, rc = ours(sigma, q, T), riskcal_values(sigma, q, T)
        row = {"sigma": sigma, "q": q, "steps": T, "ours": o, "riskcal": rc,
               "speedup": round(rc["seconds"] / max(o["seconds"], 1e-9), 2)}
        row["riskcal_in_our_bracket"] = {
            **{f"tpr@{a}": o["tpr_lower"][a] - RISKCAL_TOL <= rc["tpr"][a] <= o["tpr"][a] + RISKCAL_TOL
               for a in FPRS},
            "advantage": o["advantage_lower"] - RISKCAL_TOL <= rc["advantage"] <= o["advantage"] + RISKCAL_TOL}
        row["ours_minus_riskcal"] = {**{f"tpr@{a}": o["tpr"][a] - rc["tpr"][a] for a in FPRS},
                                     "advantage": o["advantage"] - rc["advantage"]}
        out["cases"].append(row)
        print(json.dumps({k: row[k] for k in ("sigma", "q", "steps", "speedup", "ours_minus_riskcal")}),
              o["seconds"], rc["seconds"], flush=True)
    if not args.no_calibration:
        sigma0, q, T = 1.0, 0.02, 500
        t = time.perf_counter()
        mine = calibrate_risk(lambda s: [Event(Gaussian(s), Poisson(q), T)], "sigma", 0.3, 50.0,
                              target_tpr=0.1, at_fpr=0.01)
        t_ours = time.perf_counter() - t
        from riskcal.calibration.dpsgd import find_noise_multiplier_for_err_rates
        t = time.perf_counter()
        theirs = find_noise_multiplier_for_err_rates(0.01, 0.9, q, T)
        t_rc = time.perf_counter() - t
        out["calibration"] = {"q": q, "steps": T, "target_tpr": 0.1, "at_fpr": 0.01,
                              "ours": {"sigma": mine["sigma"], "certified_tpr": mine["tpr"],
                                       "seconds": round(t_ours, 3), "evaluations": mine["evaluations"]},
                              "riskcal": {"sigma": float(theirs), "seconds": round(t_rc, 3)}}
        print(json.dumps(out["calibration"]), flush=True)
    out["load_average_end"] = os.getloadavg()
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True, default=str)


if __name__ == "__main__":
    main()
