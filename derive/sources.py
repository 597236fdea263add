"""How an author cites each source file: ``SEED_CITES`` (source file -> "Author et al. year"),
read by prose, headings, errata and ``dpderive show``.  The paper packages (``derive.papers``)
and the claim files fill it in: the library names no source.  A module of its own, importing
nothing, so that declaring a paper imports no SymPy (the accountant CLI imports the papers'
package)."""

SEED_CITES: dict[str, str] = {}
