"""RDP accountant: RDP curve -> (eps, delta)-DP by a chosen conversion, with the
Renyi order alpha optimised continuously; calibration of sigma; the improved moments
accountant and its closed-form bounds.

Conversions (each result carries its citation):

* ``mironov``  eps = gamma + log(1/delta)/(alpha-1); delta = e^{-(alpha-1)(eps-gamma)}
  (Mironov 2017, Prop. 3; composed over steps by his Prop. 1).
* ``balle``    eps = gamma + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1)
  (Balle et al. 2020, Thm. 21; Canonne, Kamath, Steinke 2020).
* ``asoodeh``  eps = Asoodeh et al. 2021, Lemma 1; delta from the lower bound max{g, f} of
  their Theorem 4, inverted numerically.  (``lemma1``, its former name, is still accepted.)
* ``optimal``  the exact optimal conversion eps_alpha^delta(gamma) / delta_alpha^eps(gamma)
  (Asoodeh et al. 2021, Thm. 3; ``numeric.conversion``).

The order alpha is optimised continuously (``numeric.solvers.zoom_minimize`` on
log(alpha - 1)); curves defined only at integer orders are searched over the
integers.  Any alpha gives a valid guarantee, so the search can only make the
answer tighter, never unsound.  eps and delta are rounded up.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import _kernels_generated as G
from . import conversion as C
from . import kernels as K
from .fastconv import eps_exact_scalar, eps_solve
from .rdp import Gaussian, LinearRDP, RDPCurve, SubsampledGaussian
from .solvers import ConvergenceError, round_up, zoom_minimize

__all__ = ["AccountingResult", "CONVERSIONS", "epsilon", "delta", "epsilon_many",
           "ma_epsilon", "improved_ma_epsilon", "improved_ma_epsilon_bound",
           "sufficient_sigma2", "eps_conversion", "delta_conversion",
           "canonical_conversion"]

CITATIONS = {
    "mironov": "Mironov 2017, Prop. 3 (composed by Prop. 1)",
    "balle": "Balle et al. 2020, Thm. 21 / Canonne, Kamath, Steinke 2020",
    "asoodeh": "Asoodeh et al. 2021, Lemma 1; delta via their Theorem 4",
    "optimal": "Asoodeh et al. 2021, Thm. 3: exact optimal RDP-to-DP conversion",
}
CONVERSIONS = tuple(CITATIONS)
CONVERSION_ALIASES = {"lemma1": "asoodeh"}     # former names, still accepted


def canonical_conversion(conversion):
    """``conversion`` under its current name (a former name is mapped; anything else unchanged)."""
    return CONVERSION_ALIASES.get(conversion, conversion) if isinstance(conversion, str) else conversion
METHODS = ("rdp",)


@dataclass(frozen=True)
class AccountingResult:
    """One accountant answer.  ``name`` is what was computed ("epsilon", "delta"
    or "sigma") and ``value`` its value; ``epsilon`` is the achieved epsilon of a
    calibration (recomputed at the returned sigma)."""

    name: str
    value: float
    method: str
    conversion: str          # "" for the f-DP methods (numeric.methods)
    alpha: float | None      # None when no Renyi order is involved
    citation: str
    epsilon: float | None = None
    delta: float | None = None
    sigma: float | None = None
    mechanism: str = ""
    extras: dict = field(default_factory=dict)

    # the bracket, in the attributes every answer type has (``numeric.stateful.Answer`` too)
    @property
    def lower(self) -> float:
        """A certified lower bound on the quantity (0, the trivial one, when the route gives none:
        the RDP conversions and the approximations)."""
        return float(self.extras.get(f"{self.name}_lower") or 0.0)

    @property
    def upper(self) -> float:
        """The certified upper bound: ``value`` for a guarantee; for an approximation (which is
        none) the certified PLD upper bound computed beside it, or ``ValueError`` saying so."""
        x = self.extras
        if x.get("approximation"):
            hi = x.get(f"pld_{self.name}_upper")
            if hi is None:
                raise ValueError(f"route {self.route} is an approximation and no certified upper bound "
                                 f"on {self.name} was computed beside it")
            return float(hi)
        return float(x.get(f"{self.name}_upper", self.value))

    @property
    def route(self) -> str:
        """The route that gave ``value`` (rdp, pld, exact, pure, clt, edgeworth, ...)."""
        return str(self.extras.get("route", self.method))

    def to_dict(self) -> dict:
        d = {self.name: self.value, "method": self.method, "citation": self.citation}
        if self.conversion:
            d.update(conversion=self.conversion, alpha=self.alpha)
        for k in ("epsilon", "delta", "sigma"):
            v = getattr(self, k)
            if v is not None and k != self.name:
                d[k] = v
        if self.mechanism:
            d["mechanism"] = self.mechanism
        d.update(self.extras)
        return d

    def _repr_html_(self) -> str:
        """A table in Jupyter: the answer on top, then every field of ``to_dict``."""
        from html import escape
        rows = [(self.name, f"{self.value:.6g}")] + [(k, v) for k, v in self.to_dict().items() if k != self.name]
        body = "".join(f"<tr><th style='text-align:left'>{escape(str(k))}</th>"
                       f"<td style='text-align:left'>{escape(str(v))}</td></tr>" for k, v in rows)
        return f"<table>{body}</table>"

    def line(self) -> str:
        parts = [f"{self.name} = {self.value:.6g}"]
        if self.name == "sigma" and self.epsilon is not None:
            parts.append(f"(achieved epsilon = {self.epsilon:.6g})")
        x = self.extras
        if f"{self.name}_lower" in x:
            parts.append(f"(certified: {x[self.name + '_lower']:.6g} <= {self.name} <= "
                         f"{x[self.name + '_upper']:.6g})")
        if x.get("approximation"):
            pld_hi = x.get(f"pld_{self.name}_upper")
            parts.append("(approximation, not a guarantee"
                         + (f"; certified PLD upper bound {pld_hi:.6g}" if pld_hi is not None else "")
                         + ")")
        how = (f"method {self.method}, conversion {self.conversion}, alpha = {self.alpha:.6g}"
               if self.conversion else f"method {self.method}")
        parts.append(f"[{how}; {self.citation}]")
        return " ".join(parts)


# ----------------------------------------------------------------------------- conversions
def _check_conversion(conversion: str) -> str:
    conversion = canonical_conversion(conversion)
    if conversion not in CITATIONS:
        raise K.DomainError("conversion", conversion, "one of " + ", ".join(CONVERSIONS))
    return conversion


def eps_conversion(conversion: str, alpha, gamma, delta) -> np.ndarray:
    """eps such that an (alpha, gamma)-RDP mechanism is (eps, delta)-DP, by ``conversion``
    (unrounded for the closed forms; ``optimal`` is rounded up by numeric.conversion)."""
    a, g, d = np.broadcast_arrays(np.asarray(alpha, float), np.asarray(gamma, float),
                                  np.asarray(delta, float))
    if conversion == "mironov":
        return g - np.log(d) / (a - 1.0)
    if conversion == "balle":
        return np.maximum(K.eps_balle(a, g, d), 0.0)
    conversion = canonical_conversion(conversion)
    if conversion == "asoodeh":
        return K.eps_asoodeh(a, g, d)
    if conversion == "optimal":
        return C.eps_exact(a, g, d)
    raise K.DomainError("conversion", conversion, "one of " + ", ".join(CONVERSIONS))


def _delta_from_gamma_bounds(a, g, e):
    """delta with max{g, f}(alpha, eps, delta) >= gamma (Asoodeh et al. 2021, Thm. 4, the
    small-delta lower bounds on gamma), or the large-delta closed form: a valid
    (eps, delta) for every (alpha, gamma)-RDP mechanism; found by bisection in log delta
    and reported at the end where the bound is verified."""
    a, g, e = (x.ravel() for x in np.broadcast_arrays(a, g, e))
    d_g = np.exp(np.minimum(K.log_zeta(a) + (a - 1.0) * (g - e), 0.0))   # g(alpha,eps,d_g) = gamma
    with np.errstate(over="ignore"):
        closed = -np.expm1(e - g)                                          # large-delta form
    d_top = np.where(closed >= 1.0 / a, closed, 1.0 / a)                  # always valid
    # f-part: bisection in log delta on (1e-300, 1/alpha)
    lo = np.full(a.size, np.log(1e-300))
    hi = np.log(1.0 / a) + np.log1p(-1e-12)
    ok_hi = K.gamma_upper(a, e, np.exp(hi)) >= g
    lo_ok = K.gamma_upper(a, e, np.exp(lo)) >= g
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        fm = K.gamma_upper(a, e, np.exp(mid)) >= g
        hi = np.where(fm, mid, hi)
        lo = np.where(fm, lo, mid)
    d_f = np.where(lo_ok, 1e-300, np.where(ok_hi, np.exp(hi), np.inf))
    return np.minimum(np.minimum(d_g, d_f), d_top)


def delta_conversion(conversion: str, alpha, gamma, eps) -> np.ndarray:
    """delta such that an (alpha, gamma)-RDP mechanism is (eps, delta)-DP, by ``conversion``."""
    a, g, e = np.broadcast_arrays(np.asarray(alpha, float), np.asarray(gamma, float),
                                  np.asarray(eps, float))
    if conversion == "mironov":
        return np.exp(np.minimum(-(a - 1.0) * (e - g), 0.0))
    if conversion == "balle":
        return np.exp(np.minimum(K.log_zeta(a) + (a - 1.0) * (g - e), 0.0))
    conversion = canonical_conversion(conversion)
    if conversion == "asoodeh":
        return _delta_from_gamma_bounds(a, g, e).reshape(a.shape)
    if conversion == "optimal":
        return C.delta_exact(a, g, e)
    raise K.DomainError("conversion", conversion, "one of " + ", ".join(CONVERSIONS))


# ----------------------------------------------------------------------------- alpha search
_XMIN, _XMAX = 1e-4, 1e6      # search range of alpha - 1


def _search_alpha(gamma_rows, value_fn, m: int, alpha_max: float, integer: bool,
                  rtol: float = 1e-6):
    """Minimise value_fn(alpha, gamma) over alpha for m problems at once.

    ``gamma_rows(A)`` gives gamma for an (m, k) array of orders.  Returns
    (alpha_best, value_best), arrays of length m."""
    xmax = min(_XMAX, alpha_max - 1.0)

    def F(X):
        A = 1.0 + X
        G = gamma_rows(A)
        with np.errstate(over="ignore", invalid="ignore"):
            V = value_fn(A, G)
        return np.where(np.isfinite(V), V, np.inf)

    if not integer:
        x, v = zoom_minimize(F, np.full(m, _XMIN), np.full(m, xmax), n_grid=40, n_zoom=12,
                             rtol=rtol, log=True)
        return 1.0 + x, v
    # integer orders: a geometric grid of integers, then every integer between the
    # neighbours of the best one
    top = int(max(2, min(alpha_max, 1e5)))
    grid = np.unique(np.round(np.geomspace(2, top, 80)).astype(int))
    V = F(np.broadcast_to(grid - 1.0, (m, grid.size)).copy())
    j = np.argmin(V, axis=1)
    lo = grid[np.maximum(j - 1, 0)]
    hi = grid[np.minimum(j + 1, grid.size - 1)]
    width = int(np.max(hi - lo)) + 1
    cand = lo[:, None] + np.arange(width)[None, :]
    cand = np.minimum(cand, hi[:, None])
    V2 = F(cand - 1.0)
    j2 = np.argmin(V2, axis=1)
    rows = np.arange(m)
    return cand[rows, j2].astype(float), V2[rows, j2]


def _rows_gamma(curve: RDPCurve, steps: np.ndarray):
    def g(A):
        base = curve(A.ravel()).reshape(A.shape)
        return steps[:, None] * base
    return g


def epsilon_many(curve: RDPCurve, steps, delta: float, conversion: str = "optimal"):
    """epsilon(delta) of the ``steps``-fold composition of ``curve`` for an array of
    step counts at once.  Returns (eps, alpha) arrays, eps rounded up."""
    conversion = _check_conversion(conversion)
    d = float(K.check_open01(delta, "delta"))
    one = steps[0] if isinstance(steps, (list, tuple)) and len(steps) == 1 else None
    T = np.atleast_1d(np.asarray(steps, dtype=float)) if not K.is_number(one) else np.array([one])
    if not np.all(np.isfinite(T) & (T >= 1)):
        raise K.DomainError("steps", float(T[~(np.isfinite(T) & (T >= 1))][0]), "[1, oo)")
    m = T.size
    if conversion == "optimal" and m == 1:              # one query: the scalar path
        e1, a1 = _epsilon_one(curve, float(T[0]), d)
        return np.array([e1]), np.array([a1])
    if conversion == "optimal":
        # coarse continuous search with the Asoodeh et al. bound, then the exact conversion near it
        a1, _ = _search_alpha(_rows_gamma(curve, T), lambda A, G: K.eps_asoodeh(A, G, d), m,
                              curve.alpha_max, curve.integer_only, rtol=1e-3)
        if curve.integer_only:
            base = np.maximum(np.round(a1), 2.0)
            cand = np.maximum(base[:, None] + np.arange(-8, 9)[None, :], 2.0)
            G = _rows_gamma(curve, T)(cand)
            V = C.eps_exact(cand, G, d)
            j = np.argmin(V, axis=1)
            rows = np.arange(m)
            return V[rows, j], cand[rows, j]
        lo = np.maximum((a1 - 1.0) / 3.0, _XMIN)
        hi = np.minimum((a1 - 1.0) * 3.0, curve.alpha_max - 1.0)

        def F(X):
            A = 1.0 + X
            G = _rows_gamma(curve, T)(A)
            return C.eps_exact(A, G, d)

        # the exact objective is flat at its optimum: one grid around the Asoodeh et al. bound's optimum and
        # a parabolic step (two vectorised calls of the exact conversion) reach 1e-5 relative
        x, v = zoom_minimize(F, lo, hi, n_grid=9, n_zoom=5, rtol=0.3, max_rounds=1, log=True,
                             parabolic=True)
        # that bound's optimum is a candidate too (RDP curves can have a cliff near the optimum,
        # e.g. the subsampled Gaussian, where the coarse exact search may land beside it)
        v1 = F((a1 - 1.0)[:, None])[:, 0]
        use1 = v1 < v
        return np.where(use1, v1, v), np.where(use1, a1, 1.0 + x)
    a, v = _search_alpha(_rows_gamma(curve, T),
                         lambda A, G: eps_conversion(conversion, A, G, d), m,
                         curve.alpha_max, curve.integer_only)
    return round_up(np.maximum(v, 0.0)), a


# ----------------------------------------------------------------------------- one query
#: integer orders the single-query search screens: every integer to 16, then eight per octave
_INT_ORDERS = np.unique(np.concatenate([np.arange(2.0, 17.0),
                                        np.round(np.geomspace(16.0, 1e6, 137))]))
_SCREEN_BLOCK = 8


_GOLD = 0.381966011250105


def _bracketed_min(f, lo: float, mid: float, hi: float, rtol: float = 1e-3, maxiter: int = 48,
                   ftol: float = 1e-9):
    """Minimise f over [lo, hi] from the bracket lo < mid < hi by parabolic steps, falling
    back to golden-section steps (Brent's rule of thumb); f caches its values.  Stops when
    the bracket is narrower than ``rtol`` relative, or when both ends are within ``ftol``
    relative of the middle value (flat: nothing left to gain).  A kink at the optimum (the
    subsampled Gaussian's RDP curve turns up steeply past its phase transition) makes the
    value error linear in the bracket; there the parabolic steps fail and golden-section steps
    take over, which ``maxiter`` must allow (16 left 6e-4 of epsilon at q = 1e-4, sigma = 1,
    T = 1e5; 48 leaves 2e-7).  A tighter ``rtol`` gains ~2e-5 of epsilon at alpha ~ 200 for
    twice the evaluations, each a 440-term series there."""
    if not lo < mid < hi:
        return
    if f(mid) > min(f(lo), f(hi)):            # not a bracket: the minimum is at an end
        return
    for _ in range(maxiter):
        fl, fm, fh = f(lo), f(mid), f(hi)
        if hi - lo <= rtol * mid or max(fl, fh) - fm <= ftol * abs(fm):
            return
        den = (mid - lo) * (fm - fh) - (mid - hi) * (fm - fl)
        x = math.nan
        if den != 0 and math.isfinite(fl + fm + fh):
            x = mid - 0.5 * ((mid - lo) ** 2 * (fm - fh) - (mid - hi) ** 2 * (fm - fl)) / den
        tiny = 0.1 * rtol * mid
        if not (lo + tiny < x < hi - tiny) or abs(x - mid) < tiny:
            x = mid + _GOLD * ((hi - mid) if hi - mid > mid - lo else (lo - mid))
        if f(x) <= fm:
            lo, mid, hi = (mid, x, hi) if x > mid else (lo, x, mid)
        elif x > mid:
            hi = x
        else:
            lo = x


def _epsilon_linear(R: float, d: float, amax: float) -> tuple[float, float]:
    """epsilon(delta) for gamma(alpha) = R alpha (Gaussian mechanisms and their compositions)
    by the exact conversion: secant steps on d eps/d alpha, which the envelope theorem gives
    at each solve, d eps/d alpha = (R (2 alpha - 1) - dH/d alpha)/(dH/d eps) with
    H = (alpha-1) gamma_alpha^eps(delta).  Starts at Mironov's optimum
    1 + sqrt(log(1/delta)/R) (Mironov 2017's optimum for a linear curve); each solve warm-starts the
    next.  Every evaluated order gives a valid guarantee: the smallest is returned."""
    best = (math.inf, math.nan)
    warm = None
    a = min(1.0 + math.sqrt(math.log(1.0 / d) / R), amax)
    prev = None
    for _ in range(12):
        eps, warm_new, dhda, dhde = eps_solve(a, R * a, d, warm)
        if eps < best[0]:
            best = (eps, a)
        if dhda is None or not dhde > 0:
            break
        warm = warm_new
        slope = (R * (2.0 * a - 1.0) - dhda) / dhde           # d eps / d alpha
        if prev is None:
            # Newton with the curvature of Mironov's objective R alpha + log(1/delta)/(alpha-1)
            step = -slope * (a - 1.0) ** 3 / (2.0 * math.log(1.0 / d))
            if abs(step) > 0.5 * (a - 1.0):
                step = math.copysign(0.5 * (a - 1.0), step)
        else:
            a0, s0 = prev
            step = -slope * (a - a0) / (slope - s0) if slope != s0 else math.nan
            if not math.isfinite(step) or abs(step) > 0.5 * (a - 1.0):
                step = math.copysign(0.5 * (a - 1.0), -slope)
        prev = (a, slope)
        an = min(max(a + step, 1.0 + 0.5 * (a - 1.0)), amax)
        # stop when the step would gain less than 1e-7 relative (the objective is flat there)
        if abs(an - a) <= 1e-5 * a or abs(slope * (an - a)) <= 1e-7 * eps:
            break
        a = an
    if not math.isfinite(best[0]):
        raise ConvergenceError("epsilon by the RDP route (no order gave a finite bound)", 1,
                               {"rho": R, "delta": d})
    return best


def _scalar_cache(curve: RDPCurve, steps: float, exact, gcache: dict | None = None):
    """(gam, ex, cache) for a one-query order search: ``gam(a)`` is steps x gamma at the
    orders ``a`` (1-D, each order evaluated once, kept in ``gcache``, which queries on the
    same curve may share); ``ex(a)`` is ``exact(a, steps x gamma(a))``, cached in ``cache``
    (inf where gamma is not finite)."""
    cache: dict[float, float] = {}
    gcache = {} if gcache is None else gcache

    def gam(a):
        a = np.asarray(a, dtype=float)
        new = np.array([x for x in dict.fromkeys(a.tolist()) if x not in gcache])
        if new.size:
            gcache.update(zip(new.tolist(), (steps * curve._gamma(new)).tolist()))
        return np.array([gcache[x] for x in a.tolist()])

    def ex(a: float) -> float:
        a = float(a)
        if a not in cache:
            g = float(gam([a])[0])
            cache[a] = exact(a, max(g, 0.0)) if math.isfinite(g) else math.inf
        return cache[a]

    return gam, ex, cache


def _search_one(curve: RDPCurve, gam, ex, screen, cache: dict, what: str, info: dict):
    """The order minimising ``ex`` (an exact conversion, cached in ``cache``) for one query,
    screened by the closed-form ``screen(A, G)`` (vectorised, inf where not finite):

    1. integer orders in blocks, stopping once the minimum is well inside (curves whose
       fractional orders need a series), or 64 orders on a log grid of alpha - 1
       (closed-form curves);
    2. ``ex`` around the screened optimum: a search over the neighbouring integers, then
       parabolic steps in alpha unless the curve is integer-only.
    Every evaluated order gives a valid guarantee; returns (smallest value, its order)."""
    amax = float(min(curve.alpha_max, 1e6))
    if curve.integer_only or not curve.cheap_fractional:
        orders = _INT_ORDERS[_INT_ORDERS <= amax]
        vals = np.empty(0)
        for start in range(0, orders.size, _SCREEN_BLOCK):
            blk = orders[start:start + _SCREEN_BLOCK]
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                v = screen(blk, gam(blk))
            vals = np.concatenate([vals, np.where(np.isfinite(v), v, np.inf)])
            if int(np.argmin(vals)) < vals.size - 4:
                break
        i = int(np.argmin(vals))
        lo, hi = int(orders[max(i - 1, 0)]), int(orders[min(i + 1, vals.size - 1)])
        # exact conversion over the integers of [lo, hi] (unimodal near the optimum): ternary
        while hi - lo > max(2, 0.01 * lo):    # the exact objective is flat at its optimum
            m1, m2 = lo + (hi - lo) // 3, hi - (hi - lo) // 3
            gam([m1, m2])
            if ex(m1) <= ex(m2):
                hi = m2
            else:
                lo = m1
        n = min(range(lo, hi + 1), key=ex)
        # walk on while the neighbours improve (the exact and screening optima may differ)
        while n + 1 <= amax and ex(n + 1) < ex(n):
            n += 1
        while n - 1 >= 2 and ex(n - 1) < ex(n):
            n -= 1
        if curve.integer_only:
            return ex(n), float(n)
        x = float(n - 1)                      # alpha - 1
        if n == 2:                            # the optimum may lie in (1, 2): halve alpha - 1
            while x / 2 >= _XMIN and ex(1.0 + x / 2) < ex(1.0 + x):
                x /= 2
        pts = [1.0 + x / 2 if n == 2 else n - 1.0, 1.0 + x,
               (1.0 + 2 * x if n == 2 else n + 1.0) if n + 1 <= amax else n - 0.5]
    else:
        xmax = max(min(_XMAX, amax - 1.0), 2e-4)
        xs = np.geomspace(_XMIN, xmax, 64)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            v = screen(1.0 + xs, gam(1.0 + xs))
        i = int(np.argmin(np.where(np.isfinite(v), v, np.inf)))
        pts = [1.0 + xs[max(i - 1, 0)], 1.0 + xs[i], 1.0 + xs[min(i + 1, xs.size - 1)]]
    for x in pts:
        ex(x)
    _bracketed_min(ex, *pts)
    a_best = min(cache, key=cache.get)
    if not math.isfinite(cache[a_best]):
        raise ConvergenceError(f"{what} by the RDP route (no order gave a finite bound)", 1, info)
    return cache[a_best], a_best


def _epsilon_one(curve: RDPCurve, steps: float, d: float, gcache: dict | None = None
                 ) -> tuple[float, float]:
    """epsilon(delta) of ``steps`` x ``curve`` by the exact conversion (Asoodeh et al. 2021, Thm. 3)
    for one query, and the order that gives it: ``_search_one`` screened by the closed-form
    Lemma 1 bound (Asoodeh et al. 2021) with the exact conversion one point at a time
    (``numeric.fastconv``); linear curves by ``_epsilon_linear``.  Rounded up."""
    amax = float(min(curve.alpha_max, 1e6))
    if curve.linear_rho is not None and not curve.integer_only:
        return _epsilon_linear(steps * curve.linear_rho, d, amax)
    gam, ex, cache = _scalar_cache(curve, steps, lambda a, g: eps_exact_scalar(a, g, d), gcache)
    return _search_one(curve, gam, ex, lambda A, G: K.eps_asoodeh(A, G, d), cache, "epsilon",
                       {"steps": steps, "delta": d})


def _log_delta_screen(conversion: str, A, G, e: float):
    """log delta(eps) at orders A with (composed) RDP G by a closed-form conversion, in log
    space: ``mironov``; ``balle`` (Balle et al. 2020, finite far below 1e-300); ``asoodeh``
    (Asoodeh et al. 2021, Lemma 1); ``optimal``: the smaller of the last two (the screen before the exact
    conversion)."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if conversion == "mironov":
            return np.minimum(-(A - 1.0) * (e - G), 0.0)
        lb = np.minimum(K.log_zeta(A) + (A - 1.0) * (G - e), 0.0)
        if conversion == "balle":
            return lb
        l1 = np.log(delta_conversion("asoodeh", A, G, e))
        return l1 if conversion == "asoodeh" else np.minimum(lb, l1)


def _delta_by_inversion(curve: RDPCurve, steps: float, e: float):
    """(log delta, alpha) of delta(epsilon) for one query, as the inverse of the one-query
    ``_epsilon_one`` (the exact conversion; no SciPy; the curve's values shared between
    the queries).  For curves whose fractional orders need a series that converges fast.

    The start is the smallest Balle et al. 2020 / Asoodeh et al. 2021 bound over integer orders (log
    space).  Newton steps in log delta (d eps / d log delta ~ -1/(alpha - 1) at the optimal
    order) find a bracket, then regula falsi narrows it, always keeping an end whose
    epsilon was computed and is <= eps: by the RDP route the composition is
    (eps(delta), delta)-DP, hence (eps, delta)-DP, so that end is a certified delta; it
    is returned once its epsilon is within 1e-9 relative
    of the target or the bracket is narrower than 1e-7 in log delta.  Returns None when the
    answer lies below 1e-280 or the series is slow (the vectorised search handles those)."""
    gcache: dict[float, float] = {}
    orders = _INT_ORDERS[_INT_ORDERS <= min(curve.alpha_max, 1e6)]
    G = steps * curve._gamma(orders)
    gcache.update(zip(orders.tolist(), G.tolist()))
    v = _log_delta_screen("optimal", orders, G, e)
    v = np.where(np.isfinite(v), v, np.inf)
    j = int(np.argmin(v))
    ld0, a0 = float(v[j]), float(orders[j])
    if ld0 <= LOG_TINY or not all(curve.scalar_orders_cheap(x) for x in (0.5 + 0.5 * a0, a0 + 0.5)):
        return None

    def f(ld):
        return _epsilon_one(curve, steps, math.exp(ld), gcache)

    good = min(ld0, math.log1p(-1e-12))
    e_g, a_g = f(good)
    if e_g > e:                   # the screen's delta is valid; the exact route adds nothing
        return ld0, a0
    # 1. a bracket: Newton steps, lengthened 4x each time they stay on the certified side
    grow = 1.0
    for _ in range(60):
        if e - e_g <= 1e-9 * e:
            return good, a_g
        step = (e_g - e) * (a_g - 1.0) * (1.0 + 1e-6)      # eps(x) ~ e_g - (x - good)/(a-1)
        x = max(good + min(step, -1e-9) * grow, LOG_TINY)
        e_x, a_x = f(x)
        if e_x > e:
            bad, f_bad = x, e_x - e
            break
        good, e_g, a_g = x, e_x, a_x
        if x <= LOG_TINY:
            return None
        grow *= 4.0
    else:
        raise ConvergenceError("delta by the RDP route (no bracket for epsilon(delta) = eps)", 1,
                               {"steps": steps, "epsilon": e})
    # 2. regula falsi (Illinois) on eps(log delta) - eps inside [bad, good]
    f_good, side = e_g - e, 0
    for _ in range(100):
        if -f_good <= 1e-9 * e or good - bad <= 1e-7:
            return good, a_g
        w = good - bad
        x = good - f_good * w / (f_good - f_bad)
        x = min(max(x, bad + 0.01 * w), good - 0.01 * w)
        e_x, a_x = f(x)
        if e_x <= e:
            good, f_good, a_g = x, e_x - e, a_x
            if side == -1:
                f_bad /= 2
            side = -1
        else:
            bad, f_bad = x, e_x - e
            if side == 1:
                f_good /= 2
            side = 1
    raise ConvergenceError("delta by the RDP route (inverting epsilon(delta))", 1,
                           {"steps": steps, "epsilon": e})


def epsilon(curve: RDPCurve, delta: float, conversion: str = "optimal", steps: float = 1,
            method: str = "rdp") -> AccountingResult:
    """epsilon(delta) of an RDP curve (times ``steps``), optimised over alpha
    (Mironov 2017 for ``mironov``; the improved moments accountant of Asoodeh et al. 2021 for
    ``optimal``)."""
    if method not in METHODS:
        raise K.DomainError("method", method, "one of " + ", ".join(METHODS))
    conversion = _check_conversion(conversion)
    e, a = epsilon_many(curve, [steps], delta, conversion)
    return AccountingResult("epsilon", float(e[0]), method, conversion, float(a[0]),
                            CITATIONS[conversion] + "; RDP: " + curve.citation,
                            delta=float(delta), mechanism=curve.describe())


def delta(curve: RDPCurve, eps: float, conversion: str = "optimal", steps: float = 1,
          method: str = "rdp") -> AccountingResult:
    """delta(epsilon) of an RDP curve (times ``steps``), optimised over alpha."""
    if method not in METHODS:
        raise K.DomainError("method", method, "one of " + ", ".join(METHODS))
    conversion = _check_conversion(conversion)
    e = float(K.check_nonneg(eps, "epsilon"))
    T = np.array([float(steps)])
    if not (np.isfinite(T[0]) and T[0] >= 1):
        raise K.DomainError("steps", steps, "[1, oo)")

    if conversion == "optimal" and not curve.cheap_fractional and not curve.integer_only:
        got = _delta_by_inversion(curve, float(T[0]), e)
        if got is not None:
            return _delta_result(curve, conversion, method, e, np.array([got[1]]),
                                 np.array([got[0]]))
    a, v = _search_alpha(_rows_gamma(curve, T), lambda A, G: _log_delta_screen(conversion, A, G, e),
                         1, curve.alpha_max, curve.integer_only)
    if conversion == "optimal" and v[0] > LOG_TINY:
        try:
            a, v = _delta_optimal_refine(curve, T, e, a, v)
        except (ConvergenceError, ArithmeticError):
            pass                  # keep the (valid, looser) Asoodeh et al. / Balle et al. value
    return _delta_result(curve, conversion, method, e, a, v)


LOG_TINY = math.log(1e-280)   # below this the exact conversion's iteration is not attempted


def _delta_result(curve, conversion, method, e, a, v) -> AccountingResult:
    """delta = e^{v}, rounded up; below 1e-300 reported as 1e-300 (an upper bound), with
    the natural log of the bound in ``log_delta``."""
    lv = float(v[0])
    dval = float(min(round_up(math.exp(lv)), 1.0)) if lv > math.log(1e-300) else 1e-300
    extras = {"log_delta": lv + 1e-12 * abs(lv)} if lv <= math.log(1e-300) else {}
    return AccountingResult("delta", dval, method, conversion, float(a[0]),
                            CITATIONS[conversion] + "; RDP: " + curve.citation,
                            epsilon=e, mechanism=curve.describe(), extras=extras)


def _delta_optimal_refine(curve, T, e, a, v):
    """Refine the order around the coarse optimum with the exact optimal conversion."""
    if curve.integer_only:
        cand = np.maximum(np.round(a[0]) + np.arange(-8, 9), 2.0)[None, :]
    else:
        cand = 1.0 + np.geomspace(max((a[0] - 1) / 8, _XMIN),
                                  min((a[0] - 1) * 8, curve.alpha_max - 1), 24)[None, :]
    for _ in range(8):
        G = _rows_gamma(curve, T)(cand)
        with np.errstate(divide="ignore"):
            V = np.log(C.delta_exact(cand, G, e))
        j = int(np.argmin(V[0]))
        best_a, best_v = cand[0, j], V[0, j]
        if curve.integer_only:
            break
        lo_a = cand[0, max(j - 1, 0)]
        hi_a = cand[0, min(j + 1, cand.shape[1] - 1)]
        if (hi_a - lo_a) <= 1e-6 * best_a:
            break
        cand = 1.0 + np.geomspace(lo_a - 1.0, hi_a - 1.0, 9)[None, :]
    if best_v < v[0]:
        a, v = np.array([best_a]), np.array([best_v])
    return a, v


# ----------------------------------------------------------------------------- the moments accountant
def ma_epsilon(rho, T, delta_):
    """Moments accountant epsilon = rho T + sqrt(4 rho T log(1/delta)) (Abadi et al. 2016, as stated by Asoodeh et al. 2021): the
    generated kernel of the library quantity ``ma_epsilon`` [rho, T, delta], domains checked."""
    r = K.check_positive(rho, "rho")
    t = K.check_steps(T, "T")
    d = K.check_open01(delta_, "delta")
    return np.asarray(G.ma_epsilon(r, t, d), dtype=float)


def improved_ma_epsilon(rho, T, delta_):
    """eps^delta(rho, T) = inf_alpha eps_alpha^delta(rho alpha T) (Asoodeh et al. 2021), the
    exact improved moments accountant; vectorised over T.  Returns (eps, alpha)."""
    return epsilon_many(LinearRDP(rho), T, delta_, "optimal")


def improved_ma_epsilon_bound(rho, T, delta_):
    """The closed-form bound on the improved moments accountant (Asoodeh et al. 2021, Lemma 2):
    min{eps_0, eps_1, (rho T/delta + log(1-delta))_+},
    eps_0 and eps_1 minimised over alpha in (1, 1/delta].  Vectorised over T.
    Returns (eps, alpha) (alpha = 1/delta when the third term wins)."""
    d = float(K.check_open01(delta_, "delta"))
    T = np.atleast_1d(np.asarray(T, dtype=float))
    r = float(rho)
    m = T.size
    amax = 1.0 / d

    def F(X):
        A = 1.0 + X
        G = r * A * T[:, None]
        e0 = np.maximum(K.eps_balle(A, G, d), 0.0)
        e1 = K.eps_chi_bound(A, G, d)
        return np.minimum(e0, e1)

    x, v = zoom_minimize(F, np.full(m, _XMIN), np.full(m, amax - 1.0), n_grid=48, n_zoom=12,
                         rtol=1e-7, log=True)
    third = np.maximum(r * T / d + np.log1p(-d), 0.0)            # the third term
    eps = np.minimum(v, third)
    alpha = np.where(third < v, amax, 1.0 + x)
    return round_up(eps), alpha


def sufficient_sigma2(eps, delta_, T):
    """The sufficient variance of Asoodeh et al. 2021, Thm. 5, without its O(.) remainder:
    (2T/eps^2) log(1/delta) + T/eps - (2T/eps^2)(log(2 log(1/delta)) + 1 - log eps); the
    generated kernel of the library quantity ``sigma2_sufficient``."""
    return G.sigma2_sufficient(eps, delta_, T)


def ma_sigma2(eps, delta_, T):
    """The moments-accountant variance: sigma^2 = T/(2 x), x = eps - 2 log delta -
    2 sqrt((eps - log delta) log(1/delta)) (Abadi et al. 2016, as stated by Asoodeh et al. 2021);
    the generated kernel of the library quantity ``ma_sigma2`` (stable form x = (sqrt(eps + L) - sqrt(L))^2 without the
    printed form's cancellation)."""
    return G.ma_sigma2(eps, delta_, T)
