"""Verdicts of numeric evidence, shared by the papers' checks: an error order in n fitted from a
sequence of errors (``fitted_order``), an asymptotic residual O((log L)^k / L^m) along L
(``asymptotic_residual``), and exact (rational) comparisons case by case (``exact_verdict``), with
printed sums over integer ranges written out term by term for them (``finite_sums``).
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from .core import Verdict


def fitted_order(errs, ns, expected, what, over, pair):
    """A rate in n fitted from errors ``errs`` at ``ns`` (the slope of the last doubling) against the
    stated exponent ``expected`` (error = O(n^-expected)), within 0.2."""
    slopes = [mp.log(errs[i] / errs[i + 1]) / mp.log(mp.mpf(ns[i + 1]) / ns[i]) for i in range(len(ns) - 1)]
    last = slopes[-1]
    table = {str(n_): mp.nstr(e, 5) for n_, e in zip(ns, errs)}
    meth = f"exact {pair} pair; sup over {over} of |{what}|, n = {ns}; order from the last doubling"
    if abs(last - expected) < 0.2:
        return Verdict("holds_numerically", meth, points=len(ns), worst_error=float(errs[-1]), precision=20,
                       note=f"fitted order n^-{mp.nstr(last, 3)}; errors {table}")
    return Verdict("fails", meth, points=len(ns), worst_error=float(errs[-1]), precision=20,
                   counterexample={"errors": table, "fitted exponent": mp.nstr(-last, 3),
                                   "stated exponent": mp.nstr(-expected, 3)})


def asymptotic_residual(exact, approx, k: int, m: int, Ls=(10 ** 3, 10 ** 5, 10 ** 7, 10 ** 9, 10 ** 12),
                        eps_T=((mp.mpf("0.3"), 1), (mp.mpf(1), 7), (mp.mpf(4), 100)), dps: int = 90,
                        growth: float = 20.0) -> Verdict:
    """Is ``exact - approx`` = O((log L)^k / L^m) as L = log(1/delta) -> oo?  ``exact`` and
    ``approx`` are mpmath functions of (eps, T, L).  The scaled residual
    |r| L^m/(log L)^k must not grow by more than ``growth`` from the smallest to the
    largest L (a wrong coefficient makes it grow like a power of L: ~1e9 here)."""
    rows, worst = [], None
    with mp.workdps(dps):
        for e, tt in eps_T:
            vals = []
            for Lv in Ls:
                Lm = mp.mpf(Lv)
                r = exact(e, tt, Lm) - approx(e, tt, Lm)
                vals.append(abs(r) * Lm ** m / mp.log(Lm) ** k)
            base = max(vals[0], mp.mpf(10) ** -60)
            ratio = max(vals) / base
            rows.append(({"varepsilon": mp.nstr(e, 4), "T": tt}, ", ".join(mp.nstr(v, 3) for v in vals)))
            if worst is None or ratio > worst[0]:
                worst = (ratio, rows[-1])
    ratio, (row, scaled) = worst
    method = (f"residual * L^{m}/(log L)^{k} at L = " + ", ".join(f"1e{int(mp.log10(x))}" for x in Ls)
              + f", {dps} digits")
    if ratio <= growth:
        return Verdict("holds_numerically", method, points=len(Ls) * len(eps_T), worst_error=float(ratio),
                       precision=dps, note=f"worst growth factor of the scaled residual {mp.nstr(ratio, 3)}")
    return Verdict("fails", method, points=len(Ls) * len(eps_T), worst_error=float(ratio), precision=dps,
                   counterexample={"params": row, "scaled residual at L = " + ", ".join(
                                       f"1e{int(mp.log10(x))}" for x in Ls): scaled, "growth": mp.nstr(ratio, 3)})


def exact_verdict(cases, method: str) -> Verdict:
    """Verdict of exact (rational) comparisons: cases = [(desc, truth, printed)]."""
    bad = [(d, t, p) for d, t, p in cases if t != p]
    if not cases:
        return Verdict("inconclusive", method, note="no case")
    if not bad:
        return Verdict("holds_numerically", method + " (exact rational arithmetic, error 0)",
                       points=len(cases), worst_error=0.0, precision=None)
    d, t, p = bad[0]
    return Verdict("fails", method + " (exact rational arithmetic)", points=len(cases),
                   worst_error=float(abs(t - p)),
                   counterexample={"params": d, "true": str(t), "printed": str(p),
                                   "failing_cases": f"{len(bad)} of {len(cases)}"})


def finite_sums(expr):
    """Every Sum with integer limits written out term by term (nested sums too): what ``doit``
    gives, without its symbolic summation attempts."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr
    if isinstance(expr, sp.Sum):
        (v, lo, hi), = expr.limits
        return sp.Add(*[finite_sums(expr.function.subs(v, i)) for i in range(int(lo), int(hi) + 1)])
    return expr.func(*[finite_sums(a) for a in expr.args])
