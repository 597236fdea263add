r"""Claim files: a paper's bounds and claims as a short declarative TOML file.

A researcher describes *what the paper says*; the generic checkers of
``derive.checkers`` decide whether it holds.  No Python is needed for the
claim kinds below.  The format (``dpderive init NAME`` writes a commented
template; ``examples/rdp_facts.toml`` is a worked example)::

    [paper]
    key = "rdp_facts"                    # the id prefix of every formula and claim
    title = "A handful of Renyi-DP facts"
    citation = "Mironov 2017, Renyi Differential Privacy"
    source = "mironov2017.pdf"           # the document locations refer to
    tex = "paper.tex"                    # optional: pull formulas by \label

    [symbols]                            # every symbol the LaTeX uses, with its domain
    alpha = "(1, oo)"
    sigma = { domain = "(0, oo)", search = [0.05, 100] }   # search: where numbers are tried
    T = { domain = "[1, oo)", integer = true }

    [formulas.gauss_rdp]                 # optional: a named formula, referenced as "@gauss_rdp"
    where = "Prop. 7"
    latex = '\frac{\alpha}{2\sigma^2}'   # or: label = "eq:gauss" (from the tex file)
    role = "definition"

    [[claim]]
    id = "gauss_rdp"
    where = "Prop. 7"                    # the location in the paper
    kind = "bound"                       # see KIND_FIELDS
    side = "equal"
    bound = "@gauss_rdp"
    truth = "Renyi(Gaussian(1/sigma), alpha)"   # derive.truths names (dpderive init lists them)

Kinds and their fields (LaTeX unless said otherwise; ``@name`` is a formula):
``identity`` (lhs, rhs, or latex = 'A = B'), ``inequality`` (lhs, op, rhs, or
latex = 'A \le B'), ``derivative`` (of, wrt, equals, order), ``monotone`` (of,
in, direction), ``convex``/``concave`` (of, in), ``limit`` (of, var, to,
equals, side), ``asymptotic`` (of, approx, error, var, to: of = approx +
O(error)), ``bound`` (bound, side = upper|lower|equal, truth: an expression
over ``derive.truths`` names, in SymPy syntax).  Every claim may add
``conditions`` (a list of LaTeX relations), ``domain`` (narrower domains for
some symbols), ``statement``, ``note`` and ``section``.

Claims about every pair of distributions: ``[pairs] P = { kind = "pmf", points = 3 }``
quantifies over all pairs of pmfs on 3 points (searched through their softmax logits),
and ``[quantities] D = "Renyi(P, alpha)"`` lets the LaTeX say ``D``; a counterexample
names the two pmfs.

Errors name the file, the line and the claim (``ClaimFileError``, a
``ValueError``: the command line prints one line and exits 2); nothing is
registered unless the whole file is valid.
"""
from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import mpmath as mp
import sympy as sp
from sympy.core.function import AppliedUndef

from . import checkers, registry, truths
from .core import ROLES, SEED_CITES, Claim, Formula, Source, Verdict
from .functions import Phi, PhiInv
from .parse import normalise
from .search import Var
from .symbols import Param

KIND_FIELDS = {
    "identity": (("lhs", "rhs"), ()),
    "inequality": (("lhs", "op", "rhs"), ()),
    "derivative": (("of", "wrt", "equals"), ("order",)),
    "monotone": (("of", "in", "direction"), ()),
    "convex": (("of", "in"), ()),
    "concave": (("of", "in"), ()),
    "limit": (("of", "var", "to", "equals"), ("side",)),
    "asymptotic": (("of", "approx", "error", "var", "to"), ("side",)),
    "bound": (("bound", "side", "truth"), ()),
}
COMMON_FIELDS = ("id", "where", "kind", "section", "statement", "note", "conditions", "domain",
                 "latex", "seed")
_OPS = {r"\le": "<=", r"\leq": "<=", r"\ge": ">=", r"\geq": ">=", "<": "<", ">": ">", "<=": "<=",
        ">=": ">="}
_OP_LATEX = {"<=": r"\le", "<": "<", ">=": r"\ge", ">": ">"}
_REL_TO_OP = {sp.LessThan: "<=", sp.StrictLessThan: "<", sp.GreaterThan: ">=", sp.StrictGreaterThan: ">"}


class ClaimFileError(ValueError):
    """A problem in a claim file, naming the file, the line and the item."""

    def __init__(self, path, line: int | None, item: str, problem: str):
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {item}: {problem}" if item else f"{where}: {problem}")


# ----------------------------------------------------------------------------- symbols and domains
_INTERVAL = re.compile(r"^\s*([\(\[])\s*(.+?)\s*,\s*(.+?)\s*([\)\]])\s*$")


def _canon(name: str) -> str:
    """A symbol name as written in TOML or produced by the LaTeX parser, without braces
    and backslashes: ``\\sigma_{0}`` and ``sigma_0`` are the same symbol."""
    return name.replace("\\", "").replace("{", "").replace("}", "").replace(" ", "")


@dataclass
class SymbolSpec:
    name: str
    symbol: sp.Symbol
    interval: sp.Interval
    integer: bool
    search: tuple | None

    def var(self, interval: sp.Interval | None = None) -> Var:
        iv = interval if interval is not None else self.interval
        lo = None if iv.start == -sp.oo else mp.mpf(sp.Float(iv.start, 60))
        hi = None if iv.end == sp.oo else mp.mpf(sp.Float(iv.end, 60))
        return Var(self.name, self.symbol, lo, hi, bool(iv.left_open), bool(iv.right_open),
                   self.integer, self.search)

    def param(self) -> Param:
        iv = self.interval
        a, b = iv.start, iv.end
        if self.integer:
            lo = int(sp.ceiling(a)) if a != -sp.oo else -1000
            law = ("integer", lo, int(sp.floor(b)) if b != sp.oo else lo + 1000)
        elif self.search is not None:
            law = ("uniform", float(self.search[0]), float(self.search[1]))
        elif a != -sp.oo and b != sp.oo:
            law = ("uniform", float(a), float(b))
        elif a != -sp.oo:
            law = ("above", float(a), 1e-3, 1e3)
        elif b != sp.oo:
            law = ("uniform", float(b) - 1e3, float(b))
        else:
            law = ("uniform", -1e3, 1e3)
        return Param(self.symbol, iv, law)


def parse_interval(text: str) -> sp.Interval:
    m = _INTERVAL.match(str(text))
    if not m:
        raise ValueError(f"domain {text!r} is not an interval like \"(0, oo)\" or \"[0, 1)\"")
    lb, a, b, rb = m.groups()
    try:
        lo, hi = sp.sympify(a), sp.sympify(b)
    except (sp.SympifyError, TypeError, SyntaxError):
        raise ValueError(f"domain {text!r}: its ends must be numbers, oo or -oo") from None
    if not (lo.is_number or lo in (sp.oo, -sp.oo)) or not (hi.is_number or hi in (sp.oo, -sp.oo)):
        raise ValueError(f"domain {text!r}: its ends must be numbers, oo or -oo")
    if not lo < hi:
        raise ValueError(f"domain {text!r} is empty")
    return sp.Interval(lo, hi, left_open=(lb == "(" or lo == -sp.oo), right_open=(rb == ")" or hi == sp.oo))


def _make_symbol(name: str, iv: sp.Interval, integer: bool) -> sp.Symbol:
    kw = {"real": True}
    if iv.start >= 0:
        kw["nonnegative"] = True
        if iv.start > 0 or iv.left_open:
            kw["positive"] = True
    if iv.end <= 0:
        kw["nonpositive"] = True
        if iv.end < 0 or iv.right_open:
            kw["negative"] = True
    if integer:
        kw["integer"] = True
    return sp.Symbol(name, **kw)


# ----------------------------------------------------------------------------- the file
class _Lines:
    """Line numbers of a TOML file's items, for error messages."""

    def __init__(self, text: str):
        self.lines = text.splitlines()

    def field(self, start: int | None, name: str) -> int | None:
        """The line of ``name = ...`` in the table that starts at line ``start``."""
        if start is None:
            return None
        rx = re.compile(rf"^\s*{re.escape(name)}\s*=")
        for i in range(start, len(self.lines)):
            line = self.lines[i]
            if i >= start and re.match(r"^\s*\[", line):
                break
            if rx.match(line):
                return i + 1
        return start

    def find(self, pattern: str, nth: int = 0) -> int | None:
        rx = re.compile(pattern)
        k = 0
        for i, line in enumerate(self.lines, 1):
            if rx.search(line):
                if k == nth:
                    return i
                k += 1
        return None


class ClaimFile:
    """A parsed, validated claim file (nothing is registered until ``register``)."""

    def __init__(self, path: str | Path, *, seed_dir: str | Path | None = None):
        self.path = Path(path)
        try:
            self.text = self.path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ClaimFileError(path, None, "", f"cannot read the file ({exc.strerror})") from None
        self.lines = _Lines(self.text)
        try:
            self.data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as exc:
            m = re.search(r"line (\d+)", str(exc))
            raise ClaimFileError(path, int(m.group(1)) if m else None, "", f"not valid TOML ({exc})") from None
        self._read_paper()
        self._read_symbols()
        self._read_pairs()
        self._read_quantities()
        self._tex = None
        self.formulas: dict[str, Formula] = {}
        self._read_formulas()
        self.claims: list[Claim] = []
        self._read_claims()

    # ------------------------------------------------------------------ errors
    def _err(self, line, item, problem):
        return ClaimFileError(self.path, line, item, problem)

    # ------------------------------------------------------------------ [paper]
    def _read_paper(self):
        p = self.data.get("paper")
        if not isinstance(p, dict):
            raise self._err(1, "[paper]", "missing: a [paper] table with key, title and citation")
        line = self.lines.find(r"^\s*\[paper\]")
        for k in ("key", "title"):
            if not isinstance(p.get(k), str) or not p[k].strip():
                raise self._err(line, "[paper]", f"missing {k!r} (a string)")
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", p["key"]):
            raise self._err(line, "[paper]", f"key={p['key']!r} must be letters, digits and _ (starting with a letter)")
        from .papers import PAPER_MODULES
        if p["key"] in PAPER_MODULES:
            raise self._err(line, "[paper]", f"key={p['key']!r} is a built-in paper; choose another key")
        self.key = p["key"]
        self.title = p["title"]
        self.citation = p.get("citation", p["title"])
        self.seed = p.get("seed", p.get("source", self.path.name))
        self.tex_path = p.get("tex")

    # ------------------------------------------------------------------ [symbols]
    def _read_symbols(self):
        raw = self.data.get("symbols")
        if not isinstance(raw, dict) or not raw:
            raise self._err(self.lines.find(r"^\s*\[symbols\]"), "[symbols]",
                            "missing: declare every symbol the formulas use with its domain, e.g. alpha = \"(1, oo)\"")
        self.symbols: dict[str, SymbolSpec] = {}
        for name, spec in raw.items():
            line = self.lines.find(rf"^\s*\"?{re.escape(name)}\"?\s*=")
            if isinstance(spec, str):
                spec = {"domain": spec}
            if not isinstance(spec, dict) or "domain" not in spec:
                raise self._err(line, f"symbol {name!r}", "needs a domain, e.g. \"(0, oo)\" or { domain = \"[0, 1)\" }")
            unknown = set(spec) - {"domain", "integer", "search", "latex"}
            if unknown:
                raise self._err(line, f"symbol {name!r}", f"unknown field(s) {', '.join(sorted(unknown))}")
            try:
                iv = parse_interval(spec["domain"])
            except ValueError as exc:
                raise self._err(line, f"symbol {name!r}", str(exc)) from None
            search = spec.get("search")
            if search is not None:
                ok = (isinstance(search, list) and len(search) == 2
                      and all(isinstance(x, (int, float)) for x in search) and search[0] < search[1]
                      and bool(iv.contains(search[0]) or iv.closure.contains(search[0]))
                      and bool(iv.contains(search[1]) or iv.closure.contains(search[1])))
                if not ok:
                    raise self._err(line, f"symbol {name!r}",
                                    f"search={search!r} must be [lo, hi] with lo < hi inside the domain {spec['domain']}")
                search = tuple(search)
            integer = bool(spec.get("integer", False))
            cname = _canon(name)
            self.symbols[cname] = SymbolSpec(cname, _make_symbol(cname, iv, integer), iv, integer, search)

    # ------------------------------------------------------------------ [pairs], [quantities]
    def _read_pairs(self):
        """``P = { kind = "pmf", points = 4 }``: "for every pair of pmfs on 4 points".  A pair is
        searched through the softmax logits of its two pmfs (2 x points real variables)."""
        raw = self.data.get("pairs", {})
        self.pairs: dict[str, sp.Expr] = {}
        for name, spec in raw.items():
            line = self.lines.find(rf"^\s*\"?{re.escape(name)}\"?\s*=")
            item = f"pair {name!r}"
            if not isinstance(spec, dict) or spec.get("kind") != "pmf":
                raise self._err(line, item, "must be { kind = \"pmf\", points = k } (pairs of pmfs on k points)")
            k = spec.get("points")
            if isinstance(k, bool) or not isinstance(k, int) or not 2 <= k <= 8:
                raise self._err(line, item, f"points={k!r} must be an integer in [2, 8]")
            cname = _canon(name)
            coords = []
            for side in ("u", "v"):
                for i in range(1, k + 1):
                    n = f"{cname}_{side}{i}"
                    iv = sp.Interval(-sp.oo, sp.oo)
                    self.symbols[n] = SymbolSpec(n, sp.Symbol(n, real=True), iv, False, (-4.0, 4.0))
                    coords.append(self.symbols[n].symbol)
            self.pairs[cname] = sp.Function("Pmf")(*coords)

    def _read_quantities(self):
        """``chi = "ChiAlpha(P, alpha)"``: a name the LaTeX may use for a quantity of the truths."""
        raw = self.data.get("quantities", {})
        self.quantities: dict[str, sp.Expr] = {}
        for name, text in raw.items():
            line = self.lines.find(rf"^\s*\"?{re.escape(name)}\"?\s*=")
            cname = _canon(name)
            if cname in self.symbols:
                raise self._err(line, f"quantity {name!r}", "is also declared as a symbol")
            self.quantities[cname] = self.truth(text, line=line, item=f"quantity {name!r}", field=False)

    # ------------------------------------------------------------------ LaTeX
    def parse(self, text, *, line, item, what: str, relation: bool = False):
        """Parse one LaTeX string (or ``@formula``) onto the file's symbols."""
        line = self.lines.field(line, what.split()[0]) if line else line
        if not isinstance(text, str) or not text.strip():
            raise self._err(line, item, f"{what} must be a LaTeX string")
        text = text.strip()
        if text.startswith("@"):
            name = text[1:]
            if name not in self.formulas:
                raise self._err(line, item, f"{what} refers to @{name}, which is not a formula of this file "
                                f"(known: {', '.join(sorted(self.formulas)) or 'none'})")
            return self.formulas[name].expr
        from sympy.parsing.latex import parse_latex
        try:
            raw = parse_latex(normalise(text), strict=True)
        except Exception as exc:  # noqa: BLE001 - ANTLR raises several types
            msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise self._err(line, item, f"cannot parse the LaTeX of {what} '{text}': {msg}") from None
        if isinstance(raw, sp.core.relational.Relational) != relation:
            want = "a relation (A = B, A \\le B, ...)" if relation else "an expression, not a relation"
            raise self._err(line, item, f"{what} '{text}' must be {want}")
        return self._map(raw, line=line, item=item, what=what, text=text)

    def _map(self, expr, *, line, item, what, text):
        # the normaliser writes \Phi^{-1}(u) as \PhiINV(u) (derive.parse, rule 6)
        funcs = {"Phi": Phi, "Phi^{-1}": PhiInv, "PhiINV": PhiInv, "erf": sp.erf, "erfc": sp.erfc, "Gamma": sp.gamma,
                 "max": sp.Max, "min": sp.Min}

        bound: dict = {}     # variables bound by a sum, product or integral

        def fix(e):
            if isinstance(e, (sp.Sum, sp.Product, sp.Integral)):
                limits = []
                for lim in e.limits:
                    v = lim[0]
                    b = sp.Symbol(_canon(v.name), integer=not isinstance(e, sp.Integral), real=True)
                    bound[_canon(v.name)] = b
                    limits.append((b,) + tuple(fix(x) for x in lim[1:]))
                body = fix(e.function)
                for lim in e.limits:
                    bound.pop(_canon(lim[0].name), None)
                return e.func(body, *limits)
            if isinstance(e, AppliedUndef):
                name = _canon(type(e).__name__)
                args = [fix(a) for a in e.args]
                if name in funcs:
                    return funcs[name](*args)
                if name in self.symbols and len(args) == 1:  # x(y) is a product, as printed
                    return self.symbols[name].symbol * args[0]
                raise self._err(line, item, f"unknown function {type(e).__name__!r} in {what} '{text}' "
                                f"(known: {', '.join(funcs)})")
            if isinstance(e, sp.Function) and type(e).__name__ in ("max", "min"):
                return (sp.Max if type(e).__name__ == "max" else sp.Min)(*[fix(a) for a in e.args])
            if isinstance(e, sp.log) and len(e.args) == 2 and e.args[1] == sp.E:
                return sp.log(fix(e.args[0]))
            if isinstance(e, sp.Symbol):
                n = _canon(e.name)
                if n == "e":
                    return sp.E
                if n == "pi":
                    return sp.pi
                if n in bound:
                    return bound[n]
                if n in getattr(self, "quantities", {}):
                    return self.quantities[n]
                if n not in self.symbols:
                    raise self._err(line, item, f"unknown symbol {e.name!r} in {what} '{text}': "
                                    "declare it under [symbols] with its domain")
                return self.symbols[n].symbol
            if e.args:
                return e.func(*[fix(a) for a in e.args])
            return e
        return fix(expr)

    def truth(self, text, *, line, item, field: bool = True):
        """A truth expression: SymPy syntax over the file's symbols, pairs and derive.truths' names."""
        line = self.lines.field(line, "truth") if line and field else line
        if not isinstance(text, str) or not text.strip():
            raise self._err(line, item, "truth must be a string such as \"Renyi(Gaussian(1/sigma), alpha)\"")
        names = set(truths.PAIRS) | set(truths.QUANTITIES)
        local = {n: sp.Function(n) for n in names}
        local.update({s.name: s.symbol for s in self.symbols.values()})
        local.update(getattr(self, "pairs", {}))
        local.update(getattr(self, "quantities", {}))
        names = names | {"Pmf"}
        import keyword
        for kw_name in [n for n in list(local) if keyword.iskeyword(n)]:   # e.g. a symbol named lambda
            local[kw_name + "_kw_"] = local.pop(kw_name)
            text = re.sub(rf"\b{kw_name}\b", kw_name + "_kw_", text)
        try:
            expr = sp.parse_expr(text, local_dict=local)
        except Exception as exc:  # noqa: BLE001
            raise self._err(line, item, f"cannot parse truth '{text}': {exc}") from None
        for f in expr.atoms(AppliedUndef):
            if type(f).__name__ not in names:
                raise self._err(line, item, f"unknown quantity {type(f).__name__!r} in truth '{text}' "
                                f"(known: {', '.join(sorted(names))})")
        stray = {s.name for s in expr.free_symbols} - {s.name for s in self.symbols.values()}
        if stray:
            raise self._err(line, item, f"unknown symbol(s) {', '.join(sorted(stray))} in truth '{text}': "
                            "declare them under [symbols]")
        if not any(type(f).__name__ in truths.QUANTITIES for f in expr.atoms(AppliedUndef)):
            raise self._err(line, item, f"truth '{text}' names no quantity (known: {', '.join(sorted(truths.QUANTITIES))})")
        return expr

    def _from_tex(self, label: str, line, item) -> str:
        if self.tex_path is None:
            raise self._err(line, item, f"label={label!r} needs [paper] tex = \"your.tex\"")
        if self._tex is None:
            p = (self.path.parent / self.tex_path)
            try:
                self._tex = p.read_text(encoding="utf-8")
            except OSError as exc:
                raise self._err(line, item, f"cannot read tex file {str(p)!r} ({exc.strerror})") from None
        return extract_label(self._tex, label, lambda msg: self._err(line, item, msg))

    # ------------------------------------------------------------------ [formulas]
    def _read_formulas(self):
        raw = self.data.get("formulas", {})
        if not isinstance(raw, dict):
            raise self._err(self.lines.find(r"^\s*formulas\s*="), "formulas", "must be tables [formulas.NAME]")
        for name, spec in raw.items():
            line = self.lines.find(rf"^\s*\[formulas\.{re.escape(name)}\]")
            item = f"formula {name!r}"
            if not isinstance(spec, dict):
                raise self._err(line, item, "must be a table with latex (or label) and where")
            unknown = set(spec) - {"latex", "label", "where", "role", "quantity", "description", "section", "seed"}
            if unknown:
                raise self._err(line, item, f"unknown field(s) {', '.join(sorted(unknown))}")
            if "where" not in spec:
                raise self._err(line, item, "missing 'where' (its location in the paper, e.g. \"(12)\" or \"Thm. 2\")")
            role = spec.get("role", "definition")
            if role not in ROLES:
                raise self._err(line, item, f"role={role!r} is not one of {', '.join(ROLES)}")
            if "latex" in spec:
                text = spec["latex"]
            elif "label" in spec:
                text = self._from_tex(spec["label"], line, item)
            else:
                raise self._err(line, item, "needs latex = '...' or label = \"eq:...\"")
            lhs = ""
            body = text
            if _looks_like_relation(text):   # "D(x) = ...": the name and its definition
                lhs, body = _relation_sides(text)
            what = "latex" if "latex" in spec else "label"
            expr = self.parse(body, line=line, item=item, what=what)
            params = tuple(self.symbols[s.name].param() for s in sorted(expr.free_symbols, key=lambda s: s.name))
            self.formulas[name] = Formula(
                name=f"{self.key}.{name}", paper=self.key,
                source=Source(spec.get("seed", self.seed), spec["where"], spec.get("section", "")),
                role=role, quantity=spec.get("quantity", ""), params=params, printed_latex=text,
                printed=expr, expr=expr, lhs_latex=lhs, description=spec.get("description", ""))

    # ------------------------------------------------------------------ [[claim]]
    def _read_claims(self):
        raw = self.data.get("claim", [])
        if not isinstance(raw, list) or not raw:
            raise self._err(None, "[[claim]]", "the file declares no claim ([[claim]] tables)")
        seen = set()
        for i, spec in enumerate(raw):
            line = self.lines.find(r"^\s*\[\[claim\]\]", i)
            cid = spec.get("id") if isinstance(spec, dict) else None
            item = f"claim {cid!r}" if cid else f"claim #{i + 1}"
            if not isinstance(cid, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+", cid):
                raise self._err(line, item, "needs id = \"...\" (letters, digits, _ . -)")
            if cid in seen:
                raise self._err(line, item, "id used twice")
            seen.add(cid)
            self.claims.append(self._claim(spec, line, item))

    def _claim(self, spec: dict, line, item) -> Claim:
        kind = spec.get("kind")
        if kind not in KIND_FIELDS:
            raise self._err(line, item, f"kind={kind!r} is not one of {', '.join(KIND_FIELDS)}")
        if "where" not in spec:
            raise self._err(line, item, "missing 'where' (its location in the paper, e.g. \"(12)\" or \"Thm. 2\")")
        required, optional = KIND_FIELDS[kind]
        if "latex" in spec and kind in ("identity", "inequality"):
            rel = self.parse(spec["latex"], line=line, item=item, what="latex", relation=True)
            lhs_t, rhs_t = _relation_sides(spec["latex"])
            spec = dict(spec, lhs=lhs_t, rhs=rhs_t)
            if kind == "inequality":
                if type(rel) not in _REL_TO_OP:
                    raise self._err(line, item, "an inequality's latex must be A \\le B, A < B, A \\ge B or A > B")
                spec["op"] = _REL_TO_OP[type(rel)]
            elif not isinstance(rel, sp.Equality):
                raise self._err(line, item, "an identity's latex must be A = B")
        allowed = set(COMMON_FIELDS) | set(required) | set(optional)
        unknown = set(spec) - allowed
        if unknown:
            raise self._err(line, item, f"unknown field(s) {', '.join(sorted(unknown))} for kind {kind!r} "
                            f"(it takes {', '.join(required + optional)})")
        missing = [k for k in required if k not in spec]
        if missing:
            raise self._err(line, item, f"kind {kind!r} needs {', '.join(missing)}")
        P = lambda k, rel=False: self.parse(spec[k], line=line, item=item, what=k, relation=rel)  # noqa: E731
        kw: dict = {}
        if kind == "identity":
            kw = {"lhs": P("lhs"), "rhs": P("rhs")}
        elif kind == "inequality":
            op = _OPS.get(str(spec["op"]).strip())
            if op is None:
                raise self._err(line, item, f"op={spec['op']!r} is not one of <=, <, >=, >")
            kw = {"lhs": P("lhs"), "op": op, "rhs": P("rhs")}
        elif kind == "derivative":
            kw = {"f": P("of"), "x": self._sym(spec["wrt"], line, item, "wrt"), "g": P("equals"),
                  "order": _int(spec.get("order", 1), self._err(line, item, "order must be a positive integer"))}
        elif kind in ("monotone", "convex", "concave"):
            direction = spec.get("direction", kind)
            if kind == "monotone" and direction not in checkers._DIRECTIONS:
                raise self._err(line, item, f"direction={direction!r} is not one of {', '.join(checkers._DIRECTIONS)}")
            kw = {"f": P("of"), "x": self._sym(spec["in"], line, item, "in"), "direction": direction}
        elif kind in ("limit", "asymptotic"):
            x = self._sym(spec["var"], line, item, "var")
            x0 = _point(spec["to"], self._err(line, item, f"to={spec['to']!r} must be a number, oo or -oo"))
            iv = self.symbols[x.name].interval
            if not (x0 in (sp.oo, -sp.oo) and (iv.end if x0 == sp.oo else iv.start) == x0) and \
                    not (x0 not in (sp.oo, -sp.oo) and bool(iv.closure.contains(x0))):
                raise self._err(self.lines.field(line, "to"), item,
                                f"to={spec['to']!r} is not a point or end of {x.name}'s domain {iv}")
            side = spec.get("side", "+")
            if side not in ("+", "-"):
                raise self._err(line, item, f"side={side!r} must be \"+\" or \"-\"")
            kw = {"f": P("of"), "x": x, "x0": x0, "side": side}
            if kind == "limit":
                kw["value"] = P("equals")
            else:
                kw["g"], kw["h"] = P("approx"), P("error")
        else:  # bound
            if spec["side"] not in ("upper", "lower", "equal"):
                raise self._err(line, item, f"side={spec['side']!r} must be upper, lower or equal")
            kw = {"bound": P("bound"), "side": spec["side"], "truth": self.truth(spec["truth"], line=line, item=item)}
        dom = self._domain(spec, kw, line, item)
        statement = spec.get("statement") or _auto_statement(kind, spec)
        shown = {k: (self._printed_of(v) if isinstance(v, str) else v) for k, v in spec.items()}
        for k in ("wrt", "in", "var"):
            if k in shown:
                shown[k] = sp.latex(self._sym(shown[k], line, item, k))
        printed = spec.get("latex") or _printed(kind, shown)
        definition = json.dumps({"kind": kind, "spec": spec,
                                 "symbols": {n: str(s.interval) + (" int" if s.integer else "") + str(s.search)
                                             for n, s in self.symbols.items()},
                                 "formulas": {n: f.printed_latex for n, f in self.formulas.items()}},
                                sort_keys=True, default=str)
        refs = tuple(f"{self.key}.{m}" for m in re.findall(r"@([A-Za-z0-9_]+)", json.dumps(spec)))

        pairs = {n: e for n, e in self.pairs.items()
                 if any(e.free_symbols <= v.free_symbols for v in kw.values() if isinstance(v, sp.Basic))}

        def check(kind=kind, dom=dom, kw=kw, pairs=pairs) -> Verdict:
            return checkers.describe_pairs(checkers.check(kind, dom, **kw), pairs)
        return Claim(id=f"{self.key}.{spec['id']}", paper=self.key,
                     source=Source(spec.get("seed", self.seed), spec["where"], spec.get("section", "")),
                     kind=kind, statement=statement, printed_latex=printed, check_fn=check,
                     formulas=refs, note=spec.get("note", ""), checker=kind, definition=definition,
                     spec=(kind, dom, kw))

    def _printed_of(self, text: str) -> str:
        """A side as the paper prints it: a ``@formula`` reference becomes that formula's LaTeX."""
        t = text.strip()
        if t.startswith("@") and t[1:] in self.formulas:
            f = self.formulas[t[1:]]
            return _relation_sides(f.printed_latex)[1] if f.lhs_latex else f.printed_latex
        return text

    def _sym(self, name, line, item, what) -> sp.Symbol:
        n = _canon(str(name))
        if n not in self.symbols:
            raise self._err(line, item, f"{what}={name!r} is not a declared symbol")
        return self.symbols[n].symbol

    def _domain(self, spec, kw, line, item) -> checkers.Domain:
        used: set = set()
        for v in kw.values():
            if isinstance(v, sp.Basic):
                used |= v.free_symbols
        conds = []
        for c in spec.get("conditions", []):
            rel = self.parse(c, line=line, item=item, what="conditions", relation=True)
            used |= rel.free_symbols
            conds.append(rel)
        narrow = spec.get("domain", {})
        if not isinstance(narrow, dict):
            raise self._err(line, item, "domain must be a table like { alpha = \"(1, 2]\" }")
        vars_ = []
        for s in sorted(used, key=lambda s: s.name):
            ss = self.symbols[s.name]
            iv = None
            if s.name in narrow or f"\\{s.name}" in narrow:
                text = narrow.get(s.name, narrow.get(f"\\{s.name}"))
                try:
                    iv = parse_interval(text)
                except ValueError as exc:
                    raise self._err(line, item, f"domain of {s.name}: {exc}") from None
                if not iv.is_subset(ss.interval):
                    raise self._err(line, item, f"domain of {s.name} {text} is not inside its declared {ss.interval}")
            vars_.append(ss.var(iv))
        extra = set(narrow) - {v.name for v in vars_} - {f"\\{v.name}" for v in vars_}
        if extra:
            raise self._err(line, item, f"domain names symbol(s) the claim does not use: {', '.join(sorted(extra))}")
        return checkers.Domain(vars_, tuple(conds))

    # ------------------------------------------------------------------ registry
    def register(self) -> str:
        """Register the paper, its formulas and claims (all or nothing); returns the key."""
        if self.key in registry.PAPERS:
            prev = registry.PAPERS[self.key].get("file")
            if prev == str(self.path.resolve()):
                return self.key
            raise ClaimFileError(self.path, self.lines.find(r"^\s*key\s*="), "[paper]",
                                 f"key={self.key!r} is already loaded from {prev}")
        registry.register_paper(self.key, title=self.title, seeds=(self.seed,), citation=self.citation)
        SEED_CITES.setdefault(self.seed, self.citation)     # prose cites the paper, not its file
        registry.PAPERS[self.key]["file"] = str(self.path.resolve())
        for f in self.formulas.values():
            registry.add_formula(f)
        for c in self.claims:
            registry.add_claim(c)
        return self.key


def load_file(path: str | Path) -> str:
    """Parse, validate and register a claim file; returns its paper key."""
    return ClaimFile(path).register()


# ----------------------------------------------------------------------------- helpers
def _int(v, err):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise err
    return v


def _point(v, err):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return sp.nsimplify(v)
    s = str(v).strip()
    table = {"oo": sp.oo, "+oo": sp.oo, "inf": sp.oo, "infty": sp.oo, "\\infty": sp.oo,
             "-oo": -sp.oo, "-inf": -sp.oo, "-\\infty": -sp.oo}
    if s in table:
        return table[s]
    try:
        x = sp.sympify(s)
    except (sp.SympifyError, SyntaxError, TypeError):
        raise err from None
    if not x.is_number:
        raise err
    return x


def _looks_like_relation(text: str) -> bool:
    return bool(_relation_sides(re.sub(r"\\(left|right)[<>]", "", text))[1])


def _relation_sides(text: str) -> tuple[str, str]:
    """Split 'A rel B' at its relation, ignoring relations inside braces (``\\sum_{k=1}``)."""
    rx = re.compile(r"\\leq?(?![a-zA-Z])|\\geq?(?![a-zA-Z])|<=|>=|(?<![<>])=|<|>")
    depth = 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            m = rx.match(text, i)
            if m and not (ch == "\\" and text[i - 1:i] == "\\"):
                return text[:m.start()].strip(), text[m.end():].strip()
    return text, ""


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


def _printed(kind: str, s: dict) -> str:
    if kind == "identity":
        return f"{s['lhs']} = {s['rhs']}"
    if kind == "inequality":
        op = _OP_LATEX.get(_OPS.get(str(s['op']).strip(), s['op']), s['op'])
        return f"{s['lhs']} {op} {s['rhs']}"
    if kind == "derivative":
        order = s.get("order", 1)
        d = f"\\frac{{d}}{{d{s['wrt']}}}" if order == 1 else f"\\frac{{d^{{{order}}}}}{{d{s['wrt']}^{{{order}}}}}"
        return f"{d} \\left({s['of']}\\right) = {s['equals']}"
    if kind in ("monotone", "convex", "concave"):
        return s["of"]
    if kind == "limit":
        return f"\\lim_{{{s['var']} \\to {s['to']}}} {s['of']} = {s['equals']}"
    if kind == "asymptotic":
        return f"{s['of']} = {s['approx']} + O({s['error']})"
    return s["bound"]


def _auto_statement(kind: str, s: dict) -> str:
    if kind == "identity":
        return "identity on the stated domain"
    if kind == "inequality":
        return f"inequality lhs {_OPS.get(str(s['op']).strip(), s['op'])} rhs on the stated domain"
    if kind == "derivative":
        return f"derivative in {s['wrt']}"
    if kind == "monotone":
        return f"{s['direction']} in {s['in']}"
    if kind in ("convex", "concave"):
        return f"{kind} in {s['in']}"
    if kind == "limit":
        return f"limit as {s['var']} -> {s['to']}"
    if kind == "asymptotic":
        return f"asymptotic expansion as {s['var']} -> {s['to']}"
    return f"{s['side']} bound on {s['truth']}" if s["side"] != "equal" else f"equals {s['truth']}"


TEMPLATE = '''# Claim file for dpderive: `dpderive check {name}.toml` checks every claim,
# `dpderive report {name}.toml` writes the appendix and the errata.
# LaTeX goes in single quotes ('...': TOML literal strings keep backslashes).

[paper]
key = "{key}"
title = "Title of the paper"
citation = "Author et al. 2026"
source = "{name}.pdf"                 # the document the locations ('where') refer to
# tex = "{name}.tex"                  # then a formula may say label = "eq:..." instead of latex

[symbols]                             # every symbol the LaTeX uses, with its domain
alpha = "(1, oo)"
sigma = {{ domain = "(0, oo)", search = [0.05, 50] }}   # search: the range numbers are tried in
varepsilon = "[0, oo)"
delta = "(0, 1)"

[formulas.gauss_rdp]                  # a named formula, used below as "@gauss_rdp"
where = "Eq. (1)"
latex = '\\frac{{\\alpha}}{{2\\sigma^2}}'
role = "definition"                   # {roles}

[[claim]]
id = "gauss_rdp"
where = "Eq. (1)"
kind = "bound"                        # {kinds}
side = "equal"                        # upper | lower | equal
bound = "@gauss_rdp"
truth = "Renyi(Gaussian(1/sigma), alpha)"

[[claim]]
id = "conversion"
where = "Prop. 3"
kind = "bound"
side = "upper"
bound = '\\frac{{\\alpha}}{{2\\sigma^2}} + \\frac{{\\log(1/\\delta)}}{{\\alpha - 1}}'
truth = "EpsOfDelta(Gaussian(1/sigma), delta)"

[[claim]]
id = "log_bound"
where = "Lemma 1"
kind = "inequality"
latex = '\\log(1 + \\varepsilon) \\le \\varepsilon'

# Truth library (derive.truths), usable in 'truth':
{truths}
'''


def scaffold(name: str) -> str:
    key = re.sub(r"[^A-Za-z0-9_]", "_", Path(name).stem)
    if not key or not key[0].isalpha():
        key = "paper_" + key
    return TEMPLATE.format(name=Path(name).stem, key=key, roles=" | ".join(ROLES),
                           kinds=" | ".join(KIND_FIELDS),
                           truths="\n".join("#   " + line for line in truths.describe().splitlines()))
