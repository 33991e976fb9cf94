"""Importing mpitaskmap from a source tree whose kernels are not built (issue 39, item 4).

After a non-editable ``pip install .``, ``python -m mpitaskmap`` run in the repository's root
imports the source tree's ``mpitaskmap/`` (the current directory comes first on ``sys.path``),
which has no compiled kernels.  The import must say so and what to do, not "cannot import name
'_torus' from partially initialized module 'mpitaskmap' (most likely due to a circular
import)".  The tests copy the package without its compiled modules and import it in a
subprocess.
"""

import importlib.machinery
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mpitaskmap._kernels import missing_kernels

ROOT = Path(__file__).resolve().parents[1]
#: Every kernel the build makes: cext/_X.pyx -> mpitaskmap._X.
KERNELS = sorted(p.stem for p in (ROOT / "cext").glob("_*.pyx"))
PYTHON = f"{sys.implementation.name} {sys.version_info[0]}.{sys.version_info[1]}"


@pytest.fixture
def unbuilt(tmp_path) -> Path:
    """A copy of the source tree's package without compiled modules, in ``tmp_path / "src"``."""
    shutil.copytree(ROOT / "mpitaskmap", tmp_path / "src" / "mpitaskmap",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    return tmp_path / "src"


def expected_message(src: Path, installed: str) -> str:
    return (f"mpitaskmap at {src / 'mpitaskmap'} is a source tree whose Cython kernels are not built (no compiled "
            f"{', '.join(KERNELS)} for this Python, {PYTHON}): build them in place (pip install -e . or python "
            f"setup.py build_ext --inplace, in {src}), or run from another directory so that {installed}")


def run(argv, cwd, **env) -> subprocess.CompletedProcess:
    # -S: no site-packages, so no installed (or editable) mpitaskmap is on sys.path unless PYTHONPATH puts one
    return subprocess.run([sys.executable, "-S", *argv], cwd=cwd, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", **env})


def test_import_from_an_unbuilt_source_tree_says_what_to_do(unbuilt):
    assert KERNELS == ["_fluid", "_graphmap", "_grid", "_hops", "_mj", "_percs", "_torus", "_ugal"]
    res = run(["-c", "import mpitaskmap"], unbuilt)
    assert res.returncode == 1
    assert res.stderr.splitlines()[-1] == "ImportError: " + expected_message(unbuilt, "the installed package is found")
    assert "circular import" not in res.stderr


def test_the_message_names_the_installed_package_it_shadows(unbuilt, tmp_path):
    installed = tmp_path / "site" / "mpitaskmap"
    installed.mkdir(parents=True)
    (installed / "__init__.py").write_text("")
    res = run(["-c", "import mpitaskmap"], unbuilt, PYTHONPATH=str(tmp_path / "site"))
    assert res.stderr.splitlines()[-1] == "ImportError: " + expected_message(
        unbuilt, f"the installed package ({installed}) is found")


def test_python_dash_m_prints_it_as_one_line(unbuilt):
    # python -m reports an ImportError of the package itself in one line, without a traceback
    res = run(["-m", "mpitaskmap", "--help"], unbuilt)
    assert res.returncode == 1
    assert res.stderr.splitlines() == [
        f"{sys.executable}: Error while finding module specification for 'mpitaskmap.__main__' (ImportError: "
        + expected_message(unbuilt, "the installed package is found") + ")"]


def test_missing_kernels_counts_stubs_without_an_extension_module(tmp_path):
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in ("_built.pyi", f"_built{suffix}", "_unbuilt.pyi", "_pure.pyi", "_pure.py", "public.pyi"):
        (tmp_path / name).write_text("")
    assert missing_kernels(str(tmp_path)) == ["_unbuilt"]  # a stub beside its .py is no kernel
    assert missing_kernels(str(tmp_path / "nonexistent")) == []
    assert missing_kernels(str(ROOT / "mpitaskmap")) == []  # this checkout's kernels are built (the tests import them)


def test_ci_follows_the_offline_walkthrough_after_a_non_editable_install():
    # .ci/run copies the tree without build artefacts, installs it NON-editable and runs the README's
    # offline block verbatim in the copy's root (where the unbuilt mpitaskmap/ sits)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    start = ci.index("git ls-files -z --cached --others --exclude-standard")
    step = ci[start: ci.index("rm -rf \"$walk\"", start)]
    assert '"shell")["offline"].text' in step and 'bash -e -x offline.sh' in step
    assert 'python -m pip install -q ".[mpi]"' in step and "-e ." not in step and "-e \"" not in step
