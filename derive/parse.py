"""Turn a formula's LaTeX, as printed in a paper, into SymPy mechanically.

``parse_printed(latex)`` = ``normalise`` (a small set of documented textual
rewrites) + ``sympy.parsing.latex.parse_latex(strict=True)`` (ANTLR backend,
needs ``antlr4-python3-runtime==4.11.*``) + a symbol map onto
``derive.symbols``.  Nothing here knows what a formula *should* be: the
rewrites are purely notational, so a typo in the paper survives parsing.

The normaliser's rules, in order (each purely notational):
  0. the dump's line continuations (``%`` followed by blanks) are removed, and so is
     ``\\hskip <length>``;
  1. drop sizing and spacing commands (``\\left``, ``\\right``, ``\\bigl``, ``\\bigg{(}`` ...,
     ``\\,``, ``\\;``, ``\\!``, ``\\quad``), ``\\displaystyle``;
  2. ``\\dfrac``/``\\tfrac`` -> ``\\frac``; ``\\mathrm{e}`` -> ``e``; ``\\bm{x}``/``\\boldsymbol{x}``
     (bold vectors and sums) -> ``x``, and a bold name followed by ``(`` is a product (a bold
     name is a value, never a function); ``\\overbrace{X}^{L}`` -> ``(X)`` (the label is a name);
     ``\\int_{\\mathbb{R}}`` -> ``\\int_{-\\infty}^{\\infty}``; ``\\iint`` -> ``\\int\\int``;
     ``{a \\choose b}`` -> ``\\binom{a}{b}``;
  3. ``\\bar{x}`` and ``\\bar x`` -> ``(1-x)`` (the papers' notation, Asoodeh et al. 2021, Sec. I-C);
  4. ``( ... )_+`` and ``( ... )_{+}`` -> ``\\max(..., 0)`` (positive part);
     ``\\max\\{a, b\\}`` / ``\\min\\{...\\}`` -> ``\\max(a, b)`` / ``\\min(...)``;
  5. ``\\log^{k} x`` -> ``(\\log x)^{k}`` (x a single token or a braced group);
  6. names: ``\\mathbb{V}\\text{ar}`` -> ``\\Var``, ``\\mathbb{E}`` -> ``\\E``, ``\\mathbb{P}`` -> ``\\Prob``
     (with or without ``\\operatorname``; a ``[...]`` argument becomes ``(...)``): undefined
     functions Var_P, E_Q, Prob applied to their argument; ``\\tilde{X}``/``\\widetilde{X}`` ->
     ``\\Xtilde``; ``\\text{Id}``/``\\mathrm{Id}``/``\\mathtt{EW}`` (a word) -> ``\\Id``, ``\\EW``;
     ``X^{-1}_{s}(`` and ``X_{s}^{-1}(`` -> ``\\XINV_{s}(`` (an inverse function); ``f^{*}`` ->
     ``\\fSTAR`` (a conjugate, an optimum: ``f^*``, ``alpha^*``); ``X^{a}_{b}`` -> ``X_{b}^{a}`` (the subscript is part of the name);
  7. ``a \\cdot - b`` -> ``a \\cdot (-1) \\cdot b``;
  8. implicit products: a variable (``\\alpha``, ``p``, ``n``, ...) directly followed by ``(`` is
     a product, not a function application (``\\alpha(\\alpha-1)``, ``n(e^{x}-1)``);
  9. a trailing ``,`` or ``.`` is removed.
The symbol map turns ``e`` into Euler's number and every other name into the
matching symbol of ``derive.symbols`` (``\\zeta_{\\alpha}`` -> ``zeta_alpha``) or of the
caller's ``extra_symbols`` (looked up as written, then without braces: ``sigma_n``);
an unknown name raises ``ParseError``.  Function applications: ``\\Phi(x)`` -> ``Phi(x)`` and
``\\Phi^{-1}(x)`` -> ``PhiInv(x)`` (derive.functions), ``\\phi(x)`` -> the standard normal
density exp(-x^2/2)/sqrt(2 pi); any other ``F_{n}(x)`` is an undefined function named without
braces (``F_n``, ``F_n^{-1}``, ``Ftilde_n``, ``f^*``, ``E_P``, ``Var_Q``).  Inside a sum or product
over ``i``, a name subscripted by ``i`` depends on it: ``L_{i}`` -> ``L(i)``, ``q_{i}(x)`` ->
``q(i, x)``.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import re
from pathlib import Path

import sympy as sp

from . import symbols as S
from .functions import Phi, PhiInv
from sympy.core.function import AppliedUndef


class ParseError(ValueError):
    pass


_SIZING = re.compile(r"\\(left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|Biggl|Biggr|big|Big|bigg|Bigg)(?![a-zA-Z])"
                     r"(?:\s*\{\s*([()\[\]]|\\\{|\\\})\s*\})?")
_SPACING = re.compile(r"\\(,|;|!|quad|qquad|displaystyle|textstyle)(?![a-zA-Z])|\\ ")
_HSKIP = re.compile(r"\\hskip\s*-?[\d.]+\s*(pt|em|ex|mm|cm)")

_NAME_MAP = {
    "alpha": S.alpha, "varepsilon": S.eps, "epsilon": S.eps, "delta": S.delta,
    "gamma": S.gamma, "lambda": S.lam, "p": S.p, "q": S.q, "sigma": S.sigma,
    "rho": S.rho, "T": S.T, "t": S.t, "tau": S.tau, "mu": S.mu, "A": S.A,
    "zeta_{alpha}": S.zeta_alpha, "zeta_alpha": S.zeta_alpha,
}
# the variables a "(" after which is a product (rule 8)
_PRODUCT_VARS = (r"\\(?:alpha|delta|varepsilon|epsilon|gamma|rho|sigma|lambda|mu|tau)|\\zeta_\{\\alpha\}|\\zeta_\\alpha"
                 r"|(?<![a-zA-Z\\])[pqTAn](?![a-zA-Z_^{])")
# a name: one letter or a command (not a big operator)
_BIG_OPS = {"sum", "prod", "int", "iint", "lim", "max", "min", "sup", "inf", "log", "exp", "frac", "sqrt"}


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


def _matching(s: str, start: int, open_: str, close: str) -> int:
    """Index just past the ``close`` token that matches the ``open_`` token at s[start:]."""
    depth, i = 0, start
    while i < len(s):
        if s.startswith(open_, i):
            depth += 1
            i += len(open_)
            continue
        if s.startswith(close, i):
            depth -= 1
            i += len(close)
            if depth == 0:
                return i
            continue
        i += 1
    raise ParseError(f"unbalanced {open_}...{close} in {s!r}")


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


def _unwrap(s: str, command: str, template: str, *, superscript: bool = False) -> str:
    """Replace every ``\\command{arg}`` (and its ``^{label}`` if ``superscript``) by
    ``template.format(arg)``."""
    while True:
        m = re.search(r"\\" + command + r"(?![a-zA-Z])", s)
        if not m:
            return s
        arg, end = _brace_arg(s, m.end())
        if superscript:
            k = end
            while k < len(s) and s[k] == " ":
                k += 1
            if k < len(s) and s[k] == "^":
                _, end = _brace_arg(s, k + 1)
        s = s[:m.start()] + template.format(arg) + s[end:]


def _name(tok: str) -> str | None:
    """``\\kappa`` -> ``kappa``, ``F`` -> ``F``; None for anything else."""
    m = re.fullmatch(r"\\([a-zA-Z]+)|([a-zA-Z])", tok.strip())
    if not m:
        return None
    return m.group(1) or m.group(2)


def normalise(latex: str) -> str:
    s = latex.strip()
    s = re.sub(r"%\s*", "", s)                       # rule 0
    s = _HSKIP.sub(" ", s)
    s = _SIZING.sub(lambda m: m.group(2) or "", s)   # rule 1
    s = _SPACING.sub(" ", s)
    s = re.sub(r"\\[dt]frac", r"\\frac", s)          # rule 2
    s = re.sub(r"\\mathrm\{e\}", "e", s)
    s = re.sub(r"\\mathrm\{d\}", " d ", s)
    # a bold name is a value (a vector or a sum), never a function: \bm{k}_{3}(x) is a product
    s = re.sub(r"(\\(?:bm|boldsymbol)\{(?:[^{}]|\{[^{}]*\})*\}(?:\s*[_^]\s*(?:\{[^{}]*\}|[a-zA-Z0-9]))*)\s*\(",
               r"\1 \\cdot (", s)
    s = _unwrap(s, "bm", "{0}")
    s = _unwrap(s, "boldsymbol", "{0}")
    s = _unwrap(s, "overbrace", "({0})", superscript=True)
    s = re.sub(r"\\int_\{?\\mathbb\{R\}\}?", r"\\int_{-\\infty}^{\\infty}", s)
    s = re.sub(r"\\iint(?![a-zA-Z])", r"\\int\\int", s)
    while True:                                       # {a \choose b} -> \binom{a}{b}
        m = re.search(r"\\choose(?![a-zA-Z])", s)
        if not m:
            break
        o = s.rfind("{", 0, m.start())
        while o >= 0 and s[o:m.start()].count("{") != s[o:m.start()].count("}") + 1:
            o = s.rfind("{", 0, o)
        if o < 0:
            raise ParseError(f"\\choose outside braces in {latex!r}")
        c = _matching(s, o, "{", "}")
        s = s[:o] + r"\binom{" + s[o + 1:m.start()] + "}{" + s[m.end():c - 1] + "}" + s[c:]
    # \bar{x} -> (1-x)                                  rule 3
    while True:
        m = re.search(r"\\bar(?![a-zA-Z])", s)
        if not m:
            break
        arg, end = _brace_arg(s, m.end())
        s = s[:m.start()] + "(1-" + arg + ")" + s[end:]
    # ( ... )_+  ->  \max( ..., 0)                      rule 4
    while True:
        m = re.search(r"\)\s*_\s*(\{\s*\+\s*\}|\+)", s)
        if not m:
            break
        o = _matching_open(s, m.start())
        s = s[:o] + r"\max(" + s[o + 1:m.start()] + ", 0)" + s[m.end():]
    while True:                                       # \max\{...\} -> \max(...)
        m = re.search(r"\\(max|min)\s*\\\{", s)
        if not m:
            break
        end = _matching(s, m.end() - 2, r"\{", r"\}")
        s = s[:m.start()] + "\\" + m.group(1) + "(" + s[m.end():end - 2] + ")" + s[end:]
    while True:                                       # rule 5: \log^{k} x -> (\log x)^{k}
        m = re.search(r"\\log\s*\^", s)
        if not m:
            break
        k, end = _brace_arg(s, m.end())
        arg, end = _brace_arg(s, end)
        s = s[:m.start()] + r"(\log{" + arg + "})^{" + k + "}" + s[end:]
    # rule 6: names
    s = re.sub(r"(\\operatorname\{)?\\mathbb\{V\}\}?\s*\\text\{ar\}", r"\\Var", s)
    s = re.sub(r"\\operatorname\{\\mathbb\{([EP])\}\}|\\mathbb\{([EP])\}",
               lambda m: {"E": r"\E", "P": r"\Prob"}[m.group(1) or m.group(2)], s)
    while True:                                       # \E_{P}[X] -> \E_{P}(X)
        m = re.search(r"\\(E|Var|Prob)(?![a-zA-Z])(\s*_\s*(\{[^{}]*\}|[a-zA-Z]))?\s*\[", s)
        if not m:
            break
        end = _matching(s, m.end() - 1, "[", "]")
        s = s[:m.end() - 1] + "(" + s[m.end():end - 1] + ")" + s[end:]
    while True:                                       # \tilde{X} -> \Xtilde
        m = re.search(r"\\(widetilde|tilde)(?![a-zA-Z])", s)
        if not m:
            break
        arg, end = _brace_arg(s, m.end())
        nm = _name(arg)
        if nm is None:
            raise ParseError(f"\\{m.group(1)} of a non-name {arg!r} in {latex!r}")
        s = s[:m.start()] + "\\" + nm + "tilde" + s[end:]
    s = re.sub(r"\\(?:text|mathrm|mathtt|mathit)\{([a-zA-Z]{2,})\}", r"\\\1", s)
    # inverse functions: X^{-1}_{s}( and X_{s}^{-1}( -> \XINV_{s}( (not for the variables of rule 8:
    # n^{-1}(it) is a power times a bracket)
    def inv(m, sub):
        if re.fullmatch(_PRODUCT_VARS, m.group(1)):
            return m.group(0)
        return "\\" + m.group(1).lstrip("\\") + "INV" + (sub or "") + "("
    s = re.sub(r"(\\[a-zA-Z]+|(?<![\\a-zA-Z])[a-zA-Z])\s*\^\s*\{\s*-\s*1\s*\}\s*(_\s*(?:\{[^{}]*\}|[a-zA-Z0-9]))?\s*\(",
               lambda m: inv(m, m.group(2)), s)
    s = re.sub(r"(\\[a-zA-Z]+|(?<![\\a-zA-Z])[a-zA-Z])\s*(_\s*(?:\{[^{}]*\}|[a-zA-Z0-9]))\s*\^\s*\{\s*-\s*1\s*\}\s*\(",
               lambda m: inv(m, m.group(2)), s)
    s = re.sub(r"(\\[a-zA-Z]+|(?<![\\a-zA-Z])[a-zA-Z])\s*\^\s*\{\s*\*\s*\}",
               lambda m: "\\" + m.group(1).lstrip("\\") + "STAR", s)
    # X^{a}_{b} -> X_{b}^{a}
    s = re.sub(r"(\\[a-zA-Z]+|(?<![\\a-zA-Z])[a-zA-Z])\s*\^\s*(\{[^{}]*\}|[a-zA-Z0-9])\s*_\s*(\{[^{}]*\}|[a-zA-Z0-9])",
               lambda m: m.group(0) if m.group(1).lstrip("\\") in _BIG_OPS
               else m.group(1) + "_" + m.group(3) + "^" + m.group(2), s)
    s = re.sub(r"\\cdot\s*-", r"\\cdot (-1) \\cdot ", s)   # rule 7
    # rule 8: implicit products: a variable directly followed by "(" is a product,
    # not a function application (``\alpha(\alpha-1)``)
    s = re.sub("(" + _PRODUCT_VARS + r")\s*\(", r"\1 \\cdot (", s)
    s = s.rstrip(" ,.")
    return s


_FUNC_MAP = {"Phi": Phi, "PhiINV": PhiInv}


def _phi_density(x):
    return sp.exp(-x ** 2 / 2) / sp.sqrt(2 * sp.pi)


def _canon(name: str) -> str:
    """A parsed name without braces and the normaliser's markers: ``F_{n}`` -> ``F_n``,
    ``FINV_{n}`` -> ``F_n^{-1}``, ``fSTAR`` -> ``f^*``."""
    name = name.replace("{", "").replace("}", "").replace(" ", "").replace("\\", "")
    base, _, sub = name.partition("_")
    for mark, suffix in (("INV", "^{-1}"), ("STAR", "^*")):
        if base.endswith(mark) and len(base) > len(mark):
            return base[:-len(mark)] + ("_" + sub if sub else "") + suffix
    return name


def _index_dependence(expr: sp.Expr) -> sp.Expr:
    """Inside Sum/Product over i: ``X_{i}`` -> X(i), ``X_{i}(a)`` -> X(i, a)."""
    def walk(e, idx):
        if isinstance(e, (sp.Sum, sp.Product)):
            inner = idx + tuple(lim[0] for lim in e.limits)
            return e.func(walk(e.function, inner), *[(lim[0],) + tuple(walk(x, idx) for x in lim[1:])
                                                      for lim in e.limits])
        if isinstance(e, sp.Symbol) and idx:
            for v in idx:
                for form in ("_{%s}" % v.name, "_%s" % v.name):
                    if e.name.endswith(form) and len(e.name) > len(form):
                        return sp.Function(e.name[:-len(form)])(v)
            return e
        if isinstance(e, AppliedUndef) and idx:
            args = [walk(a, idx) for a in e.args]
            nm = type(e).__name__
            for v in idx:
                for form in ("_{%s}" % v.name, "_%s" % v.name):
                    if nm.endswith(form) and len(nm) > len(form):
                        return sp.Function(nm[:-len(form)])(v, *args)
            return e.func(*args)
        if not e.args:
            return e
        return e.func(*[walk(a, idx) for a in e.args])
    return walk(expr, ())


def _map_functions(expr: sp.Expr) -> sp.Expr:
    def fix(e):
        if isinstance(e, AppliedUndef):
            args = [fix(a) for a in e.args]
            raw = type(e).__name__
            if raw in _FUNC_MAP:
                return _FUNC_MAP[raw](*args)
            if raw == "phi" and len(args) == 1:
                return _phi_density(args[0])
            return sp.Function(_canon(raw))(*args)
        if not e.args or isinstance(e, sp.Symbol):
            return e
        return e.func(*[fix(a) for a in e.args])
    return fix(expr)


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
        elif _canon(sym.name) in names:
            sub[sym] = names[_canon(sym.name)]
        else:
            raise ParseError(f"unknown symbol {sym.name!r}; add it to the symbol map")
    return expr.xreplace(sub)


# ----------------------------------------------------------------------------- parse cache
# The ANTLR parser costs ~0.25 s a formula, so parses are cached (keyed by the normalised text
# and the extra symbols; values are SymPy ``srepr`` strings), in two layers:
# * the committed cache beside this module, ``parse_cache.json``: every parse the built-in
#   papers, the examples and the benchmark corpus need; read only at run time (a run never
#   writes into the package), refreshed by ``python -m derive.parse_refresh`` (maintainers);
# * the user's cache, ``$DPDERIVE_CACHE/parse/parse_cache.json`` (default
#   ``~/.cache/dpderive/...``): the misses of the user's own claim files, merged in at exit
#   (written atomically; several processes may add to it).
# Both are tied to this file's source and SymPy's version: editing the parser discards them.
_CACHE_FILE = Path(__file__).with_name("parse_cache.json")
_CACHE: dict | None = None
_NEW: dict = {}              # this process's misses (what the user's cache gains at exit)
#: ANTLR parses this process ran (cache misses); a test asserts none for the built-in papers
MISSES = [0]


def _user_file() -> Path:
    import os
    root = os.environ.get("DPDERIVE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "dpderive")
    return Path(root) / "parse" / "parse_cache.json"


def _cache_version() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16] + "-sympy" + sp.__version__


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data["entries"] if data.get("version") == _cache_version() else {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _cache() -> dict:
    global _CACHE
    if _CACHE is None:
        _CACHE = {**_read(_user_file()), **_read(_CACHE_FILE)}
        atexit.register(_save_cache)
    return _CACHE


def _write(path: Path, entries: dict) -> None:
    import os
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    tmp.write_text(json.dumps({"version": _cache_version(), "entries": entries}, sort_keys=True,
                              indent=0), encoding="utf-8")
    os.replace(tmp, path)


def _save_cache() -> None:
    """Merge this process's misses into the user's cache (never the committed one)."""
    if not _NEW:
        return
    try:
        path = _user_file()
        _write(path, {**_read(path), **_NEW})
    except OSError:
        pass


def _remember(key: str, expr) -> None:
    MISSES[0] += 1
    _CACHE[key] = _NEW[key] = sp.srepr(expr)


def _cache_key(text: str, extra: dict | None) -> str:
    ext = "" if not extra else "|".join(f"{k}={sp.srepr(v)}" for k, v in sorted(extra.items()))
    return text + "\x00" + ext


def parse_printed(latex: str, extra_symbols: dict | None = None) -> sp.Expr:
    """Parse a paper's LaTeX into SymPy (see the module docstring); cached."""
    text = normalise(latex)
    key = _cache_key(text, extra_symbols)
    cache = _cache()
    if key in cache:
        return _from_srepr(cache[key])
    expr = _parse_uncached(text, extra_symbols)
    _remember(key, expr)
    return expr


def parse_latex_cached(text: str):
    """SymPy's ``parse_latex(text, strict=True)``, cached like ``parse_printed`` (a claim file's
    fields: the built-in papers' claim files parse hundreds of them at every start).  Errors are
    not cached: a bad field raises each time, with SymPy's message."""
    key = "raw\x00" + text
    cache = _cache()
    if key in cache:
        return _from_srepr(cache[key])
    from sympy.parsing.latex import parse_latex
    refuse_huge_latex(text)
    expr = parse_latex(text, strict=True)
    _remember(key, expr)
    return expr


#: the most decimal digits a number written in a formula may have (a power or factorial of numbers):
#: SymPy computes such numbers exactly while parsing, in unbounded time and memory
MAX_DIGITS = 10 ** 5


def huge_number(expr):
    """(node, its number of digits) for the first power or factorial of numbers in ``expr`` (parsed
    unevaluated) with more than MAX_DIGITS digits, else None."""
    import mpmath as mp
    for node in sp.preorder_traversal(expr):
        digits = None
        try:
            if isinstance(node, sp.Pow) and node.base.is_number and node.exp.is_number:
                with mp.workdps(15):
                    e, b = mp.mpf(abs(sp.N(node.exp, 15))), abs(sp.N(node.base, 15))
                    digits = e * (abs(mp.log10(mp.mpf(b))) if b != 0 else 0)
            elif isinstance(node, (sp.factorial, sp.factorial2, sp.gamma)) and node.args[0].is_number:
                with mp.workdps(15):
                    n = mp.mpf(abs(sp.N(node.args[0], 15)))
                    digits = n * mp.log10(n + 1)
        except (TypeError, ValueError):
            continue
        if digits is not None and digits > MAX_DIGITS:
            return node, digits
    return None


_LATEX_POWER = re.compile(r"(\d+(?:\.\d+)?)\s*\^\s*(\{[\d\s.^{}]*\}|\d)")


def refuse_huge_latex(text: str) -> None:
    """Raise ValueError when the LaTeX writes a power of numbers (10^{10^{10}}) with more than
    MAX_DIGITS digits, before SymPy's parser computes it."""
    for m in _LATEX_POWER.finditer(text):
        py = m.group(0).replace("^", "**").replace("{", "(").replace("}", ")")
        try:
            got = huge_number(sp.sympify(py, evaluate=False))
        except (sp.SympifyError, SyntaxError, TypeError, ValueError):
            continue
        if got is not None:
            import mpmath as mp
            raise ValueError(f"{m.group(0)} has about {mp.nstr(got[1], 3)} digits, more than the {MAX_DIGITS} "
                             "a formula may compute")


_NS: dict = {}


def _from_srepr(s: str) -> sp.Expr:
    if not _NS:
        _NS.update({name: getattr(sp, name) for name in dir(sp) if not name.startswith("_")})
        _NS.update(Phi=Phi, PhiInv=PhiInv)
    return eval(s, dict(_NS))  # noqa: S307  (our own cache file of srepr strings)


def _parse_uncached(text: str, extra_symbols: dict | None) -> sp.Expr:
    from sympy.parsing.latex import parse_latex
    refuse_huge_latex(text)

    try:
        raw = parse_latex(text, strict=True)
    except Exception as exc:  # the ANTLR errors are of several types
        raise ParseError(f"cannot parse {text!r}: {exc}") from exc
    raw = raw.replace(lambda e: isinstance(e, sp.Function) and type(e).__name__ in ("max", "min"),
                      lambda e: (sp.Max if type(e).__name__ == "max" else sp.Min)(*e.args))
    raw = _map_functions(_index_dependence(raw))
    expr = _map_symbols(raw, extra_symbols)
    # the ANTLR backend writes log(x) as log(x, E); fold it back
    return expr.replace(lambda e: isinstance(e, sp.log) and len(e.args) == 2 and e.args[1] == sp.E,
                        lambda e: sp.log(e.args[0]))
