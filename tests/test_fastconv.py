"""The single-query exact conversion (numeric.fastconv) and the accountant's one-query search.

References: derive.truths.eps_exact (mpmath bisection on the exact gamma of 002 eq. (20),
30 digits), the vectorised solver numeric.conversion.eps_exact, and brute-force minima
over dense grids of orders."""
import math
import random

import mpmath as mp
import numpy as np
import pytest

from derive import truths as TR
from derive.errors import DomainError
from numeric import accountant as A
from numeric import conversion as C
from numeric import rdp as R
from numeric.fastconv import eps_exact_scalar, eps_solve, gamma_exact_scalar


def _points(n, seed):
    rng = random.Random(seed)
    out = [(1.0001, 0.5, 1e-5), (2.0, 1e-9, 0.3), (1e4, 1e-3, 1e-12), (3.2, 4.0, 1e-5),
           (1.5, 50.0, 1e-300), (5598.023256272023, 1.498379894608838e-07, 2.012565067804644e-06)]
    while len(out) < n:
        a = 1 + 10 ** rng.uniform(-3, 4)
        d = 10 ** rng.uniform(-12, -0.5)
        g = 10 ** rng.uniform(-6, 2)
        if a * d < 1:
            out.append((a, g, d))
    return out


@pytest.mark.parametrize("a,g,d", _points(24, 3))
def test_scalar_conversion_is_sound_and_tight_against_mpmath(a, g, d):
    with mp.workdps(30):
        truth = TR.eps_exact(mp.mpf(a), mp.mpf(g), mp.mpf(d), tol_digits=22)
    got = eps_exact_scalar(a, g, d)
    if truth == 0:
        assert got == 0
        return
    assert got >= truth, (got, truth)                     # never below the truth
    assert got <= truth * (1 + 1e-8) + 1e-300, (got, truth)


def test_scalar_conversion_agrees_with_the_vectorised_solver():
    pts = _points(400, 11)
    a, g, d = (np.array(x) for x in zip(*pts))
    vec = C.eps_exact(a, g, d)
    sca = np.array([eps_exact_scalar(*p) for p in pts])
    nz = vec > 0
    assert np.array_equal(vec > 0, sca > 0)
    assert np.max(np.abs(sca[nz] - vec[nz]) / vec[nz]) < 1e-9


def test_scalar_gamma_matches_the_vectorised_gamma():
    for a, e, d in [(1.5, 0.3, 1e-5), (40.0, 2.0, 1e-9), (1.01, 10.0, 0.01)]:
        assert gamma_exact_scalar(a, e, d) == pytest.approx(float(C.gamma_exact(a, e, d)), rel=1e-12)


def test_closed_cases_and_domain():
    assert eps_exact_scalar(3.0, 0.0, 1e-5) == 0.0
    # alpha delta >= 1: eq. (24), (gamma + log(1 - delta))_+
    assert eps_exact_scalar(4.0, 1.0, 0.5) == pytest.approx(1.0 + math.log(0.5), rel=1e-12)
    assert eps_exact_scalar(4.0, 0.1, 0.5) == 0.0
    with pytest.raises(DomainError, match="alpha"):
        eps_exact_scalar(0.5, 1.0, 1e-5)
    with pytest.raises(DomainError, match="delta"):
        eps_exact_scalar(2.0, 1.0, 1.5)


def test_envelope_derivatives_match_finite_differences():
    """dH/dalpha and dH/deps returned by eps_solve, with H = (alpha-1) gamma_alpha^eps(delta),
    against central differences of the scalar gamma."""
    a, g, d = 3.5, 2.0, 1e-6
    eps, warm, dhda, dhde = eps_solve(a, g, d)
    e = warm[0]
    H = lambda al, ee: (al - 1.0) * gamma_exact_scalar(al, ee, d)  # noqa: E731
    h = 1e-5
    assert dhda == pytest.approx((H(a + h, e) - H(a - h, e)) / (2 * h), rel=1e-5)
    assert dhde == pytest.approx((H(a, e + h) - H(a, e - h)) / (2 * h), rel=1e-5)


@pytest.mark.parametrize("rho,d", [(1.25, 1e-5), (0.5, 1e-5), (20.0, 1e-10), (1e-4, 1e-6), (2e3, 1e-5)])
def test_linear_search_reaches_the_brute_force_optimum(rho, d):
    e, a = A._epsilon_linear(rho, d, 1e6)
    grid = 1 + np.geomspace(1e-4, 1e5, 2500)
    bf = min(eps_exact_scalar(x, rho * x, d) for x in grid)
    assert e <= bf * (1 + 1e-9)                          # at least as tight as a dense grid
    # the guarantee at its order (a warm-started solve may differ from a cold one in the last
    # digits, both above the truth by the rounding margin)
    assert e == pytest.approx(eps_exact_scalar(a, rho * a, d), rel=1e-12)
    with mp.workdps(30):
        assert e >= TR.eps_exact(mp.mpf(a), mp.mpf(rho) * mp.mpf(a), mp.mpf(d), tol_digits=22)


@pytest.mark.parametrize("q,s,T", [(1e-3, 4.0, 1000), (256 / 60000, 1.1, 14063), (1e-3, 1.0, 1e7),
                                   (0.05, 0.8, 50)])
def test_one_query_search_is_no_looser_than_the_vectorised_search(q, s, T):
    curve = R.SubsampledGaussian(q, s)
    e1, a1 = A._epsilon_one(curve, float(T), 1e-5)
    e_vec, _ = A.epsilon_many(curve, [T, T], 1e-5)     # m = 2: the vectorised zoom search
    assert e1 <= e_vec[0] * (1 + 1e-6)
    # the reported order gives the reported value
    assert e1 == pytest.approx(eps_exact_scalar(a1, float(T * curve(np.array([a1]))[0]), 1e-5), rel=1e-12)


def test_batched_integer_orders_match_one_at_a_time():
    q, s = 0.01, 1.3
    orders = np.array([2.0, 7.0, 3.0, 64.0, 7.0, 500.0])
    batch = R.log_a_integer(orders, q, s)
    for n, v in zip(orders, batch):
        with mp.workdps(40):
            ref = mp.log(mp.fsum(mp.binomial(int(n), k) * mp.mpf(q) ** k * (1 - mp.mpf(q)) ** (int(n) - k)
                                 * mp.exp(mp.mpf(k * k - k) / (2 * mp.mpf(s) ** 2)) for k in range(int(n) + 1)))
        assert v == pytest.approx(float(ref), rel=1e-12)


def test_scalar_lemma1_bound_equals_the_registered_eq25():
    """fastconv.eps_asoodeh_small_delta_scalar against 002 eq. (25) as registered (asoodeh2021.lemma1.eq25),
    evaluated by SymPy at 30 digits, ends of the range included."""
    import sympy as sp

    from derive import registry
    from derive.symbols import alpha, delta, gamma
    from numeric.fastconv import eps_asoodeh_small_delta_scalar
    registry.load_all()
    f = registry.formula("asoodeh2021.lemma1.eq25").expr
    for a, g, d in [(1.0001, 0.01, 1e-5), (2.0, 1.0, 0.3), (40.0, 1e-6, 1e-12), (3.0, 50.0, 1e-300),
                    (1.5, 2.0, 0.6)]:
        ref = sp.N(f.subs({alpha: sp.Float(a, 30), gamma: sp.Float(g, 30), delta: sp.Float(d, 30)}), 30)
        assert eps_asoodeh_small_delta_scalar(a, g, d) == pytest.approx(float(ref), rel=1e-12)
