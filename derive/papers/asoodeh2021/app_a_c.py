"""Asoodeh et al. (seed 002), Appendices A-C: every step of the Bernoulli
reduction (56)-(64), the convex-hull argument and Theorem 3's proof (65)-(78),
and Theorem 4's proof: lower bound 1 (79)-(82), lower bound 2 (83)-(91).
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ...core import Verdict
from ...parse import parse_printed
from ...symbols import ALPHA, DELTA, EPS, P as PP, Param, Q as QQ, alpha, delta, eps, p, q
from ...verify import check_draws, check_equal
from . import _truth as TR
from ._paper import P
from .sec2_3 import objective as h1_formula, zeta

A, B, C = "App. A", "App. B", "App. C"
h1 = h1_formula.expr
EPS_POS = Param(eps, sp.Interval.open(0, sp.oo), ("loguniform", 1e-3, 10))


def _derivative_claim(cid, location, statement, latex, parse, truth, params, *, section, conditions=(),
                      symbols=None):
    """A printed derivative (or closed form) against the SymPy derivative of the defined function."""
    printed = parse_printed(parse, symbols)

    def check():
        v = check_equal(truth, printed, params, conditions=conditions, derived=None)
        if v.status == "fails":
            v.derived = sp.simplify(truth)
        return v
    return P.claim(cid, location, "derivative", statement, latex=latex, section=section, check=check)


# ----------------------------------------------------------------------------- Appendix A
def _draw_pair_lambda(rng):
    k = rng.randint(2, 7)
    Pd, Qd = TR.random_pair(rng, k)
    lam = 1 + mp.mpf(rng.uniform(0, 4))
    return k, Pd, Qd, lam


def _bernoulli_reduction(Pd, Qd, lam):
    s1 = [i for i in range(len(Pd)) if Pd[i] / Qd[i] >= lam]          # phi(x) = 1, (57)
    Pb = (mp.fsum(Pd[i] for i in s1), 1 - mp.fsum(Pd[i] for i in s1))  # (58)
    Qb = (mp.fsum(Qd[i] for i in s1), 1 - mp.fsum(Qd[i] for i in s1))  # (59)
    return Pb, Qb


def _tv(Pd, Qd, lam):
    return mp.fsum(abs(a - lam * b) for a, b in zip(Pd, Qd))


def _appA_chain():
    def draw(rng):
        k, Pd, Qd, lam = _draw_pair_lambda(rng)
        Pb, Qb = _bernoulli_reduction(Pd, Qd, lam)
        return ({"k": k, "lambda": lam}, _tv(Pd, Qd, lam), _tv(Pb, Qb, lam))
    return check_draws(draw, "==", n=40, method="||P - lam Q|| vs ||P_b - lam Q_b|| on random k-point pairs")


P.claim("appA.eq60_64", "(60)-(64)", "identity",
        "the total variation ||P - lambda Q|| is preserved by the Bernoulli quantisation phi of (57)-(59)",
        latex=r"= \|P_{\mathsf{b}} - \lambda Q_{\mathsf{b}}\|. \tag{64}", section=A, check=_appA_chain)


def _appA_eq62():
    def draw(rng):
        k, Pd, Qd, lam = _draw_pair_lambda(rng)
        Pb, Qb = _bernoulli_reduction(Pd, Qd, lam)
        return ({"k": k, "lambda": lam}, _tv(Pd, Qd, lam), Pb[0] - lam * Qb[0] + lam * Qb[1] - Pb[1])
    return check_draws(draw, "==", n=40, seed=62, method="(62) on random k-point pairs")


P.claim("appA.eq62", "(62)", "identity", "||P - lambda Q|| = P_b(1) - lambda Q_b(1) + lambda Q_b(2) - P_b(2)",
        latex=r"= P_{b}(1) - \lambda Q_{b}(1) + \lambda Q_{b}(2) - P_{b}(2)", section=A, check=_appA_eq62)


def _appA_E_tv():
    def draw(rng):
        k, Pd, Qd, lam = _draw_pair_lambda(rng)
        return ({"k": k, "lambda": lam}, TR.E(Pd, Qd, lam), _tv(Pd, Qd, lam) / 2 + (1 - lam) / 2)
    return check_draws(draw, "==", n=40, seed=65, method="definition (8) vs the stated identity on random pairs")


P.claim("appA.E_tv", "App. A", "identity", "E_lambda(P||Q) = ||P - lambda Q||/2 + (1 - lambda)/2",
        latex=r"\mathsf{E}_\lambda(P\|Q) = \frac{1}{2}\|P - \lambda Q\| + \frac{1}{2}(1 - \lambda)",
        section=A, check=_appA_E_tv)


def _appA_dpi():
    def draw(rng):
        k, Pd, Qd, lam = _draw_pair_lambda(rng)
        Pb, Qb = _bernoulli_reduction(Pd, Qd, lam)
        if min(Pb + Qb) <= 0:
            return None
        a = 1 + mp.mpf(10) ** rng.uniform(-1.5, 1.5)
        return ({"k": k, "lambda": lam, "alpha": a}, TR.renyi(Pd, Qd, a), TR.renyi(Pb, Qb, a))
    return check_draws(draw, ">=", n=40, seed=56, method="data processing for Renyi divergence on random pairs")


P.claim("appA.eq56", "(56)", "optimum",
        "the optimisation (56) is achieved by Bernoulli distributions: E_lambda is preserved and D_alpha "
        "can only decrease under the quantisation (57)-(59)",
        latex=r"\inf_{P,Q \in \mathcal{P}(\mathbb{X})} D_{\alpha}(P \| Q)", section=A, check=_appA_dpi)

# ----------------------------------------------------------------------------- Appendix B
lam_s = sp.Symbol("lambda", positive=True)
LAMW = Param(lam_s, sp.Interval(0, 1), ("uniform", 0, 1))


def bern_chi(pp, qq):
    return (pp ** alpha * qq ** (1 - alpha) + (1 - pp) ** alpha * (1 - qq) ** (1 - alpha) - 1) / (alpha - 1)


def _appB_eq68():
    def draw(rng):
        e = mp.mpf(rng.uniform(0, 2))
        lam = mp.e ** e
        qq = [mp.mpf(rng.random()) * mp.mpf("0.95") / lam for _ in range(2)]   # feasible: q e^eps < 1
        pp = [x * lam + mp.mpf(rng.random()) * (1 - x * lam) for x in qq]      # p_i >= e^eps q_i
        w = mp.mpf(rng.random())
        pl, ql = w * pp[0] + (1 - w) * pp[1], w * qq[0] + (1 - w) * qq[1]
        return ({"varepsilon": e, "weight": w}, TR.E(TR.bern(pl), TR.bern(ql), lam), pl - lam * ql)
    return check_draws(draw, "==", n=40, seed=68,
                       method="definition (8) on mixtures of feasible Bernoulli pairs (p_i >= e^eps q_i)")


P.claim("appB.eq68", "(68)", "identity",
        "E_{e^eps}(P_{b,lambda}||Q_{b,lambda}) = p_lambda - e^eps q_lambda for mixtures of feasible pairs",
        latex=r"\mathsf{E}_{e^{\varepsilon}}(P_{\mathsf{b},\lambda}\|Q_{\mathsf{b},\lambda}) = p_{\lambda} - e^{\varepsilon}q_{\lambda} \tag{68}",
        section=B, check=_appB_eq68)


def _appB_eq72():
    def draw(rng):
        a = 1 + mp.mpf(10) ** rng.uniform(-1, 1.3)
        p1, q1, p2, q2 = (mp.mpf(rng.random()) for _ in range(4))
        w = mp.mpf(rng.random())
        chi = lambda x, y: (x ** a * y ** (1 - a) + (1 - x) ** a * (1 - y) ** (1 - a) - 1) / (a - 1)  # noqa: E731
        return ({"alpha": a, "weight": w}, w * chi(p1, q1) + (1 - w) * chi(p2, q2),
                chi(w * p1 + (1 - w) * p2, w * q1 + (1 - w) * q2))
    return check_draws(draw, ">=", n=60, seed=72, method="joint convexity of chi^alpha at random Bernoulli pairs")


P.claim("appB.eq72", "(72)", "convexity", "chi^alpha is jointly convex (the step (71) -> (72))",
        latex=r"\geq \chi^{\alpha} (P_{\mathsf{b},\lambda} \| Q_{\mathsf{b},\lambda}) \tag{72}", section=B,
        check=_appB_eq72)


def _appB_eq73():
    # gamma-tilde(delta) = chi(gamma_alpha^eps(delta)) is convex in delta (the conclusion of (71)-(73))
    def draw(rng):
        a = 1 + mp.mpf(10) ** rng.uniform(-1, 1.5)
        e = mp.mpf(rng.uniform(0, 3))
        d = mp.mpf(10) ** rng.uniform(-6, -0.2)
        h = d * mp.mpf(rng.uniform(0.05, 0.4))
        gt = [(mp.e ** ((a - 1) * TR.gamma_exact(a, e, x)) - 1) / (a - 1) for x in (d - h, d, d + h)]
        return ({"alpha": a, "varepsilon": e, "delta": d, "h": h}, gt[0] - 2 * gt[1] + gt[2], mp.mpf(0))
    return check_draws(draw, ">=", n=25, tol_digits=18, seed=73,
                       method="second differences of chi(gamma_exact(delta)) at 30 digits (same draws law as (18))")


P.claim("appB.eq73", "(73)", "convexity",
        "delta -> gamma-tilde(delta) (the least chi^alpha value with E_{e^eps} >= delta) is convex",
        latex=r"\geq \widetilde{\gamma}(\lambda \delta_1 + \bar{\lambda} \delta_2). \tag{73}", section=B,
        check=_appB_eq73)

H_LATEX = r"\gamma_{\alpha}^{\varepsilon}(\delta) = \inf_{0 < q < p < 1} \frac{1}{\alpha - 1} \log \left(p^{\alpha} q^{1 - \alpha} + \bar{p}^{\alpha} \bar{q}^{1 - \alpha} \right)"
h_pq = P.formula("appB.h", "(75)", H_LATEX,
                 parse=r"\frac{1}{\alpha - 1} \log \left(p^{\alpha} q^{1 - \alpha} + \bar{p}^{\alpha} \bar{q}^{1 - \alpha} \right)",
                 role="definition", quantity=r"h(p,q;\alpha)", lhs=r"h(p,q;\alpha)", params=(ALPHA, PP, QQ),
                 section=B, description="objective of the two-parameter Bernoulli program (75)")


def _appB_eq75():
    # chi^{-1}(chi^alpha(Bern p || Bern q)) from the definitions equals the printed objective
    chi_inv = lambda x: sp.log(1 + (alpha - 1) * x) / (alpha - 1)  # noqa: E731
    truth = chi_inv(bern_chi(p, q))
    return check_equal(truth, h_pq.expr, (ALPHA, PP, QQ))


P.claim("appB.eq75", "(75)", "identity",
        "expanding chi^alpha for Bernoulli pairs: chi^{-1}(chi^alpha(P_b||Q_b)) is the objective of (75)",
        latex=H_LATEX, section=B, formulas=("appB.h",), check=_appB_eq75)

EQ76_LATEX = r"\frac{\partial h(p,q;\alpha)}{\partial q} = \frac{p^{\alpha}q^{-\alpha} - (1-p)^{\alpha}(1-q)^{-\alpha}}{p^{\alpha}q^{1-\alpha} + (1-p)^{\alpha}(1-q)^{1-\alpha}},"
_d76 = parse_printed(r"\frac{p^{\alpha}q^{-\alpha} - (1-p)^{\alpha}(1-q)^{-\alpha}}{p^{\alpha}q^{1-\alpha} + (1-p)^{\alpha}(1-q)^{1-\alpha}}")


def _appB_eq76():
    truth = sp.diff(h_pq.expr, q)
    v = check_equal(truth, _d76, (ALPHA, PP, QQ), conditions=(q < p,))
    if v.status == "fails":
        v.derived = sp.factor(sp.simplify(truth))
        v.note = "the printed derivative has the opposite sign of the true one (it is positive for q < p)"
    return v


P.claim("appB.eq76", "(76)", "derivative", "the partial derivative of h(p,q;alpha) in q",
        latex=EQ76_LATEX, section=B, formulas=("appB.h",), check=_appB_eq76)
P.generic("appB.eq76_sign", "(76)", "inequality", "dh/dq is negative for all 0 < q < p < 1, so h is decreasing in q", shown_kind="sign",
          latex=r"which is negative for all 0 < q < p < 1, and therefore, $h(p,q;\alpha)$ is decreasing in q.", section=B, formulas=("appB.h",),
          params=(ALPHA, PP, QQ), conditions=(q < p,),
          lhs=sp.diff(h_pq.expr, q), op="<", rhs=sp.Integer(0))


def _appB_eq77():
    def draw(rng):
        e = mp.mpf(rng.uniform(0, 2))
        d = mp.mpf(rng.random()) * mp.mpf("0.9")
        pp, qq = mp.mpf(rng.random()), mp.mpf(rng.random())
        lhs = (0 < qq < pp < 1) and (pp - qq * mp.e ** e >= d)
        rhs = (d < pp < 1) and (0 < qq <= (pp - d) / mp.e ** e)
        return ({"p": pp, "q": qq, "delta": d, "varepsilon": e}, mp.mpf(int(lhs)), mp.mpf(int(rhs)))
    return check_draws(draw, "==", n=400, seed=77,
                       method="both constraint sets evaluated at 400 random (p, q, delta, eps)")


P.claim("appB.eq77", "(77)", "identity",
        "the constraints 0 < q < p < 1, p - q e^eps >= delta are equivalent to delta < p < 1, "
        "0 < q <= (p - delta)/e^eps (the display (77) is truncated in the dump; the claim is the text's)",
        latex=r"the two constraints 0 < q < p < 1 and $p - qe^{\varepsilon} \ge \delta$ in (75) can be equivalently rewritten as",
        section=B, check=_appB_eq77,
        note="the seed dump loses the body of display (77); the text around it states the equivalence")

EQ78_LATEX = r"e^{(\alpha-1)\left(\gamma_{\alpha}^{\varepsilon}(\delta)-\varepsilon\right)} = \inf_{p \in (\delta,1)} p^{\alpha} (p-\delta)^{1-\alpha} + \bar{p}^{\alpha} \left(e^{\varepsilon} - p + \delta\right)^{1-\alpha}, \tag{78}"
_o78 = parse_printed(r"p^{\alpha} (p-\delta)^{1-\alpha} + \bar{p}^{\alpha} \left(e^{\varepsilon} - p + \delta\right)^{1-\alpha}")


def _appB_eq78():
    at = sp.exp((alpha - 1) * (h_pq.expr.subs(q, (p - delta) * sp.exp(-eps)) - eps))
    return check_equal(at, _o78, (ALPHA, EPS, DELTA, PP), conditions=(p > delta,),
                       method="e^{(alpha-1)(h - eps)} at q = (p - delta) e^-eps vs the printed objective")


P.claim("appB.eq78", "(78)", "identity",
        "substituting the optimal q = (p - delta)/e^eps into (75) gives the objective of (78) and Theorem 3",
        latex=EQ78_LATEX, section=B, formulas=("appB.h", "thm3.objective"), check=_appB_eq78)

# ----------------------------------------------------------------------------- Appendix C
P.generic("appC.h1_convex", "App. C", "inequality", "p -> h_1(p; alpha, delta, eps) is convex for alpha > 1, delta in [0,1), eps > 0", shown_kind="convexity",
          latex=r"the mapping $p \mapsto h_1(p; \alpha, \delta, \varepsilon)$ is convex", section=C, formulas=("thm3.objective",),
          params=(ALPHA, EPS_POS, DELTA, PP), conditions=(p > delta,),
          lhs=sp.diff(h1, p, 2), op=">=", rhs=sp.Integer(0))

first_term = p ** alpha * (p - delta) ** (1 - alpha)
EQ79_LATEX = r"e^{(\alpha-1)\left(\gamma_{\alpha}^{\varepsilon}(\delta)-\varepsilon\right)} \ge \inf_{p\in(\delta,1)} p^{\alpha}(p-\delta)^{1-\alpha}"


def _appC_eq79():
    def draw(rng):
        a = 1 + mp.mpf(10) ** rng.uniform(-1, 1.5)
        e = mp.mpf(rng.uniform(0, 3))
        d = mp.mpf(10) ** rng.uniform(-8, -0.1)
        lhs = mp.e ** ((a - 1) * (TR.gamma_exact(a, e, d) - e))
        from ...verify import mp_minimize
        _, rhs = mp_minimize(lambda x: x ** a * (x - d) ** (1 - a), d, 1, grid=120, iters=160)
        return ({"alpha": a, "varepsilon": e, "delta": d}, lhs, rhs)
    return check_draws(draw, ">=", n=20, tol_digits=20, seed=79,
                       method="exact gamma vs the minimum of the first term, both at 30 digits")


P.claim("appC.eq79", "(79)", "inequality", "lower bound 1: drop the second term of h_1",
        latex=EQ79_LATEX, section=C, check=_appC_eq79)

D2_LATEX = r"(\alpha - 1)\alpha \left(p^{\frac{\alpha}{2}}(p - \delta)^{\frac{-1-\alpha}{2}} - p^{\frac{\alpha-2}{2}}(p - \delta)^{\frac{1-\alpha}{2}}\right)^2 \ge 0,"
_d2 = parse_printed(D2_LATEX.rstrip(",").replace(r" \ge 0", ""))
P.generic("appC.d2_first", "App. C", "identity", "the second derivative of p^alpha (p - delta)^{1-alpha} in p, written as a square", shown_kind="derivative",
          latex=D2_LATEX, section=C,
          params=(ALPHA, DELTA, PP), conditions=(p > delta,),
          lhs=sp.diff(first_term, p, 2), rhs=_d2, truth_side="lhs")


def _appC_pstar():
    d1 = sp.diff(first_term, p)
    sols = sp.solve(sp.expand_power_base(sp.powsimp(sp.simplify(d1 / (p ** (alpha - 1) * (p - delta) ** (-alpha))),
                                                    force=True), force=True), p)
    if sols == [alpha * delta]:
        return Verdict("proved", "SymPy: the stationary point of the first term solves to p = alpha*delta",
                       derived=alpha * delta)
    return check_equal(sp.Integer(0), d1.subs(p, alpha * delta), (ALPHA, DELTA),
                       method="derivative of the first term at p = alpha*delta")


P.claim("appC.pstar", "App. C", "optimum", "the unconstrained optimiser of the first term is p* = alpha*delta",
        latex=r"$p^* = \alpha \delta$", section=C, check=_appC_pstar)

EQ80_LATEX = r"e^{(\alpha-1)(\gamma_{\alpha}^{\varepsilon}(\delta)-\varepsilon)} \ge \left(\delta\alpha^{\alpha}(\alpha-1)^{1-\alpha}\right)\mathbf{1}\{\alpha\delta < 1\} + \left((1-\delta)^{1-\alpha}\right)\mathbf{1}\{\alpha\delta \ge 1\} \quad (80)"
_v80a = parse_printed(r"\delta\alpha^{\alpha}(\alpha-1)^{1-\alpha}")
_v80b = parse_printed(r"(1-\delta)^{1-\alpha}")


def _appC_eq80():
    from ...verify import mp_minimize
    fa = sp.lambdify([alpha, delta], _v80a, "mpmath")
    fb = sp.lambdify([alpha, delta], _v80b, "mpmath")

    def draw(rng):
        a = 1 + mp.mpf(10) ** rng.uniform(-1, 1.5)
        d = mp.mpf(10) ** rng.uniform(-8, -0.01)
        _, m = mp_minimize(lambda x: x ** a * (x - d) ** (1 - a), d, 1, grid=120, iters=160)
        if a * d >= 1:
            m = min(m, 1 ** a * (1 - d) ** (1 - a))  # the closed end p = 1 of (delta, 1]
        return ({"alpha": a, "delta": d}, m, fa(a, d) if a * d < 1 else fb(a, d))
    return check_draws(draw, "==", n=30, tol_digits=18, seed=80,
                       method="numeric minimum of the first term over p vs the printed value, both cases")


P.claim("appC.eq80", "(80)", "optimum",
        "the minimum of the first term is delta alpha^alpha (alpha-1)^{1-alpha} if alpha*delta < 1, "
        "(1-delta)^{1-alpha} otherwise (p* = min{alpha delta, 1})",
        latex=EQ80_LATEX, section=C, check=_appC_eq80)

EQ81_LATEX = r"\gamma_{\alpha}^{\varepsilon}(\delta) \ge \varepsilon - \frac{1}{\alpha - 1} \log \left(\frac{1}{\delta \alpha} \left(1 - \frac{1}{\alpha} \right)^{\alpha - 1} \right)"
_b81 = parse_printed(r"\varepsilon - \frac{1}{\alpha - 1} \log \left(\frac{1}{\delta \alpha} \left(1 - \frac{1}{\alpha} \right)^{\alpha - 1} \right)")
P.generic("appC.eq81", "(81)", "identity", "(80) solved for gamma in the case alpha*delta < 1", shown_kind="identity",
          latex=EQ81_LATEX, section=C,
          params=(ALPHA, EPS, DELTA), conditions=(alpha * delta < 1,),
          lhs=eps + sp.log(_v80a) / (alpha - 1), rhs=_b81, truth_side="lhs")
P.generic("appC.eq82", "(82)", "identity", "(81) rewritten with zeta_alpha", shown_kind="identity",
          latex=r"= \varepsilon - \frac{1}{\alpha - 1} \log \frac{\zeta_{\alpha}}{\delta}.", section=C, formulas=("thm4.zeta",),
          params=(ALPHA, EPS, DELTA),
          lhs=_b81, rhs=eps - sp.log(zeta.expr / delta) / (alpha - 1), truth_side="lhs")

P.generic("appC.h1_convex_delta", "App. C", "inequality", "h_1(p; alpha, delta, eps) is convex in delta", shown_kind="convexity",
          latex=r"the function $h_1(p; \alpha, \delta, \varepsilon)$ is convex in δ", section=C,
          params=(ALPHA, EPS, DELTA, PP), conditions=(p > delta,),
          lhs=sp.diff(h1, delta, 2), op=">=", rhs=sp.Integer(0))

LIN_LATEX = r"&= p + (\alpha-1)\delta + \left(\frac{1-p}{e^\varepsilon - p}\right)^\alpha \\ &\quad \times \left(e^\varepsilon - p - (\alpha-1)\delta\right),"
_lin = parse_printed(r"p + (\alpha-1)\delta + \left(\frac{1-p}{e^\varepsilon - p}\right)^\alpha \left(e^\varepsilon - p - (\alpha-1)\delta\right)")
_lin_true = h1.subs(delta, 0) + sp.diff(h1, delta).subs(delta, 0) * delta
P.generic("appC.linearisation", "App. C", "identity", "the linearisation of h_1 at delta = 0: h_1(delta=0) + d h_1/d delta (delta=0) * delta", shown_kind="derivative",
          latex=LIN_LATEX, section=C,
          params=(ALPHA, EPS, DELTA, PP), conditions=(p > delta,),
          lhs=_lin_true, rhs=_lin, truth_side="lhs")

EQ83_LATEX = r"e^{(\alpha-1)\left(\gamma_{\alpha}^{\varepsilon}(\delta)-\varepsilon\right)} \ge \inf_{p \in (\delta,1)} \left(1 - \left(\frac{1-p}{e^{\varepsilon}-p}\right)^{\alpha}\right) p + \left(\frac{1-p}{e^{\varepsilon}-p}\right)^{\alpha} \times \left(e^{\varepsilon} - (\alpha-1)\delta\right) + (\alpha-1)\delta. \tag{83}"
h2 = parse_printed(r"\left(1 - \left(\frac{1-p}{e^{\varepsilon}-p}\right)^{\alpha}\right) p + \left(\frac{1-p}{e^{\varepsilon}-p}\right)^{\alpha} \left(e^{\varepsilon} - (\alpha-1)\delta\right) + (\alpha-1)\delta")
P.generic("appC.eq83", "(83)", "identity", "h_2 (the objective of (83)) is the linearisation of h_1 rearranged", shown_kind="identity",
          latex=EQ83_LATEX, section=C,
          params=(ALPHA, EPS, DELTA, PP), conditions=(p > delta,),
          lhs=_lin_true, rhs=h2, truth_side="lhs")
P.generic("appC.eq83_bound", "(83)", "inequality", "h_1 >= h_2 (convexity in delta), equality iff delta = 0", shown_kind="inequality",
          latex=r"with equality if and only if $\delta = 0$. Therefore, we have", section=C,
          params=(ALPHA, EPS, DELTA, PP), conditions=(p > delta,),
          lhs=h1, op=">=", rhs=h2)

H3_LATEX = r"\frac{\partial h_2(p;\alpha,\delta,\varepsilon)}{\partial p} = 1 + \left(\frac{1-p}{e^{\varepsilon}-p}\right)^{\alpha} \\"
h3 = parse_printed(r"1 + \left(\frac{1-p}{e^{\varepsilon}-p}\right)^{\alpha} \left(\frac{\alpha(e^{\varepsilon}-1)(p+(\alpha-1)\delta-e^{\varepsilon})}{(e^{\varepsilon}-p)(1-p)} - 1\right)")
h4 = parse_printed(r"1 + \left(\frac{1-p}{e^{\varepsilon}-p}\right)^{\alpha} \left(-\frac{\alpha(e^{\varepsilon}-1)}{1-p} - 1\right)")


def _appC_h3():
    v = check_equal(sp.diff(h2, p), h3, (ALPHA, EPS, DELTA, PP), conditions=(p > delta,))
    if v.status == "fails":
        v.derived = sp.simplify(sp.diff(h2, p))
    return v


P.claim("appC.h3", "(84)", "derivative", "h_3 := d h_2/d p as printed",
        latex=H3_LATEX, section=C, check=_appC_h3)
P.generic("appC.h3_increasing_delta", "(84)", "inequality", "h_3 is increasing in delta", shown_kind="monotonicity",
          latex=r"the function $h_3(p; \alpha, \delta, \varepsilon)$ is increasing in δ", section=C,
          params=(ALPHA, EPS, DELTA, PP), conditions=(p > delta,),
          lhs=sp.diff(h3, delta), op=">=", rhs=sp.Integer(0))
P.generic("appC.h4", "(84)", "identity", "h_3 at delta = 0 is h_4", shown_kind="identity",
          latex=r"h_3(p; \alpha, \delta, \varepsilon) \ge h_3(p; \alpha, \delta = 0, \varepsilon) = h_4(p; \alpha, \varepsilon)", section=C,
          params=(ALPHA, EPS, PP),
          lhs=h3.subs(delta, 0), rhs=h4, truth_side="lhs")
DH4_LATEX = r"\frac{\partial h_4(p;\alpha,\varepsilon)}{\partial p} = \alpha(\alpha - 1) (e^{\varepsilon} - 1)^2 \bar{p}^{\alpha - 2} (e^{\varepsilon} - p)^{-\alpha - 1} > 0"
_dh4 = parse_printed(r"\alpha(\alpha - 1) (e^{\varepsilon} - 1)^2 \bar{p}^{\alpha - 2} (e^{\varepsilon} - p)^{-\alpha - 1}")
P.generic("appC.dh4", "(85)", "identity", "d h_4/d p = alpha(alpha-1)(e^eps-1)^2 (1-p)^{alpha-2} (e^eps-p)^{-alpha-1} > 0", shown_kind="derivative",
          latex=DH4_LATEX, section=C,
          params=(ALPHA, EPS, PP),
          lhs=sp.diff(h4, p), rhs=_dh4, truth_side="lhs")
EQ86_LATEX = r"= \frac{(e^{\varepsilon}-\delta)^{\alpha} - \bar{\delta}^{\alpha} - \alpha(e^{\varepsilon}-1)\bar{\delta}^{\alpha-1}}{(e^{\varepsilon}-\delta)^{\alpha}} (86)"
_v86 = parse_printed(r"\frac{(e^{\varepsilon}-\delta)^{\alpha} - \bar{\delta}^{\alpha} - \alpha(e^{\varepsilon}-1)\bar{\delta}^{\alpha-1}}{(e^{\varepsilon}-\delta)^{\alpha}}")
P.generic("appC.eq86", "(86)", "identity", "h_4 at p = delta", shown_kind="identity",
          latex=EQ86_LATEX, section=C,
          params=(ALPHA, EPS, DELTA),
          lhs=h4.subs(p, delta), rhs=_v86, truth_side="lhs")
h5 = parse_printed(r"(e^{\varepsilon}-\delta)^{\alpha} - \bar{\delta}^{\alpha} - \alpha(e^{\varepsilon}-1)\bar{\delta}^{\alpha-1}")
DH5_LATEX = r"\frac{\partial h_5(\delta, \alpha, \varepsilon)}{\partial \varepsilon} = \alpha e^{\varepsilon} \Big(\big(e^{\varepsilon} - \delta \big)^{\alpha - 1} - (1 - \delta)^{\alpha - 1} \Big) \ge 0"
_dh5 = parse_printed(r"\alpha e^{\varepsilon} \Big(\big(e^{\varepsilon} - \delta \big)^{\alpha - 1} - (1 - \delta)^{\alpha - 1} \Big)")
P.generic("appC.dh5", "(88)", "identity", "d h_5/d eps = alpha e^eps ((e^eps - delta)^{alpha-1} - (1-delta)^{alpha-1})", shown_kind="derivative",
          latex=DH5_LATEX, section=C,
          params=(ALPHA, EPS, DELTA),
          lhs=sp.diff(h5, eps), rhs=_dh5, truth_side="lhs")
P.generic("appC.eq88", "(88)", "identity", "h_5(delta, alpha, eps = 0) = 0", shown_kind="value",
          latex=r"\geq \frac{h_5(\delta, \alpha, \varepsilon = 0)}{(e^{\varepsilon} - \delta)^{\alpha}} = 0, \tag{88}", section=C,
          params=(ALPHA, DELTA),
          lhs=h5.subs(eps, 0), rhs=sp.Integer(0), truth_side="lhs")
P.generic("appC.h2_increasing", "(88)", "inequality", "the objective h_2 of (83) is increasing in p on (delta, 1) (the conclusion of (84)-(88))", shown_kind="monotonicity",
          latex=r"Therefore, the objective function $h_2(p; \alpha, \delta, \varepsilon)$ in (83) is increasing in p", section=C,
          params=(ALPHA, EPS, DELTA, PP), conditions=(p > delta,),
          lhs=sp.diff(h2, p), op=">=", rhs=sp.Integer(0))
EQ89_LATEX = r"= \alpha\delta + \left(\frac{1-\delta}{e^{\varepsilon}-\delta}\right)^{\alpha} \left(e^{\varepsilon}-\alpha\delta\right)"
_v89 = parse_printed(EQ89_LATEX.lstrip("= "))
P.generic("appC.eq89", "(89)", "identity", "h_2 at p = delta", shown_kind="identity",
          latex=EQ89_LATEX, section=C,
          params=(ALPHA, EPS, DELTA),
          lhs=h2.subs(p, delta), rhs=_v89, truth_side="lhs")
EQ91_LATEX = r"\gamma_{\alpha}^{\varepsilon}(\delta) \ge \varepsilon + \frac{1}{\alpha - 1} \log \left(\alpha \delta + \left(\frac{1 - \delta}{e^{\varepsilon} - \delta} \right)^{\alpha} \left(e^{\varepsilon} - \alpha \delta \right) \right)"
_b91 = parse_printed(r"\varepsilon + \frac{1}{\alpha - 1} \log \left(\alpha \delta + \left(\frac{1 - \delta}{e^{\varepsilon} - \delta} \right)^{\alpha} \left(e^{\varepsilon} - \alpha \delta \right) \right)")
def P_f_expr():
    from .sec2_3 import f
    return f.expr


P.generic("appC.eq91", "(91)", "identity", "(91) is Theorem 4's f as stated in (23)", shown_kind="identity",
          latex=EQ91_LATEX, section=C, formulas=("thm4.f",),
          params=(ALPHA, EPS, DELTA),
          lhs=_b91, rhs=P_f_expr(), truth_side="lhs")

