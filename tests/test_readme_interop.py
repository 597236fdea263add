"""README's "In a training loop" tutorial runs: the Python block (dp_accounting's interface,
the Opacus accountant and the stateful API give the same epsilon) and the risk commands
(the plot is written, calibration meets its target)."""
from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from dpderive.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _block(marker, lang):
    text = (ROOT / "README.md").read_text()
    return text.split(marker, 1)[1].split(f"```{lang}", 1)[1].split("```", 1)[0]


def test_tutorial_python_block_runs(capsys):
    pytest.importorskip("dp_accounting", reason="dp_accounting not installed (extra [interop])")
    pytest.importorskip("opacus", reason="opacus not installed (extra [opacus])")
    ns: dict = {}
    exec(compile(_block("<!-- interop-tutorial -->", "python"), "README.md", "exec"), ns)
    assert ns["eps_dpa"] == ns["eps_opacus"] == ns["best"].value
    assert ns["best"].lower <= ns["best"].value <= ns["per_step"].value
    assert ns["restored"].steps == 1000
    assert "epsilon = " in capsys.readouterr().out


@pytest.mark.parametrize("line", [x for x in _block("<!-- risk-examples -->", "bash").splitlines()
                                  if x.startswith("dpderive ")])
def test_risk_commands_run(line, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(shlex.split(line)[1:]) == 0
    out = capsys.readouterr()
    assert out.out.strip()
    if "--plot" in line:
        assert (tmp_path / "risk.png").stat().st_size > 1000
    if "--target-tpr" in line:
        assert out.out.startswith("sigma = ")
