"""Issue 22: no import cycle in dpderive/ (cli.py and sweep_cli.py once imported each other).
A static scan of every import statement, at module level and inside functions (a deferred
import still ties the two modules together), between the modules of the package."""
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
                deps.add(m)
                deps.update(f"{m}.{a.name}" for a in n.names)     # from pkg import module
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
