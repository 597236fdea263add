"""Figures of 002 rebuild deterministically and the recomputed claims are reported."""
import pytest


@pytest.mark.slow
def test_build_figures(tmp_path):
    from derive.papers.asoodeh2021.figures import build
    res = build(tmp_path)
    assert {f["file"] for f in res["figures"]} == {"fig2_left.pdf", "fig2_right.pdf", "fig3.pdf", "fig4.pdf"}
    b1 = (tmp_path / "fig3.pdf").read_bytes()
    res2 = build(tmp_path)
    assert (tmp_path / "fig3.pdf").read_bytes() == b1
    what = {f["what"]: f for f in res["findings"]}
    assert any("0.75" == f["paper"] for f in res["findings"])
    assert all(isinstance(f["agrees"], bool) for f in res["findings"])


@pytest.mark.slow
def test_zheng_figures(tmp_path):
    """Sec. 5 / App. E of 004 rebuild; every table row's errors are finite numbers and the
    Laplace n = 10 Edgeworth error is small against the certified bracket."""
    from derive.papers.zheng2020.figures import build
    res = build(tmp_path)
    files = {f["file"] for f in res["figures"]}
    assert files == {"zheng_fig5_1.pdf", "zheng_fig5_2.pdf", "zheng_fig5_3.pdf", "zheng_fig5_4.pdf",
                     "zheng_figE_1.pdf", "zheng_figE_2.pdf"}
    assert all((tmp_path / f).stat().st_size > 5000 for f in files)
    lap = next(t for t in res["tables"] if t["caption"].startswith("Laplace"))
    assert [r[0] for r in lap["rows"]] == [str(n) for n in range(1, 11)]
    n10 = lap["rows"][-1]
    assert float(n10[3]) < float(n10[2])            # Edgeworth beats CLT at n = 10 (trade-off curve)
    assert all(isinstance(f["agrees"], bool) for f in res["findings"])
