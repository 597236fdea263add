"""How the command line reports a failure: one line on stderr and an exit status.

=====  ======================================================================================
exit   meaning
=====  ======================================================================================
0      answered (a finite value, or a non-finite one stated as such: ``epsilon = inf (...)``)
2      the user's input: a bad flag or value (``UserInputError``, ``CLIError``, a claim file
       or formula that does not parse, a route that cannot account the events asked of it),
       a calibration target beyond the searched range (``SearchLimitError``), or a solver that
       did not converge on this query (``ConvergenceError``; the message names the query)
70     a bug in dpderive (any other exception): one line saying so; ``--debug`` (or
       ``DPDERIVE_DEBUG=1``) shows the traceback
=====  ======================================================================================

Commands not yet validated through ``numeric.errors.UserInputError`` (``tradeoff``,
``region``, ``tv``, ``list``/``show``/``check``/``report``/``init``) still report a
``DomainError`` as the user's (exit 2); the accountant's commands (``epsilon``, ``delta``,
``calibrate``, ``sweep``) validate their input once, so a ``DomainError`` escaping their
computation is a bug (exit 70).  Imports nothing heavy (no NumPy).
"""
from __future__ import annotations

import argparse
import sys

EXIT_OK, EXIT_USER, EXIT_BUG = 0, 2, 70


class CLIError(Exception):
    """A usage error found by the command line itself (one line, exit 2)."""


class _StoreOnce(argparse._StoreAction):
    """``store``, refusing a second value: ``--sigma 1 --sigma 2`` is ambiguous, not "2"."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = namespace.__dict__.setdefault("_given_flags", set())
        if self.dest in seen:
            raise CLIError(f"{parser.prog}: {option_string} is given twice (or with a flag of the "
                           "same meaning); give it once")
        seen.add(self.dest)
        setattr(namespace, self.dest, values)


class Parser(argparse.ArgumentParser):
    """argparse whose errors raise ``CLIError`` (one line, exit 2) instead of exiting, and whose
    flags each take one value (a flag given twice is refused, never silently overwritten)."""

    def add_argument(self, *args, **kwargs):
        if args and args[0].startswith("-") and kwargs.get("action", "store") == "store":
            kwargs["action"] = _StoreOnce
        return super().add_argument(*args, **kwargs)

    def error(self, message):
        raise CLIError(f"{self.prog}: {message}")


def _first_line(exc) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def classify(exc, strict: bool) -> tuple[int, str]:
    """(exit status, the one line to print) for an exception that reached ``main``.
    ``strict``: the command validated its input once (a stray ``DomainError`` is a bug)."""
    from derive.errors import DomainError
    user = [CLIError]
    for mod, names in (("numeric.errors", ("UserInputError",)), ("numeric.events", ("RouteError",)),
                       ("derive.claimfile", ("ClaimFileError",)), ("derive.parse", ("ParseError",)),
                       ("dpderive.sweep_cli", ("SweepError",))):
        m = sys.modules.get(mod)
        user += [getattr(m, n) for n in names if m is not None and hasattr(m, n)]
    if not strict:
        user.append(DomainError)
    if isinstance(exc, tuple(user)):
        return EXIT_USER, f"error: {_first_line(exc)}"
    conv = sys.modules.get("numeric.solvers")
    if conv is not None and isinstance(exc, conv.ConvergenceError):
        query = getattr(exc, "query", None)
        return EXIT_USER, ("error: no convergence" + (f" for `{query}`" if query else "")
                           + f": {_first_line(exc)}")
    return EXIT_BUG, (f"internal error (a bug in dpderive, not your input): "
                      f"{type(exc).__name__}: {_first_line(exc)}; rerun with --debug for the "
                      "traceback")
