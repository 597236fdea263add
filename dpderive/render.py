"""Jinja2 rendering of LaTeX: delimiters that do not clash with braces, and
explicit filters for TeX text and for mathematics (see STYLE.md)."""
from __future__ import annotations

import re
from pathlib import Path

import jinja2

from derive.printing import latex as house_latex

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"

_TEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
}
_TEX_RE = re.compile("|".join(re.escape(k) for k in _TEX_SPECIAL))


_UNICODE = {
    "α": r"\ensuremath{\alpha}", "β": r"\ensuremath{\beta}", "γ": r"\ensuremath{\gamma}",
    "δ": r"\ensuremath{\delta}", "ε": r"\ensuremath{\varepsilon}", "ζ": r"\ensuremath{\zeta}",
    "λ": r"\ensuremath{\lambda}", "μ": r"\ensuremath{\mu}", "ρ": r"\ensuremath{\rho}",
    "σ": r"\ensuremath{\sigma}", "τ": r"\ensuremath{\tau}", "χ": r"\ensuremath{\chi}",
    "ℓ": r"\ensuremath{\ell}", "∞": r"\ensuremath{\infty}", "≤": r"\ensuremath{\le}",
    "≥": r"\ensuremath{\ge}", "−": "-", "–": "--", "—": "---", "’": "'", "“": "``", "”": "''",
    "×": r"\ensuremath{\times}", "→": r"\ensuremath{\to}", "≈": r"\ensuremath{\approx}",
}


def ascii_tex(tex: str) -> str:
    """Replace the non-ASCII characters that seed texts carry by TeX macros
    (pdflatex without inputenc set-up for Greek); anything unknown becomes '?'."""
    return "".join(c if ord(c) < 128 else _UNICODE.get(c, "?") for c in tex)


def tex_escape(text) -> str:
    """Escape plain text for TeX."""
    return _TEX_RE.sub(lambda m: _TEX_SPECIAL[m.group(0)], str(text))


def _sanitise_math(s: str) -> str:
    """Make a paper's display LaTeX safe inside one math box: drop tags,
    alignment and line breaks; keep everything else as printed."""
    s = re.sub(r"\\tag\{[^}]*\}", "", s)
    s = re.sub(r"\(\d{1,3}\)\s*$", "", s.strip())       # trailing equation numbers
    s = s.replace("&", " ").replace("\\\\", " ")
    s = re.sub(r"\\begin\{(split|aligned)\}|\\end\{(split|aligned)\}", "", s)
    s = re.sub(r"(?<!\\)%\s*", "", s)                # the dumps' line-continuation comments
    s = s.strip()
    while s and s[-1] in ",." and not s.endswith("\\right."):   # keep a "\right." delimiter
        s = s[:-1].rstrip()
    # a fragment of a display may cut a \left ... \right pair: close it with null delimiters
    n_left = len(re.findall(r"\\left(?![a-zA-Z])", s))
    n_right = len(re.findall(r"\\right(?![a-zA-Z])", s))
    if n_right > n_left:
        s = "\\left. " * (n_right - n_left) + s
    elif n_left > n_right:
        s = s + " \\right." * (n_left - n_right)
    return s


def printed(s: str) -> str:
    """A paper's printed LaTeX for display: prose with inline $...$ is set as
    text; a formula is set in a display that shrinks to the line width."""
    if s is None:
        return ""
    s = re.sub(r"\s+", " ", s)  # a blank line inside math would end the paragraph
    if "$" in s:
        parts = s.split("$")
        text = parts[0::2]
        if any(re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", x) and "\\" not in x for x in text):
            return "".join(tex_escape(x) if i % 2 == 0 else f"${x}$" for i, x in enumerate(parts))
        s = s.replace("$", " ")  # a display split over several $$ blocks
    if re.search(r"[A-Za-z]{3,} [a-z]{2,} [a-z]{2,}", s) and "\\" not in s:
        return tex_escape(s)
    return mathbox(_sanitise_math(s))


def mathbox(body: str) -> str:
    return (r"\par\noindent\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}"
            r"{$\displaystyle " + body + r"$}\par")


def math(expr) -> str:
    """A SymPy expression in the house style, in a shrink-to-fit display."""
    return mathbox(house_latex(expr))


def inline(expr) -> str:
    return "$" + house_latex(expr) + "$"


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        block_start_string=r"\BLOCK{", block_end_string="}",
        variable_start_string=r"\VAR{", variable_end_string="}",
        comment_start_string=r"\#{", comment_end_string="}",
        line_statement_prefix=None, line_comment_prefix=None,
        trim_blocks=True, lstrip_blocks=True, autoescape=False,
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
    )
    env.filters.update(tex=tex_escape, printed=printed, math=math, inline=inline, mathbox=mathbox)
    return env
