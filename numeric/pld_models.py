"""The PLD loss models: one-step privacy-loss laws (``LossModel``) of each mechanism family,
without sampling, Poisson-subsampled (add/remove dominating pairs) and with fixed batches
(replace-one: the symmetric dominating pair and the two attained fixed orders).  They are
composed by the engine (``pld_lattice``, ``pld_compose``, ``pld_result``)."""
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

from .pld_lattice import (_EPS, _LOG2PI_2, LossModel, TAIL_BOUND, DEFAULT_RESOLUTION,
    MAX_ONE_STEP_BINS)
from .pld_result import UPPER_ONLY, LOWER_ONLY, _role  # noqa: F401

# ============================================================================= mechanisms
def _gauss_model(mu: float) -> LossModel:
    """N(0,1) vs N(mu,1): L = mu x - mu^2/2, x ~ N(mu, 1)."""
    z = -ndtri(TAIL_BOUND)
    return LossModel(
        name=f"gaussian(mu={mu:g})", std=mu,
        L=lambda x: mu * x - mu * mu / 2, dL=lambda x: np.full_like(x, mu),
        x_of=lambda l: (np.asarray(l) + mu * mu / 2) / mu,
        log_q=lambda x: -(x - mu) ** 2 / 2 - _LOG2PI_2,
        mass_below=lambda x: ndtr(x - mu), mass_above=lambda x: ndtr(mu - x),
        x_tail=(mu - z, mu + z), dx_max=0.25 / max(1.0, mu))


def _laplace_model(t: float) -> LossModel:
    """Lap(0,1) vs Lap(t,1): L = -t (Q-mass e^{-t}/2), 2x - t on (0, t), +t (Q-mass 1/2)."""
    std = float(np.sqrt(C.laplace_cumulants(t, 2, "Q")[..., 1]))
    return LossModel(
        name=f"laplace(theta={t:g})", std=std,
        L=lambda x: 2 * x - t, dL=lambda x: np.full_like(x, 2.0),
        x_of=lambda l: np.clip((np.asarray(l) + t) / 2, 0.0, t),
        log_q=lambda x: np.log(0.5) - (t - x),
        mass_below=lambda x: 0.0 * x, mass_above=lambda x: 0.0 * x,
        x_tail=(0.0, t), atoms=[(-t, 0.5 * np.exp(-t)), (t, 0.5)], dx_max=0.25,
        grid_anchor=t)


def _mixture_models(mu: float, q: float) -> dict:
    """Poisson-subsampled Gaussian, both orders (module docstring)."""
    z = -ndtri(TAIL_BOUND)
    lq, l1q = np.log(q), np.log1p(-q)
    logit = lq - l1q

    def LA(x):
        return C.mixture_loss(x, q, mu)

    def dLA(x):
        return mu * expit(mu * x - mu * mu / 2 + logit)

    def xA(l):
        l = np.asarray(l, dtype=float)
        arg = np.expm1(l) + q
        with np.errstate(divide="ignore", invalid="ignore"):
            x = (np.log(arg) - lq + mu * mu / 2) / mu
        return np.where(arg > 0, x, -np.inf)

    def logqA(x):
        return np.logaddexp(l1q - x * x / 2, lq - (x - mu) ** 2 / 2) - _LOG2PI_2

    k2q = float(C.mixture_cumulants(q, mu, 2, "Q")[..., 1])
    k2p = float(C.mixture_cumulants(q, mu, 2, "P")[..., 1])
    remove = LossModel(
        name=f"subsampled-gaussian(mu={mu:g}, q={q:g})", std=np.sqrt(k2q),
        L=LA, dL=dLA, x_of=xA, log_q=logqA,
        log_q_of=lambda x, L: L - x * x / 2 - _LOG2PI_2,     # q(x) = phi(x) e^{L(x)}
        mass_below=lambda x: (1 - q) * ndtr(x) + q * ndtr(x - mu),
        mass_above=lambda x: (1 - q) * ndtr(-x) + q * ndtr(mu - x),
        x_tail=(-z, mu + z), dx_max=0.25 / max(1.0, mu), edge=float(l1q))
    # reverse order: loss log(p/q) = -L_A(x) under P = N(0,1); in y = -x it is increasing
    add = LossModel(
        name=f"subsampled-gaussian(mu={mu:g}, q={q:g}) (reversed)", std=np.sqrt(k2p),
        L=lambda y: -LA(-y), dL=lambda y: dLA(-y), x_of=lambda l: -xA(-np.asarray(l, dtype=float)),
        log_q=lambda y: -y * y / 2 - _LOG2PI_2,
        mass_below=lambda y: ndtr(y), mass_above=lambda y: ndtr(-y),
        x_tail=(-z, z), dx_max=0.25 / max(1.0, mu))
    return {"remove": remove, "add": add}


def _discrete_model(p: np.ndarray, q: np.ndarray, name: str) -> LossModel:
    fin = (p > 0) & (q > 0)
    losses = np.log(q[fin]) - np.log(p[fin])
    mass = q[fin]
    mean = np.sum(mass * losses) / max(mass.sum(), 1e-300)
    std = float(np.sqrt(np.sum(mass * (losses - mean) ** 2) / max(mass.sum(), 1e-300)))
    return LossModel(name=name, std=std, atoms=list(zip(losses.tolist(), mass.tolist())),
                     inf_mass=float(q[(p == 0) & (q > 0)].sum()))


def gaussian_models(mu: float) -> dict:
    """One-step loss models of N(0,1) vs N(mu,1) (symmetric: one direction)."""
    return {"single": _gauss_model(float(K.check_positive(mu, "mu")))}


def laplace_models(t: float) -> dict:
    """One-step loss models of Lap(0,1) vs Lap(t,1) (symmetric: one direction)."""
    return {"single": _laplace_model(float(K.check_positive(t, "theta")))}


def mixture_models(mu: float, q: float) -> dict:
    """Poisson-subsampled Gaussian (rate q < 1), both add/remove directions."""
    return _mixture_models(float(mu), float(q))


def discrete_models(p, q, rate: float = 1.0) -> dict:
    """A pair of pmfs; with Poisson subsampling at ``rate`` < 1 the add/remove pairs
    (p, (1-rate) p + rate q) and ((1-rate) p + rate q, p) (Zhu, Dong, Wang 2022,
    Poisson subsampling dominating pairs); without, the pair in both orders (one "single"
    model when q is p reversed, e.g. randomized response: both orders have one PLD)."""
    p, q = (np.asarray(v, dtype=float) for v in (p, q))
    mix = (1 - rate) * p + rate * q if rate < 1 else q
    out = {"remove": _discrete_model(p, mix, "discrete (remove)"),
           "add": _discrete_model(mix, p, "discrete (add)")}
    losses = {abs(l) for m in out.values() for l, _ in m.atoms}
    for m in out.values():
        if len(losses) == 1:        # +-l (randomized response): the lattice l Z holds every atom
            m.std, m.grid_anchor = losses.pop() / DEFAULT_RESOLUTION, None
            losses = {m.std * DEFAULT_RESOLUTION}
        else:                       # a few atoms off the lattice: ask for a fine lattice
            m.std = min(m.std, DISCRETE_H / DEFAULT_RESOLUTION)
    if rate >= 1 and np.array_equal(q, p[::-1]):
        return {"single": out["remove"]}   # (p, p reversed) and its reverse share one PLD
    return out


DISCRETE_H = 1e-4


MAX_DGAUSS_ATOMS = 2 ** 20       # support points of a discrete Gaussian pair (sigma up to ~5e4)


def _dgauss_tail(s: float, k: int) -> float:
    """An upper bound on N_Z(0, s^2)[X > k], k >= 0: sum_{y > k} e^{-y^2/(2s^2)} <=
    e^{-(k+1)^2/(2s^2)} + int_{k+1}^oo e^{-y^2/(2s^2)} dy (the terms decrease), over the
    normaliser Z >= max(1, s sqrt(2 pi)) (Z >= s sqrt(2 pi) by Poisson summation: Z =
    s sqrt(2 pi) sum_m e^{-2 pi^2 s^2 m^2}).  Rounded up."""
    z = (k + 1) / s
    num = math.exp(-z * z / 2) + s * math.sqrt(2 * math.pi) * 0.5 * math.erfc(z / math.sqrt(2))
    return num / max(1.0, s * math.sqrt(2 * math.pi)) * (1 + 1e-12)


def discrete_gaussian_models(sigma: float, sensitivity: int = 1, rate: float = 1.0) -> dict:
    """One-step loss models of the discrete Gaussian pair P = N_Z(0, sigma^2) vs Q =
    N_Z(Delta, sigma^2), P(x) = e^{-x^2/(2 sigma^2)} / sum_y e^{-y^2/(2 sigma^2)} on the integers
    (Canonne, Kamath, Steinke 2020, "The Discrete Gaussian for Differential Privacy", Def. 1),
    Delta a positive integer.  For an integer shift the normalisers cancel: the loss is
    L(x) = log(Q(x)/P(x)) = (Delta/(2 sigma^2)) (2x - Delta), on the lattice (Delta/(2 sigma^2)) Z
    (``grid_anchor``: alone, the lattice step divides it and the discretisation is exact).  The
    pair dominates every pair of neighbours of a scalar integer query with |f(d) - f(d')| <=
    Delta: the shifts form a monotone-likelihood-ratio family, so the threshold tests are most
    powerful for every shift and their power grows with it (Karlin-Rubin).  The pair is
    symmetric (x -> Delta - x swaps P and Q): one model.

    The support is truncated to x in [-k, Delta + k] with N_Z(0, sigma^2)[X > k] <= TAIL_BOUND/4
    (``_dgauss_tail``); the masses are e^{-x^2/(2 sigma^2)}/Z_hi with Z_hi >= Z (the window sum
    plus the bound on the rest), so every kept mass is at most the true one, and
    ``tail_mass`` = 4 x the tail bound covers both what is left out and what Z_hi shaved off:
    +oo in the upper bound, dropped in the lower.  With Poisson subsampling at ``rate`` < 1 the
    add/remove dominating pairs (P, M) and (M, P), M = (1 - rate) P + rate Q (Zhu, Dong, Wang
    2022), on the same truncated support; their losses are off any lattice, and the lower
    bound rounds each atom down by up to h per step, so the default step is a tenth of the
    usual (h <= min(0.005 std, DISCRETE_H / 10)): at q = 0.01, sigma = 3, 1000 steps the
    bracket on eps(1e-5) is [0.375, 0.3794] instead of [0.323, 0.3795]."""
    s = float(K.check_positive(sigma, "sigma"))
    d = sensitivity
    if isinstance(d, bool) or not isinstance(d, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(d)) or float(d) != int(d) or d < 1:
        raise DomainError("sensitivity", d, "positive integers (the discrete Gaussian shifts "
                          "by an integer)")
    d = int(d)
    r = float(rate)
    if not 0 < r <= 1:
        raise DomainError("sampling_rate", rate, "(0, 1]")
    k = max(1, int(math.ceil(s * math.sqrt(2 * math.log(4 / TAIL_BOUND)))) - 1)
    while _dgauss_tail(s, k) > TAIL_BOUND / 4:
        k += 1
    n_atoms = 2 * k + d + 1
    if n_atoms > MAX_DGAUSS_ATOMS:
        raise DomainError("sigma", s, f"(0, {s * MAX_DGAUSS_ATOMS / n_atoms:.3g}] for the exact "
                          f"pmf pair ({n_atoms} support points > {MAX_DGAUSS_ATOMS})")
    tail = _dgauss_tail(s, k)
    x = np.arange(-k, d + k + 1, dtype=float)
    c = 1.0 / (2 * s * s)
    ys = np.arange(-k, k + 1, dtype=float)
    z_hi = (float(np.sum(np.exp(-c * ys * ys))) * (1 + 4 * _EPS * math.log2(ys.size + 2))
            + 2 * tail * max(1.0, s * math.sqrt(2 * math.pi)))
    lz = math.log(z_hi)
    lp = -c * x * x - lz                       # log P(x)
    lq = lp[::-1]                              # log Q(x) = log P(Delta - x): the window is symmetric
    base = (d * c) * (2 * x - d)               # log(Q/P), exactly on the lattice (d c) Z
    tail_mass = 4 * tail
    if r >= 1:
        atoms = np.column_stack((base, np.exp(lq)))
        mq = atoms[:, 1]
        mean = float(np.sum(mq * base) / np.sum(mq))
        std = float(np.sqrt(np.sum(mq * (base - mean) ** 2) / np.sum(mq)))
        m = LossModel(name=f"discrete-gaussian(sigma={s:g}, sensitivity={d})", std=std,
                      atoms=atoms, tail_mass=tail_mass, grid_anchor=d * c)
        return {"single": m}
    lr, l1r = math.log(r), math.log1p(-r)
    L = np.logaddexp(l1r, lr + base)           # log(M/P) = log(1 - r + r e^{base})
    lm = np.logaddexp(l1r + lp, lr + lq)       # log M(x)
    out = {}
    for key, loss, lmass, name in (("remove", L, lm, "(P, M)"), ("add", -L, lp, "(M, P)")):
        mass = np.exp(lmass)
        mean = float(np.sum(mass * loss) / np.sum(mass))
        std = float(np.sqrt(np.sum(mass * (loss - mean) ** 2) / np.sum(mass)))
        out[key] = LossModel(name=f"subsampled discrete-gaussian(sigma={s:g}, sensitivity={d}, "
                             f"q={r:g}) {name}", std=min(max(std, 1e-300), DISCRETE_H / DEFAULT_RESOLUTION) / 10,
                             atoms=np.column_stack((loss, mass)), tail_mass=tail_mass)
    return out


def fixed_discrete_gaussian_models(sigma: float, sensitivity: int, gamma: float) -> dict:
    """A fixed batch (ratio ``gamma`` = B/N < 1, replace-one neighbours) of the discrete Gaussian
    pair P = N_Z(0, sigma^2) vs Q = N_Z(Delta, sigma^2), Delta = the replace-one sensitivity (an
    integer), M = (1 - gamma) P + gamma Q; section "fixed-size batches" below.  The two fixed orders
    (P, M) and (M, P) (lower bound) are the Poisson pairs of ``discrete_gaussian_models`` at rate
    gamma on its truncated support [-k, Delta + k]; the symmetric dominating pair (upper bound) has
    the atoms of (P, M) with positive loss, L(x) = log(M(x)/P(x)) > 0 for 2x > Delta, with their
    M-masses; their mirrors -L(x) with the P-masses P(x) = e^{-L(x)} M(x); and m0 at loss 0, the
    slope -1 segment of the hull.  Every kept mass is at most the true one (the truncated pmf over
    Z_hi >= Z), so m0 is taken as a lower bound, m0 = 1 - M[kept, 2x > Delta] - P[kept, 2x > Delta]
    - 2 tail_mass - (float slack); all the rest (the dropped tails of both sides, what Z_hi shaved
    off and the slack) is the +oo mass of the upper bound (moving mass up to +oo only raises every
    delta(eps))."""
    g = _check_gamma(gamma)
    allm = discrete_gaussian_models(sigma, sensitivity, g)
    rem, add = allm["remove"], allm["add"]
    d = int(sensitivity)
    n = rem.atoms.shape[0]
    k = (n - d - 1) // 2
    x = np.arange(-k, d + k + 1)
    if x.size != n or add.atoms.shape[0] != n:            # the support [-k, Delta + k] of both orders
        raise AssertionError("discrete_gaussian_models changed its support layout")
    pos = 2 * x > d                                       # base loss (Delta/sigma^2)(x - Delta/2) > 0
    lpos, mpos = rem.atoms[pos, 0], rem.atoms[pos, 1]     # law of log(M/P) under M
    ppos = add.atoms[pos, 1]                              # P at the same points (the (M, P) order)
    s_kept = float(np.sum(mpos)) + float(np.sum(ppos))
    slack = 16 * _EPS * (math.log2(n + 2) + 1) * max(s_kept, 1.0)
    tail = 2 * rem.tail_mass + slack
    m0 = max(0.0, 1.0 - s_kept - tail)
    atoms = np.concatenate((np.column_stack((lpos, mpos)), np.column_stack((-lpos, ppos)),
                            [[0.0, m0]]))
    sym = LossModel(name=f"fixed-batch discrete-gaussian(sigma={float(sigma):g}, sensitivity={d}, "
                    f"gamma={g:g}) (substitution)", std=min(rem.std, add.std), atoms=atoms,
                    tail_mass=tail)
    return {"substitution": sym, "order (P, M)": rem, "order (M, P)": add}


def _std_of(values, weights) -> float:
    w = np.asarray(weights, float)
    v = np.asarray(values, float)
    m = np.sum(w * v) / np.sum(w)
    return float(np.sqrt(max(np.sum(w * (v - m) ** 2) / np.sum(w), 1e-300)))


def subsampled_laplace_models(t: float, q: float) -> dict:
    """Poisson-subsampled Laplace, Lap(0,1) vs Lap(t,1) (t = sensitivity/scale), rate q < 1:
    the add/remove dominating pairs (P, M) and (M, P) with M = (1-q) P + q Q (Zhu, Dong, Wang
    2022, Poisson subsampling).  With l(x) = |x| - |x-t| the base loss, the loss of (P, M) is
    L = log(1 - q + q e^{l(x)}) under M: atoms at x <= 0 and x >= t, increasing on (0, t)."""
    t = float(K.check_positive(t, "theta"))
    lq, l1q = np.log(q), np.log1p(-q)

    def Lmix(l):                                   # log(1 - q + q e^l)
        return np.logaddexp(l1q, lq + l)

    lo_atom, hi_atom = float(Lmix(-t)), float(Lmix(t))
    xs = np.linspace(0.0, t, 2001)[1:-1]

    # remove: (P, M), law under M
    def L_r(x):
        return Lmix(2 * x - t)

    def dL_r(x):
        return 2 * expit(lq - l1q + 2 * x - t)

    def x_r(l):
        l = np.asarray(l, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = (np.log(np.maximum(np.expm1(l) + q, 1e-300)) - lq + t) / 2
        return np.clip(np.where(np.expm1(l) + q > 0, x, 0.0), 0.0, t)

    def logm(x):                                   # density of M on (0, t)
        return np.logaddexp(l1q - x, lq - (t - x)) + np.log(0.5)

    m_lo = 0.5 * (1 - q) + 0.5 * q * np.exp(-t)
    m_hi = 0.5 * (1 - q) * np.exp(-t) + 0.5 * q
    dens = np.exp(logm(xs)) * (t / 2000)
    remove = LossModel(
        name=f"subsampled-laplace(t={t:g}, q={q:g})",
        std=_std_of(np.concatenate(([lo_atom, hi_atom], L_r(xs))),
                    np.concatenate(([m_lo, m_hi], dens))),
        L=L_r, dL=dL_r, x_of=x_r, log_q=logm,
        log_q_of=lambda x, L: L - x + np.log(0.5),            # m(x) = p(x) e^{L(x)}
        mass_below=lambda x: 0.0 * x, mass_above=lambda x: 0.0 * x,
        x_tail=(0.0, t), atoms=[(lo_atom, m_lo), (hi_atom, m_hi)], dx_max=0.25)

    # add: (M, P), loss -L(x) under P; in y = -x it is increasing, y in (-t, 0)
    def L_a(y):
        return -Lmix(2 * (-y) - t)

    def x_a(l):
        return -x_r(-np.asarray(l, dtype=float))

    def logp(y):                                   # density of P at x = -y in (0, t)
        return np.log(0.5) + y

    p_lo = 0.5 * np.exp(-t)                        # x >= t: loss -hi_atom
    p_hi = 0.5                                     # x <= 0: loss -lo_atom
    densp = np.exp(logp(-xs)) * (t / 2000)
    add = LossModel(
        name=f"subsampled-laplace(t={t:g}, q={q:g}) (reversed)",
        std=_std_of(np.concatenate(([-hi_atom, -lo_atom], -L_r(xs))),
                    np.concatenate(([p_lo, p_hi], densp))),
        L=L_a, dL=lambda y: dL_r(-y), x_of=x_a, log_q=logp,
        mass_below=lambda y: 0.0 * y, mass_above=lambda y: 0.0 * y,
        x_tail=(-t, 0.0), atoms=[(-hi_atom, p_lo), (-lo_atom, p_hi)], dx_max=0.25)
    # each direction on its own lattice nearly holding both its atoms (rounding an atom down in
    # the lower bound costs O(h) per step)
    _align((remove, add), DEFAULT_RESOLUTION * min(remove.std, add.std), widen=4)
    return {"remove": remove, "add": add}


# ============================================================================= fixed-size batches
# Sampling without replacement (a batch of B of N records, gamma = B/N) under replace-one
# neighbours.  With (P, Q) the replace-one pair of the base mechanism (symmetric: T(P,Q) =
# T(Q,P) = f) and M = (1 - gamma) P + gamma Q, one step satisfies C_gamma(f) = min{f_gamma,
# f_gamma^{-1}}**, f_gamma = gamma f + (1 - gamma) Id = T(P, M) (Dong, Roth, Su 2019 Thm. 4.2,
# quoted in Zheng et al. 2020, Sec. 2 "Subsampling"; Zhu, Dong, Wang 2022 for the dominating-pair form).  The
# order (P, M) is attained (every other record equal to the replaced one), and so is (M, P);
# but the pair is not symmetric, and under replace-one an adaptive composition may meet
# either order at every step, so neither order composed with itself dominates the
# composition (Lebeda, Regehr, Kamath, Steinke 2024: the pitfall of self-composing the
# worst-case pair of one step).  The dominating pair used for the upper bound realises the
# symmetric C_gamma(f): its privacy-loss law under the second hypothesis is
#
#     omega(dl) = omega_M(dl)            for l > 0   (the law of L = log(dM/dP) under M),
#                 m0 delta_0(dl)                     (the slope -1 segment of the hull),
#                 e^{l} omega_M(d(-l))   for l < 0   (the mirror: the law of -L under P),
#
# with m0 = 1 - M[L > 0] - P[L > 0] - M[L = oo] >= 0; for the base pairs here
# m0 = (1 - gamma)(1 - 2 P[l > 0]) + gamma P[l = 0], l the base loss.  Its profile is
# max(delta_{P,M}, delta_{M,P}) = delta_{P,M} at eps >= 0 and 1 - e^eps + e^eps delta(-eps) at
# eps < 0, as a symmetric pair must have.  The lower bound is the larger of the two fixed
# orders composed with themselves (each attained by one pair of data sets), so it stays a
# true lower bound whether or not the symmetric pair is attained under composition.

def _substitution_model(rem: LossModel, x0: float, log_p, p_sf, m0: float, name: str) -> LossModel:
    """The symmetric dominating pair of a fixed batch from the order (P, M) (``rem``: the law
    of L = log(dM/dP) under M, increasing in x, L(x0) = 0).  In the variable y the continuous
    part is L(y) under M for y >= x0 and its mirror -L(2 x0 - y) with the P-density at
    2 x0 - y for y < x0; ``p_sf(x)`` is the P-mass of the continuous part above x."""
    def xm(y):
        return 2 * x0 - np.asarray(y, dtype=float)

    def L(y):
        y = np.asarray(y, dtype=float)
        return np.where(y >= x0, rem.L(np.maximum(y, x0)), -rem.L(np.maximum(xm(y), x0)))

    def dL(y):
        y = np.asarray(y, dtype=float)
        return np.where(y >= x0, rem.dL(np.maximum(y, x0)), rem.dL(np.maximum(xm(y), x0)))

    def x_of(l):
        l = np.asarray(l, dtype=float)
        return np.where(l >= 0, rem.x_of(np.abs(l)), xm(rem.x_of(np.abs(l))))

    def log_q(y):
        y = np.asarray(y, dtype=float)
        return np.where(y >= x0, rem.log_q(np.maximum(y, x0)), log_p(np.maximum(xm(y), x0)))

    pos = [(float(l), float(m)) for l, m in rem.atoms if l > 0 and m > 0]
    atoms = pos + [(-l, m * np.exp(-l)) for l, m in pos] + [(0.0, float(m0))]
    hi = rem.x_tail[1]
    return LossModel(name=name, std=rem.std, L=L, dL=dL, x_of=x_of, log_q=log_q,
                     mass_below=lambda y: p_sf(xm(y)), mass_above=rem.mass_above,
                     x_tail=(2 * x0 - hi, hi), atoms=atoms, inf_mass=rem.inf_mass,
                     dx_max=rem.dx_max)


def _check_gamma(gamma) -> float:
    g = np.asarray(gamma, dtype=float)
    if not (g.ndim == 0 and np.isfinite(g) and 0 < g < 1):
        raise DomainError("sampling_ratio", gamma, "(0, 1) (a batch smaller than the data set; "
                          "gamma = 1 is the plain mechanism)")
    return float(g)


def _tv_gaussian_math(mu: float) -> float:
    """TV of N(0,1) vs N(mu,1), erf(mu/(2 sqrt 2)).  HAND (tests/test_writings.py): the library's
    tv_gaussian in ``math`` (no scipy at the PLD route's start-up)."""
    return math.erf(mu / (2 * math.sqrt(2.0)))


def fixed_gaussian_models(mu: float, gamma: float) -> dict:
    """A fixed batch (ratio ``gamma`` = B/N < 1) of the Gaussian mechanism N(0,1) vs N(mu,1),
    mu = (replace-one sensitivity)/sigma, replace-one neighbours: the symmetric dominating
    pair ("substitution", upper bound) and the two fixed orders (lower bound); see above."""
    mu, g = float(K.check_positive(mu, "mu")), _check_gamma(gamma)
    allm = _mixture_models(mu, g)
    rem, add = allm["remove"], allm["add"]
    m0 = (1 - g) * _tv_gaussian_math(mu)                    # (1-g)(1 - 2 Phi(-mu/2))
    sym = _substitution_model(rem, mu / 2, lambda x: -x * x / 2 - _LOG2PI_2, lambda x: ndtr(-x),
                              m0, f"fixed-batch gaussian(mu={mu:g}, gamma={g:g}) (substitution)")
    return {"substitution": sym, "order (P, M)": rem, "order (M, P)": add}


def fixed_laplace_models(t: float, gamma: float) -> dict:
    """A fixed batch (ratio ``gamma`` < 1) of the Laplace mechanism Lap(0,1) vs Lap(t,1),
    t = (replace-one sensitivity)/scale, replace-one neighbours (see above)."""
    t, g = float(K.check_positive(t, "theta")), _check_gamma(gamma)
    allm = subsampled_laplace_models(t, g)
    rem, add = allm["remove"], allm["add"]
    m0 = -(1 - g) * float(np.expm1(-t / 2))                  # (1-g)(1 - 2 * e^{-t/2}/2)
    sym = _substitution_model(rem, t / 2, lambda x: np.log(0.5) - x, lambda x: 0.0 * x, m0,
                              f"fixed-batch laplace(t={t:g}, gamma={g:g}) (substitution)")
    # subsampled_laplace_models put each fixed order on a lattice nearly holding its atoms;
    # the symmetric pair's atoms -a, 0, a lie exactly on a Z / n
    _align((sym,), DEFAULT_RESOLUTION * min(rem.std, add.std), widen=4)
    return {"substitution": sym, "order (P, M)": rem, "order (M, P)": add}


def fixed_discrete_models(p, q, gamma: float) -> dict:
    """A fixed batch (ratio ``gamma`` < 1) of a mechanism with a symmetric pair of pmfs
    (q = p reversed, e.g. randomized response), replace-one neighbours (see above)."""
    p, q = (np.asarray(v, dtype=float) for v in (p, q))
    g = _check_gamma(gamma)
    if p.shape != q.shape or not np.allclose(np.sort(p), np.sort(q), rtol=1e-12, atol=0):
        raise DomainError("q", "given vector", "a permutation of p (a symmetric pair)")
    mix = (1 - g) * p + g * q
    rem = _discrete_model(p, mix, "discrete (P, M)")
    add = _discrete_model(mix, p, "discrete (M, P)")
    with np.errstate(divide="ignore"):
        up = (p > 0) & (q > p)                               # base loss l = log(q/p) > 0
    m0 = float(np.sum(mix[~up]) - np.sum(p[up]))             # M[L <= 0] - P[L > 0]
    pos = [(float(np.log(mix[i] / p[i])), float(mix[i])) for i in np.nonzero(up)[0]]
    atoms = pos + [(-l, float(p[i])) for (l, _), i in zip(pos, np.nonzero(up)[0])]
    atoms.append((0.0, max(m0, 0.0)))
    ls = np.array([a for a, _ in atoms])
    ws = np.array([w for _, w in atoms])
    sym = LossModel(name="discrete (substitution)", std=_std_of(ls, ws), atoms=atoms)
    for m in (sym, rem, add):       # a shared lattice (heterogeneous compositions): a fine one
        m.std = DISCRETE_H / DEFAULT_RESOLUTION
    _align((rem, add), DISCRETE_H, widen=16)      # alone: each on a lattice nearly holding its atoms
    top = max(l for l, _ in sym.atoms)
    if all(abs(abs(l) - top) <= 1e-12 * top or l == 0 for l, _ in sym.atoms):
        sym.own_h, sym.grid_anchor = top, top     # atoms -a, 0, a (randomized response): exact
    return {"substitution": sym, "order (P, M)": rem, "order (M, P)": add}


def _align(models, h_max: float, widen: int) -> None:
    """Give each model with a positive atom its own lattice step (``own_h``, used when its
    direction is composed alone) from ``_aligned_step`` anchored at its largest atom."""
    for m in models:
        ls = [l for l, w in m.atoms if w > 0]
        if ls and max(ls) > 0:
            h = _aligned_step(max(ls), ls, h_max, widen)
            if h is not None:
                m.own_h, m.grid_anchor = h, max(ls)


def _aligned_step(top: float, losses, h_max: float, widen: int = 16) -> float | None:
    """A lattice step h = top/n (n in [top/h_max, widen top/h_max]) on which the atoms of
    ``losses`` sit just above a lattice point: rounding an atom down costs frac(l/h) h of loss
    per step in the optimistic (lower) bound, so n is the smallest with max_l frac(l/h) h <=
    h_max/1000 (else the minimiser; a few atoms, e.g. the two of a subsampled randomized
    response, are then nearly exact)."""
    n0 = max(1, int(np.ceil(top / h_max)))
    if n0 > MAX_ONE_STEP_BINS:      # a tiny spread (e.g. subsampled Laplace at t = 100: 1e-20)
        return None                 # would ask for ~1e15 candidate steps: the default lattice
    n = np.arange(n0, widen * n0 + 1, dtype=float)
    hs = top / n
    ls = np.asarray(losses, dtype=float)[:, None] / hs[None, :]
    frac = ls - np.floor(ls)
    frac = np.where(np.abs(frac - 1) < 1e-12, 0.0, frac)             # as ``discretise`` reads it
    err = np.max(frac * hs[None, :], axis=0)                          # round-down distance
    ok = np.nonzero(err <= 1e-3 * h_max)[0]          # the coarsest lattice that is good enough
    best = n[int(ok[0])] if ok.size else n[int(np.argmin(err))]
    return float(top / best)
