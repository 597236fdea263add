"""Start-up (issue 20, item 2): the registry index on disk, claim files without the seed papers,
the default worker count, and the SymPy budget recorded in a verdict's method."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

TINY = textwrap.dedent("""
    [paper]
    key = "tiny"
    title = "tiny"
    citation = "a test"
    source = "tests"

    [symbols]
    x = { domain = "(0, oo)", search = [0.1, 10] }

    [[claim]]
    id = "sq"
    where = "(1)"
    kind = "identity"
    latex = '(x+1)^2 = x^2 + 2x + 1'
    """)


def run(*args, cache, code=None):
    env = dict(os.environ, DPDERIVE_CACHE=str(cache))
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    argv = ["-c", code] if code else ["-m", "dpderive.cli", *args]
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=str(ROOT),
                          env=env, timeout=1800)


def test_claim_file_never_imports_the_seed_papers(tmp_path):
    f = tmp_path / "tiny.toml"
    f.write_text(TINY)
    code = textwrap.dedent(f"""
        import sys
        from dpderive.cli import main
        assert main(["check", {str(f)!r}, "--workers", "1"]) == 0
        assert main(["list", {str(f)!r}]) == 0
        assert main(["show", "tiny.sq", {str(f)!r}]) == 0
        loaded = [m for m in sys.modules if m.startswith("derive.papers.")]
        assert not loaded, loaded
        """)
    r = run(cache=tmp_path / "cache", code=code)
    assert r.returncode == 0, r.stderr
    assert "tiny.sq" in r.stdout and "proved" in r.stdout


def test_warm_list_show_check_from_the_index_match_the_cold_ones():
    """The first commands load the papers (and build the index) unless the test cache holds it
    already; the later ones read the index and import neither the papers nor SymPy, and print
    the same bytes."""
    cache = os.environ["DPDERIVE_CACHE"]      # the tests' shared cache (conftest): warm after one run
    cold = {k: run(*a, cache=cache) for k, a in (("list", ("list", "--paper", "ghazi_issa")),
                                                   ("check", ("check", "--paper", "ghazi_issa", "--json")),
                                                   ("show", ("show", "ghazi_issa.eq16")))}
    for k, r in cold.items():
        assert r.returncode == 0, (k, r.stderr)
    code = textwrap.dedent("""
        import sys
        from dpderive.cli import main
        for argv in (["list", "--paper", "ghazi_issa"], ["check", "--paper", "ghazi_issa", "--json"],
                     ["show", "ghazi_issa.eq16"]):
            assert main(argv) == 0
            print("=====")
        heavy = [m for m in sys.modules if m.startswith("derive.papers.") or m == "sympy"]
        assert not heavy, heavy
        """)
    r = run(cache=cache, code=code)
    assert r.returncode == 0, r.stderr
    warm = r.stdout.split("=====\n")
    assert warm[0] == cold["list"].stdout
    assert warm[1] == cold["check"].stdout
    assert warm[2] == cold["show"].stdout
    assert json.loads(warm[1]) and "ghazi_issa.eq16" in warm[0]


def test_check_and_report_default_to_the_available_cores():
    from dpderive.cli import available_cores, build_parser
    n = available_cores()
    assert n >= 1
    for cmd in ("check", "report"):
        assert build_parser().parse_args([cmd]).workers is None          # read as available_cores()
        assert build_parser().parse_args([cmd, "--workers", "1"]).workers == 1


def test_budget_recorded_in_the_method():
    import sympy as sp

    from derive.core import Claim, Source
    from derive.verify import check_equal
    from derive.symbols import Param
    x = sp.Symbol("x", positive=True)
    prm = Param(x, sp.Interval.open(0, sp.oo), ("uniform", 0.1, 10.0))
    big = sum(sp.sin(k * x) ** 2 + sp.cos(k * x) ** 2 for k in range(1, 60))
    c = Claim("t.budget", "t", Source("s", "(1)"), "identity", "", "",
              check_fn=lambda: check_equal(big, sp.Integer(59), (prm,), n=4))
    v = c.check()
    assert v.status == "holds_numerically"
    assert "SymPy budget: simplify skipped on 1 expression over 400 ops" in v.method
    small = Claim("t.small", "t", Source("s", "(1)"), "identity", "", "",
                  check_fn=lambda: check_equal(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1), (prm,)))
    assert small.check().status == "proved" and "budget" not in small.check().method


@pytest.mark.parametrize("argv", [["check"], ["report"]])
def test_help_names_the_default(argv, capsys):
    from dpderive.cli import build_parser
    with pytest.raises(SystemExit):
        build_parser().parse_args(argv + ["--help"])
    assert "one per available core" in " ".join(capsys.readouterr().out.split())
