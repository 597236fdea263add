"""Plotting: the command line's trade-off plots (one recipe for ``tradeoff``, ``tv`` and ``region``)
and the style, saving and number format the papers' figure modules share (``FIGURES`` of each
paper package, ``derive.papers.*.figures``).  matplotlib with the Agg backend, imported only when
a plot is drawn."""
from __future__ import annotations


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def figure_style() -> None:
    """The reports' figure style (deterministic output: a fixed SVG hash salt, Type 42 fonts)."""
    import matplotlib
    matplotlib.rcParams.update({"svg.hashsalt": "dpderive", "pdf.fonttype": 42,
                                "font.size": 9, "figure.figsize": (4.2, 3.0),
                                "axes.grid": True, "grid.alpha": 0.3})


def save_pdf(fig, outdir, name: str) -> str:
    """Write ``fig`` to ``outdir/name`` as a PDF without dates (byte-reproducible); close it."""
    fig.tight_layout()
    fig.savefig(outdir / name, format="pdf", metadata={"CreationDate": None, "ModDate": None})
    _pyplot().close(fig)
    return name


def fmt(x, d: int = 4) -> str:
    """A number for a caption or table: ``d`` significant digits."""
    return f"{x:.{d}g}"


def start_build(outdir, progress=None, setup=None):
    """The prologue of a figures module's ``build``: the output folder (created), the progress
    callback, the style (``setup()``), the clock and the three result lists.
    Returns (outdir, say, t0, figures, tables, findings)."""
    import pathlib
    import time
    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    if setup is not None:
        setup()
    return outdir, progress or (lambda s: None), time.perf_counter(), [], [], []


def tradeoff_plot(path, curves, *, size, xlabel="type I error", ylabel="type II error", title=None,
                  title_size=9, legend_size=7, unit_box=False) -> None:
    """Write ``curves`` (a list of ``(x, y, matplotlib keyword arguments)``) to ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=size)
    for x, y, kw in curves:
        ax.plot(x, y, **kw)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if unit_box:
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    if title:
        ax.set_title(title, fontsize=title_size)
    ax.legend(fontsize=legend_size)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
