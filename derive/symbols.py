"""Symbols with assumptions and the parameter domains they live on: the library's one
symbol table.

Every formula (the library's quantities, ``derive.lib``; the papers' printed formulas) is
written in these symbols, so that
assumptions (``alpha > 1`` is carried as ``alpha`` positive plus a domain) are
shared, and the LaTeX printer can render them in the papers' notation.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

# --- symbols -----------------------------------------------------------------
alpha = sp.Symbol("alpha", positive=True)
eps = sp.Symbol("varepsilon", nonnegative=True)
delta = sp.Symbol("delta", positive=True)
gamma = sp.Symbol("gamma", nonnegative=True)
lam = sp.Symbol("lambda", positive=True)
p = sp.Symbol("p", positive=True)
q = sp.Symbol("q", positive=True)
sigma = sp.Symbol("sigma", positive=True)
rho = sp.Symbol("rho", positive=True)
T = sp.Symbol("T", positive=True)
t = sp.Symbol("t", nonnegative=True)
tau = sp.Symbol("tau", nonnegative=True)
mu = sp.Symbol("mu", positive=True)
A = sp.Symbol("A", positive=True)
L = sp.Symbol("L", positive=True)  # shorthand for log(1/delta) in asymptotics
zeta_alpha = sp.Symbol("zeta_alpha", positive=True)  # the name printed formulas use for zeta_alpha; substituted by thm4.zeta
# the library's further variables (derive.lib, derive.mechanisms)
b = sp.Symbol("b", positive=True)                    # a Laplace scale
x = sp.Symbol("x", real=True)                        # an integration / evaluation point
k = sp.Symbol("k", integer=True, nonnegative=True)   # a summation index
n = sp.Symbol("n", integer=True, positive=True)      # an integer order or count
u = sp.Symbol("u", positive=True)                    # p - delta in the optimal conversion's objective
W = sp.Symbol("W", positive=True)                    # e^-eps in the same
eta = sp.Symbol("eta", nonnegative=True)             # a total-variation bound
h = sp.Symbol("h", real=True)                        # a standardised point of an Edgeworth CDF
z = sp.Symbol("z", real=True)                        # a normal quantile
kappa2 = sp.Symbol("kappa_2", positive=True)         # cumulants of a privacy loss
kappa3 = sp.Symbol("kappa_3", real=True)
kappa4 = sp.Symbol("kappa_4", real=True)
Delta = sp.Symbol("Delta", positive=True)            # a mechanism's sensitivity (L2 for the Gaussian)

ALL = {s.name: s for s in (alpha, eps, delta, gamma, lam, p, q, sigma, rho, T, t, tau, mu, A, L,
                           zeta_alpha, b, x, k, n, u, W, eta, h, z, kappa2, kappa3, kappa4, Delta)}


@dataclass(frozen=True)
class Param:
    """A parameter of a formula: its symbol, the domain it is stated on, and a
    sampling law used to draw random in-domain points for numeric checks.

    ``sample`` is one of
      ("uniform", lo, hi), ("loguniform", lo, hi): the value itself;
      ("above", base, lo, hi): base + loguniform(lo, hi) (for open lower ends).
    """

    symbol: sp.Symbol
    domain: sp.Interval
    sample: tuple

    @property
    def name(self) -> str:
        return self.symbol.name

    def contains(self, value) -> bool:
        return bool(self.domain.contains(sp.Float(value, 30)))

    def describe(self) -> str:
        return f"{self.name} in {self.domain}"


oo = sp.oo
ALPHA = Param(alpha, sp.Interval.open(1, oo), ("above", 1, 1e-3, 1e3))
EPS = Param(eps, sp.Interval(0, oo), ("loguniform", 1e-3, 20))
DELTA = Param(delta, sp.Interval.open(0, 1), ("loguniform", 1e-12, 0.999))
GAMMA = Param(gamma, sp.Interval.open(0, oo), ("loguniform", 1e-4, 20))
LAM = Param(lam, sp.Interval(1, oo), ("above", 1, 1e-3, 1e3))
P = Param(p, sp.Interval.open(0, 1), ("uniform", 0, 1))
Q = Param(q, sp.Interval.open(0, 1), ("uniform", 0, 1))
SIGMA = Param(sigma, sp.Interval.open(0, oo), ("loguniform", 1e-1, 1e2))
RHO = Param(rho, sp.Interval.open(0, oo), ("loguniform", 1e-5, 10))
TSTEPS = Param(T, sp.Interval(1, oo), ("loguniform", 1, 1e5))
TAU = Param(tau, sp.Interval(0, 1), ("uniform", 0, 1))
MU = Param(mu, sp.Interval.open(0, oo), ("loguniform", 1e-2, 10))


def bar(x):
    """The paper's bar notation: bar(a) = 1 - a."""
    return 1 - x
TVAR = Param(t, sp.Interval(0, oo), ("loguniform", 1e-4, 1e3))
