"""Asoodeh et al. (seed 002), Section IV: the moments accountant (26)-(27), the
Gaussian mechanism's RDP (28) and MA bound (29), the improved accountant (30),
Lemma 2 (31)-(33), the MA variance (34)-(36), Theorem 5 and the variance
reduction quoted after it - in the paper's order.

Independent truths used here, besides ``derive.truths_pmf``: the exact privacy profile of
the T-fold Gaussian mechanism, delta(eps) = E_{e^eps}(N(mu,1) || N(0,1)) with
mu = sqrt(T)/sigma = sqrt(2 rho T), computed by quadrature of the hockey-stick
definition (8) (adaptive composition of Gaussian mechanisms is dominated by
this pair of Gaussians); an upper bound B on eps_alpha^delta(gamma) is checked
as gamma_alpha^B(delta) >= gamma (one exact conversion, since
eps -> gamma_alpha^eps(delta) is increasing), which avoids a bisection.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ...core import Verdict
from ...parse import parse_printed
from ...symbols import ALPHA, DELTA, EPS, RHO, SIGMA, TSTEPS, L, T, alpha, delta, eps, rho, sigma
from ...verify import (check_draws, check_equal, mp_minimize, mp_sup, pick, symbolic_zero)
from ... import truths, truths_pmf as TR
from ._paper import P
from ...evidence import asymptotic_residual  # noqa: F401  (app_d_g and the tests use it from here)

IV = "Sec. IV"

ZETA = (1 / alpha) * (1 - 1 / alpha) ** (alpha - 1)  # zeta_alpha of Theorem 4 (sec2_3's thm4.zeta)
TO_L = {delta: sp.exp(-L)}                            # L = log(1/delta)


def _above_one(root) -> bool:
    """Is a stationary point (in eps, rho, T, L) above 1?  SymPy's sign test first, then
    a numeric test at fixed sample values (used only to pick the branch of a quadratic)."""
    if sp.simplify(root - 1).is_positive:
        return True
    vals = {eps: sp.Rational(7, 10), rho: sp.Rational(1, 50), T: 30, L: sp.Rational(23, 2)}
    v = sp.N(root.xreplace(vals), 30)
    return bool(v.is_real and v > 1)


def _in_L(expr):
    """Rewrite an expression in delta with L = log(1/delta)."""
    return sp.expand_log(sp.sympify(expr).xreplace(TO_L), force=True)


# ----------------------------------------------------------------------------- shared truths
from ...truths import gauss_delta  # noqa: E402,F401  (delta(eps) of N(mu,1) vs N(0,1) by quadrature)


def renyi_quad(a, s, m, dps: int = 25):
    """``truths_pmf.gaussian_renyi_quad`` at ``dps`` digits (quadrature is the slow part)."""
    with mp.workdps(dps):
        return +TR.gaussian_renyi_quad(a, s, m)


def eps_upper_ok(a, bound, gam, d):
    """(lhs, rhs) such that lhs >= rhs iff eps_alpha^delta(gam) <= bound (exact conversion)."""
    return truths.gamma_exact(a, max(bound, 0), d), gam


def _draw_rho_T_delta(rng, rt=(-3, 1), dl=(-10, -2)):
    r = mp.mpf(10) ** rng.uniform(-4, 0)
    tt = mp.mpf(10) ** rng.uniform(*rt) / r
    d = mp.mpf(10) ** rng.uniform(*dl)
    return r, tt, d


# ----------------------------------------------------------------------------- (26)-(27)


def _ma_delta(e, r, tt):
    """(26) for the Gaussian mechanism, gamma(alpha) = rho alpha: inf over alpha > 1."""
    _, v = mp_minimize(lambda a: mp.e ** (-(a - 1) * (e - r * a * tt)), 1, 1 + 10 ** 6)
    return v


def _ma_eps(r, tt, d):
    """(27) for the Gaussian mechanism: inf over alpha > 1, numerically."""
    return mp_minimize(lambda a: r * a * tt - mp.log(d) / (a - 1), 1, 1 + 10 ** 8)


def _eq26_check(rng):
    r, tt, _ = _draw_rho_T_delta(rng)
    e = mp.mpf(10) ** rng.uniform(-1, 1.2)
    d = _ma_delta(e, r, tt)
    if not (0 < d < 1):
        return None
    return ({"rho": r, "T": tt, "varepsilon": e, "delta_26": d}, d, gauss_delta(e, mp.sqrt(2 * r * tt)))


def _eq27_check(rng):
    r, tt, d = _draw_rho_T_delta(rng)
    _, e = _ma_eps(r, tt, d)
    back = _ma_delta(e, r, tt)
    return ({"rho": r, "T": tt, "delta": d, "varepsilon_27": e}, back, d)


# ----------------------------------------------------------------------------- (28)
EQ28_LATEX = (r"\sup_{d \sim d'} D_{\alpha}(\mathcal{M}_d \| \mathcal{M}_{d'}) = \frac{\alpha}{2\sigma^2} "
              r"\sup_{d \sim d'} \left\| f(d) - f(d') \right\|_2 = \frac{\alpha}{2\sigma^2},")
F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of sec4.toml
eq28, eq29, eps0_obj, eps1_obj, third, eq35, eq36, thm5, reduction = (
    F["eq28"], F["eq29"], F["lemma2.eps0_objective"], F["lemma2.eps1_objective"], F["lemma2.third"],
    F["sec4.eq35"], F["sec4.eq36"], F["sec4.thm5"], F["sec4.reduction"])
DELTA2 = sp.Symbol("Delta_2", positive=True)  # the L2-sensitivity sup ||f(d) - f(d')||_2


def _eq28_norm_check():
    fp = sp.lambdify([alpha, sigma, DELTA2], eq28.expr * DELTA2, "mpmath")  # printed: alpha/(2 s^2) * Delta

    def draw(rng, at=None):
        a = pick(at, "alpha", lambda: 1 + mp.mpf(10) ** rng.uniform(-1, 1.5))
        s = pick(at, "sigma", lambda: mp.mpf(10) ** rng.uniform(-0.5, 1))
        m = pick(at, "Delta_2", lambda: mp.mpf(rng.choice([rng.uniform(0.2, 0.9), rng.uniform(1.2, 5)])))
        if not (a > 1 and s > 0 and m > 0):
            return None
        return ({"alpha": a, "sigma": s, "Delta_2": m}, renyi_quad(a, s, m), fp(a, s, m))
    v = check_draws(draw, "==", n=6, seed=28, tol_digits=12,
                    method="quadrature (25 digits) of D_alpha(N(Delta,s^2)||N(0,s^2)) (definition (1)) "
                           "at non-unit shifts")
    v.derived = alpha * DELTA2 ** 2 / (2 * sigma ** 2)
    if v.status == "fails":
        v.note = "the sensitivity enters squared: alpha ||f(d)-f(d')||_2^2/(2 sigma^2)"
    return v


def _eq28_unit_check():
    fp = sp.lambdify([alpha, sigma], eq28.expr, "mpmath")

    def draw(rng):
        a = 1 + mp.mpf(10) ** rng.uniform(-2, 2)
        s = mp.mpf(10) ** rng.uniform(-0.5, 1.5)
        return ({"alpha": a, "sigma": s}, renyi_quad(a, s, 1), fp(a, s))
    return check_draws(draw, "==", n=8, seed=281, tol_digits=12,
                       method="quadrature (25 digits) of D_alpha(N(1,s^2)||N(0,s^2)) (definition (1))")

# ----------------------------------------------------------------------------- (29)
EQ29_LATEX = (r"\varepsilon = \inf_{\alpha > 1} \gamma(\alpha) T - \frac{1}{\alpha - 1} \log \delta = "
              r"\rho T + \sqrt{4\rho T \log \frac{1}{\delta}}.")
MA_OBJ = rho * alpha * T - sp.log(delta) / (alpha - 1)  # the objective of (29), gamma(alpha) = rho alpha


def _eq29_check():
    fe = sp.lambdify([rho, T, delta], eq29.expr, "mpmath")
    fo = sp.lambdify([alpha, rho, T, delta], MA_OBJ, "mpmath")

    def draw(rng):
        r, tt, d = _draw_rho_T_delta(rng)
        _, v = mp_minimize(lambda a: fo(a, r, tt, d), 1, 1 + 10 ** 8)
        return ({"rho": r, "T": tt, "delta": d}, v, fe(r, tt, d))
    num = check_draws(draw, "==", n=12, seed=29, tol_digits=20,
                      method="mp_minimize of the objective over alpha > 1 at 50 digits")
    if num.status != "holds_numerically":
        num.derived = None
        return num
    # symbolic: the objective is convex in alpha > 1 (second derivative 2L/(alpha-1)^3), so its
    # stationary point in alpha > 1 is the infimum
    obj = _in_L(MA_OBJ)
    d1 = sp.diff(obj, alpha)
    roots = [r for r in sp.solve(sp.Eq(d1, 0), alpha) if _above_one(r)]
    d2 = sp.diff(obj, alpha, 2)
    convex = bool(sp.simplify(d2.subs(alpha, 1 + sp.Symbol("u", positive=True))).is_positive)
    if len(roots) == 1 and convex:
        val = obj.subs(alpha, roots[0])
        if symbolic_zero(val - _in_L(eq29.expr)):
            return Verdict("proved", "SymPy: unique stationary point alpha* = " + str(roots[0]).replace("L", "log(1/delta)")
                           + " of a convex objective, value = (29); also mp_minimize at "
                           f"{num.points} points (worst {num.worst_error:.1e})", derived=val)
    return num


# ----------------------------------------------------------------------------- Lemma 2
_f0 = sp.lambdify([alpha, rho, T, delta], eps0_obj.expr, "mpmath")
_f1 = sp.lambdify([alpha, rho, T, delta], eps1_obj.expr, "mpmath")
_f3 = sp.lambdify([rho, T, delta], third.expr, "mpmath")


def lemma2_parts(r, tt, d):
    """(eps_0, alpha_0), (eps_1, alpha_1), third term, each by mp_minimize over (1, 1/delta]."""
    a0, v0 = mp_minimize(lambda a: _f0(a, r, tt, d), 1, 1 / d)
    a1, v1 = mp_minimize(lambda a: _f1(a, r, tt, d), 1, 1 / d)
    # the right end 1/delta is included in (32)-(33)
    e0, e1 = _f0(1 / d, r, tt, d), _f1(1 / d, r, tt, d)
    if e0 < v0:
        a0, v0 = 1 / d, e0
    if e1 < v1:
        a1, v1 = 1 / d, e1
    return (v0, a0), (v1, a1), _f3(r, tt, d)


def _lemma2_check(rng):
    r, tt, d = _draw_rho_T_delta(rng)
    (v0, a0), (v1, a1), v3 = lemma2_parts(r, tt, d)
    bound = min(v0, v1, v3)
    if bound == v3:
        a = 1 / d
    else:
        a = a0 if bound == v0 else a1
    g_ok, need = eps_upper_ok(a, bound, r * a * tt, d)
    # both: the RDP conversion at that alpha, and the exact Gaussian privacy profile
    slack = min(g_ok - need, d - gauss_delta(bound, mp.sqrt(2 * r * tt)))
    return ({"rho": r, "T": tt, "delta": d, "bound": bound, "alpha": a}, slack, mp.mpf(0))


def _tighter_check():
    fe = sp.lambdify([rho, T, delta], eq29.expr, "mpmath")

    def draw(rng):
        r, tt, d = _draw_rho_T_delta(rng, rt=(-4, 2), dl=(-12, -1))
        (v0, _), (v1, _), v3 = lemma2_parts(r, tt, d)
        return ({"rho": r, "T": tt, "delta": d}, fe(r, tt, d), min(v0, v1, v3))
    return check_draws(draw, ">=", n=12, seed=311, tol_digits=20,
                       method="Lemma 2's bound (mp_minimize over alpha in (1, 1/delta]) vs (29)")

# ----------------------------------------------------------------------------- (34)-(36)
EQ35_LATEX = r"= \varepsilon - 2\log\delta - 2\sqrt{(\varepsilon - \log\delta)\log\frac{1}{\delta}},"
SUP_OBJ = parse_printed(r"\frac{\varepsilon}{\alpha} + \frac{1}{\alpha(\alpha - 1)} \log \delta")
_fsup = sp.lambdify([alpha, eps, delta], SUP_OBJ, "mpmath")


def _draw_eps_delta(rng):
    e = mp.mpf(10) ** rng.uniform(-2, 1.3)
    d = mp.mpf(10) ** rng.uniform(-12, -0.5)
    return e, d


def _eq34_check():
    fe = sp.lambdify([rho, T, delta], eq29.expr, "mpmath")

    def draw(rng):
        e, d = _draw_eps_delta(rng)
        _, s = mp_sup(lambda a: _fsup(a, e, d), 1, 1 + 10 ** 8)
        # the largest T/(2 sigma^2) allowed by (34) puts MA's eps (29) exactly at eps
        return ({"varepsilon": e, "delta": d, "sup": s}, fe(s, 1, d), e)
    return check_draws(draw, "==", n=12, seed=34, tol_digits=20,
                       method="sup of (34) by mp_minimize, then (29) at rho T = sup returns eps")


def _eq35_check():
    def sup_num(e, d):
        return mp_sup(lambda a: _fsup(a, e, d), 1, 1 + 10 ** 8)[1]
    return check_equal(sup_num, eq35.expr, (EPS, DELTA), n=20, symbolic=False,
                       method="sup over alpha > 1 by mp_minimize at 50 digits")


# ----------------------------------------------------------------------------- Theorem 5
G_OBJ = alpha * T / (2 * sigma ** 2) - sp.log(delta / ZETA) / (alpha - 1)  # (108)'s objective


def sigma2_at_plugged_alpha():
    """Solve (108)'s objective = eps for sigma^2 at alpha = 2 log(1/delta)/eps (SymPy), in L."""
    s2 = sp.Symbol("s2")
    obj = _in_L(G_OBJ.subs(sigma, sp.sqrt(s2))).xreplace({alpha: 2 * L / eps})
    sol = sp.solve(sp.Eq(obj, eps), s2)
    if len(sol) != 1:
        raise RuntimeError(f"expected one solution for sigma^2, got {sol}")
    return sol[0]


# ----------------------------------------------------------------------------- variance reduction


# ----------------------------------------------------------------------------- Sec. IV-C: a citation
#: the places that cite [17] (Dong, Roth, Su) for the conversion of f-DP to (eps, delta)-DP, with the number
#: each gives (data of the seed; tests/test_provenance.py holds them against it)
FDP_TO_DP_CITES = {"Sec. I": "[17, Proposition 2.12]", "Sec. IV-C": "[17, Proposition 3.12]"}


def _fdp_ref_check():
    """Sec. IV-C converts the composed f-DP guarantee to DP 'via [17, Proposition 3.12]'; Sec. I cites the same
    conversion ('The f-DP guarantee can be easily related to (eps, delta)-DP') as [17, Proposition 2.12], the
    primal-dual result of Dong et al. (their Corollary 2.13, the GDP case, follows it)."""
    numbers = sorted(set(FDP_TO_DP_CITES.values()))
    if len(numbers) == 1:
        return Verdict("proved", "one number for the cited conversion")
    return Verdict("fails", "the paper's citations of [17] for the f-DP to (eps, delta)-DP conversion",
                   counterexample=dict(FDP_TO_DP_CITES),
                   note="cross-reference slip: one result of [17] cited under two numbers; Sec. I's "
                        "Proposition 2.12 (primal to dual) is the conversion")

P.load(__file__)  # the claims declared in sec4.toml (after the checks they name)
