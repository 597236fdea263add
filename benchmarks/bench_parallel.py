"""Speed-up of the execution layer (dpderive/execution.py) on this machine.

(i)   A sweep (``dpderive sweep calibrate``, SWEEP_POINTS points) and (ii) ``dpderive check
      --paper PAPER``, each as the user runs it (a fresh ``python3 -m dpderive.cli`` process,
      wall time including start-up), with --no-cache: 1 process (serial), 2 local workers
      (joblib/loky) and a dask ``LocalCluster`` of 2 single-threaded worker processes
      (``--scheduler``; a fresh cluster per repeat, its start-up timed separately).
(iii) Per-task overhead: ``run_tasks`` on N trivial tasks (math.sqrt) with a warm pool,
      (wall time) / N, per backend; the mean compute time (in process, warm) of an RDP
      ``epsilon`` point and of a ``calibrate`` point.
(iv)  Cold vs warm cache: cold is the --no-cache run on 2 workers of (i)/(ii); warm the same
      command on a filled cache.

Medians over REPEATS.  The load average at start and end is recorded: the machine
(os.cpu_count() cores) may be shared, and parallel runs gain nothing when other processes
already hold the cores.  Run: python benchmarks/bench_parallel.py  (needs dask[distributed])
"""
from __future__ import annotations

import json
import math
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpderive.execution import run_tasks  # noqa: E402

OUT = ROOT / "benchmarks" / "results_parallel.json"
REPEATS = 3
PAPER = "zheng2020"
# calibrate points (about a second each): enough work per worker to pay for its start-up
SWEEP = ["sweep", "calibrate", "--epsilon", "1,2,4", "--delta", "1e-5", "--sampling-rate", "0.004267",
         "--steps", "1000,10000"]
SWEEP_POINTS = 6
EPSILON_POINTS = ["--sigma", "0.6:2:8", "--sampling-rate", "0.004267", "--steps", "1000:100000:4",
                  "--delta", "1e-5"]
TRIVIAL_TASKS = 200


def _cli(args: list[str], cache: str) -> float:
    env = dict(os.environ, DPDERIVE_CACHE=cache, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dpderive.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{args}: exit {proc.returncode}: {proc.stderr[-500:]}")
    return dt


def _cluster():
    from distributed import LocalCluster
    t0 = time.perf_counter()
    lc = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0")
    return lc, time.perf_counter() - t0


def _medians(args: list[str], tmp: str) -> dict:
    out = {"serial_s": [], "workers2_s": [], "local_cluster_s": [], "cluster_startup_s": []}
    for _ in range(REPEATS):
        out["serial_s"].append(_cli(args + ["--no-cache"], tmp))
        out["workers2_s"].append(_cli(args + ["--no-cache", "--workers", "2"], tmp))
        lc, start = _cluster()
        try:
            out["cluster_startup_s"].append(start)
            out["local_cluster_s"].append(_cli(args + ["--no-cache", "--scheduler", lc.scheduler_address], tmp))
        finally:
            lc.close()
    med = {k: statistics.median(v) for k, v in out.items()}
    med["speedup_workers2"] = med["serial_s"] / med["workers2_s"]
    med["speedup_local_cluster"] = med["serial_s"] / med["local_cluster_s"]
    med["runs"] = out
    return med


def _overhead() -> dict:
    from distributed import LocalCluster
    tasks = [float(i) for i in range(TRIVIAL_TASKS)]
    res = {}

    def per_task(**kw):
        run_tasks(math.sqrt, tasks[:8], progress=False, **kw)  # warm the pool
        ts = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            run_tasks(math.sqrt, tasks, progress=False, **kw)
            ts.append((time.perf_counter() - t0) / len(tasks))
        return statistics.median(ts)

    res["serial_s_per_task"] = per_task()
    res["workers2_s_per_task"] = per_task(workers=2)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as lc:
        res["local_cluster_s_per_task"] = per_task(scheduler=lc.scheduler_address)
    # compute time of one sweep point, in process (no start-up)
    from dpderive.sweep_cli import build_grid, run_point
    _, points = build_grid("epsilon", EPSILON_POINTS)
    run_point(points[0][1])
    t0 = time.perf_counter()
    for _, argv in points:
        run_point(argv)
    res["epsilon_point_compute_s"] = (time.perf_counter() - t0) / len(points)
    _, points = build_grid("calibrate", SWEEP[2:])
    t0 = time.perf_counter()
    for _, argv in points:
        run_point(argv)
    res["calibrate_point_compute_s"] = (time.perf_counter() - t0) / len(points)
    return res


def _cold_warm(args: list[str], cold_s: float) -> dict:
    """Warm: the same command again on a filled cache (cold: the --no-cache run with 2 workers)."""
    with tempfile.TemporaryDirectory() as d:
        _cli(args + ["--workers", "2"], d)  # fills the cache
        warm = [_cli(args + ["--workers", "2"], d) for _ in range(REPEATS)]
    return {"cold_s": cold_s, "warm_s": statistics.median(warm), "warm_runs": warm}


def main() -> None:
    t_all = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        res = {"machine": {"cpu_count": os.cpu_count(), "python": sys.version.split()[0],
                           "load_average_at_start": os.getloadavg()},
               "repeats": REPEATS,
               "sweep": {"argv": SWEEP, "points": SWEEP_POINTS, **_medians(SWEEP, tmp)},
               "check": {"paper": PAPER, **_medians(["check", "--paper", PAPER], tmp)},
               "overhead": _overhead()}
        res["cache"] = {"sweep": _cold_warm(SWEEP, res["sweep"]["workers2_s"]),
                        "check": _cold_warm(["check", "--paper", PAPER], res["check"]["workers2_s"])}
    res["bench_seconds"] = time.perf_counter() - t_all
    res["machine"]["load_average_at_end"] = os.getloadavg()
    OUT.write_text(json.dumps(res, indent=1) + "\n")
    s, c, o = res["sweep"], res["check"], res["overhead"]
    print(f"sweep ({SWEEP_POINTS} calibrate points): serial {s['serial_s']:.2f} s, 2 workers {s['workers2_s']:.2f} s "
          f"(x{s['speedup_workers2']:.2f}), LocalCluster {s['local_cluster_s']:.2f} s "
          f"(x{s['speedup_local_cluster']:.2f}; start-up {s['cluster_startup_s']:.2f} s)")
    print(f"check --paper {PAPER}: serial {c['serial_s']:.2f} s, 2 workers {c['workers2_s']:.2f} s "
          f"(x{c['speedup_workers2']:.2f}), LocalCluster {c['local_cluster_s']:.2f} s "
          f"(x{c['speedup_local_cluster']:.2f})")
    print(f"per-task overhead: serial {o['serial_s_per_task'] * 1e6:.0f} us, 2 workers "
          f"{o['workers2_s_per_task'] * 1e3:.2f} ms, LocalCluster {o['local_cluster_s_per_task'] * 1e3:.2f} ms;"
          f" an epsilon point computes in {o['epsilon_point_compute_s'] * 1e3:.0f} ms"
          f" (a calibrate point in {o['calibrate_point_compute_s']:.2f} s)")
    for k, v in res["cache"].items():
        print(f"{k}: cold {v['cold_s']:.2f} s, warm {v['warm_s']:.2f} s")
    print(f"wrote {OUT} ({res['bench_seconds']:.0f} s)")


if __name__ == "__main__":
    main()
