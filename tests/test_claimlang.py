"""The claim language (issue 25): shape and calculus claims over quantities of the truths
(numeric differentiation), domains whose ends depend on other parameters, multi-letter names,
the generated reference of every kind, and the text output of ``dpderive check``."""
import mpmath as mp
import pytest

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
