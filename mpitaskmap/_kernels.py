"""The compiled kernels are there, or an ImportError says why not and what to do (checked at import).

``import mpitaskmap`` imports this module first.  Every compiled kernel ``_X`` (``cext/_X.pyx``)
has a type stub ``_X.pyi`` beside it in the package (CI checks that); a stub with neither an
extension module of this Python nor an ``_X.py`` is a kernel that was not built.  That is what
a source tree holds before ``pip install -e .``, and what Python imports from the repository's
root after a non-editable ``pip install .``: ``python -m`` and scripts put the current
directory first on ``sys.path``, so the source tree's ``mpitaskmap/`` shadows the installed
package.  Without this check the first kernel import fails as "cannot import name '_torus'
from partially initialized module 'mpitaskmap' (most likely due to a circular import)", which
is not the cause.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys

__all__ = ["missing_kernels", "require_compiled_kernels"]


def missing_kernels(package_dir: str) -> list[str]:
    """Return the kernels of ``package_dir`` that have a stub but no extension module of this Python.

    Parameters
    ----------
    package_dir : str
        A directory holding the package's files.

    Returns
    -------
    list of str
        Module names (``_torus``, ...), sorted; empty when every kernel is built, or when the
        directory cannot be listed (a zip import: nothing to tell).

    Examples
    --------
    >>> missing_kernels(os.path.dirname(os.path.abspath(__file__)))
    []
    """
    try:
        names = set(os.listdir(package_dir))
    except OSError:
        return []
    stubs = sorted(n[:-4] for n in names if n.startswith("_") and n.endswith(".pyi") and n[:-4] + ".py" not in names)
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    return [s for s in stubs if not any(s + suffix in names for suffix in suffixes)]


def require_compiled_kernels(package_dir: str | None = None) -> None:
    """Raise an ImportError saying what happened and what to do when kernels are not built.

    Parameters
    ----------
    package_dir : str, optional
        The package's directory (default: this module's).

    Raises
    ------
    ImportError
        Naming the package's directory, the kernels missing, how to build them in place and,
        when another mpitaskmap is on ``sys.path``, where that installed package is.
    """
    here = os.path.abspath(package_dir or os.path.dirname(os.path.abspath(__file__)))
    missing = missing_kernels(here)
    if not missing:
        return
    others = []
    for entry in sys.path:
        other = os.path.join(os.path.abspath(entry or os.curdir), "mpitaskmap")
        if os.path.realpath(other) != os.path.realpath(here) and os.path.isfile(os.path.join(other, "__init__.py")):
            others.append(other)
    where = f"the installed package ({others[0]}) is found" if others else "the installed package is found"
    python = f"{sys.implementation.name} {sys.version_info[0]}.{sys.version_info[1]}"
    raise ImportError(
        f"mpitaskmap at {here} is a source tree whose Cython kernels are not built (no compiled "
        f"{', '.join(missing)} for this Python, {python}): build them in place (pip install -e . or "
        f"python setup.py build_ext --inplace, in {os.path.dirname(here)}), or run from another directory so that "
        f"{where}", name="mpitaskmap", path=here)  # name: python -m prints it as one line, without a traceback


require_compiled_kernels()
