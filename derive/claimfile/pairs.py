"""Claims over every pair of pmfs: the coordinates a ``[pairs]`` entry is searched in (softmax
logits and a scale) and the seed pairs every search starts from (randomized response, the
canonical (eps, delta) pair)."""
from __future__ import annotations

import sympy as sp



#: the search range of a pmf pair's scale s: Q's logits are P's plus s d with d in [-1, 1]^k, so the
#: pairs searched run from nearly identical (max-divergence ~ 1e-4) to far apart (~ 16), log-evenly
PAIR_SCALE = (1e-4, 8.0)
#: the max-divergences of the randomized-response seeds, and the (eps, delta) of the canonical pair's
PAIR_SEED_EPS = (1e-3, 1e-2, 0.1, 0.5, 1.0, 2.0, 4.0)
PAIR_SEED_EPS_DELTA = ((0.1, 1e-3), (1.0, 1e-3), (1.0, 0.1), (0.1, 0.1))
#: the logit of a point a seed pmf leaves (nearly) empty
_EMPTY_LOGIT = -40.0


def _user_name(name: str) -> str:
    """A name as the user wrote it in LaTeX: a command for a Greek letter or ``ell`` (``\\ell``)."""
    base = name.split("_")[0]
    if base in _LATEX_LETTERS:
        return "\\" + name
    return name


_LATEX_LETTERS = {"alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta", "iota",
                  "kappa", "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "varphi",
                  "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Phi", "Psi",
                  "Omega", "ell"}


def pair_coordinates(name: str, k: int):
    """The search coordinates of a pair of pmfs on k points: P's logits u (softmax), the direction d
    of Q's logits from them and the scale s (Q's logits are u + s d)."""
    u = [sp.Symbol(f"{name}_u{i}", real=True) for i in range(1, k + 1)]
    d = [sp.Symbol(f"{name}_d{i}", real=True) for i in range(1, k + 1)]
    return u, d, sp.Symbol(f"{name}_s", positive=True)


def _pair_coverage(pairs: dict, dom) -> str:
    """The method's words on which pairs the search covered (the max-divergence range of its scale)."""
    names = [n for n in pairs if any(v.name == f"{n}_s" for v in dom.vars)]
    if not names:
        return ""
    lo, hi = PAIR_SCALE
    eps = ", ".join(f"{e:g}" for e in PAIR_SEED_EPS)
    return (f"pairs {', '.join(names)} searched from nearly identical to far apart (max-divergence about "
            f"{lo:g} to {2 * hi:g}, log-evenly), with randomized response at max-divergence {eps} and the "
            f"canonical (eps, delta) pair as seeds")


def _seed_point(name: str, P_logits, Q_logits) -> dict:
    """The coordinates (u, d, s) of the pair with these logits."""
    delta = [q - p for p, q in zip(P_logits, Q_logits)]
    s = max(max(abs(x) for x in delta), PAIR_SCALE[0])
    pt = {f"{name}_u{i}": p for i, p in enumerate(P_logits, 1)}
    pt.update({f"{name}_d{i}": x / s for i, x in enumerate(delta, 1)})
    pt[f"{name}_s"] = s
    return pt


def pair_seeds(name: str, k: int) -> list[dict]:
    """The pairs the literature names as extremal, embedded on k points (the other points nearly
    empty), as seeds of the search: randomized response at each max-divergence of PAIR_SEED_EPS (the
    worst case of eps-DP: Kairouz, Oh and Viswanath 2015) and, on 3 points the (0, delta) pair, on 4
    or more the canonical (eps, delta) pair (Kairouz et al. 2015; Murtagh and Vadhan 2016)."""
    import math
    pad = [_EMPTY_LOGIT] * (k - 2)
    out = [_seed_point(name, [e / 2, -e / 2] + pad, [-e / 2, e / 2] + pad) for e in PAIR_SEED_EPS]
    for e, dl in PAIR_SEED_EPS_DELTA:
        lg = lambda x: math.log(x) if x > 0 else _EMPTY_LOGIT   # noqa: E731
        if k >= 4:
            hi, lo = (1 - dl) * math.exp(e) / (1 + math.exp(e)), (1 - dl) / (1 + math.exp(e))
            P = [lg(dl), lg(hi), lg(lo), _EMPTY_LOGIT] + [_EMPTY_LOGIT] * (k - 4)
            Q = [_EMPTY_LOGIT, lg(lo), lg(hi), lg(dl)] + [_EMPTY_LOGIT] * (k - 4)
        elif k == 3:
            P, Q = [lg(dl), lg(1 - dl), _EMPTY_LOGIT], [_EMPTY_LOGIT, lg(1 - dl), lg(dl)]
        else:
            continue
        out.append(_seed_point(name, P, Q))
    return out
