"""A memo of SymPy's ``Integral.doit`` in this process.

Evaluating a definite integral (Meijer G, Risch) takes SymPy up to a second, and the claims of Zheng et
al.'s Appendix A and B meet the same few integrals again and again: ``re(I)`` and ``im(I)`` of one
integral are two ``doit`` calls inside one ``simplify``, the truth and the printed side of a claim
and neighbouring claims (``fs.Dj``, ``fs.mDj``, ``fs.rj``, ``eqA_5``) integrate the same integrands.
``doit`` of an integral is a function of the integral and the hints (SymPy expressions are immutable
and compare structurally, symbols with their assumptions), so the memo returns exactly what the call
would; only the repetition goes.  The memo is in force only inside ``active()`` (``Claim.check``
enters it), so importing dpderive leaves SymPy as it is; the memo itself lives for the process, so
later checks reuse earlier claims' integrals.  It is bounded (cleared when full) and keyed also by
SymPy's global ``evaluate``/``distribute`` switches.
"""
from __future__ import annotations

import contextlib

MAX_ENTRIES = 512
_MEMO: dict = {}
_ORIG = None
_DEPTH = 0


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


@contextlib.contextmanager
def active():
    """``Integral.doit`` memoised inside the block (re-entrant; SymPy's own method restored on
    leaving the outermost block, also when it raises)."""
    global _ORIG, _DEPTH
    import sympy as sp
    if _DEPTH == 0:
        _ORIG = sp.Integral.doit
        sp.Integral.doit = _doit
    _DEPTH += 1
    try:
        yield
    finally:
        _DEPTH -= 1
        if _DEPTH == 0:
            sp.Integral.doit = _ORIG


def clear() -> None:
    _MEMO.clear()
