"""Issue 33 item 4: the library speaks the literature's language, not the seed papers'.

Outside ``derive/papers/`` (where a paper's own numbering belongs), no module of ``numeric/``,
``derive/`` or ``dpderive/`` names a function, class, variable, argument or attribute after a
result's number (``thm4_f``, ``lemma2_epsilon``), and no text in them cites a seed file ("002
eq. (40)", "seed 004", a seed's file name): the library cites author, year and result.  Both
scanners are run on planted lines, so a scanner that matches nothing cannot pass."""
from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ("numeric", "derive", "dpderive")

# a result's number inside an identifier: thm4_f, theorem5_sigma2, lemma1, eq25, prop7, cor1, sec5_...
PAPER_NUMBERED = re.compile(r"(?:^|_)(?:thm|theorem|lemma|lem|prop|proposition|cor|corollary|eq|eqs|"
                            r"sec|section|app|appendix|fig|figure|alg|algorithm|def|defn)\d", re.I)
# a seed file cited: "002 eq. (40)", "(004)", "seed 003", "004's", "002_681a0562af0ee53f.txt"
SEED_CITE = re.compile(r"\b00[0-4]_[0-9a-f]{16}\b|\bseed(?: file)?s? 00[0-4]\b|"
                       r"(?<![\d.eE+-])\b00[0-4]\b(?='s\b| ?(?:eqs?\.|Thm|Theorem|Lemma|Prop|Cor|Sec|App|Def|"
                       r"Alg|Fig|\(|\)|,|after|before))")


def library_files():
    for pkg in LIBRARY:
        for f in sorted((ROOT / pkg).rglob("*.py")):
            rel = f.relative_to(ROOT).as_posix()
            if not rel.startswith("derive/papers/"):
                yield rel, f.read_text(encoding="utf-8")


def identifiers(source: str):
    """(line, name) of every name the module binds or reads as an attribute."""
    for n in ast.walk(ast.parse(source)):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield n.lineno, n.name
        elif isinstance(n, ast.Name):
            yield n.lineno, n.id
        elif isinstance(n, ast.Attribute):
            yield n.lineno, n.attr
        elif isinstance(n, ast.arg):
            yield n.lineno, n.arg
        elif isinstance(n, ast.alias):
            yield n.lineno, (n.asname or n.name).split(".")[-1]


def texts(source: str):
    """(line, text) of every comment and string (docstrings, messages, citations)."""
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING):
            yield tok.start[0], tok.string


def paper_numbered(source: str) -> list:
    return sorted({(line, name) for line, name in identifiers(source) if PAPER_NUMBERED.search(name)})


def seed_cites(source: str) -> list:
    return [(line, m.group(0)) for line, t in texts(source) for m in SEED_CITE.finditer(t)]


def test_the_scanners_find_what_they_are_for():
    planted = ("def thm4_f(x):\n    return lemma2_epsilon(x) + K.eq25\n"
               "A = 1  # as in 002 eq. (40)\n"
               "B = 'seed 004, Sec. 2'\nC = \"(Asoodeh et al. 2021 (002) Theorem 3)\"\n"
               "D = '002_681a0562af0ee53f.txt'\nE = \"004's degree-2 expansion\"\n")
    assert {n for _, n in paper_numbered(planted)} == {"thm4_f", "lemma2_epsilon", "eq25"}
    assert len(seed_cites(planted)) == 5
    clean = ("def gamma_upper(alpha, eps2, x_002):\n    return 1e-002 + 0.002 * eps2  # Asoodeh et al. "
             "2021, Thm. 4\nT = '(1.001, 200)'\n")
    assert paper_numbered(clean) == [] and seed_cites(clean) == []


@pytest.mark.parametrize("check", [paper_numbered, seed_cites], ids=["identifiers", "citations"])
def test_the_library_names_no_paper_number_and_cites_no_seed(check):
    found = [f"{rel}:{line}: {what}" for rel, src in library_files() for line, what in check(src)]
    assert found == [], "\n".join(found)


def test_no_library_module_names_a_paper():
    """A paper package declares everything about its paper (formulas, claims, errata, figures):
    adding one touches nothing outside it, so no library module names a paper's key."""
    import derive.papers
    keys = derive.papers.PAPER_MODULES
    assert keys
    found = [f"{rel}: {k}" for rel, src in library_files() for k in keys
             if rel != "derive/papers/__init__.py" and re.search(rf"\b{k}\b", src)]
    assert found == []
