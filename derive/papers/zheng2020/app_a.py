"""Zheng et al. (seed 004), Appendix A: derivation of the Edgeworth approximation (A.1)-(A.9):
cumulants of X_Q, the expansion of the characteristic function, the Fourier-Stieltjes
inversion through (-D)^j Phi, the Hermite polynomials (A.7) (checked against
``sympy.hermite_prob``), the result (A.8) (against (3.7), sign convention included) and
the truncation-error statements.
"""
from __future__ import annotations

import sympy as sp

from ...core import Verdict
from ...symbols import Param
from ._paper import erf_form, H, KT3, KT4, SIGMA_N, SYMS, P, h, n, tt
from .sec3 import u

SA = "App. A"
w = sp.Symbol("w", positive=True)     # w = n^{-1/2}
# A claim "for j = 1..J" is declared once as an identity in a generating variable y (the coefficients
# of y^j are the J statements); a complex identity A = B as Re A + s Im A = Re B + s Im B for all real s.
y_, s_ = sp.Symbol("y", real=True), sp.Symbol("s", real=True)
a_, b_, c3, c4, c5, c6 = sp.symbols("a b c3 c4 c5 c6", real=True)
_R = sp.Interval(-sp.oo, sp.oo)
Y, S = Param(y_, sp.Interval(-1, 1), ("uniform", -1, 1)), Param(s_, sp.Interval(-1, 1), ("uniform", -1, 1))
A_, B_, C3, C4, C5, C6 = (Param(v, _R, ("uniform", -3, 3)) for v in (a_, b_, c3, c4, c5, c6))
U = Param(u, _R, ("uniform", -3, 3))
W = Param(w, sp.Interval.open(0, 1), ("uniform", 0, 1))
C1 = Param(sp.Symbol("c1", positive=True), sp.Interval.open(0, sp.oo), ("loguniform", 0.1, 10))


# ----------------------------------------------------------------------------- (A.1), chi_n
F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of app_a.toml
CHIA_LATEX = r"\chi_{n}(t)=\exp\left(\sum_{i=1}^{\infty}\tilde{\kappa}_{r}(X_{Q})\frac{(it)^{r}}{r!}\right),"


@P.custom("chi_n_exact.index", "App. A", "notation",
          "chi_n(t) = exp(sum_i kappatilde_r(X_Q) (it)^r / r!) sums over the index of its summand",
          latex=CHIA_LATEX, section=SA, formulas=("chi_n_exact",),
          why_custom='a notation claim (which index the printed sum runs over), not a relation between values')
def _index_check():
    i_, r_ = sp.symbols("i r")
    summand = sp.Function("kappatilde_r")(sp.Symbol("X_Q")) * (sp.I * tt) ** r_ / sp.factorial(r_)
    if i_ not in summand.free_symbols:
        return Verdict("fails", "free symbols of the printed summand",
                       counterexample={"summation index": "i", "summand": "(i t)^r kappatilde_r(X_Q)/r!",
                                       "free": sorted(s.name for s in summand.free_symbols)},
                       note="the sum runs over i (also the imaginary unit in (it)^r) while the summand depends "
                            "on r: the index should be r = 1..oo")
    return Verdict("proved", "summand depends on the index")

# ----------------------------------------------------------------------------- (A.2)
A2_R = r"\displaystyle=\sigma_{n}^{-r}\sum_{i=1}^{n}\tilde{\kappa}_{r}(L_{i}),\;\;\forall r>2."


_s, _m1, _m2 = sp.symbols("s m1 m2", positive=True)
_K1, _K2, _xi = sp.Function("K1"), sp.Function("K2"), sp.Symbol("xi")
_KX = _K1(tt / _s) + _K2(tt / _s) - tt * (_m1 + _m2) / _s       # K_X(t) of X = sum_i (L_i - mu_i)/s
A2_LHS = sum(y_ ** r * sp.diff(_KX, tt, r).subs(tt, 0) for r in range(3, 7))
A2_RHS = sum(y_ ** r * _s ** -r * (sp.diff(_K1(_xi), _xi, r) + sp.diff(_K2(_xi), _xi, r)).subs(_xi, 0)
             for r in range(3, 7))
P.generic("eqA_2.scaling", "(A.2)", "identity",
          "kappatilde_r(X_Q) = sigma_n^{-r} sum_i kappatilde_r(L_i) for r > 2 (cumulants are shift invariant "
          "and homogeneous of degree r, additive over independent terms)",
          latex=A2_R, section=SA, formulas=("eqA_2",), params=(Y,),
          lhs=A2_LHS, rhs=A2_RHS, truth_side="lhs")    # r = 3..6 (coefficients of y^r), two summands

# ----------------------------------------------------------------------------- (A.3)


# ----------------------------------------------------------------------------- (A.4)-(A.6)


# ----------------------------------------------------------------------------- (A.7) Hermite


# ----------------------------------------------------------------------------- (A.8)


# ----------------------------------------------------------------------------- truncation errors


_r = sp.Symbol("r", integer=True, positive=True)

T22_LATEX = r"\sigma^{-8}_{n}\cdot\frac{1}{576}\bm{\tilde{\kappa}}^{2}_{4}(it)^{8}"


_T1, _T2 = w * a_ * u ** 3, w ** 2 * b_ * u ** 4      # t_1, t_2 in the i.i.d. scaling (u = it)
P.generic("err_t2sq", "App. A", "asymptotic",
          "the error of truncating the expansion of the r = 3, 4 terms is dominated by the square of t_2",
          latex=T22_LATEX, section=SA, formulas=("err_t2sq",), params=(W, A_, B_, U),
          f=sp.exp(_T1 + _T2), g=1 + _T1 + _T2 + _T1 ** 2 / 2, h=_T2 ** 2, x=w, x0=0)

# ----------------------------------------------------------------------------- (A.9)


CHI_ERR = r"O\left(n^{-2}(it)^{8}+n^{-3/2}(it)^{5}\right)"


# the n^{-3/2} coefficient of exp(sum_{r=3..5} kappatilde_r(X_Q) (it)^r / r!) - (1 + t_1 + t_2 + t_1^2/2), in
# w = n^{-1/2} (kappatilde_r(X_Q) = c_r w^{r-2}), against the printed reading: the (it)^5 term c_5 (it)^5/120
_EXPO = sum(cr * w ** (r - 2) * u ** r / sp.factorial(r) for r, cr in ((3, c3), (4, c4), (5, c5)))
_KEPT = 1 + w * c3 * u ** 3 / 6 + w ** 2 * (c4 * u ** 4 / 24 + c3 ** 2 * u ** 6 / 72)
P.generic("chi_err", "App. A", "limit",
          "the error of the characteristic-function approximation is O(n^-2 (it)^8 + n^-3/2 (it)^5)",
          shown_kind="asymptotic", latex=CHI_ERR, section=SA, params=(W, C3, C4, C5, U),
          f=(sp.exp(_EXPO) - _KEPT) / w ** 3, x=w, x0=0, value=c5 * u ** 5 / 120)


P.load(__file__)  # the claims declared in app_a.toml (after the checks they name)
