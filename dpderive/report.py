"""The report and errata pipelines: check every claim, render each paper's
appendix section and the master appendix through Jinja2, write JSON sidecars
and the errata report, and compile the PDF with latexmk when it is installed.

Generated ``.tex``, ``.md`` and ``.json`` are reproducible: nothing time- or machine-dependent is
written into them.  Measured run times (figure tables and findings marked ``"measured"``) go to
``timings.json``, which is not committed (.gitignore).
"""
from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
from collections import Counter, OrderedDict
from pathlib import Path

import mpmath as mp
import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from derive import registry
from derive.core import VERDICTS
from derive.printing import latex
from derive.verify import sample_points

from . import __version__
from . import errata as ER
from .render import _TRUTH_METHOD, ascii_tex, environment, paper_latex, statement_math, symbol_notes, truth_latex



def _progress_bar(total: int, desc: str):
    try:
        from tqdm import tqdm
        return tqdm(total=total, desc=desc, file=sys.stderr, leave=True,
                    disable=None, dynamic_ncols=True)
    except ImportError:  # pragma: no cover - tqdm is a core dependency
        return None


def check_all(paper: str | list | None = None, progress: bool = True, *, workers: int = 1,
              scheduler: str | None = None, cache: bool = False) -> list:
    """Give every claim of ``paper`` (a key, a list of keys, or None for all) its verdict
    (cached on the claim): through the execution layer, on ``workers`` local processes or
    the dask ``scheduler``, from the on-disk verdict cache when ``cache``."""
    from .execution import check_claims
    keys = [paper] if paper is None or isinstance(paper, str) else list(paper)
    cls = [c for k in keys for c in registry.claims(k)]
    label = "all papers" if paper is None else ", ".join(keys)
    check_claims(cls, workers=workers, scheduler=scheduler, cache=cache, progress=progress,
                 desc=f"checking {label}")
    return cls


def _fmt(x) -> str:
    if isinstance(x, (float, np.floating)):
        return f"{x:.10g}"
    return mp.nstr(x, 10)


def _sci_tex(v, digits: int = 4) -> str:
    """A number for a table cell, in LaTeX: 0.08825, 1411.0, 5.212\\times 10^{-6}."""
    x = mp.mpf(v)
    plain = mp.nstr(x, digits)
    if "e" not in plain:
        return plain
    mant, exp = plain.split("e")
    return rf"{mant}\times 10^{{{int(exp)}}}"


def validation_rows(f, n: int = 3) -> list[dict]:
    """A short numeric validation table: the float64 kernel (NumPy/SciPy
    lambdify) against mpmath at 50 digits at ``n`` in-domain points."""
    if not f.expr.free_symbols <= set(f.symbols) or f.expr.atoms(AppliedUndef):
        # the expression names a quantity defined elsewhere: an optimum (M in Asoodeh et al. 2021, (20)) or an
        # abstract function (T(P, Q), F_n in Zheng et al. 2020, (3.5)); nothing to compile
        return []
    if not f.expr.free_symbols:
        return []                  # a constant: nothing to evaluate at points
    pts = sample_points(f.params, n, f.conditions, seed=11)
    if not pts:
        return []
    sym_of = {p.name: p.symbol for p in f.params}
    syms = list(f.symbols)
    fn_np = sp.lambdify(syms, f.expr, modules=["scipy", "numpy"])
    fn_mp = sp.lambdify(syms, f.expr, modules="mpmath")
    rows = []
    for pt in pts:
        args = [pt[p.name] for p in f.params]
        with mp.workdps(50):
            vm = fn_mp(*args)
            if isinstance(vm, mp.mpc):
                continue
        with np.errstate(all="ignore"):
            vn = float(fn_np(*[float(a) for a in args]))
        diff = abs(vn - float(vm)) / max(abs(float(vm)), 1e-300) if np.isfinite(vn) else float("nan")
        rows.append({"point": ", ".join(f"${sp.latex(sym_of[k])} = {_sci_tex(v)}$" for k, v in pt.items()),
                     "numpy": f"{vn:.12g}", "mpmath": mp.nstr(vm, 15),
                     "diff": f"{diff:.1e}" if np.isfinite(diff) else "non-finite"})
    return rows


def _derived_forms(f) -> list[dict]:
    out = []
    if f.name.endswith("thm3.objective"):
        p = next(s for s in f.symbols if s.name == "p")
        out.append({"label": "Derivative in p (SymPy)", "expr": sp.simplify(sp.diff(f.expr, p))})
    return out


def verdict_detail(v) -> tuple[str, str]:
    """(the verdict in words, the truth it was compared with as LaTeX or ""): the status word is
    the paragraph's heading, so the words do not repeat it; a zero worst error reads "0"; a
    truth of ``derive.truths`` is typeset (as a display) instead of quoted as SymPy text."""
    method = v.method or ""
    truth = truth_latex(method)
    if truth:
        method = "the truth below, computed by dpderive from its definition; " + method[_TRUTH_METHOD.match(method).end():]
    if v.status == "proved":
        return method, truth
    if v.status == "holds_numerically":
        err = "0" if not v.worst_error else f"{v.worst_error:.1e}"
        where = "" if "points" in method else f" at {v.points} points"
        how = ("" if "digits" in method else " in exact arithmetic" if v.precision is None
               else f" at {v.precision} digits")
        return f"worst relative error {err}{where}{how} ({method})", truth
    if v.status == "fails":
        return method, truth
    if v.status == "artifact":
        return f"the printed form fails ({method}); another version of the paper prints it correctly", ""
    return v.note or method, ""


def claim_display(c, rec: dict) -> dict:
    """What the appendix shows of one claim: the record plus its verdict in words (no raw JSON) and
    its counterexample as rows of a small table."""
    v = c.check()
    d = dict(rec)
    d["short_location"] = c.source.cite_paper() if c.source.seed != _main_seed(c.paper) else \
        rec["location"] if not rec["location"].startswith("(") else f"eq. {rec['location']}"
    d["statement"] = statement_math(rec.get("statement", ""))
    d["detail"], d["truth_latex"] = verdict_detail(v)
    d["rows"] = ER.counterexample_rows(v.counterexample)
    if v.derived is not None and hasattr(v.derived, "free_symbols"):
        d["derived_latex"] = paper_latex(v.derived)
        d["where"] = symbol_notes(v.derived)
    else:
        d["where"] = ""
    d["steps"] = [{"what": what, "latex": tex} for what, tex in (getattr(v, "steps", None) or ())]
    return d


def _main_seed(key: str) -> str:
    seeds = registry.PAPERS.get(key, {}).get("seeds", ())
    return seeds[0] if seeds else ""


def _with_column_specs(extras: dict) -> dict:
    """Tables of five or more columns get wrapping columns of equal width (no overfull boxes)."""
    tables = []
    for tab in extras.get("tables", []):
        n = len(tab["header"])
        if n >= 5:
            w = (1 - 0.026 * (n - 1)) / n - 0.004
            spec = "@{}" + (r">{\raggedright\arraybackslash}p{%.3f\linewidth}" % w) * n + "@{}"
        else:
            spec = "@{}" + "l" * n + "@{}"
        tables.append(dict(tab, spec=spec))
    return dict(extras, tables=tables)


def split_measured(extras: dict) -> tuple[dict, dict]:
    """(reproducible extras, measured ones): tables and findings marked ``"measured"`` hold run times,
    which differ between machines and runs; they are kept out of the generated report."""
    keep = {k: [x for x in v if not (isinstance(x, dict) and x.get("measured"))] for k, v in extras.items()}
    measured = {k: [x for x in v if isinstance(x, dict) and x.get("measured")] for k, v in extras.items()}
    return keep, measured


def _section_of(c) -> str:
    return c.source.section or "Other"


def paper_context(key: str, extras: dict | None = None) -> dict:
    paper = registry.PAPERS[key]
    fs = registry.formulas(key)
    cls = registry.claims(key)
    recs = [c.record() for c in cls]
    counts = Counter(r["verdict"] for r in recs)
    formulas = []
    for f in fs:
        formulas.append({
            "name": f.name, "source": f.source.cite(), "cite": f.source.cite_paper(), "role": f.role.replace("_", " "),
            "quantity_math": f"${f.quantity}$" if f.quantity.strip() else "", "description": f.description,
            "conditions": ", ".join(f"${latex(c)}$" for c in f.conditions),
            "params": ", ".join(f"${latex(p.symbol)} \\in {latex(p.domain)}$" for p in f.params),
            "printed_latex": f.printed_latex, "encoding": f.encoding, "encoding_note": f.encoding_note,
            "lhs": f.lhs_latex, "lhs_math": f"${f.lhs_latex}$" if f.lhs_latex else "",
            "expr": f.expr, "expr_latex": paper_latex(f.expr),
            "where": symbol_notes(f.expr, known={p.symbol.name for p in f.params}),
            "derived": _derived_forms(f), "validation": validation_rows(f),
        })
    groups: "OrderedDict[str, list]" = OrderedDict()
    for r, c in zip(recs, cls):
        groups.setdefault(_section_of(c), []).append(claim_display(c, r))
    errata = [r for r in recs if r["verdict"] == "fails"]
    return {
        "paper": paper,
        "summary": {"n_formulas": len(fs), "n_claims": len(cls), "n_fail": counts.get("fails", 0),
                    "n_artifact": counts.get("artifact", 0),
                    "counts": [(k.replace("_", " "), counts[k]) for k in VERDICTS if counts.get(k, 0)]},
        "formulas": formulas,
        "claim_groups": [{"section": s, "claims": v} for s, v in groups.items()],
        "errata": errata,
        "extras": _with_column_specs(extras or {"figures": [], "tables": [], "findings": []}),
        "records": recs,
    }


def _figures(key: str, outdir: Path, log) -> dict:
    """Run each figure module the paper package declares (its ``FIGURES``) and merge their
    figures, tables and findings; a paper without figures (a claim file) gets none."""
    out = {"figures": [], "tables": [], "findings": []}
    source = registry.source_module(key)
    names = getattr(importlib.import_module(source), "FIGURES", ()) if source else ()
    for name in names:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            log(f"[{key}] no figure module {name}; built without its reproductions")
            continue
        got = mod.build(outdir, progress=log)
        for k in out:
            out[k].extend(got.get(k, []))
    return out


def build(outdir: Path | str = "reports", *, papers: list[str] | None = None, pdf: bool = True,
          figures: bool = True, log=None, workers: int = 1, scheduler: str | None = None,
          cache: bool = False) -> dict:
    """Build every paper's section, the master appendix, JSON sidecars and the
    errata report; compile the PDF when latexmk is installed."""
    log = log or (lambda m: print(m, file=sys.stderr))
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    from .execution import cold_cache, prewarm, release_workers
    if cold_cache(cache):              # the workers import the papers while this process does
        prewarm([k for k in (papers or registry.source_keys()) if k in registry.source_keys()], workers, scheduler)
    registry.load_all()
    env = environment()
    keys = papers or list(registry.PAPERS)
    # parallel-checking hook: every claim of every paper at once (execution layer, verdict cache)
    check_all(keys, workers=workers, scheduler=scheduler, cache=cache)
    release_workers()                  # idle from here on: their memory back for the figures
    records, findings, timings, ctxs = {}, {}, {}, {}
    steps = len(keys) + 1
    bar = _progress_bar(steps, "report")
    for key in keys:
        extras = _figures(key, outdir, log) if figures else None
        if extras is not None:
            extras, measured = split_measured(extras)
            if any(measured.values()):
                timings[key] = measured
        ctx = paper_context(key, extras)
        ctxs[key] = ctx
        records[key] = ctx["records"]
        findings[key] = ctx["extras"]["findings"]
        (outdir / f"{key}.json").write_text(json.dumps(ctx["records"], indent=1, sort_keys=True) + "\n")
        if bar is not None:
            bar.update(1)
    rep = ER.assemble(records, findings)
    for key in keys:
        ctx = ctxs[key]
        ctx["paper_errata"] = [e for e in rep["errata"] if e["paper_key"] == key]
        ctx["paper_artifacts"] = [a for a in rep["artifacts"] if a["paper_key"] == key]
        tex = ascii_tex(env.get_template("paper.tex.j2").render(**ctx))
        (outdir / f"{key}.tex").write_text(tex)
    (outdir / "errata.tex").write_text(ascii_tex(env.get_template("errata.tex.j2").render(**rep)))
    master = env.get_template("appendix.tex.j2").render(
        papers=[registry.PAPERS[k] for k in keys], version=__version__)
    (outdir / "appendix.tex").write_text(master)
    (outdir / "errata.json").write_text(json.dumps(ER.json_records(rep), indent=1, sort_keys=True) + "\n")
    (outdir / "errata.md").write_text(ER.markdown(rep))
    if timings:   # machine-dependent: an untracked file (see .gitignore), never the report
        (outdir / "timings.json").write_text(json.dumps(timings, indent=1, sort_keys=True) + "\n")
    result = {"tex": str(outdir / "appendix.tex"), "errata": len(rep["errata"]),
              "failing_claims": sum(len(e["claims"]) for e in rep["errata"]),
              "artifacts": len(rep["artifacts"]), "pdf": None}
    if pdf:
        result["pdf"] = compile_pdf(outdir / "appendix.tex", log)
    if bar is not None:
        bar.update(1)
        bar.close()
    return result


def compile_pdf(tex: Path, log) -> str | None:
    if shutil.which("latexmk") is None:
        log("latexmk not found: wrote the .tex files; install TeX Live for the PDF")
        return None
    cmd = ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", tex.name]
    proc = subprocess.run(cmd, cwd=tex.parent, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.splitlines()[-30:])
        raise RuntimeError(f"latexmk failed on {tex} (exit {proc.returncode}):\n{tail}")
    return str(tex.with_suffix(".pdf"))
