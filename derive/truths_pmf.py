"""Truths of pmf pairs, channels, small mechanisms and densities, computed from definitions in mpmath.

The list-of-probabilities companions of ``derive.truths`` (whose ``DPair`` and ``hockey`` they
use): total variation, the two-sided (eps, delta) profile, KL, chi^2 and f-divergences of pmf
pairs; brute force over neighbouring data sets of a mechanism on a small universe (with and
without subsampling); the k-fold dominating mechanism of a pure-DP mechanism with TV eta,
enumerated by binomial groups; Laplace, Gaussian and staircase densities with quadratures of
their divergences; the Renyi divergence of two Gaussians by quadrature; contraction
coefficients optimised over input distributions.  Nothing here is taken from any paper's results.
"""
from __future__ import annotations

import itertools
import random
from fractions import Fraction

import mpmath as mp

from .truths import DPair, hockey, random_pmf
from .verify import mp_sup


# ----------------------------------------------------------------------------- pmf pairs
def tv(P, Q):
    """Total variation sup_A P(A) - Q(A) = E_1(P||Q)."""
    return hockey(P, Q, 1)


def dp_delta(P, Q, e):
    """Smallest delta with (P, Q) (eps, delta)-indistinguishable in both orders."""
    g = mp.e ** e if not isinstance(e, Fraction) else e
    return max(hockey(P, Q, g), hockey(Q, P, g))


def kl(P, Q):
    return DPair(list(P), list(Q)).kl()

def chi2(P, Q):
    return mp.fsum((p - q) ** 2 / q for p, q in zip(P, Q))


def f_div(P, Q, f):
    """D_f(P||Q) = sum Q f(P/Q) (full supports)."""
    return mp.fsum(q * f(p / q) for p, q in zip(P, Q))

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


# ----------------------------------------------------------------------------- the k-fold dominating mechanism
def delta_j_binomial(k, e, a, j, dps=50):
    """delta_j of the k-fold pure dominating mechanism from its definition
    sup_A P0~(A) - e^{j eps} P1~(A), grouped by the number m of non-erased
    outputs: delta_j = sum_m Bin(k, 1-a)(m) [F_m(c) - e^{j eps} G_m(c)] with
    F, G binomial CDFs of the number of '2' outputs (success e^eps/(1+e^eps) under
    P1, 1/(1+e^eps) under P0) and c = ceil((m-j)/2) - 1.  Terms with binomial
    weight beyond 14 standard deviations (< e^-90) relative are skipped."""
    with mp.workdps(dps):
        k, j = int(k), int(j)
        e, a = mp.mpf(e), mp.mpf(a)
        p0, p1 = 1 / (1 + mp.e ** e), mp.e ** e / (1 + mp.e ** e)
        mean = k * (1 - a)
        sd = mp.sqrt(k * a * (1 - a)) if 0 < a < 1 else mp.mpf(0)
        lo = max(0, int(mp.floor(mean - 14 * sd - 20)))   # binomial weights beyond 14 sd: < e^-90
        hi = min(k, int(mp.ceil(mean + 14 * sd + 20)))
        total = mp.mpf(0)
        for m in range(lo, hi + 1):
            c = -(-(m - j) // 2) - 1
            if c < 0:
                continue
            w = mp.binomial(k, m) * (1 - a) ** m * a ** (k - m)
            F = mp.betainc(m - c, c + 1, 0, 1 - p0, regularized=True) if c < m else mp.mpf(1)
            G = mp.betainc(m - c, c + 1, 0, 1 - p1, regularized=True) if c < m else mp.mpf(1)
            total += w * (F - mp.e ** (j * e) * G)
        return total


def log_G_mp(k, e, a, d, dps=40):
    """log P1(L = d eps) of the k-fold dominating mechanism by direct summation of
    the trinomial probabilities k!/((s+d)! s! r!) q^(s+d) (q e^eps)^s a^r, r = k-2s-d
    (a different grouping from numeric.tv; terms by the exact ratio recurrence)."""
    with mp.workdps(dps):
        e, a = mp.mpf(e), mp.mpf(a)
        q = (1 - a) / (1 + mp.e ** e)
        t = mp.binomial(k, d) * q ** d * a ** (k - d)            # s = 0
        tot = t
        for s in range(0, (k - d) // 2):
            r = k - 2 * s - d
            t *= mp.mpf(r * (r - 1)) * q * q * mp.e ** e / (mp.mpf(s + d + 1) * (s + 1) * a * a)
            tot += t
        return mp.log(tot)


def composed_curve_mp(k, e, n_, ts):
    """The k-fold composition of f_{eps,0,eta} (pure eps-DP with TV eta) at the points ts (mpmath, O(k^2)):
    privacy-loss distribution by trinomial sums, then the (j eps, delta_j) lines."""
    e, n_ = mp.mpf(e), mp.mpf(n_)
    a = 1 - n_ * (mp.e ** e + 1) / (mp.e ** e - 1)
    G = [mp.exp(log_G_mp(k, e, a, d, dps=30)) for d in range(k + 1)]
    deltas = [mp.fsum(mp.e ** (d * e) * G[d] * (1 - mp.e ** ((j - d) * e)) for d in range(j + 1, k + 1))
              for j in range(k + 1)]
    out = []
    for t in ts:
        best = mp.mpf(0)
        for j, dj in enumerate(deltas):
            best = max(best, 1 - dj - mp.e ** (j * e) * t, mp.e ** (-j * e) * (1 - dj - t))
        out.append(best)
    return out


# ----------------------------------------------------------------------------- subsampling
def subsample_worst(M, X, n, m, e):
    """Brute force over databases in X^n differing in one entry (substitution):
    max hockey-stick at e^eps' and max TV of M o Sample_m (uniform subsets of size m;
    M maps a sorted m-tuple of records to a pmf)."""
    from math import comb
    subsets = list(itertools.combinations(range(n), m))
    worst_h, worst_t = mp.mpf(0), mp.mpf(0)

    def out(D):
        acc = None
        for S in subsets:
            P = M(tuple(sorted(D[i] for i in S)))
            acc = P if acc is None else [x + y for x, y in zip(acc, P)]
        return [x / comb(n, m) for x in acc]
    cache = {}
    for D, D2 in substitutions(X, n):
        for DD in (D, D2):
            if DD not in cache:
                cache[DD] = out(DD)
        P, Q = cache[D], cache[D2]
        worst_h = max(worst_h, hockey(P, Q, mp.e ** e))
        worst_t = max(worst_t, tv(P, Q))
    return worst_h, worst_t


def substitutions(X, n):
    """Every data set D in X^n with each neighbour D2 that substitutes one of its entries, in order."""
    for D in itertools.product(X, repeat=n):
        for i in range(n):
            for x in X:
                if x != D[i]:
                    yield D, D[:i] + (x,) + D[i + 1:]


def mechanism_profile(M, X, m, e):
    """(delta, eta) of a mechanism on X^m: max over substitution neighbours of E_{e^eps} and TV."""
    dmax, tmax = mp.mpf(0), mp.mpf(0)
    for D, D2 in substitutions(X, m):
        P, Q = M(tuple(sorted(D))), M(tuple(sorted(D2)))
        dmax = max(dmax, hockey(P, Q, mp.e ** e))
        tmax = max(tmax, tv(P, Q))
    return dmax, tmax


# ----------------------------------------------------------------------------- quadratures
def tv_quad(p, q, breaks):
    """int (p - q)_+ by quadrature with explicit break points (at 20 digits)."""
    with mp.workdps(20):
        return mp.quad(lambda x: max(p(x) - q(x), 0), breaks)


def laplace_pdf(b, mu=0):
    return lambda x: mp.exp(-abs(x - mu) / b) / (2 * b)


def gauss_pdf(s, mu=0):
    return lambda x: mp.exp(-((x - mu) ** 2) / (2 * s ** 2)) / (s * mp.sqrt(2 * mp.pi))


def staircase_pdf(e, g, D=1):
    """The staircase density f_gamma of Geng et al. (width D, eps-DP)."""
    e, g, D = mp.mpf(e), mp.mpf(g), mp.mpf(D)
    a = (1 - mp.e ** -e) / (2 * D * (g + mp.e ** -e * (1 - g)))

    def f(x):
        x = abs(x)
        kk = mp.floor(x / D)
        r = x - kk * D
        return mp.e ** (-kk * e) * (a if r < g * D else mp.e ** -e * a)
    return f


def staircase_breaks(g, D=1, n=60):
    pts = set()
    for kk in range(-n, n + 1):
        for off in (0, g, 1 - g, 1 + g, -g):
            pts.add(mp.mpf(kk) * D + mp.mpf(off) * D)
    return sorted(pts)


def piecewise_const_integral(fn, breaks):
    """Exact integral of a function constant between consecutive break points:
    sum (b - a) fn((a + b)/2) (the staircase densities)."""
    return mp.fsum((b - a) * fn((a + b) / 2) for a, b in zip(breaks[:-1], breaks[1:]))


# ----------------------------------------------------------------------------- contraction
def eta_kl_binary(A, B, grid=40):
    """eta_KL of the binary-input channel (A, B) by optimisation over input pairs
    (Bern(u), Bern(v)): max over a grid of D(M_u||M_v)/D(u||v), refined by the
    near-diagonal limit sup_v v(1-v) sum (A-B)^2/M_v (u -> v)."""
    def mix(u):
        return [u * x + (1 - u) * y for x, y in zip(A, B)]
    best = mp.mpf(0)
    pts = [mp.mpf(i) / grid for i in range(1, grid)]
    for u in pts:
        for v in pts:
            if u == v:
                continue
            num = kl(mix(u), mix(v))
            den = kl([u, 1 - u], [v, 1 - v])
            best = max(best, num / den)
    _, diag = mp_sup(lambda v: v * (1 - v) * mp.fsum((x - y) ** 2 / m for x, y, m in zip(A, B, mix(v))),
                     0, 1, grid=60, iters=80)
    return max(best, diag)


def eta_chi2(K, grid=24):
    """eta_chi2(K) = sup_{P_X} sigma_2(P_X, K)^2 (second singular value of
    P(x, y)/sqrt(P(x) P(y))), by a grid over the input simplex (|X| = 2 or 3)."""
    nx = len(K)
    best = mp.mpf(0)
    if nx == 2:
        cand = [[mp.mpf(i) / grid, 1 - mp.mpf(i) / grid] for i in range(1, grid)]
    else:
        cand = [[mp.mpf(i) / grid, mp.mpf(j) / grid, 1 - mp.mpf(i + j) / grid]
                for i in range(1, grid) for j in range(1, grid - i)]
    for px in cand:
        py = [mp.fsum(px[x] * K[x][y] for x in range(nx)) for y in range(len(K[0]))]
        Mx = mp.matrix([[px[x] * K[x][y] / mp.sqrt(px[x] * py[y]) for y in range(len(py))]
                        for x in range(nx)])
        sv = sorted(mp.svd_r(Mx, compute_uv=False), reverse=True)
        best = max(best, sv[1] ** 2)
    return best


# ----------------------------------------------------------------------------- channels
def random_channel(rng, nx, ny):
    """A channel with nx inputs and ny outputs: rows of random pmfs (full support)."""
    return [random_pmf(rng, ny) for _ in range(nx)]


def ldp_eps(Q):
    """The smallest eps with Q eps-LDP: max over outputs and input pairs of log ratios."""
    return max(mp.log(Q[x][y] / Q[x2][y]) for x in range(len(Q)) for x2 in range(len(Q)) for y in range(len(Q[0])))


def ldp_eta(Q):
    """The largest TV between two rows of Q."""
    return max(tv(Q[x], Q[x2]) for x in range(len(Q)) for x2 in range(len(Q)))


def push(P_, Q):
    """The output distribution of channel Q on input distribution P_."""
    return [mp.fsum(P_[x] * Q[x][y] for x in range(len(Q))) for y in range(len(Q[0]))]
