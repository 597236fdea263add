"""dp_accounting interoperability (``pip install dpderive[interop]``; dp_accounting is
imported when this module is).

* ``to_events(dp_event, neighbouring)`` -> list of ``numeric.events.Event`` (flattened:
  composition is commutative) and ``from_events(events, neighbouring)`` -> ``DpEvent``.
* ``DpDeriveAccountant(neighboring_relation)``: a ``dp_accounting.PrivacyAccountant``
  (``supports``, ``compose``, ``get_epsilon``, ``get_delta``, ``ledger``) answering with
  dpderive's tightest certified upper bound (route ``best`` of ``numeric.account``).
  Unsupported events are refused the way dp_accounting refuses them: ``supports`` is
  False and ``compose`` raises ``UnsupportedEventError``.

Mapping (dp_accounting's ``noise_multiplier`` is s / C, C the per-record norm bound):

=================================================  ============================================
DpEvent                                            dpderive
=================================================  ============================================
GaussianDpEvent(nm)             add/remove         Gaussian(sigma=nm, sensitivity=1)
                                replace-one        Gaussian(sigma=nm, sensitivity=2)  (2C)
LaplaceDpEvent(nm)              add/remove         Laplace(scale=nm, sensitivity=1)
                                replace-one        Laplace(scale=nm, sensitivity=2)
RandomizedResponseDpEvent(p, 2) replace-one        RandomizedResponse(epsilon=log((2-p)/p))
PoissonSampledDpEvent(q, X)     add/remove         Event(X, Poisson(q))
SampledWithoutReplacementDpEvent(N, B, X)  replace-one  Event(X, WithoutReplacement(B, N))
SelfComposedDpEvent(X, n)                          counts times n
ComposedDpEvent([...])                             the list
NoOpDpEvent                                        nothing
=================================================  ============================================

Replace-one Gaussian: a replaced record moves a sum of C-bounded terms by up to 2C, so the
sensitivity is 2 in units of C (dpderive's fixed batches, README; dp_accounting's PLD
accountant uses the same pair; its RDP accountant's ``SampledWithoutReplacementDpEvent``
takes the base Gaussian at sensitivity C, half of that).  Randomized response with
``num_buckets`` = 2 only (k > 2 is a three-point pair dpderive does not model), and under
replace-one as in dp_accounting.  ``NonPrivateDpEvent`` makes every answer epsilon = inf,
delta = 1 (as dp_accounting).  Anything else (REPLACE_SPECIAL, other event types, Poisson
sampling under replace-one, a sampled composition that is not of Gaussians) is unsupported.
A Poisson- or fixed-sampled composition of Gaussians is the one Gaussian of the same
privacy (sigma_eff^-2 = sum n_i sigma_i^-2), as in dp_accounting.

Round trip: ``from_events(to_events(e)) == e`` for every tree built from the supported
leaves by sampling and by ``SelfComposedDpEvent`` / ``ComposedDpEvent`` in the canonical
form ``from_events`` writes (a leaf or sampled leaf; ``SelfComposedDpEvent`` when its count
exceeds 1; ``ComposedDpEvent`` of those when there are several).
"""
from __future__ import annotations

import math

import dp_accounting
from dp_accounting import dp_event as de
from dp_accounting import privacy_accountant as pa

from numeric import events as EV

__all__ = ["to_events", "from_events", "DpDeriveAccountant", "NEIGHBOURING", "Unsupported"]

NR = pa.NeighboringRelation
NEIGHBOURING = {NR.ADD_OR_REMOVE_ONE: "add_remove", NR.REPLACE_ONE: "replace_one"}


class Unsupported(Exception):
    """An event dpderive cannot account (``event``: the offending sub-event)."""

    def __init__(self, event, message):
        super().__init__(message)
        self.event, self.message = event, message


_RR_P: dict = {}     # randomized response: epsilon (as imported) -> dp_accounting's p


class _NonPrivate:
    """Marker: the composition holds a NonPrivateDpEvent (epsilon = inf)."""


def _relation(neighbouring) -> str:
    if isinstance(neighbouring, str):
        if neighbouring not in EV.NEIGHBOURING:
            raise Unsupported(None, f"neighbouring relation {neighbouring!r}")
        return neighbouring
    if neighbouring not in NEIGHBOURING:
        raise Unsupported(None, f"neighbouring relation {neighbouring} (dpderive accounts "
                          "ADD_OR_REMOVE_ONE and REPLACE_ONE)")
    return NEIGHBOURING[neighbouring]


def _mechanism(event, nb: str):
    """A dpderive mechanism for a DpEvent leaf (None: not a supported leaf)."""
    k = 2.0 if nb == "replace_one" else 1.0
    if isinstance(event, de.GaussianDpEvent):
        if not event.noise_multiplier > 0:
            return _NonPrivate
        return EV.Gaussian(float(event.noise_multiplier), k)
    if isinstance(event, de.LaplaceDpEvent):
        if not event.noise_multiplier > 0:
            return _NonPrivate
        return EV.Laplace(float(event.noise_multiplier), k)
    if isinstance(event, de.RandomizedResponseDpEvent):
        if nb != "replace_one":
            raise Unsupported(event, "randomized response is accounted under REPLACE_ONE "
                              "(as in dp_accounting)")
        if event.num_buckets != 2:
            raise Unsupported(event, "randomized response with num_buckets = 2 only")
        p = float(event.noise_parameter)
        if p <= 0:
            return _NonPrivate
        if p >= 1:
            return None          # output independent of the input: a no-op
        # epsilon rounded up (a larger epsilon is a weaker claim); p remembered for the way back
        e = math.nextafter(math.log((2.0 - p) / p) * (1 + 4e-16), math.inf)
        _RR_P[e] = p
        return EV.RandomizedResponse(e)
    raise Unsupported(event, f"{type(event).__name__} is not supported by dpderive")


def _gaussian_sum(event, nb: str, mult: int = 1):
    """sum of n_i / sigma_i^2 over a composition of Gaussians (None if it is not one)."""
    if isinstance(event, de.GaussianDpEvent):
        return mult / float(event.noise_multiplier) ** 2 if event.noise_multiplier > 0 else math.inf
    if isinstance(event, de.SelfComposedDpEvent):
        return _gaussian_sum(event.event, nb, mult * event.count)
    if isinstance(event, de.ComposedDpEvent):
        parts = [_gaussian_sum(e, nb, mult) for e in event.events]
        return None if any(p is None for p in parts) else math.fsum(parts)
    if isinstance(event, de.NoOpDpEvent):
        return 0.0
    return None


def _sampled_mechanism(inner, nb, outer):
    leaf = (de.GaussianDpEvent, de.LaplaceDpEvent, de.RandomizedResponseDpEvent)
    if isinstance(inner, leaf):
        return _mechanism(inner, nb)
    s = _gaussian_sum(inner, nb)
    if s is None:
        raise Unsupported(outer, "the sampled event must be a Gaussian, Laplace or randomized "
                          "response event, or a composition of Gaussians")
    if s == 0:
        return None
    if math.isinf(s):
        return _NonPrivate
    return EV.Gaussian(1.0 / math.sqrt(s), 2.0 if nb == "replace_one" else 1.0)


def _walk(event, nb: str, count: int, out: list):
    if not isinstance(event, de.DpEvent):
        raise Unsupported(event, f"{type(event).__name__} is not a DpEvent")
    if isinstance(event, de.NoOpDpEvent):
        return
    if isinstance(event, de.NonPrivateDpEvent):
        out.append(_NonPrivate)
        return
    if isinstance(event, de.SelfComposedDpEvent):
        if event.count < 0:
            raise Unsupported(event, "a negative count")
        _walk(event.event, nb, count * event.count, out)
        return
    if isinstance(event, de.ComposedDpEvent):
        for e in event.events:
            _walk(e, nb, count, out)
        return
    if isinstance(event, de.PoissonSampledDpEvent):
        if nb != "add_remove":
            raise Unsupported(event, "Poisson sampling is accounted under ADD_OR_REMOVE_ONE")
        q = float(event.sampling_probability)
        if q == 0:
            return
        m = _sampled_mechanism(event.event, nb, event)
        if m is _NonPrivate:
            out.append(_NonPrivate)
        elif m is not None and count > 0:
            out.append(EV.Event(m, EV.Poisson(q) if q < 1 else None, count))
        return
    if isinstance(event, de.SampledWithoutReplacementDpEvent):
        if nb != "replace_one":
            raise Unsupported(event, "sampling without replacement is accounted under REPLACE_ONE")
        m = _sampled_mechanism(event.event, nb, event)
        if m is _NonPrivate:
            out.append(_NonPrivate)
        elif m is not None and count > 0:
            out.append(EV.Event(m, EV.WithoutReplacement(int(event.sample_size),
                                                         int(event.source_dataset_size)), count))
        return
    m = _mechanism(event, nb)
    if m is _NonPrivate:
        out.append(_NonPrivate)
    elif m is not None and count > 0:
        out.append(EV.Event(m, None, count))


def to_events(event, neighbouring="add_remove") -> list:
    """The dpderive events of a DpEvent tree (``Unsupported`` if it holds an event dpderive
    cannot account; a NonPrivateDpEvent raises ``Unsupported`` too: use the accountant,
    which answers inf for it).  ``neighbouring``: "add_remove" / "replace_one" or a
    ``dp_accounting.NeighboringRelation``."""
    nb = _relation(neighbouring)
    out: list = []
    _walk(event, nb, 1, out)
    if any(e is _NonPrivate for e in out):
        raise Unsupported(event, "a NonPrivateDpEvent (epsilon = inf)")
    return out


def _leaf(mech, nb: str):
    """The DpEvent of one mechanism, read from its ``--spec`` form (``numeric.mechanism``:
    the mechanism says what it is; no class tests here)."""
    try:
        spec = mech.spec()
    except EV.NotSupported:
        spec = {}
    k = 2.0 if nb == "replace_one" else 1.0
    kind = spec.get("mechanism")
    if kind == "gaussian":
        return de.GaussianDpEvent(spec["sigma"] * k / spec["sensitivity"])
    if kind == "laplace":
        return de.LaplaceDpEvent(spec["scale"] * k / spec["sensitivity"])
    if kind == "rr":
        if nb != "replace_one":
            raise Unsupported(mech, "randomized response exports under replace_one only")
        eps = spec["epsilon"]
        p = _RR_P.get(eps)
        if p is None or not math.isclose(p, 2.0 / (1.0 + math.exp(eps)), rel_tol=1e-12):
            p = 2.0 / (1.0 + math.exp(eps))
        return de.RandomizedResponseDpEvent(p, 2)
    raise Unsupported(mech, f"{type(mech).__name__} has no DpEvent")


def from_events(events, neighbouring="add_remove"):
    """The canonical DpEvent of a list of dpderive events (module docstring)."""
    nb = _relation(neighbouring)
    if isinstance(events, EV.Event):
        events = [events]
    EV._check_events(events, nb)
    parts = []
    for e in events:
        x = _leaf(e.mechanism, nb)
        samp = {} if e.sampling is None else e.sampling.spec()
        if samp.get("kind") == "poisson":
            x = de.PoissonSampledDpEvent(samp["rate"], x)
        elif samp.get("kind") == "fixed":
            x = de.SampledWithoutReplacementDpEvent(samp["dataset_size"], samp["batch_size"], x)
        parts.append(x if e.count == 1 else de.SelfComposedDpEvent(x, e.count))
    return parts[0] if len(parts) == 1 else de.ComposedDpEvent(parts)


class DpDeriveAccountant(pa.PrivacyAccountant):
    """A ``dp_accounting.PrivacyAccountant`` answering with dpderive's tightest certified
    upper bound (``method="best"``; "rdp" or "pld" pick one route; the PLD route is also
    tried at the finer lattice ``resolution``, default 0.01, ~4x the default's cost).  Composition goes into a
    ``numeric.stateful.StatefulAccountant``; ``last_answer`` holds the full answer (route,
    certified lower bound) of the latest ``get_epsilon`` / ``get_delta``."""

    def __init__(self, neighboring_relation: NR = NR.ADD_OR_REMOVE_ONE, method: str = "best",
                 resolution: float | None = 0.01):
        super().__init__(neighboring_relation)
        from numeric.stateful import StatefulAccountant
        self.method = method
        self._nb = NEIGHBOURING.get(neighboring_relation)
        self._state = StatefulAccountant(self._nb or "add_remove", resolution=resolution)
        self._non_private = False
        self.last_answer = None

    def _maybe_compose(self, event, count: int, do_compose: bool):
        try:
            if self._nb is None:
                raise Unsupported(event, f"neighboring relation {self.neighboring_relation} "
                                  "(dpderive accounts ADD_OR_REMOVE_ONE and REPLACE_ONE)")
            out: list = []
            _walk(event, self._nb, count, out)
        except Unsupported as exc:
            return pa.PrivacyAccountant.CompositionErrorDetails(
                invalid_event=exc.event if isinstance(exc.event, de.DpEvent) else event,
                error_message=exc.message)
        except (ValueError, TypeError) as exc:        # a DomainError: parameters out of range
            return pa.PrivacyAccountant.CompositionErrorDetails(invalid_event=event,
                                                                error_message=str(exc))
        if do_compose:
            for e in out:
                if e is _NonPrivate:
                    self._non_private = True
                else:
                    self._state.compose(e)
        return None

    @property
    def state(self):
        """The underlying ``numeric.stateful.StatefulAccountant``."""
        return self._state

    def get_epsilon(self, target_delta: float) -> float:
        if self._non_private:
            return math.inf
        self.last_answer = self._state.epsilon(target_delta, self.method)
        return float(self.last_answer.value)

    def get_delta(self, target_epsilon: float) -> float:
        if self._non_private:
            return 1.0
        self.last_answer = self._state.delta(target_epsilon, self.method)
        return float(self.last_answer.value)


def version() -> str:
    return getattr(dp_accounting, "__version__", "unknown")
