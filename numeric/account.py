"""Accounting a composition of events (``numeric.events``) by a chosen route, the
tightest certified answer by default.

* ``epsilon(events, delta)`` / ``delta(events, eps)``: one ``AccountingResult`` whose flat
  record (``to_dict()``) carries ``epsilon`` (or ``delta``), ``epsilon_lower``,
  ``epsilon_upper``, ``route``, ``method`` and ``guarantee``.
* ``table(events, name, at)``: one row per applicable route (lower, upper, approximation,
  seconds); routes that cannot account the events give a row with their reason.
* ``calibrate(make_events, target_eps, delta, param, lo, hi)``: the noise (sigma or Laplace
  scale: smallest), or randomized response's epsilon, the number of steps / the batch size
  (largest) meeting a target.

Routes are objects (``ROUTES``: ``RDPRoute``, ``PLDRoute``, ``ApproximationRoute`` for clt and
edgeworth): each gives the bounds of a profile value, its certified upper end of epsilon alone
(the calibration's search) and its ``table`` row, and raises ``RouteError`` for events it does
not support; the mechanisms say what they can give each route (``numeric.mechanism``).

``method``: ``best`` (default) reports the smallest certified upper bound among the
``rdp`` and ``pld`` routes (and, for compositions of unsubsampled Gaussians, the exact
closed-form profile, route ``exact``) with the tightest certified lower bound; ``rdp`` / ``pld`` one
route (``pld`` hands the upper end to ``rdp`` and says so when its own is not finite:
its floating-point error bound exceeded delta); ``clt`` / ``edgeworth`` approximations,
labelled ``guarantee: false``.

Extremes: a route that fails numerically (overflow, no convergence, a value its own checks
reject) is left out with a note; with no finite certified bound left, ``epsilon`` answers inf
(route ``none``, ``extras["finite"] = False``) and ``delta`` 1 (route ``trivial``), stated so.
Bounded-loss events (Laplace, RR) also have the pure-DP bound (route ``pure``: sum of T_i eps_i,
delta = 0 beyond it); Gaussians beyond mu = 1e150 have eps(delta) > mu^2/4 (beyond doubles).
User errors raise ``numeric.errors.UserInputError``; a calibration whose answer lies beyond
its range ``SearchLimitError``.
"""
from __future__ import annotations

import abc
import functools
import math
import time

import numpy as np

from derive.errors import DomainError

from . import events as EV
from .accountant import AccountingResult
from .errors import SearchLimitError, UserInputError, user_input

__all__ = ["METHODS", "epsilon", "delta", "table", "calibrate", "min_sigma2", "profile"]

METHODS = ("best", "rdp", "pld", "clt", "edgeworth")
#: delta(eps) is non-increasing in eps: beyond this eps the certified routes are asked at it
#: (a sound upper bound; the routes' solvers are not built for eps ~ 1e300)
EPS_CAP = 1e4
#: the PLD route's range (``numeric.events.pld_screen``): bounded per-step losses and noise
#: multipliers outside it go to the other routes
PLD_MAX_LOSS, PLD_MIN_LOSS, NOISE_RANGE = EV.PLD_MAX_LOSS, EV.PLD_MIN_LOSS, EV.NOISE_RANGE
#: what a route may fail with on valid input at extreme magnitudes (the answer then falls to
#: the other routes, or to the trivial bound epsilon = inf / delta = 1, stated as such)
NUMERIC_FAILURES = (ArithmeticError, FloatingPointError, MemoryError)


def integer_bisect(f, target, good, bad):
    """Bisection over integers in log x: ``good`` meets ``f(x) <= target``, ``bad`` does not
    (either may be the larger); returns the two adjacent integers (good, bad) that end it.  The
    geometric midpoint (ends spanning up to 1e9 steps) reaches the usual answers in fewer
    evaluations; the arithmetic one where the geometric one does not move."""
    while abs(good - bad) > 1:
        mid = math.sqrt(good * bad)
        mid = math.floor(mid) if good < bad else math.ceil(mid)
        if not min(good, bad) < mid < max(good, bad):
            mid = (good + bad) // 2 if good < bad else -((-good - bad) // 2)
        if f(mid) <= target:
            good = mid
        else:
            bad = mid
    return good, bad


def _resource_limit(exc) -> bool:
    """NumPy's array-size limits (a lattice too large to allocate: a route's resource limit,
    like MemoryError, not a wrong answer)."""
    return isinstance(exc, MemoryError) or (
        type(exc) is ValueError and str(exc).startswith(("Maximum allowed size", "Maximum allowed dimension")))
CERTIFIED = ("rdp", "pld")
SKIP_RDP_GAP = 1e-3      # best: rdp is skipped when PLD's bracket is this narrow (relative)
PLD_CITATION = ("privacy-loss distribution, pessimistic and optimistic discretisation "
                "(certified bracket; numeric.pld)")


def _check_method(method):
    if not isinstance(method, str) or method not in METHODS + ("all",):
        raise UserInputError("method", method, "one of " + ", ".join(METHODS + ("all",)))


def _check_conversion(conversion):
    """``conversion`` under its current name, or ``UserInputError`` naming the choices."""
    from .accountant import CONVERSIONS, canonical_conversion
    conversion = canonical_conversion(conversion)
    if not isinstance(conversion, str) or conversion not in CONVERSIONS:
        raise UserInputError("conversion", conversion, "one of " + ", ".join(CONVERSIONS))
    return conversion


def _real(name: str, value) -> float:
    """``value`` as a float if it is one real number (int, float or a NumPy scalar; not a bool,
    a string or a sequence), else ``UserInputError`` naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise UserInputError(name, value, "one real number (a float; not a "
                             f"{type(value).__name__})")
    return float(value)


def _rdp(events, name, at, neighbouring, conversion="optimal"):
    from . import accountant
    curve = EV.rdp_curve(events, neighbouring)
    r = EV.profile_of(accountant, name)(curve, at, conversion)
    return r


def _pld(events, name, at, neighbouring):
    _pld_screen(events)
    acc = EV.pld_accountant(events, neighbouring)
    lo, hi = EV.profile_of(acc, name)(at)
    lo, hi = float(np.max(lo)), float(np.max(hi))
    if name == "delta":
        hi = min(hi, 1.0)
    return lo, hi, acc


EXACT_CITATION = ("exact privacy profile of the Gaussian mechanism (Balle and Wang 2018; Asoodeh et al. 2021, eq. (40) "
                  "generalised): T Gaussian steps without subsampling compose to one Gaussian with "
                  "mu = sqrt(sum T_i Delta_i^2 / sigma_i^2); numeric.gaussian, rounded up")


def _gaussian_mu(events):
    """mu of the composition when every event is an unsubsampled Gaussian (else None); inf
    when mu exceeds the largest double (computed scaled: no overflow on the way)."""
    noise = [e.mechanism.gaussian_noise() if e.sampling is None else None for e in events]
    if any(n is None for n in noise):
        return None
    r = [d / s for s, d in noise]
    top = max(r)
    if not math.isfinite(top):
        return math.inf
    if top == 0:
        return 0.0
    return top * math.sqrt(math.fsum(e.count * (x / top) ** 2 for e, x in zip(events, r)))


#: beyond this mu the exact profile's solvers leave the double range; there
#: eps(delta) > mu^2 / 4 for every double delta < 1 (delta(mu^2/4) = Phi(mu/4) -
#: e^{mu^2/4} Phi(-3 mu/4) = 1 - O(e^{-mu^2/32}))
MU_MAX = 1e150


def _pure(events) -> float:
    """The composition's pure-DP epsilon (basic composition, sum T_i eps_i; rounded up): a
    certified upper bound on eps(delta) for every delta, and delta(eps) = 0 from it on."""
    total = math.fsum(e.count * e.pure_epsilon() for e in events)
    return math.nextafter(total * (1 + 1e-15), math.inf) if math.isfinite(total) else math.inf


def _exact(events, name, at):
    """(lower, upper) of the exact Gaussian profile: the upper end certified by numeric.gaussian
    (float-error allowance, rounded up) at mu rounded up; the lower end at mu rounded down,
    less 1e-9 relative (the exact value lies between)."""
    from . import gaussian as G
    mu = _gaussian_mu(events)
    mu_hi, mu_lo = mu * (1 + 4e-16), mu * (1 - 4e-16)
    if mu > MU_MAX:                     # see MU_MAX: eps beyond mu^2/4, delta(eps) -> 1
        if name == "epsilon":
            return min(mu_lo * mu_lo / 4 * (1 - 1e-12), 1.7976931348623157e308), math.inf
        return 0.0, 1.0
    if name == "delta" and at > mu * (mu / 2 + 40):
        # delta(eps) <= Phi(mu/2 - eps/mu) < e^{-800} here (underflows): delta is
        # non-increasing in eps, so its certified value at mu (mu/2 + 40) bounds it above
        return 0.0, min(float(G.delta_upper(mu * (mu / 2 + 40), mu_hi)), 1.0)
    if name == "epsilon":
        upper = float(G.eps_exact(at, 1.0 / mu_hi))
        lower = float(G.eps_exact(at, 1.0 / mu_lo)) * (1 - 1e-9)
        return max(lower, 0.0), upper
    upper = float(G.delta_upper(at, mu_hi))
    lower = float(np.exp(G.log_delta_exact(at, mu_lo))) * (1 - 1e-9)
    return max(lower, 0.0), min(upper, 1.0)


def _approx(events, name, at, method):
    from . import methods
    if len(events) != 1 or events[0].mechanism.gaussian_noise() is None or \
            getattr(events[0].sampling, "neighbouring", "add_remove") != "add_remove":
        raise EV.RouteError(method, EV.describe(events), "the approximations cover one "
                            "(Poisson-subsampled) Gaussian event only")
    e = events[0]
    sigma, sens = e.mechanism.gaussian_noise()
    s = sigma / sens
    if not NOISE_RANGE[0] <= s <= NOISE_RANGE[1]:
        raise EV.RouteError(method, EV.describe(events), f"noise multiplier sigma/sensitivity = "
                            f"{s:.6g} outside [{NOISE_RANGE[0]:g}, {NOISE_RANGE[1]:g}] (the "
                            "approximation's range)")
    try:
        res = EV.profile_of(methods, name)(sigma, e.rate, e.count, at, sens, method)
        degenerate = math.isnan(res.value)      # the CLT's mu = 0/0 where the cumulants underflow
    except DomainError as exc:
        if exc.name != "kappa_2":               # outside the approximation's own range (its quadrature)
            raise EV.RouteError(method, EV.describe(events), str(exc)) from exc
        degenerate = True                       # Edgeworth: the loss variance is 0 in floats
    if degenerate:
        raise EV.RouteError(method, EV.describe(events), "the privacy loss's variance underflows "
                            f"to 0 in double precision at sampling rate {e.rate:g} (the "
                            "approximation is degenerate there; the certified routes, --method "
                            "best or pld, answer)")
    return res


# ----------------------------------------------------------------------------- routes
class Route(abc.ABC):
    """An accounting route (``numeric.events``): its ``name``, whether its answer is
    ``certified``, ``bounds`` of a profile value (raising ``RouteError`` for events it does not
    support, like every route), the certified upper end of epsilon alone (``epsilon_upper``,
    the calibration's search) and its row of ``table``."""
    name = ""
    certified = True

    @abc.abstractmethod
    def bounds(self, events, name, at, neighbouring, conversion="optimal"):
        """(lower or None, upper (an approximation's value), the route's own result)."""

    def epsilon_upper(self, events, delta_, neighbouring, conversion="optimal") -> float:
        return self.bounds(events, "epsilon", delta_, neighbouring, conversion)[1]

    @abc.abstractmethod
    def row(self, events, name, at, neighbouring) -> dict:
        """The route's row of ``table`` (its epsilon or delta, bracket and timing)."""


class RDPRoute(Route):
    """RDP curves composed additively, the exact optimal conversion (upper bound only)."""
    name = "rdp"

    def bounds(self, events, name, at, neighbouring, conversion="optimal"):
        res = _rdp(events, name, at, neighbouring, conversion)
        return None, res.value, res

    def row(self, events, name, at, neighbouring):
        res = _rdp(events, name, at, neighbouring)
        return {"route": self.name, "lower": None, "upper": res.value, "approximation": None,
                "guarantee": True}


class PLDRoute(Route):
    """The privacy-loss distribution's certified bracket."""
    name = "pld"

    def bounds(self, events, name, at, neighbouring, conversion="optimal"):
        return _pld(events, name, at, neighbouring)

    def epsilon_upper(self, events, delta_, neighbouring, conversion="optimal"):
        """the pessimistic side alone: half the work"""
        _pld_screen(events)
        return float(np.max(EV.pld_accountant(events, neighbouring, "upper").epsilon(delta_)[1]))

    def row(self, events, name, at, neighbouring):
        lo, hi, _ = _pld(events, name, at, neighbouring)
        row = {"route": self.name, "lower": lo, "upper": hi if math.isfinite(hi) else None,
               "approximation": None, "guarantee": True}
        if not math.isfinite(hi):
            row["note"] = "upper bound not finite (floating-point error bound exceeds the target)"
        return row


class ApproximationRoute(Route):
    """``clt`` / ``edgeworth``: an approximation, no guarantee (``numeric.methods``)."""
    certified = False

    def __init__(self, name):
        self.name = name

    def bounds(self, events, name, at, neighbouring, conversion="optimal"):
        res = _approx(events, name, at, self.name)
        return None, res.value, res

    def row(self, events, name, at, neighbouring):
        res = _approx(events, name, at, self.name)
        ok = math.isfinite(res.value)
        row = {"route": self.name, "lower": None, "upper": None,
               "approximation": res.value if ok else None, "guarantee": False}
        if not ok:
            row["note"] = "the approximation is not finite here"
        return row


#: the routes by name, in ``numeric.events.ROUTES`` order
ROUTES = {r.name: r for r in (RDPRoute(), PLDRoute(), ApproximationRoute("clt"),
                              ApproximationRoute("edgeworth"))}
assert tuple(ROUTES) == EV.ROUTES


def _flat(name, value, method, route, lower, upper, citation, events, given, extra=None):
    ex = {f"{name}_lower": lower, f"{name}_upper": upper, "route": route,
          "guarantee": True, "events": len(events)}
    if len(events) == 1 and events[0].mechanism.gaussian_noise() is not None:
        ex["sigma"] = events[0].mechanism.gaussian_noise()[0]
    ex.update(extra or {})
    return AccountingResult(name, float(value), method, "", None, citation,
                            mechanism=EV.describe(events), extras=ex, **given)


def _route_failed(r, exc) -> str:
    """Why route ``r`` gave no bound, in the user's terms (never an exception's name)."""
    if isinstance(exc, MemoryError):
        why = "the grid it needs here exceeds the memory limit"
    elif isinstance(exc, (ArithmeticError, FloatingPointError)):
        why = "these magnitudes exceed double precision on its path"
    else:                      # a DomainError/ValueError on a value it computed: its own words
        text = str(exc).strip()
        why = text.splitlines()[0][:160] if text else "its own checks rejected a value it computed"
    return f"route {r} gives no bound here: {why}"


def _certified(events, name, at, method, neighbouring, conversion, skip_rdp=True):
    """Certified (lower, upper, route, notes, citation) for method rdp, pld or best.

    A route that cannot account the events (``RouteError``) or fails numerically at extreme
    magnitudes (an overflow, a solver that does not converge, a value its own checks reject)
    is left out with a note; with no finite certified bound left the answer is the trivial
    one, stated as such: epsilon = inf, delta = 1 (``extras["finite"] = False``).  ``skip_rdp``:
    best leaves rdp out where PLD's bracket is within SKIP_RDP_GAP (see below)."""
    notes, got, errors, failed, skipped = [], {}, {}, {}, None
    # best: PLD first (the cheap route, and the tighter one almost always); then rdp unless
    # PLD's certified bracket is within SKIP_RDP_GAP: every certified upper bound, rdp's
    # included, is >= the truth >= PLD's lower end, so rdp could lower the answer by at most
    # (upper - lower) <= SKIP_RDP_GAP * upper
    routes = ("pld", "rdp") if method == "best" else (method,)
    pure = _pure(events) if name == "delta" or method == "best" else math.inf   # used only there
    if name == "delta" and math.isfinite(pure) and at >= pure:
        # every event has bounded loss and eps is beyond their sum: delta = 0 exactly
        got["pure"] = (0.0, 0.0, None)
        routes = ()
    elif method == "best" and _gaussian_mu(events) is not None:
        lo, hi = _exact(events, name, at)
        # a float evaluation that gives out (NaN) at an extreme mu: the trivial end, never NaN
        got["exact"] = (lo if lo >= 0 else 0.0, hi if hi == hi else (math.inf if name == "epsilon" else 1.0),
                        None)
        routes = ()          # the exact profile: no other route can be tighter
        if _gaussian_mu(events) > MU_MAX:
            notes.append(f"mu = {_gaussian_mu(events):g} > {MU_MAX:g}: the true {name} is "
                         + ("beyond the largest double (above mu^2/4)" if name == "epsilon"
                            else "1 to double precision"))
    def run(r):
        # delta beyond EPS_CAP: a route that fails there is asked for delta(EPS_CAP) >= delta(at),
        # a sound upper bound.  (A loop, not a recursive closure: a closure that names itself is
        # a reference cycle that kept every route's result, PLD arrays of ~100 MB, alive until
        # the cyclic collector ran.)
        for at_r in ((at, EPS_CAP) if name == "delta" and at > EPS_CAP else (at,)):
            capped = at_r != at
            try:
                lo, hi, res = ROUTES[r].bounds(events, name, at_r, neighbouring, conversion)
            except EV.RouteError as exc:
                errors[r] = exc
                failed.pop(r, None)
                return
            except UserInputError:
                raise
            except (*NUMERIC_FAILURES, ValueError) as exc:   # DomainError: on a value it computed
                if type(exc) is ValueError and not _resource_limit(exc):
                    raise
                failed[r] = exc
                continue
            failed.pop(r, None)
            hi = hi if math.isfinite(hi) else math.inf           # NaN: no bound
            got[r] = (0.0 if capped or lo is None or not lo >= 0 else lo,
                      min(hi, 1.0) if name == "delta" else hi, res)
            if capped:
                notes.append(f"route {r}: delta at epsilon = {at:g} bounded by its certified delta "
                             f"at epsilon = {EPS_CAP:g} (delta does not increase with epsilon)")
            return

    for r in routes:
        if r == "rdp" and method == "best" and skip_rdp and "pld" in got:
            lo, hi = got["pld"][:2]
            if math.isfinite(hi) and hi - lo <= SKIP_RDP_GAP * hi:
                skipped = (f"rdp: the PLD bracket is within {SKIP_RDP_GAP:g} relative, so no "
                           "certified route can improve on it by more")
                continue
        run(r)
    if method == "pld" and "pld" in got and not math.isfinite(got["pld"][1]):
        notes.append("the PLD upper bound is not finite here (its floating-point error bound "
                     "exceeds the target); the upper end is handed over to the rdp route")
        run("rdp")
    if method == "best" and name == "epsilon" and math.isfinite(pure) and \
            all(pure < v[1] for v in got.values()):
        got["pure"] = (0.0, pure, None)      # bounded losses: the pure-DP bound is the tightest
    if not got and not failed:
        raise next(iter(errors.values()))
    for r, exc in failed.items():
        notes.append(_route_failed(r, exc))
    finite = {r: v for r, v in got.items() if math.isfinite(v[1])}
    extra = {"routes": ",".join(sorted(got))}
    if finite:
        route = min(finite, key=lambda r: finite[r][1])
        upper = finite[route][1]
    elif name == "delta":
        route, upper = "trivial", 1.0
        notes.append("no route certified delta < 1 here")
    else:
        route, upper = "none", math.inf
        extra["finite"] = False
    lows = [v[0] for r, v in got.items() if r in ("pld", "exact", "pure")]
    lower = max(lows) if lows else 0.0
    for r, exc in errors.items():
        notes.append(str(exc))
    cites = []
    if "pure" in got:
        cites.append(PURE_CITATION)
    if "exact" in got:
        cites.append(EXACT_CITATION)
    if "pld" in got:
        cites.append(PLD_CITATION)
    if "rdp" in got:
        cites.append(got["rdp"][2].citation)
    if skipped:
        extra["skipped"] = skipped
    if "rdp" in got:
        extra["rdp_" + name] = got["rdp"][1]
        extra["alpha"] = got["rdp"][2].alpha
        extra["conversion"] = conversion
    if "pld" in got:
        hi = got["pld"][1]
        extra["pld_" + name + "_upper"] = hi if math.isfinite(hi) else None
    if notes:
        extra["note"] = " | ".join(notes)
    return lower, upper, route, "; ".join(cites), extra


PURE_CITATION = ("pure-DP composition of bounded-loss mechanisms (sum of T_i eps_i; Laplace "
                 "Delta/b, RR eps0, amplified by sampling: Balle, Barthe, Gaboardi 2018)")


def profile(events, name: str, at: float, method: str = "best", neighbouring: str = "add_remove",
            conversion: str = "optimal", skip_rdp: bool = True,
            accuracy: float | None = None) -> AccountingResult:
    """epsilon(delta = at) or delta(epsilon = at) of the composition by ``method``;
    ``accuracy``: the certified bracket's largest relative width (``refine``)."""
    _check_method(method)
    if method == "all":
        raise UserInputError("method", method, "best, rdp, pld, clt or edgeworth (use table())")
    conversion = _check_conversion(conversion)
    accuracy = check_accuracy(accuracy, method)
    from .kernels import check_nonneg, check_open01
    at = _real("delta" if name == "epsilon" else "epsilon", at)
    with user_input():
        events = EV.as_composition(events, neighbouring)      # validated once: the routes take it as it is
        at = float(check_open01(at, "delta") if name == "epsilon" else check_nonneg(at, "epsilon"))
    given = {"delta": at} if name == "epsilon" else {"epsilon": at}
    if method in ("clt", "edgeworth"):
        r = _approx(events, name, at, method)
        r.extras.update(route=method, guarantee=False)
        return r
    lower, upper, route, cite, extra = _certified(events, name, at, method, neighbouring,
                                                  conversion, skip_rdp)
    if accuracy is not None:
        lower, upper, route, cite = refine(events, name, at, neighbouring, accuracy, lower, upper,
                                           route, cite, extra)
    return _flat(name, upper, method, route, lower, upper, cite, events, given, extra)


# ----------------------------------------------------------------------------- accuracy
#: the relative widths ``accuracy`` may ask for (below: the exact Gaussian profile's own
#: float allowance, 1e-9 relative, is the floor of every certified bracket)
ACCURACY_RANGE = (1e-8, 0.5)
#: finer PLD lattices tried before an accuracy is declared out of reach
MAX_REFINEMENTS = 8


def check_accuracy(accuracy, method: str = "best"):
    """``accuracy`` as a float in ``ACCURACY_RANGE`` (None: no request), else UserInputError;
    a request needs a route with a certified lower bound (best or pld)."""
    if accuracy is None:
        return None
    a = _real("accuracy", accuracy)
    if not ACCURACY_RANGE[0] <= a <= ACCURACY_RANGE[1]:
        raise UserInputError("accuracy", accuracy, f"[{ACCURACY_RANGE[0]:g}, {ACCURACY_RANGE[1]:g}] "
                             "(the certified bracket's largest relative width, (upper - lower) / upper)")
    if method not in ("best", "pld"):
        raise UserInputError("accuracy", accuracy, f"no request with --method {method} (it gives no "
                             "certified lower bound); use best or pld")
    return a


def _rel_width(lower: float, upper: float) -> float:
    if upper == 0:
        return 0.0
    if not math.isfinite(upper):
        return math.inf
    return (upper - lower) / upper


def refine(events, name, at, neighbouring, accuracy, lower, upper, route, cite, extra):
    """Narrow the certified bracket [lower, upper] to relative width <= ``accuracy`` on finer
    PLD lattices: each attempt sets the lattice step from the width just reached (the bracket
    of the connect-the-dots pair narrows as h^2) and keeps the larger lower and the smaller
    upper end (every lattice is certified).  The sequence of lattices depends on the events and
    the request alone, so the command line and the accountants agree at equal settings.  Out of
    reach (no PLD route for these events, the lattice's memory cap, a bracket that stops
    narrowing): ``UserInputError`` naming the accuracy reached.  Returns (lower, upper, route,
    cite) and records ``accuracy``, ``resolution`` and ``width`` in ``extra``."""
    from . import pld
    w = _rel_width(lower, upper)
    res, why = None, ""
    r = pld.DEFAULT_RESOLUTION
    for _ in range(MAX_REFINEMENTS):
        if w <= accuracy:
            break
        # h^2 scaling, with a margin; at least halve, at most a tenth per attempt
        r *= min(0.5, max(0.1, 0.7 * math.sqrt(accuracy / w))) if math.isfinite(w) else 0.5
        try:
            with np.errstate(all="ignore"):
                acc = EV.pld_accountant(events, neighbouring, "both", resolution=r)
                lo, hi = EV.profile_of(acc, name)(at)
        except EV.RouteError as exc:
            why = f"the PLD route cannot narrow it ({exc.reason})"
            break
        except NUMERIC_FAILURES as exc:
            why = ("a finer lattice exceeds the memory limit" if isinstance(exc, MemoryError)
                   else "a finer lattice leaves double precision")
            break
        lo, hi = float(np.max(lo)), float(np.max(hi))
        if name == "delta":
            hi = min(hi, 1.0)
        prev = w
        if lo >= 0 and lo > lower:
            lower = lo
        if math.isfinite(hi) and hi < upper:
            upper, route = hi, "pld"
            if PLD_CITATION not in cite:
                cite = "; ".join(c for c in (cite, PLD_CITATION) if c)
        res = r
        w = _rel_width(lower, upper)
        if w > accuracy and w > 0.7 * prev:
            why = "the bracket stopped narrowing on finer lattices (the lattice's window cap)"
            break
    if w > accuracy:
        raise UserInputError("accuracy", accuracy, f"a relative width of at least {w:.3g} here: the "
                             f"certified {name} lies in [{lower:.10g}, {upper:.10g}] and "
                             + (why or f"{MAX_REFINEMENTS} finer lattices did not narrow it further"))
    extra["accuracy"] = accuracy
    extra["width"] = w
    if res is not None:
        extra["resolution"] = res
    return lower, upper, route, cite


def epsilon(events, delta_: float, method: str = "best", neighbouring: str = "add_remove",
            conversion: str = "optimal", accuracy: float | None = None) -> AccountingResult:
    """The certified epsilon(delta) of the composition of ``events`` (module docstring);
    ``accuracy``: a certified bracket of at most this relative width (``refine``)."""
    return profile(events, "epsilon", delta_, method, neighbouring, conversion, accuracy=accuracy)


def delta(events, eps: float, method: str = "best", neighbouring: str = "add_remove",
          conversion: str = "optimal", accuracy: float | None = None) -> AccountingResult:
    """The certified delta(epsilon) of the composition of ``events`` (module docstring);
    ``accuracy`` as for ``epsilon``."""
    return profile(events, "delta", eps, method, neighbouring, conversion, accuracy=accuracy)


class Composition(EV.Composition):
    """A run validated once (``numeric.events.Composition``: its events merged, one neighbouring
    relation, invalid input raising at construction) that answers for itself:

        >>> c = Composition([Event(Gaussian(1.1), Poisson(0.01), 1000)])
        >>> r = c.epsilon(1e-5)       # r.value, r.lower, r.upper, r.route, r.citation
    """

    def epsilon(self, delta_: float, method: str = "best", **kw) -> AccountingResult:
        """``epsilon`` of this composition under its own relation."""
        return epsilon(self, delta_, method, self.neighbouring, **kw)

    def delta(self, eps: float, method: str = "best", **kw) -> AccountingResult:
        """``delta`` of this composition under its own relation."""
        return delta(self, eps, method, self.neighbouring, **kw)


def table(events, name: str, at: float, neighbouring: str = "add_remove") -> list[dict]:
    """One row per route: {route, lower, upper, approximation, guarantee, seconds} or
    {route, error} when the route cannot account the events."""
    if name not in ("epsilon", "delta"):
        raise UserInputError("name", name, "'epsilon' or 'delta'")
    at = _real("delta" if name == "epsilon" else "epsilon", at)
    from .kernels import check_nonneg, check_open01
    with user_input():
        events = EV.as_composition(events, neighbouring)
        at = float(check_open01(at, "delta") if name == "epsilon" else check_nonneg(at, "epsilon"))
    rows = []
    for r in EV.ROUTES:
        t0 = time.perf_counter()
        try:
            row = _table_row(events, name, at, neighbouring, r)
        except (*NUMERIC_FAILURES, ValueError) as exc:
            if type(exc) is ValueError and not _resource_limit(exc) or isinstance(exc, UserInputError):
                raise
            if name == "delta" and at > EPS_CAP and ROUTES[r].certified and not isinstance(exc, EV.RouteError):
                try:           # delta(EPS_CAP) >= delta(at): a sound upper bound
                    row = _table_row(events, name, EPS_CAP, neighbouring, r)
                    row["lower"] = 0.0 if row.get("lower") is not None else None
                    row["note"] = f"delta at epsilon = {EPS_CAP:g} (delta does not increase with epsilon)"
                except (*NUMERIC_FAILURES, DomainError) as exc2:
                    row = {"route": r, "error": _route_failed(r, exc2)}
            elif isinstance(exc, EV.RouteError):
                row = {"route": r, "error": exc.reason}
            else:
                row = {"route": r, "error": _route_failed(r, exc)}
        row["seconds"] = round(time.perf_counter() - t0, 4)
        rows.append(row)
    return rows


def _table_row(events, name, at, neighbouring, r) -> dict:
    """One route's row of ``table`` (raises what the route raises)."""
    return ROUTES[r].row(events, name, at, neighbouring)


# ----------------------------------------------------------------------------- calibration
def calibrate(make_events, target_eps: float, delta_: float, param: str, lo: float, hi: float,
              method: str = "best", neighbouring: str = "add_remove", integer: bool = False,
              rtol: float = 1e-4, decreasing: bool | None = None,
              conversion: str = "optimal") -> AccountingResult:
    """Solve for one parameter x in [lo, hi] of ``make_events(x)``.

    ``decreasing=True`` (epsilon decreases in x: a noise parameter, Gaussian or discrete
    Gaussian sigma, Laplace scale): the smallest x with certified epsilon(delta) <= target;
    ``decreasing=False`` (epsilon increases in x: steps, epochs, batch size, randomized
    response's epsilon): the largest x with certified epsilon <= target.  ``None`` reads the
    direction from ``param``: decreasing for "sigma" and "scale", increasing otherwise.
    ``integer``: x is an integer (bisection), else continuous (regula falsi to ``rtol``
    relative).  Bisection keeps an end whose epsilon was computed and met the target, and
    that end is returned with its achieved epsilon (sound whatever the monotonicity).
    ``conversion``: the RDP route's RDP -> DP conversion.  The one calibrator of the package
    (it replaces the retired ``accountant.calibrate_sigma`` and ``methods.calibrate_sigma``)."""
    if method not in ("best", "rdp", "pld"):
        raise UserInputError("method", method, "best, rdp or pld (calibration needs a guarantee)")
    conversion = _check_conversion(conversion)
    if not callable(make_events):
        raise UserInputError("make_events", make_events, "a function x -> list of Event")
    if not isinstance(param, str) or not param:
        raise UserInputError("param", param, "the name of the parameter solved for (a string)")
    lo, hi = _real("lo", lo), _real("hi", hi)
    if not (0 < lo < hi < math.inf):
        raise UserInputError("lo", lo, f"0 < lo < hi < oo (hi = {hi:g})")
    if not isinstance(integer, bool):
        raise UserInputError("integer", integer, "True or False")
    from .kernels import check_open01, check_positive
    target_eps, delta_ = _real("epsilon", target_eps), _real("delta", delta_)
    with user_input():
        e_t = float(check_positive(target_eps, "epsilon"))
        d = float(check_open01(delta_, "delta"))

    def eps_at(x, routes=CERTIFIED if method == "best" else (method,)):
        """the certified upper bound only (PLD's pessimistic side alone: half the work)"""
        with user_input():
            evs = EV._check_events(make_events(x), neighbouring)
        best = math.inf
        for r in routes:
            try:
                v = ROUTES[r].epsilon_upper(evs, d, neighbouring, conversion)
            except UserInputError:
                raise
            except (*NUMERIC_FAILURES, ValueError) as exc:   # RouteError, DomainError among them
                if type(exc) is ValueError and not _resource_limit(exc):
                    raise
                continue
            if v != v:                      # NaN: no answer from this route
                continue
            best = min(best, v)
        return best          # inf: no route can account this x (e.g. sigma below PLD's range)

    def search(f, good, bad):
        """(an end meeting the target, the end beyond it that does not, or None)"""
        if not integer and guess is not None:
            good, bad = _bracket_near(f, e_t, guess, good, bad)
        if not integer:
            return (bad, None) if f(bad) <= e_t else _illinois(f, e_t, good, bad, rtol)
        # integers: bisection in log x (the ends span up to 1e9 steps, where accounting costs
        # the most; the geometric midpoint reaches the usual answers in fewer such steps)
        far = bad                 # evaluated only if the answer may be there
        if good < bad:
            # galloping first (x10 from the good end): a target met only near the far end (a
            # search limit, 1e9 steps) is found in ~9 evaluations instead of ~30 there
            while good * 10 < bad:
                if f(good * 10) > e_t:
                    bad = good * 10
                    break
                good *= 10
        good, bad = integer_bisect(f, e_t, good, bad)
        if bad == far and f(far) <= e_t:
            return far, None
        return good, bad

    if decreasing is None:
        decreasing = param in ("sigma", "scale")
    good, bad = (hi, lo) if decreasing else (lo, hi)

    def limit_reached():
        """A search whose far end already meets the target has no answer inside the range:
        say so (the limit is not the answer)."""
        side = "below" if bad == lo else "above"
        raise SearchLimitError(
            "epsilon", e_t, f"a target answered inside the searched range {param} in [{lo:g}, "
            f"{hi:g}]: it is met already at the search limit {param} = {bad:g}, so the "
            f"{'smallest' if decreasing else 'largest'} {param} meeting it lies {side} the "
            "range (the limit is not the answer); ask for a smaller epsilon")
    guess = _clt_sigma_guess(make_events, e_t, d, lo, hi) if decreasing and not integer else None
    pld_only = functools.lru_cache(maxsize=None)(lambda x: eps_at(x, ("pld",)))

    def pld_narrow(x):
        """best's rule: where PLD's bracket is within SKIP_RDP_GAP, best does not ask rdp (so
        neither does the search: an x only rdp certifies would be reported above the target)"""
        try:
            evs = EV._check_events(make_events(x), neighbouring)
            _pld_screen(evs)
            lo, hi, _ = _pld(evs, "epsilon", d, neighbouring)
        except (*NUMERIC_FAILURES, ValueError):        # RouteError, DomainError among them
            return False
        return math.isfinite(hi) and hi - lo <= SKIP_RDP_GAP * hi
    if method == "best" and pld_only(good) <= e_t:
        # the PLD route alone first (its upper bound is the tighter one almost always and it
        # costs a few ms); the rdp route is then asked only where it could still do better:
        # at the first end PLD could not certify.  If rdp cannot certify it either, the
        # answer is PLD's (up to the tolerance); else the search goes on with both routes.
        good, nxt = search(pld_only, good, bad)
        if nxt is None:
            limit_reached()
        if not pld_narrow(nxt) and eps_at(nxt, ("rdp",)) <= e_t:
            good, far = search(functools.lru_cache(maxsize=None)(eps_at), nxt, bad)
            if far is None:
                limit_reached()
    else:
        f = functools.lru_cache(maxsize=None)(eps_at)
        if not math.isfinite(f(good)):
            r0 = epsilon(EV._check_events(make_events(good), neighbouring), d, method, neighbouring,
                         conversion)
            if not math.isfinite(r0.value):
                raise SearchLimitError("epsilon", e_t, f"a target met within the searched range "
                                       f"[{lo:g}, {hi:g}] (at {param} = {good:g} no route "
                                       f"certifies a finite epsilon: {r0.extras.get('note', '')})")
        if f(good) > e_t:
            raise SearchLimitError("epsilon", e_t, f"a target reachable with {param} = {good:g} "
                                   f"(there epsilon = {f(good):.6g})")
        good, far = search(f, good, bad)
        if far is None:
            limit_reached()
    # every route the search asked (best: rdp too, even where PLD's bracket is narrow: the
    # answer may be an x that only rdp certifies)
    res = profile(make_events(good), "epsilon", d, method, neighbouring, conversion, skip_rdp=False)
    ex = dict(res.extras)
    ex.update(target_epsilon=e_t, solved_for=param, epsilon_achieved=res.value, **{param: good})
    return AccountingResult(param, float(good), method, "", None, res.citation,
                            epsilon=res.value, delta=d, mechanism=res.mechanism, extras=ex)


_pld_screen = EV.pld_screen


def min_sigma2(eps, delta_, T, conversion: str = "optimal") -> float:
    """The exact minimal sigma^2 of the T-fold Gaussian by the RDP accountant with
    ``conversion`` (what Asoodeh et al. 2021, Thm. 5, expands asymptotically)."""
    res = calibrate(lambda s: [EV.Event(EV.Gaussian(s), None, int(T))], eps, delta_, "sigma",
                    1e-3, 1e6, method="rdp", rtol=1e-6, conversion=conversion)
    return res.value ** 2



def _clt_sigma_guess(make_events, e_t, d, lo, hi):
    """Where the sigma search starts (speed only; every answer is still certified): for one
    Gaussian event, the sigma whose CLT approximation G_mu, mu = q sqrt(T (e^{1/s^2} - 1))
    (Zheng et al. 2020, Sec. 2; sqrt(T)/s without subsampling), has epsilon(delta) = e_t.  None otherwise."""
    from .gaussian import log_delta_float
    try:
        evs = make_events(math.sqrt(lo * hi))
    except ValueError:
        return None
    if len(evs) != 1 or evs[0].mechanism.gaussian_noise() is None or \
            getattr(evs[0].sampling, "neighbouring", "add_remove") != "add_remove":
        return None
    e = evs[0]
    q, T, sens = e.rate, float(e.count), e.mechanism.gaussian_noise()[1]

    def log_delta(lmu):              # G_mu's delta(e_t) at mu = e^lmu (Asoodeh et al. 2021, eq. (40) generalised)
        return log_delta_float(e_t, math.exp(lmu))

    a, b = -20.0, 10.0               # log mu: delta increases with mu
    if not log_delta(a) < math.log(d) < log_delta(b):
        return None
    for _ in range(60):
        m = 0.5 * (a + b)
        a, b = (m, b) if log_delta(m) < math.log(d) else (a, m)
    mu = math.exp(0.5 * (a + b))
    if q == 1:
        s = math.sqrt(T) / mu
    else:
        try:
            x = (mu / q) ** 2 / T    # e^{1/s^2} - 1
        except OverflowError:        # q ~ 1e-300: no useful start (the guess is speed only)
            return None
        s = 1.0 / math.sqrt(math.log1p(x)) if x > 0 else math.inf
    x = s * sens
    return x if lo < x < hi else None


def _bracket_near(f, e_t, guess, good, bad):
    """A bracket (an end meeting the target, an end that does not) around ``guess``, within
    [good, bad]: steps of 1%, 2%, 4%, ... of it away from the guess on the side the guess
    calls for, falling back to the given ends."""
    toward_good = 1.0 if good > bad else -1.0        # log-direction of the good end
    if f(guess) <= e_t:
        good, k = guess, 0
        while True:
            x = guess * math.exp(-toward_good * 0.01 * 2 ** k)
            if (x - bad) * toward_good <= 0:
                return good, bad
            if f(x) > e_t:
                return good, x
            good, k = x, k + 1
    bad, k = guess, 0
    while True:
        x = guess * math.exp(toward_good * 0.01 * 2 ** k)
        if (x - good) * toward_good >= 0:
            return good, bad
        if f(x) <= e_t:
            return x, bad
        bad, k = x, k + 1


def _illinois(eps_at, e_t, good, bad, rtol):
    """Regula falsi (Illinois) on log epsilon against log x for a continuous parameter; the
    bracket [good, bad] keeps an end whose epsilon was computed and met the target, and
    (good, bad) is returned once the bracket is narrower than ``rtol`` (relative).  The
    values are clamped below at log(target) - 10: epsilon may be 0 at the noisy end, and
    log(1e-300) there would pull every interpolation toward the other end, where
    accounting is slowest."""
    def lf(x):
        return max(math.log(max(eps_at(x), 1e-300)) - math.log(e_t), -10.0)

    fg = lf(good)     # <= 0
    fb = lf(bad)      # > 0
    lg, lb = math.log(good), math.log(bad)
    side = 0
    for _ in range(100):
        if abs(lg - lb) <= rtol:
            break
        x = (lg * fb - lb * fg) / (fb - fg) if fb != fg and math.isfinite(fb) else 0.5 * (lg + lb)
        lo_, hi_ = min(lg, lb), max(lg, lb)
        w = hi_ - lo_
        x = min(max(x, lo_ + 0.01 * w), hi_ - 0.01 * w)     # stay strictly inside
        fx = lf(math.exp(x))
        if fx <= 0:
            lg, fg = x, fx
            if side == -1:
                fb /= 2
            side = -1
        else:
            lb, fb = x, fx
            if side == 1:
                fg /= 2
            side = 1
    return math.exp(lg), math.exp(lb)
