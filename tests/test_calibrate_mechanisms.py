"""``calibrate`` solves for the noise parameter of every mechanism: Gaussian and discrete
Gaussian sigma, Laplace scale (larger = more private: the smallest meeting the target) and
randomized response's epsilon (smaller = more private: the largest meeting the target).

Each answer is checked by recomputing the certified epsilon (default route ``best``) at the
answer, which must meet the target, and at the answer nudged by 1% toward less noise, which
must exceed it (a property the solver can fail: a bracket end returned too early, or the
wrong direction, does not pass).  Contradictory flags get the one-line error, exit 2."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from derive.errors import DomainError
from numeric import account
from numeric import events as EV

ROOT = Path(__file__).resolve().parent.parent
DELTA = 1e-5

# (CLI flags, mechanism factory of the noise parameter, sampling, steps, neighbouring, key)
CASES = {
    "gaussian-poisson": (["--sampling-rate", "0.01", "--steps", "1000"],
                         lambda x: EV.Gaussian(x), EV.Poisson(0.01), 1000, "add_remove", "sigma"),
    "dgauss-poisson": (["--mechanism", "dgauss", "--sampling-rate", "0.01", "--steps", "1000"],
                       lambda x: EV.DiscreteGaussian(x), EV.Poisson(0.01), 1000, "add_remove", "sigma"),
    "dgauss-fixed": (["--mechanism", "dgauss", "--sensitivity", "2", "--batch-size", "100",
                      "--dataset-size", "10000", "--sampling", "fixed", "--steps", "200"],
                     lambda x: EV.DiscreteGaussian(x, 2), EV.WithoutReplacement(100, 10000), 200,
                     "replace_one", "sigma"),
    "laplace-plain": (["--mechanism", "laplace", "--steps", "20"],
                      lambda x: EV.Laplace(x), None, 20, "add_remove", "scale"),
    "laplace-poisson": (["--mechanism", "laplace", "--sampling-rate", "0.01", "--steps", "1000"],
                        lambda x: EV.Laplace(x), EV.Poisson(0.01), 1000, "add_remove", "scale"),
    "rr-plain": (["--mechanism", "rr", "--steps", "10"],
                 lambda x: EV.RandomizedResponse(x), None, 10, "add_remove", "rr_epsilon"),
    "rr-fixed": (["--mechanism", "rr", "--batch-size", "100", "--dataset-size", "10000",
                  "--sampling", "fixed", "--steps", "500"],
                 lambda x: EV.RandomizedResponse(x), EV.WithoutReplacement(100, 10000), 500,
                 "replace_one", "rr_epsilon"),
}


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "dpderive.cli", *args], capture_output=True,
                          text=True, cwd=ROOT)


def _eps(case, x):
    _, mech, samp, steps, nb, _ = CASES[case]
    return account.epsilon([EV.Event(mech(x), samp, steps)], DELTA, "best", nb).value


@pytest.mark.parametrize("case", sorted(CASES))
def test_cli_calibrates_the_noise_parameter(case):
    flags, _, _, _, _, key = CASES[case]
    target = 1.0
    r = _cli("calibrate", "--epsilon", str(target), "--delta", str(DELTA), *flags, "--json")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    rec = json.loads(r.stdout)
    x = rec[key]
    assert rec["solved_for"] == key and rec["epsilon_achieved"] <= target
    assert _eps(case, x) <= target                         # recomputed: meets the target
    less_noise = x * 1.01 if key == "rr_epsilon" else x * 0.99
    assert _eps(case, less_noise) > target, (x, _eps(case, less_noise))


def test_default_solve_is_the_mechanisms_own_parameter():
    """Without --solve, calibrate solves for the mechanism's noise (the same answer as naming it)."""
    flags = CASES["laplace-plain"][0]
    a = _cli("calibrate", "--epsilon", "1", "--delta", str(DELTA), *flags, "--json")
    b = _cli("calibrate", "--epsilon", "1", "--delta", str(DELTA), *flags, "--solve", "scale", "--json")
    assert a.returncode == b.returncode == 0
    assert json.loads(a.stdout)["scale"] == json.loads(b.stdout)["scale"]


def test_api_direction_is_explicit_or_read_from_the_parameter():
    """account.calibrate: decreasing=False finds the largest rr epsilon; with the direction
    reversed the solver takes hi = 5 for the private end, finds it misses the target and says
    so (the flag matters); ``None`` reads "scale" as decreasing."""
    make = lambda e: [EV.Event(EV.RandomizedResponse(e), None, 10)]          # noqa: E731
    up = account.calibrate(make, 1.0, DELTA, "rr_epsilon", 1e-3, 5.0, decreasing=False)
    assert up.extras["epsilon_achieved"] <= 1.0
    assert account.epsilon(make(up.value * 1.01), DELTA).value > 1.0
    with pytest.raises(DomainError, match="rr_epsilon = 5"):
        account.calibrate(make, 1.0, DELTA, "rr_epsilon", 1e-3, 5.0, decreasing=True)
    lap = lambda b: [EV.Event(EV.Laplace(b), None, 20)]                        # noqa: E731
    s = account.calibrate(lap, 1.0, DELTA, "scale", 0.05, 1e5)
    assert account.epsilon(lap(s.value), DELTA).value <= 1.0 < account.epsilon(lap(s.value * 0.99), DELTA).value
    # pure Laplace composition: epsilon = T/scale at delta -> 0; at delta = 1e-5 a little less
    assert s.value <= 20.0


@pytest.mark.parametrize("args,name", [
    (["--solve", "scale"], "solve"),                                  # gaussian has sigma
    (["--mechanism", "dgauss", "--solve", "rr-epsilon"], "solve"),
    (["--mechanism", "laplace", "--solve", "sigma"], "solve"),
    (["--mechanism", "rr", "--solve", "scale"], "solve"),
    (["--mechanism", "laplace", "--scale", "2", "--solve", "scale"], "scale"),
    (["--mechanism", "rr", "--rr-epsilon", "1", "--solve", "rr-epsilon"], "rr_epsilon"),
    (["--mechanism", "dgauss", "--sigma", "2"], "sigma"),
    (["--mechanism", "laplace", "--sigma", "2"], "sigma"),
    (["--mechanism", "rr", "--sensitivity", "2"], "sensitivity"),
    (["--mechanism", "dgauss", "--sensitivity", "1.5"], "sensitivity"),
    (["--mechanism", "laplace", "--sensitivity", "-1"], "sensitivity")])
def test_contradictory_flags_are_one_line_exit_2(args, name):
    r = _cli("calibrate", "--epsilon", "1", "--delta", "1e-5", "--steps", "10", *args)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"error: {name}") and r.stdout == "", r.stderr
    if name == "solve":
        assert "for --mechanism" in r.stderr
