"""The ISIT 2020 version (seed 000) where it states things differently from
the journal version (seed 002): each difference is registered with its own
source and checked independently.  The 000 dump's Unicode is mis-decoded; the
LaTeX source lines it carries are used verbatim.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ...symbols import ALPHA, DELTA, EPS, P as PP
from ...verify import check_draws, mp_minimize
from ... import truths_pmf as TR
from ._paper import P

S = "ISIT 2020"

F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of isit2020.toml


def _gauss_000(rng):
    a = 1 + mp.mpf(10) ** rng.uniform(-1, 1)
    s = mp.mpf(10) ** rng.uniform(-0.5, 1)
    return ({"alpha": a, "sigma": s}, TR.gaussian_renyi_quad(a, s), a * a)


def _eq73():
    rho, T = sp.symbols("rho T", positive=True)

    def draw(rng):
        r = mp.mpf(10) ** rng.uniform(-6, -1)
        t = mp.mpf(10) ** rng.uniform(0, 4)
        d = mp.mpf(10) ** rng.uniform(-8, -1)
        fn = lambda a: max(r * a * t + mp.log(1 - d), 0)  # noqa: E731
        _, m = mp_minimize(fn, 1 / d, 1 / d * 1e6, grid=80, iters=120)
        m = min(m, fn(1 / d))  # the closed end alpha = 1/delta
        return ({"rho": r, "T": t, "delta": d}, m, max(r * t / d + mp.log(1 - d), 0))
    return check_draws(draw, "==", n=20, tol_digits=25, seed=73,
                       method="numeric infimum over alpha >= 1/delta vs (106)")


P.load(__file__)  # the claims declared in isit2020.toml (after the checks they name)
