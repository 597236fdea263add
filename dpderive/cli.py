"""The ``dpderive`` command line.

  dpderive list [--paper KEY]            formulas and claims
  dpderive show NAME                     one formula or claim: as printed, assumptions, derived forms, verdicts
  dpderive check [--paper KEY] [--json]  every claim with its verdict (exit 0 when it ran)
  dpderive report [--out DIR] [--no-pdf] appendices, errata report and PDF
  dpderive epsilon|delta|calibrate ...   the accountant (see --help of each)

Invalid input is reported in one line on stderr with exit status 2.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys

from derive import registry
from derive.printing import latex


# modules adding subcommands: each has add_commands(subparsers)
EXTENSIONS = tuple(m for m in ("accounting_cli", "tradeoff_cli", "region_cli", "tv_cli")
                   if importlib.util.find_spec(f"dpderive.{m}") is not None)


class CLIError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        raise CLIError(f"{self.prog}: {message}")


def _cmd_list(args) -> int:
    registry.load_all()
    papers = [args.paper] if args.paper else list(registry.PAPERS)
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
        print(f"expression:  {f.expr}")
        print(f"LaTeX:       {latex(f.expr)}")
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


def _cmd_check(args) -> int:
    from .report import check_all
    registry.load_all()
    if args.paper and args.paper not in registry.PAPERS:
        raise CLIError(f"--paper={args.paper!r} is not a known paper; known: {', '.join(registry.PAPERS)}")
    cls = check_all(args.paper, progress=not args.json and sys.stderr.isatty())
    recs = [c.record() for c in cls]
    if args.json:
        json.dump(recs, sys.stdout, indent=1)
        print()
        return 0
    for r in recs:
        mark = {"proved": "proved", "holds_numerically": "holds", "fails": "FAILS",
                "artifact": "artifact", "inconclusive": "inconclusive"}[r["verdict"]]
        print(f"{r['id']:42s} {r['location']:14s} {mark:12s} {r['method'][:60]}")
    counts = {}
    for r in recs:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print(f"{len(recs)} claims: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


def _cmd_report(args) -> int:
    from .report import build
    res = build(args.out, pdf=not args.no_pdf, figures=not args.no_figures,
                papers=[args.paper] if args.paper else None)
    print(f"wrote {res['tex']}" + (f" and {res['pdf']}" if res["pdf"] else "")
          + f"; {res['errata']} errata in {args.out}/errata.md")
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="dpderive", description="Differential-privacy bounds: derive, check, compute, report.")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_Parser)
    s = sub.add_parser("list", help="list formulas and claims")
    s.add_argument("--paper")
    s.set_defaults(func=_cmd_list)
    s = sub.add_parser("show", help="show one formula or claim")
    s.add_argument("name")
    s.set_defaults(func=_cmd_show)
    s = sub.add_parser("check", help="check every claim")
    s.add_argument("--paper")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_check)
    s = sub.add_parser("report", help="build the appendices, errata report and PDF")
    s.add_argument("--out", default="reports")
    s.add_argument("--paper")
    s.add_argument("--no-pdf", action="store_true")
    s.add_argument("--no-figures", action="store_true")
    s.set_defaults(func=_cmd_report)
    for name in EXTENSIONS:
        importlib.import_module(f"dpderive.{name}").add_commands(sub)
    return ap


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except CLIError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # DomainError and other invalid input
        print(f"error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    except KeyError as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
