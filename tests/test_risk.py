"""numeric.risk and `dpderive risk`: certified advantage / TPR@FPR against closed forms and
riskcal; calibration to a TPR@FPR target from Python and the CLI; bad input exits 2."""
import json
import math
import subprocess
import sys
import warnings

import pytest

from numeric import Event, Gaussian, Laplace, Poisson, WithoutReplacement
from numeric.kernels import ndtr, ndtri
from numeric.risk import calibrate_risk, risk

RISKCAL_TOL = 1e-3       # riskcal's default tolerance (beta_tol) on beta


def test_exact_gaussian_closed_forms():
    mu = math.sqrt(10) / 2.0
    r = risk([Event(Gaussian(2.0), None, 10)], [0.01, 0.1])
    assert r.route == "exact"
    for a in (0.01, 0.1):
        truth = 1 - float(ndtr(float(ndtri(1 - a)) - mu))
        assert r.tpr_lower[a] <= truth <= r.tpr[a] and r.tpr[a] - truth < 1e-12
    adv = 2 * float(ndtr(mu / 2)) - 1
    assert r.advantage_lower <= adv <= r.advantage


def test_pld_bracket_orders_and_limits():
    r = risk([Event(Gaussian(1.1), Poisson(0.01), 2000)], [0.0, 0.001, 0.01, 0.5, 1.0])
    assert r.route == "pld"
    for a in r.tpr:
        assert a <= r.tpr_lower[a] <= r.tpr[a] <= 1.0
    assert r.tpr[1.0] == 1.0
    assert [r.tpr[a] for a in sorted(r.tpr)] == sorted(r.tpr.values())
    assert 0 < r.advantage_lower <= r.advantage < 1
    # advantage = max_a TPR(a) - a
    assert max(r.tpr[a] - a for a in r.tpr) <= r.advantage + 1e-12
    # other mechanisms and fixed batches are accounted too
    assert risk([Event(Laplace(5.0), Poisson(0.05), 100)]).advantage < 1
    fixed = risk([Event(Gaussian(2.0, 2.0), WithoutReplacement(256, 60000), 234)], [0.01], "replace_one")
    assert fixed.tpr_lower[0.01] <= fixed.tpr[0.01]


@pytest.mark.parametrize("sigma,q,T", [(2.0, 0.01, 1000), (1.5, 0.1, 100), (1.0, 1.0, 10)])
def test_against_riskcal(sigma, q, T):
    pytest.importorskip("riskcal", reason="riskcal not installed (extra [risk])")
    warnings.simplefilter("ignore")
    from riskcal.calibration.dpsgd import get_advantage_for_dpsgd, get_beta_for_dpsgd
    fprs = [0.01, 0.1]
    beta = get_beta_for_dpsgd(sigma, q, T, fprs)
    adv = get_advantage_for_dpsgd(sigma, q, T)
    r = risk([Event(Gaussian(sigma), Poisson(q) if q < 1 else None, T)], fprs)
    for a, b in zip(fprs, beta):
        theirs = 1 - float(b)
        assert r.tpr[a] >= theirs - RISKCAL_TOL                       # never below by more than its error
        assert abs(r.tpr[a] - theirs) <= RISKCAL_TOL + (r.tpr[a] - r.tpr_lower[a])   # close
    assert r.advantage >= adv - RISKCAL_TOL
    assert abs(r.advantage - adv) <= RISKCAL_TOL + (r.advantage - r.advantage_lower)


def test_calibrate_sigma_to_tpr_and_steps_to_advantage():
    make = lambda s: [Event(Gaussian(s), Poisson(0.01), 1000)]          # noqa: E731
    rec = calibrate_risk(make, "sigma", 0.3, 100.0, target_tpr=0.1, at_fpr=0.01)
    s = rec["sigma"]
    assert rec["tpr"] <= 0.1
    assert risk(make(s * 0.995), [0.01], bounds="upper").tpr[0.01] > 0.1
    rec = calibrate_risk(lambda t: [Event(Gaussian(1.0), Poisson(0.01), int(t))], "steps", 1, 10**6,
                         target_advantage=0.1, integer=True)
    t = rec["steps"]
    assert rec["advantage"] <= 0.1
    assert risk([Event(Gaussian(1.0), Poisson(0.01), t + 1)], [], bounds="upper").advantage > 0.1
    with pytest.raises(ValueError):
        calibrate_risk(make, "sigma", 0.3, 100.0, target_tpr=0.005, at_fpr=0.01)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "dpderive.cli", *args], capture_output=True, text=True)


def test_cli_risk_and_calibrate(tmp_path):
    p = _cli("risk", "--sigma", "2", "--sampling-rate", "0.01", "--steps", "1000", "--at-fpr", "0.01,0.1",
             "--json")
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    assert rec["route"] == "pld" and [x["fpr"] for x in rec["tpr_at_fpr"]] == [0.01, 0.1]
    r = risk([Event(Gaussian(2.0), Poisson(0.01), 1000)], [0.01])
    assert rec["tpr_at_fpr"][0]["tpr"] == pytest.approx(r.tpr[0.01], rel=1e-12)
    png = tmp_path / "risk.png"
    p = _cli("risk", "--sigma", "2", "--sampling-rate", "0.01", "--steps", "1000", "--plot", str(png))
    assert p.returncode == 0 and png.stat().st_size > 1000 and "TPR at FPR 0.01 <=" in p.stdout
    p = _cli("calibrate", "--target-tpr", "0.1", "--at-fpr", "0.01", "--sampling-rate", "0.01",
             "--steps", "1000", "--json")
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    assert rec["solved_for"] == "sigma" and rec["tpr"] <= 0.1 and 0.5 < rec["sigma"] < 0.8
    p = _cli("risk", "--sampling-rate", "0.01", "--steps", "1000", "--calibrate", "sigma",
             "--target-tpr", "0.1", "--at-fpr", "0.01", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["sigma"] == pytest.approx(rec["sigma"], rel=1e-9)
    # the (epsilon, delta) calibration is unchanged
    p = _cli("calibrate", "--epsilon", "3", "--delta", "1e-5", "--sampling-rate", "0.01", "--steps", "100")
    assert p.returncode == 0 and p.stdout.startswith("sigma = ")


@pytest.mark.parametrize("args,name", [
    (("risk", "--sigma", "1", "--at-fpr", "2"), "at_fpr"),
    (("risk", "--sigma", "-1"), "sigma"),
    (("risk", "--sigma", "1", "--sampling-rate", "1.5"), "sampling_rate"),
    (("risk", "--sigma", "1", "--target-tpr", "0.1"), "target_tpr"),
    (("calibrate", "--target-tpr", "0.001", "--at-fpr", "0.01", "--steps", "10"), "target_tpr"),
    (("calibrate", "--target-tpr", "0.1", "--at-fpr", "0.01,0.1", "--steps", "10"), "at_fpr"),
    (("calibrate", "--target-advantage", "1.5", "--steps", "10"), "target_advantage"),
    (("calibrate", "--sigma", "1", "--steps", "10"), "epsilon"),
    (("calibrate", "--target-tpr", "0.1", "--epsilon", "1", "--steps", "10"), "epsilon"),
])
def test_cli_bad_input_one_line_exit_2(args, name):
    p = _cli(*args)
    assert p.returncode == 2
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and name in lines[0]
