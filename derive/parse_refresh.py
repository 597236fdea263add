"""Refresh the committed parse cache (maintainers): ``python -m derive.parse_refresh``.

Parses everything the built-in papers, ``examples/*.toml``, ``benchmarks/corpus/*.toml`` and
``benchmarks/corpus/papers/*.toml`` need and writes ``derive/parse_cache.json``.  A module of its
own because it loads claim files, which parse (``derive.parse`` stays below ``derive.claimfile``)."""
from __future__ import annotations

import argparse
import glob
from pathlib import Path

from . import parse as P


def refresh_committed(claim_files=(), include_user: bool = False) -> int:
    """Parse everything the built-in papers and ``claim_files`` need and write the committed
    cache (its entries of this version kept, this run's misses added; ``include_user``: the
    user's cache too, e.g. after a test run).  Returns the number of entries written."""
    from . import registry
    from .claimfile import load_file
    P._cache()
    registry.load_all()
    for f in claim_files:
        load_file(f)
    entries = {**P._read(P._CACHE_FILE), **(P._read(P._user_file()) if include_user else {}), **P._NEW}
    P._write(P._CACHE_FILE, entries)
    P._NEW.clear()
    return len(entries)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m derive.parse_refresh",
                                 description="refresh the committed parse cache (maintainers)")
    ap.add_argument("--include-user", action="store_true",
                    help="also fold in the user's cache ($DPDERIVE_CACHE/parse), e.g. of a test run")
    a = ap.parse_args(argv)
    root = Path(__file__).resolve().parent.parent
    files = sorted(glob.glob(str(root / "examples" / "*.toml")) + glob.glob(str(root / "benchmarks" / "corpus" / "*.toml"))
                   + glob.glob(str(root / "benchmarks" / "corpus" / "papers" / "*.toml")))
    n = refresh_committed(files, a.include_user)
    print(f"wrote {P._CACHE_FILE} ({n} entries)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
