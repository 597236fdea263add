"""derive.symcache: Integral.doit is memoised only while a claim is checked; SymPy is left as it
is outside, and the memo returns what SymPy's own doit returns."""
import sympy as sp

import derive.verify  # noqa: F401  (importing the engine must not patch SymPy)
from derive import symcache
from derive.core import Claim, Source


def test_sympy_untouched_outside_a_check():
    assert sp.Integral.doit is not symcache._doit
    assert sp.Integral.doit.__qualname__ == "Integral.doit"


def test_memo_active_inside_a_check_and_restored_after_an_error():
    x, t = sp.symbols("x t", positive=True)
    seen = []

    def check():
        seen.append(sp.Integral.doit is symcache._doit)
        i = sp.Integral(sp.exp(-t * x), (x, 0, sp.oo))
        a, b = i.doit(), i.doit()
        assert a == 1 / t and a is b          # the second call is the memo's object
        raise RuntimeError("a check that crashes")

    c = Claim(id="t.memo", paper="t", source=Source("t", "(1)"), kind="identity", statement="s",
              printed_latex="x", check_fn=check)
    v = c.check()
    assert seen == [True] and v.status == "inconclusive" and "RuntimeError" in v.note
    assert sp.Integral.doit is not symcache._doit
    with symcache.active():
        with symcache.active():
            assert sp.Integral.doit is symcache._doit
        assert sp.Integral.doit is symcache._doit
    assert sp.Integral.doit is not symcache._doit
