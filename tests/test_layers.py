"""The import graph follows the layers: machine -> task graph -> metrics -> problem ->
mapper families -> search -> front end / runtime / CLI.  A lower layer never imports a
higher one, not even inside a function; no algorithm module imports the map-file package;
only the runtime imports mpi4py at module level.

Imports are read from the source with :mod:`ast` (every ``import`` statement, at any
depth), so a lazy import inside a function counts like one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mpitaskmap"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(absolute module name, at module level) of every import in ``path``."""
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
            if node.module is not None:
                out.append((name, id(node) in top))
            # "from pkg import x": each x may be a module of pkg
            out += [(f"{name}.{a.name}", id(node) in top) for a in node.names]
    return out


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _matches(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


HIGH = ("mpitaskmap.search", "mpitaskmap.judge", "mpitaskmap.portfolio", "mpitaskmap.runtime", "mpitaskmap.cli",
        "mpitaskmap.providers")
#: Everything below the search layer.
BELOW_SEARCH = ("mpitaskmap.families", "mpitaskmap.mappers", "mpitaskmap.percs", "mpitaskmap.rubik",
                "mpitaskmap.partition", "mpitaskmap.problem", "mpitaskmap.metrics", "mpitaskmap.machine",
                "mpitaskmap.mapping", "mpitaskmap.taskgraph", "mpitaskmap.transforms", "mpitaskmap.grid_analysis",
                "mpitaskmap.simulated", "mpitaskmap.machine_file", "mpitaskmap.curves", "mpitaskmap.errors",
                "mpitaskmap._validate", "mpitaskmap._textio", "mpitaskmap.fluid")
#: Below the mapper families (the problem layer and what it stands on).
BELOW_FAMILIES = ("mpitaskmap.problem", "mpitaskmap.metrics", "mpitaskmap.machine", "mpitaskmap.mapping",
                  "mpitaskmap.taskgraph", "mpitaskmap.transforms", "mpitaskmap.grid_analysis",
                  "mpitaskmap.simulated", "mpitaskmap.machine_file", "mpitaskmap.curves", "mpitaskmap.errors",
                  "mpitaskmap._validate", "mpitaskmap._textio")
ALGORITHMS = BELOW_SEARCH + ("mpitaskmap.search", "mpitaskmap.judge", "mpitaskmap.portfolio")


def _offenders(modules, forbidden):
    return sorted({
        (mod, name) for mod, path in MODULES.items() if _matches(mod, modules)
        for name, _ in _imports(path) if _matches(name, forbidden)
    })


def test_the_parser_sees_relative_and_lazy_imports():
    names = dict(_imports(MODULES["mpitaskmap.search"]))
    assert names["mpitaskmap.families"] is True and "mpitaskmap.families.geometric" in names
    assert ("mpitaskmap.percs", True) in _imports(MODULES["mpitaskmap.families.percs"])
    # a lazy import inside a function is seen, and marked as not at module level
    assert ("pymetis", False) in _imports(MODULES["mpitaskmap.mappers.graph"])


def test_nothing_below_the_search_layer_imports_it_or_anything_above():
    assert _offenders(BELOW_SEARCH, HIGH) == []


def test_nothing_below_the_families_imports_a_family_or_a_mapper():
    forbidden = ("mpitaskmap.families", "mpitaskmap.mappers", "mpitaskmap.rubik", "mpitaskmap.partition")
    assert _offenders(BELOW_FAMILIES, forbidden) == []


def test_no_algorithm_module_imports_the_map_files():
    assert _offenders(ALGORITHMS, ("mpitaskmap.mapfiles",)) == []


def test_only_the_runtime_imports_mpi4py_at_module_level():
    at_top = sorted({mod for mod, path in MODULES.items()
                     for name, top in _imports(path) if top and _matches(name, ("mpi4py",))})
    assert at_top == ["mpitaskmap.runtime"]


@pytest.mark.parametrize("family", ["geometric", "graph", "grid", "identity", "percs", "rubik"])
def test_every_family_module_has_candidates_and_apply(family):
    import importlib
    import inspect

    from mpitaskmap.search import FAMILIES

    module = importlib.import_module(f"mpitaskmap.families.{family}")
    assert FAMILIES[family] is module
    assert list(inspect.signature(module.candidates).parameters)[0] == "problem"
    assert list(inspect.signature(module.apply).parameters)[:2] == ["candidate", "problem"]
