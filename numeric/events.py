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

dp_accounting's further events have their mechanisms too (``dpderive.interop.dp_accounting``
maps them; no ``--spec`` form): ``KaryRandomizedResponse(p, k)`` (k-ary randomized response,
replace-one pair), ``SpecialRandomizedResponse(p, k)`` (its REPLACE_SPECIAL pair, both orders),
``DiscreteLaplace(a, sensitivity)`` (DLap(a) noise, integer sensitivity; rdp by a closed form,
pld by its exact pmf pair on sensitivity + 1 outcomes) and ``ZCDP(rho, xi)`` (a zCDP guarantee:
RDP xi + rho alpha, route rdp only); their RDP curves are certified in Arb ball arithmetic
(``numeric.rdp_pairs``).  ``numeric.mixture.MixtureOfGaussians(sigma, sensitivities, probs)``
(N(0, sigma^2) vs sum_i p_i N(c_i, sigma^2), both orders; route pld) and
``numeric.repeat_select.RepeatAndSelect(events, mean, shape)`` (the best of a random number of
runs of ``events``, Papernot and Steinke 2022; route rdp) complete dp_accounting's events.

Sampling: ``None`` (the whole data set), ``Poisson(rate)`` (each record independently)
or ``WithoutReplacement(batch_size, dataset_size)`` (a fixed batch).

The mechanism and sampling classes are defined with their protocol in ``numeric.mechanism``
(what each can give the routes) and re-exported here.

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
            curves), converted by the exact optimal conversion (Asoodeh et al. 2021, Theorem 3).
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
            f_gamma^{-1}}** of Dong, Roth, Su 2019 Thm. 4.2 (Zheng et al. 2020, Sec. 2), gamma = B/N; the
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

from .mechanism import (DiscreteGaussian, DiscreteLaplace, Gaussian, KaryRandomizedResponse,  # noqa: F401
                        Laplace, Mechanism, NotSupported, Poisson, RandomizedResponse, Sampling,
                        SpecialRandomizedResponse, WithoutReplacement, ZCDP)

__all__ = ["Gaussian", "Laplace", "RandomizedResponse", "DiscreteGaussian", "KaryRandomizedResponse",
           "SpecialRandomizedResponse", "DiscreteLaplace", "ZCDP", "Poisson", "WithoutReplacement",
           "Event", "RouteError", "NEIGHBOURING", "ROUTES", "events_from_spec", "rdp_curve",
           "pld_accountant", "describe"]

NEIGHBOURING = ("add_remove", "replace_one")
ROUTES = ("rdp", "pld", "clt", "edgeworth")
PROFILES = ("epsilon", "delta")


def profile_of(obj, name: str):
    """``obj.epsilon`` or ``obj.delta``, the side of the privacy profile named ``name``: every route,
    accountant, PLD result and trade-off curve answers both (an explicit call a reader and a tool can
    follow, where ``getattr(obj, name)`` could reach any attribute)."""
    if name == "epsilon":
        return obj.epsilon
    if name == "delta":
        return obj.delta
    raise ValueError(f"name={name!r} is not one of {', '.join(PROFILES)}")


class RouteError(DomainError):
    """A route cannot account an event (names the route, the event and why)."""

    def __init__(self, route: str, event, reason: str):
        self.name, self.value, self.allowed = "method", route, reason
        self.route, self.event, self.reason = route, event, reason
        ValueError.__init__(self, f"route {route} cannot account event {event}: {reason}")


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
        if self.sampling is not None and not isinstance(self.sampling, Sampling):
            raise DomainError("sampling", self.sampling, "None, Poisson or WithoutReplacement (or a "
                              "numeric.mechanism.Sampling)")
        c = self.count
        ok = isinstance(c, (int, float, np.integer, np.floating)) and not isinstance(c, bool) \
            and 1 <= c <= MAX_COUNT and float(c) == int(c)      # (compared first: 10**400 has no float)
        if not ok:
            raise DomainError("steps", c, f"integers in [1, {MAX_COUNT:.0e}]")
        object.__setattr__(self, "count", int(c))
        if self.sampling is not None and self.sampling.whole:
            object.__setattr__(self, "sampling", None)

    @property
    def rate(self) -> float:
        return 1.0 if self.sampling is None else self.sampling.rate

    def pure_epsilon(self, sampled: bool = True) -> float:
        """The per-step pure-DP epsilon (privacy-loss bound; inf if unbounded): the mechanism's,
        amplified by its sampling when ``sampled`` (``numeric.mechanism``)."""
        if not sampled or self.sampling is None:
            return self.mechanism.pure_epsilon()
        return self.sampling.pure(self.mechanism)

    def spec(self) -> dict:
        """The ``--spec`` form of the event (``events_from_spec`` reads it back); NotSupported
        for a mechanism without one."""
        d = dict(self.mechanism.spec())
        if self.sampling is not None:
            d["sampling"] = self.sampling.spec()
        d["count"] = self.count
        return d

    def __str__(self):
        s = "" if self.sampling is None else f" o {self.sampling}"
        return f"{self.mechanism}{s} x {self.count}"


def describe(events) -> str:
    return " + ".join(str(e) for e in events)


def merge_events(events) -> list:
    """Events with the same mechanism and sampling merged into one, their counts summed, in the
    order each first appears: composition is commutative, and one event of count T is accounted
    as tightly as T events of count 1 and far faster (a single PLD lattice, one RDP curve)."""
    merged: dict = {}
    for e in events:
        key = (e.mechanism, e.sampling)
        merged[key] = merged.get(key, 0) + e.count
    if len(merged) == len(events):
        return list(events)
    for (m, _), c in merged.items():
        if c > MAX_COUNT:
            raise DomainError("steps", c, f"a total count of identical events in [1, {MAX_COUNT:.0e}] "
                              f"(events of {m} add up to more)")
    return [Event(m, samp, c) for (m, samp), c in merged.items()]


def _check_events(events, neighbouring):
    """The events of a composition, validated (``Composition``'s rules): a list, or a given
    ``Composition`` itself (a sequence of its events), not validated again: only its relation is
    compared with ``neighbouring``."""
    if isinstance(events, Composition):
        if events.neighbouring != neighbouring:
            raise DomainError("neighbouring", neighbouring, f"{events.neighbouring} (the relation this "
                              "Composition was built with)")
        return events
    return _validate_events(events, neighbouring)


def as_composition(events, neighbouring: str = "add_remove") -> "Composition":
    """``events`` as a validated ``Composition`` under ``neighbouring`` (a given one: its relation
    compared, nothing validated again)."""
    if isinstance(events, Composition):
        return _check_events(events, neighbouring)
    return Composition(events, neighbouring)


def _validate_events(events, neighbouring) -> list:
    if isinstance(events, Event):
        events = [events]
    try:
        events = list(events)
    except TypeError:
        raise DomainError("events", events, "a non-empty list of Event") from None
    if not events or not all(isinstance(e, Event) for e in events):
        raise DomainError("events", events, "a non-empty list of Event")
    events = merge_events(events)
    if neighbouring not in NEIGHBOURING:
        raise DomainError("neighbouring", neighbouring, " or ".join(NEIGHBOURING))
    for e in events:
        inner = getattr(e.mechanism, "neighbouring", neighbouring)    # a mechanism over inner events
        if inner != neighbouring:
            raise DomainError("neighbouring", neighbouring, f"{inner} for {e.mechanism} (its inner "
                              f"events are accounted under {inner})")
        nb = getattr(e.sampling, "neighbouring", neighbouring)
        if nb == "replace_one" and neighbouring != "replace_one":
            raise DomainError("neighbouring", neighbouring, "replace_one for fixed-size batches "
                              "(sampling without replacement keeps the batch size, so neighbours "
                              "differ by replacing one record)")
        if nb == "add_remove" and neighbouring != "add_remove":
            raise DomainError("neighbouring", neighbouring, "add_remove for Poisson subsampling "
                              "(the supported amplification bounds are stated for add/remove)")
    return events


@dataclass(frozen=True, init=False)
class Composition:
    """A composition validated once: its events (each an ``Event``; identical ones merged, their
    counts summed) under one neighbouring relation (``add_remove`` or ``replace_one``; a fixed batch
    needs ``replace_one``, Poisson subsampling ``add_remove``).  Invalid input raises ``DomainError``
    naming the parameter here, at construction.  Every function of ``numeric`` that takes events
    takes a Composition and does not validate it again; it iterates as its events.  The public
    ``numeric.Composition`` (``numeric.account.Composition``) adds ``.epsilon`` and ``.delta``.
    """
    events: tuple
    neighbouring: str

    def __init__(self, events, neighbouring: str = "add_remove"):
        object.__setattr__(self, "neighbouring", neighbouring)
        object.__setattr__(self, "events", tuple(_validate_events(events, neighbouring)))

    def __iter__(self):
        return iter(self.events)

    def __len__(self):
        return len(self.events)

    def __getitem__(self, i):
        return self.events[i]

    def __str__(self):
        return describe(list(self.events)) + ("" if self.neighbouring == "add_remove" else
                                               f" ({self.neighbouring})")


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
    for key in sorted(set(need.values()) - {need[kind]}):
        if key in d:
            raise DomainError(f"{where}.{key}", d[key], f"absent for {kind} (its noise is "
                              f"\"{need[kind]}\")")
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
        keys = {"poisson": {"kind", "rate"}, "fixed": {"kind", "batch_size", "dataset_size"},
                "none": {"kind"}}[s["kind"]]
        if set(s) - keys:
            extra = sorted(set(s) - keys)[0]
            raise DomainError(f"{where}.sampling.{extra}", s[extra], f"absent for \"{s['kind']}\" "
                              "sampling (its keys: " + ", ".join(sorted(keys)) + ")")
        if s["kind"] == "poisson":
            samp = Poisson(s.get("rate"))
        elif s["kind"] == "fixed":
            samp = WithoutReplacement(s.get("batch_size"), s.get("dataset_size"))
    if "count" not in d:
        raise DomainError(f"{where}.count", None, "an integer in [1, 1e+09] (required: how many "
                          "times the event runs; there is no default)")
    c = d["count"]
    ok = isinstance(c, (int, float)) and not isinstance(c, bool) and 1 <= c <= MAX_COUNT and c == int(c)
    if not ok:
        raise DomainError(f"{where}.count", c, f"integers in [1, {MAX_COUNT:.0e}]")
    return Event(mech, samp, c)


def _unique_keys(pairs) -> dict:
    """A JSON object whose keys are each given once (a repeated key is refused, not overwritten)."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise DomainError(f"spec key {k!r}", v, "each key once per object (it is given twice)")
        out[k] = v
    return out


def events_from_spec(obj) -> list:
    """Events from a JSON text or the parsed list of event objects (``--spec`` files):
    ``{"mechanism": "gaussian", "sigma": 1.1, "sampling": {"kind": "poisson", "rate": 0.004267},
    "count": 14063}``; laplace takes ``"scale"``, rr ``"epsilon"``, dgauss ``"sigma"``; ``"sensitivity"`` optional;
    ``"count"`` required (forgetting it must not under-report epsilon).  A JSON list, even of
    one event; invalid values raise ``numeric.errors.UserInputError``."""
    if isinstance(obj, str):
        try:
            obj = json.loads(obj, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as exc:
            raise DomainError("spec", f"line {exc.lineno}", f"valid JSON ({exc.msg})") from None
        except RecursionError:
            raise DomainError("spec", "a JSON text nested too deeply", "a JSON list of event "
                              "objects") from None
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


#: a bounded-loss event (Laplace, RR) with a per-step privacy loss beyond this is not given
#: to the PLD route (its grid spans the loss range: too large or underflowing there); the
#: pure-DP bound answers it
PLD_MAX_LOSS = 500.0
#: ... and one below this (a loss range below the lattice)
PLD_MIN_LOSS = 1e-9
#: the noise multipliers sigma / sensitivity the PLD route and the approximations take (below:
#: a loss range of ~ 1/(2 s^2) beyond the grid, slow or NaN there; above: a loss range below
#: the lattice); the rdp route (and ``exact``, ``pure``) answer outside
NOISE_RANGE = (1e-3, 1e8)


def pld_screen(events) -> None:
    """The PLD route's range: ``RouteError`` for an event beyond it (bounded losses outside
    [``PLD_MIN_LOSS``, ``PLD_MAX_LOSS``], noise multipliers outside ``NOISE_RANGE``)."""
    for e in events:
        loss = e.pure_epsilon(sampled=False)
        if math.isfinite(loss) and not PLD_MIN_LOSS <= loss <= PLD_MAX_LOSS:
            raise RouteError("pld", e, f"per-step privacy loss up to {loss:.6g} outside "
                             f"[{PLD_MIN_LOSS:g}, {PLD_MAX_LOSS:g}] (the PLD grid's range; the "
                             "pure-DP bound applies)")
        s = e.mechanism.noise_multiplier()
        if s is not None and not NOISE_RANGE[0] <= s <= NOISE_RANGE[1]:
            raise RouteError("pld", e, f"noise multiplier sigma/sensitivity = {s:.6g} outside "
                             f"[{NOISE_RANGE[0]:g}, {NOISE_RANGE[1]:g}] (the PLD grid's range)")


def pld_accountant(events, neighbouring: str = "add_remove", bounds: str = "both",
                   resolution: float | None = None):
    """A ``numeric.pld`` result (``.delta(eps)`` / ``.epsilon(delta)`` give certified
    (lower, upper) pairs) for the composition, or ``RouteError`` (outside ``pld_screen``'s
    range among the reasons).  ``resolution``: the lattice step h as a multiple of the one-step
    loss's standard deviation (default ``numeric.pld.DEFAULT_RESOLUTION``; every lattice is
    certified, a finer one is tighter and slower)."""
    from . import pld, pld_exact
    events = _check_events(events, neighbouring)
    pld_screen(events)
    factors = [(_pld_models(e), e.count) for e in events]
    res = pld.DEFAULT_RESOLUTION if resolution is None else resolution
    if len(factors) == 1:           # one event: its own lattice, refined per direction
        (models, count), = factors
        if resolution is None and pld_exact.applies(models, count):
            # a two-atom law: the exact binomial sums
            return pld_exact.ExactBinomialPLD(describe(events), models, count, bounds)
        anchor = models["single"].grid_anchor if "single" in models else None
        h = pld._choose_h(models, None, res, anchor)
        return pld.PLDResult(describe(events), models, count, h, pld.TAIL_BOUND, bounds)
    return pld.composite(factors, resolution=res, bounds=bounds)


def timed(fn, *a, **k):
    t0 = time.perf_counter()
    out = fn(*a, **k)
    return out, time.perf_counter() - t0
