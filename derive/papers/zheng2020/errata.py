"""Errata of Zheng, Dong, Long, Su (2020, seed 004): failing claims grouped by root cause.
Same fields as derive/papers/asoodeh2021/errata.py."""

ERRATA = [
    dict(key="asym_variance", claims=["eq3_4.last", "eq3_5.exact", "eq3_8.sigma"], severity="changes a stated result",
         title="the asymmetric case is normalised by the Q-variance where the P-variance is needed",
         printed=r"\mu_n = \frac{\mathbb{E}_Q[T_n] - \mathbb{E}_P[T_n]}{\sqrt{\mathbb{V}\mathrm{ar}_Q[T_n]}}, "
                 r"\qquad \sigma_n^2 = \sum_i \mathbb{V}\mathrm{ar}_{Q_i}[L_i]",
         corrected=r"\mu_n = \frac{\mathbb{E}_Q[T_n] - \mathbb{E}_P[T_n]}{\sqrt{\mathbb{V}\mathrm{ar}_P[T_n]}}, "
                   r"\qquad \sigma_n^2 = \sum_i \mathbb{V}\mathrm{ar}_{P_i}[L_i]",
         wrong=r"\mathbb{V}\mathrm{ar}_Q[T_n]", right=r"\mathbb{V}\mathrm{ar}_P[T_n]",
         setting="exact pair P = Exp(1)^n, Q = Exp(rate 2)^n (incomplete gamma functions); the last step of "
                 "(3.4) at arbitrary means and variances",
         explanation="With the Q-variances, (3.4)'s last step and (3.5) hold only when Var_P = Var_Q (the "
                     "symmetric case the text has just left), and (3.8)'s error is O(n^{-1/2}), not O(n^{-3/2}); "
                     "the noisy-SGD mixture is such an asymmetric case.",
         corrected_check={"eq3_4.last": {"rhs": "sqrt(V_P)*(h - (-E_P + E_Q)/sqrt(V_P))/sqrt(V_Q)"}}),
    dict(key="footnote2_Fn", claims=["footnote2.approximates"], severity="typo",
         title="footnote 2: F~_EW(h) approximates F~_n(h), not F_n(h)",
         printed=r"\text{a numerical approximation to } F_{n}(h)",
         corrected=r"\text{a numerical approximation to } \widetilde{F}_{n}(h)",
         wrong=r"F_{n}(h)", right=r"\widetilde{F}_{n}(h)",
         setting="symmetric pair Exp(1)^n x Exp(2)^n vs Exp(2)^n x Exp(1)^n (skewed privacy loss; F_n by quadrature, "
                 "F~_n(h) = 1 - F_n(-h)), h in {-1, 0, 1}, n = 50 ... 400",
         explanation="(3.7) is built from the cumulants under Q, so it approximates the CDF under Q: against "
                     "F~_n(h) the error decays like n^-3/2, against F_n(h) only like n^-1/2 (no better than the "
                     "CLT). The sentence introducing (3.7) says F~_n(h), so this is a slip of the footnote."),
    dict(key="method_i", claims=["method_i"], severity="typo",
         title="Method (i) solves F_EW(h) - (1 - alpha) = 0",
         printed=r"F_{\mathtt{EW}}(h)-1-\alpha=0", corrected=r"F_{\mathtt{EW}}(h)-(1-\alpha)=0",
         wrong=r"-1-\alpha", right=r"-(1-\alpha)",
         setting="kappa_3 = kappa_4 = 0, so F_EW = Phi",
         explanation="As printed the equation has no solution (F_EW <= 1 < 1 + alpha).",
         corrected_check={"method_i": {"lhs": "Phi(PhiInv(1 - alpha)) - (1 - alpha)"}}),
    dict(key="recursion_weight", claims=["rec.delta_k1", "rec.grid"], severity="wrong but harmless",
         title="the numerical recursion drops the weight q(x) of Lemma 5.2",
         printed=r"\delta_{k+1}(\varepsilon) = \int\delta_{k}\big(\varepsilon-L(x)\big)\,\mathrm{d}x",
         corrected=r"\delta_{k+1}(\varepsilon) = \int\delta_{k}\big(\varepsilon-L(x)\big)\,q(x)\,\mathrm{d}x",
         wrong=r"\,\mathrm{d}x", right=r"\,q(x)\,\mathrm{d}x",
         setting="a discrete pair P, Q; delta_2 by brute force over events of P x P vs Q x Q",
         explanation="The same display on the grid (the next line). Against Lebesgue measure the printed integral "
                     "diverges, e.g. for N(0,1) vs N(1,1) the integrand tends to 1 as x -> oo.",
         correction_unchecked=("the corrected recursion weights delta_k by q(x) (Lemma 5.2); the claims' fields are the "
                              "discrete sums of the printed recursion, and with the weight they are the truth's own "
                              "formula (sup over events of the product pmfs), so there is nothing separate to check")),
    dict(key="defref", claims=["laplace.defref"], severity="typo",
         title="f_{eps,delta} is given in Proposition 2.4, not 'Definition 2.4'",
         printed=r"\text{see Definition 2.4}", corrected=r"\text{see Proposition 2.4}",
         wrong=r"\text{see Definition 2.4}", right=r"\text{see Proposition 2.4}",
         setting="the paper's numbered definitions (2.1, 2.2, 3.1) and propositions (2.3, 2.4)",
         explanation="Cross-reference slip."),
    dict(key="p_neg_half", claims=["sgd.p_neg_half"], severity="typo",
         title="the second noisy-SGD regime is p = 0.5/n^{1/2}",
         printed=r"p=0.5/n^{-\frac{1}{2}}", corrected=r"p=0.5/n^{\frac{1}{2}}",
         wrong=r"n^{-\frac{1}{2}}", right=r"n^{\frac{1}{2}}",
         setting="integer n >= 5",
         explanation="As printed p = 0.5 sqrt(n) exceeds 1 for n >= 5; App. E and Fig. E.2 use 0.5/n^{1/2}.",
         corrected_check={"sgd.p_neg_half": {"lhs": "1/(2*sqrt(n))"}}),
    dict(key="caption_shorthand", claims=["fig5_3.caption", "figE_1.caption"], severity="typo",
         title="the captions' p(G_1 + Id) drops the weight 1 - p of Id",
         printed=r"0.5/n^{\frac{1}{4}}(G_{1}+\mathrm{Id})^{\otimes n}",
         corrected=r"\left(p\,G_{1}+(1-p)\,\mathrm{Id}\right)^{\otimes n},\ p = 0.5/n^{\frac{1}{4}}",
         wrong=r"(G_{1}+\mathrm{Id})", right=r"\left(p\,G_{1}+(1-p)\,\mathrm{Id}\right)",
         setting="the trade-off functions at alpha = 0",
         explanation="Fig. 5.3 / Table 2 (p = 0.5/n^{1/4}) and Fig. E.1 (p = 0.5/n^{1/2}); they agree only at n = 1.",
         correction_unchecked=("the corrected caption (p G_1 + (1 - p) Id)^{otimes n} is the truth side of the claims "
                              "itself; substituting it checks nothing")),
    dict(key="sum_index", claims=["chi_n_exact.index"], severity="typo",
         title="the cumulant series sums over r, not i",
         printed=r"\chi_{n}(t)=\exp\left(\sum_{i=1}^{\infty}\tilde{\kappa}_{r}(X_{Q})\frac{(it)^{r}}{r!}\right)",
         corrected=r"\chi_{n}(t)=\exp\left(\sum_{r=1}^{\infty}\tilde{\kappa}_{r}(X_{Q})\frac{(it)^{r}}{r!}\right)",
         wrong=r"\sum_{i=1}^{\infty}", right=r"\sum_{r=1}^{\infty}",
         setting="symbolic",
         explanation="i is also the imaginary unit in (it)^r."),
    dict(key="A5_phi", claims=["eqA_5"], severity="typo",
         title="(A.5) should read R_j(h) = r_j(-D) Phi(h)",
         printed=r"R_{j}(h)=r_{j}(-D)\phi(h)", corrected=r"R_{j}(h)=r_{j}(-D)\Phi(h)",
         wrong=r"\phi(h)", right=r"\Phi(h)",
         setting="Fourier-Stieltjes transform integrated by SymPy, compared at t = -3 (50 digits)",
         explanation="With phi the transform has one derivative too many; (A.8) follows from the Phi reading, as "
                     "the display before (A.5) gives.",
         correction_unchecked=("the claim compares Fourier-Stieltjes transforms computed from (A.5) with phi; with Phi the "
                              "transform is the display before (A.5), which the claim uses as its truth")),
    dict(key="He7", claims=["eqA_7.He7"], severity="typo",
         title="He_7 misses its last term -105 h",
         printed=r"\mathrm{He}_7(h)=h^{7}-21h^{5}+105h^{3}", corrected=r"\mathrm{He}_7(h)=h^{7}-21h^{5}+105h^{3}-105h",
         wrong=r"105h^{3}", right=r"105h^{3}-105h",
         setting="sympy.hermite_prob(7, h)",
         explanation="The probabilists' Hermite polynomial of degree 7.",
         corrected_check={"eqA_7.He7": {"rhs": "h**7 - 21*h**5 + 105*h**3 - 105*h"}}),
    dict(key="appA_error_terms", claims=["err_t2sq", "chi_err"], severity="wrong but harmless",
         title="App. A's error bookkeeping omits the n^{-3/2} cross terms t_1 t_2 and t_1^3/6",
         printed=r"O\left(n^{-2}(it)^{8}+n^{-3/2}(it)^{5}\right)",
         corrected=r"O\left(n^{-2}(it)^{8}+n^{-3/2}\left((it)^{5}+(it)^{7}+(it)^{9}\right)\right)",
         wrong=r"n^{-3/2}(it)^{5}", right=r"n^{-3/2}\left((it)^{5}+(it)^{7}+(it)^{9}\right)",
         setting="SymPy expansion of exp(sum_r kappatilde_r (it)^r / r!) in w = n^{-1/2}",
         explanation="The truncation error is dominated by t_1 t_2 and t_1^3/6 = O(n^{-3/2}), not by t_2^2 = "
                     "O(n^{-2}); the n^{-3/2} conclusion survives because the r = 5 term is of the same order. "
                     "Through (A.5)-(A.6) the added (it)^7 and (it)^9 terms map to He_6(h) and He_8(h), so in h the "
                     "n^{-3/2} error grows like h^8, not like He_4(h) ~ h^4 (see the erratum on He_4's degree).",
         corrected_check={"err_t2sq": {"h": "b**2*u**8*w**4 + w**3*(u**7 + u**9)"},
                          "chi_err": {"value": "c5*u**5/120 + c3*c4*u**7/144 + c3**3*u**9/1296"}}),
    dict(key="He4_degree", claims=["h_err"], severity="typo",
         title="He_4(h) grows like h^4, not h^3; with the n^{-3/2} terms App. A's bookkeeping omits, the error grows "
               "like h^8",
         printed=r"O\left(n^{-2}h^{7}+n^{-3/2}h^{3}\right)", corrected=r"O\left(n^{-2}h^{7}+n^{-3/2}h^{4}\right)",
         wrong=r"h^{3}", right=r"h^{4}",
         setting="degrees of sympy.hermite_prob",
         explanation="He_4(h) = h^4 - 6h^2 + 3, so the printed list O(n^-2 He_7(h) + n^-3/2 He_4(h)) is "
                     "O(n^-2 h^7 + n^-3/2 h^4). That list is itself incomplete (the erratum on App. A's error "
                     "bookkeeping): the omitted n^-3/2 terms (it)^7 and (it)^9 map to He_6 and He_8, so the whole "
                     "n^-3/2 part of the error grows like h^8, i.e. O(n^-2 h^7 + n^-3/2 h^8); the corrected line "
                     "above corrects only the degree of He_4.",
         corrected_check={"h_err": {"f": "hermite_prob(7, h)/h**7 + hermite_prob(4, h)/h**4"}}),
    dict(key="figref_E", claims=["appE.figref"], severity="typo",
         title="'See Figure E.2 and E.2' means Figures E.1 and E.2",
         printed=r"\text{See Figure E.2 and E.2}", corrected=r"\text{See Figures E.1 and E.2}",
         wrong=r"\text{See Figure E.2 and E.2}", right=r"\text{See Figures E.1 and E.2}",
         setting="the figures of App. E",
         explanation="Cross-reference slip."),
]
