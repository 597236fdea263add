"""numeric.region: RDP -> privacy-region outer bounds as trade-off curves, checked against
closed forms, mpmath, the exact conversion, and exact trade-off curves (soundness)."""
import mpmath as mp
import numpy as np
import pytest

from derive.core import DomainError
from numeric import fdp, rdp
from numeric import region as R


def test_d_alpha_matches_mpmath():
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.001, 0.999, 50), rng.uniform(0.001, 0.999, 50)
    al = 1 + 10 ** rng.uniform(-3, 2, 50)
    got = R.d_alpha(a, b, al)
    for x, y, z, g in zip(a, b, al, got):
        with mp.workdps(40):
            x, y, z = mp.mpf(x), mp.mpf(y), mp.mpf(z)
            ref = mp.log(x ** z * y ** (1 - z) + (1 - x) ** z * (1 - y) ** (1 - z)) / (z - 1)
        assert abs(g - float(ref)) <= 1e-9 * float(ref) + 1e-15


def test_boundary_is_sound_and_tight():
    # the returned beta violates the constraint (lies outside) while beta(1 + 1e-8) satisfies it
    tau = np.linspace(0.01, 0.99, 40)
    for al, gam in ((2.0, 0.3), (10.0, 2.0), (1.01, 1e-4)):
        b = R._g_first(tau, al, gam)
        assert np.all(R.d_alpha(1 - tau, b, al) >= gam * (1 - 1e-12))
        assert np.all(R.d_alpha(1 - tau, np.minimum(b * (1 + 1e-7), 1 - tau), al) <= gam * (1 + 1e-6))


def test_gaussian_region_contains_the_exact_curve():
    # T-fold Gaussian: exact curve G_mu must lie above (never below) the RDP outer bound
    f = R.RDPRegion(rdp.Gaussian(2.0), steps=4)          # mu = 1
    a = np.linspace(0, 1, 501)
    assert np.all(f(a) <= fdp.Gaussian(1.0)(a) + 1e-12)
    assert f.area() >= fdp.Gaussian(1.0).area()
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    assert np.all(f.delta(eps) >= fdp.Gaussian(1.0).delta(eps))


def test_region_delta_between_truth_and_optimal_conversion():
    # one order: the region's delta(eps) is at most the optimal conversion delta_alpha^eps(gamma), with
    # equality in Theorem 3's interior case; intersecting over orders can only lower it, never below
    # the true profile
    from numeric import conversion as C
    from numeric import gaussian as G
    one = R.RDPRegion(rdp.Gaussian(2.0), steps=4, orders=[3.0])
    f = R.RDPRegion(rdp.Gaussian(2.0), steps=4)
    for e in (0.5, 1.0, 2.0):
        d1 = float(C.delta_exact(3.0, one.gammas[0], e))
        assert one.delta(e) <= d1 * 1.001 + 1e-9
        if d1 < 1 / 3:   # interior case of Theorem 3: the one-directional extremal pair is also RDP backwards
            assert one.delta(e) >= d1 * (1 - 1e-9)
    # delta >= 1/alpha: Theorem 3 (one direction, D_alpha(P||Q) only) is looser than (44)/(47) (both)
    assert one.delta(0.5) < 0.9 * float(C.delta_exact(3.0, one.gammas[0], 0.5))
    for e in (0.5, 1.0, 2.0):
        d_conv = float(np.min(C.delta_exact(f.orders, f.gammas, e)))
        assert G.delta_exact(e, 2.0, 4) <= f.delta(e) <= d_conv * 1.01 + 1e-9


def test_lemma3_region_below_lemma4_region_and_equal_away_from_tau_0():
    g = rdp.Gaussian(1.5)
    f44 = R.RDPRegion(g, 3, orders=[2.0])
    f43 = R.conversion_region(g, 3, eps=np.linspace(0, 12, 2401), orders=[2.0])
    a = np.linspace(0.001, 0.999, 200)
    assert np.all(f43(a) <= f44(a) + 1e-9)           # Lemma 3 is the looser (one-directional) bound
    mid = (a > 0.3) & (a < 0.7)
    assert np.max(np.abs(f44(a[mid]) - f43(a[mid]))) < 2e-3


def test_fewer_orders_give_a_looser_curve():
    g = rdp.SubsampledGaussian(0.01, 1.0, fractional=False)
    full = R.RDPRegion(g, 100, orders=np.arange(2.0, 65.0), prune=False)
    few = R.RDPRegion(g, 100, orders=[2.0, 8.0, 32.0])
    a = np.linspace(0, 1, 101)
    assert np.all(few(a) <= full(a) + 1e-12)


def test_kl_region_is_the_alpha_to_one_limit():
    s, T = 1.0, 4
    b2 = R.KLRegion(T / (2 * s ** 2))
    near1 = R.RDPRegion(rdp.Gaussian(s), T, orders=[1.0 + 1e-5])
    a = np.linspace(0.01, 0.99, 99)
    assert np.max(np.abs(b2(a) - near1(a))) < 1e-3
    assert np.all(b2(a) <= fdp.Gaussian(2.0)(a) + 1e-12)      # (53) contains the exact region (51)
    # the binary KL at the returned boundary equals the level
    h = R._g_first(a, 2.0, 0.7, kl=True)
    assert np.allclose(R.d_kl(1 - a, h), 0.7, rtol=1e-8)


def test_region_is_symmetric_and_a_tradeoff_function():
    f = R.RDPRegion(rdp.SubsampledGaussian(0.02, 0.8), 50)
    a = np.linspace(0, 1, 201)
    y = f(a)
    assert y[0] == 1.0 and y[-1] == 0.0
    assert np.all(np.diff(y) <= 1e-12) and np.all(y <= 1 - a + 1e-15)
    assert np.all(np.diff(y, 2) >= -1e-9)
    inv = f.lower_polyline.inverse()
    assert np.max(np.abs(inv(a) - f.lower_polyline(a))) < 1e-9


def test_exact_rdp_region_never_below_exact_pld_curve():
    pld = pytest.importorskip("numeric.pld")
    s, q, T = 0.8, 256 / 60000, 234
    f = R.RDPRegion(rdp.SubsampledGaussian(q, s), T)
    opt = pld.subsampled_gaussian(s, q, T).tradeoff("optimistic")       # above the true curve
    a = np.linspace(0, 1, 201)
    assert np.all(f(a) <= opt(a) + 1e-9)


def test_rho_q_region_claims_more_privacy_than_the_truth():
    pld = pytest.importorskip("numeric.pld")
    s, q, T = 0.5, 256 / 60000, 234
    approx = R.RDPRegion(rdp.AbadiApproxSubsampledGaussian(q, s, warn=False), T, np.arange(2.0, 257.0))
    opt = pld.subsampled_gaussian(s, q, T).tradeoff("optimistic")
    assert approx.area() < opt.area() - 0.01            # smaller than the true region: not an outer bound


def test_tabulated_rdp_and_errors():
    t = R.TabulatedRDP([2, 4], [0.1, 0.3])
    f = R.RDPRegion(t, 2)
    assert f.gammas.tolist() == [0.2, 0.6]
    with pytest.raises(DomainError):
        R.TabulatedRDP([2, 0.5], [0.1, 0.2])
    with pytest.raises(DomainError):
        R.TabulatedRDP([2], [0.1, 0.2])
    with pytest.raises(DomainError):
        R.RDPRegion(rdp.Gaussian(1.0), 0.5)
    with pytest.raises(DomainError):
        R.KLRegion(-1)
    with pytest.raises(DomainError):
        t(3.0)


def test_cli_region(capsys):
    from dpderive.cli import main
    assert main(["region", "--sigma", "2", "--steps", "4", "--points", "3", "--json"]) == 0
    import json
    rec = json.loads(capsys.readouterr().out)
    assert rec["curve"]["beta"][0] == 1.0 and 0.30 < rec["area"] < 0.32
    assert main(["region", "--sigma", "0"]) == 2
    assert main(["region", "--orders", "2", "--gammas", "0.1,0.2"]) == 2
