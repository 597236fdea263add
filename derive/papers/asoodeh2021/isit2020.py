"""The ISIT 2020 version (seed 000) where it states things differently from
the journal version (seed 002): each difference is registered with its own
source and checked independently.  The 000 dump's Unicode is mis-decoded; the
LaTeX source lines it carries are used verbatim.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ...parse import parse_printed
from ...symbols import ALPHA, DELTA, EPS, GAMMA, P as PP, Q as QQ, alpha, delta, eps, gamma, p, q
from ...verify import check_draws, mp_minimize
from . import _truth as TR
from ._paper import P, SEED_ISIT
from .sec2_3 import chi, objective

S = "ISIT 2020"

THM3_000 = r"\gamma^{\varepsilon}_{\alpha}(\delta)=\varepsilon+\min_{p\in(\delta,1)}\frac{1}{\alpha-1}\log\left(p^{\alpha}(p-\delta)^{1-\alpha}+\bar{p}^{\alpha}(e^{\varepsilon}-p+\delta)^{1-\alpha}\right),"
_obj000 = parse_printed(r"\frac{1}{\alpha-1}\log\left(p^{\alpha}(p-\delta)^{1-\alpha}+\bar{p}^{\alpha}(e^{\varepsilon}-p+\delta)^{1-\alpha}\right)")
thm3_000 = P.formula("isit.thm3.objective", "(16)", THM3_000,
                     parse=r"\frac{1}{\alpha-1}\log\left(p^{\alpha}(p-\delta)^{1-\alpha}+\bar{p}^{\alpha}(e^{\varepsilon}-p+\delta)^{1-\alpha}\right)",
                     role="definition", quantity=r"\gamma^{\varepsilon}_{\alpha}(\delta)-\varepsilon", seed=SEED_ISIT,
                     params=(ALPHA, EPS, DELTA, PP), conditions=(p > delta,), section=S,
                     description="Theorem 3 as printed in ISIT 2020: the min taken outside the logarithm, delta in [0,1)")
P.generic("isit.thm3", "(16)", "identity", "ISIT 2020's Theorem 3 (min of the log) equals the journal's (log of the min M): same objective up to log", shown_kind="identity",
          latex=THM3_000, seed=SEED_ISIT, section=S, formulas=("isit.thm3.objective", "thm3.objective"),
          params=(ALPHA, EPS, DELTA, PP), conditions=(p > delta,),
          lhs=sp.log(objective.expr) / (alpha - 1), rhs=thm3_000.expr, truth_side="lhs")


# at delta = 0 the ISIT form's infimum over p in (0, 1) is its limit as p -> 0+ (the objective increases in p)
P.generic("isit.thm3_delta0", "(16)", "limit",
          "ISIT 2020 states Theorem 3 for delta in [0,1): at delta = 0 the formula gives gamma = 0",
          shown_kind="value", latex=r"\delta\in[0,1),", seed=SEED_ISIT, section=S, params=(ALPHA, EPS, PP),
          f=eps + thm3_000.expr.subs(delta, 0), x=p, x0=sp.Integer(0), value=sp.Integer(0),
          note="the journal restricts to delta in (0,1) and states gamma(0) = 0 separately as (21); at delta = 0 "
               "the objective is increasing in p, so its 'min' over the open interval (0,1) is an infimum "
               "approached as p -> 0, not attained")

EQ40_000 = r"\displaystyle\frac{\partial\,h(p,q;\alpha)}{\partial q}=\frac{p^{\alpha}q^{-\alpha}-(1-p)^{\alpha}(1-q)^{-\alpha}}{p^{\alpha}q^{1-\alpha}+(1-p)^{\alpha}(1-q)^{1-\alpha}},"
_d40 = parse_printed(r"\frac{p^{\alpha}q^{-\alpha}-(1-p)^{\alpha}(1-q)^{-\alpha}}{p^{\alpha}q^{1-\alpha}+(1-p)^{\alpha}(1-q)^{1-\alpha}}")


P.generic("isit.eq40", "(40)", "derivative", "ISIT 2020's derivative of h(p,q;alpha) in q (journal (76))",
          latex=EQ40_000, seed=SEED_ISIT, section=S, params=(ALPHA, PP, QQ), conditions=(q < p,),
          f=sp.log(p ** alpha * q ** (1 - alpha) + (1 - p) ** alpha * (1 - q) ** (1 - alpha)) / (alpha - 1),
          x=q, g=_d40, note="same sign error as the journal's (76)")

EQ20_000 = r"\log\Big{(}\frac{(\alpha-1)\chi(\gamma)}{\alpha\delta}+1\Big{)}\Big{\}}, (20)"


_chi_sym = sp.Symbol("chi_gamma", positive=True)
_eq20_printed = sp.log((alpha - 1) * _chi_sym / (alpha * delta) + 1).subs(_chi_sym, chi.expr)
_eq20_journal = parse_printed(r"\log \bigg(\frac{e^{(\alpha - 1)\gamma} - 1}{\alpha \delta} + 1 \bigg)")
P.generic("isit.eq20", "(20)", "identity",
          "ISIT 2020's second term of Lemma 1 with (alpha-1)chi(gamma) equals the journal's e^{(alpha-1)gamma} - 1",
          latex=EQ20_000, seed=SEED_ISIT, section=S, formulas=("chi",), params=(ALPHA, GAMMA, DELTA),
          lhs=_eq20_journal, rhs=_eq20_printed, truth_side="lhs",
          note="hand encoding of chi(gamma) as the registered chi of (11): the parser reads \\chi(\\gamma) as a call")

RDP_000 = r"\gamma(\alpha)=\alpha\alpha"


def _gauss_000():
    def draw(rng):
        a = 1 + mp.mpf(10) ** rng.uniform(-1, 1)
        s = mp.mpf(10) ** rng.uniform(-0.5, 1)
        return ({"alpha": a, "sigma": s}, TR.gaussian_renyi_quad(a, s), a * a)
    return check_draws(draw, "==", n=6, tol_digits=10, seed=219,
                       method="Renyi divergence of N(1, s^2) from N(0, s^2) by quadrature vs the printed alpha*alpha")


# custom: an artifact claim (a misprint the other version prints correctly); generic claims carry no artifact
P.claim("isit.gaussian_rdp", "Sec. IV", "notation",
        "ISIT 2020 prints the Gaussian RDP curve as gamma(alpha) = alpha alpha (journal: rho alpha)",
        latex=RDP_000, seed=SEED_ISIT, section=S, check=_gauss_000,
        note="alpha alpha is in the ISIT paper's own LaTeX (the alt-text of the 000 dump); the journal version "
             "prints rho alpha with rho = 1/(2 sigma^2) (claim sec4.eq28_unit)",
        why_custom='a misprint of the ISIT version checked by quadrature (the journal version fixes it)')

EQ73_000 = r"\displaystyle\leq\inf_{\alpha\geq\frac{1}{\delta}}\left(\rho\alpha T+\log(1-\delta)\right)_{+} (73)"


def _eq73():
    rho, T = sp.symbols("rho T", positive=True)

    def draw(rng):
        r = mp.mpf(10) ** rng.uniform(-6, -1)
        t = mp.mpf(10) ** rng.uniform(0, 4)
        d = mp.mpf(10) ** rng.uniform(-8, -1)
        fn = lambda a: max(r * a * t + mp.log(1 - d), 0)  # noqa: E731
        _, m = mp_minimize(fn, 1 / d, 1 / d * 1e6, grid=80, iters=120)
        m = min(m, fn(1 / d))  # the closed end alpha = 1/delta
        return ({"rho": r, "T": t, "delta": d}, m, max(r * t / d + mp.log(1 - d), 0))
    return check_draws(draw, "==", n=20, tol_digits=25, seed=73,
                       method="numeric infimum over alpha >= 1/delta vs (106)")


# custom: an infimum over alpha >= 1/delta (numeric minimisation), no closed-form side to hold it against
P.claim("isit.eq73", "(73)", "optimum",
        "ISIT 2020's (73): the infimum over alpha >= 1/delta (journal (105): garbled subscript) equals (106)",
        latex=EQ73_000, seed=SEED_ISIT, section=S, check=_eq73,
        why_custom='an infimum over alpha >= 1/delta (numeric minimisation), no closed-form side to hold it against')

REM1_000 = r"1-e^{-\gamma}<\frac{1}{\alpha}"


# the two conditions as indicator functions: equal at every (alpha, gamma)
P.generic("isit.remark1", "Remark 1", "identity",
          "ISIT 2020's condition 1 - e^{-gamma} < 1/alpha is the journal's gamma < log(alpha/(alpha-1))",
          shown_kind="condition", latex=REM1_000, seed=SEED_ISIT, section=S, params=(ALPHA, GAMMA),
          lhs=sp.Piecewise((1, 1 - sp.exp(-gamma) < 1 / alpha), (0, True)),
          rhs=sp.Piecewise((1, gamma < sp.log(alpha / (alpha - 1))), (0, True)))
