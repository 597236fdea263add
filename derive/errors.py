"""Errors shared by every layer, importable without SymPy (numeric commands never load it)."""
from __future__ import annotations


class DomainError(ValueError):
    """A value outside a parameter's allowed range (names the parameter)."""

    def __init__(self, name: str, value, allowed: str):
        self.name, self.value, self.allowed = name, value, allowed
        super().__init__(f"{name}={value!r} is outside the allowed range: {allowed}")


#: Python's names for failures, in the words a user reads (an exception's class name is never
#: shown: it says what broke inside, not what the user can do)
_PLAIN = ((ZeroDivisionError, "a division by zero"),
          (OverflowError, "a number beyond the floating-point range"),
          (FloatingPointError, "a floating-point failure"),
          (MemoryError, "more memory than is available"),
          (RecursionError, "an expression nested too deeply"))
_CLASS_NAME = None


def plain_reason(exc: BaseException) -> str:
    """What went wrong in ``exc``, in one line without any exception class name: the kind of
    failure in words (a division by zero, an overflow, ...) and the first line of its message
    with Python's class names (``SympifyError:``, ``TypeError``, ...) taken out."""
    import re
    global _CLASS_NAME
    if _CLASS_NAME is None:
        _CLASS_NAME = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception|Warning)\b:?\s*")
    text = str(exc).strip()
    msg = _CLASS_NAME.sub("", text.splitlines()[0] if text else "").strip(" :;,")
    for cls, words in _PLAIN:
        if isinstance(exc, cls):
            return f"{words} ({msg})" if msg and msg.lower() not in words else words
    return msg or "an unexpected failure"
