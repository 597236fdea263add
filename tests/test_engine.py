"""The checking engine can fail: wrong identities and violated relations are
reported with counterexamples; true ones hold."""
import mpmath as mp
import pytest
import sympy as sp

from derive.symbols import ALPHA, DELTA, EPS, alpha, delta, eps
from derive.verify import check_equal, check_relation, mp_minimize, symbolic_zero


def test_identity_proved_and_refuted():
    assert check_equal(sp.log(sp.exp(eps)), eps, (EPS,)).status == "proved"
    v = check_equal(sp.exp(2 * eps), sp.exp(eps) ** 2 + eps * 1e-3, (EPS,))
    assert v.status == "fails" and v.counterexample["params"]


def test_numeric_identity_without_symbolic():
    v = check_equal(sp.log(alpha * delta), sp.log(alpha) + sp.log(delta), (ALPHA, DELTA), symbolic=False)
    assert v.status == "holds_numerically" and v.points == 40 and v.worst_error < 1e-40


def test_relation_counterexample():
    v = check_relation(eps, "<=", sp.Integer(1), (EPS,))
    assert v.status == "fails"
    assert float(v.counterexample["lhs"]) > 1


def test_symbolic_zero_is_conservative():
    assert symbolic_zero(sp.sin(eps) ** 2 + sp.cos(eps) ** 2 - 1)
    assert not symbolic_zero(eps - 1)


def test_mp_minimize_interior_optimum():
    # (x - 1e-30)^2 + (x - 0.3)^2 on (0, 1): the minimum is at the mean, 0.15 + 5e-31
    with mp.workdps(60):
        x, v = mp_minimize(lambda x: (x - mp.mpf("1e-30")) ** 2 + (x - mp.mpf("0.3")) ** 2, 0, 1)
        assert abs(x - (mp.mpf("0.3") + mp.mpf("1e-30")) / 2) < mp.mpf(10) ** -25


def test_mp_minimize_optimum_next_to_the_boundary():
    # (x - 1e-30)^2 on (0, 1): the minimiser sits 1e-30 from the left end (closed form), which a
    # uniform grid could not resolve; the logit coordinates do, to 1e-3 relative
    with mp.workdps(60):
        x, v = mp_minimize(lambda x: (x - mp.mpf("1e-30")) ** 2, 0, 1)
        assert abs(x - mp.mpf("1e-30")) < mp.mpf("1e-33") and v < mp.mpf("1e-66")


def test_check_draws_attaches_fail_note_only_on_failure():
    import mpmath as mp
    from derive.verify import check_draws
    ok = check_draws(lambda rng: ({"x": 1}, mp.mpf(2), mp.mpf(2)), "==", n=3, fail_note="why")
    bad = check_draws(lambda rng: ({"x": 1}, mp.mpf(2), mp.mpf(3)), "==", n=3, fail_note="why")
    assert ok.status == "holds_numerically" and ok.note == ""
    assert bad.status == "fails" and bad.note == "why"


def test_formulas_are_immutable_once_registered():
    """A registered formula cannot be patched (issue: eq40.expr was reassigned after
    registration); its whole definition is the P.formula(...) declaration."""
    import dataclasses

    from derive import registry
    registry.load_all()
    f = registry.FORMULAS["asoodeh2021.sec5.eq40"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.expr = f.printed
    # (40) is parsed: the parser maps \\Phi to the one definition of
    # Phi (derive.functions.Phi), not with the parser's undefined function named Phi
    from derive.functions import Phi
    assert f.expr.has(Phi) and not f.expr.has(sp.erf)
    assert not any(type(a) is not Phi and getattr(a.func, "__name__", "") == "Phi"
                   for a in f.expr.atoms(sp.Function))
