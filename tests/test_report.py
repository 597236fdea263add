"""The report pipeline: reproducible .tex, JSON sidecars, errata, and a PDF
that compiles without undefined references and renders with pdftoppm."""
import json
import os
import shutil
import subprocess

import pytest

from dpderive.report import build

HAVE_TEX = shutil.which("latexmk") is not None and shutil.which("pdftoppm") is not None
if os.environ.get("CI") and not HAVE_TEX:
    raise RuntimeError("CI must install TeX Live (./install.sh): the PDF smoke test cannot be skipped there")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    res = build(out, pdf=HAVE_TEX, figures=True, log=lambda m: None)
    return out, res


def test_tex_is_reproducible(built, tmp_path):
    out, _ = built
    again = tmp_path / "again"
    build(again, pdf=False, figures=False, log=lambda m: None)
    build(tmp_path / "again2", pdf=False, figures=False, log=lambda m: None)
    for name in ("appendix.tex", "asoodeh2021.tex"):
        assert (again / name).read_bytes() == (tmp_path / "again2" / name).read_bytes()


def test_sidecars_and_errata(built):
    out, res = built
    recs = [r for key in ("asoodeh2021", "zheng2020", "ghazi_issa")
            for r in json.loads((out / f"{key}.json").read_text())]
    errata = json.loads((out / "errata.json").read_text())
    assert {e["paper_key"] for e in errata} == {"asoodeh2021", "zheng2020", "ghazi_issa"}
    assert res["errata"] == len(errata) == sum(r["verdict"] == "fails" for r in recs)
    assert all(e["counterexample"] for e in errata)
    md = (out / "errata.md").read_text()
    assert all(e["id"] in md for e in errata)
    tex = (out / "asoodeh2021.tex").read_text()
    assert r"\subsection{Errata}" in tex and "asoodeh2021.sec3.eq13" in tex


@pytest.mark.skipif(not HAVE_TEX, reason="TeX Live not installed (run ./install.sh)")
def test_pdf_smoke(built, tmp_path):
    out, res = built
    pdf = out / "appendix.pdf"
    assert res["pdf"] and pdf.exists()
    log = (out / "appendix.log").read_text(errors="replace")
    assert "undefined references" not in log and "Reference `" not in log
    subprocess.run(["pdftoppm", "-png", "-r", "30", "-f", "1", "-l", "2", str(pdf), str(tmp_path / "pg")],
                   check=True)
    pngs = sorted(tmp_path.glob("pg*.png"))
    assert len(pngs) == 2 and all(p.stat().st_size > 1000 for p in pngs)
