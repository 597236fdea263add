"""Issue 33, "one quantity, one object": each of five quantities (the Gaussian privacy profile, the
Gaussian and Laplace Renyi divergences, the optimal conversion's objective, the Gaussian trade-off
and its TV) has two independent writings in product code, the library's SymPy definition and one
mpmath truth; every other form is generated from the definition or a declared hand kernel
(``derive/lib/writings.py``) tied here to the *library definition* (never a paper's formula).

``test_no_unregistered_writing`` scans ``derive/`` (outside ``derive/papers/``), ``numeric/`` and
``dpderive/`` with comments and strings blanked, for textual signatures of each quantity (``SIGNATURES``),
and fails on a match at a site (file, enclosing function) the registry does not list.
"""
from __future__ import annotations

import ast
import io
import math
import re
import tokenize
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from derive.lib import QUANTITIES
from derive.lib.writings import WRITINGS

ROOT = Path(__file__).resolve().parent.parent
GENERATED = "numeric/_kernels_generated.py"      # printed from the definitions (tests/test_numeric_codegen.py)

_W = r"[A-Za-z_]\w*"
SIGNATURES = {
    # x/m +- m/2 and m/2 +- x/m: the arguments a, b of Phi(a) - e^eps Phi(b)
    "gauss_profile": [rf"\b(?P<m>{_W})\s*/\s*2\s*[-+]\s*[\w.()]+\s*/\s*(?P=m)\b",
                      rf"[\w.()]+\s*/\s*(?P<m>{_W})\s*[-+]\s*(?P=m)\s*/\s*2\b"],
    # alpha mu^2/2 (any factor times mu^2/2), a bare mu^2/2 returned (KL), alpha/(2 sigma^2), Delta^2/(2 sigma^2),
    # (alpha - 1) alpha/(2 s^2)
    "gauss_renyi": [r"\*\s*(?:[\w.]*\bmu|_gauss_mu\([^)]*\))\s*\*\*\s*2\s*/\s*2\b",
                    r"^\s*return\s+[\w.]*\bmu\s*\*\*\s*2\s*/\s*2\s*$",
                    r"\b(?:alpha|a|fa)\s*/\s*\(\s*2(?:\.0)?\s*\*\s*[\w.]*\s*\*\*\s*2\s*\)",
                    r"\*\*\s*2\s*/\s*\(\s*2(?:\.0)?\s*\*\s*[\w.]*sigma\s*\*\*\s*2\s*\)",
                    r"\(\s*(?:fa|a|alpha)(?:\[\w+\])?\s*-\s*1(?:\.0)?\s*\)\s*\*\s*(?:fa|a|alpha)(?:\[\w+\])?\s*/\s*\(\s*2"],
    # the weights alpha/(2 alpha - 1), (alpha - 1)/(2 alpha - 1)
    "laplace_renyi": [r"\b2\s*\*\s*(?:a|alpha|al)\s*-\s*1\b"],
    # (p - delta)^(1-alpha), (e^eps - p + delta)^(1-alpha), their logs, log1p(+-delta/u)
    "conversion_objective": [r"\(\s*p\s*-\s*d\w*\s*\)\s*\*\*", r"-\s*p\s*\+\s*d\w*\s*\)\s*\*\*",
                             r"log1p\(\s*-?\s*d\w*\s*/\s*[\w(]", r"log\(\s*p\s*-\s*d\w*\s*\)"],
    # Phi^{-1}(.) - mu; erf(mu/(2 sqrt 2)); 2 Phi(mu/2) - 1
    "gauss_tradeoff": [r"(?:ndtri|PhiInv|erfcinv|erfinv|nquantile)\s*\(.*\)\s*-\s*[\w.]*\bmu\b",
                       r"\berf\(\s*[\w.]*\bmu\b[^)]*/\s*\(?\s*2\s*\*\s*(?:math\.|sp\.|np\.)?sqrt\(",
                       r"\b2\s*\*\s*(?:ndtr|Phi|_phi|ncdf)\(\s*[\w.]*\bmu\b[^)]*/\s*2\s*\)\s*-\s*1"],
}
_PATS = {k: [re.compile(p) for p in v] for k, v in SIGNATURES.items()}


# ============================================================================= the scan
def product_files():
    for pkg in ("derive", "numeric", "dpderive"):
        for f in sorted((ROOT / pkg).rglob("*.py")):
            rel = f.relative_to(ROOT).as_posix()
            if "papers" not in f.relative_to(ROOT).parts and rel != GENERATED:
                yield rel


def _code_lines(text: str) -> list:
    """The lines of ``text`` with comments and string literals (docstrings) blanked."""
    rows = [list(line) for line in text.splitlines(keepends=True)]
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING):
            (r0, c0), (r1, c1) = tok.start, tok.end
            for r in range(r0, r1 + 1):
                row = rows[r - 1]
                for i in range(c0 if r == r0 else 0, c1 if r == r1 else len(row)):
                    if row[i] != "\n":
                        row[i] = " "
    return ["".join(r) for r in rows]


def _owner(tree: ast.AST):
    spans = []

    def walk(node, prefix):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = f"{prefix}.{ch.name}" if prefix else ch.name
                spans.append((ch.lineno, ch.end_lineno, q))
                walk(ch, q)
            else:
                walk(ch, prefix)
    walk(tree, "")

    def owner(line):
        inside = [(b - a, q) for a, b, q in spans if a <= line <= b]
        return min(inside)[1] if inside else "<module>"
    return owner


def scan_text(text: str, path: str) -> list:
    """[(quantity key, path, qualname of the enclosing def, line number, line)] of every signature match."""
    owner, out = _owner(ast.parse(text)), []
    raw = text.splitlines()
    for i, line in enumerate(_code_lines(text), 1):
        for key, pats in _PATS.items():
            if any(p.search(line) for p in pats):
                out.append((key, path, owner(i), i, raw[i - 1].strip()))
    return out


def scan() -> list:
    out = []
    for rel in product_files():
        out += scan_text((ROOT / rel).read_text(encoding="utf-8"), rel)
    return out


def _allowed(key: str) -> dict:
    w = WRITINGS[key]
    sites = {s: "definition" for s in w.definition}
    sites.update({s: "truth" for s in w.truth})
    sites.update({(h.path, h.qualname): "hand" for h in w.hand})
    return sites


def unregistered(found: list) -> list:
    return [f"{p}:{n} ({q}) [{k}]: {line}" for k, p, q, n, line in found if (p, q) not in _allowed(k)]


def test_no_unregistered_writing():
    bad = unregistered(scan())
    assert not bad, ("writings of a library quantity at sites derive/lib/writings.py does not list (call the "
                     "generated kernel or the library definition, or declare a hand kernel with its reason "
                     "and a tie test):\n" + "\n".join(bad))


def test_the_scan_catches_a_planted_copy():
    """The scan can fail: an inline copy of each quantity in an unlisted function is reported."""
    planted = '''
def planted(e, m, a, p, d, t, mu):
    x = ndtr(-e / m + m / 2) - math.exp(e) * ndtr(-e / m - m / 2)
    y = a * mu ** 2 / 2
    z = math.log(a / (2 * a - 1) * math.exp((a - 1) * t) + (a - 1) / (2 * a - 1) * math.exp(-a * t))
    w = p ** a * (p - d) ** (1 - a) + (1 - p) ** a * (math.exp(e) - p + d) ** (1 - a)
    v = ndtr(ndtri(1 - t) - mu), 2 * ndtr(mu / 2) - 1
'''
    found = scan_text(planted, "numeric/tv.py")
    assert {k for k, *_ in found} == set(WRITINGS)
    assert len(unregistered(found)) == len(found) == 5


def test_every_registered_site_exists_and_hand_kernels_say_why_and_are_tied():
    found = {(k, p, q) for k, p, q, *_ in scan()}
    tests = {n.name for n in ast.parse(Path(__file__).read_text()).body if isinstance(n, ast.FunctionDef)}
    for key, w in WRITINGS.items():
        assert len(w.truth) >= 1 and len(w.definition) >= 1, key
        for name in w.quantities:
            assert name in QUANTITIES, (key, name)
        from numeric import _kernels_generated as G
        for name in w.generated:
            assert callable(getattr(G, name)), (key, name)
        for path, qual in w.definition + w.truth + tuple((h.path, h.qualname) for h in w.hand):
            tree = ast.parse((ROOT / path).read_text())
            quals = set()
            for node in ast.walk(tree):
                for ch in ast.iter_child_nodes(node):
                    if isinstance(ch, (ast.FunctionDef, ast.ClassDef)):
                        quals.add(ch.name)
            assert qual == "<module>" or qual.split(".")[-1] in quals, (key, path, qual)
        for h in w.hand:
            assert h.reason.strip(), h
            assert (key, h.path, h.qualname) in found, f"{key}: hand kernel {h.path}::{h.qualname} has no writing (stale)"
            path, test = h.tie.split("::")
            assert path == "tests/test_writings.py" and test in tests, h.tie


def test_counts():
    """Per quantity: one definition object, one truth; the rest generated or declared hand kernels."""
    counts = {}
    for key, w in WRITINGS.items():
        kinds = {}
        for k, p, q, *_ in scan():
            if k == key:
                kinds.setdefault(_allowed(key)[(p, q)], set()).add((p, q))
        counts[key] = {k: len(v) for k, v in kinds.items()}
    assert all(c.get("hand", 0) == len(WRITINGS[k].hand) for k, c in counts.items()), counts


# ============================================================================= the library at high precision
def _exact(v):
    return sp.Integer(v) if isinstance(v, int) else sp.Rational(float(v)) if not isinstance(v, sp.Basic) else v


def lib(name, *vals, dps=40, expr=None):
    """The library quantity ``name``'s definition (or ``expr`` in its arguments) at the exact binary values
    ``vals``, evaluated by SymPy at ``dps`` and 2*dps digits, which must agree (cancellation-safe)."""
    q = QUANTITIES[name]
    e = (q.expr if expr is None else expr).subs(dict(zip(q.args, map(_exact, vals))), simultaneous=True)
    while True:
        a, b = sp.N(e, dps), sp.N(e, 2 * dps)
        with mp.workdps(2 * dps):
            A, B = mp.mpf(str(a)), mp.mpf(str(b))
            if abs(A - B) <= mp.mpf(10) ** (5 - dps) * abs(B):
                return B
        assert dps < 400, (name, vals, a, b)
        dps *= 2


def close(got, want, rel, abs_=0.0):
    want = float(want)
    assert abs(float(got) - want) <= rel * abs(want) + abs_, (float(got), want, rel)


EPS = [0.0, 0.3, 1.0, 3.0, 8.0]
MUS = [0.3, 1.0, 2.5, 6.0]


def test_gauss_profile_hand_kernels_equal_the_library():
    from derive import truths_float as tf
    from numeric import gaussian as G
    n = 0
    for mu in MUS:
        for e in EPS:
            with mp.workdps(80):
                d = lib("gauss_delta", e, mu)
                ld = mp.log(d)
            if d < 1e-300:
                continue
            close(G.log_delta_float(e, mu), ld, rel=1e-9, abs_=1e-12)
            close(tf.log_hockey(tf.Gauss(mu), math.exp(e)), ld, rel=1e-11, abs_=1e-12)
            u = float(G.delta_upper(e, mu))
            assert float(d) <= u <= float(d) * (1 + 1e-6) + 1e-300, (mu, e, u, float(d))
            n += 1
    assert n >= 15


def test_gauss_profile_slope_is_the_library_derivative():
    from derive.symbols import eps
    from numeric import gaussian as G
    q = QUANTITIES["gauss_delta"]
    minus_d = -sp.diff(q.expr, eps)
    for mu in MUS:
        for e in EPS:
            with mp.workdps(80):
                want = lib("gauss_delta", e, mu, expr=minus_d)
            if want < 1e-300:
                continue
            close(np.exp(G._log_slope(np.float64(e), np.float64(mu))), want, rel=1e-12)


def test_gauss_renyi_hand_kernels_equal_the_library():
    from derive import truths_float as tf
    from derive.truths.continuous import gauss_renyi_closed
    from numeric import rdp
    for s in [0.2, 1.0, 3.7, 50.0]:
        for sens in [1.0, 0.5, 3.0]:
            want = lib("gaussian_rdp", 1, sp.Rational(s) / sp.Rational(sens))
            close(rdp.Gaussian(s, sens).rho, want, rel=4e-16)
            close(rdp.DiscreteGaussian(s, sens).rho, want, rel=4e-16)
    for mu in MUS + [1e-3, 40.0]:
        for a in [1, 1.5, 2, 7.25, 100]:
            want = lib("gaussian_rdp", a, 1 / sp.Rational(mu))
            close(tf._gauss_renyi(mu, float(a)), want, rel=4e-16)
            with mp.workdps(50):
                got = gauss_renyi_closed(mp.mpf(mu), mp.mpf(a))
                assert abs(got - want) <= mp.mpf(10) ** -45 * want, (mu, a, got, want)
            if a != 1 and (a - 1) * want < 700:     # chi^alpha and KL of the screen through the same kernel
                with mp.workdps(50):
                    chi = mp.expm1((a - 1) * want) / (a - 1)
                close(tf.chi_alpha(tf.Gauss(mu), a), chi, rel=1e-13)
            elif a == 1:
                close(tf.kl(tf.Gauss(mu)), want, rel=4e-16)


def test_laplace_renyi_hand_kernel_equals_the_library():
    from derive import truths_float as tf
    for t in [1e-3, 0.1, 1.0, 4.0, 20.0]:
        for a in [1.001, 1.5, 2.0, 10.0, 150.0]:
            # the log-sum-exp of terms ~ (a-1) t: a few ulp of them, divided by a - 1
            close(tf.renyi(tf.Lap(t), a), lib("laplace_rdp", a, t), rel=1e-12,
                  abs_=64 * 2.0 ** -52 * (1 + a * t) / (a - 1))


_CONV = [(1.5, 0.5, 1e-5, 0.3), (2.0, 1.0, 1e-3, 0.01), (8.0, 3.0, 1e-10, 0.5), (40.0, 0.1, 1e-3, 0.9),
         (1.01, 0.0, 0.01, 0.2)]


def _terms(a, e, d, u):
    """log A, log B of the library objective's two terms at p = d + u, in mpmath (the library's expression)."""
    A, B = sp.Add.make_args(QUANTITIES["conversion_objective"].expr)
    if A.has(sp.exp(QUANTITIES["conversion_objective"].args[1])):
        A, B = B, A
    p = QUANTITIES["conversion_objective"].args[3]
    pv = sp.Rational(d) + sp.Rational(u)
    return (mp.log(lib("conversion_objective", a, e, d, pv, expr=A)),
            mp.log(lib("conversion_objective", a, e, d, pv, expr=B)), p)


def test_conversion_objective_hand_kernels_equal_the_library():
    from derive import truths_float as tf
    from derive.truths import conversion as tc
    from numeric import conversion as C
    from numeric import fastconv as F
    for a, e, d, u in _CONV:
        with mp.workdps(60):
            la, lb, _ = _terms(a, e, d, u)
            s = (a - 1) * mp.mpf(e)
            full = mp.log(mp.e ** la + mp.e ** lb)
            xa, xb = C._excess(np.float64(a), np.float64(e), np.float64(d), np.float64(u))
            close(math.log(u) + xa, la + s, rel=1e-13, abs_=1e-14)
            close(math.log1p(-u) + xb, lb + s, rel=1e-13, abs_=1e-14)
            W = math.exp(-e)
            st = F._state(a, e, d, W, W - 1.0, math.log(u))
            close(st[2], full + s, rel=1e-12, abs_=1e-14)
            close(tf._log_h1(d + u, a, d, e), full, rel=1e-12, abs_=1e-14)
            want = lib("conversion_objective", a, e, d, sp.Rational(d) + sp.Rational(u))
            got = tc.h1(mp.mpf(d) + mp.mpf(u), mp.mpf(a), mp.mpf(d), mp.mpf(e))
            assert abs(got - want) <= mp.mpf(10) ** -25 * want


def test_conversion_objective_alpha_derivative_is_the_library_derivative():
    """fastconv._certified's dH/dalpha = d/dalpha [(alpha-1) eps + log objective] at fixed u (envelope theorem)."""
    from derive.symbols import alpha, eps
    from numeric import fastconv as F
    q = QUANTITIES["conversion_objective"]
    dH = sp.diff((alpha - 1) * eps + sp.log(q.expr), alpha)
    for a, e, d, u in _CONV:
        with mp.workdps(60):
            la, lb, _ = _terms(a, e, d, u)
            w_b = float(1 / (1 + mp.e ** (la - lb)))
            want = lib("conversion_objective", a, e, d, sp.Rational(d) + sp.Rational(u), expr=dH)
        got = F._certified(a, d, 0.0, e, 1.0, 0.0, (w_b, u, math.log(u)))[2]
        close(got, want, rel=1e-12, abs_=1e-13)


def test_gauss_tradeoff_hand_kernels_equal_the_library():
    from derive import truths_float as tf
    from numeric import pld_models as PM
    for mu in MUS + [1e-4, 30.0]:
        want = lib("tv_gaussian", mu)
        close(tf.tv(tf.Gauss(mu)), want, rel=1e-14)
        close(PM._tv_gaussian_math(mu), want, rel=1e-14)
        for a in [1e-3, 0.05, 0.5, 0.9, 0.999]:
            g = lib("gauss_tradeoff", mu, a)
            if g < 1e-300:
                continue
            close(tf.tradeoff(tf.Gauss(mu), a), g, rel=1e-9 if mu > 10 else 1e-12, abs_=1e-300)


@pytest.mark.parametrize("mu", [1e-3, 0.5, 2.0, 9.0])
def test_migrated_risk_advantage_brackets_the_library_tv(mu):
    """numeric.risk's exact-route advantage now calls the generated tv_gaussian: its bounds bracket the library's."""
    from numeric import _kernels_generated as G
    from numeric.risk import _SLACK
    want = lib("tv_gaussian", mu)
    hi = float(G.tv_gaussian(mu * (1 + 4e-16))) + _SLACK
    lo = max(float(G.tv_gaussian(mu * (1 - 4e-16))) - _SLACK, 0.0)
    assert lo <= float(want) <= hi
