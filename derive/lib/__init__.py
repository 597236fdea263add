"""The library papers use and never own.

``derive/`` outside ``derive/papers/`` is the library: one symbol table with one set of domains
(``derive.symbols``), the named functions as SymPy ``Function`` nodes that carry their
definition, derivative, LaTeX and NumPy/mpmath printers (``derive.functions``), the mechanisms'
definitions (``derive.mechanisms``), the truths, the checking engine, and here the **named
quantities**: each a SymPy definition (Rationals, the textbook form) with, where the textbook
form loses precision in floats, a *stable* form written in the printable nodes (``log1p``,
``expm1``, ``logaddexp``, ``LogPhi``, ``Log1mExp``, ...).  ``numeric/codegen.py`` prints the
stable form (or the definition) of every quantity into ``numeric/_kernels_generated.py``;
``tests/test_library.py`` holds the two forms equal and checks that nothing in the library or
in ``numeric/`` imports ``derive.papers`` or names a paper.

Each quantity is also a SymPy ``Function`` node (``quantity(name).function``): unevaluated in
expressions, ``doit`` gives the definition, ``diff`` differentiates it, its LaTeX is its name,
and lambdify prints its stable form.

A paper's printed formula is a *claim* about a library quantity ("printed = library"), checked
like any claim; the library never names the paper.

    >>> from derive import lib
    >>> q = lib.quantity("gaussian_rdp")
    >>> q.args, q.expr
    ((alpha, sigma), alpha/(2*sigma**2))
"""
from __future__ import annotations

from .quantities import QUANTITIES, Quantity, quantity

__all__ = ["QUANTITIES", "Quantity", "quantity"]
