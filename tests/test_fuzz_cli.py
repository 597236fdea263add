"""Fuzzing the accountant's command line (issue 22): every command (epsilon, delta,
calibrate), mechanism (gaussian, laplace, rr, dgauss, a spec file), sampling (none, poisson,
fixed), method and extreme magnitudes (1e-300 ... 1e300, 0, negative, nan, inf) keep the
one-line promise:

* exit 0 with an answer that is finite or stated as not finite (``epsilon = inf (no finite
  epsilon is certified ...)``; ``"inf"`` in JSON), never NaN, nothing on stderr; or
* exit 2 with exactly one line on stderr (``error: ...``);
* never a traceback, never exit 70 (a bug), never a warning.

CI runs a modest number of examples in-process (``DPDERIVE_FUZZ_EXAMPLES``, default 40).
A larger seeded run, with the same generator: ``python tests/test_fuzz_cli.py 500 [SEED]``
(prints the counts; ``--subprocess`` runs each call as its own ``python -m dpderive.cli``).
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import random
import re
import signal
import sys
import tempfile
import warnings

import pytest

# valid values (extreme magnitudes among them) are drawn more often than invalid ones, so that
# most calls reach the accountant
INVALID = ["0", "-1", "-1e-300", "nan", "inf", "-inf"]


def _mix(valid, invalid=INVALID, k=6):
    return valid * k + invalid


MAGNITUDES = _mix(["1e-300", "1e-200", "1e-30", "1e-5", "0.01", "0.3", "1", "2", "10", "1e5",
                   "1e30", "1e300", "1.5"])
NOISE = _mix(["1e-300", "1e-200", "1e-30", "1e-5", "0.01", "0.3", "0.5", "0.8", "1", "1.1", "2", "4",
              "10", "1e5", "1e30", "1e300"])
PROB = _mix(["1e-300", "1e-5", "0.001", "0.01", "0.2", "0.5", "1"], ["0", "-0.1", "1.5", "nan", "1e300"])
STEPS = _mix(["1", "3", "10", "100", "1000"], ["0", "-1", "2.5", "1e300", "nan", "1e-300"])
EPS = _mix(["1e-300", "0", "0.1", "1", "8", "100", "1e5", "1e300"], ["-1", "nan", "inf"])
DELTA = _mix(["1e-300", "1e-10", "1e-5", "0.1", "0.999", "1e-5,1e-6"], ["0", "1", "-1e-5", "nan", "inf"])
MECHANISMS = ["gaussian", "laplace", "rr", "dgauss", "spec"]
SAMPLINGS = ["none", "poisson", "fixed"]
METHODS = ["best", "rdp", "pld", "clt", "edgeworth", "all"]


def spec_text(choice) -> str:
    """A spec file: a list of events with extreme values, or one of its malformed shapes."""
    shape = choice(["list"] * 12 + ["object", "empty", "nocount", "notjson", "badkind"])
    if shape == "notjson":
        return "[{"
    if shape == "empty":
        return "[]"

    def event():
        kind = choice(["gaussian", "laplace", "rr", "dgauss"])
        key = {"gaussian": "sigma", "laplace": "scale", "rr": "epsilon", "dgauss": "sigma"}[kind]
        e = {"mechanism": kind if shape != "badkind" else "staircase", key: float(choice(NOISE)),
             "count": _num(choice(STEPS))}
        samp = choice(SAMPLINGS)
        if samp == "poisson":
            e["sampling"] = {"kind": "poisson", "rate": float(choice(PROB))}
        elif samp == "fixed":
            e["sampling"] = {"kind": "fixed", "batch_size": _num(choice(["1", "10", "10", "10", "0", "1e300"])),
                             "dataset_size": _num(choice(["100", "1000", "1000", "1000", "1", "-1"]))}
        if shape == "nocount":
            e.pop("count")
        return e
    events = [event() for _ in range(choice([1, 1, 2]))]
    obj = events[0] if shape == "object" else events
    return json.dumps(obj)         # nan / inf as JSON's NaN / Infinity: Python reads them


def _num(text):
    x = float(text)
    return int(x) if math.isfinite(x) and x == int(x) and abs(x) < 1e15 else x


def draw_argv(choice, spec_dir: str) -> list[str]:
    """One command line; ``choice(seq)`` picks an element (hypothesis or random)."""
    command = choice(["epsilon", "delta", "calibrate"])
    mech = choice(MECHANISMS if command != "calibrate" else MECHANISMS[:4])
    argv = [command]
    if mech == "spec":
        path = os.path.join(spec_dir, f"spec{abs(hash(str(argv) + str(random.random())))}.json")
        with open(path, "w") as fh:
            fh.write(spec_text(choice))
        argv += ["--spec", path]
    else:
        if mech != "gaussian" or choice([True, False]):
            argv += ["--mechanism", mech]
        own = {"gaussian": "--sigma", "laplace": "--scale", "rr": "--rr-epsilon", "dgauss": "--sigma"}[mech]
        solve = choice([None, None, "own", "steps", "epochs", "batch-size"]) if command == "calibrate" else None
        if solve != "own" or choice([False] * 5 + [True]):   # sometimes given while solved for
            argv += [own, choice(NOISE)]
        if solve == "own":
            argv += ["--solve", own[2:]]
        elif solve:
            argv += ["--solve", solve]
        samp = choice(SAMPLINGS)
        if samp == "poisson":
            argv += ["--sampling-rate", choice(PROB)]
        elif samp == "fixed" or solve in ("epochs", "batch-size"):
            argv += ["--dataset-size", choice(["1000", "60000"] * 4 + ["1", "0", "1e300", "nan"])]
            if solve != "batch-size":
                argv += ["--batch-size", choice(["10", "256"] * 4 + ["1", "0", "1e300"])]
            if solve != "epochs" and samp != "fixed" and choice([True, False]):
                argv += ["--epochs", choice(["1", "0.5", "3"] * 3 + ["0", "1e300", "nan"])]
            if samp == "fixed":
                argv += ["--sampling", "fixed"]
        if solve not in ("steps", "epochs") or choice([False] * 5 + [True]):
            argv += ["--steps", choice(STEPS)]
        if mech in ("gaussian", "laplace") and choice([False, False, True]):
            argv += ["--sensitivity", choice(MAGNITUDES)]
        if mech == "dgauss" and choice([False, True]):
            argv += ["--sensitivity", choice(["1", "2", "1.5", "0"])]
    if command == "epsilon":
        argv += ["--delta", choice(DELTA)]
    elif command == "delta":
        argv += ["--epsilon", choice(EPS + ["1,2"])]
    else:
        argv += ["--epsilon", choice(EPS), "--delta", choice(DELTA[:-1])]
    argv += ["--method", choice(["best"] * 4 + METHODS if command != "calibrate"
                                else ["best"] * 4 + ["rdp", "pld", "all", "clt"])]
    if choice([False, True]):
        argv.append("--json")
    return argv


class _Timeout(BaseException):
    """Not an Exception: passes main's handlers untouched."""


def run_inprocess(argv, timeout=None):
    """(status, stdout, stderr) of ``dpderive argv`` in this process; warnings go to stderr
    (as they would on the command line).  status None: the call exceeded ``timeout`` s."""
    from dpderive.cli import main
    out, err = io.StringIO(), io.StringIO()

    def alarm(*_):
        raise _Timeout()
    old = signal.signal(signal.SIGALRM, alarm) if timeout else None
    try:
        if timeout:
            signal.alarm(timeout)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rc = main(list(argv))
    except _Timeout:
        return None, out.getvalue(), err.getvalue()
    finally:
        if timeout:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
    text = err.getvalue() + "".join(f"{w.category.__name__}: {w.message}\n" for w in caught)
    return rc, out.getvalue(), text


_VALUE = re.compile(r"^(epsilon|delta|sigma|scale|rr_epsilon|steps|epochs|batch_size) = (\S+)(.*)")


def broken_promise(rc, out, err) -> str | None:
    """Why a call broke the one-line promise, or None."""
    if "Traceback" in err or "Traceback" in out:
        return "traceback"
    if rc == 2:
        lines = err.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith("error: "):
            return f"exit 2 without exactly one error line: {err!r}"
        if "bug" in lines[0]:
            return "a bug reported with exit 2"
        return None
    if rc != 0:
        return f"exit {rc}: {err.strip()[:200]}"
    if err:
        return f"exit 0 with stderr: {err.strip()[:200]}"
    if not out.strip():
        return "exit 0 without an answer"
    text = out.strip()
    if text.startswith(("{", "[")):
        for line in text.splitlines():
            try:
                obj = json.loads(line, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            except ValueError as exc:
                return f"JSON not valid (or NaN/Infinity in it): {exc}"
            for rec in (obj if isinstance(obj, list) else [obj]):
                for k, v in rec.items():
                    if isinstance(v, str) and v.lower() in ("nan", "-nan"):
                        return f"{k} = nan in JSON"
        return None
    for line in text.splitlines():
        m = _VALUE.match(line)
        if not m:
            continue
        v = m.group(2)
        if v.lower() in ("nan", "-nan"):
            return f"nan answer: {line}"
        if v in ("inf", "-inf") and not m.group(3).startswith(" (no finite"):
            return f"inf answer not stated as such: {line}"
    if re.search(r"\bnan\b", text, re.I):
        return f"nan in the output: {text[:200]}"
    return None


# ----------------------------------------------------------------------------- CI
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

EXAMPLES = int(os.environ.get("DPDERIVE_FUZZ_EXAMPLES", "40"))


@pytest.fixture(scope="module")
def spec_dir():
    with tempfile.TemporaryDirectory() as d:
        yield d


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_cli_keeps_the_one_line_promise(data, spec_dir):
    argv = draw_argv(lambda seq: data.draw(st.sampled_from(list(seq))), spec_dir)
    rc, out, err = run_inprocess(argv, timeout=30)
    if rc is None:             # too slow to finish here: not a broken promise, not checked
        return
    why = broken_promise(rc, out, err)
    assert why is None, f"dpderive {' '.join(argv)}: {why}"


# ----------------------------------------------------------------------------- a long run
def main(n: int, seed: int = 22, subprocess_mode: bool = False, timeout: int = 60) -> dict:
    """``n`` seeded calls; the counts (and each broken promise on stderr)."""
    import subprocess
    import time
    rng = random.Random(seed)
    counts = {"calls": 0, "ok": 0, "user_error": 0, "broken": 0, "timeout": 0}
    errors: dict = {}
    with tempfile.TemporaryDirectory() as d:
        argvs = [draw_argv(rng.choice, d) for _ in range(n)]
        for argv in argvs:
            t0 = time.time()
            if subprocess_mode:
                try:
                    r = subprocess.run([sys.executable, "-m", "dpderive.cli", *argv], capture_output=True,
                                       text=True, timeout=timeout)
                    rc, out, err = r.returncode, r.stdout, r.stderr
                except subprocess.TimeoutExpired:
                    rc, out, err = None, "", ""
            else:
                try:
                    rc, out, err = run_inprocess(argv, timeout=timeout)
                except Exception as exc:  # noqa: BLE001 - an exception main let through
                    rc, out, err = 1, "", f"Traceback (uncaught by main): {type(exc).__name__}: {exc}"
            counts["calls"] += 1
            if rc is None:
                counts["timeout"] += 1
                print(f"TIMEOUT dpderive {' '.join(argv)}", file=sys.stderr)
                continue
            why = broken_promise(rc, out, err)
            if why:
                counts["broken"] += 1
                print(f"BROKEN ({time.time() - t0:.1f}s) dpderive {' '.join(argv)}\n    {why[:300]}",
                      file=sys.stderr)
            else:
                counts["ok" if rc == 0 else "user_error"] += 1
                if rc == 2:
                    key = re.sub(r"[=(].*", "", err.removeprefix("error: ").strip())[:40]
                    errors[key] = errors.get(key, 0) + 1
    print("user errors by kind:", sorted(errors.items(), key=lambda kv: -kv[1])[:12], file=sys.stderr)
    return counts


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    seed = int(args[1]) if len(args) > 1 else 22
    print(main(int(args[0]) if args else 500, seed=seed, subprocess_mode="--subprocess" in sys.argv))
