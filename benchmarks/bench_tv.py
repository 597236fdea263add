"""Speed and accuracy of numeric.tv's Theorem 2 against the straightforward routes.

    python3 benchmarks/bench_tv.py

Rows: k, time of the windowed log-space evaluation (numeric.tv), of the full
k^2/4 log-space sum (window=False), of exact Neyman-Pearson composition with
numeric.fdp.Discrete (3^k outcomes, small k only), and the largest relative
difference of delta'_j between the routes.  The printed double sum (5) in
floating point is shown to overflow/cancel for moderate k.
"""
from __future__ import annotations

import math
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from numeric import fdp, tv  # noqa: E402


def _time(fn, reps=1):
    t0 = time.perf_counter()
    for _ in range(reps):
        out = fn()
    return (time.perf_counter() - t0) / reps, out


def eq5_float(k, j, e, a):
    """(5) exactly as printed, in double precision (the naive route)."""
    q = (1 - a) / (1 + math.exp(e))
    tot = 0.0
    for aa in range(k - j):
        for ll in range(-(-(k - j - aa) // 2)):
            tot += (math.comb(k, aa) * math.comb(k - aa, ll) * q ** (k - aa) * a ** aa
                    * (math.exp((k - ll - aa) * e) - math.exp((ll + j) * e)))
    return tot


def main():
    e, a = 1.0, 0.3
    eta = (1 - a) * math.tanh(e / 2)
    print(f"{'k':>7} {'windowed s':>11} {'full s':>9} {'NP s':>8} {'max rel diff':>13}")
    for k in (5, 8, 100, 1000, 3000, 10000):
        tw, pw = _time(lambda: tv.tv_composition_deltas(k, e, 0.0, eta))
        tf, lf = _time(lambda: tv.loss_distribution(k, e, a, window=False)) if k <= 3000 else (float("nan"), None)
        tnp, diff = float("nan"), float("nan")
        if k <= 8:
            P0 = np.array([(1 - a) * math.e / (1 + math.e), a, (1 - a) / (1 + math.e)])
            d = fdp.Discrete(P0, P0[::-1].copy())
            t0 = time.perf_counter()
            c = d
            for _ in range(k - 1):
                c = c.compose(d)
            lines = [float(np.sum(np.maximum(c.p - math.exp(j * e) * c.q, 0))) for j in range(k + 1)]
            tnp = time.perf_counter() - t0
            diff = float(np.max(np.abs(np.array(lines) - pw.delta_prime) / np.maximum(lines, 1e-300)))
        print(f"{k:7d} {tw:11.4f} {tf:9.4f} {tnp:8.4f} {diff:13.2e}")
    for k in (50, 200, 800):
        try:
            v = eq5_float(k, k // 4, e, a)
        except OverflowError:
            v = float("inf")
        ref = tv.tv_composition_deltas(k, e, 0.0, eta).delta_prime[k // 4]
        print(f"printed (5) in floats, k={k}, j={k // 4}: {v:.6g}   numeric.tv: {ref:.6g}")


if __name__ == "__main__":
    main()
