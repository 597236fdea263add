"""Domain claims of Zheng, Dong, Long, Su (seed 004): every parameter range the paper states for a
definition, proposition or lemma, declared as a generic claim (issue 10 item 2) whose search probes
the ends of each stated interval (to within e^-40 of an open end) and its interior.

Seed 004 lines (the dump's LaTeX source of each range):

- ``eq1_1.range``          l. 20   (1.1): eps >= 0 and 0 <= delta <= 1
- ``def2_2.range``, ``def2_2.tradeoff_range``  l. 62  Def. 2.2: G_mu for some mu >= 0
- ``prop2_3.range``        l. 73   Prop. 2.3: (eps, delta(eps))-DP for all eps >= 0
- ``prop2_4.range``        l. 77   Prop. 2.4: eps_i in [0, oo), delta_i in [0, 1]
- ``sec2.subsample_range`` l. 87   Sec. 2: Sample_p includes each individual with probability p, p in [0, 1]
  (f_p = p f + (1 - p) Id, the trade-off of the subsampled Gaussian: Lemma C.1's form)
- ``sec4.mu_star_range``   l. 232  Sec. 4: the set {(mu, gamma): mu >= 0, 0 <= gamma <= 1/2}
  (mu* >= 0 for every fixed point alpha* in (0, 1/2] of a symmetric trade-off function)
- ``eqA6.range``           l. 413  (A.6): "for j >= 1", checked at j = 1 and up to j = 8
- ``lemmaC1.range``, ``lemmaC1.range_mu0``  l. 477  Lemma C.1: mu >= 0 (p in [0, 1])
- ``sec4.gamma_range``, ``sec4.gamma_range_pmf``, ``sec4.gamma_range_expo``  l. 219, 232  Sec. 4: the area
  gamma = int_0^1 f(alpha) d alpha lies in [0, 1/2] (footnote 4: Id has area 1/2; "also applicable to
  general trade-off functions"), for G_mu (mu >= 0, the end mu = 0 is Id), every pair of pmfs on three
  points (asymmetric curves too) and the exponential pair (an asymmetric continuous one); the area is
  derive.truths' TradeoffArea (trapezoids over a pmf pair's vertices, quadrature over the threshold
  of a continuous pair)
- ``lemma5_1.eps_range``  l. 256  Lemma 5.1 over eps in R (the dual "involves the whole real line",
  l. 266) and densities that may nearly vanish: eps = log(s/(1 - s)), s in (0, 1), so the search
  reaches eps = +-40, and the pmf logits range over [-30, 30] (masses down to e^-60 of the others)
- ``lemma5_2.eps_range``  l. 262  Lemma 5.2 over the same eps in R and nearly vanishing densities
  (L_2(y) up to +-60)
- ``rec.delta0.eps_range``  l. 264  the recursion's start delta_0(eps) = max{1 - e^eps, 0} over the same eps in R:
  the dual of Id = T(P, P)

Already declared elsewhere: ``sgd.p_neg_half`` (custom, sec5).  Not declared: the regimes
"p sqrt(n) -> nu" (limits, checked by ``sgd.clt``); Lemma 5.1 on continuous densities over eps in R
(the conjugate 1 + f^*(-e^eps) of derive.truths, a maximisation over the curve at 20 digits, loses every
digit where delta_1(eps) is below ~1e-20: Gaussian mu = 1 at eps = 10 gives -7.8e-14 against the
hockey-stick 9.8e-23, so it is no truth there).
"""
from __future__ import annotations

import sympy as sp

from ... import registry
from ...paperkit import pmf_pair
from ...symbols import Param, alpha, delta, eps, mu, p
from ._paper import P, Phi, h, phi
from .sec5 import _delta_printed, _delta_truth, _logits, _loss, _product, _softmax


def F(name: str) -> sp.Expr:
    """The expression of this paper's registered formula ``name``."""
    return registry.formula(f"zheng2020.{name}").expr


Fn = sp.Function
S2, S4 = "Sec. 2", "Sec. 4"

EPS0 = Param(eps, sp.Interval(0, sp.oo), ("loguniform", 1e-3, 20))
DELTA01 = Param(delta, sp.Interval(0, 1), ("uniform", 0, 1))
ALPHA_CL = Param(alpha, sp.Interval(0, 1), ("uniform", 0, 1))
MU0 = Param(mu, sp.Interval(0, sp.oo), ("loguniform", 1e-2, 10))
MU_POS = Param(mu, sp.Interval.open(0, sp.oo), ("loguniform", 1e-2, 10))
P_CL = Param(p, sp.Interval(0, 1), ("uniform", 0, 1))
_a_star = registry.formula("zheng2020.mu_star").params[0].symbol
A_STAR = Param(_a_star, sp.Interval.Lopen(0, sp.Rational(1, 2)), ("uniform", 0, 0.5))
H_ALL = Param(h, sp.Interval(-sp.oo, sp.oo), ("uniform", -6, 6))

CANON = Fn("EpsDeltaPair")(eps, delta)
GAUSS = Fn("Gaussian")(mu)
G_MU = F("def2_2.G")

# ----------------------------------------------------------------------------- (1.1), Def. 2.2
P.generic("eq1_1.range", "(1.1)", "bound",
          "(1.1)'s range eps >= 0, 0 <= delta <= 1: every (eps, delta) of it is attained exactly (the canonical "
          "(eps, delta) pair has privacy profile delta at eps)",
          shown_kind="domain", latex=r"0\leq\delta\leq 1", section="Sec. 1", formulas=("eq1_1",),
          params=(EPS0, DELTA01), bound=delta, side="equal", truth=Fn("DeltaOfEps")(CANON, eps))
P.generic("def2_2.range", "Def. 2.2", "bound",
          "Def. 2.2 over mu >= 0 and alpha in [0, 1]: Phi(Phi^{-1}(1 - alpha) - mu) is T(N(0,1), N(mu,1))",
          shown_kind="domain", latex=r"\mu\geq 0", section=S2, formulas=("def2_2.G",), params=(MU0, ALPHA_CL),
          bound=G_MU, side="equal", truth=Fn("Tradeoff")(GAUSS, alpha))
P.generic("def2_2.tradeoff_range", "Def. 2.2", "inequality",
          "Def. 2.2 over mu >= 0: G_mu is a trade-off function below Id, G_mu(alpha) <= 1 - alpha on [0, 1]",
          shown_kind="domain", latex=r"\mu\geq 0", section=S2, formulas=("def2_2.G",), params=(MU0, ALPHA_CL),
          lhs=G_MU, op="<=", rhs=1 - alpha)

# ----------------------------------------------------------------------------- Props. 2.3, 2.4
P.generic("prop2_3.range", "Prop. 2.3", "bound",
          "Prop. 2.3 for all eps >= 0 (f = G_mu): the mechanism is (eps, delta(eps))-DP, i.e. "
          "f_{eps, delta(eps)} <= G_mu on [0, 1], delta(eps) the privacy profile of the Gaussian pair",
          shown_kind="domain", latex=r"\delta(\varepsilon)=1+f^{*}(-e^{\varepsilon})", section=S2,
          formulas=("prop2_3.delta",), params=(EPS0, MU_POS, ALPHA_CL),
          bound=F("prop2_4.f_eps_delta").xreplace({delta: Fn("DeltaOfEps")(GAUSS, eps)}), side="lower",
          truth=Fn("Tradeoff")(GAUSS, alpha))
P.generic("prop2_4.range", "Prop. 2.4", "bound",
          "Prop. 2.4 over eps in [0, oo), delta in [0, 1]: f_{eps,delta} is the trade-off function of (eps, delta)-DP "
          "(that of the canonical pair) on [0, 1]",
          shown_kind="domain", latex=r"\delta_{i}\in[0,1]", section=S2, formulas=("prop2_4.f_eps_delta",),
          params=(EPS0, DELTA01, ALPHA_CL), bound=F("prop2_4.f_eps_delta"), side="equal",
          truth=Fn("Tradeoff")(CANON, alpha))

# ----------------------------------------------------------------------------- subsampling, Lemma C.1
SUB_TRUTH = Fn("Tradeoff")(Fn("SubsampledGaussian")(p, 1 / mu), alpha)  # N(0,1) vs p N(mu,1) + (1-p) N(0,1)
P.generic("sec2.subsample_range", "Sec. 2", "bound",
          "Sec. 2's f_p = p f + (1-p) Id over p in [0, 1] (Sample_p keeps each individual with probability p), "
          "f = G_mu: f_p is the trade-off of N(0,1) vs p N(mu,1) + (1-p) N(0,1)",
          shown_kind="domain", latex=r"f_{p}=pf+(1-p)\text{Id}", section=S2, formulas=("subsample.f_p",),
          params=(P_CL, MU_POS, ALPHA_CL), bound=p * G_MU + (1 - p) * (1 - alpha), side="equal", truth=SUB_TRUTH)
LEMMAC1_LATEX = r"\mu\geqslant 0"
P.generic("lemmaC1.range", "Lemma C.1", "bound",
          "Lemma C.1 over mu > 0, p in [0, 1], alpha in [0, 1]: T(N(0,1), p N(mu,1) + (1-p) N(0,1)) = p G_mu + (1-p) Id",
          shown_kind="domain", latex=LEMMAC1_LATEX, section="App. C", formulas=("lemmaC1",),
          params=(P_CL, MU_POS, ALPHA_CL), bound=F("lemmaC1"), side="equal", truth=SUB_TRUTH)
P.generic("lemmaC1.range_mu0", "Lemma C.1", "identity",
          "Lemma C.1 at the closed end mu = 0 (Q = P): p G_0 + (1-p) Id is T(P, P) = Id",
          shown_kind="domain", latex=LEMMAC1_LATEX, section="App. C", formulas=("lemmaC1",),
          params=(P_CL, ALPHA_CL), lhs=F("lemmaC1").subs(mu, 0), rhs=1 - alpha)

# ----------------------------------------------------------------------------- Sec. 4, (A.6)
P.generic("sec4.mu_star_range", "Sec. 4", "inequality",
          "Sec. 4's range mu >= 0: mu* = Phi^{-1}(1 - alpha*) - Phi^{-1}(alpha*) is non-negative for every fixed "
          "point alpha* in (0, 1/2] of a symmetric trade-off function (mu* = 0 at alpha* = 1/2, Id)",
          shown_kind="domain",
          latex=r"\left\{(\mu,\gamma):\;\mu\geq 0,\,0\leq\gamma\leq\frac{1}{2}\right\}", section=S4,
          formulas=("mu_star",), params=(A_STAR,), lhs=F("mu_star"), op=">=", rhs=sp.Integer(0))
_A6 = sum(sp.Abs((-1) ** j * sp.diff(Phi(h), h, j) + sp.hermite_prob(j - 1, h) * phi(h)) for j in range(1, 9))
P.generic("eqA6.range", "(A.6)", "identity",
          "(A.6) for j >= 1: (-D)^j Phi(h) = -He_{j-1}(h) phi(h) at the end j = 1 and every j up to 8 (He_7, the "
          "highest (A.7) prints), with SymPy's probabilists' Hermite polynomials",
          shown_kind="domain", latex=r"(-D)^{j}\Phi(h)=-He_{j-1}(h)\phi(h)", section="App. A", params=(H_ALL,),
          lhs=_A6, rhs=sp.Integer(0))

# ----------------------------------------------------------------------------- Sec. 4: the area gamma in [0, 1/2]
GAMMA_LATEX = r"\left\{(\mu,\gamma):\;\mu\geq 0,\,0\leq\gamma\leq\frac{1}{2}\right\}"
AREA = Fn("TradeoffArea")
_r = sp.Symbol("r", positive=True)
R01 = Param(_r, sp.Interval.open(0, 1), ("uniform", 0, 1))
_quarter = sp.Rational(1, 4)


def _wide_pmf(name: str, points: int):
    """A pmf pair whose logits range over [-30, 30]: masses down to e^-60 of the others (densities that
    nearly vanish, the edge of "densities with respect to a dominating measure")."""
    params, pair = pmf_pair(name, points)
    return tuple(Param(x.symbol, x.domain, ("uniform", -30.0, 30.0)) for x in params), pair


_AR3, _AR3_PAIR = _wide_pmf("ar", 3)
for _cid, _what, _params, _pair in (
        ("sec4.gamma_range", "G_mu over mu >= 0 (the end mu = 0 is Id, area 1/2; mu -> oo tends to area 0)",
         (MU0,), GAUSS),
        ("sec4.gamma_range_pmf", "every pair of pmfs on three points (symmetric or not, masses down to e^-60 of each other)",
         _AR3, _AR3_PAIR),
        ("sec4.gamma_range_expo", "the exponential pair Exp(1) vs Exp(r), r in (0, 1) (an asymmetric curve)",
         (R01,), Fn("Exponential")(_r))):
    P.generic(_cid, "Sec. 4", "bound",
              f"Sec. 4's range 0 <= gamma <= 1/2 for the area gamma = int_0^1 f under a trade-off curve f, for "
              f"{_what}: |gamma - 1/4| <= 1/4",
              shown_kind="domain", latex=GAMMA_LATEX, section=S4, formulas=("gamma_area",), params=tuple(_params),
              bound=_quarter, side="upper", truth=sp.Abs(AREA(_pair) - _quarter))

# ----------------------------------------------------------------------------- Lemmas 5.1-5.2: eps in R
_s = sp.Symbol("s", positive=True)
S_OPEN = Param(_s, sp.Interval.open(0, 1), ("uniform", 0, 1))
_eps_s = sp.log(_s / (1 - _s))                  # eps over R: within e^-40 of s = 0, 1 it is -+40


L51_LATEX = r"\delta_{1}(\varepsilon)=\int(q-\mathrm{e}^{\varepsilon}p)_{+}\mathrm{d}\mu."
_PQ4, _PAIR4 = _wide_pmf("pq", 4)
_U4, _V4 = _logits(_PAIR4)
P.generic("lemma5_1.eps_range", "Lemma 5.1", "bound",
          "Lemma 5.1 over eps in R (eps = log(s/(1-s)), s in (0, 1): up to +-40) and pmf densities down to e^-60 of "
          "each other: int (q - e^eps p)_+ is delta_1(eps) = 1 + f^*(-e^eps) = sup_A Q(A) - e^eps P(A)",
          shown_kind="domain", latex=L51_LATEX, section="Sec. 5.1", formulas=("lemma5_1",), params=(S_OPEN,) + _PQ4,
          bound=_delta_printed(_U4, _V4, _eps_s), side="equal", truth=_delta_truth(_U4, _V4, _eps_s))
L52_LATEX = (r"\delta_{\otimes}(\varepsilon)=\int_{\mathbb{R}}\delta_{1}\big{(}\varepsilon-L_{2}(y)\big{)}"
             r"q_{2}(y)\mathrm{d}y.")
_PQ3, _PAIR3 = _wide_pmf("pq", 3)
_RS2, _PAIR2 = _wide_pmf("rs", 2)
_U3, _V3 = _logits(_PAIR3)
_U2, _V2 = _logits(_PAIR2)
P.generic("lemma5_2.eps_range", "Lemma 5.2", "bound",
          "Lemma 5.2 over eps in R (up to +-40) and densities down to e^-60 of each other (L_2 up to +-60): the "
          "delta of f_1 (x) f_2 is int delta_1(eps - L_2(y)) q_2(y) dy (f_1 on 3, f_2 on 2 points)",
          shown_kind="domain", latex=L52_LATEX, section="Sec. 5.1", formulas=("lemma5_2",),
          params=(S_OPEN,) + _PQ3 + _RS2,
          bound=sum(q2 * _delta_printed(_U3, _V3, _eps_s - l2) for q2, l2 in zip(_softmax(_V2), _loss(_U2, _V2))),
          side="equal", truth=_delta_truth(_product(_U3, _U2), _product(_V3, _V2), _eps_s))

# ----------------------------------------------------------------------------- the recursion's start: eps in R
P.generic("rec.delta0.eps_range", "Sec. 5.1", "bound",
          "delta_0(eps) = max{1 - e^eps, 0} over eps in R (eps = log(s/(1-s)): up to +-40) is the dual of Id = T(P, P), "
          "sup_A P(A) - e^eps P(A), for pmfs P down to e^-60 of each other",
          shown_kind="domain", latex=r"\displaystyle=\max\{1-\mathrm{e}^{\varepsilon},0\}", section="Sec. 5.1",
          formulas=("rec.delta0",), params=(S_OPEN,) + _PQ3[:3], bound=sp.Max(1 - sp.exp(_eps_s), 0), side="equal",
          truth=_delta_truth(_U3, _U3, _eps_s))
