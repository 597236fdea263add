"""``dpderive tradeoff``: values against closed forms computed here with mpmath,
one-line errors with exit status 2."""
import json
import math

import mpmath as mp
import pytest

from dpderive.cli import main


def _gauss_delta(eps, mu):
    """delta(eps) of N(mu,1) vs N(0,1) by quadrature of the definition (derive.truths.gauss_delta)."""
    from derive import truths
    return truths.gauss_delta(eps, mu)


def _run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_exact_gaussian_curve_and_epsilon(capsys):
    rc, out, _ = _run(capsys, "tradeoff", "--sigma", "2", "--steps", "9", "--points", "7", "--json",
                      "--delta", "1e-6")
    assert rc == 0
    res = json.loads(out)
    mu = 3 / 2
    assert res["method"] == "exact" and res["guarantee"] is True
    for a, b in zip(res["alpha"], res["beta"]):
        with mp.workdps(30):
            want = mp.ncdf(mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf(a)) - mu) if 0 < a < 1 else 1 - a
        assert b == pytest.approx(float(want), abs=1e-14)
    e = res["epsilon_at_delta"]
    assert _gauss_delta(e, mu) <= 1e-6 < _gauss_delta(e * (1 - 1e-9), mu)
    assert res["area"] == pytest.approx(0.5 - float(mp.ncdf(-mu / mp.sqrt(2))), rel=1e-12)


def test_clt_is_labelled_an_approximation(capsys, tmp_path):
    plot = tmp_path / "curve.png"
    rc, out, _ = _run(capsys, "tradeoff", "--sigma", "1", "--sampling-rate", "0.01", "--steps", "400",
                      "--method", "clt", "--json", "--plot", str(plot))
    res = json.loads(out)
    assert rc == 0 and res["guarantee"] is False and plot.stat().st_size > 1000
    mu = 0.01 * math.sqrt(400 * math.expm1(1.0))
    assert res["curve"] == f"Gaussian(mu={mu!r})"


@pytest.mark.parametrize("argv, name", [
    (("--sigma", "0"), "sigma"),
    (("--sigma", "1", "--sampling-rate", "1.5"), "sampling_rate"),
    (("--sigma", "1", "--points", "1"), "points"),
    (("--sigma", "1", "--delta", "1"), "delta"),
    (("--sigma", "1", "--sampling-rate", "0.1", "--method", "exact"), "method"),
])
def test_bad_input_one_line_exit_2(capsys, argv, name):
    rc, out, err = _run(capsys, "tradeoff", *argv)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"error: {name}=")
