"""The tests mirror the package: every test file is named after the module it tests, or states a cross-cutting concern.

A test of ``mpitaskmap/<dir>/<name>.py`` (or of the package ``mpitaskmap/<dir>/<name>/``) is
``tests/<dir>/test_<name>.py``; the benchmarks' tests mirror ``benchmarks/`` under
``tests/benchmarks/``.  Accepted names of ``tests/<dir>/test_<name>.py``, with ``P`` the
mirrored folder (``mpitaskmap/<dir>`` or ``benchmarks/...``):

* ``P/<name>.py`` or the package ``P/<name>/`` exists (``tests/machines/test_torus.py``);
* ``<name>`` is the folder's own package, tested as a whole (``tests/cli/test_cli.py``);
* ``<name>`` is ``<sub>_<module>`` for ``P/<sub>/<module>.py`` (``tests/machines/test_dragonfly_loads.py``
  for ``machines/dragonfly/loads.py``), or ``<module>`` alone when exactly one sub-package of
  ``P`` has it (``tests/machines/test_slurm_topology.py``);
* ``<name>`` is one of the above followed by ``_<aspect>``, one part of a large module's tests
  (``tests/sim/test_simgrid_fattree.py``).

At the top of ``tests/`` only the package's top-level modules count (``tests/test_metrics.py``):
a sub-package's tests sit in its folder.  Anything else sits at the top of ``tests/``, is listed in :data:`CROSS_CUTTING` with the concern it
checks, and says that concern in the first line of its module docstring.  Helper modules are
listed in :data:`SUPPORT`; test files share no base name (pytest imports them by base name,
the folders being no packages).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

#: Top-level test files that check a concern across modules, not one module: file -> concern.
CROSS_CUTTING = {
    "test_docs.py": "the documents name only what exists",
    "test_docstrings.py": "every public object's docstring, and its examples run",
    "test_examples.py": "the examples run and print what they promise",
    "test_guarded_decisions.py": "each decision of the code pinned by a hand-derived case",
    "test_layers.py": "the import graph follows the layers",
    "test_layout.py": "the tests mirror the package",
    "test_message_model.py": "one message model and one network model for every front end",
    "test_mpi_determinism.py": "every rank builds identical machines and metrics",
    "test_narrow_coords.py": "narrow coordinate types through every kernel and mapper",
    "test_percs_integration.py": "PERCS through every layer like any other machine",
    "test_readme.py": "the README is true",
    "test_ring_network.py": "a network kind defined in one test file gets the whole library",
    "test_search_drift.py": "serial and MPI search agree exactly",
    "test_source_tree.py": "importing from a source tree without built kernels",
    "test_strict_inputs.py": "strict inputs, and messages that name what is at fault",
    "test_user_messages.py": "what a user reads",
}

#: Helper modules shared by the tests (on pytest's ``pythonpath``), at the top of tests/.
SUPPORT = {"conftest.py", "demo_inputs.py", "fabric_dumps.py", "mpi_helpers.py", "recorder_patterns.py", "reference.py",
           "reference_mj.py", "ring_variants.py", "walkthrough.py"}


def _has_module(folder: Path, name: str) -> bool:
    return (folder / f"{name}.py").is_file() or any((folder / name).glob("*.py"))  # a module or a package


def _sub_packages(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if (p / "__init__.py").is_file()) if folder.is_dir() else []


def _names_module(folder: Path, name: str) -> tuple[bool, str]:
    """(whether ``name`` names a module at ``folder`` by the rules above, save aspects; why not)."""
    if _has_module(folder, name) or name == folder.name:
        return True, ""
    subs = _sub_packages(folder)
    for sub in subs:
        prefix = sub.name + "_"
        if name.startswith(prefix) and _has_module(sub, name[len(prefix):]):
            return True, ""
    holders = [sub for sub in subs if _has_module(sub, name)]
    if len(holders) == 1:
        return True, ""
    if holders:
        return False, (f"'{name}' is a module of several sub-packages "
                       f"({', '.join(h.name for h in holders)}): name it test_<sub-package>_{name}.py")
    return False, ""


def mirrored_folder(test_file: Path, tests: Path, root: Path) -> Path:
    """Folder of the code that a test file's folder mirrors.

    ``tests/benchmarks/x`` mirrors ``benchmarks/x``; any other ``tests/x`` mirrors ``mpitaskmap/x``.
    """
    parts = test_file.parent.relative_to(tests).parts
    if parts[:1] == ("benchmarks",):
        return root.joinpath(*parts)
    return root.joinpath("mpitaskmap", *parts)


def naming_fault(test_file: Path, tests: Path, root: Path, cross_cutting: dict[str, str]) -> str | None:
    """Why ``test_file`` is not named after a module or a listed cross-cutting concern (None when it is)."""
    rel = test_file.relative_to(tests.parent).as_posix()
    name = test_file.stem[len("test_"):]
    folder = mirrored_folder(test_file, tests, root)
    hint = ""
    # the whole name first, then ever shorter prefixes (name = module + "_" + aspect)
    cuts = [len(name)] + [i for i in range(len(name) - 1, 0, -1) if name[i] == "_"]
    top = test_file.parent == tests
    for cut in cuts:
        prefix = name[:cut]
        if top:  # only the package's top-level modules: a sub-package's tests sit in its folder
            if (folder / f"{prefix}.py").is_file():
                return None
            if not hint and any((folder / prefix).glob("*.py")):
                hint = (f"tests of mpitaskmap/{prefix}/ sit in tests/{prefix}/ (or list a cross-cutting concern in "
                        f"CROSS_CUTTING of tests/test_layout.py)")
            continue
        ok, why = _names_module(folder, prefix)
        if ok:
            return None
        hint = hint or why
    if top and test_file.name in cross_cutting:
        return None
    where = folder.relative_to(root).as_posix()
    if hint:
        return f"{rel}: {hint}"
    if top:
        return (f"{rel}: no module '{name}' (or a prefix of it) in {where}/; name the file after the module it "
                f"tests and move it to the folder mirroring that module, or list its cross-cutting concern in "
                f"CROSS_CUTTING of tests/test_layout.py")
    return (f"{rel}: no module '{name}' (or a prefix of it) in {where}/; name the file after the module it tests, "
            f"in the folder mirroring that module (cross-cutting tests sit at the top of tests/)")


def layout_faults(tests: Path, root: Path, cross_cutting: dict[str, str], support: set[str]) -> list[str]:
    """Every test file or helper out of place under ``tests``, each with its path and what is wrong."""
    faults = []
    seen: dict[str, str] = {}
    for path in sorted(tests.rglob("*.py")):
        rel = path.relative_to(tests.parent).as_posix()
        if "__pycache__" in path.parts or any(part.startswith(".") for part in path.relative_to(tests).parts):
            continue
        if path.name.startswith("test_"):
            fault = naming_fault(path, tests, root, cross_cutting)
            if fault:
                faults.append(fault)
            if path.name in seen:
                faults.append(f"{rel}: same base name as {seen[path.name]} (pytest imports test files by "
                              f"base name here); give one a name of its own")
            seen.setdefault(path.name, rel)
        elif path.name == "conftest.py":
            continue
        elif path.parent != tests or path.name not in support:
            faults.append(f"{rel}: neither a test file (test_*.py) nor a helper listed in SUPPORT of "
                          f"tests/test_layout.py (helpers sit at the top of tests/)")
    for name in sorted(cross_cutting):
        path = tests / name
        if not path.is_file():
            faults.append(f"tests/{name}: listed in CROSS_CUTTING of tests/test_layout.py but missing")
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        if not doc or not doc.strip():
            faults.append(f"tests/{name}: a cross-cutting test needs a module docstring whose first line states "
                          f"its concern ({cross_cutting[name]})")
    return faults


def test_every_test_file_is_named_after_its_module_or_a_listed_cross_cutting_concern():
    faults = layout_faults(TESTS, ROOT, CROSS_CUTTING, SUPPORT)
    assert not faults, "\n".join(["tests out of place:", *faults])


# The rule on a made-up tree, one decision per case.

def _touch(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    for module in ["pkg/__init__.py", "pkg/metrics.py", "pkg/machines/__init__.py", "pkg/machines/base.py",
                   "pkg/machines/torus/__init__.py", "pkg/machines/torus/presets.py",
                   "pkg/machines/fattree/__init__.py", "pkg/machines/fattree/presets.py",
                   "pkg/machines/fattree/slurm_topology.py", "pkg/sim/__init__.py", "pkg/sim/simgrid.py",
                   "benchmarks/__init__.py", "benchmarks/orderings.py"]:
        _touch(tmp_path / module.replace("pkg/", "mpitaskmap/"))
    return tmp_path


def _faults(tree: Path, *test_files: str, cross_cutting: dict[str, str] | None = None,
            support: frozenset[str] = frozenset()) -> list[str]:
    for rel in test_files:
        _touch(tree / "tests" / rel, '"""A first line."""\n')
    return layout_faults(tree / "tests", tree, cross_cutting or {}, set(support))


@pytest.mark.parametrize("rel", [
    "test_metrics.py",                        # a top-level module
    "machines/test_base.py",                  # a module
    "machines/test_torus.py",                 # a sub-package
    "machines/test_machines.py",              # the folder's own package as a whole
    "machines/test_torus_presets.py",         # <sub-package>_<module>
    "machines/test_slurm_topology.py",        # a module of exactly one sub-package
    "sim/test_simgrid_fattree.py",            # a module and an aspect of its tests
    "machines/test_fattree_presets_wiring.py",  # <sub-package>_<module> and an aspect
    "benchmarks/test_orderings.py",           # a benchmark script
])
def test_names_after_a_module_at_the_mirrored_path_pass(tree, rel):
    assert _faults(tree, rel) == []


def test_a_name_of_no_module_is_named_with_its_path_and_folder(tree):
    assert _faults(tree, "machines/test_machine.py") == [
        "tests/machines/test_machine.py: no module 'machine' (or a prefix of it) in mpitaskmap/machines/; name the "
        "file after the module it tests, in the folder mirroring that module (cross-cutting tests sit at the top "
        "of tests/)"]


def test_a_module_tested_from_the_wrong_folder_fails(tree):
    assert _faults(tree, "sim/test_base.py") == [
        "tests/sim/test_base.py: no module 'base' (or a prefix of it) in mpitaskmap/sim/; name the file after the "
        "module it tests, in the folder mirroring that module (cross-cutting tests sit at the top of tests/)"]


def test_a_module_name_shared_by_two_sub_packages_must_name_its_sub_package(tree):
    assert _faults(tree, "machines/test_presets.py") == [
        "tests/machines/test_presets.py: 'presets' is a module of several sub-packages (fattree, torus): "
        "name it test_<sub-package>_presets.py"]


def test_a_sub_package_is_tested_in_its_folder_not_at_the_top(tree):
    assert _faults(tree, "test_machines_base.py", "test_sim.py") == [
        "tests/test_machines_base.py: tests of mpitaskmap/machines/ sit in tests/machines/ (or list a cross-cutting "
        "concern in CROSS_CUTTING of tests/test_layout.py)",
        "tests/test_sim.py: tests of mpitaskmap/sim/ sit in tests/sim/ (or list a cross-cutting concern in "
        "CROSS_CUTTING of tests/test_layout.py)"]
    assert _faults(tree, "test_sim_drift.py", cross_cutting={"test_sim_drift.py": "drift", "test_sim.py": "x",
                                                             "test_machines_base.py": "y"}) == []


def test_cross_cutting_files_sit_at_the_top_listed_with_a_docstring(tree):
    assert _faults(tree, "test_everything.py", cross_cutting={"test_everything.py": "all of it"}) == []
    assert _faults(tree, "test_other.py") == [
        "tests/test_everything.py: no module 'everything' (or a prefix of it) in mpitaskmap/; name the file after "
        "the module it tests and move it to the folder mirroring that module, or list its cross-cutting concern "
        "in CROSS_CUTTING of tests/test_layout.py",
        "tests/test_other.py: no module 'other' (or a prefix of it) in mpitaskmap/; name the file after the module "
        "it tests and move it to the folder mirroring that module, or list its cross-cutting concern in "
        "CROSS_CUTTING of tests/test_layout.py"]
    _touch(tree / "tests" / "test_bare.py", "import os\n")
    assert _faults(tree, cross_cutting={"test_bare.py": "bare", "test_gone.py": "gone", "test_everything.py": "x",
                                        "test_other.py": "y"}) == [
        "tests/test_bare.py: a cross-cutting test needs a module docstring whose first line states its concern "
        "(bare)",
        "tests/test_gone.py: listed in CROSS_CUTTING of tests/test_layout.py but missing"]


def test_a_listed_cross_cutting_file_in_a_sub_folder_still_fails(tree):
    assert _faults(tree, "sim/test_everything.py", cross_cutting={"test_everything.py": "all of it"})[0].startswith(
        "tests/sim/test_everything.py: no module 'everything'")


def test_repeated_base_names_and_stray_helpers_are_named(tree):
    assert _faults(tree, "machines/test_base.py", "benchmarks/test_base.py", "machines/helpers.py",
                   "reference.py", support=frozenset({"reference.py"})) == [
        "tests/benchmarks/test_base.py: no module 'base' (or a prefix of it) in benchmarks/; name the file after "
        "the module it tests, in the folder mirroring that module (cross-cutting tests sit at the top of tests/)",
        "tests/machines/helpers.py: neither a test file (test_*.py) nor a helper listed in SUPPORT of "
        "tests/test_layout.py (helpers sit at the top of tests/)",
        "tests/machines/test_base.py: same base name as tests/benchmarks/test_base.py (pytest imports test files "
        "by base name here); give one a name of its own"]
