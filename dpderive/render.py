"""Jinja2 rendering of LaTeX: delimiters that do not clash with braces, and
explicit filters for TeX text and for mathematics (see STYLE.md)."""
from __future__ import annotations

import re
from pathlib import Path

from sympy.parsing.sympy_parser import parse_expr as _parse_expr

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
    env.filters.update(tex=tex_escape, printed=printed, math=math, inline=inline, mathbox=mathbox,
                       prose=lambda t: prose(t), idtag=lambda t: idtag(t))
    return env


# ----------------------------------------------------------------------------- prose with ASCII mathematics
_GREEK_WORDS = ("alpha", "beta", "gamma", "delta", "varepsilon", "epsilon", "eps", "zeta", "eta", "theta", "kappa",
                "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "phi", "chi", "psi", "omega", "ell",
                "Gamma", "Delta", "Theta", "Lambda", "Sigma", "Phi", "Psi", "Omega", "kappatilde")
_GREEK_TEX = {w: "\\" + w for w in _GREEK_WORDS}
_GREEK_TEX.update({"eps": r"\varepsilon", "epsilon": r"\varepsilon", "kappatilde": r"\tilde\kappa"})
_FUNCS = {"log": r"\log", "exp": r"\exp", "inf": r"\inf", "sup": r"\sup", "min": r"\min", "max": r"\max",
          "lim": r"\lim", "sqrt": r"\surd", "oo": r"\infty", "erf": r"\operatorname{erf}"}
_WORD_RE = re.compile(r"(?<![A-Za-z\\])([A-Za-z]+)(?![A-Za-z])")
_GREEK_RE = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(_GREEK_WORDS, key=len, reverse=True)) + r")(?![A-Za-z])")
_MATHY = re.compile(r"[_^=<>|{}/+*~]|(?<![A-Za-z])(?:" + "|".join(_GREEK_WORDS) + r"|log|sqrt|oo|inf|sup)(?![A-Za-z])")
_OPS = {"=", "+", "-", "<", ">", "<=", ">=", "->", "*", "/", "~", "=>", "<=>"}


def _ascii_math(tok: str) -> str | None:
    """One ASCII-math token as TeX math (without $), or None when it cannot be converted safely."""
    if re.search(r"[\^_]$|[\^_][\^_]|\\|\$|@|\*\*", tok):
        return None                      # (``**`` is SymPy's power: such text stays as printed)
    if re.search(r"_[A-Za-z0-9]+_|_\{[^{}]*\}_|\^[A-Za-z0-9]+\^|\^\{[^{}]*\}\^", tok):
        return None                      # a double sub- or superscript: an identifier, not mathematics
    if re.search(r"(\}|\^\w+)'", tok):
        return None                      # a quote after a superscript (printed 'e^{eps}')
    if re.search(r"[A-Za-z]\w*\.[A-Za-z]\w*_\w", tok):
        return None                      # a claim id (appE.zero_large_delta)
    # braces first: a group after ^ or _ is TeX grouping; any other brace is a literal set brace
    out, stack = [], []
    for i, ch in enumerate(tok):
        if ch == "{":
            grp = i > 0 and tok[i - 1] in "^_"
            stack.append(grp)
            out.append("{" if grp else "@L@")
        elif ch == "}":
            if not stack:
                return None
            out.append("}" if stack.pop() else "@R@")
        else:
            out.append(ch)
    if stack:
        return None
    s = re.sub(r"\^\(([^()]*)\)", r"^{(\1)}", "".join(out))     # M^(T): the whole group is raised
    s = (s.replace("<=>", r" \iff ").replace("=>", r" \implies ").replace("<=", r" \le ")
         .replace(">=", r" \ge ").replace("->", r" \to ").replace("!=", r" \ne ").replace("||", r" \| ")
         .replace("~", r" \sim ").replace("*", r" \cdot ").replace("%", r"\%").replace("&", r"\&")
         .replace("#", r"\#"))

    def word(m):
        w = m.group(1)
        if w in ("L", "R") and m.start() > 0 and s[m.start() - 1] == "@":
            return w
        if w in _GREEK_TEX:
            tex = _GREEK_TEX[w] + " "
        elif w in _FUNCS:
            tex = _FUNCS[w] + " "
        elif len(w) == 1:
            return w
        else:
            tex = r"\mathrm{" + w + "}"
        if m.start() > 0 and s[m.start() - 1] in "^_":     # a sub/superscript macro needs braces
            return "{" + tex.strip() + "}"
        return tex
    s = _WORD_RE.sub(word, s)
    s = re.sub(r"\)-(\\mathrm\{)", r")\\mbox{-}\1", s)         # (eps,delta)-DP: a hyphen, not a minus
    return s.replace("@L@", r"\{").replace("@R@", r"\}").strip()


def _spaced_prose(text: str) -> str:
    """``prose`` keeping the leading and trailing spaces (a piece between two math spans)."""
    core = text.strip()
    if not core:
        return text
    lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()):]
    return lead + prose(core) + trail


def prose(text) -> str:
    """Plain text whose ASCII mathematics (``eps_alpha^delta(gamma)``, ``alpha > 1``, ``sqrt(4 rho T)``)
    is typeset as inline math; everything else is escaped as text.  A token is mathematical when it
    contains ``_ ^ = < > | { } / + * ~`` or a Greek letter's name; a single letter or number next to
    a mathematical token joins it.  A token that cannot be converted safely stays text.  A ``$...$``
    span is LaTeX already (a generated erratum's title) and passes through as it is."""
    if text is None:
        return ""
    text = str(text)
    if "$" in text:
        pieces = re.split(r"(\$[^$]+\$)", text)
        if len(pieces) > 1:
            return "".join(p if p.startswith("$") and p.endswith("$") and len(p) > 1 else _spaced_prose(p)
                           for p in pieces)
    parts = re.split(r"(\s+)", text)
    toks = [p for p in parts if p and not p.isspace()]
    math_flags = []
    for t in toks:
        core = t.rstrip(".,;:")
        math_flags.append(bool(core) and (bool(_MATHY.search(core)) or core in _OPS))
    for i, t in enumerate(toks):            # single letters / numbers join a neighbouring math token
        core = t.rstrip(".,;:")
        if not math_flags[i] and re.fullmatch(r"[A-Za-z]|[-+]?\d+(\.\d+)?|\(?[A-HJ-Za-hj-z]\)?", core) \
                and core not in ("a", "A", "I"):
            if (i > 0 and math_flags[i - 1] and not toks[i - 1].endswith((",", ".", ";", ":"))) or \
                    (i + 1 < len(toks) and math_flags[i + 1] and not t.endswith((",", ".", ";", ":"))):
                math_flags[i] = "join"
    out, span = [], []

    def convert(tokens) -> str | None:
        body = " ".join(tokens)
        trail = re.search(r"[.,;:]*$", body).group(0)
        body = body[: len(body) - len(trail)] if trail else body
        conv = _ascii_math(body)
        return "$" + conv + "$" + tex_escape(trail) if conv else None

    def ends_clause(t: str) -> bool:
        return t.endswith((",", ";", ":")) or (t.endswith(".") and not t.endswith(".."))

    def flush():
        """Mathematical tokens joined across commas while a bracket is open
        (``min{eps_0, eps_1, x}``, up to 60 characters) are typeset whole; if that fails,
        piece by piece at their commas, and a piece that cannot be converted stays text."""
        if not span:
            return
        whole = convert(span) if len(span) > 1 else None
        if whole is not None:
            out.append(whole)
        else:
            piece = []
            for t in span + [None]:
                if t is not None:
                    piece.append(t)
                if piece and (t is None or ends_clause(t)):
                    out.append(convert(piece) or tex_escape(" ".join(piece)))
                    piece = []
        span.clear()

    def open_brackets() -> int:
        s = " ".join(span)
        return sum(s.count(c) for c in "({[") - sum(s.count(c) for c in ")}]")

    for t, f in zip(toks, math_flags):
        if f:
            span.append(t)
            if ends_clause(t) and (open_brackets() <= 0 or len(" ".join(span)) > 60):
                flush()                     # (a long bracket is split: one unbreakable formula
                                            # wider than the line would be worse)
        else:
            flush()
            out.append(tex_escape(t))
    flush()
    return " ".join(out)


def idtag(cid: str) -> str:
    """A claim or formula id in small print, breakable after its dots and underscores."""
    t = tex_escape(cid).replace(".", r".\allowbreak{}").replace(r"\_", r"\_\allowbreak{}")
    return r"{\scriptsize\ttfamily\color{gray}" + t + "}"


# ----------------------------------------------------------------------------- derived forms in the papers' notation
import sympy as _sp  # noqa: E402

from derive.functions import Phi as _Phi, PhiInv as _PhiInv  # noqa: E402  (the one definition)

# symbols that derived forms use beyond a formula's parameters, with their definitions
SYMBOL_NOTES = {
    "L": r"L = \log(1/\delta)",
    "A": r"A = 2\log(1/\delta)/\varepsilon",
    "zeta_alpha": r"\zeta_\alpha = \frac{(\alpha-1)^{\alpha-1}}{\alpha^\alpha}",
    "Delta_2": r"\Delta_2 = \sup_{d\sim d'}\|f(d)-f(d')\|_2",
}


def paper_form(expr):
    """A derived expression rewritten towards the papers' notation: erf and erfinv as the normal CDF
    Phi and its inverse, products of square roots merged (sqrt(L) sqrt(T) -> sqrt(L T)); the
    rewritten form is kept only when it is not longer than the original."""
    if expr is None or not isinstance(expr, _sp.Basic):
        return expr
    e = expr
    if _sp.count_ops(e) > 150:          # large expressions are printed as encoded (expand could blow up)
        return e
    if e.has(_sp.erf, _sp.erfinv, _sp.erfc):
        e = e.replace(_sp.erfinv, lambda z: _PhiInv((z + 1) / 2) / _sp.sqrt(2))
        e = e.replace(_sp.erfc, lambda z: 2 * _Phi(-z * _sp.sqrt(2)))
        e = e.replace(_sp.erf, lambda z: 2 * _Phi(z * _sp.sqrt(2)) - 1)
        e = _sp.expand(e, deep=False)
        e = e.replace(_Phi, lambda z: _Phi(_sp.expand(z)))
    try:
        e2 = _sp.powsimp(_sp.expand(e), force=True)
        if _sp.count_ops(e2) <= _sp.count_ops(e):
            e = e2
    except Exception:  # pragma: no cover - simplification is cosmetic
        pass
    return e


def symbol_notes(expr, known=()) -> str:
    """'where L = log(1/delta), ...' for the symbols of ``expr`` that are not parameters in ``known``."""
    if expr is None or not isinstance(expr, _sp.Basic):
        return ""
    names = sorted(s.name for s in expr.free_symbols if s.name in SYMBOL_NOTES and s.name not in known)
    return ", ".join("$" + SYMBOL_NOTES[n] + "$" for n in names)


def paper_latex(expr) -> str:
    """LaTeX of ``paper_form(expr)`` in the house style, Phi^{-1} printed as in the papers."""
    return house_latex(paper_form(expr))


# ----------------------------------------------------------------------------- the truth a check compared with
_TRUTH_METHOD = re.compile(r"^truth (.+?) from derive\.truths; ")
# names SymPy would read as its own objects (E, I, S, N, Q, O, gamma, beta, zeta, ...) stay symbols
_TRUTH_LOCALS = {n: _sp.Symbol(n) for n in ("E", "I", "S", "N", "Q", "O", "beta", "gamma", "zeta", "C")}


_STATEMENT_TRUTH = re.compile(r"^((?:upper|lower) bound on|equals) (.+)$")


def statement_math(text: str) -> str:
    """A generated statement ("upper bound on EpsOfDelta(Gaussian(mu), delta)") with its truth
    typeset in the literature's notation ($...$); any other statement unchanged."""
    m = _STATEMENT_TRUTH.match(text or "")
    if not m:
        return text
    tl = truth_latex(f"truth {m.group(2)} from derive.truths; ")
    return f"{m.group(1)} ${tl}$" if tl else text


def truth_latex(method: str) -> str:
    """The truth a check compared with (``truth X from derive.truths; ...`` in its method), typeset;
    "" when the method names none or it is a description rather than SymPy text."""
    m = _TRUTH_METHOD.match(method or "")
    if not m:
        return ""
    try:   # the method's text writes products with a middle dot (derive.printing.plain)
        return paper_latex(_parse_expr(m.group(1).replace("\u00b7", "*"), local_dict=dict(_TRUTH_LOCALS)))
    except Exception:           # not SymPy syntax (a description): keep the words
        return ""
