"""Errata of Asoodeh et al. (JSAIT 2021, seed 002; ISIT 2020, seed 000): failing claims grouped by
root cause.  One entry per mistake of the paper; ``claims`` lists every failing claim (every
location) the mistake produces.  ``printed``/``corrected`` are LaTeX displays; ``wrong``/``right``
are the differing terms in each (highlighted in the report).  ``setting`` names the distributions or
mechanism the counterexample uses.  Severity: "typo" (a slip the surrounding text corrects), "wrong but
harmless" (a wrong display that no stated result depends on), "changes a stated result".
A test holds this table against the verdicts: every failing claim is in exactly one entry, every
listed claim fails.
"""

ERRATA = [
    dict(key="eq18_concavity", claims=["sec3.eq18"], severity="changes a stated result",
         title="delta_alpha^eps is not concave in gamma: it is convex below delta = 1/alpha and concave "
               "(1 - e^(eps - gamma)) above",
         printed=r"\delta_\alpha^\varepsilon(\cdot)\ \text{is non-decreasing and }\text{concave}",
         corrected=r"\delta_\alpha^\varepsilon(\cdot)\ \text{is non-decreasing, }\text{convex for } \delta < "
                   r"\tfrac{1}{\alpha}\text{ and concave } (= 1 - e^{\varepsilon-\gamma}) \text{ for } \delta \ge "
                   r"\tfrac{1}{\alpha}\text{; concave in } \chi(\gamma)",
         wrong=r"\text{concave}",
         right=r"\text{convex for } \delta < \tfrac{1}{\alpha}\text{ and concave } (= 1 - e^{\varepsilon-\gamma}) "
               r"\text{ for } \delta \ge \tfrac{1}{\alpha}",
         setting="exact gamma_alpha^eps(delta) by minimisation of (78); second difference with step h",
         explanation="Neither concave nor convex in gamma on the whole range: the exact gamma_alpha^eps(delta) is "
                     "concave in delta for delta < 1/alpha (the counterexample), so delta_alpha^eps(gamma) is convex "
                     "there; for delta >= 1/alpha, i.e. gamma >= eps + log(alpha/(alpha-1)), delta_alpha^eps(gamma) = "
                     "1 - e^(eps - gamma) (App. E's boundary; claim sec3.eq18_upper), which is concave. The concave map is delta as a function of chi(gamma), the first "
                     "coordinate of R_alpha (App. B (73))."),
    dict(key="eq28_norm", claims=["sec4.eq28"], severity="wrong but harmless",
         title="the Gaussian RDP uses the squared sensitivity",
         printed=r"\frac{\alpha}{2\sigma^2} \sup_{d \sim d'} \| f(d) - f(d') \|_2",
         corrected=r"\frac{\alpha}{2\sigma^2} \sup_{d \sim d'} \| f(d) - f(d') \|_2^2",
         wrong=r"\|_2", right=r"\|_2^2",
         setting="P = N(Delta_2, sigma^2), Q = N(0, sigma^2); D_alpha by quadrature of definition (1)",
         explanation="Harmless in the paper, which takes unit sensitivity (1 = 1^2)."),
    dict(key="eq76_sign", claims=["appB.eq76", "isit.eq40"], severity="typo",
         title="the derivative of h(p, q; alpha) in q has the wrong sign (both versions)",
         printed=r"\frac{\partial h}{\partial q} = \frac{p^{\alpha}q^{-\alpha} - (1-p)^{\alpha}(1-q)^{-\alpha}}"
                 r"{p^{\alpha}q^{1-\alpha} + (1-p)^{\alpha}(1-q)^{1-\alpha}}",
         corrected=r"\frac{\partial h}{\partial q} = -\frac{p^{\alpha}q^{-\alpha} - (1-p)^{\alpha}(1-q)^{-\alpha}}"
                   r"{p^{\alpha}q^{1-\alpha} + (1-p)^{\alpha}(1-q)^{1-\alpha}}",
         wrong="", right=r"= -",
         setting="h(p,q;alpha) = log(p^alpha q^(1-alpha) + (1-p)^alpha (1-q)^(1-alpha))/(alpha-1); sympy.diff",
         explanation="The text right after the display says the derivative is negative for 0 < q < p, so h "
                     "decreases in q: that is the corrected form; only the display's sign is wrong.",
         corrected_check={"appB.eq76": {"g": "-(p**alpha/q**alpha - (1 - p)**alpha/(1 - q)**alpha)/(p**alpha*q**(1 - alpha) + (1 - p)**alpha*(1 - q)**(1 - alpha))"},
                          "isit.eq40": {"g": "-(p**alpha/q**alpha - (1 - p)**alpha/(1 - q)**alpha)/(p**alpha*q**(1 - alpha) + (1 - p)**alpha*(1 - q)**(1 - alpha))"}}),
    dict(key="eq96_middle", claims=["appD.eq96"], severity="typo",
         title="the middle term of (96)'s numerator is 2 alpha e^eps, not 2 alpha e^(2 eps)",
         printed=r"\frac{e^{\varepsilon}\left((2+\alpha)e^{2\varepsilon} - 2\alpha e^{2\varepsilon} - \alpha\right)}"
                 r"{\left(2e^{\varepsilon} + \alpha(e^{\varepsilon}-1)\right)^2}",
         corrected=r"\frac{e^{\varepsilon}\left((2+\alpha)e^{2\varepsilon} - 2\alpha e^{\varepsilon} - \alpha\right)}"
                   r"{\left(2e^{\varepsilon} + \alpha(e^{\varepsilon}-1)\right)^2}",
         wrong=r"2\alpha e^{2\varepsilon}", right=r"2\alpha e^{\varepsilon}",
         setting="f_2(alpha, eps) = e^eps (e^eps + 1)/(2 e^eps + alpha(e^eps - 1)); sympy.diff",
         explanation="The threshold in (97), e^eps = (alpha + sqrt(2 alpha(alpha+1)))/(2+alpha), is the root of "
                     "the corrected numerator.",
         corrected_check={"appD.eq96": {"rhs": "(-2*alpha*exp(varepsilon) - alpha + (alpha + 2)*exp(2*varepsilon))"
                                                        "*exp(varepsilon)/(alpha*(exp(varepsilon) - 1) + 2*exp(varepsilon))**2"}}),
    dict(key="appE_strict", claims=["appE.nonempty"], severity="typo",
         title="'<' and '<=' disagree on the boundary gamma = log(alpha/(alpha-1))",
         printed=r"\zeta_{\alpha}e^{(\alpha-1)\gamma} < \frac{1}{\alpha} \iff 1-e^{-\gamma} \le \frac{1}{\alpha}",
         corrected=r"\zeta_{\alpha}e^{(\alpha-1)\gamma} \le \frac{1}{\alpha} \iff 1-e^{-\gamma} \le \frac{1}{\alpha}",
         wrong=r"< \frac{1}{\alpha} \iff", right=r"\le \frac{1}{\alpha} \iff",
         setting="symbolic, at gamma = log(alpha/(alpha-1))",
         explanation="The two conditions agree off the boundary; there the interval is the single point 1/alpha."),
    dict(key="appF_rho", claims=["appF.rho"], severity="typo",
         title="Appendix F's rho is 1/(2 sigma^2), not 1/sigma^2 (both versions)",
         printed=r"\gamma(\alpha) = \alpha\rho T, \quad \rho = 1/\sigma^2",
         corrected=r"\gamma(\alpha) = \alpha\rho T, \quad \rho = 1/(2\sigma^2)",
         wrong=r"1/\sigma^2", right=r"1/(2\sigma^2)",
         setting="T-fold composition of P = N(1, sigma^2), Q = N(0, sigma^2); D_alpha by quadrature",
         explanation="Lemma 2 and (28) use rho = 1/(2 sigma^2); the proof of Lemma 2 works with rho symbolically."),
    dict(key="appG_plug", claims=["appG.plug"], severity="wrong but harmless",
         title="the plugged alpha = 2 log(1/delta)/eps needs eps < 2 log(1/delta) as well",
         printed=r"\varepsilon \ge 2\delta\log\tfrac{1}{\delta} \implies 1 < \alpha = \tfrac{2\log\delta^{-1}}{\varepsilon} \le \tfrac{1}{\delta}",
         corrected=r"2\delta\log\tfrac{1}{\delta} \le \varepsilon < 2\log\tfrac{1}{\delta} \implies 1 < \alpha = \tfrac{2\log\delta^{-1}}{\varepsilon} \le \tfrac{1}{\delta}",
         wrong=r"\varepsilon \ge 2\delta\log\tfrac{1}{\delta}",
         right=r"2\delta\log\tfrac{1}{\delta} \le \varepsilon < 2\log\tfrac{1}{\delta}",
         setting="the range 1 < alpha <= 1/delta of (108)",
         explanation="Automatic as delta -> 0, the regime of Theorem 5."),
    dict(key="eq110_oterm", claims=["appG.eq110_oterm"], severity="wrong but harmless",
         title="(110)'s remainder is O((log log 1/delta)^3/log^2(1/delta)), not O(1/log^2(1/delta))",
         printed=r"\cdots + O\left(\frac{1}{\log^{2}\frac{1}{\delta}}\right)",
         corrected=r"\cdots + O\left(\frac{\log^{3}\log\frac{1}{\delta}}{\log^{2}\frac{1}{\delta}}\right)",
         wrong=r"O\left(\frac{1}{\log^{2}\frac{1}{\delta}}\right)",
         right=r"O\left(\frac{\log^{3}\log\frac{1}{\delta}}{\log^{2}\frac{1}{\delta}}\right)",
         setting="(109) minus (110) times L^2, L = log(1/delta) = 1e3 ... 1e12, at 90 digits",
         explanation="Theorem 5 keeps only O(log^2 L/L), so it is unaffected."),
    dict(key="remark2_np_atoms", claims=["sec5.remark2_np"], severity="wrong but harmless",
         title="Neyman-Pearson with atoms: the test must accept on {L > eps}",
         printed=r"\beta(\tau) = \mathcal{M}_{d'}(L \ge \varepsilon), \quad \tau = \mathcal{M}_d(L \le \varepsilon)",
         corrected=r"\beta(\tau) = \mathcal{M}_{d'}(L > \varepsilon), \quad \tau = \mathcal{M}_d(L \le \varepsilon)",
         wrong=r"L \ge \varepsilon", right=r"L > \varepsilon",
         setting="a discrete (eps, delta) pair P, Q on four points; L = log dP/dQ has an atom at eps",
         explanation="Right for continuous pairs (no atom of L at eps); App. H's (114) has the right form."),
    dict(key="remark2_min", claims=["sec5.remark2_min"], severity="changes a stated result",
         title="delta_eps must be the sup over neighbours, not the min",
         printed=r"\delta_{\varepsilon} := \min_{d \sim d'} \mathsf{E}_{e^{\varepsilon}}(\mathcal{M}_d \| \mathcal{M}_{d'})",
         corrected=r"\delta_{\varepsilon} := \sup_{d \sim d'} \mathsf{E}_{e^{\varepsilon}}(\mathcal{M}_d \| \mathcal{M}_{d'})",
         wrong=r"\min_{d \sim d'}", right=r"\sup_{d \sim d'}",
         setting="Gaussian mechanism N(m, 1) vs N(0, 1) with two neighbouring pairs (shifts m1 < m2, both orders)",
         explanation="With the min, the supporting line cuts into C_M."),
    dict(key="remark2_convex", claims=["sec5.remark2_intersection"], severity="changes a stated result",
         title="C_M need not be convex: the supporting lines recover its convex hull",
         printed=r"\bigcap_{\varepsilon>0} \mathcal{C}(\varepsilon, \delta_{\varepsilon}) = \mathcal{C}_{\mathcal{M}}",
         corrected=r"\bigcap_{\varepsilon>0} \mathcal{C}(\varepsilon, \delta_{\varepsilon}) = "
                   r"\operatorname{conv}\mathcal{C}_{\mathcal{M}}",
         wrong=r"= \mathcal{C}_{\mathcal{M}}", right=r"= \operatorname{conv}\mathcal{C}_{\mathcal{M}}",
         setting="an asymmetric discrete pair P, Q on three points, taken in both orders",
         explanation="C_M is a union over neighbouring pairs; the intersection equals C_M when the symmetrised "
                     "trade-off min{f, f^-1} is convex."),
    dict(key="remark2_slope", claims=["sec5.remark2_slope"], severity="typo",
         title="the swapped supporting line has slope -e^eps, not e^eps",
         printed=r"\beta=1-\delta_{\varepsilon}-e^{\varepsilon}\tau \ \text{ ... with slope } e^{\varepsilon}",
         corrected=r"\beta=1-\delta_{\varepsilon}-e^{\varepsilon}\tau \ \text{ ... with slope } -e^{\varepsilon}",
         wrong=r"\text{ ... with slope } e^{\varepsilon}", right=r"\text{ ... with slope } -e^{\varepsilon}",
         setting="the printed line, differentiated in tau",
         explanation="The display itself is right (slope -e^eps, as a supporting line from below must be "
                     "non-increasing); only the prose drops the sign."),
    dict(key="remark2_gauss", claims=["sec5.gauss_tradeoff"], severity="typo",
         title="the Gaussian mechanism's trade-off is G_{1/sigma}, not G_{1/2}",
         printed=r"\inf_{d \sim d'} \beta^{dd'}_{\mathcal{M}}(\tau) = G_{\frac{1}{2}}(\tau)",
         corrected=r"\inf_{d \sim d'} \beta^{dd'}_{\mathcal{M}}(\tau) = G_{\frac{1}{\sigma}}(\tau)",
         wrong=r"G_{\frac{1}{2}}", right=r"G_{\frac{1}{\sigma}}",
         setting="P = N(1, sigma^2), Q = N(0, sigma^2); trade-off by threshold tests",
         explanation="The caption of Fig. 6 has G_{1/sigma}; G_{1/2} is right only at sigma = 2."),
    dict(key="eq45_binary_kl", claims=["sec5.d", "sec5.eq45"], severity="typo",
         title="the binary KL divergence's second denominator is 1 - b",
         printed=r"d(a\|b) = a \log \frac{a}{b} + \bar{a} \log \frac{\bar{a}}{b}",
         corrected=r"d(a\|b) = a \log \frac{a}{b} + \bar{a} \log \frac{\bar{a}}{\bar{b}}",
         wrong=r"\frac{\bar{a}}{b}", right=r"\frac{\bar{a}}{\bar{b}}",
         setting="KL(Bern(a) || Bern(b)) from its definition",
         explanation="d is the alpha -> 1 limit of d_alpha, which has b-bar. With the printed d the second "
                     "inclusion of Lemma 4 fails as well; with b-bar it holds (d <= d_alpha, claim sec5.eq45_kl).",
         corrected_check={"sec5.eq45": {"lhs": "Max((1 - a)*log((1 - a)/b) + a*log(a/(1 - b)), "
                                                        "(1 - b)*log((1 - b)/a) + b*log(b/(1 - a)))"}}),
    dict(key="rho_q_small_sigma", claims=["sec5.rho_q", "sec5.eq54"], severity="changes a stated result",
         title="alpha rho_q underestimates the subsampled-Gaussian RDP for sigma < 1, so (54) is not an outer bound there",
         printed=r"\rho_q = \frac{q^2}{(1-q)\sigma^2}, \quad \alpha \le 1 + \sigma^2 \log \frac{1}{q\sigma}, "
                 r"\quad q < \frac{1}{16\sigma}",
         corrected=r"\rho_q = \frac{q^2}{(1-q)\sigma^2}, \quad \alpha \le 1 + \sigma^2 \log \frac{1}{q\sigma}, "
                   r"\quad q < \frac{1}{16\sigma}, \quad \sigma \ge 1",
         wrong=r"q < \frac{1}{16\sigma}", right=r"q < \frac{1}{16\sigma}, \quad \sigma \ge 1",
         setting="P = (1-q) N(0, sigma^2) + q N(1, sigma^2), Q = N(0, sigma^2); D_alpha by quadrature; "
                 "exact one-step trade-off by threshold tests",
         explanation="Abadi et al.'s Lemma 3 also needs sigma >= 1 and drops an O(q^3 alpha^3/sigma^3) term; "
                     "Fig. 8's comparison (sigma <= 0.7) lies where rho_q is too small."),
    dict(key="appH_mass_at_zero", claims=["appH.eq112", "appH.eq121", "appH.eq124", "appH.renyi"],
         severity="changes a stated result",
         title="App. H's trade-off formulas drop Q's mass where dP/dQ = 0 (true only when Q << P)",
         printed=r"D_f(P\|Q) = \int_0^1 |\beta'(\tau)| f\left(\tfrac{1}{|\beta'(\tau)|}\right) d\tau",
         corrected=r"D_f(P\|Q) = \int_0^1 |\beta'(\tau)| f\left(\tfrac{1}{|\beta'(\tau)|}\right) d\tau"
                   r" + f(0)\,(1 - \beta(0))",
         wrong="", right=r"+ f(0)\,(1 - \beta(0))",
         setting="U[0,1] vs U[0,c] (and discrete pairs with a zero of P); f = chi^2; D_f from definition (2)",
         explanation="The same missing term in (121) (the change of measure from Q to P), and in (124) and the "
                     "Renyi form, where -beta(0) (resp. 1 - beta(0)) must be -1 (resp. nothing): "
                     "chi^alpha = (int_0^1 |beta'|^{1-alpha} dtau - 1)/(alpha - 1)."),
    dict(key="isit_gauss_rdp", claims=["isit.gaussian_rdp"], severity="typo",
         title="ISIT version: the Gaussian RDP curve reads gamma(alpha) = alpha alpha for rho alpha (fixed in the "
               "journal version)",
         printed=r"\gamma(\alpha)=\alpha\alpha",
         corrected=r"\gamma(\alpha)=\rho\alpha, \quad \rho=\frac{1}{2\sigma^2}",
         wrong=r"\alpha\alpha", right=r"\rho\alpha, \quad \rho=\frac{1}{2\sigma^2}",
         setting="P = N(1, sigma^2), Q = N(0, sigma^2); D_alpha by quadrature of definition (1)",
         explanation="An erratum of the ISIT 2020 version, not of the dump: alpha alpha is in the ISIT paper's own "
                     "LaTeX (the alt-text of seed 000). The journal version prints gamma(alpha) = rho alpha with rho = "
                     "1/(2 sigma^2) (Sec. IV-A), which holds (claim sec4.eq28_unit)."),
    dict(key="eq13_ell", claims=["sec3.eq13"], severity="typo",
         title="journal version as dumped: (13)'s hockey-stick index reads e^ell for e^eps (the ISIT version prints "
               "e^eps)",
         printed=r"\mathsf{E}_{e^{\ell}}(\mathcal{M}_{d} \| \mathcal{M}_{d'})",
         corrected=r"\mathsf{E}_{e^{\varepsilon}}(\mathcal{M}_{d} \| \mathcal{M}_{d'})",
         wrong=r"e^{\ell}", right=r"e^{\varepsilon}",
         setting="the symbols defined in (12)-(13): alpha, gamma, eps, delta",
         explanation="ell is defined nowhere in (12)-(13); (12) asks for (eps, delta)-DP, i.e. E_{e^eps} by (9), and "
                     "the ISIT version's (10) prints E_{e^eps}. The journal version has one rendering here (seed "
                     "002), so whether the PDF or only its conversion reads ell cannot be told from the sources."),
    dict(key="appF_ranges", claims=["appF.eq105"], severity="typo",
         title="journal version as dumped: (104)-(105) take the inf over alpha > 1/pi and alpha > 1/2 for "
               "alpha >= 1/delta (the ISIT version prints alpha >= 1/delta)",
         printed=r"\inf_{\alpha > \frac{1}{2}} (\rho \alpha T + \log(1 - \delta))_{+}",
         corrected=r"\inf_{\alpha \geq \frac{1}{\delta}} (\rho \alpha T + \log(1 - \delta))_{+}",
         wrong=r"\alpha > \frac{1}{2}", right=r"\alpha \geq \frac{1}{\delta}",
         setting="inf over the printed range by mp_minimize against (106)",
         explanation="With alpha > 1/2 (or 1/pi) the inf is (rho T/2 + log(1-delta))_+, not (106), and the range "
                     "leaves alpha > 1; with alpha >= 1/delta, as the ISIT version's (73) prints, the display equals "
                     "(106) (claim isit.eq73). The journal version has one rendering here (seed 002), so whether the "
                     "PDF or only its conversion reads 1/pi and 1/2 cannot be told from the sources."),
]

# Claim.artifact is only for two renderings of the same version that disagree (seeds 000 vs 001, or a dump's
# text vs its own LaTeX alt-text); a form that one version prints and another fixes is an erratum of the
# version that prints it (isit_gauss_rdp, eq13_ell, appF_ranges above).
