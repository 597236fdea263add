"""The ``dpderive`` command line.

  dpderive list [--paper KEY]            formulas and claims
  dpderive show NAME                     one formula or claim: as printed, assumptions, derived forms, verdicts
  dpderive check [FILE ...] [--paper KEY] [--json]   every claim with its verdict (exit 0 when it ran)
  dpderive report [FILE ...] [--out DIR] [--no-pdf]  appendices, errata report and PDF
      both take --workers N, --scheduler ADDRESS (dask) and --no-cache (verdict cache:
      $DPDERIVE_CACHE/verdicts, default ~/.cache/dpderive/verdicts)
  dpderive init NAME                     a commented claim file NAME.toml to start from
  dpderive sweep epsilon|delta|calibrate ... a grid of accountant questions (dpderive.sweep_cli)

FILE is a claim file (TOML, see derive/claimfile.py and examples/): a paper nobody
has encoded, checked and reported exactly as the built-in papers.
  dpderive epsilon|delta|calibrate ...   the accountant (see --help of each)

Invalid input is reported in one line on stderr with exit status 2; a bug in dpderive in
one line saying so, with exit status 70 (``--debug``, anywhere on the line, or
``DPDERIVE_DEBUG=1`` shows its traceback).  See ``dpderive.errors``.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys

from .errors import CLIError, Parser as _Parser, classify  # noqa: F401  (CLIError: re-exported)
from .execution import add_execution_flags  # noqa: F401  (its home is the execution layer)



# modules adding subcommands: each has add_commands(subparsers)
EXTENSIONS = tuple(m for m in ("accounting_cli", "tradeoff_cli", "region_cli", "tv_cli", "sweep_cli")
                   if importlib.util.find_spec(f"dpderive.{m}") is not None)


def _defer_unused_numpy_subpackages() -> None:
    """Register NumPy subpackages no command needs at start-up as lazy modules
    (``importlib.util.LazyLoader``).

    SciPy's array-API layer clones NumPy's namespace when any ``scipy.special``/``scipy.fft``
    is imported, which loads these subpackages (f2py with its Fortran parser, the test tools,
    numpy.random, numpy.polynomial, ...: about 0.1 s of a 0.25 s query) although no command
    needs them at start-up.  A lazy module is executed on first attribute
    access, so nothing changes for code that does use them; the CLI just does not pay for them
    up front.  Called once per process, before a command runs; a no-op if either is loaded."""
    import numpy
    for name in ("numpy.f2py", "numpy.testing", "numpy.random", "numpy.polynomial",
                 "numpy.ctypeslib", "numpy.rec", "numpy.char", "numpy.strings"):
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            continue
        spec.loader = importlib.util.LazyLoader(spec.loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        setattr(numpy, name.rpartition(".")[2], module)




def _cmd_list(args) -> int:
    from derive import registry
    keys = _load_files(args.files)
    registry.load_all()
    papers = [args.paper] if args.paper else (keys or list(registry.PAPERS))
    for key in papers:
        if key not in registry.PAPERS:
            raise CLIError(f"--paper={key!r} is not a known paper; known: {', '.join(registry.PAPERS)}")
        print(f"# {key}: {registry.PAPERS[key]['title']}")
        print("## formulas")
        for f in registry.formulas(key):
            print(f"  {f.name:40s} {f.source.location:12s} {f.role}")
        print("## claims")
        for c in registry.claims(key):
            print(f"  {c.id:40s} {c.source.location:12s} {c.kind}")
    return 0


def _cmd_show(args) -> int:
    from derive import registry
    from derive.printing import latex
    _load_files(args.files)
    registry.load_all()
    name = args.name
    if name in registry.FORMULAS:
        f = registry.FORMULAS[name]
        print(f"{f.name}  ({f.role} of {f.quantity})")
        print(f"source:      {f.source.cite_paper()} ({f.source.seed})")
        print(f"as printed:  {f.printed_latex}")
        print(f"encoding:    {f.encoding}" + (f" ({f.encoding_note})" if f.encoding_note else ""))
        print(f"parameters:  {', '.join(p.describe() for p in f.params)}")
        if f.conditions:
            print(f"conditions:  {', '.join(str(c) for c in f.conditions)}")
        from dpderive.render import paper_form, paper_latex
        print(f"expression:  {f.expr}")
        shown = paper_form(f.expr)
        if shown != f.expr:
            print(f"as Phi:      {shown}")          # erf/erfinv in the papers' notation
        print(f"LaTeX:       {paper_latex(f.expr)}")
        for s in f.symbols:
            if s.name in ("p", "delta", "varepsilon", "alpha") and s in f.expr.free_symbols:
                import sympy as sp
                d = sp.diff(f.expr, s)
                print(f"d/d{s.name}:{' ' * max(1, 10 - len(s.name))}{latex(d) if len(str(d)) < 400 else '(long) ' + str(sp.count_ops(d)) + ' ops'}")
        related = [c for c in registry.claims(f.paper) if f.name in c.formulas]
        for c in related:
            print(f"claim {c.id}: {c.check().summary()}")
        return 0
    if name in registry.CLAIMS or f"{name}" in registry.CLAIMS:
        c = registry.CLAIMS[name]
        rec = c.record()
        for k in ("id", "citation", "paper", "location", "kind", "statement", "printed_latex", "verdict", "method",
                  "derived_latex", "counterexample", "note"):
            if rec.get(k) not in (None, "", []):
                print(f"{k + ':':16s}{rec[k]}")
        return 0
    raise CLIError(f"NAME={name!r} is neither a formula nor a claim; `dpderive list` shows them")


def _load_files(files) -> list[str]:
    """Register each claim file (all validated before any is used); their paper keys."""
    from derive.claimfile import load_file
    return [load_file(f) for f in files]


def _cmd_check(args) -> int:
    from derive import registry
    from .report import check_all
    keys = _load_files(args.files)
    registry.load_all()
    if args.paper and args.paper not in registry.PAPERS:
        raise CLIError(f"--paper={args.paper!r} is not a known paper; known: {', '.join(registry.PAPERS)}")
    papers = [args.paper] if args.paper else (keys or [None])
    cls = []
    for key in papers:
        cls += check_all(key, progress=True, workers=args.workers, scheduler=args.scheduler,
                         cache=not args.no_cache)
    recs = [c.record() for c in cls]
    if args.json:
        json.dump(recs, sys.stdout, indent=1)
        print()
        return 0
    for r in recs:
        mark = {"proved": "proved", "holds_numerically": "holds", "fails": "FAILS",
                "artifact": "artifact", "inconclusive": "inconclusive"}[r["verdict"]]
        print(f"{r['id']:42s} {r['location']:14s} {mark:12s} {r['method'][:60]}")
        if r["verdict"] == "fails" and r.get("counterexample"):
            print(f"    counterexample: {_compact(r['counterexample'])}")
    counts = {}
    for r in recs:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print(f"{len(recs)} claims: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


def _compact(ce: dict) -> str:
    """A counterexample on one line: the point, then both sides."""
    pt = ", ".join(f"{k} = {v}" for k, v in ce.get("params", {}).items())
    sides = "; ".join(f"{k} {v}" for k, v in ce.items()
                      if k not in ("params", "distributions", "quantity", "precision"))
    return f"{pt}: {sides}" if pt else sides


def _cmd_report(args) -> int:
    from .report import build
    keys = _load_files(args.files)
    papers = [args.paper] if args.paper else (keys or None)
    # a claim file's report goes beside the built-in papers' one, never over it
    out = args.out or ("reports/" + "+".join(keys) if keys and not args.paper else "reports")
    res = build(out, pdf=not args.no_pdf, figures=not args.no_figures, papers=papers,
                workers=args.workers, scheduler=args.scheduler, cache=not args.no_cache)
    print(f"wrote {res['tex']}" + (f" and {res['pdf']}" if res["pdf"] else "")
          + f"; {res['errata']} errata in {out}/errata.md")
    return 0


def _cmd_init(args) -> int:
    from pathlib import Path

    from derive.claimfile import scaffold
    path = Path(args.name if args.name.endswith(".toml") else args.name + ".toml")
    if path.exists() and not args.force:
        raise CLIError(f"NAME={str(path)!r} exists already; choose another name or pass --force")
    path.write_text(scaffold(path.name), encoding="utf-8")
    print(f"wrote {path}: edit it, then `dpderive check {path}`")
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="dpderive", description="Differential-privacy bounds: derive, check, compute, report.")
    ap.add_argument("--debug", action="store_true",
                    help="show the traceback of a bug (anywhere on the line; also DPDERIVE_DEBUG=1)")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_Parser)
    s = sub.add_parser("list", help="list formulas and claims")
    s.add_argument("files", nargs="*", metavar="FILE", help="claim files to list instead of the built-in papers")
    s.add_argument("--paper")
    s.set_defaults(func=_cmd_list)
    s = sub.add_parser("show", help="show one formula or claim")
    s.add_argument("name")
    s.add_argument("files", nargs="*", metavar="FILE", help="claim files the name may come from")
    s.set_defaults(func=_cmd_show)
    s = sub.add_parser("check", help="check every claim (of the built-in papers, or of claim files)")
    s.add_argument("files", nargs="*", metavar="FILE", help="claim files (TOML) to check instead of the built-in papers")
    s.add_argument("--paper")
    s.add_argument("--json", action="store_true")
    add_execution_flags(s)
    s.set_defaults(func=_cmd_check)
    s = sub.add_parser("report", help="build the appendices, errata report and PDF")
    s.add_argument("files", nargs="*", metavar="FILE", help="claim files (TOML) to report instead of the built-in papers")
    s.add_argument("--out", default=None, help="output folder (default reports/, or reports/KEY for a claim file)")
    s.add_argument("--paper")
    s.add_argument("--no-pdf", action="store_true")
    s.add_argument("--no-figures", action="store_true")
    add_execution_flags(s)
    s.set_defaults(func=_cmd_report)
    s = sub.add_parser("init", help="write a commented claim file NAME.toml to start from")
    s.add_argument("name")
    s.add_argument("--force", action="store_true", help="overwrite an existing file")
    s.set_defaults(func=_cmd_init)
    for name in EXTENSIONS:
        importlib.import_module(f"dpderive.{name}").add_commands(sub)
    return ap


def main(argv=None) -> int:
    import os
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv or os.environ.get("DPDERIVE_DEBUG", "") not in ("", "0")
    argv = [a for a in argv if a != "--debug"]
    _defer_unused_numpy_subpackages()
    args = None
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except BrokenPipeError:  # output piped into `head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except RuntimeError as exc:  # e.g. a dask scheduler that cannot be reached
        if not str(exc).startswith("--scheduler"):
            return _fail(exc, args, argv, debug)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - sorted into the user's and ours by classify()
        return _fail(exc, args, argv, debug)


def _fail(exc, args, argv, debug) -> int:
    """One line on stderr (the traceback too with --debug); the exit status."""
    if getattr(exc, "query", None) is None and args is not None:
        try:
            exc.query = "dpderive " + " ".join(argv)
        except AttributeError:
            pass
    status, line = classify(exc, strict=bool(getattr(args, "strict_errors", False)))
    if debug:
        import traceback
        traceback.print_exception(exc, file=sys.stderr)
    print(line, file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
