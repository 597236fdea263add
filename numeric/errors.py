"""User errors, kept apart from bugs.

* ``UserInputError``: the user's input is invalid (a value outside a parameter's allowed
  range, two flags that exclude each other, a malformed spec).  It names the parameter, the
  value and the allowed range.  A ``DomainError`` (so a ``ValueError``): code that catches
  those keeps working.  The command line prints it in one line and exits 2.
* ``SearchLimitError``: a calibration whose answer lies beyond the range it searches (the
  limit is named, never reported as the answer).  A ``UserInputError``: the target is out
  of reach; exit 2.
* ``ConvergenceError`` (``numeric.solvers``): a solver did not reach its tolerance on valid
  input.  The command line names the query and exits 2.

Anything else escaping a computation is a bug (exit status 70 on the command line): a
``DomainError`` raised deep inside the accountant on a value it computed itself (alpha = nan,
...) is *not* the user's fault.  At the boundary, where the user's own values are turned into
objects (``user_input()``), a ``DomainError`` is the user's and becomes a ``UserInputError``.
"""
from __future__ import annotations

from derive.errors import DomainError

from .solvers import ConvergenceError

__all__ = ["UserInputError", "SearchLimitError", "ConvergenceError", "DomainError", "user_input"]


class UserInputError(DomainError):
    """Invalid user input: ``name``, ``value`` and ``allowed`` (the allowed range)."""


class SearchLimitError(UserInputError):
    """A calibration target not met within the searched range (names the limit)."""


class user_input:
    """Within this block the values are the user's own: a ``DomainError`` raised while turning
    them into objects (``Gaussian(sigma)``, ``Event(count)``, the neighbouring relation's
    check) is re-raised as ``UserInputError`` with the same name, value and allowed range.
    (A class, not a generator-based context manager: every query enters it, and
    ``contextlib``'s machinery was 4% of a 60 us RDP query.)"""

    def __enter__(self):
        return self

    def __exit__(self, typ, exc, tb):
        if isinstance(exc, DomainError) and not isinstance(exc, UserInputError) \
                and hasattr(exc, "name") and hasattr(exc, "allowed"):
            raise UserInputError(exc.name, exc.value, exc.allowed) from None
        return False
