"""``dpderive epsilon | delta | calibrate``: the accountant on the command line.

What is accounted (one of):

* flags: ``--mechanism gaussian|laplace|rr|dgauss`` (default gaussian) with ``--sigma`` /
  ``--scale`` / ``--rr-epsilon`` (dgauss: ``--sigma``, integer ``--sensitivity``) and ``--sensitivity``; sampled by ``--sampling-rate q``
  (Poisson) or given as a training run ``--epochs E --batch-size B --dataset-size N``
  (q = B/N, T = ceil(E N / B), ``--sampling poisson|fixed``); composed ``--steps`` times;
* ``--spec FILE.json``: a JSON list of events (``numeric.events.events_from_spec``), e.g.
  ``[{"mechanism": "gaussian", "sigma": 1.1, "sampling": {"kind": "poisson", "rate": 0.004267},
  "count": 14063}, {"mechanism": "laplace", "scale": 2, "count": 10}]``.

``--method`` picks the route: ``best`` (default: the smallest certified upper bound among
rdp and pld, with PLD's certified lower bound), ``rdp`` (optimal conversion; ``--conversion``
picks another), ``pld`` (certified bracket), ``clt`` / ``edgeworth`` (approximations,
labelled so), ``all`` (one table of every route).  ``epsilon --delta`` and ``delta --epsilon``
take comma-separated lists; ``--plot FILE.png`` draws the privacy profile delta(eps) with
its certified band.  ``calibrate --solve sigma|scale|rr-epsilon|steps|epochs|batch-size`` finds
the noise (``sigma`` of gaussian / dgauss, ``scale`` of laplace: the smallest; ``rr-epsilon`` of
rr: the largest; the default is the mechanism's own) or the steps / epochs / batch size (largest)
meeting ``--epsilon`` at ``--delta``; solving for a parameter the mechanism does not take, or
giving its flag too, is an error.

``--json`` prints one flat JSON object per answer (keys ``epsilon``/``delta`` or the calibrated
parameter (``sigma``, ``scale``, ``rr_epsilon``, ... named by ``solved_for``),
``epsilon_lower``, ``epsilon_upper``, ``route``, ``method``, ``guarantee``, ...).  Invalid
input raises ``numeric.errors.UserInputError``; the main command line prints one line and exits 2
(``dpderive.errors``).  A command is argv -> ``parse_command`` -> ``build_query`` (validated once)
-> ``answer`` -> ``records`` / ``render``; ``dpderive sweep`` runs the same steps per grid point.
Where no finite epsilon is certified the answer says so: ``epsilon = inf (no finite epsilon is
certified at delta = ...)``, ``"inf"`` in JSON; an answer is never NaN.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

from numeric.errors import UserInputError, user_input


CONVERSION_CHOICES = ("mironov", "balle", "asoodeh", "optimal")   # numeric.accountant.CONVERSIONS
METHOD_CHOICES = ("best", "rdp", "pld", "edgeworth", "clt", "all")
MAX_STEPS = 1e9
# argparse takes "-1e-5" for an option; numbers (with exponents, inf, nan) are values here
_NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^-(inf|nan)$", re.I)


def _conversion_name(text: str) -> str:
    """A --conversion value under its current name (a former name such as 'lemma1' is mapped)."""
    from numeric.accountant import canonical_conversion
    return canonical_conversion(text)


def _finite(name, v, allowed):
    if v is None or not isinstance(v, (int, float)) or math.isnan(v) or math.isinf(v):
        raise UserInputError(name, v, allowed)
    return v


def _positive(name, v, allowed="(0, oo)"):
    if _finite(name, v, allowed) <= 0:
        raise UserInputError(name, v, allowed)
    return v


def _integer(name, v, lo=1, hi=MAX_STEPS):
    allowed = f"integers in [{lo:g}, {hi:.0e}]"
    _finite(name, v, allowed)
    if v != int(v) or not (lo <= v <= hi):
        raise UserInputError(name, v, allowed)
    return int(v)


def _check_common(args):
    """Validate --sigma, --sampling-rate, --steps, --sensitivity of a plain Gaussian
    command (``tradeoff``): steps are integers in [1, MAX_STEPS] on every route."""
    if args.sigma is not None:
        _positive("sigma", args.sigma)
    q = _finite("sampling_rate", args.sampling_rate, "(0, 1]")
    if not (0 < q <= 1):
        raise UserInputError("sampling_rate", q, "(0, 1]")
    _integer("steps", args.steps)
    _positive("sensitivity", args.sensitivity)


def _floats(name, text, allowed, check):
    vals = []
    for part in str(text).split(","):
        try:
            x = float(part)
        except ValueError:
            raise UserInputError(name, part.strip(), allowed) from None
        vals.append(check(x))
    if not vals:
        raise UserInputError(name, text, allowed)
    return vals


def _check_delta(d):
    _finite("delta", d, "(0, 1)")
    if not (0 < d < 1):
        raise UserInputError("delta", d, "(0, 1)")
    return d


def _check_eps(e, strict=False):
    allowed = "(0, oo)" if strict else "[0, oo)"
    _finite("epsilon", e, allowed)
    if e < 0 or (strict and e == 0):
        raise UserInputError("epsilon", e, allowed)
    return e


# ----------------------------------------------------------------------------- the events
def _given(args, *names):
    return [n for n in names if getattr(args, n, None) is not None]


def _conflict(a, b, why=""):
    raise UserInputError(a, f"given with --{b.replace('_', '-')}",
                      f"one of --{a.replace('_', '-')} and --{b.replace('_', '-')}" + why)


# each mechanism's noise parameter (the flag without "--"; ``calibrate --solve`` takes it)
NOISE_PARAM = {"gaussian": "sigma", "laplace": "scale", "rr": "rr-epsilon", "dgauss": "sigma"}


def _mechanism(args, noise=None):
    """The mechanism of the flags; ``noise`` overrides its noise parameter (calibration)."""
    from numeric import events as EV
    kind = args.mechanism or "gaussian"
    params = {k: v.replace("-", "_") for k, v in NOISE_PARAM.items()}
    for k, p in params.items():
        if k != kind and p != params[kind] and getattr(args, p, None) is not None:
            raise UserInputError(p, getattr(args, p), f"absent with --mechanism {kind} "
                              f"(which takes --{params[kind].replace('_', '-')})")
    own = getattr(args, params[kind]) if noise is None else noise
    if kind == "gaussian":
        if own is None:
            raise UserInputError("sigma", None, "(0, oo) (required for the Gaussian mechanism)")
        return EV.Gaussian(_positive("sigma", own), _positive("sensitivity", args.sensitivity))
    if kind == "dgauss":
        if own is None:
            raise UserInputError("sigma", None, "(0, oo) (required for --mechanism dgauss)")
        return EV.DiscreteGaussian(_positive("sigma", own), args.sensitivity)
    if kind == "laplace":
        if own is None:
            raise UserInputError("scale", None, "(0, oo) (required for --mechanism laplace)")
        return EV.Laplace(_positive("scale", own), _positive("sensitivity", args.sensitivity))
    if own is None:
        raise UserInputError("rr_epsilon", None, "(0, oo) (required for --mechanism rr)")
    if args.sensitivity != 1.0:
        raise UserInputError("sensitivity", args.sensitivity, "1 for --mechanism rr")
    return EV.RandomizedResponse(_positive("rr_epsilon", own))


def _run_shape(args, steps=None, epochs=None, batch=None):
    """(sampling, count) from the flags (overrides for calibration)."""
    from numeric import events as EV
    epochs = args.epochs if epochs is None else epochs
    batch = args.batch_size if batch is None else batch
    run = [n for n, v in (("epochs", epochs), ("batch_size", batch),
                          ("dataset_size", args.dataset_size)) if v is not None]
    if run:
        if args.sampling_rate is not None:
            _conflict("sampling_rate", "batch_size", " (a training run sets q = B/N)")
        if args.steps is not None and steps is None and epochs is not None:
            _conflict("steps", "epochs", " (a training run sets T = ceil(E N / B))")
        for n in ("batch_size", "dataset_size"):
            if n not in run:
                raise UserInputError(n, None, "required with --epochs/--batch-size/--dataset-size")
        n_data = _integer("dataset_size", args.dataset_size, 1, 1e12)
        b = _integer("batch_size", batch, 1, n_data)
        if steps is None:
            if epochs is None:
                steps = args.steps if args.steps is not None else 1
            else:
                e = _positive("epochs", epochs)
                steps = math.ceil(e * n_data / b - 1e-9)
        t = _integer("steps", steps)
        kind = args.sampling or "poisson"
        samp = (EV.WithoutReplacement(b, n_data) if kind == "fixed"
                else EV.Poisson(b / n_data))
        return samp, t
    if args.sampling == "fixed":
        raise UserInputError("sampling", "fixed", "poisson unless --batch-size and --dataset-size "
                          "are given (a fixed batch needs both)")
    q = 1.0 if args.sampling_rate is None else args.sampling_rate
    _finite("sampling_rate", q, "(0, 1]")
    if not (0 < q <= 1):
        raise UserInputError("sampling_rate", q, "(0, 1]")
    if steps is None:
        steps = 1 if args.steps is None else args.steps
    t = _integer("steps", steps)
    return (None if q == 1 else EV.Poisson(q)), t


def _neighbouring(args, events):
    if args.neighbouring:
        return args.neighbouring.replace("-", "_")
    fixed = any(getattr(e.sampling, "neighbouring", None) == "replace_one" for e in events)
    return "replace_one" if fixed else "add_remove"


def build_events(args, sigma=None, steps=None, epochs=None, batch=None, noise=None):
    """The list of ``numeric.events.Event`` the arguments describe (``noise``, or its older
    name ``sigma``, overrides the mechanism's noise parameter; ``steps``, ``epochs``, ``batch``
    the run's shape)."""
    from numeric import events as EV
    if args.spec is not None:
        flags = _given(args, "sigma", "scale", "rr_epsilon", "mechanism", "sampling_rate",
                       "epochs", "batch_size", "dataset_size", "steps", "sampling")
        if flags:
            _conflict(flags[0], "spec", " (the spec file lists the events)")
        if args.sensitivity != 1.0:
            _conflict("sensitivity", "spec", " (give \"sensitivity\" in the spec)")
        try:
            with open(args.spec, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise UserInputError("spec", args.spec, f"a readable JSON file ({exc.strerror})") from None
        except UnicodeDecodeError as exc:
            raise UserInputError("spec", args.spec, f"a JSON file in UTF-8 (byte {exc.start} is "
                                 "not UTF-8 text)") from None
        return EV.events_from_spec(text)
    mech = _mechanism(args, sigma if noise is None else noise)
    samp, t = _run_shape(args, steps, epochs, batch)
    return [EV.Event(mech, samp, t)]


# ----------------------------------------------------------------------------- the query
@dataclass
class Query:
    """One accountant question, validated: argv -> ``parse_command`` -> ``build_query`` ->
    ``answer`` -> ``records`` (the flat dicts ``--json`` prints and the sweep tabulates) ->
    ``render``.  The command line and ``dpderive sweep`` share every step."""

    command: str                        # epsilon | delta | calibrate
    method: str
    neighbouring: str
    conversion: str = "optimal"
    events: list | None = None          # epsilon / delta
    at: list = field(default_factory=list)   # epsilon: the deltas; delta: the epsilons
    calibration: dict | None = None     # calibrate: account.calibrate's arguments and more
    accuracy: float | None = None       # epsilon / delta: the bracket's largest relative width


def command_parser():
    """A parser of the accountant's commands alone (``dpderive epsilon|delta|calibrate``)."""
    from .errors import Parser
    ap = Parser(prog="dpderive")
    add_commands(ap.add_subparsers(dest="command", required=True, parser_class=Parser))
    return ap


def parse_command(argv):
    """argv of ``dpderive epsilon|delta|calibrate ...`` (without ``dpderive``) -> parsed args."""
    return command_parser().parse_args(list(argv))


def _profile_query(args, name: str) -> Query:
    text = args.delta if name == "epsilon" else args.epsilon
    ats = (_floats("delta", text, "(0, 1) (comma-separated)", _check_delta) if name == "epsilon"
           else _floats("epsilon", text, "[0, oo) (comma-separated)", _check_eps))
    from numeric import events as EV
    with user_input():
        events = build_events(args)
        nb = _neighbouring(args, events)
        events = EV.Composition(events, nb)      # validated here, once: the routes take it as it is
    method = args.method
    if args.conversion != "optimal" and method == "best":
        method = "rdp"                       # a conversion names the RDP route
    if method != "rdp" and args.conversion != "optimal":
        raise UserInputError("conversion", args.conversion, "optimal unless --method rdp")
    from numeric.account import check_accuracy
    accuracy = getattr(args, "accuracy", None)
    if accuracy is not None and method == "all":
        raise UserInputError("accuracy", accuracy, "absent with --method all (a table of routes)")
    accuracy = check_accuracy(accuracy, method) if method != "all" else None
    return Query(name, method, nb, args.conversion, events, ats, accuracy=accuracy)


def _calibrate_query(args) -> Query:
    e = _check_eps(args.epsilon, strict=True)
    d = _check_delta(args.delta)
    method = "best" if args.method == "all" else args.method
    if method not in ("best", "rdp", "pld"):
        raise UserInputError("method", method, "best, rdp or pld (calibration needs a guarantee)")
    solve_flag = args.solve if args.solve is not None else NOISE_PARAM[args.mechanism or "gaussian"]
    solve = solve_flag.replace("-", "_")
    if args.spec is not None:
        raise UserInputError("spec", args.spec, "absent for calibrate (it solves for a flag)")
    if args.conversion != "optimal":
        raise UserInputError("conversion", args.conversion, "optimal for calibrate")
    decreasing, epochs_of = None, None
    if solve in ("sigma", "scale", "rr_epsilon"):
        kind = args.mechanism or "gaussian"
        own = NOISE_PARAM[kind]
        if solve_flag != own:
            raise UserInputError("solve", solve_flag, f"{own}, steps, epochs or batch-size for "
                                 f"--mechanism {kind}")
        if getattr(args, solve) is not None:
            _conflict(solve, f"solve {own}")
        # the bracket searched: sigma / scale relative to the sensitivity (larger = more
        # private: the smallest meeting the target); rr's epsilon (smaller = more private: the
        # largest meeting the target)
        sens = _positive("sensitivity", args.sensitivity) if kind in ("laplace", "dgauss") else 1.0
        lo, hi = {"gaussian": (0.05, 1e4), "dgauss": (0.2 * sens, 1e4 * sens),
                  "laplace": (0.05 * sens, 1e5 * sens), "rr": (1e-4, 30.0)}[kind]
        decreasing, integer = kind != "rr", False
        make = lambda x: build_events(args, noise=x)                      # noqa: E731
        probe = hi
    elif solve == "steps":
        for flag in ("steps", "epochs"):       # the solve overrides them: giving one is an error
            if getattr(args, flag) is not None:
                _conflict(flag, "solve steps")
        make, lo, hi, integer = (lambda t: build_events(args, steps=t)), 1, int(MAX_STEPS), True
        probe = 1
    elif solve == "epochs":
        for flag in ("epochs", "steps"):
            if getattr(args, flag) is not None:
                _conflict(flag, "solve epochs")
        if args.batch_size is None or args.dataset_size is None:
            raise UserInputError("solve", "epochs", "a training run: --batch-size and --dataset-size")
        make = lambda t: build_events(args, steps=int(t))                 # noqa: E731
        lo, hi, integer = 1, int(MAX_STEPS), True
        probe = 1
    elif solve == "batch_size":
        if args.batch_size is not None:
            _conflict("batch_size", "solve batch-size")
        if args.epochs is None or args.dataset_size is None:
            raise UserInputError("solve", "batch-size", "a training run: --epochs and --dataset-size")
        make = lambda b: build_events(args, batch=int(b))                 # noqa: E731
        lo, hi, integer = 1, None, True
        probe = 1
    else:
        raise UserInputError("solve", solve_flag, "sigma, scale, rr-epsilon, steps, epochs or batch-size")
    from numeric import events as EV
    with user_input():
        make(probe)                              # validates the other flags
        if solve == "batch_size":
            hi = int(args.dataset_size)
        elif solve == "epochs":
            epochs_of = (_integer("batch_size", args.batch_size, 1, args.dataset_size),
                         _integer("dataset_size", args.dataset_size, 1, 1e12))
        events = make(hi if decreasing else lo)
        nb = _neighbouring(args, events)
        EV._check_events(events, nb)
    return Query("calibrate", method, nb, events=events, at=[d], calibration=dict(
        make=make, epsilon=e, delta=d, param=solve if solve != "epochs" else "steps", lo=lo, hi=hi,
        integer=integer, decreasing=decreasing, solve=solve, epochs_of=epochs_of))


def build_query(args) -> Query:
    """The validated ``Query`` of parsed arguments (``UserInputError`` names what is wrong)."""
    if args.command in ("epsilon", "delta"):
        return _profile_query(args, args.command)
    if args.command == "calibrate":
        return _calibrate_query(args)
    raise UserInputError("command", args.command, "epsilon, delta or calibrate")


def answer(q: Query) -> list:
    """The answers: ``AccountingResult`` per point (``--method all``: per point a list of
    route rows, ``account.table``)."""
    import numpy as np

    from numeric import account
    with np.errstate(all="ignore"):
        if q.command == "calibrate":
            c = q.calibration
            res = account.calibrate(c["make"], c["epsilon"], c["delta"], c["param"], c["lo"],
                                    c["hi"], q.method, q.neighbouring, c["integer"],
                                    decreasing=c["decreasing"])
            if c["solve"] == "epochs":           # whole steps -> the epochs they cover
                b, n = c["epochs_of"]
                steps = int(res.value)
                ep = steps * b / n
                ex = dict(res.extras, epochs=ep, steps=steps, solved_for="epochs")
                res = type(res)("epochs", ep, res.method, "", None, res.citation, epsilon=res.epsilon,
                                delta=res.delta, mechanism=res.mechanism, extras=ex)
            return [res]
        if q.method == "all":
            return [account.table(q.events, q.command, at, q.neighbouring) for at in q.at]
        return [account.profile(q.events, q.command, at, q.method, q.neighbouring, q.conversion,
                                accuracy=q.accuracy) for at in q.at]


_ANSWER_KEYS = ("epsilon", "delta", "value", "lower", "upper", "approximation", "sigma", "scale",
                "rr_epsilon", "steps", "epochs", "batch_size")


def _sound_record(rec: dict) -> dict:
    """A NaN is never an answer (one in an answer's field is a bug: AssertionError, exit 70);
    a diagnostic field that is NaN (e.g. an approximation's distance to PLD where PLD has no
    value) is given as None.  inf is kept (stated as such)."""
    out = {}
    for k, v in rec.items():
        if isinstance(v, float) and v != v:
            if k in _ANSWER_KEYS or k.endswith(("_lower", "_upper")):
                raise AssertionError(f"{k} = nan in the answer (a NaN is never an answer)")
            v = None
        out[k] = v
    return out


def records(q: Query, answers: list):
    """What ``--json`` prints, as Python objects (floats may be inf: ``jsonable`` writes them
    as the string "inf"): one flat dict per answer (one answer: the dict itself); with
    ``--method all`` one list of route rows per point."""
    if q.method == "all" and q.command != "calibrate":
        rows = [_sound_record(dict(r, quantity=q.command, at=at)) for at, tab in zip(q.at, answers)
                for r in tab]
        return rows
    recs = [_sound_record(r.to_dict()) for r in answers]
    return recs[0] if len(recs) == 1 else recs


def jsonable(obj):
    """``obj`` with every non-finite float written as the string "inf" / "-inf" (valid JSON;
    ``float()`` reads it back)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        if obj != obj:
            raise AssertionError("nan in an answer")
        return "inf" if obj > 0 else "-inf"
    if isinstance(obj, dict):
        return {k: jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    return obj


# ----------------------------------------------------------------------------- output
def _directed(v: float, digits: int, up: bool) -> str:
    """``v`` to ``digits`` significant digits, rounded up (an upper end) or down (a lower end):
    a printed bound never claims more than the computed one."""
    if not math.isfinite(v) or v == 0:
        return f"{v:g}"
    e = math.floor(math.log10(abs(v)))
    scale = 10.0 ** (digits - 1 - e)
    x = math.ceil(v * scale) if up else math.floor(v * scale)
    return f"{x / scale:.{digits}g}"


def _line(res) -> str:
    name, x = res.name, res.extras
    # the digits an accuracy request asks for (two beyond it), else 6
    acc = x.get("accuracy")
    digits = max(6, 2 - math.floor(math.log10(acc))) if acc else 6
    certified_value = name in ("epsilon", "delta") and x.get("guarantee", True)
    if not math.isfinite(res.value):
        at = f" at delta = {res.delta:g}" if name == "epsilon" else ""
        parts = [f"{name} = inf (no finite {name} is certified{at})"]
    elif certified_value:
        parts = [f"{name} = {_directed(res.value, digits, True)}"]
    else:
        parts = [f"{name} = {res.value:.6g}"]
    if name not in ("epsilon", "delta") and res.epsilon is not None:
        parts.append(f"(achieved epsilon = {res.epsilon:.6g} at delta = {res.delta:g})")
    q = name if name in ("epsilon", "delta") else "epsilon"
    if f"{q}_lower" in x and x.get("guarantee", True):
        parts.append(f"(certified: {_directed(x[q + '_lower'], digits, False)} <= {q} <= "
                     f"{_directed(x[q + '_upper'], digits, True)}; "
                     f"route {x.get('route', res.method)})")
    if x.get("approximation"):
        parts.append(f"(approximation by {res.method}, not a guarantee)")
    at = f"delta = {res.delta:g}" if name == "epsilon" else (
        f"epsilon = {res.epsilon:g}" if name == "delta" else "")
    parts.append(f"[{res.mechanism}; " + (f"{at}; " if at else "") + f"method {res.method}]")
    if x.get("note"):
        parts.append(f"\n  note: {x['note']}")
    return " ".join(p for p in parts if p)


def render(args, q: Query, answers: list) -> int:
    """Print the answers (text, or ``--json``) and draw ``--plot``."""
    recs = records(q, answers)
    if args.json:
        if q.method == "all" and q.command != "calibrate":
            for at, tab in zip(q.at, answers):
                print(json.dumps(jsonable([dict(r, quantity=q.command, at=at) for r in tab]),
                                 sort_keys=True))
        else:
            print(json.dumps(jsonable(recs), sort_keys=True))
    elif q.method == "all" and q.command != "calibrate":
        for at, tab in zip(q.at, answers):
            _table(q.events, q.command, at, tab)
    else:
        for r in answers:
            print(_line(r))
    if getattr(args, "plot", None):
        import numpy as np
        with np.errstate(all="ignore"):
            _plot(args.plot, q.events, q.neighbouring)
    return 0


def _table(events, name, at, rows) -> None:
    from numeric.events import describe
    print(f"# {name} of {describe(events)} at {'delta' if name == 'epsilon' else 'epsilon'} = {at:g}")
    print(f"{'route':10s} {'lower':>12s} {'upper':>12s} {'approximation':>14s} {'seconds':>8s}")
    fmt = lambda v: f"{v:12.6g}" if v is not None else f"{'-':>12s}"   # noqa: E731
    for r in rows:
        if "error" in r:
            print(f"{r['route']:10s} cannot: {r['error']}")
            continue
        ap = f"{r['approximation']:14.6g}" if r["approximation"] is not None else f"{'-':>14s}"
        print(f"{r['route']:10s} {fmt(r['lower'])} {fmt(r['upper'])} {ap} {r['seconds']:8.3f}"
              + (f"  ({r['note']})" if r.get("note") else ""))


def run(args) -> int:
    """One accountant command: parsed args -> query -> answer -> render."""
    q = build_query(args)
    return render(args, q, answer(q))


def cmd_epsilon(args) -> int:
    return run(args)


def cmd_delta(args) -> int:
    return run(args)


def cmd_calibrate(args) -> int:
    return run(args)


# ----------------------------------------------------------------------------- plot
def _plot(path, events, neighbouring):
    """delta(eps) with its certified band (PLD lower/upper) and the RDP upper bound; where
    neither route covers the events, the best certified upper bound.  The eps axis ends where
    delta falls to 1e-10 (at most at eps = EPS_PLOT_MAX)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from numeric import account
    from numeric import events as EV
    try:
        eps_hi = account.epsilon(events, 1e-10, "best", neighbouring).value
    except ValueError:
        eps_hi = 10.0
    eps_hi = min(eps_hi, EPS_PLOT_MAX) if math.isfinite(eps_hi) else 10.0
    grid = np.linspace(0.0, max(eps_hi, 0.1) * 1.05, 60)
    fig, ax = plt.subplots(figsize=(4.6, 3.4))
    drawn = False
    try:
        lo, hi = (np.asarray(v, dtype=float) for v in EV.pld_accountant(events, neighbouring).delta(grid))
        lo, hi = np.where(np.isfinite(lo), lo, 0.0), np.where(np.isfinite(hi), hi, 1.0)
        ax.fill_between(grid, np.maximum(lo, 1e-300), np.maximum(hi, 1e-300), color="C0",
                        alpha=0.35, label="PLD certified band")
        ax.plot(grid, hi, color="C0", lw=1)
        drawn = True
    except (ValueError, ArithmeticError):      # RouteError among them: the PLD route does not apply
        pass
    for method, label, style in (("rdp", "RDP upper bound", dict(color="C3", ls="--")),
                                 ("best", "certified upper bound", dict(color="C2"))):
        if method == "best" and drawn:
            break
        try:
            d = [account.delta(events, float(x), method, neighbouring).value for x in grid[::3]]
        except (ValueError, ArithmeticError):
            continue
        ax.plot(grid[::3], np.maximum(d, 1e-300), lw=1, label=label, **style)
        drawn = True
    ax.set_yscale("log")
    ax.set_ylim(1e-12, 2.0)            # delta = 1 (no privacy) stays visible
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"$\delta(\varepsilon)$")
    ax.set_title(EV.describe(events)[:70], fontsize=7)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


#: the largest eps on a ``--plot`` axis (a profile that reaches 1e-10 later is drawn up to here)
EPS_PLOT_MAX = 200.0


# ----------------------------------------------------------------------------- parser
def event_arguments(p, solving: bool = False) -> None:
    """The flags that describe the events (mechanism, noise, sampling, count, relation, spec file):
    shared by ``epsilon``, ``delta``, ``calibrate`` and ``risk``.  ``solving``: the noise may be
    the unknown (``calibrate``)."""
    p.add_argument("--sigma", type=float,
                   help=("Gaussian / discrete Gaussian noise (unless solving for it)" if solving
                         else "Gaussian noise multiplier sigma (> 0)"))
    p.add_argument("--mechanism", choices=("gaussian", "laplace", "rr", "dgauss"), default=None,
                   help="gaussian (default; --sigma), laplace (--scale), rr (--rr-epsilon) or "
                        "dgauss (the discrete Gaussian; --sigma, integer --sensitivity)")
    p.add_argument("--scale", type=float, help="Laplace noise scale b (> 0)")
    p.add_argument("--rr-epsilon", dest="rr_epsilon", type=float,
                   help="randomized response epsilon (> 0)")
    p.add_argument("--sampling-rate", dest="sampling_rate", type=float, default=None,
                   help="Poisson sampling rate q in (0, 1] (default 1: no subsampling)")
    p.add_argument("--steps", type=float, default=None,
                   help=f"number of compositions T, an integer in [1, {MAX_STEPS:.0e}] (default 1)")
    p.add_argument("--epochs", type=float, help="training epochs E (with --batch-size, --dataset-size)")
    p.add_argument("--batch-size", dest="batch_size", type=float, help="batch size B")
    p.add_argument("--dataset-size", dest="dataset_size", type=float, help="data set size N")
    p.add_argument("--sampling", choices=("poisson", "fixed"), default=None,
                   help="batches by Poisson sampling (default) or fixed size without replacement")
    p.add_argument("--neighbouring", choices=("add-remove", "replace-one"), default=None,
                   help="neighbouring relation (default add-remove; replace-one for fixed batches)")
    p.add_argument("--sensitivity", type=float, default=1.0,
                   help="sensitivity under the neighbouring relation (default 1; with fixed "
                   "batches the replace-one sensitivity, 2C for sums clipped to norm C)")
    p.add_argument("--spec", metavar="FILE.json", help="a JSON list of events to compose")


def _common(p, calibrate=False):
    event_arguments(p, solving=calibrate)
    p.add_argument("--conversion", choices=CONVERSION_CHOICES, default="optimal", type=_conversion_name,
                   help="RDP-to-DP conversion of --method rdp: mironov (Mironov 2017), balle (Balle et al. "
                        "2020), asoodeh (Asoodeh et al. 2021, Lemma 1; 'lemma1' is still accepted), optimal "
                        "(default: the exact optimal conversion, Asoodeh et al. 2021, Thm. 3)")
    p.add_argument("--method", choices=METHOD_CHOICES, default="best",
                   help="best (default: tightest certified of rdp, pld), rdp, pld, clt or edgeworth "
                        "(approximations), all (a table of every route)")
    p.add_argument("--json", action="store_true", help="print one flat JSON object per answer")
    p._negative_number_matcher = _NEGATIVE_NUMBER


def _accuracy_flag(p) -> None:
    p.add_argument("--accuracy", type=float, default=None, metavar="A",
                   help="a certified bracket of relative width (upper - lower) / upper at most A "
                        "(1e-8 to 0.5; finer PLD lattices until it is met, else one line saying "
                        "the width reached; default: the standard lattice)")


def add_commands(subparsers) -> None:
    """Add the ``epsilon``, ``delta`` and ``calibrate`` subcommands."""
    p = subparsers.add_parser("epsilon", help="epsilon(delta) of a mechanism or a composition")
    _common(p)
    p.add_argument("--delta", required=True, help="delta in (0, 1); several: comma-separated")
    p.add_argument("--plot", metavar="FILE.png", help="draw the privacy profile delta(eps)")
    _accuracy_flag(p)
    p.set_defaults(func=cmd_epsilon, command="epsilon", strict_errors=True)

    p = subparsers.add_parser("delta", help="delta(epsilon) of a mechanism or a composition")
    _common(p)
    p.add_argument("--epsilon", required=True, help="epsilon >= 0; several: comma-separated")
    p.add_argument("--plot", metavar="FILE.png", help="draw the privacy profile delta(eps)")
    _accuracy_flag(p)
    p.set_defaults(func=cmd_delta, command="delta", strict_errors=True)

    p = subparsers.add_parser("calibrate", help="noise, steps, epochs or batch size meeting "
                                                "a target (epsilon, delta)")
    _common(p, calibrate=True)
    p.add_argument("--solve", choices=("sigma", "scale", "rr-epsilon", "steps", "epochs", "batch-size"),
                   default=None, help="what to solve for (default: the mechanism's noise, sigma for "
                   "gaussian and dgauss, scale for laplace, rr-epsilon for rr)")
    p.add_argument("--epsilon", type=float, required=True, help="target epsilon > 0")
    p.add_argument("--delta", type=float, required=True, help="delta in (0, 1)")
    p.set_defaults(func=cmd_calibrate, command="calibrate", strict_errors=True)
