"""The long profile of issue 34's fuzzing: every command, claim files and the Python API,
seeded, with the heavy inputs the CI profile leaves out (huge counts and grids, 1000 workers,
a dask scheduler that is not there, 300-claim files, ...).

    python benchmarks/bench_fuzz.py --cli 2000 --claims 300 --api 300 --seed 34

Calls run in this process (``tests/fuzz_gen.py``'s runners, a SIGALRM timeout of ``--timeout``
s), except the heavy ones and every ``--sample``-th other command line, which run as their own
process (killed after ``--timeout`` s, address space capped, peak memory from ``os.wait4``).
Prints per command the calls, answers, clean refusals, broken promises and timeouts, and writes
``benchmarks/results_fuzz.json``: the counts, the broken promises grouped by the pattern of their
reason (each group with its shortest example shrunk to a minimal reproducer, and the traceback's
last frames of a bug rerun with ``--debug``) and the calls that timed out.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import random
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import fuzz_gen as F  # noqa: E402

OUT = ROOT / "benchmarks" / "results_fuzz.json"


def pattern(reason: str) -> str:
    """A broken promise's reason with what varies between calls of one cause taken out:
    paths, numbers, quoted values, progress lines (where an exception was raised is kept)."""
    where = re.search(r"\[raised at ([^:\]]+)", reason)
    r = re.sub(r"\s*\[raised at [^\]]*\]", "", reason)
    r = re.sub(r"\[(sweep|checking)[^\]]*\][^\n]*\n", "", r)
    r = re.sub(r"/[^\s'\"]+", "PATH", r)
    r = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", r)
    r = re.sub(r"np\.float64\(([^)]*)\)", r"\1", r)
    r = re.sub(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|\b(nan|inf)\b", "N", r)
    r = re.sub(r"\s+", " ", r).strip()[:160]
    return f"{r} [raised at {where.group(1)}]" if where else r


def family(command: str) -> str:
    """The command a count belongs to, without the claim file's shape or the sweep's target."""
    name = command.split(" (")[0]
    return "sweep" if name.startswith("sweep ") else name


def source_tree() -> dict:
    """The commit the run tested and the product files changed beside it (the tree is shared)."""
    import subprocess
    git = lambda *a: subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()  # noqa: E731
    changed = [ln[3:] for ln in git("status", "--porcelain").splitlines()
               if ln[3:].startswith(("dpderive/", "derive/", "numeric/"))]
    return {"commit": git("rev-parse", "HEAD"), "uncommitted_product_files": changed}


def cli_outcome(case: F.Case, workdir: str, timeout: float, own_process: bool) -> F.Outcome:
    if own_process:
        return F.run_cli_process(case.argv, timeout, cwd=workdir)
    return F.run_cli_inprocess(case.argv, timeout, cwd=workdir)


def shrink(argv: list, same, budget: int = 40, keep=("--workers",)) -> list:
    """A shorter argv that still breaks the promise the same way (``same(argv)``): drop a flag with
    its value, or one token, while that holds (greedy, at most ``budget`` runs).  The flags in
    ``keep`` stay (without ``--workers 1``, ``check`` would start worker processes)."""
    best = list(argv)
    runs = 0
    changed = True
    while changed and runs < budget:
        changed = False
        i = 1
        while i < len(best) and runs < budget:
            n = 2 if best[i].startswith("--") and i + 1 < len(best) and not best[i + 1].startswith("--") else 1
            if best[i] in keep:
                i += n
                continue
            trial = best[:i] + best[i + n:]
            runs += 1
            if same(trial):
                best, changed = trial, True
            else:
                i += n
    return best


def debug_frames(argv: list, workdir: str, timeout: float, own_process: bool) -> list:
    """The last lines of the traceback a bug prints with ``--debug``."""
    o = cli_outcome(F.Case("debug", ["--debug", *argv]), workdir, timeout, own_process)
    lines = [ln for ln in o.err.splitlines() if ln.strip()]
    frames = [ln.strip() for ln in lines if ln.strip().startswith("File ")]
    return frames[-3:] + lines[-1:]


class Tally:
    """Counts per command and the broken promises, grouped by (command family, pattern)."""

    def __init__(self):
        self.counts = collections.defaultdict(lambda: collections.Counter())
        self.groups: dict = {}
        self.timeouts: list = []

    def add(self, command: str, status: str, record: dict | None = None, reason: str = ""):
        self.counts[command]["calls"] += 1
        self.counts[command][status] += 1
        if status == "timeout":
            self.timeouts.append(dict(command=command, **(record or {})))
        elif status == "broken":
            key = (family(command), pattern(reason))
            g = self.groups.setdefault(key, {"command": key[0], "pattern": key[1], "count": 0, "examples": []})
            g["count"] += 1
            g["examples"].append(dict(reason=reason, **record))

    def table(self) -> str:
        cols = ("calls", "answered", "refused", "broken", "timeout")
        rows = [f"{'command':44s}" + "".join(f"{c:>10s}" for c in cols)]
        total = collections.Counter()
        for cmd in sorted(self.counts):
            total.update(self.counts[cmd])
            rows.append(f"{cmd[:44]:44s}" + "".join(f"{self.counts[cmd][c]:10d}" for c in cols))
        rows.append(f"{'total':44s}" + "".join(f"{total[c]:10d}" for c in cols))
        return "\n".join(rows)


def run_cli(cases, tally, workdir, timeout, sample, label):
    t0 = time.time()
    for i, case in enumerate(cases):
        own = case.isolate or (sample and i % sample == 0)
        o = cli_outcome(case, workdir, timeout, own)
        why = F.broken_promise(o)
        status = "timeout" if o.rc is None else "broken" if why else "answered" if o.rc == 0 else "refused"
        rec = {"argv": case.argv, "rc": o.rc, "seconds": round(o.seconds, 2),
               "own_process": bool(own), "isolate": case.isolate,
               "files": {p: F.file_text(b) for p, b in case.files.items()}}
        if o.rss_mb is not None:
            rec["rss_mb"] = round(o.rss_mb)
        tally.add(case.command, status, rec, why or "")
        if (i + 1) % 50 == 0:
            print(f"[{label}] {i + 1}/{len(cases)} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)


def run_api(cases, tally, timeout):
    ns = F.api_namespace()
    t0 = time.time()
    for i, case in enumerate(cases):
        if case.isolate:
            status, detail, rss = F.run_api_process(case, timeout)
        else:
            (status, detail), rss = F.run_api_case(case, timeout, ns), None
        status = {"ok": "answered"}.get(status, status)
        rec = {"source": case.source, "detail": detail}
        if rss is not None:
            rec["rss_mb"] = round(rss)
        tally.add(f"api: {case.label}", status, rec, detail if status == "broken" else "")
        if (i + 1) % 50 == 0:
            print(f"[api] {i + 1}/{len(cases)} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)


def finish_groups(tally, workdir, timeout) -> list:
    """Each group: its examples sorted shortest first (three kept), the shortest CLI one shrunk
    to a minimal reproducer (run as that example ran: in this process or as its own) and, for a
    bug, its traceback's last frames."""
    out = []
    for g in sorted(tally.groups.values(), key=lambda g: -g["count"]):
        ex = sorted(g["examples"], key=lambda e: len(" ".join(e.get("argv", [])) or e.get("source", "")))
        g["examples"] = ex[:3]
        first = ex[0]
        if "argv" in first:
            own = first["own_process"]
            trial_timeout = min(timeout, max(5.0, 3 * first["seconds"]))

            def same(argv, g=g, own=own, trial_timeout=trial_timeout):
                o = cli_outcome(F.Case("shrink", argv), workdir, trial_timeout, own)
                return pattern(F.broken_promise(o) or "") == g["pattern"]
            g["minimal_argv"] = shrink(first["argv"], same, budget=15 if own else 40)
            if first["rc"] in (1, 70):
                g["debug"] = debug_frames(g["minimal_argv"], workdir, trial_timeout, own)
        out.append(g)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", type=int, default=2000, help="command lines (every command)")
    ap.add_argument("--claims", type=int, default=300, help="claim files (check / list / show)")
    ap.add_argument("--api", type=int, default=300, help="Python API calls")
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--timeout", type=float, default=F.MAX_SECONDS, help="seconds per call (default 60)")
    ap.add_argument("--sample", type=int, default=20,
                    help="run every N-th command line as its own process (peak memory); 0: none")
    ap.add_argument("--no-shrink", action="store_true", help="report the examples as drawn")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)

    limit = 12 << 30              # a runaway allocation in this process fails instead of starving the machine
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    tree = source_tree()
    rng = random.Random(args.seed)
    tally = Tally()
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="dpderive-fuzz-") as workdir:
        os.environ["DPDERIVE_CACHE"] = os.path.join(workdir, "cache")
        with contextlib.chdir(workdir):
            cli = [F.draw_cli_case(rng.choice, workdir, "long") for _ in range(args.cli)]
            claims = [F.draw_claim_case(rng.choice, workdir, "long") for _ in range(args.claims)]
            api = [F.draw_api_case(rng.choice, "long") for _ in range(args.api)]
        run_api(api, tally, args.timeout)
        run_cli(cli, tally, workdir, args.timeout, args.sample, "cli")
        run_cli(claims, tally, workdir, args.timeout, args.sample, "claims")
        groups = tally.groups.values() if args.no_shrink else finish_groups(tally, workdir, args.timeout)
        groups = sorted(groups, key=lambda g: -g["count"])
    seconds = time.time() - t0
    print(tally.table())
    print(f"\n{len(groups)} distinct broken promises; {len(tally.timeouts)} calls over {args.timeout:g} s; "
          f"{seconds:.0f} s")
    for g in groups:
        print(f"  {g['count']:4d}  [{g['command']}] {g['pattern']}")
    result = {"run": {"seed": args.seed, "cli": args.cli, "claims": args.claims, "api": args.api,
                      "timeout": args.timeout, "sample": args.sample, "seconds": round(seconds),
                      "load_average": os.getloadavg(), "python": sys.version.split()[0], **tree},
              "counts": {cmd: dict(c) for cmd, c in sorted(tally.counts.items())},
              "broken": list(groups), "timeouts": tally.timeouts}
    Path(args.out).write_text(json.dumps(result, indent=1, default=str) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
