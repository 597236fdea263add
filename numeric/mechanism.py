"""The mechanism protocol: what a mechanism can give the accounting routes.

A mechanism (``numeric.events.Gaussian``, ``Laplace``, ``RandomizedResponse``,
``DiscreteGaussian``, or a user's own subclass of ``Mechanism``) is one step's neighbouring
pair (P, Q) at the mechanism's own sensitivity.  It says what it can give; each route asks
for the capability it needs and reports ``RouteError`` when the mechanism lacks it:

==========================  ==================================================================
``rdp()``                   its RDP curve (a ``numeric.rdp`` curve of one step), route ``rdp``
``pld_models()``            its privacy-loss law: one-step ``numeric.pld`` loss models
                            (``{"single": m}`` for a symmetric pair, else ``{"remove", "add"}``)
``pmf_pair()``              a dominating pair of pmfs on a finite support (p, q), if it has one:
                            the generic PLD and the exact small-support route (``numeric.exact_pmf``)
``gaussian_noise()``        (sigma, sensitivity) when it is the Gaussian mechanism: the closed
                            forms (exact route, CLT/Edgeworth cumulants, the calibration's start)
``pure_epsilon()``          its per-step privacy-loss bound (pure DP), inf for an unbounded loss:
                            route ``pure`` and the PLD grid's range screen
``noise_multiplier()``      sigma / sensitivity of a Gaussian-type noise (the PLD grid's and the
                            approximations' range screen), else None
``pure_epsilon_ball()``     a certified enclosure of the true pure-DP epsilon (a Fraction where
                            exact, an Arb ball else, None): the dp_accounting interop's exact
                            delta = 0 at the pure epsilon
``spec()``                  its ``--spec`` JSON form (``numeric.events.events_from_spec`` reads
                            it back; the stateful accountant's state, the interop exports)
==========================  ==================================================================

The accounting code asks these capabilities and never tests a mechanism's class: every
mechanism-specific behaviour is a method here (``tests/test_mechanism_protocol.py`` scans
``numeric/`` and ``dpderive/`` for an ``isinstance`` on a concrete mechanism or sampling class).

Sampling (``Sampling``: ``Poisson``, ``WithoutReplacement``) is a wrapper over any mechanism
(``Poisson.rdp(mech)``, ``Poisson.pld(mech, count)``, ``Poisson.pure(mech)`` and likewise
``WithoutReplacement``), dispatching to the capabilities below, whose *generic* forms (defined
here, from ``rdp()`` / ``pmf_pair()`` / ``pure_epsilon()`` alone) are

* Poisson subsampling, RDP: Zhu and Wang 2019 Thm. 6 (``rdp.PoissonSubsampledRDP``);
* fixed batches, RDP: Wang, Balle, Kasiviswanathan 2019 Thm. 9 (``rdp.WithoutReplacementRDP``);
* Poisson subsampling, PLD: the add/remove dominating pairs (P, M), (M, P), M = (1 - q) P + q Q
  (Zhu, Dong, Wang 2022) of the pmf pair (``pld.discrete_models``);
* fixed batches, PLD: the symmetric dominating pair C_gamma(f) (upper bound) and the two attained
  fixed orders (lower bound) of the pmf pair (``pld.fixed_discrete_models``);
* either sampling, pure DP: log(1 + q (e^eps0 - 1)) (Balle, Barthe, Gaboardi 2018, Thms. 8
  (Poisson, add/remove) and 9 (without replacement, replace-one)).

A mechanism overrides a generic form only where its own construction is what makes a bound
tight (each override says why): the Gaussian's exact subsampled RDP curve (Mironov, Talwar,
Zhang 2019) instead of the generic upper bound; the continuous mechanisms' (Gaussian, Laplace)
PLD pairs written in the mechanism's variable x, so that every lattice bin is an integral in x
by Gauss-Legendre quadrature (a continuous law has no pmf pair); the discrete Gaussian's pairs
on its certified truncated support (vectorised atoms, the tail as +oo).

dp_accounting's further events have their mechanisms here too (no ``--spec`` form; the interop
maps them): ``KaryRandomizedResponse``, ``SpecialRandomizedResponse`` and ``DiscreteLaplace``
are pmf pairs on a few outcomes (``_FinitePair``: the pair in floats for the PLD routes, in Arb
balls for a certified RDP curve, ``numeric.rdp_pairs.FinitePairRDP``), ``ZCDP`` an RDP curve
alone (``numeric.rdp_pairs.AffineRDP``).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from derive.errors import DomainError

__all__ = ["Mechanism", "NotSupported", "Sampling", "Gaussian", "Laplace", "RandomizedResponse",
           "DiscreteGaussian", "KaryRandomizedResponse", "SpecialRandomizedResponse", "DiscreteLaplace",
           "ZCDP", "Poisson", "WithoutReplacement"]


class NotSupported(Exception):
    """A mechanism cannot give a capability here (the route reports it as ``RouteError``)."""


class Mechanism:
    """Base class of the mechanisms (see the module docstring).  A subclass gives at least
    ``pmf_pair`` (then every generic form follows) or ``rdp`` / ``pld_models``."""

    # --- RDP ---------------------------------------------------------------------------------
    def rdp(self):
        """The RDP curve of one step (a ``numeric.rdp`` curve)."""
        raise NotSupported(f"{self} gives no RDP curve")

    def rdp_poisson(self, rate: float):
        """Poisson subsampling at ``rate`` < 1 (add/remove): generic Zhu-Wang bound."""
        from . import rdp as R
        return R.PoissonSubsampledRDP(self.rdp(), rate)

    def rdp_fixed(self, gamma: float):
        """A fixed batch, gamma = B/N < 1 (replace-one): generic Wang-Balle-Kasiviswanathan bound."""
        from . import rdp as R
        return R.WithoutReplacementRDP(self.rdp(), gamma)

    # --- PLD ---------------------------------------------------------------------------------
    def pmf_pair(self):
        """(p, q): a dominating pair of pmfs on a common finite support, or None."""
        return None

    def _pair(self):
        pq = self.pmf_pair()
        if pq is None:
            raise NotSupported(f"{self} gives no privacy-loss law")
        return pq

    def pld_models(self) -> dict:
        """One-step loss models without sampling (generic: the pmf pair)."""
        from . import pld
        p, q = self._pair()
        return pld.discrete_models(p, q)

    def pld_poisson(self, rate: float) -> dict:
        """Poisson subsampling at ``rate`` < 1: the add/remove dominating pairs of the pmf pair."""
        from . import pld
        p, q = self._pair()
        return pld.discrete_models(p, q, rate)

    def pld_fixed(self, gamma: float, count: int) -> dict:
        """A fixed batch, gamma = B/N < 1: the symmetric dominating pair and the fixed orders."""
        from . import pld
        p, q = self._pair()
        return pld.fixed_discrete_models(p, q, gamma)

    # --- closed forms ------------------------------------------------------------------------
    def gaussian_noise(self):
        """(sigma, sensitivity) when this is the Gaussian mechanism, else None."""
        return None

    def noise_multiplier(self):
        """sigma / sensitivity of a Gaussian-type noise (continuous or discrete), else None."""
        return None

    # --- pure DP -----------------------------------------------------------------------------
    def pure_epsilon(self) -> float:
        """The per-step privacy-loss bound (pure-DP epsilon); inf for an unbounded loss."""
        return math.inf

    def pure_epsilon_ball(self):
        """A certified enclosure of the true pure-DP epsilon (``pure_epsilon()`` is it rounded
        up): a ``fractions.Fraction`` where it is rational in the float parameters (exact), an
        Arb ball (python-flint) where it is not, None where it is unbounded or not known so
        (callers then use ``pure_epsilon()``).  The dp_accounting interop decides delta = 0 at
        exactly the pure-DP epsilon with it."""
        return None

    def pure_sampled(self, rate: float) -> float:
        """Amplified by sampling at ``rate`` (either kind, its own neighbouring relation):
        log(1 + q (e^eps0 - 1)) (Balle, Barthe, Gaboardi 2018, Thms. 8 and 9)."""
        e0 = self.pure_epsilon()
        if rate < 1 and math.isfinite(e0):
            q = rate
            e0 = e0 + math.log(q + (1 - q) * math.exp(-e0)) if e0 > 1 else math.log1p(q * math.expm1(e0))
        return e0

    # --- the spec form -----------------------------------------------------------------------
    #: its name in the ``--spec`` language (None: it has no spec form, e.g. a user's own class)
    spec_name = None

    def spec(self) -> dict:
        """The ``--spec`` JSON form: {"mechanism": spec_name, its fields in order}."""
        return _spec_form(self, "mechanism", self.spec_name)


class Sampling:
    """Base class of the samplings: a wrapper over any mechanism (module docstring).  A subclass
    has ``rate`` and ``neighbouring`` and gives ``rdp(mech)``, ``pld(mech, count)``, ``spec()``."""

    rate: float
    neighbouring: str

    @property
    def whole(self) -> bool:
        """True when it uses every record under its neighbouring relation (then an event
        drops it: no sampling)."""
        return False

    def pure(self, mech) -> float:
        """The per-step pure-DP epsilon of ``mech`` under this sampling."""
        return mech.pure_sampled(self.rate)

    #: its ``"kind"`` in the ``--spec`` language (None: no spec form)
    spec_name = None

    def spec(self) -> dict:
        """The ``--spec`` JSON form: {"kind": spec_name, its fields in order}."""
        return _spec_form(self, "kind", self.spec_name)


def _spec_form(obj, key, name) -> dict:
    if name is None or not dataclasses.is_dataclass(obj):
        raise NotSupported(f"{obj} has no --spec form")
    return {key: name, **{f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}}


def binary_pair(eps: float):
    """Randomized response's pmf pair (true bit 0 reported with probability e^eps/(1+e^eps))."""
    p = np.array([1.0, math.exp(-eps)]) / (1.0 + math.exp(-eps))
    return p, p[::-1]


# ----------------------------------------------------------------------------- mechanisms
def _pos(name, v, allowed="(0, oo)"):
    try:
        x = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
    except OverflowError:           # an integer beyond the largest double
        x = None
    if x is None or not math.isfinite(x) or x <= 0:
        raise DomainError(name, v, allowed)
    return x


@dataclass(frozen=True)
class Gaussian(Mechanism):
    """Gaussian mechanism: noise multiplier ``sigma`` on a query of L2 ``sensitivity``."""
    spec_name = "gaussian"
    sigma: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "sigma", _pos("sigma", self.sigma))
        object.__setattr__(self, "sensitivity", _pos("sensitivity", self.sensitivity))

    def __str__(self):
        return f"gaussian(sigma={self.sigma:g}" + (
            f", sensitivity={self.sensitivity:g})" if self.sensitivity != 1 else ")")

    def gaussian_noise(self):
        return self.sigma, self.sensitivity

    def noise_multiplier(self):
        return self.sigma / self.sensitivity

    def rdp(self):
        from . import rdp as R
        return R.Gaussian(self.sigma, self.sensitivity)

    def rdp_poisson(self, rate):
        """The exact curve of Mironov, Talwar, Zhang 2019 (tighter than the generic bound)."""
        from . import rdp as R
        return R.SubsampledGaussian(rate, self.sigma, self.sensitivity)

    def pld_models(self):
        from . import pld
        return pld.gaussian_models(self.sensitivity / self.sigma)

    def _mu_subsampled(self):
        from . import pld
        s = self.sigma / self.sensitivity
        if s < pld.SIGMA_MIN_SUBSAMPLED:
            raise NotSupported(f"noise multiplier sigma/sensitivity = {s:g} below "
                               f"{pld.SIGMA_MIN_SUBSAMPLED:.4g} with subsampling (quadrature range)")
        return 1.0 / s

    def pld_poisson(self, rate):
        """The add/remove pairs written in x (continuous: bins integrated by quadrature)."""
        from . import pld
        return pld.mixture_models(self._mu_subsampled(), rate)

    def pld_fixed(self, gamma, count):
        from . import pld
        return pld.fixed_gaussian_models(self._mu_subsampled(), gamma)


@dataclass(frozen=True)
class Laplace(Mechanism):
    """Laplace mechanism: noise scale ``scale`` on a query of L1 ``sensitivity``."""
    spec_name = "laplace"
    scale: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "scale", _pos("scale", self.scale))
        object.__setattr__(self, "sensitivity", _pos("sensitivity", self.sensitivity))

    def __str__(self):
        return f"laplace(scale={self.scale:g}" + (
            f", sensitivity={self.sensitivity:g})" if self.sensitivity != 1 else ")")

    def pure_epsilon(self):
        return self.sensitivity / self.scale

    def pure_epsilon_ball(self):
        from fractions import Fraction
        return Fraction(self.sensitivity) / Fraction(self.scale)

    def rdp(self):
        from . import rdp as R
        return R.Laplace(self.scale, self.sensitivity)

    def pld_models(self):
        from . import pld
        return pld.laplace_models(self.sensitivity / self.scale)

    def pld_poisson(self, rate):
        """The add/remove pairs written in x (continuous part by quadrature, two atoms)."""
        from . import pld
        return pld.subsampled_laplace_models(self.sensitivity / self.scale, rate)

    def pld_fixed(self, gamma, count):
        from . import pld
        return pld.fixed_laplace_models(self.sensitivity / self.scale, gamma)


@dataclass(frozen=True)
class RandomizedResponse(Mechanism):
    """Binary randomized response: reports the true bit with probability e^eps/(1+e^eps)."""
    spec_name = "rr"
    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _pos("rr_epsilon", self.epsilon))

    def __str__(self):
        return f"rr(epsilon={self.epsilon:g})"

    def pure_epsilon(self):
        return self.epsilon

    def pure_epsilon_ball(self):
        from fractions import Fraction
        return Fraction(self.epsilon)

    def rdp(self):
        from . import rdp as R
        return R.RandomizedResponse(self.epsilon)

    def pmf_pair(self):
        """(true bit 0 reported, true bit 1): the generic PLD forms apply."""
        return binary_pair(self.epsilon)


@dataclass(frozen=True)
class DiscreteGaussian(Mechanism):
    """Discrete Gaussian mechanism: N_Z(0, sigma^2) noise, P(x) = e^{-x^2/(2 sigma^2)} /
    sum_y e^{-y^2/(2 sigma^2)} on the integers (Canonne, Kamath, Steinke 2020, "The Discrete
    Gaussian for Differential Privacy", NeurIPS), on a scalar integer-valued query of integer
    ``sensitivity`` Delta >= 1 (the pair N_Z(0, sigma^2) vs N_Z(Delta, sigma^2))."""
    spec_name = "dgauss"
    sigma: float
    sensitivity: int = 1

    def __post_init__(self):
        object.__setattr__(self, "sigma", _pos("sigma", self.sigma))
        d = self.sensitivity
        ok = isinstance(d, (int, float, np.integer, np.floating)) and not isinstance(d, bool) \
            and math.isfinite(float(d)) and float(d) == int(d) and d >= 1
        if not ok:
            raise DomainError("sensitivity", d, "positive integers 1, 2, 3, ... (the discrete "
                              "Gaussian's shift between neighbours is an integer)")
        object.__setattr__(self, "sensitivity", int(d))

    def __str__(self):
        return f"dgauss(sigma={self.sigma:g}" + (
            f", sensitivity={self.sensitivity})" if self.sensitivity != 1 else ")")

    def noise_multiplier(self):
        return self.sigma / self.sensitivity

    def rdp(self):
        from . import rdp as R
        return R.DiscreteGaussian(self.sigma, self.sensitivity)

    def pld_models(self):
        return self.pld_poisson(1.0)

    def pld_poisson(self, rate):
        """Its exact pmf pair on a certified truncated support (vectorised atoms, the tail +oo)."""
        from . import pld
        try:
            return pld.discrete_gaussian_models(self.sigma, self.sensitivity, rate)
        except DomainError as exc:
            raise NotSupported(str(exc)) from None

    def pld_fixed(self, gamma, count):
        from . import pld
        try:
            return _refine_fixed_orders(pld.fixed_discrete_gaussian_models(self.sigma, self.sensitivity,
                                                                           gamma), count)
        except DomainError as exc:
            raise NotSupported(str(exc)) from None


# ----------------------------------------------------------------------------- dp_accounting's
# further mechanisms (k-ary randomized response, the discrete Laplace, zCDP): no --spec form;
# the interop (dpderive.interop.dp_accounting) maps dp_accounting's events onto them and back
# through ``peer_form``.
def _round_up(v: float) -> float:
    """``v`` (a float computed with a few roundings) rounded up past their error."""
    return math.nextafter(v * (1 + 1e-15), math.inf) if math.isfinite(v) and v > 0 else v


def _unit_open(name, v):
    x = _pos(name, v, "(0, 1)")
    if not x < 1:
        raise DomainError(name, v, "(0, 1)")
    return x


def _buckets(v, low=2):
    ok = isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= low
    if not ok:
        raise DomainError("num_buckets", v, f"integers >= {low}")
    return int(v)


class _FinitePair(Mechanism):
    """A mechanism given by a pmf pair on a few outcomes, (P, Q) = (without the record, with
    it) in every order the routes need (``numeric.pld_models.discrete_models`` composes the
    "remove" order (P, Q) of every factor together): ``_arb_pmfs()`` the pmfs as Arb balls
    (certified RDP, ``numeric.rdp_pairs``), ``pmf_pair()`` the same in floats (the PLD routes),
    ``_symmetric``: Q is P reversed (one order suffices)."""

    _symmetric = True

    def _arb_pmfs(self):
        raise TypeError(f"{type(self).__name__} must define _arb_pmfs")

    def rdp(self):
        from . import rdp_pairs as RP

        def pairs():
            p, q = self._arb_pmfs()
            return [(p, q)] if self._symmetric else [(p, q), (q, p)]
        return RP.FinitePairRDP(pairs, self.pure_epsilon(), str(self))

    def pure_epsilon_ball(self):
        from . import rdp_pairs as RP
        with RP._precision():
            p, q = self._arb_pmfs()
            out = None
            for a, b in zip(p, q):
                if a != 0 and b != 0:
                    v = abs((b / a).log())
                    out = v if out is None else out.max(v)
            return out


@dataclass(frozen=True)
class KaryRandomizedResponse(_FinitePair):
    """k-ary randomized response (dp_accounting's ``RandomizedResponseDpEvent(p, k)``): with
    probability 1 - p the true bucket, else a uniform one of the ``num_buckets`` = k.  Replace-one
    neighbours (the true bucket x replaced by x'): the pair on the outcomes (x, another, x') is
    P = (1 - p + p/k, (k-2) p/k, p/k), Q = P reversed (dp_accounting's
    ``from_randomized_response``, REPLACE_ONE); eps0 = log(1 + k(1-p)/p).  ``noise_parameter`` in
    (0, 1) (p = 0 is not private, p = 1 no release of x: the interop maps both)."""
    noise_parameter: float
    num_buckets: int

    def __post_init__(self):
        object.__setattr__(self, "noise_parameter", _unit_open("noise_parameter", self.noise_parameter))
        object.__setattr__(self, "num_buckets", _buckets(self.num_buckets))

    def __str__(self):
        return f"rr(p={self.noise_parameter:g}, k={self.num_buckets})"

    peer_form = property(lambda self: ("rr", "replace_one"))

    def _floats(self):
        p, k = self.noise_parameter, self.num_buckets
        return 1.0 - p * (k - 1) / k, (k - 2) * p / k, p / k

    def _arb_pmfs(self):
        from flint import arb
        p, k = arb(self.noise_parameter), arb(self.num_buckets)
        a, c, b = 1 - p * (k - 1) / k, (k - 2) * p / k, p / k
        return [a, c, b], [b, c, a]

    def pure_epsilon(self):
        p, k = self.noise_parameter, self.num_buckets
        return _round_up(math.log1p(k * (1.0 - p) / p))

    def pmf_pair(self):
        a, c, b = self._floats()
        p = np.array([a, c, b])
        return p, p[::-1].copy()

    def pld_models(self):
        """The generic pair, on the lattice eps0 Z (its losses are 0 and +-eps0: exact there)."""
        from . import pld
        models = pld.discrete_models(*self.pmf_pair())
        top = max(abs(l) for m in models.values() for l, _ in m.atoms)
        for m in models.values():
            m.std, m.grid_anchor = top / pld.DEFAULT_RESOLUTION, None
        return models


@dataclass(frozen=True)
class SpecialRandomizedResponse(_FinitePair):
    """k-ary randomized response under dp_accounting's REPLACE_SPECIAL relation: the true bucket
    x replaced by a special input whose output is uniform over the k buckets.  On the outcomes
    (x, any other): P = (1/k, (k-1)/k) (the special input), Q = (1 - p + p/k, (k-1) p/k) (x),
    both orders (dp_accounting's ``from_randomized_response``, REPLACE_SPECIAL, and its RDP
    accountant's ``_randomized_response_rdp_replace_special``); eps0 =
    max(log(1 + (k-1)(1-p)), log(1/p))."""
    noise_parameter: float
    num_buckets: int

    _symmetric = False

    def __post_init__(self):
        object.__setattr__(self, "noise_parameter", _unit_open("noise_parameter", self.noise_parameter))
        object.__setattr__(self, "num_buckets", _buckets(self.num_buckets))

    def __str__(self):
        return f"rr-special(p={self.noise_parameter:g}, k={self.num_buckets})"

    peer_form = property(lambda self: ("rr", "replace_special"))

    def _arb_pmfs(self):
        from flint import arb
        p, k = arb(self.noise_parameter), arb(self.num_buckets)
        return [1 / k, (k - 1) / k], [1 - p * (k - 1) / k, (k - 1) * p / k]

    def pure_epsilon(self):
        p, k = self.noise_parameter, self.num_buckets
        return _round_up(max(math.log1p((k - 1) * (1.0 - p)), -math.log(p)))

    def pmf_pair(self):
        p, k = self.noise_parameter, self.num_buckets
        return np.array([1.0 / k, (k - 1) / k]), np.array([1.0 - p * (k - 1) / k, (k - 1) * p / k])

    def pld_models(self):
        """The generic pair, each order on a lattice of its own loss spread (the generic form asks
        for h = 1e-4 whatever the spread: ~1e6 bins at 20 steps), at least 1/16 of the distance
        between its two losses (a law nearly all on one atom, p ~ 1e-6, would otherwise ask for a
        lattice finer than its range needs).  One event alone is composed exactly (two atoms:
        ``numeric.pld_exact``); in a heterogeneous composition the lattice rounding is certified
        either way (pessimistic up, optimistic down)."""
        from . import pld
        models = pld.discrete_models(*self.pmf_pair())
        for m in models.values():
            ls = np.array([l for l, _ in m.atoms])
            ws = np.array([w for _, w in m.atoms])
            mean = float(np.sum(ws * ls) / np.sum(ws))
            std = float(np.sqrt(np.sum(ws * (ls - mean) ** 2) / np.sum(ws)))
            m.std = max(std, float(np.ptp(ls)) / 16, 1e-6)
        return models


#: the discrete Laplace's largest sensitivity (its pair has sensitivity + 1 outcomes)
DLAP_MAX_SENSITIVITY = 4096


@dataclass(frozen=True)
class DiscreteLaplace(_FinitePair):
    """The discrete Laplace mechanism (dp_accounting's ``DiscreteLaplaceDpEvent(a, Delta)``):
    noise DLap(a), P(y) = tanh(a/2) e^{-a|y|} on the integers, on an integer query of integer
    ``sensitivity`` Delta >= 1: the pair DLap(0, a) vs DLap(Delta, a).  Its privacy loss
    a(|y| - |y - Delta|) is constant on y <= 0 and on y >= Delta, so the pair collapses exactly to
    Delta + 1 outcomes y = 0..Delta with P = (1/(1+e^{-a}), tanh(a/2) e^{-a y} (0 < y < Delta),
    e^{-a Delta}/(1+e^{-a})), Q = P reversed (a sufficient statistic: every divergence is kept);
    losses a(2y - Delta), all on the lattice a Z.  eps0 = a Delta.  Sensitivity up to
    ``DLAP_MAX_SENSITIVITY`` (the pair's outcomes; the interop refuses larger ones)."""
    noise_parameter: float
    sensitivity: int = 1

    def __post_init__(self):
        object.__setattr__(self, "noise_parameter", _pos("noise_parameter", self.noise_parameter))
        d = self.sensitivity
        if not (isinstance(d, (int, np.integer)) and not isinstance(d, bool) and 1 <= d <= DLAP_MAX_SENSITIVITY):
            raise DomainError("sensitivity", d, f"integers in [1, {DLAP_MAX_SENSITIVITY}] (the discrete "
                              "Laplace's shift; its pair has sensitivity + 1 outcomes)")
        object.__setattr__(self, "sensitivity", int(d))

    def __str__(self):
        return f"dlaplace(a={self.noise_parameter:g}" + (
            f", sensitivity={self.sensitivity})" if self.sensitivity != 1 else ")")

    peer_form = property(lambda self: ("dlaplace", None))

    def pure_epsilon(self):
        return _round_up(self.noise_parameter * self.sensitivity)

    def pure_epsilon_ball(self):
        from fractions import Fraction
        return Fraction(self.noise_parameter) * self.sensitivity

    def _arb_pmfs(self):
        from flint import arb
        a, d = arb(self.noise_parameter), self.sensitivity
        end = 1 / (1 + (-a).exp())
        t = (a / 2).tanh()
        p = [end] + [t * (-a * y).exp() for y in range(1, d)] + [(-a * d).exp() * end]
        return p, p[::-1]

    def pmf_pair(self):
        a, d = self.noise_parameter, self.sensitivity
        y = np.arange(1, d, dtype=float)
        p = np.concatenate(([1.0 / (1.0 + math.exp(-a))], math.tanh(a / 2) * np.exp(-a * y),
                            [math.exp(-a * d) / (1.0 + math.exp(-a))]))
        return p, p[::-1].copy()

    def pld_models(self):
        """The pair on the lattice a Z (its losses a(2y - Delta) lie on it: exact there)."""
        from . import pld
        models = pld.discrete_models(*self.pmf_pair())
        for m in models.values():
            m.std, m.grid_anchor = self.noise_parameter / pld.DEFAULT_RESOLUTION, None
        return models


@dataclass(frozen=True)
class ZCDP(Mechanism):
    """A mechanism known only by a zCDP guarantee (dp_accounting's ``ZCDpEvent(rho, xi)``):
    D_alpha <= xi + rho alpha for every alpha > 1 (Bun and Steinke 2016); RDP route only (the
    guarantee bounds the Renyi curve, not the privacy-loss law: the PLD routes say so)."""
    rho: float
    xi: float = 0.0

    def __post_init__(self):
        for name in ("rho", "xi"):
            v = getattr(self, name)
            ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) \
                and math.isfinite(float(v)) and v >= 0
            if not ok:
                raise DomainError(name, v, "[0, oo) (a finite number)")
            object.__setattr__(self, name, float(v))
        if self.rho == 0 and self.xi == 0:
            raise DomainError("rho", self.rho, "(0, oo) or xi > 0 (rho = xi = 0 releases nothing)")

    def __str__(self):
        return f"zcdp(rho={self.rho:g}" + (f", xi={self.xi:g})" if self.xi else ")")

    peer_form = property(lambda self: ("zcdp", None))

    def rdp(self):
        from . import rdp_pairs as RP
        return RP.AffineRDP(self.rho, self.xi)

    def pure_epsilon(self):
        return self.xi if self.rho == 0 else math.inf

    def pure_epsilon_ball(self):
        from fractions import Fraction
        return Fraction(self.xi) if self.rho == 0 else None


# ----------------------------------------------------------------------------- sampling
@dataclass(frozen=True)
class Poisson(Sampling):
    """Poisson subsampling: each record is used independently with probability ``rate``."""
    spec_name = "poisson"
    rate: float

    def __post_init__(self):
        r = _pos("sampling_rate", self.rate, "(0, 1]")
        if r > 1:
            raise DomainError("sampling_rate", self.rate, "(0, 1]")
        object.__setattr__(self, "rate", r)

    neighbouring = "add_remove"      # the supported amplification bounds are stated for it

    def __str__(self):
        return f"poisson(q={self.rate:g})"

    @property
    def whole(self):
        return self.rate == 1

    def rdp(self, mech):
        return mech.rdp_poisson(self.rate)

    def pld(self, mech, count):
        return mech.pld_poisson(self.rate)


@dataclass(frozen=True)
class WithoutReplacement(Sampling):
    """A fixed batch of ``batch_size`` records drawn without replacement from ``dataset_size``."""
    spec_name = "fixed"
    batch_size: int
    dataset_size: int

    def __post_init__(self):
        n = _pos("dataset_size", self.dataset_size, "integers >= 1")
        b = _pos("batch_size", self.batch_size, f"integers in [1, dataset_size = {n:g}]")
        if n != int(n):
            raise DomainError("dataset_size", self.dataset_size, "integers >= 1")
        if b != int(b) or b > n:
            raise DomainError("batch_size", self.batch_size, f"integers in [1, dataset_size = {int(n)}]")
        object.__setattr__(self, "batch_size", int(b))
        object.__setattr__(self, "dataset_size", int(n))

    neighbouring = "replace_one"     # the batch size is fixed: neighbours replace one record

    @property
    def rate(self) -> float:
        return self.batch_size / self.dataset_size

    def __str__(self):
        return f"fixed(batch={self.batch_size}/{self.dataset_size})"

    def rdp(self, mech):
        return mech.rdp_fixed(self.rate)

    def pld(self, mech, count):
        return mech.pld_fixed(self.rate, count) if self.rate < 1 else mech.pld_models()


def _refine_fixed_orders(models: dict, count: int) -> dict:
    """A fixed batch of the discrete Gaussian: the lower bound (the two fixed orders, lower-only)
    rounds each off-lattice atom down by up to h per step, a bias up to count * h in the loss; for
    long runs the orders get their own lattice h / min(8, count / 256) (used when the event is
    composed alone; the window cap still bounds memory).  At sigma = 2.2, Delta = 2, B/N =
    256/60000, T = 14063 the lower end of eps(1e-5) rises from 2.020 to 2.35 (continuous Gaussian:
    2.379) for ~0.25 s; the upper end is unchanged."""
    from . import pld
    f = min(8.0, count / 256)
    if f > 1:
        h = pld._choose_h(models, None, pld.DEFAULT_RESOLUTION)
        for key in ("order (P, M)", "order (M, P)"):
            models[key].own_h = h / f
    return models
