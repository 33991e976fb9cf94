"""The geometric mapper's options, declared once: name, default, how a spec writes it, what it does.

:func:`~mpitaskmap.mappers.geometric.mapper.map_geometric` takes them as keywords, with
these defaults; the search's geometric family builds and computes its candidates from them
(:mod:`mpitaskmap.search.families.geometric`), and the method table offers them as
``geometric:NAME=VALUE`` (:mod:`mpitaskmap.search.registry`, in this order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable

from .mj import ORDERINGS

__all__ = ["GeometricOption", "GEOMETRIC_OPTIONS", "GEOMETRIC_DEFAULTS"]


@dataclass(frozen=True)
class GeometricOption:
    """One keyword option of the geometric mapper.

    Attributes
    ----------
    name : str
        The keyword.
    default : hashable
        Its value when not given.
    kind : str
        How a method spec writes the value (a kind of the method table's options:
        ``choice``, ``flag``, ``lengths``, ``ints``).
    help : str
        What it does, in a few words.
    choices : tuple of str
        The valid values of a ``choice``.
    """

    name: str
    default: Hashable
    kind: str
    help: str
    choices: tuple = ()


#: The options, in the order the method table lists them.
GEOMETRIC_OPTIONS: tuple[GeometricOption, ...] = (
    GeometricOption("ordering", "fz", "choice", "part numbering (default fz)", ORDERINGS),
    GeometricOption("shift", True, "flag", "shift torus coordinates to the largest gap (default 1)"),
    GeometricOption("bandwidth", False, "flag", "scale processor coordinates by link bandwidth (default 0)"),
    GeometricOption("box", None, "lengths", "router box transform, e.g. 2x2x8 (Gemini)"),
    GeometricOption("drop", (), "ints", "processor dimensions to drop, e.g. 4"),
    GeometricOption("task_perm", None, "ints", "task dimension order for the cuts, e.g. 2x0x1"),
    GeometricOption("proc_perm", None, "ints", "processor dimension order for the cuts, e.g. 2x0x1"),
)

#: Option name -> default value.
GEOMETRIC_DEFAULTS: dict[str, Hashable] = {o.name: o.default for o in GEOMETRIC_OPTIONS}
