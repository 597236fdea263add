"""The float paths of the truths (derive/truths_float.py, the checkers' screen) against the mpmath
truths of derive/truths/, pair by pair and quantity by quantity."""
import math

import mpmath as mp
import pytest
import sympy as sp

from derive import truths, truths_float as tf
from test_certify import PAIRS, QUANTITIES, _mp_value


@pytest.mark.parametrize("pair,pv", PAIRS, ids=[sp.sstr(p) for p, _ in PAIRS])
def test_float_truths_match_mpmath(pair, pv):
    n = 0
    for make, extra in QUANTITIES:
        q = make(pair)
        pt = {**pv, **extra}
        syms = sorted(q.free_symbols, key=lambda s: s.name)
        fn = sp.lambdify(syms, q, modules=[tf.namespace(), "scipy", "numpy"])
        try:
            fv = fn(*[float(pt[s.name]) for s in syms])
        except tf.NoFloatPath:
            continue
        v = _mp_value(q, pt)
        if not mp.isfinite(v):
            continue
        n += 1
        assert abs(fv - float(v)) <= 1e-11 * max(abs(float(v)), 1e-12), (q, pt, fv, v)
    assert n >= 5


@pytest.mark.parametrize("args", [(2.5, 0.3, 1e-5), (1.01, 2.0, 1e-3), (10, 0.001, 1e-18), (70, 2, 0.03)])
def test_float_optimal_conversion_matches_mpmath(args):
    with mp.workdps(30):
        want = truths.QUANTITIES["OptimalRdpEps"][0](*[mp.mpf(x) for x in args])
    assert math.isclose(tf.optimal_eps(*args), float(want), rel_tol=1e-10)


def test_float_optimal_delta_and_gamma_match_mpmath():
    a, g, e = 2.5, 0.3, 0.5
    with mp.workdps(30):
        d = truths.QUANTITIES["OptimalRdpDelta"][0](mp.mpf(a), mp.mpf(g), mp.mpf(e))
        gam = truths.QUANTITIES["OptimalRdpGamma"][0](mp.mpf(a), mp.mpf(e), mp.mpf("1e-3"))
    assert math.isclose(tf.optimal_delta(a, g, e), float(d), rel_tol=1e-9)
    assert math.isclose(tf.optimal_gamma(a, e, 1e-3), float(gam), rel_tol=1e-10)


def test_gaussian_profile_in_log_space_at_large_eps():
    """delta(eps) of G_mu at eps = 200, mu = 1 is ~1e-8700: no float, but its log is finite and right."""
    lg = tf._log_profile(tf.Gauss(1.0), 200.0)
    with mp.workdps(40):
        want = mp.log(mp.ncdf(mp.mpf(0.5) - 200) - mp.e ** 200 * mp.ncdf(-mp.mpf(0.5) - 200))
    assert math.isclose(lg, float(want), rel_tol=1e-9)


def test_no_float_path_is_said():
    x = sp.Symbol("x")
    assert tf.has_float_path(sp.Function("Renyi")(sp.Function("Gaussian")(x), x))
    assert not tf.has_float_path(sp.Function("Renyi")(sp.Function("SubsampledGaussian")(x, x), x))


def test_a_float_root_that_does_not_converge_leaves_the_point_to_mpmath(monkeypatch):
    """brentq's RuntimeError ("failed to converge") at a float point is "floats cannot tell" (None),
    not an error out of the checker: the point goes to mpmath, and a claim still gets its verdict."""
    from derive.checkers import Domain, float_function
    from derive.kinds import check_bound
    from derive.search import Var
    a, g, d = sp.symbols("alpha gamma delta", positive=True)
    truth = sp.Function("OptimalRdpEps")(a, g, d)
    dom = Domain([Var("alpha", a, lo=1, search=(1.5, 50)), Var("gamma", g, lo=0, search=(0.01, 2)),
                  Var("delta", d, lo=0, hi=1, search=(1e-8, 0.1))])

    def no_convergence(*args, **kw):
        raise RuntimeError("Failed to converge after 200 iterations.")
    monkeypatch.setattr(tf, "_root", no_convergence)
    f = float_function(truth, dom)
    assert f is not None and f({"alpha": 4.0, "gamma": 0.5, "delta": 1e-5}) is None
    bound = g + sp.log(1 / d) / (a - 1)           # the classical conversion: an upper bound
    assert check_bound(bound, "upper", truth, dom).status in ("holds_numerically", "proved")


@pytest.mark.parametrize("n,k", [(1, 4), (2, 1), (2, 9), (3, 6), (4, 5)])
def test_count_vectors_are_the_multisets_of_k_draws(n, k):
    """The composed pmf's outcomes: every count vector of k draws from n points, once each."""
    import itertools
    want = [[c.count(i) for i in range(n)] for c in itertools.combinations_with_replacement(range(n), k)]
    assert tf._count_vectors(n, k).tolist() == want


@pytest.mark.parametrize("make,k,lam", [
    (lambda: tf.randomized_response(0.7), 300, math.exp(60.0)),      # long: the vectorised hockey
    (lambda: tf.bernoulli(0.3, 0.0), 7, 0.5),                       # a point of Q-mass 0
    (lambda: tf.pmf(0.0, 1.0, -2.0, 0.5, 0.0, 1.0), 12, 2.0),       # three points
])
def test_composed_hockey_matches_the_mpmath_composition(make, k, lam):
    """E_lam(P^k || Q^k) in floats equals derive.truths' exact composition (merged loss atoms at
    30 digits), for 2- and 3-point pairs, with a mass-0 point and at 2000-fold composition."""
    pr = make()
    got = tf.hockey(tf.composed(pr, k), lam)
    with mp.workdps(30):
        P = [mp.e ** mp.mpf(x) for x in pr.logP]
        Q = [mp.e ** mp.mpf(x) for x in pr.logQ]
        composed = truths.compose(truths.DPair(P, Q), k)
        want = truths.hockey(composed.P, composed.Q, mp.mpf(lam))
    assert math.isclose(got, float(want), rel_tol=1e-9, abs_tol=1e-300), (got, want)


@pytest.mark.parametrize("e,k,lam", [(0.05, 2000, math.exp(3.0)), (1.5, 700, math.exp(200.0))])
def test_composed_randomized_response_hockey_matches_the_binomial_sum(e, k, lam):
    """k-fold randomized response: E_lam = sum_j C(k, j) (a^(k-j) b^j - lam b^(k-j) a^j)_+ with
    a = e^e/(1+e^e), b = 1 - a (j flipped answers), summed at 40 digits."""
    got = tf.hockey(tf.composed(tf.randomized_response(e), k), lam)
    with mp.workdps(40):
        a = mp.e ** e / (1 + mp.e ** e)
        b = 1 - a
        want = mp.fsum(max(mp.binomial(k, j) * (a ** (k - j) * b ** j - lam * b ** (k - j) * a ** j), 0)
                       for j in range(k + 1))
    assert math.isclose(got, float(want), rel_tol=1e-9), (got, want)
