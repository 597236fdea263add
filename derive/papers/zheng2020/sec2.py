"""Zheng et al. (seed 004), Sections 1-2: (eps, delta)-DP (1.1), trade-off functions,
f-DP and GDP (Defs. 2.1-2.2), the primal-dual conversions (Props. 2.3-2.4),
composition, subsampling and the noisy-SGD CLT limit of [BDLS19] - in the paper's order.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ... import cumulants as C
from ...core import Verdict
from ...paperkit import pmf_pair
from ...symbols import DELTA, EPS, MU, P as PP, Param, alpha, delta, eps, mu, p, sigma
from . import _truth as TR
from ...functions import GaussTradeoff, Phi as PhiF, PhiInv
from ._paper import erf_form, ALPHA01, NN, P, Phi, Phi_inv, n

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
_PQ_PARAMS, _PQ = pmf_pair("PQ", 4)
_U = [p_.symbol for p_ in _PQ_PARAMS[:4]]
_PP, _SYM = Pmf(*_U, *_U), Pmf(*_U, *_U[::-1])

P.generic("def_tradeoff.np", "Sec. 2", "bound",
          "T(P,Q)(alpha) = inf over rejection rules; the optimum is the Neyman-Pearson likelihood-ratio "
          "test (random finite distributions, brute force over all tests)",
          latex=r"T(P,Q)(\alpha)=\inf_{\phi}\left\{1-\operatorname{\mathbb{E}}_{Q}(\phi):\operatorname{\mathbb{E}}_{P}(\phi)\leq\alpha\right\}.",
          section=S2, formulas=("def_tradeoff",), params=(ALPHA01,) + _PQ_PARAMS,
          truth=sp.Function("TradeoffOverTests")(_PQ, alpha), bound=Tradeoff(_PQ, alpha),
          side="equal", shown_kind="identity")

ID_LATEX = r"T(P,P)(\alpha)=1-\alpha"
P.formula("def_id", "Sec. 2", ID_LATEX, parse=r"1-\alpha", role="definition", quantity=r"\text{Id}(\alpha)",
          params=(ALPHA01,), section=S2, description="perfect privacy: Id(alpha) = 1 - alpha")


P.generic("def_id.holds", "Sec. 2", "bound", "T(P,P)(alpha) = 1 - alpha",
          latex=ID_LATEX, section=S2, formulas=("def_id",), params=(ALPHA01,) + _PQ_PARAMS[:4],
          truth=sp.Function("TradeoffOverTests")(_PP, alpha), bound=1 - alpha,
          side="equal", shown_kind="identity")

FINV_LATEX = r"f^{-1}(\alpha):=\inf\{0\leq t\leq 1:f(t)\leq\alpha\}"
P.formula("def_finv", "Sec. 2", FINV_LATEX, role="definition", quantity=r"f^{-1}(\alpha)",
          params=(ALPHA01,), hand=sp.Function("f^{-1}")(alpha),
          hand_reason="an infimum over a level set", section=S2)


P.generic("def_finv.TQP", "Sec. 2", "bound", "f^{-1} = T(Q,P) when f = T(P,Q)",
          latex=r"f^{-1}=T(Q,P)", section=S2, formulas=("def_finv",), params=(ALPHA01,) + _PQ_PARAMS,
          truth=sp.Function("TradeoffInverse")(_PQ, alpha), bound=Tradeoff(Swapped(_PQ), alpha),
          side="equal", shown_kind="identity")

# ----------------------------------------------------------------------------- Definition 2.2
G_LATEX = r"G_{\mu}:=T(\mathcal{N}(0,1),\mathcal{N}(\mu,1))\equiv\Phi(\Phi^{-1}(1-\alpha)-\mu)"
G_EXPR = GaussTradeoff(mu, alpha).definition()      # Phi(Phi^{-1}(1 - alpha) - mu), derive.functions
Gmu = P.formula("def2_2.G", "Def. 2.2", G_LATEX, role="definition", quantity=r"G_{\mu}(\alpha)",
                params=(ALPHA01, MU), parse=r"\Phi(\Phi^{-1}(1-\alpha)-\mu)", section=S2,
                description="Gaussian trade-off function")


P.generic("def2_2.G", "Def. 2.2", "bound",
          "G_mu = T(N(0,1), N(mu,1)) equals Phi(Phi^{-1}(1-alpha) - mu)", shown_kind="identity",
          latex=G_LATEX, section=S2, formulas=("def2_2.G",), params=(ALPHA01, MU),
          bound=G_EXPR, side="equal", truth=Tradeoff(sp.Function("Gaussian")(mu), alpha))

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


P.generic("prop2_3", "Prop. 2.3", "bound",
          "delta(eps) = 1 + f^*(-e^eps) is the smallest delta for which the pair is (eps, delta)-DP "
          "(conjugate of the Neyman-Pearson curve vs brute force over events)",
          latex=D23_LATEX, section=S2, formulas=("prop2_3.delta", "prop2_3.conj"), params=(EPS,) + _PQ_PARAMS[:4],
          truth=sp.Function("SupOverEvents")(Swapped(_SYM), sp.exp(eps)),
          bound=1 + sp.Function("TradeoffConjugate")(_SYM, -sp.exp(eps)), side="equal", shown_kind="identity")

FED_LATEX = r"f_{\varepsilon,\delta}(\alpha)=\max\left\{0,1-\delta-e^{\varepsilon}\alpha,e^{-\varepsilon}(1-\delta-\alpha)\right\}"
FED_EXPR = sp.Max(0, 1 - delta - sp.exp(eps) * alpha, sp.exp(-eps) * (1 - delta - alpha))
fed = P.formula("prop2_4.f_eps_delta", "Prop. 2.4", FED_LATEX, role="definition",
                quantity=r"f_{\varepsilon,\delta}(\alpha)", params=(ALPHA01, EPS, DELTA),
                parse=FED_LATEX.partition("=")[2], section=S2)
P.formula("prop2_4.sup", "Prop. 2.4", r"f=\sup_{i\in I}f_{\varepsilon_{i},\delta_{i}}", role="equality",
          quantity="f", params=(), hand=sp.Function("f")(alpha), hand_reason="a supremum over an index set",
          section=S2)


# on a symmetric pmf pair the supporting lines touch f where eps = |log(q_i/p_i)| = |u_{5-i} - u_i| or 0, so the
# supremum over eps is the maximum over those three values, with delta(eps) = sum (q - e^eps p)_+
_EGRID = (sp.Integer(0), sp.Abs(_U[3] - _U[0]), sp.Abs(_U[2] - _U[1]))
P.generic("prop2_4", "Prop. 2.4", "bound",
          "f-DP equals the collection of (eps_i, delta_i)-DP guarantees: sup_eps f_{eps,delta(eps)} = f",
          latex=r"f=\sup_{i\in I}f_{\varepsilon_{i},\delta_{i}}", section=S2,
          formulas=("prop2_4.f_eps_delta", "prop2_4.sup"), params=(ALPHA01,) + _PQ_PARAMS[:4],
          truth=Tradeoff(_SYM, alpha),
          bound=sp.Max(*[FED_EXPR.xreplace({eps: e, delta: sp.Function("HockeyStick")(Swapped(_SYM), sp.exp(e))})
                       for e in _EGRID], evaluate=False), side="equal", shown_kind="identity")


# the two lines of the printed f_{eps,delta} (steeper first); slopes and axis intercepts weighted by free
# c_1..c_4: an identity in the c_i is all four statements at once
_L1, _L2 = sorted((a for a in FED_EXPR.args if a.has(alpha)), key=lambda a: float(sp.diff(a, alpha).subs(eps, 1)))
_C = sp.symbols("c_1:5", real=True)
_FIG21_LHS = (_C[0] * sp.diff(_L1, alpha) + _C[1] * sp.diff(_L2, alpha) + _C[2] * _L1.subs(alpha, 0)
              + _C[3] * sp.solve(_L2, alpha)[0])
P.generic("fig2_1", "Fig. 2.1", "identity",
          "the two supporting lines of an (eps, delta(eps)) guarantee have slopes -e^{+-eps} and intercepts 1 - delta",
          latex=r"-e^{\pm\varepsilon}", section=S2, formulas=("prop2_4.f_eps_delta",),
          params=(EPS, DELTA) + tuple(Param(c, sp.Interval(-sp.oo, sp.oo), ("uniform", -2, 2)) for c in _C),
          lhs=_FIG21_LHS, rhs=-_C[0] * sp.exp(eps) - _C[1] * sp.exp(-eps) + (_C[2] + _C[3]) * (1 - delta),
          note="the intercept 1 - delta is on the beta axis for the steep line and on the alpha axis for the flat one")

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
CLT_MU = p * sp.sqrt(n * (sp.exp(1 / sigma ** 2) - 1))
P.formula("sgd.clt_mu", "Sec. 2", CLT_MU_LATEX, role="approximation", quantity=r"\mu_{\rm CLT}",
          params=(PP,), parse=r"p\sqrt{n(e^{1/\sigma^{2}}-1)}", symbols={"n": n}, section=S2,
          description="the CLT limit's GDP parameter for noisy SGD, p sqrt(n) -> nu")

nu = sp.Symbol("nu", positive=True)


def clt_limits_terms():
    """With p = nu/sqrt(n) and the mixture's per-step cumulants (derive.cumulants, order p^4):
    mu_n = n(k1_Q - k1_P)/sqrt(n k2_P), Var_Q/Var_P and the skewness term n k3_P/(n k2_P)^{3/2}
    as functions of n (their limits n -> oo are the claim)."""
    kP = C.mixture_llr_cumulants(4, 3, "P")
    kQ = C.mixture_llr_cumulants(4, 3, "Q")
    sub = {p: nu / sp.sqrt(n)}
    mun = (n * (kQ[0] - kP[0]) / sp.sqrt(n * kP[1])).subs(sub)
    ratio = (kQ[1] / kP[1]).subs(sub)
    skew = (n * kP[2] / (n * kP[1]) ** sp.Rational(3, 2)).subs(sub)
    return mun, ratio, skew


_W = sp.symbols("w_1:4", real=True)
_MUN, _RATIO, _SKEW = clt_limits_terms()
# mu_n, Var_Q/Var_P and the skewness weighted by free w_1..w_3: the limit is all three at once
P.generic("sgd.clt", "Sec. 2", "limit",
          "with p sqrt(n) -> nu, g -> G_mu with mu = p sqrt(n(e^{1/sigma^2} - 1)) (mean shift over standard "
          "deviation of the composed privacy loss, variances equal and skewness vanishing in the limit)",
          latex=CLT_MU_LATEX, section=S2, formulas=("sgd.clt_mu",),
          params=(NN, MU, Param(nu, sp.Interval.open(0, sp.oo), ("loguniform", 0.1, 3)))
          + tuple(Param(w, sp.Interval(-sp.oo, sp.oo), ("uniform", -2, 2)) for w in _W),
          f=_W[0] * _MUN + _W[1] * _RATIO + _W[2] * _SKEW, x=n, x0=sp.oo,
          value=_W[0] * CLT_MU.subs({p: nu / sp.sqrt(n), sigma: 1 / mu}) + _W[1])
