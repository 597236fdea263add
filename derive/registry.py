"""Look formulas and claims up by name and by paper."""
from __future__ import annotations

import importlib

from .core import Claim, Formula

PAPERS: dict[str, dict] = {}
FORMULAS: dict[str, Formula] = {}
CLAIMS: dict[str, Claim] = {}


def register_paper(key: str, *, title: str, seeds: tuple[str, ...], citation: str) -> None:
    PAPERS[key] = {"key": key, "title": title, "seeds": seeds, "citation": citation}


def add_formula(f: Formula) -> Formula:
    if f.name in FORMULAS:
        raise ValueError(f"formula {f.name!r} registered twice")
    FORMULAS[f.name] = f
    return f


def add_claim(c: Claim) -> Claim:
    if c.id in CLAIMS:
        raise ValueError(f"claim {c.id!r} registered twice")
    CLAIMS[c.id] = c
    return c


def formula(name: str) -> Formula:
    load_paper(name.split(".", 1)[0])
    try:
        return FORMULAS[name]
    except KeyError:
        raise KeyError(f"no formula named {name!r}; `dpderive list` shows them") from None


def claim(cid: str) -> Claim:
    load_paper(cid.split(".", 1)[0])
    try:
        return CLAIMS[cid]
    except KeyError:
        raise KeyError(f"no claim named {cid!r}; `dpderive list` shows them") from None


def formulas(paper: str | None = None) -> list[Formula]:
    load_paper(paper) if paper is not None else load_all()
    return [f for f in FORMULAS.values() if paper is None or f.paper == paper]


def claims(paper: str | None = None) -> list[Claim]:
    load_paper(paper) if paper is not None else load_all()
    if paper is not None and paper not in PAPERS:
        raise KeyError(f"no paper {paper!r}; known: {', '.join(sorted(PAPERS))}")
    return [c for c in CLAIMS.values() if paper is None or c.paper == paper]


def load_paper(key: str) -> None:
    """Import one paper's module (registering its formulas and claims); papers load
    lazily so that a command needing one formula does not parse every paper."""
    from .papers import PAPER_MODULES
    if key in PAPER_MODULES:
        importlib.import_module(f"derive.papers.{key}")


def load_all() -> None:
    from .papers import PAPER_MODULES
    for key in PAPER_MODULES:
        load_paper(key)
