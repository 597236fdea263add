"""Zheng et al. (seed 004), Appendix C (and its use in Sec. 5.3): N(0,1) vs the mixture
p N(mu,1) + (1-p) N(0,1) has trade-off function p G_mu + (1-p) Id (Lemma C.1).
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ...core import Verdict
from ...symbols import MU, P as PP, alpha, mu, p
from ...verify import check_draws, check_equal, symbolic_zero
from . import _truth as TR
from ._paper import ALPHA01, H, P, Phi, Phi_inv, h, x

SC = "App. C"

C1_LATEX = r"T(P,Q)=pG_{\mu}+(1-p)\mathrm{Id}."
LEMMA_C1 = p * Phi(Phi_inv(1 - alpha) - mu) + (1 - p) * (1 - alpha)
P.formula("lemmaC1", "Lemma C.1", C1_LATEX, role="equality", quantity="T(P,Q)(\\alpha)", params=(ALPHA01, MU, PP),
          hand=LEMMA_C1, hand_reason="G_mu and Id written out (Def. 2.2)", section=SC,
          description="trade-off function of N(0,1) vs p N(mu,1) + (1-p) N(0,1), mu >= 0")


def _c1_check():
    f = sp.lambdify([alpha, mu, p], LEMMA_C1, "mpmath")

    def draw(rng):
        c = mp.mpf(rng.uniform(-2.5, 2.5))
        m, pp = mp.mpf(10) ** rng.uniform(-1, 0.5), mp.mpf(rng.uniform(0.01, 0.99))
        with mp.workdps(18):
            a, b_mu = TR.threshold_test(m, c)          # N(0,1) tail and N(mu,1) mass below c
            _, b_0 = TR.threshold_test(0, c)
        return {"threshold": c, "mu": m, "p": pp}, pp * b_mu + (1 - pp) * b_0, f(a, m, pp)
    return check_draws(draw, "==", n=6, tol_digits=14,
                       method="type I/II errors of the likelihood-ratio test x > c by quadrature of the densities "
                              "(the ratio increases in x: claim lemmaC1.lr)")


P.claim("lemmaC1", "Lemma C.1 / Sec. 5.3", "identity",
        "T(N(0,1), p N(mu,1) + (1-p) N(0,1)) = p G_mu + (1-p) Id (Sec. 5.3 uses mu = 1/sigma)",
        latex=C1_LATEX, section=SC, formulas=("lemmaC1",), check=_c1_check)

LR_L = r"p\mathrm{e}^{-\frac{1}{2}(x-\mu)^{2}+\frac{1}{2}x^{2}}+1-p"
LR_R = r"p\mathrm{e}^{\mu x-\frac{1}{2}\mu^{2}}+1-p"
LR_LATEX = LR_L + "=" + LR_R + "."
lr = P.formula("lemmaC1.lr", "App. C", LR_LATEX, parse=LR_R, role="identity", quantity="q(x)/p(x)",
               params=(MU, PP), symbols={"x": x}, section=SC)


def _lr_check():
    from ...parse import parse_printed
    left = parse_printed(LR_L, {"x": x})
    dens = lambda m: sp.exp(-(x - m) ** 2 / 2) / sp.sqrt(2 * sp.pi)
    truth = (p * dens(mu) + (1 - p) * dens(0)) / dens(0)
    steps = [symbolic_zero(sp.simplify(truth - left)), symbolic_zero(sp.simplify(truth - lr.expr))]
    slope = sp.simplify(sp.diff(lr.expr, x))
    increasing = bool(slope.is_positive)           # mu > 0, p > 0 assumed by the symbols
    if all(steps) and increasing:
        return Verdict("proved", "SymPy: both printed forms equal q(x)/p(x); d/dx = p mu e^{mu x - mu^2/2} > 0, "
                       "so likelihood-ratio tests threshold x", derived=slope)
    return Verdict("fails", "SymPy", counterexample={"steps": steps, "slope": sp.sstr(slope)})


P.claim("lemmaC1.lr", "App. C", "identity",
        "likelihood ratio q/p = p e^{mu x - mu^2/2} + 1 - p, increasing in x for mu >= 0 (tests threshold x)",
        latex=LR_LATEX, section=SC, formulas=("lemmaC1.lr",), check=_lr_check)

B_LATEX = r"\displaystyle=p\Phi(h-\mu)+(1-p)\Phi(h)."
P.formula("lemmaC1.beta", "App. C", B_LATEX, role="equality", quantity=r"\beta", params=(H, MU, PP),
          hand=p * Phi(h - mu) + (1 - p) * Phi(h), hand_reason="\\Phi written through erf", section=SC)
P.formula("lemmaC1.alpha", "App. C", r"\displaystyle=P\{x:x>h\}=1-\Phi(h),", role="equality", quantity=r"\alpha",
          params=(H,), hand=1 - Phi(h), hand_reason="a probability of an event", section=SC)


def _beta_check():
    f = sp.lambdify([h, mu, p], p * Phi(h - mu) + (1 - p) * Phi(h), "mpmath")

    def draw(rng):
        c = mp.mpf(rng.uniform(-3, 3))
        m, pp = mp.mpf(10) ** rng.uniform(-1, 0.5), mp.mpf(rng.uniform(0, 1))
        dens = lambda z: (pp * mp.exp(-(z - m) ** 2 / 2) + (1 - pp) * mp.exp(-z ** 2 / 2)) / mp.sqrt(2 * mp.pi)
        with mp.workdps(25):
            q = mp.quad(dens, [-mp.inf, c - 6, c])
        return {"h": c, "mu": m, "p": pp}, q, f(c, m, pp)
    return check_draws(draw, "==", n=8, tol_digits=18, method="Q{x <= h} by quadrature of the mixture density")


P.claim("lemmaC1.beta", "App. C", "identity", "beta = Q{x <= h} = p Phi(h - mu) + (1-p) Phi(h)",
        latex=B_LATEX, section=SC, formulas=("lemmaC1.beta",), check=_beta_check)

SUB_LATEX = r"\beta=p\Phi(h-\mu)+(1-p)\Phi(h)=p\Phi(\Phi^{-1}(1-\alpha)-\mu)+(1-p)(1-\alpha)"


def _sub_check():
    beta_h = p * Phi(h - mu) + (1 - p) * Phi(h)
    return check_equal(beta_h.subs(h, Phi_inv(1 - alpha)), LEMMA_C1, (ALPHA01, MU, PP), n=20,
                       method="substitute h = Phi^{-1}(1 - alpha) (from alpha = 1 - Phi(h))")


P.claim("lemmaC1.substitute", "App. C", "identity",
        "with h = Phi^{-1}(1 - alpha): beta = p Phi(Phi^{-1}(1-alpha) - mu) + (1-p)(1-alpha)",
        latex=SUB_LATEX, section=SC, formulas=("lemmaC1",), check=_sub_check)
P.formula("lemmaC1.final", "App. C", r"T(P,Q)(\alpha)=\beta=pG_{\mu}(\alpha)+(1-p)\mathrm{Id}(\alpha).",
          role="equality", quantity=r"T(P,Q)(\alpha)", params=(ALPHA01, MU, PP), hand=LEMMA_C1,
          hand_reason="G_mu and Id written out", section=SC)
