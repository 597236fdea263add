"""Errors shared by every layer, importable without SymPy (numeric commands never load it)."""
from __future__ import annotations


class DomainError(ValueError):
    """A value outside a parameter's allowed range (names the parameter)."""

    def __init__(self, name: str, value, allowed: str):
        self.name, self.value, self.allowed = name, value, allowed
        super().__init__(f"{name}={value!r} is outside the allowed range: {allowed}")
