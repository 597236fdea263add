"""Peak memory of the README's commands (issue 34, item 3: at most 1 GB each).

Every ``dpderive`` line that README.md documents for the accountant and the f-DP toolkit
(``epsilon``, ``delta``, ``calibrate``, ``tradeoff``, ``region``, ``tv``, ``risk``, ``sweep``; the
README's code blocks, continuation lines joined), ``check`` of one example claim file, a few
heavier sampled queries (``EXTRA``), and with ``--report`` a cold ``dpderive report`` of the
built-in papers, each runs as a fresh process in a temporary directory (plots and reports
land there; ``examples/...`` arguments point into the checkout; a ``.parquet`` output becomes
``.csv`` where pyarrow is not installed) with a fresh ``DPDERIVE_CACHE``.  Measured per command:

* ``tree_rss_mb``: the peak over time of the summed RSS of the process and all its
  descendants (``/proc``, sampled every ``INTERVAL`` s; pages shared between processes count
  once per process, as ``ps`` shows them);
* ``tree_pss_mb``: the same sum in PSS (shared pages divided among their sharers: what the
  tree really holds), sampled alike;
* ``max_rss_mb``: the largest single process's peak RSS (``wait4``'s ``ru_maxrss``, exact, not
  sampled): a lower bound for ``tree_rss_mb`` that catches spikes shorter than the interval;
* ``seconds``: wall time.

The figure compared with the 1 GB target (``LIMIT_MB``) is max(tree_rss_mb, max_rss_mb).
Targets are reported, not asserted.  Linux only (``/proc``).

    python3 benchmarks/bench_memory.py [--report] [--only SUBSTRING] [--out benchmarks/results_memory.json]
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results_memory.json"
INTERVAL = 0.2
LIMIT_MB = 1024
DOCUMENTED = ("epsilon", "delta", "calibrate", "tradeoff", "region", "tv", "risk", "sweep")
#: heavier sampled queries than the README's (issue 34's list): name -> argv after ``dpderive``
EXTRA = {
    "tradeoff q=0.01 s=0.15 T=100": "tradeoff --sigma 0.15 --sampling-rate 0.01 --steps 100",
    "tradeoff q=0.01 s=0.15 T=1000": "tradeoff --sigma 0.15 --sampling-rate 0.01 --steps 1000",
    "tradeoff q=0.001 s=0.15 T=1e4": "tradeoff --sigma 0.15 --sampling-rate 0.001 --steps 10000",
    "risk q=0.01 s=0.8 T=1000": "risk --sigma 0.8 --sampling-rate 0.01 --steps 1000",
    "region q=0.01 s=0.15 T=1000": "region --sigma 0.15 --sampling-rate 0.01 --steps 1000",
    "epsilon pld q=0.01 s=0.15 T=100": "epsilon --sigma 0.15 --sampling-rate 0.01 --steps 100 "
                                       "--delta 1e-5 --method pld",
    "epsilon all q=0.01 s=0.15 T=1000": "epsilon --sigma 0.15 --sampling-rate 0.01 --steps 1000 "
                                        "--delta 1e-5 --method all",
    "tv q=0.001 eps=0.5 k=1e5": "tv --epsilon 0.5 --k 100000 --sampling-rate 0.001",
    "delta all q=0.001 s=0.15 T=1e4": "delta --sigma 0.15 --sampling-rate 0.001 --steps 10000 "
                                      "--epsilon 1 --method all",
}
CHECK_FILE = "examples/rdp_facts.toml"


def readme_commands() -> dict[str, list[str]]:
    """The README's ``dpderive <DOCUMENTED>`` lines (argv after ``dpderive``), in order, once each."""
    out: dict[str, list[str]] = {}
    text = (ROOT / "README.md").read_text()
    for block in text.split("```bash")[1:]:
        body = block.split("```", 1)[0].replace("\\\n", " ")
        for line in body.splitlines():
            argv = shlex.split(line, comments=True)
            if (len(argv) > 1 and argv[0] == "dpderive" and argv[1] in DOCUMENTED
                    and "--scheduler" not in argv):          # a cluster: not on this machine
                out.setdefault(" ".join(argv[1:]), argv[1:])
    return out


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    return kids


def _tree(pid: int) -> list[int]:
    kids, out, todo = _children(), [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def _kb(path: str, field: str) -> int:
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(argv: list[str], cache: str) -> dict:
    """Run ``python -m dpderive.cli argv`` in a temporary directory; its memory and time."""
    args = [a if not a.startswith("examples/") else str(ROOT / a) for a in argv]
    env = dict(os.environ, DPDERIVE_CACHE=cache, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as cwd, open(os.path.join(cwd, ".err"), "w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "dpderive.cli", *args], cwd=cwd, env=env,
                                stdout=subprocess.DEVNULL, stderr=err)
        rss = pss = 0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            tree = _tree(proc.pid)
            rss = max(rss, sum(_kb(f"/proc/{p}/status", "VmRSS:") for p in tree))
            pss = max(pss, sum(_kb(f"/proc/{p}/smaps_rollup", "Pss:") for p in tree))
            time.sleep(INTERVAL)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read()[-300:].strip()
    row = {"tree_rss_mb": round(rss / 1024, 1), "tree_pss_mb": round(pss / 1024, 1),
           "max_rss_mb": round(usage.ru_maxrss / 1024, 1), "seconds": round(seconds, 2),
           "exit": proc.returncode}
    row["peak_mb"] = max(row["tree_rss_mb"], row["max_rss_mb"])
    row["over_limit"] = row["peak_mb"] > LIMIT_MB
    if proc.returncode:
        row["stderr"] = tail
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", action="store_true", help="also a cold `dpderive report` (minutes)")
    ap.add_argument("--only", help="run only the commands whose name contains this")
    ap.add_argument("--out", default=str(OUT))
    a = ap.parse_args()
    cmds = {name: argv for name, argv in readme_commands().items()}
    cmds.update({name: shlex.split(line) for name, line in EXTRA.items()})
    cmds[f"check {CHECK_FILE}"] = ["check", CHECK_FILE]
    if a.report:
        cmds["report (built-in papers, cold)"] = ["report", "--out", "REPORT_DIR"]
    if importlib.util.find_spec("pyarrow") is None:       # README's Parquet example: CSV instead
        cmds = {k: [x[:-len(".parquet")] + ".csv" if x.endswith(".parquet") else x for x in v]
                for k, v in cmds.items()}
    if a.only:
        cmds = {k: v for k, v in cmds.items() if a.only in k}
    load_start = os.getloadavg()
    rows = []
    print(f"{'command':70s} {'peak MB':>8s} {'tree RSS':>8s} {'tree PSS':>8s} {'max RSS':>8s} {'s':>7s}")
    for name, argv in cmds.items():
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as rep:
            r = measure([rep if x == "REPORT_DIR" else x for x in argv], cache)
        rows.append({"command": name, **r})
        flag = "  > 1 GB" if r["over_limit"] else ("  FAILED" if r["exit"] else "")
        print(f"{name[:70]:70s} {r['peak_mb']:8.0f} {r['tree_rss_mb']:8.0f} {r['tree_pss_mb']:8.0f} "
              f"{r['max_rss_mb']:8.0f} {r['seconds']:7.1f}{flag}", flush=True)
    res = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
           "machine": {"cpu_count": os.cpu_count(), "python": sys.version.split()[0],
                       "load_average_at_start": list(load_start),
                       "load_average_at_end": list(os.getloadavg())},
           "interval_s": INTERVAL, "limit_mb": LIMIT_MB, "rows": rows}
    Path(a.out).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
