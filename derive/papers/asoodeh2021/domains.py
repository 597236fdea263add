"""Domain claims of Asoodeh et al. (seed 002, JSAIT 2021): every parameter range the paper states
for a theorem, lemma, remark or definition, declared as a generic claim (issue 10 item 2) whose
search probes the ends of each stated interval (to within e^-40 of an open end) and its interior.

Each claim carries exactly the stated range (new Params below where the paper's range differs
from the shared ones) and checks what the statement says over all of it.  Seed 002 lines:

- ``thm1.range``      l. 93   Thm. 1: "for any eps > gamma", delta = e^{-(alpha-1)(eps-gamma)}
- ``thm3.range``      l. 187  Thm. 3: "For any alpha > 1, eps >= 0, and delta in (0, 1)"
- ``thm4.eq22_range`` l. 208  Thm. 4 (22): "if alpha delta >= 1", gamma = eps - log(1 - delta)
- ``remark1.nonempty``, ``remark1.range`` l. 237  Remark 1: gamma < log(alpha/(alpha-1)),
  delta in [zeta_alpha e^{(alpha-1)gamma}, 1/alpha]
- ``eq26.range``      l. 243  (26): "for any eps >= 0"
- ``eq29.range``      l. 266  (29): "for any delta in (0, 1)"
- ``lemma2.range``, ``lemma2.eps0_range``, ``lemma2.eps1_range``  l. 277-289  Lemma 2: "with
  delta in (0, 1)", the infima of (32)-(33) over alpha in (1, 1/delta]
- ``lemma4.range``    l. 410  Lemma 4 (44): "(tau, beta) in (0, 1)^2"
- ``sec5.d_alpha_range`` l. 428  (45): d_alpha(a||b) "for a, b in (0, 1)"
- ``appC.convex_range`` l. 586  App. C: "for alpha > 1, delta in [0, 1) and eps > 0" the map
  p -> h_1 is convex
- ``def.dp_range``    l. 77   (eps, delta)-DP "for eps >= 0 and delta in [0, 1)": every such (eps, delta) is attained
  exactly (the canonical (eps, delta) pair has privacy profile delta at eps)
- ``prop1.range``     l. 385  Prop. 1 (42): "Given alpha > 1", (42) bounds D_alpha(M_d || M_d') from above, on
  the pairs P = (0, a, 1-a), Q = (c, (1-c) b, (1-c)(1-b)), a, b in (0, 1), c in [0, 1): c is the mass Q puts
  where P has none, 1 - beta(0) (c = 0: (42) is tight).  The curve is piecewise linear with a segment of
  length P(x) and slope |Gamma| = Q(x)/P(x) for each point x with P(x) > 0, so the integral in (42) is the
  sum of length * slope^(1-alpha) over those segments (in any order); the truth is derive.truths' Renyi
  from definition (1).  The range is needed: for alpha < 1 the factor 1/(alpha - 1) turns the extra
  1 - beta(0) >= 0 into a deficit and (42) falls below D_alpha (tests/test_domain_claims.py plants that)

Already declared elsewhere (custom checks): ``thm4.range_ends`` and ``lemma1.range_ends`` (sec2_3).
Not declared (cost): (5)'s "alpha > 1 and gamma >= 0" (l. 81) and l. 265's "(alpha, rho alpha)-RDP for all
alpha > 1": both need derive.truths' Renyi of a Gaussian pair, a quadrature of 0.2-2 s a point, so a
generic search over alpha in (1, 101) took 55-100 s a claim (measured); the Gaussian RDP alpha/(2 sigma^2)
itself is claim sec4.eq28.
Not declared: Thm. 5's "eps > 2 delta log(1/delta)" (an O-term statement, asymptotic in delta) and
(54)'s "alpha <= 1 + sigma^2 log(1/(q sigma)), q < 1/(16 sigma)" (an approximation, "approximately").
Lemma 3's "for every eps >= 0" (l. 397) is not declared either: on a Gaussian mechanism it needs
gamma_alpha^eps at delta(eps) far below e^{-eps(alpha-1)}, where derive.truths.gamma_exact (a grid in p
from delta to 1) misses the minimiser near p = delta and overestimates (alpha = 10, eps = 5,
delta = 1e-30: 3.4e-8 against 1.0e-10 by a log-spaced search), which would give a false failure.
"""
from __future__ import annotations

import sympy as sp

from ... import registry
from ...symbols import (
    ALPHA,
    DELTA,
    EPS,
    GAMMA,
    RHO,
    TSTEPS,
    Param,
    T,
    alpha,
    delta,
    eps,
    gamma,
    mu,
    p,
    rho,
    tau,
)
from ._paper import P


def F(name: str) -> sp.Expr:
    """The expression of this paper's registered formula ``name``."""
    return registry.formula(f"asoodeh2021.{name}").expr


Fn = sp.Function
III, IV, V = "Sec. III", "Sec. IV", "Sec. V"

s = sp.Symbol("s", positive=True)
a_, b_ = sp.Symbol("a", positive=True), sp.Symbol("b", positive=True)
#: the fraction along a stated interval whose end depends on another parameter
S_OPEN = Param(s, sp.Interval.open(0, 1), ("uniform", 0, 1))
S_LOPEN = Param(s, sp.Interval.Lopen(0, 1), ("uniform", 0, 1))
EPS_POS = Param(eps, sp.Interval.open(0, sp.oo), ("loguniform", 1e-3, 20))
DELTA0 = Param(delta, sp.Interval.Ropen(0, 1), ("loguniform", 1e-12, 0.999))
P01 = Param(p, sp.Interval.open(0, 1), ("uniform", 0, 1))
A01 = Param(a_, sp.Interval.open(0, 1), ("uniform", 0, 1))
B01 = Param(b_, sp.Interval.open(0, 1), ("uniform", 0, 1))
TAU01 = Param(tau, sp.Interval.open(0, 1), ("uniform", 0, 1))
MU_POS = Param(mu, sp.Interval.open(0, sp.oo), ("loguniform", 1e-2, 10))
GAMMA_ = Fn("OptimalRdpGamma")
zeta = F("thm4.zeta")

# ----------------------------------------------------------------------------- Theorem 1
P.generic("thm1.range", "Thm. 1", "bound",
          "Theorem 1's range eps > gamma: every (alpha, gamma)-RDP mechanism is (eps, e^{-(alpha-1)(eps-gamma)})-DP, "
          "i.e. gamma never exceeds the optimal gamma_alpha^eps at that delta",
          shown_kind="domain", latex=r"then it satisfies (ε, δ) -DP for any $\varepsilon > \gamma$ and",
          section="Sec. II", formulas=("thm1.delta",), params=(ALPHA, EPS, GAMMA), conditions=(eps > gamma,),
          bound=gamma, side="lower", truth=GAMMA_(alpha, eps, F("thm1.delta")))

# ----------------------------------------------------------------------------- Theorem 3
P.generic("thm3.range", "Thm. 3", "bound",
          "Theorem 3's range alpha > 1, eps >= 0, delta in (0, 1): eps + log(objective of (20) at p)/(alpha-1) "
          "is at least gamma_alpha^eps(delta) for every p in (delta, 1) (gamma is its minimum over p)",
          shown_kind="domain", latex=r"Theorem 3: For any $\alpha > 1$, $\varepsilon \geq 0$, and $\delta \in (0, 1)$,",
          section=III, formulas=("thm3.objective", "thm3.gamma"), params=(ALPHA, EPS, DELTA, P01),
          conditions=(p > delta,),
          bound=eps + sp.log(F("thm3.objective")) / (alpha - 1), side="upper", truth=GAMMA_(alpha, eps, delta))

# ----------------------------------------------------------------------------- Theorem 4, (22)
P.generic("thm4.eq22_range", "(22)", "bound",
          "(22)'s range alpha delta >= 1 (alpha > 1, eps >= 0, delta < 1): gamma_alpha^eps(delta) = eps - log(1 - delta)",
          shown_kind="domain", latex=r"if $\alpha \delta \ge 1$, (22)", section=III, formulas=("thm4.eq22",),
          params=(ALPHA, EPS, DELTA), conditions=(alpha * delta >= 1,),
          bound=F("thm4.eq22"), side="equal", truth=GAMMA_(alpha, eps, delta))

# ----------------------------------------------------------------------------- Remark 1
REMARK1_LATEX = r"$\gamma < \log(\frac{\alpha}{\alpha-1})$ and $\delta \in [\zeta_{\alpha}e^{(\alpha-1)\gamma}, \frac{1}{\alpha}]$"
_g_rem = s * sp.log(alpha / (alpha - 1))          # gamma swept over (0, log(alpha/(alpha-1)))
_d_lo = zeta * sp.exp((alpha - 1) * gamma)
P.generic("remark1.nonempty", "Remark 1", "inequality",
          "Remark 1's delta interval [zeta_alpha e^{(alpha-1)gamma}, 1/alpha] is non-empty over the whole stated "
          "gamma range 0 < gamma < log(alpha/(alpha-1)) (gamma = s log(alpha/(alpha-1)), s in (0, 1))",
          shown_kind="domain", latex=REMARK1_LATEX, section=III, formulas=("thm4.zeta",), params=(ALPHA, S_OPEN),
          lhs=_d_lo.subs(gamma, _g_rem), op="<=", rhs=1 / alpha)
P.generic("remark1.range", "Remark 1", "bound",
          "Remark 1 at the low end of its delta interval, over the whole gamma range: every (alpha, gamma)-RDP "
          "mechanism is (0, zeta_alpha e^{(alpha-1)gamma})-DP (gamma <= gamma_alpha^0 there; larger delta follow)",
          shown_kind="domain", latex=REMARK1_LATEX, section=III, formulas=("thm4.zeta",), params=(ALPHA, S_OPEN),
          bound=_g_rem, side="lower", truth=GAMMA_(alpha, 0, _d_lo.subs(gamma, _g_rem)))

# ----------------------------------------------------------------------------- (26)
_GAUSS_T_MU = Fn("Gaussian")(sp.sqrt(2 * rho * T))               # the T-fold Gaussian, rho = 1/(2 sigma^2)
P.generic("eq26.range", "(26)", "bound",
          "(26)'s range eps >= 0: for every alpha > 1, e^{-(alpha-1)(eps - rho alpha T)} bounds the T-fold Gaussian "
          "mechanism's delta at eps (Theorem 1 after RDP composition)",
          shown_kind="domain", latex=r"is (ε, δ) -DP for any $\varepsilon \geq 0$ and", section=IV,
          params=(ALPHA, EPS, RHO, TSTEPS), bound=sp.exp(-(alpha - 1) * (eps - rho * alpha * T)), side="upper",
          truth=Fn("DeltaOfEps")(_GAUSS_T_MU, eps))

# ----------------------------------------------------------------------------- (29), Lemma 2
_GAUSS_T = Fn("EpsOfDelta")(Fn("Gaussian")(sp.sqrt(2 * rho * T)), delta)   # T-fold, rho = 1/(2 sigma^2)
P.generic("eq29.range", "(29)", "bound",
          "(29)'s range delta in (0, 1): the T-fold Gaussian mechanism (rho = 1/(2 sigma^2)) is "
          "(rho T + sqrt(4 rho T log(1/delta)), delta)-DP",
          shown_kind="domain", latex=r"is (ε, δ) -DP for any $\delta \in (0, 1)$ and", section=IV, formulas=("eq29",),
          params=(RHO, TSTEPS, DELTA), bound=F("eq29"), side="upper", truth=_GAUSS_T)
LEMMA2_LATEX = r"is $(\varepsilon^{\delta}(\rho, T), \delta)$ -DP with $\delta \in (0, 1)$ and"
P.generic("lemma2.range", "Lemma 2", "bound",
          "Lemma 2's range delta in (0, 1): its third term (rho T/delta + log(1 - delta))_+ bounds the T-fold "
          "Gaussian mechanism's eps at delta",
          shown_kind="domain", latex=LEMMA2_LATEX, section=IV, formulas=("lemma2.third",),
          params=(RHO, TSTEPS, DELTA), bound=F("lemma2.third"), side="upper", truth=_GAUSS_T)
INF_LATEX = r"\inf_{\alpha \in \left(1, \frac{1}{\delta}\right]}"
_alpha_in = 1 + s * (1 / delta - 1)               # alpha swept over (1, 1/delta], s in (0, 1]
for _k, _eq in ((0, "(32)"), (1, "(33)")):
    P.generic(f"lemma2.eps{_k}_range", _eq, "bound",
              f"{_eq}'s range alpha in (1, 1/delta] (delta in (0, 1)): the objective of eps_{_k} at every such "
              "alpha bounds the T-fold Gaussian mechanism's eps (alpha = 1 + s(1/delta - 1), s in (0, 1])",
              shown_kind="domain", latex=INF_LATEX, section=IV, formulas=(f"lemma2.eps{_k}_objective",),
              params=(RHO, TSTEPS, DELTA, S_LOPEN), bound=F(f"lemma2.eps{_k}_objective").subs(alpha, _alpha_in),
              side="upper", truth=_GAUSS_T)

# ----------------------------------------------------------------------------- Lemma 4, (45)
_d_alpha = registry.formula("asoodeh2021.sec5.d_alpha")
_da_syms = {x.name: x for x in _d_alpha.expr.free_symbols}
_da = _d_alpha.expr.xreplace({_da_syms["a"]: a_, _da_syms["b"]: b_})
_G = Fn("Gaussian")(mu)
P.generic("lemma4.range", "Lemma 4", "bound",
          "Lemma 4 (44) over (tau, beta) in (0, 1)^2: on the Gaussian mechanism's trade-off curve, "
          "d_alpha(1 - tau || beta(tau)) never exceeds its Renyi divergence gamma",
          shown_kind="domain",
          latex=r"C_{\mathcal{M}} \subseteq \left\{ (\tau, \beta) \in (0, 1)^2 : d_{\alpha}(\bar{\tau} \| \beta) \le \gamma, d_{\alpha}(\bar{\beta} \| \tau) \le \gamma \right\}",
          section=V, formulas=("sec5.d_alpha",), params=(ALPHA, MU_POS, TAU01),
          bound=Fn("Renyi")(_G, alpha), side="upper",
          truth=_da.xreplace({a_: 1 - tau, b_: Fn("Tradeoff")(_G, tau)}))
P.generic("sec5.d_alpha_range", "(45)", "identity",
          "(45)'s d_alpha(a||b) for a, b in (0, 1) is the Renyi divergence of Bern(a) from Bern(b)",
          shown_kind="domain", latex=r"for $a, b \in (0, 1)$", section=V, formulas=("sec5.d_alpha",),
          params=(A01, B01, ALPHA), lhs=_da, rhs=Fn("Renyi")(Fn("Bernoulli")(a_, b_), alpha))

# ----------------------------------------------------------------------------- Appendix C
P.generic("appC.convex_range", "App. C", "convex",
          "App. C's range alpha > 1, delta in [0, 1), eps > 0: the objective of (20)/(78) is convex in p on (delta, 1)",
          shown_kind="domain",
          latex=r"One can verify that for $\alpha > 1$, $\delta \in [0, 1)$ and $\varepsilon > 0$, the mapping $p \mapsto h_1(p; \alpha, \delta, \varepsilon)$ is convex.",
          section="App. C", formulas=("thm3.objective",), params=(ALPHA, DELTA0, EPS_POS, P01),
          conditions=(p > delta,), f=F("thm3.objective"), x=p)

# ----------------------------------------------------------------------------- Proposition 1
c_ = sp.Symbol("c", nonnegative=True)
C0 = Param(c_, sp.Interval.Ropen(0, 1), ("uniform", 0, 1))
_Pp = [sp.Integer(0), a_, 1 - a_]
_Qp = [c_, (1 - c_) * b_, (1 - c_) * (1 - b_)]
_slope_integral = sum(px * (qx / px) ** (1 - alpha) for px, qx in zip(_Pp[1:], _Qp[1:]))
_beta0 = 1 - c_                                   # the least type II error at tau = 0 (reject where P = 0)
P.generic("prop1.range", "Prop. 1", "bound",
          "Proposition 1's range alpha > 1: (42) = log(1 - beta(0) + int_0^1 |Gamma(tau)|^{1-alpha} dtau)/(alpha-1) "
          "bounds D_alpha(P||Q) for P = (0, a, 1-a), Q = (c, (1-c)b, (1-c)(1-b)) (a, b in (0, 1), c in [0, 1): "
          "Q's mass where P has none is 1 - beta(0)); equal at c = 0",
          shown_kind="domain", latex=r"Proposition 1: Given $\alpha > 1$, a mechanism \mathcal{M} is (α, γ) -RDP for",
          section=V, params=(ALPHA, A01, B01, C0),
          bound=sp.log(1 - _beta0 + _slope_integral) / (alpha - 1), side="upper",
          truth=Fn("Renyi")(Fn("Discrete")(*_Pp, *_Qp), alpha))

# ----------------------------------------------------------------------------- Sec. II: the definition (4)
DELTA_RO = Param(delta, sp.Interval.Ropen(0, 1), ("uniform", 0, 1))
P.generic("def.dp_range", "(4)", "bound",
          "(eps, delta)-DP's range eps >= 0, delta in [0, 1): every (eps, delta) of it is attained exactly (the "
          "canonical (eps, delta) pair has privacy profile delta at eps)",
          shown_kind="domain", latex=r"(ε, δ) -DP [2] for $\varepsilon \ge 0$ and $\delta \in [0, 1)$ if",
          section="Sec. II", params=(EPS, DELTA_RO), bound=delta, side="equal",
          truth=Fn("DeltaOfEps")(Fn("EpsDeltaPair")(eps, delta), eps))
