"""dp_accounting interoperability (``pip install dpderive[interop]``; dp_accounting is
imported when this module is).

* ``to_events(dp_event, neighbouring)`` -> list of ``numeric.events.Event`` (flattened:
  composition is commutative) and ``from_events(events, neighbouring)`` -> ``DpEvent``.
* ``DpDeriveAccountant(neighboring_relation)``: a ``dp_accounting.PrivacyAccountant``
  (``supports``, ``compose``, ``get_epsilon``, ``get_delta``, ``ledger``) answering with
  dpderive's tightest certified upper bound (route ``best`` of ``numeric.account``).  It passes
  dp_accounting's own abstract accountant test (``privacy_accountant_test.PrivacyAccountantTest``,
  ``tests/test_peer_dp_accounting_suite.py``) under all three neighbouring relations.

Mapping (dp_accounting's ``noise_multiplier`` is s / C, C the per-record norm bound; "special":
REPLACE_SPECIAL, a record replaced by a special (zero) record; "any": every relation):

==============================================  ==========  ===================================================
DpEvent                                         relation    dpderive
==============================================  ==========  ===================================================
GaussianDpEvent(nm)                             add/remove  Gaussian(sigma=nm, sensitivity=1)
                                                special     Gaussian(sigma=nm, sensitivity=1)
                                                replace-one Gaussian(sigma=nm, sensitivity=2)  (2C)
LaplaceDpEvent(nm)                              add/remove  Laplace(scale=nm, sensitivity=1)
                                                special     Laplace(scale=nm, sensitivity=1)
                                                replace-one Laplace(scale=nm, sensitivity=2)  (2C)
DiscreteLaplaceDpEvent(a, D)                    add/remove  DiscreteLaplace(a, sensitivity=D)
                                                special     DiscreteLaplace(a, sensitivity=D)
                                                replace-one DiscreteLaplace(a, sensitivity=2D)
                                                            (dpderive's sensitivity up to 4096)
RandomizedResponseDpEvent(p, 2)                 replace-one RandomizedResponse(epsilon=log((2-p)/p))
RandomizedResponseDpEvent(p, k), k > 2          replace-one KaryRandomizedResponse(p, k)
RandomizedResponseDpEvent(p, k)                 special     SpecialRandomizedResponse(p, k)
ZCDpEvent(rho, xi)                              any         ZCDP(rho, xi)  (RDP xi + rho alpha; rdp route)
MixtureOfGaussiansDpEvent(sd, c, p)             add/remove  MixtureOfGaussians(sd, c, p): N(0, sd^2) vs
                                                special     sum_i p_i N(c_i, sd^2), both orders (pld route)
SingleEpochTreeAggregationDpEvent(nm, T)        special     Gaussian(sigma=nm, sensitivity=sqrt(depth)),
                                                            depth = bit_length(max T) (rounded up)
PoissonSampledDpEvent(q, X)                     add/remove  Event(X, Poisson(q)); X a Gaussian, Laplace
                                                special     or a composition of Gaussians
SampledWithoutReplacementDpEvent(N, B, X)       replace-one Event(X, WithoutReplacement(B, N)); X a
                                                            Gaussian, Laplace, 2-bucket RR or a
                                                            composition of Gaussians
RepeatAndSelectDpEvent(X, mean, shape)          any         RepeatAndSelect(events of X, mean, shape): route rdp
                                                            (Papernot and Steinke 2022, Thms. 2 and 6)
SelfComposedDpEvent(X, n)                       any         counts times n
ComposedDpEvent([...])                          any         the list
NoOpDpEvent                                     any         nothing
NonPrivateDpEvent                               any         epsilon = inf, delta = 1 (as dp_accounting)
==============================================  ==========  ===================================================

Degenerate parameters as dp_accounting reads them: noise 0 (a Gaussian or Laplace multiplier,
RR's p, the discrete Laplace's a, or a = inf) is a NonPrivateDpEvent; an infinite Gaussian or
Laplace multiplier, RR with p = 1 or one bucket, zero sensitivity, rho = xi = 0, a sampling
probability or batch of 0 are no-ops.  Invalid parameters (a negative or NaN noise, a sampling
probability outside [0, 1], a batch larger than the data set, a negative or non-integer count
or a total count beyond 1e9, a number of buckets below 1) raise
``numeric.errors.UserInputError`` (a ``ValueError``) naming the event's field, its value and the
allowed range, from ``compose`` and ``supports`` alike (dp_accounting's own ledger refuses
``compose(event, 0)``).

Sensitivities.  Replace-one: a replaced record moves a sum of C-bounded terms by up to 2C, so
a Gaussian's, a Laplace's and a discrete Laplace's sensitivity is twice their C (dpderive's fixed
batches, README).  dp_accounting's PLD accountant uses the same 2C for the Gaussian and refuses
Laplace and the discrete Laplace under REPLACE_ONE; its RDP accountant takes C for both
Gaussian and Laplace whatever the relation, which under-reports for a sum of C-bounded terms:
we do not follow it (our answer there lies above its).  REPLACE_SPECIAL (a record replaced by a
special one: the zero record for the additive mechanisms, a uniform output for randomized
response) is accounted as dp_accounting's PLD accountant does it: additive mechanisms (and their
Poisson subsampling) face exactly the add/remove pairs; randomized response the asymmetric pair
of ``SpecialRandomizedResponse``, both orders.

Refused (``supports`` False, ``compose`` raising ``UnsupportedEventError`` whose invalid event
is the offending leaf, not the tree holding it): randomized response under ADD_OR_REMOVE_ONE;
Poisson sampling under REPLACE_ONE (dp_accounting's PLD accountant pairs (1-q) N(0) + q N(-C)
with (1-q) N(0) + q N(C) there; no dominating pair for it is proved in dpderive);
sampling without replacement under the other relations; tree aggregation outside
REPLACE_SPECIAL; the mixture of Gaussians under REPLACE_ONE (as dp_accounting); a sampled event
that is not one of those listed; TruncatedSubsampledGaussianDpEvent (dp_accounting accounts it
with the REPLACE_ONE Poisson pair above), SampledWithReplacementDpEvent and
any other event.  A Poisson- or fixed-sampled composition of Gaussians is the one Gaussian of
the same privacy (sigma_eff^-2 = sum n_i sigma_i^-2, rounded down), as in dp_accounting.

Answers at the ends: no events give epsilon = delta = 0; ``get_epsilon(0)`` is the certified
pure-DP epsilon when every event has a bounded loss (else inf), ``get_epsilon(1)`` is 0,
``get_delta(inf)`` 0; ``get_delta(eps)`` is exactly 0 from the pure-DP epsilon of the
composition on, decided in exact arithmetic (fractions, or Arb balls where the pure epsilon is
transcendental: ``Mechanism.pure_epsilon_ball``), so at eps = the pure epsilon itself too, and
``get_epsilon(delta)`` is at most that pure epsilon.  A target delta outside [0, 1] or epsilon
outside [0, inf] (NaN included) is a ``UserInputError``.

Round trip: ``from_events(to_events(e)) == e`` for every tree built from the supported
leaves by sampling and by ``SelfComposedDpEvent`` / ``ComposedDpEvent`` in the canonical
form ``from_events`` writes (a leaf or sampled leaf; ``SelfComposedDpEvent`` when its count
exceeds 1; ``ComposedDpEvent`` of those when there are several).
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction

import dp_accounting
import numpy as np
from dp_accounting import dp_event as de
from dp_accounting import privacy_accountant as pa

from derive.errors import DomainError
from numeric import events as EV
from numeric.errors import UserInputError, user_input

__all__ = ["to_events", "from_events", "DpDeriveAccountant", "NEIGHBOURING", "Unsupported"]

NR = pa.NeighboringRelation
NEIGHBOURING = {NR.ADD_OR_REMOVE_ONE: "add_remove", NR.REPLACE_ONE: "replace_one",
                NR.REPLACE_SPECIAL: "replace_special"}
#: the ``numeric.events`` relation each is accounted under (REPLACE_SPECIAL: the add/remove
#: pairs of the additive mechanisms, see the module docstring)
_ACCOUNTED_AS = {"add_remove": "add_remove", "replace_one": "replace_one",
                 "replace_special": "add_remove"}
_PEER_NAME = {"add_remove": "ADD_OR_REMOVE_ONE", "replace_one": "REPLACE_ONE",
              "replace_special": "REPLACE_SPECIAL"}


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
        if neighbouring not in _ACCOUNTED_AS:
            raise UserInputError("neighbouring", neighbouring, "add_remove, replace_one, replace_special "
                                 "or a dp_accounting.NeighboringRelation")
        return neighbouring
    if neighbouring not in NEIGHBOURING:
        raise UserInputError("neighbouring", neighbouring, "a dp_accounting.NeighboringRelation "
                             "(ADD_OR_REMOVE_ONE, REPLACE_ONE, REPLACE_SPECIAL) or add_remove, "
                             "replace_one, replace_special")
    return NEIGHBOURING[neighbouring]


# ----------------------------------------------------------------------------- checks
def _where(event, field: str) -> str:
    return f"{type(event).__name__}.{field}"


def _as_float(v) -> float:
    """One real number as a float (an integer beyond the doubles as +-inf); NaN for anything else."""
    if not isinstance(v, numbers.Real) or isinstance(v, (bool, np.bool_)):
        return math.nan
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _real(event, field: str, allowed: str, lo: float = 0.0, hi: float = math.inf) -> float:
    """The event's ``field`` as a float in [lo, hi] (inf allowed when hi is), else
    UserInputError naming the field, its value and the range."""
    v = getattr(event, field)
    x = _as_float(v)
    if not (lo <= x <= hi):              # NaN fails too
        raise UserInputError(_where(event, field), v, allowed)
    return x


def _integer(event, field: str, allowed: str, lo: int = 0, hi: float = math.inf, value=None) -> int:
    v = getattr(event, field) if value is None else value
    ok = isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) and lo <= v <= hi
    if not ok:
        raise UserInputError(_where(event, field), v, allowed)
    return int(v)


def _count(event, count: int, n: int) -> int:
    total = count * n
    if max(n, total) > EV.MAX_COUNT:
        raise UserInputError(_where(event, "count"), n, f"a total count (with the enclosing counts, "
                             f"{count} here) of at most {EV.MAX_COUNT:.0e}")
    return total


def _noise(event, field="noise_multiplier") -> float:
    return _real(event, field, "[0, oo] (0: not private, inf: no release)")


# ----------------------------------------------------------------------------- leaves
def _rr(event, nb: str):
    p = _real(event, "noise_parameter", "[0, 1] (the probability of a uniform output)", 0.0, 1.0)
    k = _integer(event, "num_buckets", "integers >= 1", 1)
    if nb == "add_remove":
        raise Unsupported(event, "randomized response is accounted under REPLACE_ONE or "
                          "REPLACE_SPECIAL (as in dp_accounting), not ADD_OR_REMOVE_ONE")
    if k == 1 or p == 1:
        return None          # the output does not depend on the input: a no-op
    if p == 0:
        return _NonPrivate
    if nb == "replace_special":
        return EV.SpecialRandomizedResponse(p, k)
    if k > 2:
        return EV.KaryRandomizedResponse(p, k)
    # epsilon rounded up (a larger epsilon is a weaker claim); p remembered for the way back
    e = math.nextafter(math.log((2.0 - p) / p) * (1 + 4e-16), math.inf)
    _RR_P[e] = p
    return EV.RandomizedResponse(e)


def _mechanism(event, nb: str):
    """A dpderive mechanism for a DpEvent leaf (None: a no-op; ``_NonPrivate``)."""
    k = 2.0 if nb == "replace_one" else 1.0
    if isinstance(event, (de.GaussianDpEvent, de.LaplaceDpEvent)):
        nm = _noise(event)
        if nm == 0:
            return _NonPrivate
        if math.isinf(nm):
            return None
        make = EV.Gaussian if isinstance(event, de.GaussianDpEvent) else EV.Laplace
        return make(nm, k)
    if isinstance(event, de.RandomizedResponseDpEvent):
        return _rr(event, nb)
    if isinstance(event, de.DiscreteLaplaceDpEvent):
        a = _real(event, "noise_parameter", "[0, oo] (0 and inf: not private, as dp_accounting)")
        d = _integer(event, "sensitivity", "integers >= 0", 0)
        if d == 0:
            return None
        if a == 0 or math.isinf(a):
            return _NonPrivate
        from numeric.mechanism import DLAP_MAX_SENSITIVITY
        if d * int(k) > DLAP_MAX_SENSITIVITY:
            raise Unsupported(event, f"a discrete-Laplace sensitivity of {d * int(k)} (in dpderive's terms) "
                              f"above {DLAP_MAX_SENSITIVITY}: its pair has sensitivity + 1 outcomes")
        return EV.DiscreteLaplace(a, d * int(k))
    if isinstance(event, de.ZCDpEvent):
        rho = _real(event, "rho", "[0, oo] (inf: not private)")
        xi = _real(event, "xi", "[0, oo] (inf: not private)")
        if math.isinf(rho) or math.isinf(xi):
            return _NonPrivate
        if rho == 0 and xi == 0:
            return None
        return EV.ZCDP(rho, xi)
    if isinstance(event, de.SingleEpochTreeAggregationDpEvent):
        return _tree(event, nb)
    if isinstance(event, de.MixtureOfGaussiansDpEvent):
        return _mixture(event, nb)
    if isinstance(event, de.UnsupportedDpEvent):
        raise Unsupported(event, "UnsupportedDpEvent is never supported")
    raise Unsupported(event, f"{type(event).__name__} is not supported by dpderive")


def _mixture(event, nb: str):
    """MixtureOfGaussiansDpEvent: N(0, sigma^2) vs sum_i p_i N(c_i, sigma^2), both orders
    (add/remove and REPLACE_SPECIAL, as dp_accounting's PLD accountant; ``numeric.mixture``)."""
    from numeric.mixture import MixtureOfGaussians, validate_mixture
    sd = _real(event, "standard_deviation", "[0, oo) (0: not private)", 0.0, math.inf)
    cs, ps = event.sensitivities, event.sampling_probs
    if nb == "replace_one":
        raise Unsupported(event, "MixtureOfGaussiansDpEvent is accounted under ADD_OR_REMOVE_ONE or "
                          "REPLACE_SPECIAL (as in dp_accounting), not REPLACE_ONE")
    try:
        nothing = len(cs) >= 1 and all(_as_float(c) == 0 for c in cs)
    except TypeError:
        nothing = False
    if nothing:
        return None                       # every sensitivity 0: the two outputs have one law
    if sd == 0:
        return _NonPrivate
    if math.isinf(sd):
        return None
    try:
        validate_mixture(sd, cs, ps)
    except DomainError as exc:
        field = {"sigma": "standard_deviation", "probs": "sampling_probs"}.get(
            exc.name.split("[")[0], exc.name.split("[")[0])
        raise UserInputError(_where(event, field), exc.value, exc.allowed) from None
    return MixtureOfGaussians(sd, tuple(float(c) for c in cs), tuple(float(p) for p in ps))


def _tree(event, nb: str):
    nm = _noise(event)
    steps = event.step_counts
    many = isinstance(steps, (list, tuple))
    counts = list(steps) if many else [steps]
    for s in counts:
        _integer(event, "step_counts", "a positive integer or a non-empty list of integers >= 0", 0,
                 value=s)
    if not counts or (not many and counts[0] == 0):
        raise UserInputError(_where(event, "step_counts"), steps,
                             "a positive integer or a non-empty list of integers >= 0 (as dp_accounting)")
    if nb != "replace_special":
        raise Unsupported(event, "tree aggregation is accounted under REPLACE_SPECIAL (as in "
                          f"dp_accounting), not {_PEER_NAME[nb]}")
    # a record is in one leaf of one tree: it enters the bit_length(T) nodes on its path that are
    # ever released (ceil(log2(T + 1)), dp_accounting's max_depth), each a Gaussian of
    # sensitivity 1: together one Gaussian of L2 sensitivity sqrt(depth)
    depth = int(max(counts)).bit_length()
    if depth == 0 or math.isinf(nm):
        return None
    if nm == 0:
        return _NonPrivate
    r = math.isqrt(depth)
    sens = float(r) if r * r == depth else math.nextafter(math.sqrt(depth), math.inf)
    return EV.Gaussian(nm, sens)


def _gaussian_sum(event, mult: int = 1):
    """sum of n_i / sigma_i^2 over a composition of Gaussians; ``Unsupported`` naming the first
    leaf that is not a Gaussian (or a no-op)."""
    if isinstance(event, de.GaussianDpEvent):
        nm = _noise(event)
        if mult == 0:
            return 0.0
        # (a sum beyond the doubles, sigma_eff ~ 0, is inf: not private, a sound reading)
        return mult / nm / nm if nm > 0 else math.inf
    if isinstance(event, de.SelfComposedDpEvent):
        n = _integer(event, "count", "integers >= 0", 0)
        return _gaussian_sum(event.event, mult * n)
    if isinstance(event, de.ComposedDpEvent):
        parts = [_gaussian_sum(e, mult) for e in _sub_events(event)]
        return math.fsum(parts)
    if isinstance(event, de.NoOpDpEvent):
        return 0.0
    raise Unsupported(event, f"a sampled event must be a Gaussian or Laplace event (randomized "
                      "response too, for sampling without replacement), or a composition of "
                      f"Gaussians: {type(event).__name__} is not")


def _sub_events(event) -> list:
    evs = event.events
    if not isinstance(evs, (list, tuple)):
        raise UserInputError(_where(event, "events"), evs, "a list of DpEvent")
    return list(evs)


def _sampled_mechanism(inner, nb: str, rr_ok: bool):
    """The mechanism a sampling wraps (None: a no-op; ``_NonPrivate``)."""
    if isinstance(inner, (de.GaussianDpEvent, de.LaplaceDpEvent)) or \
            (rr_ok and isinstance(inner, de.RandomizedResponseDpEvent)):
        return _mechanism(inner, nb)
    s = _gaussian_sum(inner)
    if s == 0:
        return None
    if math.isinf(s):
        return _NonPrivate
    # sigma_eff = s^-1/2 rounded down (a smaller noise is a weaker claim): the float error of the
    # sum, the square root and the division is below 4 ulp
    sigma = 1.0 / math.sqrt(s) * (1 - 1e-15)
    return EV.Gaussian(sigma, 2.0 if nb == "replace_one" else 1.0)


# ----------------------------------------------------------------------------- the walk
def _walk(event, nb: str, count: int, out: list):
    """Append the dpderive events of ``event`` (composed ``count`` times) to ``out`` (a
    ``_NonPrivate`` for a non-private part).  Validates every parameter (UserInputError) and
    raises ``Unsupported`` naming the offending leaf; with ``count`` 0 nothing is appended."""
    if not isinstance(event, de.DpEvent):
        raise Unsupported(event, f"{type(event).__name__} is not a DpEvent")
    if isinstance(event, de.NoOpDpEvent):
        return
    if isinstance(event, de.NonPrivateDpEvent):
        out.append(_NonPrivate)          # whatever the count (as dp_accounting)
        return
    if isinstance(event, de.SelfComposedDpEvent):
        n = _integer(event, "count", "integers >= 0", 0)
        _walk(event.event, nb, _count(event, count, n), out)
        return
    if isinstance(event, de.ComposedDpEvent):
        for e in _sub_events(event):
            _walk(e, nb, count, out)
        return
    if isinstance(event, de.RepeatAndSelectDpEvent):
        _repeat_and_select(event, nb, count, out)
        return
    if isinstance(event, de.PoissonSampledDpEvent):
        q = _real(event, "sampling_probability", "[0, 1]", 0.0, 1.0)
        m = _sampled_mechanism(event.event, nb, rr_ok=False)     # the inner event is checked first
        if nb == "replace_one":
            raise Unsupported(event, "Poisson sampling is accounted under ADD_OR_REMOVE_ONE or "
                              "REPLACE_SPECIAL, not REPLACE_ONE (no dominating pair for it is proved "
                              "in dpderive)")
        if q > 0:
            _append(out, m, EV.Poisson(q) if q < 1 else None, count)
        return
    if isinstance(event, de.SampledWithoutReplacementDpEvent):
        n = _integer(event, "source_dataset_size", "integers >= 0", 0)
        b = _integer(event, "sample_size", f"integers in [0, source_dataset_size = {n}]", 0, n)
        m = _sampled_mechanism(event.event, nb, rr_ok=True)
        if nb != "replace_one":
            raise Unsupported(event, "sampling without replacement is accounted under REPLACE_ONE "
                              f"(as in dp_accounting), not {_PEER_NAME[nb]}")
        if b > 0:
            _append(out, m, EV.WithoutReplacement(b, n), count)
        return
    _append(out, _mechanism(event, nb), None, count)


def _repeat_and_select(event, nb: str, count: int, out: list):
    """RepeatAndSelectDpEvent: the inner event's run, repeated a random number of times (mean,
    shape) with the best run released (Papernot and Steinke 2022; ``numeric.repeat_select``,
    route rdp), composed ``count`` times."""
    from numeric.repeat_select import RepeatAndSelect
    mean = _real(event, "mean", "[1, oo) (the mean number of runs)", 1.0)
    shape = _real(event, "shape", "[0, oo] (0 logarithmic, 1 geometric, (0, oo) truncated "
                  "negative binomial, inf Poisson)")
    if math.isinf(mean):
        out.append(_NonPrivate)        # unboundedly many runs: no finite guarantee
        return
    inner: list = []
    _walk(event.event, nb, 1, inner)
    if any(e is _NonPrivate for e in inner):
        out.append(_NonPrivate)
        return
    if inner and count > 0:            # (a run of no-ops, repeated, is a no-op)
        out.append(EV.Event(RepeatAndSelect(tuple(inner), mean, shape, _ACCOUNTED_AS[nb]), None, count))


def _append(out: list, mech, sampling, count: int):
    if mech is _NonPrivate:
        out.append(_NonPrivate)
    elif mech is not None and count > 0:
        out.append(EV.Event(mech, sampling, count))


def _plan(event, nb: str, count: int = 1) -> list:
    out: list = []
    with user_input():                   # the event's values are the user's
        _walk(event, nb, count, out)
    return out


def to_events(event, neighbouring="add_remove") -> list:
    """The dpderive events of a DpEvent tree (``Unsupported`` if it holds an event dpderive
    cannot account; a NonPrivateDpEvent raises ``Unsupported`` too: use the accountant,
    which answers inf for it).  ``neighbouring``: "add_remove" / "replace_one" /
    "replace_special" or a ``dp_accounting.NeighboringRelation``; REPLACE_SPECIAL events are
    accounted under "add_remove" (module docstring)."""
    nb = _relation(neighbouring)
    out = _plan(event, nb)
    if any(e is _NonPrivate for e in out):
        raise Unsupported(event, "a NonPrivateDpEvent (epsilon = inf)")
    return out


# ----------------------------------------------------------------------------- the way back
def _leaf(mech, nb: str):
    """The DpEvent of one mechanism, read from its ``--spec`` form or its ``peer_form``
    (``numeric.mechanism``: the mechanism says what it is; no class tests here)."""
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
    form = getattr(mech, "peer_form", None)
    if form == ("rr", nb):
        return de.RandomizedResponseDpEvent(mech.noise_parameter, mech.num_buckets)
    if form is not None and form[0] == "dlaplace":
        d = mech.sensitivity
        if nb == "replace_one" and d % 2:
            raise Unsupported(mech, "an odd discrete-Laplace sensitivity has no REPLACE_ONE event (2C)")
        return de.DiscreteLaplaceDpEvent(mech.noise_parameter, d // int(k))
    if form is not None and form[0] == "zcdp":
        return de.ZCDpEvent(mech.rho, mech.xi)
    raise Unsupported(mech, f"{type(mech).__name__} has no DpEvent under {nb}")


def from_events(events, neighbouring="add_remove"):
    """The canonical DpEvent of a list of dpderive events (module docstring)."""
    nb = _relation(neighbouring)
    if isinstance(events, EV.Event):
        events = [events]
    EV._check_events(events, _ACCOUNTED_AS[nb])
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


# ----------------------------------------------------------------------------- pure DP, exactly
def _pure_ball(e: EV.Event):
    """A certified enclosure of one event's per-step pure-DP epsilon (a Fraction when exact, an
    Arb ball else), or None (unbounded, or no enclosure known)."""
    if not math.isfinite(e.pure_epsilon()):
        return None
    b = e.mechanism.pure_epsilon_ball()
    if b is None or e.sampling is None:
        return b
    spec = e.sampling.spec()                 # the rate exactly: q, or B / N
    g = Fraction(spec["rate"]) if spec.get("kind") == "poisson" else \
        Fraction(spec["batch_size"], spec["dataset_size"])
    if g == 1:
        return b
    from flint import arb
    e0 = arb(b.numerator) / arb(b.denominator) if isinstance(b, Fraction) else b
    # log(1 + g (e^eps0 - 1)) (Balle, Barthe, Gaboardi 2018, Thms. 8, 9)
    return (arb(g.numerator) / arb(g.denominator) * e0.expm1()).log1p()


def _pure_total(events):
    """sum_i T_i eps_i as a Fraction or an Arb ball (None: some event has no enclosure).  Call
    within ``numeric.rdp_pairs._precision()`` (Arb at 128 bits: the balls stay ~1e-38 wide)."""
    balls = [_pure_ball(e) for e in events]
    if any(b is None for b in balls):
        return None
    if all(isinstance(b, Fraction) for b in balls):
        return sum((e.count * b for e, b in zip(events, balls)), Fraction(0))
    from flint import arb
    s = arb(0)
    for e, b in zip(events, balls):
        s += e.count * (arb(b.numerator) / arb(b.denominator) if isinstance(b, Fraction) else b)
    return s


# ----------------------------------------------------------------------------- the accountant
class DpDeriveAccountant(pa.PrivacyAccountant):
    """A ``dp_accounting.PrivacyAccountant`` answering with dpderive's tightest certified
    upper bound (``method="best"``; "rdp" or "pld" pick one route; the PLD route is also
    tried at the finer lattice ``resolution``, default 0.01, ~4x the default's cost; ``accuracy``:
    a certified bracket of at most this relative width instead, on the lattices of ``dpderive
    epsilon --accuracy``, so both answer the same).  Composition goes into a
    ``numeric.stateful.StatefulAccountant``; ``last_answer`` holds the full answer (route,
    certified lower bound) of the latest ``get_epsilon`` / ``get_delta``."""

    def __init__(self, neighboring_relation: NR = NR.ADD_OR_REMOVE_ONE, method: str = "best",
                 resolution: float | None = 0.01, accuracy: float | None = None):
        if neighboring_relation not in NEIGHBOURING:
            raise UserInputError("neighboring_relation", neighboring_relation,
                                 "a dp_accounting.NeighboringRelation")
        if not isinstance(method, str) or method not in ("best", "rdp", "pld"):
            raise UserInputError("method", method, "best, rdp or pld")
        super().__init__(neighboring_relation)
        from numeric.stateful import StatefulAccountant
        self.method = method
        self._nb = NEIGHBOURING[neighboring_relation]
        from numeric.account import check_accuracy
        with user_input():
            accuracy = check_accuracy(accuracy, method)
        self.accuracy = accuracy
        self._state = StatefulAccountant(_ACCOUNTED_AS[self._nb],
                                         resolution=None if accuracy is not None else resolution,
                                         accuracy=accuracy)
        self._non_private = False
        self.last_answer = None

    def _maybe_compose(self, event, count: int, do_compose: bool):
        if not (isinstance(count, numbers.Integral) and not isinstance(count, (bool, np.bool_))
                and count >= 0):
            raise UserInputError("count", count, "integers >= 0 (the times the event is composed)")
        c = int(count)
        try:
            out = _plan(event, self._nb, c)
        except Unsupported as exc:
            return pa.PrivacyAccountant.CompositionErrorDetails(
                invalid_event=exc.event if isinstance(exc.event, de.DpEvent) else event,
                error_message=exc.message)
        if do_compose:
            with user_input():
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

    def _short(self, name, at, value, route):
        from numeric.stateful import Answer
        self.last_answer = Answer(name, at, value, value if route != "none" else 0.0, value, route,
                                  self._state.steps)
        return value

    def _pure_upper(self) -> float:
        """The certified pure-DP epsilon of the composition (inf when some loss is unbounded)."""
        from numeric.rdp_pairs import _precision, arb_upper
        events = self._state.events()
        if not all(math.isfinite(e.pure_epsilon()) for e in events):
            return math.inf
        with _precision():
            tot = _pure_total(events)
            if isinstance(tot, Fraction):
                f = float(tot)
                return f if Fraction(f) >= tot else math.nextafter(f, math.inf)
            if tot is not None:
                return arb_upper(tot)
        s = math.fsum(e.count * e.pure_epsilon() for e in events)
        return math.nextafter(s * (1 + 1e-15), math.inf)

    def _beyond_pure(self, eps: float) -> bool:
        """eps >= the composition's pure-DP epsilon, decided exactly (delta(eps) = 0 there)."""
        from numeric.rdp_pairs import _precision
        events = self._state.events()
        if not all(math.isfinite(e.pure_epsilon()) for e in events):
            return False
        with _precision():
            tot = _pure_total(events)
            if isinstance(tot, Fraction):
                return Fraction(eps) >= tot
            if tot is not None:
                from flint import arb
                return bool(arb(eps) >= tot)
        return eps >= self._pure_upper()

    def get_epsilon(self, target_delta: float) -> float:
        d = _target(target_delta, "target_delta", "[0, 1]", 1.0)
        if self._non_private:
            return self._short("epsilon", d, math.inf, "none")
        if self._state.steps == 0 or d >= 1:
            return self._short("epsilon", d, 0.0, "trivial")
        if d == 0:
            up = self._pure_upper()
            return self._short("epsilon", d, up, "pure" if math.isfinite(up) else "none")
        ans = self._query("epsilon", d)
        pure = self._pure_upper()
        if pure < ans.value:       # bounded losses: the exact pure-DP epsilon holds at every delta
            from numeric.stateful import Answer
            ans = Answer("epsilon", d, pure, min(ans.lower, pure), pure, "pure", ans.steps, dict(ans.extras))
        self.last_answer = ans
        return float(ans.value)

    def get_delta(self, target_epsilon: float) -> float:
        e = _target(target_epsilon, "target_epsilon", "[0, oo]", math.inf)
        if self._non_private:
            return self._short("delta", e, 1.0, "none")
        # every supported pair is mutually absolutely continuous: delta(inf) = 0
        if self._state.steps == 0 or math.isinf(e):
            return self._short("delta", e, 0.0, "trivial")
        if self._beyond_pure(e):
            return self._short("delta", e, 0.0, "pure")
        self.last_answer = self._query("delta", e)
        return float(self.last_answer.value)

    def _query(self, name: str, at: float):
        """The state's full answer (method ``self.method``).  The finer-lattice PLD retry of
        ``numeric.stateful`` (``resolution``) is left out outside the PLD route's range
        (``numeric.events.pld_screen``: it does not screen it itself) and where its lattice
        exceeds the memory (a composition of very different noises: it does not catch that);
        ``numeric.account``'s routes answer there, as for dpderive's own commands.  NumPy's
        "invalid value" warning is kept off stderr: ``numeric.conversion``'s inversion meets an
        intermediate NaN at eps = 0 for a zCDP curve with xi > 0 and its bracket recovers (an
        answer is never NaN: ``numeric.account`` checks)."""
        st, res = self._state, self._state.resolution
        try:
            EV.pld_screen(st.events())
        except EV.RouteError:
            st.resolution = None
        try:
            with user_input(), np.errstate(invalid="ignore"):
                try:
                    return EV.profile_of(st, name)(at, self.method)
                except MemoryError:
                    if st.resolution is None:
                        raise
                    st.resolution = None
                    return EV.profile_of(st, name)(at, self.method)
        finally:
            st.resolution = res


def _target(v, name: str, allowed: str, hi: float) -> float:
    x = _as_float(v)
    if not (0 <= x <= hi):
        raise UserInputError(name, v, allowed)
    return x


def version() -> str:
    return getattr(dp_accounting, "__version__", "unknown")
