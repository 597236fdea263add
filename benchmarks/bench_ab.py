"""Two trees of dpderive side by side on our columns of ``bench_routes.py`` and ``bench_pld.py``:
is a change no slower (and no looser) than the tree it replaces, case by case?

A run of ``bench_routes``/``bench_pld`` on each tree leaves a comparison to the machine's mood:
on this 2-core machine the same code measures up to 30% apart between processes, because the
first touch of a fresh multi-MB array costs a page fault per 4 KB page and how many fresh arrays
a query gets depends on glibc's dynamic mmap and trim thresholds in that process.  Here:

* each round runs every case once per tree, in a fresh process per tree, the order of the trees
  alternating between rounds (A B, B A, ...);
* each process is pinned to one CPU and runs with glibc's thresholds fixed
  (``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``): the same allocator for both trees,
  so that the comparison is of the work the code does;
* a case's time in a process is the median of 5 timings (calls under 20 ms are timed in
  batches); its time per tree is the median over the rounds; the values of the two trees are
  compared exactly.

The peers' columns are left out: their code is the same in both trees.

    python3 benchmarks/bench_ab.py --base dd55ff8 [--rounds 5] [--out benchmarks/results_ab.json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DELTA = 1e-5
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import MALLOC, PLD_CASES, ROUTE_CASES, median_time  # noqa: E402  (glibc's thresholds for the children; no numeric import)

ROUTES = [(" ".join(n.split()), s, q, T) for n, s, q, T in ROUTE_CASES]
PLD_CASES = list(PLD_CASES) + [  # and bench_pld (iii): q, sigma, T
    (1e-4, 1.0, 100_000), (1e-4, 1.0, 10_000_000), (1e-5, 1.0, 1_000_000), (1e-5, 1.0, 10_000_000),
    (1e-6, 1.0, 10_000_000),
]


def _cases():
    """name -> a function of no argument returning the value to compare (in the tree imported)."""
    import numpy as np
    from numeric import account, pld
    from numeric import events as EV

    def gauss(sigma, q, T):
        return [EV.Event(EV.Gaussian(sigma), None if q == 1 else EV.Poisson(q), T)]

    out = {}
    for name, s, q, T in ROUTES:
        ev = gauss(s, q, T)
        for m in ("rdp", "pld", "best"):
            out[f"routes/{name}/{m}"] = (lambda ev=ev, m=m: account.epsilon(ev, DELTA, m).value)
        out[f"routes/{name}/pld_up"] = (
            lambda ev=ev: float(np.max(EV.pld_accountant(ev, bounds="upper").epsilon(DELTA)[1])))
    for q, s, T in PLD_CASES:
        for b in ("upper", "both"):
            out[f"pld/q={q:g} s={s:g} T={T:g}/{b}"] = (
                lambda q=q, s=s, T=T, b=b: tuple(map(float, pld.subsampled_gaussian(
                    s, q, T, bounds=b).epsilon(DELTA))))
    for name, evs, rel in (("laplace t=0.1", [EV.Event(EV.Laplace(10.0), None, 1000)], "add_remove"),
                           ("poisson(0.01) laplace t=1",
                            [EV.Event(EV.Laplace(1.0), EV.Poisson(0.01), 1000)], "add_remove"),
                           ("rr eps=0.5", [EV.Event(EV.RandomizedResponse(0.5), None, 1000)],
                            "replace_one")):
        for b in ("upper", "both"):
            out[f"pld/{name}/{b}"] = (lambda evs=evs, rel=rel, b=b: tuple(
                float(np.max(v)) for v in EV.pld_accountant(evs, rel, b).epsilon(DELTA)))
    for name, mech, B, N, T in (("gaussian s=2 sens=2 256/60000 T=235", EV.Gaussian(2.0, 2.0), 256, 60000, 235),
                                ("gaussian s=1.1 sens=2 256/60000 T=14063", EV.Gaussian(1.1, 2.0), 256, 60000, 14063),
                                ("laplace 8 sens=2 100/10000 T=500", EV.Laplace(8.0, 2.0), 100, 10000, 500),
                                ("rr eps=1 100/10000 T=500", EV.RandomizedResponse(1.0), 100, 10000, 500)):
        evs = [EV.Event(mech, EV.WithoutReplacement(B, N), T)]
        for m in ("pld", "rdp"):
            out[f"fixed/{name}/{m}"] = (lambda evs=evs, m=m: account.epsilon(
                evs, DELTA, m, neighbouring="replace_one").value)
    return out


def _child(tree: str) -> None:
    sys.path.insert(0, tree)
    os.chdir(tree)
    import warnings
    warnings.simplefilter("ignore")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    rec = {}
    for name, fn in _cases().items():
        t, v = median_time(fn, 5)
        rec[name] = [t, repr(v)]
    print(json.dumps(rec))


def _run(tree: Path) -> dict:
    env = {**os.environ, **MALLOC, "PYTHONPATH": str(tree)}
    p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(tree)],
                       capture_output=True, text=True, env=env, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="dd55ff8", help="the tree to compare against (a git revision)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        return _child(a.child)
    from tqdm import tqdm
    base_rev = subprocess.run(["git", "rev-parse", "--short", a.base], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    head_rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "numeric"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="dpderive-ab-"))
    base = tmp / "base"
    subprocess.run(["git", "worktree", "add", "--detach", str(base), a.base], cwd=ROOT,
                   capture_output=True, check=True)
    load0 = os.getloadavg()
    runs = {"base": [], "head": []}
    try:
        for r in tqdm(range(a.rounds), desc="rounds (base and head each)", unit="round"):
            order = ("base", "head") if r % 2 == 0 else ("head", "base")
            for which in order:
                runs[which].append(_run(base if which == "base" else ROOT))
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    rows = []
    for name in runs["head"][0]:
        tb = statistics.median(run[name][0] for run in runs["base"] if name in run)
        th = statistics.median(run[name][0] for run in runs["head"])
        vb = {run[name][1] for run in runs["base"] if name in run}
        vh = {run[name][1] for run in runs["head"]}
        rows.append({"case": name, "base_ms": round(tb * 1e3, 3), "head_ms": round(th * 1e3, 3),
                     "ratio": round(th / tb, 3), "values_identical": vb == vh,
                     "head_value": sorted(vh)[0]})
        print(f"{name:60s} {tb * 1e3:9.2f} -> {th * 1e3:9.2f} ms  x{th / tb:5.2f}"
              f"{'' if vb == vh else '  VALUES DIFFER'}")
    ratios = [r["ratio"] for r in rows]
    out = {"base": base_rev, "head": head_rev + (" (numeric/ modified)" if dirty else ""),
           "rounds": a.rounds, "malloc": MALLOC, "pinned": hasattr(os, "sched_setaffinity"),
           "machine": platform.platform(), "load_average_start": load0,
           "load_average_end": os.getloadavg(), "cases": len(rows),
           "ratio_median": statistics.median(ratios), "ratio_max": max(ratios),
           "slower_than_1_05": [r["case"] for r in rows if r["ratio"] > 1.05],
           "values_differ": [r["case"] for r in rows if not r["values_identical"]], "rows": rows}
    print(f"{len(rows)} cases: ratio median {out['ratio_median']:.3f}, max {out['ratio_max']:.3f}; "
          f"{len(out['slower_than_1_05'])} above 1.05; {len(out['values_differ'])} with other values")
    if a.out:
        Path(a.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
