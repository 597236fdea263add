"""The registry index on disk: what ``dpderive list``, ``show`` and a warm ``check`` print of the
built-in papers, read without importing the paper modules or SymPy.

Loading the seed papers builds several hundred SymPy objects (parsing, substitution, claim
definitions) and takes seconds; listing them or printing cached verdicts needs none of that.  So
once the papers have been loaded, one pickle keeps, for every paper, formula and claim, what the
commands print (titles; each formula's location and role; each claim's location, kind, verdict
cache key and the verdict-independent part of its ``--json`` record), under
``$DPDERIVE_CACHE/index/``.  It is keyed like the verdicts (``dpderive.execution.verdict_key``):
by the source of the paper packages and the engine (every file under ``derive/``), of the
commands that read it (this module, ``cli.py``, ``render.py``, ``execution.py``), the SymPy and
mpmath releases and Python's version; files outside ``derive/`` that a claim's check lives in are
listed in the index with their digests and checked on every read.  Any change rebuilds it on the
next command that loads the papers.

Beside it, ``$DPDERIVE_CACHE/records/`` keeps, for each cached verdict (same key), the verdict as
the record and ``show`` print it (``derive.core.verdict_view``: plain values, the derived form
typeset), so a warm ``check`` prints byte for byte what a cold one prints without unpickling
SymPy expressions.  ``show FORMULA`` keeps its verdict-independent lines under the index key the
first time it runs.
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

from .execution import DiskCache, files_digest, has_view, put_view, view  # noqa: F401

INDEX_VERSION = "1"
_COMMAND_FILES = ("index.py", "cli.py", "render.py", "execution.py")
_LIBS = (("sympy", "release.py"), ("mpmath", "__init__.py"))


def _derive_root() -> Path:
    spec = importlib.util.find_spec("derive")
    return Path(spec.origin).resolve().parent


def source_files() -> list[Path]:
    """Every file the index depends on: derive/ (papers and engine), the commands reading it,
    and the files carrying the SymPy/mpmath versions (found without importing either)."""
    root = _derive_root()
    out = sorted(p for p in root.rglob("*") if p.suffix in (".py", ".json")
                 and "__pycache__" not in p.parts and p.is_file())
    here = Path(__file__).resolve().parent
    out += [here / n for n in _COMMAND_FILES]
    for pkg, fname in _LIBS:
        spec = importlib.util.find_spec(pkg)
        if spec is not None and spec.submodule_search_locations:
            out.append(Path(list(spec.submodule_search_locations)[0]) / fname)
    return out


_KEY: str | None = None


def index_key() -> str:
    global _KEY
    if _KEY is None:
        h = hashlib.sha256()
        for part in (INDEX_VERSION, files_digest(source_files()), sys.version):
            h.update(str(part).encode() + b"\0")
        _KEY = h.hexdigest()
    return _KEY


def _sub_key(*parts: str) -> str:
    h = hashlib.sha256()
    for part in (index_key(),) + parts:
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def _outside(paths, root: Path) -> list[str]:
    return sorted(str(p) for p in paths if root not in Path(p).resolve().parents)


def build() -> dict | None:
    """Index the registry as loaded now (every seed paper, no claim file) and store it;
    None (nothing stored) when a claim file is registered or a seed paper is missing."""
    from derive import registry
    from derive.papers import PAPER_MODULES

    from .execution import claim_files, verdict_key
    if any("file" in p for p in registry.PAPERS.values()) or not set(PAPER_MODULES) <= set(registry.PAPERS):
        return None
    root = _derive_root()
    external: set[str] = set()
    claims = {}
    for cid, c in registry.CLAIMS.items():
        external.update(_outside(claim_files(c), root))
        claims[cid] = {"paper": c.paper, "location": c.source.location, "kind": c.kind,
                       "key": verdict_key(c), "static": c.static_record()}
    idx = {"version": INDEX_VERSION,
           "papers": {k: dict(v) for k, v in registry.PAPERS.items()},
           "formulas": {n: {"paper": f.paper, "location": f.source.location, "role": f.role}
                        for n, f in registry.FORMULAS.items()},
           "claims": claims,
           "external": {p: files_digest([p]) for p in sorted(external)}}
    DiskCache("index").put(index_key(), idx)
    return idx


def load() -> dict | None:
    """The index of the current source, or None (not built yet, or stale)."""
    try:
        key = index_key()
    except OSError:
        return None
    idx = DiskCache("index").get(key)
    if not isinstance(idx, dict) or idx.get("version") != INDEX_VERSION:
        return None
    try:
        if any(files_digest([p]) != d for p, d in idx["external"].items()):
            return None
    except OSError:
        return None
    return idx


def load_or_build() -> dict:
    """The index; built (loading every seed paper) when missing."""
    idx = load()
    if idx is None:
        from derive import registry
        registry.load_all()
        idx = build()
        if idx is None:
            raise RuntimeError("the registry index cannot be built while claim files are loaded")
    return idx


# ----------------------------------------------------------------------------- verdict views
# the store of the verdict views lives beside the verdict cache (``dpderive.execution``, which
# fills both: no import from it back to this module)


def records(idx: dict, ids: list[str]) -> list[dict] | None:
    """The ``--json`` records of the claims ``ids`` from the index and the verdict views; None
    when any verdict is not cached."""
    from derive.records import assemble_record
    out = []
    for cid in ids:
        c = idx["claims"][cid]
        v = view(c["key"])
        if v is None:
            return None
        out.append(assemble_record(c["static"], v))
    return out


def claim_ids(idx: dict, paper: str | None) -> list[str]:
    """The claims of ``paper`` (None: all) in registration order, as ``registry.claims``."""
    return [cid for cid, c in idx["claims"].items() if paper is None or c["paper"] == paper]


# ----------------------------------------------------------------------------- show FORMULA

def formula_lines(name: str) -> dict | None:
    got = DiskCache("index").get(_sub_key("show", name))
    return got if isinstance(got, dict) else None


def put_formula_lines(name: str, entry: dict) -> None:
    DiskCache("index").put(_sub_key("show", name), entry)
