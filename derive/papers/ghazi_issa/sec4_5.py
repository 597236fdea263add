"""Ghazi & Issa (seed 003), Sections IV-V with Appendices G-H: subsampling
(Proposition 1 and its tightness (48)-(50)), G_mu (12), Theorem 3 (the CLT for
eps-DP with eta-TV), its proof's kl/kappa computations and the remarks after it.
"""
from __future__ import annotations


import mpmath as mp
import sympy as sp

from ...core import Verdict
from ... import truths as T, truths_pmf as TR
from ...truths_pmf import composed_curve_mp
from ._paper import EPSP, ETA, P, eta, n
from ...symbols import Param
from ._paper import DELTA0

IV, V, APPG, APPH = "Sec. IV", "Sec. V", "App. G", "App. H"
_PSUB = Param(sp.Symbol("p", positive=True), sp.Interval.Lopen(0, 1), ("uniform", 0, 1))   # p = m/n
_PS = {"p": _PSUB.symbol, "eta": eta}
# Prop. 1's three parameters of M o Sample_m, each as printed (numeric.tv.subsample is tied to them)
F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of sec4_5.toml


# ----------------------------------------------------------------------------- Proposition 1
def _random_mechanism(rng, X, m, nout=3):
    table = {}
    import itertools
    for D in itertools.combinations_with_replacement(X, m):
        table[D] = T.random_pmf(rng, nout)
    return lambda D: table[tuple(sorted(D))]


def _prop1_check(rng):
    X, m, n_ = (0, 1, 2), rng.randint(1, 2), 3
    if m == 2:
        X = (0, 1)
    M = _random_mechanism(rng, X, m)
    e = mp.mpf(rng.uniform(0.1, 1.5))
    d, t = TR.mechanism_profile(M, X, m, e)
    p = mp.mpf(m) / n_
    e1 = mp.log(1 + p * (mp.e ** e - 1))
    h, tv = TR.subsample_worst(M, X, n_, m, e1)
    return {"m": m, "n": n_, "varepsilon": e, "delta": d, "eta": t}, max(h - p * d, tv - p * t), mp.mpf(0)


p_ = sp.Symbol("p", positive=True)

# ----------------------------------------------------------------------------- Sec. V


# eps_n = mu/sqrt(n) (Dong et al.'s Thm. 3.6 CLT parameter mu), eta_n = eps_n/c0:
# Theorem 3's mu' = sqrt(2 lim sum eps eta)
NN = Param(n, sp.Interval(1, sp.oo), ("integer", 1, 1000))


def _thm3_check():
    m, c0v = mp.mpf(2), mp.mpf(4)
    mu_lim = m * mp.sqrt(2 / c0v)
    ts = [mp.mpf(i) / 40 for i in range(1, 40)]
    g = [mp.ncdf(-mp.sqrt(2) * mp.erfinv(2 * t - 1) - mu_lim) for t in ts]
    dists = {}
    with mp.workdps(30):
        for k in (16, 64):
            e = m / mp.sqrt(k)
            f = composed_curve_mp(k, e, e / c0v, ts)
            dists[k] = max(abs(x - y) for x, y in zip(f, g))
    ok = dists[64] < dists[16] / 1.5 and dists[64] < 0.02
    v = Verdict("holds_numerically" if ok else "fails",
                "exact k-fold composition of f_{eps,0,eta}, eps = 2/sqrt(k), eta = eps/4 (sum eps eta = 1 = "
                "mu^2/2): sup-distance to G_sqrt2 on a t-grid shrinks with k",
                points=2, worst_error=float(dists[64]), precision=30,
                note=f"sup|f_k - G_mu| = {mp.nstr(dists[16], 3)} (k=16), {mp.nstr(dists[64], 3)} (k=64)")
    if not ok:
        v.counterexample = {"k=16": mp.nstr(dists[16], 5), "k=64": mp.nstr(dists[64], 5)}
    return v


# ----------------------------------------------------------------------------- notation (Def. 5, App. G)
def _def5_check():
    """Def. 5 after (11): 'where M(D_0) ~ P_1 and M(D_1) ~ P_1'.  Read literally the pair is (P_1, P_1),
    whose ROC curve is 1 - t (d_TV = 0), so (11) would hold for every f of the definition (f(x) <= 1 - x):
    the first distribution is P_0, as in Theorem 1, Def. 4 and Corollary 1."""
    import random
    rng = random.Random(5)
    P1 = T.random_pmf(rng, 4)
    if TR.tv(P1, P1) != 0:
        return Verdict("inconclusive", "d_TV of a pmf with itself is not 0")
    return Verdict("fails", "symbol check: the pair of (11) against Theorem 1, Def. 4 and Corollary 1 "
                   "(M(D_0) ~ P_0, M(D_1) ~ P_1)",
                   counterexample={"printed": "M(D_0) ~ P_1 and M(D_1) ~ P_1", "should be": "M(D_0) ~ P_0",
                                   "as printed": "f(P_1, P_1)(t) = 1 - t >= f(t) for every f of Def. 5"},
                   note="typo: the output distribution under D_0 is P_0; with P_1 for both, (11) holds for "
                        "every mechanism")


def _appG_exponent_check():
    """App. G, after (46): the ratio is printed eps_ni (e^{eps}_{ni} + 1)/(2 (e^{eps}_{ni} - 1)): the
    subscript ni of the exponent is set on e^{eps}.  Theorem 3's array has no unindexed eps; the next line
    (claim appG.taylor) and the Taylor expansion of t (e^t + 1)/(e^t - 1) quoted there need e^{eps_ni}."""
    return Verdict("fails", "symbol check: the exponent of e against the triangular array (eps_ni, eta_ni) "
                   "of Theorem 3",
                   counterexample={"printed": "e^{eps}_{ni}", "should be": "e^{eps_ni}",
                                   "symbols of Theorem 3": "eps_ni, eta_ni (no unindexed eps)"},
                   note="typo: the subscript ni belongs to eps in the exponent, e^{eps_ni}, as the Taylor "
                        "expansion of t (e^t + 1)/(e^t - 1) that the next line uses")


P.load(__file__)  # the claims declared in sec4_5.toml (after the checks they name)
