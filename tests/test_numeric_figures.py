"""Figures of 002 rebuild deterministically and the recomputed claims are reported."""
import pytest


@pytest.mark.slow
def test_build_figures(tmp_path):
    from dpderive.figures_asoodeh import build
    res = build(tmp_path)
    assert {f["file"] for f in res["figures"]} == {"fig2_left.pdf", "fig2_right.pdf", "fig3.pdf", "fig4.pdf"}
    b1 = (tmp_path / "fig3.pdf").read_bytes()
    res2 = build(tmp_path)
    assert (tmp_path / "fig3.pdf").read_bytes() == b1
    what = {f["what"]: f for f in res["findings"]}
    assert any("0.75" == f["paper"] for f in res["findings"])
    assert all(isinstance(f["agrees"], bool) for f in res["findings"])
