"""The library of independent truths: DP quantities computed from their
definitions in mpmath, shared by every paper, by claim files and by the tests.

Nothing here is taken from any paper's results.  Divergences are sums or
quadratures of their defining integrals, hockey-stick divergences are read off
the CDFs at the likelihood-ratio crossing (the definition's sup over events
for a monotone ratio), trade-off curves come from Neyman-Pearson threshold
tests or, for pmfs, from the lower convex hull of every deterministic test,
and the optimal RDP-to-DP conversion minimises the Bernoulli program by a
1-D search (checked against the two-parameter brute force by a test).

Two kinds of test pairs (P, Q) (H0: X ~ P, H1: X ~ Q; type I error tau = P(reject),
type II error beta = Q(accept)):

* ``DPair``: pmfs on a finite set.  The trade-off curve is computed by brute force
  over tests; divergences are finite sums of their definitions.
* ``CPair``: densities on the line whose likelihood ratio p/q is monotone in x (Gaussian,
  Laplace, exponential, uniform, the Poisson-subsampled Gaussian of noisy SGD).

A "mechanism" is a list of pairs closed under swapping (neighbouring is symmetric).

One module per family: ``pmf`` (finite pairs), ``continuous`` (densities on the line),
``mechanisms``, ``profiles`` (quantities of a pair), ``loss`` (the privacy-loss variable),
``conversion`` (the optimal RDP -> DP conversion) and ``names``, where ``QUANTITIES`` and
``PAIRS`` name what a claim file may reference (``Renyi(Gaussian(mu), alpha)``) and
``describe()`` says what each computes and at what precision.  Every name is re-exported here.
"""
from __future__ import annotations

#: working digits of the pair-based property checks (the papers' custom checks and truths_curves)
DPS = 20

from .pmf import (  # noqa: F401
    d_alpha, d_kl, hockey, hockey_events, product, kfold, lower_hull, symmetrised_pair, tradeoff_np,
    DPair, random_pmf, randomized_response, eps_delta_pair, bernoulli_pair, pmf_pair, discrete_pair,
    staircase_pair)
from .continuous import (  # noqa: F401
    CPair, nquantile, gaussian_pair, laplace_pair, exponential_pair, uniform_pair,
    subsampled_gaussian_pair, curve_point, sup_over_curve, gaussian_mechanism, _gauss_mu)
from .mechanisms import (  # noqa: F401
    Mechanism, symmetric, random_mechanism, dp_delta_from_region, conjugate_delta)
from .profiles import (  # noqa: F401
    gauss_delta, delta_of_eps, eps_of_delta, compose, tv, max_divergence, chi_alpha,
    tradeoff_over_tests, tradeoff_inverse, tradeoff_conjugate, likelihood_ratio_cdf,
    likelihood_ratio_tail, tradeoff_area)
from .loss import (  # noqa: F401
    laplace_cumulants_quad, mixture_llr, mixture_cumulants_quad, subsampled_shift_renyi, sgm_renyi_quad)
from .conversion import (  # noqa: F401
    WORK_DPS, h1, gamma_exact, gamma_bruteforce, eps_exact, delta_exact)
from .names import (  # noqa: F401
    PAIRS, QUANTITIES, CONVENTIONS, ACCURACY, accuracy_of, convention_of, _renyi_checked, _kl_checked,
    TRUTH_RTOL, namespace, describe)
