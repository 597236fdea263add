"""Asoodeh et al. (seed 002), Appendices A-C: every step of the Bernoulli
reduction (56)-(64), the convex-hull argument and Theorem 3's proof (65)-(78),
and Theorem 4's proof: lower bound 1 (79)-(82), lower bound 2 (83)-(91).
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ...parse import parse_printed
from ...symbols import ALPHA, P as PP, Q as QQ, alpha, delta
from ...verify import check_draws
from ... import truths as TR
from ._paper import P
from .sec2_3 import objective as h1_formula

A, B, C = "App. A", "App. B", "App. C"
h1 = h1_formula.expr


# ----------------------------------------------------------------------------- Appendix B


def _appB_eq73(rng):
# gamma-tilde(delta) = chi(gamma_alpha^eps(delta)) is convex in delta (the conclusion of (71)-(73))
    a = 1 + mp.mpf(10) ** rng.uniform(-1, 1.5)
    e = mp.mpf(rng.uniform(0, 3))
    d = mp.mpf(10) ** rng.uniform(-6, -0.2)
    h = d * mp.mpf(rng.uniform(0.05, 0.4))
    gt = [(mp.e ** ((a - 1) * TR.gamma_exact(a, e, x)) - 1) / (a - 1) for x in (d - h, d, d + h)]
    return ({"alpha": a, "varepsilon": e, "delta": d, "h": h}, gt[0] - 2 * gt[1] + gt[2], mp.mpf(0))

F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of app_a_c.toml


# ----------------------------------------------------------------------------- Appendix C


def _appC_eq79(rng):
    a = 1 + mp.mpf(10) ** rng.uniform(-1, 1.5)
    e = mp.mpf(rng.uniform(0, 3))
    d = mp.mpf(10) ** rng.uniform(-8, -0.1)
    lhs = mp.e ** ((a - 1) * (TR.gamma_exact(a, e, d) - e))
    from ...verify import mp_minimize
    _, rhs = mp_minimize(lambda x: x ** a * (x - d) ** (1 - a), d, 1, grid=120, iters=160)
    return ({"alpha": a, "varepsilon": e, "delta": d}, lhs, rhs)


_v80a = parse_printed(r"\delta\alpha^{\alpha}(\alpha-1)^{1-\alpha}")
_v80b = parse_printed(r"(1-\delta)^{1-\alpha}")


def _appC_eq80():
    from ...verify import mp_minimize
    fa = sp.lambdify([alpha, delta], _v80a, "mpmath")
    fb = sp.lambdify([alpha, delta], _v80b, "mpmath")

    def draw(rng):
        a = 1 + mp.mpf(10) ** rng.uniform(-1, 1.5)
        d = mp.mpf(10) ** rng.uniform(-8, -0.01)
        _, m = mp_minimize(lambda x: x ** a * (x - d) ** (1 - a), d, 1, grid=120, iters=160)
        if a * d >= 1:
            m = min(m, 1 ** a * (1 - d) ** (1 - a))  # the closed end p = 1 of (delta, 1]
        return ({"alpha": a, "delta": d}, m, fa(a, d) if a * d < 1 else fb(a, d))
    return check_draws(draw, "==", n=30, tol_digits=18, seed=80,
                       method="numeric minimum of the first term over p vs the printed value, both cases")


h2 = parse_printed(r"\left(1 - \left(\frac{1-p}{e^{\varepsilon}-p}\right)^{\alpha}\right) p + \left(\frac{1-p}{e^{\varepsilon}-p}\right)^{\alpha} \left(e^{\varepsilon} - (\alpha-1)\delta\right) + (\alpha-1)\delta")


P.load(__file__)  # the claims declared in app_a_c.toml (after the checks they name)
