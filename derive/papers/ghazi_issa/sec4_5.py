"""Ghazi & Issa (seed 003), Sections IV-V with Appendices G-H: subsampling
(Proposition 1 and its tightness (48)-(50)), G_mu (12), Theorem 3 (the CLT for
eps-DP with eta-TV), its proof's kl/kappa computations and the remarks after it.
"""
from __future__ import annotations

from fractions import Fraction as Fr

import mpmath as mp
import sympy as sp

from ...core import Verdict
from ...symbols import eps, mu
from ...verify import check_draws
from . import _truth as TR
from ._paper import EPSP, P, c0, c1, n
from ...symbols import alpha
from ._paper import ALPHA01, MU0, Phi
from .sec2_3 import dominating, exact_verdict

IV, V, APPG, APPH = "Sec. IV", "Sec. V", "App. G", "App. H"
PROP1_LATEX = r"\log\left(1+p\left(e^{\varepsilon}-1\right)\right),p\delta"


# ----------------------------------------------------------------------------- Proposition 1
def _random_mechanism(rng, X, m, nout=3):
    table = {}
    import itertools
    for D in itertools.combinations_with_replacement(X, m):
        table[D] = TR.random_pmf(rng, nout)
    return lambda D: table[tuple(sorted(D))]


def _prop1_check():
    def draw(rng):
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
    return check_draws(draw, "<=", n=12, tol_digits=25,
                       method="random mechanisms on X^m, subsampled without replacement to X^n (substitution "
                              "neighbours), brute force over all databases: E_{e^eps'} - p delta and TV - p eta")


P.claim("prop1.subsampling", "Prop. 1", "upper_bound",
        "Proposition 1: M o Sample_m is p eta-TV and (log(1 + p(e^eps - 1)), p delta)-DP, p = m/n",
        latex=PROP1_LATEX, section=IV, check=_prop1_check)


def _prop1_tight_check():
    cases = []
    for r in (Fr(2), Fr(3)):
        for a in (Fr(0), Fr(3, 10)):
            for d in (Fr(0), Fr(1, 10)):
                for p in (Fr(1, 4), Fr(2, 3)):
                    P0, P1 = dominating(r, a, d)
                    Pm = [p * x + (1 - p) * y for x, y in zip(P0, P1)]
                    r1 = 1 + p * (r - 1)
                    desc = {"e^eps": str(r), "alpha": str(a), "delta": str(d), "p": str(p)}
                    h = max(TR.hockey(Pm, P1, r1), TR.hockey(P1, Pm, r1))
                    # and the symmetric pair (50)
                    Pm2 = [p * y + (1 - p) * x for x, y in zip(P0, P1)]
                    h = max(h, TR.hockey(Pm2, P0, r1), TR.hockey(P0, Pm2, r1))
                    cases.append(({**desc, "what": "delta"}, h, p * d))
                    cases.append(({**desc, "what": "TV"}, TR.tv(Pm, P1), p * TR.tv(P0, P1)))
    return exact_verdict(cases, "the pairs (48)-(50) built from (43)-(44): hockey-stick at e^eps' and TV")


P.claim("prop1.tight", "(48)-(50)", "identity",
        "tightness: the subsampled dominating mechanism (48)-(50) attains p delta at eps' and TV p eta",
        latex=r"pP_{1}+(1-p)P_{0}\text{ and }P_{0}.", section=APPH, check=_prop1_tight_check)

# ----------------------------------------------------------------------------- Sec. V
P.generic("eq12.gmu", "(12)", "bound",
          "G_mu(alpha) = f(N(0,1), N(mu,1))(alpha) = Phi(Phi^{-1}(1-alpha) - mu)",
          latex=r"G_{\mu}(\alpha)=f(\mathcal{N}(0,1),\mathcal{N}(\mu,1))(\alpha),", section=V,
          params=(MU0, ALPHA01), bound=Phi(sp.sqrt(2) * sp.erfinv(1 - 2 * alpha) - mu), side="equal",
          truth=sp.Function("Tradeoff")(sp.Function("Gaussian")(mu), alpha))


def _envelope(e, n_):
    """f_{eps,0,eta} = max(0, 1 - e^eps t, 1 - eta - t, e^-eps (1 - t)) and its two kinks,
    found by root finding on the lines (not from the printed limits)."""
    e, n_ = mp.mpf(e), mp.mpf(n_)
    t1 = mp.findroot(lambda t: (1 - mp.e ** e * t) - (1 - n_ - t), n_ / 2)
    t2 = mp.findroot(lambda t: (1 - n_ - t) - mp.e ** -e * (1 - t), 1 - n_)
    return t1, t2


def _log_slope_integral(e, n_, power, absval=False):
    t1, t2 = _envelope(e, n_)
    slopes = [mp.e ** e, mp.mpf(1), mp.e ** -e]   # |f'| on [0,t1], [t1,t2], [t2,1]
    pieces = [(0, t1), (t1, t2), (t2, 1)]
    tot = mp.mpf(0)
    for (lo, hi), s in zip(pieces, slopes):
        v = mp.log(s)
        v = abs(v) if absval else v
        tot += mp.quad(lambda t: v ** power, [lo, hi])
    return tot


def _feasible_draw(rng):
    e = mp.mpf(10) ** rng.uniform(-2, 0.7)
    n_ = mp.tanh(e / 2) * mp.mpf(rng.uniform(0.01, 0.99))
    return e, n_


KL_MID_LATEX = (r"=-\left(\int_{0}^{\frac{\eta}{e^{\varepsilon}-1}}\varepsilon dt+% "
                r"\int_{1-\eta\frac{e^{\varepsilon}}{e^{\varepsilon}+1}}^{1}(-\varepsilon)dt\right)")


def _kl_mid_check():
    def draw(rng):
        e, n_ = _feasible_draw(rng)
        printed = -(e * n_ / (mp.e ** e - 1) - e * (n_ * mp.e ** e / (mp.e ** e + 1)))
        return {"varepsilon": e, "eta": n_}, -_log_slope_integral(e, n_, 1), printed
    v = check_draws(draw, "==", n=20, method="kl(f) = -int log|f'| by quadrature, kinks of f_{eps,0,eta} by "
                                               "root finding, vs the printed pair of integrals")
    if v.status == "fails":
        v.derived = sp.sympify("-(varepsilon*eta/(exp(varepsilon)-1) - varepsilon*eta*exp(varepsilon)/(exp(varepsilon)-1))")
        v.note = ("the second integral's lower limit is printed 1 - eta e^eps/(e^eps+1); the kink of "
                  "f_{eps,0,eta} is at 1 - eta e^eps/(e^eps-1) (the final value eps*eta is right)")
    return v


P.claim("appG.kl_middle", "App. G", "identity",
        "the middle line of kl(f_{eps,0,eta}): the printed integration limit 1 - eta e^eps/(e^eps+1)",
        latex=KL_MID_LATEX, section=APPG, check=_kl_mid_check)


def _kl_value_check():
    def draw(rng):
        e, n_ = _feasible_draw(rng)
        return {"varepsilon": e, "eta": n_}, -_log_slope_integral(e, n_, 1), e * n_
    return check_draws(draw, "==", n=20, method="quadrature of -log|f'| over [0,1]")


P.claim("appG.kl", "App. G", "identity", "kl(f_{eps,0,eta}) = eps eta",
        latex=r"=\varepsilon\eta.", section=APPG, check=_kl_value_check)

KAPPA2_LATEX = (r"\kappa_{2}(f_{\varepsilon,0,\eta})\vcentcolon=\int_{0}^{1}\log^{2% }\left|f_{\varepsilon,0,\eta}^{\prime}(t)\right|dt="
                r"\eta\varepsilon^{2}\frac{e^% {\varepsilon}+1}{e^{\varepsilon}-1},")
KAPPA3_LATEX = (r"\kappa_{3}(f_{\varepsilon,0,\eta})\vcentcolon=\int_{0}^{1}\left|% \log\left|f_{\varepsilon,0,\eta}^{\prime}(t)\right|\right|^{3}dt="
                r"\eta% \varepsilon^{3}\frac{e^{\varepsilon}+1}{e^{\varepsilon}-1}.")


def _kappa_check(power):
    def draw(rng):
        e, n_ = _feasible_draw(rng)
        return ({"varepsilon": e, "eta": n_}, _log_slope_integral(e, n_, power, absval=True),
                n_ * e ** power * (mp.e ** e + 1) / (mp.e ** e - 1))
    return check_draws(draw, "==", n=20, method=f"quadrature of |log|f'||^{power} over [0,1]")


P.claim("appG.kappa2", "App. G", "identity", "kappa_2(f_{eps,0,eta}) = eta eps^2 (e^eps+1)/(e^eps-1)",
        latex=KAPPA2_LATEX, section=APPG, check=lambda: _kappa_check(2))
P.claim("appG.kappa3", "App. G", "identity", "kappa_3(f_{eps,0,eta}) = eta eps^3 (e^eps+1)/(e^eps-1)",
        latex=KAPPA3_LATEX, section=APPG, check=lambda: _kappa_check(3))


P.generic("appG.taylor", "App. G", "inequality",
          "|eps(e^eps+1)/(2(e^eps-1)) - 1| <= eps^2 (the first inequality after (46))",
          latex=r"\leq\sum_{i=1}^{n}\varepsilon_{ni}\eta_{ni}\varepsilon_{ni}^{2}", section=APPG, params=(EPSP,),
          lhs=sp.Abs(eps * (sp.exp(eps) + 1) / (2 * (sp.exp(eps) - 1)) - 1), op="<=", rhs=eps ** 2)


def _c0_check():
    # eta = eps / c0 with eps_n = m/sqrt(n): sum eps eta -> m^2/c0 = mu'^2/2
    m = sp.Symbol("m", positive=True)
    total = sp.limit(n * (m / sp.sqrt(n)) * (m / sp.sqrt(n) / c0), n, sp.oo)
    mu_thm3 = sp.sqrt(2 * total)
    mu_dong = sp.sqrt(2 * sp.limit(n * (m / sp.sqrt(n)) * (m / sp.sqrt(n) / 2), n, sp.oo))
    ok = sp.simplify(mu_thm3 - mu_dong * sp.sqrt(2 / c0)) == 0
    return Verdict("proved" if ok else "fails", "SymPy: limits of sum eps eta for eta = eps/c0 and eta = eps/2")


P.claim("sec5.c0", "Sec. V", "identity",
        "with eta ~ eps/c0 Theorem 3 gives mu sqrt(2/c0) where Dong et al.'s Thm. 3.6 gives mu",
        latex=r"\mu\sqrt{\frac{2}{c_{0}}}", section=V, check=_c0_check)


def _c1_check():
    e_ni, n_ni = mu / n ** c1, mu / (2 * n ** (1 - c1))
    total = sp.simplify(n * e_ni * n_ni)
    ok = sp.simplify(total - mu ** 2 / 2) == 0 and sp.limit(e_ni.subs(c1, sp.Rational(1, 4)), n, sp.oo) == 0
    return Verdict("proved" if ok else "fails", "SymPy: n eps_ni eta_ni = mu^2/2 exactly and max eps_ni -> 0",
                   counterexample=None if ok else {"sum": str(total)})


P.claim("sec5.c1", "Sec. V", "identity",
        "eps_ni = mu/n^c1, eta_ni = mu/(2 n^{1-c1}) satisfy Theorem 3's conditions",
        latex=r"\eta_{ni}=\frac{\mu}{2n^{1-c_{1}}}", section=V, check=_c1_check)


P.generic("sec5.pure_dp", "Sec. V", "limit", "eta = (e^eps-1)/(e^eps+1) ~ eps/2 for small eps",
          latex=r"\eta=\frac{e^{\varepsilon}-1}{e^{\varepsilon}+1}\approx\frac{\varepsilon}{2}", section=V,
          params=(EPSP,), f=((sp.exp(eps) - 1) / (sp.exp(eps) + 1)) / eps, x=eps, x0=0, value=sp.Rational(1, 2))


def composed_curve_mp(k, e, n_, ts):
    """The k-fold composition of f_{eps,0,eta} at the points ts (mpmath, O(k^2)):
    privacy-loss distribution by trinomial sums, then the (j eps, delta_j) lines."""
    e, n_ = mp.mpf(e), mp.mpf(n_)
    a = 1 - n_ * (mp.e ** e + 1) / (mp.e ** e - 1)
    G = [mp.exp(TR.log_G_mp(k, e, a, d, dps=30)) for d in range(k + 1)]
    deltas = [mp.fsum(mp.e ** (d * e) * G[d] * (1 - mp.e ** ((j - d) * e)) for d in range(j + 1, k + 1))
              for j in range(k + 1)]
    out = []
    for t in ts:
        best = mp.mpf(0)
        for j, dj in enumerate(deltas):
            best = max(best, 1 - dj - mp.e ** (j * e) * t, mp.e ** (-j * e) * (1 - dj - t))
        out.append(best)
    return out


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


P.claim("thm3.clt", "(13)", "approximation",
        "Theorem 3: the n-fold composition of eps_ni-DP, eta_ni-TV mechanisms tends to G_mu when "
        "sum eps_ni eta_ni -> mu^2/2 and max eps_ni -> 0",
        latex=r"\lim_{n\rightarrow\infty}f_{n}=G_{\mu},", section=V, check=_thm3_check)
