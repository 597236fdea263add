"""Exact composition of a two-atom privacy-loss law (small-support pairs: randomized response,
with or without Poisson subsampling), certified by ball arithmetic.

A one-step loss model with two atoms, losses l_a < l_b with Q-masses m_a, m_b (the law of
L = log(q/p) under Q of a pmf pair on two points, ``numeric.pld_models.discrete_models``),
composes n times to the binomial law: K ~ the number of b-draws, Q_n(k) = C(n, k) m_b^k
m_a^(n-k), loss_k = k l_b + (n - k) l_a, increasing in k.  The privacy profile (Zheng et al. 2020, Lemma 5.1)

    delta(eps) = sum_{k: loss_k > eps} Q_n(k) (1 - e^{eps - loss_k})

is computed term by term in Arb ball arithmetic (python-flint, 100 bits) for k in a window
[k_lo, k_hi] around the mean; the binomial tails outside the window are bounded by Chernoff,
Q[K >= k_hi] <= s^n exp(-n KL(k_hi/n || m_b/s)) (likewise below; s = m_a + m_b), and added to the
upper bound only (every term is >= 0, so dropping them gives a lower bound).  epsilon(delta):
a float bisection gives a candidate, then the upper end is a float eps whose certified
delta upper bound is <= delta and the lower end one whose certified delta lower bound is >=
delta (the profile is decreasing), both checked in ball arithmetic.

Compared with the lattice PLD (whose optimistic side rounds each off-lattice atom down, an
O(h) loss per step) the bracket is as narrow as the ball arithmetic: randomized response
eps0 = 1, Poisson q = 0.01, T = 5000, delta = 1e-6: [3.235, 3.496] by the lattice, exact
3.49592 here.  Used by ``numeric.events.pld_accountant`` for one event whose every direction
is a two-atom model (not a symmetric "single" one, exact on its lattice already) and whose
window is at most ``MAX_TERMS`` terms wide.
"""
from __future__ import annotations

import math

import numpy as np

from derive.errors import DomainError

from . import kernels as K

__all__ = ["ExactBinomialPLD", "applies"]

MAX_TERMS = 60_000          # window width (terms) beyond which the lattice PLD is used instead
PREC = 100                  # Arb working precision (bits)
LOG_TAIL = -700.0           # the Chernoff tails outside the window are <= e^-700 (s^n times)


def _atoms(model):
    if model.continuous or model.inf_mass > 0 or model.tail_mass > 0:
        return None
    at = [(float(l), float(m)) for l, m in (model.atoms.tolist() if isinstance(model.atoms, np.ndarray)
                                            else model.atoms) if m > 0]
    if len(at) != 2 or at[0][0] == at[1][0]:
        return None
    at.sort()
    return at


def _kl(x, p, q):
    """KL(x || p) of Bernoulli laws, q = 1 - p given separately (p can round to 1 where q
    does not vanish; float; only used to place the window)."""
    out = 0.0
    if x > 0:
        out += x * math.log(x / p) if p > 0 else math.inf
    if x < 1:
        out += (1 - x) * math.log((1 - x) / q) if q > 0 else math.inf
    return out


class _Binomial:
    """One direction: the n-fold composition of a two-atom loss model."""

    def __init__(self, atoms, n: int):
        (self.la, self.ma), (self.lb, self.mb) = atoms
        self.n = n
        s = self.ma + self.mb
        self.s, self.p, self.q = s, self.mb / s, self.ma / s
        mean = n * self.p
        # window: n KL(k/n || p) >= 700 - n log s beyond each end (Chernoff), else the support end
        need = -LOG_TAIL + n * math.log(s)

        def end(sign):
            lo, hi = 0.0, 1.0              # fraction of the way from the mean to the support end
            far = (n - mean) if sign > 0 else mean
            if far <= 0 or n * _kl(min(max(mean + sign * far, 0), n) / n, self.p, self.q) < need:
                return n if sign > 0 else 0
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                if n * _kl((mean + sign * mid * far) / n, self.p, self.q) >= need:
                    hi = mid
                else:
                    lo = mid
            k = mean + sign * hi * far
            return min(n, int(math.ceil(k)) + 1) if sign > 0 else max(0, int(math.floor(k)) - 1)

        self.k_lo, self.k_hi = end(-1), end(+1)
        self.width = self.k_hi - self.k_lo + 1
        self._float = None
        self._arb = None

    # ---- float (candidates only) ------------------------------------------------------------
    def _float_terms(self):
        if self._float is None:
            k = np.arange(self.k_lo, self.k_hi + 1, dtype=float)
            n = self.n
            lg = np.vectorize(math.lgamma, otypes=[float])
            lq = (math.lgamma(n + 1) - lg(k + 1) - lg(n - k + 1) + k * math.log(self.mb)
                  + (n - k) * math.log(self.ma))
            self._float = (lq, k * self.lb + (n - k) * self.la)
        return self._float

    def delta_float(self, eps: float) -> float:
        lq, loss = self._float_terms()
        sel = loss > eps
        with np.errstate(over="ignore"):
            return float(np.sum(np.exp(lq[sel]) * -np.expm1(eps - loss[sel])))

    # ---- certified --------------------------------------------------------------------------
    def _arb_terms(self):
        if self._arb is None:
            from flint import arb
            n = self.n
            lgn = arb(n + 1).lgamma()
            lmb, lma = arb(self.mb).log(), arb(self.ma).log()
            la, lb = arb(self.la), arb(self.lb)
            terms = []
            for k in range(self.k_lo, self.k_hi + 1):
                lq = lgn - arb(k + 1).lgamma() - arb(n - k + 1).lgamma() + k * lmb + (n - k) * lma
                terms.append((lq.exp(), k * lb + (n - k) * la))
            ls = (arb(self.ma) + arb(self.mb)).log() * n      # s = m_a + m_b, as a ball
            t_hi = arb(0) if self.k_hi >= n else self._chernoff(self.k_hi, ls)
            t_lo = arb(0) if self.k_lo <= 0 else self._chernoff(self.k_lo, ls)
            self._arb = (terms, t_lo, t_hi)
        return self._arb

    def _chernoff(self, k, ls):
        """s^n exp(-n KL(k/n || p)) >= Q_n[K >= k] (k/n > p) or Q_n[K <= k] (k/n < p), in Arb."""
        from flint import arb
        n = self.n
        x = arb(k) / n
        p = arb(self.mb) / (arb(self.ma) + arb(self.mb))
        kl = arb(0)
        if k > 0:
            kl += x * (x / p).log()
        if k < n:
            kl += (1 - x) * ((1 - x) / (1 - p)).log()
        return (ls - n * kl).exp()

    def delta_ball(self, eps: float):
        """(lower, upper) floats bracketing delta(eps) (certified)."""
        from flint import arb
        terms, t_lo, t_hi = self._arb_terms()
        e = arb(eps)
        tot = arb(0)
        for q, loss in terms:
            if loss > e:                                 # certainly above eps
                tot += q * -(e - loss).expm1()
            elif not loss <= e:                          # undecided: the term lies in [0, q]
                tot += q * arb(0).union(-(e - loss).expm1())
        return max(_down(tot), 0.0), _up(tot + t_hi + t_lo)


def _down(x) -> float:
    """A float <= the Arb ball x's lower end."""
    f = float(x.lower().mid())
    return float(np.nextafter(f, -np.inf)) if f != 0 else f


def _up(x) -> float:
    f = float(x.upper().mid())
    return float(np.nextafter(f, np.inf))


def applies(models: dict, steps: int) -> bool:
    """True when every direction is a two-atom model (both roles) and the window is small.
    A symmetric pair (one "single" model, atoms -l and l: plain randomized response) stays on
    the lattice l Z, where the lattice PLD is already exact and faster."""
    from .pld_result import _role
    if not models or "single" in models or any(_role(d) != "both" for d in models):
        return False
    for m in models.values():
        at = _atoms(m)
        if at is None or _Binomial(at, int(steps)).width > MAX_TERMS:
            return False
    return True


class ExactBinomialPLD:
    """Certified (lower, upper) profiles of the n-fold composition of two-atom loss models,
    the worst case over the directions (the interface of ``pld.PLDResult``: ``delta(eps)``,
    ``epsilon(delta)``)."""

    def __init__(self, name: str, models: dict, steps: int, bounds: str = "both"):
        if bounds not in ("both", "upper"):
            raise DomainError("bounds", bounds, "'both' or 'upper'")
        self.name, self.models, self.steps, self.bounds = name, models, int(steps), bounds
        self.h, self.h_used = None, {}
        self._dirs = {d: _Binomial(_atoms(m), self.steps) for d, m in models.items()}

    def _run(self, fn):
        from flint import ctx
        old = ctx.prec
        ctx.prec = PREC
        try:
            return fn()
        finally:
            ctx.prec = old

    def delta(self, eps):
        e = np.asarray(eps, dtype=float)
        if not np.all(np.isfinite(e)):
            raise DomainError("epsilon", float(e[~np.isfinite(e)].flat[0]), "finite reals")

        def go():
            lo, hi = np.zeros(e.size), np.zeros(e.size)
            for i, x in enumerate(e.ravel()):
                got = [b.delta_ball(float(x)) for b in self._dirs.values()]
                lo[i] = max(g[0] for g in got)
                hi[i] = min(max(g[1] for g in got), 1.0)
            return lo, hi
        lo, hi = self._run(go)
        if self.bounds == "upper":
            lo = np.zeros_like(lo)
        return lo.reshape(e.shape), hi.reshape(e.shape)

    def epsilon(self, delta):
        d = K.check_open01(delta, "delta")

        def go():
            lo, hi = np.zeros(d.size), np.zeros(d.size)
            for i, t in enumerate(d.ravel()):
                los, his = zip(*(_eps_one(b, float(t)) for b in self._dirs.values()))
                lo[i], hi[i] = max(los), max(his)
            return lo, hi
        lo, hi = self._run(go)
        if self.bounds == "upper":
            lo = np.zeros_like(lo)
        return lo.reshape(d.shape), hi.reshape(d.shape)


def _eps_one(b: _Binomial, delta: float):
    """(lower, upper) on the smallest eps >= 0 with delta(eps) <= delta, one direction."""
    if b.delta_ball(0.0)[1] <= delta:
        return 0.0, 0.0
    lq, loss = b._float_terms()
    a, c = 0.0, float(loss.max()) + 1.0          # delta_float(c) = 0 (up to the tail)
    for _ in range(200):
        m = 0.5 * (a + c)
        if b.delta_float(m) > delta:
            a = m
        else:
            c = m
        if c - a <= 1e-15 * max(c, 1.0):
            break
    cand = 0.5 * (a + c)
    up = None
    for r in (1e-13, 1e-11, 1e-9, 1e-7, 1e-5, 1e-3):
        x = cand + r * max(abs(cand), 1e-3)
        if b.delta_ball(x)[1] <= delta:
            up = x
            break
    if up is None:
        raise ArithmeticError("exact binomial profile: no certified upper end near the candidate")
    lo = 0.0
    for r in (1e-13, 1e-11, 1e-9, 1e-7, 1e-5, 1e-3):
        x = cand - r * max(abs(cand), 1e-3)
        if x <= 0:
            break
        if b.delta_ball(x)[0] >= delta:
            lo = x
            break
    return lo, up
