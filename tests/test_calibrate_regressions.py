"""Calibration regressions found by the sweep of issue 12."""
from dpderive.cli import main


def test_calibrate_when_the_largest_sigma_gives_epsilon_zero(capsys):
    """The bracket's noisy end had certified epsilon 0 and log(0) ended the solve with
    'math domain error'; the answer must be a sigma whose certified epsilon meets the target
    and a smaller sigma must not (checked by recomputing epsilon at both)."""
    assert main(["calibrate", "--epsilon", "1", "--delta", "1e-5", "--dataset-size", "60000",
                 "--batch-size", "256", "--epochs", "10", "--method", "pld", "--json"]) == 0
    import json
    rec = json.loads(capsys.readouterr().out)
    sigma = rec["sigma"]
    assert rec["epsilon_achieved"] <= 1
    assert main(["epsilon", "--sigma", str(sigma * 0.99), "--dataset-size", "60000", "--batch-size", "256",
                 "--epochs", "10", "--delta", "1e-5", "--method", "pld", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["epsilon"] > 1


def test_exact_route_brackets_the_gaussian_truth():
    """Unsubsampled Gaussian phases compose to one Gaussian with mu = sqrt(sum T_i / sigma_i^2):
    the default answers by the exact profile, and its bracket holds the mpmath truth (computed
    here from the closed form at 40 digits) for epsilon and for delta."""
    import mpmath as mp

    from numeric import Event, Gaussian, delta, epsilon
    for phases, d in ([((20.0, 1000),), 1e-5], [((2.0, 10), (1.0, 3)), 1e-9], [((0.5, 1),), 1e-3],
                      [((50.0, 10 ** 6),), 1e-12]):
        run = [Event(Gaussian(s), None, t) for s, t in phases]
        r = epsilon(run, d)
        assert r.extras["route"] == "exact"
        with mp.workdps(40):
            mu = mp.sqrt(mp.fsum(t / mp.mpf(s) ** 2 for s, t in phases))
            prof = lambda e: mp.ncdf(-e / mu + mu / 2) - mp.e ** e * mp.ncdf(-e / mu - mu / 2)  # noqa: E731
            truth = mp.findroot(lambda e: prof(e) - d, r.value)
            assert r.extras["epsilon_lower"] <= truth <= r.value
            rd = delta(run, float(truth))
            assert rd.extras["delta_lower"] <= prof(truth) <= rd.value
