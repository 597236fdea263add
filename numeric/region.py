"""RDP -> f-DP: outer bounds of the privacy region implied by Renyi-DP guarantees
(Asoodeh et al. 2021, Sec. V), as trade-off curves of the f-DP toolkit
(``numeric.fdp``), so that they can be evaluated, plotted, converted to (eps, delta)
and compared with any other curve.

* ``RDPRegion(curve, steps, orders)``: Corollary 1, eq. (48) (Lemma 4, eq. (44), at each
  order): a mechanism that is (alpha, gamma(alpha))-RDP for every alpha in ``orders`` has
  privacy region inside  {(tau, beta): d_alpha(1-tau||beta) <= gamma, d_alpha(1-beta||tau) <= gamma}
  for each alpha, d_alpha the binary Renyi divergence (data processing on the optimal test).
  The curve returned is  f(tau) = max_alpha max(g_alpha(tau), g_alpha^{-1}(tau)), g_alpha(tau)
  the least beta with d_alpha(1-tau||beta) <= gamma(alpha).  Each g is convex (Renyi divergence
  is jointly quasi-convex), so f is a trade-off function.
* ``KLRegion(kl)``: eq. (49)/(53), the same with the binary KL divergence d and one level.
* ``conversion_region(curve, steps, eps)``: Lemma 3, eq. (43): the curve certified by the pairs
  (eps, delta_alpha^eps(gamma)) with the exact optimal conversion (Asoodeh et al. 2021, Theorem 3,
  ``numeric.conversion.delta_exact``) minimised over the orders, as ``fdp.FromPrivacyProfile``.
  For a single order this is the convex hull of (44)'s set, i.e. the same curve
  (``tests/test_numeric_region.py`` holds the two equal).
* ``TabulatedRDP(orders, gammas)``: an RDP curve given by values (e.g. from another accountant).

Soundness.  Any subset of the orders gives a valid bound, so restricting the orders can only
loosen the curve.  Each boundary g_alpha(tau) is found by a safeguarded Newton iteration in
log(beta) (``numeric.solvers.bracketed_newton``, analytic derivatives) and the *lower* end of
the final bracket is returned; a point counts as outside the constraint only
when d_alpha exceeds gamma by a relative margin of 1e-9, so the curve is never above the true
bound of the chosen orders (it claims no more privacy than the RDP curve implies).  Areas and
(eps, delta) go through the toolkit's sound piecewise-linear minorant.
"""
from __future__ import annotations

import warnings
from functools import cached_property

import numpy as np

from derive.errors import DomainError

from . import _kernels_generated as G
from . import conversion as C
from . import fdp
from . import kernels as K
from .rdp import RDPCurve, RDPValidityWarning
from .solvers import bracketed_newton

__all__ = ["d_alpha", "d_kl", "RDPRegion", "KLRegion", "TabulatedRDP", "conversion_region",
           "default_orders", "region_area"]

_SLACK = 1e-9      # relative margin on gamma before a point is declared infeasible
MINORANT_GRID = 1201


# ----------------------------------------------------------------------------- binary divergences
def d_alpha(a, b, alpha):
    """d_alpha(a||b) = log(a^alpha b^(1-alpha) + (1-a)^alpha (1-b)^(1-alpha))/(alpha-1)
    (Asoodeh et al. 2021, after (45)), elementwise, stable near a = b: S - 1 = b expm1(alpha log(a/b)) +
    (1-b) expm1(alpha log((1-a)/(1-b))) and log1p(S - 1) while S - 1 is small.  GENERATED (the
    library quantity ``binary_renyi`` in its stable form)."""
    a, b, al = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (a, b, alpha)))
    return G.binary_renyi(a, b, al)


def d_kl(a, b):
    """Binary KL divergence a log(a/b) + (1-a) log((1-a)/(1-b)) (0 log 0 = 0); GENERATED (the
    library quantity ``binary_kl``)."""
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    return G.binary_kl(a, b)


# ----------------------------------------------------------------------------- RDP curves given by values
class TabulatedRDP(RDPCurve):
    """gamma(alpha) known only at the given orders (e.g. the output of another accountant)."""

    def __init__(self, orders, gammas):
        o = np.asarray(orders, dtype=float).ravel()
        g = np.asarray(gammas, dtype=float).ravel()
        if o.size == 0 or o.shape != g.shape:
            raise DomainError("gammas", f"{g.size} values", f"one per order ({o.size} orders)")
        if not np.all(np.isfinite(o) & (o > 1)):
            raise DomainError("orders", float(o[~(np.isfinite(o) & (o > 1))][0]), "(1, oo)")
        if not np.all(np.isfinite(g) & (g >= 0)):
            raise DomainError("gammas", float(g[~(np.isfinite(g) & (g >= 0))][0]), "[0, oo)")
        self.orders, self.gammas = o, g
        self.integer_only = False
        self.alpha_max = float(o.max())

    def _gamma(self, a):
        out = np.empty(a.shape)
        for i, v in enumerate(a.ravel()):
            k = np.nonzero(self.orders == v)[0]
            if k.size == 0:
                raise DomainError("alpha", float(v), f"one of the tabulated orders {self.orders.tolist()}")
            out.flat[i] = self.gammas[k[0]]
        return out

    def describe(self):
        return f"TabulatedRDP({self.orders.size} orders)"


def default_orders(curve: RDPCurve) -> np.ndarray:
    """Orders to intersect over: integers 2..256 for integer-only curves, else a geometric
    grid of alpha - 1 on [1e-3, 1e3] plus the integers 2..64 (capped at the curve's alpha_max)."""
    if isinstance(curve, TabulatedRDP):
        return curve.orders
    if curve.integer_only:
        return np.arange(2.0, min(256.0, curve.alpha_max) + 1)
    grid = 1.0 + np.geomspace(1e-3, 1e3, 96)
    o = np.unique(np.concatenate((grid, np.arange(2.0, 65.0))))
    return o[o <= curve.alpha_max]


# ----------------------------------------------------------------------------- boundaries
def _renyi_parts(la, l1a, lb, l1b, al):
    """(value, w_A) of d_alpha from the logs of a, 1-a, b, 1-b: value stable near a = b,
    w_A = a^al b^(1-al) / S the weight of the first term."""
    x_a, x_b = al * la + (1 - al) * lb, al * l1a + (1 - al) * l1b
    with np.errstate(over="ignore", invalid="ignore"):
        sm1 = np.exp(lb) * np.expm1(al * (la - lb)) + np.exp(l1b) * np.expm1(al * (l1a - l1b))
        val = np.where(np.abs(sm1) < 0.5, np.log1p(sm1), np.logaddexp(x_a, x_b)) / (al - 1)
    return val, K.expit(x_a - x_b)


def _first(t, u, al, kl):
    """(d, -dd/du) of d(1 - tau || beta) at beta = e^u (Lemma 4's first constraint); the logs of
    1 - tau and tau are formed from tau itself (exact for tau below 1e-16)."""
    with np.errstate(divide="ignore"):
        la, l1a = np.log1p(-t), np.log(t)
    b = np.exp(u)
    l1b = np.log1p(-b)
    r = b / (1 - b)
    if kl:
        with np.errstate(invalid="ignore"):
            val = (1 - t) * (la - u) + np.where(t > 0, t * (l1a - l1b), 0.0)
        return val, (1 - t) - t * r
    val, wa = _renyi_parts(la, l1a, u, l1b, al)
    return val, wa - (1 - wa) * r


def _second(t, u, al, kl):
    """(d, -dd/du) of d(1 - beta || tau) at beta = e^u (the swapped constraint)."""
    b = np.exp(u)
    la = np.log(-np.expm1(u))
    lt, l1t = np.log(t), np.log1p(-t)
    if kl:
        a = -np.expm1(u)
        val = a * (la - lt) + b * (u - l1t)
        return val, -b * ((u - l1t) - (la - lt))
    val, wa = _renyi_parts(la, u, lt, l1t, al)
    return val, al / (al - 1) * (wa * b / np.exp(la) - (1 - wa))


_U_FLOOR = np.log(1e-300)


def _boundary(which, tau, al, gam, kl=False):
    """Least beta in [0, 1 - tau] satisfying constraint ``which`` (1: d(1-tau||beta) <= gamma,
    2: d(1-beta||tau) <= gamma), for arrays broadcast together.

    Root of g(u) = gamma (1 + slack) - d(e^u) (increasing in u = log beta) by
    ``solvers.bracketed_newton``; the lower end of the final bracket is returned (there
    d > gamma (1 + slack), so the point is truly outside: the answer is never above the truth).
    Where even beta = 1e-300 is feasible, 0 is returned."""
    t, al, gam = (np.asarray(x, float) for x in np.broadcast_arrays(tau, al, gam))
    shape = t.shape
    t, al, gam = t.ravel(), al.ravel(), gam.ravel()
    out = np.zeros(t.size)
    with np.errstate(divide="ignore"):
        u_hi = np.log1p(-t)                       # beta = 1 - tau: d = 0, feasible
    target = gam * (1 + _SLACK)
    part = _first if which == 1 else _second
    fixed = t
    inner = (t > 0) & (t < 1) & (gam > 0)
    # tau = 0: d(1||beta) = log(1/beta) gives beta = e^-gamma (rounded down); d(1-beta||0) is
    # infinite unless beta = 1
    at0 = (t == 0)
    out[at0] = np.exp(-target[at0]) if which == 1 else 1.0
    if which == 1:
        # d(a||b) >= (al log a + (1-al) log b)/(al-1): beta below a^(al/(al-1)) e^-gamma / 2 is outside
        if kl:
            lo = np.full(t.size, _U_FLOOR)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                lo = al / (al - 1) * np.log1p(-np.minimum(t, 1.0)) - gam - np.log(2.0)
            lo = np.maximum(np.nan_to_num(lo, nan=_U_FLOOR, neginf=_U_FLOOR), _U_FLOOR)
    else:
        lo = np.full(t.size, _U_FLOOR)
        with np.errstate(divide="ignore"):
            inner &= -np.log(np.where(t > 0, t, 1.0)) > target      # d(1||tau) = log(1/tau)
    out[(gam <= 0) & (t < 1)] = (1.0 - t)[(gam <= 0) & (t < 1)]
    if which == 1:
        out[at0 & (gam <= 0)] = 1.0
    idx = np.nonzero(inner)[0]
    if idx.size:
        lo_i, hi_i = lo[idx], u_hi[idx]
        g_lo = target[idx] - part(fixed[idx], lo_i, al[idx], kl)[0]
        solve = (g_lo < 0) & (lo_i < hi_i)
        ii = idx[solve]
        if ii.size:
            def fun(u, k):
                j = ii[k]
                v, dv = part(fixed[j], u, al[j], kl)
                return target[j] - v, dv
            ulo, _, _ = bracketed_newton(fun, lo[ii], u_hi[ii], None, rtol=1e-13, atol=1e-13,
                                         what="privacy-region boundary (Asoodeh et al. 2021, Lemma 4)")
            out[ii] = np.exp(ulo)
    return np.minimum(out, np.maximum(1.0 - t, 0.0)).reshape(shape)


def _g_first(tau, al, gam, kl=False):
    return _boundary(1, tau, al, gam, kl)


def _g_second(tau, al, gam, kl=False):
    return _boundary(2, tau, al, gam, kl)


class _RegionBase(fdp.TradeOff):
    """Common machinery of the symmetric regions: f = max(h, h^{-1}) with h the first
    constraint's boundary (``_h``); f is its own inverse."""

    def inverse(self):
        return self

    def symmetrised(self):
        return self

    def _h(self, a: np.ndarray) -> np.ndarray:
        raise TypeError(f"{type(self).__name__} does not define _h")

    @cached_property
    def lower_polyline(self) -> fdp.PiecewiseLinear:
        """A sound piecewise-linear minorant: the toolkit's chord-gap lowering of the convex h on a
        ``MINORANT_GRID``-point grid (a minorant m <= h), then max(m, m^{-1}) exactly
        (m <= h implies m^{-1} <= h^{-1} for decreasing curves), so only h is solved for."""
        m = fdp.minorant(self._h, MINORANT_GRID)
        return fdp.Supremum([m, m.inverse()]).lower_polyline


class RDPRegion(_RegionBase):
    """The outer bound (48) of the privacy region of a mechanism that is (alpha, steps *
    gamma(alpha))-RDP at every order in ``orders`` (T-fold composition: RDP adds up).

    ``prune=True`` keeps only the orders that are active somewhere on a 129-point tau grid (and
    their neighbours): a subset of orders, so still a valid (at most slightly looser) bound.
    HAND (tests/test_kernel_ties.py): root finding: the region's boundary by bracketed Newton on the generated binary divergences."""

    name = "rdp-region"

    def __init__(self, curve: RDPCurve, steps=1, orders=None, prune: bool = True):
        if not isinstance(curve, RDPCurve):
            raise DomainError("curve", type(curve).__name__, "an RDPCurve (numeric.rdp)")
        st = float(steps)
        if not (np.isfinite(st) and st >= 1):
            raise DomainError("steps", steps, "[1, oo)")
        o = default_orders(curve) if orders is None else np.unique(np.asarray(orders, dtype=float).ravel())
        if o.size == 0:
            raise DomainError("orders", "empty", "at least one order alpha > 1")
        if np.any(~np.isfinite(o) | (o <= 1)):
            raise DomainError("orders", float(o[~np.isfinite(o) | (o <= 1)][0]), "(1, oo)")
        with warnings.catch_warnings(record=True) as wl:
            warnings.simplefilter("always", RDPValidityWarning)
            g = np.asarray(curve(o), dtype=float) * st
        self.warnings = sorted(set(str(w.message) for w in wl))
        ok = np.isfinite(g)
        self.curve, self.steps = curve, st
        self.orders, self.gammas = o[ok], g[ok]
        if self.orders.size == 0:
            raise DomainError("curve", curve.describe(), "finite gamma at some order")
        if prune and self.orders.size > 8:
            self._prune()

    def _prune(self):
        t = fdp.alpha_grid(129)
        best = np.argmax(self._per_order(t, first_only=True), axis=0)      # (orders, tau) -> order
        keep = np.zeros(self.orders.size, bool)
        for k in np.unique(best):
            keep[max(k - 1, 0):k + 2] = True
        self.orders, self.gammas = self.orders[keep], self.gammas[keep]

    def _per_order(self, tau, first_only=False):
        t = np.asarray(tau, float)[None, :]
        al, gam = self.orders[:, None], self.gammas[:, None]
        g1 = _g_first(t, al, gam)
        return g1 if first_only else np.maximum(g1, _g_second(t, al, gam))

    def _max_over_orders(self, a, first_only):
        a = np.asarray(a, float)
        flat = a.ravel()
        out = np.empty(flat.size)
        for s in range(0, flat.size, 4096):              # bounded memory: orders x 4096
            out[s:s + 4096] = np.max(self._per_order(flat[s:s + 4096], first_only), axis=0)
        return np.clip(out, 0.0, 1.0 - flat).reshape(a.shape)

    def _h(self, a):
        return self._max_over_orders(a, True)

    def _f(self, a):
        return self._max_over_orders(a, False)

    def params(self) -> dict:
        return {"curve": self.curve.describe(), "steps": self.steps, "orders": int(self.orders.size)}

    def to_dict(self, n: int = 201) -> dict:
        d = super().to_dict(n)
        d.update({"orders_used": self.orders.tolist(), "gammas": self.gammas.tolist(),
                  "source": "Asoodeh et al. 2021, Corollary 1, eq. (48)", "warnings": self.warnings})
        return d


class KLRegion(_RegionBase):
    """{(tau, beta): d(1-tau||beta) <= kl, d(1-beta||tau) <= kl}, d the binary KL divergence
    (Asoodeh et al. 2021, eqs. (49), (53)): the limit alpha -> 1 of (48).
    HAND (tests/test_kernel_ties.py): root finding: the region's boundary by bracketed Newton on the generated binary divergences."""

    name = "kl-region"

    def __init__(self, kl):
        v = float(kl)
        if not (np.isfinite(v) and v >= 0):
            raise DomainError("kl", kl, "[0, oo)")
        self.kl = v

    def _h(self, a):
        a = np.asarray(a, float)
        return 1.0 - a if self.kl == 0 else np.clip(_g_first(a, 2.0, self.kl, kl=True), 0.0, 1.0 - a)

    def _f(self, a):
        a = np.asarray(a, float)
        if self.kl == 0:
            return 1.0 - a
        out = np.maximum(_g_first(a, 2.0, self.kl, kl=True), _g_second(a, 2.0, self.kl, kl=True))
        return np.clip(out, 0.0, 1.0 - a)

    def params(self) -> dict:
        return {"kl": self.kl}


def conversion_region(curve: RDPCurve, steps=1, eps=None, orders=None) -> fdp.FromPrivacyProfile:
    """Lemma 3 (Asoodeh et al. 2021, eq. (43)): the curve certified by (eps, min_alpha delta_alpha^eps(gamma(alpha)))
    for eps in ``eps`` (default 0..~max, 97 points), exact conversion of Theorem 3.
    HAND (tests/test_kernel_ties.py): envelope of conversions (an optimisation over orders)."""
    o = default_orders(curve) if orders is None else np.asarray(orders, float).ravel()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RDPValidityWarning)
        g = np.asarray(curve(o), float) * float(steps)
    if eps is None:
        eps = np.concatenate(([0.0], np.geomspace(1e-3, max(4.0 * float(np.min(g)) + 10.0, 1.0), 96)))
    e = np.asarray(eps, float).ravel()
    dl = C.delta_exact(o[None, :], g[None, :], e[:, None])
    return fdp.FromPrivacyProfile(e, np.minimum(np.min(dl, axis=1), 1.0 - 1e-16))


def region_area(f: fdp.TradeOff) -> float:
    """Area of the privacy region between f and the no-privacy line 1 - tau (sound: through the
    curve's piecewise-linear minorant, so never smaller than the true area)."""
    return float(f.area())
