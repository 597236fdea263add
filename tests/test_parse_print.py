"""The parser (normaliser + parse_latex + symbol map) and the house printer."""
import json
import pathlib

import pytest
import sympy as sp

from derive.parse import ParseError, normalise, parse_printed
from derive.printing import latex
from derive.symbols import alpha, delta, eps, gamma, p

GOLDEN = pathlib.Path(__file__).parent / "golden" / "printer.json"


@pytest.mark.parametrize("src,expected", [
    (r"\bar{p}^{\alpha}", (1 - p) ** alpha),
    (r"\left(\gamma + \log(1 - \delta)\right)_{+}", sp.Max(0, gamma + sp.log(1 - delta))),
    (r"\alpha(\alpha-1)", alpha * (alpha - 1)),
    (r"e^{(\alpha - 1)\gamma}", sp.exp((alpha - 1) * gamma)),
    (r"\frac{1}{\alpha} (1 - \frac{1}{\alpha})^{\alpha - 1}", (1 - 1 / alpha) ** (alpha - 1) / alpha),
])
def test_parse_examples(src, expected):
    assert sp.simplify(parse_printed(src) - expected) == 0


def test_parse_keeps_typos():
    # a wrong printed exponent must survive parsing: nothing is "fixed"
    e = parse_printed(r"2\alpha e^{2\varepsilon}")
    assert e == 2 * alpha * sp.exp(2 * eps)


def test_unknown_symbol_raises():
    with pytest.raises(ParseError, match="unknown symbol"):
        parse_printed(r"\kappa + 1")


def test_normaliser_rules():
    assert normalise(r"\left( x \right)_+") == r"\max( x , 0)"
    assert r"\cdot" in normalise(r"\delta(1-\delta)")
    assert "(1-p)" in normalise(r"\bar p")


def test_printer_paper_notation():
    assert latex(sp.Max(gamma + sp.log(1 - delta), 0)) == r"\left(\gamma + \log\left(\bar{\delta}\right)\right)_+"
    assert r"\varepsilon" in latex(eps)


def test_golden_printer():
    """House-printer output for every registered formula, held in a golden file
    (regenerate with `python tests/golden/make_printer_golden.py`)."""
    import derive
    want = json.loads(GOLDEN.read_text())
    got = {f.name: latex(f.expr) for f in derive.formulas() if f.name in want}
    assert got == want
    assert len(want) >= 10


def test_parse_cache_round_trips():
    """Cached parses (srepr strings in derive/parse_cache.json) equal fresh ANTLR parses."""
    import random

    import derive
    from derive import parse as P
    derive.load_all()
    plain = sorted(k for k in P._cache() if k.endswith("\x00"))
    assert len(plain) >= 20
    for key in random.Random(5).sample(plain, 8):
        text = key[:-1]
        fresh = P._parse_uncached(text, None)
        assert P._from_srepr(P._cache()[key]) == fresh
        assert P.parse_printed(text) == fresh     # normalise is idempotent on normalised text
