"""The parse cache (issue 31): the committed cache is complete for the built-in papers, the
examples and the benchmark corpus (a fresh install runs no ANTLR parse for them), and a run
never writes into the package: a claim file's new LaTeX goes to the user's cache."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("derive", "dpderive", "numeric")


def _run(code: str, cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, DPDERIVE_CACHE=str(cache), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600)


def _tree() -> dict:
    """(size, mtime) of every file of the packages."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns)
            for pkg in PACKAGES for p in (ROOT / pkg).rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_the_committed_cache_covers_every_built_in_paper_example_and_corpus_file(tmp_path):
    code = """
import glob, sys
import derive.papers
from derive import parse, registry
from derive.claimfile import load_file
registry.load_all()
for f in sorted(glob.glob('examples/*.toml') + glob.glob('benchmarks/corpus/*.toml') + glob.glob('benchmarks/corpus/papers/*.toml')):
    load_file(f)
print(parse.MISSES[0])
"""
    r = _run(code, tmp_path / "cache")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-1] == "0", ("ANTLR parses on a fresh install; run "
                                         "`python -m derive.parse_refresh`")
    assert not (tmp_path / "cache" / "parse").exists()     # nothing new to remember


def test_a_new_formula_goes_to_the_user_cache_not_the_package(tmp_path):
    claims = tmp_path / "fresh.toml"
    claims.write_text('[paper]\nkey = "fresh34"\ntitle = "t"\ncitation = "c"\n\n[symbols]\n'
                      'x = { domain = "(0, 1)" }\n\n[[claim]]\nid = "c"\nwhere = "(1)"\nkind = "inequality"\n'
                      'latex = "x^{7} + \\\\frac{x}{13} \\\\le \\\\frac{14}{13}"\n', encoding="utf-8")
    before = _tree()
    code = "import sys; from dpderive.cli import main; sys.exit(main(['check', sys.argv[1], '--workers', '1']))"
    r = _run(code, tmp_path / "cache", str(claims))
    assert r.returncode == 0, r.stderr
    assert "fresh34.c" in r.stdout
    assert _tree() == before                                 # the package is untouched
    user = json.loads((tmp_path / "cache" / "parse" / "parse_cache.json").read_text())
    assert any("x^{7}" in k for k in user["entries"])
    # the next process finds it there: no ANTLR parse
    code = ("import sys; from derive import parse; from derive.claimfile import load_file; "
            "load_file(sys.argv[1]); print(parse.MISSES[0])")
    r = _run(code, tmp_path / "cache", str(claims))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-1] == "0"
