"""dpderive's symbolic side: formulas defined once, claims checked independently.

The names below load on first use, so that ``derive.errors`` (and the numeric commands
that only need ``DomainError``) never import SymPy."""
from __future__ import annotations

import importlib

_EXPORTS = {"Claim": "core", "Formula": "core", "Source": "core", "Verdict": "core",
            "DomainError": "errors", "latex": "printing", "claim": "registry", "claims": "registry",
            "formula": "registry", "formulas": "registry", "load_all": "registry", "PAPERS": "registry"}
__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'derive' has no attribute {name!r}")
