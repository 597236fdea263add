"""Issue 33, item 5: a query's composition is validated once.  ``numeric.Composition`` checks its
events and relation at construction; the routes take it without validating it again, and answer
exactly as for the list of its events."""
import pytest

import numeric as N
from derive.errors import DomainError
from numeric import account
from numeric import events as EV


def _sgd(count=1000):
    return EV.Event(EV.Gaussian(1.1), EV.Poisson(0.01), count)


def test_same_answer_as_the_list_and_merged_events():
    c = N.Composition([_sgd(600), _sgd(400)])
    assert len(c) == 1 and c[0].count == 1000 and list(c) == [_sgd(1000)]
    a, b = c.epsilon(1e-5), account.epsilon([_sgd(1000)], 1e-5)
    assert (a.value, a.lower, a.route) == (b.value, b.lower, b.route)
    d = c.delta(1.0)
    assert d.value == account.delta([_sgd(1000)], 1.0).value and 0 < d.lower <= d.value < 1


def test_validated_at_construction_with_the_parameter_named():
    with pytest.raises(DomainError, match="neighbouring='add_remove'.*replace_one for fixed-size batches"):
        N.Composition([EV.Event(EV.Gaussian(1.0), EV.WithoutReplacement(10, 100), 5)])
    with pytest.raises(DomainError, match="neighbouring='swap'"):
        N.Composition([_sgd()], "swap")
    with pytest.raises(DomainError, match="events"):
        N.Composition([])
    with pytest.raises(DomainError, match="events"):
        N.Composition([1.0, 2.0])


def test_not_validated_again_by_the_routes(monkeypatch):
    c = N.Composition([_sgd(), EV.Event(EV.Laplace(2.0), None, 3)])
    calls = []
    real = EV._validate_events
    monkeypatch.setattr(EV, "_validate_events", lambda *a: calls.append(a) or real(*a))
    r = account.epsilon(c, 1e-5)
    account.table(c, "epsilon", 1e-5)
    assert calls == [] and r.value > r.lower > 0
    account.epsilon(list(c), 1e-5)           # a plain list is validated, once (the control)
    assert len(calls) == 1


def test_its_relation_is_its_own():
    c = N.Composition([EV.Event(EV.Gaussian(1.0), EV.WithoutReplacement(10, 100), 5)], "replace_one")
    assert c.epsilon(1e-5).value == account.epsilon(list(c), 1e-5, neighbouring="replace_one").value
    with pytest.raises(DomainError, match="replace_one \\(the relation this Composition was built with\\)"):
        account.epsilon(c, 1e-5)             # the default add_remove contradicts it
