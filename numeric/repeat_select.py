"""Repeat and select: run a mechanism a random number K of times, release only the best run.

Papernot and Steinke 2022, "Hyperparameter tuning with Renyi differential privacy", ICLR
(arXiv 2110.03620): a mechanism A with RDP curve eps(.) is run K times (K drawn independently
of the data) and only the best run's output is released.  With mu = E[K] the released output
satisfies, at every order lambda > 1,

* K truncated negative binomial TNB(eta, gamma) (Def. 1; eta = 0 the logarithmic law, eta = 1
  the geometric one), Theorem 2: for every lamhat in [1, oo)

      eps'(lambda) = eps(lambda) + (1 + eta) [(1 - 1/lamhat) eps(lamhat) + log(1/gamma)/lamhat]
                     + log(mu)/(lambda - 1),

  gamma in (0, 1] the halting probability determined by (mu, eta) through
  mu = eta (1 - gamma) / (gamma (1 - gamma^eta)) (eta > 0), (1 - gamma)/(gamma log(1/gamma))
  (eta = 0), 1/gamma (eta = 1).  mu = 1 is gamma = 1: K = 1, the curve is eps itself.
* K Poisson(mu) (eta = oo), Theorem 6: with epshat = log(1 + 1/(lambda - 1)) and deltahat any
  valid delta of A at epshat,

      eps'(lambda) = eps(lambda) + mu deltahat + log(mu)/(lambda - 1).

How it is computed (``RepeatAndSelectRDP``).  The inner curve is evaluated once on a fixed
deterministic grid of orders (geometric in lambda - 1 from 1e-5 to its ``alpha_max``, plus the
integers; integers only for an integer-only curve):

* the minimum over lamhat of Theorem 2 is taken over the grid, the end lamhat = 1 (the term
  log(1/gamma): (1 - 1/lamhat) eps(lamhat) vanishes there, KL being finite wherever the curve
  is) and the limit lamhat -> oo (eps_oo, the inner pure-DP level, where finite), then refined
  by a golden-section search next to the best grid order: every lamhat gives a valid bound, so
  a grid (and any order a search visits) is sound;
* log(1/gamma) is solved from mu by bisection with the mean evaluated in Arb ball arithmetic
  (python-flint), and the end kept is one where the mean is *certified* >= mu: log(1/gamma)
  rounded up (a smaller gamma gives a larger, conservative, bound);
* deltahat (Theorem 6) at the grid's epshat (rounded down) is the smallest of the Balle et al.
  2020 closed form over the grid orders and the exact optimal conversion (Asoodeh et al. 2021, Theorem 3,
  ``numeric.conversion.delta_exact``) at the best of them, and of the closed forms where they
  apply (randomized response's delta at the run's pure-DP level; the exact Gaussian profile
  when the run is unsubsampled Gaussians, ``RepeatAndSelect``), these also at each queried
  order's own epshat.  At an order lambda between grid
  points the next grid order g >= lambda serves: epshat(g) <= epshat(lambda) and delta(eps) is
  non-increasing, so deltahat(g) is a valid delta at epshat(lambda); past the grid, delta at
  eps = 0 (the total variation's bound).
* RDP is non-decreasing in the order (Van Erven and Harremoes 2014, Thm. 3), so the value at
  lambda is also bounded by the bound at any larger order: the curve reports the smaller of its
  own bound and the smallest bound at the grid orders >= lambda (dp_accounting does the same on
  its orders).  As lambda -> oo the bounds give the pure-DP level: eps_oo + (1 + eta) C
  (Theorem 2; (2 + eta) eps_oo at most, Papernot and Steinke 2022 Cor. 3) and
  eps_oo + mu delta(0) (Theorem 6); the curve is clipped to it.

Values are rounded up (2^-47 relative, then to the next float), inf where the bound is infinite,
never NaN.  ``RepeatAndSelect`` is the mechanism of the protocol (``numeric.mechanism``): it holds
the inner events (a composition, with their sampling and counts) and gives ``rdp()`` and
``pure_epsilon()``; no privacy-loss law (the PLD routes report it), no ``--spec`` form.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from derive.errors import DomainError

from .mechanism import Mechanism, NotSupported
from .rdp import RDPCurve

__all__ = ["RepeatAndSelectRDP", "RepeatAndSelect"]

CITATION = ("Papernot and Steinke 2022 (Hyperparameter tuning with Renyi DP, ICLR) Thm. 2 "
            "(truncated negative binomial) / Thm. 6 (Poisson)")

#: relative rounding-up margin of every value (a few float operations, each <= 2^-53)
_SLACK = 2.0 ** -47
#: grid: orders per decade of lambda - 1 (curves with cheap fractional orders / the others)
_PER_DECADE = (64, 16)
_X_MIN = 1e-5                   # smallest lambda - 1 of the grid


def _up(x):
    """x (>= 0, or inf) rounded up by ``_SLACK`` and to the next float; NaN becomes inf."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.where(x > 0, np.nextafter(x * (1.0 + _SLACK), np.inf), x)
    return np.where(np.isnan(out), np.inf, out)


def _eps_hat(a) -> np.ndarray:
    """epshat = log(1 + 1/(lambda - 1)) of Theorem 6, rounded down (the division and log1p err
    by under 3 ulp together; a smaller epshat has a larger, valid, delta)."""
    with np.errstate(divide="ignore", over="ignore"):
        e = np.log1p(1.0 / (np.asarray(a, dtype=float) - 1.0))
    return np.maximum(np.nextafter(e * (1.0 - 2.0 ** -50), -np.inf), 0.0)


def _real(name, v, allowed, *, infinite=False):
    ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
    try:
        x = float(v) if ok else math.nan
    except OverflowError:           # an integer beyond the largest double
        x = math.inf
    if math.isnan(x) or (math.isinf(x) and not infinite):
        raise DomainError(name, v, allowed)
    return x


def _check_mean(v) -> float:
    allowed = "[1, oo) (a finite number: the mean number of runs E[K] >= 1)"
    x = _real("mean", v, allowed)
    if not x >= 1:
        raise DomainError("mean", v, allowed)
    return x


def _check_shape(v) -> float:
    allowed = ("[0, oo], inf allowed (0 logarithmic, 1 geometric, (0, oo) truncated negative "
               "binomial, inf Poisson)")
    x = _real("shape", v, allowed, infinite=True)
    if not x >= 0:
        raise DomainError("shape", v, allowed)
    return x


# ----------------------------------------------------------------------------- the TNB law
def _mean_ball(t: float, shape: float):
    """E[K] of TNB(shape, gamma = e^-t) as an Arb ball (Papernot and Steinke 2022, Def. 1):
    shape expm1(t) / (1 - e^{-shape t}) (shape > 0), expm1(t)/t (shape = 0)."""
    from flint import arb
    T = arb(t)
    if shape == 0:
        return T.expm1() / T
    s = arb(shape)
    return s * T.expm1() / (-((-s * T).expm1()))


def _tnb_mean(gamma: float, shape: float) -> float:
    """E[K] of the truncated negative binomial TNB(shape, gamma), gamma in (0, 1] (Papernot
    and Steinke 2022, Def. 1): shape (1 - gamma)/(gamma (1 - gamma^shape)), the logarithmic law
    (1 - gamma)/(gamma log(1/gamma)) at shape 0, 1/gamma at shape 1 (a float, for tests)."""
    if gamma == 1:
        return 1.0
    from . import rdp_pairs as RP
    with RP._precision():
        return float(_mean_ball(-math.log(gamma), float(shape)).mid())


def _tnb_log_inverse_gamma(mean: float, shape: float) -> float:
    """log(1/gamma) of the truncated negative binomial with E[K] = ``mean`` and ``shape`` < oo,
    rounded up (gamma rounded down: the conservative side of Theorem 2).  Geometric (shape 1):
    log(mean); else bisection in t = log(1/gamma) (the mean increases with t), keeping the end
    where the mean, an Arb ball, is certified >= ``mean``."""
    mean, shape = _check_mean(mean), _check_shape(shape)
    if math.isinf(shape):
        raise DomainError("shape", shape, "[0, oo) (the Poisson law has no gamma)")
    if mean == 1:
        return 0.0
    from flint import arb
    from . import rdp_pairs as RP
    with RP._precision():
        if shape == 1:
            return RP.arb_upper(arb(mean).log())

        def above(t):
            return bool(_mean_ball(t, shape) >= mean)     # True only when certified

        lo, hi = 0.0, max(math.log1p(mean), 1e-300)
        while not above(hi):
            lo, hi = hi, 2.0 * hi
            if not math.isfinite(hi):
                raise ArithmeticError(f"no gamma found for mean={mean!r}, shape={shape!r}")
        for _ in range(4096):
            mid = 0.5 * (lo + hi)
            if not lo < mid < hi or hi - lo <= 2.0 ** -60 * hi:
                break
            if above(mid):
                hi = mid
            else:
                lo = mid
        return hi


# ----------------------------------------------------------------------------- the curve
class RepeatAndSelectRDP(RDPCurve):
    """The RDP curve of repeat-and-select (module docstring): ``inner`` the RDP curve of one
    run (any ``numeric.rdp`` curve, a ``Composition`` included), ``mean`` = E[K] >= 1,
    ``shape`` in [0, oo] (oo: K Poisson).  ``eps_inf``: the inner pure-DP level if known
    (default the inner curve's ``eps_inf`` attribute, else oo).  ``delta_bound`` (Poisson
    only): optionally a vectorised eps -> a certified upper bound on the run's delta(eps)
    (e.g. the exact Gaussian profile, ``numeric.gaussian.delta_upper``), used beside the RDP
    conversion of ``inner`` (the smaller of the two) and then at each queried order's own
    epshat."""

    citation = CITATION

    def __init__(self, inner: RDPCurve, mean: float, shape: float, eps_inf: float | None = None,
                 delta_bound=None):
        if not isinstance(inner, RDPCurve):
            raise DomainError("inner", inner, "an RDP curve (numeric.rdp.RDPCurve)")
        self.inner = inner
        self.mean = _check_mean(mean)
        self.shape = _check_shape(shape)
        e0 = math.inf if eps_inf is None else float(eps_inf)
        if math.isnan(e0) or e0 < 0:
            raise DomainError("eps_inf", eps_inf, "[0, oo] (the inner pure-DP level)")
        own = getattr(inner, "eps_inf", math.inf)        # both are valid levels: the smaller
        self.inner_eps_inf = min(e0, float(own)) if own is not None and own >= 0 else e0
        self.poisson = math.isinf(self.shape)
        self.delta_bound = delta_bound if self.poisson else None
        self.trivial = self.mean == 1 and not self.poisson          # K = 1
        self.log_inv_gamma = None if self.poisson else _tnb_log_inverse_gamma(self.mean, self.shape)
        self.integer_only = inner.integer_only
        self.alpha_max = inner.alpha_max
        self.cheap_fractional = inner.cheap_fractional
        self.citation = CITATION + "; inner: " + (inner.citation or inner.describe())

    def scalar_orders_cheap(self, a: float) -> bool:
        return self.inner.scalar_orders_cheap(a)

    @property
    def eps_inf(self) -> float:
        """The pure-DP level (the bound's limit as lambda -> oo; module docstring), oo if the
        inner one is not finite (the generic subsampling bounds read it)."""
        return self.inner_eps_inf if self.trivial else self._table[-1]

    @property
    def tnb_term(self):
        """(1 + shape) min over lamhat of [(1 - 1/lamhat) eps(lamhat) + log(1/gamma)/lamhat], the
        order-free term of Theorem 2 (rounded up); None for the Poisson law."""
        if self.poisson:
            return None
        return 0.0 if self.trivial else self._table[5]

    def describe(self):
        shape = "inf" if self.poisson else f"{self.shape:g}"
        return f"RepeatAndSelect(mean={self.mean:g}, shape={shape}; {self.inner.describe()})"

    # --- the grid -------------------------------------------------------------------------
    def _inner(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            g = np.asarray(self.inner._gamma(np.asarray(a, dtype=float)), dtype=float) * np.ones(np.shape(a))
        return np.where(np.isnan(g), np.inf, np.maximum(g, 0.0))

    def _orders(self) -> np.ndarray:
        amax = float(min(self.alpha_max, 1e6))
        ints = np.arange(2.0, min(amax, 64.0) + 1.0)
        if self.integer_only:
            top = np.round(np.geomspace(64.0, amax, 48)) if amax > 64 else np.empty(0)
            g = np.concatenate([ints, top])
        else:
            per = _PER_DECADE[0 if self.cheap_fractional else 1]
            n = max(2, int(math.ceil(per * math.log10(max(amax - 1.0, 2 * _X_MIN) / _X_MIN))) + 1)
            g = np.concatenate([1.0 + np.geomspace(_X_MIN, max(amax - 1.0, 2 * _X_MIN), n), ints])
        g = np.unique(g)
        return g[(g > 1.0) & (g <= max(amax, 1.0 + 2 * _X_MIN))]

    @functools.cached_property
    def _table(self):
        """(orders, raw bound there, suffix minimum of it, delta at the orders (Poisson), the
        constant of Theorem 2 (TNB), the pure-DP level)."""
        g = self._orders()
        G = self._inner(g)
        lm = math.log(self.mean)
        if self.poisson:
            dhat, d0 = self._deltahat(g, G)
            const = None
            with np.errstate(over="ignore", invalid="ignore"):
                raw = _up(G + self.mean * dhat + lm / (g - 1.0))
            top = _up(self.inner_eps_inf + self.mean * d0) if math.isfinite(self.inner_eps_inf) \
                else math.inf
        else:
            dhat, d0 = None, None
            const = self._tnb_constant(g, G)
            with np.errstate(over="ignore", invalid="ignore"):
                raw = _up(G + const + lm / (g - 1.0))
            top = _up(self.inner_eps_inf + const) if math.isfinite(self.inner_eps_inf) else math.inf
        top = float(top)
        suffix = np.minimum.accumulate(raw[::-1])[::-1]
        return g, raw, suffix, dhat, d0, const, top

    def _tnb_constant(self, g, G) -> float:
        """(1 + shape) min over lamhat of (1 - 1/lamhat) eps(lamhat) + log(1/gamma)/lamhat
        (Theorem 2): the grid, lamhat = 1, lamhat -> oo, and a golden-section refinement."""
        t = self.log_inv_gamma
        if t == 0:
            return 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            f = (1.0 - 1.0 / g) * G + t / g
        f = np.where(np.isnan(f), np.inf, f)
        best = min(t, self.inner_eps_inf)                # lamhat = 1 and lamhat -> oo
        if f.size:
            j = int(np.argmin(f))
            best = min(best, float(f[j]))
            if not self.integer_only and math.isfinite(f[j]) and f.size >= 2:
                lo, hi = g[max(j - 1, 0)], g[min(j + 1, g.size - 1)]
                best = min(best, self._golden(lo, hi, t))
        return float(_up((1.0 + self.shape) * best))

    def _golden(self, lo: float, hi: float, t: float, n: int = 24) -> float:
        """The smallest Theorem 2 term found by golden-section steps in log(lamhat - 1) on
        [lo, hi] (every visited lamhat gives a valid bound)."""
        def f(x):
            a = 1.0 + math.exp(x)
            v = float(self._inner(np.array([a]))[0])
            r = (1.0 - 1.0 / a) * v + t / a
            return r if math.isfinite(r) else math.inf

        r = 0.381966011250105
        xa, xb = math.log(lo - 1.0), math.log(hi - 1.0)
        x1, x2 = xa + r * (xb - xa), xb - r * (xb - xa)
        f1, f2 = f(x1), f(x2)
        best = min(f1, f2)
        for _ in range(n):
            if f1 <= f2:
                xb, x2, f2 = x2, x1, f1
                x1 = xa + r * (xb - xa)
                f1 = f(x1)
            else:
                xa, x1, f1 = x1, x2, f2
                x2 = xb - r * (xb - xa)
                f2 = f(x2)
            best = min(best, f1, f2)
        return best

    def _deltahat(self, g, G):
        """delta of the inner curve at epshat = log(1 + 1/(g - 1)) (rounded down) for each grid
        order g, and at eps = 0: the Balle et al. 2020 closed form (Asoodeh et al. 2021, Thm. 4's zeta form,
        ``numeric.accountant.delta_conversion("balle")``) over the grid orders, then the exact
        optimal conversion (Asoodeh et al. 2021, Thm. 3) at the five orders around the best; rounded up."""
        from . import conversion as C
        from . import kernels as K
        from .solvers import round_up
        eps = np.concatenate([_eps_hat(g), [0.0]])
        fin = np.isfinite(G)
        if not fin.any():
            return self._finish(self._delta_closed(eps))
        a, v = g[fin], G[fin]
        with np.errstate(all="ignore"):
            ld = np.minimum(K.log_zeta(a[None, :]) + (a[None, :] - 1.0) * (v[None, :] - eps[:, None]), 0.0)
        j = np.argmin(ld, axis=1)
        out = np.minimum(round_up(np.exp(ld[np.arange(eps.size), j])), 1.0)
        out = np.minimum(out, self._delta_closed(eps))
        if self.delta_bound is not None:      # a true delta (the exact profile): the conversion's
            return self._finish(out)          # refinement cannot beat it
        jj = np.clip(j[:, None] + np.arange(-2, 3)[None, :], 0, a.size - 1)
        try:
            with np.errstate(all="ignore"):
                ex = C.delta_exact(a[jj], v[jj], np.broadcast_to(eps[:, None], jj.shape).copy())
            # gamma = 0 (an underflow, or P = Q) gives delta = 0 there: not relied on
            ex = np.where(np.isfinite(ex) & (ex >= 0) & (v[jj] > 0), ex, 1.0)
            out = np.minimum(out, ex.min(axis=1))
        except (ArithmeticError, ValueError):     # ConvergenceError: keep the closed form (valid)
            pass
        return self._finish(out)

    @staticmethod
    def _finish(out):
        return out[:-1], float(out[-1])

    def _delta_closed(self, eps) -> np.ndarray:
        """Closed-form deltas at ``eps`` (capped at 1): ``delta_bound`` where given (1 where it
        fails or is not a number), and, when the run is eps0-DP (eps0 = ``inner_eps_inf``
        finite), randomized response's delta(eps) = (e^eps0 - e^eps)/(1 + e^eps0) (0 from eps0
        on): an eps0-DP pair's errors (alpha, beta) satisfy alpha + e^eps0 beta >= 1 and
        e^eps0 alpha + beta >= 1 (the hypothesis-testing form of DP; Wasserman and Zhou
        2010, Kairouz, Oh, Viswanath 2015), so delta(eps) = max 1 - beta - e^eps alpha is at most its value at the
        vertex alpha = beta = 1/(1 + e^eps0); rounded up."""
        eps = np.asarray(eps, dtype=float)
        out = np.ones(eps.shape)
        if self.delta_bound is not None:
            try:
                with np.errstate(all="ignore"):
                    d = np.asarray(self.delta_bound(eps), dtype=float) * np.ones(eps.shape)
                out = np.where(np.isfinite(d) & (d >= 0), np.minimum(d, 1.0), 1.0)
            except (ArithmeticError, ValueError):
                pass
        e0 = self.inner_eps_inf
        if math.isfinite(e0):
            with np.errstate(all="ignore"):
                rr = -np.expm1(np.minimum(eps - e0, 0.0)) / (1.0 + math.exp(-e0))
            out = np.minimum(out, np.minimum(_up(rr), 1.0))
        return out

    # --- the values -----------------------------------------------------------------------
    def _gamma(self, a):
        a = np.asarray(a, dtype=float)
        if self.trivial:
            return self._inner(a)
        g, raw_g, suffix, dhat, d0, const, top = self._table
        k = np.searchsorted(g, a, side="left")         # g[k] >= a
        inside = k < g.size
        kk = np.minimum(k, g.size - 1)
        e = self._inner(a)
        lm = math.log(self.mean)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            if self.poisson:
                d = np.where(inside, dhat[kk], d0) if g.size else np.full(a.shape, d0)
                if self.delta_bound is not None or math.isfinite(self.inner_eps_inf):
                    d = np.minimum(d, self._delta_closed(_eps_hat(a)))   # at the order's own epshat
                raw = _up(e + self.mean * d + lm / (a - 1.0))
            else:
                raw = _up(e + const + lm / (a - 1.0))
        if g.size:
            raw = np.minimum(raw, np.where(inside, suffix[kk], np.inf))
        out = np.minimum(raw, top)
        return np.where(np.isnan(out), np.inf, out)

# ----------------------------------------------------------------------------- the mechanism
@dataclass(frozen=True)
class RepeatAndSelect(Mechanism):
    """Repeat-and-select (Papernot and Steinke 2022; module docstring) of a run made of the
    ``events`` (a tuple of ``numeric.events.Event``: mechanisms with their sampling and counts,
    composed), accounted under ``neighbouring`` ("add_remove" or "replace_one"), run K times
    with E[K] = ``mean`` >= 1 and K's law given by ``shape`` (0 logarithmic, 1 geometric,
    (0, oo) truncated negative binomial, inf Poisson); only the best run is released.  The
    event holding it must be accounted under the same neighbouring relation.  RDP route only
    (``rdp()``), and ``pure_epsilon()`` from its limit."""
    events: tuple
    mean: float
    shape: float
    neighbouring: str = "add_remove"

    def __post_init__(self):
        from . import events as EV
        ev = self.events
        if isinstance(ev, EV.Event):
            ev = (ev,)
        try:
            ev = tuple(ev)
        except TypeError:
            raise DomainError("events", self.events, "a non-empty tuple of Event") from None
        if not ev or not all(isinstance(e, EV.Event) for e in ev):
            raise DomainError("events", self.events, "a non-empty tuple of Event")
        object.__setattr__(self, "events", ev)
        object.__setattr__(self, "mean", _check_mean(self.mean))
        object.__setattr__(self, "shape", _check_shape(self.shape))
        if self.neighbouring not in EV.NEIGHBOURING:
            raise DomainError("neighbouring", self.neighbouring, " or ".join(EV.NEIGHBOURING))
        EV._check_events(list(ev), self.neighbouring)       # the inner relation's checks

    def __str__(self):
        def one(e):
            s = str(e.mechanism) + ("" if e.sampling is None else f" o {e.sampling}")
            return s + (f" x {e.count}" if e.count != 1 else "")
        shape = "inf" if math.isinf(self.shape) else f"{self.shape:g}"
        nb = "" if self.neighbouring == "add_remove" else f", {self.neighbouring}"
        return (f"repeat-and-select(mean={self.mean:g}, shape={shape}{nb}; "
                + " + ".join(one(e) for e in self.events) + ")")

    def _inner_pure(self) -> float:
        """The run's pure-DP epsilon: basic composition of the events' (sampled) ones."""
        total = math.fsum(e.count * e.pure_epsilon() for e in self.events)
        return math.nextafter(total * (1 + 1e-15), math.inf) if math.isfinite(total) else math.inf

    @functools.cached_property
    def _curve(self):
        from . import events as EV
        try:
            inner = EV.rdp_curve(list(self.events), self.neighbouring)
        except EV.RouteError as exc:
            return NotSupported(f"{self}: the repeated run has no RDP curve ({exc.reason})")
        return RepeatAndSelectRDP(inner, self.mean, self.shape, eps_inf=self._inner_pure(),
                                  delta_bound=self._gaussian_delta())

    def _gaussian_delta(self):
        """When the run is unsubsampled Gaussian mechanisms alone (``gaussian_noise()``), its
        exact privacy profile G_mu, mu = sqrt(sum T_i Delta_i^2/sigma_i^2) rounded up, with
        the float-error allowance (``numeric.gaussian.delta_upper``): Theorem 6's deltahat
        then is the true delta, not an RDP conversion of it.  Else None."""
        noise = [e.mechanism.gaussian_noise() if e.sampling is None else None for e in self.events]
        if not math.isfinite(self.shape) and all(n is not None for n in noise):
            mu = math.sqrt(math.fsum(e.count * (d / s) ** 2 for e, (s, d) in zip(self.events, noise)))
            mu = math.nextafter(mu * (1 + 1e-15), math.inf)
            if 0 < mu <= 1e150:
                from . import gaussian as G
                return functools.partial(G.delta_upper, mu=mu)
        return None

    def rdp(self):
        """``RepeatAndSelectRDP`` of the run's composed curve (``numeric.events.rdp_curve``)."""
        c = self._curve
        if isinstance(c, NotSupported):
            raise NotSupported(str(c))
        return c

    def pure_epsilon(self) -> float:
        """The limit of the curve as lambda -> oo (module docstring); without an inner RDP
        curve, from the run's pure epsilon eps0 alone: eps0 + (1 + shape) min(eps0, log(1/gamma))
        (Theorem 2 at lamhat = 1 or oo, every eps(lambda) <= eps0) or, Poisson,
        eps0 + mean tanh(eps0/2) (Theorem 6: delta(0) = TV <= tanh(eps0/2) under eps0-DP)."""
        e0 = self._inner_pure()
        if not math.isfinite(e0):
            return math.inf
        c = self._curve
        if not isinstance(c, NotSupported):
            return float(c.eps_inf)
        if math.isinf(self.shape):
            v = e0 + self.mean * math.tanh(e0 / 2)
        else:
            v = e0 + (1 + self.shape) * min(e0, _tnb_log_inverse_gamma(self.mean, self.shape))
        return float(_up(v))
