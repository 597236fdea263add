"""The seed papers as declarations (issue 21 part 3): each paper's generic claims live in TOML claim
files beside its modules (derive/papers/<paper>/*.toml, the format users write), loaded after the
paper registers its formulas; a claim's @name is the registered formula itself, not a copy."""
import re
import tomllib
from pathlib import Path

import pytest

from derive import registry
from derive.claimfile import ClaimFile, ClaimFileError

PAPERS = Path(__file__).resolve().parent.parent / "derive" / "papers"
FILES = sorted(p for p in PAPERS.glob("*/*.toml") if p.name != "errata.toml")


def test_every_claim_file_is_registered_under_its_paper():
    registry.load_all()
    assert FILES
    for path in FILES:
        key = path.parent.name
        data = tomllib.loads(path.read_text())
        assert data["paper"] == {"key": key}, path
        for spec in data["claim"]:
            c = registry.CLAIMS[f"{key}.{spec['id']}"]
            assert c.source.location == spec["where"] and c.printed_latex == spec.get("printed", c.printed_latex)
            if "check" in spec or "draw" in spec:    # a custom claim: checked by its module's function
                assert c.checker == "custom" and c.spec is None and c.why_custom == spec["why_custom"], c.id
                continue
            assert c.checker == spec["kind"] and c.spec[0] == spec["kind"], c.id
            assert not c.why_custom


def test_formulas_are_declared_in_the_claim_files():
    """Every formula of a seed paper is a [formulas."NAME"] table of one of its claim files (none is
    declared in Python), each file's in the order they are registered."""
    registry.load_all()
    for key in ("asoodeh2021", "ghazi_issa", "zheng2020"):
        names = [f.name.split(".", 1)[1] for f in registry.FORMULAS.values() if f.paper == key]
        files = [list(tomllib.loads(p.read_text()).get("formulas", {})) for p in PAPERS.glob(f"{key}/*.toml")]
        assert sorted(names) == sorted(n for f in files for n in f), key
        for f in files:
            assert f == [n for n in names if n in f], key
    assert "P.formula(" not in "".join(p.read_text() for p in PAPERS.glob("*/*.py"))


def test_a_custom_claim_names_a_function_of_its_module(tmp_path):
    registry.load_all()
    src = (PAPERS / "ghazi_issa" / "sec7.toml").read_text()
    assert 'check = "' in src
    f = tmp_path / "sec7.toml"
    f.write_text(src.replace('check = "', 'check = "nosuch', 1))
    with pytest.raises(ClaimFileError, match="is not a function of"):
        ClaimFile(f, paper="ghazi_issa")


def test_at_name_is_the_registered_formula():
    registry.load_all()
    c = registry.CLAIMS["ghazi_issa.cor1.range"]
    assert c.spec[2]["bound"] is registry.formula("ghazi_issa.cor1.eta_max").expr
    assert c.formulas == ("ghazi_issa.cor1.eta_max",)


def test_a_paper_file_belongs_to_its_paper(tmp_path):
    registry.load_all()
    src = (PAPERS / "ghazi_issa" / "sec7.toml").read_text()
    f = tmp_path / "sec7.toml"
    f.write_text(src)
    with pytest.raises(ClaimFileError, match="belongs to the built-in paper"):
        ClaimFile(f, paper="zheng2020")
    with pytest.raises(ClaimFileError, match="missing 'title'"):
        ClaimFile(f)                      # read as a user's file, it lacks a title ...
    f.write_text(src.replace('key = "ghazi_issa"', 'key = "ghazi_issa"\ntitle = "t"', 1))
    with pytest.raises(ClaimFileError, match="is a built-in paper"):
        ClaimFile(f)                      # ... and may not take a built-in key
    f.write_text(src)
    f.write_text(src.replace("over = [", "over = [\"nosuch\", ", 1))
    with pytest.raises(ClaimFileError, match="over="):
        ClaimFile(f, paper="ghazi_issa")


def test_errata_are_data():
    from dpderive.errata import grouping_table
    for key in ("asoodeh2021", "ghazi_issa", "zheng2020"):
        data = tomllib.loads((PAPERS / key / "errata.toml").read_text())["erratum"]
        table = grouping_table(key)
        assert [e["key"] for e in data] == [e["key"] for e in table]
        py = (PAPERS / key / "errata.py").read_text()
        assert "dict(" not in py and len(py.splitlines()) <= 5


def test_the_existential_claim_is_generic():
    """footnote 2 of Zheng et al. ("F~_EW is not guaranteed to be a CDF") is an exists claim: its witness,
    enclosed in ball arithmetic, makes (3.7) negative."""
    registry.load_all()
    c = registry.CLAIMS["zheng2020.footnote2"]
    v = c.check()
    assert c.checker == "exists" and v.status == "proved"
    w = dict(re.findall(r"'(\w+)': '([-\d.e]+)'", v.note))
    import mpmath as mp
    import sympy as sp
    f = registry.formula("zheng2020.eq3_7")
    syms = {s.name: s for s in f.expr.free_symbols}
    val = sp.N(f.expr.xreplace({syms[k]: sp.Float(w[k], 30) for k in ("h", "sigma_n", "kappatilde_3", "kappatilde_4")}), 30)
    assert mp.mpf(str(val)) < 0
