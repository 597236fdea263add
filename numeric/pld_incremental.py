"""The incremental PLD engine of ``dpderive.interop.opacus`` (route ``pld-incremental``; no
Opacus dependency): certified bounds on epsilon(delta) of a composition of Poisson-subsampled
Gaussians given as total counts, its lattices, spectra and Chernoff data cached across queries.

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
  one (a look-ahead: ``lookahead`` x the steps more of the last event, 0 for the accountant's
  ``best`` below 5,000 steps), and a lower bound computed for a *smaller* count bounds every larger one (it is
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
"""
from __future__ import annotations

import math

import numpy as np

from derive.errors import DomainError

from . import events as EV

LOWER_GAP = 0.005           # refine the lower bound's lattice while the bracket is wider
MAX_LOWER_REFINE = 4        # ... at most 2^this times finer than the upper bound's
SIDE_LOOKAHEAD = 0.1        # look-ahead of the direction that is not the worse one
MAX_FACTORS = 64            # distinct (noise, rate) pairs the incremental route composes
TRIM_MASS = 1e-16           # mass trimmed off each end of a cached product (added to its tail)
WINDOW_CAP = 2 ** 21        # lattice points of a composed window (coarser lattice beyond) ...
MAX_COARSEN = 1             # ... at most 2^this coarser than asked (beyond: the full route)
ERROR_SHARE = 1e-3          # the route's numerical error terms must stay below this x delta


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
