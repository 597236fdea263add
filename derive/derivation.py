"""Derivations on request: a closed form dpderive derives instead of checking one the user states.

``derive(expr, ...)`` takes an expression (SymPy syntax, LaTeX, or ``@formula`` of a registered paper)
and, in this order, replaces the library quantities it names by closed forms derived from their
definitions (``Renyi(Laplace(m, b), alpha)``: the integral of p^alpha q^(1-alpha) split where the
densities' pieces change, each piece integrated by SymPy), differentiates (``wrt``, ``order``), takes a
limit (``limit=(x, x0, side)``) or a series (``series=(x, x0, n)``) and simplifies.  Each step is kept
(what was done, the expression after it), and the result is checked numerically against an
independent computation at random points of the parameters' domains, at 30 digits:

* a library quantity: the truths' own evaluation (quadrature of the definition, ``derive.truths``);
* a derivative: mpmath's numerical differentiation of the input;
* a limit: the input along x0 +- 10^-k (10^k for an infinite x0), which must approach the result;
* a series: the remainder f - s, which must shrink like (x - x0)^n (two distances, their ratio);
* a simplification: the input itself.

A check that fails or cannot be made says so; a derivation is never reported as confirmed without it.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

import mpmath as mp
import sympy as sp

from . import symbols as S
from .printing import plain
from .symbols import Param

DPS = 30

#: the domains of the library's symbols by name (random check points are drawn from them)
DOMAINS = {p.name: p for p in (S.ALPHA, S.EPS, S.DELTA, S.GAMMA, S.P, S.Q, S.SIGMA, S.RHO, S.TSTEPS, S.TAU,
                               S.MU)}
_POSITIVE = ("loguniform", 0.05, 20)


class DerivationError(ValueError):
    """A request dpderive cannot derive (its message names the part and why)."""


@dataclass
class Step:
    what: str
    expr: sp.Expr

    def latex(self) -> str:
        from .printing import latex
        return latex(self.expr)


@dataclass
class Derivation:
    request: str
    steps: list = field(default_factory=list)
    result: sp.Expr | None = None
    check: dict = field(default_factory=dict)     # status ("confirmed" | "fails" | "unchecked"), method, ...

    @property
    def confirmed(self) -> bool:
        return self.check.get("status") == "confirmed"

    def record(self) -> dict:
        from .printing import latex
        return {"request": self.request, "result": plain(self.result), "latex": latex(self.result),
                "steps": [{"what": s.what, "expr": plain(s.expr), "latex": s.latex()} for s in self.steps],
                "check": self.check}

    def text(self) -> str:
        lines = [f"request: {self.request}"]
        for i, s in enumerate(self.steps, 1):
            lines.append(f"  {i}. {s.what}: {plain(s.expr)}")
        lines.append(f"result: {plain(self.result)}")
        from .printing import latex
        lines.append(f"LaTeX: {latex(self.result)}")
        c = self.check
        lines.append(f"check: {c.get('status')}: {c.get('method', '')}"
                     + (f" (worst relative difference {c['worst']})" if c.get("worst") else ""))
        return "\n".join(lines)


# ----------------------------------------------------------------------------- pairs with densities
_x = sp.Symbol("x", real=True)


def _gaussian(mu, sigma=sp.Integer(1)):
    """P = N(0, sigma^2), Q = N(mu sigma, sigma^2) (the truths' ``Gaussian``): one piece, the
    log-densities."""
    s = sp.sympify(sigma)
    if s.is_positive is not True or sp.sympify(mu).is_real is not True:
        raise DerivationError(f"Gaussian({plain(mu)}, {plain(s)}): mu must be real and sigma positive")
    m = sp.sympify(mu) * s
    c = -sp.log(s) - sp.log(2 * sp.pi) / 2
    return [((-sp.oo, sp.oo), c - _x ** 2 / (2 * s ** 2), c - (_x - m) ** 2 / (2 * s ** 2))]


def _laplace(m, b=sp.Integer(1)):
    """P = Lap(0, b), Q = Lap(m, b), m > 0 (the truths' ``Laplace``): the log-densities on the pieces
    (-oo, 0), (0, m), (m, oo), where |x| and |x - m| are linear."""
    m, b = sp.sympify(m), sp.sympify(b)
    if m.is_positive is not True or b.is_positive is not True:
        raise DerivationError(f"Laplace({plain(m)}, {plain(b)}): the shift m and the scale b must be positive")
    c = -sp.log(2 * b)
    return [((-sp.oo, 0), c + _x / b, c + (_x - m) / b),
            ((0, m), c - _x / b, c + (_x - m) / b),
            ((m, sp.oo), c - _x / b, c - (_x - m) / b)]


PAIRS = {"Gaussian": _gaussian, "Laplace": _laplace}


def _integrate(integrand, lo, hi) -> sp.Expr:
    got = sp.integrate(integrand, (_x, lo, hi), conds="none")
    if got.has(sp.Integral):
        raise DerivationError(f"SymPy could not integrate {plain(integrand)} over ({plain(lo)}, {plain(hi)})")
    return got


def _pair_pieces(node) -> list:
    if not isinstance(node, sp.Function) or type(node).__name__ not in PAIRS:
        raise DerivationError(f"{plain(node)}: a closed form is derived for the pairs "
                              f"{', '.join(PAIRS)} (with symbolic densities)")
    return PAIRS[type(node).__name__](*node.args)


def _renyi(pair, a, steps):
    pieces = _pair_pieces(pair)
    parts = [_integrate(sp.exp(sp.expand(a * lp + (1 - a) * lq)), lo, hi) for (lo, hi), lp, lq in pieces]
    steps.append(Step(f"int p^{plain(a)} q^(1-{plain(a)}) dx over the densities' {len(pieces)} piece"
                      f"{'s' if len(pieces) > 1 else ''} (SymPy integrate)", sp.Add(*parts)))
    out = sp.log(_tidy(sp.Add(*parts))) / (a - 1)
    steps.append(Step(f"D_{plain(a)} = log(integral)/({plain(a)} - 1)", out))
    return out


def _kl(pair, steps):
    pieces = _pair_pieces(pair)
    parts = [_integrate(sp.expand(sp.exp(lp) * sp.expand(lp - lq)), lo, hi) for (lo, hi), lp, lq in pieces]
    steps.append(Step(f"int p log(p/q) dx over the densities' {len(pieces)} piece{'s' if len(pieces) > 1 else ''} "
                      "(SymPy integrate)", sp.Add(*parts)))
    return _tidy(sp.Add(*parts))


def _tidy(e):
    """The shortest of cheap rewrites and (on small expressions: a deterministic operation cap)
    ``simplify``, by SymPy's operation count."""
    cands = [e]
    for fn in (sp.expand, lambda z: sp.powsimp(sp.factor_terms(sp.expand(z)), force=True), sp.cancel):
        try:
            cands.append(fn(e))
        except Exception:  # noqa: BLE001 - a rewrite that fails is not a candidate
            pass
    if sp.count_ops(e) < 120:
        try:
            cands.append(sp.simplify(e))
        except Exception:  # noqa: BLE001
            pass
    return min(cands, key=lambda z: (sp.count_ops(z), len(str(z))))


CLOSED = {"Renyi": lambda node, steps: _renyi(node.args[0], node.args[1], steps),
          "KL": lambda node, steps: _kl(node.args[0], steps)}


ARITY = {"Renyi": (2, "Renyi(pair, alpha)"), "KL": (1, "KL(pair)"), "Gaussian": ((1, 2), "Gaussian(mu, sigma=1)"),
         "Laplace": ((1, 2), "Laplace(m, b=1)"), "LossCumulant": (2, "LossCumulant(pair, k), k = 1..4"),
         "SubsampledGaussian": (2, "SubsampledGaussian(q, sigma)"), "Swapped": (1, "Swapped(pair)")}


def _validate(expr):
    """Every library name in the request is one dpderive derives, with its arguments."""
    from sympy.core.function import AppliedUndef
    for f in expr.atoms(AppliedUndef):
        name = type(f).__name__
        if name not in ARITY:
            raise DerivationError(f"{name}: no closed form is derived for it; derived: Renyi(pair, alpha) and "
                                  f"KL(pair) of {', '.join(PAIRS)}, and the series in q of LossCumulant(pair, k) "
                                  f"of SubsampledGaussian(q, sigma) and its Swapped")
        want, sig = ARITY[name]
        if len(f.args) not in (want if isinstance(want, tuple) else (want,)):
            raise DerivationError(f"{plain(f)}: {name} takes {sig}")
        if name in CLOSED and not (isinstance(f.args[0], AppliedUndef) and type(f.args[0]).__name__ in PAIRS):
            raise DerivationError(f"{plain(f)}: the first argument must be a pair ({', '.join(PAIRS)})")
    bare = expr.xreplace({f: sp.Dummy() for f in expr.atoms(AppliedUndef) if type(f).__name__ in CLOSED
                          or type(f).__name__ == "LossCumulant"})
    for f in bare.atoms(AppliedUndef):
        raise DerivationError(f"{plain(f)} is a pair of distributions, not a number: ask for Renyi({plain(f)}, "
                              f"alpha) or KL({plain(f)})")


def _closed_forms(expr, steps) -> sp.Expr:
    from sympy.core.function import AppliedUndef
    nodes = sorted((f for f in expr.atoms(AppliedUndef) if type(f).__name__ in CLOSED), key=sp.default_sort_key)
    for node in nodes:
        # the densities' parameters and the orders are positive: SymPy integrates with that known,
        # and the result is written in the user's symbols again
        back = {sp.Symbol(s.name, positive=True): s for s in node.free_symbols if not s.is_positive}
        closed = CLOSED[type(node).__name__](node.xreplace({v: k for k, v in back.items()}), steps)
        expr = expr.xreplace({node: closed.xreplace(back)})
    return expr


# ----------------------------------------------------------------------------- privacy-loss cumulants
def _mixture_of(node):
    """(q, sigma, under_mixture) of ``SubsampledGaussian(q, sigma)`` (P = N(0, sigma^2), Q = the mixture
    (1 - q) N(0, sigma^2) + q N(1, sigma^2), as the truths define it) or of its ``Swapped`` (P = the mixture)."""
    swapped = type(node).__name__ == "Swapped"
    inner = node.args[0] if swapped else node
    if type(inner).__name__ != "SubsampledGaussian":
        raise DerivationError(f"{plain(node)}: LossCumulant is derived for SubsampledGaussian(q, sigma) and "
                              "Swapped(SubsampledGaussian(q, sigma))")
    return inner.args[0], inner.args[1], swapped


def _truncate(e, q, n):
    """The terms of ``e`` (a polynomial in q) of degree < n in q."""
    e = sp.expand(e)
    return sp.Add(*[t for t in sp.Add.make_args(e) if sp.degree(t, q) < n])


def _loss_cumulant_series(node, series, steps):
    """The k-th cumulant of the privacy loss L = log dP/dQ (X ~ P) of the subsampled Gaussian pair as
    its series in q to order n (the terms q^0 .. q^(n-1)): with Y = e^{(2x - 1)/(2 sigma^2)},
    dQ/dP = 1 + q (Y - 1) for P = N(0, sigma^2), so L = -+ sum_j (-1)^(j+1) q^j (Y - 1)^j / j; the moments
    of Y are Gaussian moment generating functions, E[Y^m] = e^{(m^2 - m)/(2 sigma^2)} under N(0, sigma^2)
    and e^{(m^2 + m)/(2 sigma^2)} under N(1, sigma^2); the cumulants follow from the moments."""
    pair, k = node.args
    qs, sig, under_mixture = _mixture_of(pair)
    if not (k.is_Integer and 1 <= int(k) <= 4):
        raise DerivationError(f"{plain(node)}: the order k must be 1, 2, 3 or 4")
    if series is None or series[0] != str(qs) or series[1] != 0:
        raise DerivationError(f"{plain(node)} has no closed form; ask for its series in {plain(qs)} at 0: "
                              f"--series {plain(qs)}=0:N")
    if not (isinstance(qs, sp.Symbol) and sig.is_positive):
        raise DerivationError(f"{plain(node)}: q must be a symbol and sigma positive")
    n, k = series[2], int(k)
    Y = sp.Symbol("Y", positive=True)
    sign = 1 if under_mixture else -1
    L = sign * sp.Add(*[(-1) ** (j + 1) * qs ** j * (Y - 1) ** j / j for j in range(1, n)])
    steps.append(Step(f"L = {'' if under_mixture else '-'}log(1 + q (Y - 1)), Y = e^((2x - 1)/(2 sigma^2)), "
                      f"expanded in q to order {n}", L))

    def ey(m):
        base = sp.exp((m * m - m) / (2 * sig ** 2))
        return (1 - qs) * base + qs * sp.exp((m * m + m) / (2 * sig ** 2)) if under_mixture else base

    moments = []
    for r in range(1, k + 1):
        poly = sp.Poly(_truncate(L ** r, qs, n), Y)
        mom = sp.Add(*[c * ey(m[0]) for m, c in zip(poly.monoms(), poly.coeffs())])
        moments.append(_truncate(mom, qs, n))
    steps.append(Step(f"E[L^r], r = 1..{k}, with E[Y^m] = " + ("(1 - q) e^((m^2 - m)/(2 sigma^2)) + q e^((m^2 + m)/"
                      "(2 sigma^2)) (X from the mixture)" if under_mixture else "e^((m^2 - m)/(2 sigma^2)) (X from "
                      "N(0, sigma^2))"), moments[-1]))
    m1, m2, m3, m4 = (moments + [0, 0, 0])[:4]
    kappa = {1: m1, 2: m2 - m1 ** 2, 3: m3 - 3 * m2 * m1 + 2 * m1 ** 3,
             4: m4 - 4 * m3 * m1 - 3 * m2 ** 2 + 12 * m2 * m1 ** 2 - 6 * m1 ** 4}[k]
    out = sp.collect(_truncate(kappa, qs, n), qs)
    steps.append(Step(f"kappa_{k} from the moments, to order {n} in {plain(qs)}", out))
    return out


# ----------------------------------------------------------------------------- parsing the request
def _namespace(names) -> dict:
    from . import functions
    from .truths.names import PAIRS as TP, QUANTITIES as TQ
    ns = {n: sp.Function(n) for n in list(TP) + list(TQ)}
    for n in ("Phi", "PhiInv", "LogPhi"):
        if hasattr(functions, n):
            ns[n] = getattr(functions, n)
    for n in names:
        ns[n] = sp.Symbol(n, positive=True)
    return ns


def parse_request(text: str):
    """(expr, params): an expression in SymPy syntax, LaTeX (a backslash), or ``@formula``, and the
    Params its symbols are drawn from (a formula's own, else the library's by name, else positive)."""
    text = (text or "").strip()
    if not text:
        raise DerivationError("EXPR='' is empty; give an expression, e.g. 'Renyi(Laplace(1, b), alpha)'")
    params = {}
    if text.startswith("@"):
        from . import registry
        name = text[1:]
        key = name.split(".", 1)[0]
        if key in registry.source_keys():
            registry.load_paper(key)
        try:
            f = registry.formula(name)
        except Exception:  # noqa: BLE001 - UnknownName: say it in one line
            raise DerivationError(f"EXPR={text!r} names no registered formula; `dpderive list` shows them") from None
        expr = f.expr
        params = {p.name: p for p in f.params}
    elif "\\" in text:
        from .parse import parse_printed
        try:
            expr = parse_printed(text)
        except Exception as exc:  # noqa: BLE001
            raise DerivationError(f"EXPR={text!r} is not LaTeX dpderive can read ({exc})") from None
    else:
        import re
        # a name not followed by "(" is a symbol (gamma, beta, E are DP symbols, not SymPy's functions)
        names = {m.group(1) for m in re.finditer(r"([A-Za-z_][A-Za-z_0-9]*)(?!\s*[A-Za-z_0-9(])", text)}
        names -= {"pi", "oo"}
        try:
            # parsed unevaluated first: 10**10**10 or factorial(10**9) would be computed by SymPy itself
            _refuse_huge_numbers(sp.sympify(text, locals=_namespace(names), evaluate=False), text)
            expr = sp.sympify(text, locals=_namespace(names))
        except (sp.SympifyError, SyntaxError, TypeError, ValueError) as exc:
            if isinstance(exc, DerivationError):
                raise
            why = ("it does not parse" if isinstance(exc, (sp.SympifyError, SyntaxError))
                   else str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
            raise DerivationError(f"EXPR={text!r} is not an expression in SymPy syntax ({why})") from None
    if not isinstance(expr, sp.Expr):
        raise DerivationError(f"EXPR={text!r} is not an expression (a relation or a boolean)")
    return expr, params


def _refuse_huge_numbers(expr, text: str) -> None:
    """DerivationError for a power or factorial of numbers SymPy would compute while parsing
    (``derive.parse.huge_number``)."""
    from .parse import MAX_DIGITS, huge_number
    got = huge_number(expr)
    if got is not None:
        raise DerivationError(f"EXPR={text!r}: {plain(got[0])} has about {mp.nstr(got[1], 3)} digits, more than "
                              f"the {MAX_DIGITS} a request may compute")


def _param(sym, params: dict) -> Param:
    if sym.name in params:
        return params[sym.name]
    if sym.name in DOMAINS:
        d = DOMAINS[sym.name]
        return Param(sym, d.domain, d.sample)
    return Param(sym, sp.Interval.open(0, sp.oo), _POSITIVE)


# ----------------------------------------------------------------------------- the derivation
def parse_point(flag: str, text: str, with_order: bool) -> tuple:
    """``x=a`` (a limit; ``x=a-`` from below) or ``x=a:n`` (a series): (name, a, side or n)."""
    form = "x=a:n, e.g. alpha=1:3" if with_order else "x=a, x=a- (from below) or x=oo, e.g. alpha=1"
    name, eq, rest = (text or "").partition("=")
    if not eq or not name.strip().isidentifier():
        raise DerivationError(f"{flag}={text!r} must read {form}")
    point, order = (rest.split(":", 1) + [""])[:2] if with_order else (rest, "")
    side = "+"
    if not with_order and point.endswith(("-", "+")) and point.strip() not in ("-oo", "+oo"):
        point, side = point[:-1], point[-1]
    try:
        x0 = sp.sympify(point.strip().replace("inf", "oo"))
    except (sp.SympifyError, SyntaxError, TypeError, ValueError):
        x0 = None
    if x0 is None or not (x0.is_number and (x0.is_finite or x0 in (sp.oo, -sp.oo))) or x0.is_real is False:
        raise DerivationError(f"{flag}={text!r}: the point must be a real number or oo (read {form})")
    if with_order:
        if not order.strip().isdigit() or not 1 <= int(order) <= 12:
            raise DerivationError(f"{flag}={text!r}: the order n must be an integer in [1, 12] (read {form})")
        return name.strip(), x0, int(order)
    return name.strip(), x0, side


def derive(text: str, *, wrt: str | None = None, order: int = 1, limit: tuple | None = None,
           series: tuple | None = None, points: int = 4, seed: int = 1) -> Derivation:
    """Derive what the request asks (see the module docstring); raises DerivationError with a
    one-line reason where it cannot."""
    expr, params = parse_request(text)
    return derive_expr(expr, request=text, params=params, wrt=wrt, order=order, limit=limit, series=series,
                       points=points, seed=seed)


def derive_expr(expr, *, request: str = "", params: dict | None = None, draws: list | None = None,
                wrt: str | None = None, order: int = 1, limit: tuple | None = None, series: tuple | None = None,
                points: int = 4, seed: int = 1) -> Derivation:
    """``derive`` on a parsed expression; ``draws`` (points: name -> value) replace the random check
    points drawn from ``params`` (a claim file's domain draws them)."""
    params = dict(params or {})
    if not isinstance(order, int) or isinstance(order, bool) or order < 1 or order > 12:
        raise DerivationError(f"--order={order!r} must be an integer in [1, 12]")
    _validate(expr)
    d = Derivation(request=request or plain(expr), steps=[Step("the expression", expr)])
    syms = {s.name: s for s in expr.free_symbols}

    def sym(name, flag):
        if name not in syms:
            raise DerivationError(f"{flag}={name!r} is not a symbol of the expression "
                                  f"(its symbols: {', '.join(sorted(syms)) or 'none'})")
        return syms[name]

    cur = _closed_forms(expr, d.steps) if _has_closed(expr) else expr
    truth = expr                                  # what the check evaluates independently
    kind = "closed form" if cur is not expr else "simplification"
    from sympy.core.function import AppliedUndef
    cums = [f for f in cur.atoms(AppliedUndef) if type(f).__name__ == "LossCumulant"]
    if cums:
        if wrt is not None or limit is not None:
            raise DerivationError("LossCumulant: only its series in q is derived (no --wrt or --limit)")
        cur = cur.xreplace({f: _loss_cumulant_series(f, series, d.steps) for f in cums})
        simple = _tidy(cur)
        d.result = simple
        d.check = _check(truth, simple, ("series", sym(series[0], "--series"), series[1], series[2], kind),
                         {**params, "sigma": Param(S.sigma, sp.Interval.open(0, sp.oo), ("loguniform", 0.8, 5))},
                         points, seed, draws)
        return d
    if wrt is not None:
        x = sym(wrt, "--wrt")
        cur = sp.diff(cur, x, order)
        d.steps.append(Step(f"d^{order}/d{x}^{order}" if order > 1 else f"d/d{x}", cur))
        kind = ("derivative", x, order)
    if limit is not None:
        x = sym(limit[0], "--limit")
        x0, side = limit[1], limit[2]
        got = sp.limit(cur, x, x0, side)
        if got.has(sp.Limit):
            raise DerivationError(f"SymPy could not take the limit {x} -> {x0}")
        cur = got
        d.steps.append(Step(f"limit {x} -> {plain(x0)}{'' if x0 in (sp.oo, -sp.oo) else side}", cur))
        kind = ("limit", x, x0, side, kind)
    if series is not None:
        x = sym(series[0], "--series")
        x0, n = series[1], series[2]
        got = sp.series(cur, x, x0, n).removeO()
        cur = got
        d.steps.append(Step(f"series in {x} at {plain(x0)} to order {n} (the O-term dropped)", cur))
        kind = ("series", x, x0, n, kind)
    simple = _tidy(cur)
    if simple != cur:
        d.steps.append(Step("simplified (SymPy)", simple))
    d.result = simple
    d.check = _check(truth, d.result, kind, params, points, seed, draws)
    return d


def _has_closed(expr) -> bool:
    from sympy.core.function import AppliedUndef
    return any(type(f).__name__ in CLOSED for f in expr.atoms(AppliedUndef))


def _evaluator(expr, params):
    """An mpmath function of a point (name -> mpf): the truths' own numerical evaluation of the
    quantities and pairs the expression names (``derive.truths``: quadrature or exact sums of their
    definitions), mpmath for the rest."""
    from .truths.names import namespace
    names = sorted(expr.free_symbols, key=lambda s: s.name)
    fn = sp.lambdify(names, expr, modules=[namespace(), "mpmath"])
    return lambda pt: fn(*[pt[s.name] for s in names])


def _rel(a, b):
    a, b = mp.mpf(a), mp.mpf(b)
    return abs(a - b) / max(abs(a), abs(b), mp.mpf(10) ** -DPS)


def _check(truth, result, kind, params, points, seed, draws=None) -> dict:
    from .verify import sample_points
    syms = sorted(truth.free_symbols | result.free_symbols, key=lambda s: s.name)
    prm = [_param(s, params) for s in syms]
    pts = draws if draws is not None else (sample_points(prm, points, seed=seed) if prm else [{}])
    if not pts:
        return {"status": "unchecked", "method": "no random point of the parameters' domains"}
    f, r = _evaluator(truth, params), _evaluator(result, params)
    worst, used = mp.mpf(0), 0
    what = kind if isinstance(kind, str) else kind[0]
    with mp.workdps(DPS):
        for pt in pts:
            try:
                if what in ("closed form", "simplification"):
                    err = _rel(f(pt), r(pt))
                    tol = mp.mpf(10) ** -15
                elif what == "derivative":
                    _, x, n = kind
                    g = lambda t: f({**pt, x.name: t})  # noqa: E731
                    err = _rel(mp.diff(g, pt[x.name], n), r(pt))
                    tol = mp.mpf(10) ** -10
                elif what == "limit":
                    _, x, x0, side, _ = kind
                    vals = []
                    for k in (4, 8):
                        t = (mp.mpf(10) ** k) if x0 == sp.oo else (mp.mpf(x0) + (1 if side == "+" else -1)
                                                                    * mp.mpf(10) ** -k)
                        vals.append(f({**pt, x.name: t}))
                    target = r(pt)
                    e4, e8 = abs(vals[0] - target), abs(vals[1] - target)
                    err = e8 / max(abs(target), 1)
                    tol = mp.mpf(10) ** -5
                    if not e8 <= e4 + mp.mpf(10) ** -(DPS - 5):
                        err = max(err, mp.mpf(1))
                else:  # series
                    _, x, x0, n, _ = kind
                    rem = []
                    for t in (mp.mpf(10) ** -3, mp.mpf(10) ** -4):
                        xv = mp.mpf(x0) + t
                        rem.append(abs(f({**pt, x.name: xv}) - r({**pt, x.name: xv})))
                    # the remainder is O(t^n): from t = 1e-3 to 1e-4 it falls by >= 10^(n - 1/2)
                    err = rem[1] * mp.mpf(10) ** (n - mp.mpf(1) / 2) / max(rem[0], mp.mpf(10) ** -(DPS - 2))
                    err = mp.mpf(0) if err <= 1 or rem[1] < mp.mpf(10) ** -(DPS - 5) else err
                    tol = mp.mpf(1)
            except (ZeroDivisionError, ValueError, TypeError, OverflowError):
                continue
            used += 1
            worst = max(worst, err)
            if err > tol:
                return {"status": "fails", "method": _method(what), "point": {k: mp.nstr(v, 8) for k, v in pt.items()},
                        "worst": mp.nstr(err, 3)}
    if used == 0:
        return {"status": "unchecked", "method": _method(what) + ": no point gave a real value"}
    return {"status": "confirmed", "method": f"{_method(what)} at {used} random point{'s' if used > 1 else ''} "
                                             f"of the parameters' domains, {DPS} digits",
            "worst": mp.nstr(worst, 3) if worst else ""}


def _method(what: str) -> str:
    return {"closed form": "against the truths' own evaluation of the quantity (quadrature of its definition)",
            "simplification": "against the expression as given",
            "derivative": "against mpmath's numerical derivative of the expression",
            "limit": "against the expression along x0 + 10^-4, 10^-8 (10^4, 10^8 for an infinite x0)",
            "series": "the remainder against (x - x0)^n at distances 1e-3 and 1e-4"}[what]
