"""Issue 22, the one-line promise: the ten calls that broke it, user errors vs bugs (exit 2 vs
70, ``--debug``), and the sweep's query path (no ``cli.main``, no import cycle)."""
import contextlib
import io
import json
import math
import subprocess
import sys
import warnings

import pytest

from dpderive.cli import main


def run(argv):
    """(exit status, stdout, stderr) of ``dpderive argv`` in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("error")
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def answer(argv):
    rc, out, err = run(argv + ["--json"])
    assert rc == 0 and err == "", (rc, err)
    return json.loads(out)


def user_error(argv, *words):
    rc, out, err = run(argv)
    assert rc == 2 and out == "", (rc, out, err)
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: "), err
    assert "Traceback" not in err
    for w in words:
        assert w in err, (w, err)
    return err


@pytest.mark.parametrize("sigma", ["1e-300", "1e-200"])
def test_tiny_sigma_is_epsilon_inf_stated(sigma):
    """was: OverflowError traceback in account._gaussian_mu.  mu = sqrt(T)/sigma > 1e150:
    eps(delta) > mu^2/4 beyond the largest double, so inf is the truth to double precision."""
    argv = ["epsilon", "--sigma", sigma, "--steps", "10", "--delta", "1e-5"]
    rec = answer(argv)
    assert rec["epsilon"] == "inf" and rec["finite"] is False
    assert rec["epsilon_lower"] > 1e300                   # the truth is above mu^2/4
    rc, out, err = run(argv)
    assert rc == 0 and out.startswith("epsilon = inf (no finite epsilon is certified") and err == ""


def test_tiny_sigma_subsampled_blames_no_flag():
    """was: "method='rdp' is outside the allowed range" (a flag the user never set)."""
    rc, out, err = run(["epsilon", "--sigma", "1e-300", "--sampling-rate", "0.01", "--steps", "100",
                        "--delta", "1e-5"])
    assert rc == 0 and err == "" and "method=" not in out
    assert out.startswith("epsilon = inf (no finite epsilon is certified at delta = 1e-05)")


@pytest.mark.parametrize("sampling", [["--sampling-rate", "0.01"], []])
def test_huge_epsilon_gives_delta_zero_to_double_precision(sampling):
    """was: alpha=nan / delta='inf' errors.  delta(1e300) underflows: the certified upper
    bound is at most 1e-300 (rounded up, never below the truth) and the lower one 0."""
    rec = answer(["delta", "--sigma", "1", *sampling, "--steps", "100", "--epsilon", "1e300"])
    assert 0 < rec["delta"] <= 1e-300 and rec["delta_lower"] == 0.0


def test_bounded_loss_beyond_eps_is_delta_exactly_zero():
    rec = answer(["delta", "--mechanism", "rr", "--rr-epsilon", "800", "--steps", "10", "--epsilon", "1e300"])
    assert rec["delta"] == 0.0 and rec["route"] == "pure"


@pytest.mark.parametrize("solve, flag", [("steps", ["--steps", "100"]), ("steps", ["--epochs", "1"]),
                                         ("epochs", ["--epochs", "2"]), ("epochs", ["--steps", "5"]),
                                         ("batch-size", ["--batch-size", "10"])])
def test_calibrate_rejects_the_flag_its_solve_overrides(solve, flag):
    """was: exit 0, --steps 100 silently ignored."""
    run_shape = [] if solve == "steps" else ["--dataset-size", "1000"] + (
        ["--batch-size", "10"] if solve == "epochs" and flag[0] != "--batch-size" else
        ["--epochs", "1"] if flag[0] != "--epochs" else [])
    if solve == "steps":
        run_shape = []
    user_error(["calibrate", "--solve", solve, "--sigma", "1", *flag, *run_shape, "--epsilon", "1",
                "--delta", "1e-5"], flag[0].lstrip("-").replace("-", "_"))


@pytest.mark.parametrize("eps0", ["1e300", "800"])
def test_rr_with_huge_epsilon_is_answered(eps0):
    """was: "min() arg is an empty sequence".  RR's loss is +eps0 with probability
    1/(1 + e^-eps0) = 1 to double precision: eps(delta) = T eps0 (pure-DP composition)."""
    rec = answer(["epsilon", "--mechanism", "rr", "--rr-epsilon", eps0, "--steps", "10", "--delta", "1e-5"])
    t_eps0 = 10 * float(eps0)
    assert t_eps0 * (1 - 1e-6) <= rec["epsilon"] <= t_eps0 * (1 + 1e-12)


def test_laplace_tiny_scale_is_answered():
    """was: NumPy's "Maximum allowed size exceeded".  The pure-DP bound T Delta/b answers."""
    rec = answer(["epsilon", "--mechanism", "laplace", "--scale", "1e-300", "--steps", "10", "--delta", "1e-5"])
    assert rec["epsilon"] == pytest.approx(1e301, rel=1e-12) and rec["epsilon"] >= 1e301


def test_spec_needs_count_and_a_list(tmp_path):
    """was: count defaulted to 1 (under-reporting epsilon), and a single object was accepted."""
    p = tmp_path / "nocount.json"
    p.write_text(json.dumps([{"mechanism": "gaussian", "sigma": 1.0}]))
    user_error(["epsilon", "--spec", str(p), "--delta", "1e-5"], "spec[0].count")
    p = tmp_path / "object.json"
    p.write_text(json.dumps({"mechanism": "gaussian", "sigma": 1.0, "count": 3}))
    user_error(["epsilon", "--spec", str(p), "--delta", "1e-5"], "spec", "list")
    p.write_text(json.dumps([{"mechanism": "gaussian", "sigma": 1.0, "count": 3}]))
    assert answer(["epsilon", "--spec", str(p), "--delta", "1e-5"])["epsilon"] > 0


def test_calibration_at_its_search_limit_fails_saying_so():
    """was: sigma = 0.05 (the search floor) reported as the answer; the 1e9-step cap."""
    user_error(["calibrate", "--epsilon", "1e300", "--delta", "1e-5", "--steps", "100"],
               "search limit sigma = 0.05")
    user_error(["calibrate", "--solve", "epochs", "--epsilon", "1e300", "--delta", "1e-5", "--sigma", "1",
                "--batch-size", "256", "--dataset-size", "60000", "--method", "rdp"],
               "search limit steps = 1e+09")


def test_internal_bug_is_exit_70_in_one_line_and_debug_shows_traceback(monkeypatch):
    from numeric import account

    def broken(*a, **k):
        raise KeyError("oops")
    monkeypatch.setattr(account, "profile", broken)
    argv = ["epsilon", "--sigma", "1", "--delta", "1e-5"]
    rc, out, err = run(argv)
    assert rc == 70 and len(err.strip().splitlines()) == 1
    assert "bug" in err and "--debug" in err and "Traceback" not in err
    rc, out, err = run(argv + ["--debug"])
    assert rc == 70 and "Traceback" in err and "KeyError" in err


def test_stray_domain_error_inside_the_accountant_is_a_bug(monkeypatch):
    """A DomainError on a value the accountant computed (alpha = nan) is not the user's."""
    from derive.errors import DomainError
    from numeric import account

    def broken(*a, **k):
        raise DomainError("alpha", float("nan"), "(1, oo)")
    monkeypatch.setattr(account, "profile", broken)
    rc, out, err = run(["epsilon", "--sigma", "1", "--delta", "1e-5"])
    assert rc == 70 and "bug" in err


def test_convergence_failure_names_the_query(monkeypatch):
    from numeric import account
    from numeric.solvers import ConvergenceError

    def stuck(*a, **k):
        raise ConvergenceError("a solver", 1)
    monkeypatch.setattr(account, "profile", stuck)
    err = user_error(["epsilon", "--sigma", "1", "--delta", "1e-5"], "no convergence", "--sigma 1")
    assert "bug" not in err


def test_user_input_error_is_a_value_error_naming_the_parameter():
    from numeric.errors import UserInputError
    assert issubclass(UserInputError, ValueError)
    err = user_error(["epsilon", "--sigma", "nan", "--delta", "1e-5"], "sigma=nan", "(0, oo)")
    assert "bug" not in err


def test_sweep_builds_queries_without_cli_main():
    """The sweep runs the single command's query path; dpderive.sweep_cli does not import
    dpderive.cli (no import cycle)."""
    code = ("import sys, dpderive.sweep_cli as s; "
            "r = s.run_point(['epsilon', '--sigma', '1', '--steps', '10', '--delta', '1e-5', '--json']); "
            "print('dpderive.cli' in sys.modules, r['record']['route'])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "exact"]
    from dpderive import sweep_cli
    assert sweep_cli.run_point(["epsilon", "--sigma", "-1", "--delta", "1e-5", "--json"]) == {
        "error": "sigma=-1.0 is outside the allowed range: (0, oo)"}


def test_json_infinity_is_the_string_inf_and_reads_back():
    rec = answer(["epsilon", "--sigma", "1e-300", "--steps", "10", "--delta", "1e-5"])
    assert math.isinf(float(rec["epsilon"]))


@pytest.mark.parametrize("method", ["clt", "edgeworth"])
@pytest.mark.parametrize("query", [["delta", "--epsilon", "1e300"], ["delta", "--epsilon", "1"],
                                   ["epsilon", "--delta", "1e-5"]])
def test_approximation_whose_loss_variance_underflows_is_refused_in_one_line(method, query):
    """Found by a fuzz run (seed 2027, --subprocess): at q = 1e-300 the loss cumulants underflow to
    0, and the approximations raised kappa_2 = 0 (exit 70) or answered NaN.  Now one line naming
    the sampling rate, exit 2; the certified routes answer the same call."""
    argv = [query[0], "--sigma", "4", "--sampling-rate", "1e-300", "--steps", "10", *query[1:]]
    if method == "clt" and query[-1] == "1e-5":
        rec = answer(argv + ["--method", method])        # mu = 0 to double precision: eps = 0
        assert rec["epsilon"] == 0.0 and rec["guarantee"] is False
    else:
        user_error(argv + ["--method", method], "underflows", "sampling rate 1e-300", method)
    rec = answer(argv)
    assert rec["guarantee"] is True and math.isfinite(rec[query[0]])
