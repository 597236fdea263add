"""Zheng et al. (seed 004), Appendix A: derivation of the Edgeworth approximation (A.1)-(A.9):
cumulants of X_Q, the expansion of the characteristic function, the Fourier-Stieltjes
inversion through (-D)^j Phi, the Hermite polynomials (A.7) (checked against
``sympy.hermite_prob``), the result (A.8) (against (3.7), sign convention included) and
the truncation-error statements.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ...core import Verdict
from ...verify import check_draws, check_equal, symbolic_zero
from ._paper import H, KT3, KT4, SIGMA_N, P, Phi, h, kt3, kt4, kt5, n, phi, sigma_n, tt
from .sec3 import EQ37, edgeworth_truth, u

SA = "App. A"
w = sp.Symbol("w", positive=True)     # w = n^{-1/2}

# ----------------------------------------------------------------------------- (A.1), chi_n
P.formula("eqA_1", "(A.1)",
          r"X_{Q}=\frac{T_{n}-\mathbb{E}_{Q}[T_{n}]}{\sqrt{\mathbb{V}\text{ar}_{Q}(T_{n})}}=\frac{\sum_{i=1}^{n}(L_{i}-\mu_{i})}{\sqrt{\sum_{i=1}^{n}\sigma^{2}_{i}}},",
          role="definition", quantity=r"X_Q", params=(),
          hand=sp.Symbol("X_Q"), hand_reason="repeats (3.6); sums over i", section=SA)
CHIA_LATEX = r"\chi_{n}(t)=\exp\left(\sum_{i=1}^{\infty}\tilde{\kappa}_{r}(X_{Q})\frac{(it)^{r}}{r!}\right),"
P.formula("chi_n_exact", "App. A", CHIA_LATEX, role="identity", quantity=r"\chi_n(t)", params=(),
          hand=sp.exp(sp.Sum(sp.Function("kappatilde")(sp.Symbol("r")) * (sp.I * tt) ** sp.Symbol("r")
                             / sp.factorial(sp.Symbol("r")), (sp.Symbol("r"), 1, sp.oo))),
          hand_reason="encoded with summation index r (the printed index is i)", section=SA)


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
        latex=CHIA_LATEX, section=SA, formulas=("chi_n_exact",), check=_index_check)

# ----------------------------------------------------------------------------- (A.2)
A2_R = r"\displaystyle=\sigma_{n}^{-r}\sum_{i=1}^{n}\tilde{\kappa}_{r}(L_{i}),\;\;\forall r>2."
P.formula("eqA_2", "(A.2)", A2_R, role="identity", quantity=r"\tilde{\kappa}_r(X_Q)", params=(),
          hand=sigma_n ** -sp.Symbol("r") * sp.Symbol("kappatilde_r_sum"),
          hand_reason="a sum over i of cumulants", section=SA)
for nm, lx in (("eqA_2.k1", r"\displaystyle=\mathbb{E}_{Q}(X_{Q})=0,"),
               ("eqA_2.k2", r"\displaystyle=\mathbb{V}\text{ar}_{Q}(X_{Q})=1,")):
    P.formula(nm, "(A.2)", lx, role="identity", quantity="", params=(), hand=sp.Integer(0 if nm.endswith("1") else 1),
              hand_reason="a moment of X_Q", section=SA)


def _a2_check():
    s, m1, m2, t = sp.symbols("s m1 m2 t")
    K1, K2 = sp.Function("K1"), sp.Function("K2")
    KX = K1(t / s) + K2(t / s) - t * (m1 + m2) / s
    xi = sp.Symbol("xi")
    bad = {}
    for r in range(3, 7):
        got = sp.diff(KX, t, r).subs(t, 0).doit()
        want = s ** -r * (sp.diff(K1(xi), xi, r) + sp.diff(K2(xi), xi, r)).subs(xi, 0)
        if not symbolic_zero(sp.simplify(got - want.doit())):
            bad[r] = sp.sstr(got - want)
    if not bad:
        return Verdict("proved", "SymPy: r-th derivative at 0 of K_X(t) = sum_i K_i(t/s) - t sum mu_i/s is "
                       "s^-r sum_i K_i^(r)(0), r = 3..6 (two summands)")
    return Verdict("fails", "SymPy derivatives", counterexample=bad)


P.claim("eqA_2.scaling", "(A.2)", "identity",
        "kappatilde_r(X_Q) = sigma_n^{-r} sum_i kappatilde_r(L_i) for r > 2 (cumulants are shift invariant "
        "and homogeneous of degree r, additive over independent terms)",
        latex=A2_R, section=SA, formulas=("eqA_2",), check=_a2_check)

# ----------------------------------------------------------------------------- (A.3)
A3_1 = r"\displaystyle\exp\left(-\frac{t^{2}}{2}\right)\exp\left(\sum_{r=3}^{\infty}\frac{\sigma_{n}^{-r}}{r!}\bm{\tilde{\kappa}}_{r}(it)^{r}\right)"
A3_2 = r"\displaystyle\exp\left(-\frac{t^{2}}{2}\right)\exp\left(\sum_{r=3,4}\frac{\sigma_{n}^{-r}}{r!}\bm{\tilde{\kappa}}_{r}(it)^{r}\right)"
A3_3 = r"\displaystyle\exp\left(-\frac{t^{2}}{2}\right)\bigg{(}1+\sigma_{n}^{-3}\cdot\overbrace{\frac{1}{6}\bm{\tilde{\kappa}}_{3}(it)^{3}}^{r_{1}(it)}"
A3_4 = r"\displaystyle+\sigma_{n}^{-4}\cdot\overbrace{\frac{1}{24}\bm{\tilde{\kappa}}_{4}(it)^{4}}^{r_{2}(it)}+\sigma_{n}^{-6}\cdot\overbrace{\frac{1}{72}\bm{\tilde{\kappa}}_{3}^{2}(it)^{6}}^{r_{3}(it)}\bigg{)}."
A3_EXPR = sp.exp(-tt ** 2 / 2) * (1 + sigma_n ** -3 * kt3 * (sp.I * tt) ** 3 / 6 + sigma_n ** -4 * kt4 * (sp.I * tt) ** 4 / 24
                                  + sigma_n ** -6 * kt3 ** 2 * (sp.I * tt) ** 6 / 72)
P.formula("eqA_3", "(A.3)", A3_1, role="identity", quantity=r"\chi_n(t)", params=(),
          hand=sp.exp(-tt ** 2 / 2) * sp.exp(sp.Sum(sigma_n ** -sp.Symbol("r") / sp.factorial(sp.Symbol("r"))
                                                    * sp.Function("kappatilde")(sp.Symbol("r")) * (sp.I * tt) ** sp.Symbol("r"),
                                                    (sp.Symbol("r"), 3, sp.oo))),
          hand_reason="\\bm and an infinite sum", section=SA)
P.formula("eqA_3.trunc", "(A.3)", A3_2, role="approximation", quantity=r"\chi_n(t)", params=(),
          hand=sp.exp(-tt ** 2 / 2) * sp.exp(sigma_n ** -3 * kt3 * (sp.I * tt) ** 3 / 6 + sigma_n ** -4 * kt4 * (sp.I * tt) ** 4 / 24),
          hand_reason="\\bm", section=SA)
P.formula("eqA_3.expand", "(A.3)", A3_3, role="approximation", quantity=r"\chi_n(t)", params=(),
          hand=A3_EXPR, hand_reason="two lines with \\overbrace and \\bm (line 2: eqA_3.expand2)", section=SA)
P.formula("eqA_3.expand2", "(A.3)", A3_4, role="approximation", quantity="", params=(),
          hand=A3_EXPR - sp.exp(-tt ** 2 / 2) * (1 + sigma_n ** -3 * kt3 * (sp.I * tt) ** 3 / 6),
          hand_reason="\\overbrace and \\bm", section=SA)


def _a3_first_check():
    r = sp.Symbol("r")
    K = [sp.Symbol(f"c{j}") for j in range(3, 7)]
    lhs = sum(((0, 1) + tuple(K))[j - 1] * (sp.I * tt) ** j / sp.factorial(j) for j in range(1, 7))
    rhs = -tt ** 2 / 2 + sum(K[j - 3] * (sp.I * tt) ** j / sp.factorial(j) for j in range(3, 7))
    del r
    if symbolic_zero(sp.expand(lhs - rhs)):
        return Verdict("proved", "SymPy: with kappatilde_1(X_Q) = 0, kappatilde_2(X_Q) = 1 the r = 1, 2 terms give "
                       "-t^2/2 (checked through r = 6)")
    return Verdict("fails", "SymPy")


P.claim("eqA_3.first", "(A.3)", "identity", "the r = 1, 2 cumulant terms of log chi_n give exp(-t^2/2)",
        latex=A3_1, section=SA, formulas=("eqA_3",), check=_a3_first_check)


def _a3_expand_check():
    e = sp.Symbol("e_bk")
    t1 = e * sigma_n ** -3 * kt3 * u ** 3 / 6
    t2 = e ** 2 * sigma_n ** -4 * kt4 * u ** 4 / 24
    truth = sp.expand(sp.series(sp.exp(t1 + t2), e, 0, 3).removeO().subs(e, 1))
    printed = sp.expand((A3_EXPR * sp.exp(tt ** 2 / 2)).subs(tt, -sp.I * u))   # it = u
    if symbolic_zero(sp.expand(truth - printed)):
        return Verdict("proved", "SymPy: second-order expansion of exp(t_1 + t_2) in the n^{-1/2} bookkeeping")
    return Verdict("fails", "SymPy expansion", derived=truth,
                   counterexample={"difference": sp.sstr(sp.expand(truth - printed))})


P.claim("eqA_3.expand", "(A.3)", "identity",
        "exp(t_1 + t_2) ~ 1 + t_1 + t_2 + t_1^2/2 with t_1^2/2 = sigma_n^-6 kappatilde_3^2 (it)^6/72",
        latex=A3_4, section=SA, formulas=("eqA_3.expand", "eqA_3.expand2"), check=_a3_expand_check)

# ----------------------------------------------------------------------------- (A.4)-(A.6)
P.formula("eqA_4", "(A.4)",
          r"\widetilde{F}_{n}(h)\approx\Phi(h)+\sigma_{n}^{-3}\cdot R_{1}(h)+\sigma_{n}^{-4}\cdot R_{2}(h)+\sigma_{n}^{-6}\cdot R_{3}(h),",
          role="approximation", quantity=r"\widetilde{F}_n(h)", params=(),
          hand=Phi(h) + sum(sigma_n ** -k * sp.Function(f"R_{j}")(h) for j, k in ((1, 3), (2, 4), (3, 6))),
          hand_reason="abstract R_j", section=SA)
P.formula("fs_transform", "App. A", r"\int_{-\infty}^{\infty}e^{ith}dR_{j}(h)=r_{j}(it)e^{-t^{2}/2}.",
          role="definition", quantity=r"R_j", params=(), hand=sp.Function("r_j")(sp.I * tt) * sp.exp(-tt ** 2 / 2),
          hand_reason="a Fourier-Stieltjes transform", section=SA)


def _fs(g_expr, t):
    """int e^{ith} g(h) dh by quadrature (g decays like a Gaussian)."""
    g = sp.lambdify(h, g_expr, "mpmath")
    pts = [-12, -6, -3, 0, 3, 6, 12]            # |g| < 1e-25 beyond |h| = 12
    re = mp.quad(lambda x: mp.cos(t * x) * g(x), pts)
    im = mp.quad(lambda x: mp.sin(t * x) * g(x), pts)
    return mp.mpc(re, im)


def _fs_draws(make_density, target, seed):
    """draw: j, t; compare int e^{ith} d{G_j(h)} (density make_density(j)) with target(j, t)."""
    def draw(rng):
        j = rng.randint(1, 5)
        t = mp.mpf(rng.uniform(-2.5, 2.5))
        with mp.workdps(15):
            val = _fs(dens[j], t)
            return {"j": j, "t": t}, abs(val - target(j, t)), mp.mpf(0)
    dens = {j: make_density(j) for j in range(1, 6)}
    return lambda: check_draws(draw, "==", n=4, seed=seed, tol_digits=10,
                               method="|int e^{ith} dG(h) - target| by quadrature on [-12, 12] (mpmath, 15 digits)")


DJ_LATEX = r"e^{-t^{2}/2}=(-it)^{-j}\int_{-\infty}^{\infty}e^{ith}d\left\{D^{j}\Phi(h)\right\}"
MDJ_LATEX = r"\int_{-\infty}^{\infty}e^{ith}d\left\{(-D)^{j}\Phi(h)\right\}=(it)^{j}e^{-t^{2}/2}."
RJ_LATEX = r"\int_{-\infty}^{\infty}e^{ith}d\left\{r_{j}(-D)\Phi(h)\right\}=r_{j}(it)e^{-t^{2}/2}."
P.claim("fs.Dj", "App. A", "identity", "e^{-t^2/2} = (-it)^{-j} int e^{ith} d{D^j Phi(h)}",
        latex=DJ_LATEX, section=SA,
        check=_fs_draws(lambda j: sp.diff(Phi(h), h, j + 1),
                        lambda j, t: (-1j * t) ** j * mp.e ** (-t ** 2 / 2), 11))
P.claim("fs.mDj", "App. A", "identity", "int e^{ith} d{(-D)^j Phi(h)} = (it)^j e^{-t^2/2}",
        latex=MDJ_LATEX, section=SA,
        check=_fs_draws(lambda j: (-1) ** j * sp.diff(Phi(h), h, j + 1),
                        lambda j, t: (1j * t) ** j * mp.e ** (-t ** 2 / 2), 12))
P.claim("fs.rj", "App. A", "identity",
        "int e^{ith} d{r_j(-D) Phi(h)} = r_j(it) e^{-t^2/2} (r_j a monomial c u^j, c = 1, by linearity)",
        latex=RJ_LATEX, section=SA,
        check=_fs_draws(lambda j: (-1) ** j * sp.diff(Phi(h), h, j + 1),
                        lambda j, t: (1j * t) ** j * mp.e ** (-t ** 2 / 2), 13))

A5_LATEX = r"R_{j}(h)=r_{j}(-D)\phi(h)."
P.formula("eqA_5", "(A.5)", A5_LATEX, role="identity", quantity=r"R_j(h)", params=(),
          hand=sp.Function("r_j(-D)")(phi(h)), hand_reason="an operator polynomial in D", section=SA)


def _a5_check():
    # r_j(u) = u^j: printed R_j = (-D)^j phi; its Fourier-Stieltjes transform must be (it)^j e^{-t^2/2}
    v = _fs_draws(lambda j: (-1) ** j * sp.diff(phi(h), h, j + 1),
                  lambda j, t: (1j * t) ** j * mp.e ** (-t ** 2 / 2), 14)()
    if v.status == "fails":
        v.derived = sp.Symbol("r_j(-D)") * sp.Function("Phi")(h)
        v.note = ("(A.5) should read R_j(h) = r_j(-D) Phi(h), as the display before it gives; with phi the "
                  "transform of dR_j is (it)^j (-it) e^{-t^2/2}, one derivative too many; (A.8) itself follows "
                  "from the Phi reading (claim eqA_8.derivation)")
    return v


P.claim("eqA_5", "(A.5)", "identity",
        "R_j(h) = r_j(-D) phi(h) has Fourier-Stieltjes transform r_j(it) e^{-t^2/2}",
        latex=A5_LATEX, section=SA, formulas=("eqA_5", "fs_transform"), check=_a5_check)

A6_LATEX = r"(-D)^{j}\Phi(h)=-He_{j-1}(h)\phi(h)"


def _a6_check():
    bad = {}
    for j in range(1, 9):
        d = (-1) ** j * sp.diff(Phi(h), h, j) + sp.hermite_prob(j - 1, h) * phi(h)
        if not symbolic_zero(sp.simplify(d)):
            bad[j] = sp.sstr(sp.simplify(d))
    if not bad:
        return Verdict("proved", "SymPy: (-D)^j Phi + He_{j-1} phi = 0 for j = 1..8 (sympy.hermite_prob)")
    return Verdict("fails", "SymPy", counterexample=bad)


P.claim("eqA_6", "(A.6)", "identity", "(-D)^j Phi(h) = -He_{j-1}(h) phi(h), j >= 1",
        latex=A6_LATEX, section=SA, check=_a6_check)

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


def _he_check(j):
    def run():
        truth = sp.hermite_prob(j, h)
        v = check_equal(truth, HE[j].expr, (H,), n=10, derived=truth,
                        method=f"SymPy: printed He_{j} minus sympy.hermite_prob({j}, h)")
        if v.status == "fails":
            v.note = f"missing terms: {sp.sstr(sp.expand(truth - HE[j].expr))}"
        return v
    return run


for j in range(8):
    P.claim(f"eqA_7.He{j}", "(A.7)", "identity", f"He_{j}(h) as printed is the probabilists' Hermite polynomial",
            latex=HE_LATEX[j], section=SA, formulas=(f"eqA_7.He{j}",), check=_he_check(j))

# ----------------------------------------------------------------------------- (A.8)
A8 = (r"\displaystyle\Phi(h)+\sigma_{n}^{-3}\cdot-\frac{1}{6}\bm{\tilde{\kappa}}_{3}(h^{2}-1)\phi(h)",
      r"\displaystyle+\sigma_{n}^{-4}\cdot-\frac{1}{24}\bm{\tilde{\kappa}}_{4}(h^{3}-3h)\phi(h)",
      r"\displaystyle+\sigma_{n}^{-6}\cdot-\frac{1}{72}\bm{\tilde{\kappa}}_{3}^{2}(h^{5}-10h^{3}+15h)\phi(h).")
A8_TERMS = (Phi(h) + sigma_n ** -3 * (-sp.Rational(1, 6)) * kt3 * (h ** 2 - 1) * phi(h),
            sigma_n ** -4 * (-sp.Rational(1, 24)) * kt4 * (h ** 3 - 3 * h) * phi(h),
            sigma_n ** -6 * (-sp.Rational(1, 72)) * kt3 ** 2 * (h ** 5 - 10 * h ** 3 + 15 * h) * phi(h))
A8_EXPR = sum(A8_TERMS)
P.formula("eqA_8", "(A.8)", A8[0], role="approximation", quantity=r"\widetilde{F}_n(h)",
          params=(H, SIGMA_N, KT3, KT4), hand=A8_EXPR,
          hand_reason="three lines with '\\cdot-' and \\bm; the expression is all three (lines 2-3: eqA_8.l2, .l3)",
          section=SA)
for k_, lx in ((2, A8[1]), (3, A8[2])):
    P.formula(f"eqA_8.l{k_}", "(A.8)", lx, role="approximation", quantity="", params=(H, SIGMA_N, KT3, KT4),
              hand=A8_TERMS[k_ - 1], hand_reason="'\\cdot-' and \\bm", section=SA)

P.generic("eqA_8.vs_3_7", "(A.8)", "identity", "(A.8) (written '+ sigma^-3 . -1/6 ...') and (3.7) (written '- T_1 - T_2') are the same expression: "
        "the sign conventions agree", shown_kind="identity",
          latex=A8[0], section=SA, formulas=("eqA_8", "eq3_7"),
          params=(H, SIGMA_N, KT3, KT4),
          lhs=EQ37, rhs=A8_EXPR, truth_side="lhs")
P.generic("eqA_8.derivation", "(A.8)", "identity", "(A.8) follows from (A.4) with R_j = r_j(-D) Phi and (A.6)", shown_kind="identity",
          latex=A8[2], section=SA, formulas=("eqA_8",),
          params=(H, SIGMA_N, KT3, KT4),
          lhs=edgeworth_truth(kt3, kt4, sigma_n), rhs=A8_EXPR, truth_side="lhs")

# ----------------------------------------------------------------------------- truncation errors
T1_LATEX = r"t_{1}:=\sigma^{-3}_{n}\cdot\frac{1}{6}\bm{\tilde{\kappa}}_{3}(it)^{3}"
T2_LATEX = r"t_{2}:=\sigma^{-4}_{n}\cdot\frac{1}{24}\bm{\tilde{\kappa}}_{4}(it)^{4}"
P.formula("t1", "App. A", T1_LATEX, role="definition", quantity="t_1", params=(),
          hand=sigma_n ** -3 * kt3 * (sp.I * tt) ** 3 / 6, hand_reason="\\bm", section=SA)
P.formula("t2", "App. A", T2_LATEX, role="definition", quantity="t_2", params=(),
          hand=sigma_n ** -4 * kt4 * (sp.I * tt) ** 4 / 24, hand_reason="\\bm", section=SA)
K5_LATEX = r"\dfrac{1}{120}\sigma_{n}^{-5}\bm{\tilde{\kappa}}_{5}(it)^{5}"
P.formula("err_r5", "App. A", K5_LATEX, role="approximation", quantity="", params=(),
          hand=sigma_n ** -5 * kt5 * (sp.I * tt) ** 5 / 120, hand_reason="\\bm", section=SA)


def _r5_check():
    c = 1 / sp.factorial(5)
    if c == sp.Rational(1, 120):
        return Verdict("proved", "the r = 5 term of sum_r sigma^-r kappatilde_r (it)^r / r! has 1/5! = 1/120")
    return Verdict("fails", "coefficient", derived=c)


P.claim("err_r5", "App. A", "identity", "the first omitted cumulant term is sigma^-5 kappatilde_5 (it)^5/120",
        latex=K5_LATEX, section=SA, formulas=("err_r5",), check=_r5_check)

T22_LATEX = r"\sigma^{-8}_{n}\cdot\frac{1}{576}\bm{\tilde{\kappa}}^{2}_{4}(it)^{8}"
P.formula("err_t2sq", "App. A", T22_LATEX, role="approximation", quantity="", params=(),
          hand=sigma_n ** -8 * kt4 ** 2 * (sp.I * tt) ** 8 / 576, hand_reason="\\bm", section=SA)


def omitted_terms():
    """exp(t_1 + t_2) - (1 + t_1 + t_2 + t_1^2/2) in the i.i.d. scaling t_1 = w a u^3, t_2 = w^2 b u^4
    (w = n^{-1/2}), by order of w (SymPy series)."""
    a, b = sp.symbols("a b")
    t1, t2 = w * a * u ** 3, w ** 2 * b * u ** 4
    rem = sp.expand(sp.series(sp.exp(t1 + t2), w, 0, 5).removeO() - (1 + t1 + t2 + t1 ** 2 / 2))
    return {k: sp.factor(rem.coeff(w, k)) for k in range(3, 5)}


def _t2sq_check():
    om = omitted_terms()
    lowest = min(k for k, v in om.items() if v != 0)
    if lowest == 4:
        return Verdict("proved", "SymPy: the omitted terms start at n^-2")
    return Verdict("fails", "SymPy series of exp(t_1 + t_2) in w = n^{-1/2}",
                   counterexample={"omitted at n^-3/2": sp.sstr(om[3]), "omitted at n^-2": sp.sstr(om[4]),
                                   "t_2^2 term": "b^2 u^8 / 2 at n^-2"},
                   derived=om[3],
                   note="t_1 t_2 and t_1^3/6 are O(n^{-3/2}) and dominate t_2^2 = O(n^{-2}); the n^{-3/2} "
                        "conclusion survives because the r = 5 term is of the same order")


P.claim("err_t2sq", "App. A", "asymptotic",
        "the error of truncating the expansion of the r = 3, 4 terms is dominated by the square of t_2",
        latex=T22_LATEX, section=SA, formulas=("err_t2sq",), check=_t2sq_check)

# ----------------------------------------------------------------------------- (A.9)
A9 = ((r"\displaystyle\sigma^{-3}_{n}\cdot\bm{\tilde{\kappa}}_{3}(it)^{3}\sim n^{-1/2}(it)^{3},", 3, 1, 1, sp.Rational(-1, 2)),
      (r"\displaystyle\sigma^{-4}_{n}\cdot\bm{\tilde{\kappa}}_{4}(it)^{4}\sim n^{-1}(it)^{4},", 4, 1, 1, -1),
      (r"\displaystyle\sigma^{-6}_{n}\cdot\bm{\tilde{\kappa}}^{2}_{3}(it)^{6}\sim n^{-1}(it)^{6},", 6, 2, 1, -1),
      (r"\displaystyle\sigma^{-8}_{n}\cdot\bm{\tilde{\kappa}}^{2}_{4}(it)^{8}\sim n^{-2}(it)^{8},", 8, 2, 1, -2),
      (r"\displaystyle\sigma^{-5}_{n}\cdot\bm{\tilde{\kappa}}_{5}(it)^{5}\sim n^{-3/2}(it)^{5}.", 5, 1, 1, sp.Rational(-3, 2)))
for idx, (lx, sp_pow, kpow, _, npow) in enumerate(A9):
    P.formula(f"eqA_9.{idx + 1}", "(A.9)", lx, role="approximation", quantity="", params=(),
              hand=n ** npow * (sp.I * tt) ** sp_pow, hand_reason="an order relation (~) with \\bm", section=SA)


def _a9_check():
    s, c = sp.symbols("s c", positive=True)
    bad = {}
    for lx, spow, kpow, _, npow in A9:
        expr = (sp.sqrt(n) * s) ** -spow * (n * c) ** kpow     # sigma_n = sqrt(n) sigma, kappatilde_r = n kappatilde_r
        lim = sp.limit(expr / n ** npow, n, sp.oo)
        if lim == 0 or lim.has(sp.oo):
            bad[lx] = sp.sstr(lim)
    if not bad:
        return Verdict("proved", "SymPy: with sigma_n = sqrt(n) sigma and kappatilde_r = n kappatilde_r each term "
                       "over the stated power of n has a finite non-zero limit")
    return Verdict("fails", "SymPy limits", counterexample=bad)


P.claim("eqA_9", "(A.9)", "asymptotic", "the orders in n of the five terms of (A.9) under i.i.d. scaling",
        latex=A9[0][0], section=SA, formulas=tuple(f"eqA_9.{i}" for i in range(1, 6)), check=_a9_check)

CHI_ERR = r"O\left(n^{-2}(it)^{8}+n^{-3/2}(it)^{5}\right)"


def _chi_err_check():
    c3, c4, c5 = sp.symbols("c3 c4 c5")
    expo = sum(cr * w ** (r - 2) * u ** r / sp.factorial(r) for r, cr in ((3, c3), (4, c4), (5, c5)))
    full = sp.expand(sp.series(sp.exp(expo), w, 0, 4).removeO())
    kept = sp.expand(1 + w * c3 * u ** 3 / 6 + w ** 2 * (c4 * u ** 4 / 24 + c3 ** 2 * u ** 6 / 72))
    err3 = sp.expand(full - kept).coeff(w, 3)
    degs = sorted(sp.Poly(err3, u).monoms())
    if degs == [(5,)]:
        return Verdict("proved", "SymPy: the n^{-3/2} error term is a multiple of (it)^5")
    return Verdict("fails", "SymPy expansion of exp(sum_r kappatilde_r(X_Q) (it)^r / r!) in w = n^{-1/2}",
                   counterexample={"n^-3/2 error term": sp.sstr(sp.factor(err3)),
                                   "powers of (it)": [int(d[0]) for d in degs]},
                   derived=err3,
                   note="the n^{-3/2} error has (it)^5, (it)^7 and (it)^9 terms (P_3 of Sec. 3.1, degree 9); "
                        "the CDF error is then O(n^{-3/2}) times He_4, He_6, He_8")


P.claim("chi_err", "App. A", "asymptotic",
        "the error of the characteristic-function approximation is O(n^-2 (it)^8 + n^-3/2 (it)^5)",
        latex=CHI_ERR, section=SA, check=_chi_err_check)

HE_ERR = r"O\left(n^{-2}He_{7}(h)+n^{-3/2}He_{4}(h)\right)"


def _he_err_check():
    # (it)^8 e^{-t^2/2} <-> (-D)^8 Phi = -He_7 phi, (it)^5 <-> -He_4 phi (A.6)
    ok = all(symbolic_zero(sp.simplify((-1) ** j * sp.diff(Phi(h), h, j) + sp.hermite_prob(j - 1, h) * phi(h)))
             for j in (5, 8))
    if ok:
        return Verdict("proved", "SymPy: (it)^8 -> He_7(h) phi(h), (it)^5 -> He_4(h) phi(h) via (A.6)")
    return Verdict("fails", "SymPy")


P.claim("he_err", "App. A", "identity",
        "the (it)^8 and (it)^5 error terms map to He_7 and He_4 through (A.5)-(A.6)",
        latex=HE_ERR, section=SA, check=_he_err_check,
        note="the mapping is right; the list of terms inherits the omission of claim chi_err")

H_ERR = r"O\left(n^{-2}h^{7}+n^{-3/2}h^{3}\right)"


def _h_err_check():
    d4 = int(sp.degree(sp.hermite_prob(4, h), h))
    d7 = int(sp.degree(sp.hermite_prob(7, h), h))
    if (d7, d4) == (7, 3):
        return Verdict("proved", "degrees of He_7 and He_4")
    return Verdict("fails", "sympy.hermite_prob degrees",
                   counterexample={"deg He_7": d7, "deg He_4": d4, "printed powers": "h^7, h^3"},
                   derived=n ** -2 * h ** 7 + n ** sp.Rational(-3, 2) * h ** 4,
                   note="He_4(h) = h^4 - 6h^2 + 3 grows like h^4, not h^3")


P.claim("h_err", "App. A", "asymptotic", "O(n^-2 He_7(h) + n^-3/2 He_4(h)) is O(n^-2 h^7 + n^-3/2 h^3)",
        latex=H_ERR, section=SA, check=_h_err_check)

P.formula("iid_sigma", "App. A", r"\sigma_{n}=\sqrt{n}\sigma", role="identity", quantity=r"\sigma_n", params=(),
          hand=sp.sqrt(n) * sp.Symbol("sigma_1", positive=True), hand_reason="sigma here is the per-step sd",
          section=SA)
