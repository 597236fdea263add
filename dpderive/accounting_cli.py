"""``dpderive epsilon | delta | calibrate``: the RDP accountant on the command line.

The mechanism is the (Poisson-subsampled, when --sampling-rate < 1) Gaussian
mechanism with noise multiplier --sigma and L2 sensitivity --sensitivity,
composed --steps times.  --conversion picks the RDP-to-DP conversion
(numeric.accountant.CONVERSIONS); --method picks the accounting method: ``rdp``
(default), ``pld`` (certified bracket, numeric.pld), ``clt`` or ``edgeworth``
(approximations, labelled so; numeric.methods).  Invalid input raises ``DomainError``; the main command line
turns it into a one-line message and exit status 2.
"""
from __future__ import annotations

import json
import math

from derive.core import DomainError

CONVERSION_CHOICES = ("mironov", "balle", "lemma1", "optimal")
METHOD_CHOICES = ("rdp", "pld", "edgeworth", "clt")


def _finite(name, v, allowed):
    if v is None or not isinstance(v, (int, float)) or math.isnan(v) or math.isinf(v):
        raise DomainError(name, v, allowed)
    return v


def _check_common(args):
    if args.sigma is not None:
        _finite("sigma", args.sigma, "(0, oo)")
        if args.sigma <= 0:
            raise DomainError("sigma", args.sigma, "(0, oo)")
    q = _finite("sampling_rate", args.sampling_rate, "(0, 1]")
    if not (0 < q <= 1):
        raise DomainError("sampling_rate", q, "(0, 1]")
    t = _finite("steps", args.steps, "[1, oo)")
    if t < 1:
        raise DomainError("steps", t, "[1, oo)")
    s = _finite("sensitivity", args.sensitivity, "(0, oo)")
    if s <= 0:
        raise DomainError("sensitivity", s, "(0, oo)")


def _check_delta(d):
    _finite("delta", d, "(0, 1)")
    if not (0 < d < 1):
        raise DomainError("delta", d, "(0, 1)")
    return d


def _check_eps(e, strict=False):
    _finite("epsilon", e, "(0, oo)" if strict else "[0, oo)")
    if e < 0 or (strict and e == 0):
        raise DomainError("epsilon", e, "(0, oo)" if strict else "[0, oo)")
    return e


def _curve(args):
    from numeric.rdp import Gaussian, SubsampledGaussian
    if args.sampling_rate == 1:
        return Gaussian(args.sigma, args.sensitivity)
    return SubsampledGaussian(args.sampling_rate, args.sigma, args.sensitivity)


def _emit(args, res) -> int:
    if args.json:
        print(json.dumps(res.to_dict(), sort_keys=True))
    else:
        print(res.line())
    return 0


def _profile(args, name: str) -> int:
    """``epsilon`` at --delta or ``delta`` at --epsilon, by the chosen method."""
    _check_common(args)
    if args.sigma is None:
        raise DomainError("sigma", None, "(0, oo) (required)")
    at = _check_delta(args.delta) if name == "epsilon" else _check_eps(args.epsilon)
    if args.method != "rdp":
        from numeric import methods
        res = getattr(methods, name)(args.sigma, args.sampling_rate, args.steps, at,
                                     args.sensitivity, args.method)
    else:
        from numeric import accountant
        res = getattr(accountant, name)(_curve(args), at, args.conversion, steps=args.steps,
                                        method=args.method)
    return _emit(args, res)


def cmd_epsilon(args) -> int:
    return _profile(args, "epsilon")


def cmd_delta(args) -> int:
    return _profile(args, "delta")


def cmd_calibrate(args) -> int:
    _check_common(args)
    e = _check_eps(args.epsilon, strict=True)
    d = _check_delta(args.delta)
    if args.method != "rdp":
        from numeric import methods
        return _emit(args, methods.calibrate_sigma(e, d, args.sampling_rate, args.steps,
                                                   args.sensitivity, args.method))
    from numeric import accountant
    res = accountant.calibrate_sigma(e, d, args.sampling_rate, args.steps, args.sensitivity,
                                     args.conversion, method=args.method)
    return _emit(args, res)


def _common(p, need_sigma=True):
    if need_sigma:
        p.add_argument("--sigma", type=float, required=True, help="noise multiplier sigma (> 0)")
    p.add_argument("--sampling-rate", dest="sampling_rate", type=float, default=1.0,
                   help="Poisson sampling rate q in (0, 1] (default 1: no subsampling)")
    p.add_argument("--steps", type=float, default=1, help="number of compositions T >= 1")
    p.add_argument("--sensitivity", type=float, default=1.0, help="L2 sensitivity (default 1)")
    p.add_argument("--conversion", choices=CONVERSION_CHOICES, default="optimal",
                   help="RDP-to-DP conversion (default: optimal, 002 Theorem 3)")
    p.add_argument("--method", choices=METHOD_CHOICES, default="rdp",
                   help="rdp (default), pld (certified bracket), clt or edgeworth (approximations)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def add_commands(subparsers) -> None:
    """Add the ``epsilon``, ``delta`` and ``calibrate`` subcommands."""
    p = subparsers.add_parser("epsilon", help="epsilon(delta) of the (subsampled) Gaussian mechanism")
    _common(p)
    p.add_argument("--delta", type=float, required=True, help="delta in (0, 1)")
    p.set_defaults(func=cmd_epsilon)

    p = subparsers.add_parser("delta", help="delta(epsilon) of the (subsampled) Gaussian mechanism")
    _common(p)
    p.add_argument("--epsilon", type=float, required=True, help="epsilon >= 0")
    p.set_defaults(func=cmd_delta)

    p = subparsers.add_parser("calibrate", help="smallest sigma meeting a target (epsilon, delta)")
    _common(p, need_sigma=False)
    p.set_defaults(sigma=None)
    p.add_argument("--epsilon", type=float, required=True, help="target epsilon > 0")
    p.add_argument("--delta", type=float, required=True, help="delta in (0, 1)")
    p.set_defaults(func=cmd_calibrate)
