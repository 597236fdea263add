"""The library of truths against independent computations: brute force over events,
product enumeration, closed forms computed here, and quadrature."""
import itertools
import random

import mpmath as mp
import pytest

from derive import truths as T


def test_pmf_hockey_equals_sup_over_events():
    rng = random.Random(1)
    with mp.workdps(40):
        for _ in range(20):
            k = rng.randint(2, 6)
            pr = T.DPair(T.random_pmf(rng, k), T.random_pmf(rng, k))
            lam = mp.mpf(rng.uniform(0.2, 4))
            assert abs(pr.hockey(lam) - pr.E(lam)) < mp.mpf(10) ** -35


@pytest.mark.parametrize("mu, e", [(0.5, 0.0), (1.0, 1.0), (3.0, 2.5), (4.22, 40.0)])
def test_gaussian_profile_matches_balle_wang_closed_form(mu, e):
    with mp.workdps(40):
        mu, e = mp.mpf(mu), mp.mpf(e)
        closed = mp.ncdf(-e / mu + mu / 2) - mp.e ** e * mp.ncdf(-e / mu - mu / 2)
        got = T.delta_of_eps(T.gaussian_mechanism(mu), e)
        assert abs(got - closed) <= mp.mpf(10) ** -30 * closed


def test_laplace_and_subsampled_hockey_by_quadrature():
    with mp.workdps(30):
        for pr in (T.laplace_pair(mp.mpf("0.7")), T.subsampled_gaussian_pair(mp.mpf("0.05"), mp.mpf("0.9"))):
            for lam in (mp.mpf("1.1"), mp.mpf("1.6")):
                for side in (pr, pr.swapped()):
                    assert abs(side.hockey(lam) - side.E(lam)) < mp.mpf(10) ** -18


def test_composition_of_pmfs_equals_product_enumeration():
    rng = random.Random(3)
    with mp.workdps(30):
        P, Q = T.random_pmf(rng, 3), T.random_pmf(rng, 3)
        c = T.compose(T.DPair(P, Q), 3)
        lam = mp.mpf("1.7")
        brute = mp.fsum(max(mp.fprod(P[i] for i in idx) - lam * mp.fprod(Q[i] for i in idx), 0)
                        for idx in itertools.product(range(3), repeat=3))
        assert abs(c.hockey(lam) - brute) < mp.mpf(10) ** -20


def test_composed_gaussian_renyi_is_additive_by_quadrature():
    with mp.workdps(25):
        one = T.gaussian_mechanism(mp.mpf("0.8"))
        a = mp.mpf("3.5")
        assert abs(T.compose(one, 5).renyi(a) - 5 * one.renyi(a)) < mp.mpf(10) ** -15


def test_renyi_quadrature_far_from_the_origin():
    """alpha mu large: the integrand's bump sits far from the fixed break points."""
    with mp.workdps(30):
        pr = T.gaussian_mechanism(mp.mpf(40))
        a = mp.mpf(50)
        assert abs(T._renyi_checked(pr, a) - a * 40 ** 2 / 2) < mp.mpf(10) ** -15 * a * 800


def test_eps_of_delta_inverts_the_profile():
    pr = T.gaussian_mechanism(mp.mpf("1.3"))
    d = mp.mpf("1e-6")
    e = T.eps_of_delta(pr, d)
    assert T.delta_of_eps(pr, e) <= d < T.delta_of_eps(pr, e * (1 - mp.mpf(10) ** -12))


def test_optimal_conversion_round_trip_and_brute_force():
    a, g, d = mp.mpf("2.5"), mp.mpf("0.3"), mp.mpf("1e-6")
    e = T.eps_exact(a, g, d)
    assert T.gamma_exact(a, e, d) >= g > T.gamma_exact(a, e * (1 - mp.mpf(10) ** -12), d)
    de = T.delta_exact(a, g, e)
    assert abs(de - d) < mp.mpf(10) ** -12 * d
    # the 1-D optimum against the two-parameter brute force of the Bernoulli program
    assert abs(T.gamma_exact(2, 1, mp.mpf("0.01")) - T.gamma_bruteforce(2, 1, mp.mpf("0.01"))) < 1e-8


def test_quadrature_truth_refuses_a_poor_estimate():
    pr = T.gaussian_mechanism(mp.mpf(1))
    with pytest.raises(ValueError, match="quadrature"):
        pr.quad_checked(lambda x: 1 / abs(x - mp.mpf("0.3")) ** mp.mpf("0.9"))


def test_gaussian_pair_with_a_negative_shift_mirrors_the_positive_one():
    """N(0,1) vs N(-mu,1) is the mirror image of N(0,1) vs N(mu,1): the same trade-off curve,
    hockey-stick and Renyi divergences (the likelihood ratio then increases in x)."""
    import mpmath as mp
    from derive import truths as T
    neg, pos = T.gaussian_mechanism(-1), T.gaussian_mechanism(1)
    with mp.workdps(30):
        for tau in ("0.01", "0.3", "0.9"):
            ref = mp.ncdf(mp.sqrt(2) * mp.erfinv(2 * (1 - mp.mpf(tau)) - 1) - 1)   # G_1(tau)
            assert abs(neg.tradeoff(mp.mpf(tau)) - ref) < 1e-20
            assert abs(pos.tradeoff(mp.mpf(tau)) - ref) < 1e-20
        assert abs(neg.hockey(mp.e) - pos.hockey(mp.e)) < 1e-20


def test_gamma_exact_finds_minimisers_next_to_delta_and_at_zero():
    """002 eq. (20) at delta = 1e-300 (minimiser at p ~ alpha delta) and at delta = 0 (infimum
    at p -> 0+, where the objective tends to e^{-(alpha-1) eps}, so gamma = 0): a search over p
    on a grid cannot see either."""
    import mpmath as mp
    from derive import truths as T
    from numeric.fastconv import gamma_exact_scalar
    with mp.workdps(30):
        g = T.gamma_exact(mp.mpf("1.5"), mp.mpf("1429.64"), mp.mpf("1e-300"))
        assert abs(g - mp.mpf(gamma_exact_scalar(1.5, 1429.64, 1e-300))) < 1e-9
        assert abs(T.gamma_exact(1000, 20, 0)) < 1e-20
        assert abs(T.gamma_exact(3, 1, 0)) < 1e-20


def test_likelihood_ratio_masses_against_the_gaussian_closed_form():
    """P = N(0,1), Q = N(1,1): log dP/dQ = 1/2 - x, so {dP/dQ <= lam} = {x >= 1/2 - log lam};
    the CDF and the tail add up to 1 (no atoms), in both orientations of the pair."""
    import mpmath as mp
    from derive import truths as T
    pr = T.gaussian_mechanism(1)
    cdf, cdfq = T.QUANTITIES["LikelihoodRatioCdf"][0], T.QUANTITIES["LikelihoodRatioCdfQ"][0]
    tail = T.QUANTITIES["LikelihoodRatioTail"][0]
    with mp.workdps(30):
        for lam in (mp.mpf("0.3"), mp.mpf(1), mp.mpf(5)):
            x = mp.mpf(1) / 2 - mp.log(lam)
            assert abs(cdf(pr, lam) - (1 - mp.ncdf(x))) < 1e-25
            assert abs(cdfq(pr, lam) - (1 - mp.ncdf(x - 1))) < 1e-25
            for p in (pr, pr.swapped()):
                assert abs(cdf(p, lam) + tail(p, lam) - 1) < 1e-25


def test_shared_hockey_helpers_agree_and_keep_their_number_type():
    """derive.truths.hockey (sum of positive parts) equals hockey_events (brute force over events) on
    random pmfs; Fractions stay exact, mpf inputs give an mpf even when every term is 0 (a Fraction 0
    there made max(mpf, Fraction) raise in ghazi_issa's dp_delta)."""
    import random as _r
    from fractions import Fraction
    from derive import truths as T
    rng = _r.Random(13)
    for _ in range(20):
        P, Q = T.random_pmf(rng, 4), T.random_pmf(rng, 4)
        g = mp.mpf(rng.uniform(0.5, 3))
        assert abs(T.hockey(P, Q, g) - T.hockey_events(P, Q, g)) < mp.mpf(10) ** -15
    z = T.hockey([mp.mpf("0.2"), mp.mpf("0.8")], [mp.mpf("0.5"), mp.mpf("0.5")], mp.mpf(100))
    assert isinstance(z, mp.mpf) and z == 0 and max(z, mp.mpf(0)) == 0
    P, Q = [Fraction(1, 3), Fraction(2, 3)], [Fraction(1, 2), Fraction(1, 2)]
    assert T.hockey(P, Q, 1) == T.hockey_events(P, Q, 1) == Fraction(1, 6)
    assert T.kfold(P, 2) == T.product(P, P) == [Fraction(1, 9), Fraction(2, 9), Fraction(2, 9), Fraction(4, 9)]


@pytest.mark.parametrize("m, b, a", [(1, 1, 2), (1, 2.578, 1.0001), (0.5, 0.3, 7), (2, 5, 0.5),
                                     (1, 0.1, 30), (3, 1, 0.01)])
def test_laplace_renyi_exact_piecewise_integral(m, b, a):
    """Renyi of a Laplace pair is the finite sum of exponential integrals over the pieces between the
    kinks 0 and m (``CPair.tilted_integral``): it agrees with tanh-sinh quadrature of the tilted
    density and with Mironov's closed form (2017, Prop. 6) at 30 digits, for the pair and its swap."""
    with mp.workdps(30):
        pr = T.laplace_pair(m, b)
        a_, m_, b_ = mp.mpf(a), mp.mpf(m), mp.mpf(b)
        exact = T._renyi_checked(pr, a)
        quad = mp.log(mp.quad(pr.tilted(a_), [-mp.inf, -30 * b_, 0, m_, m_ + 30 * b_, mp.inf])) / (a_ - 1)
        assert abs(exact - quad) <= mp.mpf(10) ** -24 * abs(quad)
        if a != 0.5:
            closed = mp.log(a_ / (2 * a_ - 1) * mp.e ** ((a_ - 1) * m_ / b_)
                            + (a_ - 1) / (2 * a_ - 1) * mp.e ** (-a_ * m_ / b_)) / (a_ - 1)
            assert abs(exact - closed) <= mp.mpf(10) ** -26 * abs(closed)
        assert abs(T._renyi_checked(pr.swapped(), a) - exact) <= mp.mpf(10) ** -26 * abs(exact)
        assert not T.gaussian_pair(1).loglinear        # quadrature elsewhere
