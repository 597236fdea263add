"""Mechanisms, sampling and events: the public accounting API of dpderive.

An *event* is one mechanism, optionally subsampled, repeated ``count`` times; a list of
events is their (adaptive, heterogeneous) composition.  Each accounting *route* either
accounts a list of events or raises ``RouteError`` saying why it cannot::

    from numeric import Gaussian, Laplace, Poisson, Event, epsilon
    run = [Event(Gaussian(sigma=1.1), Poisson(256 / 60000), count=14063)]
    r = epsilon(run, delta=1e-5)          # the tightest certified route (rdp or pld)
    r.value, r.extras["epsilon_lower"], r.extras["route"]

Mechanisms (``sensitivity`` is the sensitivity under the chosen neighbouring relation):

* ``Gaussian(sigma, sensitivity=1)``  N(0, sigma^2) noise on an L2-sensitivity query
  (sigma is the noise multiplier: the standard deviation is sigma for sensitivity 1);
* ``Laplace(scale, sensitivity=1)``   Lap(scale) noise on an L1-sensitivity query;
* ``RandomizedResponse(epsilon)``     binary randomized response;
* ``DiscreteGaussian(sigma, sensitivity=1)``  N_Z(0, sigma^2) noise (the discrete Gaussian on
  the integers, Canonne, Kamath, Steinke 2020) on a scalar integer-valued query whose
  sensitivity is a positive integer.

Sampling: ``None`` (the whole data set), ``Poisson(rate)`` (each record independently)
or ``WithoutReplacement(batch_size, dataset_size)`` (a fixed batch).

Neighbouring relation (for the whole composition): ``"add_remove"`` (default) or
``"replace_one"``.  Fixed batches are accounted under replace-one only (under
add/remove the batch size itself would change); Poisson subsampling under
add/remove only.  With a fixed batch the mechanism's ``sensitivity`` is its
replace-one sensitivity on batches (2C for a sum of per-record terms clipped to norm C;
every route uses it so: rdp's WithoutReplacementRDP takes the base curve at that
sensitivity, pld the base pair N(0, sigma^2) vs N(sensitivity, sigma^2), resp. Laplace
at that shift, as its P vs Q).

Routes:

* ``rdp``   RDP curves composed additively (heterogeneous composition is a sum of
            curves), converted by the exact optimal conversion (002 Theorem 3).
            Gaussian: Mironov 2017 Prop. 7; discrete Gaussian: alpha Delta^2/(2 sigma^2),
            Canonne, Kamath, Steinke 2020 Prop. 5 (an upper bound; subsampled by the
            generic bounds below, never by the continuous exact curve); Poisson-subsampled Gaussian: Mironov,
            Talwar, Zhang 2019 (exact); Laplace / RR: Mironov 2017 Props. 6 / 5;
            other Poisson-subsampled mechanisms: Zhu and Wang 2019 Thm. 6; fixed
            batches: Wang, Balle, Kasiviswanathan 2019 Thm. 9.  Upper bound only.
* ``pld``   certified bracket by privacy-loss distributions (``numeric.pld``):
            Gaussian, Laplace, RR and the discrete Gaussian (its exact pmf pair on a truncated
            support, the tail as +oo loss in the upper bound), without or with Poisson subsampling (add/remove
            dominating pairs, Zhu, Dong, Wang 2022) or fixed batches (replace-one: the
            upper bound composes the symmetric dominating pair C_gamma(f) = min{f_gamma,
            f_gamma^{-1}}** of Dong, Roth, Su 2019 Thm. 4.2 (004 Sec. 2), gamma = B/N; the
            lower bound the worse of the two attained fixed orders; ``numeric.pld``; the
            discrete Gaussian by its exact truncated pmf pair, the tail +oo in the upper bound).
* ``clt``, ``edgeworth``  approximations (``numeric.methods``), one homogeneous
            Gaussian event only; labelled ``guarantee: false``.
* ``best``  (default) the smallest certified upper bound among rdp and pld, with
            PLD's certified lower bound beside it; PLD runs first and rdp is skipped when
            PLD's bracket is within ``account.SKIP_RDP_GAP`` (0.1%) relative.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass

import numpy as np

from derive.errors import DomainError

from .mechanism import Mechanism, NotSupported, binary_pair

__all__ = ["Gaussian", "Laplace", "RandomizedResponse", "DiscreteGaussian", "Poisson", "WithoutReplacement",
           "Event", "RouteError", "NEIGHBOURING", "ROUTES", "events_from_spec", "rdp_curve",
           "pld_accountant", "describe"]

NEIGHBOURING = ("add_remove", "replace_one")
ROUTES = ("rdp", "pld", "clt", "edgeworth")


class RouteError(DomainError):
    """A route cannot account an event (names the route, the event and why)."""

    def __init__(self, route: str, event, reason: str):
        self.name, self.value, self.allowed = "method", route, reason
        self.route, self.event, self.reason = route, event, reason
        ValueError.__init__(self, f"route {route} cannot account event {event}: {reason}")


def _pos(name, v, allowed="(0, oo)"):
    x = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
    if x is None or not math.isfinite(x) or x <= 0:
        raise DomainError(name, v, allowed)
    return x


# ----------------------------------------------------------------------------- mechanisms
@dataclass(frozen=True)
class Gaussian(Mechanism):
    """Gaussian mechanism: noise multiplier ``sigma`` on a query of L2 ``sensitivity``."""
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
    scale: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "scale", _pos("scale", self.scale))
        object.__setattr__(self, "sensitivity", _pos("sensitivity", self.sensitivity))

    def __str__(self):
        return f"laplace(scale={self.scale:g}" + (
            f", sensitivity={self.sensitivity:g})" if self.sensitivity != 1 else ")")

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
    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _pos("rr_epsilon", self.epsilon))

    def __str__(self):
        return f"rr(epsilon={self.epsilon:g})"

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


# ----------------------------------------------------------------------------- sampling
@dataclass(frozen=True)
class Poisson:
    """Poisson subsampling: each record is used independently with probability ``rate``."""
    rate: float

    def __post_init__(self):
        r = _pos("sampling_rate", self.rate, "(0, 1]")
        if r > 1:
            raise DomainError("sampling_rate", self.rate, "(0, 1]")
        object.__setattr__(self, "rate", r)

    neighbouring = "add_remove"      # the supported amplification bounds are stated for it

    def __str__(self):
        return f"poisson(q={self.rate:g})"

    def rdp(self, mech):
        return mech.rdp_poisson(self.rate)

    def pld(self, mech, count):
        return mech.pld_poisson(self.rate)


@dataclass(frozen=True)
class WithoutReplacement:
    """A fixed batch of ``batch_size`` records drawn without replacement from ``dataset_size``."""
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


MAX_COUNT = 1e9


@dataclass(frozen=True)
class Event:
    """``mechanism`` (optionally subsampled by ``sampling``) repeated ``count`` times."""
    mechanism: object
    sampling: object = None
    count: int = 1

    def __post_init__(self):
        if not isinstance(self.mechanism, Mechanism):
            raise DomainError("mechanism", self.mechanism,
                              "Gaussian, Laplace, RandomizedResponse, DiscreteGaussian (or a "
                              "numeric.mechanism.Mechanism)")
        if self.sampling is not None and not isinstance(self.sampling, (Poisson, WithoutReplacement)):
            raise DomainError("sampling", self.sampling, "None, Poisson or WithoutReplacement")
        c = self.count
        ok = isinstance(c, (int, float, np.integer, np.floating)) and not isinstance(c, bool) \
            and math.isfinite(float(c)) and float(c) == int(c) and 1 <= c <= MAX_COUNT
        if not ok:
            raise DomainError("steps", c, f"integers in [1, {MAX_COUNT:.0e}]")
        object.__setattr__(self, "count", int(c))
        if isinstance(self.sampling, Poisson) and self.sampling.rate == 1:
            object.__setattr__(self, "sampling", None)

    @property
    def rate(self) -> float:
        return 1.0 if self.sampling is None else self.sampling.rate

    def __str__(self):
        s = "" if self.sampling is None else f" o {self.sampling}"
        return f"{self.mechanism}{s} x {self.count}"


def describe(events) -> str:
    return " + ".join(str(e) for e in events)


def _check_events(events, neighbouring):
    if isinstance(events, Event):
        events = [events]
    events = list(events)
    if not events or not all(isinstance(e, Event) for e in events):
        raise DomainError("events", events, "a non-empty list of Event")
    if neighbouring not in NEIGHBOURING:
        raise DomainError("neighbouring", neighbouring, " or ".join(NEIGHBOURING))
    for e in events:
        nb = getattr(e.sampling, "neighbouring", neighbouring)
        if nb == "replace_one" and neighbouring != "replace_one":
            raise DomainError("neighbouring", neighbouring, "replace_one for fixed-size batches "
                              "(sampling without replacement keeps the batch size, so neighbours "
                              "differ by replacing one record)")
        if nb == "add_remove" and neighbouring != "add_remove":
            raise DomainError("neighbouring", neighbouring, "add_remove for Poisson subsampling "
                              "(the supported amplification bounds are stated for add/remove)")
    return events


# ----------------------------------------------------------------------------- from JSON
_SPEC_KEYS = {"mechanism", "sigma", "scale", "epsilon", "sensitivity", "sampling", "count"}


def _event_from_dict(d: dict, i: int) -> Event:
    where = f"spec[{i}]"
    if not isinstance(d, dict):
        raise DomainError(where, d, "an object like {\"mechanism\": \"gaussian\", \"sigma\": 1.1, "
                          "\"count\": 100}")
    extra = set(d) - _SPEC_KEYS
    if extra:
        raise DomainError(f"{where}.{sorted(extra)[0]}", d[sorted(extra)[0]],
                          "one of the keys " + ", ".join(sorted(_SPEC_KEYS)))
    kind = d.get("mechanism")
    sens = d.get("sensitivity", 1.0)
    need = {"gaussian": "sigma", "laplace": "scale", "rr": "epsilon", "dgauss": "sigma"}
    if kind not in need:
        raise DomainError(f"{where}.mechanism", kind, "gaussian, laplace, rr or dgauss")
    if need[kind] not in d:
        raise DomainError(f"{where}.{need[kind]}", None, f"a number (required for {kind})")
    if kind == "gaussian":
        mech = Gaussian(d["sigma"], sens)
    elif kind == "laplace":
        mech = Laplace(d["scale"], sens)
    elif kind == "dgauss":
        mech = DiscreteGaussian(d["sigma"], d.get("sensitivity", 1))
    else:
        if "sensitivity" in d:
            raise DomainError(f"{where}.sensitivity", sens, "absent for rr (its epsilon says it all)")
        mech = RandomizedResponse(d["epsilon"])
    s = d.get("sampling")
    samp = None
    if s is not None:
        if not isinstance(s, dict) or s.get("kind") not in ("poisson", "fixed", "none"):
            raise DomainError(f"{where}.sampling", s, "{\"kind\": \"poisson\", \"rate\": q} or "
                              "{\"kind\": \"fixed\", \"batch_size\": B, \"dataset_size\": N}")
        if s["kind"] == "poisson":
            samp = Poisson(s.get("rate"))
        elif s["kind"] == "fixed":
            samp = WithoutReplacement(s.get("batch_size"), s.get("dataset_size"))
    if "count" not in d:
        raise DomainError(f"{where}.count", None, "an integer in [1, 1e+09] (required: how many "
                          "times the event runs; there is no default)")
    c = d["count"]
    ok = isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c) \
        and c == int(c) and 1 <= c <= MAX_COUNT
    if not ok:
        raise DomainError(f"{where}.count", c, f"integers in [1, {MAX_COUNT:.0e}]")
    return Event(mech, samp, c)


def events_from_spec(obj) -> list:
    """Events from a JSON text or the parsed list of event objects (``--spec`` files):
    ``{"mechanism": "gaussian", "sigma": 1.1, "sampling": {"kind": "poisson", "rate": 0.004267},
    "count": 14063}``; laplace takes ``"scale"``, rr ``"epsilon"``, dgauss ``"sigma"``; ``"sensitivity"`` optional;
    ``"count"`` required (forgetting it must not under-report epsilon).  A JSON list, even of
    one event; invalid values raise ``numeric.errors.UserInputError``."""
    if isinstance(obj, str):
        try:
            obj = json.loads(obj)
        except json.JSONDecodeError as exc:
            raise DomainError("spec", f"line {exc.lineno}", f"valid JSON ({exc.msg})") from None
    if isinstance(obj, dict):
        raise DomainError("spec", "a single object", "a JSON list of event objects: wrap it in "
                          "[...] (a list of one event)")
    if not isinstance(obj, list) or not obj:
        raise DomainError("spec", type(obj).__name__, "a non-empty JSON list of events")
    from .errors import user_input
    with user_input():               # the spec's values are the user's
        return [_event_from_dict(d, i) for i, d in enumerate(obj)]


# ----------------------------------------------------------------------------- route: RDP
def _rdp_event(e: Event):
    """The RDP curve of one step of ``e``: the mechanism's, wrapped by its sampling."""
    try:
        return e.mechanism.rdp() if e.sampling is None else e.sampling.rdp(e.mechanism)
    except NotSupported as exc:
        raise RouteError("rdp", e, str(exc)) from None


def rdp_curve(events, neighbouring: str = "add_remove"):
    """The RDP curve of the composition (a ``numeric.rdp.Composition``: RDP composes
    additively, so heterogeneous composition is the weighted sum of the event curves)."""
    from . import rdp as R
    events = _check_events(events, neighbouring)
    return R.Composition([_rdp_event(e) for e in events], [e.count for e in events])


# ----------------------------------------------------------------------------- route: PLD
def _pld_models(e: Event):
    """The one-step loss models of ``e``: the mechanism's privacy-loss law, wrapped by its
    sampling (``numeric.mechanism``)."""
    try:
        if e.sampling is None:
            return e.mechanism.pld_models()
        return e.sampling.pld(e.mechanism, e.count)
    except NotSupported as exc:
        raise RouteError("pld", e, str(exc)) from None


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


def pld_accountant(events, neighbouring: str = "add_remove", bounds: str = "both"):
    """A ``numeric.pld`` result (``.delta(eps)`` / ``.epsilon(delta)`` give certified
    (lower, upper) pairs) for the composition, or ``RouteError``."""
    from . import pld, pld_exact
    events = _check_events(events, neighbouring)
    factors = [(_pld_models(e), e.count) for e in events]
    if len(factors) == 1:           # one event: its own lattice, refined per direction
        (models, count), = factors
        if pld_exact.applies(models, count):    # a two-atom law: the exact binomial sums
            return pld_exact.ExactBinomialPLD(describe(events), models, count, bounds)
        anchor = models["single"].grid_anchor if "single" in models else None
        h = pld._choose_h(models, None, pld.DEFAULT_RESOLUTION, anchor)
        return pld.PLDResult(describe(events), models, count, h, pld.TAIL_BOUND, bounds)
    return pld.composite(factors, bounds=bounds)


def timed(fn, *a, **k):
    t0 = time.perf_counter()
    out = fn(*a, **k)
    return out, time.perf_counter() - t0
