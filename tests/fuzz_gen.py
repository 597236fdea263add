"""Generators and runners for fuzzing dpderive's promise (issue 34): every call gives an
answer or one clean line.

* The command line (every command: ``epsilon``, ``delta``, ``calibrate``, ``tradeoff``,
  ``region``, ``tv``, ``sweep``, ``risk``, ``list``, ``show``, ``check``, ``init``): exit 0 with
  an answer (finite, or stated as not finite; JSON without NaN/Infinity) and nothing on stderr
  but the progress lines the commands document, or exit 2 with exactly one ``error: `` line;
  never exit 70, a traceback, an exception's class name, a warning, more than 60 s or 1.5 GB.
* The Python API (``numeric``'s events API, the stateful accountant, ``numeric.risk``,
  ``derive.claim``/``formula``, the dp_accounting and Opacus interop): a valid result (never
  NaN), or a ``ValueError`` naming the parameter (``numeric.errors.UserInputError``,
  ``derive.errors.DomainError``), never another exception class, never a warning.

The generators draw through one function ``choice(seq) -> element`` (``random.Random(seed).choice``,
or ``lambda seq: data.draw(st.sampled_from(list(seq)))`` under hypothesis), so the same code
serves the CI profile (``tests/test_fuzz_all.py``) and the long one (``benchmarks/bench_fuzz.py``).
``profile="ci"`` leaves out inputs known to be slow or heavy; ``profile="long"`` draws them too and
marks the heavy ones ``isolate`` (to be run as their own process, under a memory limit).

The accountant's argv generator, the spec-file generator and the one-line checks of issue 22 come
from ``tests/test_fuzz_cli.py`` and are extended here.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import os
import re
import signal
import sys
import time
import tomllib
import warnings
from dataclasses import dataclass, field
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
for _p in (str(TESTS), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from test_fuzz_cli import (INVALID, NOISE, PROB, _Timeout, broken_promise as _one_line_problem,  # noqa: E402
                           draw_argv, spec_text)

PROFILES = ("ci", "long")
#: test_fuzz_cli's pools without their invalid values (in their order), and invalid values by kind
NOISE_OK = list(dict.fromkeys(v for v in NOISE if v not in INVALID))
PROB_OK = list(dict.fromkeys(v for v in PROB if v not in ("0", "-0.1", "1.5", "nan", "1e300")))
STEPS_BAD = ["0", "-1", "2.5", "1e300", "nan", "1e-300"]
DELTA_BAD = ["0", "1", "-1e-5", "nan", "inf"]
EPS_BAD = ["-1", "nan", "inf"]
#: what a value of any flag may be besides a valid one: wrong types, forms float() reads
#: (``1_000``, ``١``), forms it does not (``0x10``), and extremes
HOSTILE = ["abc", "", "2.5", "1e12", "0x10", "1_000", "1,2", "nan", "inf", "-inf", "-0", "1e400",
           "\u0661", " 1", "1e-400", "-1", "0", "--"]
#: stderr lines a command documents (progress of ``sweep`` and ``check``, the sweep's summary)
PROGRESS_LINE = re.compile(r"^\[(sweep|checking)\b[^\]]*\] .*$|^\d+ points: \d+ computed, .*$")
EXCEPTION_NAME = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception|Warning)\b")
WARNING_LINE = re.compile(r"^.*\b[A-Z][A-Za-z]*Warning\b.*$", re.M)
MAX_SECONDS = 60.0
MAX_RSS_MB = 1536.0


@dataclass
class Case:
    """One command line to run: ``command`` labels it in the counts; ``files`` holds the
    content of the files it reads (for the reproducer); ``isolate``: heavy (huge counts,
    many processes), to be run only as its own process."""

    command: str
    argv: list
    files: dict = field(default_factory=dict)
    isolate: bool = False


class Draw:
    """``choice`` with a few conveniences; every draw goes through ``choice``."""

    def __init__(self, choice, profile: str = "ci"):
        if profile not in PROFILES:
            raise ValueError(f"profile={profile!r} is not one of {PROFILES}")
        self.choice, self.profile = choice, profile
        self.tame = False            # True: ``value`` draws valid values only

    def __call__(self, seq):
        return self.choice(list(seq))

    def odds(self, n: int) -> bool:
        """True once in ``n`` draws."""
        return self.choice([False] * (n - 1) + [True])

    @property
    def long(self) -> bool:
        return self.profile == "long"

    def value(self, valid, hostile=HOSTILE, k=5):
        """A valid value ``k`` times as often as a hostile one (only valid ones when ``tame``)."""
        return self(list(valid) if self.tame else list(valid) * k + list(hostile))


class _Files:
    """Numbered files in one work directory (the names are unique within the process)."""

    count = 0

    def __init__(self, workdir):
        self.dir = Path(workdir)

    def write(self, stem: str, suffix: str, data: bytes | str) -> str:
        _Files.count += 1
        path = self.dir / f"{stem}{_Files.count}{suffix}"
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        return str(path)

    def fresh(self, stem: str, suffix: str) -> str:
        """A path that does not exist yet."""
        _Files.count += 1
        return str(self.dir / f"{stem}{_Files.count}{suffix}")


# ----------------------------------------------------------------------------- spec files
def _spec_event(d: Draw) -> dict:
    kind = d(["gaussian", "laplace", "rr", "dgauss"])
    key = {"gaussian": "sigma", "laplace": "scale", "rr": "epsilon", "dgauss": "sigma"}[kind]
    ev = {"mechanism": kind, key: float(d(NOISE_OK)), "count": d([1, 10, 100])}
    if d.odds(3):
        ev["sampling"] = d([{"kind": "poisson", "rate": 0.01},
                            {"kind": "fixed", "batch_size": 10, "dataset_size": 1000}])
    return ev


def spec_bytes(d: Draw) -> tuple[bytes, bool]:
    """A spec file's bytes (test_fuzz_cli's shapes, and more) and whether it is heavy."""
    shape = d(["fuzz_cli"] * 6 + ["foreign_key", "foreign_key", "duplicate_key", "many", "non_utf8",
                                  "bom", "wrong_types", "odd_json", "huge_number", "deep", "extra_key"])
    if shape == "fuzz_cli":
        return spec_text(d.choice).encode(), False
    ev = _spec_event(d)
    if shape == "foreign_key":       # a key that does not apply to the mechanism or the sampling
        ev = d([{"mechanism": "laplace", "sigma": 1.0, "count": 10},
                {"mechanism": "laplace", "scale": 1.0, "sigma": 1.0, "count": 10},
                {"mechanism": "gaussian", "scale": 1.0, "count": 10},
                {"mechanism": "gaussian", "sigma": 1.0, "epsilon": 1.0, "count": 10},
                {"mechanism": "rr", "epsilon": 1.0, "sigma": 2.0, "count": 10},
                {"mechanism": "rr", "epsilon": 1.0, "sensitivity": 2.0, "count": 10},
                {"mechanism": "dgauss", "sigma": 1.0, "sensitivity": 1.5, "count": 10},
                {"mechanism": "gaussian", "sigma": 1.0, "count": 10,
                 "sampling": {"kind": "fixed", "batch_size": 10, "dataset_size": 100, "rate": 0.1}},
                {"mechanism": "gaussian", "sigma": 1.0, "count": 10,
                 "sampling": {"kind": "poisson", "rate": 0.1, "batch_size": 10}},
                {"mechanism": "gaussian", "sigma": 1.0, "count": 10, "sampling": {"kind": "none", "rate": 0.5}},
                {"mechanism": "gaussian", "sigma": 1.0, "count": 10, "sampling": {"kind": "poisson"}},
                {"mechanism": "gaussian", "sigma": 1.0, "count": 10, "sampling": {"kind": "fixed"}}])
        return json.dumps([ev]).encode(), False
    if shape == "duplicate_key":     # raw text: json.loads keeps the last value
        return d(['[{"mechanism": "gaussian", "sigma": 1, "sigma": -1, "count": 10}]',
                  '[{"mechanism": "gaussian", "sigma": 1, "count": 10, "count": 0}]',
                  '[{"mechanism": "gaussian", "mechanism": "laplace", "sigma": 1, "count": 10}]',
                  '[{"mechanism": "gaussian", "sigma": 1, "count": 5, "sampling": {"kind": "poisson", '
                  '"rate": 0.1, "rate": 2}}]']).encode(), False
    if shape == "many":              # many identical one-step events
        n = d([30, 300] + ([3000, 100000] if d.long else []))
        one = d([{"mechanism": "gaussian", "sigma": 1.0, "count": 1},
                 {"mechanism": "laplace", "scale": 2.0, "count": 1},
                 {"mechanism": "gaussian", "sigma": 1.0, "sampling": {"kind": "poisson", "rate": 0.01},
                  "count": 1}])
        return json.dumps([one] * n).encode(), n > 300
    if shape == "non_utf8":
        return d([b'[{"mechanism": "gaussian", "sigma": 1, "count": 10, "note": "\xe9"}]',
                  b"\xff\xfe[\x00{\x00}\x00]\x00", b"\x80\x81\x82", b"[{\"mechanism\": \"gau\xdfsian\"}]"]), False
    if shape == "bom":
        return b"\xef\xbb\xbf" + json.dumps([ev]).encode(), False
    if shape == "wrong_types":
        key = d(["sigma", "count", "sensitivity"])
        ev = {"mechanism": "gaussian", "sigma": 1.0, "count": 10}
        ev[key] = d([True, "1", [1], {"v": 1}, None, -1, 0])
        return json.dumps([ev]).encode(), False
    if shape == "odd_json":
        return d(["[[]]", "[null]", "[1]", '"gaussian"', "{}", "null", "", "   ", "[{}]", "[[{}]]",
                  '[{"mechanism": null}]', "[" * 3 + "]" * 3, "1e999", "NaN"]).encode(), False
    if shape == "huge_number":       # digits json reads as a huge int or as inf
        key = d(["count", "sigma", "sensitivity"])
        return (f'[{{"mechanism": "gaussian", "sigma": 1, "count": 10, "{key}": '
                + d(["1" + "0" * 400, "1e400", "-1e400", "1e-400", "123456789012345678901234567890"]) + "}]"
                ).encode(), False
    if shape == "deep":              # nesting deeper than json's recursion limit
        n = d([1000, 100000])
        return ("[" * n + "]" * n).encode(), False
    ev["extra"] = d([1, "x", None])
    return json.dumps([ev]).encode(), False


def _spec_path(d: Draw, files: _Files, case: Case) -> str:
    """A --spec argument: a generated file (recorded in ``case.files``) or an odd path."""
    kind = d(["file"] * 8 + ["missing", "directory", "devnull"])
    if kind == "missing":
        return files.fresh("missing", ".json")
    if kind == "directory":
        return str(files.dir)
    if kind == "devnull":
        return os.devnull
    data, heavy = spec_bytes(d)
    path = files.write("spec", ".json", data)
    case.files[path] = data
    case.isolate |= heavy
    return path


# ----------------------------------------------------------------------------- flag helpers
def _plot_path(d: Draw, files: _Files) -> str:
    """--plot FILE: a good path, a missing directory, an unsupported extension, a directory."""
    if d.tame:
        return files.fresh("plot", d([".png", ".pdf"]))
    return d([files.fresh("plot", ".png")] * 4 + [files.fresh("plot", ".pdf"), files.fresh("plot", ".svg"),
             str(files.dir / "no" / "such" / "dir" / "p.png"), files.fresh("plot", ".txt"),
             files.fresh("plot", ""), str(files.dir), ""])


def _mutate(d: Draw, argv: list, foreign: list) -> list:
    """Sometimes (never when ``tame``) one of: a flag given twice, a clashing flag, a hostile
    value, an unknown flag."""
    if d.tame:
        return argv
    how = d(["none"] * 8 + ["duplicate", "duplicate", "clash", "hostile", "unknown"])
    flags = [i for i, a in enumerate(argv) if a.startswith("--") and i + 1 < len(argv)
             and not argv[i + 1].startswith("--")]
    if how == "duplicate" and flags:
        i = d(flags)
        return argv + [argv[i], d(["2", "1", "0.5", "-1", "nan", "x"])]
    if how == "clash" and foreign:
        return argv + list(d(foreign))
    if how == "hostile" and flags:
        i = d(flags)
        return argv[:i + 1] + [d(HOSTILE)] + argv[i + 2:]
    if how == "unknown":
        return argv + d([["--bogus", "1"], ["--sig", "1"], ["-x"], ["extra"], ["--json=1"]])
    return argv


#: flags of other commands (or of another mechanism) given where they clash
FOREIGN = [["--scale", "1"], ["--rr-epsilon", "1"], ["--sigma", "1"], ["--sampling-rate", "0.5"],
           ["--epochs", "1"], ["--batch-size", "10"], ["--dataset-size", "100"], ["--steps", "3"],
           ["--sampling", "fixed"], ["--neighbouring", "replace-one"], ["--k", "3"], ["--eta", "0.1"],
           ["--points", "3"], ["--orders", "2,3"], ["--solve", "steps"], ["--calibrate", "sigma"],
           ["--target-tpr", "0.5"], ["--target-advantage", "0.1"], ["--method", "exact"]]


def _event_flags(d: Draw, files: _Files, case: Case, solve: str | None = None, spec: bool = True) -> list:
    """The flags naming a mechanism, its sampling and its count, leaving out the one ``solve``
    names (``"noise"``: the mechanism's own noise flag; ``steps``, ``epochs``)."""
    if spec and d.odds(8):
        return ["--spec", _spec_path(d, files, case)]
    # calibrating the discrete Gaussian takes seconds: the long profile only
    mech = d(["gaussian"] * 3 + ["laplace", "rr"] + (["dgauss"] if d.long or not solve else []))
    argv = [] if mech == "gaussian" and d.odds(2) else ["--mechanism", mech]
    own = {"gaussian": "--sigma", "laplace": "--scale", "rr": "--rr-epsilon", "dgauss": "--sigma"}[mech]
    if solve not in ("noise", own[2:]) or (not d.tame and d.odds(6)):
        argv += [own, d.value(NOISE_OK, HOSTILE)]
    samp = d(["none", "poisson", "poisson", "fixed"])
    if samp == "poisson" and solve != "epochs":
        argv += ["--sampling-rate", d.value(PROB_OK)]
    elif samp == "fixed" or solve == "epochs":
        argv += ["--batch-size", d.value(["10", "256", "1"], ["0", "1e300"]),
                 "--dataset-size", d.value(["1000", "60000"], ["1", "0"])]
        if solve != "epochs":
            argv += ["--epochs", d.value(["1", "0.5", "3"], ["0", "1e12"])]
        if samp == "fixed":
            argv += ["--sampling", "fixed"]
    if solve not in ("steps", "epochs") and samp != "fixed":
        steps = d.value(["1", "10", "100", "1000"], ["0", "2.5", "-1", "1e300"])
        if d.long and d.odds(10) and not d.tame:
            steps, case.isolate = "1000000000000", True
        argv += ["--steps", steps]
    if mech != "rr" and d.odds(5):
        argv += ["--sensitivity", d.value(["2", "0.5", "1.5"] if mech != "dgauss" else ["2", "3"], ["0", "1e300"])]
    return argv


# ----------------------------------------------------------------------------- the commands
def _accountant_tame(d: Draw, files: _Files) -> Case:
    """epsilon / delta / calibrate on valid input (so that the calls reach the routes)."""
    command = d(["epsilon", "delta", "calibrate"])
    case = Case(command, [])
    solve = d(["noise", "noise", "steps"] + (["epochs"] if d.long else [])) if command == "calibrate" else None
    argv = [command] + _event_flags(d, files, case, solve, spec=command != "calibrate")
    if solve in ("steps", "epochs"):
        argv += ["--solve", solve]
    if command == "epsilon":
        argv += ["--delta", d(["1e-5", "1e-6", "1e-5,1e-6", "0.1"])]
    elif command == "delta":
        argv += ["--epsilon", d(["1", "0.5", "8", "1,2", "0"])]
    elif d.odds(4):
        argv += d([["--target-tpr", "0.1", "--at-fpr", "0.01"], ["--target-advantage", "0.3"]])
    else:
        argv += ["--epsilon", d(["1", "3", "8"]), "--delta", d(["1e-5", "1e-6"])]
    methods = ["best", "best", "rdp", "pld"] + (["all", "clt", "edgeworth"] if command != "calibrate" else [])
    argv += ["--method", d(methods)] if d.odds(2) else []
    if d.odds(3):
        argv.append("--json")
    if command != "calibrate" and d.long and d.odds(8):
        argv += ["--plot", files.fresh("plot", ".png")]
    case.argv = argv
    return case


def _accountant(d: Draw, files: _Files) -> Case:
    """epsilon / delta / calibrate: test_fuzz_cli's argv, then this issue's additions."""
    if d.tame:
        return _accountant_tame(d, files)
    argv = draw_argv(d.choice, str(files.dir))
    case = Case(argv[0], argv)
    if "--spec" in argv:
        i = argv.index("--spec")
        case.files[argv[i + 1]] = Path(argv[i + 1]).read_bytes()
        if d.odds(2):
            argv[i + 1] = _spec_path(d, files, case)
    if argv[0] == "calibrate" and d.odds(3):        # an attack-risk target instead of (eps, delta)
        keep = d(["none", "none", "epsilon"])
        j = argv.index("--epsilon")
        k = argv.index("--delta")
        eps, dl = argv[j:j + 2], argv[k:k + 2]
        argv[:] = [a for n, a in enumerate(argv) if n not in (j, j + 1, k, k + 1)]
        argv += d([["--target-tpr", d.value(["0.05", "0.1", "0.5", "0.99"], ["0", "1", "1.5", "nan", "0.001"])],
                   ["--target-tpr", d(["0.05", "0.5"]), "--at-fpr", d.value(["0.01", "0.001", "0"],
                                                                          ["1", "0.01,0.1", "nan", "-1"])],
                   ["--target-advantage", d.value(["0.1", "0.5", "0.9"], ["0", "1", "2", "nan"])],
                   ["--target-tpr", "0.5", "--target-advantage", "0.5"],
                   ["--at-fpr", "0.01"]])
        if keep == "epsilon":
            argv += eps + dl
    if argv[0] in ("epsilon", "delta"):
        if d.long and d.odds(6):                   # drawing the profile takes seconds (up to minutes)
            argv += ["--plot", _plot_path(d, files)]
        if d.odds(6):
            argv += ["--conversion", d(["mironov", "balle", "asoodeh", "lemma1", "optimal", "foo"])]
    if d.odds(8):
        argv += ["--neighbouring", d(["add-remove", "replace-one", "other"])]
    if d.long and d.odds(12):                      # a huge count
        argv += d([["--steps", "1000000000000"], ["--dataset-size", "1e12", "--batch-size", "1"],
                   ["--epochs", "1e12", "--batch-size", "10", "--dataset-size", "1000"]])
        case.isolate = True
    case.argv = _mutate(d, argv, FOREIGN)
    return case


def _finish(d: Draw, files: _Files, case: Case, argv: list) -> Case:
    """The common end of a command's draw: sometimes --json, sometimes --plot, then mutations."""
    if d.odds(2):
        argv.append("--json")
    if d.odds(5):
        argv += ["--plot", _plot_path(d, files)]
    case.argv = _mutate(d, argv, FOREIGN)
    return case


def _tradeoff(d: Draw, files: _Files) -> Case:
    case = Case("tradeoff", [])
    argv = ["tradeoff", "--sigma", d.value(NOISE_OK)]
    if d.odds(2):
        argv += ["--sampling-rate", d.value(PROB_OK)]
    if d.odds(2):
        argv += ["--steps", d.value(["1", "10", "100", "1000"], STEPS_BAD)]
    if d.odds(4):
        argv += ["--sensitivity", d.value(["1", "2", "0.5"])]
    if d.odds(2):
        argv += ["--method", d(["exact", "pld", "clt", "edgeworth", "foo"])]
    if d.odds(3):
        points = d.value(["3", "11", "50"], ["0", "-1", "2.5", "1e3", "1000"])
        if d.long and d.odds(6):
            points, case.isolate = d(["100000000", "1000000000000"]), True
        argv += ["--points", points]
    if d.odds(3):
        argv += ["--delta", d.value(["1e-5", "0.1"], DELTA_BAD)]
    return _finish(d, files, case, argv)


def _region(d: Draw, files: _Files) -> Case:
    case = Case("region", [])
    argv = ["region"]
    if d.odds(4):                                    # an explicit RDP curve
        argv += ["--orders", d(["2,3,4", "1.5,2,8", "2", "1,2", "0.5,2", "2,2", "nan,2", "2,inf", "", "a,b",
                                "2,3,4,5,6,7,8,9,10,20,50,100"]),
                 "--gammas", d(["0.1,0.2,0.3", "0.1", "0.1,0.2", "-1,0.2,0.3", "nan,0.1,0.2", "1e300,1,1",
                                "0,0,0", "x"])]
    else:
        argv += ["--sigma", d.value(NOISE_OK)]
        if d.odds(2):
            argv += ["--sampling-rate", d.value(PROB_OK)]
        if d.odds(2):
            argv += ["--steps", d.value(["1", "10", "1000"], STEPS_BAD)]
        if d.odds(3):
            argv += ["--rdp", d(["exact", "integer", "rho_q", "none"])]
    if d.odds(3):
        points = d.value(["3", "21", "5"], ["0", "-1", "2.5", "1000"])
        if d.long and d.odds(6):
            points, case.isolate = "100000000", True
        argv += ["--points", points]
    if d.odds(3):
        argv += ["--delta", d.value(["1e-5", "0.1"], DELTA_BAD)]
    if d.odds(3):
        argv += ["--eps", d.value(["1", "0.5", "8"], EPS_BAD + ["1e300"])]
    return _finish(d, files, case, argv)


def _tv(d: Draw, files: _Files) -> Case:
    case = Case("tv", [])
    k = d.value(["1", "2", "5", "10", "100"], ["0", "2.5", "-1", "nan", "1e300"])
    if d.long and d.odds(8):
        k, case.isolate = d(["1000000", "1000000000000"]), True
    argv = ["tv", "--epsilon", d.value(["0.1", "1", "2", "5"], EPS_BAD + ["0", "1e300", "1e-300"]), "--k", k]
    if d.odds(2):
        argv += ["--delta", d.value(["0", "1e-5", "0.01"], ["1", "-1e-5", "nan", "0.999999"])]
    if d.odds(2):
        argv += ["--eta", d.value(["0.1", "0.3", "0.01"], ["0", "1", "2", "nan", "-0.1"])]
    if d.odds(3):
        argv += ["--sampling-rate", d.value(PROB_OK)]
    if d.odds(3):
        argv += ["--at-delta", d.value(["1e-5", "1e-3"], DELTA_BAD)]
    if d.odds(3):
        lines = d.value(["1", "6", "20"], ["0", "-1", "2.5"])
        if d.long and d.odds(6):
            lines, case.isolate = "100000000", True
        argv += ["--lines", lines]
    return _finish(d, files, case, argv)


#: grid values of the sweep: lists, log ranges lo:hi:n, and malformed ones
GRIDS = {
    "--sigma": ["0.8,1.0", "0.5:2:3", "1", "1,2,4", "2:0.5:3", "0:1:3", "1:2:0", "1,,2", "1:2:3:4", "-1:2:3",
                "1e-300:1e300:3", "nan:1:2", "1:2:1e12", "a,b"],
    "--steps": ["10,100", "10:1000:3", "100", "1:3:5", "2.5,3", "0:10:2"],
    "--sampling-rate": ["0.01,0.1", "0.001:0.1:3", "0.5", "0.5,1.5"],
    "--method": ["rdp,pld", "rdp", "best", "rdp,foo", "all"],
    "--sensitivity": ["1,2", "1"],
}


def _sweep(d: Draw, files: _Files) -> Case:
    target = d(["epsilon", "epsilon", "delta", "calibrate"])
    case = Case(f"sweep {target}", [])
    axes = [d(["--sigma", "--sigma", "--steps", "--sampling-rate", "--method", "--sensitivity"])
            for _ in range(d([1, 1, 2] + ([3] if d.long else [])))]
    if target == "calibrate" and not d.long:      # a calibration is a second or more per point
        axes = []
    rest = []
    for flag in dict.fromkeys(axes):
        if target == "calibrate" and flag == "--sigma":
            continue                                 # calibrate solves for sigma
        rest += [flag, d(GRIDS[flag])]
    if "--sigma" not in rest and target != "calibrate":
        rest += ["--sigma", "1"]
    if target == "calibrate":
        rest += ["--sampling-rate", "0.01"] if "--sampling-rate" not in rest else []
        rest += ["--method", "rdp"] if "--method" not in rest else []
    small = target == "calibrate" and not d.long
    if target in ("epsilon", "calibrate"):
        rest += ["--delta", d(["1e-5", "0", "1e-6:1e-4:2"] + ([] if small else ["1e-5,1e-6"]))]
    if target in ("delta", "calibrate"):
        rest += ["--epsilon", d(["1", "1,2", "-1"] + ([] if small else ["0.5:4:3"]))]
    if d.long and d.odds(10):                        # a grid far too large to run
        rest += [d(["--steps", "--sensitivity"]), d(["1:2:100000000000", "1:1000:1000000"])]
        case.isolate = True
    own = []
    if d.odds(3):
        own += ["--out", d([files.fresh("grid", ".csv"), files.fresh("grid", ".json"),
                            files.fresh("grid", ".parquet"), files.fresh("grid", ".txt"),
                            str(files.dir / "no" / "dir" / "g.csv"), str(files.dir)])]
    if d.odds(4):
        own += ["--plot", _plot_path(d, files)]
    if d.odds(4):
        workers = d(["1", "1", "2", "0", "-1", "2.5", "abc"] + (["1000", "64"] if d.long else []))
        own += ["--workers", workers]
        case.isolate |= workers in ("2", "1000", "64") and d.long
    if d.odds(6):
        own.append("--no-cache")
    if d.long and d.odds(30):
        own += ["--scheduler", d(["tcp://127.0.0.1:9", "nonsense"])]
        case.isolate = True
    where = d(["after", "after", "before"])
    argv = ["sweep"] + (own + [target] + rest if where == "before" else [target] + rest + own)
    if d.odds(8):
        argv.append("--json")
    case.argv = _mutate(d, argv, [["--k", "3"], ["--bogus", "1,2"], ["--sigma", "1,2"], ["--workers", "1"]])
    return case


def _risk(d: Draw, files: _Files) -> Case:
    case = Case("risk", [])
    solve = d([None, None, None, "noise", "noise", "steps"] + (["epochs"] if d.long else []))
    argv = ["risk"] + _event_flags(d, files, case, solve, spec=solve is None)
    if d.odds(2):
        argv += ["--at-fpr", d.value(["0.01", "0.001,0.01", "0", "1", "0.1"], ["1.5", "-0.1", "nan", "", "0.01,abc"])]
    if solve:
        mech = argv[argv.index("--mechanism") + 1] if "--mechanism" in argv else "gaussian"
        own = {"gaussian": "sigma", "laplace": "scale", "rr": "rr-epsilon", "dgauss": "sigma"}[mech]
        flag = own if solve == "noise" else solve
        argv += ["--calibrate", flag if d.tame or not d.odds(4) else d(["sigma", "scale", "rr-epsilon"])]
        targets = [["--target-tpr", d.value(["0.05", "0.5", "0.9"], ["0", "1.5", "nan"])],
                   ["--target-advantage", d.value(["0.1", "0.5"], ["0", "2", "nan"])]]
        argv += d(targets if d.tame else targets + [[], ["--target-tpr", "0.5", "--target-advantage", "0.5"]])
    elif not d.tame and d.odds(8):
        argv += ["--target-tpr", "0.5"]              # a target without --calibrate
    if d.odds(3):
        points = d.value(["0", "5", "201"], ["-1", "2.5", "abc"])
        if d.long and d.odds(6) and not d.tame:
            points, case.isolate = "100000000", True
        argv += ["--points", points]
    if d.odds(5):
        argv += ["--plot", _plot_path(d, files)]
    if d.odds(2):
        argv.append("--json")
    case.argv = _mutate(d, argv, FOREIGN)
    return case


def _claim_file_arg(d: Draw, files: _Files, case: Case) -> tuple[str, str]:
    """A claim file for list/show/check (recorded in ``case.files``) and a name in it."""
    kind = d(["generated"] * 6 + ["missing", "directory", "devnull", "spec"])
    if kind == "missing":
        return files.fresh("missing", ".toml"), "missing.x"
    if kind == "directory":
        return str(files.dir), "x.y"
    if kind == "devnull":
        return os.devnull, "x.y"
    if kind == "spec":
        path = files.write("notclaims", ".toml", b'[{"mechanism": "gaussian"}]')
        return path, "x.y"
    cf = claim_file(d, f"fz{_Files.count + 1}")
    path = files.write("claims", ".toml", cf.data)
    case.files[path] = cf.data
    case.isolate |= cf.heavy
    return path, cf.name


def _list(d: Draw, files: _Files) -> Case:
    """``list [FILE ...] [--paper KEY]``.  Without files (the built-in papers: the index, slow when
    cold; long profile) it runs as its own process: in a process that has loaded claim files
    (earlier calls) the index refuses to be built, which no command line meets."""
    case = Case("list", ["list"])
    if not d.long or d.odds(2):
        case.argv.append(_claim_file_arg(d, files, case)[0])
        if d.odds(4):
            case.argv.append(_claim_file_arg(d, files, case)[0])
    else:
        case.isolate = True
    if d.long and d.odds(3):     # a paper the files lack loads every built-in paper (seconds)
        case.argv += ["--paper", d(["nope", "", "fz1", "zheng2020", "ghazi_issa"])]
    return case


def _show(d: Draw, files: _Files) -> Case:
    """``show NAME [FILE ...]``.  A built-in name, or a name the files lack (every built-in paper
    loads: seconds; long profile), runs as its own process (as ``_list``)."""
    case = Case("show", ["show"])
    if not d.long or d.odds(2):
        path, name = _claim_file_arg(d, files, case)
        shown = d([name, name] + (["nope", "", "fz.x.y"] if d.long else []))
        case.argv += [shown, path]
        case.isolate |= shown != name
    else:
        case.argv.append(d(["asoodeh2021.thm4.f", "zheng2020.lemma5_1.eps_range", "nope", "asoodeh2021",
                            "", "ghazi_issa.x"]))
        case.isolate = True
    return case


def _check(d: Draw, files: _Files) -> Case:
    case = Case("check", ["check"])
    path, name = _claim_file_arg(d, files, case)
    case.argv.append(path)
    if d.odds(6):
        case.argv.append(_claim_file_arg(d, files, case)[0])
    workers = d(["1"] * 6 + ["0", "abc", "-1", "1.5"] + (["2", "default"] if d.long else []))
    if workers in ("2", "default"):
        case.isolate = True                          # loky worker processes
    if workers != "default":
        case.argv += ["--workers", workers]
    if d.odds(3):
        case.argv.append("--json")
    if d.odds(4):
        case.argv.append("--no-cache")
    if d.odds(8):
        case.argv += ["--paper", d(["nope", name.split(".")[0]]) if d.long else name.split(".")[0]]
    return case


def _init(d: Draw, files: _Files) -> Case:
    name = d(["mypaper", "mypaper.toml", files.fresh("init", ""), files.fresh("init", ".toml"),
              str(files.dir / "no" / "dir" / "x"), "", ".", "1abc", "a b", "zheng2020", str(files.dir),
              files.write("exists", ".toml", "x = 1\n"), "-x", os.devnull, "\u00e9t\u00e9"])
    argv = ["init", name]
    if d.odds(3):
        argv.append("--force")
    return Case("init", argv)


COMMANDS = {"accountant": (_accountant, 10), "tradeoff": (_tradeoff, 3), "region": (_region, 3),
            "tv": (_tv, 3), "sweep": (_sweep, 4), "risk": (_risk, 4), "list": (_list, 1),
            "show": (_show, 1), "check": (_check, 2), "init": (_init, 1)}


def draw_cli_case(choice, workdir, profile: str = "ci") -> Case:
    """One command line (any command) with the files it reads written into ``workdir``."""
    d = Draw(choice, profile)
    d.tame = d.odds(3)                   # a third of the calls: valid values only
    name = d([n for n, (_, w) in COMMANDS.items() for _ in range(w)])
    return COMMANDS[name][0](d, _Files(workdir))


# ----------------------------------------------------------------------------- claim files
@dataclass
class ClaimFile:
    """A generated claim file: its bytes, its shape, a claim name in it, and whether it is heavy."""

    data: bytes
    shape: str
    name: str
    heavy: bool = False


REFERENCE_SYMBOLS = {"x": "(0, oo)", "y": "(0, oo)", "mu": {"domain": "(0, oo)", "search": [0.1, 5]},
                     "varepsilon": {"domain": "[0, oo)", "search": [0, 10]}}
#: the minimal example of each kind (docs/claim-files.md), each checked in well under a second
KIND_EXAMPLES = [
    {"kind": "identity", "latex": r"\log(x y) = \log x + \log y"},
    {"kind": "inequality", "latex": r"\log(1 + x) \le x"},
    {"kind": "derivative", "of": r"\log(1 + x)", "wrt": "x", "equals": r"\frac{1}{1 + x}"},
    {"kind": "monotone", "of": r"\frac{\log(1 + x)}{x}", "in": "x", "direction": "decreasing"},
    {"kind": "convex", "of": r"x \log x", "in": "x"},
    {"kind": "concave", "of": r"\sqrt{x}", "in": "x"},
    {"kind": "limit", "of": r"\frac{\sin x}{x}", "var": "x", "to": "0", "equals": "1"},
    {"kind": "asymptotic", "of": r"\log(1 + x)", "approx": "x", "error": "x^2", "var": "x", "to": "0"},
    {"kind": "bound", "bound": r"\Phi\left(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\right) - e^{\varepsilon}"
                               r"\Phi\left(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\right)",
     "side": "equal", "truth": "DeltaOfEps(Gaussian(mu), varepsilon)"},
    {"kind": "sampled", "latex": r"\frac{x}{1 + x} \le \log(1 + x)", "sampler": "uniform"},
    {"kind": "fitted_rate", "of": r"\frac{1}{x^2} + \frac{1}{x^3}", "var": "x", "rate": "2"},
    {"kind": "exists", "latex": r"\log x > 1"},
]
REQUIRED = {"identity": ("latex",), "inequality": ("latex",), "derivative": ("of", "wrt", "equals"),
            "monotone": ("of", "in", "direction"), "convex": ("of", "in"), "concave": ("of", "in"),
            "limit": ("of", "var", "to", "equals"), "asymptotic": ("of", "approx", "error", "var", "to"),
            "bound": ("bound", "side", "truth"), "sampled": ("latex", "sampler"),
            "fitted_rate": ("of", "var", "rate"), "exists": ("latex",)}
DOMAINS = ["(0, oo)", "(0, 1)", "[1, 2]", "(0, 1e300)", "(nan, 1)", "(1, 0)", "[0, 0]", "(0, oo", "", "oo",
           "(-oo, oo)", "(0, y)", "(0, x)", "[1e-300, 1e-299]", "(0, inf)", "(0; 1)", "(a, b)", "[0, 1/0]"]
LATEX = ["", r"\frac{1}{", r"}{", r"\left(x", r"\undefinedmacro{x}", r"x = = y", r"x \le", r"\log(x",
         r"z + 1 = z + 1", r"xy \le x y", r"\alpha \le 1", "\u03b1 + 1 = 1", r"x \le \infty",
         r"\frac{1}{0} = 1", r"0^0 = 1", r"x^{x^{x^{x}}} \ge 0", r"\sqrt{-x} = 0", r"x \le y \le x",
         r"x + e = \pi", r"\sum_{k=1}^{\infty} x^k = 1", r"x_{1} = x", r"{{{x}}} = x", r"x! = x"]
TRUTHS = ["Renyi(Gaussian(mu))", "Renyi()", "Nope(mu)", "Gaussian(mu)", "DeltaOfEps(Gaussian(mu), varepsilon, 3)",
          "HockeyStick(P, x)", "DeltaOfEps(Gaussian(mu), varepsilon", "", "1/0", "DeltaOfEps(Gaussian(-mu), varepsilon)",
          "DeltaOfEps(Gaussian(mu), -varepsilon)", "EpsOfDelta(Gaussian(mu), x)", "TV(Gaussian(mu))", "mu",
          "Composed(Gaussian(mu), 0.5)", "Composed(Gaussian(mu), 1e9)", "Staircase(varepsilon, 2)"]
#: hostile shapes: (name, long-only, heavy)
SHAPES = [("valid", False, False), ("mutated", False, False), ("example", True, False),
          ("binary", False, False), ("latin1", False, False), ("bom", False, False), ("invalid_toml", False, False),
          ("paper", False, False), ("symbol", False, False), ("domain", False, False), ("unknown_kind", False, False),
          ("missing_field", False, False), ("wrong_type", False, False), ("latex", False, False),
          ("truth", False, False), ("pairs", False, False), ("claim_domain", False, False),
          ("conditions", False, False), ("step_of", False, False), ("sympy", False, False),
          ("formula_ref", False, False), ("duplicate_id", False, False), ("huge", True, True),
          ("deep_latex", True, True), ("many_claims", True, True), ("scaffold", False, False)]


VALID_SHAPES = ("valid", "mutated", "example", "scaffold")


def _toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _toml_value(v) -> str:
    """TOML for a value: LaTeX in literal strings, other strings as basic ones (JSON escapes)."""
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if v != v else ("inf" if v == math.inf else "-inf" if v == -math.inf else repr(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        if "\\" in v and "'" not in v and "\n" not in v:
            return f"'{v}'"
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"no TOML form for {v!r}")


@dataclass(frozen=True)
class Raw:
    """A TOML value written as it is (hostile text the serialiser would not produce)."""

    text: str


def toml_text(doc: dict) -> str:
    """A claim file's TOML: [paper], [symbols], [pairs], [quantities], [formulas.NAME], [[claim]]."""
    out = []
    for table in ("paper", "symbols", "pairs", "quantities"):
        if table in doc:
            if not isinstance(doc[table], dict):
                out += [f"{table} = {_toml_value(doc[table])}", ""]
                continue
            out.append(f"[{table}]")
            out += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in doc[table].items()]
            out.append("")
    for name, f in doc.get("formulas", {}).items():
        out.append(f"[formulas.{_toml_key(name)}]")
        out += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in f.items()]
        out.append("")
    for c in doc.get("claim", []):
        out.append("[[claim]]")
        out += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in c.items()]
        out.append("")
    return "\n".join(out)


def _examples() -> list[dict]:
    """One document per claim of the claim files in examples/ (their symbols, pairs,
    quantities and formulas kept)."""
    docs = []
    for path in sorted((ROOT / "examples").glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for c in data.get("claim", []):
            doc = {k: v for k, v in data.items() if k != "claim"}
            docs.append(dict(doc, claim=[c]))
    return docs


EXAMPLE_DOCS = _examples()


def _mutate_number(d: Draw, v):
    return d([v, v * 2, v / 10] * 3 + [0, 1e-300, 1e300, -1, 0.5, 100, math.nan, math.inf]) \
        if isinstance(v, (int, float)) and not isinstance(v, bool) else v


def _mutate_values(d: Draw, doc: dict) -> dict:
    """Values changed where a user would change them: search ranges, domains, numbers in the
    LaTeX, a relation or a direction."""
    doc = json.loads(json.dumps(doc))                # a deep copy
    for name, spec in list(doc.get("symbols", {}).items()):
        if isinstance(spec, dict) and "search" in spec and d.odds(2):
            spec["search"] = [_mutate_number(d, x) for x in spec["search"]]
        elif isinstance(spec, str) and d.odds(3):
            doc["symbols"][name] = d(["(0, oo)", "(0, 1)", "[1, 2]", "(0, 10)", "[0, oo)", "(1, oo)"])
    c = doc["claim"][0]
    for k, v in list(c.items()):
        if k in ("latex", "of", "bound", "equals", "approx", "error", "lhs", "rhs") and isinstance(v, str):
            if d.odds(2):
                v = re.sub(r"(?<![\\a-zA-Z])\d+(\.\d+)?", lambda m: d([m.group(0), "2", "0", "10", "1000000", "0.5"]), v)
            if d.odds(3):
                v = v.replace(r"\le", r"\ge") if r"\le" in v else v.replace("=", r"\le", 1)
            c[k] = v
    if "direction" in c and d.odds(2):
        c["direction"] = d(["increasing", "nondecreasing", "decreasing", "nonincreasing"])
    if "side" in c and c.get("kind") == "bound" and d.odds(2):
        c["side"] = d(["upper", "lower", "equal"])
    if "rate" in c and d.odds(2):
        c["rate"] = d(["1", "3", "2.5", "0"])
    return doc


def _base_doc(d: Draw, key: str, examples: bool) -> dict:
    """A valid one-claim document: a kind's minimal example, or (long) a claim of examples/."""
    if examples:
        doc = json.loads(json.dumps(d(EXAMPLE_DOCS)))
    else:
        doc = {"symbols": dict(REFERENCE_SYMBOLS), "claim": [dict(d(KIND_EXAMPLES))]}
    doc["paper"] = {"key": key, "title": "fuzzed claims"}
    doc["claim"][0] = dict(id="c1", where="(1)", **{k: v for k, v in doc["claim"][0].items()
                                                     if k not in ("id", "where")})
    return {"paper": doc.pop("paper"), **doc}


def claim_file(choice_or_draw, key: str, profile: str = "ci") -> ClaimFile:
    """A claim file with paper key ``key``: valid (a kind's example or one of examples/, values
    mutated) or one of the hostile shapes of SHAPES."""
    d = choice_or_draw if isinstance(choice_or_draw, Draw) else Draw(choice_or_draw, profile)
    shapes = [s for s in SHAPES if (d.long or not s[1]) and (not d.tame or s[0] in VALID_SHAPES)]
    shape, _, heavy = d([s for s in shapes for _ in range(4 if s[0] in ("valid", "mutated") else 1)])
    doc = _base_doc(d, key, examples=shape == "example" or (d.long and d.odds(3)))
    c = doc["claim"][0]
    kind = c["kind"]
    name = f"{key}.c1"
    if shape in ("mutated", "example"):
        doc = _mutate_values(d, doc)
    elif shape == "paper":
        doc["paper"] = d([{"key": "zheng2020", "title": "t"}, {"key": "1x", "title": "t"}, {"key": "", "title": "t"},
                          {"key": key}, {"title": "t"}, {"key": key, "title": 3}, Raw("1"), {"key": 5, "title": "t"},
                          {"key": "a-b", "title": "t"}, {"key": key, "title": "t", "tex": "/no/such.tex"}])
    elif shape == "symbol":
        sym = d(["x", "mu", "varepsilon"])
        doc["symbols"] = dict(doc.get("symbols", {}), **{sym: d([
            3, {"domain": 5}, {"domain": "(0, oo)", "integer": "yes"}, {"domain": "(0, oo)", "search": [1]},
            {"domain": "(0, oo)", "search": "abc"}, {"domain": "(0, oo)", "search": [5, 1]},
            {"domain": "(0, oo)", "search": [math.nan, 1]}, {"domain": "(0, oo)", "search": [0, math.inf]},
            {"domain": "(0, oo)", "search": [1e-300, 1e300]}, {"domain": "(0, oo)", "bogus": 1},
            {"search": [0, 1]}, {"domain": "(0, 1)", "integer": True}, {"domain": "(0, x)"}, [1, 2]])})
        if d.odds(3):
            doc["symbols"][d(["e", "pi", "E", "lambda", "x y", "1x"])] = "(0, 1)"
    elif shape == "domain":
        for s in doc.get("symbols", {}):
            if d.odds(2):
                doc["symbols"][s] = d(DOMAINS)
    elif shape == "unknown_kind":
        c["kind"] = d(["theorem", "", "Identity", 5, "bound "])
    elif shape == "missing_field":
        drop = d(["id", "where", "kind"] + list(REQUIRED.get(kind, ())))
        c.pop(drop, None)
    elif shape == "wrong_type":
        target = d(["id", "where", "kind"] + list(REQUIRED.get(kind, ())) + ["order", "draws", "tol_digits",
                                                                              "random_seed", "at", "tolerance",
                                                                              "at_least", "side", "note"])
        c[target] = d([3, 1.5, True, ["a"], {"a": 1}, Raw("1e9"), -1, 0, "yes", "two", Raw("nan"), Raw("inf"),
                       [1e300, 1e301], [400, 50]])
    elif shape == "latex":
        fieldname = next((f for f in ("latex", "of", "bound", "equals", "lhs") if f in c), None)
        if fieldname:
            c[fieldname] = d(LATEX)
    elif shape == "truth":
        doc["claim"][0] = c = {"id": "c1", "where": "(1)", "kind": "bound", "bound": r"\mu",
                               "side": d(["upper", "lower", "equal", "both"]), "truth": d(TRUTHS)}
    elif shape == "pairs":
        doc["pairs"] = {"P": d([{"kind": "pmf", "points": Raw("1e9")}, {"kind": "pmf", "points": 0},
                                {"kind": "pmf", "points": 1}, {"kind": "gauss", "points": 3}, 3,
                                {"kind": "pmf"}, {"kind": "pmf", "points": -2}, {"kind": "pmf", "points": "3"}])}
        doc["quantities"] = {"T": d(["TV(P)", "Renyi(P)", "TV(Q)", 5, "KL(P, P)"])}
        doc["claim"][0] = c = {"id": "c1", "where": "(1)", "kind": "inequality", "latex": r"T \le 1"}
    elif shape == "claim_domain":
        c["domain"] = d([{"x": "(nan, 1)"}, {"zz": "(0, 1)"}, "x", {"x": 5}, {"x": "(0, 1e300)"},
                         {"x": {"domain": "(0, 1)", "search": [2, 3]}}, {"x": "(0, x)"}, {"x": "(2, 1)"}])
    elif shape == "conditions":
        c["conditions"] = d([[r"x \le"], r"x > 0", [1], [""], [r"x > 2", r"x < 1"], [r"z > 0"], []])
    elif shape == "step_of":
        c["step_of"] = d(["nope", "c1", "", 5])
    elif shape == "sympy":
        fieldname = next((f for f in ("latex", "of", "bound", "lhs") if f in c), "of")
        c[fieldname] = d([{"sympy": "log(x"}, {"sympy": ""}, {"sympy": 5}, {"latex": "x"}, {"sympy": "@{nope}"},
                          {"sympy": "x +* 2"}, {"sympy": "Phi(x, x)"}, {"sympy": "x <= 1"}, {}])
    elif shape == "formula_ref":
        fieldname = next((f for f in ("latex", "of", "bound", "lhs") if f in c), "of")
        c[fieldname] = d(["@nope", "@", "@f"])
        if d.odds(2):
            doc["formulas"] = {"f": d([{"where": "(1)", "latex": r"\frac{"}, {"where": "(1)"},
                                       {"where": "(1)", "latex": r"x", "role": "nonsense"},
                                       {"latex": r"x", "where": "(1)", "role": "definition", "quantity": 5}])}
    elif shape == "duplicate_id":
        doc["claim"].append(dict(c))
    elif shape == "huge":
        doc["claim"][0] = dict(id="c1", where="(1)", **d([
            {"kind": "sampled", "latex": r"x \le x + 1", "sampler": "uniform", "draws": 1000000000},
            {"kind": "sampled", "latex": r"x \le x + 1", "sampler": "uniform", "tol_digits": 1000000},
            {"kind": "fitted_rate", "of": r"\frac{1}{x^2}", "var": "x", "rate": "2", "at": [1e300, 1e301, 1e302]},
            {"kind": "derivative", "of": r"\log(1 + x)", "wrt": "x", "equals": "0", "order": 100000}]))
        if d.odds(2):
            doc["pairs"] = {"P": {"kind": "pmf", "points": 1000000}}
            doc["quantities"] = {"T": "TV(P)"}
            doc["claim"] = [{"id": "c1", "where": "(1)", "kind": "inequality", "latex": r"T \le 1"}]
    elif shape == "deep_latex":
        n = d([200, 2000])
        c.clear()
        c.update(id="c1", where="(1)", kind="identity", latex="(" * n + "x" + ")" * n + " = x")
    elif shape == "many_claims":
        doc["claim"] = [dict(c, id=f"c{i}") for i in range(1, 301)]
    elif shape == "scaffold":
        from derive.claimfile import scaffold
        text = scaffold(f"{key}.toml")
        return ClaimFile(text.encode("utf-8"), shape, f"{key}.x")
    text = toml_text(doc)
    if shape == "binary":
        return ClaimFile(d([b"\x00\xff\xfe\x80", bytes(range(256)), b"[paper]\nkey = \"\xff\"\n",
                            text.encode("utf-8")[:40] + b"\x00\x01"]), shape, name)
    if shape == "latin1":
        return ClaimFile(text.replace("fuzzed claims", "r\u00e9sum\u00e9").encode("latin-1", "replace"), shape, name)
    if shape == "bom":
        return ClaimFile(b"\xef\xbb\xbf" + text.encode("utf-8"), shape, name)
    if shape == "invalid_toml":
        bad = d([text.replace("[paper]", "[paper", 1), text + "\nkey = \n", text + "\nx = 'unterminated\n",
                 text.replace("[paper]", "[paper]\nkey = \"a\"", 1), text + "\n[[claim]\n", "= 1\n",
                 text.replace("=", ":", 1)])
        return ClaimFile(bad.encode("utf-8"), shape, name)
    return ClaimFile(text.encode("utf-8"), shape, name, heavy)


def draw_claim_case(choice, workdir, profile: str = "ci") -> Case:
    """A claim file and the command reading it: mostly ``check FILE --workers 1``, sometimes
    ``list FILE`` or ``show NAME FILE``."""
    d = Draw(choice, profile)
    d.tame = d.odds(3)                   # a third of the files: valid ones (values mutated)
    files = _Files(workdir)
    cf = claim_file(d, f"fz{_Files.count + 1}")
    path = files.write("claims", ".toml", cf.data)
    how = d(["check"] * 6 + ["check_json", "list", "show"])
    if how == "list":
        argv = ["list", path]
    elif how == "show":
        argv = ["show", cf.name, path]
    else:
        argv = ["check", path, "--workers", "1"] + (["--json"] if how == "check_json" else [])
    return Case(f"{argv[0]} (claim file: {cf.shape})", argv, {path: cf.data}, cf.heavy)


# ----------------------------------------------------------------------------- the Python API
@dataclass
class ApiCase:
    """Python statements ending in ``result = ...``; ``params`` are the parameter names a
    ValueError's message may name; ``allowed``: further exception class names documented there."""

    label: str
    source: str
    params: tuple = ()
    allowed: tuple = ()
    isolate: bool = False


F_VALID = ["1.0", "0.5", "2.0", "1.1", "10.0", "4.0"]
F_BAD = ["1e-300", "1e300", "0", "0.0", "-1.0", "float('nan')", "float('inf')", "-float('inf')", "5e-324",
         "10**400", "'1.0'", "'abc'", "True", "None", "[1.0]", "(1.0,)", "{'sigma': 1}", "1j", "np.float64(0.5)",
         "np.array([0.5, 1.0])", "np.nan", "decimal.Decimal('0.5')", "fractions.Fraction(1, 2)", "np.float32(2)"]
P_VALID = ["0.01", "0.1", "0.001", "1.0", "0.5"]
P_BAD = ["0", "1.5", "-0.1", "float('nan')", "'0.1'", "None", "[0.1]", "True", "1e-300", "np.float64(0.01)"]
I_VALID = ["1", "10", "100", "1000"]
I_BAD = ["10**9", "10**9 + 1", "10**12", "2.5", "0", "-1", "True", "'10'", "np.int64(10)", "1e9", "float('nan')",
         "None", "[10]", "10.0"]
D_VALID = ["1e-5", "1e-10", "0.1"]
D_BAD = ["0", "1", "-1e-5", "float('nan')", "[1e-5]", "'1e-5'", "None", "np.float32(1e-5)", "1e-300", "(1e-5, 1e-6)"]
E_VALID = ["1.0", "0.5", "8.0", "0.0"]
E_BAD = ["-1.0", "float('nan')", "float('inf')", "1e300", "'1'", "None", "[1.0]", "True", "1e-300"]
METHODS_SRC = ["'best'", "'rdp'", "'pld'", "'clt'", "'edgeworth'", "'all'", "'foo'", "None", "1", "'BEST'"]
NB_SRC = ["'add_remove'", "'replace_one'", "'add-remove'", "'foo'", "None"]
CONV_SRC = ["'optimal'", "'mironov'", "'balle'", "'asoodeh'", "'lemma1'", "'foo'", "None"]
NAMES_SRC = ["'x'", "''", "'nope.claim'", "None", "123", "'zheng2020.'", "['x']", "'.'", "b'x'"]
NAMES_LONG = ["'asoodeh2021.thm4.f'", "'asoodeh2021.sec3.eq18'", "'zheng2020'", "'asoodeh2021.nope'"]


def _api_mech(d: Draw) -> str:
    f = lambda: d.value(F_VALID, F_BAD, k=4)            # noqa: E731
    return d.value([f"Gaussian({f()})"] * 3 + [f"Gaussian(sigma={f()}, sensitivity={f()})", f"Laplace({f()})",
                   f"Laplace(scale={f()}, sensitivity={f()})", f"RandomizedResponse({f()})",
                   f"DiscreteGaussian({f()}, {d.value(I_VALID[:2], I_BAD)})"], ["'gaussian'", "None", "Poisson(0.1)"],
                   k=1)


def _api_sampling(d: Draw) -> str:
    return d.value(["None", "None", f"Poisson({d.value(P_VALID, P_BAD)})",
                    f"WithoutReplacement({d.value(I_VALID[:2], I_BAD)}, {d.value(['1000', '100'], I_BAD)})"],
                   ["0.01", "'poisson'"], k=2)


def _api_event(d: Draw) -> str:
    count = d.value(I_VALID, I_BAD, k=4)
    return d([f"Event({_api_mech(d)}, {_api_sampling(d)}, {count})",
              f"Event({_api_mech(d)}, {_api_sampling(d)}, count={count})",
              f"Event(Gaussian(1.0), Poisson(0.01), {count})"])


def _api_events(d: Draw) -> str:
    ev = _api_event(d)
    return d.value([f"[{ev}]"] * 5 + [f"[{ev}, {_api_event(d)}]", ev, f"[{ev}] * 300",
                                       "(Event(Gaussian(1.0), None, 10),)"], ["[]", "None", "[1]", "'x'"], k=1)


def _kwargs(d: Draw, pools: dict) -> str:
    return "".join(f", {k}={d(v)}" for k, v in pools.items() if d.odds(3))


def _api_accounting(d: Draw) -> ApiCase:
    events = _api_events(d)
    what = d(["epsilon", "epsilon", "delta", "table", "calibrate", "spec", "rdp_curve", "pld", "mech", "event"])
    if what == "epsilon":
        src = f"result = epsilon({events}, {d.value(D_VALID, D_BAD)}" + _kwargs(
            d, {"method": METHODS_SRC, "neighbouring": NB_SRC, "conversion": CONV_SRC}) + ")"
        return ApiCase("numeric.epsilon", src, ("events", "delta", "method", "neighbouring", "conversion"))
    if what == "delta":
        src = f"result = delta({events}, {d.value(E_VALID, E_BAD)}" + _kwargs(
            d, {"method": METHODS_SRC, "neighbouring": NB_SRC, "conversion": CONV_SRC}) + ")"
        return ApiCase("numeric.delta", src, ("events", "epsilon", "eps", "method", "neighbouring", "conversion"))
    if what == "table":
        name = d(["'epsilon'", "'delta'", "'sigma'", "None"])
        at = d.value(D_VALID if "epsilon" in name else E_VALID, D_BAD)
        return ApiCase("numeric.table", f"result = table({events}, {name}, {at}, {d(NB_SRC)})",
                       ("events", "name", "at", "delta", "epsilon", "neighbouring"))
    if what == "calibrate":
        make, param, lo, hi = d([
            ("lambda x: [Event(Gaussian(x), Poisson(0.01), 100)]", "'sigma'", "0.05", "1e4"),
            ("lambda t: [Event(Gaussian(1.0), Poisson(0.01), t)]", "'steps'", "1", "10**9"),
            ("lambda x: [Event(Laplace(x), None, 10)]", "'scale'", "0.05", "1e5"),
            ("lambda x: []", "'sigma'", "0.05", "1e4"), ("None", "'sigma'", "0.05", "1e4"),
            ("lambda x: [Event(Gaussian(x), None, 10)]", d(["'sigma'", "'foo'", "None"]),
             d(["0.05", "0", "-1", "1e-300", "float('nan')", "1e4"]), d(["1e4", "0.05", "1e300", "float('inf')"]))])
        src = (f"result = calibrate({make}, {d.value(E_VALID[:3], E_BAD)}, {d.value(D_VALID, D_BAD)}, {param}, "
               f"{lo}, {hi}" + _kwargs(d, {"method": METHODS_SRC, "integer": ["True", "False", "'yes'"],
                                           "decreasing": ["True", "False", "None"]}) + ")")
        return ApiCase("numeric.calibrate", src, ("make_events", "target_eps", "epsilon", "delta", "param", "lo",
                                                 "hi", "method", "integer", "decreasing"))
    if what == "spec":
        data, _ = spec_bytes(d)
        text = data.decode("utf-8", "replace")
        obj = d([repr(text)] * 3 + [repr(data), "None", "5", "[{'mechanism': 'gaussian', 'sigma': 1, 'count': 2}]",
                                     "{'mechanism': 'gaussian'}", "[]", "[{'mechanism': 'gaussian', 'sigma': 1, "
                                     "'count': 10**400}]"])
        return ApiCase("numeric.events_from_spec", f"result = events_from_spec({obj})", ("spec",))
    if what == "rdp_curve":
        return ApiCase("numeric.rdp_curve", f"result = rdp_curve({events}, {d(NB_SRC)})", ("events", "neighbouring"))
    if what == "pld":
        src = (f"result = pld_accountant({events}, {d(NB_SRC)}, bounds={d(['both', 'upper', 'lower', 'foo'])!r})"
               f".delta({d.value(E_VALID, E_BAD)})")
        return ApiCase("numeric.pld_accountant", src, ("events", "neighbouring", "bounds", "eps", "epsilon"))
    if what == "mech":
        return ApiCase("numeric mechanisms", f"result = {_api_mech(d)}", ("sigma", "scale", "sensitivity",
                                                                          "rr_epsilon", "epsilon"))
    return ApiCase("numeric.Event", f"result = {_api_event(d)}", ("mechanism", "sampling", "steps", "count",
                                                                  "sampling_rate", "batch_size", "dataset_size"))


def _api_stateful(d: Draw) -> ApiCase:
    kw = d(["", "", "resolution=0.01", "neighbouring='foo'", "refresh_growth=1", "resolution=0",
            "resolution=-1", "lookahead=float('nan')", "neighbouring='replace_one'"])
    how = d(["step", "step", "compose", "from_json"])
    params = ("noise_multiplier", "sample_rate", "sensitivity", "count", "delta", "eps", "epsilon", "method",
              "neighbouring", "refresh_growth", "resolution", "lookahead", "event", "state", "sigma",
              "sampling_rate", "steps")
    if how == "from_json":
        s = d(["'{}'", "'[]'", "'garbage'", "None", "'{\"history\": 5}'", "b'{}'",
               "StatefulAccountant().step(1.0, 0.01).to_json()",
               "StatefulAccountant().step(1.0, 0.01).to_json().replace('0.01', '-1')",
               "StatefulAccountant().step(1.0, 0.01).to_json().replace('1.0', '\"x\"')",
               "StatefulAccountant().step(1.0, 0.01).to_json()[:-5]"])
        src = f"a = StatefulAccountant.from_json({s})\nresult = a.epsilon({d.value(D_VALID, D_BAD)})"
        return ApiCase("StatefulAccountant.from_json", src, params)
    src = f"a = StatefulAccountant({kw})\n"
    if how == "step":
        src += (f"a.step({d.value(F_VALID, F_BAD, k=3)}, {d.value(P_VALID, P_BAD, k=3)}"
                + _kwargs(d, {"count": I_VALID + I_BAD, "sensitivity": F_VALID + F_BAD}) + ")\n")
    else:
        src += f"a.compose({_api_event(d)}, {d.value(['1', '2'], I_BAD)})\n"
    query = d(["epsilon", "epsilon", "delta"])
    at = d.value(D_VALID, D_BAD) if query == "epsilon" else d.value(E_VALID, E_BAD)
    src += f"result = a.{query}({at}" + _kwargs(d, {"method": ["'fast'", "'best'", "'rdp'", "'pld'", "'foo'"]}) + ")"
    return ApiCase(f"StatefulAccountant.{how}", src, params)


def _api_risk(d: Draw) -> ApiCase:
    if d.odds(2):
        fpr = d(["(0.01,)", "[0.001, 0.01]", "0.01", "[]", "[1.5]", "[float('nan')]", "'0.01'", "None", "[0, 1]"])
        points = d(["0", "0", "5", "-1", "2.5", "'5'"] + (["10**8"] if d.long else []))
        src = (f"import numeric.risk\nresult = numeric.risk.risk({_api_events(d)}, at_fpr={fpr}, "
               f"bounds={d(['both', 'upper', 'foo'])!r}, curve_points={points})")
        return ApiCase("numeric.risk.risk", src, ("events", "at_fpr", "bounds", "curve_points", "neighbouring"),
                       isolate=points == "10**8")
    target = d([f"target_tpr={d.value(['0.05', '0.5'], P_BAD)}, at_fpr={d.value(['0.01'], P_BAD)}",
                f"target_advantage={d.value(['0.1', '0.5'], P_BAD)}", "target_tpr=0.5",
                "target_tpr=0.5, at_fpr=0.01, target_advantage=0.5", ""])
    make, param, lo, hi = d([("lambda x: [Event(Gaussian(x), Poisson(0.01), 100)]", "'sigma'", "0.05", "1e4"),
                             ("lambda t: [Event(Gaussian(1.0), Poisson(0.01), t)]", "'steps'", "1", "10**9"),
                             ("lambda x: [Event(Gaussian(x), None, 1)]", "'sigma'", d(["0", "-1", "1e300"]),
                              d(["1e4", "0.01", "float('nan')"]))])
    return ApiCase("numeric.calibrate_risk", f"result = calibrate_risk({make}, {param}, {lo}, {hi}, {target})",
                   ("make_events", "param", "lo", "hi", "target", "target_tpr", "at_fpr", "target_advantage"))


def _api_derive(d: Draw) -> ApiCase:
    fn = d(["claim", "claim", "formula", "claims", "formulas"])
    name = d(NAMES_SRC + (NAMES_LONG if d.long else []))
    src = f"result = derive.{fn}({name})"
    if fn == "claim" and d.long and name in NAMES_LONG and d.odds(2):
        src += ".check().summary()"
    return ApiCase(f"derive.{fn}", src, ("name", "cid", "paper"))


def _dp_event(d: Draw) -> str:
    f = lambda: d.value(F_VALID, F_BAD, k=4)          # noqa: E731
    g = f"dp_accounting.GaussianDpEvent({f()})"
    return d([g, g, f"dp_accounting.LaplaceDpEvent({f()})",
              f"dp_accounting.PoissonSampledDpEvent({d.value(P_VALID, P_BAD)}, {g})",
              f"dp_accounting.SelfComposedDpEvent({g}, {d.value(I_VALID, I_BAD)})",
              f"dp_accounting.ComposedDpEvent([{g}, dp_accounting.LaplaceDpEvent(1.0)])",
              f"dp_accounting.RandomizedResponseDpEvent({d.value(P_VALID, P_BAD)}, {d(['2', '3', '0'])})",
              "dp_accounting.NonPrivateDpEvent()", "dp_accounting.NoOpDpEvent()", "dp_accounting.UnsupportedDpEvent()",
              f"dp_accounting.SampledWithoutReplacementDpEvent({d(['1000', '10', '0'])}, {d(['10', '1000', '0'])}, {g})",
              "None", "'gaussian'"])


def _api_interop(d: Draw) -> ApiCase:
    allowed = ("UnsupportedEventError", "Unsupported")   # the module's documented refusals
    params = ("noise_multiplier", "sampling_probability", "delta", "target_delta", "epsilon", "target_epsilon",
              "neighboring_relation", "neighbouring", "method", "event", "count", "sigma", "sampling_rate",
              "steps", "sensitivity", "scale", "rr_epsilon", "batch_size", "dataset_size", "probability")
    head = "import dp_accounting\nfrom dpderive.interop.dp_accounting import DpDeriveAccountant, to_events, from_events\n"
    how = d(["accountant", "accountant", "to_events", "from_events"] + (["opacus", "noise"] if d.long else []))
    if how == "accountant":
        nr = d(["", "", "neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE",
                "neighboring_relation='add_remove'", "method='foo'", "method='rdp'"])
        q = d([f"get_epsilon({d.value(D_VALID, D_BAD)})", f"get_delta({d.value(E_VALID, E_BAD)})"])
        return ApiCase("DpDeriveAccountant", head + f"result = DpDeriveAccountant({nr}).compose({_dp_event(d)}).{q}",
                       params, allowed)
    if how == "to_events":
        return ApiCase("interop.to_events", head + f"result = to_events({_dp_event(d)}, {d(NB_SRC)})", params, allowed)
    if how == "from_events":
        return ApiCase("interop.from_events", head + f"result = from_events({_api_events(d)}, {d(NB_SRC)})",
                       params, allowed)
    head = "from dpderive.interop.opacus import DpDeriveOpacusAccountant, get_noise_multiplier\n"
    if how == "opacus":
        src = (head + f"a = DpDeriveOpacusAccountant({d(['', 'method=' + repr('foo'), 'resolution=None'])})\n"
               f"for _ in range({d(['1', '3', '100'])}):\n"
               f"    a.step(noise_multiplier={d.value(F_VALID, F_BAD)}, sample_rate={d.value(P_VALID, P_BAD)})\n"
               f"result = a.get_epsilon({d.value(D_VALID, D_BAD)})")
        return ApiCase("DpDeriveOpacusAccountant", src, params)
    length = d([f"epochs={d.value(['1', '10'], I_BAD)}", f"steps={d.value(['100', '1000'], I_BAD)}",
                "epochs=1, steps=10", ""])
    src = head + (f"result = get_noise_multiplier(target_epsilon={d.value(E_VALID[:3], E_BAD)}, "
                  f"target_delta={d.value(D_VALID, D_BAD)}, sample_rate={d.value(P_VALID, P_BAD)}, {length})")
    return ApiCase("opacus.get_noise_multiplier", src, params + ("epochs", "sample_rate"))


API = {"accounting": (_api_accounting, 8), "stateful": (_api_stateful, 3), "risk": (_api_risk, 2),
       "derive": (_api_derive, 2), "interop": (_api_interop, 2)}


def draw_api_case(choice, profile: str = "ci") -> ApiCase:
    """One call of the documented Python API, as the statements that make it."""
    d = Draw(choice, profile)
    d.tame = d.odds(2)                   # half the calls: valid values only
    name = d([n for n, (_, w) in API.items() for _ in range(w)])
    return API[name][0](d)


# ----------------------------------------------------------------------------- running
def file_text(data: bytes, limit: int = 2500) -> str:
    """A generated file for a report: its text (``repr`` of the bytes when binary), shortened."""
    text = data.decode("utf-8", "replace") if b"\x00" not in data else repr(data)
    return text if len(text) <= limit else text[:limit] + f"... ({len(data)} bytes)"


def reproducer(case: Case) -> str:
    """The command line and the content of the files it reads."""
    files = "".join(f"\n--- {p}:\n{file_text(b)}" for p, b in case.files.items())
    return f"dpderive {' '.join(case.argv)}{files}"


@contextlib.contextmanager
def alarm(timeout: float | None):
    """Raise ``_Timeout`` (a BaseException: no ``except Exception`` stops it) after ``timeout`` s."""
    if not timeout:
        yield
        return

    def ring(*_):
        raise _Timeout()
    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class Outcome:
    """What a call did: ``rc`` None when it timed out; ``seconds``; ``rss_mb`` when measured
    (its own process)."""

    rc: int | None
    out: str
    err: str
    seconds: float
    rss_mb: float | None = None


def _load_sources() -> None:
    from derive import registry
    registry.load_all()


@contextlib.contextmanager
def isolated_registry():
    """The registry as a fresh ``dpderive`` process would leave it: every source loaded first (a
    lazy import inside the block would register names that the cleanup then removes while the
    module stays imported), and the papers, formulas and claims a call registers (a claim file it
    checked) removed after it, so that no later test sees a fuzz paper (``fz37``) among the seeds'."""
    from derive import registry
    registry.load_all()
    before = {name: set(table) for name, table in
              (("PAPERS", registry.PAPERS), ("FORMULAS", registry.FORMULAS), ("CLAIMS", registry.CLAIMS))}
    try:
        yield
    finally:
        for name, keys in before.items():
            table = getattr(registry, name)
            for k in set(table) - keys:
                del table[k]


def run_cli_inprocess(argv, timeout: float | None = 60, cwd=None) -> Outcome:
    """``dpderive argv`` in this process (in ``cwd``): as test_fuzz_cli's ``run_inprocess``, with
    warnings written to stderr as ``Category: message``, plus ``SystemExit`` (``--help``) read as its
    exit status and an exception escaping ``main`` written as a traceback would be."""
    from dpderive.cli import main
    out, err = io.StringIO(), io.StringIO()
    _load_sources()                     # before the clock: isolated_registry loads every paper first
    t0 = time.perf_counter()
    rc = None
    with warnings.catch_warnings(record=True) as caught, contextlib.chdir(cwd or os.getcwd()), \
            isolated_registry():
        warnings.simplefilter("always")
        try:
            with alarm(timeout), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = main(list(argv))
        except _Timeout:
            rc = None
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception as exc:  # noqa: BLE001 - main let it through: as the interpreter would show it
            rc = 1
            err.write(f"Traceback (most recent call last):\n{type(exc).__name__}: {exc}\n")
    text = err.getvalue() + "".join(f"{w.category.__name__}: {w.message}\n" for w in caught if visible(w))
    return Outcome(rc, out.getvalue(), text, time.perf_counter() - t0)


_HIDDEN_BY_DEFAULT = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)
_PACKAGES = tuple(str(ROOT / p) + os.sep for p in ("dpderive", "derive", "numeric"))


def visible(w: warnings.WarningMessage) -> bool:
    """Whether a recorded warning counts: all but the categories Python hides by default when a
    third-party module raises them (a library's DeprecationWarning on import, which no user of
    the command line sees)."""
    return not (issubclass(w.category, _HIDDEN_BY_DEFAULT) and not str(w.filename).startswith(_PACKAGES))


def _child_limits(max_as_bytes: int):
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (max_as_bytes, max_as_bytes))
    return limit


def run_process(cmd, timeout: float = MAX_SECONDS, cwd=None, env=None, max_as_gb: float = 4.0) -> Outcome:
    """``cmd`` as its own process group (killed whole after ``timeout`` s), its address space
    capped at ``max_as_gb`` (so a runaway allocation fails instead of starving the machine); the
    peak resident memory from ``os.wait4``'s rusage (the child and its waited-for descendants)."""
    import subprocess
    import tempfile
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL, cwd=cwd, env=env,
                             start_new_session=True, preexec_fn=_child_limits(int(max_as_gb * 2**30)))
        status = ru = None
        while True:
            pid, st, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                status, ru = st, usage
                break
            if time.perf_counter() - t0 > timeout:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
                _, _, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.02)
        p.returncode = os.waitstatus_to_exitcode(status) if status is not None else -9
        with contextlib.suppress(ProcessLookupError):    # leftovers of the group (loky workers)
            os.killpg(p.pid, signal.SIGKILL)
        fo.seek(0)
        fe.seek(0)
        out, err = fo.read().decode("utf-8", "replace"), fe.read().decode("utf-8", "replace")
    rc = p.returncode if status is not None else None
    return Outcome(rc, out, err, time.perf_counter() - t0, ru.ru_maxrss / 1024 if ru else None)


def run_cli_process(argv, timeout: float = MAX_SECONDS, cwd=None) -> Outcome:
    """``python -m dpderive.cli argv`` as its own process (``run_process``)."""
    return run_process([sys.executable, "-m", "dpderive.cli", *argv], timeout, cwd)


def _json_problem(text: str) -> str | None:
    """Why JSON output breaks the promise (not JSON, NaN/Infinity, a "nan" string), or None."""
    def no_constants(c):
        raise ValueError(f"{c} in the JSON")
    try:
        docs = [json.loads(text, parse_constant=no_constants)]
    except ValueError:
        docs = []
        for line in text.splitlines():
            try:
                docs.append(json.loads(line, parse_constant=no_constants))
            except ValueError as exc:
                return f"JSON not valid (or NaN/Infinity in it): {exc}"

    def nan_in(v, where):
        if isinstance(v, dict):
            return next((w for k, x in v.items() if (w := nan_in(x, f"{where}.{k}"))), None)
        if isinstance(v, list):
            return next((w for i, x in enumerate(v) if (w := nan_in(x, f"{where}[{i}]"))), None)
        return where if isinstance(v, str) and v.strip().lower() in ("nan", "-nan") else None
    bad = next((w for doc in docs if (w := nan_in(doc, "$"))), None)
    return f"nan in the JSON at {bad}" if bad else None


def broken_promise(o: Outcome) -> str | None:
    """Why a call broke the promise, or None (a timeout is counted apart, not judged here):
    test_fuzz_cli's one-line rules, plus: no exception class name, no warning, at most 60 s and
    1.5 GB, stderr of an answer holding only documented progress lines, JSON checked whole."""
    if o.rc is None:
        return None
    text = o.out + o.err
    if "Traceback" in text:
        line = next((ln for ln in reversed(o.err.strip().splitlines()) if ln.strip()), "")
        return f"traceback: {line[:200]}"
    if o.rc == 70:
        return f"exit 70: {o.err.strip()[:240]}"
    m = WARNING_LINE.search(o.err)
    if m:
        return f"warning on stderr: {m.group(0).strip()[:200]}"
    m = EXCEPTION_NAME.search(text)
    if m:
        line = next(ln for ln in text.splitlines() if m.group(0) in ln)
        return f"exception name {m.group(0)} in the output: {line.strip()[:200]}"
    if o.seconds > MAX_SECONDS:
        return f"answered after {o.seconds:.0f} s (more than {MAX_SECONDS:.0f} s)"
    if o.rss_mb is not None and o.rss_mb > MAX_RSS_MB:
        return f"peak memory {o.rss_mb:.0f} MB (more than {MAX_RSS_MB:.0f} MB)"
    err = o.err
    if o.rc == 0:
        err = "\n".join(ln for ln in o.err.splitlines() if not PROGRESS_LINE.match(ln))
        body = o.out.strip()
        if not err.strip() and body.startswith(("{", "[")):
            return _json_problem(body)
    return _one_line_problem(o.rc, o.out, err)


# ----------------------------------------------------------------------------- running the API
_ANSWER_KEYS = {"epsilon", "delta", "value", "lower", "upper", "approximation", "sigma", "scale", "rr_epsilon",
                "steps", "epochs", "batch_size", "advantage", "tpr", "fpr"}


def _nan_in_answer(obj, key="value", depth=0) -> str | None:
    """Where an answer holds NaN (answer fields only: a diagnostic may be NaN), or None."""
    if depth > 4:
        return None
    answer = key in _ANSWER_KEYS or key.endswith(("_lower", "_upper")) or key.startswith("tpr")
    if isinstance(obj, (float, int)) and not isinstance(obj, bool):
        return key if answer and obj != obj else None
    if hasattr(obj, "to_dict") and callable(obj.to_dict):
        try:
            obj = obj.to_dict()
        except Exception as exc:  # noqa: BLE001 - a result that cannot describe itself
            return f"{key}.to_dict() raised {type(exc).__name__}: {exc}"
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return next((w for k, v in obj.items() if (w := _nan_in_answer(v, str(k), depth + 1))), None)
    if isinstance(obj, (list, tuple)):
        return next((w for v in obj if (w := _nan_in_answer(v, key, depth + 1))), None)
    if type(obj).__module__ == "numpy" and getattr(obj, "dtype", None) is not None and obj.dtype.kind == "f":
        import numpy as np
        return key if answer and bool(np.isnan(obj).any()) else None
    return None


def api_namespace() -> dict:
    """The names the API cases use (the documented exports of ``numeric``, ``derive``, numpy)."""
    import decimal
    import fractions

    import numpy as np

    import derive
    import derive.papers  # noqa: F401  (declares the seed papers, as dpderive does)
    import numeric
    ns = {"np": np, "math": math, "decimal": decimal, "fractions": fractions, "derive": derive, "numeric": numeric}
    ns.update({n: getattr(numeric, n) for n in numeric.__all__})
    return ns


def run_api_case(case: ApiCase, timeout: float | None = 60, ns: dict | None = None) -> tuple[str, str]:
    """Run a case in this process: (``"ok"`` | ``"refused"`` | ``"broken"`` | ``"timeout"``, detail)."""
    from derive.errors import DomainError
    from numeric.solvers import ConvergenceError
    scope = dict(ns or api_namespace())
    _load_sources()                     # before the clock: isolated_registry loads every paper first
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught, isolated_registry():
        warnings.simplefilter("always")
        try:
            with alarm(timeout), contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                exec(compile(case.source, f"<{case.label}>", "exec"), scope)
            exc = None
        except _Timeout:
            return "timeout", f"more than {timeout} s"
        except Exception as e:  # noqa: BLE001 - judged below
            exc = e
    seconds = time.perf_counter() - t0
    caught = [w for w in caught if visible(w)]
    if caught:
        w = caught[0]
        return "broken", f"warning {w.category.__name__}: {str(w.message)[:200]}"
    if seconds > MAX_SECONDS:
        return "broken", f"answered after {seconds:.0f} s"
    if exc is None:
        where = _nan_in_answer(scope.get("result"))
        return ("broken", f"NaN returned ({where})") if where else ("ok", repr(scope.get("result"))[:120])
    name, msg = type(exc).__name__, str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, (DomainError, ConvergenceError)) or name in case.allowed:
        return "refused", f"{name}: {msg[:200]}"
    if isinstance(exc, ValueError) and any(re.search(rf"\b{re.escape(p)}\b", msg) for p in case.params):
        return "refused", f"{name}: {msg[:200]}"
    if raised_at(exc).startswith(PEERS):     # a drop-in keeps its peer's own contract (its checks)
        return "refused", f"{name} (the peer's own check): {msg[:200]}"
    what = " naming no parameter" if isinstance(exc, ValueError) else ""
    return "broken", f"{name}{what}: {msg[:200]} [raised at {raised_at(exc)}]"


#: the libraries whose base classes the drop-ins extend: what their own code raises is theirs
PEERS = ("dp_accounting/", "opacus/")


def raised_at(exc: BaseException) -> str:
    """Where an exception was raised: the innermost frame (``file:line``, relative to the
    repository or to site-packages)."""
    import traceback
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    fn = frames[-1].filename
    for base in (str(ROOT) + os.sep, "site-packages" + os.sep):
        if base in fn:
            fn = fn.split(base, 1)[1]
    return f"{fn}:{frames[-1].lineno}"


def run_api_process(case: ApiCase, timeout: float = MAX_SECONDS) -> tuple[str, str, float | None]:
    """Run a case as its own process (``python tests/fuzz_gen.py --api SOURCE_FILE``): as
    ``run_api_case`` plus the peak memory in MB."""
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(dataclasses.asdict(case), fh)
    try:
        o = run_process([sys.executable, __file__, "--api", fh.name], timeout)
    finally:
        os.unlink(fh.name)
    if o.rc is None:
        return "timeout", f"more than {timeout} s", o.rss_mb
    try:
        status, detail = json.loads(o.out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return "broken", f"the process died (exit {o.rc}): {o.err.strip()[-200:]}", o.rss_mb
    if o.rss_mb is not None and o.rss_mb > MAX_RSS_MB and status != "broken":
        return "broken", f"peak memory {o.rss_mb:.0f} MB", o.rss_mb
    return status, detail, o.rss_mb


if __name__ == "__main__" and sys.argv[1:2] == ["--api"]:
    with open(sys.argv[2]) as _fh:
        _case = ApiCase(**{k: tuple(v) if isinstance(v, list) else v for k, v in json.load(_fh).items()})
    print(json.dumps(run_api_case(_case, timeout=None)))
