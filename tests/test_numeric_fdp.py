"""numeric.fdp against independent computations: brute force over all tests of a
small discrete pair, mpmath evaluation of G_mu, quadrature of areas, the
hockey-stick divergence, and Kairouz et al.'s closed form for k-fold randomised
response."""
import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from derive.core import DomainError
from numeric import fdp


def _brute_tradeoff(p, q, alpha):
    """T(P, Q)(alpha) by brute force: the lower convex hull of (type I, type II) over
    every deterministic rejection region (randomised tests fill in the hull)."""
    pts = []
    for r in itertools.product((0, 1), repeat=len(p)):
        r = np.array(r, bool)
        pts.append((p[r].sum(), 1 - q[r].sum()))
    pts = np.array(pts)
    # lower hull by brute force: min over pairs of points bracketing alpha of the chord
    best = np.full(np.shape(alpha), np.inf)
    for (x1, y1), (x2, y2) in itertools.combinations(pts, 2):
        if x1 == x2:
            continue
        if x1 > x2:
            x1, y1, x2, y2 = x2, y2, x1, y1
        inside = (alpha >= x1) & (alpha <= x2)
        best = np.where(inside, np.minimum(best, y1 + (y2 - y1) * (alpha - x1) / (x2 - x1)), best)
    for x, y in pts:
        best = np.where(alpha == x, np.minimum(best, y), best)
    return best


@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(3)
    p, q = rng.random(6), rng.random(6)
    p[2] = 0.0                       # an outcome impossible under P
    q[4] = 0.0                       # and one impossible under Q
    return p / p.sum(), q / q.sum()


def test_discrete_is_neyman_pearson(pair):
    p, q = pair
    a = np.linspace(0, 1, 401)
    assert np.allclose(fdp.Discrete(p, q)(a), _brute_tradeoff(p, q, a), atol=1e-12)
    assert np.allclose(fdp.Discrete(p, q).inverse()(a), _brute_tradeoff(q, p, a), atol=1e-12)


def test_discrete_delta_is_hockey_stick(pair):
    p, q = pair
    f = fdp.Discrete(p, q)
    for e in (0.0, 0.1, 0.7, 2.0):
        hs = np.sum(np.maximum(q - math.exp(e) * p, 0))
        assert f.delta(e) >= hs
        assert f.delta(e) == pytest.approx(hs, abs=1e-15, rel=1e-12)


def test_epsilon_inverts_delta(pair):
    p, q = pair
    f = fdp.Discrete(p, q).symmetrised()
    assert f(0.0) < 1 and f.epsilon(0.99 * (1 - f(0.0))) == np.inf   # delta below delta(oo)
    for d in (0.4, 0.5, 0.7):
        assert d > 1 - f(0.0)
        e = float(f.epsilon(d))
        assert f.delta(e) <= d * (1 + 1e-9)
        assert f.delta(max(e - 1e-7, 0)) > d or e == 0


def test_symmetrised_is_hull_of_min(pair):
    p, q = pair
    f = fdp.Discrete(p, q)
    s = f.symmetrised()
    a = np.linspace(0, 1, 2001)
    m = np.minimum(f(a), f.inverse()(a))
    assert np.all(s(a) <= m + 1e-12)
    # symmetric, and the hull touches min{f, f^-1} at its vertices
    assert np.allclose(s.inverse()(a), s(a), atol=1e-12)
    assert np.allclose(s(s.x), np.minimum(f(s.x), f.inverse()(s.x)), atol=1e-12)
    # brute force: lower hull of the union of both curves' brute-force points
    brute = np.minimum(_brute_tradeoff(p, q, a), _brute_tradeoff(q, p, a))
    assert np.all(s(a) <= brute + 1e-12)


def test_gaussian_against_mpmath():
    g = fdp.Gaussian(1.3)
    for a in (1e-12, 1e-4, 0.2, 0.5, 0.93):
        with mp.workdps(40):
            want = mp.ncdf(-mp.sqrt(2) * mp.erfinv(2 * mp.mpf(a) - 1) - mp.mpf("1.3"))
        assert g(a) == pytest.approx(float(want), rel=1e-12)
    # area: int_0^1 G_mu by quadrature
    with mp.workdps(30):
        quad = mp.quad(lambda z: mp.ncdf(z - mp.mpf("1.3")) * mp.npdf(z), [-mp.inf, 0, mp.inf])
    assert g.area() == pytest.approx(0.5 - float(quad), rel=1e-12)


def test_gaussian_delta_epsilon_closed_form():
    g = fdp.Gaussian(0.8)
    for e in (0.0, 0.5, 2.0):
        with mp.workdps(40):
            mu, ee = mp.mpf("0.8"), mp.mpf(e)
            want = mp.ncdf(-ee / mu + mu / 2) - mp.e ** ee * mp.ncdf(-ee / mu - mu / 2)
        got = float(g.delta(e))
        assert got >= float(want) and got == pytest.approx(float(want), rel=1e-10)
    e = float(g.epsilon(1e-6))
    assert g.delta(e) <= 1e-6 * (1 + 1e-9) and g.delta(e * (1 - 1e-8)) > 1e-6


def test_lower_polyline_is_sound_and_tight():
    curves = [fdp.Gaussian(2.0), fdp.Subsampled(fdp.Gaussian(3.0), 0.2)]
    a = np.random.default_rng(0).random(50000)
    for f in curves:
        gap = f(a) - f.lower_polyline(a)
        assert gap.min() >= 0 and gap.max() < 1e-4
    # through the minorant, delta and epsilon are never optimistic and close to the truth
    g = fdp.Gaussian(2.0)
    eg = np.array([0.0, 1.0, 3.0])
    generic = fdp.minorant(g._f).delta(eg)
    assert np.all(generic >= g.delta(eg) * (1 - 1e-12))
    assert np.allclose(generic, g.delta(eg), rtol=2e-3)


def test_composition():
    assert fdp.Gaussian(0.6).compose(fdp.Gaussian(0.8)).mu == pytest.approx(1.0)
    # k-fold randomised response: Kairouz et al.'s closed form of delta(eps')
    eps, k = 0.4, 5
    pe = math.exp(eps) / (1 + math.exp(eps))
    rr = fdp.Discrete([pe, 1 - pe], [1 - pe, pe])
    comp = rr
    for _ in range(k - 1):
        comp = comp.compose(rr)
    for e2 in (0.0, 0.4, 1.2):
        want = sum(math.comb(k, i) * max(math.exp(eps * (k - i)) - math.exp(e2 + eps * i), 0)
                   for i in range(k + 1)) / (1 + math.exp(eps)) ** k
        assert comp.delta(e2) == pytest.approx(want, rel=1e-12, abs=1e-15)
    with pytest.raises(TypeError, match="numeric.pld"):
        fdp.Gaussian(1.0).compose(rr)


def test_eps_delta_and_privacy_profile():
    e, d = 0.7, 0.03
    f = fdp.EpsDelta(e, d)
    a = np.linspace(0, 1, 1001)
    want = np.maximum.reduce([np.zeros_like(a), 1 - d - math.exp(e) * a, math.exp(-e) * (1 - d - a)])
    assert np.allclose(f(a), want, atol=1e-14)
    assert f.delta(e) == pytest.approx(d, abs=1e-13) and f.delta(e) >= d
    assert f.epsilon(d) == pytest.approx(e, rel=1e-12) and f.epsilon(d) >= e
    # Prop. 2.4: the curve of a Gaussian's privacy profile is below G_mu and close to it
    g = fdp.Gaussian(1.0)
    grid = np.linspace(0, 6, 400)
    fp = fdp.FromPrivacyProfile(grid, g.delta(grid))
    assert np.all(fp(a) <= g(a) + 1e-13)
    assert np.max(g(a) - fp(a)) < 1e-3
    env = np.max([fdp.EpsDelta(x, y)(a) for x, y in zip(grid[::40], g.delta(grid[::40]))], axis=0)
    assert np.allclose(fdp.FromPrivacyProfile(grid[::40], g.delta(grid[::40]))(a), env, atol=1e-14)


def test_supremum_and_subsampled():
    f1, f2 = fdp.EpsDelta(1.0, 0.0), fdp.EpsDelta(0.3, 0.2)
    s = fdp.Supremum([f1, f2])
    a = np.linspace(0, 1, 3001)
    assert np.allclose(s(a), np.maximum(f1(a), f2(a)), atol=1e-14)
    assert np.allclose(s.lower_polyline(a), s(a), atol=1e-12)       # exact for polylines
    g = fdp.Gaussian(1.0)
    sub = fdp.Subsampled(g, 0.25)
    assert np.allclose(sub(a), 0.25 * g(a) + 0.75 * (1 - a))
    sym = sub.symmetrised()
    assert np.all(sym(a) <= np.minimum(sub(a), sub.inverse()(a)) + 1e-12)
    assert np.allclose(sym(a), sym.inverse()(a), atol=1e-9)
    # the generic inverse inverts: f(f^{-1}(b)) = b on the range
    b = np.linspace(0.01, 0.99, 50)
    assert np.allclose(sub(sub.inverse()(b)), b, atol=1e-9)


def test_areas_by_quadrature(pair):
    p, q = pair
    for f in (fdp.Discrete(p, q), fdp.EpsDelta(0.5, 0.1)):
        quad = mp.quad(lambda x: 1 - x - float(f(float(x))), [0] + sorted(set(f.x.tolist()) - {0.0}))
        assert f.area() == pytest.approx(float(quad), abs=1e-12)


@pytest.mark.parametrize("make, name", [
    (lambda: fdp.Gaussian(1.0)(1.5), "alpha"),
    (lambda: fdp.Gaussian(float("nan")), "mu"),
    (lambda: fdp.Gaussian(1.0).delta(-1.0), "epsilon"),
    (lambda: fdp.Gaussian(1.0).epsilon(1.0), "delta"),
    (lambda: fdp.Discrete([0.5, 0.6], [0.5, 0.5]), "p"),
    (lambda: fdp.Subsampled(fdp.Gaussian(1.0), 0.0), "p"),
    (lambda: fdp.PiecewiseLinear([0.0, 0.5], [1.0, 1.2]), "beta"),
    (lambda: fdp.PiecewiseLinear([0.2, 0.5], [0.8, 0.2]), "alpha"),
])
def test_bad_input_names_the_parameter(make, name):
    with pytest.raises(DomainError) as ei:
        make()
    assert ei.value.name == name
