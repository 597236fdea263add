"""A claim's ``--json`` record from its two parts, without SymPy: the verdict-independent fields
(``Claim.static_record()``) and the verdict as printed (``derive.core.verdict_view``).  Kept apart
from ``derive.core`` so that ``dpderive``'s warm paths (dpderive/index.py) assemble records
without importing SymPy."""
from __future__ import annotations

VERDICT_FIELDS = ("verdict", "method", "derived_latex", "counterexample", "points", "worst_error", "precision",
                  "certificate")


def assemble_record(static: dict, view: dict) -> dict:
    """``Claim.record()`` from ``Claim.static_record()`` and ``verdict_view`` of the verdict."""
    rec = dict(static)
    for k in VERDICT_FIELDS:
        rec[k] = view.get(k)
    rec["note"] = "; ".join(x for x in (view["verdict_note"], static["note"]) if x)
    if view.get("steps"):             # a derivation's steps (``kind = "derivation"``)
        rec["steps"] = view["steps"]
    return rec
