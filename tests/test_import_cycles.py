"""Issues 22 and 33: no import cycle in dpderive/, numeric/ or derive/ (cli.py and sweep_cli.py
once imported each other; numeric.accountant reached up to numeric.account; derive.parse to
derive.claimfile).  A static scan of every import statement, at module level and inside
functions (a deferred import still ties the two modules together), between the modules of the
package.  ``from pkg import sub`` of a submodule ties the importer to ``sub`` alone (Python runs
pkg/__init__.py first whatever the importer, so that is no edge to the package's own names)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def import_graph(package: str) -> dict:
    """module -> the modules of ``package`` it imports (any import statement in its source)."""
    mods = {}
    for f in (ROOT / package).rglob("*.py"):
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    graph = {}
    for name, f in mods.items():
        base = name.split(".") if f.name == "__init__.py" else name.split(".")[:-1]
        deps = set()
        for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(n, ast.Import):
                deps.update(a.name for a in n.names)
            elif isinstance(n, ast.ImportFrom):
                m = n.module or ""
                if n.level:
                    m = ".".join(base[:len(base) - n.level + 1] + ([n.module] if n.module else []))
                subs = {f"{m}.{a.name}" for a in n.names} & mods.keys()   # from pkg import module
                deps.update(subs)
                if len(subs) < len(n.names):      # a name defined by the module (or pkg/__init__.py) itself
                    deps.add(m)
        graph[name] = {d for d in deps if d in mods and d != name}
    return graph


def cycles(graph: dict) -> list:
    """The back edges' cycles found by depth-first search (empty iff the graph is acyclic)."""
    out, state = [], {}

    def visit(u, stack):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                out.append(stack[stack.index(v):] + [v])
            elif v not in state:
                visit(v, stack)
        stack.pop()
        state[u] = 2
    for u in sorted(graph):
        if u not in state:
            visit(u, [])
    return out


def test_no_import_cycle_in_dpderive():
    graph = import_graph("dpderive")
    assert "dpderive.cli" in graph and "dpderive.sweep_cli" in graph
    assert cycles(graph) == []


def test_the_scan_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_numeric_and_derive():
    for package, anchor in (("numeric", "numeric.account"), ("derive", "derive.claimfile")):
        graph = import_graph(package)
        assert anchor in graph
        assert cycles(graph) == [], package


def test_the_scanner_sees_a_planted_cycle(tmp_path, monkeypatch):
    pkg = tmp_path / "plantpkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import a\n")
    (pkg / "a.py").write_text("def f():\n    from .sub import b\n    return b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from ..a import f\n")
    (pkg / "c.py").write_text("from . import a\n")              # a submodule: no edge to __init__
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    graph = import_graph("plantpkg")
    assert graph["plantpkg.c"] == {"plantpkg.a"}
    assert cycles(graph) == [["plantpkg.a", "plantpkg.sub.b", "plantpkg.a"]]
