"""The kinds of claim, one class each (``derive.kinds.base.Kind``), and the dispatcher.

``KINDS`` maps each kind's name to its class's instance, in the order of the reference page:
identity, inequality, derivative, monotone, convex, concave, limit, asymptotic, bound (a bound
on a named quantity of ``derive.truths``), sampled, fitted_rate, exists, derivation (no answer stated).  ``check(kind, dom,
**fields)`` checks a claim of that kind; each kind's module holds its class and its checker
(``check_identity``, ..., re-exported here); the machinery they share (the domain, the search,
the float screen, certificates, box proofs) is ``derive.checkers``.
"""
from __future__ import annotations

import mpmath as mp

from ..core import Verdict
from . import identity, inequality, derivative, shape, limits, bound, sampled, fitted_rate, exists, derivation  # noqa: F401,E501  (order: the page's)
from .base import KINDS, FieldReader, Kind, check_infinite
from .bound import check_bound
from .derivative import check_derivative, numeric_derivative
from .exists import check_exists
from .fitted_rate import check_fitted_rate
from .identity import check_identity
from .inequality import check_inequality, sign_nonnegative
from .limits import check_asymptotic, check_limit
from .sampled import SAMPLERS, check_sampled
from .shape import check_shape


def check(kind: str, dom, **kw) -> Verdict:
    """Check a claim of ``kind`` (see ``KINDS``) on the domain ``dom`` with the kind's fields, at
    mpmath's default base precision whatever the caller's (a verdict must not depend on where it
    is computed).  A side that is a literal infinity is read first (``Kind.infinite``)."""
    k = KINDS.get(kind)
    if k is None:
        raise ValueError(f"kind={kind!r} is not one of {', '.join(KINDS)}")
    with mp.workprec(53):
        inf = k.infinite(kw)
        if isinstance(inf, Verdict):
            return inf
        if inf is not None:
            return check_infinite(inf[0], inf[1], dom)
        return k.check(dom, **kw)


__all__ = ["KINDS", "Kind", "FieldReader", "check", "check_identity", "check_inequality", "check_derivative",
           "check_shape", "check_limit", "check_asymptotic", "check_bound", "check_sampled",
           "check_fitted_rate", "check_exists", "check_infinite", "numeric_derivative", "sign_nonnegative",
           "SAMPLERS"]
