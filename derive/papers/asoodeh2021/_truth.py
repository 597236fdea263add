"""Independent truths for Asoodeh et al., computed from definitions in mpmath.

Nothing here is copied from the paper's results: divergences are computed
from their definitions, ``gamma_bruteforce`` solves the two-parameter Bernoulli
program (74)/(75) by nested numeric minimisation (no use of the substitution
q = (p - delta) e^-eps that Theorem 3 rests on), and ``gamma_exact`` uses the
one-dimensional form only after the claim "(20)" holds it against the brute
force.
"""
from __future__ import annotations

import itertools
import random

import mpmath as mp

from ...verify import mp_minimize

WORK_DPS = 30


# ----------------------------------------------------------------------------- divergences
def E(P, Q, lam):
    """E_lambda(P||Q) = sum (P - lam Q)_+ over a finite alphabet (definition (8))."""
    return mp.fsum(max(p - lam * q, 0) for p, q in zip(P, Q))


def E_sup(P, Q, lam):
    """sup_A P(A) - lam Q(A) by brute force over all events A."""
    best = mp.mpf(0)
    idx = range(len(P))
    for r in range(len(P) + 1):
        for A in itertools.combinations(idx, r):
            best = max(best, mp.fsum(P[i] for i in A) - lam * mp.fsum(Q[i] for i in A))
    return best


def chi_alpha(P, Q, a):
    """chi^alpha(P||Q) = E_Q[((dP/dQ)^alpha - 1)/(alpha-1)] (Sec. III)."""
    return mp.fsum(q * ((p / q) ** a - 1) for p, q in zip(P, Q)) / (a - 1)


def renyi(P, Q, a):
    """D_alpha(P||Q) from definition (1)."""
    return mp.log(mp.fsum(q * (p / q) ** a for p, q in zip(P, Q))) / (a - 1)


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


# ----------------------------------------------------------------------------- the conversion
def h1(p, a, d, e):
    """The objective of (78) (Theorem 3's M), written from (75) at q = (p-d)e^-e."""
    return p ** a * (p - d) ** (1 - a) + (1 - p) ** a * (mp.e ** e - p + d) ** (1 - a)


def gamma_exact(a, e, d):
    """gamma_alpha^eps(delta) by minimising (78) over p in (delta, 1)."""
    with mp.workdps(WORK_DPS):
        a, e, d = mp.mpf(a), mp.mpf(e), mp.mpf(d)
        _, m = mp_minimize(lambda p: h1(p, a, d, e), d, 1, grid=64, iters=130)
        return e + mp.log(m) / (a - 1)


def gamma_bruteforce(a, e, d):
    """gamma_alpha^eps(delta) from the two-parameter program (75): minimise
    (1/(a-1)) log(p^a q^(1-a) + (1-p)^a (1-q)^(1-a)) over 0<q<p<1 with
    p - q e^eps >= delta, by nested numeric minimisation (no substitution)."""
    with mp.workdps(WORK_DPS):
        a, e, d = mp.mpf(a), mp.mpf(e), mp.mpf(d)
        lam = mp.e ** e

        def inner(p):
            qmax = (p - d) / lam  # feasible q: (0, qmax]
            if qmax <= 0:
                return mp.inf
            f = lambda q: p ** a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a)
            # include the end point of the feasible set explicitly
            _, v = mp_minimize(f, 0, qmax, grid=60, iters=80)
            return min(v, f(qmax))

        _, m = mp_minimize(inner, d, 1, grid=60, iters=80)
        return mp.log(m) / (a - 1)


def eps_exact(a, g, d, tol_digits: int = 20):
    """epsilon_alpha^delta(gamma) = inf{eps >= 0 : gamma_alpha^eps(delta) >= gamma} (14),
    by bisection on eps (gamma_alpha^eps(delta) is increasing in eps)."""
    with mp.workdps(WORK_DPS):
        a, g, d = mp.mpf(a), mp.mpf(g), mp.mpf(d)
        if gamma_exact(a, 0, d) >= g:
            return mp.mpf(0)
        lo, hi = mp.mpf(0), g + mp.log(1 / d) / (a - 1) + 1
        while gamma_exact(a, hi, d) < g:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            if gamma_exact(a, mid, d) >= g:
                hi = mid
            else:
                lo = mid
            if hi - lo <= mp.mpf(10) ** -tol_digits * max(1, hi):
                break
        return hi
