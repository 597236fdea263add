"""Issue 33, item 5: routes and profile sides a reader can follow.  No call through
``getattr(obj, variable)(...)`` in numeric/ or dpderive/ (the accountants once chose epsilon or delta,
and the f-DP methods, by the attribute's name as a string); ``numeric.events.profile_of`` is the one
explicit choice of a profile's side."""
import re
from pathlib import Path

import pytest

from numeric import events as EV

ROOT = Path(__file__).resolve().parent.parent
#: getattr by a computed name, called at once
DISPATCH = re.compile(r"getattr\(\s*[^,()]+(?:\([^()]*\))?\s*,\s*(?!['\"])[A-Za-z_][\w.]*\s*\)\s*\(")


def dispatches(text: str) -> list[str]:
    return [m.group(0) for m in DISPATCH.finditer(text)]


def test_the_scan_sees_a_dispatch_by_name():
    assert dispatches("lo, hi = getattr(acc, name)(at)")
    assert dispatches("v = getattr(pld.subsampled_gaussian(s, q, t), name)(at)")
    assert not dispatches("lo, hi = EV.profile_of(acc, name)(at)")
    assert not dispatches("x = getattr(e.sampling, 'neighbouring', 'add_remove')")
    assert not dispatches("v = getattr(self, name)")


@pytest.mark.parametrize("package", ["numeric", "dpderive"])
def test_no_call_through_getattr_by_name(package):
    found = []
    for f in sorted((ROOT / package).rglob("*.py")):
        rel = f.relative_to(ROOT).as_posix()
        found += [f"{rel}: {hit}" for hit in dispatches(f.read_text(encoding="utf-8"))]
    assert not found, found


class _Both:
    def epsilon(self, at):
        return ("eps", at)

    def delta(self, at):
        return ("delta", at)


def test_profile_of_names_the_two_sides_and_refuses_the_rest():
    b = _Both()
    assert EV.profile_of(b, "epsilon")(0.1) == ("eps", 0.1)
    assert EV.profile_of(b, "delta")(2.0) == ("delta", 2.0)
    for bad in ("sigma", "__class__", "Epsilon", ""):
        with pytest.raises(ValueError, match="not one of epsilon, delta"):
            EV.profile_of(b, bad)
