"""Per-claim budget of the symbolic attempts (issue 20, item 3).

SymPy's ``simplify`` on a large expression can take minutes; ``derive.verify.symbolic_zero`` only
attempts it below an operation count (``sympy.count_ops``: deterministic, so a verdict never
depends on the machine's speed).  Past the budget the claim goes on to the numeric path, and
``derive.core.Claim.check`` records that in the verdict's method, so a reader knows the SymPy
step was skipped rather than failed.

``collect()`` is the collector a claim's check runs inside; ``skipped(ops, limit)`` is what the
symbolic attempts call when the budget sends an expression on.  Light timers (``STATS``) count
the seconds spent in symbolic attempts in this process (benchmarks/bench_check.py reads them).
"""
from __future__ import annotations

import json
import os
from contextlib import contextmanager

STATS = {"symbolic_seconds": 0.0, "symbolic_calls": 0, "simplify_skipped": 0}
_ACTIVE: list | None = None


@contextmanager
def collect():
    """Collect the budget skips of the code run inside; yields the list of (ops, limit)."""
    global _ACTIVE
    prev, _ACTIVE = _ACTIVE, []
    try:
        yield _ACTIVE
    finally:
        _ACTIVE = prev


def record_call(seconds: float, result, expr) -> None:
    """Account one symbolic attempt; with ``$DPDERIVE_SYMBOLIC_LOG`` set, also append a JSON line
    (seconds, result, operation count) to that file (measurement only: nothing reads it back)."""
    STATS["symbolic_seconds"] += seconds
    STATS["symbolic_calls"] += 1
    path = os.environ.get("DPDERIVE_SYMBOLIC_LOG")
    if path:
        import sympy as sp
        try:
            ops = int(sp.count_ops(expr))
        except Exception:
            ops = -1
        with open(path, "a") as fh:
            fh.write(json.dumps({"seconds": round(seconds, 4), "result": result, "ops": ops,
                                 "pid": os.getpid()}) + "\n")


def probed_nonzero() -> None:
    """A symbolic attempt that a numeric probe ended: the expression is not identically 0."""
    STATS["probed_nonzero"] = STATS.get("probed_nonzero", 0) + 1


def skipped(ops: int, limit: int) -> None:
    STATS["simplify_skipped"] += 1
    if _ACTIVE is not None:
        _ACTIVE.append((int(ops), int(limit)))


def method_note(skips: list) -> str:
    """The words appended to a verdict's method when the budget sent expressions on."""
    n = len(skips)
    biggest = max(o for o, _ in skips)
    limit = skips[0][1]
    what = "1 expression" if n == 1 else f"{n} expressions"
    return (f"SymPy budget: simplify skipped on {what} over {limit} ops "
            f"(largest {biggest}); numeric path")


# ----------------------------------------------------------------------------- wall budget
#: a claim's wall-clock budget by default (seconds; ``$DPDERIVE_CLAIM_BUDGET`` overrides it, a
#: claim file's ``[paper] budget_seconds`` and a claim's ``budget_seconds`` override both).  A
#: safety net well above the slowest claim of the repository (about 45 s cold): a check past it
#: ends ``inconclusive`` saying so, and the run goes on.
DEFAULT_WALL_SECONDS = 180.0


class WallBudgetExceeded(BaseException):
    """A claim's check ran past its wall budget.  A ``BaseException``: the checkers' own
    ``except Exception`` handlers must not take it for a failure of one attempt."""


def wall_seconds(own: float | None = None) -> float:
    if own is not None:
        return float(own)
    env = os.environ.get("DPDERIVE_CLAIM_BUDGET", "").strip()
    try:
        return float(env) if env else DEFAULT_WALL_SECONDS
    except ValueError:
        return DEFAULT_WALL_SECONDS


@contextmanager
def wall(seconds: float):
    """Raise ``WallBudgetExceeded`` in the code run inside once ``seconds`` of wall time have
    passed (a SIGALRM timer; only in the main thread of a process with one, else no limit).  An
    outer timer (a test harness's own) is re-armed with what it had left afterwards."""
    import signal
    import threading
    import time
    if (not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread()
            or not seconds or seconds <= 0):
        yield
        return

    def expire(signum, frame):
        raise WallBudgetExceeded()
    t0 = time.monotonic()
    old_handler = signal.signal(signal.SIGALRM, expire)
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, 0)
    if old_delay and old_delay < seconds:      # the outer deadline comes first: it stays in charge
        signal.signal(signal.SIGALRM, old_handler)
        signal.setitimer(signal.ITIMER_REAL, old_delay, old_interval)
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        if old_delay:
            left = old_delay - (time.monotonic() - t0)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), old_interval)
