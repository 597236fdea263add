"""Domain claims (issue 10 item 2): every parameter range a seed paper states is a claim checked at
the ends of the range by a generic checker.  The verdict of each, a planted too-wide copy of three of
them (the generic search must find the failure at the widened end while the stated range holds), and
the failing one's place in its paper's errata table."""
import pytest
import sympy as sp

from derive import checkers, kinds, registry
from derive.paperkit import param_var
from derive.symbols import Param
from dpderive.errata import grouping_table

registry.load_all()

#: the domain claims of the ``domains`` modules, with their verdicts
EXPECTED = {
    "asoodeh2021": {
        "thm1.range": "holds_numerically", "thm3.range": "holds_numerically", "eq26.range": "holds_numerically",
        "thm4.eq22_range": "holds_numerically", "remark1.nonempty": "holds_numerically",
        "remark1.range": "holds_numerically", "eq29.range": "holds_numerically",
        "lemma2.range": "holds_numerically", "lemma2.eps0_range": "holds_numerically",
        "lemma2.eps1_range": "holds_numerically", "lemma4.range": "holds_numerically",
        "sec5.d_alpha_range": "holds_numerically", "appC.convex_range": "holds_numerically",
        "prop1.range": "holds_numerically", "def.dp_range": "holds_numerically",
    },
    "ghazi_issa": {
        "def1.range": "holds_numerically", "thm1.range": "holds_numerically", "def4.range": "holds_numerically",
        "cor1.range": "holds_numerically", "thm2.range": "holds_numerically", "thm2.range_dp": "holds_numerically",
        "prop1.range_tv": "holds_numerically", "prop1.range_dp": "holds_numerically",
        "prop2.range": "holds_numerically", "thm4.range": "holds_numerically", "thm5.range": "holds_numerically",
        "thm7.range": "holds_numerically", "thm6.eta_range": "holds_numerically",
        "eq12.mu_range": "holds_numerically",
    },
    "zheng2020": {
        "eq1_1.range": "holds_numerically", "def2_2.range": "holds_numerically",
        "def2_2.tradeoff_range": "holds_numerically", "prop2_3.range": "holds_numerically",
        "prop2_4.range": "holds_numerically", "sec2.subsample_range": "holds_numerically",
        "lemmaC1.range": "holds_numerically", "lemmaC1.range_mu0": "proved",
        "sec4.mu_star_range": "holds_numerically", "eqA6.range": "proved",
        "sec4.gamma_range": "holds_numerically", "sec4.gamma_range_pmf": "holds_numerically",
        "sec4.gamma_range_expo": "holds_numerically", "lemma5_1.eps_range": "holds_numerically",
        "lemma5_2.eps_range": "holds_numerically", "rec.delta0.eps_range": "holds_numerically",
        # Sec. 5.3: the printed rate p = 0.5/n^{-1/2} = sqrt(n)/2 exceeds 1 from n = 5 (erratum)
        "sgd.p_neg_half": "fails",
    },
}
CASES = [(paper, cid) for paper, table in EXPECTED.items() for cid in sorted(table)]


def _claim(paper, cid):
    return registry.claim(f"{paper}.{cid}")


@pytest.mark.parametrize("paper", sorted(EXPECTED))
def test_each_paper_declares_its_domain_claims_generically(paper):
    domain = {c.id.split(".", 1)[1] for c in registry.claims(paper)
              if c.kind == "domain" and c.checker != "custom"}
    # the domain claims of the papers' own modules (declared before domains.py existed)
    older = {"asoodeh2021": {"thm4.range_ends", "lemma1.range_ends"},
             "ghazi_issa": {"sec6c.gamma_range"}}.get(paper, set())
    assert set(EXPECTED[paper]) <= domain and domain - set(EXPECTED[paper]) <= older
    assert len(domain) >= 8
    for cid in domain:
        c = _claim(paper, cid)
        assert c.checker in kinds.KINDS and c.spec[0] == c.checker
        assert c.printed_latex.strip(), "a domain claim quotes the seed's sentence stating the range"


@pytest.mark.parametrize("paper,cid", CASES, ids=[f"{p}.{c}" for p, c in CASES])
def test_verdict(paper, cid):
    v = _claim(paper, cid).check()
    assert v.status == EXPECTED[paper][cid], (v.summary(), v.counterexample, v.note)
    if v.status == "fails":
        assert v.counterexample


def test_failing_domain_claims_are_grouped_as_errata():
    for paper, table in EXPECTED.items():
        listed = {c for e in grouping_table(paper) for c in e["claims"]}
        for cid, status in table.items():
            assert (f"{paper}.{cid}" in listed) == (status == "fails"), cid


def _widened(claim, name: str, interval: sp.Interval):
    """The claim's generic check with the parameter ``name`` ranging over ``interval`` instead."""
    kind, dom, fields = claim.spec
    vars_ = []
    for v in dom.vars:
        if v.name == name:
            v = param_var(Param(v.symbol, interval, ("uniform", float(interval.start), float(interval.end))))
        vars_.append(v)
    assert any(v.name == name for v in dom.vars)
    return kinds.check(kind, checkers.Domain(vars_, dom.conditions), **fields)


# (paper, claim, parameter, a wider range than stated, what lies beyond the stated end)
PLANTED = [
    # Remark 1's gamma = s log(alpha/(alpha-1)): beyond s = 1 the delta interval is empty
    ("asoodeh2021", "remark1.nonempty", "s", sp.Interval.open(0, sp.Rational(3, 2))),
    # eta = s (e^eps-1)/(e^eps+1): beyond s = 1 no eps-LDP channel has that TV
    ("ghazi_issa", "prop2.range", "s", sp.Interval(0, 2)),
    # a fixed point alpha* beyond 1/2 gives mu* < 0, outside {mu >= 0}
    ("zheng2020", "sec4.mu_star_range", _claim("zheng2020", "sec4.mu_star_range").spec[1].vars[0].name,
     sp.Interval.open(0, 1)),
    # Prop. 1's "Given alpha > 1": below 1 the factor 1/(alpha - 1) makes (42) fall below D_alpha
    ("asoodeh2021", "prop1.range", "alpha", sp.Interval.open(sp.Rational(1, 4), 4)),
]


@pytest.mark.parametrize("paper,cid,name,wide", PLANTED, ids=[p[1] for p in PLANTED])
def test_a_planted_too_wide_range_fails_where_the_stated_one_holds(paper, cid, name, wide):
    c = _claim(paper, cid)
    assert c.check().status in ("proved", "holds_numerically")
    v = _widened(c, name, wide)
    assert v.status == "fails", v.summary()
    beyond = sp.Float(v.counterexample["params"][name])
    stated = next(x for x in c.spec[1].vars if x.name == name)
    assert (stated.hi is not None and beyond > sp.Float(str(stated.hi))) or \
        (stated.lo is not None and beyond < sp.Float(str(stated.lo))), (beyond, stated.lo, stated.hi)


def test_eq12_negative_mu_is_searched():
    """(12)'s range mu in R: the search reaches mu < 0, where Phi(Phi^{-1}(1 - alpha) - mu) (no |mu|) is
    above Id and no trade-off function, so that form fails there while G_{|mu|} holds everywhere."""
    c = _claim("ghazi_issa", "eq12.mu_range")
    kind, dom, fields = c.spec
    mu_r = next(x.symbol for x in dom.vars if x.name == "mu")
    plain = fields["bound"].xreplace({sp.Abs(mu_r): mu_r})
    assert plain != fields["bound"]
    v = kinds.check(kind, dom, **{**fields, "bound": plain})
    assert v.status == "fails" and sp.Float(v.counterexample["params"]["mu"]) < 0, v.summary()


def test_tradeoff_area_truth():
    """derive.truths' TradeoffArea against closed forms: G_mu has area Phi(-|mu|/sqrt 2) (P(Y <= X) for
    X ~ N(0,1), Y ~ N(|mu|,1)), down to 1e-1088 at mu = 100; Exp(1) vs Exp(r) has area r/(1 + r);
    Bern(a) vs Bern(b) has the piecewise-linear area (1 - |a - b|)/2; P = Q (Id) has area 1/2."""
    import mpmath as mp
    from derive import truths
    with mp.workdps(30):
        for mu in ("-3", "0", "0.5", "10", "100"):
            got = truths.tradeoff_area(truths.PAIRS["Gaussian"][0](mp.mpf(mu)))
            want = mp.ncdf(-abs(mp.mpf(mu)) / mp.sqrt(2))
            assert abs(got - want) <= mp.mpf(10) ** -25 * want, (mu, got, want)
        r = mp.mpf("0.3")
        assert abs(truths.tradeoff_area(truths.exponential_pair(r)) - r / (1 + r)) < mp.mpf(10) ** -25
        a, b = mp.mpf("0.2"), mp.mpf("0.7")
        assert abs(truths.tradeoff_area(truths.bernoulli_pair(a, b)) - (1 - abs(a - b)) / 2) < mp.mpf(10) ** -28
        assert truths.tradeoff_area(truths.pmf_pair(1, 2, 3, 1, 2, 3)) == mp.mpf(1) / 2
