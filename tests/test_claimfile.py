"""Claim files: the worked example, the workflow commands, and errors that name the
file, the line and the problem."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from derive import registry
from derive.claimfile import ClaimFile, ClaimFileError, extract_label, load_file, scaffold

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "rdp_facts.toml"


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "dpderive.cli", *args], capture_output=True,
                          text=True, cwd=cwd)


@pytest.fixture(scope="module")
def example_records():
    r = run("check", str(EXAMPLE), "--json")
    assert r.returncode == 0, r.stderr
    return {rec["id"].split(".", 1)[1]: rec for rec in json.loads(r.stdout)}


def test_example_flags_only_the_planted_claim(example_records):
    bad = [k for k, r in example_records.items() if r["verdict"] == "fails"]
    assert bad == ["gaussian_classic_all_eps"]
    assert all(r["verdict"] in ("proved", "holds_numerically") for k, r in example_records.items()
               if k != "gaussian_classic_all_eps")


def test_planted_counterexample_is_real_and_in_domain(example_records):
    """The counterexample reproduces from the record alone: at its eps and delta the Gaussian
    mechanism with sigma = sqrt(2 log(1.25/delta))/eps needs more than eps (exact profile,
    Balle-Wang closed form computed here, not by the truth library)."""
    import mpmath as mp
    ce = example_records["gaussian_classic_all_eps"]["counterexample"]
    e, d = mp.mpf(ce["params"]["varepsilon"]), mp.mpf(ce["params"]["delta"])
    assert e > 0 and 0 < d < 1
    mu = e / mp.sqrt(2 * mp.log(mp.mpf(5) / (4 * d)))
    delta_at_e = mp.ncdf(-e / mu + mu / 2) - mp.e ** e * mp.ncdf(-e / mu - mu / 2)
    assert delta_at_e > d        # (eps, delta)-DP is violated at the claimed eps
    assert mp.mpf(ce["truth"]) > mp.mpf(ce["bound"])


def test_records_name_their_generic_checker(example_records):
    assert example_records["gauss_rdp"]["checker"] == "bound"
    assert example_records["optimal_order_derivative"]["checker"] == "derivative"
    assert example_records["small_rho"]["checker"] == "asymptotic"
    assert example_records["gauss_rdp"]["location"] == "Prop. 7"


def test_init_scaffold_checks_and_never_overwrites(tmp_path):
    r = run("init", "mine", cwd=tmp_path)
    assert r.returncode == 0 and (tmp_path / "mine.toml").exists()
    before = (tmp_path / "mine.toml").read_text()
    r2 = run("init", "mine", cwd=tmp_path)
    assert r2.returncode == 2 and len(r2.stderr.strip().splitlines()) == 1
    assert (tmp_path / "mine.toml").read_text() == before
    cf = ClaimFile(tmp_path / "mine.toml")
    assert [c.checker for c in cf.claims] == ["bound", "bound", "inequality"]


GOOD = '''[paper]
key = "tiny"
title = "t"

[symbols]
x = "(0, oo)"

[[claim]]
id = "a"
where = "(1)"
kind = "inequality"
latex = '\\log(1+x) \\le x'
'''

BAD = [  # (replace this, with that) -> a phrase the one-line error must contain
    (("1+x)", "1+y)"), "12: claim 'a': unknown symbol 'y'"),
    (('"(0, oo)"', '"(0 oo)"'), "6: symbol 'x': domain"),
    (("1+x)", "1+x})"), "12: claim 'a': cannot parse the LaTeX"),
    (('"inequality"', '"inequalty"'), "kind='inequalty' is not one of"),
    (("[paper]", "[paper"), "not valid TOML"),
    (("\\le x", "+ x"), "must be a relation"),
    (('x = "(0, oo)"', 'x = { search = [1, 2] }'), "symbol 'x': needs a domain"),
    (('where = "(1)"\n', ''), "missing 'where'"),
    (('key = "tiny"', 'key = "zheng2020"'), "is a built-in paper"),
    (('kind = "inequality"\nlatex = \'\\log(1+x) \\le x\'', 'kind = "limit"\nof = \'x\'\nvar = "x"\nto = -1\nequals = \'0\''),
     "to=-1 is not a point or end of x's domain"),
]


@pytest.mark.parametrize("change, phrase", BAD, ids=[b[1][:30] for b in BAD])
def test_bad_files_one_line_exit_2(tmp_path, change, phrase):
    f = tmp_path / "f.toml"
    f.write_text(GOOD.replace(*change))
    r = run("check", str(f))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(f) in lines[0] and phrase in lines[0], r.stderr


def test_nothing_registered_from_an_invalid_file(tmp_path):
    f = tmp_path / "f.toml"
    f.write_text(GOOD.replace('key = "tiny"', 'key = "half"') + '''
[[claim]]
id = "b"
where = "(2)"
kind = "identity"
lhs = 'x'
rhs = 'z'
''')
    with pytest.raises(ClaimFileError):
        load_file(f)
    assert "half" not in registry.PAPERS and "half.a" not in registry.CLAIMS


def test_formula_from_tex_label(tmp_path):
    (tmp_path / "p.tex").write_text(r"""
Some text.
\begin{equation}\label{eq:kl}
  D(x) = x\log x - x + 1 .
\end{equation}
""")
    (tmp_path / "p.toml").write_text(GOOD.replace('title = "t"', 'title = "t"\ntex = "p.tex"')
                                     .replace('key = "tiny"', 'key = "withtex"') + '''
[formulas.kl]
where = "(3)"
label = "eq:kl"

[[claim]]
id = "kl_convex"
where = "(3)"
kind = "convex"
of = "@kl"
in = "x"
''')
    cf = ClaimFile(tmp_path / "p.toml")
    assert cf.formulas["kl"].printed_latex == r"D(x) = x\log x - x + 1"
    assert cf.claims[-1].check().status in ("proved", "holds_numerically")


def test_extract_label_rejects_multiline():
    tex = r"\begin{align} a &= b \\ c &= d \label{eq:x} \end{align}"
    with pytest.raises(ValueError, match="multi-line"):
        extract_label(tex, "eq:x", ValueError)


def test_scaffold_is_valid_toml_with_every_kind_listed():
    import tomllib
    text = scaffold("x.toml")
    data = tomllib.loads(text)
    assert data["paper"]["key"] == "x" and len(data["claim"]) == 3
    assert "asymptotic" in text and "Renyi(pair, alpha)" in text


def test_readme_shows_the_real_counterexample(example_records):
    """README's tutorial quotes the planted claim's counterexample; it must be the one found."""
    ce = example_records["gaussian_classic_all_eps"]["counterexample"]
    readme = (ROOT / "README.md").read_text()
    params = ", ".join(f"{k} = {v}" for k, v in ce["params"].items())
    line = f"counterexample: {params}: bound {ce['bound']}; truth {ce['truth']}"
    assert line in readme


def test_jupyter_reprs(tmp_path):
    """Formulas render as LaTeX, claims and verdicts as HTML tables carrying the verdict."""
    f = tmp_path / "j.toml"
    f.write_text(GOOD.replace('key = "tiny"', 'key = "jup"') + '''
[formulas.lin]
where = "(0)"
latex = 'g(x) = x + 1'
''')
    cf = ClaimFile(f)
    assert cf.formulas["lin"]._repr_latex_() == r"$\displaystyle g(x) = x + 1$"
    html = cf.claims[0]._repr_html_()
    assert "<table>" in html and ("holds" in html or "proved" in html)
    assert cf.claims[0].check()._repr_html_().startswith("<table>")
    from numeric.accountant import AccountingResult
    r = AccountingResult("epsilon", 1.25, "rdp", "optimal", 8.0, "test", delta=1e-5)
    assert "1.25" in r._repr_html_() and "delta" in r._repr_html_()


def test_claims_over_every_pair_of_pmfs():
    """[pairs] + [quantities]: the true identities hold; for each planted one the counterexample's
    pmfs, recomputed here from their definitions, violate it."""
    import mpmath as mp
    cf = ClaimFile(ROOT / "examples" / "divergences.toml")
    v = {c.id.split(".", 1)[1]: c.check() for c in cf.claims}
    assert v["renyi_chi"].status in ("proved", "holds_numerically")
    assert v["pinsker"].status in ("proved", "holds_numerically")

    def pmfs(ce):
        Ps, Qs = ce["params"]["P"].strip("()").split("], [")
        return ([mp.mpf(x) for x in Ps.strip("[]").split(",")], [mp.mpf(x) for x in Qs.strip("[]").split(",")])
    ce = v["hockey_tv_wrong"].counterexample
    P, Q = pmfs(ce)
    lam = mp.mpf(ce["params"]["lambda"])
    hockey = mp.fsum(max(p - lam * q, 0) for p, q in zip(P, Q))
    tv = mp.fsum(abs(p - q) for p, q in zip(P, Q)) / 2
    assert hockey > tv / lam * (1 + 1e-6)
    ce = v["renyi_kl_wrong"].counterexample
    P, Q = pmfs(ce)
    a = mp.mpf(ce["params"]["alpha"])
    renyi = mp.log(mp.fsum(p ** a * q ** (1 - a) for p, q in zip(P, Q))) / (a - 1)
    kl = mp.fsum(p * mp.log(p / q) for p, q in zip(P, Q))
    assert renyi > kl * (1 + 1e-6)



def test_sums_bind_their_index(tmp_path):
    """A summation index needs no declaration; the sum is evaluated (closed form or SymPy's
    own evaluation) and the Basel bound sum_{k<=n} 1/k^2 <= pi^2/6 holds while <= 1.6 fails
    (at n = 4 the sum is 1.4236, at n = 6 already 1.4914: the counterexample is recomputed)."""
    f = tmp_path / "s.toml"
    f.write_text('''[paper]
key = "sums"
title = "t"

[symbols]
n = { domain = "[1, oo)", integer = true, search = [1, 200] }

[[claim]]
id = "basel"
where = "(1)"
kind = "inequality"
latex = '\\sum_{k=1}^{n} \\frac{1}{k^2} \\le \\frac{\\pi^2}{6}'

[[claim]]
id = "too_small"
where = "(2)"
kind = "inequality"
latex = '\\sum_{k=1}^{n} \\frac{1}{k^2} \\le 1.6'
''')
    cf = ClaimFile(f)
    v1, v2 = (c.check() for c in cf.claims)
    assert v1.status in ("proved", "holds_numerically")
    assert v2.status == "fails"
    n = int(float(v2.counterexample["params"]["n"]))
    assert sum(1 / k ** 2 for k in range(1, n + 1)) > 1.6


def test_normal_quantile_is_read(tmp_path):
    """\\Phi^{-1} in a claim file is the normal quantile: Phi(-Phi^{-1}(u)) = 1 - u holds and
    Phi^{-1}(u) <= 1 fails (at u = 0.9 the quantile is 1.2816)."""
    f = tmp_path / "q.toml"
    f.write_text('''[paper]
key = "quantile"
title = "t"

[symbols]
u = { domain = "(0, 1)", search = [0.01, 0.99] }

[[claim]]
id = "inverse"
where = "(1)"
kind = "identity"
latex = '\\Phi(-\\Phi^{-1}(u)) = 1 - u'

[[claim]]
id = "bounded"
where = "(2)"
kind = "inequality"
latex = '\\Phi^{-1}(u) \\le 1'
''')
    cf = ClaimFile(f)
    v1, v2 = (c.check() for c in cf.claims)
    assert v1.status in ("proved", "holds_numerically")
    assert v2.status == "fails"
    import mpmath as mp
    u = mp.mpf(v2.counterexample["params"]["u"])
    assert mp.sqrt(2) * mp.erfinv(2 * u - 1) > 1


def test_a_formula_reference_inside_latex_is_told_where_it_may_stand(tmp_path):
    """`n \\cdot @rdp` in LaTeX used to end in ANTLR's "I don't understand this" alone; the error now
    says that @name is a whole field or goes inside { sympy = "n*@{name}" } (which then checks)."""
    head = ('[paper]\nkey = "atref"\ntitle = "t"\n\n[symbols]\nalpha = { domain = "(1, oo)", search = [1.01, 20] }\n'
            'n = { domain = "[1, oo)", integer = true, search = [1, 30] }\n\n'
            '[formulas.rdp]\nwhere = "(1)"\nlatex = \'\\frac{\\alpha}{2}\'\n\n'
            '[[claim]]\nid = "c"\nwhere = "(2)"\nkind = "inequality"\n')
    f = tmp_path / "atref.toml"
    f.write_text(head + "latex = 'n \\cdot @rdp \\le n \\alpha'\n")
    with pytest.raises(ClaimFileError, match=r'inside a SymPy expression: \{ sympy = "n\*@\{name\}" \}'):
        ClaimFile(f)
    f.write_text(head.replace('kind = "inequality"\n', 'kind = "inequality"\nop = "<="\n')
                 + "lhs = { sympy = \"n*@{rdp}\" }\nrhs = 'n \\alpha'\n")
    (c,) = ClaimFile(f).claims
    assert c.check().status in ("proved", "holds_numerically")
