"""Float (double precision) paths of the truths, for the checkers' screening stage.

The adversarial search evaluates a claim at hundreds or thousands of points in floats to find
where it is worst, and only the few worst points go to mpmath and ball arithmetic for the verdict
(``derive.search.worst_point``'s ``screen``).  These functions compute the same quantities as
``derive.truths`` from the same definitions, in log space where they under- or overflow; a value
they cannot give (overflow, a pair without a float path) is ``None``, and a truth whose pairs or
quantities are not here has no float path at all (``has_float_path``): its claim is searched in
mpmath alone, as before.  A test holds each against the mpmath truth.
"""
from __future__ import annotations

import math

LOG0 = -math.inf


class NoFloatPath(Exception):
    """The pair or quantity has no float path here."""


def _special():
    import scipy.special as sc
    return sc


def _logaddexp(a, b):
    if a == LOG0:
        return b
    if b == LOG0:
        return a
    m = max(a, b)
    return m + math.log1p(math.exp(-abs(a - b)))


def _logsumexp(xs):
    xs = [x for x in xs if x != LOG0]
    if not xs:
        return LOG0
    m = max(xs)
    return m + math.log(math.fsum(math.exp(x - m) for x in xs))


# ----------------------------------------------------------------------------- pairs
class Gauss:
    def __init__(self, mu):
        self.mu = abs(float(mu))

    def swapped(self):
        return self


class Lap:
    def __init__(self, t):
        self.t = abs(float(t))

    def swapped(self):
        return self


class Pmf:
    """Masses as log-probabilities (exact tails for composed pairs)."""

    def __init__(self, logP, logQ):
        self.logP, self.logQ = list(logP), list(logQ)

    def swapped(self):
        return Pmf(self.logQ, self.logP)


def _log(x):
    x = float(x)
    if x < 0:
        raise NoFloatPath("negative mass")
    return math.log(x) if x > 0 else LOG0


def gaussian(mu, sigma=1):
    return Gauss(mu)


def laplace(m, b=1):
    if float(b) <= 0:
        raise NoFloatPath("scale <= 0")
    return Lap(float(m) / float(b))


def randomized_response(e):
    e = float(e)
    lp, lq = -math.log1p(math.exp(-e)) if e > -700 else e, -math.log1p(math.exp(e)) if e < 700 else -e
    return Pmf([lp, lq], [lq, lp])


def bernoulli(a, b):
    a, b = float(a), float(b)
    if not (0 <= a <= 1 and 0 <= b <= 1):
        raise NoFloatPath("Bernoulli parameter outside [0, 1]")
    return Pmf([_log(a), _log(1 - a)], [_log(b), _log(1 - b)])


def eps_delta_pair(e, d):
    e, d = float(e), float(d)
    l1 = math.log1p(-d) if d < 1 else LOG0
    la = l1 - math.log1p(math.exp(-e)) if e > -700 else LOG0
    lb = l1 - math.log1p(math.exp(e)) if e < 700 else LOG0
    return Pmf([_log(d), la, lb, LOG0], [LOG0, lb, la, _log(d)])


def pmf(*logits):
    if len(logits) % 2 or len(logits) < 4:
        raise NoFloatPath("Pmf needs 2k logits")
    k = len(logits) // 2
    u, v = [float(x) for x in logits[:k]], [float(x) for x in logits[k:]]
    lu, lv = _logsumexp(u), _logsumexp(v)
    return Pmf([x - lu for x in u], [x - lv for x in v])


def swapped(pr):
    return pr.swapped()


def composed(pr, k):
    k = float(k)
    if k != int(k) or k < 1:
        raise NoFloatPath("k is not an integer >= 1")
    k = int(k)
    if isinstance(pr, Gauss):
        return Gauss(pr.mu * math.sqrt(k))
    if isinstance(pr, Pmf):
        n = len(pr.logP)
        if math.comb(k + n - 1, n - 1) > 50_000:
            raise NoFloatPath("too many count vectors")
        import numpy as np
        counts = _count_vectors(n, k)                      # every (c_1..c_n) >= 0 summing to k
        lf = np.array([math.lgamma(j + 1) for j in range(k + 1)])
        m = lf[k] - lf[counts].sum(axis=1)                 # log of the multinomial coefficient

        def side(logs):
            logs = np.asarray(logs, dtype=float)
            used = counts > 0
            dead = (used & np.isneginf(logs)).any(axis=1)  # a count on a point of mass 0
            out = m + np.where(used, counts * np.where(np.isneginf(logs), 0.0, logs), 0.0).sum(axis=1)
            return np.where(dead, LOG0, out)
        return Pmf(side(pr.logP), side(pr.logQ))
    raise NoFloatPath("Composed of this pair")


def _count_vectors(n: int, k: int):
    """Every vector of n non-negative integers summing to k, as the rows of an int array (in the
    order of ``itertools.combinations_with_replacement(range(n), k)``'s count vectors)."""
    import numpy as np
    if n == 1:
        return np.array([[k]], dtype=np.int64)
    if n == 2:
        first = np.arange(k, -1, -1, dtype=np.int64)
        return np.column_stack([first, k - first])
    rows = []
    for c in range(k, -1, -1):                            # the first point's count, largest first
        rest = _count_vectors(n - 1, k - c)
        rows.append(np.column_stack([np.full(len(rest), c, dtype=np.int64), rest]))
    return np.concatenate(rows)


def staircase(e, g, D=1):
    """The staircase pair (``derive.truths.staircase_pair``) reduced to its likelihood-ratio classes
    in NumPy: the same periods, pieces and levels, all periods at once, truncated where the mass left
    is below e^-40."""
    import numpy as np
    e, g, D = float(e), float(g), float(D)
    if not (e > 0 and 0 <= g <= 1 and D > 0):
        raise NoFloatPath("outside the staircase's domain")
    n = int(math.ceil(40 / e)) + 2
    if n > 200_000:
        raise NoFloatPath("eps too small for the float reduction")
    a = -math.expm1(-e) / (2 * D * (g + math.exp(-e) * (1 - g)))
    k = np.arange(-n, n + 1)
    cuts = sorted({0.0, g * D, (1 - g) * D, D})
    classes: dict = {}
    for c0, c1 in zip(cuts[:-1], cuts[1:]):
        if not c1 > c0:
            continue
        fp, fn = (c0 + c1) / 2 < g * D, D - (c0 + c1) / 2 < g * D

        def level(kk):
            return np.where(kk >= 0, kk + (0 if fp else 1), (-kk - 1) + (0 if fn else 1))
        jp, jq = level(k), level(k - 1)
        keep = (jp <= n + 3) & (jq <= n + 3)
        jp, jq = jp[keep], jq[keep]
        for c in np.unique(jp - jq):
            sel = (jp - jq) == c
            u, v = classes.setdefault(int(c), ([], []))
            u.append((c1 - c0) * np.exp(-e * jp[sel]).sum())
            v.append((c1 - c0) * np.exp(-e * jq[sel]).sum())
    cs = sorted(classes)
    return Pmf([_log(a * math.fsum(classes[c][0])) for c in cs], [_log(a * math.fsum(classes[c][1])) for c in cs])


PAIRS = {"Gaussian": gaussian, "Laplace": laplace, "RandomizedResponse": randomized_response,
         "Bernoulli": bernoulli, "EpsDeltaPair": eps_delta_pair, "Pmf": pmf, "Swapped": swapped,
         "Composed": composed, "Staircase": staircase}


# ----------------------------------------------------------------------------- quantities
def _pair(pr):
    if isinstance(pr, (Gauss, Lap, Pmf)):
        return pr
    raise NoFloatPath("not a pair with a float path")


def log_hockey(pr, lam) -> float:
    """log E_lam(P||Q)."""
    lam = float(lam)
    if not lam > 0:
        raise NoFloatPath("lambda <= 0")
    ll = math.log(lam)
    if isinstance(pr, Pmf) and len(pr.logP) > 64:
        return _log_hockey_long(pr, ll)
    if isinstance(pr, Pmf):
        terms = []
        for lp, lq in zip(pr.logP, pr.logQ):
            if lp == LOG0:
                continue
            if lq == LOG0 or lp > ll + lq:
                terms.append(lp + math.log1p(-math.exp(ll + lq - lp)) if lq != LOG0 else lp)
        return _logsumexp(terms)
    if isinstance(pr, Gauss):
        mu = pr.mu
        if mu == 0:
            return math.log1p(-lam) if lam < 1 else LOG0
        # HAND (tests/test_writings.py): the library's gauss_log_delta for one float (derive imports no numeric kernel)
        sc = _special()
        a = float(sc.log_ndtr(mu / 2 - ll / mu))
        b = ll + float(sc.log_ndtr(-mu / 2 - ll / mu))
        if b >= a:
            return LOG0
        return a + math.log(-math.expm1(b - a))
    if isinstance(pr, Lap):
        if lam < 1:
            return math.log(1 - lam + lam * math.exp(log_hockey(pr, 1 / lam)))
        return math.log(-math.expm1((ll - pr.t) / 2)) if ll < pr.t else LOG0
    raise NoFloatPath("hockey-stick of this pair")


def _log_hockey_long(pr, ll: float) -> float:
    """log E_lam(P||Q) of a pmf with many points (a composed pair), vectorised: the same terms as
    the loop of ``log_hockey`` (p (1 - lam q/p) where p > lam q, p where q = 0)."""
    import numpy as np
    lp, lq = np.asarray(pr.logP, dtype=float), np.asarray(pr.logQ, dtype=float)
    keep = ~np.isneginf(lp) & (np.isneginf(lq) | (lp > ll + lq))
    if not keep.any():
        return LOG0
    lp, lq = lp[keep], lq[keep]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        terms = np.where(np.isneginf(lq), lp, lp + np.log1p(-np.exp(np.where(np.isneginf(lq), -np.inf, ll + lq - lp))))
    terms = terms[~np.isneginf(terms)]
    if terms.size == 0:
        return LOG0
    top = float(terms.max())
    return top + math.log(float(np.sum(np.exp(terms - top))))


def hockey(pr, lam):
    return math.exp(log_hockey(_pair(pr), lam))


def _log_profile(pr, e):
    lam = math.exp(float(e))
    return max(log_hockey(pr, lam), log_hockey(pr.swapped(), lam))


def delta_of_eps(pr, e):
    return math.exp(_log_profile(_pair(pr), e))


def eps_of_delta(pr, d):
    pr, d = _pair(pr), float(d)
    if not d > 0:
        raise NoFloatPath("delta <= 0")
    ld = math.log(d)
    f = lambda e: _log_profile(pr, e) - ld  # noqa: E731  (non-increasing in e)
    if f(0.0) <= 0:
        return 0.0
    hi = 1.0
    while f(hi) > 0:
        hi *= 2
        if hi > 1e6:
            raise NoFloatPath("no finite eps")
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi) if lo > 0 or hi < 1e-300 else hi / 8
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * hi:
            break
    return hi


def _gauss_renyi(mu, a):
    """D_alpha(N(mu, 1) || N(0, 1)) = alpha mu^2/2 for one float (KL at alpha = 1); HAND
    (tests/test_writings.py): the library's gaussian_rdp at sigma = 1/mu without the reciprocal."""
    return a * mu ** 2 / 2


def renyi(pr, a):
    pr, a = _pair(pr), float(a)
    if not (a > 0 and a != 1):
        raise NoFloatPath("order")
    if isinstance(pr, Gauss):
        return _gauss_renyi(pr.mu, a)
    if isinstance(pr, Lap):
        if a <= 1:
            raise NoFloatPath("Laplace Renyi for alpha > 1 only")
        t = pr.t
        # HAND (tests/test_writings.py): the library's laplace_rdp stable form for one float, unclipped
        return _logaddexp(math.log(a / (2 * a - 1)) + (a - 1) * t, math.log((a - 1) / (2 * a - 1)) - a * t) / (a - 1)
    return _log_moment(pr, a) / (a - 1)


def _log_moment(pr, a):
    terms = []
    for lp, lq in zip(pr.logP, pr.logQ):
        if lp == LOG0:
            continue
        if lq == LOG0:
            if a > 1:
                raise NoFloatPath("infinite divergence")
            continue
        terms.append(a * lp + (1 - a) * lq)
    return _logsumexp(terms)


def kl(pr):
    pr = _pair(pr)
    if isinstance(pr, Gauss):
        return _gauss_renyi(pr.mu, 1.0)
    if isinstance(pr, Lap):
        return pr.t + math.expm1(-pr.t)
    s = 0.0
    for lp, lq in zip(pr.logP, pr.logQ):
        if lp == LOG0:
            continue
        if lq == LOG0:
            raise NoFloatPath("infinite KL")
        s += math.exp(lp) * (lp - lq)
    return s


def max_divergence(pr):
    pr = _pair(pr)
    if isinstance(pr, Gauss):
        if pr.mu == 0:
            return 0.0
        raise NoFloatPath("infinite max-divergence")
    if isinstance(pr, Lap):
        return pr.t
    vals = []
    for lp, lq in zip(pr.logP, pr.logQ):
        if lp == LOG0:
            continue
        if lq == LOG0:
            raise NoFloatPath("infinite max-divergence")
        vals.append(lp - lq)
    return max(vals)


def tv(pr):
    pr = _pair(pr)
    if isinstance(pr, Gauss):
        return float(_special().erf(pr.mu / (2 * math.sqrt(2))))   # HAND (tests/test_writings.py): tv_gaussian, one float
    if isinstance(pr, Lap):
        return -math.expm1(-pr.t / 2)
    return 0.5 * math.fsum(abs(math.exp(lp) - math.exp(lq)) for lp, lq in zip(pr.logP, pr.logQ))


def chi_alpha(pr, a):
    pr, a = _pair(pr), float(a)
    if not (a > 0 and a != 1):
        raise NoFloatPath("order")
    if isinstance(pr, Gauss):
        return math.expm1((a - 1) * _gauss_renyi(pr.mu, a)) / (a - 1)
    if isinstance(pr, Pmf):
        return math.expm1(_log_moment(pr, a)) / (a - 1)
    raise NoFloatPath("ChiAlpha of this pair")


def tradeoff(pr, a):
    pr, a = _pair(pr), float(a)
    if isinstance(pr, Gauss) and 0 <= a <= 1:
        sc = _special()       # HAND (tests/test_writings.py): gauss_tradeoff's definition for one float
        return float(sc.ndtr(sc.ndtri(1 - a) - pr.mu))
    raise NoFloatPath("Tradeoff of this pair")


# ----------------------------------------------------------------------------- the optimal conversion (Asoodeh et al. 2021, Thm. 3)
def _log_h1(p, a, d, e):
    """log of (78)'s objective p^a (p-d)^(1-a) + (1-p)^a (e^e - p + d)^(1-a), in log space.
    HAND (tests/test_writings.py): the library's conversion_objective in log space for one float (the screen)."""
    if not (d < p < 1):
        return math.inf
    t1 = a * math.log(p) + (1 - a) * math.log(p - d)
    rest = e + math.log1p((d - p) * math.exp(-e)) if e < 700 else e
    t2 = a * math.log1p(-p) + (1 - a) * rest
    return _logaddexp(t1, t2)


def grid_golden(f, xs, iters, invphi):
    """Minimise ``f``: the least of its values on the grid ``xs`` brackets the minimum with its two
    neighbours, and golden section (ratio ``invphi`` = (sqrt 5 - 1)/2 in the caller's arithmetic:
    floats here, mpmath in ``derive.verify.mp_minimize``) refines the bracket ``iters`` times.
    Returns (a, b, the least value seen at the last two probes and on the grid)."""
    vals = [f(x) for x in xs]
    n = len(xs)
    k = min(range(n), key=vals.__getitem__)
    a, b = xs[max(k - 1, 0)], xs[min(k + 1, n - 1)]
    c, d = b - invphi * (b - a), a + invphi * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iters):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - invphi * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + invphi * (b - a)
            fd = f(d)
    return a, b, min(fc, fd, vals[k])


def _golden_min(f, lo, hi, grid=64, iters=50):
    """min of a unimodal ``f`` on [lo, hi]: a grid, then golden sections on the best cell (0.618^50 of a
    cell, 1e-10: the minimum *value* is then exact to float precision, the error being quadratic)."""
    return grid_golden(f, [lo + (hi - lo) * i / (grid - 1) for i in range(grid)], iters, (math.sqrt(5) - 1) / 2)[2]


def optimal_gamma(a, e, d):
    a, e, d = float(a), float(e), float(d)
    if not (a > 1 and d >= 0 and e >= 0):
        raise NoFloatPath("outside the conversion's domain")
    if 0 < a * d < 1:
        m = _golden_min(lambda t: _log_h1(d + math.exp(t), a, d, e), math.log((a - 1) * d), math.log1p(-d))
    elif d == 0:
        m = _golden_min(lambda t: _log_h1(math.exp(t), a, d, e), -((a - 1) * e + 100), 0.0)
    elif d < 1:
        m = _golden_min(lambda p: _log_h1(p, a, d, e), d, 1.0)
    else:
        raise NoFloatPath("delta >= 1")
    return e + m / (a - 1)


def optimal_eps(a, g, d):
    a, g, d = float(a), float(g), float(d)
    if not (a > 1 and 0 < d < 1):
        raise NoFloatPath("outside the conversion's domain")
    f = lambda e: optimal_gamma(a, e, d) - g  # noqa: E731
    if f(0.0) >= 0:
        return 0.0
    lo, hi = 0.0, g + math.log(1 / d) / (a - 1) + 1
    while f(hi) < 0:
        lo, hi = hi, 2 * hi
        if hi > 1e12:
            raise NoFloatPath("no bracket")
    return _root(f, lo, hi, 1e-13 * max(1.0, hi))


def optimal_delta(a, g, e):
    a, g, e = float(a), float(g), float(e)
    if g <= 0:
        return 0.0
    lo, hi = -700.0, -1e-13
    f = lambda t: optimal_gamma(a, e, math.exp(t)) - g  # noqa: E731  (increasing in log delta)
    if f(lo) > 0:
        raise NoFloatPath("delta below 1e-304")
    if f(hi) <= 0:
        return 1.0
    return math.exp(_root(f, lo, hi, 1e-13))


def _root(f, lo, hi, xtol):
    """The root of an increasing ``f`` bracketed by [lo, hi] (Brent's method: a dozen evaluations
    where bisection takes fifty; a screen, so no side of the root is promised)."""
    from scipy.optimize import brentq
    return brentq(f, lo, hi, xtol=xtol, rtol=4 * 2.0 ** -52, maxiter=200)


QUANTITIES = {"HockeyStick": hockey, "SupOverEvents": hockey, "DeltaOfEps": delta_of_eps,
              "EpsOfDelta": eps_of_delta, "Renyi": renyi, "KL": kl, "MaxDivergence": max_divergence, "TV": tv, "ChiAlpha": chi_alpha,
              "Tradeoff": tradeoff, "OptimalRdpGamma": optimal_gamma, "OptimalRdpEps": optimal_eps,
              "OptimalRdpDelta": optimal_delta}


def namespace() -> dict:
    ns = dict(PAIRS)
    ns.update(QUANTITIES)
    return ns


def has_float_path(expr) -> bool:
    """True when every named pair and quantity in ``expr`` has a float path here."""
    from sympy.core.function import AppliedUndef
    return all(type(f).__name__ in PAIRS or type(f).__name__ in QUANTITIES
               for f in expr.atoms(AppliedUndef))


__all__ = ["NoFloatPath", "namespace", "has_float_path", "PAIRS", "QUANTITIES"]
