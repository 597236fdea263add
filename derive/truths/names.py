"""The names claim files use: pair constructors (``PAIRS``) and quantities (``QUANTITIES``),
each quantity's convention and accuracy, and the namespace truth expressions are evaluated in."""
from __future__ import annotations

import mpmath as mp

from .continuous import (
    _gauss_mu, exponential_pair, gauss_renyi_closed, gaussian_mechanism, laplace_pair, subsampled_gaussian_pair,
    uniform_pair)
from .conversion import delta_exact, eps_exact, gamma_exact
from .loss import loss_cumulant
from .pmf import (
    DPair, bernoulli_pair, discrete_pair, eps_delta_pair, pmf_pair, randomized_response,
    staircase_pair)
from .profiles import (
    chi_alpha, compose, delta_of_eps, eps_of_delta, likelihood_ratio_cdf, likelihood_ratio_tail,
    max_divergence, tradeoff_area, tradeoff_conjugate, tradeoff_inverse, tradeoff_over_tests, tv)


#: pair constructors: name -> (function, description)
PAIRS = {
    "Gaussian": (lambda mu, sigma=1: gaussian_mechanism(mu, sigma),
                 "Gaussian(mu, sigma=1): P = N(0, sigma^2), Q = N(mu sigma, sigma^2) (mu = sensitivity/noise)"),
    "Laplace": (lambda m, b=1: laplace_pair(m, b), "Laplace(m, b=1): P = Lap(0, b), Q = Lap(m, b)"),
    "RandomizedResponse": (lambda e: randomized_response(e),
                           "RandomizedResponse(eps): binary randomized response, P = (e^eps, 1)/(1+e^eps), Q reversed"),
    "Bernoulli": (bernoulli_pair, "Bernoulli(a, b): P = Bern(a), Q = Bern(b)"),
    "EpsDeltaPair": (eps_delta_pair, "EpsDeltaPair(eps, delta): the canonical four-point (eps, delta)-DP pair"),
    "SubsampledGaussian": (lambda q, sigma: subsampled_gaussian_pair(q, sigma),
                           "SubsampledGaussian(q, sigma): P = N(0, sigma^2), Q = (1-q) N(0, sigma^2) + q N(1, sigma^2)"),
    "Exponential": (exponential_pair, "Exponential(r): P = Exp(1), Q = Exp(r), 0 < r < 1"),
    "Uniform": (uniform_pair, "Uniform(c): P = U[0, 1], Q = U[0, c], c > 1"),
    "Swapped": (lambda pr: pr.swapped(), "Swapped(pair): (Q, P)"),
    "Pmf": (pmf_pair, "Pmf(u1..uk, v1..vk): P = softmax(u), Q = softmax(v) (a [pairs] entry of a claim file)"),
    "Composed": (compose, "Composed(pair, k): the k-fold product (P^k, Q^k) (Gaussian shifts and pmfs)"),
    "Discrete": (discrete_pair, "Discrete(p1..pk, q1..qk): P = (p_i), Q = (q_i) given by their "
                                "probabilities (a printed mechanism's table; zeros allowed)"),
    "Staircase": (staircase_pair, "Staircase(eps, gamma, D=1): P = the staircase density of Geng et al., "
                                  "Q = P shifted by D (0 <= gamma <= 1), reduced exactly to its "
                                  "likelihood-ratio classes"),
}

#: quantities: name -> (function, description, precision note)
QUANTITIES = {
    "HockeyStick": (lambda pr, g: pr.hockey(g), "HockeyStick(pair, gamma): E_gamma(P||Q) = sup_A P(A) - gamma Q(A)"),
    "SupOverEvents": (lambda pr, g: pr.E(g), "SupOverEvents(pmf pair, gamma): sup over every event A of P(A) - gamma Q(A), "
                      "by brute force over all 2^k events"),
    "Renyi": (lambda pr, a: _renyi_checked(pr, a), "Renyi(pair, alpha): D_alpha(P||Q) = log(int p^alpha q^(1-alpha))/(alpha-1)"),
    "KL": (lambda pr: _kl_checked(pr), "KL(pair): int p log(p/q)"),
    "MaxDivergence": (max_divergence, "MaxDivergence(pair): D_inf(P||Q) = sup log dP/dQ, the max-divergence"),
    "TV": (tv, "TV(pair): sup_A |P(A) - Q(A)|"),
    "ChiAlpha": (chi_alpha, "ChiAlpha(pair, alpha): E_Q[((dP/dQ)^alpha - 1)/(alpha - 1)]"),
    "DeltaOfEps": (delta_of_eps, "DeltaOfEps(pair, eps): max(E_{e^eps}(P||Q), E_{e^eps}(Q||P)), the privacy profile"),
    "EpsOfDelta": (eps_of_delta, "EpsOfDelta(pair, delta): inf{eps >= 0 : DeltaOfEps(pair, eps) <= delta}"),
    "Tradeoff": (lambda pr, a: pr.tradeoff(a), "Tradeoff(pair, a): T(P, Q)(a), the least type II error at type I error a"),
    "OptimalRdpGamma": (gamma_exact, "OptimalRdpGamma(alpha, eps, delta): gamma_alpha^eps(delta) of Asoodeh et al. 2021 (16)"),
    "OptimalRdpEps": (lambda a, g, d: eps_exact(a, g, d, tol_digits=17), "OptimalRdpEps(alpha, gamma, delta): the least eps every (alpha, gamma)-RDP mechanism satisfies at delta (optimal conversion)"),
    "OptimalRdpDelta": (lambda a, g, e: delta_exact(a, g, e, tol_digits=17), "OptimalRdpDelta(alpha, gamma, eps): the least delta every (alpha, gamma)-RDP mechanism satisfies at eps"),
    "TradeoffOverTests": (tradeoff_over_tests, "TradeoffOverTests(pmf pair, a): inf{1 - E_Q(phi) : E_P(phi) <= a} "
                          "by brute force over all randomised tests (mixtures of the 2^k deterministic ones)"),
    "TradeoffInverse": (tradeoff_inverse, "TradeoffInverse(pair, a): inf{0 <= t <= 1 : T(P, Q)(t) <= a}, "
                        "the generalised inverse of the trade-off function (bisection)"),
    "TradeoffConjugate": (tradeoff_conjugate, "TradeoffConjugate(pair, y): sup_{0 <= x <= 1} y x - T(P, Q)(x), "
                          "the convex conjugate of the trade-off function"),
    "LikelihoodRatioCdf": (lambda pr, lam: likelihood_ratio_cdf(pr, lam, "P"),
                           "LikelihoodRatioCdf(pair, lam): P(dP/dQ <= lam), the CDF of the privacy loss under P at log(lam)"),
    "LikelihoodRatioCdfQ": (lambda pr, lam: likelihood_ratio_cdf(pr, lam, "Q"),
                            "LikelihoodRatioCdfQ(pair, lam): Q(dP/dQ <= lam), the CDF of the privacy loss under Q at log(lam)"),
    "LikelihoodRatioTail": (lambda pr, lam: likelihood_ratio_tail(pr, lam, "P"),
                            "LikelihoodRatioTail(pair, lam): P(dP/dQ >= lam), the upper tail of the likelihood ratio under P"),
    "LikelihoodRatioTailQ": (lambda pr, lam: likelihood_ratio_tail(pr, lam, "Q"),
                             "LikelihoodRatioTailQ(pair, lam): Q(dP/dQ >= lam), the upper tail of the likelihood ratio under Q"),
    "LossCumulant": (lambda pr, k: loss_cumulant(pr, k),
                     "LossCumulant(pair, k): the k-th cumulant (k = 1..4) of the privacy loss log dP/dQ under P"),
    "TradeoffArea": (tradeoff_area, "TradeoffArea(pair): int_0^1 T(P, Q)(tau) dtau, the area under the "
                                    "trade-off curve (trapezoids over a pmf pair's vertices; quadrature "
                                    "over the threshold x for a continuous pair)"),
}

#: each quantity's convention: (least value, greatest value, what the definition says); a printed
#: bound that differs from the truth only where the convention binds (a negative upper bound on an
#: eps >= 0) is read with the same clamp, and the verdict says so
CONVENTIONS = {
    "EpsOfDelta": (0, None, "eps >= 0 (the infimum runs over eps >= 0)"),
    "OptimalRdpEps": (0, None, "eps >= 0 (the infimum runs over eps >= 0)"),
    "OptimalRdpDelta": (0, 1, "delta in [0, 1]"),
    "DeltaOfEps": (0, 1, "delta in [0, 1]"),
    "HockeyStick": (0, None, "E_gamma >= 0 (the empty event)"),
    "SupOverEvents": (0, None, "E_gamma >= 0 (the empty event)"),
    "TV": (0, 1, "TV in [0, 1]"),
    "MaxDivergence": (0, None, "D_inf >= 0 (P and Q are probability measures)"),
    "Tradeoff": (0, 1, "T(P, Q)(a) in [0, 1]"),
}

#: how accurate each quantity's mpmath value is at the checkers' confirmation precision (30 digits):
#: |computed - true| <= rel |true| + abs.  Where the truth has no ball enclosure (derive.certify), a
#: bound fails only by more than this budget.
ACCURACY = {
    "HockeyStick": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    "SupOverEvents": (mp.mpf(10) ** -25, mp.mpf(10) ** -28),
    "Renyi": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    "KL": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    "MaxDivergence": (mp.mpf(10) ** -25, mp.mpf(10) ** -28),
    "TV": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    "ChiAlpha": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    "DeltaOfEps": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    # bisection to 10^-25 max(1, eps) (an absolute width below eps = 1), on a profile good to 1e-18
    "EpsOfDelta": (mp.mpf(10) ** -17, mp.mpf(10) ** -24),
    "Tradeoff": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    "LossCumulant": (mp.mpf(10) ** -18, mp.mpf(10) ** -25),
    # a golden-section minimum over p and an Illinois bracket to 10^-17 max(1, eps)
    "OptimalRdpGamma": (mp.mpf(10) ** -15, mp.mpf(10) ** -16),
    "OptimalRdpEps": (mp.mpf(10) ** -15, mp.mpf(10) ** -16),
    "OptimalRdpDelta": (mp.mpf(10) ** -15, mp.mpf(10) ** -300),
}


def accuracy_of(expr):
    """(rel, abs) error budget of a truth expression: the loosest of the quantities it uses, times 10
    for the arithmetic around them; (1e-25, 1e-40) for an expression without named quantities."""
    from sympy.core.function import AppliedUndef
    names = {type(f).__name__ for f in expr.atoms(AppliedUndef)} & set(QUANTITIES)
    if not names:
        return mp.mpf(10) ** -25, mp.mpf(10) ** -40
    rel = max(ACCURACY.get(n, (mp.mpf(10) ** -15, mp.mpf(10) ** -15))[0] for n in names)
    ab = max(ACCURACY.get(n, (mp.mpf(10) ** -15, mp.mpf(10) ** -15))[1] for n in names)
    return 10 * rel, 10 * ab


def convention_of(expr):
    """(lo, hi, text) when the truth expression is one named quantity with a convention, else None."""
    from sympy.core.function import AppliedUndef
    if isinstance(expr, AppliedUndef) and type(expr).__name__ in CONVENTIONS:
        return CONVENTIONS[type(expr).__name__]
    return None


def _renyi_checked(pr, a):
    """D_alpha(P||Q): exact sums for finite pairs and Laplace shifts; alpha mu^2 / 2 for a Gaussian shift
    (Gil, Alajaji and Linder 2013; Mironov 2017, Prop. 7: tied to the quadrature of the definition by
    tests/test_truths.py); else a checked quadrature of the definition."""
    a = mp.mpf(a)
    if isinstance(pr, DPair):
        return pr.renyi(a)
    mu = _gauss_mu(pr)
    if mu is not None:
        return gauss_renyi_closed(mu, a)
    if pr.loglinear and pr.lp is not None and pr.lq is not None:
        return mp.log(pr.tilted_integral(a)) / (a - 1)
    v = pr.quad_checked(pr.tilted(a), pr._tilted_breaks(a))
    return mp.log(v) / (a - 1)


def _kl_checked(pr):
    """KL(P||Q): mu^2 / 2 for a Gaussian shift (the limit alpha -> 1 of alpha mu^2 / 2), else the
    sum or a checked quadrature of the definition."""
    if isinstance(pr, DPair):
        return pr.kl()
    mu = _gauss_mu(pr)
    if mu is not None:
        return gauss_renyi_closed(mu, 1)
    return pr.quad_checked(lambda x: pr.p(x) * pr.log_ratio(x) if pr.p(x) > 0 else mp.mpf(0))


#: relative accuracy the checkers allow a truth (quadrature and bisection at 30+ digits)
TRUTH_RTOL = mp.mpf(10) ** -18


def namespace() -> dict:
    """name -> callable, for evaluating truth expressions (mpmath arguments)."""
    ns = {k: v[0] for k, v in PAIRS.items()}
    ns.update({k: v[0] for k, v in QUANTITIES.items()})
    return ns


def describe() -> str:
    lines = ["Distribution pairs:"] + [f"  {d}" for _, d in PAIRS.values()]
    lines += ["Quantities:"] + [f"  {d}" for _, d in QUANTITIES.values()]
    return "\n".join(lines)

