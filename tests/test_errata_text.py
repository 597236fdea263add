"""Issue 32, item 6: the errata read as a referee writes, not as a program prints.  No Python syntax
(``x**2``, ``2*alpha``), no Python literals (None, True, np., mpf(...)), no internal objects (Pmf(...),
SupOverEvents(...) of softmax logits), no integral decimals (alpha 10.0) in the committed
``reports/errata.md`` and ``reports/errata.tex``; plain functions (exp(x), sqrt(x)) are plain
mathematics and allowed."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROGRAM_TEXT = re.compile(
    r"[\w)]\*\*[\w(]"            # a Python power
    r"|[\w)]\*[\w(]"             # a Python product
    r"|\bPmf\(|SupOverEvents\(|\\mathrm\{Pmf\}|\\mathrm\{SupOverEvents\}"   # internal objects
    r"|\bmpf\(|\bnp\.|\bNone\b|\bTrue\b|\bFalse\b|\blambda\s+\w+(,\s*\w+)*\s*:|\bfactorial\("  # Python literals and calls
    r"|(?<![\w.])\d+\.0(?![\d.eE])"                                           # 10.0 for 10
    r"|\bderive\.truths\b|\bmp_minimize\b"                                     # internal module names
)


def program_text(text: str) -> list[str]:
    return [f"line {i}: ...{line[max(0, m.start() - 40):m.end() + 40]}..."
            for i, line in enumerate(text.splitlines(), 1) for m in PROGRAM_TEXT.finditer(line)]


def test_the_scanner_sees_program_text():
    assert program_text("true - printed = p**alpha*q") and program_text("| alpha | 10.0 |")
    assert program_text(r"$\mathrm{SupOverEvents}(\mathrm{Pmf}(2 \cdot u))$")
    assert program_text("truth x from derive.truths; inf by mp_minimize")
    assert not program_text("true - printed = p^alpha·q; e^eps = (alpha + sqrt(2 alpha))/(2 + alpha); 0.05, 1e-5")
    assert not program_text("**Counterexample** (Asoodeh et al. 2021, eq. (18)). *Severity:* typo.")
    assert not program_text(r"$E \le T/\lambda$ | lambda | 8 |") and program_text("f = lambda x: x")


@pytest.mark.parametrize("name", ["errata.md", "errata.tex"])
def test_the_committed_errata_carry_no_program_text(name):
    found = program_text((ROOT / "reports" / name).read_text(encoding="utf-8"))
    assert not found, f"{len(found)} places of program text in reports/{name}:\n" + "\n".join(found[:20])
