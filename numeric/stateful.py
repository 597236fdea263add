"""A stateful accountant: compose events one call at a time (a training loop's steps) and
ask for epsilon / delta after any of them, without recomposing from scratch.

    from numeric.stateful import StatefulAccountant
    acct = StatefulAccountant()                       # add/remove neighbours
    for t in range(steps):
        acct.step(noise_multiplier=1.1, sample_rate=256 / 60000)
        a = acct.epsilon(1e-5)                        # cheap: running RDP sums (route "rdp-grid")
    a.value, a.lower, a.upper, a.route
    acct.epsilon(1e-5, method="best")                 # the full certified best route (cached)
    s = acct.to_json(); acct2 = StatefulAccountant.from_json(s)

How it stays cheap.

* **History.** Identical consecutive events are grouped into one ``[event, count]`` entry
  (``history``); composition is commutative, so the accounting itself works on the
  *aggregate* (one total count per distinct (mechanism, sampling)).
* **Fast upper bound (every step).** RDP composes additively.  For every distinct
  (mechanism, sampling) the RDP curve is evaluated once on a fixed grid of orders
  (``ORDERS``) and cached; the composition's curve on the grid is the sum of the cached
  vectors times the (integer) counts, formed at query time (no running floating sum that
  drifts).  epsilon(delta) is then the minimum over grid orders of the exact optimal
  RDP-to-DP conversion (Asoodeh et al. 2021, Thm. 3, ``numeric.fastconv``), evaluated at the few orders
  the closed-form Balle et al. conversion ranks best.  Every order gives a valid bound,
  so the minimum over any subset is a certified upper bound (it may be slightly above
  the ``rdp`` route's answer, which optimises the order continuously).
* **Certified lower bound (every step, amortised).** epsilon(delta) can only grow as
  events are added (the prefix's output is a post-processing of the whole run's), so a
  PLD lower bound computed for an earlier prefix of the history is a certified lower bound
  now.  The PLD bracket is recomputed when the number of steps has grown by the factor
  ``refresh_growth`` (default 2: O(log T) PLD compositions over a T-step run).
* **PLD-tight upper bound (every step, amortised).** By the same monotonicity the PLD
  upper bound of a *longer* history bounds every prefix of it: on a refresh the aggregate
  is projected ahead (the last event repeated ``lookahead`` x steps more, at least
  ``LOOKAHEAD_MIN``), its PLD upper bound computed once, and reported (route
  ``pld-lookahead``, ``upper_from_steps``) while the actual history stays within the
  projection and the bound beats the RDP grid's.  With lookahead 5% a T-step run costs
  about ln(T)/ln(1.05) upper-only PLD compositions (~240 at T = 10^5).  With more than
  ``MAX_PLD_EVENTS`` distinct events the fast answer is the RDP grid's alone.
* **The full best route** (``method="best"``, or ``"rdp"`` / ``"pld"``) runs
  ``numeric.account`` on the aggregate and is cached by (history, delta); its upper bound
  is also remembered, so a repeated question is free.

Every answer is an ``Answer``: value (= the certified upper bound), lower, upper, route,
steps; ``to_dict()`` for JSON.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from derive.errors import DomainError

from . import events as EV

__all__ = ["StatefulAccountant", "Answer", "ORDERS"]

#: the fixed grid of RDP orders of the fast route
ORDERS = np.unique(np.concatenate((
    np.array([1.25, 1.5, 1.75]),     # few orders below 2: the series is slow there (1.1: ~1 s)
    np.arange(2.0, 16.0, 0.5), np.arange(16.0, 64.0, 1.0),
    np.round(np.geomspace(64.0, 10000.0, 104)))))
_SLACK = 1e-12          # relative allowance for the float products and sums of RDP values
LOOKAHEAD = 0.05        # the look-ahead PLD bound covers 5% more steps ...
LOOKAHEAD_MIN = 64      # ... and at least this many
MAX_PLD_EVENTS = 8      # distinct events beyond which the fast answer is RDP alone
FAST_CITATION = ("RDP of the history summed on a grid of orders (Mironov 2017, Prop. 1), each order converted "
                 "exactly (Asoodeh et al. 2021, Thm. 3); lower bound: PLD bracket of a prefix (numeric.pld)")
PLD_LOOKAHEAD_CITATION = "PLD upper bound of the history extended by a look-ahead (valid for every prefix)"
NO_EVENTS_CITATION = "no events: nothing is spent"


@dataclass
class Answer:
    """One accounting answer: ``value`` is the certified upper bound (``upper``);
    ``lower`` a certified lower bound (0 when none is known); ``route`` names what gave
    the upper bound; ``steps`` the number of composed events it accounts."""
    name: str
    at: float
    value: float
    lower: float
    upper: float
    route: str
    steps: int
    extras: dict = field(default_factory=dict)
    citation: str = ""       # what the bound rests on, as for ``numeric.accountant.AccountingResult``

    def to_dict(self) -> dict:
        other = "delta" if self.name == "epsilon" else "epsilon"
        d = {self.name: self.value, f"{self.name}_lower": self.lower,
             f"{self.name}_upper": self.upper, other: self.at, "route": self.route,
             "steps": self.steps, "guarantee": True, "citation": self.citation}
        d.update(self.extras)
        return d

    def __float__(self):
        return float(self.value)


def _key(e: EV.Event):
    return (e.mechanism, e.sampling)


def _spec(mech, sampling, count) -> dict:
    """The ``--spec`` form of one event (``numeric.events.events_from_spec`` reads it; the
    mechanism and the sampling give their own, ``numeric.mechanism``); a DomainError naming
    the mechanism if it has none (a user's own class: the state cannot be written)."""
    try:
        return EV.Event(mech, sampling, count).spec()
    except EV.NotSupported as exc:
        raise DomainError("mechanism", str(mech), f"a mechanism with a --spec form to save the "
                          f"state ({exc})") from None


def _one_real(name: str, v):
    """``v`` if it is one real number (not a bool, string or sequence), else ``DomainError``."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise DomainError(name, v, "one real number")
    return v


class StatefulAccountant:
    """Compose events step by step; epsilon / delta after any step (module docstring)."""

    def __init__(self, neighbouring: str = "add_remove", refresh_growth: float = 2.0,
                 refresh_lower: bool = True, lookahead: float | None = LOOKAHEAD,
                 resolution: float | None = None, accuracy: float | None = None):
        if neighbouring not in EV.NEIGHBOURING:
            raise DomainError("neighbouring", neighbouring, " or ".join(EV.NEIGHBOURING))
        if not (isinstance(refresh_growth, (int, float)) and refresh_growth > 1):
            raise DomainError("refresh_growth", refresh_growth, "(1, oo)")
        self.neighbouring = neighbouring
        self.refresh_growth = float(refresh_growth)
        self.refresh_lower = bool(refresh_lower)
        if lookahead is not None and (isinstance(lookahead, bool) or not isinstance(lookahead, (int, float))
                                      or not 0 <= lookahead <= 1e3):
            raise DomainError("lookahead", lookahead, "None or a number in [0, 1000] (a fraction of the steps)")
        self.lookahead = lookahead
        #: method "best" / "pld" also tries the PLD route at this finer lattice resolution
        #: (numeric.pld.DEFAULT_RESOLUTION is 0.05; 0.01 costs ~4x and tightens ~5e-4)
        self.resolution = resolution
        #: a certified bracket of at most this relative width for methods best / pld
        #: (``numeric.account.refine``: the same lattices as ``dpderive epsilon --accuracy``, so
        #: the answers agree exactly; the ``resolution`` retry is then left out)
        from .account import check_accuracy
        self.accuracy = check_accuracy(accuracy)
        self._ahead: dict = {}           # (name, at) -> (projected totals, PLD upper bound there)
        self.history: list = []          # [[(mechanism, sampling), count], ...] consecutive groups
        self._totals: dict = {}          # (mechanism, sampling) -> total count
        self._curves: dict = {}          # (mechanism, sampling) -> RDP on ORDERS (cached)
        self._steps = 0
        self._version = 0                # bumped on every change of the history
        self._cache: dict = {}           # (version, name, at, method) -> Answer
        self._lower: dict = {}           # (name, at) -> (steps of the prefix, certified lower)

    # ------------------------------------------------------------------------- composing
    def compose(self, event, count: int = 1) -> "StatefulAccountant":
        """Compose ``event`` (a ``numeric.events.Event``; its own count times ``count``)."""
        if not isinstance(event, EV.Event):
            raise DomainError("event", event, "a numeric.events.Event")
        c = event.count * count
        if not (isinstance(count, (int, np.integer)) and not isinstance(count, bool) and count >= 1):
            raise DomainError("count", count, "integers >= 1")
        EV._check_events([event], self.neighbouring)
        key = _key(event)
        if key not in self._curves:
            self._curves[key] = self._rdp_on_grid(event)
        if self.history and self.history[-1][0] == key:
            self.history[-1][1] += c
        else:
            self.history.append([key, c])
        self._totals[key] = self._totals.get(key, 0) + c
        self._steps += c
        self._version += 1
        if len(self._cache) > 64:
            self._cache.clear()
        return self

    def step(self, noise_multiplier: float, sample_rate: float = 1.0, sensitivity: float = 1.0,
             count: int = 1) -> "StatefulAccountant":
        """One (or ``count``) DP-SGD step(s): the Gaussian mechanism with noise multiplier
        ``noise_multiplier`` on a Poisson-sampled batch of rate ``sample_rate``."""
        key = (noise_multiplier, sample_rate, sensitivity)
        last = getattr(self, "_last_step", None)
        if last is not None and last[0] == key and self.history and self.history[-1][0] == last[1]:
            # the hot path of a training loop: the same step again
            k = last[1]
            self.history[-1][1] += count
            self._totals[k] += count
            self._steps += count
            self._version += 1
            return self
        samp = EV.Poisson(sample_rate) if sample_rate != 1 else None
        ev = EV.Event(EV.Gaussian(noise_multiplier, sensitivity), samp, 1)
        self.compose(ev, count)
        self._last_step = (key, _key(ev))
        return self

    @staticmethod
    def _rdp_on_grid(event) -> np.ndarray:
        out = np.full(ORDERS.shape, np.inf)
        try:
            curve = EV._rdp_event(event)
        except EV.RouteError:          # no RDP curve (a PLD-only mechanism): no RDP bound
            return out
        ok = ORDERS <= curve.alpha_max
        if curve.integer_only:
            ok &= ORDERS == np.round(ORDERS)
        isint = ORDERS == np.round(ORDERS)
        with np.errstate(all="ignore"):
            # integer orders at once; fractional ones one at a time (a vectorised series runs
            # as long as its slowest order needs: ~1 s for the subsampled Gaussian's)
            v = np.full(ORDERS.shape, np.inf)
            v[ok & isint] = np.asarray(curve(ORDERS[ok & isint]), dtype=float)
            for i in np.flatnonzero(ok & ~isint):
                v[i] = float(np.asarray(curve(ORDERS[i:i + 1]), dtype=float)[0])
        out[ok] = np.where(np.isfinite(v[ok]) & (v[ok] >= 0), v[ok], np.inf)
        return out

    # ------------------------------------------------------------------------- views
    def __len__(self) -> int:
        return self._steps

    @property
    def steps(self) -> int:
        return self._steps

    def events(self) -> list:
        """The aggregate composition (one event per distinct (mechanism, sampling))."""
        return [EV.Event(m, s, c) for (m, s), c in self._totals.items()]

    def history_events(self) -> list:
        """The history as events, in order (consecutive identical events grouped)."""
        return [EV.Event(m, s, c) for (m, s), c in self.history]

    def rdp(self) -> np.ndarray:
        """The composition's RDP on ``ORDERS`` (an upper bound: rounded up by 1e-12 relative)."""
        g = np.zeros(ORDERS.shape)
        for key, c in self._totals.items():
            g = g + c * self._curves[key]
        return g * (1 + _SLACK)

    # ------------------------------------------------------------------------- answers
    def epsilon(self, delta: float, method: str = "fast") -> Answer:
        """The certified epsilon(delta) now.  ``method``: ``fast`` (RDP sums on the grid,
        with the latest amortised PLD lower bound), or ``best`` / ``rdp`` / ``pld`` (the full
        route of ``numeric.account``, cached by history)."""
        from .kernels import check_open01
        d = float(check_open01(_one_real("delta", delta), "delta"))
        return self._answer("epsilon", d, method)

    def delta(self, eps: float, method: str = "fast") -> Answer:
        """The certified delta(eps) now (``method`` as for ``epsilon``)."""
        from .kernels import check_nonneg
        e = float(check_nonneg(_one_real("epsilon", eps), "epsilon"))
        return self._answer("delta", e, method)

    def _answer(self, name, at, method):
        if method not in ("fast", "best", "rdp", "pld"):
            raise DomainError("method", method, "fast, best, rdp or pld")
        if self._steps == 0:
            return Answer(name, at, 0.0, 0.0, 0.0, "none", 0, citation=NO_EVENTS_CITATION)
        ck = (self._version, name, at, method)
        hit = self._cache.get(ck)
        if hit is not None:
            return hit
        if method == "fast" and self.accuracy is not None:
            method = "best"            # an accuracy request needs the full route's bracket
        if method == "fast":
            ans = self._fast(name, at)
        else:
            ans = self._full(name, at, method)
        self._cache[ck] = ans
        return ans

    def _full(self, name, at, method):
        from . import account
        acc = self.accuracy if method in ("best", "pld") else None
        r = account.profile(self.events(), name, at, method, self.neighbouring, accuracy=acc)
        lo, up, route = float(r.extras.get(f"{name}_lower", 0.0)), float(r.value), r.extras["route"]
        extras = {k: r.extras[k] for k in ("routes", "note", "accuracy", "width", "resolution")
                  if k in r.extras}
        if self.resolution is not None and acc is None and method in ("best", "pld") and \
                route != "exact":
            got = self._pld_side(self._totals, name, at, "both", self.resolution)
            if got is not None:
                lo = max(lo, got[0])
                if got[1] < up:
                    up, route = got[1], "pld"
                    extras["resolution"] = self.resolution
        self._note_lower(name, at, lo)
        return Answer(name, at, up, min(lo, up), up, route, self._steps, extras, r.citation)

    def _note_lower(self, name, at, lo):
        prev = self._lower.get((name, at))
        if prev is None or lo >= prev[1]:
            self._lower[(name, at)] = (self._steps, lo)

    def _pld_side(self, totals: dict, name, at, bounds, resolution=None):
        """(lower, upper) of the PLD route for the aggregate ``totals`` (None if it cannot);
        ``resolution``: a finer lattice than the default (h = resolution x the one-step
        loss's standard deviation; any lattice is certified, a finer one is tighter)."""
        evs = [EV.Event(m, s, c) for (m, s), c in totals.items()]
        try:
            EV.pld_screen(evs)           # the PLD route's range (pld_accountant checks it too)
            if resolution is None:
                acc = EV.pld_accountant(evs, self.neighbouring, bounds)
            else:
                acc = _pld_at_resolution(evs, self.neighbouring, bounds, resolution)
            lo, hi = (acc.epsilon if name == "epsilon" else acc.delta)(at)
            return float(np.max(lo)), float(np.max(hi))
        except (EV.RouteError, ArithmeticError, DomainError):
            return None

    def _fast(self, name, at):
        g = self.rdp()
        if name == "epsilon":
            up, alpha = _eps_on_grid(g, at)
        else:
            up, alpha = _delta_on_grid(g, at)
        route, extras = "rdp-grid", {"alpha": alpha}
        small = len(self._totals) <= MAX_PLD_EVENTS
        # certified lower bound: the PLD bracket of a prefix (recomputed when the run has
        # grown by refresh_growth: O(log T) compositions over a run)
        prev = self._lower.get((name, at))
        if small and self.refresh_lower and \
                (prev is None or self._steps >= self.refresh_growth * max(prev[0], 1)):
            got = self._pld_side(self._totals, name, at, "both")
            self._note_lower(name, at, got[0] if got else 0.0)
            prev = self._lower.get((name, at))
        # certified upper bound: the PLD upper bound of a look-ahead history (the current one
        # with the last event repeated LOOKAHEAD more times) holds for every prefix of it
        if small and self.lookahead:
            la = self._ahead.get((name, at))
            if la is None or any(c > la[0].get(k, 0) for k, c in self._totals.items()):
                last = self.history[-1][0]
                proj = dict(self._totals)
                proj[last] += max(int(math.ceil(self.lookahead * self._steps)), LOOKAHEAD_MIN)
                got = self._pld_side(proj, name, at, "upper")
                la = (proj, got[1] if got and math.isfinite(got[1]) else math.inf)
                self._ahead[(name, at)] = la
            if la[1] < up:
                up, route = la[1], "pld-lookahead"
                extras["upper_from_steps"] = int(sum(la[0].values()))
        lo = prev[1] if prev else 0.0
        extras["lower_from_steps"] = prev[0] if prev else 0
        if name == "delta":
            up = min(up, 1.0)
        cite = FAST_CITATION + (f"; upper bound: {PLD_LOOKAHEAD_CITATION}" if route == "pld-lookahead" else "")
        return Answer(name, at, up, min(lo, up), up, route, self._steps, extras, cite)

    # ------------------------------------------------------------------------- persistence
    def to_dict(self) -> dict:
        return {"format": "dpderive.stateful/1", "neighbouring": self.neighbouring,
                "refresh_growth": self.refresh_growth, "resolution": self.resolution,
                "accuracy": self.accuracy,
                "history": [_spec(m, s, c) for (m, s), c in self.history],
                "lower_bounds": [{"name": n, "at": a, "steps": st, "value": v}
                                 for (n, a), (st, v) in self._lower.items()]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, d: dict) -> "StatefulAccountant":
        if not isinstance(d, dict) or d.get("format") != "dpderive.stateful/1":
            raise DomainError("state", type(d).__name__, "a dict written by StatefulAccountant.to_dict")
        acct = cls(d.get("neighbouring", "add_remove"), d.get("refresh_growth", 2.0),
                   resolution=d.get("resolution"), accuracy=d.get("accuracy"))
        if d.get("history"):
            for e in EV.events_from_spec(d["history"]):
                acct.compose(e)
        for lb in d.get("lower_bounds", []):
            try:
                if lb["steps"] <= acct.steps:      # a prefix's lower bound stays a lower bound
                    acct._lower[(str(lb["name"]), float(lb["at"]))] = (int(lb["steps"]), float(lb["value"]))
            except (KeyError, TypeError, ValueError):
                raise DomainError("state.lower_bounds", lb, "entries {name, at, steps, value} as "
                                  "StatefulAccountant.to_dict writes them") from None
        return acct

    @classmethod
    def from_json(cls, s: str) -> "StatefulAccountant":
        try:
            d = json.loads(s)
        except (TypeError, ValueError) as exc:
            raise DomainError("state", s if isinstance(s, str) and len(s) < 80 else type(s).__name__,
                              f"the JSON text StatefulAccountant.to_json writes ({exc})") from None
        return cls.from_dict(d)


def _pld_at_resolution(events, neighbouring, bounds, resolution):
    """``numeric.events.pld_accountant`` with another lattice resolution."""
    return EV.pld_accountant(events, neighbouring, bounds, resolution)


# ----------------------------------------------------------------------------- conversions
def _eps_on_grid(g: np.ndarray, d: float, k: int = 3):
    """min over grid orders of the exact optimal conversion eps_alpha^delta(gamma) (rounded
    up by numeric.fastconv): started at the orders Balle et al.'s closed form ranks best, then
    a descent along the grid from the best of them while the exact value decreases.  Any
    order's value is a certified bound, so the minimum over those visited is one."""
    from . import fastconv
    from . import kernels as K
    a = ORDERS
    fin = np.isfinite(g)
    if not fin.any():
        return math.inf, None
    with np.errstate(all="ignore"):
        screen = np.where(fin, np.maximum(K.eps_balle(a, g, d), 0.0), np.inf)
    seen: dict = {}

    def val(i):
        if i not in seen:
            seen[i] = fastconv.eps_solve(float(a[i]), float(g[i]), d)[0] \
                if 0 <= i < a.size and fin[i] else math.inf
        return seen[i]

    for i in np.argsort(screen)[:k]:
        val(int(i))
    i = min(seen, key=seen.get)
    for step in (-1, 1):
        j = i
        while val(j + step) < val(j):
            j += step
        i = j if val(j) < val(i) else i
    i = min(seen, key=seen.get)
    return seen[i], float(a[i])


def _delta_on_grid(g: np.ndarray, e: float, k: int = 3):
    """min over a few grid orders of the optimal delta_alpha(gamma, eps) (Asoodeh et al. 2021, Thm. 3)."""
    from . import conversion as C
    a = ORDERS
    fin = np.isfinite(g)
    if not fin.any():
        return 1.0, None
    with np.errstate(all="ignore"):
        from . import kernels as K
        screen = np.where(fin, K.log_zeta(a) + (a - 1.0) * (g - e), np.inf)
    idx = [i for i in np.argsort(screen)[:k] if math.isfinite(screen[i])]
    vals = np.asarray(C.delta_exact(a[idx], g[idx], np.full(len(idx), e)), dtype=float)
    j = int(np.argmin(vals))
    return float(min(vals[j], 1.0)), float(a[idx][j])
