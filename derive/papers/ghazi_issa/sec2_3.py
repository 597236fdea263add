"""Ghazi & Issa (seed 003), Sections II-III and Appendix F: DP and its ROC view,
eta-TV (Defs. 3-4), Corollary 1's region (2)-(4), Remark 1, the dominating
mechanisms (7) and (43)-(44), Theorem 2 with the double sum (5) and alpha(eta),
Kairouz et al.'s (6), and the proof steps of Sec. III-C - in the paper's order.
"""
from __future__ import annotations

from fractions import Fraction as Fr

import mpmath as mp
import sympy as sp

from ...core import Verdict
from ...symbols import alpha, delta, eps
from ...verify import check_draws
from ...symbols import Param
from ... import truths as T, truths_pmf as TR
from ._paper import ALPHA01, DELTA0, EPSP, ETA, P, SYMS
from ...evidence import exact_verdict, finite_sums as _finite_sums

II, III, APPF = "Sec. II", "Sec. III", "App. F"
k_, j_, l_, a_ = sp.symbols("k j ell a", integer=True, nonnegative=True)

# the truths of derive.truths, used inside claim expressions
Discrete, Composed = sp.Function("Discrete"), sp.Function("Composed")
HockeyStick, TV, Tradeoff, DeltaOfEps = (sp.Function(x) for x in ("HockeyStick", "TV", "Tradeoff", "DeltaOfEps"))
t_ = sp.Symbol("t", nonnegative=True)
# the number of compositions k and the index j as searched parameters (real symbols: the printed
# sums are unrolled at each integer k, j of the checked range, see ``unrolled``)
kc, jc = sp.Symbol("k", positive=True), sp.Symbol("j", nonnegative=True)
KC4 = Param(kc, sp.Interval(1, sp.oo), ("integer", 1, 4))
JC = Param(jc, sp.Interval(0, sp.oo), ("integer", 0, 5))


# ----------------------------------------------------------------------------- dominating mechanisms
def dominating(r, a, d=0):
    """(43)-(44) with e^eps = r (delta = 0: (7) with the two zero-probability outputs kept)."""
    hi, lo = (1 - d) * (1 - a) * r / (1 + r), (1 - d) * (1 - a) / (1 + r)
    P0 = [d, hi, a * (1 - d), lo, 0 * r]
    return P0, P0[::-1]


def dominating_pair(r, a, d=0):
    """(43)-(44) as the truths library's ``Discrete`` pair (SymPy arguments)."""
    P0, P1 = dominating(r, a, d)
    return Discrete(*P0, *P1)


def unrolled(expr, kmax: int):
    """A printed sum over k, j (``k_``, ``j_``) as a Piecewise in the searched ``kc``, ``jc``:
    written out at each integer 1 <= k <= kmax, 0 <= j <= k; undefined elsewhere."""
    pieces = [(_finite_sums(expr.subs({k_: K, j_: J})), sp.And(sp.Eq(kc, K), sp.Eq(jc, J)))
              for K in range(1, kmax + 1) for J in range(0, K + 1)]
    return sp.Piecewise(*pieces, (sp.nan, True))


def _rand_pair(rng, n=None):
    n = n or rng.randint(2, 6)
    return T.random_pmf(rng, n), T.random_pmf(rng, n)


# ----------------------------------------------------------------------------- Sec. II


def _draw_footnote(rng):
    Pd, Qd = _rand_pair(rng)
    ts = [mp.mpf(i) / 400 for i in range(401)]
    inf_s = min(t + T.tradeoff_np(Pd, Qd, t) for t in ts)   # the inf sits at a vertex; grid is an upper bound
    # exact: the inf of the convex piecewise-linear s + f(s) is attained at a vertex P0(A)
    cum, verts = mp.mpf(0), [mp.mpf(1)]
    order = sorted(range(len(Pd)), key=lambda i: -(Qd[i] / Pd[i]))
    for i in order:
        cum += Pd[i]
        verts.append(cum + T.tradeoff_np(Pd, Qd, cum))
    return {"k": len(Pd)}, min(min(verts), inf_s), 1 - TR.tv(Pd, Qd)


# custom: an infimum over s of s + f(s) (no kind takes an inf over a variable of a truth)
P.claim("footnote1.tv_roc", "footnote 1", "identity",
        "-f*(-1) = inf_s {s + f(s)} = 1 - d_TV(P0, P1): so d_TV <= eta iff f(t) >= 1 - eta - t (eta-TV is (0,eta)-DP)",
        latex=r"=1-d_{TV}(P_{0},P_{1}).", section=II,
        check=lambda: check_draws(_draw_footnote, "==", n=20,
                                  method="inf of s + f(s) over the Neyman-Pearson curve's vertices vs 1 - TV"),
        why_custom='an infimum over s of s + f(s) (no kind takes an inf over a variable of a truth)')

# ----------------------------------------------------------------------------- Corollary 1 / Remark 1
COR1_ETA_LATEX = r"\eta\in[0,\delta+(1-\delta)\frac{e^{\varepsilon}-1}{e^{\varepsilon}+1}]"
F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of sec2_3.toml
eta_max = F["cor1.eta_max"]


@P.custom("cor1.eta_range", "Cor. 1", "upper_bound",
          "the eta range of Cor. 1 ends at the largest TV an (eps,delta)-DP mechanism can have",
          latex=COR1_ETA_LATEX, section=II, formulas=("cor1.eta_max",),
          why_custom='a sup over all (eps, delta)-DP pairs and its attainment (a bound kind checks one side only)')
def _cor1_max_check():
    f = sp.lambdify([eps, delta], eta_max.expr, "mpmath")

    def draw(rng):
        Pd, Qd = _rand_pair(rng)
        e = mp.mpf(rng.uniform(0.05, 2))
        d = TR.dp_delta(Pd, Qd, e)
        # every (eps, d)-DP pair has TV <= the printed maximum; the dominating mechanism attains it
        return {"k": len(Pd), "varepsilon": e, "delta": d}, TR.tv(Pd, Qd), f(e, d)
    v1 = check_draws(draw, "<=", n=25, method="random pairs at their exact delta: TV <= printed eta max")
    if v1.status == "fails":
        return v1
    cases = []
    for r in (Fr(2), Fr(3), Fr(7, 2)):
        for d in (Fr(0), Fr(1, 10)):
            P0, P1 = dominating(r, Fr(0), d)
            cases.append(({"e^eps": str(r), "delta": str(d)}, TR.tv(P0, P1),
                          d + (1 - d) * (r - 1) / (r + 1)))
    v2 = exact_verdict(cases, "attained by the alpha = 0 dominating mechanism")
    return v2 if v2.status == "fails" else Verdict("holds_numerically", v1.method + "; attained exactly by (43)-(44) at alpha = 0",
                                                   points=v1.points + v2.points, worst_error=0.0, precision=v1.precision)


_DOM = dominating_pair(sp.exp(eps), alpha, delta)


# ----------------------------------------------------------------------------- Theorem 2


# eta = delta + s (eta_max - delta), s in [0, 1], sweeps the printed range: alpha = 1 - s there
s_ = sp.Symbol("s", nonnegative=True)

EQ5_HAND = sp.Sum(sp.binomial(k_, a_) * sp.Sum(
    sp.binomial(k_ - a_, l_) * ((1 - alpha) / (1 + sp.exp(eps))) ** (k_ - a_) * alpha ** a_
    * (sp.exp((k_ - l_ - a_) * eps) - sp.exp((l_ + j_) * eps)),
    (l_, 0, sp.ceiling((k_ - j_ - a_) / 2) - 1)), (a_, 0, k_ - j_ - 1))


_EQ5_DP = 1 - (1 - delta) ** k_ * (1 - EQ5_HAND)     # the composed delta'_j of Theorem 2
P.generic("thm2.eq5", "(5)", "bound",
          "Theorem 2: the k-fold composition is (j eps, 1 - (1-delta)^k (1 - delta_j))-DP with delta_j of (5) - "
          "equal to the brute-force hockey-stick of the composed dominating mechanism",
          shown_kind="equality",
          latex=r"(j\varepsilon,1-(1-\delta)^{k}(1-\delta_{j}))\text{-differential % privacy with }",
          section=III, formulas=("thm2.eq5", "thm2.alpha"), params=(EPSP, DELTA0, ALPHA01, KC4, JC),
          conditions=(jc <= kc,), bound=unrolled(_EQ5_DP, 4), side="equal",
          truth=HockeyStick(Composed(_DOM, kc), sp.exp(jc * eps)))


def _thm2_region_exact_check(rng):
    """The region is exactly the intersection of the (j eps, delta'_j) regions: the Neyman-Pearson
    curve of the composed dominating mechanism equals the max over j of both lines."""
    k = rng.randint(1, 4)
    e = mp.mpf(rng.uniform(0.2, 1.5))
    a = mp.mpf(rng.random())
    d = mp.mpf(0) if rng.random() < 0.5 else mp.mpf(10) ** rng.uniform(-3, -1)
    P0, P1 = dominating(mp.e ** e, a, d)
    p0, p1 = T.kfold(P0, k), T.kfold(P1, k)
    t = mp.mpf(rng.random())
    lines = [mp.mpf(0)]
    for j in range(k + 1):
        dj = T.hockey(p0, p1, mp.e ** (j * e))
        lines += [1 - dj - mp.e ** (j * e) * t, mp.e ** (-j * e) * (1 - dj - t)]
    return {"k": k, "varepsilon": e, "alpha": a, "delta": d, "t": t}, T.tradeoff_np(p0, p1, t), max(lines)


# ----------------------------------------------------------------------------- (6)
EQ6_HAND = sp.Sum(sp.binomial(k_, l_) * (sp.exp((k_ - l_) * eps) - sp.exp((l_ + j_) * eps)),
                  (l_, 0, (k_ - j_) / 2 - 1)) / (1 + sp.exp(eps)) ** k_


def eq5_value(k, j, r, a):
    """(5) as printed, at e^eps = r (rational) -> exact value (0^0 = 1)."""
    tot = Fr(0)
    q = (1 - a) / (1 + r)
    for aa in range(0, k - j):
        for ll in range(0, -(-(k - j - aa) // 2)):
            tot += (sp.binomial(k, aa) * sp.binomial(k - aa, ll) * q ** (k - aa) * (a ** aa if aa else 1)
                    * (r ** (k - ll - aa) - r ** (ll + j)))
    return Fr(tot)


def eq6_value(k, j, r):
    """(6) as printed, exactly at e^eps = r."""
    return Fr(sum((sp.binomial(k, ll) * (r ** (k - ll) - r ** (ll + j)) for ll in range((k - j) // 2)), Fr(0))) / (1 + r) ** k


def _eq6_check():
    cases = []
    for k in (1, 2, 3, 4, 5):
        for r in (Fr(2), Fr(5, 2)):
            P0, P1 = dominating(r, Fr(0), Fr(0))
            p0, p1 = T.kfold(P0, k), T.kfold(P1, k)
            for j in range(k % 2, k + 1, 2):
                truth = T.hockey(p0, p1, r ** j)
                cases.append(({"k": k, "j": j, "e^eps": str(r), "vs": "brute force"}, truth, eq6_value(k, j, r)))
                cases.append(({"k": k, "j": j, "e^eps": str(r), "vs": "(5) at alpha=0"},
                              eq5_value(k, j, r, Fr(0)), eq6_value(k, j, r)))
    return exact_verdict(cases, "brute-force composition of Kairouz et al.'s M_{eps,0}, and (5) at alpha = 0 "
                                "(eta maximal), j = k - 2i")


# ----------------------------------------------------------------------------- Sec. III-C


def _summation_bounds_check():
    # the set of (a, l) with e^{(k-l-a)eps} > e^{(l+j)eps} is exactly (5)'s index set
    cases = []
    for k in range(1, 7):
        for j in range(k + 1):
            truth = {(aa, ll) for aa in range(k + 1) for ll in range(k - aa + 1) if k - ll - aa > ll + j}
            printed = {(aa, ll) for aa in range(0, k - j) for ll in range(0, -(-(k - j - aa) // 2))}
            cases.append(({"k": k, "j": j}, frozenset(truth), frozenset(printed)))
    bad = [c for c in cases if c[1] != c[2]]
    if bad:
        d, t, p = bad[0]
        return Verdict("fails", "enumeration of index sets", counterexample={"params": d, "true": sorted(t), "printed": sorted(p)})
    return Verdict("holds_numerically", "enumeration of the index sets for k <= 6, every j (exact)",
                   points=len(cases), worst_error=0.0, precision=None)


def _notation_check():
    return Verdict("fails", "symbol check: the composed mechanism must be the eta-TV dominating one",
                   counterexample={"printed": "M_i = M_{eps,0,delta} (and 'simulated from M_{eps,0,delta}' in "
                                             "Sec. III-C3)", "should be": "M_{eps,0,eta}"},
                   note="typo: the third index of the dominating mechanism is eta, not delta")

P.load(__file__)  # the claims declared in sec2_3.toml (after the checks they name)
