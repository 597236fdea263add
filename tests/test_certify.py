"""Certified verdicts (derive/certify.py): ball enclosures against independent mpmath values, and
the failure modes of issue 19 (a tight bound failing by rounding, a negative bound against a truth
clamped at 0) as tests."""
import random

import mpmath as mp
import pytest
import sympy as sp

from derive import truths
from derive.certify import NotEnclosable, ball, certify_relation, enclose
from derive.checkers import Domain
from derive.kinds import check_bound, check_identity, check_inequality
from derive.functions import Phi
from derive.search import Var

F = {n: sp.Function(n) for n in list(truths.PAIRS) + list(truths.QUANTITIES)}
mu, e, a, d, g, b, m, x, t, al, dd = sp.symbols("mu e a d g b m x t al dd")

PAIRS = [(F["Gaussian"](mu), {"mu": "0.7"}), (F["Gaussian"](mu), {"mu": "3.1"}),
         (F["Laplace"](m, b), {"m": "1.3", "b": "0.9"}), (F["RandomizedResponse"](e), {"e": "0.8"}),
         (F["Bernoulli"](a, d), {"a": "0.3", "d": "0.6"}), (F["EpsDeltaPair"](e, d), {"e": "0.5", "d": "0.01"}),
         (F["Composed"](F["RandomizedResponse"](e), 7), {"e": "0.3"}),
         (F["Composed"](F["Gaussian"](mu), 9), {"mu": "0.5"}), (F["Swapped"](F["Bernoulli"](a, d)), {"a": "0.2", "d": "0.7"})]
QUANTITIES = [(lambda p: F["HockeyStick"](p, g), {"g": "1.7"}), (lambda p: F["HockeyStick"](p, g), {"g": "0.4"}),
              (lambda p: F["DeltaOfEps"](p, x), {"x": "0.3"}), (lambda p: F["EpsOfDelta"](p, dd), {"dd": "0.05"}),
              (lambda p: F["Renyi"](p, al), {"al": "2.5"}), (lambda p: F["KL"](p), {}), (lambda p: F["TV"](p), {}),
              (lambda p: F["ChiAlpha"](p, al), {"al": "3"}), (lambda p: F["Tradeoff"](p, t), {"t": "0.2"})]


def _mp_value(q, pt):
    syms = sorted(q.free_symbols, key=lambda s: s.name)
    fn = sp.lambdify(syms, q, modules=[truths.namespace(), "mpmath"])
    with mp.workdps(30):
        return fn(*[mp.mpf(pt[s.name]) for s in syms])


@pytest.mark.parametrize("pair,pv", PAIRS, ids=[sp.sstr(p) for p, _ in PAIRS])
def test_enclosures_contain_the_mpmath_truths(pair, pv):
    """Every enclosure agrees with derive.truths' mpmath value (30 digits) to 1e-15 relative: the
    ball formulas (closed forms, count-vector sums, the EpsOfDelta bracket) are the same quantities."""
    enclosed = 0
    for make, extra in QUANTITIES:
        q = make(pair)
        pt = {**pv, **extra}
        try:
            bl = enclose(q, pt)
        except NotEnclosable:
            continue
        v = _mp_value(q, pt)
        if not mp.isfinite(v):
            continue
        enclosed += 1
        assert abs(mp.mpf(bl.mid().str(30, radius=False)) - v) <= mp.mpf(10) ** -15 * max(abs(v), mp.mpf(10) ** -10), (q, pt)
        assert float(bl.rad().mid()) <= 1e-20 * max(abs(float(v)), 1e-10)
    assert enclosed >= 5


def test_eps_of_delta_bracket_is_certified():
    """The EpsOfDelta ball brackets the root: the Gaussian profile, in balls, is above delta at its
    lower end and at most delta at its upper end (independently: mpmath's closed form)."""
    q = F["EpsOfDelta"](F["Gaussian"](mu), dd)
    from flint import ctx
    with ctx.workprec(256):
        bl = enclose(q, {"mu": "1.3", "dd": "1e-5"}, prec=256)
        midstr, radstr = bl.mid().str(75, radius=False), bl.rad().str(75, radius=False)
    with mp.workdps(80):
        lo, hi = mp.mpf(midstr) - mp.mpf(radstr), mp.mpf(midstr) + mp.mpf(radstr)
        s = mp.mpf("1.3")
        prof = lambda eps: mp.ncdf(-eps / s + s / 2) - mp.e ** eps * mp.ncdf(-eps / s - s / 2)  # noqa: E731
        assert prof(lo) > mp.mpf("1e-5") * (1 - mp.mpf(10) ** -40) and prof(hi) <= mp.mpf("1e-5") * (1 + mp.mpf(10) ** -40)
    assert hi - lo < 1e-30


def test_ball_of_a_decimal_and_of_a_binary_value():
    assert ball("0.1").contains(ball(mp.mpf("0.1")))        # the decimal's ball holds its binary neighbour
    assert ball(mp.mpf(3) / 4) == ball("0.75") and ball(mp.mpf(3) / 4).is_exact()
    with pytest.raises(NotEnclosable):
        ball(mp.inf)


def test_certificate_of_a_real_violation_and_of_an_identity():
    x = sp.Symbol("x")
    c = certify_relation(sp.exp(x), 1 + x + x ** 2 / 2, {"x": "0.5"})       # e^x <= 1 + x + x^2/2 fails at x > 0
    assert c.status == "violated"
    c = certify_relation(sp.exp(x), 1 + x + x ** 2 / 2, {"x": "-0.5"})      # and holds at x < 0
    assert c.status == "not_violated"
    c = certify_relation(1 + x + x ** 2 / 2, sp.exp(x), {"x": "-0.5"})      # 1 + x + x^2/2 <= e^x fails at x < 0
    assert c.status == "violated" and "difference_ball" in c.record
    c = certify_relation(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1), {"x": "0.3"}, equal=True)
    assert c.status == "not_violated"          # the enclosure contains 0: never an erratum by rounding


def test_tight_amplification_bound_never_fails_by_rounding():
    """Issue 19: log(1 + q(e^eps - 1)) is the exact limit of eps(delta) of subsampled randomized
    response as delta -> 0 (a tight upper bound); at tiny eps and delta the truth's bisection tolerance
    used to make it 'fail' by 1.7e-13 relative.  The Bernoulli pair below has likelihood ratios
    1 + q(e^eps - 1) and 1/(1 - q + q e^-eps) (the smaller log)."""
    eps, q, delta = sp.symbols("varepsilon q delta", positive=True)
    bern = F["Bernoulli"]((1 - q) / (1 + sp.exp(eps)) + q * sp.exp(eps) / (1 + sp.exp(eps)), 1 / (1 + sp.exp(eps)))
    dom = Domain([Var("varepsilon", eps, 0, None, search=(2e-12, 5)), Var("q", q, 0, 1),
                  Var("delta", delta, 0, 1, search=(1e-45, 1e-30))])
    v = check_bound(sp.log(1 + q * (sp.exp(eps) - 1)), "upper", F["EpsOfDelta"](bern, delta), dom)
    assert v.status == "holds_numerically", (v.counterexample, v.certificate, v.note)
    # a planted 1% loss of the same bound fails, with a ball certificate
    v = check_bound(sp.Rational(99, 100) * sp.log(1 + q * (sp.exp(eps) - 1)), "upper", F["EpsOfDelta"](bern, delta), dom)
    assert v.status == "fails" and v.certificate["method"] == "ball arithmetic (Arb)"


def test_negative_bound_against_a_truth_clamped_at_zero_is_not_an_erratum():
    """Issue 19: the Canonne-Kamath-Steinke conversion eps = gamma + (log(1/delta) + (alpha-1) log(1-1/alpha)
    - log alpha)/(alpha-1) is negative at alpha = 50, delta = 0.5, gamma = 0.001, where the exact
    conversion's eps is 0 by its convention (eps >= 0).  Probed at that point (a one-point domain)."""
    al_, g_, d_ = sp.symbols("alpha gamma delta", positive=True)
    cks = g_ + (sp.log(1 / d_) + (al_ - 1) * sp.log(1 - 1 / al_) - sp.log(al_)) / (al_ - 1)
    with mp.workdps(30):
        assert mp.mpf(sp.N(cks.subs({al_: 50, g_: sp.Rational(1, 1000), d_: sp.Rational(1, 2)}), 30)) < 0
    dom = Domain([Var("alpha", al_, 49.9, 50.1, lo_open=False, hi_open=False),
                  Var("gamma", g_, 0.00099, 0.00101, lo_open=False, hi_open=False),
                  Var("delta", d_, 0.499, 0.501, lo_open=False, hi_open=False)])
    v = check_bound(cks, "upper", F["OptimalRdpEps"](al_, g_, d_), dom)
    assert v.status == "holds_numerically"
    assert "holds with max(0, ·)" in v.note


def test_identity_failure_carries_a_ball_certificate():
    y = sp.Symbol("y")
    dom = Domain([Var("y", y, 0, None)])
    v = check_identity(sp.log(1 + y), y - y ** 2 / 2, dom)
    assert v.status == "fails"
    assert v.certificate["method"] == "ball arithmetic (Arb)"
    assert "difference_ball" in v.certificate


def test_inequality_failure_prefers_a_moderate_point():
    """x^2 <= x on x > 0 fails for x > 1: the counterexample is a moderate point (few digits, in
    the middle of the search range), the worst point aside."""
    y = sp.Symbol("y")
    dom = Domain([Var("y", y, 0, None)])
    v = check_inequality(y ** 2, "<=", y, dom)
    assert v.status == "fails"
    val = float(v.counterexample["params"]["y"])
    assert 1 < val < 1e3 and len(v.counterexample["params"]["y"].replace(".", "").strip("0")) <= 3
    assert v.certificate["method"] == "ball arithmetic (Arb)"


def test_gaussian_profile_planted_mistake_is_certified():
    eps = sp.Symbol("varepsilon", positive=True)
    dom = Domain([Var("mu", mu, 0, None, search=(0.01, 10)), Var("varepsilon", eps, 0, None, search=(0.001, 20))])
    good = Phi(-eps / mu + mu / 2) - sp.exp(eps) * Phi(-eps / mu - mu / 2)
    assert check_bound(good, "equal", F["DeltaOfEps"](F["Gaussian"](mu), eps), dom).status == "holds_numerically"
    bad = Phi(-eps / mu + mu / 2) - sp.exp(eps) * Phi(-eps / mu - mu)
    v = check_bound(bad, "equal", F["DeltaOfEps"](F["Gaussian"](mu), eps), dom)
    assert v.status == "fails" and v.certificate["method"] == "ball arithmetic (Arb)"


def test_box_proofs():
    """Branch-and-bound in balls proves what holds with room on a box and nothing else: log(1+x) <= x
    on [0.001, 100] (the mean-value form settles the boxes near 0), not x y <= (x^2+y^2)/2 on [0, 3]^2
    (equality on the diagonal: no box settles), not e^x - 1 <= 2x on [0.01, 2] (false at 2)."""
    from derive.certify import prove_on_box
    y, z = sp.symbols("y z")
    assert prove_on_box(sp.log(1 + y), y, {"y": ("0.001", "100")}) is not None
    assert prove_on_box(y * z, (y ** 2 + z ** 2) / 2, {"y": ("0", "3"), "z": ("0", "3")}, max_boxes=300) is None
    assert prove_on_box(sp.exp(y) - 1, 2 * y, {"y": ("0.01", "2")}) is None


def test_checker_proves_an_inequality_and_a_bound_on_the_box():
    y = sp.Symbol("y")
    v = check_inequality(sp.exp(-y), "<=", 1 / (1 + y), Domain([Var("y", y, 0, None, search=(0.001, 50))]))
    assert v.status == "proved" and "on the box y in [0.001" in v.method
    s_, a_ = sp.symbols("sigma alpha", positive=True)
    dom = Domain([Var("sigma", s_, 0, None, search=(0.5, 5)), Var("alpha", a_, 1, None, search=(1.5, 20))])
    # D_alpha(N(0,s^2) || N(1,s^2)) = alpha/(2 s^2) <= alpha/s^2: an upper bound with room, proved
    v = check_bound(a_ / s_ ** 2, "upper", F["Renyi"](F["Gaussian"](1 / s_), a_), dom)
    assert v.status == "proved" and "box" in v.method
    # the exact value is not an inequality with room: equal claims are never "proved" by boxes
    v = check_bound(a_ / (2 * s_ ** 2), "equal", F["Renyi"](F["Gaussian"](1 / s_), a_), dom)
    assert v.status == "holds_numerically"


def test_generated_erratum_of_a_claim_file_record():
    """An erratum written from a failing record alone: what is wrong with the numbers, a severity
    inferred from where it fails, the location without the citation, no empty sections."""
    from dpderive import errata
    rec = {"id": "mine.classic", "paper": "Mine 2026", "citation": "Mine 2026, Thm. 1", "location": "Thm. 1",
           "kind": "bound", "statement": "upper bound on EpsOfDelta(Gaussian(1/sigma), delta)",
           "printed_latex": r"\frac{\sqrt{2\log(1.25/\delta)}}{\sigma}", "derived_latex": None, "note": "",
           "method": "search", "precision": 15, "verdict": "fails",
           "counterexample": {"params": {"delta": "1e-12", "sigma": "0.05"}, "bound": "20.0", "truth": "21.95",
                              "relation": "bound >= truth is violated", "quantity": "EpsOfDelta(Gaussian(1/sigma), delta)",
                              "extent": "on part of the domain (5 of 16 spread points violate it)"}}
    e = errata.generated_entry(rec)
    assert e["severity"] == "changes a stated result"
    assert e["title"].startswith(r"the printed bound $\frac{\sqrt{2\log(1.25/\delta)}}{\sigma}$ is not an upper bound on")
    assert r"\varepsilon_{G_{\frac{1}{\sigma}}}(\delta)" in e["title"] and r"$\delta = 1e-12$" in e["title"]
    assert "it is 20, while the true value is 21.95" in e["title"]
    long = dict(rec, counterexample=dict(rec["counterexample"], truth="21.9512345678901"))
    assert "the true value is 21.9512 " in errata.generated_entry(long)["title"]
    assert "on part of the domain" in e["title"]
    rep = errata.assemble({"mine": [rec]})
    assert rep["errata"][0]["locations"] == ["Thm. 1"]
    assert rep["errata"][0]["severity"] == errata.G_PART          # graded by the extent of its failure
    md = errata.markdown(rep)
    assert "Transcription artifacts" not in md and "None." not in md
    rec2 = dict(rec, counterexample=dict(rec["counterexample"], extent="only near the domain's edge (none of 16 ...)"),
                note="the printed side is off by the constant factor 2 (true / printed at three points)")
    assert errata.generated_entry(rec2)["severity"] == "typo"


def _claim_file(tmp_path, tables: str, inequalities: dict):
    """Check a claim file as a user writes it: ``tables`` ([symbols], [pairs], [quantities]) and one
    inequality claim per id -> LaTeX; the verdicts by id."""
    from derive.claimfile import ClaimFile
    claims = "".join(f'[[claim]]\nid = "{cid}"\nwhere = "Sec. 1"\nkind = "inequality"\nlatex = \'{tex}\'\n'
                     for cid, tex in inequalities.items())
    f = tmp_path / "c19.toml"
    f.write_text(f'[paper]\nkey = "c19"\ntitle = "issue 19 cases"\ncitation = "test"\n{tables}\n{claims}')
    return {c.id.split(".", 1)[1]: c.check() for c in ClaimFile(str(f)).claims}


def test_strict_inequality_fails_where_a_finite_hockey_stick_attains_equality(tmp_path):
    """H_lam(P||Q) >= 1 - lam holds with equality wherever P_i >= lam Q_i for every i (an open set), so
    the strict H_lam > 1 - lam is false; balls alone cannot show an equality, the finite form can:
    the events are decided in balls and sum_i (P_i - lam Q_i) - (1 - lam) simplifies to 0."""
    from derive.certify import finite_form
    u = sp.symbols("u1:4")
    v = sp.symbols("v1:4")
    lam = sp.Symbol("lam", positive=True)
    H = F["HockeyStick"](F["Pmf"](*u, *v), lam)
    pt = {"u1": "0.2", "u2": "0.1", "u3": "0", "v1": "0.3", "v2": "0", "v3": "0.1", "lam": "0.5"}
    form = finite_form(H - (1 - lam), pt)
    assert form is not None and sp.simplify(form) == 0
    # at a point where one event is empty (P_3 < lam Q_3) the form keeps only the live terms
    pt2 = dict(pt, u3="-5")
    form2 = finite_form(H, pt2)
    assert form2 is not None and len(sp.Add.make_args(sp.expand(form2))) < len(sp.Add.make_args(sp.expand(form)))
    assert abs(enclose(form2, pt2).mid() - enclose(H, pt2).mid()) < 1e-25
    v = _claim_file(tmp_path, """
[symbols]
lambda = { domain = "(0, oo)", search = [0.01, 20] }
[pairs]
P = { kind = "pmf", points = 3 }
[quantities]
E = "HockeyStick(P, lambda)"
""", {"weak": r"E \ge 1 - \lambda", "strict": r"E > 1 - \lambda"})
    assert v["weak"].status in ("proved", "holds_numerically")
    assert v["strict"].status == "fails"
    assert "simplifies to 0" in v["strict"].certificate["method"]


def test_zero_to_a_positive_power_is_enclosed(tmp_path):
    """1 - (1 - k)^d <= k d (k >= 1 an integer) is false at k = 1 (1 <= d): the ball of 0^d is 0."""
    k, dv = sp.symbols("k d", positive=True)
    assert enclose((1 - k) ** dv, {"k": 1, "d": "0.25"}) == 0
    v = _claim_file(tmp_path, """
[symbols]
d = { domain = "[0, 1)", search = [0, 0.3] }
k = { domain = "[1, oo)", integer = true, search = [1, 30] }
""", {"right": r"1 - (1 - d)^{k} \le k d", "swapped": r"1 - (1 - k)^{d} \le k d"})
    assert v["right"].status != "fails"
    assert v["swapped"].status == "fails"
    assert mp.mpf(v["swapped"].counterexample["params"]["k"]) == 1
    assert v["swapped"].certificate["method"].startswith("ball arithmetic")


def test_a_violation_at_a_domain_end_is_quoted_at_a_moderate_point():
    """f = log((e^{a e} + e^{e (2 - a)})/(e^e + 2))/(a - 1) decreases near a = 1 when e > log 2; the
    search's worst point sits 1e-12 above the end a = 1, and the counterexample is moved inwards
    (a = 1 + 10^-k, the largest k that still violates) and printed exactly (not '1.0')."""
    from derive.kinds import check_shape
    al = sp.Symbol("alpha", positive=True)
    ep = sp.Symbol("varepsilon", positive=True)
    f = sp.log((sp.exp(al * ep) + sp.exp(ep * (2 - al))) / (sp.exp(ep) + 2)) / (al - 1)
    dom = Domain([Var("varepsilon", ep, lo=0, lo_open=True, search=(0.01, 10)),
                  Var("alpha", al, lo=1, lo_open=True, search=(1.001, 100))])
    res = check_shape(f, al, dom, "increasing")
    assert res.status == "fails"
    a_ce = mp.mpf(res.counterexample["params"]["alpha"])
    assert a_ce >= mp.mpf("1.01"), res.counterexample
    # the quoted point violates: the derivative there is negative (an independent mpmath value)
    e_ce = mp.mpf(res.counterexample["params"]["varepsilon"])
    fn = sp.lambdify((ep, al), f, "mpmath")
    with mp.workdps(30):
        assert mp.diff(lambda s: fn(e_ce, s), a_ce) < 0


def test_params_never_round_a_point_onto_another():
    from derive.checkers import _params
    with mp.workdps(30):
        p = _params({"alpha": mp.mpf(1) + mp.mpf("3.1e-12"), "x": mp.mpf("0.25")})
    assert p["x"] == "0.25" and mp.mpf(p["alpha"]) > 1


def test_a_limit_value_at_an_integer_point_is_settled_exactly():
    """Phi(PhiInv(1 - T) - sqrt(a) mu) at T = 1 is Phi(-oo) = 0: no ball holds Phi^{-1}(0), but
    with the integer coordinate substituted SymPy settles it, and the violation against the true
    trade-off (positive) is certified."""
    from derive.functions import PhiInv
    T_, a_, mu_ = sp.symbols("T a mu", positive=True)
    assert PhiInv(sp.Integer(0)) == -sp.oo and PhiInv(sp.Integer(1)) == sp.oo
    cert = certify_relation(Phi(-sp.sqrt(a_) * mu_ + PhiInv(1 - T_)),
                            F["Tradeoff"](F["Composed"](F["Gaussian"](mu_), T_), a_),
                            {"T": "1.0", "a": "0.25", "mu": "0.5"}, equal=True)
    assert cert.status == "violated" and cert.record["lhs_ball"] == "0"


def test_float_rounding_noise_at_the_corners_does_not_hide_a_violation(tmp_path):
    """1 - e^{-D_{3/2}/2} <= TV is false (a relative 0.8 at random pmfs), but at every P = Q corner of
    the box floats give 1 - e^{-1e-16/2} = 1.1e-16 against TV = 0, a relative violation of 1 that
    mpmath refutes: the search goes on down the float list (the correct form, with D_{1/2}, holds)."""
    v = _claim_file(tmp_path, """
[pairs]
P = { kind = "pmf", points = 3 }
[quantities]
D = "Renyi(P, 3/2)"
H = "Renyi(P, 1/2)"
T = "TV(P)"
""", {"wrong": r"1 - e^{-D/2} \le T", "right": r"1 - e^{-H/2} \le T"})
    assert v["wrong"].status == "fails"
    assert v["right"].status != "fails"
