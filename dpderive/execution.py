"""One execution layer for independent tasks: claim checks, sweep points, figure builds.

``run_tasks(fn, tasks)`` calls ``fn(task)`` for every task and returns one
``TaskResult`` per task, **in the input order**, whichever way the work ran:

- ``workers=1`` and no scheduler: serially, in this process;
- ``workers=N > 1``: on N local processes through joblib's loky backend;
- ``scheduler="tcp://host:port"``: on a dask.distributed cluster (``pip install
  dpderive[distributed]``; start ``dask scheduler`` and ``dask worker ADDRESS``).

Work that crosses processes is sent by name: ``fn`` must be a module-level
function of an importable module and a task carries names and parameters
(a paper key and a claim id, an argv list), never a lambdified function or a
closure.  A task that raises is reported (``TaskResult.error`` names the
exception and its message) and every other result is kept.

Progress: a tqdm bar when stderr is a terminal; otherwise (CI, a cluster job's
log) a short line per stage with counts and elapsed seconds.

Also here: ``load_source`` and ``check_claim``, the worker side of a parallel
``dpderive check`` (a worker loads the claim's paper or claim file into its own
registry and returns the claim's Verdict), and the on-disk verdict cache.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence


@dataclass
class TaskResult:
    """The outcome of one task: ``value`` when ``ok``, else ``error`` ("Type: message")."""

    index: int
    name: str
    ok: bool
    value: Any = None
    error: str = ""
    seconds: float = 0.0


def _call(fn: Callable, task) -> tuple[bool, Any, str, float]:
    """Run one task where it lands (any process); never raises an ``Exception``."""
    t0 = time.perf_counter()
    try:
        return True, fn(task), "", time.perf_counter() - t0
    except Exception as exc:  # reported to the caller with the task's name, the others go on
        from derive.errors import plain_reason
        return False, None, plain_reason(exc), time.perf_counter() - t0


class Progress:
    """Progress of a fan-out: a tqdm bar on a terminal (the last task finished and the slowest
    so far beside it, with tqdm's ETA); elsewhere (a log, a pipe) a line at most every
    ``LINE_SECONDS`` with the count, the ETA and the slowest so far.  At the end, the five
    slowest tasks and their seconds (when any took a second)."""

    LINE_SECONDS = 5.0

    def __init__(self, total: int, desc: str, enabled: bool = True, backend: str = "serial",
                 stream=None):
        self.total, self.desc, self.enabled = total, desc, enabled and total > 0
        self.stream = stream or sys.stderr
        self.done = self.failed = 0
        self.t0 = self._last = time.perf_counter()
        self.bar = None
        self.times: list[tuple[float, str]] = []
        self.running: dict[str, float] = {}       # task name -> when it started (where known)
        self._stop = None
        if not self.enabled:
            return
        if self.stream.isatty():
            from tqdm import tqdm
            self.bar = tqdm(total=total, desc=desc, file=self.stream, leave=True, dynamic_ncols=True)
        else:
            self._line(f"{total} tasks on {backend}")
        import threading
        self._stop = threading.Event()
        threading.Thread(target=self._tick, name="dpderive-progress", daemon=True).start()

    def started(self, name: str) -> None:
        """``name`` began running (called where the runner knows it: in this process, or as it
        hands a task to a local worker)."""
        self.running[name] = time.perf_counter()

    def _tick(self) -> None:
        """While nothing finishes, say every 2 x LINE_SECONDS which tasks are running and since when."""
        while not self._stop.wait(1.0):
            now = time.perf_counter()
            if now - self._last < 2 * self.LINE_SECONDS:
                continue
            busy = sorted(((now - t0, n) for n, t0 in list(self.running.items())), reverse=True)
            if not busy:
                continue
            self._last = now
            text = ", ".join(f"{n} ({t:.0f} s)" for t, n in busy[:3])
            if self.bar is not None:
                self.bar.set_postfix_str(f"running {text}")
            else:
                self._line(f"{self.done}/{self.total} done; running {text}")

    def _line(self, what: str) -> None:
        print(f"[{self.desc}] {what} ({time.perf_counter() - self.t0:.1f} s)", file=self.stream,
              flush=True)

    def _slowest(self, n: int = 1) -> list[tuple[float, str]]:
        return sorted(self.times, reverse=True)[:n]

    def update(self, ok: bool = True, name: str = "", seconds: float = 0.0) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        self.times.append((seconds, name))
        self.running.pop(name, None)
        if not self.enabled:
            return
        (top_s, top), = self._slowest()
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix_str((f"{self.failed} failed; " if self.failed else "")
                                     + f"last {name[-40:]}; slowest {top[-40:]} ({top_s:.1f} s)")
            return
        now = time.perf_counter()
        if self.done < self.total and now - self._last >= self.LINE_SECONDS:
            self._last = now
            rate = (now - self.t0) / self.done
            self._line(f"{self.done}/{self.total} done" + (f", {self.failed} failed" if self.failed else "")
                       + f"; about {rate * (self.total - self.done):.0f} s to go; slowest so far "
                       f"{top} ({top_s:.1f} s)")

    def close(self) -> None:
        if not self.enabled:
            return
        self._stop.set()
        if self.bar is not None:
            self.bar.close()
        else:
            self._line(f"{self.done}/{self.total} done"
                       + (f", {self.failed} failed" if self.failed else ""))
        slow = [(t, n) for t, n in self._slowest(5) if t >= 1.0]
        if slow and self.total > 1:
            print(f"[{self.desc}] slowest: " + ", ".join(f"{n} {t:.1f} s" for t, n in slow),
                  file=self.stream, flush=True)


def backend_name(workers: int = 1, scheduler: str | None = None) -> str:
    if scheduler:
        return f"dask scheduler {scheduler}"
    return "1 process" if workers <= 1 else f"{workers} local processes (joblib/loky)"


def _check_workers(workers) -> int:
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        from derive.core import DomainError
        raise DomainError("workers", workers, "integers >= 1")
    return workers


def run_tasks(fn: Callable, tasks: Sequence, *, workers: int = 1, scheduler: str | None = None,
              progress: bool = True, desc: str = "tasks", names: Sequence[str] | None = None,
              on_result: Callable[[TaskResult], None] | None = None,
              parent_works: bool = False) -> list[TaskResult]:
    """Run ``fn(task)`` for every task; return the TaskResults in the order of ``tasks``.

    ``on_result`` is called in this process as each result arrives (in completion
    order when the work is parallel): the sweep writes its resume cache there.
    ``parent_works`` (local workers only): this process is one of the ``workers``, taking tasks from
    the same queue as ``workers - 1`` loky processes (it has already paid the start-up a fresh worker
    would pay; ``fn`` must then be safe to run here too).
    """
    tasks = list(tasks)
    # never more local processes than tasks or cores (more would only wait: 1000 processes for
    # two tasks hung joblib and leaked its semaphores)
    workers = min(_check_workers(workers), max(1, len(tasks)), available_cores())
    names = [str(t) for t in tasks] if names is None else list(names)
    client = _connect(scheduler) if scheduler and tasks else None  # fail before any progress line
    prog = Progress(len(tasks), desc, progress, backend_name(workers, scheduler))
    results: list[TaskResult | None] = [None] * len(tasks)

    def got(i: int, out: tuple) -> None:
        ok, value, err, sec = out
        r = TaskResult(i, names[i], ok, value, err, sec)
        results[i] = r
        prog.update(ok, names[i], sec)
        if on_result is not None:
            on_result(r)

    try:
        if not tasks:
            pass
        elif client is not None:
            _run_dask(fn, tasks, client, got)
        elif workers == 1:
            for i, t in enumerate(tasks):
                prog.started(names[i])
                got(i, _call(fn, t))
        elif parent_works and len(tasks) > 1:
            _run_joblib_and_parent(fn, tasks, workers, got, lambda i: prog.started(names[i]))
        else:
            _run_joblib(fn, tasks, workers, got)
    finally:
        prog.close()
        if client is not None:
            client.close()
    return results  # type: ignore[return-value]


def _run_joblib(fn, tasks, workers, got) -> None:
    from joblib import Parallel, delayed
    par = Parallel(n_jobs=workers, backend="loky", batch_size=1, return_as="generator_unordered")
    for i, out in par(delayed(_indexed)(fn, i, t) for i, t in enumerate(tasks)):
        got(i, out)


def _run_joblib_and_parent(fn, tasks, workers, got, started=lambda i: None) -> None:
    """``workers - 1`` loky processes and this process's main thread take the tasks from one queue,
    in their order.  One helper thread per loky process submits a task, waits for it and queues what
    comes back as the bytes the worker pickled: unpickling a result builds SymPy/mpmath numbers,
    which may set mpmath's process-wide precision for a moment, and must not run beside a task here.
    So ``got`` and the unpickling run in the main thread only (between its own tasks and at the end).
    The loky processes get the environment joblib gives ``workers`` processes (thread limits)."""
    import queue
    import threading

    executor = _loky_executor(workers)
    lock = threading.Lock()
    order = iter(range(len(tasks)))

    def take():
        with lock:
            i = next(order, None)
        if i is not None:
            started(i)
        return i

    back: queue.Queue = queue.Queue()

    def pump():
        try:
            while (i := take()) is not None:
                back.put(executor.submit(_indexed_pickled, fn, i, tasks[i]).result())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread
            back.put(exc)
        finally:
            back.put(None)

    helpers = [threading.Thread(target=pump, name=f"dpderive-loky-{k}", daemon=True)
               for k in range(workers - 1)]
    for h in helpers:
        h.start()
    running = len(helpers)

    def deliver(item) -> None:
        nonlocal running
        if item is None:
            running -= 1
        elif isinstance(item, BaseException):
            raise item
        else:
            i, payload = item
            got(i, pickle.loads(payload))

    while (i := take()) is not None:
        got(i, _call(fn, tasks[i]))
        while True:                                   # what the workers finished meanwhile
            try:
                deliver(back.get_nowait())
            except queue.Empty:
                break
    while running:
        deliver(back.get())
    for h in helpers:
        h.join()


def _loky_executor(workers: int):
    """The ``workers - 1`` loky processes that work beside this one (``parent_works``), with the
    environment joblib gives ``workers`` processes (thread limits); the same executor at every call
    with the same ``workers`` (loky reuses it).  Taken through joblib's factory, so that the executor
    joblib's own ``Parallel`` later reuses in this process carries joblib's temporary-folder manager."""
    from joblib.executor import get_memmapping_executor
    try:
        from joblib._parallel_backends import LokyBackend
        env = LokyBackend()._prepare_worker_env(n_jobs=workers)
    except Exception:  # noqa: BLE001 - a joblib without it: loky's default environment
        env = None
    ex = get_memmapping_executor(workers - 1, env=env)
    if not any(e is ex for e in _STARTED):
        _STARTED.append(ex)
    return ex


_STARTED: list = []     # the loky executors ``_loky_executor`` handed out (``release_workers``)


def release_workers() -> None:
    """Stop the local worker processes this process started (``prewarm``, a parallel
    ``check_claims``), which loky otherwise keeps idle for reuse, each holding SymPy and the
    papers it loaded (~170 MB): for a caller with no parallel work left (``report`` after its
    check, while it draws the figures).  A later parallel run starts fresh ones."""
    _stop_prewarmed()
    while _STARTED:
        try:
            _STARTED.pop().shutdown(wait=True, kill_workers=True)
        except Exception:  # noqa: BLE001 - already stopped or broken: nothing to release
            pass


_PREWARMED: list = []


def prewarm(papers: Sequence[str], workers: int, scheduler: str | None = None) -> None:
    """Start the loky processes of a parallel check now and have each import ``papers`` (paper keys)
    while this process loads its own registry: a worker's start-up then runs beside this process's
    instead of after it.  Nothing when the check is serial or on a dask cluster; never raises (the
    check starts its workers itself as before).  ``check_claims`` stops them when no claim needs
    checking."""
    workers = min(workers, available_cores())      # as run_tasks caps them
    if workers < 2 or scheduler or not papers:
        return
    try:
        ex = _loky_executor(workers)
        for _ in range(workers - 1):
            ex.submit(_load_papers, tuple(papers))
        _PREWARMED.append(ex)
    except Exception:  # noqa: BLE001 - an optimisation only
        pass


def cold_cache(cache: bool = True) -> bool:
    """No verdict can come from the cache (``cache`` off, or no verdict cached at all): then a check
    surely has claims to check and ``prewarm`` pays; otherwise it may have none."""
    return not cache or next(iter(cache_dir("verdicts").glob("*/*.pkl")), None) is None


def _load_papers(keys) -> None:
    from derive import registry
    for k in keys:
        registry.load_paper(k)


def _stop_prewarmed() -> None:
    while _PREWARMED:
        try:
            _PREWARMED.pop().shutdown(wait=False, kill_workers=True)
        except Exception:  # noqa: BLE001
            pass


def _indexed(fn, i, task):
    return i, _call(fn, task)


def _indexed_pickled(fn, i, task):
    """``_indexed`` with the outcome pickled here, in the worker: it travels and waits as bytes."""
    ok, value, err, sec = _call(fn, task)
    try:
        payload = pickle.dumps((ok, value, err, sec), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # a value that does not pickle: reported like a failed task
        from derive.errors import plain_reason
        payload = pickle.dumps((False, None, f"the result does not travel between processes "
                                f"({plain_reason(exc)})", sec))
    return i, payload


def _connect(scheduler: str):
    try:
        from distributed import Client
    except ImportError:
        raise RuntimeError("--scheduler needs dask.distributed: pip install 'dpderive[distributed]'") from None
    try:
        return Client(scheduler, timeout="20s", set_as_default=False)
    except OSError as exc:
        raise RuntimeError(f"--scheduler={scheduler!r}: cannot reach the dask scheduler ({exc})") from None


def _run_dask(fn, tasks, client, got) -> None:
    from distributed import as_completed
    futs = client.map(_indexed, [fn] * len(tasks), range(len(tasks)), tasks, pure=False)
    pos = {f.key: i for i, f in enumerate(futs)}
    for fut in as_completed(futs, loop=client.loop):
        if fut.status == "error":  # the worker died or the result did not travel
            exc = fut.exception()
            from derive.errors import plain_reason
            got(pos[fut.key], (False, None, f"the worker failed ({plain_reason(exc)})", 0.0))
        else:
            i, out = fut.result()
            got(i, out)
        fut.release()


# ----------------------------------------------------------------------------- claims

def load_source(source: str) -> None:
    """Register a source's claims in this process: a paper key (``registry.SOURCES``) or
    the path of a user claim file ending in ``.toml``."""
    from derive import registry
    if str(source).endswith(".toml"):
        from derive.claimfile import load_file  # written on another branch; imported lazily
        load_file(source)
        return
    keys = registry.source_keys()
    if source not in keys:
        raise KeyError(f"source={source!r} is neither a paper key ({', '.join(keys)}) "
                       "nor a .toml claim file")
    registry.load_paper(source)


def claim_source(claim) -> str | None:
    """What a worker loads to find ``claim``: its claim file (``registry.PAPERS[key]["file"]``,
    set by derive.claimfile), or its paper key; None when neither exists (checked in this process)."""
    from derive import registry
    p = registry.PAPERS.get(claim.paper, {}).get("file")
    if p and str(p).endswith(".toml"):
        return str(p)
    return claim.paper if claim.paper in registry.source_keys() else None


def check_claim(task: tuple[str, str]):
    """Worker side of a parallel check: ``(source, claim_id)`` -> the claim's Verdict."""
    from derive import registry
    source, cid = task
    if cid not in registry.CLAIMS:
        load_source(source)
    if cid not in registry.CLAIMS:
        raise KeyError(f"claim {cid!r} is not registered by {source!r}")
    return registry.CLAIMS[cid].check(refresh=True)  # a long-lived worker rechecks what it is sent


# ----------------------------------------------------------------------------- cache

def cache_dir(kind: str) -> Path:
    """``$DPDERIVE_CACHE/<kind>`` (default ``~/.cache/dpderive/<kind>``)."""
    root = os.environ.get("DPDERIVE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "dpderive")
    return Path(root) / kind


@lru_cache(maxsize=None)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def files_digest(paths: Iterable[Path | str]) -> str:
    """One digest of the named files' contents (sorted, each with its path)."""
    h = hashlib.sha256()
    for p in sorted({str(Path(p).resolve()) for p in paths}):
        st = os.stat(p)
        h.update(p.encode() + b"\0" + _file_digest(p, st.st_mtime_ns, st.st_size).encode() + b"\0")
    return h.hexdigest()


def _derive_root() -> Path:
    import derive
    return Path(derive.__file__).resolve().parent


def engine_files() -> list[Path]:
    """The checking engine every verdict depends on: derive/*.py (core, verify, symbols,
    parse, printing, paperkit, ...) and any subpackage of derive/ except the papers
    (truths, checkers)."""
    root = _derive_root()
    out = sorted(root.glob("*.py"))
    for sub in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in ("papers", "__pycache__")):
        out.extend(sorted(sub.rglob("*.py")))
    return out


def _module_files(fn) -> list[Path]:
    """The file defining a check function and, inside derive/papers/, its whole paper package."""
    import inspect
    while hasattr(fn, "func"):  # functools.partial
        fn = fn.func
    fn = inspect.unwrap(fn)
    mod = sys.modules.get(getattr(fn, "__module__", None) or "")
    f = getattr(mod, "__file__", None)
    if f is None:
        try:
            f = inspect.getsourcefile(fn)
        except TypeError:
            f = None
    if f is None:
        return []
    f = Path(f).resolve()
    papers = _derive_root() / "papers"
    if papers in f.parents and f.parent != papers:
        pkg = papers / f.relative_to(papers).parts[0]
        return sorted([*pkg.rglob("*.py"), *pkg.rglob("*.toml")])   # the formulas are declared in TOML
    return [f]


def claim_files(claim) -> list[Path]:
    """The sources a claim's verdict depends on beyond the engine: the module registering its
    check and, for a built-in paper, the whole paper package (its modules and the TOML declaring its
    formulas and claims). A generic claim (``definition``
    set) depends on nothing beyond its definition and the engine: its check lives in
    derive/paperkit.py or derive/claimfile/ and its whole input is in the definition, so
    editing a neighbouring claim leaves its cached verdict valid."""
    if getattr(claim, "definition", None):
        return []
    files = set(_module_files(claim.check_fn))
    pkg = _derive_root() / "papers" / str(claim.paper)
    if pkg.is_dir():
        files |= set(pkg.rglob("*.py")) | set(pkg.rglob("*.toml"))
    return sorted(files)


def verdict_key(claim) -> str:
    """Key of a claim's cached verdict: its id, its definition (claim-file claims carry a
    canonical text of their declaration), the source of the module (and paper package)
    registering its check, the checking engine's source, and the SymPy/mpmath versions."""
    import mpmath
    import sympy
    h = hashlib.sha256()
    for part in (claim.id, getattr(claim, "definition", "") or "", repr(getattr(claim, "artifact", None)),
                 files_digest(claim_files(claim)), files_digest(engine_files()),
                 sympy.__version__, mpmath.__version__, sys.version.split()[0]):
        h.update(str(part).encode() + b"\0")
    return h.hexdigest()


class DiskCache:
    """Pickled values under one directory, one file per key, written atomically."""

    def __init__(self, kind: str, directory: Path | str | None = None):
        self.dir = Path(directory) if directory is not None else cache_dir(kind)

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.pkl"

    def get(self, key: str, default=None):
        p = self._path(key)
        try:
            with open(p, "rb") as fh:
                return pickle.load(fh)
        except FileNotFoundError:
            return default
        except Exception:  # a truncated or stale file is a miss, recomputed and rewritten
            return default

    def put(self, key: str, value) -> None:
        p = self._path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(f".tmp{os.getpid()}")
        with open(tmp, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, p)


# ----------------------------------------------------------------------------- verdict views
# each cached verdict's view (the verdict as ``check``/``show`` print it), which the warm
# commands read without SymPy (``dpderive.index`` re-exports these)
def _views() -> DiskCache:
    return DiskCache("records")


def view(key: str) -> dict | None:
    v = _views().get(key)
    return v if isinstance(v, dict) else None


def put_view(key: str, verdict) -> None:
    from derive.core import verdict_view
    _views().put(key, verdict_view(verdict))


def has_view(key: str) -> bool:
    return _views()._path(key).exists()


def check_claims(claims: Sequence, *, workers: int = 1, scheduler: str | None = None,
                 cache: bool = True, progress: bool = True, desc: str = "checking") -> dict:
    """Give every claim its verdict (``claim._verdict``): from the verdict cache when its
    key is unchanged, else by checking it, fanned out over ``workers`` or a dask
    cluster.  Claims that already hold a verdict are left alone.  Beside each cached verdict goes
    its view (``dpderive.index``: the verdict as ``check``/``show`` print it), which the warm
    commands read without SymPy.  Returns counts."""
    from derive.core import Verdict

    todo = [c for c in claims if c._verdict is None]
    store = DiskCache("verdicts") if cache else None
    keys = {}
    if store is not None:
        for c in todo:
            keys[c.id] = verdict_key(c)
            v = store.get(keys[c.id])
            if isinstance(v, Verdict):
                c._verdict = v
                if not has_view(keys[c.id]):   # a verdict cached before the views existed
                    put_view(keys[c.id], v)
    hits = sum(1 for c in todo if c._verdict is not None)
    if progress and hits:
        print(f"[{desc}] {hits} of {len(todo)} verdicts from the cache ({store.dir})", file=sys.stderr)
    todo = [c for c in todo if c._verdict is None]
    local = [c for c in todo if claim_source(c) is None or (workers == 1 and not scheduler)]
    remote = longest_first([c for c in todo if c not in local])
    by_id = {c.id: c for c in todo}

    def keep(r: TaskResult) -> None:
        c = by_id[r.name]
        if r.ok:
            c._verdict = r.value
            # a check stopped by its wall budget depends on the machine's load: not remembered
            if store is not None and r.value.method != "budget":
                store.put(keys[c.id], r.value)
                put_view(keys[c.id], r.value)
        else:  # the task itself failed (not the check): say so in the verdict, never cache it
            c._verdict = Verdict("inconclusive", "error", note=f"task failed: {r.error}")

    if not remote:
        _stop_prewarmed()             # every verdict from the cache: the started workers are not needed
    if remote:
        # this process has loaded every claim already: it checks claims too, beside workers - 1
        # loky processes (one start-up fewer); the same function as a worker's, so the same verdicts
        run_tasks(check_claim, [(claim_source(c), c.id) for c in remote], workers=workers,
                  scheduler=scheduler, progress=progress, desc=desc, names=[c.id for c in remote],
                  on_result=keep, parent_works=not scheduler)
    if local:
        run_tasks(_check_here, local, progress=progress, desc=desc, names=[c.id for c in local],
                  on_result=keep)
    return {"claims": len(claims), "cached": hits, "checked": len(todo)}


COSTS_FILE = Path(__file__).with_name("claim_costs.json")


@lru_cache(maxsize=1)
def claim_costs() -> dict:
    """The committed cost estimate of each built-in claim (CPU seconds of one cold check,
    ``dpderive/claim_costs.json``, written by ``benchmarks/claim_costs.py``); {} when absent."""
    import json
    try:
        return {str(k): float(v) for k, v in json.loads(COSTS_FILE.read_text())["seconds"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def longest_first(claims: Sequence) -> list:
    """``claims`` in the order the workers should take them: the longest (by the committed
    estimate) first, so that no long claim starts last and holds the run while the other
    workers idle; a claim without an estimate counts as the median one.  Ties keep their
    order.  Only the order of the work changes: results are filed by claim id."""
    costs = claim_costs()
    if not costs:
        return list(claims)
    known = sorted(costs.values())
    default = known[len(known) // 2]
    return sorted(claims, key=lambda c: -costs.get(c.id, default))


def _check_here(claim):
    """In this process (serial runs, and claims no worker could load): the claim itself."""
    return claim.check()


# ----------------------------------------------------------------------------- flags
def _positive_int(text: str) -> int:
    import argparse
    try:
        n = int(text)
    except ValueError:
        n = None
    if n is None or n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer >= 1")
    return n


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS has one, else
    ``os.cpu_count()``): how many local workers ``check`` and ``report`` start by default."""
    import os
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def add_execution_flags(p, cache_help: str = "recheck every claim (ignore the verdict cache)",
                        all_cores: bool = False) -> None:
    """--workers, --scheduler and --no-cache of the commands that fan out; ``all_cores``: --workers
    defaults to None, read as ``available_cores()`` by the command."""
    if all_cores:
        p.add_argument("--workers", type=_positive_int, default=None,
                       help="local worker processes (joblib/loky; default: one per available core, "
                            f"here {available_cores()}; 1: in this process)")
    else:
        p.add_argument("--workers", type=_positive_int, default=1,
                       help="local worker processes (joblib/loky; default 1: in this process)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="dask.distributed scheduler address, e.g. tcp://10.0.0.1:8786 "
                        "(pip install 'dpderive[distributed]')")
    p.add_argument("--no-cache", dest="no_cache", action="store_true", help=cache_help)
