"""The optimal RDP -> DP conversion (Asoodeh et al. 2021): the Bernoulli program minimised by a
1-D search, its two-parameter brute force, and eps and delta solved from it."""
from __future__ import annotations

import mpmath as mp

from ..verify import mp_minimize


# ----------------------------------------------------------------------------- the optimal RDP -> DP conversion (Asoodeh et al. 2021)
WORK_DPS = 30


def h1(p, a, d, e):
    """The objective of (78) (Theorem 3's M), written from (75) at q = (p-d)e^-e."""
    return _h1(p, a, d, mp.e ** e, 1 - a)


def _h1(p, a, d, lam, b):
    """``h1`` with lam = e^eps and b = 1 - alpha given (computed once by a search)."""
    return p ** a * (p - d) ** b + (1 - p) ** a * (lam - p + d) ** b


def gamma_exact(a, e, d):
    """gamma_alpha^eps(delta) by minimising (78) over p in (delta, 1).

    For alpha delta < 1 the minimiser lies in p - delta in ((alpha-1) delta, 1 - delta) (the
    objective is convex in p and decreasing at p = alpha delta), so the search runs over
    t = log(p - delta) on that interval: a minimiser within (alpha-1) delta of delta is
    resolved even at delta = 1e-300, where a search over p itself cannot see it; at delta = 0
    the search runs over log p, so an infimum approached as p -> 0+ is found too."""
    with mp.workdps(WORK_DPS):
        a, e, d = mp.mpf(a), mp.mpf(e), mp.mpf(d)
        lam, b = mp.e ** e, 1 - a

        def h(p):   # h1(p, a, d, e), with e^eps and 1 - alpha computed once
            return _h1(p, a, d, lam, b)
        if 0 < a * d < 1:
            _, m = mp_minimize(lambda t: h(d + mp.exp(t)), mp.log((a - 1) * d),
                               mp.log(1 - d), grid=64, iters=130)
        elif d == 0:
            # the infimum may sit at p -> 0+, where the objective tends to e^{-(alpha-1) eps}: search
            # log p down to where p is negligible beside that
            _, m = mp_minimize(lambda t: h(mp.exp(t)), -((a - 1) * e + 100), 0, grid=128,
                               iters=130)
        else:
            _, m = mp_minimize(h, d, 1, grid=64, iters=130)
        return e + mp.log(m) / (a - 1)


def gamma_bruteforce(a, e, d):
    """gamma_alpha^eps(delta) from the two-parameter program (75): minimise
    (1/(a-1)) log(p^a q^(1-a) + (1-p)^a (1-q)^(1-a)) over 0<q<p<1 with
    p - q e^eps >= delta, by nested numeric minimisation (no substitution)."""
    with mp.workdps(WORK_DPS):
        a, e, d = mp.mpf(a), mp.mpf(e), mp.mpf(d)
        lam = mp.e ** e

        b = 1 - a

        def inner(p):
            qmax = (p - d) / lam  # feasible q: (0, qmax]
            if qmax <= 0:
                return mp.inf
            # the same objective with p^a, (1-p)^a computed once per p (identical values)
            pa, pb = p ** a, (1 - p) ** a
            f = lambda q: pa * q ** b + pb * (1 - q) ** b
            # include the end point of the feasible set explicitly
            _, v = mp_minimize(f, 0, qmax, grid=60, iters=80)
            return min(v, f(qmax))

        _, m = mp_minimize(inner, d, 1, grid=60, iters=80)
        return mp.log(m) / (a - 1)


def _illinois_upper(f, lo, hi, tol):
    """The root of an increasing ``f`` with f(lo) < 0 <= f(hi), by the Illinois variant of
    regula falsi (the bracket always shrinks; superlinear).  Once two iterates agree to
    ``tol``, one probe just above them closes the bracket; returns its upper end, so that
    f(result) >= 0."""
    flo, fhi = f(lo), f(hi)
    side, last = 0, None
    for _ in range(200):
        w = tol * max(1, hi)
        if hi - lo <= w:
            return hi
        x = (lo * fhi - hi * flo) / (fhi - flo)
        if not lo < x < hi:
            x = (lo + hi) / 2
        if last is not None and abs(x - last) <= w / 4:
            up = min(x + w / 2, hi)      # the root is within a few tol of x: close the bracket
            down = max(x - w / 2, lo)
            if f(up) >= 0:
                hi = up
                fd = f(down)
                if fd < 0:
                    return hi
                hi, fhi = down, fd
                continue
        last = x
        fx = f(x)
        if fx >= 0:
            hi, fhi = x, fx
            if side == 1:
                flo /= 2
            side = 1
        else:
            lo, flo = x, fx
            if side == -1:
                fhi /= 2
            side = -1
    raise ArithmeticError("the Illinois root finder did not converge in 200 steps")


def eps_exact(a, g, d, tol_digits: int = 20):
    """epsilon_alpha^delta(gamma) = inf{eps >= 0 : gamma_alpha^eps(delta) >= gamma} (14):
    a bracket by doubling, then the Illinois bracketing root finder (a dozen evaluations of
    ``gamma_exact`` instead of ~70 bisections); returns the bracket's upper end, so that
    gamma_alpha^eps(delta) >= gamma at the returned eps."""
    with mp.workdps(WORK_DPS):
        a, g, d = mp.mpf(a), mp.mpf(g), mp.mpf(d)
        f = lambda e: gamma_exact(a, e, d) - g  # noqa: E731  (increasing in eps)
        if f(0) >= 0:
            return mp.mpf(0)
        lo, hi = mp.mpf(0), g + mp.log(1 / d) / (a - 1) + 1
        while f(hi) < 0:
            lo, hi = hi, 2 * hi
        return _illinois_upper(f, lo, hi, mp.mpf(10) ** -tol_digits)


def delta_exact(a, g, e, tol_digits: int = 20):
    """The optimal conversion read the other way: the least delta such that every
    (alpha, gamma)-RDP mechanism is (eps, delta)-DP, i.e. sup{delta : gamma_alpha^eps(delta) <= gamma}
    (gamma_alpha^eps(delta) is increasing in delta); bisection in log delta."""
    with mp.workdps(WORK_DPS):
        a, g, e = mp.mpf(a), mp.mpf(g), mp.mpf(e)
        if g <= 0:
            return mp.mpf(0)
        lo, hi = mp.mpf(-4000), mp.mpf(0)   # log delta
        if gamma_exact(a, e, mp.e ** lo) > g:
            return mp.e ** lo   # below 1e-1700: report the bracket's end (sound: an upper bound)
        for _ in range(400):
            mid = (lo + hi) / 2
            if gamma_exact(a, e, mp.e ** mid) <= g:
                lo = mid
            else:
                hi = mid
            if hi - lo <= mp.mpf(10) ** -tol_digits:
                break
        return mp.e ** hi
