"""Symbolic cumulant machinery (SymPy) for Edgeworth-type privacy accounting.

What is here and why:

* ``moments_to_cumulants`` / ``cumulants_to_moments``: the general conversion
  through incomplete Bell polynomials ``sympy.bell(r, k, xs)``,
  kappa_r = sum_k (-1)^(k-1) (k-1)! B_{r,k}(mu_1, ..., mu_{r-k+1}) and
  mu_r = sum_k B_{r,k}(kappa_1, ..., kappa_{r-k+1}) (Zheng et al. 2020, App. B).
  ``cumulants_from_cgf`` reads cumulants off a cumulant generating function by
  differentiation, an independent route used to test the conversion.
* ``laplace_llr_cumulants``: cumulants of the privacy loss
  L(x) = log q(x)/p(x) = |x| - |x - theta| of Lap(0,1) vs Lap(theta,1), in closed
  form under both P = Lap(0,1) and Q = Lap(theta,1) (Sec. 5.2 of the paper).  The
  MGF under P is elementary (L is bounded: atoms at -theta and +theta and a
  linear piece in between), and E_Q[e^{tL}] = E_P[e^{(t+1)L}].
* ``mixture_llr_cumulants``: cumulants of the privacy loss of N(0,1) vs the
  mixture p N(mu,1) + (1-p) N(0,1) (noisy SGD, Sec. 5.3 and App. C) as a power
  series in the sampling rate p with closed-form coefficients.  With
  W = e^{mu x - mu^2/2} - 1, L = log(1 + p W) = sum_m (-1)^(m+1) p^m W^m / m and
  E_{N(0,1)}[e^{j(mu x - mu^2/2)}] = e^{j(j-1) mu^2/2} gives every moment
  E_P[W^m]; under Q, E_Q[g] = E_P[(1 + p W) g].  Because E_P[W^m] grows like
  e^{m^2 mu^2/2} the series in p is asymptotic, not convergent: truncated at
  p^m its error is O(p^(m+1)) for fixed mu as p -> 0.  Its leading terms are the
  CLT constants of Bu et al.: Var_P[L] ~ p^2 (e^{mu^2} - 1) and
  E_Q[L] - E_P[L] ~ p^2 (e^{mu^2} - 1).

All functions return SymPy expressions built from Rationals (no floats), in the
symbols of ``derive.symbols`` (``p``, ``mu``) and ``THETA`` below.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

import sympy as sp
from sympy import QQ
from sympy.polys.rings import ring

from .core import DomainError
from .symbols import mu, p

THETA = sp.Symbol("theta", positive=True)   # Laplace shift
_t = sp.Symbol("t")
_w = sp.Symbol("w")


def _check_order(name: str, value: int, lo: int) -> None:
    if not isinstance(value, int) or value < lo:
        raise DomainError(name, value, f"integer >= {lo}")


# ----------------------------------------------------------------------------- Bell polynomials
def moments_to_cumulants(moments: Sequence) -> list:
    """[kappa_1, ..., kappa_r] from raw moments [mu_1, ..., mu_r] (App. B's Bell formula)."""
    m = [sp.sympify(x) for x in moments]
    out = []
    for r in range(1, len(m) + 1):
        out.append(sp.expand(sum((-1) ** (k - 1) * sp.factorial(k - 1) * sp.bell(r, k, m[:r - k + 1])
                                 for k in range(1, r + 1))))
    return out


def cumulants_to_moments(cumulants: Sequence) -> list:
    """[mu_1, ..., mu_r] from cumulants [kappa_1, ..., kappa_r]: mu_r = sum_k B_{r,k}(kappa)."""
    c = [sp.sympify(x) for x in cumulants]
    return [sp.expand(sum(sp.bell(r, k, c[:r - k + 1]) for k in range(1, r + 1)))
            for r in range(1, len(c) + 1)]


def cumulants_from_cgf(K: sp.Expr, t: sp.Symbol, kmax: int) -> list:
    """[K'(0), ..., K^(kmax)(0)]: the cumulants read off a cumulant generating function."""
    _check_order("kmax", kmax, 1)
    ser = sp.series(K, t, 0, kmax + 1).removeO()
    return [sp.simplify(ser.coeff(t, r) * sp.factorial(r)) for r in range(1, kmax + 1)]


# ----------------------------------------------------------------------------- Laplace
def laplace_llr_mgf(t: sp.Expr, theta: sp.Expr = THETA) -> sp.Expr:
    """E_P[e^{tL}] for L = |x| - |x - theta|, P = Lap(0,1), theta > 0.

    x < 0 (mass 1/2): L = -theta; x > theta (mass e^-theta/2): L = theta;
    0 < x < theta (density e^-x/2): L = 2x - theta."""
    return (sp.exp(-t * theta) / 2 + sp.exp((t - 1) * theta) / 2
            + (sp.exp((t - 1) * theta) - sp.exp(-t * theta)) / (2 * (2 * t - 1)))


@lru_cache(maxsize=None)
def laplace_llr_cumulants(kmax: int, under: str = "P") -> tuple:
    """(kappa_1, ..., kappa_kmax) of L = log q/p for Lap(0,1) vs Lap(theta,1) under P or Q,
    closed form in ``THETA``.  Under Q: K_Q(t) = K_P(t + 1)."""
    _check_order("kmax", kmax, 1)
    if under not in ("P", "Q"):
        raise DomainError("under", under, "'P' or 'Q'")
    shift = 0 if under == "P" else 1
    K = sp.log(laplace_llr_mgf(_t + shift))
    out = []
    d = K
    for r in range(1, kmax + 1):
        d = sp.diff(d, _t)
        out.append(sp.expand(sp.powsimp(sp.expand(d.subs(_t, 0)))))
    return tuple(out)


# ----------------------------------------------------------------------------- Gaussian mixture
def mixture_W_moment(m: int, mu_: sp.Expr = mu) -> sp.Expr:
    """E_{N(0,1)}[W^m], W = e^{mu x - mu^2/2} - 1, by the binomial theorem and
    E[e^{j(mu x - mu^2/2)}] = e^{j(j-1)mu^2/2}."""
    return sum(sp.binomial(m, j) * (-1) ** (m - j) * sp.exp(sp.Rational(j * (j - 1), 2) * mu_ ** 2)
               for j in range(m + 1))


_RING, _RP, _RW, _RE = ring("p,w,E", QQ)   # exact polynomial arithmetic in (p, W, e^{mu^2})


def _truncate(poly, order: int):
    """Drop the monomials of degree > order in p (first generator of ``_RING``)."""
    return _RING({mon: c for mon, c in poly.items() if mon[0] <= order})


def _expect_W(poly):
    """Replace W^j by E_P[W^j] (a polynomial in E = e^{mu^2})."""
    out = _RING(0)
    for (a, j, b), c in poly.items():
        out += c * _RP ** a * _RE ** b * sum(int(sp.binomial(j, i)) * (-1) ** (j - i) * _RE ** (i * (i - 1) // 2)
                                           for i in range(j + 1))
    return out


@lru_cache(maxsize=None)
def _mixture_moments_ring(order_p: int, kmax: int, under: str) -> tuple:
    _check_order("order_p", order_p, 1)
    _check_order("kmax", kmax, 1)
    if under not in ("P", "Q"):
        raise DomainError("under", under, "'P' or 'Q'")
    L = sum((QQ((-1) ** (m + 1), m) * _RP ** m * _RW ** m for m in range(1, order_p + 1)), _RING(0))
    weight = _RING(1) if under == "P" else 1 + _RP * _RW
    out, Lk = [], _RING(1)
    for _ in range(kmax):
        Lk = _truncate(Lk * L, order_p)
        out.append(_expect_W(_truncate(weight * Lk, order_p)))
    return tuple(out)


def _to_expr(poly) -> sp.Expr:
    return sp.collect(sp.expand(poly.as_expr().subs({sp.Symbol("E"): sp.exp(mu ** 2),
                                                      sp.Symbol("p"): p})), p)


@lru_cache(maxsize=None)
def mixture_llr_moments(order_p: int, kmax: int, under: str = "P") -> tuple:
    """(E[L], ..., E[L^kmax]) for N(0,1) vs p N(mu,1) + (1-p) N(0,1), as polynomials in p
    truncated after p^order_p (asymptotic expansion as p -> 0)."""
    return tuple(_to_expr(m) for m in _mixture_moments_ring(order_p, kmax, under))


@lru_cache(maxsize=None)
def mixture_llr_cumulants(order_p: int, kmax: int, under: str = "P") -> tuple:
    """(kappa_1, ..., kappa_kmax) of L = log q/p for P = N(0,1), Q = p N(mu,1) + (1-p) N(0,1),
    under P or Q, as polynomials in p truncated after p^order_p (closed-form coefficients
    in e^{j mu^2}).  Asymptotic, not convergent: see the module docstring."""
    m = _mixture_moments_ring(order_p, kmax, under)
    out = []
    for r in range(1, kmax + 1):   # the Bell formula of moments_to_cumulants, in the ring
        k = sum(((-1) ** (j - 1) * math.factorial(j - 1) * _bell_ring(r, j, m) for j in range(1, r + 1)),
                _RING(0))
        out.append(_to_expr(_truncate(k, order_p)))
    return tuple(out)


def _bell_ring(n: int, k: int, xs) -> object:
    """Incomplete Bell polynomial B_{n,k}(xs) evaluated in ``_RING`` (same recursion as sympy.bell:
    B_{n,k} = sum_{i=1}^{n-k+1} C(n-1, i-1) x_i B_{n-i,k-1})."""
    if n == 0 and k == 0:
        return _RING(1)
    if n == 0 or k == 0:
        return _RING(0)
    return sum((int(sp.binomial(n - 1, i - 1)) * xs[i - 1] * _bell_ring(n - i, k - 1, xs)
                for i in range(1, n - k + 2)), _RING(0))
