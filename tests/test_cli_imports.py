"""The accountant's commands answer without importing SymPy (a CLI query costs about what
importing NumPy and SciPy does)."""
import subprocess
import sys

import pytest

CODE = """
import sys, contextlib, io
from dpderive.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    rc = main({argv!r})
assert rc == 0, rc
print(sorted(m for m in sys.modules if m == "sympy" or m.startswith("sympy.")))
"""


@pytest.mark.parametrize("argv", [
    ["epsilon", "--sigma", "1.1", "--sampling-rate", "0.004267", "--steps", "14063", "--delta", "1e-5"],
    ["delta", "--sigma", "4", "--sampling-rate", "0.01", "--steps", "1000", "--epsilon", "2"],
    ["calibrate", "--epsilon", "1", "--delta", "1e-5", "--sampling-rate", "0.004267", "--steps", "1000"],
    ["epsilon", "--mechanism", "laplace", "--scale", "10", "--steps", "20", "--delta", "1e-6"],
])
def test_numeric_commands_do_not_import_sympy(argv):
    r = subprocess.run([sys.executable, "-c", CODE.format(argv=argv)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]", r.stdout[:300]


FIRST_USE = """
import sys, contextlib, io
from dpderive.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    rc = main({argv!r})
assert rc == 0, rc
print(sorted(m for m in sys.modules if m.split(".")[:2] in (["scipy", "special"], ["scipy", "fft"])
             or m == "mpmath"))
print(type(sys.modules["numpy.f2py"]).__name__)
"""


@pytest.mark.parametrize("argv", [
    ["epsilon", "--sigma", "1.1", "--sampling-rate", "0.004267", "--steps", "14063", "--delta", "1e-5",
     "--method", "rdp"],
    ["epsilon", "--sigma", "20", "--steps", "1000", "--delta", "1e-5", "--method", "rdp"],
    ["epsilon", "--sigma", "1.1", "--sampling-rate", "0.004267", "--steps", "14063", "--delta", "1e-5"],
    ["delta", "--sigma", "1.1", "--sampling-rate", "0.004267", "--steps", "14063", "--epsilon", "2",
     "--method", "pld"],
    ["delta", "--sigma", "1.1", "--sampling-rate", "0.004267", "--steps", "14063", "--epsilon", "2"],
    ["calibrate", "--epsilon", "1", "--delta", "1e-5", "--sampling-rate", "0.004267", "--steps", "14063"],
])
def test_accountant_queries_do_not_import_scipy_special_fft_or_mpmath(argv):
    """The RDP and PLD routes (and ``best``, which runs both) answer with NumPy and ``math``
    alone (``kernels.expit``, ``log_binom_int``, ``log_ndtr_scalar``, ``ndtr``, ``ndtri``,
    ``next_fast_len``, ``numpy.fft``; scipy.special and scipy.fft cost 0.1-0.6 s to import),
    and the CLI leaves NumPy's unused subpackages unexecuted
    (``cli._defer_unused_numpy_subpackages``)."""
    r = subprocess.run([sys.executable, "-c", FIRST_USE.format(argv=argv)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    special, f2py = r.stdout.split("\n")[:2]
    assert special == "[]" and f2py == "_LazyModule", r.stdout[:300]


def test_deferred_numpy_subpackages_still_work_when_used():
    code = ("from dpderive.cli import _defer_unused_numpy_subpackages as d; d(); import numpy; "
            "numpy.testing.assert_allclose(1.0, 1.0); print(numpy.random.default_rng(0).integers(10))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip().isdigit(), r.stderr
