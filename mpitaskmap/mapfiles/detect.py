"""Tell a map file's format from its content (and, where the content fits several, its name).

Part of :mod:`mpitaskmap.mapfiles`; the formats are documented there.  The rules, in order,
over the lines that are not blank (``#`` lines count only for the rank-order header):

1. a comment line ``# mpitaskmap rank order...`` (what :func:`write_mpich_rank_order`
   writes first): ``"mpich_rank_order"``;
2. a first line of comma-separated names holding ``rank`` and ``proc``: ``"csv"``;
3. a first line whose first word is ``rank``: ``"openmpi_rankfile"``;
4. every line a comma-separated list of ranks or ranges (``0,1,4-7``), at least one with a
   comma or a range: ``"mpich_rank_order"``;
5. every line two or more integers separated by spaces: ``"bluegene"`` (Cray's rank order
   separates ranks by commas);
6. every line one word, at least one of them not an integer: a host list, ``"slurm_hostfile"``,
   or ``"smpi_hostfile"`` when the file's name holds ``smpi`` (the two formats are the same
   text and the same reader);
7. every line one integer: ambiguous (a rank order of one rank per line, Blue Gene
   coordinates of a 1-D torus without the slot column, or a host list of numeric names);
   the file's name decides (:func:`format_from_name`) when it names one of these, else an
   error asks for the format.

Anything else is an error naming the first line that fits no format.
"""

from __future__ import annotations

import os
import re

from .._textio import _opened
from ..errors import InvalidInputError
from ._io import _name
from .cray import RANK_ORDER_HEADER
from .registry import MAP_FORMATS

__all__ = ["format_from_name", "detect_map_format"]

_INT = re.compile(r"-?\d+$")
_RANK_ITEM = re.compile(r"\d+(-\d+)?$")
_HEADER_START = RANK_ORDER_HEADER.partition(":")[0]  # "# mpitaskmap rank order"
#: The formats a file of one integer per line can be (rule 7).
_ONE_INT_FORMATS = ("bluegene", "mpich_rank_order", "slurm_hostfile", "smpi_hostfile")


def format_from_name(path) -> str | None:
    """Return the map-file format a file's name implies, or None.

    Parameters
    ----------
    path : str or path-like
        The file name (only its last component is looked at, case-insensitively).

    Returns
    -------
    str or None
        ``"mpich_rank_order"`` (name holds ``rank_order``), ``"csv"`` (ends ``.csv``),
        ``"openmpi_rankfile"`` (``rankfile``), ``"smpi_hostfile"`` (``smpi`` and
        ``hostfile``), ``"slurm_hostfile"`` (``hostfile`` or ``slurm``), ``"bluegene"``
        (ends ``.map``, or holds ``bluegene`` or ``mapfile``), in this order; None for any
        other name.

    Examples
    --------
    >>> format_from_name("run/MPICH_RANK_ORDER"), format_from_name("smpi_hostfile.txt")
    ('mpich_rank_order', 'smpi_hostfile')
    >>> format_from_name("hosts.txt") is None
    True
    """
    base = os.path.basename(os.fspath(path)).lower()
    if "rank_order" in base:
        return "mpich_rank_order"
    if base.endswith(".csv"):
        return "csv"
    if "rankfile" in base:
        return "openmpi_rankfile"
    if "hostfile" in base or "slurm" in base:
        return "smpi_hostfile" if "smpi" in base else "slurm_hostfile"
    if base.endswith(".map") or "bluegene" in base or "mapfile" in base:
        return "bluegene"
    return None


def _line_kind(text: str) -> str:
    """One of ``rank_list``, ``ints``, ``int``, ``word``, ``other`` for a stripped content line."""
    if "," in text:
        items = [t.strip() for t in text.split(",")]
        if items and items[-1] == "":  # a trailing comma
            items.pop()
        return "rank_list" if items and all(_RANK_ITEM.match(t) for t in items) else "other"
    words = text.split()
    if len(words) == 1:
        if _INT.match(words[0]):
            return "int"
        return "rank_list" if _RANK_ITEM.match(words[0]) else "word"
    return "ints" if all(_INT.match(w) for w in words) else "other"


def detect_map_format(path, *, what: str = "path", name_it: str = "pass format=FORMAT to read_map") -> str:
    """Return the format of a map file from its content (see the module doc for the rules).

    Parameters
    ----------
    path : str or path-like
        The file (read here; blank lines skipped).
    what : str, optional
        What the error messages name first (the option or argument that gave the file).
    name_it : str, optional
        How the caller names a format explicitly, ending an error message (the command
        line passes ``write --mapping FORMAT=PATH``).

    Returns
    -------
    str
        A key of :data:`~mpitaskmap.mapfiles.MAP_FORMATS`.

    Raises
    ------
    InvalidInputError
        On a file without content lines, one whose content fits no format (naming the
        first line that fits none) or fits several that its name does not decide
        (naming them); every message ends with ``name_it`` and the format names.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "hosts.txt").write_text("node0003\\nnode0004\\n")
    >>> detect_map_format(d / "hosts.txt")
    'slurm_hostfile'
    >>> _ = (d / "order").write_text("0,1\\n3,2\\n")
    >>> detect_map_format(d / "order")
    'mpich_rank_order'
    """
    name = _name(path)
    ending = f"; {name_it} with FORMAT one of {sorted(MAP_FORMATS)}"
    kinds: set[str] = set()
    first = None
    with _opened(path, "r") as fh:
        for lineno, raw in enumerate(fh, start=1):
            text = raw.strip()
            if not text:
                continue
            if text.startswith("#"):
                if text.startswith(_HEADER_START):
                    return "mpich_rank_order"
                continue
            if first is None:
                first = (lineno, text)
                header = [h.strip().lower() for h in text.split(",")]
                if "," in text and "rank" in header and "proc" in header:
                    return "csv"
                if text.split()[0] == "rank":
                    return "openmpi_rankfile"
            kind = _line_kind(text)
            if kind == "other" or (kinds and not _compatible(kinds | {kind})):
                raise InvalidInputError(
                    f"{what}: cannot tell the map-file format of {name!r} from its content: line {lineno} "
                    f"({text!r}) fits no format"
                    + ("" if kind == "other" else f" together with line {first[0]} ({first[1]!r})") + ending
                )
            kinds.add(kind)
    if first is None:
        raise InvalidInputError(f"{what}: cannot tell the map-file format of {name!r}: it has no content lines"
                                + ending)
    if "rank_list" in kinds:
        return "mpich_rank_order"
    if kinds == {"ints"}:
        return "bluegene"
    if "word" in kinds:
        return "smpi_hostfile" if format_from_name(name) == "smpi_hostfile" else "slurm_hostfile"
    by_name = format_from_name(name)  # kinds == {"int"}
    if by_name in _ONE_INT_FORMATS:
        return by_name
    raise InvalidInputError(
        f"{what}: cannot tell the map-file format of {name!r}: one integer per line is a rank order "
        "(mpich_rank_order), Blue Gene coordinates without the slot (bluegene) or a host list of numeric names "
        "(slurm_hostfile)" + ending
    )


def _compatible(kinds: set[str]) -> bool:
    """Whether lines of these kinds can be one file: a rank order, Blue Gene lines or a host list."""
    return kinds <= {"rank_list", "int"} or kinds <= {"ints"} or kinds <= {"word", "int"}
