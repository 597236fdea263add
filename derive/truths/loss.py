"""The privacy-loss random variable by quadrature: cumulants of Laplace and Gaussian-mixture
losses, and the Renyi divergence of the Poisson-subsampled Gaussian."""
from __future__ import annotations

import mpmath as mp



# ----------------------------------------------------------------------------- privacy-loss cumulants
def _cumulants_by_quad(L, dens, points):
    """[kappa_1..kappa_4] of L(x), x ~ dens, by quadrature: mean and central moments m_2..m_4, with
    the textbook kappa_2 = m_2, kappa_3 = m_3, kappa_4 = m_4 - 3 m_2^2 (no Bell-polynomial conversion)."""
    mean = mp.quad(lambda x: L(x) * dens(x), points)
    m2, m3, m4 = (mp.quad(lambda x, k=k: (L(x) - mean) ** k * dens(x), points) for k in (2, 3, 4))
    return [mean, m2, m3, m4 - 3 * m2 ** 2]


def laplace_cumulants_quad(theta, under="P"):
    """[kappa_1..kappa_4] of L = |x| - |x - theta| under Lap(0,1) ("P") or Lap(theta,1) ("Q")."""
    th = mp.mpf(theta)
    loc = 0 if under == "P" else th
    L = lambda x: abs(x) - abs(x - th)  # noqa: E731
    dens = lambda x: mp.exp(-abs(x - loc)) / 2  # noqa: E731
    return _cumulants_by_quad(L, dens, [-mp.inf, 0, th, mp.inf])


def mixture_llr(x, p, mu):
    """log(1 - p + p e^{mu x - mu^2/2}) via log-sum-exp (the privacy loss of a Gaussian mixture, Zheng et al. 2020, App. C)."""
    a = mp.log1p(-p) if p < 1 else -mp.inf
    b = mp.log(p) + mu * x - mu ** 2 / 2
    m = max(a, b)
    return m + mp.log(mp.e ** (a - m) + mp.e ** (b - m))


def mixture_cumulants_quad(p, mu, under="P"):
    """[kappa_1..kappa_4] of the privacy loss of N(0,1) vs p N(mu,1) + (1-p) N(0,1) (Zheng et al. 2020, App. C), under
    P = N(0,1) or Q = the mixture, by quadrature in log space."""
    p, mu = mp.mpf(p), mp.mpf(mu)
    L = lambda x: mixture_llr(x, p, mu)  # noqa: E731
    n0 = lambda x: mp.exp(-x ** 2 / 2) / mp.sqrt(2 * mp.pi)  # noqa: E731
    dens = n0 if under == "P" else (lambda x: p * n0(x - mu) + (1 - p) * n0(x))
    return _cumulants_by_quad(L, dens, [-mp.inf, -8, 0, mu, mu + 8, mp.inf])


def loss_cumulant(pair, k):
    """The k-th cumulant (k = 1..4) of the privacy loss L = log dP/dQ (X), X ~ P, of any pair of the
    truths: exact sums over a pmf pair's atoms (atoms of Q alone carry no mass under P), the checked
    quadrature of a continuous pair's density; the moments about the mean and kappa_2 = m_2,
    kappa_3 = m_3, kappa_4 = m_4 - 3 m_2^2."""
    k = int(k)
    if not 1 <= k <= 4:
        raise ValueError(f"k={k!r} must be 1, 2, 3 or 4")
    from .pmf import DPair
    if isinstance(pair, DPair):
        atoms = [(p, mp.log(p / q) if q > 0 else mp.inf) for p, q in zip(pair.P, pair.Q) if p > 0]
        if any(not mp.isfinite(l) for _, l in atoms):
            raise ValueError("the privacy loss is infinite with positive probability (P has mass where Q has none)")
        mean = mp.fsum(p * l for p, l in atoms)
        central = lambda j: mp.fsum(p * (l - mean) ** j for p, l in atoms)  # noqa: E731
    else:
        dens = lambda x: pair.p(x)  # noqa: E731
        mean = pair.quad_checked(lambda x: dens(x) * pair.log_ratio(x) if dens(x) > 0 else mp.mpf(0))
        central = lambda j: pair.quad_checked(  # noqa: E731
            lambda x: dens(x) * (pair.log_ratio(x) - mean) ** j if dens(x) > 0 else mp.mpf(0))
    if k == 1:
        return mean
    if k in (2, 3):
        return central(k)
    return central(4) - 3 * central(2) ** 2


# ----------------------------------------------------------------------------- subsampled Gaussian RDP
def subsampled_shift_renyi(al, q, kind: str, scale, reverse: bool = False):
    """D_alpha((1-q) K + q K_1 || K), or with ``reverse`` D_alpha(K || (1-q) K + q K_1), K = N(0, s^2)
    (``kind="gauss"``) or Lap(0, b) (``"laplace"``), K_1 = K shifted by 1, by quadrature of definition (1):
    the pair of outputs of a subsampled mechanism adding the noise K to the sum of records in [0, 1]
    (Poisson rate q, one record added; or a fixed-size subsample, ratio q, one record 0 replaced by 1).
    A lower bound on that mechanism's subsampled RDP at order alpha (a sup over such pairs)."""
    al, q, s = mp.mpf(al), mp.mpf(q), mp.mpf(scale)
    if kind == "gauss":
        k0 = lambda x: mp.npdf(x, 0, s)  # noqa: E731
        k1 = lambda x: mp.npdf(x, 1, s)  # noqa: E731
        w = 12 * s + 2 * al
    elif kind == "laplace":
        k0 = lambda x: mp.e ** (-abs(x) / s) / (2 * s)  # noqa: E731
        k1 = lambda x: mp.e ** (-abs(x - 1) / s) / (2 * s)  # noqa: E731
        w = 60 * s + 2 * al
    else:
        raise ValueError(f"kind={kind!r} is not one of 'gauss', 'laplace'")
    mix = lambda x: (1 - q) * k0(x) + q * k1(x)  # noqa: E731
    num, den = (k0, mix) if reverse else (mix, k0)
    pts = sorted({-w, -w / 4, mp.mpf(0), mp.mpf(1) / 2, mp.mpf(1), w / 4, w}
                 | {mp.mpf(i) / 2 for i in range(-8, 9)})
    v = mp.quad(lambda x: num(x) ** al * den(x) ** (1 - al), [-mp.inf] + pts + [mp.inf])
    return mp.log(v) / (al - 1)


def sgm_renyi_quad(al, q, s):
    """D_alpha((1-q)N(0,s^2) + q N(1,s^2) || N(0,s^2)) by quadrature of definition (1):
    E_{x ~ N(0,s^2)}[((1-q) + q e^{(2x-1)/(2 s^2)})^alpha]."""
    al, q, s = mp.mpf(al), mp.mpf(q), mp.mpf(s)
    g = lambda x: mp.npdf(x, 0, s) * ((1 - q) + q * mp.e ** ((2 * x - 1) / (2 * s ** 2))) ** al  # noqa: E731
    c = al * mp.mpf(1)  # the integrand's mass moves right as alpha grows
    return mp.log(mp.quad(g, [-mp.inf, -10 * s, 0, 1, c, c + 10 * s, mp.inf])) / (al - 1)
