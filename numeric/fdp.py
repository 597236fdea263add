"""f-DP trade-off functions: the common currency of the f-DP, region and
total-variation toolkits.

A trade-off function ``f = T(P, Q)`` maps a type I error ``alpha`` of a test of
P against Q to the smallest type II error ``beta`` any test with that type I
error achieves (Dong, Roth, Su; Zheng et al. 2020, Def. 2.1, Asoodeh et al. 2021, Sec. V).  It is convex,
continuous, non-increasing and ``f(alpha) <= 1 - alpha``.

Every class here evaluates exactly (closed forms, exact Neyman-Pearson on
discrete pairs, exact upper envelopes of lines).  Conversions to (eps, delta)
follow Zheng et al. 2020, Prop. 2.3,

    delta(eps) = 1 + f*(-e^eps) = sup_alpha (1 - f(alpha) - e^eps alpha),

computed exactly for piecewise-linear curves (the supremum sits at a vertex)
and in closed form for G_mu.  A general curve is replaced by a **sound
piecewise-linear minorant** (``lower_polyline``): vertices on a grid, each
lowered by the largest gap a convex function can have below its chord there
(h (s_right - s_left) / 4 with neighbouring chord slopes), then the lower
convex hull.  A minorant claims less privacy than the truth, so every delta,
epsilon and area derived from it errs on the safe side.

Privacy direction: a *smaller* trade-off curve means *less* privacy.  Any
approximation here is from below; ``inverse`` of a general curve returns the
lower end of its bisection bracket for the same reason.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np

from derive.errors import DomainError

from . import _kernels_generated as _G
from . import gaussian as _gauss
from . import kernels as _K
from .kernels import ndtr, ndtri      # arrays import scipy.special on first use
from .solvers import round_up

__all__ = ["TradeOff", "minorant", "upper_envelope", "alpha_grid", "PiecewiseLinear", "Gaussian",
           "EpsDelta", "Identity", "Discrete", "Supremum", "FromPrivacyProfile", "Subsampled"]

GRID = 8001          # vertices of a general curve's minorant
_ABS_SLACK = 4.5e-16  # absolute rounding slack of 1 - beta in double precision
_BISECT = 80         # bisection steps of a general inverse (2^-80 < 1e-24)
_BLOCK_ENTRIES = 2 ** 20   # (query, vertex) pairs a piecewise-linear delta / epsilon forms at once


# ----------------------------------------------------------------------------- input checks
# the shared range validator (numeric.kernels.check_interval), as float arrays
def _unit(x, name: str) -> np.ndarray:
    return np.asarray(_K.check_interval(x, name, 0.0, 1.0, False, False))


def _eps(x) -> np.ndarray:
    return np.asarray(_K.check_nonneg(x, "epsilon"))


def _delta(x) -> np.ndarray:
    return np.asarray(_K.check_interval(x, "delta", 0.0, 1.0, False, True))


def alpha_grid(n: int = GRID) -> np.ndarray:
    """About n points on [0, 1]: half uniform, half uniform in logit(alpha) on [-60, 60]
    (dense near both ends, so that delta down to ~1e-26 is resolved)."""
    z = np.linspace(-60.0, 60.0, n // 2)
    return np.unique(np.concatenate((np.linspace(0.0, 1.0, n - n // 2), 1.0 / (1.0 + np.exp(-z)))))


# ----------------------------------------------------------------------------- geometry
def _lower_hull(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the lower convex hull of points (x, y) (monotone chain)."""
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    keep = np.concatenate(([True], np.diff(x) > 0))   # lowest y at each x
    x, y = x[keep], y[keep]
    hx, hy = [], []
    for xi, yi in zip(x.tolist(), y.tolist()):
        while len(hx) >= 2 and ((hx[-1] - hx[-2]) * (yi - hy[-2])
                                - (hy[-1] - hy[-2]) * (xi - hx[-2])) <= 0:
            hx.pop()
            hy.pop()
        hx.append(xi)
        hy.append(yi)
    return np.array(hx), np.array(hy)


_ENVELOPE_REACH = 4   # hull lines on each side of the active one evaluated at a breakpoint


def upper_envelope(intercept: np.ndarray, slope: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices on [0, 1] of x -> max_j (intercept_j + slope_j x): the lower hull of
    the dual points, evaluated at the breakpoints found.  At a breakpoint the hull lines
    (in slope order) take unimodal values peaking at the two active ones, so the maximum is
    taken over the ``_ENVELOPE_REACH`` hull lines on each side of them and the two extreme
    ones (the line 0 of a trade-off curve is the last: no vertex rounds below 0): the exact
    maximum up to rounding, never above it (a subset of the lines), in memory linear in the
    number of lines (the maximum over all hull lines at every breakpoint is quadratic: 3.5 GB
    and 7 s for the 2e4 lines of a pessimistic PLD curve)."""
    b, m = np.asarray(intercept, float), np.asarray(slope, float)
    order = np.lexsort((b, m))
    b, m = b[order], m[order]
    keep = np.concatenate((np.diff(m) > 0, [True]))   # highest intercept per slope
    b, m = b[keep], m[keep]
    hb, hm = [], []
    for bi, mi in zip(b.tolist(), m.tolist()):
        # line j is useless if the new line overtakes the previous one before j does
        while len(hm) >= 2 and ((hb[-2] - bi) * (hm[-1] - hm[-2])
                                <= (hb[-2] - hb[-1]) * (mi - hm[-2])):
            hb.pop()
            hm.pop()
        hb.append(bi)
        hm.append(mi)
    hb, hm = np.array(hb), np.array(hm)
    cross = (hb[:-1] - hb[1:]) / (hm[1:] - hm[:-1])     # where line k+1 overtakes line k
    xs = np.concatenate(([0.0], cross[(cross > 0) & (cross < 1)], [1.0]))
    active = np.searchsorted(cross, xs)                 # the hull line in force at xs (ties: k)
    near = np.clip(active[:, None] + np.arange(-_ENVELOPE_REACH, _ENVELOPE_REACH + 2)[None, :],
                   0, hb.size - 1)
    near = np.concatenate((near, np.broadcast_to([0, hb.size - 1], (xs.size, 2))), axis=1)
    ys = np.max(hb[near] + hm[near] * xs[:, None], axis=1)
    return xs, ys


def minorant(fn, n: int = GRID) -> "PiecewiseLinear":
    """A sound piecewise-linear minorant of a convex non-increasing ``fn`` on [0, 1]:
    vertices on ``alpha_grid(n)``, each lowered by the largest gap a convex function can
    have below its chord on the neighbouring intervals, h (s_right - s_left) / 4 with the
    neighbouring chord slopes (or the drop across the interval, if smaller), then the
    lower convex hull."""
    x = alpha_grid(n)
    y = fn(x)
    h = np.diff(x)
    s = np.diff(y) / h                                   # chord slopes
    s_left = np.concatenate(([-np.inf], s[:-1]))         # f'(a+) >= s_left, f'(b-) <= s_right
    s_right = np.concatenate((s[1:], [0.0]))
    gap = np.minimum(h * (s_right - s_left) / 4, y[:-1] - y[1:])   # chord - f on each interval
    gap = np.maximum(gap, 0.0)
    drop = np.maximum(np.concatenate(([0.0], gap)), np.concatenate((gap, [0.0])))
    drop = drop + 4 * np.finfo(float).eps * np.maximum(y, 1e-300)
    return PiecewiseLinear(x, np.maximum(y - drop, 0.0))


# ----------------------------------------------------------------------------- base class
class TradeOff:
    """A trade-off function; subclasses implement ``_f`` (exact evaluation)."""

    name = "trade-off"

    def __call__(self, alpha):
        return self._f(_unit(alpha, "alpha"))

    def _f(self, a: np.ndarray) -> np.ndarray:
        raise TypeError(f"{type(self).__name__} does not define _f (TradeOff is abstract)")

    # --- the generic route: a sound piecewise-linear minorant ---------------------------------
    @cached_property
    def lower_polyline(self) -> "PiecewiseLinear":
        """A convex piecewise-linear curve below ``self`` everywhere (see module doc)."""
        return minorant(self._f)

    def inverse(self) -> "TradeOff":
        """f^{-1}(beta) = inf{alpha : f(alpha) <= beta}, i.e. T(Q, P) for f = T(P, Q)."""
        return _Inverse(self)

    def symmetrised(self) -> "TradeOff":
        """min{f, f^{-1}}** (Zheng et al. 2020, Sec. 2; the symmetric curve a pair of neighbouring
        datasets in both orders certifies); through the minorant in general."""
        return self.lower_polyline.symmetrised()

    def delta(self, eps) -> np.ndarray:
        """Zheng et al. 2020, Prop. 2.3: delta(eps) = sup_alpha (1 - f(alpha) - e^eps alpha); never below the truth."""
        return self.lower_polyline.delta(eps)

    def epsilon(self, delta) -> np.ndarray:
        """The smallest eps >= 0 with delta(eps) <= delta (inf when none); never below the truth."""
        return self.lower_polyline.epsilon(delta)

    def area(self) -> float:
        """Area between the no-privacy line 1 - alpha and f: int_0^1 (1 - alpha - f(alpha))."""
        return self.lower_polyline.area()

    def points(self, n: int = 1001) -> tuple[np.ndarray, np.ndarray]:
        a = np.linspace(0.0, 1.0, n)
        return a, self._f(a)

    def compose(self, other: "TradeOff") -> "TradeOff":
        if isinstance(other, Identity):
            return self
        raise TypeError(f"no exact composition of {self.name} and {other.name} here; "
                        "use numeric.pld for numerical composition")

    def params(self) -> dict:
        return {}

    def to_dict(self, n: int = 201) -> dict:
        a, b = self.points(n)
        return {"kind": self.name, **self.params(), "alpha": a.tolist(), "beta": b.tolist()}

    def __repr__(self) -> str:
        p = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({p})"


class _Inverse(TradeOff):
    name = "inverse"

    def __init__(self, f: TradeOff):
        self.f = f

    def inverse(self) -> TradeOff:
        return self.f

    def _f(self, beta: np.ndarray) -> np.ndarray:
        """Vectorised bisection for inf{alpha : f(alpha) <= beta}; returns the lower end
        (a value never above the true inverse)."""
        b = np.asarray(beta, dtype=float)
        lo, hi = np.zeros_like(b), np.ones_like(b)
        done = self.f._f(lo) <= b
        for _ in range(_BISECT):
            mid = 0.5 * (lo + hi)
            ok = self.f._f(mid) <= b
            hi = np.where(ok, mid, hi)
            lo = np.where(ok, lo, mid)
        return np.where(done, 0.0, lo)

    def params(self) -> dict:
        return {"of": repr(self.f)}


# ----------------------------------------------------------------------------- exact curves
class PiecewiseLinear(TradeOff):
    """The convex piecewise-linear trade-off curve with the given vertices (their
    lower convex hull; alpha must include 0, (1, 0) is added when absent, and
    vertices above the no-privacy line 1 - alpha are lowered onto it)."""

    name = "piecewise-linear"

    def __init__(self, alpha, beta):
        a, b = _unit(alpha, "alpha").ravel(), _unit(beta, "beta").ravel()
        if a.shape != b.shape or a.size == 0:
            raise DomainError("beta", f"{b.size} values", f"as many as alpha ({a.size})")
        if a.min() > 0:
            raise DomainError("alpha", float(a.min()), "vertices must include alpha = 0")
        if a.max() < 1:
            a, b = np.append(a, 1.0), np.append(b, 0.0)
        # a trade-off curve never exceeds 1 - alpha: lowering a vertex (rounding residue,
        # e.g. f(1) = 1e-16) only claims less privacy
        self.x, self.y = _lower_hull(a, np.minimum(b, 1.0 - a))

    def _f(self, a):
        return np.interp(a, self.x, self.y)

    @property
    def lower_polyline(self) -> "PiecewiseLinear":
        return self

    def inverse(self) -> "PiecewiseLinear":
        return PiecewiseLinear(np.append(self.y, 1.0), np.append(self.x, 0.0))

    def symmetrised(self) -> "PiecewiseLinear":
        inv = self.inverse()
        return PiecewiseLinear(np.concatenate((self.x, inv.x)), np.concatenate((self.y, inv.y)))

    def _by_rows(self, values: np.ndarray, row_max) -> np.ndarray:
        """``row_max`` (a (rows, 1) block of ``values`` -> the row maxima over the vertices)
        applied to blocks of at most ``_BLOCK_ENTRIES`` (row, vertex) pairs: memory bounded
        whatever the number of queries times the number of vertices."""
        v = values.ravel()
        rows = max(1, _BLOCK_ENTRIES // max(self.x.size, 1))
        if v.size <= rows:
            return row_max(v.reshape(-1, 1))
        return np.concatenate([row_max(v[i:i + rows].reshape(-1, 1)) for i in range(0, v.size, rows)])

    def delta(self, eps):
        e = _eps(eps)
        logx = np.log(np.maximum(self.x, 1e-320))[None, :]
        xpos = self.x[None, :] > 0

        def best(ee):
            # the supremum of a concave piecewise-linear function sits at a vertex
            with np.errstate(divide="ignore", over="ignore"):   # e^eps alpha in log space: no inf * 0
                ex = np.where(xpos, np.exp(ee + logx), 0.0)
            return np.max(1.0 - self.y[None, :] - ex, axis=1)

        b = self._by_rows(e, best)
        # 1 - y is formed in double precision: add its rounding error (a few ulp of 1)
        return np.clip(round_up(b) + _ABS_SLACK * (b > 0), 0.0, 1.0).reshape(e.shape)

    def epsilon(self, delta):
        d = _delta(delta)
        xpos = self.x[None, :] > 0

        def need(dd):
            num = 1.0 - self.y[None, :] - dd
            # at alpha > 0 we need e^eps alpha_i >= 1 - beta_i - delta (plus rounding slack);
            # a vertex at alpha = 0 with 1 - beta_0 > delta admits no finite eps
            with np.errstate(divide="ignore", invalid="ignore"):
                n = np.where(xpos, np.log(np.maximum(num + _ABS_SLACK, 0.0) / self.x[None, :]),
                             np.where(num > _ABS_SLACK, np.inf, -np.inf))
            return np.max(n, axis=1)

        return round_up(np.maximum(self._by_rows(d, need), 0.0)).reshape(d.shape)

    def area(self) -> float:
        return float(0.5 - np.sum(np.diff(self.x) * (self.y[1:] + self.y[:-1]) / 2))

    def params(self) -> dict:
        return {"vertices": int(self.x.size)}

    def to_dict(self, n: int = 201) -> dict:
        return {"kind": self.name, "alpha": self.x.tolist(), "beta": self.y.tolist()}


class Identity(PiecewiseLinear):
    """Id(alpha) = 1 - alpha: perfect privacy.
    HAND (tests/test_kernel_ties.py): piecewise-linear geometry (vertices of the curve)."""

    name = "identity"

    def __init__(self):
        super().__init__([0.0, 1.0], [1.0, 0.0])

    def compose(self, other):
        return other

    def params(self) -> dict:
        return {}


class EpsDelta(PiecewiseLinear):
    """f_{eps,delta}(alpha) = max(0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha)).
    HAND (tests/test_kernel_ties.py): piecewise-linear geometry (vertices of the curve)."""

    name = "eps-delta"

    def __init__(self, eps, delta):
        self.eps, self.delta_ = float(_eps(eps)), float(_delta(delta))
        x, y = upper_envelope(*_eps_delta_lines(np.array([self.eps]), np.array([self.delta_])))
        super().__init__(x, y)

    def params(self) -> dict:
        return {"eps": self.eps, "delta": self.delta_}


def _eps_delta_lines(e: np.ndarray, d: np.ndarray):
    ee = np.exp(e)
    intercept = np.concatenate(([0.0], 1 - d, (1 - d) / ee))
    slope = np.concatenate(([0.0], -ee, -1 / ee))
    return intercept, slope


class FromPrivacyProfile(PiecewiseLinear):
    """Zheng et al. 2020, Prop. 2.4 (primal to dual): the curve certified by (eps_i, delta_i) pairs,
    f(alpha) = sup_i f_{eps_i, delta_i}(alpha), built exactly as an upper envelope."""

    name = "from-privacy-profile"

    def __init__(self, eps, delta):
        e, d = np.broadcast_arrays(_eps(eps), _delta(delta))
        self.n_pairs = int(e.size)
        x, y = upper_envelope(*_eps_delta_lines(e.ravel(), d.ravel()))
        super().__init__(x, y)

    def params(self) -> dict:
        return {"pairs": self.n_pairs, "vertices": int(self.x.size)}


class Discrete(PiecewiseLinear):
    """T(P, Q) for pmfs p, q on a common finite support (exact Neyman-Pearson: reject
    P on outcomes in decreasing order of q/p)."""

    name = "discrete"

    def __init__(self, p, q):
        p, q = np.asarray(p, float).ravel(), np.asarray(q, float).ravel()
        for nm, v in (("p", p), ("q", q)):
            if v.size == 0 or not np.all(np.isfinite(v) & (v >= 0)):
                raise DomainError(nm, "an entry" if v.size else "empty", "non-negative finite pmf")
            if abs(v.sum() - 1) > 1e-9:
                raise DomainError(nm, f"sum {v.sum():.12g}", "a pmf summing to 1 (within 1e-9)")
        if p.shape != q.shape:
            raise DomainError("q", f"{q.size} outcomes", f"the support of p ({p.size} outcomes)")
        self.p, self.q = p, q
        with np.errstate(divide="ignore", invalid="ignore"):
            llr = np.where(p > 0, np.log(q) - np.log(p), np.inf)
        keep = (p > 0) | (q > 0)
        order = np.argsort(-llr[keep], kind="stable")
        pp, qq = p[keep][order], q[keep][order]
        # type II errors as tail sums (exact zero at the end, accurate when small)
        x = np.concatenate(([0.0], np.minimum(np.cumsum(pp), 1.0)))
        y = np.minimum(np.concatenate((np.cumsum(qq[::-1])[::-1], [0.0])), 1.0)
        super().__init__(x, np.minimum(y, 1 - x))

    def inverse(self) -> "Discrete":
        return Discrete(self.q, self.p)

    def compose(self, other):
        if isinstance(other, Identity):
            return self
        if not isinstance(other, Discrete):
            return super().compose(other)
        return Discrete(np.outer(self.p, other.p).ravel(), np.outer(self.q, other.q).ravel())

    def params(self) -> dict:
        return {"outcomes": int(self.p.size)}


class Gaussian(TradeOff):
    """G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) (Zheng et al. 2020, eq. (2.2); Asoodeh et al. 2021, eq. (41))."""

    name = "gaussian"

    def __init__(self, mu):
        v = float(np.asarray(mu, dtype=float))
        if not (np.isfinite(v) and v >= 0):
            raise DomainError("mu", v, "[0, oo)")
        self.mu = v

    def _f(self, a):
        """GENERATED: the library quantity ``gauss_tradeoff`` (stable form Phi(-Phi^{-1}(a) - mu):
        Phi^{-1}(1 - a) = -Phi^{-1}(a), exact for tiny a)."""
        return _G.gauss_tradeoff(self.mu, a)

    def inverse(self):
        return self

    def symmetrised(self):
        return self

    def delta(self, eps):
        e = _eps(eps)
        if self.mu == 0:
            return np.zeros_like(e)
        return _gauss.delta_upper(e, self.mu)

    def epsilon(self, delta):
        d = _delta(delta)
        if self.mu == 0:
            return np.zeros_like(d)
        out = np.full(d.shape, np.inf)
        pos = d > 0
        if pos.any():
            out[pos] = _gauss.eps_exact(d[pos], 1.0 / self.mu)
        return out

    def area(self) -> float:
        """int_0^1 G_mu = P(Z - Z' >= mu) = Phi(-mu / sqrt 2) for Z, Z' iid N(0, 1)."""
        return float(0.5 - ndtr(-self.mu / np.sqrt(2.0)))

    def compose(self, other):
        if isinstance(other, Gaussian):
            return Gaussian(np.hypot(self.mu, other.mu))
        return super().compose(other)

    def params(self) -> dict:
        return {"mu": self.mu}


class Supremum(TradeOff):
    """Pointwise maximum of trade-off curves: the intersection of their privacy regions.
    Exact as a piecewise-linear curve when every part is piecewise linear."""

    name = "supremum"

    def __init__(self, curves):
        self.curves = list(curves)
        if not self.curves or not all(isinstance(c, TradeOff) for c in self.curves):
            raise DomainError("curves", f"{len(self.curves)} items", "one or more TradeOff objects")
        if all(isinstance(c, PiecewiseLinear) for c in self.curves):
            xs = np.unique(np.concatenate([c.x for c in self.curves]))
            # add the crossings of every pair of segments on each elementary interval
            ys = np.stack([c._f(xs) for c in self.curves])
            mids = []
            for i in range(xs.size - 1):
                y0, y1 = ys[:, i], ys[:, i + 1]
                d0, d1 = y0[:, None] - y0[None, :], y1[:, None] - y1[None, :]
                cross = (d0 * d1) < 0
                if cross.any():
                    t = d0[cross] / (d0[cross] - d1[cross])
                    mids.append(xs[i] + t * (xs[i + 1] - xs[i]))
            if mids:
                xs = np.unique(np.concatenate([xs] + mids))
            self._exact = PiecewiseLinear(xs, self._f(xs))
        else:
            self._exact = None

    def _f(self, a):
        return np.max(np.stack([c._f(a) for c in self.curves]), axis=0)

    @cached_property
    def lower_polyline(self) -> PiecewiseLinear:
        return self._exact if self._exact is not None else minorant(self._f)

    def params(self) -> dict:
        return {"curves": [repr(c) for c in self.curves]}


class Subsampled(TradeOff):
    """p f + (1 - p) Id (Zheng et al. 2020, Sec. 5 / Dong et al.'s subsampling before symmetrisation):
    not symmetric; ``.symmetrised()`` gives the curve C_p(f) = min{f_p, f_p^{-1}}**.
    HAND (tests/test_kernel_ties.py): geometry: the subsampling operator's convex combination and symmetrised hull."""

    name = "subsampled"

    def __init__(self, f: TradeOff, p):
        v = float(np.asarray(p, dtype=float))
        if not (np.isfinite(v) and 0 < v <= 1):
            raise DomainError("p", v, "(0, 1]")
        self.f, self.p = f, v

    def _f(self, a):
        return self.p * self.f._f(a) + (1 - self.p) * (1 - a)

    @cached_property
    def lower_polyline(self) -> PiecewiseLinear:
        if isinstance(self.f, PiecewiseLinear):
            return PiecewiseLinear(self.f.x, self._f(self.f.x))
        return minorant(self._f)

    def params(self) -> dict:
        return {"f": repr(self.f), "p": self.p}
