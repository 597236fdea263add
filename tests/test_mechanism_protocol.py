"""Issue 22 item 1: the mechanism protocol.  A user's own pmf pair is one class; Poisson and
fixed-batch sampling wrap it generically; routes it cannot serve say so (RouteError)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from numeric import account, pld
from numeric import events as EV
from numeric.mechanism import Mechanism


@dataclass(frozen=True)
class ThreePoint(Mechanism):
    """A user's own mechanism: a symmetric pmf pair on three outcomes."""

    def pmf_pair(self):
        p = np.array([0.6, 0.3, 0.1])
        return p, p[::-1].copy()

    def __str__(self):
        return "three-point"


def test_user_pmf_pair_is_accounted_by_pld_and_best_names_rdp_unsupported():
    ev = [EV.Event(ThreePoint(), EV.Poisson(0.1), 200)]
    r = account.epsilon(ev, 1e-6, "pld")
    p, q = ThreePoint().pmf_pair()
    direct = pld.PLDResult("x", pld.discrete_models(p, q, 0.1), 200,
                           pld._choose_h(pld.discrete_models(p, q, 0.1), None, pld.DEFAULT_RESOLUTION))
    lo, hi = direct.epsilon(1e-6)
    assert r.value == float(hi) and r.extras["epsilon_lower"] == float(lo)
    with pytest.raises(EV.RouteError):
        account.epsilon(ev, 1e-6, "rdp")
    best = account.epsilon(ev, 1e-6, "best")
    assert best.extras["route"] == "pld" and best.value == r.value


def test_fixed_batch_wraps_a_user_pair():
    ev = [EV.Event(ThreePoint(), EV.WithoutReplacement(10, 1000), 100)]
    r = account.epsilon(ev, 1e-6, "pld", neighbouring="replace_one")
    assert 0 <= r.extras["epsilon_lower"] <= r.value < np.inf


def test_dispatch_is_by_capability():
    """The built-in mechanisms declare their capabilities; only the Gaussian has closed forms."""
    assert EV.Gaussian(1.0, 2.0).gaussian_noise() == (1.0, 2.0)
    for m in (EV.Laplace(1.0), EV.RandomizedResponse(1.0), EV.DiscreteGaussian(2.0)):
        assert m.gaussian_noise() is None and isinstance(m, Mechanism)
    assert EV.RandomizedResponse(1.0).pmf_pair() is not None
    with pytest.raises(Exception):
        EV.Event(object(), None, 1)


# ----------------------------------------------------------------------------- no class dispatch
import ast  # noqa: E402
import inspect  # noqa: E402
from pathlib import Path  # noqa: E402

from numeric import mechanism as MP  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: the modules the mechanism classes can be reached through (``numeric`` re-exports them lazily)
_HOMES = {"numeric", "numeric.events", "numeric.mechanism"}


def _concrete_classes() -> set:
    """The concrete mechanism and sampling classes of the protocol module."""
    return {name for name, c in vars(MP).items() if inspect.isclass(c) and c.__module__ == MP.__name__
            and issubclass(c, (MP.Mechanism, MP.Sampling)) and c not in (MP.Mechanism, MP.Sampling)}


def _module_name(path: Path) -> list:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _aliases(tree, path: Path):
    """(module aliases -> module, class names bound here from a home of the mechanism classes)."""
    pkg = _module_name(path) if path.name == "__init__.py" else _module_name(path)[:-1]
    mods, names = {}, set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                mods[a.asname or a.name] = a.name
        elif isinstance(n, ast.ImportFrom):
            base = n.module or ""
            if n.level:
                base = ".".join(pkg[:len(pkg) - n.level + 1] + ([n.module] if n.module else []))
            for a in n.names:
                full = f"{base}.{a.name}"
                if full in _HOMES:
                    mods[a.asname or a.name] = full
                elif base in _HOMES:
                    names.add(a.asname or a.name)
    return mods, names


def _class_refs(node, mods, names, banned):
    """The banned class names ``node`` (an isinstance/issubclass second argument, a type(...)
    comparand) refers to: X.Gaussian with X a home module, or a bare name imported from one."""
    out = []
    for n in (node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]):
        if isinstance(n, ast.Attribute) and n.attr in banned:
            v = n.value
            dotted = []
            while isinstance(v, ast.Attribute):
                dotted.insert(0, v.attr)
                v = v.value
            if isinstance(v, ast.Name) and ".".join([mods.get(v.id, v.id)] + dotted) in _HOMES:
                out.append(n.attr)
        elif isinstance(n, ast.Name) and n.id in banned and n.id in names:
            out.append(n.id)
    return out


def class_dispatch(path: Path, banned: set, text: str | None = None) -> list:
    """(line, class) of every isinstance / issubclass / type(...) is|== test on a banned class
    in the module at ``path`` (its source ``text`` if given)."""
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text)
    mods, names = _aliases(tree, path)
    hits = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id in ("isinstance", "issubclass") and len(n.args) == 2:
            hits += [(n.lineno, c) for c in _class_refs(n.args[1], mods, names, banned)]
        elif isinstance(n, ast.Compare) and isinstance(n.left, ast.Call) and \
                isinstance(n.left.func, ast.Name) and n.left.func.id == "type":
            for op, right in zip(n.ops, n.comparators):
                if isinstance(op, (ast.Is, ast.Eq, ast.In, ast.IsNot, ast.NotEq, ast.NotIn)):
                    hits += [(n.lineno, c) for c in _class_refs(right, mods, names, banned)]
    return hits


def test_no_isinstance_on_mechanism_classes_outside_the_protocol():
    """Issue 22: mechanism-specific behaviour is a method of the mechanism (``numeric.mechanism``);
    no module of numeric/ or dpderive/ tests a mechanism's or a sampling's concrete class."""
    banned = _concrete_classes()
    assert {"Gaussian", "Laplace", "RandomizedResponse", "DiscreteGaussian", "Poisson",
            "WithoutReplacement"} <= banned
    found = []
    for top in ("numeric", "dpderive"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if path == ROOT / "numeric" / "mechanism.py":
                continue
            found += [f"{path.relative_to(ROOT)}:{line}: {c}" for line, c in class_dispatch(path, banned)]
    assert found == []


def test_the_scan_sees_class_dispatch():
    """The scan is not vacuous: it flags the forms it is meant to (and not fdp's own Gaussian)."""
    code = ("from . import events as EV\nfrom .events import Laplace\nfrom .fdp import Gaussian as G\n"
            "import numeric.mechanism\n"
            "def f(m, s):\n    a = isinstance(m, EV.Gaussian)\n    b = isinstance(m, (Laplace, int))\n"
            "    c = type(s) is numeric.mechanism.Poisson\n    d = isinstance(m, G)\n")
    hits = class_dispatch(ROOT / "numeric" / "probe.py", _concrete_classes(), code)
    assert sorted(c for _, c in hits) == ["Gaussian", "Laplace", "Poisson"]
    old = "from numeric import events as EV\ndef f(m):\n    return isinstance(m, EV.WithoutReplacement)\n"
    assert class_dispatch(ROOT / "dpderive" / "probe.py", _concrete_classes(), old) == [(3, "WithoutReplacement")]


def test_mechanisms_say_their_pure_loss_noise_and_spec():
    """The capabilities that replaced the class tests (account's pure bound and PLD screen, the
    stateful state, the dp_accounting export)."""
    assert EV.Laplace(2.0, 3.0).pure_epsilon() == 1.5
    assert EV.RandomizedResponse(0.7).pure_epsilon() == 0.7
    assert EV.Gaussian(1.0).pure_epsilon() == np.inf and EV.DiscreteGaussian(2.0).pure_epsilon() == np.inf
    assert EV.Gaussian(3.0, 2.0).noise_multiplier() == 1.5 == EV.DiscreteGaussian(3.0, 2).noise_multiplier()
    assert EV.Laplace(1.0).noise_multiplier() is None and ThreePoint().noise_multiplier() is None
    q, e0 = 0.01, 1.0
    for samp in (EV.Poisson(q), EV.WithoutReplacement(10, 1000)):
        ev = EV.Event(EV.RandomizedResponse(e0), samp, 5)
        assert ev.pure_epsilon() == pytest.approx(np.log1p(q * np.expm1(e0)), rel=1e-15)
        assert ev.pure_epsilon(sampled=False) == e0
    for ev in (EV.Event(EV.Gaussian(1.1, 2.0), EV.Poisson(0.01), 7),
               EV.Event(EV.Laplace(3.0), EV.WithoutReplacement(5, 100), 2),
               EV.Event(EV.DiscreteGaussian(2.0, 3), None, 4), EV.Event(EV.RandomizedResponse(0.5))):
        assert EV.events_from_spec([ev.spec()]) == [ev]
    with pytest.raises(EV.NotSupported):
        EV.Event(ThreePoint()).spec()
    assert EV.Event(EV.Gaussian(1.0), EV.Poisson(1.0)).sampling is None      # Poisson(1): no sampling
    assert EV.Event(EV.Gaussian(1.0), EV.WithoutReplacement(5, 5)).sampling is not None


def test_routes_are_objects_serving_profile_table_and_calibration():
    """account.ROUTES: one object per route name; the answer of method=r is its bounds, the
    table's row its row, and an unsupported event its RouteError."""
    assert tuple(account.ROUTES) == EV.ROUTES
    ev = [EV.Event(EV.Gaussian(1.1), EV.Poisson(0.01), 300)]
    for name in ("rdp", "pld"):
        route = account.ROUTES[name]
        lo, hi, _ = route.bounds(ev, "epsilon", 1e-5, "add_remove")
        r = account.epsilon(ev, 1e-5, name)
        assert route.certified and r.value == hi and r.extras["route"] == name
        assert route.epsilon_upper(ev, 1e-5, "add_remove") == hi
    rows = {row["route"]: row for row in account.table(ev, "epsilon", 1e-5)}
    assert rows["pld"]["upper"] == account.ROUTES["pld"].bounds(ev, "epsilon", 1e-5, "add_remove")[1]
    assert not account.ROUTES["clt"].certified and rows["clt"]["guarantee"] is False
    with pytest.raises(EV.RouteError):
        account.ROUTES["rdp"].bounds([EV.Event(ThreePoint(), None, 3)], "epsilon", 1e-5, "add_remove")
