"""Zheng et al. (seed 004), Section 4: the two-parameter (mu*, gamma) description of an
Edgeworth trade-off function (fixed point matched by G_{mu*}, area under the curve).
"""
from __future__ import annotations

import mpmath as mp

from ...core import Verdict
from ._paper import ALPHA_STAR, P, erf_form


F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of sec4.toml


def _gauss_family_check():
    """For G_mu (GDP): mu* = mu exactly and gamma = area decreases in mu, so G_{mu2} >= G_{mu1}
    (mu2 < mu1) satisfies the printed condition; area by quadrature of G_mu."""
    rows = []
    with mp.workdps(20):
        for m in (mp.mpf("0.5"), mp.mpf(1), mp.mpf(2)):
            G = lambda a: mp.ncdf(mp.sqrt(2) * mp.erfinv(1 - 2 * a) - m)
            a_star = mp.findroot(lambda a: G(a) - a, mp.mpf("0.3"))
            mstar = mp.sqrt(2) * (mp.erfinv(1 - 2 * a_star) - mp.erfinv(2 * a_star - 1))
            area = mp.quad(G, [0, a_star, 1])
            rows.append((m, mstar, area))
    ok_mu = all(abs(ms - m) < mp.mpf(10) ** -12 for m, ms, _ in rows)
    ok_gamma = all(rows[i][2] > rows[i + 1][2] for i in range(len(rows) - 1))
    table = {mp.nstr(m, 3): {"mu*": mp.nstr(ms, 10), "gamma": mp.nstr(g, 10)} for m, ms, g in rows}
    if ok_mu and ok_gamma:
        return Verdict("holds_numerically", "fixed point by root finding, area by quadrature, mu in {0.5, 1, 2}",
                       points=len(rows), worst_error=0.0, precision=20, note=str(table))
    return Verdict("fails", "fixed point and area of G_mu", counterexample=table)

P.load(__file__)  # the claims declared in sec4.toml (after the checks they name)
