"""Numeric kernels: the generated conversions, the domain checks, and the hand helpers.

* GENERATED: the RDP <-> DP conversions' closed forms (``log_zeta``, ``zeta``, ``mironov_delta``,
  ``gamma_large_delta``, ``gamma_lower``, ``gamma_upper``, ``eps_large_delta``, ``eps_balle``,
  ``eps_chi_bound``, ``eps_asoodeh*``) are the kernels that
  ``numeric.codegen`` prints from the library quantities (``derive.lib``) in their stable forms
  (log1p, expm1, logaddexp, log(1 - e^-x)): finite at alpha up to 1e4, delta down to 1e-300,
  (alpha-1)*gamma beyond 709.  ``compile_numpy`` / ``compile_mpmath`` lambdify any registered
  formula (a claim file's, a paper's) on demand.
* HAND (each with its tie test in tests/test_numeric_kernels.py and a reason): the SciPy-free
  scalar paths of the accountant's start-up (``log_ndtr_scalar``, ``ndtr``, ``ndtri`` by bisection
  and Newton, ``log_binom_int`` from a lgamma table, ``logsumexp``, ``logaddexp_scalar``,
  ``expit``), the FFT size ``next_fast_len``, and the domain checks.

The conversions are those of Mironov 2017, Balle et al. 2020 and Asoodeh, Liao, Calmon, Kosut,
Sankar 2021 ("Three Variants of Differential Privacy: Lossless Conversion and Applications").
"""
from __future__ import annotations

import functools
from typing import Callable

import math

import numpy as np

from derive.errors import DomainError

from . import _kernels_generated as _G
from ._kernel_support import _log1mexp, _log_expm1

__all__ = [
    "formula_expr", "compile_numpy", "compile_mpmath", "compile_expr_numpy",
    "log_zeta", "zeta", "mironov_delta", "gamma_lower", "gamma_upper", "gamma_large_delta",
    "eps_large_delta", "eps_balle", "eps_chi_bound", "eps_asoodeh_small_delta", "eps_asoodeh",
    "log_expm1", "log1mexp", "check_alpha", "check_open01",
    "check_nonneg", "check_positive", "check_steps", "check_interval",
]

# ----------------------------------------------------------------------------- registry access
@functools.lru_cache(maxsize=None)
def formula_expr(name: str) -> tuple:
    """(expr, ordered parameter symbols) of the registry formula ``name``."""
    import derive
    f = derive.formula(name)
    return f.expr, tuple(f.symbols)


@functools.lru_cache(maxsize=None)
def compile_numpy(name: str) -> Callable:
    """Vectorised NumPy/SciPy kernel of registry formula ``name``; positional
    arguments in the formula's parameter order (``lambdify(..., cse=True)``).  The kernel
    checks its arguments against the formula's declared domains and raises ``DomainError``
    (naming the parameter) outside them."""
    import sympy as sp
    expr, syms = formula_expr(name)
    return _with_domains(name, sp.lambdify(syms, expr, modules=["scipy", "numpy"], cse=True))


@functools.lru_cache(maxsize=None)
def compile_mpmath(name: str) -> Callable:
    """mpmath kernel of registry formula ``name`` (arbitrary precision; the
    definitions use Rationals so the kernel is exact at any ``mp.dps``); domains checked."""
    import sympy as sp
    expr, syms = formula_expr(name)
    return _with_domains(name, sp.lambdify(syms, expr, modules="mpmath"))


@functools.lru_cache(maxsize=None)
def _domains(name: str) -> tuple:
    """(parameter name, lo, hi, lo_open, hi_open, text) of each declared domain of ``name``."""
    import derive
    out = []
    for prm in derive.formula(name).params:
        d = prm.domain
        lo = -np.inf if d.start.is_infinite else float(d.start)
        hi = np.inf if d.end.is_infinite else float(d.end)
        text = (("(" if d.left_open else "[") + ("-oo" if lo == -np.inf else f"{lo:g}") + ", "
                + ("oo" if hi == np.inf else f"{hi:g}") + (")" if d.right_open else "]"))
        out.append((prm.name, lo, hi, bool(d.left_open), bool(d.right_open), text))
    return tuple(out)


def _with_domains(name: str, fn: Callable) -> Callable:
    doms = _domains(name)

    def kernel(*args):
        for (pname, lo, hi, lo_open, hi_open, text), a in zip(doms, args):
            x = np.asarray(a, dtype=float) if not hasattr(a, "_mpf_") else np.asarray(float(a))
            bad = np.isnan(x) | ((x <= lo) if lo_open else (x < lo)) | ((x >= hi) if hi_open else (x > hi))
            if np.any(bad):
                v = x[bad].flat[0] if x.ndim else float(x)
                raise DomainError(pname, float(v), text)
        return fn(*args)
    kernel.__doc__ = f"kernel of {name} (domains checked)"
    kernel.raw = fn
    return kernel


_EXPR_KERNELS: dict = {}


def _compile_expr(expr, syms: tuple, backend: str) -> Callable:
    import sympy as sp
    key = (sp.srepr(expr), sp.srepr(tuple(syms)), backend)
    fn = _EXPR_KERNELS.get(key)
    if fn is None:
        if backend == "numpy":
            fn = sp.lambdify(tuple(syms), expr, modules=["scipy", "numpy"], cse=True)
        else:
            fn = sp.lambdify(tuple(syms), expr, modules="mpmath")
        _EXPR_KERNELS[key] = fn
    return fn


def compile_expr_numpy(expr, syms: tuple) -> Callable:
    """Compile a derived expression (e.g. a ``sympy.diff``) to NumPy, cached by srepr."""
    return _compile_expr(expr, syms, "numpy")


def compile_expr_mpmath(expr, syms: tuple) -> Callable:
    """Compile a derived expression to mpmath, cached by srepr."""
    return _compile_expr(expr, syms, "mpmath")


# ----------------------------------------------------------------------------- domain checks
def _arr(x) -> np.ndarray:
    return np.asarray(x, dtype=float)


def _first_bad(x: np.ndarray, ok: np.ndarray):
    bad = ~ok
    return x[bad].flat[0] if bad.any() else None


def is_number(x) -> bool:
    """A plain Python number (the per-query hot path checks it without building an array)."""
    return type(x) is float or type(x) is int


def check_interval(x, name: str, lo: float, hi: float, lo_open: bool, hi_open: bool) -> np.ndarray:
    """x (a number or array) inside the interval from ``lo`` to ``hi`` (open or closed ends; an
    infinite end is always open: x must be finite); raises DomainError naming the parameter, the
    first offending value and the allowed range.  The one range validator of numeric/: the checks
    below are its named cases."""
    if is_number(x) and (lo < x if lo_open else lo <= x) and (x < hi if hi_open else x <= hi) \
            and -math.inf < x < math.inf:
        return np.float64(x)
    v = _arr(x)
    ok = np.isfinite(v) & ((v > lo) if lo_open else (v >= lo)) & ((v < hi) if hi_open else (v <= hi))
    if not ok.all():
        text = (("(" if lo_open else "[") + ("-oo" if lo == -math.inf else f"{lo:g}") + ", "
                + ("oo" if hi == math.inf else f"{hi:g}") + (")" if hi_open else "]"))
        raise DomainError(name, float(_first_bad(v, ok)), text)
    return v


def check_alpha(alpha, name: str = "alpha") -> np.ndarray:
    """alpha in (1, inf), finite."""
    return check_interval(alpha, name, 1.0, math.inf, True, True)


def check_open01(x, name: str) -> np.ndarray:
    """x in (0, 1)."""
    return check_interval(x, name, 0.0, 1.0, True, True)


def check_nonneg(x, name: str) -> np.ndarray:
    """x in [0, inf), finite."""
    return check_interval(x, name, 0.0, math.inf, False, True)


def check_positive(x, name: str) -> np.ndarray:
    """x in (0, inf), finite: the one "positive finite" check of numeric/."""
    return check_interval(x, name, 0.0, math.inf, True, True)


def check_steps(x, name: str = "steps", *, integer: bool = False, hi: float = math.inf):
    """A number of steps (compositions), the one step validator of numeric/: finite and >= 1.
    By default real (a fractional count interpolates the composed RDP curves and GDP's mu) and
    array-valued; ``integer=True`` asks for one whole number in [1, hi] and returns an int (the
    PLD, Edgeworth and f-DP routes compose a whole number of times)."""
    if not integer:
        return check_interval(x, name, 1.0, hi, False, hi == math.inf)
    v = np.asarray(x)
    allowed = "integers >= 1" if hi == math.inf else f"integers in [1, {hi:g}]"
    try:
        t = float(v) if v.ndim == 0 else math.nan
    except (TypeError, ValueError):
        t = math.nan
    if not (math.isfinite(t) and 1 <= t <= hi and t == round(t)):
        raise DomainError(name, x if v.ndim else t if t == t else x, allowed)
    return int(t)


# ----------------------------------------------------------------------------- stable helpers
def logsumexp(x, axis=None):
    """log(sum(exp(x))) along ``axis``; -inf for all -inf (a lean version of SciPy's,
    which costs ~0.5 ms per call in array-API dispatch on small arrays)."""
    x = np.asarray(x, dtype=float)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


def expit_scalar(x: float) -> float:
    """``expit`` of one float with ``math``: numeric.fastconv's per-query path calls it some 30
    times per order, where the type test of ``expit`` alone costs 6% of an RDP query."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def expit(x):
    """The logistic function 1/(1 + e^{-x}), with full relative accuracy at both ends
    (``e^{-|x|}`` never overflows).  NumPy only: the accountant's start-up does not import
    ``scipy.special`` for it (tied to ``scipy.special.expit`` in tests/test_numeric_kernels.py).
    The one expit of numeric/: a float is answered by ``expit_scalar`` as a float, anything
    else as a float array."""
    if isinstance(x, float):
        return expit_scalar(x)
    x = np.asarray(x, dtype=float)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def logaddexp_scalar(x: float, y: float) -> float:
    """log(e^x + e^y) for floats (-inf allowed), without NumPy's per-call overhead."""
    if x < y:
        x, y = y, x
    if y == -math.inf:
        return x
    return x + math.log1p(math.exp(y - x))


_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def log_ndtr_scalar(x: float) -> float:
    """log Phi(x) for a float, within 2e-14 relative everywhere: ``log1p(-erfc(x/sqrt2)/2)`` for
    x >= 0, ``log(erfc(-x/sqrt2)/2)`` down to x = -30 (math.erfc keeps its relative accuracy
    in the tail), and below it the asymptotic series log(phi(x)/|x|) + log(1 - 1/x^2 + 3/x^4
    - ...), whose 8th term is below 1e-16 there.  NumPy-free (tied to ``scipy.special.log_ndtr``
    and mpmath in tests/test_numeric_kernels.py)."""
    if x != x:
        raise DomainError("x", x, "a number (not NaN)")
    if x >= 0:
        return math.log1p(-0.5 * math.erfc(x / math.sqrt(2.0)))
    if x > -30.0:
        return math.log(0.5 * math.erfc(-x / math.sqrt(2.0)))
    if x == -math.inf:
        return -math.inf
    r = 1.0 / (x * x)
    series, term = 1.0, 1.0
    for k in range(1, 9):                       # 1 - r + 3 r^2 - 15 r^3 + ...
        term *= -(2 * k - 1) * r
        series += term
    return -0.5 * x * x - math.log(-x) - _LOG_SQRT_2PI + math.log(series)


_SQRT2 = math.sqrt(2.0)


def ndtr(x):
    """Phi(x), the standard normal CDF.  A float (or 0-d array) is answered by ``math.erfc``
    (``erfc(-x/sqrt2)/2``: full relative accuracy in the lower tail, no NumPy call); an array
    goes to ``scipy.special.ndtr``, imported on first use, so the PLD route's start-up does
    not pay for ``scipy.special`` (tied to ``scipy.special.ndtr`` and mpmath in
    tests/test_numeric_kernels.py)."""
    if np.ndim(x) == 0:
        x = float(x)
        if x != x:
            raise DomainError("x", x, "a number (not NaN)")
        return 0.5 * math.erfc(-x / _SQRT2)
    from scipy.special import ndtr as _ndtr
    return _ndtr(x)


def log_ndtr(x):
    """``scipy.special.log_ndtr`` (a few ulp everywhere, which ``gaussian``'s certified
    float-error allowance assumes), imported on first use as in ``ndtr``; for a quick float
    without SciPy see ``log_ndtr_scalar``."""
    from scipy.special import log_ndtr as _log_ndtr
    return _log_ndtr(x)


def ndtri(p):
    """Phi^{-1}(p) for p in (0, 1).  A float is found by bisection on ``log_ndtr_scalar`` to
    six digits and polished by Newton steps on log Phi(x) = log p (within 5e-16 relative of
    the 40-digit root); an array goes to ``scipy.special.ndtri`` (imported on first use).
    Tied to mpmath and ``scipy.special.ndtri`` in tests/test_numeric_kernels.py."""
    if np.ndim(p) != 0:
        from scipy.special import ndtri as _ndtri
        return _ndtri(p)
    p = float(p)
    if not 0.0 < p < 1.0:
        raise DomainError("p", p, "(0, 1)")
    if p > 0.5:
        return -ndtri(1.0 - p)                  # 1 - p is exact here (Sterbenz)
    # bracket in [-40, 0] (Phi(-40) < 1e-300 < p) and bisect on log Phi, then polish by Newton
    lo, hi, lp = -40.0, 0.0, math.log(p)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if log_ndtr_scalar(mid) < lp:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-6 * max(1.0, abs(mid)):
            break
    x = 0.5 * (lo + hi)
    for _ in range(8):                          # Newton on log Phi(x) = log p
        lphi = log_ndtr_scalar(x)
        dens = -0.5 * x * x - _LOG_SQRT_2PI - lphi   # log(phi(x)/Phi(x))
        step = (lphi - lp) / math.exp(dens)
        x -= step
        if abs(step) <= 2.0 ** -52 * max(1.0, abs(x)):
            break
    return x


def next_fast_len(n: int, real: bool = True) -> int:
    """The smallest 2^a 3^b 5^c >= n (a fast size for a real FFT), as SciPy's
    ``next_fast_len(n, real=True)`` (``real`` is accepted for that signature; only real
    transforms are sized here); NumPy's pocketfft is fast at these sizes."""
    n = int(n)
    if n <= 6:
        return max(n, 1)
    best = 1 << (n - 1).bit_length()
    p5 = 1
    while p5 < best:
        p35 = p5
        while p35 < best:
            m = p35
            if m < n:
                m <<= (-(-n // m) - 1).bit_length()
            if m < best:
                best = m
            p35 *= 3
        p5 *= 5
    return best


@functools.lru_cache(maxsize=8)
def _log_factorial_table(size: int) -> np.ndarray:
    return np.array([math.lgamma(i + 1.0) for i in range(size)])


def log_binom_int(n, k):
    """log C(n, k) for integers 0 <= k <= n (float arrays holding integers), from a table of
    ``math.lgamma`` values (correctly rounded to about an ulp; sized to the next power of two
    of max n, so a handful of tables serve a process).  NumPy and ``math`` only (tied to
    ``scipy.special.gammaln`` in tests/test_numeric_kernels.py)."""
    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    top = int(np.max(n)) + 1 if n.size else 1
    table = _log_factorial_table(1 << max(top - 1, 1).bit_length())
    ni, ki = n.astype(np.int64), k.astype(np.int64)
    return table[ni] - table[ki] - table[ni - ki]


def log1mexp(x):
    """log(1 - exp(-x)) for x > 0, stable at both ends (Maechler 2012): the generated module's
    helper (the printer of ``derive.functions.Log1mExp``) on a float array."""
    with np.errstate(divide="ignore"):
        return _log1mexp(_arr(x))


def log_expm1(x):
    """log(exp(x) - 1) for x > 0: x + log1p(-exp(-x)); finite for x beyond 709 (the generated
    module's helper, the printer of ``derive.functions.LogExpm1``)."""
    with np.errstate(divide="ignore"):
        return _log_expm1(_arr(x))


# ----------------------------------------------------------------------------- generated forms
# The conversions' closed forms are the generated kernels of the library quantities (``derive.lib``,
# printed by ``numeric.codegen`` in their stable forms), under the quantities' own names.
log_zeta = _G.log_zeta                    # log zeta_alpha (Asoodeh et al. 2021, Thm. 4), log1p form / log(alpha-1) below 2
zeta = _G.zeta                            # zeta_alpha = exp(log zeta_alpha)
mironov_delta = _G.mironov_delta          # Mironov 2017, Prop. 3: exp(min(-(alpha-1)(eps-gamma), 0))
gamma_large_delta = _G.gamma_large_delta  # Asoodeh et al. 2021, Thm. 4: eps - log1p(-delta)
gamma_lower = _G.gamma_lower              # Asoodeh et al. 2021, Thm. 4: g, in log form
gamma_upper = _G.gamma_upper              # Asoodeh et al. 2021, Thm. 4: f, logaddexp form (finite at alpha = 5000)
eps_large_delta = _G.eps_large_delta      # Asoodeh et al. 2021, Lemma 1: (gamma + log1p(-delta))_+
eps_balle = _G.eps_balle                  # Balle et al. 2020, Thm. 21 (CKS form), unclipped
eps_chi_bound = _G.eps_chi_bound          # Asoodeh et al. 2021, Lemma 1, second term; logaddexp/log-expm1 form
eps_asoodeh_small_delta = _G.eps_asoodeh_small_delta   # Asoodeh et al. 2021, Lemma 1: min of the two terms
eps_asoodeh = _G.eps_asoodeh              # Asoodeh et al. 2021, Lemma 1, both regimes of delta
