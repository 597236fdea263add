"""The command line: one-line errors with exit status 2, JSON records."""
import json
import subprocess
import sys


from dpderive.cli import main


def run(*args):
    return subprocess.run([sys.executable, "-m", "dpderive.cli", *args], capture_output=True, text=True)


def test_unknown_paper_one_line_exit_2():
    r = run("check", "--paper", "nope")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "--paper" in r.stderr


def test_bad_flag_one_line_exit_2():
    r = run("check", "--bogus")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_show_unknown_name(capsys):
    assert main(["show", "nothing.here"]) == 2


def test_show_formula(capsys):
    assert main(["show", "asoodeh2021.thm4.f"]) == 0
    out = capsys.readouterr().out
    # the paper is cited as an author cites it, the seed file kept beside it
    assert "Asoodeh et al. 2021, eq. (23) (002_681a0562af0ee53f.txt)" in out and "d/ddelta" in out


def test_check_json_records(capsys):
    assert main(["check", "--paper", "asoodeh2021", "--json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    assert len(recs) >= 20
    keys = {"id", "paper", "location", "kind", "verdict", "printed_latex", "derived_latex",
            "counterexample", "note"}
    for r in recs:
        assert keys <= set(r)
        assert r["verdict"] in ("proved", "holds_numerically", "fails", "artifact", "inconclusive")
        if r["verdict"] == "fails":
            assert r["counterexample"]
    assert any(r["location"] == "(20)" for r in recs)
