"""Renyi-DP curves alpha -> gamma(alpha) as objects, and their composition.

* ``Gaussian``: gamma(alpha) = alpha Delta^2 / (2 sigma^2) (Asoodeh et al. 2021, eq. (28); the generated kernel of
  the library quantity ``gaussian_rdp`` with sigma -> sigma/Delta).
* ``DiscreteGaussian``: gamma(alpha) <= alpha Delta^2/(2 sigma^2) (Canonne, Kamath, Steinke
  2020, Prop. 5), an upper bound at every real alpha > 1.
* ``LinearRDP``: gamma(alpha) = rho alpha (Asoodeh et al. 2021, Sec. IV-A: rho = 1/(2 sigma^2)).
* ``SubsampledGaussian``: the Poisson-subsampled Gaussian computed exactly,
  gamma(alpha) = log A_alpha / (alpha - 1),
  A_alpha = E_{x~N(0,s^2)}[((1-q) + q exp((2x-1)/(2 s^2)))^alpha],  s = sigma/Delta
  (Mironov, Talwar, Zhang 2019, "Renyi DP of the sampled Gaussian mechanism",
  Sec. 3.3): integer alpha by the binomial expansion in log space, fractional
  alpha by their two-sided series; both are held against mpmath quadrature of
  the defining integral in ``tests/test_numeric_rdp.py``.
* ``AbadiApproxSubsampledGaussian``: the approximation the paper uses for noisy SGD,
  gamma(alpha) = alpha rho_q, rho_q = q^2/((1-q) sigma^2) (Asoodeh et al. 2021, Sec. IV-B, citing
  Abadi et al. 2016 [5, Lemma 3]), which that lemma supports only for
  q < 1/(16 sigma), sigma >= 1 and lambda = alpha - 1 <= sigma^2 log(1/(q sigma));
  outside these it warns (``RDPValidityWarning``).
* ``Composition`` (sum of curves, heterogeneous allowed) and ``curve * T``
  (T-fold homogeneous composition), Asoodeh et al. 2021, Sec. IV: RDP composes linearly Mironov 2017, Prop. 1.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from . import _kernels_generated as _G
from . import kernels as K
from ._kernels_generated import gaussian_rdp as _gaussian_rdp   # library quantity, generated

__all__ = ["RDPCurve", "Gaussian", "DiscreteGaussian", "LinearRDP", "SubsampledGaussian",
           "AbadiApproxSubsampledGaussian", "Composition", "RDPValidityWarning",
           "log_a_integer", "log_a_fractional"]


class RDPValidityWarning(UserWarning):
    """An approximate RDP curve was used outside its source's validity conditions."""


class RDPCurve:
    """alpha -> gamma(alpha), vectorised.  ``integer_only`` curves are defined
    only at integer alpha >= 2; ``alpha_max`` bounds the search of accountants."""

    integer_only: bool = False
    alpha_max: float = 1e6
    citation: str = ""
    #: evaluation at a fractional order is as cheap as at an integer one (closed forms);
    #: False where fractional orders need a series (the subsampled Gaussian)
    cheap_fractional: bool = True
    #: rho where gamma(alpha) = rho alpha exactly (Gaussian mechanisms and their
    #: compositions), else None
    linear_rho: float | None = None

    def __call__(self, alpha) -> np.ndarray:
        a = K.check_alpha(alpha)
        if self.integer_only and np.any(a != np.round(a)):
            raise K.DomainError("alpha", float(a[a != np.round(a)].flat[0]),
                                "integers >= 2 (this RDP curve is defined at integer orders only)")
        return self._gamma(a)

    def _gamma(self, a: np.ndarray) -> np.ndarray:
        raise TypeError(f"{type(self).__name__} must define _gamma (RDPCurve is abstract)")

    def scalar_orders_cheap(self, a: float) -> bool:
        """Whether one fractional order near ``a`` costs about as little as an integer one
        (a search that evaluates orders one at a time may then be used)."""
        return True

    def __add__(self, other: "RDPCurve") -> "Composition":
        return Composition([self, other])

    def __mul__(self, steps) -> "Composition":
        s = float(steps)
        if not (s >= 1 and np.isfinite(s)):
            raise K.DomainError("steps", steps, "[1, oo)")
        return Composition([self], [s])

    __rmul__ = __mul__

    def describe(self) -> str:
        return type(self).__name__


class Gaussian(RDPCurve):
    """Gaussian mechanism N(f(d), sigma^2 I) with L2 sensitivity Delta:
    gamma(alpha) = alpha Delta^2/(2 sigma^2) (Asoodeh et al. 2021, eq. (28))."""

    citation = "Mironov 2017 Prop. 7; Asoodeh et al. 2021, eq. (28)"

    def __init__(self, sigma: float, sensitivity: float = 1.0):
        self.sigma = float(K.check_positive(sigma, "sigma"))
        self.sensitivity = float(K.check_positive(sensitivity, "sensitivity"))
        self._k = _gaussian_rdp                             # [alpha, sigma] (numeric.codegen)

    @property
    def rho(self) -> float:
        # HAND (tests/test_writings.py): gaussian_rdp/alpha in the float order the accountant's figures use
        return self.sensitivity ** 2 / (2 * self.sigma ** 2)

    @property
    def linear_rho(self) -> float:
        return self.rho

    def _gamma(self, a):
        # a NumPy scalar: sigma^2 beyond the largest double is inf (gamma 0 to double precision),
        # where a Python float raises OverflowError
        with np.errstate(over="ignore"):
            return np.asarray(self._k(a, np.float64(self.sigma / self.sensitivity)), dtype=float) * np.ones_like(a)

    def describe(self):
        return f"Gaussian(sigma={self.sigma:g}, sensitivity={self.sensitivity:g})"


class DiscreteGaussian(RDPCurve):
    """Discrete Gaussian mechanism N_Z(f(d), sigma^2) on an integer-valued query with integer
    sensitivity Delta: gamma(alpha) = alpha Delta^2/(2 sigma^2), an upper bound for every real
    alpha > 1 (Canonne, Kamath, Steinke 2020, "The Discrete Gaussian for Differential Privacy",
    NeurIPS, Prop. 5 / Thm. 4: the Renyi divergence of the discrete pair is at most the
    continuous one's).  For integer shifts D_alpha = alpha Delta^2/(2 sigma^2)
    + log(Z((alpha-1)Delta)/Z(0))/(alpha-1), Z(c) = sum_y exp(-(y+c)^2/(2 sigma^2)) <= Z(0), with
    equality at integer alpha (tests/test_dgauss.py holds the curve above mpmath sums)."""

    citation = "Canonne, Kamath, Steinke 2020 (The Discrete Gaussian for DP) Prop. 5"
    eps_inf = np.inf                                # no pure-DP level (generic subsampling bounds)

    def __init__(self, sigma: float, sensitivity: float = 1.0):
        self.sigma = float(K.check_positive(sigma, "sigma"))
        self.sensitivity = float(K.check_positive(sensitivity, "sensitivity"))

    @property
    def rho(self) -> float:
        # HAND (tests/test_writings.py): gaussian_rdp/alpha in the float order the accountant's figures use
        return self.sensitivity ** 2 / (2 * self.sigma ** 2)

    @property
    def linear_rho(self) -> float:                  # the bound is exactly rho alpha
        return self.rho

    def _gamma(self, a):       # the continuous curve, Asoodeh et al. 2021, eq. (28) (generated kernel, as Gaussian)
        return np.asarray(_gaussian_rdp(a, self.sigma / self.sensitivity), dtype=float) * np.ones_like(a)

    def describe(self):
        return f"DiscreteGaussian(sigma={self.sigma:g}, sensitivity={self.sensitivity:g})"


class LinearRDP(RDPCurve):
    """gamma(alpha) = rho alpha (Asoodeh et al. 2021, Sec. IV-A; rho = 1/(2 sigma^2) for the Gaussian)."""

    citation = "Asoodeh et al. 2021, Sec. IV-A, eq. (28)"

    def __init__(self, rho: float):
        self.rho = float(K.check_positive(rho, "rho"))
        self.linear_rho = self.rho

    def _gamma(self, a):
        """GENERATED: the library quantity ``linear_rdp``."""
        return _G.linear_rdp(a, self.rho)

    def describe(self):
        return f"LinearRDP(rho={self.rho:g})"


# ----------------------------------------------------------------------------- subsampled Gaussian
def log_a_integer(alpha: np.ndarray, q: float, s: float) -> np.ndarray:
    """log A_alpha for integer alpha >= 2 (Mironov-Talwar-Zhang 2019, Sec. 3.3):
    A_alpha = sum_k C(alpha,k) q^k (1-q)^(alpha-k) exp((k^2-k)/(2 s^2)).

    Since the binomial weights sum to 1 and the k = 0, 1 terms have exponent 0,
    A_alpha - 1 = sum_{k>=2} C(alpha,k) q^k (1-q)^(alpha-k) expm1((k^2-k)/(2 s^2)),
    a sum of positive terms; log A = log1p(A - 1) keeps full relative accuracy
    even when A - 1 is 1e-8 (q = 0.001, where the plain sum loses 8 digits).
    The distinct orders are evaluated together, as rows of one (orders x k) array
    (in blocks of bounded size).
    HAND (tests/test_kernel_ties.py): series summation in log space (chunked/windowed log-sum-exp of many terms).
    """
    a = np.asarray(alpha, dtype=float)
    vals, inv = np.unique(a.ravel(), return_inverse=True)
    lq, l1q = np.log(q), np.log1p(-q)
    res = np.empty(vals.size)
    start = 0
    while start < vals.size:                 # blocks of at most ~2^20 array elements
        stop = start + 1
        while stop < vals.size and (stop + 1 - start) * vals[stop] <= 2 ** 20:
            stop += 1
        n = vals[start:stop, None]
        k = np.arange(2.0, vals[stop - 1] + 1.0)[None, :]
        with np.errstate(invalid="ignore"):
            terms = (K.log_binom_int(n, np.minimum(k, n))
                     + k * lq + (n - k) * l1q + K.log_expm1((k * k - k) / (2 * s * s)))
        lam1 = K.logsumexp(np.where(k <= n, terms, -np.inf), axis=1)
        res[start:stop] = np.where(lam1 > 0, np.logaddexp(0.0, lam1), np.log1p(np.exp(np.minimum(lam1, 0.0))))
        start = stop
    return res[inv].reshape(a.shape)


def _log_sub(x, y):
    """log(e^x - e^y) for x >= y."""
    with np.errstate(divide="ignore"):
        return x + np.log(-np.expm1(y - x))


def log_a_fractional(alpha: np.ndarray, q: float, s: float, *, tail: float = -40.0,
                     chunk: int = 256, max_terms: int = 10 ** 6) -> np.ndarray:
    """log A_alpha for real alpha > 1: the Mironov-Talwar-Zhang 2019 series (Sec. 3.3),
    vectorised over alpha.  With z0 = s^2 log(1/q - 1) + 1/2 and j = alpha - i,

      A = sum_i C(alpha,i) [ q^i (1-q)^j e^{(i^2-i)/(2s^2)} Phi((z0-i)/s)
                            + q^j (1-q)^i e^{(j^2-j)/(2s^2)} Phi((j-z0)/s) ],

    summed with signs in log space until past i > alpha the terms fall below
    e^tail times the running sum.  Raises when the signed sum cancels to <= 0.
    The result is rounded up by a bound on the float error of the sum (the
    curve is used as an upper bound on the Renyi divergence).
    HAND (tests/test_kernel_ties.py): series summation in log space (chunked/windowed log-sum-exp of many terms).
    """
    a = np.asarray(alpha, dtype=float).ravel()
    if a.size <= 8 and np.all(a < 256):   # a few orders (the accountant's refinement): floats
        one = [_log_a_fractional_one(float(x), q, s, tail, max_terms) for x in a]
        if all(v is not None for v in one):
            return np.array(one, dtype=float).reshape(np.shape(alpha))
    from scipy.special import gammaln, gammasgn, log_ndtr   # imported on first use (start-up cost)
    lq, l1q = np.log(q), np.log1p(-q)
    z0 = s * s * (np.log(1 / q - 1) if q < 1 else -np.inf) + 0.5
    pos = np.full(a.size, -np.inf)
    neg = np.full(a.size, -np.inf)
    active = np.arange(a.size)
    start = 0
    while active.size:
        i = np.arange(start, start + chunk, dtype=float)[None, :]
        aa = a[active][:, None]
        j = aa - i
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            logc = gammaln(aa + 1) - gammaln(i + 1) - gammaln(j + 1)
            sgn = gammasgn(j + 1)
            ls0 = logc + i * lq + j * l1q + (i * i - i) / (2 * s * s) + log_ndtr((z0 - i) / s)
            ls1 = logc + j * lq + i * l1q + (j * j - j) / (2 * s * s) + log_ndtr((j - z0) / s)
        lt = np.logaddexp(ls0, ls1)
        lt = np.where(np.isnan(lt) | (sgn == 0), -np.inf, lt)
        pp = K.logsumexp(np.where(sgn > 0, lt, -np.inf), axis=1)
        nn = K.logsumexp(np.where(sgn < 0, lt, -np.inf), axis=1)
        pos[active] = np.logaddexp(pos[active], pp)
        neg[active] = np.logaddexp(neg[active], nn)
        last = np.max(lt[:, -16:], axis=1)
        done = (start + chunk > a[active] + 1) & (last < pos[active] + tail)
        active = active[~done]
        start += chunk
        if start > max_terms:
            raise ArithmeticError("log_a_fractional: series did not converge "
                                  f"(alpha={a[active][0]!r}, q={q}, sigma={s})")
    if np.any(neg >= pos):
        raise ArithmeticError("log_a_fractional: the signed series cancelled to <= 0")
    la = _log_sub(pos, neg)
    # round up: the float error of the signed sum is at most ~n_terms * 2^-52 * (pos + neg)/A
    # in relative terms; add it (and a floor of 64 ulp) to log A so the curve stays an upper bound
    err = 2.0 ** -52 * (64.0 + start) * np.exp(np.logaddexp(pos, neg) - la)
    return (la + err).reshape(np.shape(alpha))


def _log_a_fractional_one(a: float, q: float, s: float, tail: float, max_terms: int,
                          budget: int = 2048) -> float | None:
    """``log_a_fractional`` at one order, term by term in floats (math.lgamma and
    ``kernels.log_ndtr_scalar``): the accountant refines one order at a time, where the
    array version's 256-term chunks and SciPy's import cost more than the ~alpha + 40 terms
    the series needs (below alpha = 256; above it the array version is the faster).  Same
    terms, stopping rule and rounding up (tests/test_numeric_rdp.py holds the two equal and
    both above the quadrature truth).  Returns None after ``budget`` terms (a slowly
    converging series, e.g. q = 0.5, sigma = 0.5 needs ~1e5: the array version's job)."""
    lq, l1q = math.log(q), math.log1p(-q)
    z0 = s * s * (math.log(1 / q - 1) if q < 1 else -math.inf) + 0.5
    lga1 = math.lgamma(a + 1.0)
    pos = neg = -math.inf
    quiet = 0                                   # consecutive terms below e^tail x the sum
    i = 0
    while True:
        j = a - i
        if j + 1.0 > 0 or (j + 1.0) != math.floor(j + 1.0):     # Gamma(j+1) finite
            logc = lga1 - math.lgamma(i + 1.0) - math.lgamma(j + 1.0)
            sgn = 1 if (j + 1.0 > 0 or math.floor(j + 1.0) % 2 == 0) else -1
            ls0 = logc + i * lq + j * l1q + (i * i - i) / (2 * s * s) + K.log_ndtr_scalar((z0 - i) / s)
            ls1 = logc + j * lq + i * l1q + (j * j - j) / (2 * s * s) + K.log_ndtr_scalar((j - z0) / s)
            lt = K.logaddexp_scalar(ls0, ls1)
            if sgn > 0:
                pos = K.logaddexp_scalar(pos, lt)
            else:
                neg = K.logaddexp_scalar(neg, lt)
        else:
            lt = -math.inf
        quiet = quiet + 1 if lt < pos + tail else 0
        i += 1
        if i > a + 1 and quiet >= 16:
            break
        if i > min(budget, max_terms):
            if i <= max_terms:
                return None
            raise ArithmeticError("log_a_fractional: series did not converge "
                                  f"(alpha={a!r}, q={q}, sigma={s})")
    if neg >= pos:
        raise ArithmeticError("log_a_fractional: the signed series cancelled to <= 0")
    la = pos + math.log(-math.expm1(neg - pos))
    err = 2.0 ** -52 * (64.0 + i) * math.exp(K.logaddexp_scalar(pos, neg) - la)
    return la + err


class SubsampledGaussian(RDPCurve):
    """Poisson-subsampled Gaussian (rate q, noise sigma, L2 sensitivity Delta), exact RDP
    (Mironov, Talwar, Zhang 2019, Sec. 3.3; the mechanism of Asoodeh et al. 2021, Algorithm 1 with
    Poisson instead of fixed-size batches).

    ``fractional=True`` (default) evaluates every real alpha > 1 by the series;
    integer alpha always use the binomial expansion.  ``fractional=False``
    restricts the curve to integer orders (as in Abadi et al.'s accountant).
    HAND (tests/test_kernel_ties.py): series summation in log space (chunked/windowed log-sum-exp of many terms).
    """

    citation = "Mironov, Talwar, Zhang 2019 (Renyi DP of the sampled Gaussian mechanism), Sec. 3.3"

    def __init__(self, q: float, sigma: float, sensitivity: float = 1.0, fractional: bool = True):
        qq = float(q)
        if not (0 < qq <= 1):
            raise K.DomainError("sampling_rate", q, "(0, 1]")
        self.q = qq
        self.sigma = float(K.check_positive(sigma, "sigma"))
        self.sensitivity = float(K.check_positive(sensitivity, "sensitivity"))
        self.integer_only = not fractional
        self.alpha_max = 1e4
        self.cheap_fractional = qq == 1
        self._gauss = Gaussian(self.sigma, self.sensitivity) if qq == 1 else None
        self.linear_rho = self._gauss.rho if qq == 1 else None

    def _gamma(self, a):
        if self._gauss is not None:
            return self._gauss._gamma(a)
        s = self.sigma / self.sensitivity
        out = np.empty(a.shape)
        isint = a == np.round(a)
        if isint.any():
            out[isint] = log_a_integer(a[isint], self.q, s)
        if (~isint).any():
            fa = a[~isint]
            try:
                out[~isint] = log_a_fractional(fa, self.q, s)
            except (ArithmeticError, ValueError):     # ValueError: a NaN term (sigma ~ 1e300)
                # the series does not settle in floats (sigma ~ 1e30: terms below the underflow):
                # subsampling never increases Renyi divergence (joint convexity of
                # exp((alpha-1) D_alpha) in each argument), so the Gaussian's own alpha/(2 s^2)
                # is a sound upper bound there
                with np.errstate(over="ignore"):
                    out[~isint] = (fa - 1.0) * _gaussian_rdp(fa, np.float64(s))
        bad = ~np.isfinite(out)
        if bad.any():       # the same bound where the sums give out (NaN at sigma ~ 1e300)
            with np.errstate(over="ignore"):
                out[bad] = (a[bad] - 1.0) * _gaussian_rdp(a[bad], np.float64(s))
        return np.maximum(out, 0.0) / (a - 1.0)

    def scalar_orders_cheap(self, a: float) -> bool:
        """The float series at ``a`` converges within its term budget (it needs ~alpha + 40
        terms usually, ~1e5 at e.g. q = 0.5, sigma = 0.5)."""
        if self._gauss is not None:
            return True
        s = self.sigma / self.sensitivity
        return a < 256 and _log_a_fractional_one(float(a), self.q, s, -40.0, 10 ** 6) is not None

    def describe(self):
        return (f"SubsampledGaussian(q={self.q:g}, sigma={self.sigma:g}, "
                f"sensitivity={self.sensitivity:g})")


class AbadiApproxSubsampledGaussian(RDPCurve):
    """gamma(alpha) = alpha rho_q with rho_q = q^2/((1-q) sigma^2): the approximation of
    Asoodeh et al. 2021, Sec. IV-B ("approximately (alpha, alpha rho_q)-RDP", citing Abadi et al. 2016
    [5, Lemma 3]).  That lemma bounds the moment by q^2 lambda(lambda+1)/((1-q)sigma^2)
    + O(q^3 lambda^3/sigma^3) for q < 1/(16 sigma), sigma >= 1 and integer
    lambda = alpha - 1 <= sigma^2 log(1/(q sigma)); the O(.) term is dropped here.
    Construction outside the (q, sigma) conditions, and evaluation at alpha beyond
    1 + sigma^2 log(1/(q sigma)), issue ``RDPValidityWarning``.  Not a certified bound.
    """

    citation = ("Asoodeh et al. 2021, Sec. IV-B, rho_q = q^2/((1-q)sigma^2), citing Abadi et al. 2016 Lemma 3 "
                "(valid for q < 1/(16 sigma), sigma >= 1, alpha - 1 <= sigma^2 log(1/(q sigma)); "
                "approximate: drops an O(q^3 lambda^3/sigma^3) term)")

    def __init__(self, q: float, sigma: float, warn: bool = True):
        qq = float(q)
        if not (0 < qq < 1):
            raise K.DomainError("sampling_rate", q, "(0, 1)")
        self.q = qq
        self.sigma = float(K.check_positive(sigma, "sigma"))
        self.rho = float(_G.subsampled_gaussian_rho(qq, self.sigma))   # GENERATED: library rho_q
        self.warn = warn
        self.conditions_hold = (qq < 1 / (16 * self.sigma)) and (self.sigma >= 1)
        self.alpha_valid_max = (1 + self.sigma ** 2 * np.log(1 / (qq * self.sigma))
                                if qq * self.sigma < 1 else 1.0)
        if warn and not self.conditions_hold:
            warnings.warn(f"rho_q approximation (Abadi et al. 2016 Lemma 3) used outside its "
                          f"conditions q < 1/(16 sigma), sigma >= 1 (q={qq}, sigma={sigma})",
                          RDPValidityWarning, stacklevel=2)

    def _gamma(self, a):
        if self.warn and np.any(a > self.alpha_valid_max):
            warnings.warn(f"rho_q approximation evaluated at alpha={float(np.max(a)):g} > "
                          f"1 + sigma^2 log(1/(q sigma)) = {self.alpha_valid_max:g} "
                          "(outside Abadi et al. 2016 Lemma 3)", RDPValidityWarning, stacklevel=3)
        return _G.linear_rdp(a, self.rho)

    def describe(self):
        return f"AbadiApprox(q={self.q:g}, sigma={self.sigma:g}; rho_q={self.rho:.4g})"


class Composition(RDPCurve):
    """sum_i w_i gamma_i(alpha): adaptive composition of RDP mechanisms (linear
    composability of RDP, Asoodeh et al. 2021, Sec. IV citing Mironov 2017, Prop. 1); w_i = number of repetitions."""

    def __init__(self, curves, weights=None):
        flat_c, flat_w = [], []
        weights = [1.0] * len(curves) if weights is None else list(weights)
        for c, w in zip(curves, weights):
            if isinstance(c, Composition):
                flat_c += c.curves
                flat_w += [w * x for x in c.weights]
            else:
                flat_c.append(c)
                flat_w.append(float(w))
        self.curves, self.weights = flat_c, flat_w
        self.integer_only = any(c.integer_only for c in flat_c)
        self.alpha_max = min(c.alpha_max for c in flat_c)
        self.cheap_fractional = all(c.cheap_fractional for c in flat_c)
        rhos = [c.linear_rho for c in flat_c]
        self.linear_rho = (math.fsum(w * r for w, r in zip(flat_w, rhos))
                           if all(r is not None for r in rhos) else None)
        self.citation = "; ".join(dict.fromkeys(c.citation for c in flat_c)) + \
            "; composition: Asoodeh et al. 2021, Sec. IV (Mironov 2017, Prop. 1)"

    def _gamma(self, a):
        return sum(w * c._gamma(a) for c, w in zip(self.curves, self.weights))

    def scalar_orders_cheap(self, a: float) -> bool:
        return all(c.scalar_orders_cheap(a) for c in self.curves)

    def describe(self):
        return " + ".join(f"{w:g} x {c.describe()}" for c, w in zip(self.curves, self.weights))


# ----------------------------------------------------------------------------- other mechanisms
class Laplace(RDPCurve):
    """Laplace mechanism Lap(b) with L1 sensitivity Delta, lambda = b/Delta (Mironov 2017,
    Prop. 6): gamma(alpha) = log(alpha/(2alpha-1) e^{(alpha-1)/lambda}
    + (alpha-1)/(2alpha-1) e^{-alpha/lambda}) / (alpha-1), in log space."""

    citation = "Mironov 2017 (Renyi differential privacy) Prop. 6"

    def __init__(self, scale: float, sensitivity: float = 1.0):
        self.scale = float(K.check_positive(scale, "scale"))
        self.sensitivity = float(K.check_positive(sensitivity, "sensitivity"))
        self.eps_inf = self.sensitivity / self.scale       # pure-DP level (gamma at alpha = oo)

    def _gamma(self, a):
        """GENERATED: the library quantity ``laplace_rdp`` (log-sum-exp form, clipped to [0, eps])."""
        return _G.laplace_rdp(a, self.eps_inf)

    def describe(self):
        return f"Laplace(scale={self.scale:g}, sensitivity={self.sensitivity:g})"


class RandomizedResponse(RDPCurve):
    """Binary randomized response reporting the true bit with p = e^eps/(1+e^eps)
    (Mironov 2017, Prop. 5): gamma(alpha) = log(p^alpha (1-p)^{1-alpha}
    + (1-p)^alpha p^{1-alpha}) / (alpha-1), in log space."""

    citation = "Mironov 2017 (Renyi differential privacy) Prop. 5"

    def __init__(self, epsilon: float):
        self.eps_inf = float(K.check_positive(epsilon, "rr_epsilon"))

    def _gamma(self, a):
        """With t = (alpha-1) eps the sum is p e^t + (1-p) e^-t = 1 + p expm1(t)(1 - e^{-(t+eps)}),
        a sum of positive terms: log1p of it keeps full relative accuracy at small eps (the
        plain logaddexp of two nearly equal logs loses it, and can land below the truth);
        for large t (no cancellation, expm1 would overflow) the logaddexp form.
        GENERATED: the library quantity ``rr_rdp`` in this stable form."""
        return _G.rr_rdp(a, self.eps_inf)

    def describe(self):
        return f"RandomizedResponse(epsilon={self.eps_inf:g})"


def _log_binom(n, k):
    return K.log_binom_int(n, k)


class _GenericSubsampled(RDPCurve):
    """Common part of the integer-order amplification bounds: ``base`` is an RDP curve
    with attribute ``eps_inf`` (its pure-DP level, inf for the Gaussian)."""

    integer_only = True
    alpha_max = 256.0

    def __init__(self, base: RDPCurve, rate: float):
        r = float(rate)
        if not (0 < r <= 1):
            raise K.DomainError("sampling_rate", rate, "(0, 1]")
        self.base, self.rate = base, r
        self.eps_inf = float(getattr(base, "eps_inf", np.inf))

    def _gamma(self, a):
        out = np.empty(a.shape)
        flat, res = a.ravel(), out.ravel()
        for val in np.unique(flat):
            n = int(val)
            g = float(self.base._gamma(np.array([float(n)]))[0])
            if self.rate < 1:
                g = min(g, self._log_moment(n) / (n - 1) * (1 + 1e-12))   # rounded up
            res[flat == val] = max(g, 0.0)
        return out


class PoissonSubsampledRDP(_GenericSubsampled):
    """Poisson subsampling (rate gamma) of any mechanism with RDP eps(.), add/remove
    neighbours, integer alpha >= 2 (Zhu and Wang 2019, "Poisson subsampled Renyi
    differential privacy", Theorem 6, general upper bound):

      eps'(alpha) <= log{ (1-g)^{alpha-1}(alpha g - g + 1) + C(alpha,2) g^2 (1-g)^{alpha-2} e^{eps(2)}
                        + 3 sum_{l=3}^alpha C(alpha,l) (1-g)^{alpha-l} g^l e^{(l-1) eps(l)} } / (alpha-1);

    the smaller of this and eps(alpha) (subsampling never hurts) is reported.
    HAND (tests/test_kernel_ties.py): series summation in log space (chunked/windowed log-sum-exp of many terms)."""

    citation = "Zhu and Wang 2019 (Poisson subsampled RDP) Theorem 6"

    def _log_moment(self, n):
        g = self.rate
        lg, l1g = np.log(g), np.log1p(-g)
        ls = np.arange(3, n + 1, dtype=float)
        eb = self.base._gamma(np.arange(2, n + 1, dtype=float))      # eps(l), l = 2..n
        t0 = (n - 1) * l1g + np.log1p((n - 1) * g)
        t2 = _log_binom(n, 2.0) + 2 * lg + (n - 2) * l1g + eb[0]
        tl = np.log(3.0) + _log_binom(n, ls) + (n - ls) * l1g + ls * lg + (ls - 1) * eb[1:]
        # log(e^t0 + e^T) = log1p(expm1(t0) + e^T): the sum is 1 + O(g^2), so a log-sum-exp of terms of
        # size ~1 would lose the O(g^2) part to rounding (1e-9 relative at g = 1e-3)
        T = float(K.logsumexp(np.concatenate(([t2], tl))))
        if max(t0, T) > 1.0:                 # the sum is far from 1: no cancellation, no overflow
            return K.logaddexp_scalar(float(t0), T)
        return float(np.log1p(np.expm1(t0) + np.exp(T)))

    def describe(self):
        return f"Poisson(q={self.rate:g}) o {self.base.describe()}"


class WithoutReplacementRDP(_GenericSubsampled):
    """Subsampling without replacement (a fixed batch, ratio gamma = B/N) of any mechanism
    with RDP eps(.), replace-one neighbours, integer alpha >= 2 (Wang, Balle,
    Kasiviswanathan 2019, "Subsampled Renyi differential privacy and analytical moments
    accountant", Theorem 9):

      eps'(alpha) <= log(1 + g^2 C(alpha,2) min{4(e^{eps(2)}-1), e^{eps(2)} min{2, (e^{eps(oo)}-1)^2}}
                     + sum_{j=3}^alpha g^j C(alpha,j) e^{(j-1)eps(j)} min{2, (e^{eps(oo)}-1)^j}) / (alpha-1).
    HAND (tests/test_kernel_ties.py): series summation in log space (chunked/windowed log-sum-exp of many terms)."""

    citation = ("Wang, Balle, Kasiviswanathan 2019 (Subsampled RDP and analytical moments "
                "accountant) Theorem 9")

    def _log_moment(self, n):
        g = self.rate
        lg = np.log(g)
        eb = self.base._gamma(np.arange(2, n + 1, dtype=float))
        with np.errstate(over="ignore"):
            lcap = np.log(np.expm1(self.eps_inf)) if np.isfinite(self.eps_inf) else np.inf
        js = np.arange(3, n + 1, dtype=float)
        t2 = 2 * lg + _log_binom(n, 2.0) + min(np.log(4.0) + K.log_expm1(np.array(eb[0])),
                                               eb[0] + min(np.log(2.0), 2 * lcap))
        tj = js * lg + _log_binom(n, js) + (js - 1) * eb[1:] + np.minimum(np.log(2.0), js * lcap)
        s = float(K.logsumexp(np.concatenate(([t2], tj))))
        return float(np.logaddexp(0.0, s))

    def describe(self):
        return f"WithoutReplacement(ratio={self.rate:g}) o {self.base.describe()}"
