"""Published bounds from papers outside the seed set, written once in mpmath from the theorem
statements, so that the numeric kernels implementing them can be tied to an independent
definition (tests/test_kernel_ties.py).

These are *bounds*, not truths: each kernel is held equal to the function here (the same
published formula, computed differently: exact binomials, mpmath at 30+ digits, no log-space
tricks), and, separately, held above the true Renyi divergence of a subsampled pair computed by
quadrature (``derive.truths.subsampled_shift_renyi``): soundness.

* ``zhu_wang_poisson_rdp``: Y. Zhu and Y.-X. Wang, "Poisson subsampled Renyi differential privacy",
  ICML 2019, Theorem 6 (the general upper bound for Poisson subsampling, add/remove neighbours).
* ``wbk_without_replacement_rdp``: Y.-X. Wang, B. Balle, S. Kasiviswanathan, "Subsampled Renyi
  differential privacy and analytical moments accountant", AISTATS 2019, Theorem 9 (subsampling
  without replacement, replace-one neighbours).

``eps`` is the base mechanism's RDP curve l -> eps(l) (mpmath values at integer l >= 2).
"""
from __future__ import annotations

from typing import Callable

import mpmath as mp


def _order(alpha) -> int:
    a = int(alpha)
    if a != alpha or a < 2:
        raise ValueError(f"alpha={alpha} is outside the allowed range: integers >= 2")
    return a


def _rate(g):
    g = mp.mpf(g)
    if not 0 < g <= 1:
        raise ValueError(f"rate={g} is outside the allowed range: (0, 1]")
    return g


def zhu_wang_poisson_rdp(alpha, g, eps: Callable) -> mp.mpf:
    """Zhu and Wang 2019, Theorem 6: for integer alpha >= 2 the Poisson-subsampled (rate g) mechanism
    is (alpha, eps'(alpha))-RDP with

      eps'(alpha) <= log{ (1-g)^(alpha-1) (alpha g - g + 1) + C(alpha, 2) g^2 (1-g)^(alpha-2) e^(eps(2))
                          + 3 sum_{l=3}^{alpha} C(alpha, l) (1-g)^(alpha-l) g^l e^((l-1) eps(l)) } / (alpha - 1)."""
    a, g = _order(alpha), _rate(g)
    s = ((1 - g) ** (a - 1) * (a * g - g + 1)
         + mp.binomial(a, 2) * g ** 2 * (1 - g) ** (a - 2) * mp.e ** eps(2)
         + 3 * mp.fsum(mp.binomial(a, l) * (1 - g) ** (a - l) * g ** l * mp.e ** ((l - 1) * eps(l))
                       for l in range(3, a + 1)))
    return mp.log(s) / (a - 1)


def wbk_without_replacement_rdp(alpha, g, eps: Callable, eps_inf=mp.inf) -> mp.mpf:
    """Wang, Balle and Kasiviswanathan 2019, Theorem 9: for integer alpha >= 2 the mechanism run on a
    subsample drawn without replacement (ratio g = m/n) is (alpha, eps'(alpha))-RDP with

      eps'(alpha) <= log( 1 + g^2 C(alpha, 2) min{ 4 (e^(eps(2)) - 1), e^(eps(2)) min{2, (e^(eps(oo)) - 1)^2} }
                          + sum_{j=3}^{alpha} g^j C(alpha, j) e^((j-1) eps(j)) min{2, (e^(eps(oo)) - 1)^j} ) / (alpha - 1),

    eps(oo) the base mechanism's pure-DP level (oo when it has none: the caps are then 2)."""
    a, g = _order(alpha), _rate(g)

    def cap(j):
        return mp.mpf(2) if eps_inf == mp.inf else min(mp.mpf(2), mp.expm1(mp.mpf(eps_inf)) ** j)
    e2 = eps(2)
    t2 = g ** 2 * mp.binomial(a, 2) * min(4 * mp.expm1(e2), mp.e ** e2 * cap(2))
    tj = mp.fsum(g ** j * mp.binomial(a, j) * mp.e ** ((j - 1) * eps(j)) * cap(j) for j in range(3, a + 1))
    return mp.log(1 + t2 + tj) / (a - 1)
