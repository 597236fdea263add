"""The machinery every kind of claim's checker shares (the checkers are ``derive.kinds``).

The claim's ``Domain``; its expressions as mpmath and float functions; the adversarial search
(``derive.search``) over the stated domain at ``SEARCH_DPS`` digits, with a float screen first
and the worst point confirmed at ``CONFIRM_DPS`` digits and shrunk to a short counterexample;
certificates in ball arithmetic (``derive.certify``) and proofs on boxes by interval
branch-and-bound; the terms in which a printed formula differs from the truth; and how a claim
over pmf pairs describes its pairs.  Each kind (``derive.kinds``) tries SymPy first and then
this search; where the truth can be derived, a failing verdict carries the corrected formula.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import mpmath as mp
import sympy as sp

from . import truths
from .core import Verdict
from .printing import plain
from .search import LazyProduct, Var, pull_in, shrink, worst_point
from .verify import _real, symbolic_zero

SEARCH_DPS = 30
CONFIRM_DPS = 50
#: named quantities (quadratures, root finding) are searched at fewer digits and the worst
#: point confirmed at more; a bound must miss the truth by more than 1e-15 relative to fail
TRUTH_SEARCH_DPS = 20
TRUTH_CONFIRM_DPS = 30
#: an identity holds when the worst relative error is below this (at CONFIRM_DPS digits)
IDENTITY_RTOL = mp.mpf(10) ** -25
#: an inequality is violated when lhs - rhs exceeds this relative slack
INEQ_RTOL = mp.mpf(10) ** -25
#: values below this in absolute terms count as zero when both sides are that small
ABS_FLOOR = mp.mpf(10) ** -40



@dataclass
class Domain:
    """The variables a claim quantifies over and its conditions (SymPy relations)."""

    vars: list[Var]
    conditions: tuple = ()
    _cond_fns: list = field(default_factory=list, repr=False)
    #: points the search tries first (name -> value: the extremal pairs of a [pairs] entry)
    seeds: tuple = ()

    def __post_init__(self):
        syms = [v.symbol for v in self.vars]
        self._cond_fns = [sp.lambdify(syms, c, modules=[truths.namespace(), "mpmath"]) for c in self.conditions]

    def where(self, pt: dict) -> bool:
        args = [pt[v.name] for v in self.vars]
        return all(bool(f(*args)) for f in self._cond_fns)

    @property
    def symbols(self):
        return [v.symbol for v in self.vars]

    def describe(self) -> str:
        s = ", ".join(v.describe() for v in self.vars)
        if self.conditions:
            s += "; " + ", ".join(str(c) for c in self.conditions)
        return s


# ----------------------------------------------------------------------------- evaluation
#: sums of at most this many terms are expanded before evaluation (``mp_function``)
SHORT_SUM = 100


def _sum_terms(v):
    """``v`` with every sum whose ends are integer-valued numbers (up to 10^5 terms) replaced by its value
    summed term by term in mpmath (evalf's Euler-Maclaurin on such sums could run for many minutes)."""
    for sm in sorted(v.atoms(sp.Sum), key=lambda e: sp.count_ops(e)):
        if len(sm.limits) != 1 or sm.free_symbols:
            continue
        k, a, b = sm.limits[0]
        try:
            a, b = float(a), float(b)
        except (TypeError, ValueError):
            continue
        if not math.isfinite(a) or a != int(a):
            continue
        term = sp.lambdify(k, sm.function, modules=[truths.namespace(), "mpmath"])
        if b == math.inf:
            total = _series_value(term, int(a))
            if total is None:
                raise ValueError("the series does not converge numerically at this point")
        elif b != int(b) or b - a > 10 ** 5:
            continue
        else:
            total = mp.fsum(term(mp.mpf(j)) for j in range(int(a), int(b) + 1))
        v = v.xreplace({sm: sp.Float(total, mp.mp.dps)})
    return v


def _series_value(term, a: int):
    """sum_{j >= a} term(j) in mpmath: ``mpmath.nsum`` (direct summation with Richardson / Shanks
    extrapolation) at the working precision and again at 10 more digits; the value when both agree to
    all but 5 digits (the method's error estimate), else None (the series is not settled here)."""
    vals = []
    for extra in (0, 10):
        with mp.workdps(mp.mp.dps + extra):
            try:
                vals.append(mp.nsum(lambda j: term(j), [a, mp.inf]))
            except (ZeroDivisionError, ValueError, OverflowError, TypeError, mp.libmp.NoConvergence):
                return None
    x, y = (_real(u) for u in vals)
    if x is None or y is None or abs(x - y) > mp.mpf(10) ** -(mp.mp.dps - 5) * max(1, abs(y)):
        return None
    return y


def _short_limits(lim) -> bool:
    """A summation range (k, a, b) with integer-valued numeric ends and fewer than SHORT_SUM terms."""
    if len(lim) != 3 or not (lim[1].is_number and lim[2].is_number):
        return False
    try:
        a, b = float(lim[1]), float(lim[2])
    except (TypeError, ValueError):
        return False
    return a == int(a) and b == int(b) and 0 <= b - a < SHORT_SUM


def mp_function(expr, dom: Domain, extended: bool = False) -> Callable[[dict], object]:
    """A function of a point (dict) evaluating ``expr`` in mpmath; ``None`` where it is
    not a finite real number (``extended``: +-inf are values too)."""
    if extended:
        plain = mp_function(expr, dom)
        fn_ext = sp.lambdify(dom.symbols, sp.sympify(expr), modules=[truths.namespace(), "mpmath"])
        names_ext = [v.name for v in dom.vars]

        def f_ext(pt):
            v = plain(pt)
            if v is not None:
                return v
            try:
                x = fn_ext(*[pt[n] for n in names_ext])
            except Exception:  # noqa: BLE001 - not a value here
                return None
            return x if isinstance(x, mp.mpf) and mp.isinf(x) else None
        return f_ext
    names = [v.name for v in dom.vars]
    expr = sp.sympify(expr)
    if expr.has(sp.Sum, sp.Product, sp.Integral):
        done = expr.doit()
        # a closed form, or one valid where its condition holds (SymPy's geometric series:
        # Piecewise((closed form, |tau| < 1), (the Sum, True))), which the point then decides
        if not done.has(sp.Sum, sp.Product, sp.Integral) or done.has(sp.Piecewise):
            expr = done
    syms = dom.symbols

    integers = {v.name for v in dom.vars if v.integer}

    def value(n, x):
        return sp.Integer(int(x)) if n in integers and x == int(x) else sp.Float(str(x), mp.mp.dps)

    def slow(pt):
        """SymPy's own arbitrary-precision evaluation (sums without a closed form, functions
        the mpmath printer does not know).  A short sum whose limits are integers at the point is
        expanded (up to SHORT_SUM terms: evalf's Euler-Maclaurin took minutes on a 30-term sum of
        products) and a longer one is left to evalf (exact expansion of thousands of rational terms
        is slower still)."""
        try:
            v = expr.xreplace({s: sp.Float(str(pt[n]), mp.mp.dps) for s, n in zip(syms, names)})
            if v.has(sp.Sum) and all(_short_limits(lim) for sm in v.atoms(sp.Sum) for lim in sm.limits):
                v = expr.xreplace({s: value(n, pt[n]) for s, n in zip(syms, names)}).doit()
            elif v.has(sp.Sum):
                v = _sum_terms(v)
            return _real(mp.mpmathify(sp.N(v, mp.mp.dps)))
        except (ZeroDivisionError, ValueError, OverflowError, TypeError, AttributeError):
            return None
    if expr.has(sp.Sum, sp.Product, sp.Integral):
        return slow
    fn = sp.lambdify(syms, expr, modules=[truths.namespace(), "mpmath"])

    def f(pt):
        try:
            return _real(fn(*[pt[n] for n in names]))
        except (ZeroDivisionError, ValueError, OverflowError):
            return None
        except (TypeError, NameError, AttributeError):
            return slow(pt)
    return f


def _rel(a, b):
    m = max(abs(a), abs(b))
    if m <= ABS_FLOOR:
        return mp.mpf(0)
    return abs(a - b) / m


def _params(pt: dict) -> dict:
    """The point as decimal strings: 10 significant digits, more where 10 would name another point
    (1.000000000003 is not 1.0, an end the domain may exclude); certificates are computed at
    exactly these decimals."""
    out = {}
    for k, v in pt.items():
        s = mp.nstr(v, 10)
        # rounded onto a short number (trailing zeros: 1.0, 0.25) that is not the point itself
        if isinstance(v, mp.mpf) and len(s.split("e")[0].replace("-", "").replace(".", "").strip("0")) < 10 \
                and mp.mpf(s) != v:
            for digits in (15, 20):
                s = mp.nstr(v, digits)
                if mp.mpf(s) == v:
                    break
        if s.endswith(".0") and "e" not in s:      # an integral point as a referee writes it: 10, not 10.0
            s = s[:-2]
        out[k] = s
    return out


def _search(violation, dom: Domain, *, budget: str = "normal", stop_at=None, seed: int = 2024,
            dps: int = SEARCH_DPS, screen=None, screen_points: int = 1024, floor=None):
    kw = {"normal": dict(n_random=48, starts=3, maxfev=60),
          "expensive": dict(n_random=16, starts=1, maxfev=24)}[budget]
    return worst_point(violation, dom.vars, where=dom.where, dps=dps, stop_at=stop_at,
                       seed=seed, screen=screen, screen_points=screen_points, floor=floor,
                       seeds=dom.seeds, **kw)


#: truths whose float path solves for a root or an optimum (a few ms a point): fewer float points
_SLOW_FLOAT = ("EpsOfDelta", "OptimalRdpEps", "OptimalRdpDelta", "OptimalRdpGamma")


def screen_points(*exprs) -> int:
    """How many random points the float screen evaluates: 1024, or 128 where a truth's float path is
    a root or optimum search (a fixed number: verdicts never depend on the machine's speed)."""
    from sympy.core.function import AppliedUndef
    names = {type(f).__name__ for e in exprs for f in sp.sympify(e).atoms(AppliedUndef)}
    return 128 if names & set(_SLOW_FLOAT) else 1024


# ----------------------------------------------------------------------------- float screening
def float_function(expr, dom: Domain):
    """``expr`` in floats (NumPy/SciPy printers, ``derive.truths_float`` for the named truths): a
    function of a point of Python floats returning a float, or None where floats cannot tell.  None
    (no function) when the expression has no float path (a truth without one, a symbolic sum)."""
    from . import truths_float
    expr = sp.sympify(expr)
    if expr.has(sp.Sum, sp.Product, sp.Integral, sp.Derivative) or not truths_float.has_float_path(expr):
        return None
    names = [v.name for v in dom.vars]
    try:
        fn = sp.lambdify(dom.symbols, expr, modules=[truths_float.namespace(), "scipy", "numpy"])
    except Exception:  # noqa: BLE001 - a printer that cannot print it: no float path
        return None
    import math as _m
    import warnings

    def f(pt):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                v = fn(*[pt[n] for n in names])
            v = complex(v)
        except (ZeroDivisionError, ValueError, OverflowError, TypeError, ArithmeticError,
                truths_float.NoFloatPath, AttributeError, NameError, RuntimeError):
            return None         # (RuntimeError: a float root that did not converge; mpmath decides there)
        if abs(v.imag) > 1e-12 * max(1.0, abs(v.real)) or not _m.isfinite(v.real):
            return None
        return v.real
    return f


def _float_screen(sides, combine):
    """The float violation: ``combine`` of the float values of ``sides`` (float functions, any None:
    no screen) at a point; None where a side is undefined."""
    if any(f is None for f in sides):
        return None

    def screen(pt):
        vals = [f(pt) for f in sides]
        if any(v is None for v in vals):
            return None
        return combine(pt, *vals)
    return screen


#: the float screen counts values below ABS_FLOOR as zero, as the mpmath violation does (else it ranks
#: first the points that mpmath then calls equal)
FLOAT_FLOOR = float(ABS_FLOOR)


def _frel(a, b):
    m = max(abs(a), abs(b))
    return 0.0 if m <= FLOAT_FLOOR else abs(a - b) / m


def _confirm(fn, pt):
    """``fn`` at ``CONFIRM_DPS`` and four times as many digits: the latter when the two agree
    to 1e-3 (or both say "no violation"), 0 when both vanish to their precision, else None (the
    point is numerically unstable)."""
    with mp.workdps(CONFIRM_DPS):
        a = fn(pt)
    with mp.workdps(4 * CONFIRM_DPS):
        b = fn(pt)
    if a is None or b is None:
        return None
    if abs(a) <= mp.mpf(10) ** (5 - CONFIRM_DPS) and abs(b) <= mp.mpf(10) ** (5 - 4 * CONFIRM_DPS):
        return mp.mpf(0)        # zero to the working precision at both: an equality (its sign is noise)
    if (a > 0) != (b > 0) or (b > 0 and abs(a - b) > mp.mpf(10) ** -3 * abs(b)):
        return None
    return b


def _method(symbolic: str, res) -> str:
    n = res.evaluations
    if res.screened:
        return (f"{symbolic}: not shown; adversarial search over the domain ({res.screened} points "
                f"screened in floats: ends, random, Nelder-Mead; the worst {n} at {SEARCH_DPS} digits), "
                f"confirmed at {CONFIRM_DPS}")
    return (f"{symbolic}: not shown; adversarial search over the domain (ends, {n} "
            f"point{'s' if n != 1 else ''}, Nelder-Mead from the worst) at {SEARCH_DPS} digits, "
            f"confirmed at {CONFIRM_DPS}")


# ----------------------------------------------------------------------------- certificates
def _certify(small, big, pt: dict, *, strict: bool = False, equal: bool = False):
    """Enclose ``small - big`` in ball arithmetic at the counterexample as reported (its decimal
    coordinates): ``derive.certify.certify_relation``."""
    from . import certify
    return certify.certify_relation(small, big, _params(pt), strict=strict, equal=equal)


def _tight_ball(expr, pt) -> bool:
    """``expr`` (the printed side) has a ball at the point with radius below 1e-20 of its midpoint."""
    from . import certify
    try:
        b = certify.enclose(expr, _params(pt))
    except Exception:           # NotEnclosable, or a part outside the enclosures
        return False
    return b.rad() <= abs(b.mid()) * mp.mpf(10) ** -20 + mp.mpf(10) ** -40


def _budget_record(gap, truth_value, budget_of, reason: str) -> tuple[bool, dict]:
    """Where no enclosure exists: the violation ``gap`` against the truth's stated error budget
    (rel |truth| + abs, ``derive.truths.ACCURACY``).  (violated, certificate record)."""
    rel, ab = budget_of
    budget = rel * abs(truth_value) + ab
    rec = {"method": "the truth's stated error budget (no ball enclosure)", "reason": reason,
           "violation": mp.nstr(gap, 6), "budget": mp.nstr(budget, 3),
           "budget_rule": f"|computed - true| <= {mp.nstr(rel, 2)} |true| + {mp.nstr(ab, 2)}"}
    return bool(gap > budget), rec


def _not_violated_note(cert) -> str:
    r = cert.record
    if "difference_ball" in r:
        return (f"the worst point the search found, {_fmt_point(r['point'])}, is not a violation in ball "
                f"arithmetic (difference {r['difference_ball']} at {r['precision_bits']} bits): the two "
                f"sides agree within the enclosure (a tight bound never fails by rounding)")
    return ""


def _fmt_point(point: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in point.items())


def _round_sig(x, k: int):
    return mp.mpf(mp.nstr(x, k)) if x != 0 else mp.mpf(0)


def _moderate(viol, dom: Domain, tol, dps: int, n: int = 32):
    """A violating point with moderate coordinates, as a referee would quote one: the middle of the
    search box (coordinates u in [-0.6, 0.6]) on a grid of values with two significant digits; among
    those that violate by at least half the largest (relative) violation there, the one nearest to
    magnitude 1 (None when none violates), the extent of the violation among the grid points
    evaluated (``extent_of``), and up to three other violating grid points, worst first (further
    candidates where the first point's balls blow up)."""
    import random as _random
    grid = (-0.6, -0.3, 0.0, 0.3, 0.6)
    # lazily (LazyProduct: the same tuples and samples; 7^8 tuples took seconds to list)
    combos = LazyProduct(grid, len(dom.vars))
    combos = _random.Random(5).sample(combos, n) if len(combos) > n else list(combos)
    # a second ring nearer the box's edges, looked at only when the middle has no violating point
    outer = LazyProduct(grid + (-0.9, 0.9), len(dom.vars), outer=len(grid))   # max |c| > 0.8
    outer = _random.Random(6).sample(outer, n) if len(outer) > n else list(outer)
    found, evaluated = [], 0
    for c in combos + [None] + outer:
        if c is None:
            if found:
                break
            continue
        with mp.workdps(dps):
            pt = {}
            for v, u in zip(dom.vars, c):
                x = _round_sig(v.value(u), 2)
                pt[v.name] = mp.nint(x) if v.integer else x
        if not all(v.contains(pt[v.name]) for v in dom.vars) or not _domain_ok(dom, pt):
            continue
        with mp.workdps(dps):
            try:
                val = viol(pt)
            except (ZeroDivisionError, ValueError, OverflowError, TypeError):
                val = None
        if val is not None:
            evaluated += 1
        if val is not None and val > tol:
            found.append((pt, val))
    extent = extent_of(len(found), evaluated)
    if not found:
        return None, extent, []
    # of the points that violate at least half as much as the worst of them, the one whose
    # coordinates are nearest to magnitude 1
    top = max(v for _, v in found)
    from .verify import magnitude
    best = min((p for p, v in found if v >= top / 2), key=magnitude)
    others = [p for p, _ in sorted(found, key=lambda t: -t[1]) if p is not best][:3]
    return best, extent, others


def extent_of(bad: int, evaluated: int) -> str:
    """Where on the domain a claim fails, from the spread points of ``_moderate``."""
    if evaluated == 0:
        return ""
    if bad >= 0.9 * evaluated:
        return f"everywhere on the domain ({bad} of {evaluated} spread points violate it)"
    if bad > 0:
        return f"on part of the domain ({bad} of {evaluated} spread points violate it)"
    return f"only near the domain's edge (none of {evaluated} spread points in its middle violates it)"


def _domain_ok(dom: Domain, pt: dict) -> bool:
    try:
        return bool(dom.where(pt))
    except (ZeroDivisionError, ValueError, TypeError, OverflowError):
        return False


# ----------------------------------------------------------------------------- proofs on boxes
#: sub-boxes a branch-and-bound proof may use per claim
BOX_BUDGET = 800


def search_box(dom: Domain):
    """The box the search explores ({name: (lo, hi)} decimal strings) and whether it is the whole stated
    domain; None when the domain has conditions (the box would need them too)."""
    if dom.conditions:
        return None
    box, whole = {}, True
    for v in dom.vars:
        if v.search is not None:
            lo, hi = (mp.mpf(x) for x in v.search)
            whole = whole and (v.lo is not None and v.hi is not None and lo <= v.lo and hi >= v.hi)
            if v.lo is not None:
                lo = max(lo, mp.mpf(v.lo))
            if v.hi is not None:
                hi = min(hi, mp.mpf(v.hi))
        elif v.lo is not None and v.hi is not None:
            lo, hi = mp.mpf(v.lo), mp.mpf(v.hi)
        elif v.lo is not None:
            lo, hi = mp.mpf(v.lo) + mp.mpf(10) ** -DECADES_BOX, mp.mpf(v.lo) + mp.mpf(10) ** DECADES_BOX
            whole = False
        elif v.hi is not None:
            lo, hi = mp.mpf(v.hi) - mp.mpf(10) ** DECADES_BOX, mp.mpf(v.hi) - mp.mpf(10) ** -DECADES_BOX
            whole = False
        else:
            lo, hi, whole = -mp.mpf(10) ** DECADES_BOX, mp.mpf(10) ** DECADES_BOX, False
        if not lo < hi:
            return None
        box[v.name] = (mp.nstr(lo, 15), mp.nstr(hi, 15))
    return box, whole


DECADES_BOX = 6


def _box_proof(small, big, dom: Domain, *, strict: bool = False, what: str = "") -> Verdict | None:
    """``small <= big`` (``<``) proved on the search box by interval branch-and-bound
    (``derive.certify.prove_on_box``): a ``proved`` verdict whose method states the box, or None."""
    from . import certify
    from sympy.core.function import AppliedUndef
    sb = search_box(dom)
    if sb is None or not dom.vars:
        return None
    used = {type(f).__name__ for e in (small, big) for f in sp.sympify(e).atoms(AppliedUndef)}
    if used & set(_SLOW_FLOAT):
        return None       # a root bracket over a box is never narrow enough to settle it: no attempt
    box, whole = sb
    centre = {v.name: mp.nstr((mp.mpf(box[v.name][0]) + mp.mpf(box[v.name][1])) / 2, 17) for v in dom.vars}
    try:                                          # a quick no: some part has no enclosure at all
        certify.enclose(sp.sympify(small) - sp.sympify(big), centre)
    except (certify.NotEnclosable, ValueError, ZeroDivisionError, TypeError, OverflowError):
        return None
    proof = certify.prove_on_box(small, big, box, strict=strict,
                                 integers={v.name for v in dom.vars if v.integer}, max_boxes=BOX_BUDGET)
    if proof is None:
        return None
    scope = "the whole stated domain" if whole else f"the search box of the stated domain {dom.describe()}"
    return Verdict("proved", f"{what}{proof.describe()} ({scope})")


# ----------------------------------------------------------------------------- differences
def _first_difference(a, b, depth: int = 0):
    """The smallest pair of subexpressions in which ``a`` and ``b`` differ when the rest of the two
    trees is the same (the misprinted term of a display), else (a, b).  Sums and products match
    their arguments as multisets: a term in both is set aside."""
    if a == b or depth > 40:
        return (a, b)
    if type(a) is type(b) and a.args and len(a.args) == len(b.args):
        if isinstance(a, (sp.Add, sp.Mul)):
            rest_a, rest_b = list(a.args), list(b.args)
            for x in list(rest_a):
                if x in rest_b:
                    rest_a.remove(x)
                    rest_b.remove(x)
            if len(rest_a) == len(rest_b) == 1:
                return _first_difference(rest_a[0], rest_b[0], depth + 1)
            return (a, b)
        differ = [i for i, (x, y) in enumerate(zip(a.args, b.args)) if x != y]
        if len(differ) == 1:
            i = differ[0]
            return _first_difference(a.args[i], b.args[i], depth + 1)
    return (a, b)


def _exact_floats(expr):
    """``expr`` with its floats as the rationals they print as (1.0 -> 1, 0.5 -> 1/2): a float beside
    an integer keeps two equal terms apart (Phi(-1.0 + x) - Phi(-1 + x) is not 0 to SymPy)."""
    expr = sp.sympify(expr)
    floats = expr.atoms(sp.Float)
    return expr.xreplace({f: sp.Rational(str(f)) for f in floats}) if floats else expr


def differing_terms(truth, printed) -> str:
    """A short description of how ``printed`` differs from ``truth``: the one subterm in which the
    two displays differ (when the rest is the same), the terms one sum has and the other lacks, or a
    constant factor."""
    truth, printed = _exact_floats(truth), _exact_floats(printed)
    try:
        tt, pp = _first_difference(truth, printed)
    except (TypeError, ValueError, sp.SympifyError):
        tt, pp = truth, printed
    if (tt, pp) != (truth, printed):
        text = f"the printed side has {plain(pp)} where the true one has {plain(tt)}"
        if len(text) <= NOTE_MATH_CHARS:
            return text
    t, p = sp.expand(truth), sp.expand(printed)
    try:
        ratio = sp.simplify(t / p)
        if ratio.is_number and ratio != 1:
            return f"differs by the constant factor {ratio} (true / printed)"
    except Exception:  # noqa: BLE001 - a description, never a verdict
        pass
    ta, pa = set(sp.Add.make_args(t)), set(sp.Add.make_args(p))
    missing, extra = ta - pa, pa - ta
    if 0 < len(missing) + len(extra) <= 6:
        parts = []
        if missing:
            parts.append("missing " + ", ".join(plain(m) for m in sorted(missing, key=sp.default_sort_key)))
        if extra:
            parts.append("extra " + ", ".join(plain(m) for m in sorted(extra, key=sp.default_sort_key)))
        text = "printed vs true: " + "; ".join(parts)
        if len(text) <= NOTE_MATH_CHARS:
            return text
    d = sp.simplify(t - p) if sp.count_ops(t - p) < 200 else t - p
    text = f"true - printed = {plain(d)}"
    if len(text) <= NOTE_MATH_CHARS:
        return text
    return ("true - printed has no short form (the printed and true sides differ inside a larger "
            "expression; compare them term by term)")


#: the longest formula a note quotes (a referee quotes the differing term, not a page of algebra)
NOTE_MATH_CHARS = 240


def constant_discrepancy(f_true, f_printed, dom: Domain, dps: int = CONFIRM_DPS) -> str:
    """When the printed side is off from the truth by a constant factor or a constant term
    (the same at three spread points of the domain), say which constant: the classic typo of
    a wrong constant.  Empty when it is not."""
    pts = []
    # spread points, each variable at its own coordinate (one u for all puts p = q on a diagonal
    # that a condition q < p excludes): a golden-ratio sequence per variable, the first three usable
    for k in range(12):
        pt = {v.name: v.value(((0.15 + 0.3 * k + 0.618034 * j) % 1.0) * 1.8 - 0.9) for j, v in enumerate(dom.vars)}
        if all(v.contains(pt[v.name]) for v in dom.vars) and dom.where(pt):
            pts.append(pt)
        if len(pts) == 3:
            break
    if len(pts) < 3:
        return ""
    with mp.workdps(dps):
        vals = [(f_true(pt), f_printed(pt)) for pt in pts]
        if any(a is None or b is None for a, b in vals):
            return ""
        tol = mp.mpf(10) ** -(dps // 2)
        # points at which the truth takes one value do not separate a factor from a term (a pmf pair's
        # three probe points are all P = Q, where a divergence is 0): no constant is named from them
        if all(abs(a - vals[0][0]) <= tol * max(1, abs(vals[0][0])) for a, _ in vals):
            return ""
        # a constant factor is a finite nonzero ratio with a nonzero printed side: a truth that
        # is identically 0 (or a printed side that dominates it) has ratio 0, which is no factor
        ratios = [a / b for a, b in vals if b != 0]
        if (len(ratios) == 3 and mp.isfinite(ratios[0]) and abs(ratios[0]) > tol
                and all(abs(r - ratios[0]) <= tol * abs(ratios[0]) for r in ratios) and abs(ratios[0] - 1) > tol):
            c = sp.nsimplify(float(ratios[0]), [sp.pi, sp.E, sp.sqrt(2)], tolerance=1e-12)
            if c == -1:
                return "the printed side has the wrong sign (the constant factor -1: true = -printed at three points)"
            return f"the printed side is off by the constant factor {plain(c)} (true / printed at three points)"
        diffs = [a - b for a, b in vals]
        if all(abs(d - diffs[0]) <= tol * max(1, abs(diffs[0])) for d in diffs) and abs(diffs[0]) > tol:
            c = sp.nsimplify(float(diffs[0]), [sp.pi, sp.E, sp.log(2)], tolerance=1e-12)
            return f"the printed side is off by the constant term {plain(c)} (true - printed at three points)"
    return ""


_NO_ENCLOSED_VIOLATION = ("the violation the search found is not confirmed in ball arithmetic (the "
                          "difference's enclosure contains 0, or blows up, at the points tried): not an erratum")


def _certified_point(worst_pt, viol, dom: Domain, bad, small, big, *, strict: bool = False,
                     equal: bool = False):
    """The counterexample to report and its certificate: a moderate violating point (``_moderate``)
    when there is one, else the worst point, each shrunk to few digits; the first whose violation
    ``small - big`` (or ``small != big``) is enclosed in ball arithmetic.  Where the sides have no
    enclosure, the confirmation at CONFIRM_DPS and 4x the digits stands (the record says so).
    (point, certificate record, extent), the record None when the enclosure shows no violation (the
    point is then the worst one); ``extent`` says on how much of the box the violation holds."""
    cands = []
    nice, extent, others = _moderate(viol, dom, IDENTITY_RTOL, SEARCH_DPS)
    for p in ([nice] if nice is not None else []) + others:
        if bad(p):
            cands.append(shrink(p, dom.vars, bad))
    if nice is None:            # the worst point, moved towards the middle while it violates
        cands.append(shrink(pull_in(worst_pt, dom.vars, bad), dom.vars, bad))
    cands.append(shrink(worst_pt, dom.vars, bad))
    undecided = None
    for pt in cands:
        cert = _certify(small, big, pt, strict=strict, equal=equal)
        if cert.status == "violated":
            return pt, cert.record, extent
        if cert.status == "undecided":
            undecided = undecided or {"unconfirmed": cert.record.get("reason", "the balls blow up"),
                                      "point": _params(pt)}
            continue            # balls blow up here (an ill-conditioned point): no verdict from it (mpmath at
            # two precisions can agree on a wrong value there: G_mu(G_mu(a)) at mu = 1e13 is 1 at any digits)
        if cert.status == "unavailable":
            return pt, {"method": f"mpmath at {CONFIRM_DPS} and {4 * CONFIRM_DPS} digits (no ball enclosure)",
                        "reason": cert.record.get("reason", ""), "point": _params(pt),
                        "budget_rule": "the violation agrees to 1e-3 at both precisions and exceeds 1e-25 relative"}, extent
        how = _exact_equal(small, big, pt) if strict else None
        if how is not None:
            return pt, {"method": how, "point": _params(pt), "difference": "0 (equality is attained)"}, extent
    # a violation mpmath sees at two precisions that no ball decides: not a failure, and not a pass
    return cands[-1], undecided, extent


def _unconfirmed(cert, method, res, worst) -> Verdict:
    """The verdict where the search's violation has no certificate: ``holds_numerically`` when the
    balls show no violation at every candidate (rounding in mpmath), else ``inconclusive`` (a
    violation was seen that ball arithmetic could not decide: never a pass)."""
    if cert is None:
        return Verdict("holds_numerically", method, points=res.evaluations, worst_error=float(max(worst, 0)),
                       precision=CONFIRM_DPS, note=_NO_ENCLOSED_VIOLATION)
    return Verdict("inconclusive", method, points=res.evaluations, precision=CONFIRM_DPS,
                   note=(f"the search found a violation (worst relative size {mp.nstr(worst, 3)}, at "
                         f"{_fmt_point(cert['point'])}) that ball arithmetic could not decide "
                         f"({cert['unconfirmed']}): neither a certified failure nor a pass"))


def _exact_equal(small, big, pt) -> str | None:
    """How ``small == big`` is shown exactly at the decimal point, or None: SymPy at the rational
    point, or (for hockey-stick divergences and TV of finite pairs) the finite sum those are on a
    neighbourhood of the point, its events decided in ball arithmetic, simplifying to 0."""
    d = sp.sympify(small) - sp.sympify(big)
    try:
        sub = {sp.Symbol(k): sp.Rational(v) for k, v in _params(pt).items()}
        at = d.xreplace({s: sub[sp.Symbol(s.name)] for s in d.free_symbols if sp.Symbol(s.name) in sub})
        if symbolic_zero(at):
            return "SymPy exact evaluation at the rational point"
    except Exception:  # noqa: BLE001 - a failed attempt decides nothing
        pass
    from . import certify
    try:
        form = certify.finite_form(d, _params(pt))
        if form is not None and symbolic_zero(form):
            return ("the finite pairs' divergences written as sums over their events (decided in ball "
                    "arithmetic at the point), the difference simplifies to 0 on its neighbourhood")
    except Exception:  # noqa: BLE001
        pass
    return None


def _tidy(expr):
    try:
        return sp.simplify(expr) if sp.count_ops(expr) < 150 else expr
    except Exception:  # noqa: BLE001
        return expr


def _base_pair(expr):
    """(name, base logits) of a pmf pair over logit coordinates ``name_u1..name_uk, name_v1..name_vk``
    (a pair, or a product of copies of it, whose entries are sums of those logits); None otherwise."""
    syms = sorted(expr.free_symbols, key=str)
    if not syms:
        return None
    name = str(syms[0]).rsplit("_", 1)[0]
    k = len(syms) // 2
    want = [f"{name}_u{i}" for i in range(1, k + 1)] + [f"{name}_v{i}" for i in range(1, k + 1)]
    if len(syms) % 2 or sorted(want) != [str(x) for x in syms]:
        return None
    by_name = {str(x): x for x in syms}
    return name, [by_name[w] for w in want]


def pair_name(expr) -> str:
    """A pmf pair as a referee names it: ``pq`` (its logits' prefix), or ``pq x pq`` for the
    product of two copies (points k^2 of a k-point pair)."""
    base = _base_pair(expr)
    if base is None:
        return "(P, Q)"
    name, coords = base
    k, points = len(coords) // 2, len(expr.args) // 2
    copies = round(math.log(points) / math.log(k)) if k > 1 and points > k else 1
    return " x ".join([name] * copies) if k ** copies == points else name


def truth_text(truth) -> str:
    """A truth expression in plain text with each pmf pair by its name (never its logits)."""
    from sympy.core.function import AppliedUndef
    truth = sp.sympify(truth)
    named = {}
    for f in truth.atoms(AppliedUndef):
        if type(f).__name__ in ("SupOverEvents", "HockeyStick") and len(f.args) == 2 \
                and type(f.args[0]).__name__ == "Pmf":
            named[f] = sp.Symbol(f"sup_A [P(A) - {plain(f.args[1])}·Q(A)] for (P, Q) = {pair_name(f.args[0])}")
    truth = truth.xreplace(named)
    pmfs = [f for f in truth.atoms(AppliedUndef) if type(f).__name__ == "Pmf"]
    return plain(truth.xreplace({f: sp.Symbol(pair_name(f)) for f in pmfs})) if pmfs else plain(truth)


def pair_description(truth) -> str:
    """What the distribution pairs named in a truth expression are (for counterexamples)."""
    from sympy.core.function import AppliedUndef
    pairs = [f for f in truth.atoms(AppliedUndef) if type(f).__name__ in truths.PAIRS]
    out = []
    for f in sorted(pairs, key=sp.default_sort_key):
        name = pair_name(f) if type(f).__name__ == "Pmf" else plain(f)
        if type(f).__name__ == "Pmf" and " x " in name:
            base = name.split(" x ")[0]
            out.append(f"{name}: the product of {name.count(' x ') + 1} copies of the pair {base} = (P, Q), "
                       f"P = softmax(u), Q = softmax(v) on {len(_base_pair(f)[1]) // 2} points")
        elif type(f).__name__ == "Pmf" and _base_pair(f) is not None:
            out.append(f"{name} = (P, Q), P = softmax(u), Q = softmax(v) of its logits u, v on "
                       f"{len(f.args) // 2} points")
        else:
            out.append(f"{name} with {truths.PAIRS[type(f).__name__][1]}")
    return "; ".join(out)


def describe_pairs(v: Verdict, pairs: dict) -> Verdict:
    """A counterexample over pmf pairs names the pmfs (P, Q) instead of their logits (its point, and
    the worst point found when that is reported too)."""
    ce = v.counterexample
    if not ce or not pairs or "params" not in ce:
        return v
    ce["params"] = _pmfs_for_logits(dict(ce["params"]), pairs)
    worst = ce.get("worst_point")
    if isinstance(worst, dict) and isinstance(worst.get("params"), dict):
        worst["params"] = _pmfs_for_logits(dict(worst["params"]), pairs)
    return v


def _pmfs_for_logits(params: dict, pairs: dict) -> dict:
    for name, expr in pairs.items():
        # the pair's coordinates: both pmfs' logits (the built-in papers), or u, d, s (a claim file's
        # [pairs] entry); a product of copies of a logit pair is told by the base pair's pmfs
        if not (all(isinstance(c, sp.Symbol) for c in expr.args)
                or any(str(c) == f"{name}_s" for c in expr.free_symbols)):
            base = _base_pair(expr)
            if base is not None and all(str(c) in params for c in base[1]):
                bname, coords = base
                with mp.workdps(30):
                    at = [mp.mpf(params.pop(str(c))) for c in coords]
                    pr = truths.pmf_pair(*at)
                params[bname] = ("([" + ", ".join(mp.nstr(x, 4) for x in pr.P) + "], ["
                                 + ", ".join(mp.nstr(x, 4) for x in pr.Q) + "])")
            continue
        coords = sorted(str(c) for c in expr.free_symbols)
        if not all(c in params for c in coords):
            continue
        with mp.workdps(30):
            at = {c: mp.mpf(params.pop(c)) for c in coords}
            pr = truths.pmf_pair(*[sp.lambdify(sorted(a.free_symbols, key=str), a, "mpmath")(
                *[at[str(x)] for x in sorted(a.free_symbols, key=str)]) for a in expr.args])
        params[name] = ("([" + ", ".join(mp.nstr(x, 8) for x in pr.P) + "], ["
                        + ", ".join(mp.nstr(x, 8) for x in pr.Q) + "])")
    return params


def pmf_pairs_in(fields: dict) -> dict:
    """{pair name: Pmf(...) expression} for the pmf pairs the fields of a claim use."""
    from sympy.core.function import AppliedUndef
    out = {}
    for v in fields.values():
        if isinstance(v, sp.Basic):
            for f in v.atoms(AppliedUndef):
                if type(f).__name__ == "Pmf" and f.args:
                    out[str(f.args[0]).rsplit("_", 1)[0]] = f
    return out
