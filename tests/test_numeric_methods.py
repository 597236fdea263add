"""The f-DP accounting methods (numeric.methods) and their CLI, against the
closed-form privacy profile of the Gaussian mechanism (computed here with mpmath)."""
import json
import math

import mpmath as mp
import pytest

from derive.core import DomainError
from dpderive.cli import main
from numeric import methods as M


def _delta_true(eps, mu):
    with mp.workdps(40):
        eps, mu = mp.mpf(eps), mp.mpf(mu)
        return mp.ncdf(-eps / mu + mu / 2) - mp.e ** eps * mp.ncdf(-eps / mu - mu / 2)


def _bisect(fn, lo, hi, iters=150):
    """The root of a function increasing from fn(lo) < 0 to fn(hi) > 0, by bisection."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    for _ in range(iters):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if fn(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def _eps_true(delta, mu):
    with mp.workdps(40):
        return _bisect(lambda e: delta - _delta_true(e, mu), 0, 60)


def test_pld_brackets_the_gaussian_truth():
    sigma, T, d = 3.0, 50, 1e-6
    res = M.epsilon(sigma, 1.0, T, d, method="pld")
    true = float(_eps_true(d, math.sqrt(T) / sigma))
    x = res.extras
    assert x["epsilon_lower"] <= true <= x["epsilon_upper"] == res.value
    assert (x["epsilon_upper"] - true) / true < 1e-3
    dr = M.delta(sigma, 1.0, T, 2.0, method="pld")
    dt = float(_delta_true(2.0, math.sqrt(T) / sigma))
    assert dr.extras["delta_lower"] <= dt <= dr.value


def test_approximations_are_labelled_and_compared():
    res = M.epsilon(1.0, 0.01, 400, 1e-5, method="clt")
    x = res.extras
    assert x["guarantee"] is False and x["approximation"] is True
    assert x["pld_epsilon_lower"] <= x["pld_epsilon_upper"]
    assert x["relative_distance_to_pld"] == pytest.approx(
        abs(res.value - x["pld_epsilon_upper"]) / x["pld_epsilon_upper"])
    # without subsampling the CLT is exact
    e = M.epsilon(2.0, 1.0, 16, 1e-5, method="clt").value
    assert e == pytest.approx(float(_eps_true(1e-5, 2.0)), rel=1e-9)


def test_pld_calibration_is_sound_and_tight():
    from numeric import account, events as EV          # the one calibrator (issue 22)

    def cal(method):
        return account.calibrate(lambda s: [EV.Event(EV.Gaussian(s), None, 10)], 1.0, 1e-5, "sigma",
                                 1e-3, 1e6, method=method)
    res = cal("pld")
    # the exact sigma: eps(delta) of G_{sqrt(10)/sigma} equals 1
    with mp.workdps(30):
        s_true = _bisect(lambda s: mp.mpf("1e-5") - _delta_true(1, mp.sqrt(10) / s), 1, 20)
    assert float(s_true) * (1 - 1e-9) <= res.value <= float(s_true) * (1 + 2e-3)
    assert res.epsilon <= 1.0
    with pytest.raises(DomainError) as ei:
        cal("clt")
    assert ei.value.name == "method"


def test_cli_methods(capsys):
    assert main(["epsilon", "--sigma", "2", "--steps", "4", "--delta", "1e-5", "--method", "pld",
                 "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    true = float(_eps_true(1e-5, 1.0))
    assert res["epsilon_lower"] <= true <= res["epsilon_upper"] == res["epsilon"]
    assert main(["epsilon", "--sigma", "2", "--steps", "4.5", "--delta", "1e-5", "--method", "pld"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: steps=4.5") and err.count("\n") == 1
