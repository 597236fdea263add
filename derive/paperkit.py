"""A small vocabulary for writing one paper's module: formulas and claims in
the paper's order, each citing its seed file and location.

    P = Paper("smith2024", seed="smith2024.txt", ...)
    g = P.formula("thm4.g", "(23)", r"...verbatim LaTeX...", role="lower_bound",
                  quantity=r"\\gamma_\\alpha^\\varepsilon(\\delta)", params=(ALPHA, EPS, DELTA),
                  subs={zeta_alpha: zeta})
    P.claim("thm4.g_lower", "(23)", "inequality", "g never exceeds the exact gamma",
            latex=..., check=lambda: check_relation(...), formulas=("thm4.g",))

Claims that a generic kind carries are declared, not programmed:

    P.generic("thm1.sound", "(7)", "inequality", "...", latex=..., params=(ALPHA, EPS),
              lhs=printed, op="<=", rhs=truth)

runs ``derive.checkers`` (kinds: identity, inequality, derivative, monotone, convex,
concave, limit, asymptotic, bound) over the parameters' domains, searching the ranges their
sampling laws give; the claim's record says ``checker: <kind>``.

The seed papers declare all of this in the claim file beside each section module instead:
``F = P.formulas(__file__, globals())`` registers its ``[formulas."NAME"]`` tables, and its
``[[claim]]`` tables name the module's check (``check``) or sampler (``draw``) for custom claims
(``P.load``); ``P.custom`` / ``P.drawn`` decorate a check that stays registered in Python.

``latex`` strings are copied verbatim from the seed (a test holds each one
against the seed text); ``parse`` names the verbatim fragment handed to the
parser when the whole display is not an expression (an ``\\inf``, a ``:=``).
"""
from __future__ import annotations

import re
from typing import Callable

import sympy as sp

from . import registry
from . import checkers, kinds
from .core import Claim, Formula, Source, Verdict
from .parse import parse_printed
from .search import Var
from .symbols import Param


class Paper:
    def __init__(self, key: str, *, seed: str, title: str, citation: str, seeds: tuple[str, ...] = ()):
        self.key, self.seed = key, seed
        self.parts: dict[str, dict] = {}     # a declared formula's parsed parts (Paper.formulas)
        if key not in registry.PAPERS:
            registry.register_paper(key, title=title, seeds=seeds or (seed,), citation=citation)

    def _src(self, location: str, section: str, seed: str | None) -> Source:
        return Source(seed or self.seed, location, section)

    def formula(self, name: str, location: str, latex: str, *, role: str, quantity: str,
                params: tuple, parse: str | None = None, subs: dict | None = None,
                hand: sp.Expr | None = None, hand_reason: str = "", conditions: tuple = (),
                lhs: str = "", section: str = "", seed: str | None = None,
                description: str = "", symbols: dict | None = None,
                transform: Callable[[sp.Expr], sp.Expr] | None = None,
                continued: tuple[str, ...] = ()) -> Formula:
        """Register a formula: ``parse`` (a verbatim fragment of ``latex``) or the whole
        ``latex`` is parsed, unless ``hand`` (with ``hand_reason``) encodes it; ``subs``
        expands named sub-definitions and ``transform`` maps the printed expression to the
        computed one (e.g. Phi written through erf) — everything is declared here, once.
        ``continued`` holds the further lines of a display whose expression runs over several
        (each verbatim from the seed, as the dump splits it): the parser reads the printed line
        (or ``parse``) followed by them."""
        if hand is not None:
            if not hand_reason:
                raise ValueError(f"{name}: a hand encoding needs hand_reason")
            printed, encoding = hand, "hand"
        else:
            text = " ".join((parse if parse is not None else latex,) + tuple(continued))
            printed, encoding = parse_printed(text, symbols), "parsed"
        expr = printed.xreplace(subs) if subs else printed
        if transform is not None:
            expr = transform(expr)
        f = Formula(name=f"{self.key}.{name}", paper=self.key,
                    source=self._src(location, section, seed), role=role, quantity=quantity,
                    params=tuple(params), printed_latex=latex, printed=printed, expr=expr,
                    lhs_latex=lhs, conditions=tuple(conditions), encoding=encoding,
                    encoding_note=hand_reason, description=description,
                    parse_fragment=parse if parse is not None else (None if hand is not None else latex),
                    continuation=tuple(continued))
        return registry.add_formula(f)

    def formulas(self, module_file: str, ns: dict, name: str | None = None) -> dict[str, Formula]:
        """Register the formulas declared in the claim file beside a section module: its
        ``[formulas."NAME"]`` tables, in the paper's order, each with the fields of ``formula``
        (``FORMULA_FIELDS``).  Returns {NAME: Formula}.  ``params`` are names of the module's
        ``Param`` objects (``ns``, its globals) or inline tables ``{ symbol, domain, sample }``;
        ``symbols`` names a dict of the module (the parser's symbol map), or is a table
        ``{ name = "SymPy string" }``, or a list of these, merged;
        ``transform`` names a function of the module; ``hand``, ``conditions`` and ``subs`` are
        SymPy strings over the formula's symbols, ``derive.functions``, the parsed ``parts``
        (``{ NAME = 'verbatim LaTeX fragment' }``) and ``@{name}`` (a formula of the paper)."""
        import tomllib
        from pathlib import Path
        path = Path(module_file).with_name(name) if name else Path(module_file).with_suffix(".toml")
        raw = tomllib.loads(path.read_text(encoding="utf-8")).get("formulas", {})
        return {n: self._declared(n, spec, ns, path) for n, spec in raw.items()}

    def _declared(self, name: str, spec: dict, ns: dict, path) -> Formula:
        unknown = set(spec) - set(FORMULA_FIELDS)
        if unknown or "where" not in spec or "latex" not in spec:
            raise ValueError(f"{path}: formula {name!r}: needs where and latex; unknown field(s) "
                             f"{', '.join(sorted(unknown)) or 'none'}")
        syms = spec.get("symbols")
        if syms is not None:      # names of the module's symbol maps, or tables {name: SymPy string}
            base = _sympy_names(ns, (), None, {})
            syms = {k: v for d in ([syms] if isinstance(syms, (str, dict)) else syms)
                    for k, v in (ns[d].items() if isinstance(d, str) else
                                 ((n, _sympy_of(t, base, self.key)) for n, t in d.items()))}
        params = tuple(ns[x] if isinstance(x, str) else _inline_param(x, ns) for x in spec.get("params", ()))
        parts = self.parts[name] = {k: parse_printed(v, syms) for k, v in spec.get("parts", {}).items()}
        local = _sympy_names(ns, params, syms, parts)

        def ev(text):
            return _sympy_of(text, local, self.key)
        hand = ev(spec["hand"]) if "hand" in spec else None
        subs = {ev(k): ev(v) for k, v in spec["subs"].items()} if "subs" in spec else None
        return self.formula(name, spec["where"], spec["latex"], role=spec["role"],
                            quantity=spec.get("quantity", ""), params=params, parse=spec.get("parse"),
                            subs=subs, hand=hand, hand_reason=spec.get("hand_reason", ""),
                            conditions=tuple(ev(c) for c in spec.get("conditions", ())),
                            lhs=spec.get("lhs", ""), section=spec.get("section", ""), seed=spec.get("seed"),
                            description=spec.get("description", ""), symbols=syms,
                            transform=ns[spec["transform"]] if "transform" in spec else None,
                            continued=tuple(spec.get("continued", ())))

    def claim(self, cid: str, location: str, kind: str, statement: str, *, latex: str,
              check: Callable[[], Verdict], formulas: tuple = (), section: str = "",
              seed: str | None = None, note: str = "", artifact: dict | None = None,
              why_custom: str = "") -> Claim:
        """A claim with its own check function; ``why_custom`` says why no generic kind of
        derive.checkers carries it (it goes into the claim's record)."""
        c = Claim(id=f"{self.key}.{cid}", paper=self.key, source=self._src(location, section, seed),
                  kind=kind, statement=statement, printed_latex=latex, check_fn=check,
                  formulas=tuple(f"{self.key}.{x}" if not x.startswith(self.key + ".") else x
                                 for x in formulas), note=note, artifact=artifact,
                  why_custom=why_custom)
        return registry.add_claim(c)

    def custom(self, cid: str, location: str, kind: str, statement: str, **kw) -> Callable:
        """Decorator of a check function: ``claim(cid, ..., check=fn, **kw)``, registered where the
        function is defined (the paper's order)."""
        def register(fn):
            self.claim(cid, location, kind, statement, check=fn, **kw)
            return fn
        return register

    def drawn(self, cid: str, location: str, kind: str, statement: str, *, draws: dict,
              via: Callable | None = None, derived: Callable | None = None, **kw) -> Callable:
        """Decorator of ``draw(rng)``: a custom claim checked as "a relation over random draws"
        (``verify.check_draws``, or ``via``, called as ``via(draw, **draws)``), registered where it is
        defined (the paper's order); ``derived()`` is the verdict's derived formula; ``kw`` are
        ``claim``'s fields (latex, section, why_custom, ...)."""
        from .verify import check_draws
        run = via or check_draws

        def check(draw):
            v = run(draw, **draws)
            if derived is not None:
                v.derived = derived()
            return v

        def register(draw):
            self.claim(cid, location, kind, statement, check=lambda: check(draw), **kw)
            return draw
        return register

    def load(self, module_file: str, name: str | None = None) -> list[Claim]:
        """Register the claims of the claim file beside a section module (``sec2_3.py`` ->
        ``sec2_3.toml``, or ``name``): the TOML users write (docs/claim-files.md), with the paper's
        registered formulas as ``@name`` and the fields of ``claimfile.PAPER_FIELDS``."""
        from pathlib import Path
        from .claimfile import ClaimFile
        path = Path(module_file).with_name(name) if name else Path(module_file).with_suffix(".toml")
        cf = ClaimFile(path, paper=self.key)
        cf.register()
        return cf.claims

    def generic(self, cid: str, location: str, kind: str, statement: str, *, latex: str,
                params: tuple, conditions: tuple = (), formulas: tuple = (), section: str = "",
                seed: str | None = None, note: str = "", shown_kind: str | None = None,
                **fields) -> Claim:
        """A claim checked by the generic checker of ``kind`` (see the module docstring);
        ``fields`` are the kind's SymPy inputs (``kinds.check``'s keywords); ``shown_kind``
        is the paper's own word for the claim (derivative, convexity, ...) when it differs."""
        if kind not in kinds.KINDS:
            raise ValueError(f"{cid}: kind={kind!r} is not one of {', '.join(kinds.KINDS)}")
        dom = checkers.Domain([param_var(p) for p in params], tuple(conditions))
        definition = _stable(repr((kind, sorted((k, sp.srepr(v) if isinstance(v, sp.Basic) else repr(v))
                                                for k, v in fields.items()),
                                   [(p.name, str(p.domain), p.sample) for p in params],
                                   [sp.srepr(c) for c in conditions])))
        c = self.claim(cid, location, shown_kind or kind, statement, latex=latex,
                       check=lambda: checkers.describe_pairs(kinds.check(kind, dom, **fields),
                                                             checkers.pmf_pairs_in(fields)),
                       formulas=formulas,
                       section=section, seed=seed, note=note)
        c.checker, c.definition, c.spec = kind, definition, (kind, dom, fields)
        return c


#: the fields of a declared formula (``Paper.formulas``): those of ``Paper.formula``, by name
FORMULA_FIELDS = ("where", "latex", "parse", "continued", "role", "quantity", "lhs", "params", "section",
                  "seed", "description", "symbols", "parts", "hand", "hand_reason", "subs", "conditions",
                  "transform")


def _inline_param(spec: dict, ns: dict) -> Param:
    """``{ symbol = "q", domain = "(0, 1)", sample = ["loguniform", 1e-4, 0.2] }``: a parameter
    over the module's symbol of that name (``ns``), on an interval written as in claim files."""
    from .claimfile import parse_interval
    sym = next(v for v in ns.values() if isinstance(v, sp.Symbol) and v.name == spec["symbol"])
    return Param(sym, parse_interval(spec["domain"]), tuple(spec["sample"]))


def _sympy_names(ns: dict, params: tuple, syms: dict | None, parts: dict) -> dict:
    """The names a declared formula's SymPy strings use: the named functions of derive.functions,
    the symbols (by their names) of derive.symbols, of the paper's ``_paper`` module and of the
    module itself, the parser's symbol map, the parameters' symbols and the parsed parts, later ones
    taking precedence."""
    import importlib
    import importlib.util
    from . import functions as FN, symbols as S
    local: dict = {n: v for n, v in vars(FN).items() if isinstance(v, type) and issubclass(v, sp.Function)}
    pkg = ns.get("__package__") or ""
    paper = [importlib.import_module("._paper", pkg)] if pkg and importlib.util.find_spec("._paper", pkg) else []
    for mod in [S] + paper:                     # the paper's shared symbols (its package's _paper module)
        local.update({v.name: v for v in vars(mod).values() if isinstance(v, sp.Symbol)})
    local.update({v.name: v for v in ns.values() if isinstance(v, sp.Symbol)})
    for v in (syms or {}).values():
        if isinstance(v, sp.Symbol):
            local[v.name] = v
    local.update({p.symbol.name: p.symbol for p in params})
    local.update(parts)
    return local


def _sympy_of(text: str, local: dict, key: str):
    """A SymPy string of a declared formula; ``@{name}`` is the expression of the paper's formula."""
    refs = {}

    def ref(m):
        refs[f"REF{len(refs)}_"] = registry.FORMULAS[f"{key}.{m.group(1)}"].expr
        return f"REF{len(refs) - 1}_"
    body = re.sub(r"@\{([A-Za-z0-9_.]+)\}", ref, text)
    return sp.parse_expr(body, local_dict=dict(local, **refs))


_DUMMY_INDEX = re.compile(r"dummy_index=(-?\d+)")


def _stable(definition: str) -> str:
    """A definition's text with SymPy's Dummy indices (drawn at random in each process) numbered
    in order of appearance: the same claim has the same definition, hence the same verdict-cache
    key, in every process (a claim over derivatives carries Dummies)."""
    seen: dict[str, int] = {}
    return _DUMMY_INDEX.sub(lambda m: f"dummy_index={seen.setdefault(m.group(1), len(seen))}", definition)


def param_var(prm: Param) -> Var:
    """The search variable of a parameter: its stated domain, searched over the range of its
    sampling law (where the paper's regime lives) with the ends of that range probed."""
    import mpmath as mp
    dom = prm.domain
    lo = None if dom.start == -sp.oo else mp.mpf(sp.Float(dom.start, 40))
    hi = None if dom.end == sp.oo else mp.mpf(sp.Float(dom.end, 40))
    kind, *a = prm.sample
    integer = kind == "integer" or bool(prm.symbol.is_integer)
    if kind in ("uniform", "loguniform", "integer"):
        rng = (float(a[0]), float(a[1]))
    elif kind == "above":
        rng = (float(a[0]) + float(a[1]), float(a[0]) + float(a[2]))
    else:
        rng = None
    return Var(prm.name, prm.symbol, lo, hi, bool(dom.left_open), bool(dom.right_open), integer, rng)


def pmf_pair(name: str, points: int):
    """(params, pair) for a claim about every pair of pmfs on ``points`` points: the pair is
    ``Pmf(u_1..u_k, v_1..v_k)`` of ``derive.truths`` (softmax logits), each logit a parameter on
    the real line searched over [-4, 4] (probability ratios up to e^8 between points)."""
    syms = [sp.Symbol(f"{name}_{s}{i}", real=True) for s in "uv" for i in range(1, points + 1)]
    params = tuple(Param(x, sp.Interval(-sp.oo, sp.oo), ("uniform", -4.0, 4.0)) for x in syms)
    return params, sp.Function("Pmf")(*syms)


def load_errata(module_file: str) -> list[dict]:
    """A paper's errata groupings: the ``[[erratum]]`` tables of ``errata.toml`` beside the paper's
    ``errata.py`` (data, not code: key, claims, severity, title, printed/corrected, wrong/right,
    setting, explanation, and optionally corrected_check or correction_unchecked)."""
    import tomllib
    from pathlib import Path
    path = Path(module_file).with_suffix(".toml")
    return tomllib.loads(path.read_text(encoding="utf-8")).get("erratum", [])
