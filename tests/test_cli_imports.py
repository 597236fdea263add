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
