"""`dpderive show` prints a formula in the papers' notation: erf/erfinv encodings as Phi."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_show_typesets_phi_as_the_paper_does():
    p = subprocess.run([sys.executable, "-m", "dpderive.cli", "show", "asoodeh2021.sec5.eq41"],
                       capture_output=True, text=True, cwd=str(ROOT), timeout=300)
    assert p.returncode == 0, p.stderr
    lines = {ln.split(":", 1)[0]: ln.split(":", 1)[1].strip() for ln in p.stdout.splitlines() if ":" in ln}
    # (41): G_mu(tau) = Phi(Phi^{-1}(1 - tau) - mu), built from derive.functions.GaussTradeoff
    assert lines["expression"] == "Phi(-mu + PhiInv(1 - tau))"
    assert r"\Phi^{-1}" in lines["LaTeX"] and "erf" not in lines["LaTeX"]


def test_paper_form_rewrites_erf_encodings_as_phi():
    """An erf/erfinv encoding (a derived form, a claim file's formula) is shown as Phi, Phi^{-1}."""
    import sympy as sp
    from derive.functions import Phi, PhiInv
    from dpderive.render import paper_form, paper_latex
    mu, tau = sp.symbols("mu tau", positive=True)
    e = (1 + sp.erf((sp.sqrt(2) * sp.erfinv(1 - 2 * tau) - mu) / sp.sqrt(2))) / 2
    assert paper_form(e) == Phi(PhiInv(1 - tau) - mu)
    assert "erf" not in paper_latex(e) and r"\Phi^{-1}" in paper_latex(e)
