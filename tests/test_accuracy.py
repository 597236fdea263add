"""epsilon to the digits you ask for (issue 35, item 3): ``accuracy=`` / ``--accuracy`` gives a
certified bracket of at most that relative width, the command line and the accountants agree
exactly at equal settings, and a request out of reach is one line naming the width reached."""
import json
import math

import numpy as np
import pytest

from numeric import account
from numeric import events as EV
from numeric.errors import UserInputError
from dpderive import accounting_cli as CLI

MNIST = [EV.Event(EV.Gaussian(1.1), EV.Poisson(256 / 60000), 14063)]
MNIST_ARGS = ["--sigma", "1.1", "--sampling-rate", repr(256 / 60000), "--steps", "14063"]


def _cli_json(capsys, argv):
    from dpderive.cli import main
    assert main(argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("acc", [1e-3, 1e-4, 1e-5])
def test_bracket_width_meets_the_request(acc):
    r = account.epsilon(MNIST, 1e-5, accuracy=acc)
    lo, up = r.extras["epsilon_lower"], r.value
    assert 0 < lo <= up and (up - lo) / up <= acc
    assert r.extras["accuracy"] == acc and r.extras["width"] == pytest.approx((up - lo) / up)
    # the default bracket (an independent lattice) contains the refined one's truth: the two
    # certified brackets must overlap
    d = account.epsilon(MNIST, 1e-5)
    assert max(lo, d.extras["epsilon_lower"]) <= min(up, d.value)


def test_bracket_against_dp_accounting_fine_pld():
    """dp_accounting's pessimistic PLD (an upper estimate) at a fine discretisation is >= our
    lower end; its optimistic estimate (a lower estimate) <= our upper end."""
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as PLD
    r = account.epsilon(MNIST, 1e-5, accuracy=1e-4)
    lo, up = r.extras["epsilon_lower"], r.value
    vals = {}
    for pess in (True, False):
        pld = PLD.from_gaussian_mechanism(1.1, sampling_prob=256 / 60000, pessimistic_estimate=pess,
                                          value_discretization_interval=2e-4).self_compose(14063)
        vals[pess] = pld.get_epsilon_for_delta(1e-5)
    assert lo <= vals[True] and vals[False] <= up
    # the peer's two estimates bracket the truth too: the brackets overlap
    assert max(lo, vals[False]) <= min(up, vals[True])


def test_delta_accuracy():
    r = account.delta(MNIST, 2.0, accuracy=1e-3)
    lo, up = r.extras["delta_lower"], r.value
    assert 0 < lo <= up and (up - lo) / up <= 1e-3


def test_cli_python_and_accountant_agree_exactly(capsys):
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting import dp_event as de

    from dpderive.interop.dp_accounting import DpDeriveAccountant
    out = _cli_json(capsys, ["epsilon", *MNIST_ARGS, "--delta", "1e-5", "--accuracy", "1e-4"])
    py = account.epsilon(MNIST, 1e-5, accuracy=1e-4)
    acct = DpDeriveAccountant(dpa.NeighboringRelation.ADD_OR_REMOVE_ONE, accuracy=1e-4)
    acct.compose(de.PoissonSampledDpEvent(256 / 60000, de.GaussianDpEvent(1.1)), 14063)
    got = acct.get_epsilon(1e-5)
    assert out["epsilon"] == py.value == got
    assert out["epsilon_lower"] == py.extras["epsilon_lower"] == acct.last_answer.lower
    assert (got - acct.last_answer.lower) / got <= 1e-4


def test_stateful_fast_with_accuracy_gives_the_bracket():
    from numeric.stateful import StatefulAccountant
    st = StatefulAccountant(accuracy=1e-4)
    st.compose(MNIST[0])
    a = st.epsilon(1e-5)                   # method "fast" by default: answered by the full route
    assert (a.value - a.lower) / a.value <= 1e-4
    assert a.value == account.epsilon(MNIST, 1e-5, accuracy=1e-4).value


def test_out_of_reach_names_the_width_reached():
    with pytest.raises(UserInputError) as ei:
        account.epsilon(MNIST, 1e-5, accuracy=1e-8)
    assert ei.value.name == "accuracy" and "relative width of at least" in str(ei.value)


def test_no_lower_bound_route():
    zc = [EV.Event(EV.ZCDP(0.1), None, 10)]         # an RDP curve alone: no certified lower end
    with pytest.raises(UserInputError) as ei:
        account.epsilon(zc, 1e-5, accuracy=1e-3)
    assert ei.value.name == "accuracy" and "PLD route cannot" in str(ei.value)
    with pytest.raises(UserInputError):
        account.epsilon(MNIST, 1e-5, method="rdp", accuracy=1e-3)


@pytest.mark.parametrize("bad", [0.0, -1e-3, 0.9, math.nan, "x", True])
def test_bad_accuracy(bad):
    with pytest.raises(UserInputError) as ei:
        account.epsilon(MNIST, 1e-5, accuracy=bad)
    assert ei.value.name == "accuracy"


@pytest.mark.parametrize("argv", [["--accuracy", "1e-12"], ["--accuracy", "1e-4", "--method", "rdp"],
                                  ["--accuracy", "nan"], ["--accuracy", "1e-4", "--method", "all"]])
def test_cli_bad_accuracy_one_line_exit_2(capsys, argv):
    from dpderive.cli import main
    assert main(["epsilon", "--sigma", "2", "--delta", "1e-5", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "accuracy" in err and len(err.splitlines()) == 1


def test_exact_gaussian_route_meets_fine_requests():
    ev = [EV.Event(EV.Gaussian(2.0), None, 10)]
    r = account.epsilon(ev, 1e-5, accuracy=1e-7)
    assert r.extras["route"] == "exact" and (r.value - r.extras["epsilon_lower"]) / r.value <= 1e-7


def test_text_rounds_outward():
    assert CLI._directed(2.3817049, 6, True) == "2.38171"
    assert CLI._directed(2.3817049, 6, False) == "2.3817"      # 2.38170, trailing zero dropped
    assert CLI._directed(0.000119137001, 4, True) == "0.0001192"
    r = account.epsilon(MNIST, 1e-5, accuracy=1e-5)
    line = CLI._line(r)
    lo_txt, up_txt = line.split("certified: ")[1].split(";")[0].split(" <= epsilon <= ")
    assert float(lo_txt) <= r.extras["epsilon_lower"] and float(up_txt) >= r.value
    assert len(up_txt.replace(".", "")) >= 7                   # 2 digits beyond the request
    assert np.isclose(float(up_txt), r.value, rtol=1e-6)
