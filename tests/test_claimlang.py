"""The claim language (issue 25): shape and calculus claims over quantities of the truths
(numeric differentiation), domains whose ends depend on other parameters, multi-letter names,
the generated reference of every kind, and the text output of ``dpderive check``."""
import mpmath as mp
import pytest
import sympy as sp

from derive.claimfile import ClaimFile, ClaimFileError

HEAD = '''[paper]
key = "{key}"
title = "t"

[symbols]
mu = {{ domain = "(0, oo)", search = [0.2, 5] }}
varepsilon = {{ domain = "[0, oo)", search = [0, 10] }}
a = "(0, 1)"
alpha = {{ domain = "(1, oo)", search = [1.01, 20] }}
b = {{ domain = "(0, oo)", search = [0.5, 5] }}

[quantities]
G = "Tradeoff(Gaussian(mu), a)"
D = "DeltaOfEps(Gaussian(mu), varepsilon)"
R = "Renyi(Laplace(1, b), alpha)"
'''


def claim(cid, kind, **fields):
    body = "".join(f"{k} = '{v}'\n" for k, v in fields.items())
    return f'\n[[claim]]\nid = "{cid}"\nwhere = "({cid})"\nkind = "{kind}"\n{body}'


def verdicts(tmp_path, key, claims):
    f = tmp_path / f"{key}.toml"
    f.write_text(HEAD.format(key=key) + "".join(claims))
    return {c.id.split(".", 1)[1]: c.check() for c in ClaimFile(f).claims}


def gauss_delta(e, m):
    return mp.ncdf(-e / m + m / 2) - mp.e ** e * mp.ncdf(-e / m - m / 2)


def gauss_tradeoff(a, m):
    return mp.ncdf(-mp.sqrt(2) * mp.erfinv(2 * a - 1) - m)


def laplace_renyi(al, b):
    return mp.log(al / (2 * al - 1) * mp.e ** ((al - 1) / b) + (al - 1) / (2 * al - 1) * mp.e ** (-al / b)) / (al - 1)


def _points(ce, x):
    """The points a numeric shape counterexample prints: [(x, f(x))]."""
    pre = f"f at {x} = "
    return [(mp.mpf(k[len(pre):]), mp.mpf(v)) for k, v in ce.items() if k.startswith(pre)]


def test_shape_claims_on_quantities_of_the_truths(tmp_path):
    """The examples of issue 25: the exact Gaussian profile decreases in eps, the Gaussian
    trade-off curve is convex, the Laplace Renyi divergence grows in alpha; each reversed claim
    fails with points that, recomputed here from closed forms, move the wrong way."""
    with mp.workdps(30):
        v = verdicts(tmp_path, "shapes", [
            claim("profile_decreasing", "monotone", of="D", **{"in": "varepsilon"}, direction="decreasing"),
            claim("profile_increasing", "monotone", of="D", **{"in": "varepsilon"}, direction="increasing"),
            claim("tradeoff_convex", "convex", of="G", **{"in": "a"}),
            claim("tradeoff_concave", "concave", of="G", **{"in": "a"}),
            claim("renyi_increasing", "monotone", of="R", **{"in": "alpha"}, direction="increasing"),
            claim("renyi_decreasing", "monotone", of="R", **{"in": "alpha"}, direction="decreasing"),
        ])
    for ok in ("profile_decreasing", "tradeoff_convex", "renyi_increasing"):
        assert v[ok].status == "holds_numerically", (ok, v[ok].note, v[ok].method)
        assert "numeric" in v[ok].method and "h = " in v[ok].method and "Richardson error" in v[ok].method
    with mp.workdps(40):
        ce = v["profile_increasing"].counterexample
        assert v["profile_increasing"].status == "fails"
        m = mp.mpf(ce["params"]["mu"])
        (x1, _), (x2, _) = _points(ce, "varepsilon")
        assert x1 < x2 and gauss_delta(x2, m) < gauss_delta(x1, m)
        ce = v["tradeoff_concave"].counterexample
        assert v["tradeoff_concave"].status == "fails"
        m = mp.mpf(ce["params"]["mu"])
        (x1, _), (x2, _), (x3, _) = _points(ce, "a")
        assert gauss_tradeoff(x2, m) < (gauss_tradeoff(x1, m) + gauss_tradeoff(x3, m)) / 2
        ce = v["renyi_decreasing"].counterexample
        assert v["renyi_decreasing"].status == "fails"
        bb = mp.mpf(ce["params"]["b"])
        (x1, _), (x2, _) = _points(ce, "alpha")
        assert x1 < x2 and laplace_renyi(x2, bb) > laplace_renyi(x1, bb)


def test_derivative_of_a_quantity_numerically(tmp_path):
    """d/deps of the Gaussian profile is -e^eps Phi(-eps/mu - mu/2) (Balle and Wang 2018): it holds
    by central differences within their Richardson error; without the factor e^eps it fails."""
    v = verdicts(tmp_path, "dprofile", [
        claim("right", "derivative", of="D", wrt="varepsilon",
              equals=r"-e^{\varepsilon}\Phi\left(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\right)"),
        claim("wrong", "derivative", of="D", wrt="varepsilon",
              equals=r"-\Phi\left(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\right)"),
    ])
    assert v["right"].status == "holds_numerically", v["right"].method
    assert "Richardson error" in v["right"].method
    assert v["wrong"].status == "fails"
    ce = v["wrong"].counterexample
    e, m = mp.mpf(ce["params"]["varepsilon"]), mp.mpf(ce["params"]["mu"])
    assert e > 0 and abs(mp.mpf(ce["claimed"]) + mp.ncdf(-e / m - m / 2)) < 1e-6


NAMES = r'''[paper]
key = "{key}"
title = "t"

[symbols]
gamma = "(0, 1)"
x = "(0, oo)"
E_max = "(0, oo)"
mu = "(0, oo)"

[quantities]
Erev = "DeltaOfEps(Gaussian(mu), x)"
E = "DeltaOfEps(Gaussian(mu), 2*x)"

[[claim]]
id = "a"
where = "(1)"
kind = "inequality"
latex = '{latex}'
'''


@pytest.mark.parametrize("latex, names", [
    (r"\gamma Erev + 1 - \gamma \le 1", {"gamma", "x", "mu"}),
    (r"\gamma \mathrm{Erev} + E_{max} \ge E_max \gamma", {"gamma", "x", "mu", "E_max"}),
    (r"E \le \text{Erev} + E_{\mathrm{max}} \mathrm{E_max}", {"x", "mu", "E_max"}),
])
def test_multi_letter_names_are_one_name(tmp_path, latex, names):
    """A declared quantity or symbol of several letters is one name however the LaTeX writes it
    (Erev, \\mathrm{Erev}, \\text{Erev}; E_max, E_{max}, E_{\\mathrm{max}}, \\mathrm{E_max})."""
    f = tmp_path / "n.toml"
    f.write_text(NAMES.format(key="names", latex=latex))
    c = ClaimFile(f).claims[0]
    kw = c.spec[2]
    assert {s.name for s in (kw["lhs"] - kw["rhs"]).free_symbols} == names
    if "E_max" in names:
        assert sp.Symbol("E_max", positive=True) ** 2 in (kw["lhs"] - kw["rhs"]).atoms(sp.Pow) or \
            "E_max" in str(kw["lhs"] - kw["rhs"])
    assert c.check().status in ("proved", "holds_numerically")


@pytest.mark.parametrize("latex, phrase", [
    (r"\gamma Edel \le 1", "'Edel' is read as the product of its letters: a name of several letters must be declared"),
    (r"gamma Erev \le 1", r"'gamma' without a backslash is read as a product of letters: write \gamma"),
])
def test_undeclared_product_of_letters_says_how_to_write_a_name(tmp_path, latex, phrase):
    f = tmp_path / "n.toml"
    f.write_text(NAMES.format(key="names2", latex=latex))
    with pytest.raises(ClaimFileError, match=r"n\.toml:19: claim 'a': unknown symbol") as exc:
        ClaimFile(f)
    assert phrase in str(exc.value)


def test_check_lines_verdict_first_aligned_method_in_full():
    from dpderive.cli import claim_lines
    long_method = "SymPy simplification of lhs - rhs: not shown; " + "word " * 40 + "end"
    recs = [{"id": "p.a", "location": "Thm. 2 of the appendix, second display after (41)", "verdict": "fails",
             "method": long_method, "counterexample": {"params": {"x": "2"}, "lhs": "1", "rhs": "0"}},
            {"id": "p.much_longer_claim_id", "location": "(1)", "verdict": "holds_numerically", "method": "m"},
            {"id": "p.b", "location": "", "verdict": "inconclusive", "method": "m2", "note": "why"}]
    lines = claim_lines(recs)
    heads = [ln for ln in lines if not ln.startswith("    ")]
    assert [h.split()[0] for h in heads] == ["FAILS", "holds_numerically", "inconclusive"]
    # the ids start in one column and the locations in another, whatever their lengths
    assert len({h.index("p.") for h in heads}) == 1
    assert heads[0].index("Thm.") == heads[1].index("(1)")
    assert f"    method: {long_method}" in lines                 # in full, no cut
    assert "    counterexample: x = 2: lhs 1; rhs 0" in lines
    assert "    note: why" in lines


def test_limit_methods_name_the_variable_and_a_finite_point():
    import sympy as sp

    from derive.checkers import Domain
    from derive.kinds import check_asymptotic, check_limit
    from derive.search import Var
    al = sp.Symbol("alpha", positive=True)
    dom = Domain([Var("alpha", al, lo=1)])
    from derive.kinds.limits import _numeric_limit
    v = _numeric_limit((al - 1) * sp.sin(1 / (al - 1)), al, 1, dom, "+", "limit")
    assert v.status == "holds_numerically"
    assert "along alpha -> 1+ (alpha = 1 + 10^-k, k = 2..15)" in v.method and " x " not in v.method
    assert check_limit(sp.sin(al - 1) / (al - 1), al, 1, 1, dom).status == "proved"
    v = check_asymptotic(sp.log(al) + sp.sin(al) / al ** 2, sp.log(al), 1 / al, al, sp.oo, dom)
    assert v.status in ("proved", "holds_numerically")
    from derive.kinds.limits import _sequence_text
    assert _sequence_text(al, 0, "+", "j", True) == "alpha = 0 + 10^-(2^j)"
    assert _sequence_text(al, sp.oo, "+") == "alpha = 10^k"


DEP = r'''[paper]
key = "{key}"
title = "t"

[symbols]
b = {{ domain = "(0, oo)", search = [0.1, 10] }}
varepsilon = "[0, 1/b]"
delta = {{ domain = "(0, 1)", search = [1e-6, 0.5] }}
alpha = "(1, 1/delta]"
{extra}
[[claim]]
id = "chord"
where = "(1)"
kind = "inequality"
latex = 'e^{{b\varepsilon}} \le 1 + (e - 1) b \varepsilon'
{claim_extra}
'''


def test_dependent_domain_checks_and_its_too_wide_variant_fails_just_beyond_the_end(tmp_path):
    """e^y <= 1 + (e - 1) y holds exactly for y in [0, 1] (the chord of a convex function): with
    varepsilon in [0, 1/b] it holds, no change of variables by hand; stated on [0, 1.01/b] it fails,
    at a point between the true end 1/b and the stated one."""
    f = tmp_path / "d.toml"
    f.write_text(DEP.format(key="dep", extra="", claim_extra='''
[[claim]]
id = "too_wide"
where = "(1')"
kind = "inequality"
latex = 'e^{b\\varepsilon} \\le 1 + (e - 1) b \\varepsilon'
domain = { varepsilon = "[0, 1.01/b]" }

[[claim]]
id = "alpha_delta"
where = "(2)"
kind = "inequality"
latex = '\\alpha \\delta \\le 1'

[[claim]]
id = "alpha_delta_wrong"
where = "(2')"
kind = "inequality"
latex = '\\alpha \\delta \\le 0.99'
'''))
    v = {c.id.split(".", 1)[1]: c.check() for c in ClaimFile(f).claims}
    assert v["chord"].status == "holds_numerically"
    assert v["alpha_delta"].status == "holds_numerically"
    ce = v["too_wide"].counterexample
    assert v["too_wide"].status == "fails" and set(ce["params"]) == {"b", "varepsilon"}
    y = mp.mpf(ce["params"]["b"]) * mp.mpf(ce["params"]["varepsilon"])
    assert 1 < y <= mp.mpf("1.01") * (1 + mp.mpf(10) ** -8)       # just beyond the true end, inside the stated one
    assert mp.e ** y > 1 + (mp.e - 1) * y
    # the upper end 1/delta is probed: alpha delta reaches 1 there
    ce = v["alpha_delta_wrong"].counterexample
    assert v["alpha_delta_wrong"].status == "fails"
    a, d = mp.mpf(ce["params"]["alpha"]), mp.mpf(ce["params"]["delta"])
    assert 1 < a <= 1 / d * (1 + mp.mpf(10) ** -8) and a * d > mp.mpf("0.99")


def test_dependent_domain_in_shape_and_derivative_claims(tmp_path):
    f = tmp_path / "d2.toml"
    f.write_text(DEP.format(key="dep2", extra="", claim_extra='''
[[claim]]
id = "deriv"
where = "(3)"
kind = "derivative"
of = 'e^{b\\varepsilon}'
wrt = "varepsilon"
equals = 'b e^{b\\varepsilon}'

[[claim]]
id = "convex"
where = "(4)"
kind = "convex"
of = 'e^{b\\varepsilon} - (e - 1) b \\varepsilon'
in = "varepsilon"

[[claim]]
id = "not_decreasing"
where = "(5)"
kind = "monotone"
of = 'e^{b\\varepsilon} - (e - 1) b \\varepsilon'
in = "varepsilon"
direction = "decreasing"
'''))
    v = {c.id.split(".", 1)[1]: c.check() for c in ClaimFile(f).claims}
    assert v["deriv"].status == "proved"
    assert v["convex"].status in ("proved", "holds_numerically")
    ce = v["not_decreasing"].counterexample
    assert v["not_decreasing"].status == "fails"
    b, e = mp.mpf(ce["params"]["b"]), mp.mpf(ce["params"]["varepsilon"])
    assert 0 <= b * e <= 1 + 1e-9 and b * mp.e ** (b * e) - (mp.e - 1) * b > 0     # the derivative in varepsilon


@pytest.mark.parametrize("extra, claim_extra, phrase", [
    ('', '', None),
    ('', 'domain = { varepsilon = "[1/b, 0]" }', "d.toml:16: claim 'chord': domain of varepsilon: domain [1/b, 0] is empty"),
    ('gamma = "(0, 1/eta)"\neta = "(0, gamma]"\n', '', "d.toml:10: symbol 'gamma': domain (0, 1/eta) depends on itself: gamma -> eta -> gamma (a cyclic dependency)"),
    ('gamma = { domain = "(1, oo)", search = [1, 10] }\neta = "[2, 1/gamma]"\n', '',
     "d.toml:11: symbol 'eta': domain [2, 1/gamma] is empty"),
    ('eta = "[0, 1/zeta]"\n', '', "symbol 'eta': domain '[0, 1/zeta]': its ends name zeta, which is not declared"),
])
def test_dependent_domain_errors_name_file_line_problem(tmp_path, extra, claim_extra, phrase):
    f = tmp_path / "d.toml"
    f.write_text(DEP.format(key="dep3", extra=extra, claim_extra=claim_extra).replace(
        "latex = 'e^{b\\varepsilon} \\le 1 + (e - 1) b \\varepsilon'\n\n",
        "latex = 'e^{b\\varepsilon} \\le 1 + (e - 1) b \\varepsilon'\n" + claim_extra + "\n", 1)
        if claim_extra else DEP.format(key="dep3", extra=extra, claim_extra=""))
    if phrase is None:
        ClaimFile(f)
        return
    with pytest.raises(ClaimFileError) as exc:
        ClaimFile(f)
    assert str(f) in str(exc.value) and phrase in str(exc.value), str(exc.value)


def test_reference_page_is_generated_from_the_table_of_kinds():
    """docs/claim-files.md is the generated page (regenerate: python3 -m derive.claimfile --reference
    --write); every kind and every one of its fields is in it, each field with a description."""
    from derive.claimfile import COMMON_FIELDS, REFERENCE_PATH, field_doc, reference
    from derive.kinds import KINDS
    assert REFERENCE_PATH.read_text(encoding="utf-8") == reference()
    page = reference()
    for kind, k in KINDS.items():
        section = page.split(f"### `{kind}`")[1].split("### ")[0]
        assert k.doc and k.example and k.expect, kind
        for f in k.required + k.optional:
            assert f"| `{f}` |" in section and field_doc(kind, f), (kind, f)
    for f in COMMON_FIELDS:
        assert field_doc("", f), f


def test_reference_examples_give_their_verdicts(tmp_path):
    """Each kind's minimal example, with the page's symbols, parses and checks to the verdict the
    page states."""
    from derive.claimfile import REFERENCE_SYMBOLS, example_claim
    from derive.kinds import KINDS
    body = '[paper]\nkey = "reference"\ntitle = "t"\n\n' + REFERENCE_SYMBOLS + "\n\n" + \
        "\n\n".join(example_claim(k) for k in KINDS) + "\n"
    f = tmp_path / "ref.toml"
    f.write_text(body)
    got = {c.kind: c.check().status for c in ClaimFile(f).claims}
    assert got == {name: k.expect for name, k in KINDS.items()}


def test_readme_and_template_link_the_reference():
    from pathlib import Path

    from derive.claimfile import scaffold
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "docs/claim-files.md" in readme and "docs/claim-files.md" in scaffold("x.toml")


def test_a_claims_narrower_domain_narrows_the_declared_search_range(tmp_path):
    """A symbol declared with search = [0.001, 0.999] on (0, 1) and narrowed by a claim to (1/2, 1)
    is searched inside (1/2, 1) only.  Randomized response's lim_{alpha -> oo} D_alpha = log(p/(1-p))
    (Mironov 2017, Table II) holds there; it used to fail at p = 0.0243, outside the claim's domain.
    Outside (1/2, 1) the printed value is indeed not the limit (it is negative, the limit is not): a
    claim on (0, 1/2) must fail, at a point of (0, 1/2)."""
    head = ('[paper]\nkey = "narrow"\ntitle = "t"\n\n[symbols]\n'
            'alpha = { domain = "(1, oo)", search = [1.01, 100] }\n'
            'p = { domain = "(0, 1)", search = [0.001, 0.999] }\n')
    rr = (r'\frac{1}{\alpha - 1}\log\left(p^{\alpha}(1-p)^{1-\alpha} + (1-p)^{\alpha} p^{1-\alpha}\right)')
    body = ""
    for cid, dom in (("upper", "(1/2, 1)"), ("lower", "(0, 1/2)")):
        body += (f'\n[[claim]]\nid = "{cid}"\nwhere = "Table II"\nkind = "limit"\nof = \'{rr}\'\n'
                 f'var = "alpha"\nto = "oo"\nequals = \'\\log\\frac{{p}}{{1-p}}\'\ndomain = {{ p = "{dom}" }}\n')
    f = tmp_path / "narrow.toml"
    f.write_text(head + body)
    got = {c.id.split(".", 1)[1]: c.check() for c in ClaimFile(f).claims}
    assert got["upper"].status in ("holds_numerically", "proved"), got["upper"].counterexample
    assert got["lower"].status == "fails"
    p = float(got["lower"].counterexample["params"]["p"])
    assert 0 < p < 0.5


def test_a_domain_end_may_name_a_symbol_called_like_a_python_keyword(tmp_path):
    """lambda (a Laplace scale, Mironov 2017) is a Python keyword: "(0, 1/lambda]" used to be refused
    with "its ends must be numbers".  x lambda <= 1 holds on x in (0, 1/lambda] and fails on
    (0, 2/lambda], at a point with lambda x > 1."""
    head = ('[paper]\nkey = "kwdom"\ntitle = "t"\n\n[symbols]\n'
            'lambda = { domain = "(0, oo)", search = [0.05, 50] }\nx = "(0, oo)"\n')
    body = "".join(f'\n[[claim]]\nid = "{cid}"\nwhere = "test"\nkind = "inequality"\n'
                   f"latex = 'x \\lambda \\le 1'\ndomain = {{ x = \"(0, {k}/lambda]\" }}\n"
                   for cid, k in (("inside", 1), ("beyond", 2)))
    f = tmp_path / "kwdom.toml"
    f.write_text(head + body)
    got = {c.id.split(".", 1)[1]: c.check() for c in ClaimFile(f).claims}
    assert got["inside"].status in ("holds_numerically", "proved")
    assert got["beyond"].status == "fails"
    ce = got["beyond"].counterexample["params"]
    assert float(ce["lambda"]) * float(ce["x"]) > 1


@pytest.mark.parametrize("latex", [r"D_P2 \le \alpha \mu^2", r"D_{P2} \le \alpha \mu^2"])
def test_a_name_with_a_letter_and_digit_subscript_is_one_name(tmp_path, latex):
    """A quantity named D_P2 used to be parsed as D_{P*2} ("unknown symbol 'D_{P*2}': declare it under
    [symbols]", though it was declared under [quantities]).  D_alpha(N(mu,1)||N(0,1)) = alpha mu^2/2."""
    f = tmp_path / "dp2.toml"
    f.write_text('[paper]\nkey = "dp2"\ntitle = "t"\n\n[symbols]\nalpha = { domain = "(1, oo)", search = [1.01, 20] }\n'
                 'mu = { domain = "(0, oo)", search = [0.1, 5] }\n\n[quantities]\nD_P2 = "Renyi(Gaussian(mu), alpha)"\n\n'
                 f'[[claim]]\nid = "c"\nwhere = "(1)"\nkind = "inequality"\nlatex = \'{latex}\'\n'
                 '\n[[claim]]\nid = "too_small"\nwhere = "(2)"\nkind = "inequality"\n'
                 "latex = '" + latex.replace(r"\alpha \mu^2", r"\frac{\alpha \mu^2}{3}") + "'\n")
    got = {c.id.split(".", 1)[1]: c.check() for c in ClaimFile(f).claims}
    assert got["c"].status in ("proved", "holds_numerically")
    assert got["too_small"].status == "fails"
