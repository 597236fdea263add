"""Errata of Ghazi and Issa, 'Total Variation Meets Differential Privacy' (seed 003): failing claims
grouped by root cause.  Same fields as derive/papers/asoodeh2021/errata.py."""

ERRATA = [
    dict(key="notation_eta", claims=["sec3c2.notation"], severity="typo",
         title="the composed mechanism is M_{eps,0,eta}, not M_{eps,0,delta}",
         printed=r"M_{i}=M_{\varepsilon,0,\delta}", corrected=r"M_{i}=M_{\varepsilon,0,\eta}",
         wrong=r"\delta", right=r"\eta",
         setting="symbolic (Sec. III-C2 and the sentence 'simulated from' in Sec. III-C3)",
         explanation="The third index of the dominating mechanism is the TV parameter eta."),
    dict(key="appG_limit", claims=["appG.kl_middle"], severity="typo",
         title="the kink of f_{eps,0,eta} is at 1 - eta e^eps/(e^eps - 1)",
         printed=r"\int_{1-\eta\frac{e^{\varepsilon}}{e^{\varepsilon}+1}}^{1}(-\varepsilon)\,dt",
         corrected=r"\int_{1-\eta\frac{e^{\varepsilon}}{e^{\varepsilon}-1}}^{1}(-\varepsilon)\,dt",
         wrong=r"e^{\varepsilon}+1", right=r"e^{\varepsilon}-1",
         setting="kl(f) = -int log|f'| by quadrature; kinks of f_{eps,0,eta} by root finding",
         explanation="The final value eps eta is right.",
         corrected_check={"appG.kl_middle": {"rhs": "-Integral(-varepsilon, (t, 1 - eta*exp(varepsilon)/(exp(varepsilon) - 1), 1))"
                                                             " - Integral(varepsilon, (t, 0, eta/(exp(varepsilon) - 1)))"}}),
    dict(key="appI_delta", claims=["appI.line3"], severity="wrong but harmless",
         title="App. I's split integrals drop the 1/Delta of Lap(Delta/eps)",
         printed=r"\int_{-\infty}^{0}\frac{\varepsilon}{2\Delta}(e^{\varepsilon x}-e^{-\varepsilon(\Delta-x)})\,dx",
         corrected=r"\int_{-\infty}^{0}\frac{\varepsilon}{2\Delta}(e^{\varepsilon x/\Delta}-e^{-\varepsilon(\Delta-x)/\Delta})\,dx",
         wrong=r"e^{\varepsilon x}", right=r"e^{\varepsilon x/\Delta}",
         setting="Laplace mechanism Lap(Delta/eps): the previous line by quadrature at random Delta",
         explanation="Equal only at Delta = 1; the final 1 - e^{-eps/2} is right for every Delta.",
         corrected_check={"appI.line3": {"rhs": "integrate(varepsilon/(2*Delta)*(exp(varepsilon*x/Delta) - exp(-varepsilon*(Delta - x)/Delta)), "
                                                         "(x, -oo, 0), conds='none') + integrate(varepsilon/(2*Delta)*(exp(-varepsilon*x/Delta) "
                                                         "- exp(-varepsilon*(Delta - x)/Delta)), (x, 0, Delta/2), conds='none')"}}),
    dict(key="eq17_sign", claims=["eq17"], severity="typo",
         title="(17)'s second Phi argument has a sign slip",
         printed=r"\delta(\varepsilon)=\Phi\left(-\frac{\varepsilon}{\mu}+\frac{\mu}{2}\right)"
                 r"-e^{\varepsilon}\Phi\left(-\frac{-\varepsilon}{\mu}-\frac{\mu}{2}\right)",
         corrected=r"\delta(\varepsilon)=\Phi\left(-\frac{\varepsilon}{\mu}+\frac{\mu}{2}\right)"
                   r"-e^{\varepsilon}\Phi\left(-\frac{\varepsilon}{\mu}-\frac{\mu}{2}\right)",
         wrong=r"-\frac{-\varepsilon}{\mu}-\frac{\mu}{2}", right=r"-\frac{\varepsilon}{\mu}-\frac{\mu}{2}",
         setting="P = N(mu, 1), Q = N(0, 1); hockey-stick divergence by quadrature",
         explanation="Dong et al.'s Cor. 2.13 and the paper's own App. J have -eps/mu - mu/2; printed (17) can "
                     "exceed 1 or go negative.",
         corrected_check={"eq17": {"bound": "Phi(mu/2 - varepsilon/mu) - exp(varepsilon)*Phi(-mu/2 - varepsilon/mu)"}}),
    dict(key="eq18_eps", claims=["eq18"], severity="typo",
         title="delta(0) has e^0 = 1, not e^eps",
         printed=r"\eta=\delta(0)=\Phi\left(\frac{\mu}{2}\right)-e^{\varepsilon}\Phi\left(-\frac{\mu}{2}\right)",
         corrected=r"\eta=\delta(0)=\Phi\left(\frac{\mu}{2}\right)-\Phi\left(-\frac{\mu}{2}\right)",
         wrong=r"-e^{\varepsilon}\Phi", right=r"-\Phi",
         setting="P = N(mu, 1), Q = N(0, 1); total variation by quadrature",
         explanation="App. J's (51) has it right: 2 Phi(mu/2) - 1.",
         corrected_check={"eq18": {"bound": "Phi(mu/2) - Phi(-mu/2)"}}),
    dict(key="appK1_sign", claims=["appK1.middle"], severity="typo",
         title="the staircase P - Q mass on (-gamma, gamma] is a(gamma) 2 gamma Delta (1 - e^{-eps})",
         printed=r"a(\gamma)(2\gamma\Delta(1-e^{\varepsilon}))", corrected=r"a(\gamma)(2\gamma\Delta(1-e^{-\varepsilon}))",
         wrong=r"e^{\varepsilon}", right=r"e^{-\varepsilon}",
         setting="staircase density with Delta = 1 and its shift; quadrature over (-gamma, gamma]",
         explanation="The printed value is negative; the final d_TV uses the right one."),
    dict(key="staircase_range", claims=["sec6c.gamma_range"], severity="changes a stated result",
         title="the staircase mechanism's gamma ranges over [0, 1], not R^+",
         printed=r"\gamma\in\mathbb{R}^{+}", corrected=r"\gamma\in[0,1]",
         wrong=r"\mathbb{R}^{+}", right=r"[0,1]",
         setting="the printed staircase density with Delta = 1; total mass as an exact integral of the step function",
         explanation="For gamma > 1 the step [gamma Delta, Delta) is empty and the mass is "
                     "1/(gamma + e^{-eps}(1 - gamma)) < 1; the TV formula's second branch holds on [1/2, 1] "
                     "(Geng et al. take gamma in [0, 1])."),
    dict(key="eq20_f", claims=["eq20"], severity="typo",
         title="(20) omits f and the expectation's measure",
         printed=r"D_f(P_0\|P_1) = \mathbb{E}_Q\left[\frac{dP_{0}}{dP_{1}}\right]",
         corrected=r"D_f(P_0\|P_1) = \mathbb{E}_{P_1}\left[f\left(\frac{dP_{0}}{dP_{1}}\right)\right]",
         wrong=r"\mathbb{E}_Q\left[\frac{dP_{0}}{dP_{1}}\right]",
         right=r"\mathbb{E}_{P_1}\left[f\left(\frac{dP_{0}}{dP_{1}}\right)\right]",
         setting="random discrete pairs, f(t) = t log t",
         explanation="Read literally, (20) equals 1 for every pair.",
         correction_unchecked=("the corrected (20) is the definition of D_f, E_{P_1}[f(dP_0/dP_1)], which is the claim's "
                              "truth itself (KL for f(t) = t log t); substituting it checks nothing")),
    dict(key="ldp_tv_reciprocal", claims=["thm6.range"], severity="wrong but harmless",
         title="the maximum value of eta is (e^eps - 1)/(e^eps + 1), not (e^eps + 1)/(e^eps - 1), so the recovery of "
               "[11, Thm. 2] after (40) needs the former",
         printed=r"\text{Considering the maximum value of } \eta=\frac{e^{\varepsilon}+1}{e^{\varepsilon}-1}"
                 r"\text{, this recovers Theorem 2 of [11]}",
         corrected=r"\text{Considering the maximum value of } \eta=\frac{e^{\varepsilon}-1}{e^{\varepsilon}+1}"
                   r"\text{, this recovers Theorem 2 of [11]}",
         wrong=r"\frac{e^{\varepsilon}+1}{e^{\varepsilon}-1}", right=r"\frac{e^{\varepsilon}-1}{e^{\varepsilon}+1}",
         setting="binary randomized response at eps (its TV is the largest of any eps-LDP channel)",
         explanation="Only this sentence is wrong: no channel has TV (e^eps+1)/(e^eps-1) > 1. The same reciprocal in "
                     "(26) and in Theorem 6's eta range gives true statements (d_TV <= 1 < (e^eps+1)/(e^eps-1); for "
                     "larger eta, Q_{eps,eta} is every eps-LDP channel), only weaker than the sharp constant "
                     "(e^eps-1)/(e^eps+1) that (27) uses (claims eq26, thm6.eta_range hold)."),
]
