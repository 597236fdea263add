"""The library papers use and never own (issue 21): ``derive/`` outside ``derive/papers/`` and
``numeric/`` import no paper and name no paper key; the library quantities' stable forms (what the
code generator prints) equal their definitions; the papers' printed formulas that kernels compute
are claims about library quantities."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
import zlib
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from derive import lib

ROOT = Path(__file__).resolve().parent.parent
PAPER_KEYS = re.compile(r"\b(asoodeh2021|zheng2020|ghazi_issa)\b")


def _library_files():
    for pkg in ("derive", "numeric"):
        for f in sorted((ROOT / pkg).rglob("*.py")):
            if "papers" not in f.relative_to(ROOT).parts:
                yield f


def _imports_papers(tree: ast.AST) -> list:
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bad += [a.name for a in node.names if a.name.startswith("derive.papers")]
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if mod.startswith("derive.papers") or (node.level and mod.split(".")[0] == "papers") \
                    or (node.level and not mod and any(a.name == "papers" for a in node.names)) \
                    or (mod == "derive" and any(a.name == "papers" for a in node.names)):
                bad.append("." * node.level + mod)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "derive.papers" in node.value \
                and re.fullmatch(r"derive\.papers[\w.]*", node.value):
            bad.append(node.value)                      # importlib.import_module("derive.papers....")
    return bad


def test_library_never_imports_papers():
    found = {}
    for f in _library_files():
        bad = _imports_papers(ast.parse(f.read_text()))
        if bad:
            found[str(f.relative_to(ROOT))] = bad
    assert not found, f"the library imports the papers: {found}"


def test_library_names_no_paper_key():
    found = {}
    for f in _library_files():
        for i, line in enumerate(f.read_text().splitlines(), 1):
            if PAPER_KEYS.search(line):
                found.setdefault(str(f.relative_to(ROOT)), []).append(i)
    assert not found, f"paper keys in the library or numeric/ (file: lines): {found}"


def test_the_checks_can_fail():
    assert _imports_papers(ast.parse("from derive.papers import PAPER_MODULES"))
    assert _imports_papers(ast.parse("from .papers import PAPER_MODULES"))
    assert _imports_papers(ast.parse("from . import papers"))
    assert _imports_papers(ast.parse("importlib.import_module('derive.papers.x')"))
    assert not _imports_papers(ast.parse("from .registry import add_source"))
    assert PAPER_KEYS.search('K.formula_expr("asoodeh2021.eq28")')


def test_importing_the_library_and_numeric_loads_no_paper():
    code = ("import sys, derive, derive.lib, derive.registry, derive.checkers, derive.truths, numeric.codegen, "
            "numeric.accountant, numeric.pld, numeric.edgeworth, numeric.tv, numeric.region, numeric.gaussian\n"
            "print(sorted(m for m in sys.modules if m.startswith('derive.papers')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]", r.stdout


def test_sources_are_declared_not_imported():
    """The registry knows the seed papers only as declared sources (``derive.papers`` declares them
    when the application imports it); a source added at run time loads the same way."""
    from derive import registry
    assert {"asoodeh2021", "zheng2020", "ghazi_issa"} <= set(registry.source_keys())
    with pytest.raises(ValueError):
        registry.add_source("asoodeh2021", "somewhere.else")


# ----------------------------------------------------------------------------- stable = definition
def _points(q, n, rng):
    """Random points of the quantity's domain: each argument from its symbol's declared sampling
    range (``q.domain`` overrides), dependent ranges respected by rejection."""
    default = {"alpha": (1.01, 60), "varepsilon": (1e-3, 15), "delta": (1e-12, 0.5), "gamma": (1e-4, 10),
               "sigma": (0.2, 20), "mu": (0.05, 8), "p": (1e-3, 0.999), "q": (1e-3, 0.999),
               "tau": (0.0, 1.0), "rho": (1e-4, 2), "T": (1, 1e4), "eta": (0, 1), "h": (-6, 6), "z": (-4, 4),
               "kappa_2": (0.1, 10), "kappa_3": (-2, 2), "kappa_4": (-2, 2), "Delta": (0.1, 3)}
    out = []
    while len(out) < n:
        pt = []
        for s in q.args:
            lo, hi = q.domain.get(s.name, default[s.name])
            if lo > 0 and hi / lo > 100:
                pt.append(float(np.exp(rng.uniform(np.log(lo), np.log(hi)))))
            else:
                pt.append(float(rng.uniform(lo, hi)))
        out.append(pt)
    return out


STABLE = sorted(n for n, q in lib.QUANTITIES.items() if q.stable is not None)


@pytest.mark.parametrize("name", STABLE)
def test_stable_form_equals_definition(name):
    """Each stable form (printed into the generated kernels) equals the definition at 40 digits
    at random in-domain points, and the generated kernel equals both in floats."""
    from numeric import _kernels_generated as G
    q = lib.quantity(name)
    fd = sp.lambdify(q.args, q.expr.doit(), modules="mpmath")
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    n = 0
    for pt in _points(q, 12, rng):
        with mp.workdps(60):
            d = fd(*[mp.mpf(v) for v in pt])
            if not (mp.isfinite(d) and mp.im(d) == 0):
                continue
            s = q.printed.subs(dict(zip(q.args, [sp.Float(v, 60) for v in pt]))).evalf(50)
        assert abs(float(s) - float(mp.re(d))) <= 1e-25 * (1 + abs(float(d))) + 1e-290, (name, pt, s, d)
        g = float(getattr(G, name)(*pt))
        # floats: relative 1e-9, or absolute 1e-13 of the arguments' scale where the value is a
        # small difference of terms of that size (gamma_upper: eps + log(...)/(alpha-1) ~ 1e-12)
        scale = 1e-13 * (1 + max(abs(v) for v in pt))
        assert g == pytest.approx(float(mp.re(d)), rel=1e-9, abs=scale), (name, pt, g, d)
        n += 1
    assert n >= 6, (name, n)


@pytest.mark.parametrize("cid", ["asoodeh2021.lib.eq28", "asoodeh2021.lib.thm3_objective", "asoodeh2021.lib.eq29"])
def test_printed_formulas_that_drive_kernels_are_the_library_quantities(cid):
    from derive import registry
    assert registry.claim(cid).check().status == "proved"


@pytest.mark.parametrize("name", sorted(lib.QUANTITIES))
def test_each_quantity_is_a_sympy_function(name):
    """``Quantity.function``: a SymPy Function node whose doit is the definition, whose LaTeX is the
    quantity's name, and whose NumPy printing (lambdify) is the stable form the generated kernel
    computes."""
    from numeric import _kernels_generated as G
    q = lib.quantity(name)
    node = q.function(*q.args)
    assert node.doit() == q.expr
    assert r"\operatorname{" in sp.latex(node)
    pt = _points(q, 1, np.random.default_rng(zlib.crc32(name.encode())))[0]
    f = sp.lambdify(q.args, node, modules=["scipy", "numpy"])
    with np.errstate(all="ignore"):
        assert float(f(*pt)) == pytest.approx(float(getattr(G, name)(*pt)), rel=1e-12, nan_ok=True)
