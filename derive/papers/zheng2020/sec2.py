"""Zheng et al. (seed 004), Sections 1-2: (eps, delta)-DP (1.1), trade-off functions,
f-DP and GDP (Defs. 2.1-2.2), the primal-dual conversions (Props. 2.3-2.4),
composition, subsampling and the noisy-SGD CLT limit of [BDLS19] - in the paper's order.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ...core import Verdict
from ...symbols import DELTA, EPS, MU, P as PP
from . import _truth as TR
from ._paper import erf_form, ALPHA01, P, n

S1, S2 = "Sec. 1", "Sec. 2"

# ----------------------------------------------------------------------------- (1.1)
PE = sp.Symbol("P_{M(S')}(E)", nonnegative=True)
F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of sec2.toml

# ----------------------------------------------------------------------------- trade-off functions


# pairs of pmfs on four points (softmax logits): any pair, P = Q, and a symmetric pair (Q = P reversed)
Pmf, Tradeoff, Swapped = sp.Function("Pmf"), sp.Function("Tradeoff"), sp.Function("Swapped")


# ----------------------------------------------------------------------------- Definition 2.2


# ----------------------------------------------------------------------------- Prop. 2.3 and 2.4


def _G_num(m):
    return lambda a: mp.ncdf(TR.nquantile(1 - a) - m)


# ----------------------------------------------------------------------------- composition, subsampling
fsym = sp.Symbol("f")
_ID = sp.Symbol("Id")
# f is an abstract trade-off function, applied to alpha; Id(alpha) = 1 - alpha (Sec. 2)


def _min_nonconvex_check():
    # f = G_1, p = 1/2: f_p and f_p^{-1} cross on the diagonal; second difference of the min there
    m, pp = mp.mpf(1), mp.mpf(1) / 2
    fp = lambda a: pp * _G_num(m)(a) + (1 - pp) * (1 - a)
    # f_p^{-1}(a) = inf{t : f_p(t) <= a} by bisection
    def finv(a):
        lo, hi = mp.mpf(0), mp.mpf(1)
        for _ in range(100):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if fp(mid) <= a else (mid, hi)
        return hi
    g = lambda a: min(fp(a), finv(a))
    a_star = TR._invert(lambda a: a - fp(a), 0, lo=0, hi=1)
    hstep = mp.mpf("0.02")
    second = g(a_star - hstep) - 2 * g(a_star) + g(a_star + hstep)
    ce = {"f": "G_1", "p": "1/2", "alpha*": mp.nstr(a_star, 8), "h": "0.02", "second difference": mp.nstr(second, 8)}
    if second < 0:
        return Verdict("holds_numerically", "second difference of min{f_p, f_p^{-1}} at the diagonal crossing",
                       points=1, worst_error=0.0, precision=mp.mp.dps, counterexample=None,
                       note=f"non-convex witness: {ce}")
    return Verdict("fails", "second difference at the crossing", counterexample=ce)

# ----------------------------------------------------------------------------- noisy SGD and its CLT
_G1S = sp.Symbol("G_{1/sigma}")

nu = sp.Symbol("nu", positive=True)


P.load(__file__)  # the claims declared in sec2.toml (after the checks they name)
