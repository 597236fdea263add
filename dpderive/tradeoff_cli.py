"""``dpderive tradeoff``: the f-DP trade-off curve of the (subsampled) Gaussian
mechanism composed ``--steps`` times, printed, as JSON, or plotted.

Methods (``--method``):

* ``exact``  - no subsampling: G_mu with mu = sqrt(T) Delta / sigma (Zheng et al. 2020, eq. (2.2), Cor. 2.5);
* ``pld``    - numerical composition of the privacy-loss distribution (numeric.pld); the
               pessimistic curve, which lies below the true one (a guarantee);
* ``clt``    - the central-limit approximation G_mu, mu = q sqrt(T (e^{1/sigma^2} - 1))
               (Zheng et al. 2020, Sec. 2 / Bu et al.); an approximation, not a guarantee;
* ``edgeworth`` - Zheng et al. 2020's degree-2 Edgeworth approximation (numeric.edgeworth); an approximation.

The default is ``exact`` without subsampling and ``pld`` with it.  Invalid input
raises ``DomainError`` (one line, exit status 2 from the main command line).
"""
from __future__ import annotations

import json
import math

import numpy as np

from derive.errors import DomainError

from .accounting_cli import _check_common, jsonable

METHODS = ("exact", "pld", "clt", "edgeworth")
APPROXIMATIONS = ("clt", "edgeworth")


def curve_for(sigma: float, q: float, steps: float, sensitivity: float = 1.0, method: str | None = None):
    """(trade-off curve, method used, is it a guarantee) for the given mechanism."""
    from numeric import fdp, methods
    method = method or ("exact" if q == 1 else "pld")
    if method not in METHODS:
        raise DomainError("method", method, "one of " + ", ".join(METHODS))
    if method == "exact":
        if q != 1:
            raise DomainError("method", "exact", "pld, clt or edgeworth when --sampling-rate < 1 "
                              "(no closed form for the subsampled Gaussian)")
        return fdp.Gaussian(math.sqrt(steps) * sensitivity / sigma), method, True
    return methods.curve(method, sigma, q, steps, sensitivity), method, method == "pld"


def _summary(curve, delta: float) -> dict:
    eps = float(curve.epsilon(delta))
    if eps != eps:                  # mu beyond floating point (sigma ~ 1e-30): no finite eps
        eps = math.inf
    return {"area": curve.area(), "delta": delta, "epsilon_at_delta": eps}


def cmd_tradeoff(args) -> int:
    _check_common(args)
    if args.points < 2 or args.points > 100000:
        raise DomainError("points", args.points, "[2, 100000]")
    if not (0 < args.delta < 1):
        raise DomainError("delta", args.delta, "(0, 1)")
    if args.steps != round(args.steps):
        raise DomainError("steps", args.steps, "integers >= 1 (compositions)")
    try:
        with np.errstate(all="ignore"):     # extreme sigma: exp overflows to inf, handled below
            curve, method, sound = curve_for(args.sigma, args.sampling_rate, args.steps,
                                             args.sensitivity, args.method)
            a = np.linspace(0.0, 1.0, args.points)
            b = np.asarray(curve(a), dtype=float)
            summary = _summary(curve, args.delta)
    except ArithmeticError:
        raise DomainError("sigma", args.sigma, f"a curve floating point can compute by method "
                          f"{args.method or 'default'} at sampling rate {args.sampling_rate:g} "
                          f"(these values are beyond its range)") from None
    if not np.all(np.isfinite(b)):
        raise DomainError("sigma", args.sigma, f"a curve floating point can compute by method "
                          f"{args.method or 'default'} (it gives no finite values here)")
    info = {"mechanism": {"sigma": args.sigma, "sampling_rate": args.sampling_rate,
                          "steps": args.steps, "sensitivity": args.sensitivity},
            "method": method, "guarantee": sound, "curve": repr(curve),
            **summary, "alpha": a.tolist(), "beta": b.tolist()}
    if args.plot:
        _plot(args.plot, a, b, info)
        info["plot"] = args.plot
    if args.json:
        print(json.dumps(jsonable(info), sort_keys=True))
        return 0
    kind = ("exact" if method == "exact" else
            "guarantee (lies below the true curve)" if sound else "approximation (not a guarantee)")
    print(f"trade-off curve, method {method}: {kind}; {info['curve']}")
    print(f"area between 1 - alpha and the curve: {info['area']:.6g}; "
          f"epsilon at delta = {args.delta:g}: {info['epsilon_at_delta']:.6g}"
          + (" (no finite epsilon is certified at this delta)"
             if not math.isfinite(info["epsilon_at_delta"]) else ""))
    print(f"{'alpha':>10}  {'beta':>12}")
    for x, y in zip(a, b):
        print(f"{x:10.4f}  {y:12.6g}")
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def _plot(path: str, a, b, info) -> None:
    from .plotting import tradeoff_plot
    m = info["mechanism"]
    tradeoff_plot(path, [(a, 1 - a, dict(color="0.6", lw=0.8, ls="--", label="no privacy (1 - alpha)")),
                         (a, b, dict(lw=1.5, label=f"{info['method']}"))],
                  size=(4, 4), xlabel="type I error alpha", ylabel="type II error beta", unit_box=True,
                  title=f"sigma={m['sigma']:g}, q={m['sampling_rate']:g}, T={m['steps']:g}", legend_size=8)


def add_commands(subparsers) -> None:
    from .accounting_cli import _NEGATIVE_NUMBER
    p = subparsers.add_parser("tradeoff", help="f-DP trade-off curve of the (subsampled) Gaussian mechanism")
    p._negative_number_matcher = _NEGATIVE_NUMBER     # "-1e-5" is a value (then a range error)
    p.add_argument("--sigma", type=float, required=True, help="noise multiplier sigma (> 0)")
    p.add_argument("--sampling-rate", dest="sampling_rate", type=float, default=1.0,
                   help="Poisson sampling rate q in (0, 1] (default 1)")
    p.add_argument("--steps", type=float, default=1, help="number of compositions T >= 1")
    p.add_argument("--sensitivity", type=float, default=1.0, help="L2 sensitivity (default 1)")
    p.add_argument("--method", choices=METHODS, default=None,
                   help="exact (q = 1), pld (default for q < 1), clt or edgeworth")
    p.add_argument("--points", type=int, default=11, help="number of alpha points printed")
    p.add_argument("--delta", type=float, default=1e-5, help="delta for the summary epsilon")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE", help="write a plot of the curve (png/pdf by extension)")
    p.set_defaults(func=cmd_tradeoff)
