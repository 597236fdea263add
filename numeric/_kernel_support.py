"""The helpers the generated kernels call (``numeric/_kernels_generated.py``): the printers of
``derive.functions``' log-domain nodes, as functions so that a node's argument is evaluated once,
and ``scipy.special`` imported on a kernel's first call (the accountant's start-up does not pay
for it).  Hand-written: each is tied to mpmath through the kernels' tests (tests/test_library.py,
tests/test_numeric_kernels.py)."""
from __future__ import annotations

import functools
import math

import numpy

_QUIET = dict(divide="ignore", invalid="ignore", over="ignore")


def _float_kernel(fn):
    """A generated library kernel: its arguments as float arrays, evaluated with NumPy's
    floating-point warnings silenced (a printed ``where`` evaluates both branches)."""
    @functools.wraps(fn)
    def kernel(*args):
        with numpy.errstate(**_QUIET):
            return fn(*[numpy.asarray(a, dtype=float) for a in args])
    return kernel


class _LazySpecial:
    """``scipy.special``, imported on first use."""

    def __getattr__(self, name):
        import scipy.special
        return getattr(scipy.special, name)


_special = _LazySpecial()


def _log1mexp(x):
    """log(1 - e^-x), x > 0 (Maechler 2012): log1p(-e^-x) above log 2, log(-expm1(-x)) below."""
    return numpy.where(x > 0.6931471805599453, numpy.log1p(-numpy.exp(-x)), numpy.log(-numpy.expm1(-x)))


def _log_expm1(x):
    """log(e^x - 1), x > 0: x + log(1 - e^-x), finite beyond x = 709."""
    return x + _log1mexp(x)


def _log1mexp_s(x):
    """``_log1mexp`` for one float (``math``)."""
    return math.log1p(-math.exp(-x)) if x > 0.6931471805599453 else math.log(-math.expm1(-x))


def _logaddexp_s(x, y):
    """log(e^x + e^y) for floats (-inf allowed)."""
    if x < y:
        x, y = y, x
    return x if y == -math.inf else x + math.log1p(math.exp(y - x))
