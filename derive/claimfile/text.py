r"""The LaTeX text of a claim: declared names of several letters read as one name, relations split
into their sides, formulas pulled from a tex file by ``\label``, and the order of dependent names."""
from __future__ import annotations

import re

from .domains import _canon


# ----------------------------------------------------------------------------- multi-letter names
_GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta", "vartheta",
          "iota", "kappa", "lambda", "mu", "nu", "xi", "pi", "varpi", "rho", "varrho", "sigma", "varsigma",
          "tau", "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi",
          "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega"}
_WRAP = r"\\(?:mathrm|text|operatorname|mathit|textrm|mathsf)"


def _is_multi_letter(name: str) -> bool:
    """A name the LaTeX parser does not read as one symbol: a base of several letters that is not a
    Greek letter, or a subscript of several letters or of letters and digits (``Erev``, ``E_rev``,
    ``D_P2``, which the parser reads as D_{P*2}; not ``sigma_0``, ``q_t``, ``x_12``)."""
    base, _, sub = name.partition("_")
    if not (len(base) == 1 or base in _GREEK):
        return True
    letters = len(re.sub(r"[^A-Za-z]", "", sub))
    return letters > 1 or (letters == 1 and len(sub) > 1 and bool(re.search(r"[0-9]", sub)))


def _letters(i: int) -> str:
    """0 -> A, 25 -> Z, 26 -> BA: a placeholder suffix of letters only (a LaTeX command name)."""
    s = ""
    while True:
        s = chr(65 + i % 26) + s
        i //= 26
        if i == 0:
            return s


def _name_pattern(name: str):
    """The ways a paper writes a declared multi-letter name (see ``ClaimFile._names_to_commands``)."""
    def word(w):
        if w in _GREEK:
            return rf"\\{w}(?![A-Za-z])"
        return rf"(?:{_WRAP}\{{{re.escape(w)}\}}|\\{re.escape(w)}(?![A-Za-z])|(?<![\\A-Za-z]){re.escape(w)}(?![A-Za-z]))"
    base, _, sub = name.partition("_")
    if not sub:
        return re.compile(word(base))
    subp = (rf"(?:\{{\s*(?:{_WRAP}\{{{re.escape(sub)}\}}|{re.escape(sub)})\s*\}}"
            rf"|{re.escape(sub)}(?![A-Za-z0-9]))")
    whole = rf"{_WRAP}\{{{re.escape(base)}\\?_\{{?{re.escape(sub)}\}}?\}}"
    return re.compile(rf"(?:{whole}|{word(base)}_{subp})")


def _product_hint(symbol: str, text: str) -> str:
    """For an unknown one-letter symbol that is part of a word of the LaTeX (``Erev`` read as
    E r e v, ``alpha`` without its backslash): how to write a name of several letters."""
    words = [w for w in re.findall(r"(?<![\\A-Za-z])[A-Za-z]{2,}", text) if _canon(symbol) in w]
    if not words:
        return ""
    w = words[0]
    if w in _GREEK:
        return f"; '{w}' without a backslash is read as a product of letters: write \\{w}"
    return (f"; '{w}' is read as the product of its letters: a name of several letters must be declared "
            f"under [symbols] or [quantities] (then {w}, \\mathrm{{{w}}} and, for a name like E_rev, "
            f"E_{{rev}} are one name)")

# ----------------------------------------------------------------------------- helpers
def _dependency_order(deps: dict, cyclic) -> list:
    """The names of ``deps`` (name -> names it depends on) with every name after those it depends on;
    ``cyclic(name, cycle)`` builds the exception raised for a cycle."""
    order, state = [], {}

    def visit(n, path):
        if state.get(n) == "done":
            return
        if state.get(n) == "active":
            cycle = path[path.index(n):] + [n]
            raise cyclic(cycle[0], cycle)
        state[n] = "active"
        for d in sorted(deps.get(n, ())):
            if d in deps:
                visit(d, path + [n])
        state[n] = "done"
        order.append(n)
    for n in deps:
        visit(n, [])
    return order


def _looks_like_relation(text: str) -> bool:
    return bool(_relation_sides(re.sub(r"\\(left|right)[<>]", "", text))[1])


_REL_TOKENS = {"\\le": "<=", "\\leq": "<=", "\\ge": ">=", "\\geq": ">=", "<=": "<=", ">=": ">=", "=": "==",
               "<": "<", ">": ">"}


_RELATION = re.compile(r"\\leq?(?![a-zA-Z])|\\geq?(?![a-zA-Z])|<=|>=|(?<![<>])=|<|>")


def _relation_parts(text: str) -> tuple[str, str, str | None]:
    """(lhs, rhs, op) of 'A rel B', split at its first relation outside braces (``\\sum_{k=1}``);
    op is one of <=, <, >=, >, == (None, with rhs "", when there is no relation)."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            m = _RELATION.match(text, i)
            if m and not (ch == "\\" and text[i - 1:i] == "\\"):
                return text[:m.start()].strip(), text[m.end():].strip(), _REL_TOKENS.get(m.group(0))
    return text, "", None


def _relation_sides(text: str) -> tuple[str, str]:
    """Split 'A rel B' at its relation, ignoring relations inside braces (``\\sum_{k=1}``)."""
    return _relation_parts(text)[:2]


def extract_label(tex: str, label: str, err) -> str:
    r"""The body of the display holding ``\label{label}`` (equation, align, ``\[ \]``,
    ``$$ $$``), without the label, ``\nonumber``, alignment ``&`` and a trailing ``,`` or ``.``."""
    i = tex.find(r"\label{" + label + "}")
    if i < 0:
        raise err(f"no \\label{{{label}}} in the tex file")
    starts = [(tex.rfind(r"\begin{" + env, 0, i), env) for env in
              ("equation", "equation*", "align", "align*", "multline", "gather")]
    starts += [(tex.rfind(r"\[", 0, i), "["), (tex.rfind("$$", 0, i), "$$")]
    pos, env = max(starts)
    if pos < 0:
        raise err(f"\\label{{{label}}} is not inside a display")
    if env == "[":
        body, end = tex[pos + 2:], r"\]"
    elif env == "$$":
        body, end = tex[pos + 2:], "$$"
    else:
        body, end = tex[pos + len(r"\begin{" + env + "}"):], r"\end{" + env + "}"
    body = body[:body.find(end)] if end in body else body
    body = body.replace(r"\label{" + label + "}", "").replace(r"\nonumber", "").replace("&", "")
    body = re.sub(r"\\label\{[^}]*\}", "", body)
    if r"\\" in body:
        raise err(f"\\label{{{label}}} is on a multi-line display: give the formula as latex = '...'")
    return body.strip().rstrip(".,").strip()
