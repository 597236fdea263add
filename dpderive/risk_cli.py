"""``dpderive risk``: the attack risk of a mechanism or a training run, from its certified
trade-off curve (``numeric.risk``): the largest advantage (TV) and the attacker's TPR at
given FPRs, each a certified upper bound with a certified lower bound beside it; the curve
as JSON (``--points``) or a plot (``--plot``).  ``--calibrate sigma|scale|steps|epochs``
solves for a noise parameter or the run's length meeting ``--target-tpr`` (at one
``--at-fpr``) or ``--target-advantage``.

The events are given by the same flags as ``dpderive epsilon`` (``--sigma``,
``--sampling-rate``, ``--steps``, or ``--epochs --batch-size --dataset-size``,
``--mechanism``, ``--spec``, ...).

``dpderive calibrate`` also takes ``--target-tpr T --at-fpr A`` or ``--target-advantage V``
in place of ``--epsilon``/``--delta``: this module adds those flags to the ``calibrate``
parser of ``dpderive.accounting_cli`` when it registers ``risk`` (no change there) and
answers such a call itself, solving for ``--solve`` (default: the mechanism's noise).

Invalid input: one line naming the parameter, exit status 2.
"""
from __future__ import annotations

import json
import math

from numeric.errors import UserInputError

from . import accounting_cli as A
from .accounting_cli import jsonable

__all__ = ["cmd_risk", "add_commands"]


def _fpr_list(text):
    return A._floats("at_fpr", text, "[0, 1]; several: comma-separated",
                     lambda x: x if math.isfinite(x) and 0 <= x <= 1 else
                     (_ for _ in ()).throw(UserInputError("at_fpr", x, "[0, 1]")))


def _unit_open(name, v, allowed="(0, 1]"):
    x = A._finite(name, v, allowed)
    if not (0 < x <= 1):
        raise UserInputError(name, v, allowed)
    return x


def _solver(args, solve):
    """(make(x), lo, hi, integer, decreasing, param name, post-process) for ``solve``."""
    kind = args.mechanism or "gaussian"
    s = solve.replace("-", "_")
    if s in ("sigma", "scale", "rr_epsilon"):
        own = A.NOISE_PARAM[kind].replace("-", "_")
        if s != own:
            raise UserInputError("solve" if hasattr(args, "solve") else "calibrate", solve,
                              f"{A.NOISE_PARAM[kind]}, steps or epochs for --mechanism {kind}")
        if getattr(args, s) is not None:
            A._conflict(s, "calibrate" if getattr(args, "calibrate", None) else "solve")
        sens = A._positive("sensitivity", args.sensitivity) if kind in ("laplace", "dgauss") else 1.0
        lo, hi = {"gaussian": (0.05, 1e4), "dgauss": (0.2 * sens, 1e4 * sens),
                  "laplace": (0.05 * sens, 1e5 * sens), "rr": (1e-4, 30.0)}[kind]
        make = lambda x: A.build_events(args, noise=x)          # noqa: E731
        make(hi)
        return make, lo, hi, False, kind != "rr", s, None
    if s in ("steps", "epochs") and args.steps is not None:
        A._conflict("steps", "calibrate " + s if getattr(args, "calibrate", None) else "solve " + s)
    if s == "epochs" and args.epochs is not None:
        A._conflict("epochs", "calibrate epochs" if getattr(args, "calibrate", None) else "solve epochs")
    if s == "steps":
        if args.epochs is not None:
            A._conflict("epochs", "solve steps")
        make = lambda t: A.build_events(args, steps=int(t))     # noqa: E731
        make(1)
        return make, 1, int(A.MAX_STEPS), True, False, "steps", None
    if s == "epochs":
        if args.batch_size is None or args.dataset_size is None:
            raise UserInputError("solve", "epochs", "a training run: --batch-size and --dataset-size")
        n, b = args.dataset_size, args.batch_size
        make = lambda t: A.build_events(args, steps=int(t))     # noqa: E731
        make(1)
        return make, 1, int(A.MAX_STEPS), True, False, "steps", (lambda t: t * b / n)
    raise UserInputError("solve", solve, "sigma, scale, rr-epsilon, steps or epochs")


def _calibrate(args, solve) -> int:
    from numeric import risk as R
    if (args.target_tpr is None) == (args.target_advantage is None):
        raise UserInputError("target_tpr", args.target_tpr, "given alone with --at-fpr, or "
                          "--target-advantage instead (exactly one target)")
    at = None
    if args.target_tpr is not None:
        at = _fpr_list(args.at_fpr if args.at_fpr is not None else "0.01")
        if len(at) != 1:
            raise UserInputError("at_fpr", args.at_fpr, "one FPR in [0, 1] with --target-tpr")
        at = at[0]
        _unit_open("target_tpr", args.target_tpr)
        if not args.target_tpr > at:
            raise UserInputError("target_tpr", args.target_tpr, f"(at_fpr = {at:g}, 1] (no test does "
                              "worse than chance)")
    else:
        _unit_open("target_advantage", args.target_advantage)
    from numeric.errors import user_input
    with user_input():              # the events built from the user's flags: their errors are the user's
        make, lo, hi, integer, decreasing, param, post = _solver(args, solve)
        nb = A._neighbouring(args, make(hi if decreasing else lo))
    rec = R.calibrate_risk(make, param, lo, hi, target_tpr=args.target_tpr, at_fpr=at,
                           target_advantage=args.target_advantage, neighbouring=nb,
                           integer=integer, decreasing=decreasing)
    if post is not None:
        rec["epochs"] = post(rec["steps"])
        rec["solved_for"] = "epochs"
    if args.json:
        print(json.dumps(jsonable(rec), sort_keys=True))
        return 0
    x = rec["solved_for"]
    val = rec[x]
    head = f"{x} = {val:.6g}" if isinstance(val, float) else f"{x} = {val}"
    if "target_tpr" in rec:
        print(f"{head} (certified TPR at FPR {rec['at_fpr']:g}: {rec['tpr_lower']:.6g} <= TPR <= "
              f"{rec['tpr']:.6g}, target {rec['target_tpr']:g}; advantage <= {rec['advantage']:.6g}; "
              f"route {rec['route']}) [{rec['mechanism']}]")
    else:
        print(f"{head} (certified advantage: {rec['advantage_lower']:.6g} <= advantage <= "
              f"{rec['advantage']:.6g}, target {rec['target_advantage']:g}; route {rec['route']}) "
              f"[{rec['mechanism']}]")
    return 0


def cmd_risk(args) -> int:
    from numeric import risk as R
    if args.calibrate:
        return _calibrate(args, args.calibrate)
    if args.target_tpr is not None or args.target_advantage is not None:
        raise UserInputError("target_tpr" if args.target_tpr is not None else "target_advantage",
                          args.target_tpr if args.target_tpr is not None else args.target_advantage,
                          "only with --calibrate sigma|scale|steps|epochs")
    at = _fpr_list(args.at_fpr if args.at_fpr is not None else "0.01")
    if not (0 <= args.points <= 100000):
        raise UserInputError("points", args.points, "[0, 100000]")
    events = A.build_events(args)
    nb = A._neighbouring(args, events)
    pts = args.points or (201 if args.plot else 0)
    r = R.risk(events, at, nb, "both", curve_points=pts)
    rec = r.to_dict()
    if args.plot:
        _plot(args.plot, r)
        rec["plot"] = args.plot
    if not args.points:
        rec.pop("curve", None)
    if args.json:
        print(json.dumps(jsonable(rec), sort_keys=True))
        return 0
    print(f"advantage (TPR - FPR, any test) <= {r.advantage:.6g}  (certified: {r.advantage_lower:.6g} "
          f"<= advantage <= {r.advantage:.6g}; route {r.route}) [{r.mechanism}]")
    for a in sorted(r.tpr):
        print(f"TPR at FPR {a:g} <= {r.tpr[a]:.6g}  (certified: {r.tpr_lower[a]:.6g} <= TPR <= "
              f"{r.tpr[a]:.6g})")
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def _plot(path, r) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    c = r.extras["curve"]
    a = np.asarray(c["alpha"])
    fig, axs = plt.subplots(1, 2, figsize=(8, 3.6))
    ax = axs[0]
    ax.plot(a, 1 - a, color="0.6", lw=0.8, ls="--", label="no privacy (1 - FPR)")
    ax.plot(a, c["beta_lower"], lw=1.5, color="C0", label=f"certified lower curve ({r.route})")
    if c["beta_upper"] is not None:
        ax.plot(a, c["beta_upper"], lw=0.8, color="C1", ls=":", label="certified upper curve")
    ax.set_xlabel("FPR (type I error alpha)")
    ax.set_ylabel("FNR (type II error beta)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    ax = axs[1]                             # the attacker's ROC, log axes at small FPR
    ok = a > 0
    ax.plot(a[ok], 1 - np.asarray(c["beta_lower"])[ok], color="C0", lw=1.5, label="TPR upper bound")
    ax.plot(a[ok], a[ok], color="0.6", lw=0.8, ls="--", label="chance")
    for x in sorted(r.tpr):
        if x > 0:
            ax.plot([x], [r.tpr[x]], "o", color="C3")
            ax.annotate(f"TPR <= {r.tpr[x]:.3g} at FPR {x:g}", (x, r.tpr[x]), fontsize=7,
                        xytext=(4, -10), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1e-5, 1)
    ax.set_ylim(1e-5, 1.05)
    ax.set_xlabel("FPR")
    ax.set_ylabel("TPR")
    ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(f"{r.mechanism[:80]}; advantage <= {r.advantage:.3g}", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _target_flags(p, fpr_help):
    p.add_argument("--at-fpr", dest="at_fpr", default=None, help=fpr_help)
    p.add_argument("--target-tpr", dest="target_tpr", type=float, default=None,
                   help="calibrate to this certified TPR at --at-fpr")
    p.add_argument("--target-advantage", dest="target_advantage", type=float, default=None,
                   help="calibrate to this certified advantage (TPR - FPR of the best test)")


def _extend_calibrate(subparsers) -> None:
    """``dpderive calibrate --target-tpr T --at-fpr A | --target-advantage V``: the flags are
    added to accounting_cli's ``calibrate`` parser, its ``--epsilon``/``--delta`` become
    required only without a risk target, and such a call is answered here."""
    p = subparsers.choices.get("calibrate")
    if p is None or any(a.dest == "target_tpr" for a in p._actions):
        return
    _target_flags(p, "FPR of --target-tpr (default 0.01)")
    need = [a for a in p._actions if a.dest in ("epsilon", "delta") and a.required]
    for a in need:
        a.required = False
    inner = p.get_default("func")

    def func(args):
        if args.target_tpr is not None or args.target_advantage is not None:
            for a in need:
                if getattr(args, a.dest) is not None:
                    A._conflict(a.dest, "target_tpr" if args.target_tpr is not None else "target_advantage")
            if args.solve == "batch-size":
                raise UserInputError("solve", args.solve, "sigma, scale, rr-epsilon, steps or epochs "
                                  "with a risk target")
            if args.spec is not None:
                raise UserInputError("spec", args.spec, "absent for calibrate (it solves for a flag)")
            solve = args.solve or A.NOISE_PARAM[args.mechanism or "gaussian"]
            return _calibrate(args, solve)
        if args.at_fpr is not None:
            raise UserInputError("at_fpr", args.at_fpr, "only with --target-tpr")
        for a in need:
            if getattr(args, a.dest) is None:
                raise UserInputError(a.dest, None, "required (or a risk target: --target-tpr with "
                                  "--at-fpr, or --target-advantage)")
        return inner(args)

    p.set_defaults(func=func)


def add_commands(subparsers) -> None:
    p = subparsers.add_parser("risk", help="attack risk: certified advantage and TPR at FPR; "
                                           "calibration to a target TPR@FPR or advantage")
    p._negative_number_matcher = A._NEGATIVE_NUMBER
    A.event_arguments(p)
    _target_flags(p, "FPR(s) in [0, 1], comma-separated (default 0.01)")
    p.add_argument("--calibrate", choices=("sigma", "scale", "rr-epsilon", "steps", "epochs"),
                   default=None, help="solve for this parameter meeting --target-tpr / --target-advantage")
    p.add_argument("--points", type=int, default=0, help="include the curve at this many alphas in --json")
    p.add_argument("--plot", metavar="FILE", help="plot the certified trade-off curve and the TPR@FPR points")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_risk)
    _extend_calibrate(subparsers)
