"""A CLI query from process start to answer, against ``python -c "import numpy, scipy"``.

Issue 11's target: a numeric query costs at most 2x what importing NumPy and SciPy costs.
Each command runs as a fresh process; the commands are interleaved round by round (so load
on the machine hits all of them alike) and the median wall time over ``--repeats`` rounds
is reported with its ratio to the baseline.  Targets are reported, not asserted.
The project's modules are byte-compiled first (``compileall``), as ``pip install`` does for
NumPy and SciPy: where PYTHONDONTWRITEBYTECODE is set, an editable checkout would otherwise
recompile every module on each run (40 ms here) while the baseline's modules load from
their cached bytecode.

    python3 benchmarks/bench_cli.py [--repeats 9] [--out benchmarks/results_cli.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASE_C = ["--sigma", "1.1", "--sampling-rate", "0.004267", "--steps", "14063"]
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "import numpy, scipy (baseline)": ["-c", "import numpy, scipy"],
    "epsilon (c) --method rdp": ["-m", "dpderive.cli", "epsilon", *CASE_C, "--delta", "1e-5",
                                 "--method", "rdp"],
    "epsilon (c) default (best)": ["-m", "dpderive.cli", "epsilon", *CASE_C, "--delta", "1e-5"],
    "delta (c) --epsilon 2": ["-m", "dpderive.cli", "delta", *CASE_C, "--epsilon", "2"],
    "calibrate sigma (c) eps=1": ["-m", "dpderive.cli", "calibrate", "--epsilon", "1", "--delta",
                                  "1e-5", "--sampling-rate", "0.004267", "--steps", "14063"],
    "epsilon laplace x20": ["-m", "dpderive.cli", "epsilon", "--mechanism", "laplace", "--scale",
                            "10", "--steps", "20", "--delta", "1e-6"],
}


def wall(args: list[str]) -> float:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {r.stderr.strip()}")
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results_cli.json"))
    a = ap.parse_args()
    import compileall
    for pkg in ("dpderive", "numeric", "derive"):
        compileall.compile_dir(str(ROOT / pkg), quiet=1)
    times = {name: [] for name in COMMANDS}
    for name, args in COMMANDS.items():  # warm the file cache and .pyc files once
        wall(args)
    for _ in range(a.repeats):
        for name, args in COMMANDS.items():
            times[name].append(wall(args))
    med = {name: statistics.median(ts) for name, ts in times.items()}
    base = med["import numpy, scipy (baseline)"]
    rows = [{"command": name, "median_s": round(t, 4), "ratio_to_baseline": round(t / base, 2)}
            for name, t in med.items()]
    print(f"{'command':34s} {'median s':>9s} {'x baseline':>10s}")
    for r in rows:
        print(f"{r['command']:34s} {r['median_s']:9.3f} {r['ratio_to_baseline']:10.2f}")
    Path(a.out).write_text(json.dumps({"repeats": a.repeats, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
