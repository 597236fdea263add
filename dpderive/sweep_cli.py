"""``dpderive sweep epsilon|delta|calibrate``: a grid of accountant questions.

Every flag of the single command is accepted (the sweep does not know them: it
passes them through, so flags added to ``epsilon``/``delta``/``calibrate`` work
here unchanged); a numeric flag may take

- a comma-separated list: ``--sigma 0.8,1.0,1.2``;
- a log-spaced range ``lo:hi:n`` (n points from lo to hi): ``--steps 1000:10000:4``;
- a flag with choices, a list of them: ``--method rdp,pld``.
  Count flags (an ``int``-typed flag, or one of ``COUNT_FLAGS`` such as --steps,
  --epochs, --batch-size) stay integers.

The grid is the product of the lists, in the order the flags are given (the first
varies slowest).  Each grid point is the argv of the single command plus ``--json``;
a task (``run_point``, run by ``dpderive.execution`` serially, on ``--workers``
local processes or on the dask ``--scheduler``) takes it through the single command's
own steps (``accounting_cli.parse_command`` -> ``build_query`` -> ``answer`` ->
``records``: the same Python objects ``--json`` prints, no text round trip).  A point
the user's input rules out (``numeric.errors.UserInputError``, a search limit, a solver
that does not converge) gives a row with the error line; a bug is not hidden in a row:
the task fails with it (``TaskResult.error``).

Outputs: ``--out FILE`` (.csv, .json, or .parquet when pyarrow is installed) with
one row per point: the inputs, ``value`` (epsilon, delta or the parameter calibrate solved for), the certified
bracket ``lower``/``upper`` when the method gives one, ``method``/``route``,
``guarantee`` and ``error``; ``--plot FILE.png`` (a curve over one varying input, a
heat map over two, curves over the one with most values and one curve per
combination of the others beyond); a table on stdout without ``--out``.

Each computed point is cached on disk (``$DPDERIVE_CACHE/sweep``, default
``~/.cache/dpderive/sweep``), keyed by its argv and the accountant's source code,
so an interrupted sweep resumes where it stopped (``--no-cache`` recomputes).
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import itertools
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .errors import CLIError
from .execution import DiskCache, add_execution_flags, files_digest, run_tasks

TARGETS = {"epsilon": "epsilon", "delta": "delta", "calibrate": "sigma"}
COUNT_FLAGS = frozenset({"steps", "epochs", "batch_size", "dataset_size", "k", "compositions"})
OUT_FORMATS = (".csv", ".json", ".parquet")
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"^({_NUM}):({_NUM}):(\d+)$")
#: the most grid points one sweep runs (a grid is held in memory with its rows; split a
#: larger one into several runs: the resume cache keeps what each computed)
MAX_POINTS = 10_000


class SweepError(ValueError):
    """Bad sweep input (one line, exit status 2)."""


# ----------------------------------------------------------------------------- the grid

@dataclass
class Axis:
    """One flag of the single command with the values it takes (as argv text)."""

    flag: str           # "--sigma"
    dest: str           # "sigma": the column name
    texts: list         # argv text per value; [None] for a flag without a value
    values: list = field(default_factory=list)  # numbers (or the text) for the table

    @property
    def varies(self) -> bool:
        return len(self.texts) > 1


def _command_actions(target: str) -> dict:
    """option string -> argparse action of the single command ``target``."""
    from .accounting_cli import command_parser
    ap = command_parser()
    sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices[target]._option_string_actions)


def _number(text: str):
    try:
        return int(text) if re.fullmatch(r"[-+]?\d+", text) else float(text)
    except ValueError:
        return None


def _expand(flag: str, dest: str, text: str, action) -> tuple[list, list]:
    """The argv texts and numbers one flag's value stands for."""
    numeric_flag = action is None or getattr(action, "type", None) in (int, float)
    is_count = getattr(action, "type", None) is int or dest in COUNT_FLAGS
    m = _RANGE.match(text) if numeric_flag else None
    if m:
        lo, hi, n = float(m.group(1)), float(m.group(2)), int(m.group(3))
        if not (lo > 0 and hi > 0 and n >= 1 and math.isfinite(lo) and math.isfinite(hi)):
            raise SweepError(f"{flag}={text!r}: a range lo:hi:n needs 0 < lo, 0 < hi and n >= 1 "
                             "(n log-spaced points)")
        if n > MAX_POINTS:
            raise SweepError(f"{flag}={text!r}: n = {n} points; a sweep runs at most {MAX_POINTS} "
                             "(split the range into several sweeps)")
        xs = [lo] if n == 1 else [math.exp(math.log(lo) + i * (math.log(hi) - math.log(lo)) / (n - 1))
                                  for i in range(n)]
        if n > 1:
            xs[-1] = hi
        if is_count:
            ints = list(dict.fromkeys(int(round(x)) for x in xs))
            return [str(v) for v in ints], ints
        return [repr(x) for x in xs], xs
    parts = [p.strip() for p in text.split(",")]
    choices = getattr(action, "choices", None)
    if len(parts) > 1 and choices and all(p in choices for p in parts):  # --method rdp,pld
        return parts, parts
    nums = [_number(p) for p in parts]
    if len(parts) > 1 and any(v is None for v in nums):
        if action is not None and numeric_flag:
            raise SweepError(f"{flag}={text!r}: a list must be comma-separated numbers")
        return [text], [text]  # a text value with commas: passed through as it is
    if is_count:
        nums = [int(v) if isinstance(v, float) and v.is_integer() else v for v in nums]
    return parts, [v if v is not None else p for v, p in zip(nums, parts)]


def build_grid(target: str, passthrough: list[str]) -> tuple[list[Axis], list[tuple[dict, list]]]:
    """The axes (flags in the order given) and the grid points: (inputs, argv) each."""
    actions = _command_actions(target)
    axes: list[Axis] = []
    toks = list(passthrough)
    i = 0
    while i < len(toks):
        tok = toks[i]
        if not tok.startswith("--"):
            raise SweepError(f"sweep {target}: unexpected argument {tok!r} (flags are --name VALUE)")
        flag, eq, val = tok.partition("=")
        action = actions.get(flag)
        takes_value = action.nargs != 0 if action is not None else (
            bool(eq) or (i + 1 < len(toks) and not toks[i + 1].startswith("--")))
        if flag == "--json":
            i += 1
            continue
        dest = action.dest if action is not None else flag[2:].replace("-", "_")
        if not takes_value:
            axes.append(Axis(flag, dest, [None], [True]))
            i += 1
            continue
        if not eq:
            if i + 1 >= len(toks):
                raise SweepError(f"sweep {target}: {flag} needs a value")
            val = toks[i + 1]
            i += 1
        i += 1
        texts, values = _expand(flag, dest, val, action)
        if any(a.dest == dest for a in axes):
            raise SweepError(f"sweep {target}: {flag} is given twice; give it once (a list a,b,c "
                             "or a range lo:hi:n sweeps it)")
        axes.append(Axis(flag, dest, texts, values))
    size = math.prod(len(a.texts) for a in axes)
    if size > MAX_POINTS:
        raise SweepError(f"sweep {target}: the grid has {size:,} points ("
                         + " x ".join(str(len(a.texts)) for a in axes if a.varies)
                         + f"); a sweep runs at most {MAX_POINTS:,} (split it into several sweeps)")
    points = []
    for combo in itertools.product(*[range(len(a.texts)) for a in axes]):
        argv, inputs = [target], {}
        for a, j in zip(axes, combo):
            argv.append(a.flag)
            if a.texts[j] is not None:
                argv.append(a.texts[j])
            inputs[a.dest] = a.values[j]
        points.append((inputs, argv + ["--json"]))
    return axes, points


# ----------------------------------------------------------------------------- one point

def run_point(argv: list[str]) -> dict:
    """One grid point in this process: {"record": what its ``--json`` prints, as Python
    objects} or {"error": the one line a user error gives}.  A bug raises."""
    from .accounting_cli import answer, build_query, parse_command, records
    from .errors import EXIT_USER, classify
    try:
        q = build_query(parse_command([a for a in argv if a != "--json"]))
        return {"record": records(q, answer(q))}
    except Exception as exc:  # noqa: BLE001 - the user's errors become rows; bugs go on
        status, line = classify(exc, strict=True)
        if status != EXIT_USER:
            raise
        return {"error": line.removeprefix("error: ")}


def point_error(argv: list[str]) -> str | None:
    """The one-line user error of a grid point found by validating it alone (its flags and
    values; no accounting), or None: such a point is reported as a row and never run."""
    from .accounting_cli import build_query, parse_command
    from .errors import EXIT_USER, classify
    try:
        build_query(parse_command([a for a in argv if a != "--json"]))
    except Exception as exc:  # noqa: BLE001 - the user's errors become rows; bugs go on
        status, line = classify(exc, strict=True)
        if status != EXIT_USER:
            raise
        return line.removeprefix("error: ")
    return None


def _code_digest() -> str:
    """The accountant's code: numeric/, dpderive/*.py and derive/*.py (not the papers)."""
    import derive
    import numeric
    roots = [Path(numeric.__file__).parent, Path(__file__).parent]
    files = [p for r in roots for p in r.rglob("*.py")] + list(Path(derive.__file__).parent.glob("*.py"))
    return files_digest(files)


def point_key(argv: list[str], code: str) -> str:
    return hashlib.sha256(("\0".join(argv) + "\0" + code).encode()).hexdigest()


def _rows(target: str, inputs: dict, res: dict | None) -> list[dict]:
    """The table rows of one point: one, or one per route when the command answers with a
    list (``--method all``).  Every row has the same columns."""
    name = TARGETS[target]
    rec = (res or {}).get("record") or {}
    error = (res or {}).get("error", "") if res is not None else "not computed"
    out = []
    for r in (rec if isinstance(rec, list) else [rec]):
        row = dict(inputs)
        if "quantity" in r and "upper" in r:  # one route of --method all
            value = r["upper"] if r.get("guarantee") else r.get("approximation")
            row.update(quantity=r.get("quantity", name), value=value, lower=r.get("lower"),
                       upper=r.get("upper"), method="all", route=r.get("route", ""),
                       guarantee=r.get("guarantee"))
        else:
            # calibrate answers the parameter it solved for (sigma, scale, rr_epsilon, steps, ...)
            q = r.get("solved_for", name) if target == "calibrate" else name
            row.update(quantity=q, value=r.get(q), lower=r.get(f"{q}_lower"),
                       upper=r.get(f"{q}_upper"), method=r.get("method", ""),
                       route=r.get("route", r.get("conversion", "")), guarantee=r.get("guarantee"))
        if target == "calibrate":  # the epsilon the calibrated sigma achieves, and its bracket
            row.update(epsilon_achieved=r.get("epsilon_achieved", r.get("epsilon")),
                       epsilon_lower=r.get("epsilon_lower"), epsilon_upper=r.get("epsilon_upper"))
        row["error"] = error
        out.append(row)
    return out


def sweep(target: str, passthrough: list[str], *, workers: int = 1, scheduler: str | None = None,
          cache: bool = True, progress: bool = True) -> tuple[list[Axis], list[dict], dict]:
    """Run the grid; return (axes, rows in grid order, counts)."""
    if target not in TARGETS:
        raise SweepError(f"sweep: target={target!r} is not one of {', '.join(TARGETS)}")
    axes, points = build_grid(target, passthrough)
    store = DiskCache("sweep") if cache else None
    code = _code_digest() if cache else ""
    keys = [point_key(argv, code) for _, argv in points]
    results: list[dict | None] = [store.get(k) if store else None for k in keys]
    for i, r in enumerate(results):         # invalid points: refused before anything runs
        if r is None and (why := point_error(points[i][1])) is not None:
            results[i] = {"error": why}
    if all(r is not None and "error" in r for r in results):
        raise SweepError(f"every point is invalid; first: {results[0]['error']}")
    todo = [i for i, r in enumerate(results) if r is None]
    counts = {"points": len(points), "cached": sum(1 for r in results if r is not None and "record" in r),
              "computed": len(todo)}

    def keep(r) -> None:
        i = todo[r.index]
        results[i] = r.value if r.ok else {"error": r.error}
        if store is not None and r.ok and "record" in r.value:
            store.put(keys[i], r.value)

    run_tasks(run_point, [points[i][1] for i in todo], workers=workers, scheduler=scheduler,
              progress=progress, desc=f"sweep {target}", names=[" ".join(points[i][1]) for i in todo],
              on_result=keep)
    rows = [row for (inputs, _), res in zip(points, results) for row in _rows(target, inputs, res)]
    counts["errors"] = sum(1 for r in results if r is None or "error" in r)
    return axes, rows, counts


# ----------------------------------------------------------------------------- outputs

def _check_out(path: str | None) -> None:
    if path is None:
        return
    ext = Path(path).suffix.lower()
    if ext not in OUT_FORMATS:
        raise SweepError(f"--out={path!r}: the extension must be one of {', '.join(OUT_FORMATS)}")
    from .outputs import check_file
    check_file("--out", path)
    if ext == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise SweepError(f"--out={path!r}: Parquet needs pyarrow (pip install pyarrow); "
                             "use .csv or .json") from None


def write_rows(rows: list[dict], path: str) -> None:
    ext = Path(path).suffix.lower()
    cols = list(rows[0]) if rows else []
    if ext == ".csv":
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=cols)
            w.writeheader()
            for r in rows:
                w.writerow({k: ("" if v is None else repr(v) if isinstance(v, float) else v)
                            for k, v in r.items()})
    elif ext == ".json":
        from .accounting_cli import jsonable
        Path(path).write_text(json.dumps(jsonable(rows), indent=1) + "\n")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.Table.from_pylist(rows), path)


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return "" if v is None else str(v)


def print_table(rows: list[dict], axes: list[Axis]) -> None:
    cols = list(dict.fromkeys([a.dest for a in axes if a.varies]
                              + ["value", "lower", "upper", "method", "route", "error"]))
    cols = [c for c in cols if any(r.get(c) not in (None, "") for r in rows)] or ["value"]
    cells = [[_fmt(r.get(c)) for c in cols] for r in rows]
    width = [max([len(c)] + [len(x[j]) for x in cells]) for j, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, width)).rstrip())
    for x in cells:
        print("  ".join(v.ljust(w) for v, w in zip(x, width)).rstrip())


def _log_axis(values: list) -> bool:
    xs = [v for v in values if isinstance(v, (int, float))]
    return len(xs) > 1 and min(xs) > 0 and max(xs) / min(xs) >= 20


def plot_rows(rows: list[dict], axes: list[Axis], path: str, target: str) -> None:
    """A curve over one varying input, a heat map over two, curves over more."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    quantity = TARGETS[target]
    vary = [a for a in axes if a.varies]
    fixed = ", ".join(f"{a.dest}={a.values[0]}" for a in axes if not a.varies and a.texts[0] is not None)
    ok = [r for r in rows if not r["error"] and isinstance(r["value"], (int, float))
          and math.isfinite(r["value"])]
    routes = list(dict.fromkeys(r["route"] for r in ok))
    several = len(rows) > len({tuple(repr(r[a.dest]) for a in axes) for r in rows})
    if several:  # --method all: one curve per route
        vary = vary + [Axis("--route", "route", routes, routes)]
    fig, ax = plt.subplots(figsize=(7.5, 5))
    if len(vary) == 2 and not several:
        a, b = vary
        grid = np.full((len(a.values), len(b.values)), np.nan)
        for r in ok:
            grid[a.values.index(r[a.dest]), b.values.index(r[b.dest])] = r["value"]
        im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
        ax.set_xticks(range(len(b.values)), [_fmt(v) for v in b.values])
        ax.set_yticks(range(len(a.values)), [_fmt(v) for v in a.values])
        ax.set_xlabel(b.dest)
        ax.set_ylabel(a.dest)
        fig.colorbar(im, ax=ax, label=quantity)
        lo, hi = np.nanmin(grid) if ok else 0, np.nanmax(grid) if ok else 1
        for (i, j), v in np.ndenumerate(grid):
            txt = "error" if np.isnan(v) else f"{v:.3g}"
            dark = not np.isnan(v) and hi > lo and (v - lo) / (hi - lo) > 0.6
            ax.text(j, i, txt, ha="center", va="center", fontsize=8, color="black" if dark else "white")
    else:
        x = max(vary[:-1] if several and len(vary) > 1 else vary, key=lambda ax_: len(ax_.values))
        others = [a for a in vary if a is not x]
        combos = list(itertools.product(*[a.values for a in others])) or [()]
        for combo in combos:
            sel = [r for r in ok if all(r[a.dest] == v for a, v in zip(others, combo))]
            sel.sort(key=lambda r: r[x.dest])
            label = ", ".join(f"{a.dest}={_fmt(v)}" for a, v in zip(others, combo)) or None
            xs = [r[x.dest] for r in sel]
            approx = bool(sel) and all(r["guarantee"] is False for r in sel)
            if approx and label:
                label += " (approximation)"
            line, = ax.plot(xs, [r["value"] for r in sel], marker="o", label=label,
                            linestyle="--" if approx else "-")
            if any(r["lower"] is not None for r in sel):
                ax.fill_between(xs, [r["lower"] for r in sel], [r["upper"] for r in sel],
                                color=line.get_color(), alpha=0.2)
        ax.set_xlabel(x.dest)
        ax.set_ylabel(quantity)
        if _log_axis(x.values):
            ax.set_xscale("log")
        if quantity == "delta" and _log_axis([r["value"] for r in ok]):
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        if others:
            ax.legend(fontsize=8, title=None)
    n_err = sum(1 for r in rows if r["error"])
    ax.set_title(f"dpderive sweep {target}: {quantity}" + (f" ({n_err} points failed)" if n_err else "")
                 + (f"\n{fixed}" if fixed else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


# ----------------------------------------------------------------------------- command line

def _own_flags(p) -> None:
    p.add_argument("--out", metavar="FILE", help="write the rows: .csv, .json or .parquet")
    p.add_argument("--plot", metavar="FILE.png", help="draw the grid (matplotlib)")
    add_execution_flags(p, cache_help="recompute every point (ignore the sweep cache)")


def cmd_sweep(args) -> int:
    own = argparse.ArgumentParser(prog="dpderive sweep", add_help=False, allow_abbrev=False)
    _own_flags(own)
    own.error = lambda message: (_ for _ in ()).throw(CLIError(f"dpderive sweep: {message}"))
    if "-h" in args.rest or "--help" in args.rest:
        print(f"dpderive sweep {args.target}: the flags of `dpderive {args.target}` below; a numeric "
              "flag may take a list a,b,c or a log-spaced range lo:hi:n, a flag with choices a list "
              "of choices; plus --out FILE, --plot FILE.png, --workers N, --scheduler ADDRESS, "
              "--no-cache.\n")
        from .accounting_cli import command_parser
        sub = next(a for a in command_parser()._actions if isinstance(a, argparse._SubParsersAction))
        sub.choices[args.target].print_help()
        return 0
    ns, passthrough = own.parse_known_args(args.rest, namespace=argparse.Namespace(**{
        k: getattr(args, k) for k in ("out", "plot", "workers", "scheduler", "no_cache")}))
    _check_out(ns.out)
    if ns.plot:
        from .outputs import PLOT_FORMATS, check_file
        check_file("--plot", ns.plot, PLOT_FORMATS)
    axes, points = build_grid(args.target, passthrough)
    if ns.plot and not any(a.varies for a in axes):
        raise SweepError("--plot needs at least one input with several values (--flag a,b or lo:hi:n)")
    axes, rows, counts = sweep(args.target, passthrough, workers=ns.workers, scheduler=ns.scheduler,
                               cache=not ns.no_cache, progress=True)
    if ns.out:
        write_rows(rows, ns.out)
    if ns.plot:
        plot_rows(rows, axes, ns.plot, args.target)
    if not ns.out:
        print_table(rows, axes)
    print(f"{counts['points']} points: {counts['computed']} computed, {counts['cached']} from cache, "
          f"{counts['errors']} failed" + (f"; wrote {ns.out}" if ns.out else "")
          + (f" and {ns.plot}" if ns.plot and ns.out else f"; wrote {ns.plot}" if ns.plot else ""),
          file=sys.stderr if not ns.out else sys.stdout)
    return 0


def add_commands(subparsers) -> None:
    """Add ``dpderive sweep``."""
    p = subparsers.add_parser(
        "sweep", help="a grid of epsilon, delta or calibrate questions (lists a,b,c or ranges lo:hi:n)",
        description="Run `dpderive TARGET` over a grid: any numeric flag of TARGET may take a "
                    "comma-separated list (--sigma 0.8,1.0) or a log-spaced range lo:hi:n "
                    "(--steps 1000:10000:4); the grid is their product.")
    p.add_argument("target", choices=tuple(TARGETS))
    _own_flags(p)
    p.add_argument("rest", nargs=argparse.REMAINDER, help="the flags of TARGET")
    p.set_defaults(func=cmd_sweep, strict_errors=True)
