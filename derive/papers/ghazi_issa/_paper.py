"""The paper object and the symbols shared by the section modules of Ghazi & Issa."""
import sympy as sp

from ...paperkit import Paper
from ...symbols import Param, alpha, delta, eps, mu

SEED = "003_6d6b38ca867c8af9.txt"

P = Paper(
    "ghazi_issa",
    seed=SEED,
    title="Total Variation Meets Differential Privacy",
    citation=("E. Ghazi, I. Issa, 'Total Variation Meets Differential Privacy', journal version "
              "of ISIT 2023"),
)

# the paper's alpha (Thm. 2, (7)) is a probability, not a Renyi order: same printed name,
# its own domain
eta = sp.Symbol("eta", nonnegative=True)
c0 = sp.Symbol("c_0", positive=True)
c = sp.Symbol("c", positive=True)
beta = sp.Symbol("beta", positive=True)
Dl = sp.Symbol("Delta", positive=True)
gam = sp.Symbol("gamma", nonnegative=True)
n = sp.Symbol("n", positive=True, integer=True)
c1 = sp.Symbol("c_1", positive=True)
M = sp.Symbol("M", positive=True, integer=True)

EPSP = Param(eps, sp.Interval.open(0, sp.oo), ("loguniform", 1e-2, 6))
DELTA0 = Param(delta, sp.Interval.Ropen(0, 1), ("loguniform", 1e-8, 0.5))
ALPHA01 = Param(alpha, sp.Interval(0, 1), ("uniform", 0, 1))
ETA = Param(eta, sp.Interval(0, 1), ("uniform", 0, 1))
MU0 = Param(mu, sp.Interval.open(0, sp.oo), ("loguniform", 1e-2, 8))
C_ = Param(c, sp.Interval.open(0, sp.Rational(1, 2)), ("uniform", 0, 0.5))

SYMS = {"eta": eta, "c_{0}": c0, "c_0": c0, "beta": beta, "Delta": Dl, "M": M, "mu": mu}


from ...functions import Phi  # noqa: E402,F401  (the one definition of the normal CDF)


def erf_rewrite(expr):
    """A declared formula's transform (sec6.toml): Phi written through erf."""
    return expr.rewrite(sp.erf)


def dump_parse(latex: str):
    """parse_printed after removing the dump's '% ' line-continuation artefacts."""
    from ...parse import parse_printed
    return parse_printed(latex.replace("% ", "").replace("%", ""), SYMS)
