"""File plumbing and plain coordinate lines shared by the formats.

Part of :mod:`mpitaskmap.mapfiles`; the formats are documented there.
"""

from __future__ import annotations

import os
from typing import Iterator, TextIO

import numpy as np

from .._textio import _opened, write_coordinate_lines
from ..errors import InvalidInputError
from ..machines import Machine, require_router_grid
from ..mapping import Mapping, as_mapping


def _name(target) -> str:
    return os.fspath(target) if isinstance(target, (str, os.PathLike)) else getattr(target, "name", "<stream>")


def _content_lines(fh: TextIO) -> Iterator[tuple[int, str, str]]:
    """Yield (line number, stripped text, raw line) of lines that are not blank or comments."""
    for lineno, raw in enumerate(fh, start=1):
        text = raw.strip()
        if text and not text.startswith("#"):
            yield lineno, text, raw


def _line_error(name: str, lineno: int, raw: str, what: str) -> InvalidInputError:
    return InvalidInputError(f"{name}:{lineno}: {what}; got {raw.strip()!r}")


def _file_mapping(name: str, task_to_proc, machine: Machine, graph, *, method: str,
                  capacity: int | None = None) -> Mapping:
    """The Mapping a reader returns; an error names the file ``name`` first.

    A file states its own placement, so several ranks on one processor are read as the
    file writes them (the capacity check of :class:`~mpitaskmap.mapping.Mapping` still
    applies, with ``capacity`` when the format allows one rank per processor only).
    """
    n = len(task_to_proc)
    if graph is not None and n != graph.n_tasks:
        raise InvalidInputError(f"{name}: the file places {n} ranks but the task graph has {graph.n_tasks} tasks; "
                                f"a map file lists every rank (task) of the job")
    try:
        return Mapping(task_to_proc, machine, graph, capacity=capacity, oversubscribe=True, method=method)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{name}: {exc}") from None


def _torus(mapping: Mapping) -> Machine:
    as_mapping(mapping)
    return require_router_grid(mapping.machine, "this format (router coordinates per rank)", InvalidInputError)


def read_coordinate_lines(path) -> np.ndarray:
    """Read a file of space-separated integer lines (a Blue Gene / Rubik map file).

    Parameters
    ----------
    path : str, path-like or text stream
        The file.

    Returns
    -------
    (n_lines, n_cols) ndarray of int64
        One row per non-blank, non-comment line.

    Raises
    ------
    InvalidInputError
        On a non-integer entry or lines of different lengths (naming the line), or a file
        without lines.

    Examples
    --------
    >>> import io
    >>> read_coordinate_lines(io.StringIO("0 1\\n# comment\\n2 3\\n")).tolist()
    [[0, 1], [2, 3]]
    """
    return _int_lines(path)[0]


def _int_lines(path) -> tuple[np.ndarray, list[int], list[str]]:
    """Parse integer lines; return the (n, n_cols) array, their line numbers and texts."""
    rows: list[list[int]] = []
    lines: list[int] = []
    texts: list[str] = []
    name = _name(path)
    with _opened(path, "r") as fh:
        for lineno, text, raw in _content_lines(fh):
            try:
                row = [int(t) for t in text.split()]
            except ValueError:
                raise _line_error(name, lineno, raw, "expected integers separated by spaces") from None
            if rows and len(row) != len(rows[0]):
                raise _line_error(name, lineno, raw, f"expected {len(rows[0])} values like the first line")
            rows.append(row)
            lines.append(lineno)
            texts.append(text)
    if not rows:
        raise InvalidInputError(f"{name}: no coordinate lines found; got an empty file")
    return np.asarray(rows, dtype=np.int64), lines, texts
