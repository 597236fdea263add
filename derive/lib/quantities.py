"""The named quantities of the library, each defined once.

A ``Quantity`` is a SymPy definition in the library's symbols (``derive.symbols``), with exact
Rationals, plus optionally a ``stable`` form: the same function written in the nodes whose
NumPy printers keep full precision in floats (``log1p``, ``expm1``, ``logaddexp``, and
``derive.functions``' ``LogPhi``, ``Log1mExp``, ``LogExpm1``).  ``numeric/codegen.py`` prints the
stable form (else the definition) into ``numeric/_kernels_generated.py``; ``tests/test_library.py``
holds the stable form equal to the definition in mpmath at random in-domain points.

Sources are cited by author and result (the papers that print these formulas make claims
about them in ``derive/papers``; the library names no paper key).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p
from sympy.codegen.numpy_nodes import logaddexp

from .. import mechanisms as _M   # the mechanisms' definitions (one each), in the same symbols
from ..functions import _Named, GaussHockey, GaussTradeoff, Log1mExp, LogExpm1, LogPhi, Phi, PhiInv, ZetaAlpha
from ..symbols import (Delta, T, W, alpha, b, delta, eps, eta, gamma, h, kappa2, kappa3, kappa4, mu, p, q,
                       rho, sigma, tau, u, z)


@dataclass(frozen=True)
class Quantity:
    """A named quantity: ``expr`` is its definition in ``args``; ``stable`` (optional) the same
    function in float-stable nodes, the form the code generator prints."""

    name: str
    args: tuple
    expr: sp.Expr
    cite: str
    doc: str
    stable: sp.Expr | None = None
    domain: dict = field(default_factory=dict)    # symbol name -> (lo, hi) where the forms agree

    @property
    def printed(self) -> sp.Expr:
        """The expression the code generator prints: ``stable`` when given, else ``expr``."""
        return self.expr if self.stable is None else self.stable

    def __call__(self, *vals):
        """The definition at ``vals`` (SymPy numbers or expressions), by substitution."""
        return self.expr.subs(dict(zip(self.args, vals)), simultaneous=True)

    @property
    def function(self) -> type:
        """The quantity as a SymPy ``Function`` node (the ``sympy.codegen`` pattern of
        ``derive.functions``): ``F(x, y)`` stays unevaluated in expressions; ``doit`` gives the
        definition, ``diff`` differentiates it, ``evalf`` evaluates it, the LaTeX printer writes
        the quantity's name, and the NumPy/SciPy printer prints the stable form."""
        return _function_node(self.name)


QUANTITIES: dict[str, Quantity] = {}


def _q(name, args, expr, cite, doc, stable=None, **domain) -> Quantity:
    if name in QUANTITIES:
        raise ValueError(f"quantity {name!r} defined twice")
    QUANTITIES[name] = Quantity(name, tuple(args), expr, cite, doc, stable, domain)
    return QUANTITIES[name]


def quantity(name: str) -> Quantity:
    try:
        return QUANTITIES[name]
    except KeyError:
        raise KeyError(f"no library quantity {name!r}; known: {', '.join(sorted(QUANTITIES))}") from None


@functools.lru_cache(maxsize=None)
def _function_node(qname: str) -> type:
    q = QUANTITIES[qname]

    def _at(expr, args):
        return expr.subs(dict(zip(q.args, args)), simultaneous=True)

    def definition(self):
        return _at(q.expr, self.args)

    def _numpycode(self, printer):
        return printer._print(_at(q.printed, self.args))

    def _latex(self, printer, exp=None):
        s = r"\operatorname{%s}\left(%s\right)" % (q.name.replace("_", r"\_"),
                                                   ", ".join(printer._print(a) for a in self.args))
        return self._wrap(s, exp)

    name = "".join(w.capitalize() for w in q.name.split("_"))
    return type(name, (_Named,), {"nargs": len(q.args), "definition": definition, "_numpycode": _numpycode,
                                  "_scipycode": _numpycode, "_latex": _latex, "_dplatex": _latex,
                                  "__doc__": f"{q.doc} [{q.cite}]", "__module__": __name__})


H = sp.Rational(1, 2)
MIRONOV = "Mironov 2017 (Renyi differential privacy)"
OPTCONV = "Asoodeh, Liao, Calmon, Kosut, Sankar 2021 (optimal RDP-to-DP conversion)"

# ============================================================================ RDP curves of mechanisms
_q("gaussian_rdp", (alpha, sigma), _M.gaussian_rdp, f"{MIRONOV}, Prop. 7",
   "the RDP curve of the Gaussian mechanism N(0, sigma^2), unit L2 sensitivity")

_q("linear_rdp", (alpha, rho), rho * alpha, f"{MIRONOV}, Prop. 7 (the Gaussian's shape)",
   "an RDP curve linear in alpha, rho alpha (the Gaussian's with rho = Delta^2/(2 sigma^2))")
_q("subsampled_gaussian_rho", (q, sigma), q ** 2 / ((1 - q) * sigma ** 2), "Abadi et al. 2016, Lemma 3",
   "rho_q = q^2/((1-q) sigma^2) of the approximate RDP curve alpha rho_q of the q-subsampled Gaussian "
   "(drops an O(q^3 lambda^3/sigma^3) term: not a certified bound)")

_lap = _M.laplace_rdp.subs(b, 1 / eps)            # scale b = Delta/eps at unit sensitivity
_q("laplace_rdp", (alpha, eps), _lap, f"{MIRONOV}, Prop. 6",
   "the RDP curve of the Laplace mechanism at eps = Delta/b (its pure-DP level); the stable form "
   "is the log-sum-exp of the two terms, clipped to [0, eps] (the curve's range)",
   stable=sp.Min(sp.Max(logaddexp(sp.log(alpha / (2 * alpha - 1)) + (alpha - 1) * eps,
                                  sp.log((alpha - 1) / (2 * alpha - 1)) - alpha * eps) / (alpha - 1), 0), eps),
   alpha=(1.001, 200), varepsilon=(1e-3, 20))

_t_rr = (alpha - 1) * eps
_lp, _l1p = -logaddexp(0, -eps), -logaddexp(0, eps)
_rr_small = log1p(1 / (1 + sp.exp(-eps)) * expm1(sp.Min(_t_rr, 50)) * -expm1(-(_t_rr + eps))) / (alpha - 1)
_rr_large = logaddexp(alpha * _lp + (1 - alpha) * _l1p, alpha * _l1p + (1 - alpha) * _lp) / (alpha - 1)
_q("rr_rdp", (alpha, eps), _M.rr_rdp,
   f"{MIRONOV}, Prop. 5",
   "the RDP curve of binary randomized response with p = e^eps/(1+e^eps); stable: 1 + p expm1(t)(1 - "
   "e^{-(t+eps)}) with t = (alpha-1) eps through log1p (no cancellation at small eps), the log-sum-exp "
   "for t >= 50, clipped to [0, eps]",
   stable=sp.Min(sp.Max(sp.Piecewise((_rr_small, _t_rr < 50), (_rr_large, True)), 0), eps),
   alpha=(1.001, 200), varepsilon=(1e-3, 20))

# ============================================================================ RDP <-> DP conversions
_log_zeta_stable = -sp.log(alpha) + (alpha - 1) * sp.Piecewise(
    (sp.log(alpha - 1) - sp.log(alpha), alpha < 2), (log1p(-1 / alpha), True))
_q("log_zeta", (alpha,), sp.log(ZetaAlpha(alpha).definition()), f"{OPTCONV}, Thm. 4",
   "log zeta_alpha, zeta_alpha = (1/alpha)(1 - 1/alpha)^(alpha-1); stable: log(1 - 1/alpha) as "
   "log1p(-1/alpha) for alpha >= 2 and log(alpha-1) - log(alpha) below (alpha - 1 exact there)",
   stable=_log_zeta_stable, alpha=(1.0001, 1e8))
_q("zeta", (alpha,), ZetaAlpha(alpha).definition(), f"{OPTCONV}, Thm. 4",
   "zeta_alpha = (1/alpha)(1 - 1/alpha)^(alpha-1); stable: exp of the stable log (the power form "
   "loses every digit at alpha = 1e8)", stable=sp.exp(_log_zeta_stable), alpha=(1.0001, 1e8))

_q("mironov_delta", (alpha, eps, gamma), sp.Min(sp.exp(-(alpha - 1) * (eps - gamma)), 1),
   f"{MIRONOV}, Prop. 3",
   "delta = e^{-(alpha-1)(eps-gamma)} of the classical RDP-to-DP conversion, capped at 1",
   stable=sp.exp(sp.Min(-(alpha - 1) * (eps - gamma), 0)))

_q("gamma_large_delta", (alpha, eps, delta), eps - sp.log(1 - delta), f"{OPTCONV}, Thm. 4",
   "the exact RDP level gamma of an (eps, delta)-DP mechanism when alpha delta >= 1: eps - log(1-delta)",
   stable=eps - log1p(-delta))

_q("gamma_lower", (alpha, eps, delta), eps - sp.log(ZetaAlpha(alpha).definition() / delta) / (alpha - 1),
   f"{OPTCONV}, Thm. 4", "the lower bound g = eps - log(zeta_alpha/delta)/(alpha-1) on the RDP level "
   "of (eps, delta)-DP; stable: eps - (log zeta_alpha - log delta)/(alpha-1)",
   stable=eps - (_log_zeta_stable - sp.log(delta)) / (alpha - 1), alpha=(1.0001, 1e4), delta=(1e-300, 0.999))

_x_f = delta * sp.exp(-eps)
_t1_f = eps + log1p(-alpha * _x_f) + alpha * (log1p(-delta) - eps - log1p(-_x_f))
_q("gamma_upper", (alpha, eps, delta),
   eps + sp.log((sp.exp(eps) - alpha * delta) * ((delta - 1) / (delta - sp.exp(eps))) ** alpha
                + alpha * delta) / (alpha - 1),
   f"{OPTCONV}, Thm. 4",
   "the upper bound f on the RDP level of (eps, delta)-DP for alpha delta < 1; stable: with x = delta e^-eps "
   "the log is logaddexp(eps + log1p(-alpha x) + alpha (log1p(-delta) - eps - log1p(-x)), log(alpha delta)) "
   "(the printed power form is NaN at alpha = 5000)",
   stable=eps + logaddexp(_t1_f, sp.log(alpha) + sp.log(delta)) / (alpha - 1),
   alpha=(1.0001, 500), delta=(1e-300, 1e-3))                   # alpha delta < 1 (where it is stated)

_q("eps_large_delta", (alpha, gamma, delta), sp.Max(gamma + sp.log(1 - delta), 0), f"{OPTCONV}, Lemma 1",
   "eps = (gamma + log(1 - delta))_+ of (alpha, gamma)-RDP when alpha delta >= 1 (exact)",
   stable=sp.Max(gamma + log1p(-delta), 0))

_balle_stable = gamma - (sp.log(delta) - _log_zeta_stable) / (alpha - 1)
_q("eps_balle", (alpha, gamma, delta), gamma - sp.log(delta / ZetaAlpha(alpha).definition()) / (alpha - 1),
   "Balle, Barthe, Gaboardi, Hsu, Sato 2020, Thm. 21 (Canonne, Kamath, Steinke 2020 form)",
   "eps = gamma - log(delta/zeta_alpha)/(alpha-1) of (alpha, gamma)-RDP; not clipped (may be negative)",
   stable=_balle_stable, alpha=(1.0001, 1e4), delta=(1e-300, 0.999))

_xg = (alpha - 1) * gamma
_second_stable = sp.Piecewise((logaddexp(LogExpm1(_xg) - sp.log(alpha) - sp.log(delta), 0) / (alpha - 1), _xg > 0),
                              (0, True))
_q("eps_chi_bound", (alpha, gamma, delta),
   sp.log((sp.exp((alpha - 1) * gamma) - 1) / (alpha * delta) + 1) / (alpha - 1), f"{OPTCONV}, Lemma 1",
   "the chi-divergence bound eps = log((e^{(alpha-1)gamma} - 1)/(alpha delta) + 1)/(alpha-1) of "
   "(alpha, gamma)-RDP; stable: logaddexp(log(e^{(alpha-1)gamma} - 1) - log(alpha delta), 0)/(alpha-1), finite "
   "for (alpha-1)gamma beyond 709 and delta down to 1e-300",
   stable=_second_stable, gamma=(1e-6, 50), delta=(1e-300, 0.999))

_eps25 = sp.Min(sp.Max(QUANTITIES["eps_balle"].expr, 0), QUANTITIES["eps_chi_bound"].expr)
_eps25_stable = sp.Min(sp.Max(_balle_stable, 0), _second_stable)
_q("eps_asoodeh_small_delta", (alpha, gamma, delta), _eps25, f"{OPTCONV}, Lemma 1",
   "the upper bound min{(eps_balle)_+, eps_chi_bound} on eps of (alpha, gamma)-RDP for alpha delta < 1",
   stable=_eps25_stable, gamma=(1e-6, 50), delta=(1e-300, 0.999))

_q("eps_asoodeh", (alpha, gamma, delta),
   sp.Piecewise((QUANTITIES["eps_large_delta"].expr, alpha * delta >= 1), (_eps25, True)), f"{OPTCONV}, Lemma 1",
   "the closed-form eps of (alpha, gamma)-RDP: exact where alpha delta >= 1, the small-delta bound else",
   stable=sp.Piecewise((QUANTITIES["eps_large_delta"].stable, alpha * delta >= 1), (_eps25_stable, True)),
   gamma=(1e-6, 50), delta=(1e-300, 0.999))

_q("conversion_objective", (alpha, eps, delta, p),
   p ** alpha * (p - delta) ** (1 - alpha) + (1 - p) ** alpha * (sp.exp(eps) - p + delta) ** (1 - alpha),
   f"{OPTCONV}, Thm. 3",
   "the objective whose minimum over p in (delta, 1) gives the optimal conversion: "
   "gamma = eps + log(min_p objective)/(alpha - 1)")

_L = sp.log(1 / delta)
_q("ma_epsilon", (rho, T, delta), rho * T + sp.sqrt(4 * rho * T * _L),
   "Abadi et al. 2016 (moments accountant), for gamma(alpha) = rho alpha",
   "the moments accountant's eps = inf_alpha rho alpha T - log(delta)/(alpha-1) = rho T + sqrt(4 rho T log(1/delta))")

_q("ma_sigma2", (eps, delta, T),
   T / (2 * (eps - 2 * sp.log(delta) - 2 * sp.sqrt((eps - sp.log(delta)) * _L))),
   "Abadi et al. 2016 (moments accountant), inverted for sigma^2",
   "the variance sigma^2 = T/(2x), x = eps - 2 log delta - 2 sqrt((eps - log delta) log(1/delta)), at which "
   "the moments accountant gives eps; stable: x = eps^2/(sqrt(eps + L) + sqrt(L))^2, L = log(1/delta)",
   stable=T / (2 * (eps ** 2 / (sp.sqrt(eps + _L) + sp.sqrt(_L)) ** 2)))

_q("sigma2_sufficient", (eps, delta, T),
   2 * T / eps ** 2 * _L + T / eps - 2 * T / eps ** 2 * (sp.log(2 * _L) + 1 - sp.log(eps)),
   f"{OPTCONV}, Thm. 5", "the sufficient Gaussian variance for T-fold (eps, delta)-DP without its O(.) "
   "remainder", delta=(1e-12, 0.3))

# ============================================================================ the Gaussian privacy profile
_a_g, _b_g = -eps / mu + mu / 2, -eps / mu - mu / 2
_la_g = LogPhi(_a_g)
_r_g = eps + LogPhi(_b_g) - _la_g
_log_delta_stable = _la_g + Log1mExp(-sp.Min(_r_g, -sp.Float("1e-300")))
_q("gauss_log_delta", (eps, mu), sp.log(GaussHockey(mu, sp.exp(eps)).definition()),
   "Balle and Wang 2018, Thm. 8; Dong, Roth, Su 2022, Cor. 2.13",
   "log delta(eps) of mu-GDP, log(Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)); stable: "
   "log Phi(a) + log(1 - e^r), r = eps + log Phi(b) - log Phi(a) < 0 (log_ndtr: no underflow)",
   stable=_log_delta_stable, varepsilon=(0, 10), mu=(0.3, 20))
_q("gauss_delta", (eps, mu), GaussHockey(mu, sp.exp(eps)).definition(),
   "Balle and Wang 2018, Thm. 8; Dong, Roth, Su 2022, Cor. 2.13",
   "delta(eps) of mu-GDP (the hockey-stick divergence of N(mu, 1) and N(0, 1) at e^eps); stable: exp of "
   "the stable log", stable=sp.exp(_log_delta_stable), varepsilon=(0, 10), mu=(0.3, 20))
_q("gauss_mu", (sigma, T, Delta), sp.sqrt(T) * Delta / sigma, "Dong, Roth, Su 2022, Cor. 3.3",
   "mu = sqrt(T) Delta/sigma of the T-fold Gaussian mechanism (mu-GDP)")
_q("gauss_tradeoff", (mu, tau), GaussTradeoff(mu, tau).definition(), "Dong, Roth, Su 2022, Def. 2.2",
   "G_mu(tau) = Phi(Phi^{-1}(1 - tau) - mu), the trade-off function of N(0,1) vs N(mu,1); stable: "
   "Phi^{-1}(1 - tau) as -Phi^{-1}(tau) (exact for tiny tau)",
   stable=Phi(-PhiInv(tau) - mu), tau=(1e-12, 1 - 1e-12))

# ============================================================================ total variation
_q("tv_eta_max", (eps, delta), delta + (1 - delta) * sp.tanh(eps / 2), "Ghazi and Issa 2023, Cor. 1",
   "the largest total variation of an (eps, delta)-DP mechanism: delta + (1 - delta) tanh(eps/2)")
_q("tv_alpha", (eps, delta, eta), 1 - (eta - delta) / ((1 - delta) * sp.tanh(eps / 2)),
   "Ghazi and Issa 2023, Thm. 2",
   "alpha = 1 - (eta - delta)/((1 - delta) tanh(eps/2)) of the dominating pair of an (eps, delta)-DP, "
   "eta-TV mechanism (unclipped)")
_q("tv_laplace", (eps,), 1 - sp.exp(-eps / 2), "Ghazi and Issa 2023, Sec. VI-A",
   "the total variation of the Laplace mechanism Lap(Delta/eps): 1 - e^{-eps/2}", stable=-expm1(-eps / 2))
_q("tv_gaussian", (mu,), 2 * Phi(mu / 2) - 1, "Ghazi and Issa 2023, eq. (16)",
   "the total variation of mu-GDP: 2 Phi(mu/2) - 1; stable: erf(mu/(2 sqrt 2))",
   stable=sp.erf(mu / (2 * sp.sqrt(2))))
_em = sp.exp(-eps)
_q("tv_staircase", (eps, gamma),
   sp.Piecewise(((1 - _em) * (2 * gamma * (1 - _em) + _em) / (2 * (gamma + _em * (1 - gamma))), gamma < H),
                ((1 - _em) / (2 * (gamma + _em * (1 - gamma))), True)),
   "Ghazi and Issa 2023, Sec. VI-C", "the total variation of the staircase mechanism (Delta = 1)",
   stable=sp.Piecewise((-expm1(-eps) * (2 * gamma * -expm1(-eps) + _em) / (2 * (gamma + _em * (1 - gamma))), gamma < H),
                       (-expm1(-eps) / (2 * (gamma + _em * (1 - gamma))), True)))
_q("subsampled_eps", (eps, p), sp.log(1 + p * (sp.exp(eps) - 1)), "Balle, Barthe, Gaboardi 2018, Thm. 9",
   "the eps of an eps-DP mechanism run on a p-subsample: log(1 + p(e^eps - 1))", stable=log1p(p * expm1(eps)))

# ============================================================================ binary divergences
_l1, _l2 = sp.log(p) - sp.log(q), log1p(-p) - log1p(-q)
_sm1 = q * expm1(alpha * _l1) + (1 - q) * expm1(alpha * _l2)
_direct = logaddexp(alpha * sp.log(p) + (1 - alpha) * sp.log(q), alpha * log1p(-p) + (1 - alpha) * log1p(-q))
_q("binary_renyi", (p, q, alpha),
   sp.log(p ** alpha * q ** (1 - alpha) + (1 - p) ** alpha * (1 - q) ** (1 - alpha)) / (alpha - 1),
   "Renyi 1961 (two Bernoullis)",
   "d_alpha(p||q) = D_alpha(Bern(p) || Bern(q)); stable near p = q: S - 1 = q expm1(alpha log(p/q)) + (1-q) "
   "expm1(alpha log((1-p)/(1-q))) and log1p(S - 1) while |S - 1| < 1/2, the log-sum-exp else",
   stable=sp.Piecewise((log1p(_sm1), sp.Abs(_sm1) < H), (_direct, True)) / (alpha - 1),
   alpha=(1.01, 50))
# the first argument on [0, 1] (tau of the table: 0 log 0 = 0 at both ends), the second on (0, 1)
_q("binary_kl", (tau, q), tau * sp.log(tau / q) + (1 - tau) * sp.log((1 - tau) / (1 - q)),
   "Kullback and Leibler 1951", "d(tau||q) = KL(Bern(tau) || Bern(q)) with 0 log 0 = 0",
   stable=(sp.Piecewise((tau * (sp.log(tau) - sp.log(q)), tau > 0), (0, True))
           + sp.Piecewise(((1 - tau) * (log1p(-tau) - log1p(-q)), tau < 1), (0, True))), tau=(1e-9, 1 - 1e-9))

# ============================================================================ Edgeworth and Cornish-Fisher
_s = sp.sqrt(kappa2)
_c2, _c3, _c5 = kappa3 / (6 * _s ** 3), kappa4 / (24 * _s ** 4), kappa3 ** 2 / (72 * _s ** 6)
_He = {k_: sp.expand(sp.hermite_prob(k_, h)) for k_ in range(7)}
_phi_h = sp.exp(-h ** 2 / 2) / sp.sqrt(2 * sp.pi)
EDGEWORTH = "Edgeworth expansion (Hall 1992, Sec. 2.2); Zheng, Dong, Long, Su 2020, eqs. (3.7)-(3.9)"
_q("edgeworth_c2", (kappa2, kappa3), _c2, EDGEWORTH, "the coefficient k3/(6 s^3) of He_2 phi (s^2 = k2)")
_q("edgeworth_c3", (kappa2, kappa4), _c3, EDGEWORTH, "the coefficient k4/(24 s^4) of He_3 phi")
_q("edgeworth_c5", (kappa2, kappa3), _c5, EDGEWORTH, "the coefficient k3^2/(72 s^6) of He_5 phi")
_ew = Phi(h) - _phi_h * (_c2 * _He[2] + _c3 * _He[3] + _c5 * _He[5])
_q("edgeworth_cdf", (h, kappa2, kappa3, kappa4), _ew, EDGEWORTH,
   "the degree-2 Edgeworth approximation of the CDF of a standardised sum with cumulants k2, k3, k4")
_q("edgeworth_pdf", (h, kappa2, kappa3, kappa4), sp.diff(_ew, h), EDGEWORTH,
   "the derivative in h of the degree-2 Edgeworth CDF (sympy.diff of its definition)")
_q("cornish_fisher", (z, kappa2, kappa3, kappa4),
   z + kappa3 / (6 * _s ** 3) * _He[2].subs(h, z) + kappa4 / (24 * _s ** 4) * _He[3].subs(h, z)
   - kappa3 ** 2 / (36 * _s ** 6) * (2 * _He[3].subs(h, z) + z), EDGEWORTH,
   "the Cornish-Fisher expansion of the quantile: z + s^-3 k3 He_2(z)/6 + s^-4 k4 He_3(z)/24 - "
   "s^-6 k3^2 (2 He_3(z) + z)/36")
_q("clt_sgd_mu", (sigma, p, T), p * sp.sqrt(T * (sp.exp(1 / sigma ** 2) - 1)),
   "Bu, Dong, Long, Su 2020 (the CLT for noisy SGD)",
   "mu = p sqrt(T (e^{1/sigma^2} - 1)) of the Gaussian approximation to T steps of p-subsampled SGD",
   stable=p * sp.sqrt(T * expm1(1 / sigma ** 2)))


# ============================================================================ the optimal conversion's pieces
@functools.lru_cache(maxsize=None)
def conversion_pieces():
    """The SymPy-derived pieces of d/du log(objective) of the optimal conversion (``conversion_objective``
    at p = delta + u, split into its two terms, each taken to log space).

    Returns ``(exprs, args)``: ``exprs`` maps ``dA, d2A, dB, d2B`` (first/second u-derivatives of the
    log-terms), ``dB_deps`` (d L_B / d eps at fixed u), ``dA_ddelta``, ``dB_ddelta`` (functions of
    (alpha, W, delta, u) with W = e^-eps) and ``LA, LB`` (the log terms, functions of
    (alpha, eps, delta, u)) to expressions; ``args`` maps each name to its argument symbols."""
    expr = QUANTITIES["conversion_objective"].expr
    obj_u = expr.subs(p, delta + u)
    terms = sp.Add.make_args(sp.expand(obj_u, power_base=False, power_exp=False, mul=False,
                                       multinomial=False, log=False))
    if len(terms) != 2:
        raise RuntimeError(f"conversion_objective: expected two terms, got {len(terms)}: {obj_u}")
    logs = [sp.expand_log(sp.log(t_), force=True) for t_ in terms]
    if logs[0].has(sp.exp(eps)):          # L_B is the term carrying e^eps
        logs = logs[::-1]
    LA, LB = logs
    if LA.has(eps) or not LB.has(eps):
        raise RuntimeError("conversion_objective: could not identify the two terms")

    def stable(e):
        """rewrite e^eps through W = e^-eps and cancel: finite as eps grows."""
        return sp.factor(sp.cancel(sp.together(e.subs(sp.exp(eps), 1 / W))))

    exprs = dict(
        dA=sp.factor(sp.together(sp.diff(LA, u))), d2A=sp.factor(sp.together(sp.diff(LA, u, 2))),
        dB=stable(sp.diff(LB, u)), d2B=stable(sp.diff(LB, u, 2)), dB_deps=stable(sp.diff(LB, eps)),
        dA_ddelta=sp.together(sp.diff(LA, delta)), dB_ddelta=stable(sp.diff(LB, delta)),
        LA=LA, LB=LB)
    a4, e4 = (alpha, W, delta, u), (alpha, eps, delta, u)
    args = {k_: (e4 if k_ in ("LA", "LB") else a4) for k_ in exprs}
    return exprs, args


__all__ = ["Quantity", "QUANTITIES", "quantity", "conversion_pieces"]
