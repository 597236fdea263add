"""The claim-file loader: reads, validates and registers a claim file's papers, symbols, formulas,
quantities, pairs and claims (nothing is registered unless the whole file is valid)."""
from __future__ import annotations

import json
import re
import tomllib
from dataclasses import replace as dataclass_replace
from pathlib import Path

import mpmath as mp
import sympy as sp
from sympy.core.function import AppliedUndef

from .. import checkers, registry, truths
from ..core import Claim, Formula, ROLES, SEED_CITES, Source, Verdict
from ..functions import Phi, PhiInv
from ..kinds import KINDS
from ..kinds import check as check_kind
from ..parse import normalise
from ..search import Var
from .domains import (
    DepInterval, SymbolSpec, _canon, _change_variables, _make_symbol, _original_coordinates,
    parse_interval)
from .fields import (
    COMMON_FIELDS, CUSTOM_FIELDS, ClaimFileError, PAPER_FIELDS, RESERVED_NAMES, TEXT_FIELDS, _Fields)
from .pairs import PAIR_SCALE, _pair_coverage, _user_name, pair_coordinates, pair_seeds
from .text import (
    _dependency_order, _is_multi_letter, _letters, _looks_like_relation, _name_pattern,
    _product_hint, _relation_parts, _relation_sides, extract_label)


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

    def __init__(self, path: str | Path, *, seed_dir: str | Path | None = None, paper: str | None = None):
        self.path = Path(path)
        self.builtin = paper         # the key of the built-in paper this file declares claims of
        try:
            self.text = self.path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ClaimFileError(path, None, "", f"cannot read the file ({exc.strerror})") from None
        except UnicodeDecodeError as exc:
            raise ClaimFileError(path, None, "", f"not UTF-8 text (byte {exc.start}): a claim file "
                                 "is a TOML text file") from None
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
        for k in ("key",) if self.builtin is not None else ("key", "title"):
            if not isinstance(p.get(k), str) or not p[k].strip():
                raise self._err(line, "[paper]", f"missing {k!r} (a string)")
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", p["key"]):
            raise self._err(line, "[paper]", f"key={p['key']!r} must be letters, digits and _ (starting with a letter)")
        if self.builtin is not None:
            if p["key"] != self.builtin or p["key"] not in registry.PAPERS:
                raise self._err(line, "[paper]", f"key={p['key']!r}: this file belongs to the built-in paper "
                                f"{self.builtin!r} (registered before its claim files load)")
            reg = registry.PAPERS[p["key"]]
            self.key, self.title, self.citation = p["key"], reg["title"], reg["citation"]
            self.seed = p.get("source", reg["seeds"][0])
            self.tex_path = None
            self.budget = self._budget(p, line, "[paper]", None)
            return
        if p["key"] in registry.source_keys():
            raise self._err(line, "[paper]", f"key={p['key']!r} is a built-in paper; choose another key")
        self.key = p["key"]
        self.title = p["title"]
        self.citation = p.get("citation", p["title"])
        self.seed = p.get("seed", p.get("source", self.path.name))
        self.tex_path = p.get("tex")
        self.budget = self._budget(p, line, "[paper]", None)

    def _budget(self, spec: dict, line, item, default):
        """``budget_seconds`` of a table: a number of seconds in (0, 86400], or ``default``."""
        b = spec.get("budget_seconds", default)
        if b is None or b is default:
            return b
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not 0 < b <= 86400:
            raise self._err(self.lines.field(line, "budget_seconds"), item,
                            f"budget_seconds={b!r} must be a number of seconds in (0, 86400]")
        return float(b)

    # ------------------------------------------------------------------ [symbols]
    def _read_symbols(self):
        raw = self.data.get("symbols", {} if self.data.get("pairs") else None)
        # a file whose claims are about pairs alone (Pinsker: TV <= sqrt(KL/2)) needs no symbol
        if not isinstance(raw, dict) or (not raw and not self.data.get("pairs")):
            raise self._err(self.lines.find(r"^\s*\[symbols\]"), "[symbols]",
                            "missing: declare every symbol the formulas use with its domain, e.g. alpha = \"(1, oo)\"")
        self.symbols: dict[str, SymbolSpec] = {}
        pending: dict = {}
        for name, spec in raw.items():
            line = self.lines.find(rf"^\s*\"?{re.escape(name)}\"?\s*=")
            if _canon(name) in RESERVED_NAMES and self.builtin is None:
                raise self._err(line, f"symbol {name!r}", RESERVED_NAMES[_canon(name)])
            if isinstance(spec, str):
                spec = {"domain": spec}
            if not isinstance(spec, dict) or "domain" not in spec:
                raise self._err(line, f"symbol {name!r}", "needs a domain, e.g. \"(0, oo)\" or { domain = \"[0, 1)\" }")
            unknown = set(spec) - {"domain", "integer", "search", "latex"} - \
                ({"assume"} if self.builtin is not None else set())
            if unknown:
                raise self._err(line, f"symbol {name!r}", f"unknown field(s) {', '.join(sorted(unknown))}")
            try:
                iv = parse_interval(spec["domain"], names=[_canon(n) for n in raw])
            except ValueError as exc:
                raise self._err(line, f"symbol {name!r}", str(exc)) from None
            if isinstance(iv, DepInterval):
                if "search" in spec or spec.get("integer"):
                    raise self._err(line, f"symbol {name!r}", f"domain {spec['domain']} depends on other symbols: "
                                    "it takes no search range and no integer = true (give a constant domain for those)")
                pending[_canon(name)] = (iv, line, name)
                continue
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
            symbol = _make_symbol(cname, iv, integer) if self.builtin is None else \
                self._paper_symbol(cname, spec.get("assume"), line, iv, integer)
            self.symbols[cname] = SymbolSpec(cname, symbol, iv, integer, search)
        self._read_dependent_symbols(pending)

    def _read_dependent_symbols(self, pending: dict):
        """Symbols whose domain ends depend on other symbols, in the order of their dependencies
        (a cyclic dependency or a domain empty wherever it was tried is an error)."""
        order = _dependency_order({n: iv.depends_on for n, (iv, _, _) in pending.items()},
                                  lambda n, cycle: self._err(pending[n][1], f"symbol {pending[n][2]!r}",
                                                             f"domain {pending[n][0]} depends on itself: "
                                                             f"{' -> '.join(cycle)} (a cyclic dependency)"))
        for n in order:
            if n not in pending:
                continue
            iv, line, name = pending[n]
            dep = iv.resolved({k: v.symbol for k, v in self.symbols.items()})
            hull = dep.hull()
            self.symbols[n] = SymbolSpec(n, _make_symbol(n, hull, False), hull, False, None, dep)
        for n in order:
            if n in pending:
                iv, line, name = pending[n]
                problem = self._empty_dependent(self.symbols[n].dep)
                if problem:
                    raise self._err(line, f"symbol {name!r}", problem)

    def _empty_dependent(self, dep: "DepInterval", narrow: dict | None = None) -> str:
        """A message when the dependent domain ``dep`` is empty (SymPy shows hi <= lo, or hi <= lo at
        every one of up to 40 points of the symbols it depends on), else ""."""
        lo, hi = sp.sympify(dep.lo), sp.sympify(dep.hi)
        gap = hi - lo
        if gap.is_nonpositive or (gap.is_zero is not False and gap.is_nonpositive is not False and gap == 0):
            return f"domain {dep} is empty (its upper end is never above its lower end)"
        names = {x.name for x in gap.free_symbols}
        if not names or lo in (-sp.oo,) or hi in (sp.oo,):
            return ""
        vars_, subs, _ = self._coordinates(names, narrow or {})
        g = sp.lambdify([v.symbol for v in vars_], gap.xreplace(subs), modules="mpmath")
        import itertools
        coords = list(itertools.product(*[v.special_coordinates() for v in vars_]))[:27]
        coords += [tuple(-0.95 + 1.9 * ((k * (j + 1) * 0.618) % 1) for j in range(len(vars_))) for k in range(13)]
        tried = 0
        with mp.workdps(30):
            for c in coords:
                pt = [v.value(u * (0.999 if abs(u) == 1 else 1)) for v, u in zip(vars_, c)]
                if not all(v.contains(x) for v, x in zip(vars_, pt)):
                    continue
                try:
                    val = g(*pt)
                except (ZeroDivisionError, ValueError, OverflowError, TypeError):
                    continue
                tried += 1
                if mp.isfinite(val) and val > 0:
                    return ""
        if tried == 0:
            return ""
        return (f"domain {dep} is empty: its upper end is not above its lower end at any of {tried} points "
                f"of {', '.join(sorted(names))}")

    def _coordinates(self, names: set, narrow: dict, keep: set = frozenset()):
        """The search variables of a claim over the symbols ``names`` (closed under the dependencies of
        their domains; ``narrow``: a claim's own domains): (vars, subs, units).  A symbol x with a
        dependent domain [lo, hi] is searched through a unit coordinate t_x in [0, 1] (or an offset
        s_x >= 0 when an end is infinite), ``subs[x] = lo + (hi - lo) t_x`` with lo and hi themselves
        substituted; ``units[t_x] = (x's name, x, subs[x], its interval)``.  A symbol in ``keep`` keeps
        its hull and its dependent ends become conditions (returned in units["conditions"])."""
        eff = {}
        todo = list(names)
        while todo:
            n = todo.pop()
            if n in eff:
                continue
            iv = narrow.get(n) or self.symbols[n].dep or self.symbols[n].interval
            eff[n] = iv
            if isinstance(iv, DepInterval):
                todo += [d for d in iv.depends_on if d not in eff]
        order = _dependency_order({n: (iv.depends_on if isinstance(iv, DepInterval) else set())
                                   for n, iv in eff.items()},
                                  lambda n, cycle: ValueError(f"domain of {n} depends on itself: {' -> '.join(cycle)}"))
        vars_, subs, units, conds = [], {}, {}, []
        for n in order:
            ss, iv = self.symbols[n], eff[n]
            if not isinstance(iv, DepInterval):
                vars_.append(ss.var(iv))
                continue
            iv = iv.resolved({k: v.symbol for k, v in self.symbols.items()})
            lo, hi = sp.sympify(iv.lo).xreplace(subs), sp.sympify(iv.hi).xreplace(subs)
            if n in keep:
                vars_.append(ss.var(iv.hull()))
                if lo != -sp.oo:
                    conds.append(sp.StrictGreaterThan(ss.symbol, lo) if iv.left_open else sp.GreaterThan(ss.symbol, lo))
                if hi != sp.oo:
                    conds.append(sp.StrictLessThan(ss.symbol, hi) if iv.right_open else sp.LessThan(ss.symbol, hi))
                continue
            if lo != -sp.oo and hi != sp.oo:
                t = sp.Symbol(f"t_{n}", real=True, nonnegative=True, **({"positive": True} if iv.left_open else {}))
                vars_.append(Var(t.name, t, mp.mpf(0), mp.mpf(1), iv.left_open, iv.right_open))
                subs[ss.symbol] = lo + (hi - lo) * t
            elif hi == sp.oo:
                t = sp.Symbol(f"s_{n}", real=True, nonnegative=True, **({"positive": True} if iv.left_open else {}))
                vars_.append(Var(t.name, t, mp.mpf(0), None, iv.left_open, True))
                subs[ss.symbol] = lo + t
            else:
                t = sp.Symbol(f"s_{n}", real=True, nonnegative=True, **({"positive": True} if iv.right_open else {}))
                vars_.append(Var(t.name, t, mp.mpf(0), None, iv.right_open, True))
                subs[ss.symbol] = hi - t
            units[t.name] = (n, ss.symbol, subs[ss.symbol], iv)
        if conds:
            units["conditions"] = conds
        return vars_, subs, units

    # ------------------------------------------------------------------ a built-in paper's names
    def _known_symbols(self) -> dict:
        """{name: symbol} of the built-in paper: derive.symbols, the paper's ``_paper`` module and the
        free symbols of its registered formulas (in that order of precedence)."""
        if getattr(self, "_known", None) is None:
            import importlib
            from .. import symbols as S
            known: dict = {}
            for f in registry.FORMULAS.values():
                if f.paper == self.key:
                    for x in sorted(sp.sympify(f.expr).free_symbols, key=lambda x: x.name):
                        known.setdefault(x.name, x)
            try:
                mod = importlib.import_module(f"{registry.SOURCES[self.key]}._paper")
                known.update({v.name: v for v in vars(mod).values() if isinstance(v, sp.Symbol)})
            except (KeyError, ModuleNotFoundError):
                pass
            known.update({v.name: v for v in vars(S).values() if isinstance(v, sp.Symbol)})
            self._known = known
        return self._known

    def _paper_symbol(self, name, assume, line, iv, integer) -> sp.Symbol:
        """A built-in paper's symbol: the one its formulas use (so that ``@formula`` references and
        the claim's LaTeX share it), or one with the stated ``assume = { positive = true }``."""
        if assume is not None:
            if not isinstance(assume, dict) or not all(isinstance(v, bool) for v in assume.values()):
                raise self._err(line, f"symbol {name!r}", "assume must be a table like { positive = true }")
            return sp.Symbol(name, **assume)
        return self._known_symbols().get(name) or _make_symbol(name, iv, integer)

    def _sympy(self, text, *, line, item, what):
        """A field in SymPy syntax (``{ sympy = "..." }``, or a built-in paper's truth): the file's
        symbols, derive.functions' named functions, the truths' names and ``@{name}`` references to the
        paper's registered formulas."""
        from .. import functions as FN
        local: dict = {}
        local.update({n: v for n, v in vars(FN).items() if isinstance(v, type) and issubclass(v, sp.Function)})
        local.update({n: sp.Function(n) for n in set(truths.PAIRS) | set(truths.QUANTITIES) | {"Pmf"}})
        local.update(self._known_symbols() if self.builtin is not None else {})
        local.update({s.name: s.symbol for s in self.symbols.values()})
        local.update(getattr(self, "pairs", {}))
        refs = {}

        def ref(m):
            name = m.group(1)
            k = f"REF{len(refs)}_"
            refs[k] = self._formula_ref(name, line=line, item=item, what=what)
            return k
        body = re.sub(r"@\{([A-Za-z0-9_.]+)\}", ref, text)
        local.update(refs)
        import keyword
        for kw_name in [n for n in list(local) if keyword.iskeyword(n)]:
            local[kw_name + "_kw_"] = local.pop(kw_name)
            body = re.sub(rf"\b{kw_name}\b", kw_name + "_kw_", body)
        from ..parse import MAX_DIGITS, huge_number
        try:
            huge = huge_number(sp.parse_expr(body, local_dict=local, evaluate=False))
        except Exception:  # noqa: BLE001 - the evaluated parse below reports the syntax error
            huge = None
        if huge is not None:       # SymPy would compute it while parsing, without bound
            raise self._err(line, item, f"{what} '{text}': {huge[0]} has about {int(huge[1]):.2g} digits, more "
                                        f"than the {MAX_DIGITS} a formula may compute")
        try:
            return sp.parse_expr(body, local_dict=local)
        except Exception as exc:  # noqa: BLE001
            raise self._err(line, item, f"cannot parse {what} '{text}' (SymPy syntax): {exc}") from None

    def _formula_ref(self, name, *, line, item, what):
        if name in self.formulas:
            return self.formulas[name].expr
        if self.builtin is not None and f"{self.key}.{name}" in registry.FORMULAS:
            return registry.FORMULAS[f"{self.key}.{name}"].expr
        raise self._err(line, item, f"{what} refers to @{name}, which is not a formula of this file "
                        f"(known: {', '.join(sorted(self.formulas)) or 'none'})")

    # ------------------------------------------------------------------ [pairs], [quantities]
    def _read_pairs(self):
        """``P = { kind = "pmf", points = 4 }``: "for every pair of pmfs on 4 points".  A pair is
        searched through the softmax logits of its two pmfs (2 x points real variables)."""
        raw = self.data.get("pairs", {})
        self.pairs: dict[str, sp.Expr] = {}
        self.pair_seeds: dict[str, list] = {}
        for name, spec in raw.items():
            line = self.lines.find(rf"^\s*\"?{re.escape(name)}\"?\s*=")
            item = f"pair {name!r}"
            if not isinstance(spec, dict) or spec.get("kind") != "pmf":
                raise self._err(line, item, "must be { kind = \"pmf\", points = k } (pairs of pmfs on k points)")
            k = spec.get("points")
            if isinstance(k, bool) or not isinstance(k, int) or not 2 <= k <= 8:
                raise self._err(line, item, f"points={k!r} must be an integer in [2, 8]")
            cname = _canon(name)
            if self.builtin is not None:
                # a built-in paper's claims name the logits u, v of both pmfs in `over` and in their
                # truths (an identical pair as Pmf(u, u)): their coordinates stay those logits
                coords = []
                for side in ("u", "v"):
                    for i in range(1, k + 1):
                        n = f"{cname}_{side}{i}"
                        self.symbols[n] = SymbolSpec(n, sp.Symbol(n, real=True), sp.Interval(-sp.oo, sp.oo),
                                                     False, (-4.0, 4.0))
                        coords.append(self.symbols[n].symbol)
                self.pairs[cname] = sp.Function("Pmf")(*coords)
                continue
            u, d, scale = pair_coordinates(cname, k)
            for sym, iv, search in [*((x, sp.Interval(-sp.oo, sp.oo), (-4.0, 4.0)) for x in u),
                                    *((x, sp.Interval(-sp.oo, sp.oo), (-1.0, 1.0)) for x in d),
                                    (scale, sp.Interval.open(0, sp.oo), PAIR_SCALE)]:
                self.symbols[sym.name] = SymbolSpec(sym.name, sym, iv, False, search)
            self.pairs[cname] = sp.Function("Pmf")(*u, *(ui + scale * di for ui, di in zip(u, d)))
            self.pair_seeds[cname] = pair_seeds(cname, k)

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
        if isinstance(text, dict) and set(text) == {"sympy"} and isinstance(text["sympy"], str):
            e = self._sympy(text["sympy"], line=line, item=item, what=what)
            if isinstance(e, sp.core.relational.Relational) != relation:
                raise self._err(line, item, f"{what} '{text['sympy']}' must be "
                                + ("a relation" if relation else "an expression, not a relation"))
            return e
        if not isinstance(text, str) or not text.strip():
            raise self._err(line, item, f"{what} must be a LaTeX string (or {{ sympy = \"...\" }})")
        text = text.strip()
        if text.startswith("@"):
            return self._formula_ref(text[1:], line=line, item=item, what=what)
        from ..parse import parse_latex_cached
        try:
            raw = parse_latex_cached(normalise(self._names_to_commands(text)))
        except Exception as exc:  # noqa: BLE001 - ANTLR raises several types
            from ..errors import plain_reason
            msg = plain_reason(exc)
            if "@" in text:     # a formula reference is a whole field, or inside { sympy = "..." }
                msg += ("; a formula reference @name stands alone as the whole field, or inside a SymPy "
                        "expression: { sympy = \"n*@{name}\" }")
            raise self._err(line, item, f"cannot parse the LaTeX of {what} '{text}': {msg}") from None
        if isinstance(raw, sp.core.relational.Relational) != relation:
            want = "a relation (A = B, A \\le B, ...)" if relation else "an expression, not a relation"
            raise self._err(line, item, f"{what} '{text}' must be {want}")
        return self._map(raw, line=line, item=item, what=what, text=text)

    # ------------------------------------------------------------------ multi-letter names
    def _multi_letter_names(self) -> dict:
        """{declared name: placeholder command} for the symbols, quantities and pairs whose name is
        more than one letter (``Erev``, ``E_rev``, ``sigma_max``; not ``alpha``, ``sigma_0``, ``x_1``):
        the LaTeX parser would read them as products of letters."""
        if getattr(self, "_ml_names", None) is None:
            names = set(getattr(self, "symbols", {})) | set(getattr(self, "quantities", {})) | \
                set(getattr(self, "pairs", {}))
            ml = sorted((n for n in names if _is_multi_letter(n)), key=lambda n: (-len(n), n))
            self._ml_names = {n: "\\mlname" + _letters(i) for i, n in enumerate(ml)}
            self._ml_back = {v[1:]: k for k, v in self._ml_names.items()}
        return self._ml_names

    def _names_to_commands(self, text: str) -> str:
        """Each declared multi-letter name, as ``Erev``, ``\\mathrm{Erev}``, ``\\text{Erev}``, ``E_rev``,
        ``E_{rev}``, ``E_{\\mathrm{rev}}`` or ``\\mathrm{E_rev}``, becomes one placeholder command that
        the parser reads as one symbol (``_map`` gives it its name back)."""
        for name, cmd in self._multi_letter_names().items():
            text = _name_pattern(name).sub(lambda m, c=cmd: c + " ", text)
        if "d" in getattr(self, "symbols", {}) and "\\int" not in text:
            # a declared d is a letter, not the differential of SymPy's LaTeX grammar (which reads
            # "d \\cdot f" as one symbol dcdot and "d f" as df): braced, it is the symbol
            text = re.sub(r"(?<![\\a-zA-Z_{])d(?![a-zA-Z_}])", "{d}", text)
        return text

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
                name = getattr(self, "_ml_back", {}).get(name, name)
                args = [fix(a) for a in e.args]
                if name in funcs:
                    return funcs[name](*args)
                if name in self.symbols and len(args) == 1:  # x(y) is a product, as printed
                    return self.symbols[name].symbol * args[0]
                if name in getattr(self, "quantities", {}) and len(args) == 1:   # E0 (e^{E0} - 1)
                    return self.quantities[name] * args[0]
                raise self._err(line, item, f"unknown function '{_user_name(name)}' in {what} '{text}' "
                                f"(known: {', '.join(funcs)})")
            if isinstance(e, sp.Function) and type(e).__name__ in ("max", "min"):
                return (sp.Max if type(e).__name__ == "max" else sp.Min)(*[fix(a) for a in e.args])
            if isinstance(e, sp.log) and len(e.args) == 2 and e.args[1] == sp.E:
                return sp.log(fix(e.args[0]))
            if isinstance(e, sp.Float):
                # a decimal as written is an exact rational (1.5 = 3/2): e^{1.5} stays e^{3/2}, not a
                # 15-digit float that the ball certificate would then take for the claim
                return sp.Rational(str(e)) if e.is_finite else e
            if isinstance(e, sp.Symbol):
                n = _canon(e.name)
                n = getattr(self, "_ml_back", {}).get(n, n)
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
                                    "declare it under [symbols] with its domain" + _product_hint(e.name, text))
                return self.symbols[n].symbol
            if e.args:
                return e.func(*[fix(a) for a in e.args])
            return e
        return fix(expr)

    def truth(self, text, *, line, item, field: bool = True):
        """A truth expression: SymPy syntax over the file's symbols, pairs and derive.truths' names."""
        line = self.lines.field(line, "truth") if line and field else line
        if self.builtin is not None and isinstance(text, str) and field:
            return self._sympy(text, line=line, item=item, what="truth")
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
        if self.builtin is not None:     # a built-in paper's formulas: registered by Paper.formulas
            return
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
        ids = {c.id for c in self.claims}
        for i, c in enumerate(self.claims):
            if c.step_of and c.step_of not in ids:
                line = self.lines.find(r"^\s*\[\[claim\]\]", i)
                raise self._err(self.lines.field(line, "step_of"), f"claim {c.id.split('.', 1)[1]!r}",
                                f"step_of={c.step_of.split('.', 1)[1]!r} is not the id of a claim of this file")

    def _claim(self, spec: dict, line, item) -> Claim:
        if self.builtin is not None and ("check" in spec or "draw" in spec):
            return self._custom(spec, line, item)
        kind = spec.get("kind")
        if kind not in KINDS:
            raise self._err(line, item, f"kind={kind!r} is not one of {', '.join(KINDS)}")
        K = KINDS[kind]
        if "where" not in spec:
            raise self._err(line, item, "missing 'where' (its location in the paper, e.g. \"(12)\" or \"Thm. 2\")")
        for f in TEXT_FIELDS:
            if f in spec and not isinstance(spec[f], str):
                raise self._err(self.lines.field(line, f), item,
                                f"{f}={spec[f]!r} must be a string (in quotes: {f} = \"...\")")
        required, optional = K.required, K.optional
        if "latex" in spec and K.relation:
            # the relation as written: both sides parsed apart (SymPy would evaluate x + 0 = x to True
            # and x \\le x^2 + x to a relation of its own), the operator read from the text
            if not isinstance(spec["latex"], str):
                raise self._err(line, item, "latex must be a LaTeX string such as 'A \\le B'")
            lhs_t, rhs_t, op_t = _relation_parts(spec["latex"])
            if not rhs_t or op_t is None:
                # no relation at the top level: the parser says why (a LaTeX error, or no relation)
                self.parse(spec["latex"], line=line, item=item, what="latex", relation=True)
                raise self._err(line, item, f"latex '{spec['latex']}' must be a relation (A = B, A \\le B, ...)")
            spec = dict(spec, lhs=lhs_t, rhs=rhs_t)
            if K.relation == "=" and op_t != "==":
                raise self._err(line, item, f"a{'n' if kind[0] in 'aeiou' else ''} {kind}'s latex must be A = B")
            if K.relation == "<" and op_t == "==":
                raise self._err(line, item, f"{kind} claim's latex must be A \\le B, A < B, A \\ge B or A > B")
            if K.relation != "=":
                spec["op"] = op_t
        allowed = set(COMMON_FIELDS) | set(required) | set(optional) | \
            (set(PAPER_FIELDS) if self.builtin is not None else set())
        unknown = set(spec) - allowed
        if unknown:
            raise self._err(line, item, f"unknown field(s) {', '.join(sorted(unknown))} for kind {kind!r} "
                            f"(it takes {', '.join(required + optional)})")
        missing = [k for k in required if k not in spec]
        if missing:
            raise self._err(line, item, f"kind {kind!r} needs {', '.join(missing)}")
        side_line = self.lines.field(line, "latex") if "latex" in spec and K.relation else line
        kw = K.read(_Fields(self, spec, line, item, side_line))
        dom, subs, units = self._domain(spec, kw, line, item, kind)
        factor = sp.S.One
        if subs:
            kw, factor = _change_variables(K, kw, subs, units)
        statement = spec.get("statement") or K.statement(spec)
        shown = {k: (self._printed_of(v) if isinstance(v, str) else v) for k, v in spec.items()}
        for k in ("wrt", "in", "var"):
            if k in shown:
                shown[k] = sp.latex(self._sym(shown[k], line, item, k))
        printed = spec.get("printed") or spec.get("latex") or K.printed(shown)
        definition = json.dumps({"kind": kind, "spec": spec,
                                 "symbols": {n: str(s.interval) + (" int" if s.integer else "") + str(s.search)
                                             + (f" dep {s.dep}" if s.dep is not None else "")
                                             for n, s in self.symbols.items()},
                                 "formulas": {n: f.printed_latex for n, f in self.formulas.items()}},
                                sort_keys=True, default=str)
        refs = tuple(f"{self.key}.{m}" for m in re.findall(r"@([A-Za-z0-9_]+)", json.dumps(spec)))
        if self.builtin is not None:      # a built-in paper's claim names its formulas
            refs = tuple(f"{self.key}.{m}" for m in spec.get("formulas", ()))

        pairs = {n: e for n, e in self.pairs.items()
                 if any(e.free_symbols <= v.free_symbols for v in kw.values() if isinstance(v, sp.Basic))}
        if self.builtin is not None:
            pairs = checkers.pmf_pairs_in(kw)
        if getattr(K, "takes_pairs", False):
            kw["pairs"] = pairs

        coverage = _pair_coverage(pairs, dom) if self.builtin is None else ""

        def check(kind=kind, dom=dom, kw=kw, pairs=pairs, units=units, factor=factor) -> Verdict:
            v = checkers.describe_pairs(check_kind(kind, dom, **kw), pairs)
            if coverage:
                v = dataclass_replace(v, method=f"{v.method}; {coverage}")
            return _original_coordinates(v, units, kw.get("x"), factor) if units else v
        return Claim(id=f"{self.key}.{spec['id']}", paper=self.key,
                     source=Source(spec.get("seed", self.seed), spec["where"], spec.get("section", "")),
                     kind=spec.get("shown_kind", kind), statement=statement, printed_latex=printed, check_fn=check,
                     formulas=refs, note=spec.get("note", ""), checker=kind, definition=definition,
                     spec=(kind, dom, kw), step_of=self._step_of(spec, line, item),
                     budget_seconds=self._budget(spec, line, item, self.budget))

    def _step_of(self, spec: dict, line, item) -> str:
        step = spec.get("step_of", "")
        if step == "":
            return ""
        if not isinstance(step, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+", step):
            raise self._err(self.lines.field(line, "step_of"), item,
                            f"step_of={step!r} must be the id of another claim of this file")
        if step == spec.get("id"):
            raise self._err(self.lines.field(line, "step_of"), item, "step_of names the claim itself")
        return f"{self.key}.{step}"

    def _custom(self, spec: dict, line, item) -> Claim:
        """A built-in paper's custom claim, declared here and checked by a function of the section
        module beside the file (``sec4.toml`` -> ``sec4.py``): ``check`` (called with the keywords of
        ``check_args``), or ``draw``, a sampler ``draw(rng)`` whose draws ``check_with`` (default
        ``verify.check_draws``) checks: ``check_with(draw, **check_args)``, a relation over random
        pairs or mechanisms.  ``why_custom`` says why no generic kind carries the claim."""
        import importlib
        unknown = set(spec) - set(CUSTOM_FIELDS)
        if unknown:
            raise self._err(line, item, f"unknown field(s) {', '.join(sorted(unknown))} for a custom claim "
                            f"(it takes {', '.join(CUSTOM_FIELDS)})")
        if ("check" in spec) == ("draw" in spec) or ("check_with" in spec and "draw" not in spec):
            raise self._err(line, item, "a custom claim names one function: check, or draw (with check_with)")
        for k in ("kind", "statement", "why_custom"):
            if not isinstance(spec.get(k), str) or not spec[k].strip():
                raise self._err(line, item, f"a custom claim needs {k} (a string)")
        mod = importlib.import_module(f"{registry.SOURCES[self.key]}.{self.path.stem}")
        fns = {k: getattr(mod, spec[k], None) for k in ("check", "draw", "check_with") if k in spec}
        for k, fn in fns.items():
            if not callable(fn):
                raise self._err(line, item, f"{k}={spec[k]!r} is not a function of {mod.__name__}")
        args = dict(spec.get("check_args", {}))
        if "draw" in fns:
            from ..verify import check_draws
            via, draw = fns.get("check_with", check_draws), fns["draw"]
            check = lambda: via(draw, **args)  # noqa: E731
        else:
            check = (lambda f=fns["check"]: f(**args)) if args else fns["check"]
        return Claim(id=f"{self.key}.{spec['id']}", paper=self.key,
                     source=Source(spec.get("seed", self.seed), spec["where"], spec.get("section", "")),
                     kind=spec["kind"], statement=spec["statement"], printed_latex=spec.get("printed", ""),
                     check_fn=check, formulas=tuple(f"{self.key}.{m}" for m in spec.get("formulas", ())),
                     note=spec.get("note", ""), why_custom=spec["why_custom"],
                     budget_seconds=self._budget(spec, line, item, self.budget))

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

    def _domain(self, spec, kw, line, item, kind: str = ""):
        """The claim's Domain, the substitution of its dependent-domain symbols (``_coordinates``)
        and their unit coordinates."""
        used: set = set()
        for v in kw.values():
            if isinstance(v, sp.Basic):
                used |= v.free_symbols
        conds = []
        for c in spec.get("conditions", []):
            rel = self.parse(c, line=line, item=item, what="conditions", relation=True)
            used |= rel.free_symbols
            conds.append(rel)
        narrow_raw = spec.get("domain", {})
        if not isinstance(narrow_raw, dict):
            raise self._err(line, item, "domain must be a table like { alpha = \"(1, 2]\" }")
        narrow = {}
        dline = self.lines.field(line, "domain") if line else line
        searches = {}
        for key, text in narrow_raw.items():
            n = _canon(key)
            if n not in self.symbols:
                raise self._err(dline, item, f"domain names {key!r}, which is not a declared symbol")
            ss = self.symbols[n]
            if isinstance(text, dict):      # { domain = "(0, 1)", search = [0.1, 1], integer = true }
                if not set(text) <= {"domain", "search", "integer"} or "domain" not in text:
                    raise self._err(dline, item, f"domain of {n}: a table takes domain, search and integer")
                searches[n] = (tuple(text["search"]) if "search" in text else None, bool(text.get("integer", False)))
                text = text["domain"]
            try:
                iv = parse_interval(text, names=list(self.symbols))
            except ValueError as exc:
                raise self._err(dline, item, f"domain of {n}: {exc}") from None
            if isinstance(iv, DepInterval):
                if ss.integer:
                    raise self._err(dline, item, f"domain of {n} {text}: an integer symbol takes a constant domain")
            elif ss.dep is None and self.builtin is None and not iv.is_subset(ss.interval):
                raise self._err(dline, item, f"domain of {n} {text} is not inside its declared {ss.interval}")
            narrow[n] = iv
        names = {s.name for s in used}
        over = spec.get("over")
        if over is not None:
            over = [_canon(o) for o in over]
            missing = names - set(over)
            if missing or not set(over) <= set(self.symbols):
                raise self._err(line, item, f"over={spec['over']!r} must list declared symbols, every one the "
                                f"claim uses ({', '.join(sorted(missing))} missing)")
            names = set(over)
        x = kw.get("x")
        keep = set()
        K = KINDS.get(kind)
        if K is not None and K.keeps_ends and x is not None:
            keep = {x.name}           # the sequence toward x0 is explicit: x's own ends become conditions
        try:
            order_names = sorted(names)
            vars_, subs, units = self._coordinates(order_names, narrow, keep)
        except ValueError as exc:
            raise self._err(dline, item, f"{exc} (a cyclic dependency)") from None
        for n, iv in narrow.items():
            if isinstance(iv, DepInterval):
                problem = self._empty_dependent(iv.resolved({k: v.symbol for k, v in self.symbols.items()}), narrow)
                if problem:
                    raise self._err(dline, item, f"domain of {n}: {problem}")
        in_use = {v.name for v in vars_} | {u[0] for k, u in units.items() if k != "conditions"}
        extra = set(narrow) - in_use
        if extra:
            raise self._err(line, item, f"domain names symbol(s) the claim does not use: {', '.join(sorted(extra))}")
        if x is not None and K is not None and K.about_variable:
            movers = sorted(u[0] for k, u in units.items() if k != "conditions" and x in sp.sympify(u[2]).free_symbols)
            if movers:
                raise self._err(dline, item, f"the domain of {', '.join(movers)} depends on {x.name}, the variable "
                                f"this {kind} claim is about: give {', '.join(movers)} a domain that does not "
                                f"depend on {x.name} and state the dependence as a condition")
        conds = [c.xreplace(subs) for c in conds] + list(units.pop("conditions", []))
        if searches:
            vars_ = [dataclass_replace(v, search=searches[v.name][0], integer=searches[v.name][1] or v.integer)
                     if v.name in searches else v for v in vars_]
        if over is not None and not units:
            byname = {v.name: v for v in vars_}
            vars_ = [byname[n] for n in over]
        in_vars = {v.name for v in vars_}
        seeds = tuple(sd for name, sds in getattr(self, "pair_seeds", {}).items()
                      if f"{name}_s" in in_vars for sd in sds)
        return checkers.Domain(vars_, tuple(conds), seeds=seeds), subs, units

    # ------------------------------------------------------------------ registry
    def register(self) -> str:
        """Register the paper, its formulas and claims (all or nothing); returns the key.  A built-in
        paper's file adds its claims (and any formulas of its own) to the paper registered in Python."""
        if self.builtin is not None:
            for f in self.formulas.values():
                registry.add_formula(f)
            for c in self.claims:
                registry.add_claim(c)
            return self.key
        if self.key in registry.PAPERS:
            prev = registry.PAPERS[self.key].get("file")
            if prev == str(self.path.resolve()):
                return self.key
            raise ClaimFileError(self.path, self.lines.find(r"^\s*key\s*="), "[paper]",
                                 f"key={self.key!r} is already loaded from {prev}")
        registry.register_paper(self.key, title=self.title, seeds=(self.seed,), citation=self.citation)
        SEED_CITES.setdefault(self.seed, self.citation)     # prose cites the paper, not its file
        registry.PAPERS[self.key]["file"] = str(self.path.resolve())
        # the legend of the report: each [quantities] name and what it stands for, as LaTeX
        from ..printing import latex as _latex
        named = {e: sp.Symbol(n) for n, e in self.pairs.items()}    # a pair by its name, not its coordinates
        registry.PAPERS[self.key]["quantities"] = [
            {"name": _latex(sp.Symbol(n)), "truth": _latex(q.xreplace(named))} for n, q in self.quantities.items()]
        registry.PAPERS[self.key]["pairs"] = [
            {"name": _latex(sp.Symbol(n)), "points": len(e.args) // 2} for n, e in self.pairs.items()]
        for f in self.formulas.values():
            registry.add_formula(f)
        for c in self.claims:
            registry.add_claim(c)
        return self.key


def load_file(path: str | Path) -> str:
    """Parse, validate and register a claim file; returns its paper key."""
    return ClaimFile(path).register()
