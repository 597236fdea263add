"""Operational attack risk from the certified trade-off curve (f-DP, Zheng et al. 2020, Def. 2.1):

* the largest **advantage** of any membership test, sup_alpha (1 - alpha - f(alpha)) =
  TV = delta(0) of the dominating pair;
* the attacker's **TPR at a given FPR** alpha: TPR <= 1 - f(alpha);
* the **curve** f itself (a certified lower curve: every point of it lies below the truth);

each as a certified upper bound (with a certified lower bound beside it), and **calibration**
of a noise parameter, the number of steps or epochs to a target TPR@FPR or advantage.

Routes: compositions of unsubsampled Gaussians are answered by the exact curve G_mu
(mu = sqrt(sum T_i Delta_i^2 / sigma_i^2); route ``exact``, mu rounded up/down for the two
sides); everything else by privacy-loss distributions (``numeric.pld``, route ``pld``).  The
lower curve is the envelope of the lines 1 - delta(eps) - e^eps alpha and
e^-eps (1 - delta(eps) - alpha) over a lattice of ``EPS_POINTS`` epsilons, delta(eps) the
PLD's certified *upper* profile (worst of both neighbouring directions): a mechanism that is
(eps, delta(eps))-DP for every eps has a trade-off curve above each line (Zheng et al. 2020, Prop. 2.4), so
its TPR at alpha is at most 1 - the envelope.  (The same curve as
``PLDResult.tradeoff("pessimistic")`` up to the lattice, evaluated where needed instead of
building a 20,000-line envelope.)  The upper curve is ``PLDResult.tradeoff("optimistic")``
(lies above the truth: TPR lower bounds); the advantage is the PLD bracket of delta(0).

    from numeric import Event, Gaussian, Poisson
    from numeric.risk import risk, calibrate_risk
    r = risk([Event(Gaussian(1.1), Poisson(256 / 60000), 14063)], at_fpr=[0.01, 0.1])
    r.advantage, r.tpr[0.01], r.tpr_lower[0.01], r.route
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from derive.errors import DomainError

from .errors import SearchLimitError, UserInputError

from . import events as EV

__all__ = ["Risk", "risk", "curves", "calibrate_risk"]

_SLACK = 4.5e-15       # absolute allowance for the float evaluation of a curve point


@dataclass
class Risk:
    """Certified risk of a composition: ``advantage`` (upper bound) with
    ``advantage_lower``; ``tpr[a]`` (upper bound at FPR a) with ``tpr_lower[a]``;
    ``route`` (exact or pld)."""
    advantage: float
    advantage_lower: float
    tpr: dict
    tpr_lower: dict
    route: str
    mechanism: str
    extras: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = {"advantage": self.advantage, "advantage_lower": self.advantage_lower,
             "advantage_upper": self.advantage, "route": self.route, "mechanism": self.mechanism,
             "guarantee": True,
             "tpr_at_fpr": [{"fpr": a, "tpr": self.tpr[a], "tpr_lower": self.tpr_lower[a],
                             "tpr_upper": self.tpr[a]} for a in sorted(self.tpr)]}
        d.update(self.extras)
        return d


def _fprs(at_fpr):
    if at_fpr is None:
        return []
    vals = [at_fpr] if isinstance(at_fpr, (int, float, np.floating)) else list(at_fpr)
    out = []
    for a in vals:
        x = float(a) if isinstance(a, (int, float, np.floating)) and not isinstance(a, bool) else None
        if x is None or not (0.0 <= x <= 1.0) or not math.isfinite(x):
            raise DomainError("at_fpr", a, "[0, 1]")
        out.append(x)
    return out


EPS_POINTS = 4001      # epsilon lattice of the lines bounding the PLD curve from below


def _eps_lattice(acc) -> np.ndarray:
    """Symmetric epsilon lattice reaching past where the certified delta is negligible."""
    em = math.inf
    for d in (1e-12, 1e-10, 1e-8, 1e-6, 1e-4):
        em = float(np.max(acc.epsilon(d)[1]))
        if math.isfinite(em):
            break
    if not math.isfinite(em) or em <= 0:
        em = 20.0
    return np.linspace(-1.25 * em, 1.25 * em, EPS_POINTS)


def _lines_below(eps, dhi, alpha) -> np.ndarray:
    """f(alpha) >= max(0, max_eps max(1 - delta(eps) - e^eps alpha, e^-eps (1 - delta(eps) - alpha)))
    for a mechanism that is (eps, delta(eps))-DP at every eps for both orders of neighbours
    (Zheng et al. 2020, Prop. 2.4 / Dong, Roth, Su 2019 Prop. 2.5): a certified lower curve at the alphas."""
    a = np.atleast_1d(np.asarray(alpha, dtype=float))[:, None]
    e, d = eps[None, :], np.minimum(dhi, 1.0)[None, :]
    with np.errstate(over="ignore", invalid="ignore"):
        v = np.maximum(1.0 - d - np.exp(e) * a, np.exp(-e) * (1.0 - d - a))
    v = np.where(np.isfinite(v), v, -np.inf)
    return np.clip(np.max(v, axis=1) - _SLACK, 0.0, 1.0)


class _PLDCurves:
    """The certified lower curve of a PLD result (lines of its upper delta profile) and the
    optimistic upper curve (``PLDResult.tradeoff("optimistic")``, computed on first use)."""

    def __init__(self, acc, bounds):
        self.acc, self.bounds = acc, bounds
        self.eps = _eps_lattice(acc)
        with np.errstate(all="ignore"):
            dlo, dhi = (np.asarray(x, dtype=float) for x in acc.delta(self.eps))
        # a value the float evaluation could not give is replaced by the trivial bound 1
        self.dhi = np.where(np.isfinite(dhi), dhi, 1.0)
        self.dlo = np.where(np.isfinite(dlo), dlo, 0.0)
        self._hi = None

    def lower(self, alpha):
        return _lines_below(self.eps, self.dhi, alpha)

    def upper(self, alpha):
        if self.bounds != "both":
            return None
        if self._hi is None:
            # an exact two-atom result has no discretised curve: the trivial upper curve 1 - alpha
            self._hi = (self.acc.tradeoff("optimistic") if hasattr(self.acc, "tradeoff")
                        else (lambda a: 1.0 - np.asarray(a, dtype=float)))
        return np.clip(np.asarray(self._hi(np.asarray(alpha, dtype=float)), dtype=float) + _SLACK, 0.0, 1.0)


def _pure_curves(events, bounds):
    """For events of bounded privacy loss the PLD route cannot take (a per-step loss beyond its
    grid): the curves of their pure-DP epsilon (basic composition).  An eps-DP mechanism has
    the trade-off curve f(alpha) >= max(0, 1 - e^eps alpha, e^-eps (1 - alpha)) (Wasserman
    and Zhou 2010; Dong, Roth and Su 2019, Prop. 2.5 with delta = 0): the certified lower
    curve; the upper one is the trivial 1 - alpha.  None where some loss is unbounded."""
    from . import account
    eps = account._pure(events)
    if not math.isfinite(eps):
        return None

    def lower(alpha):
        a = np.atleast_1d(np.asarray(alpha, dtype=float))
        with np.errstate(over="ignore", invalid="ignore"):
            v = np.maximum(np.where(a > 0, 1.0 - np.exp(eps) * a, 1.0), np.exp(-eps) * (1.0 - a))
        return np.clip(v - _SLACK, 0.0, 1.0)

    def upper(alpha):
        return np.clip(1.0 - np.atleast_1d(np.asarray(alpha, dtype=float)), 0.0, 1.0)

    adv = min(1.0, math.tanh(eps / 2) + _SLACK)          # TV of the eps-DP pair: (e^eps-1)/(e^eps+1)
    return lower, (upper if bounds == "both" else None), "pure", lambda: (adv, 0.0)


def _pld_or_pure(events, neighbouring, bounds):
    """(lower, upper, route, advantage): the PLD curves, or the pure-DP ones where the PLD
    route cannot account the events (``RouteError``) and their losses are bounded;
    ``advantage()`` gives the certified (upper, lower) advantage."""
    try:
        with np.errstate(all="ignore"):
            c = _PLDCurves(EV.pld_accountant(events, neighbouring, bounds), bounds)
    except (EV.RouteError, ArithmeticError):    # beyond the grid, or floats give out there
        pure = _pure_curves(events, bounds)
        if pure is None:
            raise
        return pure
    def advantage():
        lo, hi = c.acc.delta(0.0)
        return float(np.max(hi)), (float(np.max(lo)) if bounds == "both" else 0.0)
    return c.lower, (c.upper if bounds == "both" else None), "pld", advantage


def curves(events, neighbouring: str = "add_remove", bounds: str = "both"):
    """(lower curve, upper curve or None, route): callables alpha -> beta; the lower curve lies
    below the true trade-off curve, the upper one (``bounds="both"``) above it."""
    from . import account, fdp
    events = EV._check_events(events, neighbouring)
    mu = account._gaussian_mu(events)
    if mu is not None:
        g_lo, g_hi = fdp.Gaussian(mu * (1 + 4e-16)), fdp.Gaussian(mu * (1 - 4e-16))
        return ((lambda a: np.clip(np.asarray(g_lo(a), dtype=float) - _SLACK, 0.0, 1.0)),
                (lambda a: np.clip(np.asarray(g_hi(a), dtype=float) + _SLACK, 0.0, 1.0))
                if bounds == "both" else None, "exact")
    return _pld_or_pure(events, neighbouring, bounds)[:3]


def risk(events, at_fpr=(0.01,), neighbouring: str = "add_remove", bounds: str = "both",
         curve_points: int = 0) -> Risk:
    """Certified advantage and TPR at each FPR of ``at_fpr`` (module docstring).
    ``bounds="upper"`` skips the lower bounds (reported as the trivial ones): less work.
    ``curve_points`` > 0 adds the curve (alpha, beta_lower, beta_upper) to ``extras``."""
    if bounds not in ("both", "upper"):
        raise DomainError("bounds", bounds, "'both' or 'upper'")
    if isinstance(curve_points, bool) or not isinstance(curve_points, (int, np.integer)) \
            or not 0 <= curve_points <= 100_000:
        raise DomainError("curve_points", curve_points, "an integer in [0, 100000]")
    fprs = _fprs(at_fpr)
    events = EV._check_events(events, neighbouring)
    from . import _kernels_generated as G
    from . import account, fdp
    mu = account._gaussian_mu(events)
    if mu is not None:
        route = "exact"
        f_lo = fdp.Gaussian(mu * (1 + 4e-16))
        f_hi = fdp.Gaussian(mu * (1 - 4e-16))
        lower = lambda a: np.clip(np.asarray(f_lo(a), dtype=float) - _SLACK, 0.0, 1.0)   # noqa: E731
        upper = lambda a: np.clip(np.asarray(f_hi(a), dtype=float) + _SLACK, 0.0, 1.0)   # noqa: E731
        adv = float(G.tv_gaussian(mu * (1 + 4e-16))) + _SLACK          # TV of G_mu (library tv_gaussian)
        adv_lo = max(float(G.tv_gaussian(mu * (1 - 4e-16))) - _SLACK, 0.0)
    else:
        lower, upper, route, advantage = _pld_or_pure(events, neighbouring, bounds)
        adv, adv_lo = advantage()
    if bounds != "both":
        upper = None
    tpr, tpr_lo = {}, {}
    for a in fprs:
        tpr[a] = float(min(1.0, max(a, 1.0 - float(np.ravel(lower(a))[0]))))
        tpr_lo[a] = float(min(tpr[a], max(a, 1.0 - float(np.ravel(upper(a))[0])))) if upper else a
    extras = {}
    if curve_points:
        from .fdp import alpha_grid
        al = np.unique(np.concatenate((np.linspace(0, 1, curve_points), alpha_grid(curve_points))))
        extras["curve"] = {"alpha": al.tolist(), "beta_lower": np.ravel(lower(al)).tolist(),
                           "beta_upper": np.ravel(upper(al)).tolist() if upper else None}
    adv = min(adv, 1.0)
    return Risk(adv, min(adv_lo, adv), tpr, tpr_lo, route, EV.describe(events), extras)


def calibrate_risk(make_events, param: str, lo: float, hi: float, *, target_tpr: float | None = None,
                   at_fpr: float | None = None, target_advantage: float | None = None,
                   neighbouring: str = "add_remove", integer: bool = False,
                   decreasing: bool | None = None, rtol: float = 1e-4) -> dict:
    """Solve for one parameter x in [lo, hi] of ``make_events(x)`` so that the certified
    TPR at FPR ``at_fpr`` (``target_tpr``) or the certified advantage (``target_advantage``)
    meets the target: the smallest noise (``decreasing``: sigma, scale) or the largest
    steps / epochs / batch size.  Returns a record with the solution, the achieved
    certified risk there and the route.  Every evaluation uses the certified upper bound, so
    the returned x meets the target (the next x beyond it, within ``rtol`` or 1, does not)."""
    from . import account
    if (target_tpr is None) == (target_advantage is None):
        raise UserInputError("target", None, "exactly one of target_tpr (with at_fpr) or target_advantage")
    if target_tpr is not None:
        a = _fprs(at_fpr)
        if len(a) != 1:
            raise UserInputError("at_fpr", at_fpr, "one FPR in [0, 1] (with target_tpr)")
        a = a[0]
        t = float(target_tpr)
        if not (a < t <= 1.0):
            raise UserInputError("target_tpr", target_tpr, f"(at_fpr = {a:g}, 1]: no test does worse "
                              "than chance")
    else:
        t = float(target_advantage)
        if not (0.0 < t <= 1.0):
            raise UserInputError("target_advantage", target_advantage, "(0, 1]")

    def value(x):
        try:
            r = risk(make_events(x), [a] if target_tpr is not None else [], neighbouring, "upper")
        except (EV.RouteError, ArithmeticError):
            return math.inf
        return r.tpr[a] if target_tpr is not None else r.advantage

    cache: dict = {}

    def f(x):
        if x not in cache:
            cache[x] = value(x)
        return cache[x]

    if decreasing is None:
        decreasing = param in ("sigma", "scale")
    good, bad = (hi, lo) if decreasing else (lo, hi)
    if not f(good) <= t:
        raise SearchLimitError("target_tpr" if target_tpr is not None else "target_advantage", t,
                          f"a target reachable with {param} = {good:g} (there the certified risk is "
                          f"{f(good):.6g})")
    if f(bad) <= t:
        good = bad
    elif integer:
        good, _ = account.integer_bisect(f, t, good, bad)
    else:
        # the risk of a run is in (0, 1]: regula falsi on log risk against log x
        good, _ = account._illinois(f, t, good, bad, rtol)
    r = risk(make_events(good), [a] if target_tpr is not None else [], neighbouring, "both")
    out = {"solved_for": param, param: good, "route": r.route, "mechanism": r.mechanism,
           "advantage": r.advantage, "advantage_lower": r.advantage_lower, "guarantee": True,
           "evaluations": len(cache)}
    if target_tpr is not None:
        out.update(target_tpr=t, at_fpr=a, tpr=r.tpr[a], tpr_lower=r.tpr_lower[a])
    else:
        out.update(target_advantage=t)
    return out
