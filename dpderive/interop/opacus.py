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
  few) is answered by the incremental PLD route (route ``pld-incremental``, below) at lattice
  resolution ``step_resolution``; the first query, one after a longer gap (e.g. once per epoch),
  or one the incremental route cannot answer runs the full route (``full``, ~0.25 s), its cost
  amortised over the steps since.
* ``full``: ``numeric.account``'s best route (rdp, pld, exact) with the extra PLD lattice
  ``resolution`` (``numeric.stateful.StatefulAccountant(resolution=...)``), every query.
* ``fast``: the incremental route with a coarser lattice and a look-ahead (below): ~1 ms a
  step, certified bracket within ~0.5%.
* ``rdp`` / ``pld``: one route of ``numeric.account`` alone.

``accuracy=A`` (constructor, or ``get_epsilon(..., accuracy=A)``): every answer is the full route's
certified bracket refined until its relative width (upper - lower) / upper is at most A, on the
lattices of ``dpderive epsilon --accuracy A`` (the same number to the last digit); a request out of
reach is an error naming the width reached, and the RDP routes (``alphas``, ``method="rdp"``)
refuse it (they give no lower bound).  Every answer (``last_answer``) carries its ``citation``.

The incremental PLD route (``_IncrementalPLD``).  Opacus's history is a composition of
Poisson-subsampled Gaussians; composition is commutative, so only the total count of each
distinct (noise multiplier, sample rate) matters.  Per distinct event the one-step lattice PLDs
(pessimistic and optimistic, both neighbouring directions, ``numeric.pld_lattice.discretise``)
are computed once; a query composes them by one FFT at the current counts
(``numeric.pld_compose.compose``, with its certified aliasing and floating-point bounds) and reads
epsilon off the pessimistic side (``_eps_from``).  What is cached and why it stays sound:

* the n-fold window's Chernoff ends are min over lambda of (n K(lambda) - log tail)/lambda;
  K(lambda) is cached on a fixed geometric grid of lambda, so the end for any n is a few
  multiplications.  Any lambda gives a valid tail bound (the minimum only narrows the window).
* epsilon(delta) can only grow with the steps (dropping steps is post-processing), per
  neighbouring direction.  So an upper bound computed for a *larger* count bounds every smaller
  one (a look-ahead: ``lookahead`` x the steps more of the last event, 0 for ``best`` below
  5,000 steps), and a lower bound computed for a *smaller* count bounds every larger one (it is
  refreshed when the steps have grown by ``lower_refresh``, or when the bracket is wider than
  ``LOWER_GAP`` of the answer; its lattice is refined while that pays).  Under add/remove
  neighbours the answer is the worse of the two directions; the other one, a fraction g below it,
  is bounded with a look-ahead of g/2 of the steps (at most 10%) and recomputed tightly only when
  that bound reaches the worse one's, so the maximum reported is always a current, tight bound.
  (The look-ahead and the cached bounds also cover a history that was assigned or loaded: a
  bound is reused only for counts it covers and at most its own look-ahead below it.)
* several distinct events (a noise schedule): every one-step PLD on one lattice (the first event's
  step times a power of 2), the factors that no longer grow convolved once and trimmed to the
  range holding all but 1e-16 of their mass (added to the tail bound); only the growing factor is
  recomposed and convolved with them per query.
* more than ``MAX_FACTORS`` distinct events, a sample rate of 1, a noise multiplier outside the
  PLD route's range, a window beyond ``WINDOW_CAP`` lattice points even on a lattice twice as
  coarse (millions of steps at the default resolution), or a numerical error bound that is not
  small against delta: the query goes to the full route.

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

__all__ = ["DpDeriveOpacusAccountant", "get_noise_multiplier", "MECHANISM", "METHODS"]

MECHANISM = "dpderive"
METHODS = ("best", "full", "fast", "rdp", "pld")

STEP_RESOLUTION = 0.02      # lattice of the per-step route of "best" (h = this x one-step std)
FAST_RESOLUTION = 0.05      # ... of "fast"
LOOKAHEAD = 2e-4            # "best": upper bound computed floor(this x steps) steps ahead
FAST_LOOKAHEAD = 3e-3       # "fast"
LOWER_REFRESH = 2e-3        # lower bound recomputed when the steps grew by this fraction
FAST_LOWER_REFRESH = 3e-3
LOWER_GAP = 0.005           # refine the lower bound's lattice while the bracket is wider
MAX_LOWER_REFINE = 4        # ... at most 2^this times finer than the upper bound's
SIDE_LOOKAHEAD = 0.1        # look-ahead of the direction that is not the worse one
FULL_AFTER = 100            # "best": the full route after this many steps without a query ...
FULL_FRACTION = 20          # ... or steps / this, whichever is more
MAX_FACTORS = 64            # distinct (noise, rate) pairs the incremental route composes
TRIM_MASS = 1e-16           # mass trimmed off each end of a cached product (added to its tail)
WINDOW_CAP = 2 ** 21        # lattice points of a composed window (coarser lattice beyond) ...
MAX_COARSEN = 1             # ... at most 2^this coarser than asked (beyond: the full route)
ERROR_SHARE = 1e-3          # the route's numerical error terms must stay below this x delta
_CALIBRATION_KWARGS = ("eps_error", "delta_error", "alphas", "poisson")
INCREMENTAL_CITATION = ("privacy-loss distributions of the history's distinct events, composed by one FFT at "
                        "the current counts with certified aliasing and rounding bounds (numeric.pld_compose)")
RDP_ORDERS_CITATION = ("RDP of the Poisson-subsampled Gaussian at the given orders (Mironov, Talwar, Zhang "
                       "2019), each converted exactly (Asoodeh et al. 2021, Thm. 3)")
NO_EVENTS_CITATION = "no steps: nothing is spent"


class _Unsupported(Exception):
    """The incremental route cannot answer this history (the full route does)."""


class _TooWide(Exception):
    """A composed window beyond WINDOW_CAP lattice points (the lattice is coarsened)."""


# ============================================================================= incremental PLD
class _Chernoff:
    """The Chernoff end t_n with P[sign * S_n >= t_n] <= tail for the n-fold sum of one
    lattice pmf, any n: min over a geometric grid of lambda of (n K(lambda) + c) / lambda,
    c = -log tail, with K(lambda) = log sum_i w_i e^{lambda sign l_i} cached per grid point.
    As ``numeric.pld_compose._chernoff_end``: a pmf longer than CHERNOFF_BLOCKS is merged into
    blocks placed at their largest value of sign * loss (K only grows).  Every lambda gives a
    valid end; K is rounded up by 1e-12 relative."""

    RATIO = 1.02

    def __init__(self, pmf, sign: float, tail: float):
        from numeric import pld_compose as PC
        ls, w = sign * pmf.losses, pmf.w
        if sign < 0:
            ls, w = ls[::-1], w[::-1]
        r = int(np.ceil(w.size / PC.CHERNOFF_BLOCKS))
        idx = np.arange(0, w.size, r)
        wb = np.add.reduceat(w, idx)
        lb = ls[np.minimum(idx + r - 1, w.size - 1)]
        keep = wb > 0
        self.lw, self.lb = np.log(wb[keep]), lb[keep]
        self.c = -math.log(tail)
        spread = max(w.size * pmf.h, pmf.h)
        lr = math.log(self.RATIO)
        self.jlo, self.jhi = math.floor(math.log(1e-2 / spread) / lr), math.ceil(math.log(1e5 / spread) / lr)
        self.var = 0.0
        if self.lb.size:
            p = np.exp(self.lw - np.max(self.lw))
            p /= p.sum()
            m = float(np.sum(p * self.lb))
            self.var = float(np.sum(p * (self.lb - m) ** 2))
        self._K: dict = {}
        self._last = None

    def _f(self, j: int, n: int) -> float:
        k = self._K.get(j)
        if k is None:
            lam = self.RATIO ** j
            with np.errstate(over="ignore", invalid="ignore"):
                x = self.lw + lam * self.lb
                xm = float(np.max(x))
                e = x[x > xm - 500.0]
                k = xm + math.log(float(np.sum(np.exp(e - xm)))) if math.isfinite(xm) else math.inf
            self._K[j] = k
        if not math.isfinite(k):
            return math.inf
        k = k + abs(k) * 1e-12 + 1e-13          # its float error (sums of exp: ~1e-14 absolute)
        return (n * k + self.c) / self.RATIO ** j

    def end(self, n: int) -> float:
        if self.lb.size == 0:
            return -math.inf
        lr = math.log(self.RATIO)
        j = self._last
        if j is None:                 # the Gaussian guess sqrt(2 c / (n K''(0))), then warm starts
            j = int(round(0.5 * math.log(2 * self.c / (n * self.var)) / lr)) if self.var > 0 else self.jhi
        j = min(max(j, self.jlo), self.jhi)
        best, at = self._f(j, n), j
        for step in (1, -1):          # the objective is unimodal in lambda: walk downhill
            k, fk = j, self._f(j, n)
            while self.jlo <= k + step <= self.jhi:
                fn = self._f(k + step, n)
                if not fn < fk:
                    break
                k, fk = k + step, fn
            if fk < best:
                best, at = fk, k
        self._last = at
        return best


def _compose(st: dict, pmf, n: int, window):
    """``numeric.pld_compose.compose(pmf, n, window=window)`` with the circular buffer's size M
    kept across calls (M >= the window; any such M is certified: what wraps around is mass
    outside the window, bounded by its tail) and, for that M, the forward FFT and the
    extended-precision modes (``_dft_accurate``: values and error bound depend on (pmf, M) only)
    cached in ``st``.  The spectrum's power and its error bound are ``_power_spectrum``'s, line
    for line: at the M compose would choose the result is the same to the bit
    (tests/test_interop_opacus.py)."""
    from numeric import pld_compose as PC
    from numeric.kernels import next_fast_len
    from numpy.fft import irfft, rfft
    if n == 1:
        return PC.Composed(pmf.h, pmf.k0, pmf.w.copy(), 0.0, 0.0, pmf.inf_mass)
    inf_n = float(-np.expm1(n * np.log1p(-pmf.inf_mass))) if pmf.inf_mass > 0 else 0.0
    J_lo, J_hi, t_out = window
    W = J_hi - J_lo + 1
    need_M = next_fast_len(max(W, pmf.w.size), real=True)
    M = st.get("M")
    if M is None or M < need_M or M > 2 * need_M:
        M = next_fast_len(max(int(math.ceil(st.get("headroom", 1.25) * W)), pmf.w.size), real=True)
        buf = np.zeros(M)
        buf[: pmf.w.size] = pmf.w
        what = rfft(buf)
        mass = float(pmf.w.sum())
        e = 10 * PC._EPS * np.log2(M) * mass
        A = np.abs(what) + e
        with np.errstate(divide="ignore"):
            logA = np.log(A)
        st.update(M=M, what=what, e=e, A=A, logA=logA, acc=np.zeros(what.size, dtype=np.clongdouble),
                  have=np.zeros(what.size, dtype=bool), acc_err=0.0,
                  cheap=min(pmf.w.size, 8 * int(np.count_nonzero(pmf.w))))
    what, e, A, logA = st["what"], st["e"], st["A"], st["logA"]
    # --- numeric.pld_compose._power_spectrum(pmf.w, n, M) ------------------------------------
    logAn = n * logA
    ks = np.nonzero(logAn > PC._SIG_LOG)[0]
    err = M * np.exp(PC._SIG_LOG)
    mult = PC._mult(M, ks)
    z, e_k = what[ks].astype(np.clongdouble), np.full(ks.size, e)
    if n > 1 and ks.size:
        contrib = mult * n * e * np.exp(logAn[ks] - logA[ks])
        order = np.argsort(-contrib)
        rest = np.cumsum(contrib[order][::-1])[::-1]
        need = order[rest > PC.ACCURATE_TARGET]
        if need.size and need.size * st["cheap"] <= 6e7:
            kn = ks[need]
            miss = kn[~st["have"][kn]]
            if miss.size:
                vals, ev = PC._dft_accurate(pmf.w, M, miss)
                st["acc"][miss] = vals
                st["have"][miss] = True
                st["acc_err"] = max(st["acc_err"], float(ev))
            z[need], e_k[need] = st["acc"][kn], st["acc_err"]
    spec, err = PC.power_modes(z, e_k, n, mult, ks, what.size, M, err)
    # --- numeric.pld_compose.compose ---------------------------------------------------------
    out = irfft(spec, n=M)
    start = (J_lo - n * pmf.k0) % M
    c = out[start:start + W] if start + W <= M else np.concatenate((out[start:], out[: start + W - M]))
    return PC.Composed(pmf.h, J_lo, c, t_out, err, inf_n)


def _l2(x) -> float:
    return math.sqrt(float(np.sum(x * x))) * (1 + 1e-12)


def _convolve(a, b, cache: dict | None = None):
    """``numeric.pld_compose.convolve(a, b)`` (the same product and error bound) with the
    2-norms summed by NumPy instead of ``np.linalg.norm`` (BLAS threads cost ~10 ms a call on a
    loaded machine), rounded up by 1e-12 relative; ``cache`` (for a factor ``a`` that stays)
    keeps a's clipped masses, norm and forward FFTs."""
    from numeric import pld_compose as PC
    from numeric.kernels import next_fast_len
    from numpy.fft import irfft, rfft
    if not np.isclose(a.h, b.h, rtol=1e-12, atol=0.0):
        raise DomainError("h", b.h, f"the lattice step of the other factor ({a.h!r})")
    cache = {} if cache is None else cache
    if "ca" not in cache:
        cache["ca"] = ca = np.clip(a.c, 0.0, None)
        cache["l2"], cache["sum"] = _l2(ca), float(ca.sum())
    ca, cb = cache["ca"], np.clip(b.c, 0.0, None)
    n = ca.size + cb.size - 1
    M = next_fast_len(n, real=True)
    fa = cache.get(("fft", M))
    if fa is None:
        fa = cache[("fft", M)] = rfft(ca, M)
    c = irfft(fa * rfft(cb, M), n=M)[:n]
    e_conv = 10 * PC._EPS * np.log2(max(M, 2)) * np.sqrt(M) * (cache["l2"] + _l2(cb) + 2 * _l2(c))
    e = a.fft_err * cache["sum"] + b.fft_err * (float(cb.sum()) + a.fft_err) + e_conv
    inf = float(-np.expm1(np.log1p(-a.inf_mass) + np.log1p(-b.inf_mass)))
    return PC.Composed(a.h, a.j0 + b.j0, c, a.t_out + b.t_out, float(e), inf)


def _trim(comp, mass: float = TRIM_MASS):
    """``comp`` restricted to the lattice points inside which all but ``mass`` (at most, each
    end) of its masses lie: a product of factors spans the sum of their windows, its mass a far
    narrower range.  Sound as ``Composed`` reads it: the true mass left outside is at most the
    trimmed c's positive parts plus their float error (<= fft_err), added to ``t_out``."""
    from numeric import pld_compose as PC
    pos = np.clip(comp.c, 0.0, None)
    lo_cum, hi_cum = np.cumsum(pos), np.cumsum(pos[::-1])
    i0 = int(np.searchsorted(lo_cum, mass, side="right"))             # sum pos[:i0] <= mass
    i1 = pos.size - int(np.searchsorted(hi_cum, mass, side="right"))  # sum pos[i1:] <= mass
    if i1 - i0 < 1 or (i0 == 0 and i1 == pos.size):
        return comp
    removed = (float(lo_cum[i0 - 1]) if i0 else 0.0) + (float(hi_cum[pos.size - i1 - 1]) if i1 < pos.size else 0.0)
    t_out = comp.t_out + removed * (1 + 1e-12) + comp.fft_err
    return PC.Composed(comp.h, comp.j0 + i0, comp.c[i0:i1].copy(), t_out, comp.fft_err, comp.inf_mass)


class _IncrementalPLD:
    """Certified PLD bounds on epsilon(delta) of a composition of Poisson-subsampled Gaussians
    given as total counts {(noise multiplier, sample rate): count}, with the one-step lattices
    and the Chernoff data cached across queries (module docstring)."""

    def __init__(self, resolution: float, lookahead: float, lower_refresh: float):
        from numeric import pld
        self.resolution, self.lookahead, self.lower_refresh = resolution, lookahead, lower_refresh
        self.tail = pld.TAIL_BOUND
        self._models: dict = {}     # key -> one-step loss models
        self._h0: dict = {}         # frozenset of keys -> lattice step
        self._anchor = None         # the first lattice step (the others: it times 2^k)
        self._too_long: dict = {}   # frozenset of keys -> steps from which windows are too wide
        self._coarsen: dict = {}    # frozenset of keys -> extra factor 2^k on the lattice step
        self._pmf: dict = {}        # (key, direction, pessimistic, h) -> (pmf, Chernoff up, down)
        self._comp: dict = {}       # (key, direction, pessimistic, h) -> (count, Composed)
        self._spectra: dict = {}    # (key, direction, pessimistic, h) -> _compose's cache
        self._rest: dict = {}       # (direction, pessimistic, h) -> (((key, count), ...), Composed)
        self._ahead: dict = {}      # (delta, direction) -> (totals, upper bound, kind, look-ahead)
        self._lower: dict = {}      # delta -> (totals, lower bound)
        self._lo_level: dict = {}   # frozenset of keys -> refinement level of the lower lattice
        self._lo_stop: set = set()  # frozensets of keys whose lower lattice refining did not pay
        self._worse: dict = {}      # delta -> the direction giving the answer last time
        self._side: dict = {}       # (delta, direction) -> its look-ahead below the worse one

    # --- the lattice ----------------------------------------------------------------------
    def models(self, key):
        got = self._models.get(key)
        if got is None:
            sigma, q = key
            if not 0 < q < 1:
                raise _Unsupported("sample rate 1 (the exact route answers it)")
            ev = EV.Event(EV.Gaussian(sigma), EV.Poisson(q), 1)
            try:
                EV.pld_screen([ev])
                got = EV._pld_models(ev)
            except (EV.RouteError, DomainError) as exc:
                raise _Unsupported(str(exc)) from None
            self._models[key] = got
        return got

    def _h(self, keys) -> float:
        """The common lattice step of the events ``keys`` (as ``numeric.pld.composite``: the
        finest default step among them), times 2^k once the window was too wide k times."""
        fk = frozenset(keys)
        h = self._h0.get(fk)
        if h is None:
            from numeric import pld
            h = min(pld._choose_h(self.models(k), None, self.resolution) for k in keys)
            if self._anchor is None:
                self._anchor = h
            # on the lattice of the first event's step times a power of 2 (within a factor
            # sqrt 2 of the finest default step): a new noise multiplier in a schedule keeps the
            # lattice, and every one-step PLD already discretised, unless its spread differs 1.4x
            h = self._h0[fk] = self._anchor * 2.0 ** round(math.log2(h / self._anchor))
        return h * 2.0 ** self._coarsen.get(fk, 0)

    def _directions(self, keys) -> list:
        dirs = sorted({d for k in keys for d in self.models(k) if d != "single"})
        if not dirs:
            raise _Unsupported("no subsampled event")
        return dirs

    def _factor(self, key, d, pes, h):
        pk = (key, d, pes, h)
        got = self._pmf.get(pk)
        if got is None:
            from numeric.pld_lattice import discretise
            m = self.models(key)
            pmf = discretise(m.get(d, m.get("single")), h, pes)
            got = (pmf, _Chernoff(pmf, 1.0, self.tail), _Chernoff(pmf, -1.0, self.tail))
            self._pmf[pk] = got
        return got

    def _composed(self, key, n, d, pes, h):
        ck = (key, d, pes, h)
        got = self._comp.get(ck)
        if got is not None and got[0] == n:
            return got[1]
        pmf, up, down = self._factor(key, d, pes, h)
        if n == 1:
            win = None
        else:
            full_lo, full_hi = n * pmf.k0, n * (pmf.k0 + pmf.w.size - 1)
            hi, lo = up.end(n), -down.end(n)
            J_hi = min(full_hi, math.ceil(hi / h) + 1) if math.isfinite(hi) else full_hi
            J_lo = max(full_lo, math.floor(lo / h) - 1) if math.isfinite(lo) else full_lo
            if J_hi - J_lo + 1 > WINDOW_CAP:
                raise _TooWide()
            win = (J_lo, J_hi, (self.tail if J_hi < full_hi else 0.0) + (self.tail if J_lo > full_lo else 0.0))
        comp = _compose(self._spectra.setdefault(ck, {}), pmf, int(n), win)
        self._comp[ck] = (n, comp)
        return comp

    def _product(self, totals: dict, last, d, pes, h):
        """The composed lattice PLD of direction d (pessimistic or optimistic side) for the
        counts ``totals``; the factors other than ``last`` (the growing one) cached."""
        rest = tuple(sorted((k, n) for k, n in totals.items() if k != last))
        out = None
        if rest:
            rk = (d, pes, h)
            got = self._rest.get(rk)
            if got is not None and got[0] == rest:
                out, cache = got[1], got[2]
            else:
                for k, n in rest:
                    c = self._composed(k, n, d, pes, h)
                    out = c if out is None else _trim(_convolve(out, c))
                cache = {}
                self._rest[rk] = (rest, out, cache)
        if last in totals:
            c = self._composed(last, totals[last], d, pes, h)
            out = c if out is None else _convolve(out, c, cache)
        if out.c.size > WINDOW_CAP:
            raise _TooWide()
        return out

    def _eps(self, totals, last, d, delta, upper: bool, h: float | None = None) -> float:
        """epsilon(delta) of direction d for the counts ``totals`` on the lattice ``h`` (default:
        the keys' common step, coarsened while a window is too wide), certified: the upper end
        from the pessimistic side, the lower end from the optimistic side."""
        from numeric import pld_compose as PC
        keys = tuple(sorted(totals))
        fk = frozenset(keys)
        steps = sum(totals.values())
        if steps >= self._too_long.get(fk, math.inf):
            raise _Unsupported("window beyond WINDOW_CAP")
        while True:
            try:
                comp = self._product(totals, last, d, upper, self._h(keys) if h is None else h)
                break
            except _TooWide:
                if h is None and self._coarsen.get(fk, 0) < MAX_COARSEN:
                    self._coarsen[fk] = self._coarsen.get(fk, 0) + 1   # coarser: still certified
                    continue
                # a lattice this coarse would be loose: the full route (its own lattice) answers
                self._too_long[fk] = min(self._too_long.get(fk, math.inf), steps)
                raise _Unsupported("window beyond WINDOW_CAP") from None
        if upper and comp.t_out + comp.fft_err + comp.inf_mass > ERROR_SHARE * delta:
            raise _Unsupported("numerical error terms not small against delta")
        with np.errstate(all="ignore"):
            v = float(PC._eps_from(comp, np.array([delta]), upper)[0])
        if v != v or (upper and not math.isfinite(v)):
            raise _Unsupported("no finite bound")
        return v

    def _lower_bound(self, totals, last, d, delta, up) -> float:
        """The optimistic side's epsilon(delta) for ``totals``: on the upper lattice, then (while
        the bracket is wider than LOWER_GAP of ``up``) on lattices 2, 4, ... times finer (at most
        2^MAX_LOWER_REFINE; the level is kept for the next refreshes, which come 2^level times
        less often), aligned for one event on the subsampled model's sharp bottom edge
        log(1 - q) as ``numeric.pld_result.PLDResult._refine_again`` does.  Any lattice gives a
        certified lower bound; 0 when none can be computed."""
        keys = tuple(sorted(totals))
        fk = frozenset(keys)
        level = self._lo_level.get(fk, 0)
        best, prev = 0.0, None
        while True:
            h = self._h(keys) / 2 ** level
            if level and len(keys) == 1:
                m = self.models(keys[0])
                edge = getattr(m.get(d, m.get("single")), "edge", None)
                if edge:
                    e = abs(edge)
                    if e > h:
                        h = e / math.ceil(e / h * (1 - 1e-12))
            try:
                best = max(best, self._eps(totals, last, d, delta, False, h))
            except _Unsupported:
                level = max(level - 1, 0)
                break
            if prev is not None and best - prev < 0.1 * (up - prev):
                # the lattice was not what kept the bracket wide (a look-ahead, a stale lower
                # bound): back to the coarser level, and no more refining for these events
                level -= 1
                self._lo_stop.add(fk)
                break
            if not (up - best > LOWER_GAP * up) or level >= MAX_LOWER_REFINE or fk in self._lo_stop:
                break
            prev, level = best, level + 1
        self._lo_level[fk] = level
        return best

    # --- the answer -----------------------------------------------------------------------
    def epsilon(self, totals: dict, last, delta: float, lower: bool = True):
        """(upper, lower, extras) for the counts ``totals`` (``last``: the event that grows);
        ``lower=False``: the upper bound alone (lower reported 0)."""
        if len(totals) > MAX_FACTORS:
            raise _Unsupported("too many distinct events")
        keys = tuple(sorted(totals))
        dirs = self._directions(keys)
        steps = int(sum(totals.values()))

        def proj(frac):
            p = dict(totals)
            p[last] += int(math.floor(frac * steps))
            return p

        def usable(got):
            """a bound computed for counts covering these (a valid upper bound here) and at most
            its own look-ahead ahead of them (not a loose one from a longer history that was
            replaced by a shorter, e.g. an earlier checkpoint loaded)"""
            p, _, _, ahead = got
            return all(p.get(k, 0) >= n for k, n in totals.items()) and sum(p.values()) - steps <= ahead

        def bound(d, frac, kind):
            p = proj(frac)
            return p, self._eps(p, last, d, delta, True), kind, sum(p.values()) - steps

        worse = self._worse.get(delta)
        vals = {}
        for d in dirs:
            got = self._ahead.get((delta, d))
            if got is None or not usable(got):
                side = self._side.get((delta, d), 0.0) if worse is not None and worse != d else 0.0
                got = bound(d, max(self.lookahead, side), "side") if side else bound(d, self.lookahead, "main")
                self._ahead[(delta, d)] = got
            vals[d] = got
        while True:
            worst = max(dirs, key=lambda d: vals[d][1])
            if vals[worst][2] == "main":
                break
            # a side bound reached the top: make it tight
            vals[worst] = self._ahead[(delta, worst)] = bound(worst, self.lookahead, "main")
            self._side[(delta, worst)] = 0.0
        for d in dirs:
            # a direction below the worse one by the fraction g looks g / 2 (at most
            # SIDE_LOOKAHEAD) of the steps ahead: epsilon grows more slowly than the steps
            if d != worst and vals[d][2] == "main":
                g = vals[worst][1] / vals[d][1] - 1 if vals[d][1] > 0 else math.inf
                self._side[(delta, d)] = min(SIDE_LOOKAHEAD, g / 2) if g > 1e-3 else 0.0
        self._worse[delta] = worst
        up_totals, up = vals[worst][:2]
        if not lower:
            return up, 0.0, {"resolution": self.resolution, "direction": worst,
                             "upper_from_steps": int(sum(up_totals.values()))}
        lo_got = self._lower.get(delta)
        fk = frozenset(keys)
        every = self.lower_refresh * 2 ** self._lo_level.get(fk, 0)
        behind = steps - sum(lo_got[0].values()) if lo_got is not None else 0
        if lo_got is None or not all(totals.get(k, 0) >= n for k, n in lo_got[0].items()) \
                or behind > every * steps or (behind and up - lo_got[1] > LOWER_GAP * up):
            lo_got = (dict(totals), self._lower_bound(totals, last, worst, delta, up))
            self._lower[delta] = lo_got
        extras = {"resolution": self.resolution, "direction": worst,
                  "upper_from_steps": int(sum(up_totals.values())),
                  "lower_from_steps": int(sum(lo_got[0].values()))}
        return up, lo_got[1], extras


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
                _IncrementalPLD(self.step_resolution, LOOKAHEAD, LOWER_REFRESH) if method == "best"
                else _IncrementalPLD(FAST_RESOLUTION, FAST_LOOKAHEAD, FAST_LOWER_REFRESH))
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
                except _Unsupported:
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

    engine = _IncrementalPLD(STEP_RESOLUTION, 0.0, LOWER_REFRESH)   # no look-ahead of its own

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
        except _Unsupported:
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
