"""Look formulas and claims up by name and by paper.

The registry knows no paper by name.  A *source* is a paper key and the module that registers
its formulas and claims on import; sources are added by ``add_source`` (the seed papers'
package does so for each of its papers when the application imports it: ``import
derive.papers``) or declared as entry points of the group ``dpderive.papers`` (``key =
"package.module"``) by any installed distribution.  Modules load lazily, on the first lookup
of one of their names.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .errors import DomainError

if TYPE_CHECKING:                 # the registry itself imports no SymPy (the accountant CLI imports it)
    from .core import Claim, Formula

PAPERS: dict[str, dict] = {}
FORMULAS: dict[str, "Formula"] = {}
CLAIMS: dict[str, "Claim"] = {}
SOURCES: dict[str, str] = {}      # paper key -> the module registering it on import
ENTRY_POINT_GROUP = "dpderive.papers"
_DISCOVERED = False


def add_source(key: str, module: str) -> None:
    """Declare that importing ``module`` registers paper ``key`` (loaded on first use)."""
    if SOURCES.get(key, module) != module:
        raise ValueError(f"paper key {key!r} is already provided by {SOURCES[key]!r}")
    SOURCES[key] = module


def source_module(key: str) -> str | None:
    """The module that provides paper ``key`` (None for an unknown key)."""
    _discover()
    return SOURCES.get(key)


def _discover() -> None:
    """Add the sources that installed distributions declare as ``dpderive.papers`` entry points."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    from importlib.metadata import entry_points
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        SOURCES.setdefault(ep.name, ep.value)


def source_keys() -> tuple[str, ...]:
    """The keys of every known source (built-in or installed), in the order they were added."""
    _discover()
    return tuple(SOURCES)


def register_paper(key: str, *, title: str, seeds: tuple[str, ...], citation: str) -> None:
    PAPERS[key] = {"key": key, "title": title, "seeds": seeds, "citation": citation}


def add_formula(f: "Formula") -> "Formula":
    if f.name in FORMULAS:
        raise ValueError(f"formula {f.name!r} registered twice")
    FORMULAS[f.name] = f
    return f


def add_claim(c: "Claim") -> "Claim":
    if c.id in CLAIMS:
        raise ValueError(f"claim {c.id!r} registered twice")
    CLAIMS[c.id] = c
    return c


class UnknownName(DomainError, KeyError):
    """No formula or claim of that name: a ``DomainError`` (so a ``ValueError``, as every bad
    input of the library) and a ``KeyError`` (as a lookup that misses)."""

    def __init__(self, what: str, name, known: str = ""):
        DomainError.__init__(self, what, name, "a registered name; `dpderive list` shows them")
        self.message = f"no {what} named {name!r}; " + (f"known: {known}" if known else
                                                         "`dpderive list` shows them")

    def __str__(self):
        return self.message


def _lookup(table: dict, name: str, what: str):
    if not isinstance(name, str):
        raise DomainError(what, name, f"a {what} name (a string such as 'paper.id')")
    load_paper(name.split(".", 1)[0])
    try:
        return table[name]
    except KeyError:
        raise UnknownName(what, name) from None


def formula(name: str) -> "Formula":
    return _lookup(FORMULAS, name, "formula")


def claim(cid: str) -> "Claim":
    return _lookup(CLAIMS, cid, "claim")


def _paper(paper) -> None:
    """Load ``paper`` (a key), or every paper for None; ``UnknownName`` for any other key."""
    if paper is None:
        load_all()
        return
    if not isinstance(paper, str):
        raise DomainError("paper", paper, "a paper key (a string) or None")
    load_paper(paper)
    if paper not in PAPERS:
        raise UnknownName("paper", paper, ", ".join(sorted(set(PAPERS) | set(source_keys()))))


def formulas(paper: str | None = None) -> list[Formula]:
    _paper(paper)
    return [f for f in FORMULAS.values() if paper is None or f.paper == paper]


def claims(paper: str | None = None) -> list[Claim]:
    _paper(paper)
    return [c for c in CLAIMS.values() if paper is None or c.paper == paper]


def load_paper(key: str) -> None:
    """Import one source's module (registering its formulas and claims); sources load
    lazily so that a command needing one formula does not parse every paper."""
    _discover()
    if key in SOURCES:
        importlib.import_module(SOURCES[key])


def load_all() -> None:
    for key in source_keys():
        load_paper(key)
