"""The import graph follows the layers, has no circle, and every module has a layer.

Layers, bottom up (DESIGN.md): foundation -> machines -> graphs -> metrics -> sim ->
mappers -> search -> front ends (runtime, providers, map files, pictures) -> command line.
A module may import its own layer and the layers below, never one above -- not even
inside a function.  Imports are read from the source with :mod:`ast` (every ``import``
statement, at any depth), so a lazy import counts like one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mpitaskmap"

#: Layer of every module, bottom up: (name, module prefixes).  A module in no entry fails.
LAYERS = [
    ("foundation", ("mpitaskmap._version", "mpitaskmap.errors", "mpitaskmap._validate", "mpitaskmap._options",
                    "mpitaskmap._textio", "mpitaskmap._kernels", "mpitaskmap.curves",
                    "mpitaskmap._torus", "mpitaskmap._percs", "mpitaskmap._mj", "mpitaskmap._graphmap", "mpitaskmap._hops",
                    "mpitaskmap._grid", "mpitaskmap._fluid", "mpitaskmap._ugal")),
    ("machines", ("mpitaskmap.machines",)),
    ("graphs", ("mpitaskmap.graphs",)),
    ("metrics", ("mpitaskmap.metrics", "mpitaskmap.mapping")),
    ("sim", ("mpitaskmap.sim",)),
    ("mappers", ("mpitaskmap.mappers",)),
    ("search", ("mpitaskmap.search",)),
    ("front ends", ("mpitaskmap.mapfiles", "mpitaskmap.viz", "mpitaskmap.providers", "mpitaskmap.runtime")),
    ("command line", ("mpitaskmap.cli", "mpitaskmap.__main__")),
    ("package", ("mpitaskmap",)),
]


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(absolute module name, at module level) of every import in ``path``.

    ``from pkg import x`` counts as an import of ``pkg.x`` when that is a module of the
    package, else of ``pkg``.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = _module_name(path).split(".")
    package = me if path.name == "__init__.py" else me[:-1]
    top = set(map(id, tree.body))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            for a in node.names:
                sub = f"{name}.{a.name}"
                is_module = sub in MODULES or (sub.startswith("mpitaskmap._") and sub.count(".") == 1)
                out.append((sub if is_module else name, id(node) in top))
    return out


def _layer(name: str) -> int | None:
    best, best_len = None, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (name == p or name.startswith(p + ".")) and len(p) > best_len:
                best, best_len = i, len(p)
    return best


def _internal_edges():
    for mod, path in MODULES.items():
        for name, top in _imports(path):
            if name == "mpitaskmap" or name.startswith("mpitaskmap."):
                yield mod, name, top


def test_every_module_has_a_layer():
    assert sorted(m for m in MODULES if _layer(m) is None) == []


def test_the_parser_sees_relative_and_lazy_imports():
    names = dict(_imports(MODULES["mpitaskmap.search.scoring"]))
    assert "mpitaskmap.search.families.geometric" in names and names["mpitaskmap.search.families.geometric"] is True
    # a lazy import inside a function is seen, and marked as not at module level
    assert ("pymetis", False) in _imports(MODULES["mpitaskmap.mappers.graph.greedy"])
    assert ("mpitaskmap.sim.simgrid", False) in _imports(MODULES["mpitaskmap.search.judge"])


def test_the_layer_check_fails_on_an_upward_import(tmp_path):
    # a machine module importing the search would be reported
    assert _layer("mpitaskmap.machines.torus") < _layer("mpitaskmap.search.judge")
    assert _layer("mpitaskmap.sim.fluid") < _layer("mpitaskmap.mappers.graph.greedy")


def test_no_import_runs_up_the_layers():
    up = sorted({(mod, name) for mod, name, _ in _internal_edges() if _layer(name) > _layer(mod)})
    assert up == []


def test_the_import_graph_has_no_circle():
    graph: dict[str, set] = {m: set() for m in MODULES}
    for mod, name, _ in _internal_edges():
        if name in MODULES and name != mod:
            graph[mod].add(name)
    index, low, stack, on, circles = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert circles == []


def test_no_module_imports_a_class_by_its_name_string():
    offenders = []
    for mod, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        if "__name__ in" in text or "cls.__name__" in text or "__class__.__name__ ==" in text:
            offenders.append(mod)
    assert offenders == []


def test_no_algorithm_module_imports_the_map_files():
    below_front = [m for m in MODULES if _layer(m) < _layer("mpitaskmap.mapfiles")]
    assert sorted({(m, n) for m, n, _ in _internal_edges() if m in below_front and
                   (n == "mpitaskmap.mapfiles" or n.startswith("mpitaskmap.mapfiles."))}) == []


def test_only_the_runtime_imports_mpi4py_at_module_level():
    at_top = sorted({mod for mod, path in MODULES.items()
                     for name, top in _imports(path) if top and (name == "mpi4py" or name.startswith("mpi4py."))})
    assert at_top == ["mpitaskmap.runtime.mpi_search", "mpitaskmap.runtime.rank_task",
                      "mpitaskmap.runtime.remapping"]


@pytest.mark.parametrize("family", ["geometric", "graph", "grid", "identity", "percs", "rubik"])
def test_every_family_module_has_candidates_and_apply(family):
    import importlib
    import inspect

    from mpitaskmap.search.scoring import FAMILIES

    module = importlib.import_module(f"mpitaskmap.search.families.{family}")
    assert FAMILIES[family] is module
    assert list(inspect.signature(module.candidates).parameters)[0] == "problem"
    assert list(inspect.signature(module.apply).parameters)[:2] == ["candidate", "problem"]
