"""The README's accountant examples run (as prv_accountant's tests/test_readme.py does):
every ``dpderive`` line of the block after ``<!-- accountant-examples -->`` exits 0 with
no output on stderr, JSON lines parse and name the route and the bracket, the plot is written."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from dpderive.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _commands():
    text = (ROOT / "README.md").read_text()
    block = text.split("<!-- accountant-examples -->", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.startswith("dpderive ")]


def test_readme_has_the_three_required_examples():
    cmds = " ".join(_commands())
    assert "--epochs" in cmds and "--batch-size" in cmds and "--dataset-size" in cmds
    assert "examples/laplace_gaussian.json" in cmds and "examples/two_phase.json" in cmds
    spec = json.loads((ROOT / "examples" / "two_phase.json").read_text())
    assert len({e["sigma"] for e in spec}) == 2          # a two-phase sigma schedule
    kinds = {e["mechanism"] for e in json.loads((ROOT / "examples" / "laplace_gaussian.json").read_text())}
    assert kinds == {"laplace", "gaussian"}


@pytest.mark.parametrize("line", _commands())
def test_readme_command_runs(line, tmp_path, monkeypatch, capsys):
    argv = [a if not a.startswith("examples/") else str(ROOT / a) for a in shlex.split(line)[1:]]
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 0
    out = capsys.readouterr()
    assert out.err == "" and out.out.strip()
    if "--json" in argv:
        recs = json.loads(out.out)
        for rec in recs if isinstance(recs, list) else [recs]:
            assert rec["route"] in ("rdp", "pld") and rec["guarantee"] is True
            assert rec["epsilon_lower"] <= rec["epsilon"] == rec["epsilon_upper"]
    if "--plot" in argv:
        assert (tmp_path / argv[argv.index("--plot") + 1]).stat().st_size > 1000
