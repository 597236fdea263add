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
from ._paper import erf_form, H, KT3, KT4, SIGMA_N, SYMS, P, Phi, h, kt3, kt4, n, phi, sigma_n, tt
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
S1 = Param(sp.Symbol("s1", positive=True), sp.Interval.open(0, sp.oo), ("loguniform", 0.1, 10))
C1 = Param(sp.Symbol("c1", positive=True), sp.Interval.open(0, sp.oo), ("loguniform", 0.1, 10))


# ----------------------------------------------------------------------------- (A.1), chi_n
P.formula("eqA_1", "(A.1)",
          r"X_{Q}=\frac{T_{n}-\mathbb{E}_{Q}[T_{n}]}{\sqrt{\mathbb{V}\text{ar}_{Q}(T_{n})}}=\frac{\sum_{i=1}^{n}(L_{i}-\mu_{i})}{\sqrt{\sum_{i=1}^{n}\sigma^{2}_{i}}},",
          role="definition", quantity=r"X_Q", params=(),
          parse=r"\frac{\sum_{i=1}^{n}(L_{i}-\mu_{i})}{\sqrt{\sum_{i=1}^{n}\sigma^{2}_{i}}}", symbols=SYMS, section=SA)
CHIA_LATEX = r"\chi_{n}(t)=\exp\left(\sum_{i=1}^{\infty}\tilde{\kappa}_{r}(X_{Q})\frac{(it)^{r}}{r!}\right),"
P.formula("chi_n_exact", "App. A", CHIA_LATEX, role="identity", quantity=r"\chi_n(t)", params=(),
          hand=sp.exp(sp.Sum(sp.Function("kappatilde")(sp.Symbol("r")) * (sp.I * tt) ** sp.Symbol("r")
                             / sp.factorial(sp.Symbol("r")), (sp.Symbol("r"), 1, sp.oo))),
          hand_reason="encoded with summation index r (the printed index is i)", section=SA)


# custom: a notation claim (which index the printed sum runs over), not a relation between values
def _index_check():
    i_, r_ = sp.symbols("i r")
    summand = sp.Function("kappatilde_r")(sp.Symbol("X_Q")) * (sp.I * tt) ** r_ / sp.factorial(r_)
    if i_ not in summand.free_symbols:
        return Verdict("fails", "free symbols of the printed summand",
                       counterexample={"summation index": "i", "summand": sp.sstr(summand),
                                       "free": sorted(s.name for s in summand.free_symbols)},
                       note="the sum runs over i (also the imaginary unit in (it)^r) while the summand depends "
                            "on r: the index should be r = 1..oo")
    return Verdict("proved", "summand depends on the index")


P.claim("chi_n_exact.index", "App. A", "notation",
        "chi_n(t) = exp(sum_i kappatilde_r(X_Q) (it)^r / r!) sums over the index of its summand",
        latex=CHIA_LATEX, section=SA, formulas=("chi_n_exact",), check=_index_check,
        why_custom='a notation claim (which index the printed sum runs over), not a relation between values')

# ----------------------------------------------------------------------------- (A.2)
A2_R = r"\displaystyle=\sigma_{n}^{-r}\sum_{i=1}^{n}\tilde{\kappa}_{r}(L_{i}),\;\;\forall r>2."
P.formula("eqA_2", "(A.2)", A2_R, role="identity", quantity=r"\tilde{\kappa}_r(X_Q)", params=(),
          parse=r"\sigma_{n}^{-r}\sum_{i=1}^{n}\tilde{\kappa}_{r}(L_{i})", symbols=dict(SYMS, r=sp.Symbol("r")),
          section=SA)
for nm, lx in (("eqA_2.k1", r"\displaystyle=\mathbb{E}_{Q}(X_{Q})=0,"),
               ("eqA_2.k2", r"\displaystyle=\mathbb{V}\text{ar}_{Q}(X_{Q})=1,")):
    P.formula(nm, "(A.2)", lx, role="identity", quantity="", params=(), hand=sp.Integer(0 if nm.endswith("1") else 1),
              hand_reason="a moment of X_Q", section=SA)


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
A3_1 = r"\displaystyle\exp\left(-\frac{t^{2}}{2}\right)\exp\left(\sum_{r=3}^{\infty}\frac{\sigma_{n}^{-r}}{r!}\bm{\tilde{\kappa}}_{r}(it)^{r}\right)"
A3_2 = r"\displaystyle\exp\left(-\frac{t^{2}}{2}\right)\exp\left(\sum_{r=3,4}\frac{\sigma_{n}^{-r}}{r!}\bm{\tilde{\kappa}}_{r}(it)^{r}\right)"
A3_3 = r"\displaystyle\exp\left(-\frac{t^{2}}{2}\right)\bigg{(}1+\sigma_{n}^{-3}\cdot\overbrace{\frac{1}{6}\bm{\tilde{\kappa}}_{3}(it)^{3}}^{r_{1}(it)}"
A3_4 = r"\displaystyle+\sigma_{n}^{-4}\cdot\overbrace{\frac{1}{24}\bm{\tilde{\kappa}}_{4}(it)^{4}}^{r_{2}(it)}+\sigma_{n}^{-6}\cdot\overbrace{\frac{1}{72}\bm{\tilde{\kappa}}_{3}^{2}(it)^{6}}^{r_{3}(it)}\bigg{)}."
P.formula("eqA_3", "(A.3)", A3_1, role="identity", quantity=r"\chi_n(t)", params=(),
          symbols=SYMS, section=SA)
P.formula("eqA_3.trunc", "(A.3)", A3_2, role="approximation", quantity=r"\chi_n(t)", params=(),
          hand=sp.exp(-tt ** 2 / 2) * sp.exp(sigma_n ** -3 * kt3 * (sp.I * tt) ** 3 / 6 + sigma_n ** -4 * kt4 * (sp.I * tt) ** 4 / 24),
          hand_reason="the sum runs over 'r=3,4' (a list, not a range the parser reads)", section=SA)
P.formula("eqA_3.expand", "(A.3)", A3_3, role="approximation", quantity=r"\chi_n(t)", params=(),
          continued=(A3_4,), symbols=SYMS, section=SA)
P.formula("eqA_3.expand2", "(A.3)", A3_4, role="approximation", quantity="", params=(),
          parse=A3_4.removesuffix(r"\bigg{)}."), symbols=SYMS, section=SA)


# ----------------------------------------------------------------------------- (A.4)-(A.6)
P.formula("eqA_4", "(A.4)",
          r"\widetilde{F}_{n}(h)\approx\Phi(h)+\sigma_{n}^{-3}\cdot R_{1}(h)+\sigma_{n}^{-4}\cdot R_{2}(h)+\sigma_{n}^{-6}\cdot R_{3}(h),",
          role="approximation", quantity=r"\widetilde{F}_n(h)", params=(),
          parse=r"\Phi(h)+\sigma_{n}^{-3}\cdot R_{1}(h)+\sigma_{n}^{-4}\cdot R_{2}(h)+\sigma_{n}^{-6}\cdot R_{3}(h)",
          symbols=SYMS, transform=erf_form, section=SA)
P.formula("fs_transform", "App. A", r"\int_{-\infty}^{\infty}e^{ith}dR_{j}(h)=r_{j}(it)e^{-t^{2}/2}.",
          role="definition", quantity=r"R_j", params=(), parse=r"r_{j}(it)e^{-t^{2}/2}", symbols=SYMS, section=SA)


A5_LATEX = r"R_{j}(h)=r_{j}(-D)\phi(h)."
P.formula("eqA_5", "(A.5)", A5_LATEX, role="identity", quantity=r"R_j(h)", params=(),
          hand=sp.Function("r_j(-D)")(phi(h)), hand_reason="an operator polynomial in D", section=SA)


# ----------------------------------------------------------------------------- (A.7) Hermite
HE_LATEX = {0: r"\displaystyle=1,\;\;", 1: r"\displaystyle=h,\;\;", 2: r"\displaystyle=h^{2}-1,",
            3: r"\displaystyle=h^{3}-3h,\;\;", 4: r"\displaystyle=h^{4}-6h^{2}+3,",
            5: r"\displaystyle=h^{5}-10h^{3}+15h,\;\;", 6: r"\displaystyle=h^{6}-15h^{4}+45h^{2}-15,",
            7: r"\displaystyle=h^{7}-21h^{5}+105h^{3},"}
HE_PARSE = {0: "1", 1: "h", 2: r"h^{2}-1", 3: r"h^{3}-3h", 4: r"h^{4}-6h^{2}+3", 5: r"h^{5}-10h^{3}+15h",
            6: r"h^{6}-15h^{4}+45h^{2}-15", 7: r"h^{7}-21h^{5}+105h^{3}"}
HE = {}
for j in range(8):
    HE[j] = P.formula(f"eqA_7.He{j}", "(A.7)", HE_LATEX[j], parse=HE_PARSE[j], role="definition",
                      quantity=f"He_{j}(h)", params=(H,), symbols={"h": h}, section=SA,
                      description=f"probabilists' Hermite polynomial He_{j}")


# ----------------------------------------------------------------------------- (A.8)
A8 = (r"\displaystyle\Phi(h)+\sigma_{n}^{-3}\cdot-\frac{1}{6}\bm{\tilde{\kappa}}_{3}(h^{2}-1)\phi(h)",
      r"\displaystyle+\sigma_{n}^{-4}\cdot-\frac{1}{24}\bm{\tilde{\kappa}}_{4}(h^{3}-3h)\phi(h)",
      r"\displaystyle+\sigma_{n}^{-6}\cdot-\frac{1}{72}\bm{\tilde{\kappa}}_{3}^{2}(h^{5}-10h^{3}+15h)\phi(h).")
P.formula("eqA_8", "(A.8)", A8[0], role="approximation", quantity=r"\widetilde{F}_n(h)",
          params=(H, SIGMA_N, KT3, KT4), continued=A8[1:], symbols=SYMS, transform=erf_form, section=SA)
for k_, lx in ((2, A8[1]), (3, A8[2])):
    P.formula(f"eqA_8.l{k_}", "(A.8)", lx, role="approximation", quantity="", params=(H, SIGMA_N, KT3, KT4),
              symbols=SYMS, section=SA)


# ----------------------------------------------------------------------------- truncation errors
T1_LATEX = r"t_{1}:=\sigma^{-3}_{n}\cdot\frac{1}{6}\bm{\tilde{\kappa}}_{3}(it)^{3}"
T2_LATEX = r"t_{2}:=\sigma^{-4}_{n}\cdot\frac{1}{24}\bm{\tilde{\kappa}}_{4}(it)^{4}"
P.formula("t1", "App. A", T1_LATEX, role="definition", quantity="t_1", params=(),
          parse=T1_LATEX.partition(":=")[2], symbols=SYMS, section=SA)
P.formula("t2", "App. A", T2_LATEX, role="definition", quantity="t_2", params=(),
          parse=T2_LATEX.partition(":=")[2], symbols=SYMS, section=SA)
K5_LATEX = r"\dfrac{1}{120}\sigma_{n}^{-5}\bm{\tilde{\kappa}}_{5}(it)^{5}"
_R5 = P.formula("err_r5", "App. A", K5_LATEX, role="approximation", quantity="", params=(),
          symbols=SYMS, section=SA)


_r = sp.Symbol("r", integer=True, positive=True)

T22_LATEX = r"\sigma^{-8}_{n}\cdot\frac{1}{576}\bm{\tilde{\kappa}}^{2}_{4}(it)^{8}"
P.formula("err_t2sq", "App. A", T22_LATEX, role="approximation", quantity="", params=(),
          symbols=SYMS, section=SA)


_T1, _T2 = w * a_ * u ** 3, w ** 2 * b_ * u ** 4      # t_1, t_2 in the i.i.d. scaling (u = it)
P.generic("err_t2sq", "App. A", "asymptotic",
          "the error of truncating the expansion of the r = 3, 4 terms is dominated by the square of t_2",
          latex=T22_LATEX, section=SA, formulas=("err_t2sq",), params=(W, A_, B_, U),
          f=sp.exp(_T1 + _T2), g=1 + _T1 + _T2 + _T1 ** 2 / 2, h=_T2 ** 2, x=w, x0=0)

# ----------------------------------------------------------------------------- (A.9)
A9 = ((r"\displaystyle\sigma^{-3}_{n}\cdot\bm{\tilde{\kappa}}_{3}(it)^{3}\sim n^{-1/2}(it)^{3},", 3, 1, 1, sp.Rational(-1, 2)),
      (r"\displaystyle\sigma^{-4}_{n}\cdot\bm{\tilde{\kappa}}_{4}(it)^{4}\sim n^{-1}(it)^{4},", 4, 1, 1, -1),
      (r"\displaystyle\sigma^{-6}_{n}\cdot\bm{\tilde{\kappa}}^{2}_{3}(it)^{6}\sim n^{-1}(it)^{6},", 6, 2, 1, -1),
      (r"\displaystyle\sigma^{-8}_{n}\cdot\bm{\tilde{\kappa}}^{2}_{4}(it)^{8}\sim n^{-2}(it)^{8},", 8, 2, 1, -2),
      (r"\displaystyle\sigma^{-5}_{n}\cdot\bm{\tilde{\kappa}}_{5}(it)^{5}\sim n^{-3/2}(it)^{5}.", 5, 1, 1, sp.Rational(-3, 2)))
for idx, (lx, sp_pow, kpow, _, npow) in enumerate(A9):
    P.formula(f"eqA_9.{idx + 1}", "(A.9)", lx, role="approximation", quantity="", params=(),
              parse=lx.partition(r"\sim")[2], symbols=SYMS, section=SA)


CHI_ERR = r"O\left(n^{-2}(it)^{8}+n^{-3/2}(it)^{5}\right)"


# the n^{-3/2} coefficient of exp(sum_{r=3..5} kappatilde_r(X_Q) (it)^r / r!) - (1 + t_1 + t_2 + t_1^2/2), in
# w = n^{-1/2} (kappatilde_r(X_Q) = c_r w^{r-2}), against the printed reading: the (it)^5 term c_5 (it)^5/120
_EXPO = sum(cr * w ** (r - 2) * u ** r / sp.factorial(r) for r, cr in ((3, c3), (4, c4), (5, c5)))
_KEPT = 1 + w * c3 * u ** 3 / 6 + w ** 2 * (c4 * u ** 4 / 24 + c3 ** 2 * u ** 6 / 72)
P.generic("chi_err", "App. A", "limit",
          "the error of the characteristic-function approximation is O(n^-2 (it)^8 + n^-3/2 (it)^5)",
          shown_kind="asymptotic", latex=CHI_ERR, section=SA, params=(W, C3, C4, C5, U),
          f=(sp.exp(_EXPO) - _KEPT) / w ** 3, x=w, x0=0, value=c5 * u ** 5 / 120)


P.formula("iid_sigma", "App. A", r"\sigma_{n}=\sqrt{n}\sigma", role="identity", quantity=r"\sigma_n", params=(),
          parse=r"\sqrt{n}\sigma", symbols={"n": n, "sigma": sp.Symbol("sigma_1", positive=True)}, section=SA,
          description="sigma here is the per-step sd (written sigma_1)")

P.load(__file__)  # the generic claims: app_a.toml
