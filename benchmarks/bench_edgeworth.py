"""Speed and accuracy of the Edgeworth approximation (numeric/edgeworth.py; 004 Sec. 3).

(i)  time of a 1000-point Edgeworth trade-off curve (numerical inverse, Method (i)) and of
     the Cornish-Fisher variant, once the cumulants are known, and including the cumulant
     computation (noisy SGD, mixture cumulants by quadrature); target < 5 ms;
(ii) sup-norm error of CLT and Edgeworth against the certified PLD curve (midpoint of the
     pessimistic/optimistic bracket, whose width is printed) for 004 Figs. 5.1 (Laplace,
     theta = 3/sqrt(n)) and 5.3 (noisy SGD, sigma = 1, p = 0.5/n^{1/4}).
Medians over repeats; targets are reported, not asserted.  Run: python benchmarks/bench_edgeworth.py
"""
from __future__ import annotations

import json
import pathlib
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from numeric import cumulants as C  # noqa: E402
from numeric import edgeworth as E  # noqa: E402
from numeric import pld  # noqa: E402

A = np.linspace(0.0, 1.0, 1000)
OUT = ROOT / "benchmarks" / "results_edgeworth.json"


def median_time(fn, repeats=21):
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    print("# dpderive Edgeworth benchmark (medians of repeats)\n")
    f = E.laplace(3 / np.sqrt(10), 10)
    f(A)
    t_eval = median_time(lambda: f(A))
    t_curve = median_time(lambda: E.laplace(3 / np.sqrt(10), 10)(A))
    t_cf = median_time(lambda: E.laplace(3 / np.sqrt(10), 10, inverse_method="cornish-fisher")(A))
    t_sgd = median_time(lambda: E.subsampled_gaussian(1.0, 0.5 / 500 ** 0.25, 500)(A))
    print("## (i) 1000-point curve")
    print(f"Laplace n=10, evaluation only:          {t_eval * 1e3:7.3f} ms (target < 5 ms)")
    print(f"Laplace n=10, incl. cumulants, build:   {t_curve * 1e3:7.3f} ms")
    print(f"Laplace n=10, Cornish-Fisher:           {t_cf * 1e3:7.3f} ms")
    print(f"noisy SGD n=500 incl. cumulants (quad): {t_sgd * 1e3:7.3f} ms\n")
    rows = []
    print("## (ii) sup-norm error against the certified PLD curve")
    print(f"{'case':>22s} {'n':>4s} {'CLT':>9s} {'Edgeworth':>10s} {'PLD bracket':>12s}")
    for n in (1, 3, 5, 10):
        th = 3 / np.sqrt(n)
        r = pld.laplace(th, n, resolution=0.01)
        lo, hi = r.tradeoff("pessimistic")(A), r.tradeoff("optimistic")(A)
        mid = (lo + hi) / 2
        kP, kQ = C.laplace_cumulants(th, 4, "P"), C.laplace_cumulants(th, 4, "Q")
        e_clt = float(np.max(np.abs(E.clt(kP, kQ, n)(A) - mid)))
        e_ew = float(np.max(np.abs(E.laplace(th, n)(A) - mid)))
        rows.append({"case": "laplace", "n": n, "clt": e_clt, "edgeworth": e_ew,
                     "bracket": float(np.max(hi - lo))})
        print(f"{'Laplace theta=3/sqrt(n)':>22s} {n:4d} {e_clt:9.2e} {e_ew:10.2e} {np.max(hi - lo):12.1e}")
    for n in (1, 5, 50, 500):
        p = 0.5 / n ** 0.25
        r = pld.subsampled_gaussian(1.0, p, n, directions=("remove",), resolution=0.02)
        lo, hi = r.tradeoff("pessimistic")(A), r.tradeoff("optimistic")(A)
        mid = (lo + hi) / 2
        e_clt = float(np.max(np.abs(E.clt_sgd(1.0, p, n)(A) - mid)))
        e_ew = float(np.max(np.abs(E.subsampled_gaussian(1.0, p, n)(A) - mid)))
        rows.append({"case": "noisy_sgd_g", "n": n, "p": p, "clt": e_clt, "edgeworth": e_ew,
                     "bracket": float(np.max(hi - lo))})
        print(f"{'SGD g, p=0.5/n^(1/4)':>22s} {n:4d} {e_clt:9.2e} {e_ew:10.2e} {np.max(hi - lo):12.1e}")
    OUT.write_text(json.dumps({"curve_eval_ms": t_eval * 1e3, "curve_incl_build_ms": t_curve * 1e3, "cornish_fisher_ms": t_cf * 1e3,
                               "sgd_incl_cumulants_ms": t_sgd * 1e3, "errors": rows}, indent=2))
    print(f"\nwrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
