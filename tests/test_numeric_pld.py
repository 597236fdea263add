"""numeric/pld.py (certified PLD bounds) and numeric/recursion.py (004 Sec. 5.1) against
independent computations: the closed-form T-fold Gaussian (numeric.gaussian), brute-force
quadrature / enumeration for small n, Lemma C.1's exact one-step curve, and each other."""
import itertools

import mpmath as mp
import numpy as np
import pytest

from derive.core import DomainError
from numeric import fdp, pld, recursion
from numeric import gaussian as G


def gauss_delta(eps, m):
    """delta(eps) of G_m for any real eps (002 eq. (40) / 004 Lemma 5.1), by quadrature of the
    hockey-stick definition (derive.truths.gauss_delta)."""
    from derive import truths
    return np.vectorize(lambda e, mm: float(truths.gauss_delta(e, mm)))(eps, m)


EPS = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 4.0])


@pytest.mark.parametrize("mu,n", [(1.0, 1), (1.0, 10), (0.5, 100), (0.1, 1000)])
def test_gaussian_bounds_bracket_closed_form(mu, n):
    r = pld.gaussian(mu, n)
    lo, hi = r.delta(EPS)
    ex = gauss_delta(EPS, mu * np.sqrt(n))
    assert np.all(lo <= ex) and np.all(ex <= hi)
    assert np.all((hi - lo) <= 1e-2 * ex + 1e-12)
    elo, ehi = r.epsilon(np.array([1e-3, 1e-6, 1e-10]))
    ee = G.eps_exact(np.array([1e-3, 1e-6, 1e-10]), 1 / mu, n)
    assert np.all(elo <= ee) and np.all(ee <= ehi)


def test_gaussian_tradeoffs_bracket_G_mu():
    r = pld.gaussian(0.7, 8)
    a = np.linspace(0, 1, 401)
    g = fdp.Gaussian(0.7 * np.sqrt(8))(a)
    assert np.all(r.tradeoff("pessimistic")(a) <= g + 1e-15)
    assert np.all(r.tradeoff("optimistic")(a) >= g - 1e-15)


def test_bracket_narrows_with_finer_discretisation():
    widths = []
    for res in (0.2, 0.1, 0.05):
        lo, hi = pld.laplace(1.0, 4, resolution=res).delta(np.array([0.5, 1.5]))
        widths.append(np.max(hi - lo))
    assert widths[0] > widths[1] > widths[2] > 0
    assert widths[0] / widths[2] > 8           # O(h^2): ~16x for a 4x finer lattice


def _laplace_brute(theta, n, eps):
    """delta_n(eps) = E_Q[(1 - e^{eps - L_1 - ... - L_n})_+] by direct quadrature over x-space:
    n = 1 with mpmath; n = 2 with scipy over the pieces of Q = Lap(theta, 1) on which
    L(x) = |x| - |x - theta| is -t (x <= 0, mass e^{-t}/2), 2x - t (0 < x < t) or t (x >= t)."""
    from scipy import integrate
    t = float(theta)
    if n == 1:
        T = mp.mpf(theta)
        lap = lambda x, m: mp.e ** (-abs(x - m)) / 2                    # noqa: E731
        with mp.workdps(20):
            return float(mp.quad(lambda x: max(lap(x, T) - mp.e ** eps * lap(x, 0), 0),
                                 [-mp.inf, 0, (eps + T) / 2, T, mp.inf]))
    atoms = [(-t, 0.5 * np.exp(-t)), (t, 0.5)]
    dens = lambda x: 0.5 * np.exp(x - t)                               # noqa: E731
    g = lambda s: max(0.0, -np.expm1(eps - s))                         # noqa: E731
    tot = sum(m1 * m2 * g(l1 + l2) for l1, m1 in atoms for l2, m2 in atoms)
    for l1, m1 in atoms:                                               # atom x continuous, twice
        k = min(max((eps - l1 + t) / 2, 0.0), t)
        tot += 2 * m1 * sum(integrate.quad(lambda x: dens(x) * g(l1 + 2 * x - t), a, b,
                                           epsabs=1e-14, epsrel=1e-12)[0]
                            for a, b in ((0.0, k), (k, t)) if b > a)

    def inner(x):
        k = min(max((eps - (2 * x - t) + t) / 2, 0.0), t)
        return dens(x) * sum(integrate.quad(lambda y: dens(y) * g(2 * x - t + 2 * y - t), a, b,
                                            epsabs=1e-14, epsrel=1e-12)[0]
                             for a, b in ((0.0, k), (k, t)) if b > a)
    brk = sorted({0.0, t, min(max((eps - t + t) / 2 - t / 2, 0), t), min(max(eps / 2, 0), t)})
    tot += sum(integrate.quad(inner, a, b, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
               for a, b in zip(brk[:-1], brk[1:]) if b > a)
    return tot


@pytest.mark.parametrize("n", [1, 2])
def test_laplace_pld_matches_brute_force_quadrature(n):
    theta = 3 / np.sqrt(n)
    eps = np.array([0.0, 0.7, 1.9])
    lo, hi = pld.laplace(theta, n, resolution=0.02).delta(eps)
    ref = np.array([_laplace_brute(theta, n, e) for e in eps])
    assert np.all(lo <= ref + 1e-12) and np.all(ref <= hi + 1e-12)
    assert np.all(hi - lo < 2e-3)


def test_laplace_delta_vanishes_beyond_n_theta():
    """004 Sec. 5.2: delta(eps) = 0 for eps >= n theta (the loss is at most n theta)."""
    n, th = 3, 3 / np.sqrt(3)
    lo, hi = pld.laplace(th, n).delta(np.array([n * th, n * th + 0.1]))
    assert np.all(lo == 0) and np.all(hi < 1e-9)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_discrete_pair_matches_enumeration(n):
    p = np.array([0.5, 0.3, 0.15, 0.05, 0.0])
    q = np.array([0.2, 0.3, 0.3, 0.1, 0.1])         # q > 0 = p: a mass at loss +oo
    eps = np.array([-0.5, 0.0, 0.4, 1.3, 3.0])
    lo, hi = pld.discrete(p, q, n, value_discretization=1e-3).delta(eps)
    ref = []
    for e in eps:
        tot = 0.0
        for idx in itertools.product(range(p.size), repeat=n):
            tot += max(np.prod(q[list(idx)]) - np.exp(e) * np.prod(p[list(idx)]), 0.0)
        ref.append(tot)
    ref = np.array(ref)
    assert np.all(lo <= ref + 1e-14) and np.all(ref <= hi + 1e-14)
    assert np.all(hi - lo < 5e-3)


def test_subsampled_single_step_is_lemma_c1():
    """n = 1, direction "remove": T(N(0,1), qN(mu,1)+(1-q)N(0,1)) = q G_mu + (1-q) Id (Lemma C.1)."""
    r = pld.subsampled_gaussian(1.0, 0.3, 1, directions=("remove",), resolution=0.02)
    a = np.linspace(0, 1, 301)
    exact = fdp.Subsampled(fdp.Gaussian(1.0), 0.3)(a)
    assert np.all(r.tradeoff("pessimistic")(a) <= exact + 1e-13)
    assert np.all(r.tradeoff("optimistic")(a) >= exact - 1e-13)


def test_subsampled_reports_worse_direction_and_lower_le_upper():
    both = pld.subsampled_gaussian(1.0, 0.2, 20)
    eps = np.linspace(0, 3, 7)
    lo, hi = both.delta(eps)
    assert np.all(lo <= hi)
    for d in ("remove", "add"):
        one = pld.subsampled_gaussian(1.0, 0.2, 20, directions=(d,), value_discretization=both.h)
        assert np.all(one.delta(eps)[1] <= hi + 1e-15)
    elo, ehi = both.epsilon(np.array([1e-3, 1e-6]))
    assert np.all(elo <= ehi) and np.all(ehi / elo - 1 < 1e-3)


def test_subsampled_benchmark_case_certified_within_0p1_percent():
    """q = 0.001, sigma = 4, T = 1000, delta = 1e-5 (issue 4, item 8): the certified bracket
    is narrower than 0.1%, so the upper epsilon is within 0.1% of the truth."""
    lo, hi = pld.subsampled_gaussian(4.0, 1e-3, 1000).epsilon(1e-5)
    assert 0 < lo <= hi <= lo * 1.001
    assert 0.0215 < lo < 0.0216


def test_upper_only_mode():
    a = pld.subsampled_gaussian(2.0, 0.01, 300, bounds="upper")
    b = pld.subsampled_gaussian(2.0, 0.01, 300)
    lo, hi = a.epsilon(1e-5)
    assert lo == 0 and hi == b.epsilon(1e-5)[1]


# ----------------------------------------------------------------------------- Sec. 5.1 recursion
@pytest.mark.parametrize("n", [1, 2, 3])
def test_recursion_laplace_agrees_with_pld(n):
    theta = 3 / np.sqrt(n)
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    rr = recursion.laplace(theta, n, n_grid=1201, rounding="interp")
    lo, hi = pld.laplace(theta, n, resolution=0.02).delta(eps)
    d = rr.delta(eps)
    assert np.all(d >= lo - 2e-4) and np.all(d <= hi + 2e-4)


def test_recursion_floor_rule_is_an_upper_bound():
    """The printed floor rounding over-estimates delta (it decreases in eps)."""
    eps = np.array([0.0, 0.5, 1.0])
    rr = recursion.laplace(1.5, 2, n_grid=801, rounding="floor")
    lo, _ = pld.laplace(1.5, 2, resolution=0.02).delta(eps)
    assert np.all(rr.delta(eps) >= lo - 1e-12)


def test_recursion_subsampled_and_tradeoff_agree_with_pld():
    eps = np.array([0.0, 0.5, 1.0])
    rr = recursion.subsampled_gaussian(1.0, 0.5, 3, n_grid=1201, rounding="interp")
    p = pld.subsampled_gaussian(1.0, 0.5, 3, directions=("remove",), resolution=0.02)
    lo, hi = p.delta(eps)
    assert np.all(np.abs(rr.delta(eps) - (lo + hi) / 2) < 3e-4)
    a = np.linspace(0.01, 0.9, 50)
    assert np.max(np.abs(rr.tradeoff()(a) - p.tradeoff("pessimistic")(a))) < 1e-3


def test_recursion_as_printed_is_not_a_privacy_profile():
    """Erratum check: Sec. 5.1 prints delta_{k+1}(eps) = int delta_k(eps - L(x)) dx, without the
    density q(x) that Lemma 5.2 (and its proof, App. D.2) has.  As printed, delta_1(0) is the
    length-weighted integral int (1 - e^{-L(x)})_+ dx, which exceeds 1 (a delta is <= 1)."""
    x, w = recursion.quadrature_nodes([1.0 - 10, 1.0 + 10], 4.0)
    grid = np.linspace(-20, 20, 801)
    L = lambda x: x - 0.5                                                      # noqa: E731
    logq = lambda x: -(x - 1.0) ** 2 / 2 - 0.5 * np.log(2 * np.pi)            # noqa: E731
    printed = recursion.recursion(L, logq, 1, grid, x, w, weight="dx", rounding="interp")
    lemma = recursion.recursion(L, logq, 1, grid, x, w, weight="q", rounding="interp")
    assert printed.delta(np.array([0.0]))[0] > 1.0
    assert lemma.delta(np.array([0.0]))[0] == pytest.approx(gauss_delta(0.0, 1.0), abs=2e-4)


# ----------------------------------------------------------------------------- input checks
@pytest.mark.parametrize("call", [
    lambda: pld.gaussian(0.0, 3),
    lambda: pld.gaussian(1.0, 0),
    lambda: pld.gaussian(1.0, 2.5),
    lambda: pld.laplace(-1.0, 2),
    lambda: pld.subsampled_gaussian(-1.0, 0.1, 3),
    lambda: pld.subsampled_gaussian(1.0, 0.0, 3),
    lambda: pld.subsampled_gaussian(1.0, 1.5, 3),
    lambda: pld.subsampled_gaussian(1.0, 0.1, 3, directions=("sideways",)),
    lambda: pld.subsampled_gaussian(1.0, 0.1, 3, bounds="lower"),
    lambda: pld.gaussian(1.0, 2).epsilon(0.0),
    lambda: pld.gaussian(1.0, 2).epsilon(1.5),
    lambda: pld.gaussian(1.0, 2).delta(np.nan),
    lambda: pld.gaussian(1.0, 2).tradeoff("median"),
    lambda: pld.gaussian(1.0, 2, value_discretization=-1e-3),
    lambda: pld.discrete([0.5, 0.5], [0.7, 0.2], 2),
    lambda: recursion.recursion(lambda x: x, lambda x: x, 1, [0.0, 1.0, 3.0], [0.0], [1.0]),
])
def test_bad_input_raises(call):
    with pytest.raises(DomainError):
        call()


@pytest.mark.parametrize("sigma,q", [(1.1, 0.004267), (1.0, 1e-5), (0.6, 2.5e-4)])
def test_bin_quadrature_matches_mpmath(sigma, q):
    """The one-step bin integrals (Gauss-Legendre with as few as 2 nodes on narrow panels) give
    the Q-mass and E_Q[e^{-(L - g)} - 1] of lattice bins of the subsampled Gaussian to ~1e-13 of
    the bin's mass (mpmath: normal cdfs at the bin ends; the tilted integral via Q e^{-L} = P)."""
    mu = 1 / sigma
    r = pld.subsampled_gaussian(sigma, q, 1000)
    m = r.models["remove"]
    lmin, lmax = m.l_range()
    grid = np.arange(np.floor(lmin / r.h) - 1, np.ceil(lmax / r.h) + 2) * r.h
    i = np.unique(np.linspace(0, grid.size - 2, 25).astype(int))
    la, lb = grid[i], grid[i + 1]
    mass, tilt = pld._integrate(m, la, lb, la, (pld._one, lambda t: np.expm1(-t)))
    xa, xb = (np.clip(m.x_of(v), *m.x_tail) for v in (la, lb))
    mp.mp.dps = 40
    for k in range(i.size):
        A, B, Q, M = mp.mpf(xa[k]), mp.mpf(xb[k]), mp.mpf(q), mp.mpf(mu)
        ex = (1 - Q) * (mp.ncdf(B) - mp.ncdf(A)) + Q * (mp.ncdf(B - M) - mp.ncdf(A - M))
        # int e^{-(L-g)} dQ = e^{g} P[bin]: the tilted integral minus the mass
        ex_t = mp.exp(mp.mpf(la[k])) * (mp.ncdf(B) - mp.ncdf(A)) - ex
        if ex > 1e-300:
            assert abs(mp.mpf(mass[k]) - ex) <= 1e-13 * ex
            assert abs(mp.mpf(tilt[k]) - ex_t) <= 1e-13 * ex
    # the reduced rules are in use (the test exercises them): most bins need fewer than 8 nodes
    half = np.abs(xb - xa) / 2
    rate = half * (np.abs(xa + half) + half + 1 / m.dx_max) + (lb - la) / 2
    assert np.mean(rate <= pld._GL_RULES[-1][3]) > 0.5


def _mp_dft(w, M, k):
    nz = np.flatnonzero(w)
    return mp.fsum(mp.mpf(float(w[j])) * mp.expjpi(-2 * mp.mpf(int(k) * int(j)) / M) for j in nz)


@pytest.mark.parametrize("kind", ["dense", "split", "sparse"])
def test_accurate_dft_within_its_bound(kind):
    """``_dft_accurate`` (the extended-precision modes behind the FFT error bound) is within its
    stated componentwise bound of the exact DFT (mpmath, 30 digits): a dense pmf (block sums in
    long double), a long pmf with its mass in a short stretch (that stretch in long double, the
    long tails in double), and a sparse one (sum over the atoms).  Chained powers of one twiddle
    (error growing like j times that of omega_k) exceeded the bound here."""
    mp.mp.dps = 30
    rng = np.random.default_rng(3)
    M = 2 ** 20
    if kind == "dense":
        w = rng.random(3000)
    elif kind == "split":
        j = np.arange(20000)
        w = np.exp(-np.abs(j - 6000) / 40.0) * (1 + 0.1 * rng.random(j.size))
    else:
        w = np.zeros(1000)
        w[[3, 500, 999]] = [0.2, 0.5, 0.3]
    w = w / w.sum()
    ks = np.array([1, 3, 40, 777, 2 ** 19 - 5])
    got, bound = pld._dft_accurate(w, M, ks)
    if kind == "split":                        # the long tails carry <= 1e-6 of the mass
        assert bound < 5e-17
    for k, g in zip(ks, got):
        ex = _mp_dft(w, M, k)
        err = abs(mp.mpc(mp.mpf(float(g.real)) + mp.mpf(float(g.real - np.longdouble(float(g.real)))),
                         mp.mpf(float(g.imag)) + mp.mpf(float(g.imag - np.longdouble(float(g.imag)))))
                  - ex)
        assert err <= bound, (kind, int(k), float(err), bound)


def test_refined_lower_end_at_a_sharp_loss_edge():
    """At small q the subsampled Gaussian's loss law piles up against its bottom edge log(1 - q)
    within a few lattice steps: rounding down there costs the lower end O(h) per step, so the
    optimistic side of the direction giving the lower end is recomposed on the lattice h/2
    (``_refine_optimistic``).  The refined lower end closes most of the gap to the upper end and
    stays below independent upper bounds: the pessimistic ends on a 4x finer lattice (eps and
    delta at several eps)."""
    s, q, T = 0.8, 1e-3, 3000
    r = pld.subsampled_gaussian(s, q, T)
    lo, hi = r.epsilon(1e-6)
    assert r.h_used[("remove", False)] == r.h / 2 and r.h_used[("remove", True)] == r.h
    unref = pld.subsampled_gaussian(s, q, T)
    lo0 = max(float(pld._eps_from(unref.part(d, False), np.array([1e-6]), False)[0])
              for d in unref.models)
    assert lo0 < lo <= hi and hi - lo < 0.1 * (hi - lo0)
    fine = pld.subsampled_gaussian(s, q, T, value_discretization=r.h / 4, bounds="upper")
    assert lo <= fine.epsilon(1e-6)[1]
    eps = np.array([0.2, 0.5, 0.8])
    assert np.all(r.delta(eps)[0] <= fine.delta(eps)[1])


def test_lattice_view_matches_the_losses_array():
    """``_Lattice`` (the inversions' arithmetic view of the losses) gives exactly the values and
    the side="right" search positions of the array (j0 + i) h, including points on the lattice,
    one ulp either side and far outside."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        j0, h = int(rng.integers(-10 ** 6, 10 ** 6)), float(10 ** rng.uniform(-8, 0))
        n = int(rng.integers(1, 3000))
        s = int(rng.integers(0, n))
        arr = ((j0 + np.arange(n)) * h)[s:]
        lat = pld._Lattice(j0, h, s, n - s)
        v = np.concatenate([arr, np.nextafter(arr, np.inf), np.nextafter(arr, -np.inf),
                            rng.uniform(arr[0] - 10 * h, arr[-1] + 10 * h, 50),
                            [-np.inf, np.inf, arr[0] - 1e9, arr[-1] + 1e9]])
        assert np.array_equal(lat.searchsorted(v), np.searchsorted(arr, v, side="right"))
        i = rng.integers(0, n - s, 20)
        assert np.array_equal(lat[i], arr[i])


def test_refinement_that_cannot_fit_is_told_before_discretising(monkeypatch):
    """At q = 1e-6, T = 1e7 the second halving of the optimistic lattice gives a one-step pmf longer
    than CHERNOFF_BLOCKS, whose blocked Chernoff window (~2.4e7 bins) cannot fit MAX_WINDOW_BINS:
    the query skips it before discretising (0.2 s and 155 MB), and its bracket is the one the
    attempt gives (the attempt is made and refused when the early test is switched off)."""
    from numeric import pld_compose as PC
    from numeric import pld_lattice as PL
    from numeric import pld_result as PR
    told, tried = [], []
    early = PR.PLDResult._blocked_window_too_wide
    monkeypatch.setattr(PR.PLDResult, "_blocked_window_too_wide",
                        lambda self, m, h: told.append((early(self, m, h), self.steps, m, h)) or told[-1][0])
    a = pld.subsampled_gaussian(1.0, 1e-6, 10**7).epsilon(1e-5)
    refused = [(n, m, h) for ok, n, m, h in told if ok]
    assert refused
    for n, m, h in refused:     # the prediction, against the window the attempt would have built
        pmf = PL.discretise(m, h, False)
        lo, hi, _ = PC._window(pmf, n, PL.TAIL_BOUND)
        assert hi - lo + 1 > 2 * PL.MAX_WINDOW_BINS
    again = PR.PLDResult._refine_again
    monkeypatch.setattr(PR.PLDResult, "_blocked_window_too_wide", lambda self, m, h: False)
    monkeypatch.setattr(PR.PLDResult, "_refine_again",
                        lambda self, d, g: tried.append(again(self, d, g)) or tried[-1])
    b = pld.subsampled_gaussian(1.0, 1e-6, 10**7).epsilon(1e-5)
    assert tried and not any(tried)
    assert (a[0], a[1]) == (b[0], b[1])
