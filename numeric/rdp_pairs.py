"""RDP curves certified in ball arithmetic (python-flint's Arb), and the affine curve of zCDP.

* ``FinitePairRDP``: the Renyi divergence of a pair of pmfs on a finite support, in the given
  orders, gamma(alpha) = max over the orders (P, Q) of log(sum_i p_i^alpha q_i^(1-alpha)) /
  (alpha - 1) (the definition; Mironov 2017 Def. 3).  The pmfs are given as a function
  returning Arb balls (exact from the mechanism's float parameters), so the value is a
  certified enclosure; the curve reports its upper end rounded up to a float.  k-ary
  randomized response (replace-one and replace-special pairs) and the discrete Laplace (its
  pair collapsed to sensitivity + 1 outcomes of distinct loss, ``numeric.mechanism``) are
  accounted so.
* ``AffineRDP``: gamma(alpha) = xi + rho alpha, a (xi, rho)-zCDP guarantee (Bun and Steinke
  2016, Def. 1.1: D_alpha <= xi + rho alpha for every alpha > 1): the generated ``linear_rdp``
  kernel plus xi, rounded up by 2^-50 relative.

Every curve is also clipped to ``eps_inf`` (its pure-DP level, D_alpha <= D_oo), and the
``eps_inf`` attribute feeds the generic subsampling bounds of ``numeric.rdp``.
"""
from __future__ import annotations

import math

import numpy as np

from .rdp import RDPCurve

__all__ = ["FinitePairRDP", "AffineRDP", "PREC", "arb_upper"]

PREC = 128          # Arb working precision (bits)


def arb_upper(x) -> float:
    """The upper end of an Arb ball as a float rounded up (inf for a ball that is not finite)."""
    if not x.is_finite():
        return math.inf
    f = float(x.upper().mid())
    return float(np.nextafter(f, np.inf)) if math.isfinite(f) else math.inf


class _precision:
    """Arb at ``PREC`` bits within the block (the global context restored after it)."""

    def __enter__(self):
        from flint import ctx
        self._old = ctx.prec
        ctx.prec = PREC
        return self

    def __exit__(self, *exc):
        from flint import ctx
        ctx.prec = self._old
        return False


class _ArbCurve(RDPCurve):
    """A curve whose value at one order is an Arb ball (``_ball(alpha)``, alpha an exact arb)."""

    eps_inf = math.inf

    def _ball(self, alpha):
        raise TypeError(f"{type(self).__name__} must define _ball")

    def _gamma(self, a):
        from flint import arb
        out = np.empty(a.shape)
        flat, res = a.ravel(), out.ravel()
        with _precision():
            for val in np.unique(flat):
                if not np.isfinite(val):
                    g = self.eps_inf
                else:
                    g = min(max(arb_upper(self._ball(arb(float(val)))), 0.0), self.eps_inf)
                res[flat == val] = g
        return out


class FinitePairRDP(_ArbCurve):
    """The Renyi divergence of finite pmf pairs, the worse of the given orders (module
    docstring).  ``pairs()`` returns a list of (p, q), each a list of Arb balls (the caller
    builds them inside the Arb context); ``eps_inf`` is the pure-DP level (a float >= the
    largest |log(p_i/q_i)|), ``name`` the curve's description."""

    citation = "Renyi divergence of the pmf pair (Mironov 2017 Def. 3), Arb ball arithmetic"

    def __init__(self, pairs, eps_inf: float, name: str):
        self._pairs, self.eps_inf, self._name = pairs, float(eps_inf), name
        self._logs = None

    def _log_pairs(self):
        """[(log p_i, log q_i - log p_i)] per order, the outcomes with p_i > 0 (computed once, at
        PREC bits); None for an order with some q_i = 0 < p_i (D_alpha = inf)."""
        if self._logs is None:
            out = []
            for p, q in self._pairs():
                if any(pi != 0 and qi == 0 for pi, qi in zip(p, q)):
                    out.append(None)
                    continue
                out.append([(pi.log(), qi.log() - pi.log()) for pi, qi in zip(p, q) if pi != 0])
            self._logs = out
        return self._logs

    def _ball(self, alpha):
        from flint import arb
        best = None
        for terms in self._log_pairs():
            if terms is None:
                return arb("inf")
            # p^alpha q^(1-alpha) = p (q/p)^(1-alpha)
            s = arb(0)
            for lp, lr in terms:
                s += (lp + (1 - alpha) * lr).exp()
            v = s.log() / (alpha - 1)
            best = v if best is None else best.max(v)
        return best

    def describe(self):
        return self._name


class AffineRDP(RDPCurve):
    """gamma(alpha) = xi + rho alpha: (xi, rho)-zCDP (module docstring)."""

    citation = "zero-concentrated DP: D_alpha <= xi + rho alpha (Bun and Steinke 2016, Def. 1.1)"

    def __init__(self, rho: float, xi: float = 0.0):
        self.rho, self.xi = float(rho), float(xi)
        if not (math.isfinite(self.rho) and self.rho >= 0):
            raise K.DomainError("rho", rho, "[0, oo)")
        if not (math.isfinite(self.xi) and self.xi >= 0):
            raise K.DomainError("xi", xi, "[0, oo)")
        # rho = 0: D_alpha <= xi for every alpha, so D_oo <= xi (pure DP at xi)
        self.eps_inf = self.xi if self.rho == 0 else math.inf
        self.linear_rho = self.rho if self.xi == 0 and self.rho > 0 else None

    def _gamma(self, a):
        from . import _kernels_generated as G
        with np.errstate(over="ignore"):
            return (self.xi + np.asarray(G.linear_rdp(a, self.rho), dtype=float)) * (1 + 2.0 ** -50)

    def describe(self):
        return f"zCDP(rho={self.rho:g}" + (f", xi={self.xi:g})" if self.xi else ")")
