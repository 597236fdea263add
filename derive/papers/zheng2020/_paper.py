"""The paper object, symbols and parameter domains shared by the section modules
of Zheng, Dong, Long, Su (2020), seed 004.

Phi and its inverse are the one definition of ``derive.functions`` (``Phi``, ``PhiInv``, imported
here as ``Phi_inv``): SymPy functions that print as Phi, Phi^{-1} in LaTeX and lambdify to SciPy/mpmath.
"""
import sympy as sp

from ...paperkit import Paper
from ...symbols import Param

SEED = "004_92b282974724984b.txt"

P = Paper(
    "zheng2020",
    seed=SEED,
    title="Sharp Composition Bounds for Gaussian Differential Privacy via Edgeworth Expansion",
    citation="Q. Zheng, J. Dong, Q. Long, W. J. Su, arXiv:2003.04493 (February 27, 2020)",
)

# ----------------------------------------------------------------------------- Phi, phi
from ...functions import Phi, PhiInv as Phi_inv  # noqa: E402,F401  (the one definition)


def phi(x):
    """Standard normal density."""
    return sp.exp(-x ** 2 / 2) / sp.sqrt(2 * sp.pi)


# ----------------------------------------------------------------------------- symbols
h = sp.Symbol("h", real=True)                 # standardised threshold
z = sp.Symbol("z", real=True)                 # Phi^{-1}(1 - alpha) in (3.9)
x = sp.Symbol("x", real=True)
tt = sp.Symbol("t", real=True)                # characteristic-function argument
n = sp.Symbol("n", positive=True)             # number of compositions
sigma_n = sp.Symbol("sigma_n", positive=True)
kt3, kt4, kt5 = sp.symbols("kappatilde_3 kappatilde_4 kappatilde_5", real=True)  # sums of cumulants under Q
k3, k4 = sp.symbols("kappa_3 kappa_4", real=True)                              # sums of cumulants under P
theta = sp.Symbol("theta", positive=True)     # Laplace shift
mu_n = sp.Symbol("mu_n", real=True)
E_P, E_Q = sp.symbols("E_P E_Q", real=True)   # E_P[T_n], E_Q[T_n]
V_P, V_Q = sp.symbols("V_P V_Q", positive=True)  # Var_P[T_n], Var_Q[T_n]
alpha_star = sp.Symbol("alpha_star", positive=True)
Fn = sp.Function("F_n")
Fn_inv = sp.Function("F_n^{-1}")
Ftn = sp.Function("Ftilde_n")
oo = sp.oo

H = Param(h, sp.Interval(-oo, oo), ("uniform", -4, 4))
Z = Param(z, sp.Interval(-oo, oo), ("uniform", -3, 3))
X = Param(x, sp.Interval(-oo, oo), ("uniform", -6, 6))
TT = Param(tt, sp.Interval(-oo, oo), ("uniform", -3, 3))
NN = Param(n, sp.Interval(1, oo), ("loguniform", 1, 1e4))
SIGMA_N = Param(sigma_n, sp.Interval.open(0, oo), ("loguniform", 0.3, 30))
KT3 = Param(kt3, sp.Interval(-oo, oo), ("uniform", -5, 5))
KT4 = Param(kt4, sp.Interval(-oo, oo), ("uniform", -5, 5))
K3 = Param(k3, sp.Interval(-oo, oo), ("uniform", -5, 5))
K4 = Param(k4, sp.Interval(-oo, oo), ("uniform", -5, 5))
THETA = Param(theta, sp.Interval.open(0, oo), ("loguniform", 1e-2, 5))
ALPHA01 = Param(sp.Symbol("alpha", positive=True), sp.Interval.open(0, 1), ("uniform", 0, 1))
ALPHA_STAR = Param(alpha_star, sp.Interval.open(0, sp.Rational(1, 2)), ("uniform", 0, 0.5))

# ----------------------------------------------------------------------------- the parser's symbol map
# names as the parser writes them (braces dropped) -> this paper's symbols; ``i`` is the imaginary
# unit of the paper's (it); E_P, Var_Q, F_n, ... are parsed as undefined functions
SYMS = {"h": h, "z": z, "x": x, "t": tt, "n": n, "sigma_n": sigma_n, "kappatilde_3": kt3, "kappatilde_4": kt4,
        "kappatilde_5": kt5, "kappa_3": k3, "kappa_4": k4, "mu_n": mu_n, "T_n": sp.Symbol("T_n", real=True),
        "i": sp.I}


def erf_form(expr):
    """The computed form of a parsed formula: derive.functions' Phi and PhiInv written through
    erf and erfinv (as this module's Phi and Phi_inv), so it lambdifies and evaluates as before."""
    return expr.rewrite(sp.erf).rewrite(sp.erfinv)
