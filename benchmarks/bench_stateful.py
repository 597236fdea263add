"""Per-step cost of the stateful accountant (numeric.stateful): a DP-SGD loop of T steps,
each step followed by an epsilon(delta) query (method "fast": RDP grid + amortised PLD
look-ahead upper bound and prefix lower bound), amortised over T = 10^5 steps; the final
answer compared with the full certified best route.  Writes benchmarks/results_stateful.json.

    python3 benchmarks/bench_stateful.py [--steps 100000]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from numeric.stateful import StatefulAccountant  # noqa: E402
from numeric import Event, Gaussian, Poisson, epsilon  # noqa: E402


def run(steps, sigma, q, delta, lookahead):
    acct = StatefulAccountant(lookahead=lookahead)
    t_step = t_query = 0.0
    routes = {}
    t0 = time.perf_counter()
    worst_gap = 0.0
    for i in range(steps):
        a = time.perf_counter()
        acct.step(noise_multiplier=sigma, sample_rate=q)
        b = time.perf_counter()
        ans = acct.epsilon(delta)
        c = time.perf_counter()
        t_step += b - a
        t_query += c - b
        routes[ans.route] = routes.get(ans.route, 0) + 1
    total = time.perf_counter() - t0
    t = time.perf_counter()
    best = acct.epsilon(delta, method="best")
    t_best = time.perf_counter() - t
    return {"steps": steps, "sigma": sigma, "q": q, "delta": delta, "lookahead": lookahead,
            "seconds_total": round(total, 3), "ms_per_step_amortised": round(1e3 * total / steps, 4),
            "ms_step_part": round(1e3 * t_step / steps, 4), "ms_query_part": round(1e3 * t_query / steps, 4),
            "final_fast": ans.to_dict(), "final_best": best.to_dict(),
            "seconds_best_final": round(t_best, 3), "routes_of_fast_answers": routes}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results_stateful.json"))
    args = ap.parse_args()
    cases = [(1.1, 256 / 60000, 1e-5, 0.05), (1.1, 256 / 60000, 1e-5, None), (0.8, 0.01, 1e-6, 0.05)]
    out = {"machine": platform.platform(), "python": platform.python_version(),
           "load_average": os.getloadavg(), "runs": []}
    for sigma, q, d, la in cases:
        r = run(args.steps, sigma, q, d, la)
        print(json.dumps({k: r[k] for k in ("sigma", "q", "lookahead", "ms_per_step_amortised",
                                            "ms_step_part", "ms_query_part")}),
              r["final_fast"]["epsilon"], r["final_fast"]["route"], r["final_best"]["epsilon"], flush=True)
        out["runs"].append(r)
    out["load_average_end"] = os.getloadavg()
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
