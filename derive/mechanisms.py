"""SymPy definitions of the RDP curves of standard mechanisms, each once, with its source.

These are the definitions the accountant's fast kernels in ``numeric/rdp.py`` implement
(log space, vectorised, chunked series); ``tests/test_mechanism_definitions.py`` holds each
kernel equal to its definition over the domain, extremes included.  They are library
definitions, not any seed paper's formula (the seeds cite them).

* ``gaussian_rdp``: alpha Delta^2/(2 sigma^2) (Mironov 2017, Prop. 7; Asoodeh et al. 2021, eq. (28)).
* ``laplace_rdp``: Mironov 2017, Prop. 6, scale b, sensitivity Delta (lambda = b/Delta).
* ``rr_rdp``: binary randomized response with p = e^eps/(1+e^eps) (Mironov 2017, Prop. 5).
* ``sgm_moment_integral``: A_alpha of the Poisson-subsampled Gaussian, the defining integral
  E_{x ~ N(0, s^2)}[((1-q) + q e^{(2x-1)/(2 s^2)})^alpha], s = sigma/Delta (Mironov, Talwar,
  Zhang 2019, Sec. 3.3), for every real alpha > 1;
* ``sgm_moment_binomial``: its binomial expansion for integer alpha,
  sum_k C(alpha, k) q^k (1-q)^(alpha-k) e^{(k^2-k)/(2 s^2)} (same source);
* ``sgm_rdp``: log A_alpha/(alpha - 1).
"""
from __future__ import annotations

import sympy as sp

from .symbols import alpha, b, eps, k, n, q, sigma, x   # the library's one symbol table

#: Mironov 2017 Prop. 7 (Asoodeh et al. 2021, eq. (28)), unit sensitivity
gaussian_rdp = alpha / (2 * sigma ** 2)

#: Mironov 2017 Prop. 6, Laplace with scale b, unit sensitivity
laplace_rdp = sp.log(alpha / (2 * alpha - 1) * sp.exp((alpha - 1) / b)
                     + (alpha - 1) / (2 * alpha - 1) * sp.exp(-alpha / b)) / (alpha - 1)

_p = sp.exp(eps) / (1 + sp.exp(eps))
#: Mironov 2017 Prop. 5, binary randomized response
rr_rdp = sp.log(_p ** alpha * (1 - _p) ** (1 - alpha) + (1 - _p) ** alpha * _p ** (1 - alpha)) / (alpha - 1)

#: Mironov-Talwar-Zhang 2019 Sec. 3.3: the defining integral of A_alpha (unit sensitivity)
sgm_moment_integral = sp.Integral(
    sp.exp(-x ** 2 / (2 * sigma ** 2)) / (sigma * sp.sqrt(2 * sp.pi))
    * ((1 - q) + q * sp.exp((2 * x - 1) / (2 * sigma ** 2))) ** alpha, (x, -sp.oo, sp.oo))

#: ... and its binomial expansion at integer alpha = n
sgm_moment_binomial = sp.Sum(sp.binomial(n, k) * q ** k * (1 - q) ** (n - k)
                             * sp.exp((k ** 2 - k) / (2 * sigma ** 2)), (k, 0, n))

#: the RDP curve gamma(alpha) = log A_alpha/(alpha - 1)
sgm_rdp = sp.log(sgm_moment_integral) / (alpha - 1)

CITATIONS = {
    "gaussian_rdp": "Mironov 2017, Prop. 7; Asoodeh et al. 2021, eq. (28)",
    "laplace_rdp": "Mironov 2017, Prop. 6",
    "rr_rdp": "Mironov 2017, Prop. 5",
    "sgm_moment_integral": "Mironov, Talwar, Zhang 2019, Sec. 3.3 (definition of A_alpha)",
    "sgm_moment_binomial": "Mironov, Talwar, Zhang 2019, Sec. 3.3 (integer alpha)",
    "sgm_rdp": "Mironov, Talwar, Zhang 2019, Sec. 3.3",
}
