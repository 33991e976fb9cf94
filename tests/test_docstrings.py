"""Every public object has a docstring that starts upper-case and ends with a period,
and every Examples section runs (after mpi4py's test_doc.py)."""

import doctest
import importlib
import inspect
import pkgutil

import pytest

import mpitaskmap

MODULES = sorted(
    name
    for _, name, _ in pkgutil.walk_packages(mpitaskmap.__path__, "mpitaskmap.")
    if not name.split(".")[-1].startswith("_")
)


def public_objects():
    for modname in MODULES:
        mod = importlib.import_module(modname)
        yield modname, mod
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                yield f"{modname}.{name}", obj
                if inspect.isclass(obj):
                    for attr, member in vars(obj).items():
                        if not attr.startswith("_") and (inspect.isfunction(member) or isinstance(member, property)):
                            yield f"{modname}.{name}.{attr}", member


@pytest.mark.parametrize("qualname, obj", list(public_objects()), ids=lambda v: v if isinstance(v, str) else "")
def test_docstring_style(qualname, obj):
    doc = inspect.getdoc(obj)
    assert doc, f"{qualname} has no docstring"
    summary = doc.split("\n\n")[0].strip()
    assert summary[0].isupper() or summary[0] in "`(", f"{qualname}: summary starts lower-case: {summary!r}"
    assert summary.endswith("."), f"{qualname}: summary lacks a final period: {summary!r}"


@pytest.mark.parametrize("modname", MODULES)
def test_doctests(modname):
    mod = importlib.import_module(modname)
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.failed == 0
