"""Quantities of a pair computed from their definitions: privacy profiles delta(eps) and
eps(delta), exact k-fold composition, TV, the max-divergence, chi^alpha, the trade-off function's
inverse, conjugate and area, and the law of the likelihood ratio."""
from __future__ import annotations

import mpmath as mp

from .continuous import CPair, _gauss_mu, gauss_renyi_closed, gaussian_pair, sup_over_curve
from .conversion import WORK_DPS
from .pmf import DPair


# ----------------------------------------------------------------------------- the Gaussian privacy profile
def gauss_delta(e, mu):
    """delta(eps) = E_{e^eps}(N(mu,1) || N(0,1)) for any real eps, by quadrature of the definition
    int (p - e^eps q)_+ beyond the point x0 = eps/mu + mu/2 where the ratio e^{mu x - mu^2/2} reaches
    e^eps (not the closed forms of Asoodeh et al. 2021 and Zheng et al. 2020, Lemma 5.1, it checks), at 30 digits."""
    with mp.workdps(WORK_DPS):
        e, mu = mp.mpf(e), mp.mpf(mu)
        x0 = e / mu + mu / 2
        lam = mp.e ** e
        return mp.quad(lambda x: mp.npdf(x, mu) - lam * mp.npdf(x), [x0, x0 + 1, x0 + 10, mp.inf])



def delta_of_eps(pair, e):
    """The privacy profile of the symmetric mechanism {(P, Q), (Q, P)}:
    delta(eps) = max(E_{e^eps}(P||Q), E_{e^eps}(Q||P))."""
    lam = mp.e ** mp.mpf(e)
    return max(pair.hockey(lam), pair.swapped().hockey(lam))


def eps_of_delta(pair, d, tol_digits: int = 25):
    """eps(delta) = inf{eps >= 0 : delta(eps) <= delta}, by bisection (delta(eps) is
    non-increasing); mp.inf when delta(eps) > delta for every eps (delta below the profile's floor)."""
    d = mp.mpf(d)
    tol_digits = min(tol_digits, mp.mp.dps - 3)   # no finer than the working precision resolves
    if delta_of_eps(pair, 0) <= d:
        return mp.mpf(0)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while delta_of_eps(pair, hi) > d:
        lo, hi = hi, 2 * hi
        if hi > 1e6:
            return mp.inf
    for _ in range(400):
        mid = (lo + hi) / 2
        if delta_of_eps(pair, mid) <= d:
            hi = mid
        else:
            lo = mid
        if hi - lo <= mp.mpf(10) ** -tol_digits * max(1, hi):
            break
    return hi


# ----------------------------------------------------------------------------- composition
def compose(pair, k):
    """The k-fold product pair (P^k, Q^k).  Gaussian shifts compose to a Gaussian shift with
    mean mu sqrt(k) (rotation invariance of the isotropic Gaussian); pmfs compose exactly through
    their privacy-loss atoms (likelihood ratio, P-mass, Q-mass), merged by equal ratio."""
    k = int(k)
    if k != mp.mpf(k) or k < 1:
        raise ValueError(f"k={k!r} is outside the allowed range: integers >= 1")
    if isinstance(pair, CPair) and pair.label == "Gaussian":
        s = pair.params["sigma"] if "sigma" in pair.params else mp.mpf(1)
        return gaussian_pair(pair.params["mu"] * s * mp.sqrt(k), s)
    if isinstance(pair, DPair):
        atoms = _loss_atoms(pair)
        out = {(mp.mpf(0), 0): (mp.mpf(1), mp.mpf(1))}   # (log-ratio, inf-count) -> (P, Q) masses
        for _ in range(k):
            nxt: dict = {}
            for (l1, i1), (p1, q1) in out.items():
                for (l2, i2), (p2, q2) in atoms.items():
                    key = (mp.mpf(mp.nstr(l1 + l2, mp.mp.dps - 5)), i1 + i2)
                    a, b = nxt.get(key, (mp.mpf(0), mp.mpf(0)))
                    nxt[key] = (a + p1 * p2, b + q1 * q2)
            if len(nxt) > 200_000:
                raise ValueError(f"k={k} is outside the allowed range for exact pmf composition "
                                 "(more than 2e5 distinct privacy-loss atoms)")
            out = nxt
        P = [v[0] for v in out.values()]
        Q = [v[1] for v in out.values()]
        return DPair(P, Q, f"{pair.label}^{k}")
    raise ValueError(f"pair={pair.label!r}: exact k-fold composition is available for Gaussian "
                     "shifts and pmfs only")


def _loss_atoms(pair):
    """{(log P(x)/Q(x) rounded, +-1 for an infinite ratio): (P-mass, Q-mass)}."""
    atoms: dict = {}
    for p, q in zip(pair.P, pair.Q):
        if p == 0 and q == 0:
            continue
        if q == 0:
            key = (mp.mpf(0), 1)
        elif p == 0:
            key = (mp.mpf(0), -1)
        else:
            key = (mp.mpf(mp.nstr(mp.log(p / q), mp.mp.dps - 5)), 0)
        a, b = atoms.get(key, (mp.mpf(0), mp.mpf(0)))
        atoms[key] = (a + p, b + q)
    return atoms


def tv(pair):
    """Total variation TV(P, Q) = E_1(P||Q)."""
    return pair.hockey(1)


def max_divergence(pair):
    """The max-divergence D_inf(P||Q) = sup_x log (dP/dQ)(x) = lim_{alpha -> oo} D_alpha(P||Q) (Renyi
    1961; Dwork and Roth 2014, Def. 3.6 writes pure DP as a bound on it): the largest log-ratio of
    masses of a finite pair (oo where Q misses a point P charges); |shift|/scale for a Laplace shift;
    oo for a Gaussian shift (its log-ratio is unbounded)."""
    if isinstance(pair, DPair):
        out = None
        for p, q in zip(pair.P, pair.Q):
            if p > 0:
                if q == 0:
                    return mp.inf
                r = mp.log(p / q)
                out = r if out is None or r > out else out
        return out
    if pair.label == "Laplace":
        return abs(pair.params["m"]) / pair.params["b"]
    if pair.label == "Gaussian":
        return mp.inf if pair.params["mu"] != 0 else mp.mpf(0)
    raise ValueError(f"MaxDivergence of the {pair.label} pair has no computation here")


def chi_alpha(pair, a):
    """chi^alpha(P||Q) = E_Q[((dP/dQ)^alpha - 1)/(alpha - 1)] = (e^{(alpha-1) D_alpha} - 1)/(alpha - 1)
    written from the integral of p^alpha q^(1-alpha)."""
    a = mp.mpf(a)
    if isinstance(pair, DPair):
        if any(p > 0 and q == 0 for p, q in zip(pair.P, pair.Q)):
            return mp.inf
        s = mp.fsum(q * (p / q) ** a for p, q in zip(pair.P, pair.Q) if q > 0)
    elif _gauss_mu(pair) is not None:     # int p^a q^(1-a) = e^{a (a - 1) mu^2 / 2} for a Gaussian shift
        s = mp.e ** ((a - 1) * gauss_renyi_closed(_gauss_mu(pair), a))
    else:
        s = pair.quad_checked(lambda x: pair.p(x) ** a * pair.q(x) ** (1 - a), pair._tilted_breaks(a))
    return (s - 1) / (a - 1)

# ----------------------------------------------------------------------------- trade-off functions (Zheng et al. Sec. 2)
def tradeoff_over_tests(pr, tau):
    """T(P, Q)(tau) as the definition reads it: the least type II error over every randomised test
    with type I error <= tau, by brute force over all pairs of the 2^k deterministic tests of a pmf
    pair (no Neyman-Pearson ordering is used)."""
    if not isinstance(pr, DPair):
        raise ValueError(f"pair={pr.label!r}: TradeoffOverTests needs a pmf pair (brute force over tests)")
    return pr.tradeoff_bruteforce(tau)


def tradeoff_inverse(pr, a):
    """The generalised inverse f^{-1}(a) = inf{0 <= t <= 1 : f(t) <= a} of f = T(P, Q), by bisection
    on the non-increasing f to the working precision (Zheng et al. 2020, Sec. 2)."""
    a = mp.mpf(a)
    lo, hi = mp.mpf(0), mp.mpf(1)
    if pr.tradeoff(lo) <= a:
        return lo
    for _ in range(mp.mp.prec + 10):
        mid = (lo + hi) / 2
        if pr.tradeoff(mid) <= a:
            hi = mid
        else:
            lo = mid
    return hi


def tradeoff_conjugate(pr, y):
    """The convex conjugate f^*(y) = sup_{0 <= x <= 1} (y x - f(x)) of f = T(P, Q): exactly, over the
    vertices of the piecewise-linear curve of a pmf pair, else by a bracketed maximisation over x."""
    y = mp.mpf(y)
    return sup_over_curve(pr, lambda t, b: y * t - b)

# ----------------------------------------------------------------------------- likelihood-ratio CDFs (appended)
def _likelihood_ratio_mass(pair, lam, under: str, upper: bool):
    """P or Q (``under``) of {dP/dQ <= lam} (``upper`` False) or {dP/dQ >= lam} (True), the atom at
    lam included.  On pmfs an exact sum (atoms where q = 0 have ratio +inf); on a continuous pair
    with a monotone ratio the mass of the half-line on the right side of the crossing p/q = lam,
    read off the CDFs.  Where the ratio of a continuous pair never equals lam (flat tails,
    disjoint supports) the event may hold an atom of the ratio, and a ValueError is raised rather
    than a guess."""
    lam = mp.mpf(lam)
    if under not in ("P", "Q"):
        raise ValueError(f"under={under!r} is not one of P, Q")
    if isinstance(pair, DPair):
        return (pair.P_of if under == "P" else pair.Q_of)(
            (lambda r: r >= lam) if upper else (lambda r: r <= lam))
    c = pair.crossing(lam)
    if c is None:
        raise ValueError(f"lam={mp.nstr(lam, 8)} is outside the allowed range for {pair.label}: "
                         "values the likelihood ratio crosses")
    right = pair.decreasing != upper        # the event is the half-line x >= c
    if right:
        return pair.sp_(c) if under == "P" else pair.sq_(c)
    return pair.Fp(c) if under == "P" else pair.Fq(c)


def likelihood_ratio_cdf(pair, lam, under: str = "P"):
    """P(dP/dQ <= lam) (``under="P"``) or Q(dP/dQ <= lam): the CDF of the privacy loss
    log(dP/dQ) at log(lam), under P or Q (see ``_likelihood_ratio_mass``)."""
    return _likelihood_ratio_mass(pair, lam, under, upper=False)


def likelihood_ratio_tail(pair, lam, under: str = "P"):
    """P(dP/dQ >= lam) (``under="P"``) or Q(dP/dQ >= lam): the upper tail of the likelihood ratio,
    an atom at lam included (see ``_likelihood_ratio_mass``)."""
    return _likelihood_ratio_mass(pair, lam, under, upper=True)

# ----------------------------------------------------------------------------- area under a trade-off curve
def tradeoff_area(pair):
    """gamma = int_0^1 T(P, Q)(tau) dtau, the area under the trade-off curve (Zheng et al. 2020,
    Sec. 4; 1/2 for Id, the curve of P = Q).  A pmf pair's curve is piecewise linear: the trapezoids
    over its vertices, exactly.  A continuous pair's curve is read through the threshold tests
    (tau = P(reject), beta = Q(accept) at the threshold x): the substitution tau -> x turns the area
    into int beta(x) p(x) dx (beta = F_Q for a decreasing ratio p/q, 1 - F_Q otherwise), integrated by
    mpmath's tanh-sinh quadrature between the pair's break points after scaling by the integrand's
    largest value at them (mpmath's error test is absolute: an area of 1e-100 would be returned to
    a few digits).  Raises ValueError when the quadrature's error estimate is not small."""
    if isinstance(pair, DPair):
        vs = pair.vertices()
        return mp.fsum((t2 - t1) * (b1 + b2) / 2 for (t1, b1), (t2, b2) in zip(vs[:-1], vs[1:]))
    beta = pair.Fq if pair.decreasing else pair.sq_

    def g(x):
        px = pair.p(x)
        return px * beta(x) if px != 0 else mp.mpf(0)
    edges = pair._edges(pair.kinks)
    finite = [x for x in edges if mp.isfinite(x)] or [mp.mpf(0)]
    probes = finite + [(a + b) / 2 for a, b in zip(finite, finite[1:])]
    scale = max((abs(g(x)) for x in probes), default=mp.mpf(0))
    if not scale > 0:
        scale = mp.mpf(1)
    return scale * pair.quad_checked(lambda x: g(x) / scale, pair.kinks)
