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
    r"|\bderive\.truths\b|\bmp_minimize\b|\bsympy\.\w+"                        # internal module names
    r"|\b(?:EpsOfDelta|DeltaOfEps|HockeyStick|Renyi|MaxDivergence|ChiAlpha|Tradeoff\w*|OptimalRdp\w+"
    r"|LikelihoodRatio\w+|SubsampledGaussian|RandomizedResponse|EpsDeltaPair)\("     # library truths as code
    r"|\\operatorname\{(?:EpsOfDelta|DeltaOfEps|HockeyStick|Renyi|KL|TV|Gaussian|Laplace)\}"
    r"|\(\[-?\d"                                                                # a pmf pair as Python lists
    r"|\blhs\s*(?:<=|>=|==)\s*rhs\b"                                              # the checker's own words
)


def program_text(text: str) -> list[str]:
    return [f"line {i}: ...{line[max(0, m.start() - 40):m.end() + 40]}..."
            for i, line in enumerate(text.splitlines(), 1) for m in PROGRAM_TEXT.finditer(line)]


def test_the_scanner_sees_program_text():
    assert program_text("true - printed = p**alpha*q") and program_text("| alpha | 10.0 |")
    assert program_text(r"$\mathrm{SupOverEvents}(\mathrm{Pmf}(2 \cdot u))$")
    assert program_text("truth x from derive.truths; inf by mp_minimize") and program_text("sympy.diff, then")
    assert not program_text("true - printed = p^alpha·q; e^eps = (alpha + sqrt(2 alpha))/(2 + alpha); 0.05, 1e-5")
    assert not program_text("**Counterexample** (Asoodeh et al. 2021, eq. (18)). *Severity:* typo.")
    assert not program_text(r"$E \le T/\lambda$ | lambda | 8 |") and program_text("f = lambda x: x")
    assert program_text("an upper bound on EpsOfDelta(Gaussian(mu), delta)")
    assert program_text(r"$\operatorname{EpsOfDelta}{\left(x\right)}$") and program_text("P | ([0.1, 0.9], [0.5, 0.5])")
    assert program_text("inequality lhs <= rhs on the stated domain")
    assert not program_text(r"$\varepsilon(\delta;\ G_{\mu})$; P = (0.0177, 0.965), Q = (0.5, 0.5)")


@pytest.mark.parametrize("name", ["errata.md", "errata.tex"])
def test_the_committed_errata_carry_no_program_text(name):
    found = program_text((ROOT / "reports" / name).read_text(encoding="utf-8"))
    assert not found, f"{len(found)} places of program text in reports/{name}:\n" + "\n".join(found[:20])


@pytest.mark.slow
def test_the_reports_of_the_examples_carry_no_program_text(tmp_path):
    """``dpderive report`` of every claim file in examples/ (errata and appendix, Markdown and
    LaTeX) reads as mathematics: a user's own file gets the same machinery."""
    import subprocess
    import sys
    files = sorted(str(p) for p in (ROOT / "examples").glob("*.toml"))
    run = subprocess.run([sys.executable, "-m", "dpderive.cli", "report", *files, "--out", str(tmp_path),
                          "--no-pdf"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]
    found = {}
    for f in sorted(tmp_path.glob("*.md")) + sorted(tmp_path.glob("*.tex")):
        hits = program_text(f.read_text(encoding="utf-8"))
        if hits:
            found[f.name] = hits[:5]
    assert not found, found
    md = (tmp_path / "errata.md").read_text(encoding="utf-8")
    assert r"\varepsilon(\delta;" in md                    # the truth in the literature's notation


@pytest.mark.parametrize("truth, tex", [
    ("EpsOfDelta(Gaussian(mu), delta)", r"\varepsilon_{G_{\mu}}(\delta)"),
    ("Renyi(Laplace(1, b), alpha)", r"D_{\alpha}(\mathrm{Lap}(0, b) \,\|\, \mathrm{Lap}(1, b))"),
    ("HockeyStick(Composed(RandomizedResponse(eps), k), exp(x))", r"\mathsf{E}_{e^{x}}(\mathrm{RR}_{\varepsilon}^{\otimes k})"),
    ("KL(Swapped(Bernoulli(a, b)))", r"D_{\mathrm{KL}}(\mathrm{Bern}(b) \,\|\, \mathrm{Bern}(a))"),
    ("OptimalRdpEps(alpha, gamma, delta)", r"\varepsilon^{\mathrm{RDP}}_{\alpha, \gamma}(\delta)"),
    # a product written with the middle dot of the records' plain text
    ("DeltaOfEps(Gaussian(2\u00b7mu), eps)", r"\delta_{G_{2 \mu}}(\varepsilon)"),
])
def test_truths_print_in_the_literatures_notation(truth, tex):
    from dpderive.render import truth_latex
    assert truth_latex(f"truth {truth} from derive.truths; search") == tex


def test_a_claim_files_own_pair_prints_by_its_name():
    from dpderive.render import statement_math, truth_latex
    assert truth_latex("truth HockeyStick(Composed(PQ, k), exp(eps)) from derive.truths; x") == \
        r"\mathsf{E}_{e^{\varepsilon}}(PQ^{\otimes k})"
    assert truth_latex("truth KL(PQ) from derive.truths; x") == r"D_{\mathrm{KL}}(PQ)"
    assert statement_math("upper bound on Renyi(Laplace(1, b), alpha)") == \
        r"upper bound on $D_{\alpha}(\mathrm{Lap}(0, b) \,\|\, \mathrm{Lap}(1, b))$"
    assert statement_math("a sentence of the author's") == "a sentence of the author's"
