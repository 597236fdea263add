"""Turn a formula's LaTeX, as printed in a paper, into SymPy mechanically.

``parse_printed(latex)`` = ``normalise`` (a small set of documented textual
rewrites) + ``sympy.parsing.latex.parse_latex(strict=True)`` (ANTLR backend,
needs ``antlr4-python3-runtime==4.11.*``) + a symbol map onto
``derive.symbols``.  Nothing here knows what a formula *should* be: the
rewrites are purely notational, so a typo in the paper survives parsing.

The normaliser's rules, in order:
  1. drop sizing and spacing commands (``\\left``, ``\\right``, ``\\bigl`` ...,
     ``\\,``, ``\\;``, ``\\!``, ``\\quad``), ``\\displaystyle``;
  2. ``\\dfrac``/``\\tfrac`` -> ``\\frac``; ``\\mathrm{e}`` -> ``e``;
  3. ``\\bar{x}`` and ``\\bar x`` -> ``(1-x)`` (the papers' notation, 002 Sec. I-C);
  4. ``( ... )_+`` and ``( ... )_{+}`` -> ``\\max(..., 0)`` (positive part);
  5. ``\\log^2 x`` -> ``(\\log x)^2``-style is not supported and raises;
  6. a trailing ``,`` or ``.`` is removed.
The symbol map turns ``e`` into Euler's number and every other name into the
matching symbol of ``derive.symbols`` (``\\zeta_{\\alpha}`` -> ``zeta_alpha``);
an unknown name raises ``ParseError``.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import re
from pathlib import Path

import sympy as sp

from . import symbols as S


class ParseError(ValueError):
    pass


_SIZING = re.compile(r"\\(left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|Biggl|Biggr|big|Big|bigg|Bigg)(?![a-zA-Z])")
_SPACING = re.compile(r"\\(,|;|!|quad|qquad|displaystyle|textstyle)(?![a-zA-Z])|\\ ")

_NAME_MAP = {
    "alpha": S.alpha, "varepsilon": S.eps, "epsilon": S.eps, "delta": S.delta,
    "gamma": S.gamma, "lambda": S.lam, "p": S.p, "q": S.q, "sigma": S.sigma,
    "rho": S.rho, "T": S.T, "t": S.t, "tau": S.tau, "mu": S.mu, "A": S.A,
    "zeta_{alpha}": S.zeta_alpha, "zeta_alpha": S.zeta_alpha,
}


def _matching_open(s: str, close: int) -> int:
    depth = 0
    for i in range(close, -1, -1):
        if s[i] == ")":
            depth += 1
        elif s[i] == "(":
            depth -= 1
            if depth == 0:
                return i
    raise ParseError(f"unbalanced parentheses before position {close} in {s!r}")


def _brace_arg(s: str, start: int) -> tuple[str, int]:
    """The argument of a command at s[start:]: ``{...}`` or one token."""
    while start < len(s) and s[start] == " ":
        start += 1
    if s[start] == "{":
        depth = 0
        for i in range(start, len(s)):
            depth += {"{": 1, "}": -1}.get(s[i], 0)
            if depth == 0:
                return s[start + 1:i], i + 1
        raise ParseError(f"unbalanced braces in {s!r}")
    m = re.match(r"\\[a-zA-Z]+|.", s[start:])
    return m.group(0), start + len(m.group(0))


def normalise(latex: str) -> str:
    s = latex.strip()
    s = _SIZING.sub("", s)
    s = _SPACING.sub(" ", s)
    s = re.sub(r"\\[dt]frac", r"\\frac", s)
    s = re.sub(r"\\mathrm\{e\}", "e", s)
    s = re.sub(r"\\mathrm\{d\}", "d", s)
    # \bar{x} -> (1-x)
    while True:
        m = re.search(r"\\bar(?![a-zA-Z])", s)
        if not m:
            break
        arg, end = _brace_arg(s, m.end())
        s = s[:m.start()] + "(1-" + arg + ")" + s[end:]
    # ( ... )_+  ->  \max( ..., 0)
    while True:
        m = re.search(r"\)\s*_\s*(\{\s*\+\s*\}|\+)", s)
        if not m:
            break
        o = _matching_open(s, m.start())
        s = s[:o] + r"\max(" + s[o + 1:m.start()] + ", 0)" + s[m.end():]
    if re.search(r"\\log\^", s):
        raise ParseError(f"powers of \\log are not supported: {latex!r}")
    # implicit products: a variable directly followed by "(" is a product,
    # not a function application (``\alpha(\alpha-1)``)
    s = re.sub(r"(\\(?:alpha|delta|varepsilon|epsilon|gamma|rho|sigma|lambda|mu|tau)|\\zeta_\{\\alpha\}|\\zeta_\\alpha|(?<![a-zA-Z\\])[pqTA])\s*\(",
               r"\1 \\cdot (", s)
    s = s.rstrip(" ,.")
    return s


def _map_symbols(expr: sp.Expr, extra: dict | None = None) -> sp.Expr:
    names = dict(_NAME_MAP)
    if extra:
        names.update(extra)
    sub = {}
    for sym in expr.free_symbols:
        if sym.name == "e":
            sub[sym] = sp.E
        elif sym.name in names:
            sub[sym] = names[sym.name]
        else:
            raise ParseError(f"unknown symbol {sym.name!r}; add it to the symbol map")
    return expr.xreplace(sub)


# ----------------------------------------------------------------------------- parse cache
# The ANTLR parser costs ~0.25 s a formula, so parses are cached in a JSON file beside
# this module (keyed by the normalised text and the extra symbols; values are SymPy
# ``srepr`` strings).  The cache is tied to this file's source: editing the parser
# discards it.  A miss parses and the file is rewritten at exit (if writable).
_CACHE_FILE = Path(__file__).with_name("parse_cache.json")
_CACHE: dict | None = None
_CACHE_DIRTY = False


def _cache_version() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16] + "-sympy" + sp.__version__


def _cache() -> dict:
    global _CACHE
    if _CACHE is None:
        _CACHE = {}
        try:
            data = json.loads(_CACHE_FILE.read_text(encoding="utf-8"))
            if data.get("version") == _cache_version():
                _CACHE = data["entries"]
        except (OSError, ValueError, KeyError):
            pass
        atexit.register(_save_cache)
    return _CACHE


def _save_cache() -> None:
    if not _CACHE_DIRTY:
        return
    try:
        _CACHE_FILE.write_text(json.dumps({"version": _cache_version(), "entries": _CACHE},
                                          sort_keys=True, indent=0), encoding="utf-8")
    except OSError:
        pass


def _cache_key(text: str, extra: dict | None) -> str:
    ext = "" if not extra else "|".join(f"{k}={sp.srepr(v)}" for k, v in sorted(extra.items()))
    return text + "\x00" + ext


def parse_printed(latex: str, extra_symbols: dict | None = None) -> sp.Expr:
    """Parse a paper's LaTeX into SymPy (see the module docstring); cached."""
    global _CACHE_DIRTY
    text = normalise(latex)
    key = _cache_key(text, extra_symbols)
    cache = _cache()
    if key in cache:
        return _from_srepr(cache[key])
    expr = _parse_uncached(text, extra_symbols)
    cache[key] = sp.srepr(expr)
    _CACHE_DIRTY = True
    return expr


_NS: dict = {}


def _from_srepr(s: str) -> sp.Expr:
    if not _NS:
        _NS.update({name: getattr(sp, name) for name in dir(sp) if not name.startswith("_")})
    return eval(s, dict(_NS))  # noqa: S307  (our own cache file of srepr strings)


def _parse_uncached(text: str, extra_symbols: dict | None) -> sp.Expr:
    from sympy.parsing.latex import parse_latex

    try:
        raw = parse_latex(text, strict=True)
    except Exception as exc:  # the ANTLR errors are of several types
        raise ParseError(f"cannot parse {text!r}: {exc}") from exc
    raw = raw.replace(lambda e: isinstance(e, sp.Function) and type(e).__name__ in ("max", "min"),
                      lambda e: (sp.Max if type(e).__name__ == "max" else sp.Min)(*e.args))
    expr = _map_symbols(raw, extra_symbols)
    # the ANTLR backend writes log(x) as log(x, E); fold it back
    return expr.replace(lambda e: isinstance(e, sp.log) and len(e.args) == 2 and e.args[1] == sp.E,
                        lambda e: sp.log(e.args[0]))
