"""The mixture-of-Gaussians mechanism (dp_accounting's ``MixtureOfGaussiansDpEvent``;
Choquette-Choo, Ganesh, Steinke, Thakurta 2023, "Privacy amplification for matrix mechanisms",
arXiv 2310.15526): given D the output is N(0, sigma^2), given D' it is sum_i p_i N(c_i, sigma^2),
with sensitivities c_i >= 0 drawn with probabilities p_i.  With (c, p) = ((0, 1), (1 - q, q)) it
is the Poisson-subsampled Gaussian mechanism.

In units of sigma (mu_i = c_i / sigma) the pair is P = N(0, 1), Q = sum_i p_i N(mu_i, 1) and the
privacy loss is

    L(x) = log(q(x)/p(x)) = log sum_i p_i e^{mu_i x - mu_i^2/2} = log1p(sum_i p_i expm1(z_i)),

z_i = mu_i x - mu_i^2/2: a log-sum-exp of affine functions of x, so convex, and strictly increasing
(L'(x) is the posterior mean of mu_i, > 0 as soon as one mu_i > 0).  Where a component has
mu_0 = 0 (weight p_0) L decreases to the sharp bottom edge log p_0 as x -> -oo.

``mixture_gaussian_models`` writes both neighbouring orders as ``numeric.pld`` loss models in the
mechanism's own variable (as ``numeric.pld_models._mixture_models`` does for the subsampled
Gaussian): "remove" is the law of L(x) under x ~ Q; "add" the law of -L(x) under x ~ P, written
in y = -x so that it is increasing.  ``MixtureOfGaussians`` is the mechanism of
``numeric.mechanism``'s protocol; the PLD route composes its models into a certified bracket
(``numeric.events.pld_accountant``).

The inverse x_of(l) solves G(x) = l', G(x) = log sum_{mu_i > 0} p_i e^{z_i} (convex, increasing,
slope in [min mu_i, max mu_i] over the positive mu_i) and l' = log(e^l - p_0) (= l without a zero
sensitivity), by Newton's method from the right: from a point where G >= l' the Newton iterates
of a convex increasing function decrease monotonically to the root (no overshoot), and starting
at min_i (l' - log p_i + mu_i^2/2)/mu_i (where G - l' <= log K) they converge in a few steps to
full double precision.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from derive.errors import DomainError

from .kernels import ndtr, ndtri
from .mechanism import Mechanism, NotSupported
from .pld_lattice import _EPS, _LOG2PI_2, LossModel, TAIL_BOUND

__all__ = ["MixtureOfGaussians", "mixture_gaussian_models", "validate_mixture"]

#: |sum(probs) - 1| allowed before renormalising
PROB_TOL = 1e-9
#: Newton iterations of ``x_of`` at most (it converges in ~5-15)
_NEWTON_MAX = 200


def _is_real(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _real_vector(name: str, v) -> tuple:
    if isinstance(v, (str, bytes)) or np.ndim(v) > 1:
        raise DomainError(name, v, "a non-empty sequence of finite numbers >= 0")
    try:
        items = list(np.atleast_1d(v)) if np.ndim(v) == 0 else list(v)
    except TypeError:
        raise DomainError(name, v, "a non-empty sequence of finite numbers >= 0") from None
    if not items:
        raise DomainError(name, v, "a non-empty sequence of finite numbers >= 0")
    out = []
    for i, x in enumerate(items):
        if not _is_real(x):
            raise DomainError(f"{name}[{i}]", x, "finite numbers >= 0")
        try:
            f = float(x)
        except OverflowError:
            f = math.inf
        if not (math.isfinite(f) and f >= 0):
            raise DomainError(f"{name}[{i}]", x, "finite numbers >= 0")
        out.append(f)
    return tuple(out)


def validate_mixture(sigma, sensitivities, probs) -> tuple:
    """(sigma, sensitivities, probs) checked and as floats, probs renormalised to sum to 1:
    sigma finite > 0, sensitivities finite >= 0, probs >= 0 summing to 1 within ``PROB_TOL``,
    of one length, at least one positive sensitivity with positive probability.  Raises
    ``DomainError`` naming the parameter, its value and the allowed range."""
    if not _is_real(sigma):
        raise DomainError("sigma", sigma, "(0, oo) (a finite number)")
    try:
        s = float(sigma)
    except OverflowError:
        s = math.inf
    if not (math.isfinite(s) and s > 0):
        raise DomainError("sigma", sigma, "(0, oo) (a finite number)")
    c = _real_vector("sensitivities", sensitivities)
    p = _real_vector("probs", probs)
    if len(p) != len(c):
        raise DomainError("probs", probs, f"{len(c)} probabilities, one per sensitivity "
                          f"(got {len(p)})")
    tot = math.fsum(p)
    if not abs(tot - 1.0) <= PROB_TOL:
        raise DomainError("probs", probs, f"probabilities >= 0 summing to 1 within {PROB_TOL:g} "
                          f"(they sum to {tot!r})")
    p = tuple(v / tot for v in p)
    if not any(ci > 0 and pi > 0 for ci, pi in zip(c, p)):
        raise DomainError("sensitivities", sensitivities, "at least one sensitivity > 0 with "
                          "probability > 0 (with every sensitivity 0 the two outputs have one law: "
                          "the event releases nothing)")
    return s, c, p


def _components(sigma, sensitivities, probs):
    """The merged components: (mu, p) arrays sorted by mu (equal sensitivities merged,
    zero weights dropped)."""
    s, c, p = validate_mixture(sigma, sensitivities, probs)
    groups: dict = {}
    for ci, pi in zip(c, p):
        if pi > 0:
            groups.setdefault(ci, []).append(pi)
    cs = sorted(groups)
    mu = np.array([ci / s for ci in cs], dtype=float)
    w = np.array([math.fsum(groups[ci]) for ci in cs])
    return mu, w


class _Mixture:
    """The loss L(x) of P = N(0,1) vs Q = sum_i w_i N(mu_i, 1) and its pieces (vectorised)."""

    def __init__(self, mu: np.ndarray, w: np.ndarray):
        self.mu, self.w = mu, w
        self.lw = np.log(w)
        self.half = mu * mu / 2
        zero = mu == 0
        self.p0 = float(w[zero].sum()) if zero.any() else 0.0
        self.lp0 = math.log(self.p0) if self.p0 > 0 else -math.inf
        pos = mu > 0
        self.mu_p, self.lw_p, self.half_p = mu[pos], self.lw[pos], self.half[pos]

    # --- the loss and its derivative -------------------------------------------------------
    def L(self, x):
        x = np.asarray(x, dtype=float)
        with np.errstate(invalid="ignore"):
            z = np.where(self.mu == 0, 0.0, x[..., None] * self.mu) - self.half
        a = self.lw + z
        m = np.max(a, axis=-1)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            lse = m + np.log(np.sum(np.exp(a - m[..., None]), axis=-1))
            u = np.sum(self.w * np.expm1(np.minimum(z, 30.0)), axis=-1)
            small = np.all(z < 30.0, axis=-1) & (u > -0.5)
            l1p = np.log1p(np.where(small, u, 0.0))
        # log1p keeps relative accuracy near L = 0 (a small weight on the shifted components);
        # where 1 + u cancels (x far below) or e^z is large, the log-sum-exp form is the accurate one
        return np.where(small, l1p, lse)

    def dL(self, x):
        x = np.asarray(x, dtype=float)
        with np.errstate(invalid="ignore"):
            a = self.lw + np.where(self.mu == 0, 0.0, x[..., None] * self.mu) - self.half
        e = np.exp(a - np.max(a, axis=-1, keepdims=True))
        return np.sum(e * self.mu, axis=-1) / np.sum(e, axis=-1)

    # --- the inverse ------------------------------------------------------------------------
    def _G(self, x):
        """G(x) = log sum_{mu_i > 0} w_i e^{z_i} and G'(x)."""
        a = self.lw_p + x[..., None] * self.mu_p - self.half_p
        m = np.max(a, axis=-1)
        e = np.exp(a - m[..., None])
        se = np.sum(e, axis=-1)
        return m + np.log(se), np.sum(e * self.mu_p, axis=-1) / se

    def x_of(self, l):
        """The x with L(x) = l, vectorised; -oo at and below the bottom edge log p_0 (where a
        zero sensitivity has weight p_0), +oo at l = +oo."""
        l = np.asarray(l, dtype=float)
        if self.p0 > 0:
            d = l - self.lp0
            with np.errstate(divide="ignore", invalid="ignore"):
                lt = np.where(d > 0, l + np.log(-np.expm1(-np.where(d > 0, d, 1.0))), -np.inf)
            lt = np.where(np.isnan(l), np.nan, lt)
        else:
            lt = l
        out = np.array(lt, dtype=float, copy=True)
        fin = np.isfinite(lt)
        if not fin.any():
            return out
        t = lt[fin]
        # G(x) >= w_i e^{z_i} for each i: at x_i = (t - log w_i + mu_i^2/2)/mu_i, G(x_i) >= t
        x = np.min((t[:, None] - self.lw_p + self.half_p) / self.mu_p, axis=-1)
        act = np.ones(t.size, dtype=bool)
        for _ in range(_NEWTON_MAX):
            xa = x[act]
            g, dg = self._G(xa)
            step = (g - t[act]) / dg
            xa_new = xa - step
            x[act] = xa_new
            tol = 4 * _EPS * (np.abs(xa_new) + (np.abs(t[act]) + 1.0) / dg)
            done = ~(np.abs(step) > tol)
            idx = np.flatnonzero(act)
            act[idx[done]] = False
            if not act.any():
                break
        out[fin] = x
        return out

    # --- densities and masses ---------------------------------------------------------------
    def log_q(self, x):
        x = np.asarray(x, dtype=float)
        a = self.lw - (x[..., None] - self.mu) ** 2 / 2
        m = np.max(a, axis=-1)
        return m + np.log(np.sum(np.exp(a - m[..., None]), axis=-1)) - _LOG2PI_2

    def q_below(self, x):
        return sum(float(wi) * ndtr(x - float(mi)) for mi, wi in zip(self.mu, self.w))

    def q_above(self, x):
        return sum(float(wi) * ndtr(float(mi) - x) for mi, wi in zip(self.mu, self.w))

    # --- the loss law's standard deviation (the default lattice step) -----------------------
    def std(self, under: str) -> float:
        """The standard deviation of L under Q ("Q") or P ("P"), by composite Gauss-Legendre
        quadrature against each normal component (deterministic; it only sets the lattice)."""
        if under == "Q":
            x = self.mu[:, None] + _ZN[None, :]
            wt = self.w[:, None] * _ZW[None, :]
        else:
            x, wt = _ZN[None, :], _ZW[None, :]
        Lx = self.L(x)
        wt = wt / wt.sum()
        mean = float(np.sum(wt * Lx))
        var = float(np.sum(wt * (Lx - mean) ** 2))
        return math.sqrt(max(var, 1e-300))


def _gl_panels(lo, hi, panels, nodes):
    g, w = np.polynomial.legendre.leggauss(nodes)
    edges = np.linspace(lo, hi, panels + 1)
    half = np.diff(edges)[:, None] / 2
    mid = (edges[:-1] + edges[1:])[:, None] / 2
    return (mid + half * g).ravel(), (half * w).ravel()


_ZN, _ZW0 = _gl_panels(-38.5, 38.5, 154, 12)      # |z| > 38.5 carries < 1e-320 of N(0, 1)
_ZW = _ZW0 * np.exp(-_ZN ** 2 / 2 - _LOG2PI_2)


def mixture_gaussian_models(sigma, sensitivities, probs) -> dict:
    """One-step loss models {"remove": ..., "add": ...} of the mixture-of-Gaussians pair
    P = N(0, 1), Q = sum_i p_i N(mu_i, 1), mu_i = c_i / sigma (module docstring): "remove" the
    law of L = log(q/p) under Q in x, "add" the law of log(p/q) under P in y = -x.  Equal
    sensitivities are merged and zero weights dropped; the arguments are checked by
    ``validate_mixture`` (``DomainError`` naming the parameter)."""
    mu, w = _components(sigma, sensitivities, probs)
    mix = _Mixture(mu, w)
    z = -float(ndtri(TAIL_BOUND))
    mu_lo, mu_hi = float(mu.min()), float(mu.max())
    dx = 0.25 / max(1.0, mu_hi)
    desc = ", ".join(f"{m:g}:{p:g}" for m, p in zip(mu, w))
    L, dL, x_of = mix.L, mix.dL, mix.x_of
    remove = LossModel(
        name=f"mixture-of-gaussians(mu:p = {desc})", std=mix.std("Q"),
        L=L, dL=dL, x_of=x_of, log_q=mix.log_q,
        log_q_of=lambda x, Lx: Lx - x * x / 2 - _LOG2PI_2,        # q(x) = phi(x) e^{L(x)}
        mass_below=mix.q_below, mass_above=mix.q_above,
        x_tail=(mu_lo - z, mu_hi + z), dx_max=dx,
        edge=float(mix.lp0) if mix.p0 > 0 else None)
    # reverse order: loss log(p/q) = -L(x) under P = N(0,1); in y = -x it is increasing
    add = LossModel(
        name=f"mixture-of-gaussians(mu:p = {desc}) (reversed)", std=mix.std("P"),
        L=lambda y: -L(-np.asarray(y, dtype=float)), dL=lambda y: dL(-np.asarray(y, dtype=float)),
        x_of=lambda l: -x_of(-np.asarray(l, dtype=float)),
        log_q=lambda y: -np.asarray(y, dtype=float) ** 2 / 2 - _LOG2PI_2,
        mass_below=lambda y: ndtr(y), mass_above=lambda y: ndtr(-y),
        x_tail=(-z, z), dx_max=dx)
    return {"remove": remove, "add": add}


def _fmt(v: tuple) -> str:
    return "(" + ", ".join(f"{x:g}" for x in v) + ("," if len(v) == 1 else "") + ")"


@dataclass(frozen=True)
class MixtureOfGaussians(Mechanism):
    """The mixture-of-Gaussians mechanism (dp_accounting's ``MixtureOfGaussiansDpEvent``):
    N(0, sigma^2) given D, sum_i probs[i] N(sensitivities[i], sigma^2) given D' (module
    docstring).  Add/remove neighbours, both orders; routes: pld (its loss models in x, a
    certified bracket), rdp only where it is a mechanism with a known certified curve (one
    sensitivity: the Gaussian; sensitivities {0, c}: the Poisson-subsampled Gaussian).
    dp_accounting has no subsampled form: sampling it is not supported."""
    sigma: float
    sensitivities: tuple
    probs: tuple

    def __post_init__(self):
        s, c, p = validate_mixture(self.sigma, self.sensitivities, self.probs)
        object.__setattr__(self, "sigma", s)
        object.__setattr__(self, "sensitivities", c)
        object.__setattr__(self, "probs", p)

    def __str__(self):
        return (f"mixture-of-gaussians(sigma={self.sigma:g}, sensitivities={_fmt(self.sensitivities)}, "
                f"probs={_fmt(self.probs)})")

    def _merged(self):
        mu, w = _components(self.sigma, self.sensitivities, self.probs)
        return mu * self.sigma, w          # (sensitivities, weights), merged

    def _as_gaussian(self):
        """(c, q) when it is the Gaussian (q = 1) or the Poisson-subsampled Gaussian with
        sensitivities {0, c} and rate q; else None."""
        c, w = self._merged()
        if len(c) == 1:
            return float(c[0]), 1.0
        if len(c) == 2 and c[0] == 0:
            return float(c[1]), float(w[1])
        return None

    def noise_multiplier(self):
        c, _ = self._merged()
        return self.sigma / float(c.max())

    def gaussian_noise(self):
        g = self._as_gaussian()
        return (self.sigma, g[0]) if g is not None and g[1] == 1.0 else None

    def pure_epsilon(self):
        return math.inf

    def rdp(self):
        """Only where the mixture is a mechanism with a certified curve: one sensitivity c (the
        Gaussian, Mironov 2017 Prop. 7) or sensitivities {0, c} with weights (1 - q, q) (the
        Poisson-subsampled Gaussian, Mironov, Talwar, Zhang 2019, which bounds both orders);
        otherwise ``NotSupported``."""
        from . import rdp as R
        g = self._as_gaussian()
        if g is None:
            raise NotSupported(f"{self} gives no RDP curve (a mixture of more than one shifted "
                               "Gaussian: use the pld route)")
        c, q = g
        return R.Gaussian(self.sigma, c) if q == 1.0 else R.SubsampledGaussian(q, self.sigma, c)

    def pld_models(self) -> dict:
        """The loss models of both orders (``mixture_gaussian_models``); one sensitivity alone
        is the Gaussian pair (symmetric: one model)."""
        g = self._as_gaussian()
        if g is not None and g[1] == 1.0:
            from . import pld
            return pld.gaussian_models(g[0] / self.sigma)
        return mixture_gaussian_models(self.sigma, self.sensitivities, self.probs)

    def pld_poisson(self, rate):
        raise NotSupported(f"{self} with Poisson subsampling (no subsampled mixture of Gaussians "
                           "here or in dp_accounting)")

    def pld_fixed(self, gamma, count):
        raise NotSupported(f"{self} with a fixed batch (no subsampled mixture of Gaussians here or "
                           "in dp_accounting)")

    def rdp_poisson(self, rate):
        raise NotSupported(f"{self} with Poisson subsampling (no subsampled mixture of Gaussians)")

    def rdp_fixed(self, gamma):
        raise NotSupported(f"{self} with a fixed batch (no subsampled mixture of Gaussians)")
