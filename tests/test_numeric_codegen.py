"""The generated kernel module is up to date with the library's SymPy definitions and equal to
lambdify of the same expressions."""
from __future__ import annotations

import numpy as np
import sympy as sp

from numeric import _kernels_generated as G
from numeric import codegen
from derive import lib
from numeric.conversion import derived_exprs


def test_generated_module_is_up_to_date():
    committed = codegen.TARGET.read_text()
    assert committed == codegen.source(), ("numeric/_kernels_generated.py is out of date: "
                                           "run `python3 -m numeric.codegen`")


def test_generated_kernels_equal_lambdify():
    rng = np.random.default_rng(5)
    a = 1 + 10 ** rng.uniform(-2, 2, 40)
    w = np.exp(-rng.uniform(0, 5, 40))
    d = 10 ** rng.uniform(-10, -2, 40)
    u = (1 - d) * rng.uniform(0.01, 0.99, 40)
    exprs, args = derived_exprs()
    for k, e in exprs.items():
        ref = sp.lambdify(args[k], e, modules=["scipy", "numpy"])
        second = -np.log(w) if k in ("LA", "LB") else w
        np.testing.assert_allclose(getattr(G, "objective_" + k)(a, second, d, u), ref(a, second, d, u),
                                   rtol=1e-12, atol=1e-300)
    q = lib.quantity("gaussian_rdp")
    ref = sp.lambdify(q.args, q.expr)
    np.testing.assert_allclose(G.gaussian_rdp(a, 1.7), ref(a, 1.7), rtol=1e-15)


def test_every_library_quantity_has_a_generated_kernel():
    assert set(G.QUANTITY_NAMES) == set(lib.QUANTITIES)
    for name in G.QUANTITY_NAMES:
        assert callable(getattr(G, name)), name
