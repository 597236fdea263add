"""Zheng et al. (seed 004), Sections 1-2: (eps, delta)-DP (1.1), trade-off functions,
f-DP and GDP (Defs. 2.1-2.2), the primal-dual conversions (Props. 2.3-2.4),
composition, subsampling and the noisy-SGD CLT limit of [BDLS19] - in the paper's order.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ...core import Verdict
from ...symbols import DELTA, EPS, MU, P as PP, alpha, delta, eps, mu, p, sigma
from . import _truth as TR
from ...functions import Phi as PhiF, PhiInv
from ._paper import erf_form, ALPHA01, P, Phi, n

S1, S2 = "Sec. 1", "Sec. 2"

# ----------------------------------------------------------------------------- (1.1)
PE = sp.Symbol("P_{M(S')}(E)", nonnegative=True)
P.formula("eq1_1", "(1.1)",
          r"\operatorname{\mathbb{P}}(M(S)\in E)\leq e^{\varepsilon}\operatorname{\mathbb{P}}(M(S^{\prime})\in E)+\delta.",
          role="upper_bound", quantity=r"\mathbb{P}(M(S)\in E)", params=(EPS, DELTA),
          hand=sp.exp(eps) * PE + delta, hand_reason="a probability inequality over events, not an expression",
          section=S1, description="(eps, delta)-DP: the right-hand side, with P(M(S') in E) a symbol")

# ----------------------------------------------------------------------------- trade-off functions
P.formula("def_tradeoff", "Sec. 2",
          r"T(P,Q)(\alpha)=\inf_{\phi}\left\{1-\operatorname{\mathbb{E}}_{Q}(\phi):\operatorname{\mathbb{E}}_{P}(\phi)\leq\alpha\right\}.",
          role="definition", quantity=r"T(P,Q)(\alpha)", params=(ALPHA01,),
          hand=sp.Function("T(P,Q)")(alpha), hand_reason="an infimum over rejection rules",
          section=S2, description="trade-off function: smallest type II error at level alpha")


# pairs of pmfs on four points (softmax logits): any pair, P = Q, and a symmetric pair (Q = P reversed)
Pmf, Tradeoff, Swapped = sp.Function("Pmf"), sp.Function("Tradeoff"), sp.Function("Swapped")


ID_LATEX = r"T(P,P)(\alpha)=1-\alpha"
P.formula("def_id", "Sec. 2", ID_LATEX, parse=r"1-\alpha", role="definition", quantity=r"\text{Id}(\alpha)",
          params=(ALPHA01,), section=S2, description="perfect privacy: Id(alpha) = 1 - alpha")


FINV_LATEX = r"f^{-1}(\alpha):=\inf\{0\leq t\leq 1:f(t)\leq\alpha\}"
P.formula("def_finv", "Sec. 2", FINV_LATEX, role="definition", quantity=r"f^{-1}(\alpha)",
          params=(ALPHA01,), hand=sp.Function("f^{-1}")(alpha),
          hand_reason="an infimum over a level set", section=S2)


# ----------------------------------------------------------------------------- Definition 2.2
G_LATEX = r"G_{\mu}:=T(\mathcal{N}(0,1),\mathcal{N}(\mu,1))\equiv\Phi(\Phi^{-1}(1-\alpha)-\mu)"
Gmu = P.formula("def2_2.G", "Def. 2.2", G_LATEX, role="definition", quantity=r"G_{\mu}(\alpha)",
                params=(ALPHA01, MU), parse=r"\Phi(\Phi^{-1}(1-\alpha)-\mu)", section=S2,
                description="Gaussian trade-off function")


# ----------------------------------------------------------------------------- Prop. 2.3 and 2.4
CONJ_LATEX = r"f^{*}(y)=\sup_{0\leq x\leq 1}yx-f(x)"
P.formula("prop2_3.conj", "Prop. 2.3", CONJ_LATEX, role="definition", quantity=r"f^{*}(y)",
          params=(), hand=sp.Function("f^*")(sp.Symbol("y")), hand_reason="a supremum (convex conjugate)",
          section=S2)
D23_LATEX = r"\delta(\varepsilon)=1+f^{*}(-e^{\varepsilon})"
P.formula("prop2_3.delta", "Prop. 2.3", D23_LATEX, role="equality", quantity=r"\delta(\varepsilon)",
          params=(EPS,), parse=D23_LATEX.partition("=")[2], section=S2)


def _G_num(m):
    return lambda a: mp.ncdf(TR.nquantile(1 - a) - m)


FED_LATEX = r"f_{\varepsilon,\delta}(\alpha)=\max\left\{0,1-\delta-e^{\varepsilon}\alpha,e^{-\varepsilon}(1-\delta-\alpha)\right\}"
fed = P.formula("prop2_4.f_eps_delta", "Prop. 2.4", FED_LATEX, role="definition",
                quantity=r"f_{\varepsilon,\delta}(\alpha)", params=(ALPHA01, EPS, DELTA),
                parse=FED_LATEX.partition("=")[2], section=S2)
P.formula("prop2_4.sup", "Prop. 2.4", r"f=\sup_{i\in I}f_{\varepsilon_{i},\delta_{i}}", role="equality",
          quantity="f", params=(), hand=sp.Function("f")(alpha), hand_reason="a supremum over an index set",
          section=S2)


# ----------------------------------------------------------------------------- composition, subsampling
P.formula("composition", "Sec. 2", r"f_{1}\otimes f_{2}=T(P_{1}\times P_{2},Q_{1}\times Q_{2})",
          role="definition", quantity=r"f_1\otimes f_2", params=(ALPHA01,),
          hand=sp.Function("T(P1xP2,Q1xQ2)")(alpha), hand_reason="an operation on trade-off functions",
          section=S2)
FP_LATEX = r"f_{p}=pf+(1-p)\text{Id}"
fsym = sp.Symbol("f")
_ID = sp.Symbol("Id")
# f is an abstract trade-off function, applied to alpha; Id(alpha) = 1 - alpha (Sec. 2)
P.formula("subsample.f_p", "Sec. 2", FP_LATEX, role="definition", quantity=r"f_p(\alpha)",
          params=(ALPHA01, PP), parse=FP_LATEX.partition("=")[2], symbols={"f": fsym, "Id": _ID},
          subs={fsym: sp.Function("f")(alpha), _ID: 1 - alpha}, section=S2)


def _min_nonconvex_check():
    # f = G_1, p = 1/2: f_p and f_p^{-1} cross on the diagonal; second difference of the min there
    m, pp = mp.mpf(1), mp.mpf(1) / 2
    fp = lambda a: pp * _G_num(m)(a) + (1 - pp) * (1 - a)
    # f_p^{-1}(a) = inf{t : f_p(t) <= a} by bisection
    def finv(a):
        lo, hi = mp.mpf(0), mp.mpf(1)
        for _ in range(100):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if fp(mid) <= a else (mid, hi)
        return hi
    g = lambda a: min(fp(a), finv(a))
    a_star = TR._invert(lambda a: a - fp(a), 0, lo=0, hi=1)
    hstep = mp.mpf("0.02")
    second = g(a_star - hstep) - 2 * g(a_star) + g(a_star + hstep)
    ce = {"f": "G_1", "p": "1/2", "alpha*": mp.nstr(a_star, 8), "h": "0.02", "second difference": mp.nstr(second, 8)}
    if second < 0:
        return Verdict("holds_numerically", "second difference of min{f_p, f_p^{-1}} at the diagonal crossing",
                       points=1, worst_error=0.0, precision=mp.mp.dps, counterexample=None,
                       note=f"non-convex witness: {ce}")
    return Verdict("fails", "second difference at the crossing", counterexample=ce)


# custom: an existential claim (a witness of non-convexity); the generic kinds check universal statements
P.claim("subsample.min_nonconvex", "Sec. 2", "property",
        "min{f_p, f_p^{-1}} is not convex in general (witness: f = G_1, p = 1/2)",
        latex=r"\tilde{f}=\min\{f_{p},f_{p}^{-1}\}", section=S2, formulas=("subsample.f_p",),
        check=_min_nonconvex_check,
        why_custom='an existential claim (a witness of non-convexity); the generic kinds check universal statements')

# ----------------------------------------------------------------------------- noisy SGD and its CLT
H_LATEX = r"h=pG_{1/\sigma}+(1-p)\text{Id}"
_G1S = sp.Symbol("G_{1/sigma}")
P.formula("sgd.h", "Sec. 2", H_LATEX, role="definition", quantity=r"h(\alpha)", params=(ALPHA01, PP),
          parse=H_LATEX.partition("=")[2], symbols={"G_1/sigma": _G1S, "Id": _ID},
          subs={_G1S: PhiF(PhiInv(1 - alpha) - 1 / sigma), _ID: 1 - alpha}, transform=erf_form, section=S2,
          description="G_{1/sigma} expanded from Def. 2.2, Id(alpha) = 1 - alpha")
P.formula("sgd.g", "Sec. 2", r"g=h^{\otimes n}=(pG_{1/\sigma}+(1-p)\text{Id})^{\otimes n}", role="definition",
          quantity="g", params=(), hand=sp.Function("h^{otimes n}")(alpha),
          hand_reason="an n-fold tensor power of trade-off functions", section=S2)
CLT_MU_LATEX = r"g\rightarrow G_{p\sqrt{n(e^{1/\sigma^{2}}-1)}}"
P.formula("sgd.clt_mu", "Sec. 2", CLT_MU_LATEX, role="approximation", quantity=r"\mu_{\rm CLT}",
          params=(PP,), parse=r"p\sqrt{n(e^{1/\sigma^{2}}-1)}", symbols={"n": n}, section=S2,
          description="the CLT limit's GDP parameter for noisy SGD, p sqrt(n) -> nu")

nu = sp.Symbol("nu", positive=True)


P.load(__file__)  # the generic claims: sec2.toml
