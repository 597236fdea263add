"""How long checking takes: cold and warm ``dpderive check`` of each seed paper, each example claim
file (examples/*.toml) and each file of the claim-file corpus (benchmarks/corpus/*.toml, when
present), serially and on 2 workers; the start-up of ``show``/``list``; and the slowest claims
with where their time goes (issue 20, item 5).

Every ``check`` is a fresh process (``python -m dpderive.cli check ... --json``).  A *cold* run
starts from an empty verdict cache (a temporary ``DPDERIVE_CACHE``); the *warm* runs repeat the
command on the cache the cold run filled.  Medians over ``--cold-repeats`` / ``--warm-repeats``
runs; the serial and the 2-worker outputs are compared (they must be identical).

The slowest claims (by the check time their cached verdicts carry, ``Verdict.seconds``, from the
cold runs of the first ``--workers`` value) are checked again in this process under a stack sampler that files each sample
under the first of: *confirmation* (a frame named ``*confirm*``, ``*certif*``, ``*ball*``,
``_stable`` or python-flint), *truth* (``derive/truths*.py``, ``external_bounds.py``, a paper's
``_truth.py``), *search* (``derive/search.py``), *sympy* (any SymPy frame: simplification, sign,
diff, limits, lambdify, evalf outside the search) and *other*; ``symbolic_zero_seconds`` is the
exact time spent in ``derive.verify.symbolic_zero`` (``derive.budget.STATS``).  Verdicts are not
touched: the sampler only reads stacks.

    python3 benchmarks/bench_check.py [--only seeds|all-seeds|examples|corpus|startup ...] [--workers 1 2]
        [--cold-repeats 1] [--warm-repeats 3] [--slowest 10] [--out benchmarks/results_check.json]

Load average (1, 5, 15 min) is recorded before and after: on a shared machine timings are noisy.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ("asoodeh2021", "zheng2020", "ghazi_issa")


def _env(cache: str) -> dict:
    env = dict(os.environ, DPDERIVE_CACHE=cache)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run_cli(args: list[str], cache: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "dpderive.cli", *args], cwd=ROOT, env=_env(cache),
                       capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"dpderive {' '.join(args)} failed: {r.stderr.strip()[-2000:]}")
    return dt, r.stdout


def _median(xs):
    return round(statistics.median(xs), 3) if xs else None


def targets(only: set[str]) -> list[dict]:
    out = []
    if "all-seeds" in only:
        out.append({"name": "all seed papers", "kind": "seed papers", "args": []})
    if "seeds" in only:
        out += [{"name": k, "kind": "seed paper", "args": ["--paper", k]} for k in SEEDS]
    if "examples" in only:
        out += [{"name": str(p.relative_to(ROOT)), "kind": "example", "args": [str(p.relative_to(ROOT))]}
                for p in sorted((ROOT / "examples").glob("*.toml"))]
    if "corpus" in only and (ROOT / "benchmarks" / "corpus").is_dir():
        out += [{"name": str(p.relative_to(ROOT)), "kind": "corpus", "args": [str(p.relative_to(ROOT))]}
                for p in sorted((ROOT / "benchmarks" / "corpus").glob("*.toml"))]
    if "papers" in only and (ROOT / "benchmarks" / "corpus" / "papers").is_dir():
        out += [{"name": str(p.relative_to(ROOT)), "kind": "real paper", "args": [str(p.relative_to(ROOT))]}
                for p in sorted((ROOT / "benchmarks" / "corpus" / "papers").glob("*.toml"))]
    return out


def bench_target(t: dict, workers: list[int], cold_repeats: int, warm_repeats: int, keep: dict) -> dict:
    res = {"name": t["name"], "kind": t["kind"], "cold": {}, "warm": {}}
    outputs = {}
    for w in workers:
        cold, warm = [], []
        for i in range(cold_repeats):
            cache = tempfile.mkdtemp(prefix="dpderive-bench-")
            dt, out = run_cli(["check", *t["args"], "--workers", str(w), "--json"], cache)
            cold.append(dt)
            if i == cold_repeats - 1:
                for _ in range(warm_repeats):
                    dtw, outw = run_cli(["check", *t["args"], "--workers", str(w), "--json"], cache)
                    warm.append(dtw)
                    if outw != out:
                        res.setdefault("warm_differs", []).append(w)
                if w == workers[0]:
                    keep[t["name"]] = cache     # the slowest claims are read from it
                else:
                    shutil.rmtree(cache, ignore_errors=True)
            else:
                shutil.rmtree(cache, ignore_errors=True)
        outputs[w] = out
        res["cold"][str(w)] = {"median_s": _median(cold), "runs_s": [round(x, 3) for x in cold]}
        res["warm"][str(w)] = {"median_s": _median(warm), "runs_s": [round(x, 3) for x in warm]}
        print(f"  {t['name']}: workers={w} cold {_median(cold)} s, warm {_median(warm)} s",
              file=sys.stderr, flush=True)
    recs = json.loads(next(iter(outputs.values())))
    res["claims"] = len(recs)
    res["verdicts"] = dict(Counter(r["verdict"] for r in recs))
    res["serial_equals_parallel"] = len(set(outputs.values())) == 1
    return res


def bench_startup(repeats: int) -> dict:
    """Warm start-up of the commands of issue 20, item 2 (the index and verdicts cached)."""
    cache = tempfile.mkdtemp(prefix="dpderive-bench-")
    cmds = {"show asoodeh2021.sec3.eq18": ["show", "asoodeh2021.sec3.eq18"],
            "list --paper ghazi_issa": ["list", "--paper", "ghazi_issa"],
            "show asoodeh2021.thm4.f": ["show", "asoodeh2021.thm4.f"]}
    out = {}
    for name, args in cmds.items():
        run_cli(args, cache)                      # builds the index, checks what it shows
        out[name] = _median([run_cli(args, cache)[0] for _ in range(repeats)])
    t = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import derive.papers, derive.registry as r; r.load_all()"], cwd=ROOT,
                       env=_env(cache), check=True)
        t.append(time.perf_counter() - t0)
    out["import derive.papers, derive.registry; load_all()"] = _median(t)
    shutil.rmtree(cache, ignore_errors=True)
    return out


# ----------------------------------------------------------------------------- slowest claims

_CONFIRM = ("confirm", "certif", "ball", "_stable")


def _category(frame) -> str:
    files, names = [], []
    f = frame
    while f is not None:
        files.append(f.f_code.co_filename.replace("\\", "/"))
        names.append(f.f_code.co_name)
        f = f.f_back
    if any(any(k in n for k in _CONFIRM) for n in names) or any("/flint/" in p for p in files):
        return "confirmation"
    if any("/derive/truths/" in p or p.endswith(("derive/truths_pmf.py", "derive/truths_curves.py",
                                                   "derive/external_bounds.py", "/_truth.py")) for p in files):
        return "truth"
    if any(p.endswith("derive/search.py") for p in files):
        return "search"
    if any("/sympy/" in p for p in files):
        return "sympy"
    return "other"


class Sampler:
    """Samples the calling thread's stack every ``interval`` seconds from a helper thread."""

    def __init__(self, interval: float = 0.005):
        self.interval, self.counts = interval, Counter()
        self.target = threading.get_ident()
        self._stop = threading.Event()

    def _run(self):
        while not self._stop.wait(self.interval):
            fr = sys._current_frames().get(self.target)
            if fr is not None:
                self.counts[_category(fr)] += 1

    def __enter__(self):
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def slowest_claims(caches: dict[str, str], n: int, names: dict[str, dict]) -> list[dict]:
    """The ``n`` claims with the longest cold check (their cached ``Verdict.seconds``), each checked
    again here under the sampler."""
    sys.path.insert(0, str(ROOT))
    from derive import budget, registry
    from derive.claimfile import load_file

    from dpderive.execution import DiskCache, verdict_key
    timed = []
    for name, cache in caches.items():
        t = names[name]
        if t["kind"] == "seed papers":
            registry.load_all()
            cls = registry.claims(None)
        elif t["kind"] == "seed paper":
            registry.load_paper(name)
            cls = registry.claims(name)
        else:
            key = load_file(str(ROOT / t["args"][0]))
            cls = registry.claims(key)
        store = DiskCache("verdicts", Path(cache) / "verdicts")
        for c in cls:
            v = store.get(verdict_key(c))
            if v is not None:
                timed.append((v.seconds, name, c, v))
    timed.sort(key=lambda x: -x[0])
    out = []
    for sec, name, c, v in timed[:n]:
        budget.STATS["symbolic_seconds"] = 0.0
        with Sampler() as s:
            t0 = time.perf_counter()
            again = c.check(refresh=True)
            wall = time.perf_counter() - t0
        total = sum(s.counts.values()) or 1
        out.append({"id": c.id, "target": name, "kind": c.kind, "checker": c.checker,
                    "verdict": v.status, "same_verdict_again": again.status == v.status,
                    "cold_seconds": round(sec, 3), "rerun_seconds": round(wall, 3),
                    "breakdown_s": {k: round(wall * cnt / total, 3) for k, cnt in s.counts.most_common()},
                    "symbolic_zero_seconds": round(budget.STATS["symbolic_seconds"], 3)})
        print(f"  slow: {c.id} {sec:.1f} s cold; {out[-1]['breakdown_s']}", file=sys.stderr, flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", default=["seeds", "examples", "corpus", "papers", "startup"],
                    choices=["seeds", "all-seeds", "examples", "corpus", "papers", "startup"],
                    help="all-seeds: one bare `check` of every seed paper (instead of one per paper)")
    ap.add_argument("--keep", default=None, metavar="DIR",
                    help="keep the cold runs' caches (of the first --workers value) under DIR")
    ap.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--cold-repeats", type=int, default=1)
    ap.add_argument("--warm-repeats", type=int, default=3)
    ap.add_argument("--slowest", type=int, default=10)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results_check.json"))
    a = ap.parse_args()
    import compileall
    for pkg in ("dpderive", "numeric", "derive"):
        compileall.compile_dir(str(ROOT / pkg), quiet=1)
    only = set(a.only)
    result = {"machine": {"cores": os.cpu_count(),
                          "affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
                          "python": sys.version.split()[0],
                          "loadavg_start": [round(x, 2) for x in os.getloadavg()],
                          "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
              "settings": {"workers": a.workers, "cold_repeats": a.cold_repeats,
                           "warm_repeats": a.warm_repeats},
              "corpus_present": (ROOT / "benchmarks" / "corpus").is_dir()}
    if "startup" in only:
        print("startup (warm)", file=sys.stderr, flush=True)
        result["startup_warm_median_s"] = bench_startup(a.warm_repeats)
    keep: dict[str, str] = {}
    ts = targets(only)
    result["targets"] = []
    for t in ts:
        print(f"check {t['name']}", file=sys.stderr, flush=True)
        result["targets"].append(bench_target(t, a.workers, a.cold_repeats, a.warm_repeats, keep))
    if keep and a.slowest:
        result["slowest_claims"] = slowest_claims(keep, a.slowest, {t["name"]: t for t in ts})
    for name, c in keep.items():
        if a.keep:
            dest = Path(a.keep) / name.replace("/", "_").replace(" ", "_")
            shutil.rmtree(dest, ignore_errors=True)
            shutil.move(c, dest)
        else:
            shutil.rmtree(c, ignore_errors=True)
    result["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    result["machine"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
