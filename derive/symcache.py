"""A memo of SymPy's ``Integral.doit`` in this process.

Evaluating a definite integral (Meijer G, Risch) takes SymPy up to a second, and the claims of Zheng et
al.'s Appendix A and B meet the same few integrals again and again: ``re(I)`` and ``im(I)`` of one
integral are two ``doit`` calls inside one ``simplify``, the truth and the printed side of a claim
and neighbouring claims (``fs.Dj``, ``fs.mDj``, ``fs.rj``, ``eqA_5``) integrate the same integrands.
``doit`` of an integral is a function of the integral and the hints (SymPy expressions are immutable
and compare structurally, symbols with their assumptions), so the memo returns exactly what the call
would; only the repetition goes.  ``install()`` is idempotent; the memo is bounded (cleared when
full) and keyed also by SymPy's global ``evaluate``/``distribute`` switches.
"""
from __future__ import annotations

MAX_ENTRIES = 512
_MEMO: dict = {}
_ORIG = None


def _doit(self, **hints):
    from sympy.core.parameters import global_parameters as gp
    try:
        key = (self, tuple(sorted(hints.items())), gp.evaluate, gp.distribute)
        hash(key)
    except TypeError:                    # an unhashable hint: no memo
        return _ORIG(self, **hints)
    try:
        return _MEMO[key]
    except KeyError:
        pass
    value = _ORIG(self, **hints)
    if len(_MEMO) >= MAX_ENTRIES:
        _MEMO.clear()
    _MEMO[key] = value
    return value


def install() -> None:
    global _ORIG
    import sympy as sp
    if _ORIG is None:
        _ORIG = sp.Integral.doit
        sp.Integral.doit = _doit


def clear() -> None:
    _MEMO.clear()
