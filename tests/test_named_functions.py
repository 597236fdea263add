"""Named DP quantities as SymPy functions (derive.functions): each against an independent
truth (quadrature or brute force in derive.truths, or mpmath), its derivative against a
numerical derivative, its NumPy and mpmath printing against its definition, its LaTeX in the
papers' notation, and the hand-written numeric kernels that repeat it tied to it."""
import random

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from derive import functions as F
from derive import truths as TR
from derive.verify import mp_minimize
from numeric import fdp, gaussian
from numeric import kernels as K

mu, tau, a, x, y, p, q, g = sp.symbols("mu tau alpha x y p q gamma", positive=True)

CASES = [  # function, symbols, points (inside the domain, extremes included)
    (F.GaussTradeoff(mu, tau), (mu, tau), [(0.5, 0.3), (2.0, 1e-6), (1e-3, 0.999), (6.0, 0.5)]),
    (F.GaussHockey(mu, g), (mu, g), [(1.0, 1.5), (0.2, 1.0001), (3.0, 20.0), (1e-2, 1.0)]),
    (F.ZetaAlpha(a), (a,), [(1.0001,), (2.0,), (37.5,), (1e4,)]),
    (F.Chi(a, x), (a, x), [(2.0, 0.3), (1.01, 5.0), (30.0, 1e-3)]),
    (F.ChiInv(a, y), (a, y), [(2.0, 0.3), (1.01, 5.0), (30.0, 1e-3)]),
    (F.BinaryRenyi(a, p, q), (a, p, q), [(2.0, 0.3, 0.6), (1.001, 0.01, 0.99), (20.0, 0.5, 0.45)]),
    (F.LogSubExp(x, y), (x, y), [(2.0, 1.0), (0.5, -30.0), (3.0, 2.999)]),
]


def _truth(fn, pt):
    """The quantity from an independent computation (not its closed form)."""
    name = type(fn).__name__
    with mp.workdps(30):
        v = [mp.mpf(c) for c in pt]
        if name == "GaussTradeoff":
            return TR.gaussian_mechanism(v[0]).tradeoff(v[1])          # Neyman-Pearson, numerically
        if name == "GaussHockey":
            return TR.gaussian_mechanism(v[0]).hockey(v[1])            # quadrature of (p - g q)_+
        if name == "ZetaAlpha":                   # zeta_alpha = max_{x in (0,1)} x (1-x)^(alpha-1)
            _, m = mp_minimize(lambda t: -t * (1 - t) ** (v[0] - 1), 0, 1, grid=200, iters=200)
            return -m
        if name == "Chi":
            return mp.expm1((v[0] - 1) * v[1]) / (v[0] - 1)
        if name == "ChiInv":
            return mp.log1p((v[0] - 1) * v[1]) / (v[0] - 1)
        if name == "BinaryRenyi":
            return TR.bernoulli_pair(v[1], v[2]).renyi(v[0])
        if name == "LogSubExp":
            return mp.log(mp.exp(v[0]) - mp.exp(v[1]))
    raise KeyError(name)


@pytest.mark.parametrize("fn,syms,pts", CASES, ids=[type(c[0]).__name__ for c in CASES])
def test_named_function_value_derivative_and_printers(fn, syms, pts):
    np_f = sp.lambdify(syms, fn, "numpy")
    mp_f = sp.lambdify(syms, fn, "mpmath")
    for pt in pts:
        with mp.workdps(30):
            truth = _truth(fn, pt)
            val = mp_f(*[mp.mpf(c) for c in pt])
            assert abs(val - truth) <= 1e-18 * max(1, abs(truth)), (pt, val, truth)
            assert float(fn.subs(dict(zip(syms, pt))).evalf(30)) == pytest.approx(float(truth), rel=1e-14)
        assert float(np_f(*pt)) == pytest.approx(float(truth), rel=1e-9, abs=1e-300)
        for i, s in enumerate(syms):                   # fdiff against a central difference
            with mp.workdps(40):
                d_sym = sp.diff(fn, s).subs(dict(zip(syms, pt))).evalf(30)
                h = mp.mpf(pt[i]) * mp.mpf(10) ** -12

                def at(xi):
                    args = [mp.mpf(c) for c in pt]
                    args[i] = xi
                    return mp_f(*args)
                d_num = (at(mp.mpf(pt[i]) + h) - at(mp.mpf(pt[i]) - h)) / (2 * h)
            assert float(d_sym) == pytest.approx(float(d_num), rel=1e-8, abs=1e-12), (s, pt)


def test_latex_is_the_papers_notation():
    assert sp.latex(F.GaussTradeoff(mu, tau)) == r"G_{\mu}\left(\tau\right)"
    assert sp.latex(F.ZetaAlpha(a)) == r"\zeta_{\alpha}"
    assert sp.latex(F.ChiInv(a, y)) == r"\chi^{-1}\left(y\right)"
    assert sp.latex(F.BinaryRenyi(a, p, q)) == r"d_{\alpha}\left(p\,\|\,q\right)"
    assert sp.latex(F.Phi(F.PhiInv(1 - tau) - mu)) == r"\Phi\left(- \mu + \Phi^{-1}\left(1 - \tau\right)\right)"


def test_chi_and_its_inverse_compose_to_the_identity():
    assert sp.simplify(F.ChiInv(a, F.Chi(a, x)).doit() - x) == 0
    # chi maps D_alpha to chi^alpha (002 Sec. III), on a random pmf pair
    rng = random.Random(5)
    pr = TR.DPair(TR.random_pmf(rng, 4), TR.random_pmf(rng, 4), "pmfs")
    with mp.workdps(30):
        al = mp.mpf("2.7")
        chi = sp.lambdify((a, x), F.Chi(a, x), "mpmath")(al, pr.renyi(al))
        assert abs(chi - TR.chi_alpha(pr, al)) < 1e-25


def test_logsubexp_numpy_form_is_stable_where_the_plain_form_overflows():
    f = sp.lambdify((x, y), F.LogSubExp(x, y), "numpy")
    with np.errstate(all="raise"):
        v = f(800.0, 799.0)
    assert v == pytest.approx(800 + np.log1p(-np.exp(-1.0)), rel=1e-15)


def test_numeric_kernels_are_tied_to_the_named_functions():
    """The hand-written kernels that repeat a named function agree with it over the domain."""
    G = sp.lambdify((mu, tau), F.GaussTradeoff(mu, tau), "mpmath")
    for m in (0.1, 1.0, 4.0):
        curve = fdp.Gaussian(m)
        for t in (1e-9, 0.01, 0.5, 0.99, 1 - 1e-9):
            assert float(curve(np.array([t]))[0]) == pytest.approx(float(G(m, t)), rel=1e-9, abs=1e-15)
    H = sp.lambdify((mu, g), F.GaussHockey(mu, g), "mpmath")
    for m, e in ((0.5, 0.1), (1.0, 1.0), (3.0, 4.0), (0.05, 0.01)):
        with mp.workdps(30):
            ref = H(mp.mpf(m), mp.exp(e))
        assert float(np.exp(gaussian.log_delta_exact(e, m))) == pytest.approx(float(ref), rel=1e-10)
    Z = sp.lambdify(a, F.ZetaAlpha(a), "mpmath")
    for al in (1.0001, 2.0, 50.0, 1e6):
        with mp.workdps(30):
            ref = Z(mp.mpf(al))
        assert float(np.exp(K.log_zeta(al))) == pytest.approx(float(ref), rel=1e-12)


def test_both_papers_g_mu_are_the_one_gauss_tradeoff_and_print_with_phi():
    """004 Def. 2.2 and 002 eq. (41) both print G_mu: each registered expression is built from
    ``GaussTradeoff``'s definition (no second Phi/erf encoding), and both print as \\Phi, \\Phi^{-1}."""
    import derive.papers  # noqa: F401  (registers the papers)
    from derive import registry
    from derive.printing import latex
    from dpderive.render import paper_latex
    for name, t in (("zheng2020.def2_2.G", "alpha"), ("asoodeh2021.sec5.eq41", "tau")):
        f = registry.formula(name)
        syms = {s.name: s for s in f.expr.free_symbols}
        assert f.expr == F.GaussTradeoff(syms["mu"], syms[t]).definition(), (name, f.expr)
        assert not f.expr.has(sp.erf, sp.erfinv, sp.erfc), name
        for tex in (latex(f.expr), paper_latex(f.expr)):
            assert r"\Phi\left(" in tex and r"\Phi^{-1}\left(" in tex and "erf" not in tex, (name, tex)
    # one definition of the normal CDF/quantile across the paper modules
    from derive.papers.asoodeh2021 import sec5_apph
    from derive.papers.ghazi_issa import _paper as gi
    from derive.papers.zheng2020 import _paper as zh
    assert sec5_apph.Phi is gi.Phi is zh.Phi is F.Phi
    assert sec5_apph.Phi_inv is zh.Phi_inv is F.PhiInv


def test_one_definition_of_the_normal_cdf_and_quantile():
    """Issue 13: no module of derive/ or numeric/ defines its own Phi, Phi^{-1} or ncdf helper; the
    SymPy classes live in derive.functions and the one mpmath quantile in derive.truths."""
    import re
    from pathlib import Path
    root = Path(F.__file__).resolve().parent.parent
    pat = re.compile(r"^\s*(def|class)\s+(Phi|Phi_inv|PhiInv|ncdf|nquantile|_nppf)\b", re.M)
    found = sorted((p.relative_to(root).as_posix(), m.group(2))
                   for d in ("derive", "numeric") for p in (root / d).rglob("*.py")
                   for m in pat.finditer(p.read_text()))
    assert found == [("derive/functions.py", "Phi"), ("derive/functions.py", "PhiInv"),
                     ("derive/truths/continuous.py", "nquantile")], found
