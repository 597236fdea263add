"""Asoodeh et al. (seed 002), Section V (hypothesis-testing privacy) and Appendix H
(proof of Proposition 1), in the paper's order: the trade-off function (38), the privacy
region C_M and C(eps, delta) (39), Remark 2 (supporting lines, the Gaussian delta_eps
(40), G_mu (41)), Proposition 1 (42), Lemma 3 (43), Lemma 4 (44)-(47) with d_alpha and d,
Corollary 1 (48)-(49), the Gaussian specialisations (50)-(53), noisy SGD (54)-(55), and
Appendix H (112)-(124).

Every check computes the truth from definitions (``derive.truths``): trade-off curves by
brute force over tests (discrete pairs) or threshold tests of a monotone likelihood ratio
(continuous pairs), divergences and E_lambda by exact sums or quadrature, the Legendre
dual of a curve by ``mp_sup``.  The examples span the stated domain (any mechanism, any
pair P, Q): Gaussian, Laplace, exponential and uniform pairs, randomized response, random
pmfs, the canonical (eps, delta) pair, and the subsampled Gaussian of noisy SGD.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ...core import Verdict
from ...symbols import ALPHA, EPS, MU, RHO, SIGMA, TAU, TSTEPS, Param, alpha, eps, mu, q, sigma, T, tau
from ...verify import check_equal, hint, pick, symbolic_zero
from ... import truths as TS
from ._paper import P

V, H = "Sec. V", "App. H"
F_KINKS = (mp.mpf(2), mp.mpf(1), mp.mpf(1) / 2)   # ratios (and slopes) where TV and E_2 have kinks
DPS = TS.DPS

# ----------------------------------------------------------------------------- symbols
a_sym, b_sym = sp.Symbol("a", positive=True), sp.Symbol("b", positive=True)
beta_sym = sp.Symbol("beta", nonnegative=True)
delta_eps_sym = sp.Symbol("delta_varepsilon", nonnegative=True)
PA = Param(a_sym, sp.Interval.open(0, 1), ("uniform", 0, 1))
PB = Param(b_sym, sp.Interval.open(0, 1), ("uniform", 0, 1))
EXTRA = {"a": a_sym, "b": b_sym, "beta": beta_sym, "delta_{varepsilon}": delta_eps_sym}

Renyi, KL, Tradeoff, Swapped = (sp.Function(n) for n in ("Renyi", "KL", "Tradeoff", "Swapped"))


from ...functions import GaussTradeoff, Phi, PhiInv as Phi_inv  # noqa: E402,F401  (the one definition)

from ...truths_curves import (  # noqa: E402  (the generic truths over trade-off curves)
    P_ratio_gt as _P_ratio_gt, P_ratio_le as _P_ratio_le, any_pair as _any_pair, describe as _desc,
    draws_at_dps as _draws, intersection_boundary as _intersection_boundary, np_quantities as _np_quantities,
    sgd_loss_moments as _sgd_loss_moments, slope_integral, stieltjes)


def _u(rng, lo=0.02, hi=0.98):
    return mp.mpf(rng.uniform(lo, hi))


F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of sec5_apph.toml
eq39a, eq39b, r2_line, r2_swap, eq41, d_alpha_f, d_f, rho_q, a_range, mu55 = (
    F["sec5.eq39_line1"], F["sec5.eq39_line2"], F["sec5.remark2_line"], F["sec5.remark2_swap"],
    F["sec5.eq41"], F["sec5.d_alpha"], F["sec5.d"], F["sec5.rho_q"], F["sec5.alpha_max"], F["sec5.eq55_mu"])


def _mech_for_39(rng):
    return TS.symmetric(_any_pair(rng, ("discrete", "discrete0", "rr", "epsdelta", "gauss", "laplace")))


def _eq39_check():
    f1 = sp.lambdify([tau, eps, beta_sym], eq39a.expr, "mpmath")
    f2 = sp.lambdify([tau, eps, beta_sym], eq39b.expr, "mpmath")

    def draw(rng):
        m = _mech_for_39(rng)
        e = mp.mpf(rng.uniform(0, 2.5))
        # the least delta with C_M inside C(eps, delta), read off the printed constraints
        v = m.constraint_sup(lambda t, b: max(1 - f1(t, e, b), 1 - f2(t, e, b)))
        return _desc(m.pairs[0], varepsilon=e), max(v, 0), m.E(mp.e ** e)
    return _draws(draw, "==", 8, 39, "least delta with C_M in C(eps, delta) (mp_sup over the region's "
                  "boundary) vs the privacy profile sup_A M_d(A) - e^eps M_d'(A) (brute force over events / "
                  "quadrature of (p - e^eps q)_+), symmetric neighbouring", 9)


def _r2_np_check(rng, at=None):
    pr = _any_pair(rng, ("discrete", "rr", "epsdelta", "gauss", "laplace"), at=at)
    if isinstance(pr, TS.DPair):
        # an atom of the privacy loss at eps >= 0 (Remark 2 takes eps >= 0); at a given pair, the
        # atom nearest the one described (eps is derived from the pair)
        atoms = [r for r in pr.ratios() if 1 <= r < mp.inf]
        if not atoms:
            return None
        lam = rng.choice(atoms) if at is None else min(atoms, key=lambda r: abs(mp.log(r) - hint(at, "varepsilon")))
        t = pr.P_of(lambda r: r <= lam)
        printed = pr.Q_of(lambda r: r >= lam)
    else:
        lam = mp.mpf(10) ** rng.uniform(0, 0.8) if at is None else mp.e ** pick(at, "varepsilon", None)
        x = pr.crossing(lam)
        if x is None:
            return None
        t, printed = 1 - pr.Fp(x), pr.Fq(x)
    return _desc(pr, varepsilon=mp.log(lam), tau=t), pr.tradeoff(t), printed


def _lines(e, dl):
    f1 = sp.lambdify([tau, eps, delta_eps_sym], r2_line.expr, "mpmath")
    f2 = sp.lambdify([tau, eps, delta_eps_sym], r2_swap.expr, "mpmath")
    return (lambda t: f1(t, e, dl)), (lambda t: f2(t, e, dl))


def _support_gap(m: TS.Mechanism, e, dl):
    """(min over tau of beta_M - line, for both lines): >= 0 below C_M, = 0 when touching."""
    return [-m.constraint_sup(lambda t, b: ln(t) - b) for ln in _lines(e, dl)]


def _r2_lines_check(rng):
    """Both lines with delta_eps the sup over neighbours (the reading under which Remark 2 holds: the
    printed min is claim sec5.remark2_min), on mechanisms with two neighbouring pairs of different
    kinds and sizes, where min and sup differ: the lines can fail here."""
    p1 = _any_pair(rng, ("discrete", "rr", "epsdelta", "gauss", "laplace"))
    p2 = _any_pair(rng, ("discrete", "rr", "epsdelta", "gauss", "laplace"))
    m = TS.Mechanism([p1, p1.swapped(), p2, p2.swapped()], f"{p1.label} and {p2.label}")
    e = mp.mpf(rng.uniform(0, 2))
    lam = mp.e ** e
    dl_sup = m.E(lam)
    dl_min = min(pr.E(lam) for pr in m.pairs)
    g1, g2 = _support_gap(m, e, dl_sup)
    # a supporting line lies below C_M and touches it: the gap's minimum is 0
    return (_desc(p1, varepsilon=e, second_pair=p2.label, delta_sup=dl_sup, delta_min=dl_min,
                  gap1=g1, gap2=g2), abs(g1) + abs(g2), mp.mpf(0))


def _r2_min_check(rng, at=None):
    """Mechanisms with several neighbouring pairs: the Gaussian mechanism with output shifts of
    different sizes (sensitivity attained by one pair only)."""
    def shifts():
        m1 = mp.mpf(rng.uniform(0.2, 0.8))
        return (m1, m1 + mp.mpf(rng.uniform(0.3, 1.5)))
    m1, m2 = pick(at, "shifts", shifts)
    if not 0 < m1 < m2:
        return None
    prs = [TS.gaussian_pair(m1), TS.gaussian_pair(m2)]
    m = TS.Mechanism([prs[0], prs[0].swapped(), prs[1], prs[1].swapped()], "Gaussian, two shifts", True)
    e = pick(at, "varepsilon", lambda: mp.mpf(rng.uniform(0, 1.5)))
    dl = min(pr.E(mp.e ** e) for pr in prs)      # the printed min over d ~ d' (symmetric pairs)
    g1, _ = _support_gap(m, e, dl)
    return {"shifts": (m1, m2), "varepsilon": e, "delta_eps(min)": dl}, g1, mp.mpf(0)


def _r2_int_check(rng, at=None):
    kind = rng.choice(["asym", "asym", "rr", "sym"]) if at is None else "at"
    if kind == "at":
        pr = _any_pair(rng, at=at)
    elif kind == "rr":
        pr = TS.randomized_response(mp.mpf(rng.uniform(0.2, 2)))
    elif kind == "sym":      # a symmetric 3-point pair: Q is P reversed
        Pm = TS.random_pmf(rng, 3)
        pr = TS.DPair(Pm, Pm[::-1])
    else:
        Pm = TS.random_pmf(rng, 3)
        pr = TS.DPair(Pm, TS.random_pmf(rng, 3))
    m = TS.symmetric(pr)
    eps_set = sorted(set([mp.mpf(0)] + [abs(mp.log(r)) for r in pr.ratios() if 0 < r < mp.inf]))
    worst = None
    for k in range(1, 40):
        t = mp.mpf(k) / 40
        gap = m.tradeoff(t) - _intersection_boundary(m, t, eps_set)
        if worst is None or gap > worst[0]:
            worst = (gap, t)
    return _desc(pr, tau=worst[1]), worst[0], mp.mpf(0)

def _hull_at(verts, t):
    """The piecewise linear curve through ``verts`` (tau increasing) read at tau = t."""
    for (t1, b1), (t2, b2) in zip(verts[:-1], verts[1:]):
        if t1 <= t <= t2:
            return b1 if t2 == t1 else b1 + (b2 - b1) * (t - t1) / (t2 - t1)
    return verts[-1][1]


def _r2_conv_check(rng, at=None):
    """Remark 2 as corrected: the intersection of the regions C(eps, delta_eps) is conv C_M.  For a
    discrete pair taken in both orders, conv C_M's lower boundary is the lower convex hull of both
    trade-off curves' vertices; the intersection is read over the slopes of that hull's edges (a bridge
    between the two curves has a slope no likelihood ratio gives)."""
    kind = rng.choice(["asym", "asym", "rr", "sym"]) if at is None else "at"
    if kind == "at":
        pr = _any_pair(rng, ("discrete",), at=at)
    elif kind == "rr":
        pr = TS.randomized_response(mp.mpf(rng.uniform(0.2, 2)))
    elif kind == "sym":
        Pm = TS.random_pmf(rng, 3)
        pr = TS.DPair(Pm, Pm[::-1])
    else:
        pr = TS.DPair(TS.random_pmf(rng, 3), TS.random_pmf(rng, 3))
    if not isinstance(pr, TS.DPair):
        return None
    m = TS.symmetric(pr)
    hull = TS.lower_hull(sorted(set(pr.vertices()) | set(pr.swapped().vertices())))
    eps_set = {mp.mpf(0)}
    for (t1, b1), (t2, b2) in zip(hull[:-1], hull[1:]):
        if t2 > t1 and b1 > b2:
            eps_set.add(abs(mp.log((b1 - b2) / (t2 - t1))))
    eps_set = sorted(eps_set)
    worst = None
    for k in range(1, 40):
        t = mp.mpf(k) / 40
        gap = abs(_hull_at(hull, t) - _intersection_boundary(m, t, eps_set))
        if worst is None or gap > worst[0]:
            worst = (gap, t)
    t = worst[1]
    return _desc(pr, tau=t), _intersection_boundary(m, t, eps_set), _hull_at(hull, t)


# ----------------------------------------------------------------------------- (41)
_G = sp.lambdify([tau, mu], eq41.expr, "mpmath")


def _g_half_check():
    def draw(rng, at=None):
        s = pick(at, "sigma", lambda: mp.mpf(10) ** rng.uniform(-0.5, 0.8))
        t = pick(at, "tau", lambda: _u(rng))
        if not (s > 0 and 0 < t < 1):
            return None
        m = TS.symmetric(TS.gaussian_pair(1, s))
        return {"sigma": s, "tau": t}, m.tradeoff(t), _G(t, mp.mpf(1) / 2)
    v = _draws(draw, "==", 10, 412, "threshold tests on N(0,s^2) vs N(1,s^2) vs the printed G_{1/2}", 12)
    v.derived = GaussTradeoff(1 / sigma, tau).definition()
    if v.status == "fails":
        v.note = "G_{1/sigma} (as the caption of Fig. 6 has it); G_{1/2} is right only at sigma = 2"
    return v


def _g_sigma_check(rng):
    """Remark 2 corrected: the Gaussian mechanism's trade-off is G_{1/sigma} (Fig. 6's caption)."""
    s = mp.mpf(10) ** rng.uniform(-0.5, 0.8)
    t = _u(rng)
    return {"sigma": s, "tau": t}, TS.symmetric(TS.gaussian_pair(1, s)).tradeoff(t), _G(t, 1 / s)


# ============================================================================= Proposition 1


def _prop1_printed(pr, al):
    return mp.log(1 - pr.tradeoff(0) + slope_integral(pr, lambda s: s ** (1 - al), F_KINKS)) / (al - 1)


def _prop1_pairs(rng, at=None):
    return _any_pair(rng, ("discrete", "discrete0", "rr", "epsdelta", "gauss", "laplace", "expo", "uniform"), at=at)


def _prop1_check(rng):
    pr = _prop1_pairs(rng)
    al = 1 + mp.mpf(10) ** rng.uniform(-0.7, 0.6)
    if isinstance(pr, TS.CPair) and pr.label == "exponential" and al >= 1 / (1 - pr.params["r"]) - mp.mpf("0.05"):
        return None
    return _desc(pr, alpha=al), _prop1_printed(pr, al), pr.renyi(al)


# ============================================================================= Lemma 4, d_alpha, d
_dA = sp.lambdify([a_sym, b_sym, alpha], d_alpha_f.expr, "mpmath")


def _d_check():
    v = check_equal(lambda a, b: TS.d_kl(a, b), d_f.expr, (PA, PB), symbolic=False, n=30,
                    method="KL(Bern(a)||Bern(b)) from its definition E_P[log dP/dQ]")
    v.derived = a_sym * sp.log(a_sym / b_sym) + (1 - a_sym) * sp.log((1 - a_sym) / (1 - b_sym))
    if v.status == "fails":
        v.note = "the second logarithm's denominator is b-bar, not b (d = lim_{alpha->1} d_alpha)"
    return v


# ============================================================================= noisy SGD (54)-(55)
_rhoq = sp.lambdify([q, sigma], rho_q.expr, "mpmath")
_amax = sp.lambdify([q, sigma], a_range.expr, "mpmath")


def _rhoq_check(rng, at=None):
    s = pick(at, "sigma", lambda: mp.mpf(10) ** rng.uniform(-0.4, 0.7))
    qq = pick(at, "q", lambda: mp.mpf(10) ** rng.uniform(-4, mp.log10(1 / (16 * s))))
    if not (s > 0 and 0 < qq < 1 / (16 * s)):       # (54)'s regime q < 1/(16 sigma)
        return None
    amax = int(mp.floor(_amax(qq, s)))
    if amax < 2:
        return None
    al = rng.randint(2, min(amax, 12)) if at is None else int(at["alpha"])
    if al > amax:
        return None
    return {"sigma": s, "q": qq, "alpha": al}, TS.sgm_renyi_quad(al, qq, s), al * _rhoq(qq, s)


def _rhoq_corrected_check(rng, at=None):
    """sec5.rho_q's draw on the corrected regime: sigma in [1, 10^0.7] (the correction adds sigma >= 1),
    q and alpha over the rest of (54)'s regime."""
    if at is None:
        s = mp.mpf(10) ** rng.uniform(0, 0.7)
        qq = mp.mpf(10) ** rng.uniform(-4, mp.log10(1 / (16 * s)))
        amax = int(mp.floor(_amax(qq, s)))
        if amax < 2:
            return None
        at = {"sigma": s, "q": qq, "alpha": rng.randint(2, min(amax, 12))}
    if mp.mpf(at["sigma"]) < 1:
        return None
    return _rhoq_check(rng, at=at)


def _eq54_check(rng, at=None):
    """T = 1: the exact one-step trade-off of the subsampled Gaussian (threshold tests on the
    mixture pair) against region (54) at every admissible order."""
    s = pick(at, "sigma", lambda: mp.mpf(rng.uniform(0.42, 0.8)))   # the range of Fig. 8's claim (sigma <= 0.7)
    qq = pick(at, "q", lambda: rng.choice([mp.mpf(256) / 60000, mp.mpf(256) / 60000,
                                           mp.mpf(10) ** rng.uniform(-3, -1.3)]))
    if not (s > 0 and 0 < qq < 1 / (16 * s)):
        return None
    amax = int(mp.floor(_amax(qq, s)))
    if amax < 2:
        return None
    m = TS.symmetric(TS.subsampled_gaussian_pair(qq, s))
    worst = None
    for al in range(2, min(amax, 4) + 1):
        v = m.constraint_sup(lambda t, b: _dA(1 - t, b, al) if 0 < b < 1 - t else mp.mpf(0))
        slack = al * _rhoq(qq, s) - v
        if worst is None or slack < worst[0]:
            worst = (slack, al)
    return {"sigma": s, "q": qq, "T": 1, "alpha": worst[1]}, worst[0], mp.mpf(0)

_mu55 = sp.lambdify([q, sigma, T], mu55.expr, "mpmath")


def _eq55_check():
    """(55) is stated 'asymptotically in T' (the central limit theorem of f-DP, Dong et al. Thm. 3.5, in Bu
    et al.'s regime q sqrt(T) -> nu): the composed trade-off tends to G_mu when T KL(P||Q) -> mu^2/2 and
    T Var_P(L) -> mu^2.  Checked along T = 10^2, 10^4, 10^6 with q = nu/sqrt(T): both scaled remainders
    |2T KL/mu^2 - 1| and |T Var/mu^2 - 1| must shrink towards 0."""
    rows, worst = [], mp.mpf(0)
    for s, nu in ((mp.mpf("0.7"), mp.mpf("0.5")), (mp.mpf(1), mp.mpf(1)), (mp.mpf(2), mp.mpf(2))):
        errs = []
        for TT in (10 ** 2, 10 ** 4, 10 ** 6):
            qq = nu / mp.sqrt(TT)
            kl, var = _sgd_loss_moments(qq, s)
            m2 = _mu55(qq, s, TT) ** 2
            errs.append(max(abs(2 * TT * kl / m2 - 1), abs(TT * var / m2 - 1)))
        rows.append({"sigma": mp.nstr(s, 3), "q sqrt(T)": mp.nstr(nu, 3),
                     "remainder at T = 1e2, 1e4, 1e6": [mp.nstr(e, 3) for e in errs]})
        shrinks = errs[2] < errs[1] < errs[0] and errs[2] < mp.mpf("0.05")
        if not shrinks:
            return Verdict("fails", "CLT moments along T = 1e2, 1e4, 1e6 with q = nu/sqrt(T) (quadrature, 40 digits)",
                           points=9, precision=40, counterexample={"params": rows[-1]})
        worst = max(worst, errs[2])
    return Verdict("holds_numerically", "CLT conditions of Dong et al. Thm. 3.5 along T = 1e2, 1e4, 1e6 with q = "
                   "nu/sqrt(T): 2T KL(P||Q)/mu^2 -> 1 and T Var_P(L)/mu^2 -> 1 (quadrature, 40 digits)",
                   points=9, worst_error=float(worst), precision=40,
                   note="(55) is an asymptotic statement; at fixed small T (e.g. T = 1) G_mu is not a lower bound "
                        "on the exact curve, which the paper does not claim")

# ============================================================================= Appendix H

# f-divergence generators: (name, f, f(0), f'(oo))
F_FAMILY = (
    ("KL", lambda t: t * mp.log(t), mp.mpf(0)),
    ("TV", lambda t: abs(t - 1) / 2, mp.mpf(1) / 2),
    ("chi^2", lambda t: (t - 1) ** 2, mp.mpf(1)),
    ("Hellinger^2", lambda t: (mp.sqrt(t) - 1) ** 2, mp.mpf(1)),
    ("E_2 (hockey stick)", lambda t: max(t - 2, 0), mp.mpf(0)),
)


def _f_pick(rng, at=None):
    """An f of the family, or (at a given point) the one it names."""
    if at is not None:
        return next(f for f in F_FAMILY if f[0] == at["f"])
    return F_FAMILY[rng.randrange(len(F_FAMILY))]


def _appH_pairs(rng, at=None):
    return _any_pair(rng, ("discrete", "discrete0", "epsdelta", "rr", "gauss", "laplace", "expo", "uniform"), at=at)


def _rhs112(pr, f):
    return slope_integral(pr, lambda s: s * f(1 / s) if s > 0 else mp.mpf(0), F_KINKS)


def _eq112_check(rng, corrected=False, at=None):
    """(112) as printed, or (``corrected``) with Q's mass where dP/dQ = 0: + f(0)(1 - beta(0))."""
    pr = _appH_pairs(rng, at)
    name, f, f0 = _f_pick(rng, at)
    if isinstance(pr, TS.CPair) and pr.label == "exponential" and name in ("chi^2",) and pr.params["r"] <= mp.mpf(1) / 2:
        return None
    rhs = _rhs112(pr, f) + (f0 * (1 - pr.tradeoff(0)) if corrected else 0)
    return _desc(pr, f=name), pr.f_div(f, f0, kinks=F_KINKS) if isinstance(pr, TS.CPair) else pr.f_div(f, f0), rhs


def _eq112_corrected(rng, at=None):
    return _eq112_check(rng, corrected=True, at=at)


def _eq115_check(rng):
    pr = _any_pair(rng, ("gauss", "expo", "laplace"))
    if pr.label == "Laplace":   # the ratio is continuous only strictly between its tail values
        lo, hi = -pr.params["m"] / pr.params["b"], pr.params["m"] / pr.params["b"]
        lam = mp.e ** (lo + (hi - lo) * mp.mpf(rng.uniform(0.1, 0.9)))
    else:
        lam = mp.mpf(10) ** rng.uniform(-0.5, 0.5)
        if pr.crossing(lam) is None:
            return None
    tl = lambda l: _np_quantities(pr, l)[0]  # noqa: E731
    bl = lambda l: _np_quantities(pr, l)[1]  # noqa: E731
    return _desc(pr, lam=lam), mp.diff(tl, lam), -lam * mp.diff(bl, lam)


def _rhs_116_119(pr, lam, which):
    """The right-hand side of (116), (117), (118) or (119), computed as printed."""
    if which in (116, 117):
        if isinstance(pr, TS.DPair):
            terms = []
            for p, q in zip(pr.P, pr.Q):
                if q == 0:
                    continue
                r = p / q
                terms.append(q * (min(r, lam) if which == 117 else (r if r <= lam else lam)))
            return 1 - mp.fsum(terms)
        c = pr.crossing(lam)
        g = (lambda x: min(pr.p(x), lam * pr.q(x))) if which == 117 else \
            (lambda x: pr.p(x) if pr.p(x) <= lam * pr.q(x) else lam * pr.q(x))
        return 1 - pr.quad(g, [c] if c is not None else [])
    rk = pr.ratios() if isinstance(pr, TS.DPair) else [mp.e ** pr.log_ratio(x) for x in pr.kinks]
    if which == 118:    # P[dQ/dP >= t/lam] = P[dP/dQ <= lam/t]
        brk = [lam / r for r in rk if 0 < r < mp.inf and lam / r < 1]
        return 1 - mp.quad(lambda t: _P_ratio_le(pr, lam / t) if t > 0 else _P_ratio_le(pr, mp.inf),
                           [0] + sorted(brk) + [1])
    brk = [r for r in rk if lam < r < mp.inf]
    return lam * mp.quad(lambda t: _P_ratio_gt(pr, t) / t ** 2, [lam] + sorted(brk) + [mp.inf])


def _identity_chain_check(which, seed, n=10):
    def draw(rng):
        kinds = ("discrete", "discrete0", "rr", "epsdelta", "gauss", "laplace", "expo")
        if which in (118, 119, 120):
            kinds = ("discrete", "discrete0", "rr", "epsdelta", "gauss", "expo")
        pr = _any_pair(rng, kinds)
        lam = mp.mpf(10) ** rng.uniform(-0.8, 0.8)
        t, b = _np_quantities(pr, lam)
        lhs = 1 - t - lam * b
        if which == 120:
            return _desc(pr, lam=lam), lhs / lam, _rhs_116_119(pr, lam, 119) / lam
        return _desc(pr, lam=lam), lhs, _rhs_116_119(pr, lam, which)
    return _draws(draw, "==", n, seed, "tau_lambda, beta(tau_lambda) from the brute-force / threshold-test "
                  "trade-off; the right-hand side by exact sums or quadrature as printed", 8)


def _eq121_check(rng, corrected=False, at=None):
    """(121) as printed, or (``corrected``) with f(0) Q(dP/dQ = 0) = f(0)(1 - beta(0)) added."""
    pr = _appH_pairs(rng, at)
    name, f, f0 = _f_pick(rng, at)
    rhs = stieltjes(pr, f, F_KINKS) + (f0 * (1 - pr.tradeoff(0)) if corrected else 0)
    return _desc(pr, f=name), pr.f_div(f, f0, kinks=F_KINKS) if isinstance(pr, TS.CPair) else pr.f_div(f, f0), rhs


def _eq121_corrected(rng, at=None):
    return _eq121_check(rng, corrected=True, at=at)


def _eq123_check(rng):
    pr = _appH_pairs(rng)
    name, f, f0 = _f_pick(rng)
    return _desc(pr, f=name), stieltjes(pr, f, F_KINKS), _rhs112(pr, f)


def _chi_check(renyi: bool, corrected: bool = False):
    """(124) / App. H's Renyi form as printed, or (``corrected``) with beta(0) replaced by 1:
    chi^alpha = (int |beta'|^{1-alpha} - 1)/(alpha - 1), D_alpha = log(int |beta'|^{1-alpha})/(alpha - 1)."""
    def draw(rng, at=None):
        pr = _prop1_pairs(rng, at)
        al = pick(at, "alpha", lambda: 1 + mp.mpf(10) ** rng.uniform(-0.7, 0.6))
        if not al > 1 or (isinstance(pr, TS.CPair) and pr.label == "exponential"
                          and al >= 1 / (1 - pr.params["r"]) - mp.mpf("0.05")):
            return None
        integral = slope_integral(pr, lambda s: s ** (1 - al), F_KINKS)
        b0 = 1 if corrected else pr.tradeoff(0)
        if renyi:
            return _desc(pr, alpha=al), pr.renyi(al), mp.log(1 - b0 + integral) / (al - 1)
        chi = pr.f_div(lambda t: (t ** al - 1) / (al - 1), -1 / (al - 1))
        return _desc(pr, alpha=al), chi, (-b0 + integral) / (al - 1)
    return _draws(draw, "==", 8, 124 + renyi, ("D_alpha" if renyi else "chi^alpha") + " from its definition vs "
                  + ("the corrected formula (beta(0) -> 1)" if corrected else "the printed formula") + " over the trade-off curve", 8,
                  fail_note=("true: " + ("D_alpha = log(int_0^1 |beta'|^{1-alpha} dtau)/(alpha-1)" if renyi else
                                         "chi^alpha = (int_0^1 |beta'|^{1-alpha} dtau - 1)/(alpha-1)")
                             + "; the printed form is right only when beta(0) = 1 (Q << P)"))


P.load(__file__)  # the claims declared in sec5_apph.toml (after the checks they name)
