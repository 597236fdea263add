"""Independent truths for Asoodeh et al., computed from definitions in mpmath.

Nothing here is copied from the paper's results: divergences are computed
from their definitions, ``gamma_bruteforce`` solves the two-parameter Bernoulli
program (74)/(75) by nested numeric minimisation (no use of the substitution
q = (p - delta) e^-eps that Theorem 3 rests on), and ``gamma_exact`` uses the
one-dimensional form only after the claim "(20)" holds it against the brute
force.
"""
from __future__ import annotations

import random

import mpmath as mp

from ... import truths as _truths




# ----------------------------------------------------------------------------- divergences
# hockey-stick divergences E_lambda (sums of positive parts, and the brute force over events) are the
# shared library's: derive.truths.hockey, hockey_events


def chi_alpha(P, Q, a):
    """chi^alpha(P||Q) = E_Q[((dP/dQ)^alpha - 1)/(alpha-1)] (Sec. III): the library's
    ``derive.truths.chi_alpha`` of the pmf pair."""
    return _truths.chi_alpha(_truths.DPair(list(P), list(Q)), a)


def renyi(P, Q, a):
    """D_alpha(P||Q) from definition (1): the library's ``derive.truths.DPair.renyi``."""
    return _truths.DPair(list(P), list(Q)).renyi(a)


def bern(p):
    return (mp.mpf(p), 1 - mp.mpf(p))


def random_pair(rng: random.Random, k: int):
    """Two random distributions with full support on k points."""
    def one():
        w = [mp.mpf(rng.random()) ** 3 + mp.mpf(10) ** -6 for _ in range(k)]
        s = mp.fsum(w)
        return [x / s for x in w]
    return one(), one()


def gaussian_renyi_quad(a, sigma, shift=1):
    """D_alpha(N(shift, s^2) || N(0, s^2)) by quadrature of definition (1)."""
    a, s, m = mp.mpf(a), mp.mpf(sigma), mp.mpf(shift)

    def integrand(x):
        lp = -((x - m) ** 2) / (2 * s ** 2)
        lq = -(x ** 2) / (2 * s ** 2)
        return mp.exp(a * lp + (1 - a) * lq) / (s * mp.sqrt(2 * mp.pi))
    centre = a * m
    val = mp.quad(integrand, [-mp.inf, centre - 10 * s, centre, centre + 10 * s, mp.inf])
    return mp.log(val) / (a - 1)


# the optimal conversion lives in the shared library of truths
from ...truths import WORK_DPS, eps_exact, gamma_bruteforce, gamma_exact, h1  # noqa: E402,F401
