"""The claim kinds of issue 21 part 3: a relation at random draws of a named sampler (``sampled``),
an error's fitted rate in n (``fitted_rate``) and the existence of a witness (``exists``).  Each
correct claim holds and its mutation fails, with the failure recomputed here independently."""
import mpmath as mp
import pytest

from derive import kinds
from derive.claimfile import ClaimFile, ClaimFileError

HEAD = '''[paper]
key = "kinds21"
title = "t"

[symbols]
x = { domain = "(0, oo)", search = [0.01, 100] }
y = "(0, oo)"
n = { domain = "[1, oo)" }
h = { domain = "[-3, 3]" }
alpha = { domain = "(1, oo)", search = [1.01, 20] }

[pairs]
P = { kind = "pmf", points = 3 }

[quantities]
K = "KL(P)"
T = "TV(P)"
'''


def claim(cid, kind, **fields):
    body = "".join(f"{k} = {v!r}\n" if not isinstance(v, str) else f"{k} = '{v}'\n" for k, v in fields.items())
    return f'\n[[claim]]\nid = "{cid}"\nwhere = "({cid})"\nkind = "{kind}"\n{body}'.replace("True", "true")


def verdicts(tmp_path, claims):
    f = tmp_path / "kinds21.toml"
    f.write_text(HEAD + "".join(claims))
    return {c.id.split(".", 1)[1]: c.check() for c in ClaimFile(f).claims}


def test_sampled_relation_over_random_pairs(tmp_path):
    """Pinsker's inequality at random pairs from the simplex holds; the mutated TV <= KL/2 fails at a
    pair whose TV and KL, recomputed from the printed pmfs, violate it; '==' with a tolerance."""
    v = verdicts(tmp_path, [
        claim("pinsker", "sampled", latex=r"T \le \sqrt{K/2}", sampler="simplex", draws=15),
        claim("pinsker_bad", "sampled", latex=r"T \le K/2", sampler="simplex", draws=15),
        claim("log_eq", "sampled", latex=r"\log(x y) = \log x + \log y", sampler="uniform"),
        claim("log_eq_bad", "sampled", latex=r"\log(x y) = \log x + \log y + 10^{-12}", sampler="uniform",
              tol_digits=20),
    ])
    assert v["pinsker"].status == "holds_numerically" and v["pinsker"].points == 15
    assert "simplex" in v["pinsker"].method and "seed 7" in v["pinsker"].method
    assert v["log_eq"].status == "holds_numerically"
    bad = v["pinsker_bad"]
    assert bad.status == "fails"
    import ast
    p, q = ast.literal_eval(bad.counterexample["params"]["P"])
    with mp.workdps(30):
        tv = sum(abs(mp.mpf(a) - mp.mpf(b)) for a, b in zip(p, q)) / 2
        kl = sum(mp.mpf(a) * mp.log(mp.mpf(a) / mp.mpf(b)) for a, b in zip(p, q))
        assert tv > kl / 2 + mp.mpf(10) ** -6
    assert v["log_eq_bad"].status == "fails"


def test_sampled_is_reproducible_and_respects_conditions(tmp_path):
    cl = [claim("c", "sampled", latex=r"x \le 2", sampler="uniform", draws=10),
          claim("c2", "sampled", latex=r"x \le 2", sampler="uniform", draws=10)]
    f = tmp_path / "kinds21.toml"
    f.write_text(HEAD + cl[0] + 'conditions = [\'x \\le 2\']\n' + cl[1])
    cs = ClaimFile(f).claims
    a, b = cs[0].check(), cs[1].check()
    assert a.status == "holds_numerically" and a.points == 10
    assert b.status == "fails"
    assert b.counterexample == cs[1].check().counterexample      # the same seed, the same draw


def test_fitted_rate_holds_and_a_wrong_order_fails(tmp_path):
    """sup_h |h^2 e^{-h^2}| / n^{3/2} + 1/n^2 decays like n^-3/2; the claim of n^-1/2 fails with the
    fitted exponent, and a loose O-bound (at_least) holds."""
    of = r"\frac{h^2 e^{-h^2}}{n^{3/2}} + \frac{1}{n^{2}}"
    v = verdicts(tmp_path, [
        claim("rate", "fitted_rate", of=of, var="n", rate="3/2"),
        claim("rate_bad", "fitted_rate", of=of, var="n", rate="1/2"),
        claim("rate_loose", "fitted_rate", of=of, var="n", rate="1/2", at_least=True),
        claim("rate_at", "fitted_rate", of=r"\frac{1}{n}", var="n", rate="1", at=[10, 20, 40]),
    ])
    assert v["rate"].status == "holds_numerically", v["rate"].counterexample
    assert v["rate_loose"].status == "holds_numerically"
    assert v["rate_at"].status == "holds_numerically" and "n = 10" in v["rate_at"].method
    bad = v["rate_bad"]
    assert bad.status == "fails"
    errs = {float(k): mp.mpf(e) for k, e in bad.counterexample["errors"].items()}
    fitted = mp.log(errs[200.0] / errs[400.0]) / mp.log(2)
    assert abs(fitted - 1.5) < 0.1 and bad.counterexample["stated exponent"] == "-0.5"


def test_exists_finds_a_witness_or_refutes(tmp_path):
    v = verdicts(tmp_path, [
        claim("ex", "exists", latex=r"\log x > 1"),
        claim("ex_bad", "exists", latex=r"\log(1 + x) > x"),
        claim("ex_pair", "exists", lhs="T", op=">", rhs="0.9"),
    ])
    ok = v["ex"]
    assert ok.status == "proved" and "witness" in ok.note
    x = mp.mpf(ok.note.split("'x': '")[1].split("'")[0])
    assert mp.log(x) > 1
    assert v["ex_bad"].status == "fails" and "no point" in v["ex_bad"].counterexample["relation"]
    assert v["ex_pair"].status == "proved"


@pytest.mark.parametrize("fields, phrase", [
    (dict(latex=r"x \le 1", sampler="lattice"), "sampler='lattice' is not one of"),
    (dict(of=r"\frac{1}{n}", var="n", rate="1", at=[20, 10]), "2 to 50 increasing"),
    (dict(of=r"\frac{1}{n}", var="n", rate="1", at=list(range(1, 60))), "2 to 50 increasing"),
    (dict(latex=r"x \le 1", sampler="uniform", draws=10**9), "draws=1000000000 must be an integer in [1, 10000]"),
    (dict(latex=r"x \le 1", sampler="uniform", tol_digits=10**6), "tol_digits=1000000 must be an integer"),
    (dict(latex=r"x = 1"), "latex must be A"),
])
def test_new_kind_errors_name_the_problem(tmp_path, fields, phrase):
    kind = "sampled" if "sampler" in fields else ("fitted_rate" if "rate" in fields else "exists")
    f = tmp_path / "kinds21.toml"
    f.write_text(HEAD + claim("e", kind, **fields))
    with pytest.raises(ClaimFileError, match=phrase.replace("(", r"\(").replace("[", r"\[")):
        ClaimFile(f)


def test_samplers_are_named_in_the_reference():
    from derive.claimfile import reference
    text = reference()
    for name in kinds.SAMPLERS:
        assert f"`{name}`" in text
    for kind in ("sampled", "fitted_rate", "exists"):
        assert f"### `{kind}`" in text
