"""The ``dpderive`` command line.

  dpderive list [--paper KEY]            formulas and claims
  dpderive show NAME                     one formula or claim: as printed, assumptions, derived forms, verdicts
  dpderive check [FILE ...] [--paper KEY] [--json]   every claim with its verdict (exit 0 when it ran)
  dpderive report [FILE ...] [--out DIR] [--no-pdf]  appendices, errata report and PDF
  dpderive derive EXPR [--wrt X] [--limit X=A] [--series X=A:N]  a closed form derived, with its steps, checked
      both take --workers N (default: one local process per available core; 1: in this
      process), --scheduler ADDRESS (dask) and --no-cache (verdict cache:
      $DPDERIVE_CACHE/verdicts, default ~/.cache/dpderive/verdicts)
  dpderive init NAME                     a commented claim file NAME.toml to start from
  dpderive sweep epsilon|delta|calibrate ... a grid of accountant questions (dpderive.sweep_cli)

FILE is a claim file (TOML, see docs/claim-files.md and examples/): a paper nobody
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
from .execution import add_execution_flags, available_cores  # noqa: F401  (their home is the execution layer)



# modules adding subcommands: each has add_commands(subparsers)
EXTENSIONS = tuple(m for m in ("accounting_cli", "tradeoff_cli", "region_cli", "tv_cli", "sweep_cli",
                                "risk_cli")
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
    if not args.files:   # the built-in papers: from the registry index, no paper module imported
        from . import index
        idx = index.load_or_build()
        papers = [args.paper] if args.paper else list(idx["papers"])
        for key in papers:
            if key not in idx["papers"]:
                raise CLIError(f"--paper={key!r} is not a known paper; known: {', '.join(idx['papers'])}")
            _print_listing(key, idx["papers"][key]["title"],
                           [(n, f["location"], f["role"]) for n, f in idx["formulas"].items()
                            if f["paper"] == key],
                           [(cid, c["location"], c["kind"]) for cid, c in idx["claims"].items()
                            if c["paper"] == key])
        return 0
    from derive import registry
    keys = _load_files(args.files)
    if args.paper and args.paper not in registry.PAPERS:
        registry.load_all()
    papers = [args.paper] if args.paper else keys
    for key in papers:
        if key not in registry.PAPERS:
            raise CLIError(f"--paper={key!r} is not a known paper; known: {', '.join(registry.PAPERS)}")
        _print_listing(key, registry.PAPERS[key]["title"],
                       [(f.name, f.source.location, f.role) for f in registry.formulas(key)],
                       [(c.id, c.source.location, c.kind) for c in registry.claims(key)])
    return 0


def _print_listing(key: str, title: str, formulas, claims) -> None:
    print(f"# {key}: {title}")
    print("## formulas")
    for name, location, role in formulas:
        print(f"  {name:40s} {location:12s} {role}")
    print("## claims")
    for cid, location, kind in claims:
        print(f"  {cid:40s} {location:12s} {kind}")


def _formula_lines(f) -> list[str]:
    """What ``show`` prints of a formula before its claims' verdicts."""
    from derive.printing import latex
    from dpderive.render import paper_form, paper_latex
    out = [f"{f.name}  ({f.role} of {f.quantity})",
           f"source:      {f.source.cite_paper()} ({f.source.seed})",
           f"as printed:  {f.printed_latex}",
           f"encoding:    {f.encoding}" + (f" ({f.encoding_note})" if f.encoding_note else ""),
           f"parameters:  {', '.join(p.describe() for p in f.params)}"]
    if f.conditions:
        out.append(f"conditions:  {', '.join(str(c) for c in f.conditions)}")
    out.append(f"expression:  {f.expr}")
    shown = paper_form(f.expr)
    if shown != f.expr:
        out.append(f"as Phi:      {shown}")          # erf/erfinv in the papers' notation
    out.append(f"LaTeX:       {paper_latex(f.expr)}")
    for s in f.symbols:
        if s.name in ("p", "delta", "varepsilon", "alpha") and s in f.expr.free_symbols:
            import sympy as sp
            d = sp.diff(f.expr, s)
            out.append(f"d/d{s.name}:{' ' * max(1, 10 - len(s.name))}{latex(d) if len(str(d)) < 400 else '(long) ' + str(sp.count_ops(d)) + ' ops'}")
    return out


_SHOWN = ("id", "citation", "paper", "location", "kind", "statement", "printed_latex", "verdict", "method",
          "derived_latex", "counterexample", "note")


def _print_claim_record(rec: dict) -> None:
    for k in _SHOWN:
        if rec.get(k) not in (None, "", []):
            print(f"{k + ':':16s}{rec[k]}")
        if k == "derived_latex" and rec.get("steps"):      # a derivation: how the result was reached
            print("steps:")
            for i, st in enumerate(rec["steps"], 1):
                print(f"  {i}. {st['what']}: {st['latex']}")


def _checked(cls) -> None:
    """Give the claims their verdicts through the verdict cache (checking those not cached)."""
    from .execution import check_claims
    check_claims(cls, workers=1, cache=True, progress=False)


def _show_loaded(name: str) -> int:
    """``show`` from the loaded registry (a claim file's formula or claim)."""
    from derive import registry
    if name in registry.FORMULAS:
        f = registry.FORMULAS[name]
        for line in _formula_lines(f):
            print(line)
        related = [c for c in registry.claims(f.paper) if f.name in c.formulas]
        _checked(related)
        for c in related:
            print(f"claim {c.id}: {c.check().summary()}")
        return 0
    if name in registry.CLAIMS:
        c = registry.CLAIMS[name]
        _checked([c])
        _print_claim_record(c.record())
        return 0
    raise CLIError(f"NAME={name!r} is neither a formula nor a claim; `dpderive list` shows them")


def _cmd_show(args) -> int:
    from . import index
    name = args.name
    if args.files:
        from derive import registry
        keys = _load_files(args.files)
        if name not in registry.FORMULAS and name not in registry.CLAIMS:
            # the id as the file writes it ("laplace_renyi"), without the file's key in front
            named = [f"{k}.{name}" for k in keys if f"{k}.{name}" in registry.FORMULAS or f"{k}.{name}" in registry.CLAIMS]
            if len(named) == 1:
                name = named[0]
        if name in registry.FORMULAS or name in registry.CLAIMS:
            return _show_loaded(name)
        idx = index.load()
        if idx is None:   # a seed paper's name, no index (claim files loaded: none is built)
            registry.load_all()
            return _show_loaded(name)
    else:
        idx = index.load_or_build()
    if name in idx["formulas"]:
        entry = index.formula_lines(name)
        if entry is None:
            from derive import registry
            registry.load_all()
            f = registry.FORMULAS[name]
            entry = {"lines": _formula_lines(f),
                     "related": [c.id for c in registry.claims(f.paper) if f.name in c.formulas]}
            index.put_formula_lines(name, entry)
        for line in entry["lines"]:
            print(line)
        for cid in entry["related"]:
            print(f"claim {cid}: {_claim_view(idx, cid)['summary']}")
        return 0
    if name in idx["claims"]:
        from derive.records import assemble_record
        _print_claim_record(assemble_record(idx["claims"][name]["static"], _claim_view(idx, name)))
        return 0
    raise CLIError(f"NAME={name!r} is neither a formula nor a claim; `dpderive list` shows them")


def _claim_view(idx: dict, cid: str) -> dict:
    """A seed claim's verdict as printed (derive.core.verdict_view): cached, or checked now."""
    from . import index
    got = index.view(idx["claims"][cid]["key"])
    if got is None:
        from derive import registry
        from derive.core import verdict_view
        c = registry.claim(cid)
        _checked([c])
        got = verdict_view(c.check())
    return got


def _load_files(files) -> list[str]:
    """Register each claim file (all validated before any is used); their paper keys."""
    from derive.claimfile import load_file
    return [load_file(f) for f in files]


def _cmd_check(args) -> int:
    recs = None
    workers = args.workers or available_cores()
    if not args.files and not args.no_cache:   # warm: every verdict from the cache, no paper imported
        from . import index
        idx = index.load()
        if idx is not None:
            if args.paper and args.paper not in idx["papers"]:
                raise CLIError(f"--paper={args.paper!r} is not a known paper; known: {', '.join(idx['papers'])}")
            ids = index.claim_ids(idx, args.paper)
            recs = index.records(idx, ids)
            if recs is not None and ids:
                from .execution import DiskCache
                label = "all papers" if args.paper is None else args.paper
                print(f"[checking {label}] {len(ids)} of {len(ids)} verdicts from the cache "
                      f"({DiskCache('verdicts').dir})", file=sys.stderr)
    if recs is None:
        from derive import registry

        from .execution import cold_cache, prewarm
        from .report import check_all
        if not args.files and cold_cache(not args.no_cache):  # workers import the papers meanwhile
            prewarm([args.paper] if args.paper else list(registry.source_keys()), workers, args.scheduler)
        keys = _load_files(args.files)
        if not args.files or (args.paper and args.paper not in registry.PAPERS):
            registry.load_all()
        if args.paper and args.paper not in registry.PAPERS:
            raise CLIError(f"--paper={args.paper!r} is not a known paper; known: {', '.join(registry.PAPERS)}")
        papers = [args.paper] if args.paper else (keys or [None])
        cls = []
        for key in papers:
            cls += check_all(key, progress=True, workers=workers, scheduler=args.scheduler,
                             cache=not args.no_cache)
        recs = [c.record() for c in cls]
        if not args.files:
            from . import index
            if index.load() is None:
                index.build()
    if args.json:
        json.dump(recs, sys.stdout, indent=1)
        print()
        return 0
    print_claim_lines(recs)
    counts = {}
    for r in recs:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print(f"{len(recs)} claims: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


VERDICT_MARKS = {"proved": "proved", "holds_numerically": "holds_numerically", "fails": "FAILS",
                 "artifact": "artifact", "inconclusive": "inconclusive"}


def claim_lines(recs) -> list[str]:
    """The text of ``dpderive check``: per claim a line verdict first (a fixed-width column), then
    the id (padded to the longest id, so the locations line up too) and the location in the paper
    however long it is; the method on its own line in full; a derivation's result (LaTeX), a failing
    claim's counterexample and an inconclusive claim's note below it."""
    width = max((len(r["id"]) for r in recs), default=0)
    out = []
    for r in recs:
        mark = VERDICT_MARKS[r["verdict"]]
        out.append(f"{mark:17s} {r['id']:{width}s}  {r['location']}".rstrip())
        out.append(f"    method: {r['method']}")
        if r.get("kind") == "derivation" and r.get("derived_latex"):   # a claim that asked for its answer
            out.append(f"    derived: {r['derived_latex']}")
        if r["verdict"] == "fails" and r.get("counterexample"):
            out.append(f"    counterexample: {_compact(r['counterexample'])}")
        elif r["verdict"] == "inconclusive" and r.get("note"):
            out.append(f"    note: {r['note']}")
    return out


def print_claim_lines(recs) -> None:
    for line in claim_lines(recs):
        print(line)


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
                workers=args.workers or available_cores(), scheduler=args.scheduler,
                cache=not args.no_cache)
    print(f"wrote {res['tex']}" + (f" and {res['pdf']}" if res["pdf"] else "")
          + f"; {res['errata']} errata in {out}/errata.md")
    return 0


def _cmd_derive(args) -> int:
    import json as _json

    from derive.derivation import DerivationError, derive, parse_point
    try:
        limit = parse_point("--limit", args.limit, False) if args.limit is not None else None
        series = parse_point("--series", args.series, True) if args.series is not None else None
    except DerivationError as exc:
        raise CLIError(str(exc)) from None
    if limit is not None and series is not None:
        raise CLIError("--limit and --series: give one of them (a series at the limit point says both)")
    from derive import budget
    seconds = budget.wall_seconds()
    try:
        with budget.wall(seconds):
            d = derive(args.expr, wrt=args.wrt, order=args.order, limit=limit, series=series)
    except DerivationError as exc:
        raise CLIError(str(exc)) from None
    except budget.WallBudgetExceeded:
        raise CLIError(f"EXPR={args.expr!r}: the derivation stopped at its wall-time budget of {seconds:g} s "
                       "(raise it with $DPDERIVE_CLAIM_BUDGET)") from None
    print(_json.dumps(d.record(), indent=1) if args.json else d.text())
    return 0 if d.check.get("status") != "fails" else 1


def _cmd_init(args) -> int:
    from pathlib import Path

    from derive.claimfile import scaffold
    path = Path(args.name if args.name.endswith(".toml") else args.name + ".toml")
    from .outputs import check_file
    check_file("NAME", str(path))
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
    add_execution_flags(s, all_cores=True)
    s.set_defaults(func=_cmd_check)
    s = sub.add_parser("report", help="build the appendices, errata report and PDF")
    s.add_argument("files", nargs="*", metavar="FILE", help="claim files (TOML) to report instead of the built-in papers")
    s.add_argument("--out", default=None, help="output folder (default reports/, or reports/KEY for a claim file)")
    s.add_argument("--paper")
    s.add_argument("--no-pdf", action="store_true")
    s.add_argument("--no-figures", action="store_true")
    add_execution_flags(s, all_cores=True)
    s.set_defaults(func=_cmd_report)
    s = sub.add_parser("derive", help="derive a closed form (a library quantity, a derivative, a limit, a "
                       "series), with its steps, checked numerically against an independent computation")
    s.add_argument("expr", metavar="EXPR", help="SymPy syntax (e.g. 'Renyi(Laplace(1, b), alpha)'), LaTeX, "
                   "or @formula of a paper")
    s.add_argument("--wrt", metavar="X", help="differentiate in X")
    s.add_argument("--order", type=int, default=1, help="the order of the derivative (default 1)")
    s.add_argument("--limit", metavar="X=A", help="the limit as X -> A (X=A- from below, X=oo)")
    s.add_argument("--series", metavar="X=A:N", help="the series in X at A, to order N (the O-term dropped)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_derive)
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
        from .outputs import check_args
        check_args(args)
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
