"""Opacus interoperability (``pip install dpderive[opacus]``; Opacus is imported when this
module is, torch with it).

* ``DpDeriveOpacusAccountant``: an ``opacus.accountants.IAccountant`` (``step``,
  ``get_epsilon``, ``get_privacy_spent``, ``history``, ``len``, ``mechanism()``,
  ``state_dict`` / ``load_state_dict`` as Opacus's own accountants), registered with Opacus
  under the mechanism name ``"dpderive"`` so that ``PrivacyEngine(accountant="dpderive")``
  and ``make_private_with_epsilon`` use it.  Every answer is a certified upper bound on
  epsilon(delta); ``last_answer`` (a ``numeric.stateful.Answer``) holds the route, the
  certified bracket [lower, upper] and the step counts it was computed at.
* ``get_noise_multiplier(target_epsilon=, target_delta=, sample_rate=, epochs= | steps=)``:
  Opacus's function of the same name (``opacus.accountants.utils``), solved by dpderive's
  calibration (``numeric.account.calibrate``: the smallest sigma whose certified epsilon
  meets the target, to 1e-4 relative), then checked against what the accountant reports for that
  run, per step included (sigma raised if a report would exceed the target).  Importing this
  module routes Opacus's own
  ``get_noise_multiplier`` (the one ``PrivacyEngine.make_private_with_epsilon`` calls) to it
  for ``accountant="dpderive"`` only; every other mechanism keeps Opacus's bisection.

Methods (``DpDeriveOpacusAccountant(method=...)`` or ``get_epsilon(delta, method=...)``):

* ``best`` (default): per-step cost (a few ms at 2,000 steps, below Opacus's RDP accountant)
  with PLD tightness.  A query made within max(``FULL_AFTER``, steps / ``FULL_FRACTION``)
  steps of the previous one at the same delta (a training loop asking after every step or every
  few) is answered by the incremental PLD route (route ``pld-incremental``,
  ``numeric.pld_incremental``) at lattice resolution ``step_resolution``; the first query, one
  after a longer gap (e.g. once per epoch), or one the incremental route cannot answer runs the
  full route (``full``, ~0.25 s), its cost amortised over the steps since.
* ``full``: ``numeric.account``'s best route (rdp, pld, exact) with the extra PLD lattice
  ``resolution`` (``numeric.stateful.StatefulAccountant(resolution=...)``), every query.
* ``fast``: the incremental route with a coarser lattice and a look-ahead
  (``numeric.pld_incremental``): ~1 ms a step, certified bracket within ~0.5%.
* ``rdp`` / ``pld``: one route of ``numeric.account`` alone.

``accuracy=A`` (constructor, or ``get_epsilon(..., accuracy=A)``): every answer is the full route's
certified bracket refined until its relative width (upper - lower) / upper is at most A, on the
lattices of ``dpderive epsilon --accuracy A`` (the same number to the last digit); a request out of
reach is an error naming the width reached, and the RDP routes (``alphas``, ``method="rdp"``)
refuse it (they give no lower bound).  Every answer (``last_answer``) carries its ``citation``.

The incremental PLD route (what it caches and why it stays sound): ``numeric.pld_incremental``.

Opacus's conventions kept: ``len(accountant)`` is ``len(history)`` (as ``RDPAccountant`` and
``PRVAccountant`` count; ``steps`` is the number of steps); ``get_epsilon(delta, alphas=None,
*, ...)`` takes its positional arguments as ``RDPAccountant.get_epsilon`` does: ``alphas`` (a
list of RDP orders) is honoured (route ``rdp-orders``: dpderive's certified RDP of the history at
exactly those orders with the optimal RDP-to-DP conversion, below Opacus's RDP answer at the
same orders in the tests); ``eps_error`` (PRVAccountant's) is honoured as "the certified bracket is at most this
wide" (refined to the full route if needed, else ``ValueError``); ``delta_error`` is met
trivially (the answer is at delta itself); ``poisson=False`` (GaussianAccountant's) is refused;
any other keyword is a ``TypeError``.  ``get_privacy_spent(delta=, alphas=None)`` returns
``(epsilon, alpha)`` as ``RDPAccountant`` does, where ``alpha`` is the RDP order that gave the
bound when an RDP route answered and ``None`` otherwise: a PLD answer has no order, and no
number is invented for it.  An empty history answers (0.0, None); a zero noise multiplier
epsilon = inf (no finite epsilon exists).
"""
from __future__ import annotations

import functools
import math
import sys

import numpy as np

import opacus.accountants.utils as _opacus_utils
import opacus.privacy_engine as _opacus_engine
from opacus.accountants import IAccountant
from opacus.accountants.registry import _ACCOUNTANTS, register_accountant

from derive.errors import DomainError
from numeric import events as EV
from numeric import pld_incremental as PI

__all__ = ["DpDeriveOpacusAccountant", "get_noise_multiplier", "MECHANISM", "METHODS"]

MECHANISM = "dpderive"
METHODS = ("best", "full", "fast", "rdp", "pld")

STEP_RESOLUTION = 0.02      # lattice of the per-step route of "best" (h = this x one-step std)
FAST_RESOLUTION = 0.05      # ... of "fast"
LOOKAHEAD = 2e-4            # "best": upper bound computed floor(this x steps) steps ahead
FAST_LOOKAHEAD = 3e-3       # "fast"
LOWER_REFRESH = 2e-3        # lower bound recomputed when the steps grew by this fraction
FAST_LOWER_REFRESH = 3e-3
FULL_AFTER = 100            # "best": the full route after this many steps without a query ...
FULL_FRACTION = 20          # ... or steps / this, whichever is more
_CALIBRATION_KWARGS = ("eps_error", "delta_error", "alphas", "poisson")
INCREMENTAL_CITATION = ("privacy-loss distributions of the history's distinct events, composed by one FFT at "
                        "the current counts with certified aliasing and rounding bounds (numeric.pld_compose)")
RDP_ORDERS_CITATION = ("RDP of the Poisson-subsampled Gaussian at the given orders (Mironov, Talwar, Zhang "
                       "2019), each converted exactly (Asoodeh et al. 2021, Thm. 3)")
NO_EVENTS_CITATION = "no steps: nothing is spent"


def _rdp_at_orders(event, orders: np.ndarray) -> np.ndarray:
    """One step's RDP at ``orders`` (inf where the curve has none), as
    ``numeric.stateful.StatefulAccountant._rdp_on_grid`` evaluates it."""
    curve = EV._rdp_event(event)
    out = np.full(orders.shape, np.inf)
    ok = orders <= curve.alpha_max
    if curve.integer_only:
        ok &= orders == np.round(orders)
    isint = orders == np.round(orders)
    with np.errstate(all="ignore"):
        v = np.full(orders.shape, np.inf)
        if (ok & isint).any():
            v[ok & isint] = np.asarray(curve(orders[ok & isint]), dtype=float)
        for i in np.flatnonzero(ok & ~isint):
            v[i] = float(np.asarray(curve(orders[i:i + 1]), dtype=float)[0])
    out[ok] = np.where(np.isfinite(v[ok]) & (v[ok] >= 0), v[ok], np.inf)
    return out


def _check_alphas(alphas) -> np.ndarray:
    if isinstance(alphas, (str, bytes, bool)) or not hasattr(alphas, "__iter__"):
        raise DomainError("alphas", alphas, "a list of RDP orders > 1 (RDPAccountant's alphas)")
    try:
        a = np.asarray([float(x) for x in alphas if not isinstance(x, bool)], dtype=float)
    except (TypeError, ValueError):
        raise DomainError("alphas", alphas, "a list of RDP orders > 1 (RDPAccountant's alphas)") from None
    if a.size == 0 or a.size != len(list(alphas)) or not np.all(np.isfinite(a)) or not np.all(a > 1):
        raise DomainError("alphas", alphas, "a non-empty list of finite RDP orders > 1")
    return a


def _is_real(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _is_zero(v) -> bool:
    return _is_real(v) and v == 0


def _check_pair(nm, q) -> None:
    """``DomainError`` naming the parameter unless (nm, q) is one valid DP-SGD step (as
    ``numeric.stateful.StatefulAccountant.step`` checks it); a zero noise multiplier passes
    (its epsilon is inf)."""
    samp = None if (_is_real(q) and q == 1) else EV.Poisson(q)
    if not _is_zero(nm):
        EV._check_events([EV.Event(EV.Gaussian(nm), samp, 1)], "add_remove")


def _real(name, v, lo=0.0, strict=True):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(v)) or not (float(v) > lo if strict else float(v) >= lo):
        raise DomainError(name, v, f"a finite real {'>' if strict else '>='} {lo:g}")
    return float(v)


# ============================================================================= the accountant
class DpDeriveOpacusAccountant(IAccountant):
    """Opacus accountant answering with dpderive's certified bounds (module docstring)."""

    def __init__(self, method: str = "best", resolution: float | None = 0.01,
                 step_resolution: float = STEP_RESOLUTION, accuracy: float | None = None):
        super().__init__()
        if not isinstance(method, str) or method not in METHODS:
            raise DomainError("method", method, ", ".join(METHODS))
        from numeric.account import check_accuracy
        self.method = method
        #: the certified bracket's largest relative width, (upper - lower) / upper, of every answer
        #: (``numeric.account.refine``: the lattices of ``dpderive epsilon --accuracy``, so both agree)
        self.accuracy = check_accuracy(accuracy)
        self.resolution = resolution      # PLD lattice of the full route (as DpDeriveAccountant)
        self.step_resolution = _real("step_resolution", step_resolution)
        self.last_answer = None
        self._state = None
        self._state_history = ()
        self._engines: dict = {}
        self._queried: dict = {}          # delta -> counts at the previous answer
        self._checked: set = set()        # (noise, rate) pairs validated
        self._rdp: dict = {}              # ((noise, rate), orders) -> one-step RDP
        self._exact_states: dict = {}     # accuracy -> (history, StatefulAccountant) it was built for

    def step(self, *, noise_multiplier: float, sample_rate: float):
        """One step, grouped with the last history entry when both values are equal (as
        Opacus's accountants group them; values are checked when epsilon is asked)."""
        if self.history:
            nm, q, n = self.history[-1]
            if _is_real(nm) and _is_real(noise_multiplier) and _is_real(q) and _is_real(sample_rate) \
                    and nm == noise_multiplier and q == sample_rate:
                self.history[-1] = (nm, q, n + 1)
                return
        self.history.append((noise_multiplier, sample_rate, 1))

    @property
    def steps(self) -> int:
        """The number of steps in ``history`` (``len()`` counts its entries, as Opacus's)."""
        return int(sum(n for _, _, n in self.history))

    def __len__(self) -> int:
        return len(self.history)

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    # --- the history ------------------------------------------------------------------------
    def _totals(self):
        """{(noise, rate): total count} and the last entry's pair, the pairs validated once
        (``DomainError`` naming noise_multiplier / sample_rate / steps as the stateful API)."""
        totals: dict = {}
        for entry in self.history:
            try:
                nm, q, n = entry
            except (TypeError, ValueError):
                raise DomainError("history", entry, "entries (noise_multiplier, sample_rate, steps)") from None
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
                raise DomainError("steps", n, "integers >= 1 (the count of a history entry)")
            key = (nm, q)
            if not (_is_real(nm) and _is_real(q)):
                _check_pair(nm, q)          # raises: the accountant's entries are real numbers
                raise DomainError("noise_multiplier", nm, "one real number")
            if key not in self._checked:
                _check_pair(nm, q)
                self._checked.add(key)
            totals[key] = totals.get(key, 0) + int(n)
        last = tuple(self.history[-1][:2])
        return totals, last

    def _synced(self):
        """The stateful accountant for the current ``history`` (extended in place when the
        history only grew at its end; rebuilt when it was assigned or loaded)."""
        from numeric.stateful import StatefulAccountant
        h = tuple(tuple(x) for x in self.history)
        old = self._state_history
        if self._state is not None and len(h) >= len(old) and h[:max(len(old) - 1, 0)] == old[:-1] \
                and (not old or (h[len(old) - 1][:2] == old[-1][:2] and h[len(old) - 1][2] >= old[-1][2])):
            if old:
                extra = h[len(old) - 1][2] - old[-1][2]
                if extra:
                    self._state.step(noise_multiplier=old[-1][0], sample_rate=old[-1][1], count=extra)
            for nm, q, n in h[len(old):]:
                self._state.step(noise_multiplier=nm, sample_rate=q, count=n)
        else:
            self._state = StatefulAccountant(resolution=self.resolution)
            for nm, q, n in h:
                self._state.step(noise_multiplier=nm, sample_rate=q, count=n)
        self._state_history = h
        return self._state

    def _engine(self, method):
        e = self._engines.get(method)
        if e is None:
            e = self._engines[method] = (
                PI._IncrementalPLD(self.step_resolution, LOOKAHEAD, LOWER_REFRESH) if method == "best"
                else PI._IncrementalPLD(FAST_RESOLUTION, FAST_LOOKAHEAD, FAST_LOWER_REFRESH))
        return e

    # --- answers ----------------------------------------------------------------------------
    def get_epsilon(self, delta: float, alphas=None, *, method: str | None = None,
                    eps_error: float | None = None, delta_error: float | None = None,
                    poisson: bool = True, accuracy: float | None = None, **kwargs) -> float:
        """The certified epsilon(delta) spent so far.  Positional arguments as
        ``RDPAccountant.get_epsilon(delta, alphas)``; ``method`` (best, full, fast, rdp, pld),
        ``eps_error`` (the certified bracket's largest width), ``accuracy`` (its largest relative
        width; default the constructor's), ``delta_error`` (met: none is used) and ``poisson``
        (True only) by keyword (module docstring)."""
        from numeric.stateful import Answer, _one_real
        from numeric.kernels import check_open01
        if kwargs:
            raise TypeError("DpDeriveOpacusAccountant.get_epsilon() got unexpected keyword "
                            f"argument(s) {', '.join(sorted(kwargs))} (it takes delta, alphas, "
                            "method, eps_error, accuracy, delta_error, poisson)")
        d = float(check_open01(_one_real("delta", delta), "delta"))
        m = self.method if method is None else method
        if not isinstance(m, str) or m not in METHODS:
            raise DomainError("method", m, ", ".join(METHODS))
        if eps_error is not None:
            eps_error = _real("eps_error", eps_error)
        from numeric.account import check_accuracy
        acc = self.accuracy if accuracy is None else check_accuracy(accuracy)
        if acc is not None and (alphas is not None or m not in ("best", "full", "fast", "pld")):
            raise DomainError("accuracy", acc, "None with an RDP route (alphas or method='rdp' give no "
                              "certified lower bound)")
        if delta_error is not None:
            _real("delta_error", delta_error, strict=False)
        if poisson is not True:
            raise DomainError("poisson", poisson, "True (Poisson sampling, the only sampling this "
                              "accountant's history describes; GaussianAccountant's poisson=False "
                              "is not supported)")
        orders = None
        if alphas is not None:
            orders = _check_alphas(alphas)
            if method not in (None, "rdp"):
                raise DomainError("alphas", alphas, f"None with method={method!r} (alphas selects "
                                  "the RDP route at those orders)")
        if not self.history:
            self.last_answer = Answer("epsilon", d, 0.0, 0.0, 0.0, "none", 0, citation=NO_EVENTS_CITATION)
            return 0.0
        totals, last = self._totals()
        steps = int(sum(totals.values()))
        if any(_is_zero(nm) for nm, _ in totals):
            self.last_answer = Answer("epsilon", d, math.inf, math.inf, math.inf, "non-private", steps,
                                      {"note": "a noise multiplier 0: no finite epsilon exists"},
                                      "a step without noise reveals its batch: no finite epsilon")
            return math.inf
        if orders is not None:
            ans = self._rdp_orders(totals, orders, d, steps)
        elif acc is not None:
            ans = self._refined(acc, d)
        else:
            ans = self._answer(m, totals, last, d, steps)
            if eps_error is not None and ans.upper - ans.lower > eps_error and m in ("best", "fast"):
                ans = self._full("best", d)
        if eps_error is not None and not ans.upper - ans.lower <= eps_error:
            raise DomainError("eps_error", eps_error, f">= {ans.upper - ans.lower:.6g}: the certified "
                              f"bracket [{ans.lower:.6g}, {ans.upper:.6g}] of route {ans.route} is wider")
        self._queried[d] = totals
        self.last_answer = ans
        return float(ans.value)

    def _answer(self, m, totals, last, d, steps):
        if m in ("best", "fast"):
            prev = self._queried.get(d)
            sparse = prev is None or any(totals.get(k, 0) < n for k, n in prev.items()) or \
                steps - sum(prev.values()) >= max(FULL_AFTER, steps // FULL_FRACTION)
            if m == "fast" or not sparse:
                try:
                    up, lo, extras = self._engine(m).epsilon(totals, last, d)
                except PI._Unsupported:
                    pass
                else:
                    from numeric.stateful import Answer
                    return Answer("epsilon", d, up, min(lo, up), up, "pld-incremental", steps, extras,
                                  INCREMENTAL_CITATION)
            return self._full("fast" if m == "fast" else "best", d)
        return self._full("best" if m == "full" else m, d)

    def _full(self, m, d):
        # numeric's routes meet doubles' limits at extreme inputs (sigma = 1e-300: 1/sigma^2
        # overflows) and answer inf / leave the route out, saying so in the note; their NumPy
        # warnings are not the user's to read
        with np.errstate(all="ignore"):
            ans = self._synced().epsilon(d, m)
        if ans.value != ans.value or ans.lower != ans.lower:
            raise ArithmeticError(f"no epsilon: the route {ans.route} answered NaN")
        return ans

    def _refined(self, accuracy, d):
        """The full route refined to ``accuracy`` (``numeric.stateful.StatefulAccountant(accuracy=)``,
        the lattices of ``dpderive epsilon --accuracy``); out of reach: ``SearchLimitError``."""
        from numeric.stateful import StatefulAccountant
        st = self._exact_states.get(accuracy)
        h = tuple(tuple(x) for x in self.history)
        if st is None or st[0] != h:
            acct = StatefulAccountant(accuracy=accuracy)
            for nm, q, n in h:
                acct.step(noise_multiplier=nm, sample_rate=q, count=n)
            st = self._exact_states[accuracy] = (h, acct)
        with np.errstate(all="ignore"):
            return st[1].epsilon(d, "best")

    def _rdp_orders(self, totals, orders, d, steps):
        """min over ``orders`` of the optimal conversion of the history's RDP there (rounded
        up by 1e-12 relative, as ``numeric.stateful``), and the order attaining it."""
        from numeric import fastconv
        from numeric.stateful import Answer
        g = np.zeros(orders.shape)
        ok = tuple(orders.tolist())
        for (nm, q), n in totals.items():
            key = ((nm, q), ok)
            one = self._rdp.get(key)
            if one is None:
                samp = EV.Poisson(q) if q != 1 else None
                one = self._rdp[key] = _rdp_at_orders(EV.Event(EV.Gaussian(nm), samp, 1), orders)
            g = g + n * one
        g = g * (1 + 1e-12)
        best, alpha = math.inf, None
        for a, v in zip(orders, g):
            if math.isfinite(v):
                e = fastconv.eps_solve(float(a), float(v), d)[0]
                if e < best:
                    best, alpha = e, float(a)
        if not math.isfinite(best):
            raise DomainError("alphas", orders.tolist(), "orders at which the history has a finite RDP bound")
        return Answer("epsilon", d, best, 0.0, best, "rdp-orders", steps, {"alpha": alpha},
                      RDP_ORDERS_CITATION)

    def get_privacy_spent(self, *, delta: float, alphas=None, **kwargs):
        """(epsilon, alpha) as ``RDPAccountant.get_privacy_spent``: alpha is the RDP order that
        gave the bound when an RDP route answered (``alphas`` given, or route rdp / rdp-grid),
        else None (a PLD bound has no order; none is made up)."""
        eps = self.get_epsilon(delta, alphas, **kwargs)
        ans = self.last_answer
        alpha = None
        if ans is not None and ans.route in ("rdp", "rdp-grid", "rdp-orders"):
            a = ans.extras.get("alpha")
            alpha = float(a) if isinstance(a, (int, float)) else None
        return eps, alpha


def _register():
    cur = _ACCOUNTANTS.get(MECHANISM)
    if cur is None or (cur is not DpDeriveOpacusAccountant and getattr(cur, "__module__", None) == __name__):
        register_accountant(MECHANISM, DpDeriveOpacusAccountant, force=True)


_register()


# ============================================================================= calibration
def get_noise_multiplier(*, target_epsilon: float, target_delta: float, sample_rate: float,
                         epochs: int | None = None, steps: int | None = None,
                         accountant: str = MECHANISM, epsilon_tolerance: float = 0.01,
                         method: str = "best", eps_error: float | None = None,
                         delta_error: float | None = None, alphas=None, poisson: bool = True) -> float:
    """The smallest noise multiplier whose certified epsilon(target_delta) after ``steps``
    (or ``epochs`` / ``sample_rate``, rounded as Opacus: int(epochs / sample_rate)) Poisson
    steps is at most ``target_epsilon``, solved by ``numeric.account.calibrate`` (to 1e-4
    relative in sigma) and checked against what ``DpDeriveOpacusAccountant`` reports for that
    run: at the last step (full route), and per step (the incremental route, its look-ahead
    included); sigma is raised (by 1.5 x the relative excess) until both meet the target.
    ``epsilon_tolerance`` (Opacus's): the largest reported epsilon is within it below the target
    (else the solve is refined, then ``DomainError``); ``eps_error``: the final certified bracket is
    at most this wide; ``delta_error`` is met (none is used); ``accountant`` must be
    "dpderive" (Opacus's own mechanisms: ``opacus.accountants.utils.get_noise_multiplier``);
    ``alphas`` and ``poisson=False`` are refused."""
    from numeric import account
    if accountant != MECHANISM:
        raise DomainError("accountant", accountant, f"'{MECHANISM}' (this calibrator uses dpderive's "
                          "accountant; Opacus's own mechanisms are solved by "
                          "opacus.accountants.utils.get_noise_multiplier)")
    if alphas is not None:
        raise DomainError("alphas", alphas, "None (dpderive's calibrator solves with its certified "
                          "best route, not at given RDP orders)")
    if poisson is not True:
        raise DomainError("poisson", poisson, "True (Poisson sampling)")
    tol = _real("epsilon_tolerance", epsilon_tolerance)
    if eps_error is not None:
        eps_error = _real("eps_error", eps_error)
    if delta_error is not None:
        _real("delta_error", delta_error, strict=False)
    if (steps is None) == (epochs is None):
        raise ValueError("get_noise_multiplier takes as input EITHER a number of steps or a number of epochs")
    sample_rate = _real("sample_rate", sample_rate)
    if not sample_rate <= 1:
        raise DomainError("sample_rate", sample_rate, "(0, 1]")
    if steps is None:
        n = _real("epochs", epochs) / sample_rate
        if not 1 <= n <= 1e9:
            raise DomainError("epochs", epochs, f"epochs / sample_rate in [1, 1e9] steps (here {n:g})")
        steps = int(n)
    elif isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or not 1 <= steps <= 10 ** 9:
        raise DomainError("steps", steps, "integers in [1, 1e9]")
    steps = int(steps)
    samp = EV.Poisson(sample_rate) if sample_rate < 1 else None

    def make(sigma):
        return [EV.Event(EV.Gaussian(sigma), samp, int(steps))]

    engine = PI._IncrementalPLD(STEP_RESOLUTION, 0.0, LOWER_REFRESH)   # no look-ahead of its own

    def reported(sigma):
        """(a bound on every epsilon DpDeriveOpacusAccountant reports for this run, a certified
        lower bound on its true epsilon, the profile).  The full route answers min(this
        ``profile``, a finer PLD) <= the profile's value; the per-step route at step t <= steps
        answers its bound at t + floor(LOOKAHEAD t) <= steps + floor(LOOKAHEAD steps) steps."""
        p = account.profile(make(sigma), "epsilon", target_delta, "best")
        worst = float(p.value)
        try:
            key = (sigma, sample_rate)
            up, _, _ = engine.epsilon({key: int(steps) + int(math.floor(LOOKAHEAD * int(steps)))}, key,
                                      float(target_delta), lower=False)
            worst = max(worst, up)
        except PI._Unsupported:
            pass                  # the accountant answers by the full route there
        return worst, float(p.extras.get("epsilon_lower", 0.0)), p

    for rtol in (1e-4, 1e-7):
        r = account.calibrate(make, target_epsilon, target_delta, "sigma", 0.05, 1e4, method=method,
                              rtol=rtol)
        sigma = float(r.value)
        for _ in range(16):
            worst, lower, prof = reported(sigma)
            if worst <= target_epsilon:
                break
            # epsilon falls about as 1/sigma: raise sigma by 1.5 times the relative excess
            sigma = math.nextafter(sigma * (1 + 1.5 * (worst / target_epsilon - 1) + 1e-6), math.inf)
        else:
            raise DomainError("target_epsilon", target_epsilon, "a target the accountant's reports "
                              "meet within 16 raises of the calibrated sigma")
        if target_epsilon - worst <= tol:     # as Opacus's bisection: the reported epsilon
            break
    else:
        raise DomainError("epsilon_tolerance", epsilon_tolerance, f">= {target_epsilon - worst:.6g} "
                          f"(reported epsilon {worst:.6g} at sigma = {sigma:.6g})")
    if eps_error is not None and not worst - lower <= eps_error:
        raise DomainError("eps_error", eps_error, f">= {worst - lower:.6g} (the certified bracket "
                          f"[{lower:.6g}, {worst:.6g}] at sigma = {sigma:.6g})")
    return sigma


# ============================================================================= Opacus's calibrator
def _route(original, from_engine: bool):
    """Opacus's ``get_noise_multiplier`` with accountant="dpderive" sent to this module's (looked
    up at call time); any other accountant to ``original`` unchanged.  ``from_engine``: the copy
    ``PrivacyEngine.make_private_with_epsilon`` calls, whose extra keywords are make_private's
    (the optimizer's): only the accountant's own (``_CALIBRATION_KWARGS``) reach the calibrator."""

    @functools.wraps(original)
    def get_noise_multiplier_routed(*, accountant: str = "rdp", **kwargs):
        if accountant != MECHANISM:
            return original(accountant=accountant, **kwargs)
        mine = sys.modules[__name__].get_noise_multiplier
        if from_engine:
            keep = ("target_epsilon", "target_delta", "sample_rate", "epochs", "steps",
                    "epsilon_tolerance") + _CALIBRATION_KWARGS
            kwargs = {k: v for k, v in kwargs.items() if k in keep}
        return mine(accountant=accountant, **kwargs)

    get_noise_multiplier_routed._dpderive_route = True
    get_noise_multiplier_routed._dpderive_original = original
    return get_noise_multiplier_routed


def _install_route():
    for mod, from_engine in ((_opacus_utils, False), (_opacus_engine, True)):
        cur = getattr(mod, "get_noise_multiplier")
        if getattr(cur, "_dpderive_route", False):
            cur = cur._dpderive_original
        setattr(mod, "get_noise_multiplier", _route(cur, from_engine))


_install_route()
