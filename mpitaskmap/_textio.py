"""Plain text plumbing below every layer that writes files: open a path or pass a stream on,
and coordinate lines (one row of integers per line).

The map-file formats (:mod:`mpitaskmap.mapfiles`) and Rubik's ``write_map_file`` both
write coordinate lines; this module holds the one implementation so that neither imports
the other.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator, TextIO

import numpy as np

from .errors import InvalidInputError

__all__ = ["write_coordinate_lines", "rank_ranges", "counted"]


def rank_ranges(ranks) -> str:
    """Return increasing integers as comma-separated runs: ``0,2-3`` for 0, 2, 3.

    The one run-length form of rank lists (Cray ``MPICH_RANK_ORDER`` ranges, the runtime's
    errors naming ranks).  Consecutive values become ``first-last``; the order is kept.

    Examples
    --------
    >>> rank_ranges([0, 2, 3, 4, 7])
    '0,2-4,7'
    >>> rank_ranges([5])
    '5'
    """
    values = [int(r) for r in ranks]
    parts, i = [], 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        parts.append(f"{values[i]}-{values[j]}" if j > i else str(values[i]))
        i = j + 1
    return ",".join(parts)


# -- file plumbing ------------------------------------------------------------------------
@contextlib.contextmanager
def _opened(target, mode: str) -> Iterator[TextIO]:
    """Yield a text stream for ``target``: a path is opened (and closed), a stream passed on."""
    if isinstance(target, (str, os.PathLike)):
        with open(target, mode, encoding="utf-8", newline="") as fh:
            yield fh
    elif hasattr(target, "write" if "w" in mode else "read"):
        yield target
    else:
        raise InvalidInputError(f"path: expected a path or a text stream; got {type(target).__name__}")


def write_coordinate_lines(coords, path=None) -> None:
    """Write one line of space-separated integers per row of ``coords``.

    Parameters
    ----------
    coords : (n, n_cols) array_like of int
        Row ``r`` becomes line ``r``.
    path : str, path-like or text stream, optional
        Where to write (default ``sys.stdout``).

    Raises
    ------
    InvalidInputError
        If ``coords`` is not a 2-D integer array.

    Notes
    -----
    Exactly the released Rubik's map-file lines: single spaces, ``\\n`` after every line,
    no header, no trailing space.

    Examples
    --------
    >>> write_coordinate_lines([[0, 1, 2], [3, 0, 1]])
    0 1 2
    3 0 1
    """
    arr = np.asarray(coords)
    if arr.ndim != 2 or (arr.size and arr.dtype.kind not in "iu"):
        raise InvalidInputError(f"coords: expected a 2-D integer array; got shape {arr.shape}, dtype {arr.dtype}")
    text = "".join(" ".join(str(int(v)) for v in row) + "\n" for row in arr.tolist())
    with _opened(sys.stdout if path is None else path, "w") as fh:
        fh.write(text)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """Return ``n`` and ``noun`` in the number ``n`` calls for: ``1 global link``, ``2 global links``.

    Parameters
    ----------
    n : int
        The count.
    noun : str
        The singular (``"global link"``).
    plural : str, optional
        The plural when it is not ``noun + "s"`` (``"switches"``).

    Returns
    -------
    str

    Examples
    --------
    >>> counted(1, "global link"), counted(2, "global link"), counted(0, "switch", "switches")
    ('1 global link', '2 global links', '0 switches')
    """
    n = int(n)
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
