"""derive.search._stable: a violation found at the search precision is recomputed at twice (and,
when the two disagree, four times) the digits.  Rounding that shows a violation is never returned
as one; a violation that agrees at two successive precisions is never discarded."""
import mpmath as mp
import sympy as sp

from derive.search import Var, _stable, worst_point

x = sp.Symbol("x", positive=True)
X = Var("x", x, lo=0, hi=1)
E = mp.mpf(10) ** -45          # below the 30-digit search precision, within 60 digits


def cancelled(pt):
    """1 - 2((1 + e) - 1)/e: exactly -1, but 30 digits round 1 + e to 1 and show +1."""
    e = E * (1 + pt["x"])
    return 1 - 2 * ((1 + e) - 1) / e


def test_cancellation_is_no_violation():
    pt = {"x": mp.mpf("0.5")}
    with mp.workdps(30):
        assert cancelled(pt) == 1                      # the false violation at 30 digits
    v = _stable(cancelled, pt, 30)                     # the recomputation's value, not the rounding
    assert abs(v + 1) < mp.mpf(10) ** -10              # (60 digits keep 15 of e beyond the 1)
    res = worst_point(cancelled, [X], n_random=8, starts=1, maxfev=10)
    assert res.violation is not None and not (res.violation > 0)


def _by_precision(low, mid, high):
    """A violation whose value depends on the working precision (< 50, < 100, beyond)."""
    def f(pt):
        d = mp.mp.dps
        return low if d < 50 else mid if d < 100 else high
    return f


def test_a_non_finite_recomputation_is_not_a_counterexample():
    """Finite at 30 digits, +inf at 60 (the old code returned the +inf: a violation of 1e30),
    settled at 120 as no violation."""
    f = _by_precision(mp.mpf(1), mp.inf, mp.mpf(-1))
    assert _stable(f, {"x": mp.mpf("0.5")}, 30) == -1
    res = worst_point(f, [X], n_random=8, starts=1, maxfev=10)
    assert not (res.violation > 0)
    # not a number at 60 digits and a different violation at 120: undefined, not a violation
    assert _stable(_by_precision(mp.mpf(1), mp.nan, mp.mpf(5)), {"x": mp.mpf("0.5")}, 30) is None


def test_a_genuine_violation_is_kept():
    """x - 1/2 > 0 on (1/2, 1): the same at every precision, found and kept."""
    res = worst_point(lambda pt: pt["x"] - mp.mpf(1) / 2, [X], n_random=8, starts=1, maxfev=10)
    assert res.violation > mp.mpf("0.4") and res.point["x"] > mp.mpf("0.9")
    # infinite at every precision: a real (unbounded) violation
    assert _stable(_by_precision(mp.inf, mp.inf, mp.inf), {"x": mp.mpf("0.5")}, 30) == mp.inf


def test_a_genuine_violation_noisy_at_the_search_precision_is_kept():
    """1e-3 + 1e-5 (((1 + e) - 1)/e - 1): 0.00099 at 30 digits (rounding), exactly 1e-3 at 60 and
    120 digits.  The old code dropped it (the first two differ by 1%); the 120-digit value agrees
    with the 60-digit one, so it is kept."""
    def f(pt):
        return mp.mpf("1e-3") + mp.mpf("1e-5") * (((1 + E) - 1) / E - 1)
    pt = {"x": mp.mpf("0.5")}
    with mp.workdps(30):
        assert abs(f(pt) - mp.mpf("0.00099")) < mp.mpf(10) ** -20
    v = _stable(f, pt, 30)
    assert v is not None and abs(v - mp.mpf("1e-3")) < mp.mpf(10) ** -15


def test_the_special_coordinates_are_sampled_without_building_their_product():
    import itertools
    import random
    import tracemalloc

    from derive.search import MixedProduct
    small = [(1, 2, 3), (4, 5), (6, 7, 8, 9)]
    assert list(MixedProduct(small)) == list(itertools.product(*small))
    nine = [(-1.0, 0.0, 1.0)] * 9           # the same draws as from the list (verdicts unchanged)
    assert random.Random(5).sample(MixedProduct(nine), 81) == \
        random.Random(5).sample(list(itertools.product(*nine)), 81)
    tracemalloc.start()
    got = random.Random(5).sample(MixedProduct([(-1.0, 0.0, 1.0)] * 14), 81)   # 3^14 tuples
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(set(got)) == 81 and peak < 5e6
