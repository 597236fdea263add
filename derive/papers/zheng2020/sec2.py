"""Zheng et al. (seed 004), Sections 1-2: (eps, delta)-DP (1.1), trade-off functions,
f-DP and GDP (Defs. 2.1-2.2), the primal-dual conversions (Props. 2.3-2.4),
composition, subsampling and the noisy-SGD CLT limit of [BDLS19] - in the paper's order.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ... import cumulants as C
from ...core import Verdict
from ...symbols import DELTA, EPS, MU, P as PP, alpha, delta, eps, mu, p, sigma
from ...verify import check_draws, symbolic_zero
from . import _truth as TR
from ._paper import ALPHA01, P, Phi, Phi_inv, n

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


def _draw_pair(k0=2, k1=5):
    def draw(rng):
        k = rng.randint(k0, k1)
        Pd, Qd = TR.random_pmf(rng, k), TR.random_pmf(rng, k)
        return k, Pd, Qd
    return draw


def _np_check():
    pair = _draw_pair()

    def draw(rng):
        k, Pd, Qd = pair(rng)
        a = mp.mpf(rng.random())
        return {"k": k, "alpha": a}, TR.tradeoff_bruteforce(Pd, Qd, a), TR.tradeoff_np(Pd, Qd, a)
    return check_draws(draw, "==", n=25, method="inf over all randomized tests (hull of the 2^k "
                       "deterministic tests) vs Neyman-Pearson likelihood-ratio ordering")


P.claim("def_tradeoff.np", "Sec. 2", "identity",
        "T(P,Q)(alpha) = inf over rejection rules; the optimum is the Neyman-Pearson likelihood-ratio "
        "test (random finite distributions, brute force over all tests)",
        latex=r"T(P,Q)(\alpha)=\inf_{\phi}\left\{1-\operatorname{\mathbb{E}}_{Q}(\phi):\operatorname{\mathbb{E}}_{P}(\phi)\leq\alpha\right\}.",
        section=S2, formulas=("def_tradeoff",), check=_np_check)

ID_LATEX = r"T(P,P)(\alpha)=1-\alpha"
P.formula("def_id", "Sec. 2", ID_LATEX, parse=r"1-\alpha", role="definition", quantity=r"\text{Id}(\alpha)",
          params=(ALPHA01,), section=S2, description="perfect privacy: Id(alpha) = 1 - alpha")


def _id_check():
    def draw(rng):
        Pd = TR.random_pmf(rng, rng.randint(2, 5))
        a = mp.mpf(rng.random())
        return {"alpha": a}, TR.tradeoff_bruteforce(Pd, Pd, a), 1 - a
    return check_draws(draw, "==", n=20, method="brute force over all tests with P = Q")


P.claim("def_id.holds", "Sec. 2", "identity", "T(P,P)(alpha) = 1 - alpha",
        latex=ID_LATEX, section=S2, formulas=("def_id",), check=_id_check)

FINV_LATEX = r"f^{-1}(\alpha):=\inf\{0\leq t\leq 1:f(t)\leq\alpha\}"
P.formula("def_finv", "Sec. 2", FINV_LATEX, role="definition", quantity=r"f^{-1}(\alpha)",
          params=(ALPHA01,), hand=sp.Function("f^{-1}")(alpha),
          hand_reason="an infimum over a level set", section=S2)


def _finv_check():
    pair = _draw_pair()

    def draw(rng):
        k, Pd, Qd = pair(rng)
        a = mp.mpf(rng.uniform(0.02, 0.98))
        pts = TR.np_vertices(Pd, Qd)
        # inf{t : f(t) <= a} by bisection on the non-increasing piecewise-linear f
        lo, hi = mp.mpf(0), mp.mpf(1)
        for _ in range(120):
            mid = (lo + hi) / 2
            if TR.eval_pl(pts, mid) <= a:
                hi = mid
            else:
                lo = mid
        return {"k": k, "alpha": a}, TR.tradeoff_np(Qd, Pd, a), hi
    return check_draws(draw, "==", n=20, tol_digits=25,
                       method="generalised inverse of T(P,Q) (bisection) vs Neyman-Pearson T(Q,P)")


P.claim("def_finv.TQP", "Sec. 2", "identity", "f^{-1} = T(Q,P) when f = T(P,Q)",
        latex=r"f^{-1}=T(Q,P)", section=S2, formulas=("def_finv",), check=_finv_check)

# ----------------------------------------------------------------------------- Definition 2.2
G_LATEX = r"G_{\mu}:=T(\mathcal{N}(0,1),\mathcal{N}(\mu,1))\equiv\Phi(\Phi^{-1}(1-\alpha)-\mu)"
G_EXPR = Phi(Phi_inv(1 - alpha) - mu)
Gmu = P.formula("def2_2.G", "Def. 2.2", G_LATEX, role="definition", quantity=r"G_{\mu}(\alpha)",
                params=(ALPHA01, MU), hand=G_EXPR,
                hand_reason="the parser reads \\Phi^{-1}(x) as x/\\Phi; Phi written through erf",
                section=S2, description="Gaussian trade-off function")


def _G_check():
    fG = sp.lambdify([alpha, mu], G_EXPR, "mpmath")

    def draw(rng):
        c, m = mp.mpf(rng.uniform(-2.5, 2.5)), mp.mpf(10) ** rng.uniform(-1, 0.6)
        with mp.workdps(25):
            a, b = TR.threshold_test(m, c)
        return {"threshold": c, "mu": m, "alpha": a}, b, fG(a, m)
    return check_draws(draw, "==", n=10, tol_digits=18,
                       method="type I/II errors of the threshold test x > c of N(0,1) vs N(mu,1) by quadrature")


P.claim("def2_2.G", "Def. 2.2", "identity",
        "G_mu = T(N(0,1), N(mu,1)) equals Phi(Phi^{-1}(1-alpha) - mu)",
        latex=G_LATEX, section=S2, formulas=("def2_2.G",), check=_G_check)

# ----------------------------------------------------------------------------- Prop. 2.3 and 2.4
CONJ_LATEX = r"f^{*}(y)=\sup_{0\leq x\leq 1}yx-f(x)"
P.formula("prop2_3.conj", "Prop. 2.3", CONJ_LATEX, role="definition", quantity=r"f^{*}(y)",
          params=(), hand=sp.Function("f^*")(sp.Symbol("y")), hand_reason="a supremum (convex conjugate)",
          section=S2)
D23_LATEX = r"\delta(\varepsilon)=1+f^{*}(-e^{\varepsilon})"
P.formula("prop2_3.delta", "Prop. 2.3", D23_LATEX, role="equality", quantity=r"\delta(\varepsilon)",
          params=(EPS,), hand=1 + sp.Function("f^*")(-sp.exp(eps)),
          hand_reason="f^* is the conjugate of an abstract trade-off function", section=S2)


def _G_num(m):
    return lambda a: mp.ncdf(TR.nquantile(1 - a) - m)


def _sym_pair(rng):
    """A random finite pair with a symmetric trade-off function: Q is P reversed."""
    Pd = TR.random_pmf(rng, rng.randint(2, 6))
    return Pd, Pd[::-1]


def _prop23_check():
    def draw(rng):
        Pd, Qd = _sym_pair(rng)
        e = mp.mpf(rng.uniform(0, 2))
        return ({"k": len(Pd), "varepsilon": e}, TR.hockey_events(Pd, Qd, e),
                TR.conjugate_delta(TR.np_vertices(Pd, Qd), e))
    return check_draws(draw, "==", n=25,
                       method="1 + f^*(-e^eps) of the Neyman-Pearson f vs sup_E Q(E) - e^eps P(E) by brute "
                              "force over events (random symmetric finite pairs)")


P.claim("prop2_3", "Prop. 2.3", "identity",
        "delta(eps) = 1 + f^*(-e^eps) is the smallest delta for which the pair is (eps, delta)-DP "
        "(conjugate of the Neyman-Pearson curve vs brute force over events)",
        latex=D23_LATEX, section=S2, formulas=("prop2_3.delta", "prop2_3.conj"), check=_prop23_check)

FED_LATEX = r"f_{\varepsilon,\delta}(\alpha)=\max\left\{0,1-\delta-e^{\varepsilon}\alpha,e^{-\varepsilon}(1-\delta-\alpha)\right\}"
FED_EXPR = sp.Max(0, 1 - delta - sp.exp(eps) * alpha, sp.exp(-eps) * (1 - delta - alpha))
fed = P.formula("prop2_4.f_eps_delta", "Prop. 2.4", FED_LATEX, role="definition",
                quantity=r"f_{\varepsilon,\delta}(\alpha)", params=(ALPHA01, EPS, DELTA), hand=FED_EXPR,
                hand_reason="the parser does not read \\max\\left\\{...\\right\\}", section=S2)
P.formula("prop2_4.sup", "Prop. 2.4", r"f=\sup_{i\in I}f_{\varepsilon_{i},\delta_{i}}", role="equality",
          quantity="f", params=(), hand=sp.Function("f")(alpha), hand_reason="a supremum over an index set",
          section=S2)


def _prop24_check():
    fe = sp.lambdify([alpha, eps, delta], FED_EXPR, "mpmath")

    def draw(rng):
        Pd, Qd = _sym_pair(rng)
        a = mp.mpf(rng.random())
        # the supporting lines touch f at the slopes -q_i/p_i: eps ranges over |log(q_i/p_i)| and 0
        grid = {mp.mpf(0)} | {abs(mp.log(q / pp)) for pp, q in zip(Pd, Qd)}
        best = max(fe(a, e, TR.hockey(Pd, Qd, e)) for e in grid)
        return {"k": len(Pd), "alpha": a}, TR.tradeoff_np(Pd, Qd, a), best
    return check_draws(draw, "==", n=25,
                       method="max over eps of f_{eps, delta(eps)}(alpha), delta(eps) = sum (q - e^eps p)_+, vs "
                              "Neyman-Pearson T(P,Q)(alpha) (random symmetric finite pairs)")


P.claim("prop2_4", "Prop. 2.4", "identity",
        "f-DP equals the collection of (eps_i, delta_i)-DP guarantees: sup_eps f_{eps,delta(eps)} = f",
        latex=r"f=\sup_{i\in I}f_{\varepsilon_{i},\delta_{i}}", section=S2,
        formulas=("prop2_4.f_eps_delta", "prop2_4.sup"), check=_prop24_check)


def _fig21_check():
    l1, l2 = 1 - delta - sp.exp(eps) * alpha, sp.exp(-eps) * (1 - delta - alpha)
    ok = (symbolic_zero(sp.diff(l1, alpha) + sp.exp(eps)) and symbolic_zero(sp.diff(l2, alpha) + sp.exp(-eps))
          and symbolic_zero(l1.subs(alpha, 0) - (1 - delta))
          and symbolic_zero(sp.solve(l2, alpha)[0] - (1 - delta)))
    if ok:
        return Verdict("proved", "SymPy: slopes -e^{eps}, -e^{-eps}; the first line meets the beta axis and "
                       "the second the alpha axis at 1 - delta (symmetric pair)")
    return Verdict("fails", "SymPy slopes and intercepts of the two lines of f_{eps,delta}")


P.claim("fig2_1", "Fig. 2.1", "identity",
        "the two supporting lines of an (eps, delta(eps)) guarantee have slopes -e^{+-eps} and intercepts 1 - delta",
        latex=r"-e^{\pm\varepsilon}", section=S2, formulas=("prop2_4.f_eps_delta",), check=_fig21_check,
        note="the intercept 1 - delta is on the beta axis for the steep line and on the alpha axis for the flat one")

# ----------------------------------------------------------------------------- composition, subsampling
P.formula("composition", "Sec. 2", r"f_{1}\otimes f_{2}=T(P_{1}\times P_{2},Q_{1}\times Q_{2})",
          role="definition", quantity=r"f_1\otimes f_2", params=(ALPHA01,),
          hand=sp.Function("T(P1xP2,Q1xQ2)")(alpha), hand_reason="an operation on trade-off functions",
          section=S2)
FP_LATEX = r"f_{p}=pf+(1-p)\text{Id}"
fsym = sp.Symbol("f")
P.formula("subsample.f_p", "Sec. 2", FP_LATEX, role="definition", quantity=r"f_p(\alpha)",
          params=(ALPHA01, PP), hand=p * sp.Function("f")(alpha) + (1 - p) * (1 - alpha),
          hand_reason="f is an abstract trade-off function; Id written out as 1 - alpha", section=S2)


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


P.claim("subsample.min_nonconvex", "Sec. 2", "property",
        "min{f_p, f_p^{-1}} is not convex in general (witness: f = G_1, p = 1/2)",
        latex=r"\tilde{f}=\min\{f_{p},f_{p}^{-1}\}", section=S2, formulas=("subsample.f_p",),
        check=_min_nonconvex_check)

# ----------------------------------------------------------------------------- noisy SGD and its CLT
H_LATEX = r"h=pG_{1/\sigma}+(1-p)\text{Id}"
P.formula("sgd.h", "Sec. 2", H_LATEX, role="definition", quantity=r"h(\alpha)", params=(ALPHA01, PP),
          hand=p * Phi(Phi_inv(1 - alpha) - 1 / sigma) + (1 - p) * (1 - alpha),
          hand_reason="G_{1/sigma} expanded from Def. 2.2", section=S2)
P.formula("sgd.g", "Sec. 2", r"g=h^{\otimes n}=(pG_{1/\sigma}+(1-p)\text{Id})^{\otimes n}", role="definition",
          quantity="g", params=(), hand=sp.Function("h^{otimes n}")(alpha),
          hand_reason="an n-fold tensor power of trade-off functions", section=S2)
CLT_MU_LATEX = r"g\rightarrow G_{p\sqrt{n(e^{1/\sigma^{2}}-1)}}"
CLT_MU = p * sp.sqrt(n * (sp.exp(1 / sigma ** 2) - 1))
P.formula("sgd.clt_mu", "Sec. 2", CLT_MU_LATEX, role="approximation", quantity=r"\mu_{\rm CLT}",
          params=(PP,), hand=CLT_MU, hand_reason="the parser reads n(...) as a function call", section=S2,
          description="the CLT limit's GDP parameter for noisy SGD, p sqrt(n) -> nu")

nu = sp.Symbol("nu", positive=True)


def clt_limits():
    """With p = nu/sqrt(n) and the mixture's per-step cumulants (derive.cumulants, order p^4):
    the limits as n -> oo of mu_n = n(k1_Q - k1_P)/sqrt(n k2_P), Var_Q/Var_P and the skewness
    term n k3_P/(n k2_P)^{3/2}."""
    kP = C.mixture_llr_cumulants(4, 3, "P")
    kQ = C.mixture_llr_cumulants(4, 3, "Q")
    sub = {p: nu / sp.sqrt(n)}
    mun = (n * (kQ[0] - kP[0]) / sp.sqrt(n * kP[1])).subs(sub)
    ratio = (kQ[1] / kP[1]).subs(sub)
    skew = (n * kP[2] / (n * kP[1]) ** sp.Rational(3, 2)).subs(sub)
    return tuple(sp.limit(e, n, sp.oo) for e in (mun, ratio, skew))


def _clt_check():
    mun, ratio, skew = clt_limits()
    printed = CLT_MU.subs({p: nu / sp.sqrt(n), sigma: 1 / mu})
    if symbolic_zero(sp.simplify(mun - printed)) and ratio == 1 and skew == 0:
        return Verdict("proved", "SymPy limits n -> oo with p = nu/sqrt(n) of the mixture cumulant expansion "
                       "(derive.cumulants): mu_n -> nu sqrt(e^{mu^2}-1), Var_Q/Var_P -> 1, skewness -> 0",
                       derived=mun)
    return Verdict("fails", "SymPy limits of the cumulant expansion", derived=mun,
                   counterexample={"mu_n limit": str(mun), "printed": str(printed), "var ratio": str(ratio),
                                   "skewness": str(skew)})


P.claim("sgd.clt", "Sec. 2", "limit",
        "with p sqrt(n) -> nu, g -> G_mu with mu = p sqrt(n(e^{1/sigma^2} - 1)) (mean shift over standard "
        "deviation of the composed privacy loss, variances equal and skewness vanishing in the limit)",
        latex=CLT_MU_LATEX, section=S2, formulas=("sgd.clt_mu",), check=_clt_check)
