"""Total-variation-aware differential privacy (Ghazi and Issa 2023; equation numbers are theirs).

A mechanism that is (eps, delta)-DP and eta-TV is dominated by the five-point
mechanism M_{eps,delta,eta} of (43)-(44) (three points (7) when delta = 0).  Its
k-fold composition is exact (Theorem 2): the privacy region is the intersection
of the (j eps, 1 - (1-delta)^k (1 - delta_j))-DP regions, j = 0..k, with delta_j
the double sum (5) at alpha = 1 - (eta - delta)(1 + e^eps)/((1 - delta)(e^eps - 1)).

The double sum (5) has k^2/2 terms of both signs and overflows for k in the
hundreds; here it is evaluated through the privacy-loss distribution of the
composed dominating mechanism instead.  With s outputs "2" and s + d outputs
"0" (d >= 0) among k, the loss is d eps and

    P1(L = d eps) = G(d) = sum_s k! / ((s+d)! s! (k-2s-d)!) q^(2s+d) e^(s eps) alpha^(k-2s-d),
    P0(L = d eps) = e^(d eps) G(d),               q = (1 - alpha) / (1 + e^eps),

so delta_j = A_j - e^(j eps) B_j with A_j = sum_{d>j} e^(d eps) G(d) and
B_j = sum_{d>j} G(d).  Every G(d) is a sum of positive terms, taken in log
space (log-factorial table, ``logsumexp``), vectorised over (d, s) in blocks;
A_j and B_j are reverse cumulative log-sums.  Since e^(j eps) B_j <= e^(-eps) A_j,
the one subtraction loses at most a factor 1/(1 - e^(-eps)) of relative
precision (10^-14 at eps = 0.01).  Cost: k^2/4 log-terms (k = 10^4: ~0.3 s).

Also here: Kairouz et al.'s (6) (alpha = 0), Proposition 1 (subsampling),
the region as an ``fdp.FromPrivacyProfile`` curve (with its area), the TV of the
Laplace, Gaussian and staircase mechanisms, and the TV-aware DP-SGD accountant
of Sec. VI-D compared with Kairouz et al. and the moments accountant.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from derive.errors import DomainError

from . import _kernels_generated as G
from . import fdp
from .gaussian import delta_upper
from .solvers import round_up

__all__ = ["alpha_of", "eta_max", "loss_distribution", "tv_composition_deltas", "kairouz_deltas",
           "subsample", "TVComposition", "KairouzComposition", "tv_laplace", "tv_gaussian",
           "tv_staircase", "gdp_delta", "dpsgd_regions", "DPSGDResult"]

_BLOCK = 1 << 21          # log-terms per block of the (d, s) grid
_EXP_MAX = 700.0          # lines e^(j eps) beyond this are dropped (they matter only for alpha < 1e-304)


# ----------------------------------------------------------------------------- input checks
def _real(name, v, allowed, ok) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise DomainError(name, v, allowed) from None
    if not math.isfinite(x) or not ok(x):
        raise DomainError(name, v, allowed)
    return x


def _check(eps, delta, eta=None, *, eps_pos=True):
    e = _real("epsilon", eps, "(0, oo)" if eps_pos else "[0, oo)",
              (lambda x: x > 0) if eps_pos else (lambda x: x >= 0))
    d = _real("delta", delta, "[0, 1)", lambda x: 0 <= x < 1)
    if eta is None:
        return e, d
    hi = eta_max(e, d)
    n = _real("eta", eta, f"[delta, delta + (e^eps-1)(1-delta)/(1+e^eps)] = [{d:.6g}, {hi:.6g}]",
              lambda x: d <= x <= hi * (1 + 1e-12))
    return e, d, min(n, hi)


def _k(k) -> int:
    try:
        kk = int(k)
    except (TypeError, ValueError, OverflowError):
        raise DomainError("k", k, "an integer >= 1") from None
    if kk != k or kk < 1:
        raise DomainError("k", k, "an integer >= 1")
    return kk


def eta_max(eps, delta=0.0) -> float:
    """The largest TV of an (eps, delta)-DP mechanism: delta + (1-delta) tanh(eps/2) (Cor. 1, Remark 1);
    GENERATED (library quantity ``tv_eta_max``)."""
    return float(G.tv_eta_max(eps, delta))


def alpha_of(eps, delta, eta) -> float:
    """Theorem 2's alpha = 1 - (eta - delta)(1 + e^eps) / ((1 - delta)(e^eps - 1)), in [0, 1];
    GENERATED (library quantity ``tv_alpha``), clipped here."""
    e, d, n = _check(eps, delta, eta)
    return float(min(max(G.tv_alpha(e, d, n), 0.0), 1.0))


# ----------------------------------------------------------------------------- Theorem 2
def _log_terms(x, logc):
    """x * logc with the convention 0 * log 0 = 0."""
    if np.isinf(logc):
        return np.where(x == 0, 0.0, -np.inf)
    return x * logc


def _mode_and_width(k, d, e, la, lq):
    """Continuous mode s*(d) of the summand of G(d) (a log-concave function of s) and
    its Gaussian width 1/sqrt(-d^2/ds^2 log term) there."""
    K = (k - d).astype(float)
    c = math.exp(2 * lq + e - 2 * la)            # (k-2s-d)^2 c = s (s + d) at the mode
    A, B, C = 4 * c - 1, -(4 * c * K + d), c * K * K
    with np.errstate(divide="ignore", invalid="ignore"):
        disc = np.sqrt(np.maximum(B * B - 4 * A * C, 0.0))
        s = np.where(np.abs(A) < 1e-12, C / -B, (2 * C) / (-B + disc))   # the root in [0, K/2]
    s = np.clip(np.nan_to_num(s, nan=0.0), 0.0, K / 2)
    r = np.maximum(K - 2 * s, 1.0)
    curv = 1 / np.maximum(s + d, 1.0) + 1 / np.maximum(s, 1.0) + 4 / r
    return s, 1 / np.sqrt(curv)


def _row_logsumexp(t: np.ndarray) -> np.ndarray:
    m = np.max(t, axis=1)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.sum(np.exp(t - safe[:, None]), axis=1)) + safe


def _block_terms(k, d, s, e, la, lq, lf, valid=None):
    """log of k!/((s+d)! s! (k-2s-d)!) q^(2s+d) e^(s eps) alpha^(k-2s-d) on a (d, s) grid;
    ``valid`` marks the cells to keep (others -inf; default: 0 <= s <= (k-d)/2)."""
    r = k - 2 * s - d                                        # erasures
    if valid is None:
        valid = (r >= 0) & (s >= 0)
    ss = np.where(valid, s, 0)
    rr = k - 2 * ss - d
    if np.isfinite(la) and np.isfinite(lq):
        t = (lf[k] + d * lq + (k - d) * la) + ss * (2 * lq + e - 2 * la) - lf[ss + d] - lf[ss] - lf[rr]
    else:
        t = (lf[k] - lf[ss + d] - lf[ss] - lf[rr] + _log_terms(2 * ss + d, lq) + ss * e
             + _log_terms(rr, la))
    return np.where(valid, t, -np.inf)


def loss_distribution(k, eps, alpha, *, window: bool = True) -> np.ndarray:
    """log G(d), d = 0..k: log P1(L = d eps) of the k-fold dominating mechanism (7)
    (-inf where the probability is 0).  P0(L = d eps) = e^(d eps) G(d).

    With ``window`` the sum over s is restricted to 9.5 Gaussian widths around its
    (log-concave) mode; a row whose window edges are not 40 nats below its maximum
    (or a true end of the range) is recomputed over the full range, so the omitted
    mass is below ~e^-40 relative (the terms decay at least geometrically beyond).
    HAND (tests/test_kernel_ties.py): series summation in log space (chunked/windowed log-sum-exp of many terms)."""
    k = _k(k)
    e = _real("epsilon", eps, "(0, oo)", lambda x: x > 0)
    a = _real("alpha", alpha, "[0, 1]", lambda x: 0 <= x <= 1)
    lf = gammaln(np.arange(k + 2, dtype=float) + 1)      # log m!
    la = math.log(a) if a > 0 else -math.inf
    lq = math.log1p(-a) - np.logaddexp(0.0, e) if a < 1 else -math.inf
    out = np.full(k + 1, -np.inf)
    dd = np.arange(k + 1)
    if a == 0:                                           # only s = (k-d)/2 contributes: (6)
        even = (k - dd) % 2 == 0
        s = (k - dd[even]) // 2
        out[even] = _block_terms(k, dd[even], s, e, la, lq, lf)
        return out
    if a == 1:
        out[0] = 0.0
        return out
    smax_all = (k - dd) // 2
    full_rows = dd
    if window:
        smode, width = _mode_and_width(k, dd, e, la, lq)
        lo = np.maximum(np.floor(smode - 9.5 * width - 2), 0).astype(np.int64)
        hi = np.minimum(np.ceil(smode + 9.5 * width + 2), smax_all).astype(np.int64)
        block = max(1, _BLOCK // (int(np.max(hi - lo)) + 1))
        bad_rows = []
        for d0 in range(0, k + 1, block):
            d = dd[d0:d0 + block]
            span = int(np.max(hi[d] - lo[d])) + 1
            lo_b, hi_b = lo[d0:d0 + block, None], hi[d0:d0 + block, None]
            s = lo_b + np.arange(span)[None, :]
            t = _block_terms(k, d[:, None], s, e, la, lq, lf, valid=s <= hi_b)
            m = np.max(t, axis=1)
            first = t[:, 0]
            last = np.take_along_axis(t, hi_b - lo_b, axis=1)[:, 0]
            bad = (((lo_b[:, 0] > 0) & (first > m - 40))
                   | ((hi_b[:, 0] < smax_all[d]) & (last > m - 40)))
            out[d] = _row_logsumexp(t)
            bad_rows.append(d[bad])
        full_rows = np.concatenate(bad_rows)
    if full_rows.size:
        span = int(np.max(smax_all[full_rows])) + 1
        block = max(1, _BLOCK // span)
        for i in range(0, full_rows.size, block):
            d = full_rows[i:i + block]
            s = np.arange(span)[None, :]
            out[d] = _row_logsumexp(_block_terms(k, d[:, None], s, e, la, lq, lf))
    return out


def _rev_cum_logsumexp(x: np.ndarray) -> np.ndarray:
    """y_j = log sum_{d > j} e^{x_d} (y_last = -inf)."""
    r = np.logaddexp.accumulate(x[::-1])[::-1]
    return np.concatenate((r[1:], [-np.inf]))


def _log_deltas_pure(k, eps, alpha) -> np.ndarray:
    """log delta_j, j = 0..k, of (5) (delta = 0)."""
    lg = loss_distribution(k, eps, alpha)
    d = np.arange(k + 1)
    logA = _rev_cum_logsumexp(lg + d * eps)
    logB = _rev_cum_logsumexp(lg)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = d * eps + logB - logA                       # <= -eps where A_j > 0
        out = logA + np.log(-np.expm1(np.minimum(ratio, -eps)))
    return np.where(np.isneginf(logA), -np.inf, out)


@dataclass(frozen=True)
class Profile:
    """The k-fold privacy profile: eps_j = j eps and delta'_j (j = 0..k), d_TV = delta'_0."""

    k: int
    eps: float
    delta: float
    eta: float
    alpha: float
    log_delta_j: np.ndarray       # log of (5)'s delta_j (delta = 0 part)
    delta_prime: np.ndarray       # 1 - (1-delta)^k (1 - delta_j), rounded up

    @property
    def eps_j(self) -> np.ndarray:
        return self.eps * np.arange(self.k + 1)

    @property
    def tv(self) -> float:
        return float(self.delta_prime[0])


def _profile(k, eps, delta, eta, alpha=None) -> Profile:
    k = _k(k)
    if alpha is None:
        e, d, n = _check(eps, delta, eta)
        a = alpha_of(e, d, n)
    else:
        e, d = _check(eps, delta)
        a, n = float(alpha), d + (1 - d) * (1 - float(alpha)) * math.tanh(e / 2)
    ld = _log_deltas_pure(k, e, a)
    log_keep = k * math.log1p(-d)                           # log (1-delta)^k
    dp = -math.expm1(log_keep) + np.exp(log_keep + ld)
    dp = np.minimum(round_up(dp), 1.0)
    dp = np.where((dp == 0) & np.isfinite(ld), np.nextafter(0.0, 1.0), dp)   # never round to 0
    return Profile(k, e, d, n, a, ld, dp)


def tv_composition_deltas(k, eps, delta, eta) -> Profile:
    """Theorem 2: the exact k-fold profile of (eps, delta)-DP, eta-TV mechanisms.
    HAND (tests/test_kernel_ties.py): series summation in log space (chunked/windowed log-sum-exp of many terms)."""
    return _profile(k, eps, delta, eta)


def kairouz_deltas(k, eps, delta) -> Profile:
    """Kairouz et al. (6): Theorem 2 at alpha = 0 (eta maximal); the lines j = k - 2i
    are (6) and the others are implied by them.
    HAND (tests/test_kernel_ties.py): series summation in log space (chunked/windowed log-sum-exp of many terms)."""
    return _profile(k, eps, delta, None, alpha=0.0)


# ----------------------------------------------------------------------------- Proposition 1
def subsample(eps, delta, eta, p) -> tuple[float, float, float]:
    """Proposition 1: M o Sample_m with p = m/n is (log(1 + p(e^eps - 1)), p delta)-DP and p eta-TV."""
    e, d = _check(eps, delta)
    n = _real("eta", eta, "[0, 1]", lambda x: 0 <= x <= 1)
    pp = _real("p", p, "(0, 1]", lambda x: 0 < x <= 1)
    return float(G.subsampled_eps(e, pp)), pp * d, pp * n


# ----------------------------------------------------------------------------- the region
class TVComposition(fdp.FromPrivacyProfile):
    """The trade-off curve of the k-fold composition of (eps, delta)-DP, eta-TV
    mechanisms (Theorem 2): sup_j f_{j eps, delta'_j}, exact (a convex polygon).
    Lines with j eps > 700 are dropped (they can only lower the curve, i.e. claim less)."""

    name = "tv-composition"

    def __init__(self, k, eps, delta, eta, *, _profile_obj: Profile | None = None):
        self.profile = _profile_obj or tv_composition_deltas(k, eps, delta, eta)
        pr = self.profile
        keep = (pr.eps_j <= _EXP_MAX) & (pr.delta_prime < 1)
        if not keep.any():                       # no usable line: the curve 0 (no privacy claimed)
            self.n_pairs = 0
            fdp.PiecewiseLinear.__init__(self, [0.0], [0.0])
            return
        super().__init__(pr.eps_j[keep], pr.delta_prime[keep])

    @property
    def tv(self) -> float:
        return self.profile.tv

    def params(self) -> dict:
        pr = self.profile
        return {"k": pr.k, "eps": pr.eps, "delta": pr.delta, "eta": pr.eta, "alpha": pr.alpha,
                "tv": pr.tv, "vertices": int(self.x.size)}


class KairouzComposition(TVComposition):
    """Kairouz et al.'s exact composition of (eps, delta)-DP mechanisms ((6); eta ignored)."""

    name = "kairouz-composition"

    def __init__(self, k, eps, delta):
        super().__init__(k, eps, delta, None, _profile_obj=kairouz_deltas(k, eps, delta))


def dominating_pmfs(eps, delta, eta) -> tuple[np.ndarray, np.ndarray]:
    """P0, P1 of the dominating mechanism (43)-(44) (five outputs; (7) when delta = 0).
    HAND (tests/test_kernel_ties.py): pmf assembly of the dominating pair (arrays, not one formula)."""
    e, d, n = _check(eps, delta, eta)
    a = alpha_of(e, d, n)
    hi, lo = (1 - d) * (1 - a) / (1 + np.exp(-e)), (1 - d) * (1 - a) / (1 + np.exp(e))
    p0 = np.array([d, hi, a * (1 - d), lo, 0.0])
    return p0, p0[::-1].copy()


# ----------------------------------------------------------------------------- Sec. VI TVs
def tv_laplace(eps, sensitivity=1.0) -> float:
    """d_TV of the Laplace mechanism Lap(Delta/eps): 1 - e^(-eps/2) (Sec. VI-A, App. I); GENERATED
    (library quantity ``tv_laplace``)."""
    e = _real("epsilon", eps, "(0, oo)", lambda x: x > 0)
    _real("sensitivity", sensitivity, "(0, oo)", lambda x: x > 0)
    return float(G.tv_laplace(e))


def tv_gaussian(mu) -> float:
    """d_TV of a mu-GDP Gaussian mechanism: 2 Phi(mu/2) - 1 (16); GENERATED (library quantity
    ``tv_gaussian``, stable form erf(mu/(2 sqrt 2)))."""
    m = _real("mu", mu, "[0, oo)", lambda x: x >= 0)
    return float(G.tv_gaussian(m))


def tv_staircase(eps, gamma) -> float:
    """d_TV of the staircase mechanism with parameter gamma (Sec. VI-C, App. K1; Delta = 1); GENERATED
    (library quantity ``tv_staircase``)."""
    e = _real("epsilon", eps, "(0, oo)", lambda x: x > 0)
    g = _real("gamma", gamma, "[0, oo)", lambda x: x >= 0)
    return float(G.tv_staircase(e, g))


def gdp_delta(eps, mu) -> np.ndarray:
    """Dong et al. Cor. 2.13: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2),
    computed stably with its float-error allowance (numeric.gaussian.delta_upper): never below
    the truth, also at small mu where the difference cancels.
    HAND (tests/test_kernel_ties.py): the certified gaussian.delta_upper (rounding allowance), capped at 1."""
    e = np.asarray(eps, dtype=float)
    m = _real("mu", mu, "(0, oo)", lambda x: x > 0)
    if np.any(~np.isfinite(e) | (e < 0)):
        raise DomainError("epsilon", e, "[0, oo)")
    return np.minimum(delta_upper(e, m), 1.0)


# ----------------------------------------------------------------------------- Sec. VI-D
@dataclass
class DPSGDResult:
    """Trade-off curves of noisy SGD after ``steps`` subsampled Gaussian steps."""

    steps: int
    p: float
    mu: float
    eps_grid: np.ndarray
    tv_aware: fdp.TradeOff
    kairouz: fdp.TradeOff
    clt: fdp.Gaussian
    per_step: list

    def summary(self, delta=1e-5) -> dict:
        return {"steps": self.steps, "p": self.p, "mu_step": self.mu,
                "tv_aware_eps": float(self.tv_aware.epsilon(delta)),
                "kairouz_eps": float(self.kairouz.epsilon(delta)),
                "clt_eps": float(self.clt.epsilon(delta)),
                "tv_aware_area": self.tv_aware.area(), "kairouz_area": self.kairouz.area(),
                "clt_area": self.clt.area(), "delta": delta}


def dpsgd_regions(*, n=60000, batch=256, sigma=1.3, epochs=15, eps_grid=None) -> DPSGDResult:
    """Sec. VI-D / Fig. 5: each step is (1/sigma)-GDP before subsampling, hence
    (eps, delta(eps))-DP (17) and eta-TV with eta = 2 Phi(mu/2) - 1 ((18) at eps = 0);
    Proposition 1 subsamples with p = batch/n, Theorem 2 composes
    steps = ceil(epochs n / batch) times, and the regions for every eps of the grid
    (the paper: 0.5..3.4 by 0.1) are intersected.  Kairouz et al. is the same
    without the TV constraint; ``clt`` is Dong et al.'s Cor. 5.4 (asymptotic,
    not a guarantee): mu = p sqrt(T (e^(1/sigma^2) - 1))."""
    n = int(_real("n", n, "an integer >= 1", lambda x: x >= 1 and x == int(x)))
    b = int(_real("batch", batch, f"an integer in [1, n={n}]", lambda x: 1 <= x <= n and x == int(x)))
    s = _real("sigma", sigma, "(0, oo)", lambda x: x > 0)
    ep = _real("epochs", epochs, "(0, oo)", lambda x: x > 0)
    grid = np.round(np.arange(0.5, 3.4 + 1e-9, 0.1), 10) if eps_grid is None else np.asarray(eps_grid, float)
    if grid.size == 0 or np.any(~np.isfinite(grid) | (grid <= 0)):
        raise DomainError("eps_grid", grid, "positive finite values")
    p, mu = b / n, 1.0 / s
    steps = int(math.ceil(ep * n / b))
    eta = tv_gaussian(mu)
    tv_curves, k_curves, per = [], [], []
    for e in grid:
        d = float(gdp_delta(e, mu))
        e1, d1, n1 = subsample(e, d, min(eta, eta_max(e, d)), p)
        n1 = min(max(n1, d1), eta_max(e1, d1))
        c_tv = TVComposition(steps, e1, d1, n1)
        c_k = KairouzComposition(steps, e1, d1)
        tv_curves.append(c_tv)
        k_curves.append(c_k)
        per.append({"eps": float(e), "delta": d, "eps_step": e1, "delta_step": d1, "eta_step": n1,
                    "alpha": c_tv.profile.alpha, "tv_composed": c_tv.tv})
    clt_mu = p * math.sqrt(steps * math.expm1(1.0 / s ** 2))
    return DPSGDResult(steps, p, mu, grid, fdp.Supremum(tv_curves), fdp.Supremum(k_curves),
                       fdp.Gaussian(clt_mu), per)
