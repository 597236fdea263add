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
