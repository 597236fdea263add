"""``dpderive tv``: total-variation-aware composition (Ghazi and Issa 2023).

    dpderive tv --epsilon 1 --eta 0.32 --k 5                 Theorem 2: the k-fold (j eps, delta'_j) profile
    dpderive tv --epsilon 1 --delta 1e-6 --eta 0.3 --k 10000 --at-delta 1e-5
    dpderive tv --epsilon 1 --eta 0.3 --k 100 --sampling-rate 0.01   subsample first (Proposition 1)
    dpderive tv ... --json | --plot FILE

Prints the composed TV, the smallest epsilon at --at-delta (Theorem 2 and, for
comparison, Kairouz et al. without the TV constraint), the area between the
composed trade-off curve and the no-privacy line, and the profile's first
lines.  Invalid input raises ``DomainError`` (one line, exit status 2).
"""
from __future__ import annotations

import json
import math
import time

from derive.errors import DomainError

from .accounting_cli import jsonable


def _finite(name, v, allowed, ok):
    if v is None or not isinstance(v, (int, float)) or math.isnan(v) or math.isinf(v) or not ok(v):
        raise DomainError(name, v, allowed)
    return v


def plain_composition(k: int, eps: float, delta: float, at: float) -> float:
    """Basic composition (Dwork, Roth 2014, Th. 3.16): k (eps, delta)-DP mechanisms are
    (k eps, k delta)-DP, so epsilon(at) <= k eps when k delta <= at (inf otherwise)."""
    return k * eps if k * delta <= at else math.inf


def cmd_tv(args) -> int:
    from numeric import tv
    e = _finite("epsilon", args.epsilon, "(0, oo)", lambda x: x > 0)
    d = _finite("delta", args.delta, "[0, 1)", lambda x: 0 <= x < 1)
    # k = 10^5 composes in about 8 s here, 10^6 in over a minute: the command answers in seconds
    k = _finite("k", args.k, "an integer in [1, 10^5]", lambda x: x >= 1 and x == int(x) and x <= 1e5)
    _finite("lines", args.lines, "an integer in [0, 10000]", lambda x: 0 <= x <= 10000)
    p = _finite("sampling_rate", args.sampling_rate, "(0, 1]", lambda x: 0 < x <= 1)
    at = _finite("at_delta", args.at_delta, "(0, 1)", lambda x: 0 < x < 1)
    hi = tv.eta_max(e, d)
    n = hi if args.eta is None else _finite(
        "eta", args.eta, f"[delta, delta + (1-delta) tanh(eps/2)] = [{d:.6g}, {hi:.6g}]",
        lambda x: d <= x <= hi * (1 + 1e-12))
    if p < 1:
        e, d, n = tv.subsample(e, d, n, p)
    t0 = time.perf_counter()
    curve = tv.TVComposition(int(k), e, d, n)
    seconds = time.perf_counter() - t0
    kair = tv.KairouzComposition(int(k), e, d)
    pr = curve.profile
    e_tv, e_kair = float(curve.epsilon(at)), float(kair.epsilon(at))
    e_plain = plain_composition(int(k), e, d, at)
    best = min((v, src) for v, src in ((e_tv, "theorem2"), (e_kair, "kairouz"),
                                       (e_plain, "plain composition")))
    if not math.isfinite(best[0]):
        raise DomainError("at_delta", at, f"(k delta, 1) = ({int(k) * d:.6g}, 1): no finite "
                          "epsilon at a delta below the composed mechanisms' k delta")
    out = {"k": int(k), "epsilon_step": e, "delta_step": d, "eta_step": n, "alpha": pr.alpha,
           "sampling_rate": p, "tv_composed": pr.tv, "at_delta": at,
           "epsilon": best[0], "epsilon_source": best[1],
           "epsilon_theorem2": e_tv if math.isfinite(e_tv) else None,
           "epsilon_kairouz": e_kair if math.isfinite(e_kair) else None,
           "epsilon_plain": e_plain if math.isfinite(e_plain) else None,
           "area_theorem2": curve.area(), "area_kairouz": kair.area(), "seconds": seconds,
           "profile": [{"j": j, "eps_j": float(pr.eps_j[j]), "delta_j": float(pr.delta_prime[j])}
                       for j in range(min(pr.k + 1, args.lines))]}
    if args.plot:
        _plot(args.plot, curve, kair, out)
        out["plot"] = args.plot
    if args.json:
        print(json.dumps(jsonable(out), sort_keys=True))
        return 0
    print(f"Theorem 2: {out['k']}-fold composition of ({e:.6g}, {d:.3g})-DP, eta={n:.6g}-TV mechanisms "
          f"(alpha={pr.alpha:.6g}{', subsampled p=%g' % p if p < 1 else ''})")
    print(f"  composed TV      {out['tv_composed']:.6g}")
    fmt = lambda v: "not finite" if v is None else f"{v:.6g}"   # noqa: E731
    print(f"  eps at delta={at:g}: {best[0]:.6g} (from {best[1]}; Theorem 2: "
          f"{fmt(out['epsilon_theorem2'])}, Kairouz et al., no TV: {fmt(out['epsilon_kairouz'])}, "
          f"plain composition: {fmt(out['epsilon_plain'])})")
    print(f"  area to 1-alpha  {out['area_theorem2']:.6g} (Kairouz et al.: {out['area_kairouz']:.6g})")
    for row in out["profile"]:
        print(f"  j={row['j']:<6d} eps_j={row['eps_j']:<12.6g} delta'_j={row['delta_j']:.6g}")
    print(f"  ({seconds:.3f} s)")
    return 0


def _plot(path, curve, kair, out):
    import numpy as np
    from numeric import fdp
    from .plotting import tradeoff_plot
    a = np.concatenate((np.geomspace(1e-8, 1e-2, 200), np.linspace(1e-2, 1, 400)))
    tradeoff_plot(path, [(a, kair(a), dict(label="Kairouz et al. (no TV)")),
                         (a, curve(a), dict(label="Theorem 2 (with TV)")),
                         (a, fdp.Identity()(a), dict(color="0.6", lw=0.8, ls=":"))],
                  size=(4.2, 3.4), xlabel=r"type I error $\beta_{\mathrm{I}}$",
                  ylabel=r"type II error $\beta_{\mathrm{II}}$", title_size=8,
                  title=f"k={out['k']}, eps={out['epsilon_step']:.3g}, eta={out['eta_step']:.3g}")


def add_commands(subparsers) -> None:
    """Add the ``tv`` subcommand."""
    from .accounting_cli import _NEGATIVE_NUMBER
    p = subparsers.add_parser("tv", help="total-variation-aware k-fold composition (Ghazi-Issa Theorem 2)")
    p._negative_number_matcher = _NEGATIVE_NUMBER     # "-1e-5" is a value (then a range error)
    p.add_argument("--epsilon", type=float, required=True, help="per-mechanism epsilon > 0")
    p.add_argument("--delta", type=float, default=0.0, help="per-mechanism delta in [0, 1) (default 0)")
    p.add_argument("--eta", type=float, default=None,
                   help="per-mechanism TV in [delta, delta + (1-delta) tanh(eps/2)] (default: the maximum)")
    p.add_argument("--k", type=float, required=True, help="number of compositions (integer >= 1)")
    p.add_argument("--sampling-rate", dest="sampling_rate", type=float, default=1.0,
                   help="subsample each step with p = m/n first (Proposition 1; default 1)")
    p.add_argument("--at-delta", dest="at_delta", type=float, default=1e-5,
                   help="report the smallest epsilon at this delta (default 1e-5)")
    p.add_argument("--lines", type=int, default=6, help="profile lines to print (default 6)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE", default=None, help="write the trade-off curves to FILE")
    p.set_defaults(func=cmd_tv)
