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
