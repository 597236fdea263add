"""Every printed form is the paper's own text: each formula's and claim's
``printed_latex`` occurs verbatim (whitespace collapsed) in its seed file, and
each parse fragment occurs in its printed form."""
import re

import pytest

import derive
from derive import registry

from conftest import SEEDS


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


_SEED_TEXT = {}


def seed_text(name: str) -> str:
    if name not in _SEED_TEXT:
        _SEED_TEXT[name] = _norm((SEEDS / name).read_text(encoding="utf-8"))
    return _SEED_TEXT[name]


derive.load_all()


@pytest.mark.parametrize("f", registry.formulas(), ids=lambda f: f.name)
def test_formula_printed_is_verbatim(f):
    assert _norm(f.printed_latex) in seed_text(f.source.seed)
    frag = getattr(f, "parse_fragment", None)
    if frag is not None:
        assert _norm(frag) in _norm(f.printed_latex)
    for line in f.continuation:             # further lines of a display run over several
        assert _norm(line) in seed_text(f.source.seed)
    if f.encoding == "hand":
        assert f.encoding_note, "a hand encoding says why"


@pytest.mark.parametrize("c", registry.claims(), ids=lambda c: c.id)
def test_claim_printed_is_verbatim(c):
    assert _norm(c.printed_latex) in seed_text(c.source.seed)


def test_every_claim_cites_a_location():
    for c in registry.claims():
        assert c.source.location and c.source.seed.endswith(".txt")
