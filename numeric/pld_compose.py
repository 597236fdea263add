"""The PLD engine, part 2: n-fold composition of a lattice PLD by one FFT with certified
window tails and floating-point error bounds (``compose``, ``convolve``), the profiles
delta(eps) / eps(delta) read off a composed PLD, and the optimistic refinement."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from numpy.fft import irfft, rfft

from derive.errors import DomainError

from .kernels import expit, ndtr, ndtri, next_fast_len   # NumPy/math only: no scipy at start-up
from . import cumulants as C
from . import fdp
from . import kernels as K
from .solvers import round_down, round_up

from .pld_lattice import (_EPS, _integrate, DiscretePLD, LossModel, TAIL_BOUND, CHERNOFF_BLOCKS,
    MAX_WINDOW_BINS, discretise)

# ============================================================================= composition
@dataclass
class Composed:
    """n-fold composition of a DiscretePLD restricted to a window: masses ``c`` at
    losses (j0 + i) h (aliasing included), ``t_out`` >= mass outside the window,
    ``fft_err`` >= sum of absolute floating-point errors of c, and the +oo mass."""

    h: float
    j0: int
    c: np.ndarray
    t_out: float
    fft_err: float
    inf_mass: float
    cache: dict = field(default_factory=dict, repr=False)

    @property
    def losses(self) -> np.ndarray:
        if "losses" not in self.cache:
            self.cache["losses"] = (self.j0 + np.arange(self.c.size)) * self.h
        return self.cache["losses"]


def _chernoff_end(pmf: DiscretePLD, n: int, ltail: float, sign: float) -> float:
    """min over lam > 0 of (n K(sign lam) - log tail)/lam: a loss t with
    P[sign * S >= t] <= tail (Chernoff).  A pmf longer than ``CHERNOFF_BLOCKS`` is first
    merged into blocks placed at their largest value of sign*loss (a valid bound; the
    blocks are kept small because the shift of the mean, n times the block width, widens
    the window), and any lam is valid.  The objective is unimodal in lam (its derivative has
    the sign of g(lam) = lam n K'(lam) - n K(lam) + log tail, and g' = lam n K'' >= 0), so
    the minimiser is found by safeguarded Newton steps (below) from the Gaussian guess, each
    step one pass over the pmf for K, K' and K''; the value returned is the smallest
    objective evaluated (each is a valid end)."""
    spread = max(pmf.w.size * pmf.h, pmf.h)
    ls = sign * pmf.losses
    w = pmf.w
    if sign < 0:
        ls, w = ls[::-1], w[::-1]
    r = int(np.ceil(w.size / CHERNOFF_BLOCKS))
    wb = np.add.reduceat(w, np.arange(0, w.size, r))
    lb = ls[np.minimum(np.arange(0, w.size, r) + r - 1, w.size - 1)]
    keep = wb > 0
    lw, lb = np.log(wb[keep]), lb[keep]

    c = -ltail                                  # > 0
    if lb.size == 0:
        return np.inf

    def moments(lam):
        """K(lam), K'(lam), K''(lam) in one pass over the (blocked) pmf."""
        x = lw + lam * lb
        xm = float(np.max(x))
        keep = x > xm - 500.0                   # the rest is below 1e-217 of the largest term:
        e, lk = np.exp(x[keep] - xm), lb[keep]  # left out, as subnormal products slow the sums ~20x
        s0 = float(np.sum(e))                   # sums, not np.dot: BLAS threads cost ms per call
        m1 = float(np.sum(e * lk)) / s0
        return xm + np.log(s0), m1, float(np.sum(e * (lk - m1) ** 2)) / s0

    # g(lam) = n (lam K' - K) - c, with lam K' - K = -K(0) + int_0^lam t K''(t) dt >= 0
    # increasing; Newton runs on G(u) = log(n (lam K' - K)) - log c in u = log lam, which is
    # nearly linear both where K is quadratic and where it grows exponentially (a subsampled
    # mixture's upper tail), inside the bracket [lo, hi] kept from the signs of G.
    lo, hi = np.log(1e-2 / spread), np.log(1e5 / spread)
    v0 = n * moments(0.0)[2]                        # Gaussian guess sqrt(2c / (n K''(0)))
    u = float(np.clip(0.5 * np.log(2 * c / v0), lo, hi)) if v0 > 0 else hi
    best = np.inf
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for _ in range(100):
            lam = np.exp(u)
            k, k1, k2 = moments(lam)
            val = (n * k + c) / lam
            a = lam * k1 - k
            G = np.log(n * a) - np.log(c)
            dG = lam * lam * k2 / a
            if not np.isfinite(val):                    # K overflowed: lam is too large
                hi = u
                u = 0.5 * (lo + hi)
                continue
            best = min(best, val)
            if G < 0:
                lo = u
            else:
                hi = u
            nxt = u - G / dG if dG > 0 and np.isfinite(G) else np.nan
            if not lo < nxt < hi:                       # Newton left the bracket: bisect
                nxt = 0.5 * (lo + hi)
            if abs(nxt - u) <= 1e-4 or hi - lo <= 1e-9:  # lam to 1e-4 relative: the value is flat
                break
            u = nxt
    return float(best)


def _window(pmf: DiscretePLD, n: int, tail: float) -> tuple[int, int, float]:
    """Lattice window [J_lo, J_hi] of the n-fold sum with Chernoff tail bounds: returns
    (J_lo, J_hi, bound on the mass outside)."""
    h = pmf.h
    full_lo, full_hi = n * pmf.k0, n * (pmf.k0 + pmf.w.size - 1)
    if n == 1:
        return full_lo, full_hi, 0.0
    ltail = np.log(tail)
    hi = _chernoff_end(pmf, n, ltail, 1.0)
    lo = -_chernoff_end(pmf, n, ltail, -1.0)
    J_hi = min(full_hi, int(np.ceil(hi / h))) if np.isfinite(hi) else full_hi
    J_lo = max(full_lo, int(np.floor(lo / h))) if np.isfinite(lo) else full_lo
    t_out = (tail if J_hi < full_hi else 0.0) + (tail if J_lo > full_lo else 0.0)
    return J_lo, J_hi, t_out


_ULD = float(np.finfo(np.longdouble).eps)
_PI_LD = np.longdouble("3.14159265358979323846264338327950288")   # pi to extended precision
_SIG_LOG = np.log(1e-40)        # Fourier modes with |w^_k|^n below this are dropped (and bounded)
ACCURATE_TARGET = 1e-14         # FFT error budget left to double precision (rest: long double)


def _mult(M: int, k: np.ndarray) -> np.ndarray:
    """How often rfft mode k appears in the full spectrum (1 for k = 0 and k = M/2, else 2)."""
    return np.where((k == 0) | ((M % 2 == 0) & (k == M // 2)), 1.0, 2.0)


SPLIT_TAU = 1e-6                # _dft_accurate: mass left to double precision (relative)
SPLIT_MIN = 4096                # ... for pmfs at least this long


def _dft_accurate(w: np.ndarray, M: int, ks: np.ndarray) -> tuple[np.ndarray, float]:
    """``_dft_accurate_block`` over blocks of the modes ``ks`` (bounded memory: each block's
    twiddle matrices hold at most ~2^21 extended-precision entries).  The error bound is
    componentwise, so the blocks' bounds combine by max."""
    nz = int(np.count_nonzero(w))
    per = max(1, 2 ** 21 // max(nz if nz * 8 <= w.size else 2 * int(np.sqrt(w.size)) + 2, 1))
    if ks.size <= per:
        return _dft_accurate_block(w, M, ks)
    outs, errs = zip(*(_dft_accurate_block(w, M, ks[i:i + per]) for i in range(0, ks.size, per)))
    return np.concatenate(outs), max(errs)


def _dft_accurate_block(w: np.ndarray, M: int, ks: np.ndarray) -> tuple[np.ndarray, float]:
    """w^_k = sum_j w_j e^{-2 pi i j k / M} for the modes ``ks`` in extended precision
    (np.longdouble), twiddles as products of a block of powers and block steps.  Returns the
    values and a componentwise error bound.  A long pmf whose mass sits in a short stretch
    [i0, i1) (outside it at most SPLIT_TAU of the mass: a subsampled mechanism's long tails)
    has that stretch summed in extended precision and the rest in double (``_dft_double``:
    its error bound is relative to the little mass outside)."""
    Kw = w.size
    nz = np.flatnonzero(w)
    if nz.size * 8 <= Kw:                                       # sparse: sum over the atoms only
        out = _twiddles_ld(ks, nz, M) @ w[nz].astype(np.clongdouble)
        return out, (nz.size + 16) * 8 * _ULD * float(w.sum())
    if Kw >= SPLIT_MIN:
        mass = float(w.sum())
        cut = SPLIT_TAU * mass
        i0 = int(np.searchsorted(np.cumsum(w), cut, side="right"))       # sum w[:i0] <= cut
        i1 = Kw - int(np.searchsorted(np.cumsum(w[::-1]), cut, side="right"))
        if i1 - i0 <= Kw // 4:
            main, e_main = _dft_blocks_ld(w[i0:i1], M, ks)
            main = main * _twiddles_ld(ks, np.array([i0]), M)[:, 0]   # the stretch starts at i0
            rest = w.copy()
            rest[i0:i1] = 0.0
            out_d, e_out = _dft_double(rest, M, ks)
            return (main + out_d.astype(np.clongdouble),
                    e_main + e_out + 40 * _ULD * mass)
    return _dft_blocks_ld(w, M, ks)


def _dft_double(w: np.ndarray, M: int, ks: np.ndarray) -> tuple[np.ndarray, float]:
    """The same sum in double precision by blocks (j = B m + r: twiddles e^{-2 pi i k r / M}
    and e^{-2 pi i k B m / M} from exact integer angles, one complex matrix product), with the
    bound (2 (B + nblk) + 32) eps sum|w| (each twiddle within a few ulp; the two summation
    stages of B and nblk terms, gamma_n with n the number of terms, complex arithmetic)."""
    Kw = w.size
    B = int(max(1, np.sqrt(Kw)))
    nblk = -(-Kw // B)
    k = ks.astype(np.int64)
    a_small = (-2 * np.pi / M) * ((k[:, None] * np.arange(B)[None, :]) % M)
    a_big = (-2 * np.pi / M) * ((k[:, None] * (B * np.arange(nblk))[None, :]) % M)
    wl = np.zeros(nblk * B)
    wl[:Kw] = w
    # (nblk, ks): sum over r; einsum, not @: BLAS threads cost ms per call on a loaded machine
    blocks = np.einsum("mr,kr->mk", wl.reshape(nblk, B), np.exp(1j * a_small))
    out = np.sum(blocks * np.exp(1j * a_big).T, axis=0)
    return out, (2 * (B + nblk) + 32) * _EPS * float(np.sum(np.abs(w)))


def _twiddles_ld(ks: np.ndarray, js: np.ndarray, M: int) -> np.ndarray:
    """e^{-2 pi i k j / M} in extended precision from the exact integer k j mod M (each within
    ~16 u_ld: the angle to 1.5 u_ld relative, cos and sin to a few u_ld; no chained powers,
    whose error would grow like j times that of the first power)."""
    kj = (ks.astype(np.int64)[:, None] * js.astype(np.int64)[None, :]) % M    # exact (< 2^46)
    if kj.size > 2 * M:     # more twiddles than angles: all M of them once, then a lookup
        r = np.arange(M, dtype=np.longdouble) * (-2 * _PI_LD / np.longdouble(M))
        return (np.cos(r) + 1j * np.sin(r))[kj]
    ang = (-2 * _PI_LD / np.longdouble(M)) * kj.astype(np.longdouble)
    return np.cos(ang) + 1j * np.sin(ang)


def _dft_blocks_ld(w: np.ndarray, M: int, ks: np.ndarray) -> tuple[np.ndarray, float]:
    """``_dft_accurate``'s extended-precision block sum (w from index 0): j = B m + r, with
    twiddles omega^r and omega^{B m} each computed directly (``_twiddles_ld``); their product
    is within ~34 u_ld, and the sums over r and m add (B + nblk) complex roundings."""
    Kw = w.size
    B = int(max(1, np.sqrt(Kw)))
    nblk = -(-Kw // B)
    small = _twiddles_ld(ks, np.arange(B), M)                  # omega_k^r, r < B
    big = _twiddles_ld(ks, B * np.arange(nblk), M)             # omega_k^{B m}
    wl = np.zeros(nblk * B, dtype=np.longdouble)
    wl[:Kw] = w
    wl = wl.reshape(nblk, B)
    out = np.zeros(ks.size, dtype=np.clongdouble)
    for m in range(nblk):
        out += big[:, m] * (small @ wl[m].astype(np.clongdouble))
    err = (2 * B + 2 * nblk + 80) * _ULD * float(w.sum())
    return out, err


def _power_spectrum(w: np.ndarray, n: int, M: int):
    """Spectrum of the n-fold self-convolution on a circular buffer of size M, with a
    bound on sum_j |error of the result| after the inverse FFT (double precision):

    * forward FFT in double; componentwise error e <= 10 u log2(M) sum w;
    * modes with (|w^_k| + e)^n < 1e-40 are dropped (their moduli are added to the bound);
    * for n > 1 the kept modes whose error matters are recomputed in extended precision
      (error e'), since the n-th power amplifies input errors n-fold: n e' A^{n-1} with
      A = |w^_k| + e' (a sparse pmf costs its atoms, not its length);
    * the power in polar form adds u A^n (n |log A| + n pi + 4) (u of its precision);
    * the inverse FFT adds 10 u log2(M) sum |s^_k| plus the rounding of s^ to double."""
    buf = np.zeros(M)
    buf[: w.size] = w
    what = rfft(buf)
    mass = float(w.sum())
    e = 10 * _EPS * np.log2(M) * mass
    A = np.abs(what) + e
    with np.errstate(divide="ignore"):
        logAn = n * np.log(A)
    ks = np.nonzero(logAn > _SIG_LOG)[0]
    err = M * np.exp(_SIG_LOG)                 # the dropped modes: each |s^_k| < 1e-40
    mult = _mult(M, ks)
    z, e_k = what[ks].astype(np.clongdouble), np.full(ks.size, e)
    if n > 1 and ks.size:
        # recompute in extended precision the modes whose double-precision bound
        # n e A^{n-1} is largest, until the rest sum to <= ACCURATE_TARGET
        contrib = mult * n * e * np.exp(logAn[ks] - np.log(A[ks]))
        order = np.argsort(-contrib)
        rest = np.cumsum(contrib[order][::-1])[::-1]
        need = order[rest > ACCURATE_TARGET]
        if need.size and need.size * min(w.size, 8 * np.count_nonzero(w)) <= 6e7:
            z[need], e_k[need] = _dft_accurate(w, M, ks[need])
    return power_modes(z, e_k, n, mult, ks, what.size, M, err)


def power_modes(z, e_k, n: int, mult, ks, size: int, M: int, err: float = 0.0):
    """The n-th powers of the kept DFT modes ``z`` (at indices ``ks`` of a spectrum of ``size``
    entries, each known to within ``e_k``, counted ``mult`` times in the real inverse of length
    ``M``), in extended precision (u_ld), and ``err`` plus the bound on the error they add to the
    composed pmf: (spectrum, error).  Shared by ``compose`` and the incremental routes that cache z."""
    z = z.astype(np.clongdouble)
    r = np.abs(z)
    with np.errstate(divide="ignore"):
        lr = n * np.log(r)
    ph = n * np.angle(z)
    sk = np.exp(lr) * (np.cos(ph) + 1j * np.sin(ph))
    Ak = (r + e_k).astype(float)
    lA = np.log(Ak)
    per = n * e_k * np.exp((n - 1) * lA) + _ULD * np.exp(n * lA) * (n * np.abs(lA) + n * np.pi + 4)
    err += float(np.sum(mult * (per + _EPS * np.exp(n * lA))))
    err += 10 * _EPS * np.log2(M) * float(np.sum(mult * (np.exp(n * lA) + per)))
    spec = np.zeros(size, dtype=complex)
    spec[ks] = sk.astype(complex)
    return spec, err


def compose(pmf: DiscretePLD, n: int, tail: float = TAIL_BOUND, window: tuple | None = None) -> Composed:
    """n-fold self-convolution of a lattice PLD by one FFT (module docstring).  ``window`` is
    ``_window(pmf, n, tail)`` when the caller has computed it already."""
    inf_n = float(-np.expm1(n * np.log1p(-pmf.inf_mass))) if pmf.inf_mass > 0 else 0.0
    if n == 1:
        return Composed(pmf.h, pmf.k0, pmf.w.copy(), 0.0, 0.0, pmf.inf_mass)
    J_lo, J_hi, t_out = window if window is not None else _window(pmf, n, tail)
    W = J_hi - J_lo + 1
    M = next_fast_len(max(W, pmf.w.size), real=True)
    spec, err = _power_spectrum(pmf.w, n, M)
    out = irfft(spec, n=M)
    start = (J_lo - n * pmf.k0) % M
    c = out[start:start + W] if start + W <= M else np.concatenate((out[start:], out[: start + W - M]))
    return Composed(pmf.h, J_lo, c, t_out, err, inf_n)


# ============================================================================= delta / epsilon
def _profile_arrays(comp: Composed, upper: bool, cut: float = -np.inf):
    """(losses, A, B, c) restricted to the lattice points from the one just below ``cut``
    on (queries at eps >= cut need no lower point; suffix sums are unaffected).  Cached:
    a computation from a lower start serves every higher cut by slicing."""
    full = _Lattice(comp.j0, comp.h, 0, comp.c.size)
    s = max(0, int(full.searchsorted(cut)) - 1) if np.isfinite(cut) else 0
    key = "upper" if upper else "lower"
    got = comp.cache.get(key)
    if got is None or got[0] > s:
        got = (s,) + _profile_arrays_uncached(comp, upper, s)
        comp.cache[key] = got
    off = s - got[0]
    return _Lattice(comp.j0, comp.h, s, comp.c.size - s), got[1][off:], got[2][off:], got[3][off:]


class _Lattice:
    """The losses (j0 + start + i) h, i < size, of a composed PLD without forming the array
    (the inversions read a few of them): indexing gives exactly the values of
    ``Composed.losses[start:]``; ``searchsorted(v)`` is np.searchsorted(..., side="right")."""

    def __init__(self, j0: int, h: float, start: int, size: int):
        self.j0, self.h, self.start, self.size = int(j0), float(h), int(start), int(size)

    def __getitem__(self, i):
        return (self.j0 + self.start + np.asarray(i, dtype=np.int64)) * self.h

    def searchsorted(self, v):
        """Number of losses <= v (v scalar or array)."""
        v = np.asarray(v, dtype=float)
        with np.errstate(invalid="ignore", over="ignore"):
            g = np.floor(v / self.h) - (self.j0 + self.start) + 1
        i = np.clip(np.nan_to_num(g, nan=0.0, posinf=self.size, neginf=0.0), 0, self.size)
        i = i.astype(np.int64)
        for _ in range(2):                        # v / h rounded: correct by one step each way
            i = np.where((i > 0) & (self[np.maximum(i - 1, 0)] > v), i - 1, i)
            i = np.where((i < self.size) & (self[np.minimum(i, self.size - 1)] <= v), i + 1, i)
        return i


def _profile_arrays_uncached(comp: Composed, upper: bool, s: int):
    """Suffix sums A_j = sum_{i>=j} c_i and B_j = sum_{i>=j} c_i e^{-(l_i - l_j)} for j >= s,
    with c made sound: negative float noise clipped (upper) and, for the lower bound,
    mass T_out + fft_err removed greedily from the top."""
    c = np.clip(comp.c[s:], 0.0, None)
    if not upper:
        budget = comp.t_out + comp.fft_err
        cs = np.cumsum(c[::-1])[::-1]                    # mass at and above j
        above = np.concatenate((cs[1:], [0.0]))          # mass strictly above j
        c = np.clip(c - np.clip(budget - above, 0.0, None), 0.0, None)
    A = np.cumsum(c[::-1])[::-1]
    B = _suffix_discounted(c, comp.h)
    return A, B, c


def _suffix_discounted(c: np.ndarray, h: float) -> np.ndarray:
    """B_j = sum_{i>=j} c_i e^{-(i-j) h} without overflow: one reversed cumulative sum
    of c_i e^{-(i - i0) h} per chunk of losses spanning < 600, chunks chained.  (Few large
    temporaries: each fresh multi-MB array costs page faults comparable to the arithmetic.)"""
    n = c.size
    span = max(1, int(600.0 / h))
    out = np.empty(n)
    carry, carry_at = 0.0, n
    for start in range(((n - 1) // span) * span, -1, -span):
        end = min(n, start + span)
        e = np.arange(end - start, dtype=float)
        e *= -h
        np.exp(e, out=e)                                      # e^{-k h}
        x = c[start:end] * e
        part = np.cumsum(x[::-1])[::-1]
        seg = out[start:end]
        np.divide(part, e, out=seg)                           # * e^{k h}
        if carry:
            seg += (carry * np.exp(-(carry_at - start) * h)) / e
        carry, carry_at = out[start], start
    return out


class _SlackAt:
    """An absolute bound on the float error of A_j - e^{eps - l_j} B_j (e^{eps - l_j} <= 1):
    sequential suffix sums of n terms err by at most (n - 1) u times their sum (Higham), so
    (n + 8) u (|A_j| + |B_j|), n = A.size; indexed on demand (the inversions read it at a few j)."""

    def __init__(self, A, B):
        self.A, self.B, self.f = A, B, (A.size + 8) * _EPS

    def __getitem__(self, j):
        return self.f * (abs(self.A[j]) + abs(self.B[j]))


def _delta_from(comp: Composed, eps: np.ndarray, upper: bool) -> np.ndarray:
    losses, A, B, _ = _profile_arrays(comp, upper, min(0.0, float(np.min(eps, initial=0.0))))
    j = losses.searchsorted(eps)                           # first loss > eps
    inside = j < losses.size
    jj = np.minimum(j, losses.size - 1)
    with np.errstate(over="ignore", invalid="ignore"):   # inf * 0 only where not inside
        val = np.where(inside, A[jj] - np.exp(eps - losses[jj]) * B[jj], 0.0)
    val = np.maximum(val, 0.0)
    extra = comp.inf_mass
    if upper:
        extra += comp.t_out + comp.fft_err
        # the difference cancels (delta << A): cover the float error of the suffix sums
        val = round_up(val * (1 + 64 * _EPS) + np.where(inside, _SlackAt(A, B)[jj], 0.0)
                       + extra)
    else:
        val = round_down(np.maximum(val * (1 - 64 * _EPS), 0.0) + extra)
    return np.clip(val, 0.0, 1.0)


def _eps_from(comp: Composed, delta: np.ndarray, upper: bool) -> np.ndarray:
    """Smallest eps >= 0 with delta_bound(eps) <= delta: exact inversion of the
    piecewise form A_j - e^{eps - l_j} B_j on each lattice interval."""
    losses, A, B, _ = _profile_arrays(comp, upper, 0.0)
    extra = comp.inf_mass + (comp.t_out + comp.fft_err if upper else 0.0)
    scale = (1 + 64 * _EPS) if upper else (1 - 64 * _EPS)
    # delta at the lattice points: D_j = delta(l_j) = A_{j+1} - e^{-h} B_{j+1} (in place: few
    # large temporaries); the upper side adds the _SlackAt bound at j + 1 (A, B >= 0)
    S = _SlackAt(A, B)
    slack = S.f if upper else 0.0
    D = np.empty(A.size)
    np.multiply(B[1:], -np.exp(-comp.h), out=D[:-1])
    D[:-1] += A[1:]
    D[-1] = 0.0
    np.maximum(D, 0.0, out=D)
    D *= scale
    D += extra
    if upper:
        D[:-1] += slack * A[1:]
        D[:-1] += slack * B[1:]
    # make monotone (non-increasing) in the sound direction
    D = np.maximum.accumulate(D[::-1])[::-1] if upper else np.minimum.accumulate(D)
    if not upper:
        S.f = 0.0
    out = np.empty(delta.size)
    for i, d in enumerate(delta.ravel()):
        if extra >= d:
            out[i] = np.inf
            continue
        k = np.searchsorted(-D, -d, side="left")     # first j with D_j <= d
        if k == 0:
            # below the window every loss exceeds eps: delta(eps) = 1*A_0 - e^{eps-l_0} B_0 (+extra)
            num = (A[0] * scale + extra + S[0] - d)
            e = losses[0] + np.log(num / (B[0] * scale)) if num > 0 and B[0] > 0 else -np.inf
        else:
            jn = k                                    # eps in (l_{k-1}, l_k]: losses >= l_k count
            num = A[jn] * scale + extra + S[jn] - d
            e = losses[jn] + np.log(num / (B[jn] * scale)) if num > 0 and B[jn] > 0 else losses[k - 1]
            e = min(max(e, losses[k - 1]), losses[jn])
        out[i] = e
    out = np.maximum(out, 0.0)
    return (round_up(out) if upper else round_down(out)).reshape(delta.shape)


# ============================================================================= optimistic refinement
REFINE_TOL = 1e-2            # refine the optimistic lattice when n * excess > this * sqrt(n) * std


def _u_excess(model: LossModel, pmf: DiscretePLD) -> float:
    """How much the optimistic pmf raises E[e^{-L}] over the model (its atoms and continuous part
    inside the tail cut): the rounding down's loss per step, which n steps turn into a shift of
    about n times it in the losses (nan when e^{-L} overflows)."""
    with np.errstate(over="ignore", invalid="ignore"):
        got = float(np.sum(pmf.w * np.exp(-pmf.losses)))
        true = 0.0
        if model.continuous:
            lo, hi = model.l_range()
            true += float(_integrate(model, np.array([lo - pmf.h]), np.array([hi + pmf.h]),
                                     np.array([0.0]), (lambda t: np.exp(-t),))[0][0])
        if isinstance(model.atoms, np.ndarray):
            true += float(np.sum(model.atoms[:, 1] * np.exp(-model.atoms[:, 0])))
        else:
            true += sum(m * math.exp(-l) for l, m in model.atoms if m > 0)
    return got - true if math.isfinite(got) and math.isfinite(true) else math.nan


def _refine_optimistic(model: LossModel, h: float, pmf: DiscretePLD, win, n: int, tail: float):
    """The optimistic (lower) side of a continuous model on the lattice h/2 when the rounding
    down's loss, n * ``_u_excess``, exceeds REFINE_TOL sqrt(n) std (a sharp bottom edge of the
    loss law, e.g. log(1 - q) of a subsampled mechanism at small q, which the O(h^2) cell
    shifts do not resolve), if its window fits and its excess is smaller.  Any lattice gives a
    certified lower bound: this only chooses a tighter one.  Returns (h, pmf, window)."""
    if not model.continuous or n < 2:
        return h, pmf, win
    ex = _u_excess(model, pmf)
    if not (ex * n > REFINE_TOL * math.sqrt(n) * model.std):
        return h, pmf, win
    h2 = h / 2
    pmf2 = discretise(model, h2, False)
    win2 = _window(pmf2, n, tail)
    if max(win2[1] - win2[0] + 1, pmf2.w.size) > MAX_WINDOW_BINS:
        return h, pmf, win
    ex2 = _u_excess(model, pmf2)
    return (h2, pmf2, win2) if ex2 < ex else (h, pmf, win)


# ============================================================================= heterogeneous composition
def convolve(a: Composed, b: Composed) -> Composed:
    """The lattice PLD of the composition of two composed PLDs on the same lattice h Z.

    With c = (true window mass) + (aliased mass, >= 0, <= t_out) + (float error, sum <= fft_err)
    for each factor, the product keeps that form with t_out = t_a + t_b and
    fft_err = E_a |c_b|_1 + E_b (|c_a|_1 + E_a) + E_conv, where E_conv bounds the error of
    the FFT convolution: |error|_1 <= sqrt(M) |error|_2 <= 10 u log2(M) sqrt(M)
    (|c_a|_2 + |c_b|_2 + 2 |c|_2) (Higham, Accuracy and Stability, Thm. 24.2, applied to
    the forward transforms, the product and the inverse transform)."""
    if not np.isclose(a.h, b.h, rtol=1e-12, atol=0.0):
        raise DomainError("h", b.h, f"the lattice step of the other factor ({a.h!r})")
    ca, cb = np.clip(a.c, 0.0, None), np.clip(b.c, 0.0, None)
    n = ca.size + cb.size - 1
    M = next_fast_len(n, real=True)
    c = irfft(rfft(ca, M) * rfft(cb, M), n=M)[:n]
    l2 = np.linalg.norm
    e_conv = 10 * _EPS * np.log2(max(M, 2)) * np.sqrt(M) * (l2(ca) + l2(cb) + 2 * l2(c))
    e = a.fft_err * ca.sum() + b.fft_err * (cb.sum() + a.fft_err) + e_conv
    inf = float(-np.expm1(np.log1p(-a.inf_mass) + np.log1p(-b.inf_mass)))
    return Composed(a.h, a.j0 + b.j0, c, a.t_out + b.t_out, float(e), inf)
