"""The report pipeline: reproducible bytes, JSON sidecars, grouped errata, and a PDF that compiles
without undefined references or overfull boxes and renders with pdftoppm."""
import json
import os
import shutil
import subprocess

import pytest

from dpderive.errata import grouping_table
from dpderive.report import build, split_measured

HAVE_TEX = shutil.which("latexmk") is not None and shutil.which("pdftoppm") is not None
if os.environ.get("CI") and not HAVE_TEX:
    raise RuntimeError("CI must install TeX Live (./install.sh): the PDF smoke test cannot be skipped there")

PAPERS = ("asoodeh2021", "zheng2020", "ghazi_issa")
GENERATED = ("appendix.tex", "errata.tex", "errata.md", "errata.json") + tuple(
    f"{k}.{ext}" for k in PAPERS for ext in ("tex", "json"))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    res = build(out, pdf=HAVE_TEX, figures=True, log=lambda m: None)
    return out, res


@pytest.mark.slow
def test_two_builds_give_identical_bytes(tmp_path):
    """Two builds (fresh processes would re-check every claim; here the second build re-renders
    from the same checks, and a figure build runs twice) give byte-identical .tex, .md and .json."""
    a, b = tmp_path / "a", tmp_path / "b"
    build(a, pdf=False, figures=False, log=lambda m: None)
    build(b, pdf=False, figures=False, log=lambda m: None)
    for name in GENERATED:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    # one paper with its reproductions (figure findings and tables included), built twice
    ga, gb = tmp_path / "ga", tmp_path / "gb"
    build(ga, papers=["ghazi_issa"], pdf=False, figures=True, log=lambda m: None)
    build(gb, papers=["ghazi_issa"], pdf=False, figures=True, log=lambda m: None)
    for name in ("ghazi_issa.tex", "errata.md", "errata.json", "errata.tex"):
        assert (ga / name).read_bytes() == (gb / name).read_bytes(), name
    assert "time to build" not in (ga / "ghazi_issa.tex").read_text()


def test_measured_items_are_split_off():
    extras = {"figures": [], "tables": [{"caption": "Table 1: seconds", "measured": True, "rows": []},
                                        {"caption": "errors", "rows": []}],
              "findings": [{"what": "time", "measured": True}, {"what": "value"}]}
    keep, measured = split_measured(extras)
    assert [t["caption"] for t in keep["tables"]] == ["errors"] and [f["what"] for f in keep["findings"]] == ["value"]
    assert len(measured["tables"]) == 1 and len(measured["findings"]) == 1


def test_generated_files_carry_no_timings(built):
    """Every measured item (run times of this machine) is in timings.json and in no generated file.
    (The paper's own run times, e.g. Table 1's 21.4 s, are claims of the paper and stay.)"""
    out, _ = built
    timings = json.loads((out / "timings.json").read_text())
    measured = [x.get("caption") or x.get("what") for parts in timings.values() for items in parts.values()
                for x in items]
    assert len(measured) >= 4          # Tables 1 and 2 of Zheng et al., their findings, Ghazi-Issa's build time
    for name in GENERATED:
        text = (out / name).read_text()
        for m in measured:
            assert m[:40] not in text, (name, m)
        assert "time to build" not in text, name


def test_sidecars_and_errata(built):
    out, res = built
    recs = [r for key in PAPERS for r in json.loads((out / f"{key}.json").read_text())]
    rep = json.loads((out / "errata.json").read_text())
    errata = rep["errata"]
    failing = {r["id"] for r in recs if r["verdict"] == "fails"}
    in_errata = [c["id"] for e in errata for c in e["claims"]]
    assert sorted(in_errata) == sorted(failing)                   # every failing claim, exactly once
    assert res["errata"] == len(errata) < len(failing)           # grouped: fewer errata than failing claims
    assert {e["paper_key"] for e in errata} == set(PAPERS)
    assert all(c["counterexample"] for e in errata for c in e["claims"])
    from dpderive.errata import GRADES
    assert all(e["severity"] in GRADES for e in errata)
    assert all(e["judgement"] in ("typo", "wrong but harmless", "changes a stated result") for e in errata)
    assert {a["id"] for a in rep["transcription_artifacts"]} == {r["id"] for r in recs if r["verdict"] == "artifact"}
    assert all(r["citation"] for r in recs) and all(r["paper"].endswith(".txt") for r in recs)
    md = (out / "errata.md").read_text()
    assert md.index("## Summary") < md.index("## 1.")
    if rep["transcription_artifacts"]:            # the section is there only when there are artifacts
        assert md.index("## 1.") < md.index("## Transcription artifacts")
    else:
        assert "## Transcription artifacts" not in md
    assert all(e["title"] in md for e in errata) and "```diff" in md
    assert "Asoodeh et al. 2021, eq. (28)" in md and "002_681a0562af0ee53f.txt (28)" not in md
    # the merged App. H entry lists all four locations
    apph = next(e for e in errata if e["key"] == "asoodeh2021.appH_mass_at_zero")
    assert len(apph["locations"]) == 4
    tex = (out / "errata.tex").read_text()
    assert r"\wrongterm{" in tex and r"\rightterm{" in tex and '{"params"' not in tex
    for key in PAPERS:
        assert '{"params"' not in (out / f"{key}.tex").read_text()


def test_grouping_tables_name_only_registered_claims():
    import derive
    derive.load_all()
    from derive import registry
    for key in PAPERS:
        for e in grouping_table(key):
            assert all(c in registry.CLAIMS for c in e["claims"]), e["key"]


@pytest.mark.skipif(not HAVE_TEX, reason="TeX Live not installed (run ./install.sh)")
def test_pdf_smoke(built, tmp_path):
    out, res = built
    pdf = out / "appendix.pdf"
    assert res["pdf"] and pdf.exists()
    log = (out / "appendix.log").read_text(errors="replace")
    assert "undefined references" not in log and "Reference `" not in log
    assert log.count("Overfull") == 0, "overfull boxes: " + "\n".join(
        ln for ln in log.splitlines() if ln.startswith("Overfull"))[:2000]
    subprocess.run(["pdftoppm", "-png", "-r", "30", "-f", "1", "-l", "2", str(pdf), str(tmp_path / "pg")],
                   check=True)
    pngs = sorted(tmp_path.glob("pg*.png"))
    assert len(pngs) == 2 and all(p.stat().st_size > 1000 for p in pngs)


def test_table_numbers_are_typeset_as_math():
    from dpderive.report import _sci_tex
    assert _sci_tex(5.212e-6) == r"5.212\times 10^{-6}"
    assert _sci_tex(41790.3) == r"4.179\times 10^{4}"
    assert _sci_tex(9999.7) == r"1.0\times 10^{4}"          # rounding carries into the exponent
    assert _sci_tex(0.08825) == "0.08825" and _sci_tex(1411.0) == "1411.0"


def test_prose_keeps_latex_spans_and_typesets_the_rest():
    """A generated erratum's title mixes LaTeX spans ($...$, passed through) with ASCII prose (typeset)."""
    from dpderive.render import prose
    out = prose(r"the printed bound $\frac{1}{\sigma}$ fails for alpha > 1: at $\delta = 0.1$ it is 2")
    assert r"the printed bound $\frac{1}{\sigma}$ fails for " in out
    assert r"$\alpha" in out and r"at $\delta = 0.1$ it is 2" in out
    assert prose("costs 5 $ alone") == r"costs 5 \$ alone"
