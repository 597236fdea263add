"""Ghazi & Issa (seed 003), Section VI with Appendices I-K: the total variation
of the Laplace, Gaussian and staircase mechanisms (checked by quadrature of
the densities), the GDP conversion (17)-(18) used for DP-SGD, and the
staircase mechanism's privacy region.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ...verify import check_draws, pick
from ... import truths_pmf as TR
from ._paper import EPSP, MU0, P, SYMS, erf_rewrite

# the truths of derive.truths, used inside claim expressions
TV, HockeyStick = sp.Function("TV"), sp.Function("HockeyStick")
Gaussian, Laplace, Swapped = sp.Function("Gaussian"), sp.Function("Laplace"), sp.Function("Swapped")

VI, APPI, APPJ, APPK = "Sec. VI", "App. I", "App. J", "App. K"

# ----------------------------------------------------------------------------- Laplace
F = P.formulas(__file__, globals())   # its formulas: the [formulas] tables of sec6.toml


# ----------------------------------------------------------------------------- Gaussian


# ----------------------------------------------------------------------------- staircase


Staircase = sp.Function("Staircase")


def _k1_mid_check(rng, at=None):
    e = pick(at, "varepsilon", lambda: mp.mpf(rng.uniform(0.3, 3)))
    g = pick(at, "gamma", lambda: mp.mpf(rng.uniform(0.02, 0.48)))
    if not (e > 0 and 0 < g < mp.mpf(1) / 2):       # the staircase's gamma in (0, 1/2)
        return None
    p = TR.staircase_pdf(e, g)
    a = p(0)
    truth = TR.piecewise_const_integral(lambda x: p(x) - p(x - 1), [-g, 0, g])
    return {"varepsilon": e, "gamma": g}, truth, a * (2 * g * (1 - mp.e ** e))


def _k1_mid_corrected_check(rng, at=None):
    """App. K1's middle line as corrected: the P - Q mass on (-gamma, gamma] is a(gamma) 2 gamma Delta (1 - e^{-eps})."""
    params, truth, _ = _k1_mid_check(rng, at)
    e, g = params["varepsilon"], params["gamma"]
    return params, truth, TR.staircase_pdf(e, g)(0) * (2 * g * (1 - mp.e ** -e))


def _k1_left_check(rng):
    e, g = mp.mpf(rng.uniform(0.3, 3)), mp.mpf(rng.uniform(0.02, 0.48))
    p = TR.staircase_pdf(e, g)
    brk = [b for b in TR.staircase_breaks(g, n=int(60 / e) + 5) if b <= -g] + [-g]
    truth = TR.piecewise_const_integral(lambda x: max(p(x) - p(x - 1), 0), sorted(set(brk)))
    return {"varepsilon": e, "gamma": g}, truth, p(0) * mp.e ** -e


# ----------------------------------------------------------------------------- staircase: the stated range of gamma


def _stair_mass(e, g):
    """Total mass of f_gamma as printed (exact integral of the step function; tail beyond 60/eps + 5
    steps below e^-60)."""
    return TR.piecewise_const_integral(TR.staircase_pdf(e, g), TR.staircase_breaks(g, n=int(60 / e) + 5))


def _stair_range_check():
    """Sec. VI-C states gamma in R^+: f_gamma must be a probability density at both ends of the range
    (gamma = 0, and gamma large) and at gamma = 1/2, 1 (the branch point of the TV and Geng et al.'s end)."""
    pts = iter([(e, g) for e in (mp.mpf("0.5"), mp.mpf(2)) for g in (mp.mpf(0), mp.mpf("0.5"), mp.mpf(1),
                                                                       mp.mpf(2), mp.mpf(10))])

    def draw(rng):
        e, g = next(pts)
        return {"varepsilon": e, "gamma": g, "Delta": 1}, _stair_mass(e, g), mp.mpf(1)
    v = check_draws(draw, "==", n=10, tol_digits=15,
                    method="total mass of the printed staircase density (exact integral of the step function)",
                    fail_note=("f_gamma is a probability density only for 0 <= gamma <= 1 (Geng et al.'s range): for "
                               "gamma > 1 the step [gamma Delta, Delta) is empty and the mass is "
                               "1/(gamma + e^{-eps}(1 - gamma)) < 1; the TV's second branch holds on [1/2, 1]"))
    if v.status == "fails":
        v.derived = sp.Interval(0, 1)
    return v

def _stair_range_corrected_check(rng, at=None):
    """The range as corrected: f_gamma is a probability density for every gamma in [0, 1] (ends included)."""
    e = pick(at, "varepsilon", lambda: mp.mpf(rng.choice(["0.5", "1", "2"])))
    g = pick(at, "gamma", lambda: mp.mpf(rng.choice(["0", "1"])) if rng.random() < 0.3 else mp.mpf(rng.uniform(0, 1)))
    if not (e > 0 and 0 <= g <= 1):
        return None
    return {"varepsilon": e, "gamma": g, "Delta": 1}, _stair_mass(e, g), mp.mpf(1)


P.load(__file__)  # the claims declared in sec6.toml (after the checks they name)
