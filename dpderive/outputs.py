"""The files and folders a command writes, checked before it computes anything.

A plot to a missing folder, a plot format matplotlib cannot write or a report folder under a
file is the user's input (one line, exit 2), found before a long computation, never an
``OSError`` after it.  Imports nothing heavy (no NumPy, no matplotlib).
"""
from __future__ import annotations

import os
from pathlib import Path

from .errors import CLIError

#: what ``--plot FILE`` can write (matplotlib's Agg backend; by the file's extension)
PLOT_FORMATS = (".png", ".pdf", ".svg", ".svgz", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff",
                ".webp", ".pgf")


def check_file(flag: str, path: str, formats: tuple[str, ...] | None = None) -> None:
    """``path`` can be written as a file by ``flag``: a name in an existing, writable folder,
    not a folder itself, with one of ``formats`` as its extension (when given)."""
    if not path or not path.strip():
        raise CLIError(f"{flag}={path!r}: a file name is needed")
    p = Path(path)
    if formats is not None and p.suffix.lower() not in formats:
        raise CLIError(f"{flag}={path!r}: the extension must be one of {', '.join(formats)}")
    if p.is_dir():
        raise CLIError(f"{flag}={path!r} is a folder; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise CLIError(f"{flag}={path!r}: the folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK):
        raise CLIError(f"{flag}={path!r}: the folder {str(parent)!r} is not writable")


def check_folder(flag: str, path: str) -> None:
    """``path`` is a folder that exists or can be made: its nearest existing ancestor is a
    writable folder (not a file)."""
    if not path or not path.strip():
        raise CLIError(f"{flag}={path!r}: a folder name is needed")
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise CLIError(f"{flag}={path!r} is a file, not a folder")
    q = p
    while not q.exists():
        if q.parent == q:
            break
        q = q.parent
    if q.exists() and not q.is_dir():
        raise CLIError(f"{flag}={path!r}: {str(q)!r} is a file, not a folder")
    if q.exists() and not os.access(q, os.W_OK | os.X_OK):
        raise CLIError(f"{flag}={path!r}: the folder {str(q)!r} is not writable")


def check_args(args) -> None:
    """The output files and folders of any command's parsed ``args`` (``--plot``; ``report
    --out``'s folder; ``sweep --out``'s file is checked by the sweep, which knows its
    formats)."""
    if getattr(args, "plot", None) is not None:
        check_file("--plot", args.plot, PLOT_FORMATS)
    if getattr(args, "command", None) == "report" and args.out is not None:
        check_folder("--out", args.out)
