r"""Claim files: a paper's bounds and claims as a short declarative TOML file.

A researcher describes *what the paper says*; the generic checkers of
``derive.checkers`` decide whether it holds.  No Python is needed for the
claim kinds below.  The format (``dpderive init NAME`` writes a commented
template; ``examples/rdp_facts.toml`` is a worked example)::

    [paper]
    key = "rdp_facts"                    # the id prefix of every formula and claim
    title = "A handful of Renyi-DP facts"
    citation = "Mironov 2017, Renyi Differential Privacy"
    source = "mironov2017.pdf"           # the document locations refer to
    tex = "paper.tex"                    # optional: pull formulas by \label

    [symbols]                            # every symbol the LaTeX uses, with its domain
    alpha = "(1, oo)"
    sigma = { domain = "(0, oo)", search = [0.05, 100] }   # search: where numbers are tried
    T = { domain = "[1, oo)", integer = true }

    [formulas.gauss_rdp]                 # optional: a named formula, referenced as "@gauss_rdp"
    where = "Prop. 7"
    latex = '\frac{\alpha}{2\sigma^2}'   # or: label = "eq:gauss" (from the tex file)
    role = "definition"

    [[claim]]
    id = "gauss_rdp"
    where = "Prop. 7"                    # the location in the paper
    kind = "bound"                       # see derive.kinds
    side = "equal"
    bound = "@gauss_rdp"
    truth = "Renyi(Gaussian(1/sigma), alpha)"   # derive.truths names (dpderive init lists them)

Kinds and their fields (LaTeX unless said otherwise; ``@name`` is a formula):
``identity`` (lhs, rhs, or latex = 'A = B'), ``inequality`` (lhs, op, rhs, or
latex = 'A \le B'), ``derivative`` (of, wrt, equals, order), ``monotone`` (of,
in, direction), ``convex``/``concave`` (of, in), ``limit`` (of, var, to,
equals, side), ``asymptotic`` (of, approx, error, var, to: of = approx +
O(error)), ``bound`` (bound, side = upper|lower|equal, truth: an expression
over ``derive.truths`` names, in SymPy syntax).  Every claim may add
``conditions`` (a list of LaTeX relations), ``domain`` (narrower domains for
some symbols), ``statement``, ``note`` and ``section``.

Claims about every pair of distributions: ``[pairs] P = { kind = "pmf", points = 3 }``
quantifies over all pairs of pmfs on 3 points (searched through their softmax logits),
and ``[quantities] D = "Renyi(P, alpha)"`` lets the LaTeX say ``D``; a counterexample
names the two pmfs.

Every kind with its fields and a minimal example: ``docs/claim-files.md``, generated from the
kinds' classes (``derive.kinds``: one class per kind holds its fields, their docs, how they are
read and checked) and ``reference.FIELD_DOCS`` for the fields every claim takes
(``python3 -m derive.claimfile --reference --write``).  Domain ends may depend on other symbols (``varepsilon = "[0, 1/b]"``: ``DepInterval``);
declared names of several letters are one name in the LaTeX (``ClaimFile._names_to_commands``).

The package, one module per job: ``loader`` (``ClaimFile``: read, validate, register),
``fields`` (the fields every claim takes, ``ClaimFileError``), ``domains`` (symbols and their
domains), ``text`` (names, relations and labels in the LaTeX), ``pairs`` (claims over every
pair of pmfs) and ``reference`` (the generated reference page and the ``init`` template).

Errors name the file, the line and the claim (``ClaimFileError``, a
``ValueError``: the command line prints one line and exits 2); nothing is
registered unless the whole file is valid.
"""
from __future__ import annotations

from .fields import (  # noqa: F401
    RESERVED_NAMES, COMMON_FIELDS, TEXT_FIELDS, PAPER_FIELDS, CUSTOM_FIELDS, ClaimFileError)
from .domains import (  # noqa: F401
    SymbolSpec, DepInterval, parse_interval)
from .text import (  # noqa: F401
    extract_label)
from .pairs import (  # noqa: F401
    PAIR_SCALE, PAIR_SEED_EPS, PAIR_SEED_EPS_DELTA, pair_coordinates, pair_seeds)
from .loader import (  # noqa: F401
    ClaimFile, load_file)
from .reference import (  # noqa: F401
    FIELD_DOCS, REFERENCE_SYMBOLS, field_doc, example_claim, reference, REFERENCE_PATH, TEMPLATE,
    scaffold)
