"""Truths over the trade-off curves of test pairs (``derive.truths``' ``DPair`` and ``CPair``),
computed from definitions in mpmath: random pairs spanning "any P, Q" (discrete, with Q's mass
where P has none, randomized response, the canonical (eps, delta) pair, Gaussian, Laplace,
exponential, uniform), the Neyman-Pearson quantities at a likelihood-ratio threshold, integrals
along the curve of a function of its slope, Stieltjes integrals against the law of the
likelihood ratio, the lower boundary of an intersection of (eps, delta) regions, and the moments
of the subsampled Gaussian's one-step privacy loss by quadrature.  Nothing here is taken from any
paper's results.
"""
from __future__ import annotations

import mpmath as mp

from . import truths as TS
from .verify import check_draws, pick, takes_at

DPS = TS.DPS


def draws_at_dps(draw, op, n, seed, method, tol_digits=10, fail_note=""):
    """check_draws with every draw computed at the truth modules' working precision."""
    if takes_at(draw):
        def wrapped(rng, at=None):
            with mp.workdps(DPS):
                return draw(rng, at=at)
    else:
        def wrapped(rng):
            with mp.workdps(DPS):
                return draw(rng)
    return check_draws(wrapped, op, n=n, seed=seed, method=method, tol_digits=tol_digits,
                       fail_note=fail_note)


# ----------------------------------------------------------------------------- example pairs
def any_pair(rng, kinds=("discrete", "discrete0", "rr", "epsdelta", "gauss", "laplace", "expo"), at=None):
    """A random pair from the whole domain of the statements (any P, Q); at a given point ``at``
    (a ``describe`` of a pair, its numbers possibly rounded), that pair."""
    if at is not None:
        return pair_at(at)
    kind = rng.choice(kinds)
    if kind == "discrete":
        Pm = TS.random_pmf(rng, rng.randint(2, 4))
        return TS.DPair(Pm, TS.random_pmf(rng, len(Pm)))
    if kind == "discrete0":      # Q puts mass where P has none (beta(0) < 1)
        k = rng.randint(3, 4)
        return TS.DPair(TS.random_pmf(rng, k, zeros=1), TS.random_pmf(rng, k))
    if kind == "rr":
        return TS.randomized_response(mp.mpf(10) ** rng.uniform(-1, 0.5))
    if kind == "epsdelta":
        return TS.eps_delta_pair(mp.mpf(rng.uniform(0.1, 2)), mp.mpf(10) ** rng.uniform(-3, -0.5))
    if kind == "gauss":
        return TS.gaussian_pair(mp.mpf(10) ** rng.uniform(-0.7, 0.4))
    if kind == "laplace":
        return TS.laplace_pair(mp.mpf(10) ** rng.uniform(-0.7, 0.3))
    if kind == "uniform":
        return TS.uniform_pair(1 + mp.mpf(10) ** rng.uniform(-1, 0.5))
    return TS.exponential_pair(mp.mpf(rng.uniform(0.3, 0.8)))


_CONTINUOUS = {"Gaussian": ("mu", TS.gaussian_pair), "Laplace": ("m", TS.laplace_pair),
               "uniform": ("c", TS.uniform_pair), "exponential": ("r", TS.exponential_pair)}


def pair_at(at):
    """The pair a ``describe`` names: its pmfs (discrete pairs, randomized response and the
    (eps, delta) pair, the label kept) or the one parameter of a continuous family."""
    label = at["pair"]
    if label in _CONTINUOUS:
        name, make = _CONTINUOUS[label]
        return make(pick(at, name, None))
    return TS.DPair(list(pick(at, "P", None)), list(pick(at, "Q", None)), label)


def describe(pair, **kw):
    """A pair and the draw's other coordinates, as a counterexample shows them (pmfs as vectors)."""
    d = {"pair": pair.label}
    if isinstance(pair, TS.DPair):
        d["P"], d["Q"] = tuple(pair.P), tuple(pair.Q)
    else:
        d.update({k: v for k, v in pair.params.items()})
    d.update(kw)
    return d


def np_quantities(pair, lam):
    """(tau_lambda, beta(tau_lambda)) of (113)-(114) computed as the type I error of the test
    rejecting H0 on {dP/dQ <= lam} and the trade-off curve (brute force / threshold tests) there."""
    if isinstance(pair, TS.DPair):
        t = pair.P_of(lambda r: r <= lam)
        return t, pair.tradeoff(t)
    x = pair.crossing(lam)
    if x is None:
        t = mp.mpf(0) if pair.log_ratio(mp.mpf(0)) > mp.log(lam) else mp.mpf(1)
    else:
        t = 1 - pair.Fp(x) if pair.decreasing else pair.Fp(x)
    return t, pair.tradeoff(t)


# ----------------------------------------------------------------------------- along the curve
def slope_integral(pr, g, kinks=()):
    """int_0^1 g(|beta'(tau)|) dtau over the trade-off curve: exact sum over the brute-force hull's
    segments (discrete) or quadrature in tau with the threshold tests' slope (continuous)."""
    if isinstance(pr, TS.DPair):
        vs = pr.vertices()
        tot = []
        for (t1, b1), (t2, b2) in zip(vs[:-1], vs[1:]):
            if t2 > t1:
                tot.append((t2 - t1) * g((b1 - b2) / (t2 - t1)))
        return mp.fsum(tot)
    return mp.quad(lambda t: g(-pr.slope(t)), pr.tau_breaks(kinks))


def P_ratio_gt(pr, t):
    """P(dP/dQ > t)."""
    if isinstance(pr, TS.DPair):
        return pr.P_of(lambda r: r > t)
    return 1 - np_quantities(pr, t)[0]


def P_ratio_le(pr, t):
    if isinstance(pr, TS.DPair):
        return pr.P_of(lambda r: r <= t)
    return np_quantities(pr, t)[0]


def stieltjes(pr, f, kinks=()):
    """int_0^oo f(t)/t d tau_t: over the law of dP/dQ under P (its atoms for discrete pairs,
    the change of variables t = p(x)/q(x) for continuous ones)."""
    if isinstance(pr, TS.DPair):
        return mp.fsum(p * f(p / q) * q / p for p, q in zip(pr.P, pr.Q) if p > 0 and q > 0)
    return pr.quad(lambda x: (pr.p(x) * f(pr.p(x) / pr.q(x)) * pr.q(x) / pr.p(x)) if pr.p(x) > 0 and pr.q(x) > 0
                   else mp.mpf(0), pr.ratio_points(kinks))


# ----------------------------------------------------------------------------- regions and losses
def intersection_boundary(m: TS.Mechanism, t, eps_set):
    """Lower boundary of the intersection of C(eps, delta_eps) at tau = t (exact for piecewise
    linear regions when eps_set holds the slopes of their edges)."""
    best = mp.mpf(0)
    for e in eps_set:
        dl = m.E(mp.e ** e)
        best = max(best, 1 - dl - mp.e ** e * t, mp.e ** -e * (1 - dl - t))
    return best


def sgd_loss_moments(qq, s):
    """(E_P L, Var_P L) of the one-step privacy loss L = log(dP/dQ), P = (1-q)N(0,s^2) + qN(1,s^2),
    Q = N(0,s^2), by quadrature of the definitions (40 digits)."""
    with mp.workdps(40):
        phi = lambda x, m: mp.npdf(x, m, s)                                   # noqa: E731
        p_ = lambda x: (1 - qq) * phi(x, 0) + qq * phi(x, 1)                # noqa: E731
        L_ = lambda x: mp.log1p(qq * mp.expm1((2 * x - 1) / (2 * s ** 2)))   # noqa: E731
        cut = [-mp.inf, -10 * s, 0, mp.mpf(1) / 2, 1, 1 + 10 * s, mp.inf]
        m1 = mp.quad(lambda x: p_(x) * L_(x), cut)
        m2 = mp.quad(lambda x: p_(x) * L_(x) ** 2, cut)
        return m1, m2 - m1 ** 2
