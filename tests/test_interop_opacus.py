"""Opacus interop (dpderive.interop.opacus) with the real Opacus and torch (CPU): a tiny
model trained a few epochs through PrivacyEngine(accountant="dpderive"), epsilon after each
epoch; Opacus's rdp accountant >= ours, its prv accountant within its stated error."""
import math

import pytest

torch = pytest.importorskip("torch", reason="torch not installed (extra [opacus]: torch==2.13.0)")
opacus = pytest.importorskip("opacus", reason="opacus not installed (extra [opacus])")

from opacus import PrivacyEngine  # noqa: E402
from opacus.accountants import PRVAccountant, RDPAccountant  # noqa: E402

from dpderive.interop.opacus import DpDeriveOpacusAccountant, get_noise_multiplier  # noqa: E402

DELTA = 1e-5
PRV_EPS_ERROR = 0.01          # PRVAccountant.get_epsilon's default eps_error


def _data(n=64, d=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    y = (x[:, 0] > 0).long()
    return torch.utils.data.TensorDataset(x, y)


def _train(accountant="dpderive", epochs=3, sigma=1.0, seed=0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = torch.utils.data.DataLoader(_data(), batch_size=16)
    engine = PrivacyEngine(accountant=accountant)
    model, opt, loader = engine.make_private(module=model, optimizer=opt, data_loader=loader,
                                             noise_multiplier=sigma, max_grad_norm=1.0)
    eps_per_epoch = []
    for _ in range(epochs):
        for x, y in loader:
            if len(x) == 0:
                continue
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        eps_per_epoch.append(engine.get_epsilon(DELTA))
    return engine, eps_per_epoch


def test_training_loop_reports_epsilon_each_epoch_against_rdp_and_prv():
    engine, eps = _train()
    acct = engine.accountant
    assert isinstance(acct, DpDeriveOpacusAccountant)
    assert len(eps) == 3 and all(0 < a < b for a, b in zip(eps, eps[1:]))
    assert len(acct) == sum(n for _, _, n in acct.history) > 0
    ans = acct.last_answer
    assert ans.lower <= ans.value and ans.route in ("pld", "rdp", "exact")
    rdp, prv = RDPAccountant(), PRVAccountant()
    rdp.history = list(acct.history)
    prv.history = list(acct.history)
    e_rdp, e_prv = rdp.get_epsilon(DELTA), prv.get_epsilon(DELTA)
    assert e_rdp >= eps[-1]
    # prv states its error as the interval [eps_lower, eps_upper] around its estimate (the
    # estimate within eps_error of the truth); get_epsilon reports eps_upper.  The truth lies in
    # our certified bracket and in prv's interval: the two intervals meet, and prv's answer is
    # within its stated error (eps_upper - eps_lower) of ours
    dprv = prv._get_dprv(eps_error=PRV_EPS_ERROR, delta_error=DELTA / 1000)
    p_lo, p_est, p_hi = dprv.compute_epsilon(DELTA, DELTA / 1000, PRV_EPS_ERROR)
    assert p_hi == pytest.approx(e_prv, rel=1e-9)
    assert p_lo <= ans.value and ans.lower <= p_hi
    assert abs(e_prv - eps[-1]) <= (p_hi - p_lo) + (ans.value - ans.lower)
    assert abs(p_est - eps[-1]) <= PRV_EPS_ERROR + (ans.value - ans.lower)


def test_state_dict_round_trip_and_fast_method():
    engine, eps = _train(epochs=1)
    sd = engine.accountant.state_dict()
    assert sd["mechanism"] == "dpderive"
    other = DpDeriveOpacusAccountant()
    other.load_state_dict(sd)
    assert other.get_epsilon(DELTA) == pytest.approx(eps[-1], rel=1e-12)
    with pytest.raises(ValueError):
        RDPAccountant().load_state_dict(sd)
    # step-by-step after loading extends the state instead of rebuilding it
    fast = [other.get_epsilon(DELTA, method="fast")]
    for _ in range(5):
        other.step(noise_multiplier=1.0, sample_rate=0.25)
        fast.append(other.get_epsilon(DELTA, method="fast"))
    assert fast == sorted(fast)
    ref = DpDeriveOpacusAccountant()
    ref.history = list(other.history)
    assert ref.get_epsilon(DELTA) == pytest.approx(other.get_epsilon(DELTA), rel=1e-12)
    other.step(noise_multiplier=2.0, sample_rate=0.25)
    assert other.history[-1] == (2.0, 0.25, 1) and len(other) == len(ref) + 1


def test_get_noise_multiplier_and_make_private_with_epsilon():
    sigma = get_noise_multiplier(target_epsilon=2.0, target_delta=DELTA, sample_rate=0.25, epochs=3)
    a = DpDeriveOpacusAccountant()
    a.history = [(sigma, 0.25, 12)]
    assert a.get_epsilon(DELTA) <= 2.0
    a.history = [(sigma * 0.99, 0.25, 12)]
    assert a.get_epsilon(DELTA) > 2.0
    from opacus.accountants.utils import get_noise_multiplier as opacus_gnm
    assert sigma <= opacus_gnm(target_epsilon=2.0, target_delta=DELTA, sample_rate=0.25, epochs=3,
                               accountant="rdp")
    # Opacus's make_private_with_epsilon with our accountant
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    engine = PrivacyEngine(accountant="dpderive")
    model, opt, loader = engine.make_private_with_epsilon(
        module=model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        data_loader=torch.utils.data.DataLoader(_data(), batch_size=16), target_epsilon=2.0,
        target_delta=DELTA, epochs=3, max_grad_norm=1.0)
    assert opt.noise_multiplier == pytest.approx(sigma, abs=0.02)
    assert not math.isnan(opt.noise_multiplier)
