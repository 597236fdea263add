"""Domain claims of Ghazi & Issa (seed 003): every parameter range the paper states for a definition,
theorem, corollary or proposition, declared as a generic claim (issue 10 item 2) whose search probes
the ends of each stated interval (to within e^-40 of an open end) and its interior.

Seed 003 lines (the dump's LaTeX source of each range):

- ``def1.range``      l. 57   Def. 1: eps >= 0, delta in [0, 1]
- ``thm1.range``      l. 77   Thm. 1: eps >= 0, delta in [0, 1], t in [0, 1]
- ``def4.range``      l. 98   Def. 4: eta in [0, 1] (every TV value is a mechanism's TV)
- ``cor1.range``      l. 108  Cor. 1: eta in [0, delta + (1 - delta)(e^eps - 1)/(e^eps + 1)]
- ``thm2.range``, ``thm2.range_dp``  l. 141  Thm. 2: eps >= 0, delta in [0, 1],
  eta in [delta, delta + (e^eps - 1)(1 - delta)/(1 + e^eps)]
- ``prop1.range_tv``, ``prop1.range_dp``  l. 269  Prop. 1: eps > 0, delta in [0, 1], eta in [0, 1]
- ``prop2.range``     l. 434  Prop. 2: 0 <= eta <= (e^eps - 1)/(e^eps + 1)
- ``thm4.range``      l. 450  Thm. 4: the same eta range, (32) with f = t log t
- ``thm5.range``      l. 469  Thm. 5: the same eta range
- ``thm6.eta_range``  l. 517  Thm. 6: 0 <= eta <= (e^eps + 1)/(e^eps - 1)  (holds: it contains every
  eps-LDP channel's TV; it is wider than needed, which makes the theorem weaker, not wrong; the sentence
  on the maximum eta is the custom ``thm6.range``, errata ``ldp_tv_reciprocal``)
- ``thm7.range``      l. 566  Thm. 7: eta in [0, (e^eps - 1)/(e^eps + 1)]

- ``eq12.mu_range``  l. 287  (12): "Given mu in R", G_mu = f(N(0,1), N(mu,1)) for alpha in [0, 1]: over
  every real mu (negative, the end 0, positive) it is the trade-off function Phi(Phi^{-1}(1-alpha) - |mu|)
  = G_{|mu|} (derive.truths' Gaussian pair takes either sign: for mu < 0 the likelihood ratio p/q
  increases and the Neyman-Pearson test rejects below the threshold), so the stated range adds no
  curve beyond mu >= 0 (``eq12.gmu``) and is harmless

Already declared elsewhere: ``sec6c.gamma_range`` (custom, sec6).  Not declared: Thm. 3's triangular
array (a limit statement, checked by ``thm3.clt``).
"""
from __future__ import annotations

import sympy as sp

from ...symbols import Param, alpha, delta, eps, p, t
from ._paper import ALPHA01, EPSP, ETA, P, Phi, eta

Fn = sp.Function
II, III, IV, VII = "Sec. II", "Sec. III", "Sec. IV", "Sec. VII"

s = sp.Symbol("s", nonnegative=True)
a_, b_ = sp.Symbol("a", nonnegative=True), sp.Symbol("b", nonnegative=True)
EPS0 = Param(eps, sp.Interval(0, sp.oo), ("loguniform", 1e-2, 6))
DELTA01 = Param(delta, sp.Interval(0, 1), ("uniform", 0, 1))
T01 = Param(t, sp.Interval(0, 1), ("uniform", 0, 1))
S01 = Param(s, sp.Interval(0, 1), ("uniform", 0, 1))
#: Prop. 1's sampling ratio p = m/n
P_SUB = Param(p, sp.Interval.Lopen(0, 1), ("uniform", 0, 1))

r = sp.exp(eps)
RR = Fn("RandomizedResponse")(eps)
CANON = Fn("EpsDeltaPair")(eps, delta)
TANH = (r - 1) / (r + 1)                   # the largest TV of an eps-DP channel


def dominating(a, d):
    """(43)-(44) as SymPy lists: the (eps, delta)-DP mechanism with erasure probability a."""
    hi, lo = (1 - d) * (1 - a) * r / (1 + r), (1 - d) * (1 - a) / (1 + r)
    P0 = [d, hi, a * (1 - d), lo, sp.Integer(0)]
    return P0, P0[::-1]


def hockey(P0, P1, lam):
    """E_lam(P0 || P1) = sum of the positive parts of P0 - lam P1."""
    return sum(sp.Max(0, x - lam * y) for x, y in zip(P0, P1))


# ----------------------------------------------------------------------------- Def. 1, Thm. 1, Def. 4
P.generic("def1.range", "Def. 1", "bound",
          "Def. 1's range eps >= 0, delta in [0, 1]: every (eps, delta) of the range is attained exactly "
          "(the canonical (eps, delta) pair has privacy profile delta at eps)",
          shown_kind="domain", latex=r"\varepsilon\geq 0", section=II, params=(EPS0, DELTA01),
          bound=delta, side="equal", truth=Fn("DeltaOfEps")(CANON, eps))
P.generic("thm1.range", "Thm. 1", "bound",
          "Thm. 1 over eps >= 0, delta in [0, 1], t in [0, 1]: an (eps, delta)-DP pair's trade-off curve lies above "
          "max(0, 1 - delta - e^eps t, e^-eps (1 - delta - t)) (the canonical pair)",
          shown_kind="domain", latex=r"t\in[0,1],", section=II, params=(EPS0, DELTA01, T01),
          bound=sp.Max(0, 1 - delta - r * t, (1 - delta - t) / r), side="lower",
          truth=Fn("Tradeoff")(CANON, t))
P.generic("def4.range", "Def. 4", "bound",
          "Def. 4's range eta in [0, 1]: every eta of the range is the TV of a pair (Bern(eta) vs Bern(0))",
          shown_kind="domain", latex=r"\eta\in[0,1]", section=II, params=(ETA,),
          bound=eta, side="equal", truth=Fn("TV")(Fn("Bernoulli")(eta, 0)))

# ----------------------------------------------------------------------------- Cor. 1, Thm. 2
COR1_LATEX = r"\eta\in[0,\delta+(1-\delta)\frac{e^{\varepsilon}-1}{e^{\varepsilon}+1}]"
P.generic("cor1.range", "Cor. 1", "bound",
          "Cor. 1's eta range ends at the largest TV of an (eps, delta)-DP mechanism (the canonical pair), for every "
          "eps >= 0 and delta in [0, 1]",
          shown_kind="domain", latex=COR1_LATEX, section=II, formulas=("cor1.eta_max",), params=(EPS0, DELTA01),
          bound=delta + (1 - delta) * TANH, side="equal", truth=Fn("TV")(CANON))
THM2_LATEX = r"\eta\in[\delta,\delta+\frac{(e^{\varepsilon}-1)(1-\delta)}{1+e^{\varepsilon}}]"
_D0, _D1 = dominating(1 - s, delta)         # eta = delta + s (eta_max - delta): alpha = 1 - s
P.generic("thm2.range", "Thm. 2", "identity",
          "Thm. 2's range (eps >= 0, delta in [0, 1], eta = delta + s(eta_max - delta), s in [0, 1]): the dominating "
          "mechanism (43)-(44) at alpha = 1 - s has TV exactly eta, so every eta of the range is attained",
          shown_kind="domain", latex=THM2_LATEX, section=III, formulas=("appF.tv",), params=(EPS0, DELTA01, S01),
          lhs=hockey(_D0, _D1, 1), rhs=delta + s * (1 - delta) * TANH)
P.generic("thm2.range_dp", "Thm. 2", "identity",
          "Thm. 2's range: the dominating mechanism (43)-(44) is exactly (eps, delta)-DP at every point of the range "
          "(E_{e^eps} = delta)",
          shown_kind="domain", latex=THM2_LATEX, section=III, params=(EPS0, DELTA01, S01),
          lhs=hockey(_D0, _D1, r), rhs=delta)

# ----------------------------------------------------------------------------- Prop. 1
PROP1_LATEX = r"\delta\in[0,1]"
_lam = 1 + p * (r - 1)
_M0 = [p * x + (1 - p) * y for x, y in zip(_D0, _D1)]     # the subsampled mechanism: p P0 + (1 - p) P1
P.generic("prop1.range_tv", "Prop. 1", "identity",
          "Prop. 1 over eps > 0, delta in [0, 1], p in (0, 1] and every eta of the dominating family: subsampling "
          "(p P0 + (1-p) P1 vs P1) multiplies the TV by p",
          shown_kind="domain", latex=PROP1_LATEX, section=IV, params=(EPSP, DELTA01, S01, P_SUB),
          lhs=hockey(_M0, _D1, 1), rhs=p * (delta + s * (1 - delta) * TANH))
P.generic("prop1.range_dp", "Prop. 1", "inequality",
          "Prop. 1 over eps > 0, delta in [0, 1], p in (0, 1]: the subsampled dominating mechanism is "
          "(log(1 + p(e^eps - 1)), p delta)-DP in both directions",
          shown_kind="domain", latex=PROP1_LATEX, section=IV, params=(EPSP, DELTA01, S01, P_SUB),
          lhs=sp.Max(hockey(_M0, _D1, _lam), hockey(_D1, _M0, _lam)), op="<=", rhs=p * delta)

# ----------------------------------------------------------------------------- Sec. VII: eta in [0, tanh(eps/2)]
SEC7_LATEX = r"0\leq\eta\leq\frac{e^{\varepsilon}-1}{e^{\varepsilon}+1}"
_eta_s = s * TANH                            # eta swept over [0, (e^eps-1)/(e^eps+1)]
P.generic("prop2.range", "Prop. 2", "bound",
          "Prop. 2's range 0 <= eta <= (e^eps-1)/(e^eps+1) (eps >= 0): every eta of it is at most the TV of binary "
          "randomized response, the largest TV of an eps-LDP channel (equal at the upper end)",
          shown_kind="domain", latex=SEC7_LATEX, section=VII, params=(EPS0, S01),
          bound=_eta_s, side="lower", truth=Fn("TV")(RR))
P.generic("thm4.range", "Thm. 4", "bound",
          "Thm. 4 over its eta range with f = t log t: (32) = eta eps never exceeds the KL divergence of randomized "
          "response (the largest over eps-LDP channels), with equality at the upper end",
          shown_kind="domain", latex=SEC7_LATEX, section=VII, params=(EPS0, S01),
          bound=_eta_s * (r * eps + r * sp.exp(-eps) * (-eps)) / (r - 1), side="lower", truth=Fn("KL")(RR))
P.generic("thm5.range", "Thm. 5", "bound",
          "Thm. 5 over its eta range: eta (e^eps-1)/(e^eps+1) never exceeds the KL contraction of binary randomized "
          "response (1 - 2/(1+e^eps))^2 = TV(RR)^2, with equality at the upper end",
          shown_kind="domain", latex=SEC7_LATEX, section=VII, params=(EPS0, S01),
          bound=_eta_s * TANH, side="lower", truth=Fn("TV")(RR) ** 2)
_alpha7 = sp.cancel(1 - _eta_s * (r + 1) / (r - 1))   # Thm. 7's erasure probability (App. M)
P.generic("thm7.range", "Thm. 7", "identity",
          "Thm. 7's range eta in [0, (e^eps-1)/(e^eps+1)]: the erasure probability alpha = 1 - eta (e^eps+1)/(e^eps-1) "
          "lies in [0, 1] and erasing randomized response with it gives TV exactly eta (Lemma 3)",
          shown_kind="domain", latex=r"\eta\in[0,\frac{e^{\varepsilon}-1}{e^{\varepsilon}+1}]", section=VII,
          params=(EPS0, S01),
          lhs=(1 - sp.Min(1, sp.Max(0, _alpha7))) * Fn("TV")(RR), rhs=_eta_s)
P.generic("thm6.eta_range", "Thm. 6", "bound",
          "Thm. 6's range 0 <= eta <= (e^eps+1)/(e^eps-1) contains the TV of every eps-LDP channel (at most that "
          "of binary randomized response)",
          shown_kind="domain", latex=r"0\leq\eta\leq\frac{e^{\varepsilon}+1}{e^{\varepsilon}-1}", section=VII,
          params=(EPS0,), bound=(r + 1) / (r - 1), side="upper", truth=Fn("TV")(RR),
          note="the range is wider than the feasible TVs (whose largest is (e^eps-1)/(e^eps+1)): for eta above that, "
               "Q_{eps,eta} is the set of all eps-LDP channels and the theorem is true but no stronger; the "
               "sentence after (40) about the maximum value of eta is claim thm6.range")

# ----------------------------------------------------------------------------- (12): mu in R
mu_r = sp.Symbol("mu", real=True)
MU_R = Param(mu_r, sp.Interval(-sp.oo, sp.oo), ("uniform", -8, 8))
P.generic("eq12.mu_range", "(12)", "bound",
          "(12) over its range mu in R and alpha in [0, 1]: f(N(0,1), N(mu,1)) is G_{|mu|}(alpha) = "
          "Phi(Phi^{-1}(1-alpha) - |mu|) (a negative mu gives the curve of -mu, mu = 0 gives Id)",
          shown_kind="domain", latex=r"\mu\in\mathbb{R}", section="Sec. V", params=(MU_R, ALPHA01),
          bound=Phi(sp.sqrt(2) * sp.erfinv(1 - 2 * alpha) - sp.Abs(mu_r)), side="equal",
          truth=Fn("Tradeoff")(Fn("Gaussian")(mu_r), alpha))
