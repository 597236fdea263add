"""The core dependencies as installed by ./install.sh: mpmath runs on its GMP backend (gmpy2, a core
dependency since the cold check's profile showed mpmath's pure-Python integer arithmetic on top),
and the backend changes no digit of a certified computation."""
from __future__ import annotations

import mpmath as mp
import mpmath.libmp


def test_mpmath_uses_gmpy2():
    assert mpmath.libmp.BACKEND == "gmpy"


def test_the_backend_gives_the_digits_of_a_closed_form():
    # zeta(3) at 60 digits, against its known decimal expansion (Apery's constant)
    with mp.workdps(60):
        assert mp.nstr(mp.zeta(3), 50) == "1.2020569031595942853997381615114499907649862923405"
