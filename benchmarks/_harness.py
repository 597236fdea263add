"""What a timed benchmark process shares: glibc's malloc thresholds fixed (``fix()``), so that
timings measure work rather than page faults, and the timing rule (``median_time``).

glibc moves its mmap threshold with the sizes a process has freed and trims the heap when its
top is free.  How many fresh multi-MB arrays a query then page-faults into, at one fault per
4 KB page, depends on what ran before it in that process: the same query measures up to 30%
apart between processes (and up to 4x in a process that ran the peers' accountants first).
With the thresholds fixed, blocks below 64 MB come from the heap and stay there.  Every
column of a benchmark, ours and the peers', runs under the same setting.  ``MALLOC`` is the same
setting as environment variables for a child process (``bench_ab.py``).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import statistics
import time

MMAP_THRESHOLD = 64 << 20
TRIM_THRESHOLD = 128 << 20
MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(MMAP_THRESHOLD), "MALLOC_TRIM_THRESHOLD_": str(TRIM_THRESHOLD)}
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3        # mallopt parameters (malloc.h)

#: bench_routes' cases (and bench_ab's): name, sigma, q, T
ROUTE_CASES = [
    ("a  gaussian s=20 T=1e3", 20.0, 1.0, 1000),
    ("b  q=1e-3 s=4 T=1e3", 4.0, 1e-3, 1000),
    ("b  q=1e-3 s=4 T=1e4", 4.0, 1e-3, 10_000),
    ("b  q=1e-3 s=4 T=1e5", 4.0, 1e-3, 100_000),
    ("c  q=256/6e4 s=1.1 T=14063", 1.1, 256 / 60000, 14063),
    ("d  q=1e-5 s=1.1 T=1e6", 1.1, 1e-5, 1_000_000),
    ("e  q=1e-3 s=1 T=1e7", 1.0, 1e-3, 10_000_000),
]
#: bench_pld's (i): q, sigma, T
PLD_CASES = [(1e-3, 4.0, 1000), (1e-3, 4.0, 10_000), (1e-3, 4.0, 100_000), (256 / 60000, 1.1, 14063)]


def fix() -> dict:
    """Fix the thresholds in this process (glibc only); returns the record for a results file."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        ok = bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and \
            bool(libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    except (OSError, AttributeError):
        ok = False
    return {"malloc_thresholds_fixed": ok, "mmap_threshold": MMAP_THRESHOLD,
            "trim_threshold": TRIM_THRESHOLD}


def median_time(fn, repeats, min_batch_seconds=0.02):
    """Median over ``repeats`` of the per-call time; calls faster than ``min_batch_seconds``
    are timed in batches (as timeit does), so that timer resolution and one-off pauses do
    not dominate sub-millisecond queries.  The same rule applies to every column."""
    t0 = time.perf_counter()
    out = fn()
    once = time.perf_counter() - t0
    batch = max(1, int(min_batch_seconds / max(once, 1e-7)))
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(batch):
            out = fn()
        ts.append((time.perf_counter() - t0) / batch)
    return statistics.median(ts), out
