"""Zheng et al. (seed 004), Section 3: the Neyman-Pearson set-up (3.1)-(3.2), the exact
two-sided representation (3.4)-(3.5), cumulants (Def. 3.1), the degree-2 Edgeworth
approximations (3.7) and (3.8), the Cornish-Fisher quantile (3.9), and the error analysis
of Sec. 3.2 - in the paper's order.

Named formulas for the numeric side: ``zheng2020.eq3_5`` (exact two-sided form, with
abstract F_n, F~_n), ``zheng2020.eq3_7`` (F~_EW in h, sigma_n, kappatilde_3, kappatilde_4),
``zheng2020.eq3_8`` (F_EW in h, sigma_n, kappa_3, kappa_4), ``zheng2020.eq3_9``
(Cornish-Fisher quantile in z, sigma_n, kappa_3, kappa_4).  The truths come from
the exactly solvable pairs ``_truth.ExpPair`` and ``_truth.SymExpPair``.
"""
from __future__ import annotations

from functools import lru_cache, partial

import mpmath as mp
import sympy as sp

from ... import cumulants as C
from ...core import Verdict
from ...verify import symbolic_zero
from . import _truth as TR
from ._paper import (
    erf_form, ALPHA01, NN, H, K3, K4, KT3, KT4, SIGMA_N, SYMS, Z, P, Phi, h, k3, k4, kt3, kt4, n, phi,
    sigma_n, z)
from ...symbols import Param
from ...evidence import fitted_order

S3, S31 = "Sec. 3", "Sec. 3.1"
u = sp.Symbol("u")          # stands for (it)


# ----------------------------------------------------------------------------- (3.1)-(3.3)
F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of sec3.toml


VAR_LATEX = r"\mathbb{V}\text{ar}_{Q}(T_{n})=\mathbb{V}\text{ar}_{P}(T_{n})"


@P.custom("var_symmetric", "Sec. 3", "identity",
          "a symmetric f gives Var_Q(T_n) = Var_P(T_n) (so the factor sqrt(Var_P/Var_Q) in (3.5) is one); "
          "checked on the symmetric Laplace pair, and shown to fail for the asymmetric mixture",
          latex=VAR_LATEX, section=S3,
          why_custom='also shows the equality failing for the asymmetric mixture (a "differs" fact no generic kind states)')
def _var_sym_check():
    kP = C.laplace_llr_cumulants(2, "P")
    kQ = C.laplace_llr_cumulants(2, "Q")
    mP = C.mixture_llr_cumulants(4, 2, "P")
    mQ = C.mixture_llr_cumulants(4, 2, "Q")
    asym = sp.simplify(mQ[1] - mP[1])
    if symbolic_zero(kQ[1] - kP[1]) and asym != 0:
        return Verdict("proved", "SymPy: Var_Q = Var_P for the symmetric Laplace pair (closed-form cumulants, "
                       "derive.cumulants); for the asymmetric Gaussian mixture the two differ",
                       note=f"mixture: Var_Q - Var_P = {sp.sstr(asym)} + O(p^5)")
    return Verdict("fails", "SymPy cumulants", counterexample={"Laplace Var_Q - Var_P": str(kQ[1] - kP[1])})


# ----------------------------------------------------------------------------- (3.4)-(3.5)


EQ35_LATEX = r"f(\alpha)=\widetilde{F}_{n}\bigg{(}\left(F^{-1}_{n}(1-\alpha)-\mu_{n}\right)\sqrt{\frac{\mathbb{V}\text{ar}_{P}[T_{n}]}{\mathbb{V}\text{ar}_{Q}[T_{n}]}}\bigg{)}."


def _eq35_value(pair, a, mun):
    m = pair.moments()
    return pair.Ft((pair.F_inv(1 - a) - mun) * mp.sqrt(m["V_P"] / m["V_Q"]))


def _eq35_check(which):
    def run():
        rows, worst = [], mp.mpf(0)
        with mp.workdps(25):
            for nn, a in ((1, "0.3"), (3, "0.1"), (3, "0.5"), (10, "0.05"), (10, "0.7")):
                pair = TR.ExpPair(nn, 2)
                m = pair.moments()
                mun = (m["E_Q"] - m["E_P"]) / mp.sqrt(m["V_Q"] if which == "printed" else m["V_P"])
                a = mp.mpf(a)
                exact, val = pair.f(a), _eq35_value(pair, a, mun)
                err = abs(exact - val)
                rows.append((nn, a, exact, val))
                if err > worst:
                    worst, wrow = err, rows[-1]
        meth = ("exact Exp(1)^n vs Exp(2)^n pair (incomplete gamma): (3.5) with exact F_n^{-1}, F~_n and "
                + ("mu_n = (E_Q - E_P)/sqrt(Var_Q) as printed" if which == "printed"
                   else "mu_n read as (E_Q - E_P)/sqrt(Var_P)"))
        if worst < mp.mpf(10) ** -15:
            return Verdict("holds_numerically", meth, points=len(rows), worst_error=float(worst), precision=25)
        nn, a, exact, val = wrow
        return Verdict("fails", meth, points=len(rows), worst_error=float(worst), precision=25,
                       counterexample={"params": {"n": nn, "alpha": mp.nstr(a, 4), "P": "Exp(1)", "Q": "Exp(rate 2)"},
                                       "true": mp.nstr(exact, 10), "printed": mp.nstr(val, 10)},
                       note="with mu_n = (E_Q - E_P)/sqrt(Var_P) the identity is exact (claim eq3_5.var_p)")
    return run


# custom (eq3_5.exact, eq3_5.var_p): exact CDFs F_n, F~_n and F_n^{-1} of the composed Exp(1)^n vs Exp(2)^n pair;
# no truth quantity gives the standardised privacy-loss CDFs of a composition
P.claim("eq3_5.exact", "(3.5)", "identity",
        "(3.5) is the exact trade-off function for asymmetric f, with mu_n as defined in Sec. 3",
        latex=EQ35_LATEX, section=S3, formulas=("eq3_5", "mu_n"), check=_eq35_check("printed"),
        why_custom="exact CDFs F_n, F~_n and F_n^{-1} of the composed Exp(1)^n vs Exp(2)^n pair; no truth "
                   "quantity gives the standardised privacy-loss CDFs of a composition")
# custom: exact CDFs of the composed Exp pair (as eq3_5.exact)
P.claim("eq3_5.var_p", "(3.5)", "identity",
        "(3.5) is exact when mu_n is read with the P-standard deviation, (E_Q - E_P)/sqrt(Var_P[T_n]) "
        "(the reading line 3 of (3.4) requires)",
        latex=EQ35_LATEX, section=S3, formulas=("eq3_5",), check=_eq35_check("var_p"),
        why_custom='exact CDFs of the composed Exp pair (as eq3_5.exact)')


# ----------------------------------------------------------------------------- Def. 3.1 and chi_n
CHI_LATEX = r"\chi_{n}(t)=\bigg{(}1+\sum_{j=1}^{\infty}{\frac{P_{j}(it)}{n^{j/2}}}\bigg{)}\exp(-t^{2}/2),"


def edgeworth_polys(jmax=3, rmax=None):
    """P_1..P_jmax (in u = it) of the i.i.d. expansion: X's r-th cumulant is c_r n^{1-r/2}."""
    rmax = rmax or jmax + 2
    cs = sp.symbols(f"c3:{rmax + 1}")
    w = sp.Symbol("w")   # w = n^{-1/2}
    expo = sum(cs[r - 3] * w ** (r - 2) * u ** r / sp.factorial(r) for r in range(3, rmax + 1))
    ser = sp.expand(sp.series(sp.exp(expo), w, 0, jmax + 1).removeO())
    return [sp.expand(ser.coeff(w, j)) for j in range(1, jmax + 1)]


# deg P_j = 3j: P_j(u)/u^{3j} tends to the non-zero leading coefficient (c_3/6)^j/j! as u -> oo (the
# three limits weighted by free w_1..w_3)
_W3 = sp.symbols("w_1:4", real=True)
_C3 = sp.Symbol("c3")
_u = sp.Symbol("u", positive=True)
_REALS = lambda v, lo=-2, hi=2: Param(v, sp.Interval(-sp.oo, sp.oo), ("uniform", lo, hi))    # noqa: E731
P.generic("chi_n.degree", "Sec. 3.1", "limit", "P_j is a polynomial of degree 3j", shown_kind="identity",
          latex=CHI_LATEX, section=S31, formulas=("chi_n",),
          params=(Param(_u, sp.Interval.open(0, sp.oo), ("loguniform", 1, 1e3)),)
          + tuple(_REALS(v) for v in _W3 + sp.symbols("c3:6")),
          f=sum(w * pj.subs(u, _u) / _u ** (3 * j) for j, (w, pj) in enumerate(zip(_W3, edgeworth_polys(3)), 1)),
          x=_u, x0=sp.oo, value=sum(w * (_C3 / 6) ** j / sp.factorial(j) for j, w in enumerate(_W3, 1)))

# ----------------------------------------------------------------------------- (3.7)
EQ37_1 = r"\displaystyle\widetilde{F}_{\mathtt{EW}}(h)=\Phi(h)-\overbrace{\sigma_{n}^{-3}\cdot\frac{1}{6}\bm{\tilde{\kappa}}_{3}(h^{2}-1)\phi(h)}^{T_{1}}"
T1 = sigma_n ** -3 * sp.Rational(1, 6) * kt3 * (h ** 2 - 1) * phi(h)
T2 = (sigma_n ** -4 / 24 * kt4 * (h ** 3 - 3 * h) + sigma_n ** -6 / 72 * kt3 ** 2 * (h ** 5 - 10 * h ** 3 + 15 * h)) * phi(h)
EQ37 = Phi(h) - T1 - T2


# i.i.d. scaling sigma_n = sqrt(n) s_1, kappatilde_r = n c_r: sqrt(n) T_1 and n T_2 tend to their
# one-step values (finite, non-zero), weighted by free w_1, w_2
_s1, _c3, _c4 = sp.symbols("s1 c3 c4", positive=True)
_IID = {sigma_n: sp.sqrt(n) * _s1, kt3: n * _c3, kt4: n * _c4}
P.generic("eq3_7.orders", "(3.7)", "limit", "T_1 is of order n^{-1/2} and T_2 of order n^{-1}",
          shown_kind="asymptotic", latex=EQ37_1, section=S31, formulas=("eq3_7",),
          params=(NN, H) + tuple(Param(v, sp.Interval.open(0, sp.oo), ("loguniform", 0.3, 3)) for v in (_s1, _c3, _c4))
          + tuple(_REALS(v) for v in _W3[:2]),
          f=_W3[0] * sp.sqrt(n) * T1.subs(_IID) + _W3[1] * n * T2.subs(_IID), x=n, x0=sp.oo,
          value=(_W3[0] * _c3 * (h ** 2 - 1) / (6 * _s1 ** 3)
                 + _W3[1] * (_c4 * (h ** 3 - 3 * h) / (24 * _s1 ** 4)
                             + _c3 ** 2 * (h ** 5 - 10 * h ** 3 + 15 * h) / (72 * _s1 ** 6))) * phi(h))


# ----------------------------------------------------------------------------- (3.8)
EQ38 = (Phi(h) - sigma_n ** -3 * sp.Rational(1, 6) * k3 * (h ** 2 - 1) * phi(h)
        - sigma_n ** -4 * sp.Rational(1, 24) * k4 * (h ** 3 - 3 * h) * phi(h)
        - sigma_n ** -6 * sp.Rational(1, 72) * k3 ** 2 * (h ** 5 - 10 * h ** 3 + 15 * h) * phi(h))


# ----------------------------------------------------------------------------- error orders (exact pair)
_HGRID = [mp.mpf(k) / 4 for k in range(-12, 13)]


def _sup_err(exact, approx):
    return max(abs(exact(x) - approx(x)) for x in _HGRID)


def _ew_num(expr_params, expr):
    return sp.lambdify(expr_params, expr, "mpmath")


_FEW = _ew_num([h, sigma_n, k3, k4], EQ38)


def _pair_ew(pair, sd_under, cum_under):
    """F_EW of (3.8) for ExpPair with cumulant sums under ``cum_under`` and sigma_n from ``sd_under``."""
    cs = pair.cumulant_sums(cum_under)
    s = mp.sqrt(pair.cumulant_sums(sd_under)[2])
    return lambda x: _FEW(x, s, cs[3], cs[4])


NS = (50, 100, 200, 400)
_order_verdict = partial(fitted_order, over="h in [-3,3]", pair="Exp(1)^n vs Exp(2)^n")


def _err_order_check(kind):
    errs = []
    with mp.workdps(20):
        for nn in NS:
            pair = TR.ExpPair(nn, 2)
            if kind == "F_EW":            # (3.8) with the P-standard deviation
                approx, exact = _pair_ew(pair, "P", "P"), pair.F
            elif kind == "F_EW_printed":  # (3.8) with sigma_n as defined: Q-standard deviation
                approx, exact = _pair_ew(pair, "Q", "P"), pair.F
            elif kind == "Ft_EW":         # (3.7): Q-cumulants, Q-standard deviation
                cs, s = pair.cumulant_sums("Q"), mp.sqrt(pair.cumulant_sums("Q")[2])
                approx, exact = (lambda x, cs=cs, s=s: _FEW(x, s, cs[3], cs[4])), pair.Ft
            elif kind == "CLT":
                approx, exact = mp.ncdf, pair.F
            errs.append(_sup_err(exact, approx))
    expected = {"F_EW": 1.5, "F_EW_printed": 1.5, "Ft_EW": 1.5, "CLT": 0.5}[kind]
    return _order_verdict(errs, NS, expected, {"CLT": "F_n - Phi"}.get(kind, "F - F_EW"))


# ----------------------------------------------------------------------------- Method (i), (3.9)


EQ39 = (z + sigma_n ** -3 * sp.Rational(1, 6) * k3 * (z ** 2 - 1) + sigma_n ** -4 * sp.Rational(1, 24) * k4 * (z ** 3 - 3 * z)
        - sigma_n ** -6 * sp.Rational(1, 36) * k3 ** 2 * (2 * z ** 3 - 5 * z))


def _cf_order_check():
    fcf = sp.lambdify([z, sigma_n, k3, k4], EQ39, "mpmath")
    alphas = [mp.mpf(a) for a in ("0.1", "0.3", "0.5", "0.7", "0.9")]
    errs = []
    with mp.workdps(20):
        for nn in NS:
            pair = TR.ExpPair(nn, 2)
            cs = pair.cumulant_sums("P")
            s = mp.sqrt(cs[2])
            errs.append(max(abs(pair.F_inv(1 - a) - fcf(TR.nquantile(1 - a), s, cs[3], cs[4])) for a in alphas))
    return _order_verdict(errs, NS, 1.5, "F_n^{-1}(1-alpha) - CF(z)", over="alpha in {0.1, 0.3, 0.5, 0.7, 0.9}")

def _method_i_check():
    """Method (i) as corrected: the root of F_EW(h) - (1 - alpha) = 0 ((3.8), P-cumulants and
    P-standard deviation) approximates the quantile F_n^{-1}(1 - alpha) to O(n^{-3/2}), on a
    non-Gaussian pair (kappa_3, kappa_4 != 0: the equation is not an identity there)."""
    alphas = [mp.mpf(a) for a in ("0.1", "0.3", "0.5", "0.7", "0.9")]
    errs = []
    with mp.workdps(20):
        for nn in NS:
            pair = TR.ExpPair(nn, 2)
            few = _pair_ew(pair, "P", "P")
            errs.append(max(abs(pair.F_inv(1 - a) - mp.findroot(lambda x, a=a: few(x) - (1 - a), TR.nquantile(1 - a)))
                            for a in alphas))
    return _order_verdict(errs, NS, 1.5, "F_n^{-1}(1-alpha) - root of F_EW(h) = 1 - alpha",
                          over="alpha in {0.1, 0.3, 0.5, 0.7, 0.9}")


# ----------------------------------------------------------------------------- Sec. 3.2 chain


_FTEW = _ew_num([h, sigma_n, kt3, kt4], EQ37)     # (3.7): F~_EW with the Q-cumulants


def _f_ew_order_check():
    """Sec. 3.2 as printed, in its stated regime: f symmetric, L_i i.i.d.  The pair is the symmetric
    SymExpPair (P = Exp(1) x Exp(lam), Q swapped; a skewed privacy loss) with lam chosen for each n so
    that mu_n = 1 exactly, so the printed mu (the limit of mu_n) is mu_n itself; f_EW(alpha) =
    F~_EW(F_EW^{-1}(1 - alpha) - mu) with (3.7)-(3.8) and the pair's cumulant sums; f exact by quadrature."""
    h0s = [mp.mpf(x) for x in ("1.2816", "0.5244", "0")]        # alpha near 0.1, 0.3, 0.5
    errs = []
    with mp.workdps(20):
        for nn in NS:
            pair = TR.SymExpPair.with_mu(nn, 1)
            cp, cq = pair.cumulant_sums("P"), pair.cumulant_sums("Q")
            s = mp.sqrt(cp[2])
            Few = lambda x: _FEW(x, s, cp[3], cp[4])
            err = mp.mpf(0)
            for h0 in h0s:
                a = 1 - pair.F(h0)                              # exact type I error of the test at h0
                f_exact = pair.Ft(h0 - pair.mu_n())             # f(alpha) = F~_n(F_n^{-1}(1 - alpha) - mu_n)
                hq = TR._invert(Few, 1 - a, lo=-8, hi=8)
                err = max(err, abs(_FTEW(hq - 1, s, cq[3], cq[4]) - f_exact))
            errs.append(err)
    v = _order_verdict(errs, NS, 1.5, "f_EW - f", over="alpha near 0.1, 0.3, 0.5",
                       pair="symmetric Exp(1) x Exp(lam) vs Exp(lam) x Exp(1), lam with mu_n = 1")
    last = mp.log(errs[-2] / errs[-1]) / mp.log(mp.mpf(NS[-1]) / NS[-2])
    if v.status == "fails" and last > 1.5:
        # O(n^{-3/2}) is an upper bound: an error that decays faster satisfies it
        table = {str(n_): mp.nstr(e, 5) for n_, e in zip(NS, errs)}
        return Verdict("holds_numerically", v.method, points=len(NS), worst_error=float(errs[-1]), precision=20,
                       note=f"fitted order n^-{mp.nstr(last, 3)}, faster than the stated n^-3/2 (an upper bound); "
                            f"errors {table}")
    return v


@lru_cache(maxsize=1)
def _footnote2_errors():
    """sup over h in {-1, 0, 1} of |F~_EW(h) - F_n(h)| and of |F~_EW(h) - F~_n(h)| along NS, on the
    symmetric pair Exp(1)^n x Exp(2)^n vs Exp(2)^n x Exp(1)^n (F_n and F~_n differ there)."""
    hs = [mp.mpf(x) for x in ("-1", "0", "1")]
    errs, errs_t = [], []
    with mp.workdps(20):
        for nn in NS:
            pair = TR.SymExpPair(nn, 2)
            cq = pair.cumulant_sums("Q")
            s = mp.sqrt(cq[2])
            errs.append(max(abs(_FTEW(x, s, cq[3], cq[4]) - pair.F(x)) for x in hs))
            errs_t.append(max(abs(_FTEW(x, s, cq[3], cq[4]) - pair.Ft(x)) for x in hs))
    return errs, errs_t


def _footnote2_corrected_check():
    """Footnote 2 as corrected: F~_EW(h) approximates F~_n(h), the CDF under Q whose cumulants it is
    built from, with the O(n^{-3/2}) error of Sec. 3.2 (the same pair and h as the printed reading)."""
    _, errs_t = _footnote2_errors()
    return _order_verdict(errs_t, NS, 1.5, "F~_EW(h) - F~_n(h)", over="h in {-1, 0, 1}",
                          pair="symmetric Exp(1)^n x Exp(2)^n vs Exp(2)^n x Exp(1)^n")


def _footnote2_approx_check():
    """Footnote 2: F~_EW(h) is 'a numerical approximation to F_n(h) with improved error bounds compared
    to the CLT'.  On the symmetric pair (fixed lam = 2, i.i.d.), sup over h of |F~_EW(h) - F_n(h)|
    against the CLT's O(n^{-1/2}); |F~_EW(h) - F~_n(h)| is recorded beside it."""
    errs, errs_t = _footnote2_errors()
    v = _order_verdict(errs, NS, 1.5, "F~_EW(h) - F_n(h)", over="h in {-1, 0, 1}",
                       pair="symmetric Exp(1)^n x Exp(2)^n vs Exp(2)^n x Exp(1)^n")
    slope_t = mp.log(errs_t[-2] / errs_t[-1]) / mp.log(2)
    table_t = {str(n_): mp.nstr(e, 5) for n_, e in zip(NS, errs_t)}
    if v.status == "fails":
        v.counterexample["errors against F~_n(h)"] = table_t
        v.counterexample["fitted exponent against F~_n(h)"] = mp.nstr(-slope_t, 3)
        v.note = (f"F~_EW(h) approximates F~_n(h) (the CDF under Q; error order n^-{mp.nstr(slope_t, 3)}), not "
                  "F_n(h) (under P): against F_n(h) the error is of the CLT's order n^-1/2; the footnote means "
                  "F~_n(h)")
    return v


# ----------------------------------------------------------------------------- notation: F_n's measure
#: the probability measures Sec. 3 names: the product distributions P, Q; lowercase p_i, q_i are densities
SEC3_MEASURES = ("P", "Q")


def _fn_measure_check():
    """Sec. 3, the definition of F_n between (3.1) and (3.2): 'the CDF of (T_n - E_P[T_n])/sqrt(Var_P[T_n])
    when x is drawn from P. That is, F_n(h) = P_p(...)'.  The measure's subscript is a lowercase p, which Sec. 3
    defines only as the densities p_i of P_i; the sentence, (3.2) and the companion F~_n (P_Q) have P."""
    printed = "p"
    if printed in SEC3_MEASURES:
        return Verdict("proved", "the measure of F_n is one Sec. 3 defines")
    return Verdict("fails", "symbol check: the subscript of the probability in F_n's definition against the "
                   "measures Sec. 3 defines (P, Q; p_i, q_i are densities)",
                   counterexample={"printed": "F_n(h) = P_p(...)", "should be": "F_n(h) = P_P(...)",
                                   "measures of Sec. 3": list(SEC3_MEASURES)},
                   note="typo: F_n is the CDF when x is drawn from P (the sentence itself, and (3.2) writes P_P); "
                        "the lowercase p names only the densities p_i")

P.load(__file__)  # the claims declared in sec3.toml (after the checks they name)
