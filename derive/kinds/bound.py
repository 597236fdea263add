"""The bound kind: a paper's bound against a quantity of the library of truths."""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from .. import truths
from ..checkers import (ABS_FLOOR, Domain, FLOAT_FLOOR, TRUTH_CONFIRM_DPS, TRUTH_SEARCH_DPS, _box_proof,
                        _budget_record, _certify, _float_screen, _fmt_point, _moderate, _not_violated_note,
                        _params, _search, _tight_ball, constant_discrepancy, float_function, mp_function,
                        pair_description, screen_points, truth_text)
from ..core import Verdict
from ..search import shrink
from .base import Kind, is_inf


# ----------------------------------------------------------------------------- named quantities
def check_bound(bound, side: str, truth, dom: Domain, pair_note: str = "") -> Verdict:
    """``bound`` is an upper bound on (side="upper"), a lower bound on ("lower"), or equal to
    ("equal") the named quantity ``truth`` (an expression over ``derive.truths``' names).

    The search compares the two at ``TRUTH_SEARCH_DPS`` digits; a violation found is confirmed at
    ``TRUTH_CONFIRM_DPS`` and then *certified*: both sides enclosed in ball arithmetic at the reported
    point (``derive.certify``), or, where the truth has no enclosure, the violation must exceed the
    error budget the truth states for itself (``truths.ACCURACY``).  The truth's convention
    (``truths.CONVENTIONS``: eps >= 0, delta in [0, 1]) clamps the bound the same way before comparing
    (an upper bound below the floor says the floor), and the verdict says so when the clamp decides."""
    if side not in ("upper", "lower", "equal"):
        raise ValueError(f"side={side!r} is not one of upper, lower, equal")
    truth = sp.sympify(truth)
    bound = sp.sympify(bound)
    fb, ft = mp_function(bound, dom), mp_function(truth, dom)
    rtol = mp.mpf(10) ** -15
    conv = truths.convention_of(truth) if side in ("upper", "equal") else None
    clamped: list = []          # a point where the convention's clamp turned a violation into none

    def clamp(b):
        if conv is None:
            return b
        lo, hi, _ = conv
        c = b
        if lo is not None and c < lo:
            c = mp.mpf(lo)
        if side == "equal" and hi is not None and c > hi:
            c = mp.mpf(hi)
        return c

    def raw(pt, b, t):
        m = max(abs(b), abs(t))
        if m <= ABS_FLOOR:
            return -mp.mpf(1)
        if side == "upper":
            return (t - b) / m
        if side == "lower":
            return (b - t) / m
        return abs(b - t) / m

    def viol(pt):
        b, t = fb(pt), ft(pt)
        if b is None or t is None:
            return None
        v = raw(pt, clamp(b), t)
        if conv is not None and not clamped and v <= rtol and raw(pt, b, t) > rtol:
            clamped.append((dict(pt), b, t))
        return v
    def fviol(pt, b, t):
        if conv is not None:
            lo, hi, _ = conv
            b = max(b, float(lo)) if lo is not None else b
            b = min(b, float(hi)) if side == "equal" and hi is not None else b
        m = max(abs(b), abs(t))
        if m <= FLOAT_FLOOR:
            return -1.0
        return {"upper": (t - b) / m, "lower": (b - t) / m}.get(side, abs(b - t) / m)
    screen = _float_screen([float_function(bound, dom), float_function(truth, dom)], fviol)
    res = _search(viol, dom, budget="expensive", stop_at=mp.mpf(10) ** -4, dps=TRUTH_SEARCH_DPS,
                  screen=screen, screen_points=screen_points(truth), floor=rtol)
    method = (f"truth {truth_text(truth)} from derive.truths; adversarial search "
              + (f"({res.screened} points screened in floats, the worst {res.evaluations} in mpmath; "
                 if res.screened else f"({res.evaluations} points, ")
              + f"ends and Nelder-Mead) at {TRUTH_SEARCH_DPS} digits, "
              f"the worst point confirmed at {TRUTH_CONFIRM_DPS}")
    if res.point is None:
        return Verdict("inconclusive", method, note="no point of the domain gave real values")
    with mp.workdps(TRUTH_CONFIRM_DPS):
        worst = viol(res.point)
    if worst is None or worst <= rtol:
        if side != "equal" and not clamped:
            small, big = (truth, bound) if side == "upper" else (bound, truth)
            proof = _box_proof(small, big, dom, what=f"truth {truth_text(truth)} enclosed in balls; ")
            if proof is not None:
                return proof
        return _bound_holds(method, res, worst, conv, clamped)

    def bad(p):
        with mp.workdps(TRUTH_CONFIRM_DPS):
            return (viol(p) or 0) > rtol
    worst_pt = shrink(res.point, dom.vars, bad, max_digits=6)
    nice, extent, others = _moderate(viol, dom, rtol, TRUTH_SEARCH_DPS, n=16)
    pt = shrink(nice, dom.vars, bad, max_digits=6) if nice is not None and bad(nice) else worst_pt
    more = [shrink(p, dom.vars, bad, max_digits=6) for p in others if bad(p)]
    cert = None
    for cand in ([pt] + more + [worst_pt] if pt is not worst_pt else [pt] + more):
        cert = _certify_bound(bound, truth, side, conv, cand, fb, ft)
        if cert[0] == "violated":
            pt = cand
            break
    status, record = cert
    if status != "violated":
        v = _bound_holds(method, res, worst, conv, clamped, certified_note=record.get("note", ""))
        return v
    with mp.workdps(TRUTH_CONFIRM_DPS):
        b, t = fb(pt), ft(pt)
    rel = {"upper": "bound >= truth", "lower": "bound <= truth", "equal": "bound = truth"}[side]
    ce = {"params": _params(pt), "bound": mp.nstr(b, 15), "truth": mp.nstr(t, 15),
          "relation": f"{rel} is violated", "quantity": truth_text(truth), "precision": 15}
    ce["distributions"] = pair_note or pair_description(truth)
    if extent:
        ce["extent"] = extent
    if worst_pt is not pt:
        with mp.workdps(TRUTH_CONFIRM_DPS):
            bw, tw = fb(worst_pt), ft(worst_pt)
        if bw is not None and tw is not None:
            ce["worst_point"] = {"params": _params(worst_pt), "bound": mp.nstr(bw, 15), "truth": mp.nstr(tw, 15)}
    note = constant_discrepancy(ft, fb, dom, dps=TRUTH_CONFIRM_DPS) if side == "equal" else ""
    return Verdict("fails", method, points=res.evaluations, worst_error=float(abs(b - t)),
                   precision=15, counterexample=ce, note=note, certificate=record)


def _certify_bound(bound, truth, side, conv, pt, fb, ft):
    """("violated" | "not_violated" | "within_budget", certificate record) at ``pt``."""
    b_expr = bound
    if conv is not None:
        lo, hi, _ = conv
        if lo is not None:
            b_expr = sp.Max(b_expr, lo)
        if side == "equal" and hi is not None:
            b_expr = sp.Min(b_expr, hi)
    # certify_relation's violation is small - big > 0: the truth above an upper bound, the bound
    # above the truth for a lower one, a nonzero difference for "equal"
    small, big = (truth, b_expr) if side == "upper" else (b_expr, truth)
    cert = _certify(small, big, pt, equal=(side == "equal"))
    if cert.status == "violated":
        return "violated", cert.record
    if cert.status == "not_violated":
        return "not_violated", {**cert.record, "note": _not_violated_note(cert)}
    def gap_at(dps):
        with mp.workdps(dps):
            b, t = fb(pt), ft(pt)
        if b is None or t is None:
            return None, None
        if conv is not None:
            lo, hi, _ = conv
            b = max(b, mp.mpf(lo)) if lo is not None else b
            if side == "equal" and hi is not None:
                b = min(b, mp.mpf(hi))
        return {"upper": t - b, "lower": b - t}.get(side, abs(b - t)), t

    gap, t = gap_at(TRUTH_CONFIRM_DPS)
    if gap is None:
        return "within_budget", {"note": ""}
    undecided = cert.status == "undecided"
    if undecided:
        # the truth's balls blow up here (an ill-conditioned point): the budget rule below applies only when
        # the printed bound itself is enclosed in a tight ball (the truth, a named quantity, carries its
        # stated accuracy) and the violation is the same at twice the digits
        gap2, _ = gap_at(2 * TRUTH_CONFIRM_DPS)
        if gap2 is None or abs(gap - gap2) > abs(gap2) / 1000 or not _tight_ball(b_expr, pt):
            return "not_violated", {**cert.record, "note": (
                f"the violation found at {_fmt_point(_params(pt))} is not confirmed: the ball enclosure blows "
                f"up there ({cert.record.get('reason', '')}) and the violation changes with the precision): "
                f"not an erratum")}
    bad, rec = _budget_record(gap, t, truths.accuracy_of(truth), cert.record.get("reason", ""))
    if undecided:
        rec["method"] = (f"the truth's stated error budget, the violation the same at {TRUTH_CONFIRM_DPS} and "
                         f"{2 * TRUTH_CONFIRM_DPS} digits (the ball enclosure blows up here)")
    if bad:
        rec["point"] = _params(pt)
        return "violated", rec
    return "within_budget", {**rec, "note": (f"the worst violation found ({mp.nstr(gap, 3)} at "
                                              f"{_fmt_point(_params(pt))}) is within the truth's stated "
                                              f"accuracy ({rec['budget']}): not an erratum")}


def _bound_holds(method, res, worst, conv, clamped, certified_note: str = "") -> Verdict:
    notes = []
    if clamped:
        pt, b, t = clamped[0]
        lo, hi, what = conv
        clamp = f"max({lo}, ·)" if lo is not None and b < lo else f"min({hi}, ·)"
        notes.append(f"holds with {clamp}: the printed bound ({mp.nstr(b, 6)} at {_fmt_point(_params(pt))}) "
                     f"is outside the truth's range, where the convention {what} binds (truth "
                     f"{mp.nstr(t, 6)}); read with the clamp it is a valid bound")
    if certified_note:
        notes.append(certified_note)
    return Verdict("holds_numerically", method, points=res.evaluations,
                   worst_error=float(max(worst or 0, 0)), precision=15, note="; ".join(notes))


class Bound(Kind):
    name = "bound"
    required = ("bound", "side", "truth")
    doc = ("`bound` is an upper or lower bound on, or equal to, a quantity of the library of truths "
           "(computed from its definition in mpmath): an adversarial search for a violation")
    example = {"bound": r"\Phi\left(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\right) - e^{\varepsilon}"
                        r"\Phi\left(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\right)",
               "side": "equal", "truth": "DeltaOfEps(Gaussian(mu), varepsilon)"}
    expect = "holds_numerically"
    field_docs = {
        "bound": "LaTeX (or `@formula`): the paper's bound",
        "side": "`upper` (bound >= truth), `lower` (bound <= truth) or `equal`",
        "truth": "SymPy syntax over the library of truths (`derive/truths/`; `dpderive init` lists them), "
                 "e.g. `\"Renyi(Gaussian(1/sigma), alpha)\"`",
    }

    def read(self, r):
        if r.spec["side"] not in ("upper", "lower", "equal"):
            raise r.error(f"side={r.spec['side']!r} must be upper, lower or equal")
        return {"bound": r.parse("bound"), "side": r.spec["side"], "truth": r.truth("truth")}

    def printed(self, s):
        return s["bound"]

    def statement(self, s):
        return f"{s['side']} bound on {s['truth']}" if s["side"] != "equal" else f"equals {s['truth']}"

    def infinite(self, kw):
        """An upper bound oo holds; a lower bound oo says the truth is oo everywhere."""
        sign = is_inf(kw["bound"])
        if not sign:
            return None
        side = kw["side"]
        if (side == "upper" and sign == 1) or (side == "lower" and sign == -1):
            return Verdict("proved", "every extended real is <= oo and >= -oo")
        return kw["truth"], sign

    def check(self, dom, **kw):
        return check_bound(kw["bound"], kw["side"], kw["truth"], dom, kw.get("pair_note", ""))
