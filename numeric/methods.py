"""Accounting the (Poisson-subsampled) Gaussian mechanism by the f-DP routes:

* ``pld``       certified numerical composition (``numeric.pld``): an
                ``epsilon_lower`` and ``epsilon_upper`` (resp. delta) bracketing the
                truth; the reported value is the upper end (a guarantee).
* ``clt``       Zheng et al. 2020, Sec. 2 / Bu et al.: G_mu with mu = q sqrt(T (e^{1/sigma^2} - 1))
                (exact G_{sqrt(T)/sigma} without subsampling).  An approximation.
* ``edgeworth`` Zheng et al. 2020's degree-2 Edgeworth approximation of min{g, g^-1}** (Sec. 5.3).
                An approximation.

Approximations are labelled so (``guarantee: false``) and carry their distance
to the certified PLD bracket when that is cheap (``PLD_CHEAP_STEPS``).
"""
from __future__ import annotations

import math
import time

import numpy as np

from . import edgeworth as EW
from . import fdp, pld
from . import kernels as K
from .accountant import AccountingResult
from .events import profile_of

__all__ = ["METHODS", "epsilon", "delta", "curve"]

METHODS = ("pld", "clt", "edgeworth")
PLD_CHEAP_STEPS = 200_000
CITATIONS = {
    "pld": ("privacy-loss distribution composition with pessimistic and optimistic discretisation "
            "(certified bracket; replaces Zheng et al. 2020, Sec. 5.1's recursion)"),
    "clt": "Zheng et al. 2020, Sec. 2, CLT for noisy SGD, mu = q sqrt(T(e^{1/sigma^2} - 1))",
    "edgeworth": "Zheng et al. 2020, eqs. (3.5), (3.7), (3.8), degree-2 Edgeworth, symmetrised",
}


def _check(sigma, q, steps, sensitivity):
    s = float(K.check_positive(sigma, "sigma"))
    d = float(K.check_positive(sensitivity, "sensitivity"))
    qq = float(np.asarray(q, dtype=float))
    if not (math.isfinite(qq) and 0 < qq <= 1):
        raise K.DomainError("sampling_rate", qq, "(0, 1]")
    return s / d, qq, K.check_steps(steps, integer=True)


def curve(method: str, sigma, q, steps, sensitivity=1.0) -> fdp.TradeOff:
    """The trade-off curve of the mechanism by ``method`` (pld: the pessimistic one)."""
    s, qq, t = _check(sigma, q, steps, sensitivity)
    if method == "pld":
        from . import events as EV
        from .mechanism import Gaussian, Poisson
        EV.pld_screen([EV.Event(Gaussian(s), Poisson(qq) if qq < 1 else None, t)])   # its grid's range
        return pld.subsampled_gaussian(s, qq, t).tradeoff("pessimistic")
    if method == "clt":
        return fdp.Gaussian(math.sqrt(t) / s) if qq == 1 else EW.clt_sgd(s, qq, t)
    if method == "edgeworth":
        if qq == 1:
            return EW.gaussian(1.0 / s, t)
        return EW.subsampled_gaussian(s, qq, t).symmetrised()
    raise K.DomainError("method", method, "one of " + ", ".join(METHODS))


def _result(name, value, method, s, qq, t, sens, extras, **kw) -> AccountingResult:
    mech = f"Gaussian(sigma={s:g}, sensitivity={sens:g})" + (f", Poisson q={qq:g}" if qq < 1 else "")
    return AccountingResult(name, float(value), method, "", None, CITATIONS[method],
                            mechanism=f"{mech} x {t}", extras=extras, **kw)


def _profile(name: str, at: float, sigma, q, steps, sensitivity, method) -> AccountingResult:
    """``epsilon`` at delta = ``at`` or ``delta`` at epsilon = ``at`` by ``method``: PLD gives a
    certified bracket (the value is its upper end); an approximation carries the bracket."""
    s, qq, t = _check(sigma, q, steps, sensitivity)
    if method not in METHODS:
        raise K.DomainError("method", method, "one of " + ", ".join(METHODS))
    given = {"delta": at} if name == "epsilon" else {"epsilon": at}

    def bracket():
        lo, hi = profile_of(pld.subsampled_gaussian(s, qq, t), name)(at)
        return float(lo), min(float(hi), 1.0) if name == "delta" else float(hi)

    if method == "pld":
        lo, hi = bracket()
        return _result(name, hi, method, sigma, qq, t, sensitivity,
                       {f"{name}_lower": lo, f"{name}_upper": hi, "guarantee": True}, **given)
    value = float(profile_of(curve(method, s, qq, t), name)(at))
    extras = {"guarantee": False, "approximation": True}
    if t <= PLD_CHEAP_STEPS:
        t0 = time.perf_counter()
        lo, hi = bracket()
        extras.update({f"pld_{name}_lower": lo, f"pld_{name}_upper": hi,
                       "below_pld_lower": bool(value < lo),
                       "relative_distance_to_pld": abs(value - hi) / hi if hi > 0 else 0.0,
                       "pld_seconds": round(time.perf_counter() - t0, 3)})
    return _result(name, value, method, sigma, qq, t, sensitivity, extras, **given)


def epsilon(sigma, q, steps, delta_, sensitivity=1.0, method: str = "pld") -> AccountingResult:
    """epsilon(delta) by ``method`` (see the module docstring)."""
    return _profile("epsilon", float(K.check_open01(delta_, "delta")), sigma, q, steps,
                    sensitivity, method)


def delta(sigma, q, steps, eps, sensitivity=1.0, method: str = "pld") -> AccountingResult:
    """delta(epsilon) by ``method`` (see the module docstring)."""
    return _profile("delta", float(K.check_nonneg(eps, "epsilon")), sigma, q, steps,
                    sensitivity, method)
