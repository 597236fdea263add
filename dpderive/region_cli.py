"""``dpderive region``: the privacy-region outer bound (a trade-off curve) implied by
Renyi DP (Asoodeh et al. 2021, Corollary 1 eq. (48); ``numeric.region``).

Input: either mechanism parameters (--sigma, --sampling-rate, --steps; the exact Poisson-
subsampled Gaussian RDP, or the paper's rho_q approximation with --rdp rho_q) or an RDP curve
(--orders 2,4,8 --gammas 0.1,0.3,0.9, composed --steps times).  Output: the curve at
--points type I errors, its area and (eps, delta) at --delta / --eps; --json for a record,
--plot FILE for a PDF/PNG.  Invalid input raises ``DomainError`` (one line, exit 2).
"""
from __future__ import annotations

import json
import math

from derive.errors import DomainError

from .accounting_cli import jsonable


def _floats(name, text, allowed):
    try:
        vals = [float(x) for x in str(text).split(",") if x.strip()]
    except ValueError:
        raise DomainError(name, text, allowed) from None
    if not vals or any(math.isnan(v) or math.isinf(v) for v in vals):
        raise DomainError(name, text, allowed)
    return vals


def _positive(name, v, allowed="(0, oo)"):
    if v is None or math.isnan(v) or math.isinf(v) or v <= 0:
        raise DomainError(name, v, allowed)
    return v


def build_curve(args):
    """The numeric.region curve the arguments describe."""
    import numpy as np

    from numeric import region as R
    from numeric.rdp import AbadiApproxSubsampledGaussian, Gaussian, SubsampledGaussian

    steps = args.steps
    if steps is None or not math.isfinite(steps) or steps < 1 or steps != int(steps) or steps > 1e9:
        raise DomainError("steps", steps, "an integer in [1, 1e9] (compositions)")
    steps = int(steps)
    if args.orders is not None or args.gammas is not None:
        if args.orders is None or args.gammas is None:
            raise DomainError("gammas" if args.gammas is None else "orders", None,
                              "--orders and --gammas together (one gamma per order)")
        for name, val, default in (("sigma", args.sigma, None), ("sampling_rate", args.sampling_rate, 1.0),
                                   ("rdp", args.rdp, "exact")):
            if val != default:
                raise DomainError(name, val, "absent with --orders/--gammas (an explicit RDP curve "
                                  "replaces the mechanism)")
        orders = _floats("orders", args.orders, "comma-separated orders alpha > 1")
        gammas = _floats("gammas", args.gammas, "comma-separated gamma >= 0, one per order")
        return R.RDPRegion(R.TabulatedRDP(orders, gammas), steps)
    sigma = _positive("sigma", args.sigma)
    q = args.sampling_rate
    if q is None or math.isnan(q) or not (0 < q <= 1):
        raise DomainError("sampling_rate", q, "(0, 1]")
    if args.rdp == "rho_q":
        if q >= 1:
            raise DomainError("sampling_rate", q, "(0, 1) for the rho_q approximation")
        curve = AbadiApproxSubsampledGaussian(q, sigma, warn=False)
        return R.RDPRegion(curve, steps, np.arange(2.0, 257.0))
    curve = Gaussian(sigma) if q == 1 else SubsampledGaussian(q, sigma, fractional=args.rdp == "exact")
    return R.RDPRegion(curve, steps)


def _cmd_region(args) -> int:
    import numpy as np

    n = args.points
    if n is None or not 2 <= n <= 100000:
        raise DomainError("points", n, "an integer in [2, 100000]")
    f = build_curve(args)
    d = args.delta
    if d is not None and not (0 < d < 1):
        raise DomainError("delta", d, "(0, 1)")
    e = args.eps
    if e is not None and (math.isnan(e) or math.isinf(e) or e < 0):
        raise DomainError("epsilon", e, "[0, oo)")
    tau = np.linspace(0.0, 1.0, n)
    beta = f(tau)
    rec = {"curve": f.to_dict(n), "area": f.area(),
           "source": "Asoodeh et al. 2021, Corollary 1, eq. (48): outer bound of the privacy region",
           "warnings": getattr(f, "warnings", [])}
    rec["curve"]["alpha"], rec["curve"]["beta"] = tau.tolist(), beta.tolist()
    if d is not None:
        rec["epsilon"] = {"delta": d, "epsilon": float(f.epsilon(d))}
    if e is not None:
        rec["delta"] = {"epsilon": e, "delta": float(f.delta(e))}
    if args.plot:
        _plot(f, args.plot)
        rec["plot"] = args.plot
    if args.json:
        print(json.dumps(jsonable(rec), indent=1))
        return 0
    print(f"# {f!r}")
    print(f"# privacy-region area {rec['area']:.6g} (area between the curve and 1 - tau)")
    if d is not None:
        print(f"# epsilon at delta={d:g}: {rec['epsilon']['epsilon']:.6g}")
    if e is not None:
        print(f"# delta at epsilon={e:g}: {rec['delta']['delta']:.6g}")
    print("tau\tbeta")
    for t, b in zip(tau, beta):
        print(f"{t:.6g}\t{b:.6g}")
    return 0


def _plot(f, path):
    import numpy as np
    from .plotting import tradeoff_plot
    a = np.linspace(0, 1, 401)
    tradeoff_plot(path, [(a, f(a), dict(label="RDP outer bound (48)")), (a, 1 - a, dict(color="0.6", lw=0.8))],
                  size=(3.6, 3.4))


def add_commands(subparsers) -> None:
    from .accounting_cli import _NEGATIVE_NUMBER
    s = subparsers.add_parser("region", help="privacy-region outer bound (trade-off curve) from RDP")
    s._negative_number_matcher = _NEGATIVE_NUMBER     # "-1e-5" is a value (then a range error)
    s.add_argument("--sigma", type=float, help="noise multiplier of the Gaussian mechanism")
    s.add_argument("--sampling-rate", type=float, default=1.0, help="Poisson sampling rate q in (0, 1]")
    s.add_argument("--steps", type=float, default=1.0, help="number of compositions T >= 1")
    s.add_argument("--rdp", choices=("exact", "integer", "rho_q"), default="exact",
                   help="RDP of the subsampled Gaussian: exact (continuous orders), exact at integer orders, "
                        "or the paper's rho_q approximation")
    s.add_argument("--orders", help="comma-separated RDP orders (with --gammas: an explicit RDP curve)")
    s.add_argument("--gammas", help="comma-separated RDP values, one per order")
    s.add_argument("--points", type=int, default=21, help="number of type I errors printed")
    s.add_argument("--delta", type=float, help="also report epsilon at this delta")
    s.add_argument("--eps", type=float, help="also report delta at this epsilon")
    s.add_argument("--json", action="store_true")
    s.add_argument("--plot", metavar="FILE", help="write a plot of the curve")
    s.set_defaults(func=_cmd_region)
