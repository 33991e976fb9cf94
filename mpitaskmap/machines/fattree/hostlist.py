"""Slurm's host lists: ``node[0400-0431,0500]``, ``rack[1-2]n[01-03]``, ``a1,b[2-3]``.

:func:`expand_hostlist` and :func:`compress_hostlist`, with Slurm's rules: the digits of a
range keep the width of its first number (``[08-10]`` gives ``08 09 10``), several bracket
groups multiply (the last one varies fastest), text may follow the last ``]``, and commas or
white space outside brackets separate the entries; :func:`natural_key` orders host names as
people read them (``n2`` before ``n10``).
"""

from __future__ import annotations

import itertools
import re
from typing import Sequence

import numpy as np

from ...errors import InvalidInputError

__all__ = ["expand_hostlist", "compress_hostlist", "natural_key", "MAX_HOSTS"]

#: Most host names one host list may expand to (a typo like ``node[0-99999999]`` fails at once).
MAX_HOSTS = 1 << 20
_SEPARATORS = ", \t\n\r"


# -- host lists --------------------------------------------------------------------------------
def _hostlist_error(text: str, column: int, message: str) -> InvalidInputError:
    return InvalidInputError(f"hostlist {text!r}: {message} at column {column}")


def _range_values(text: str, start: int, end: int) -> list[str]:
    """The numbers of the bracket content ``text[start:end]`` (``01-03,7``), formatted as Slurm does."""
    if start == end:
        raise _hostlist_error(text, start, "empty brackets '[]'")
    out: list[str] = []
    at = start
    for item in text[start:end].split(","):
        lo, sep, hi = item.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()) or not lo.isascii() or not hi.isascii():
            raise _hostlist_error(text, at + 1, f"bad range {item!r}: expected N or N-M with digits N, M")
        first, last = int(lo), int(hi) if sep else int(lo)
        if last < first:
            raise _hostlist_error(text, at + 1, f"range {item!r} runs backwards")
        if len(out) + last - first + 1 > MAX_HOSTS:
            raise _hostlist_error(text, at + 1, f"range {item!r} gives more than {MAX_HOSTS} hosts")
        width = len(lo)
        out.extend(f"{v:0{width}d}" for v in range(first, last + 1))
        at += len(item) + 1
    return out


def _expand_token(text: str, start: int, end: int, room: int) -> list[str]:
    """The hosts of one entry ``text[start:end]`` (no separators outside brackets; brackets checked)."""
    parts: list[list[str]] = []
    at = start
    while at < end:
        open_at = text.find("[", at, end)
        if open_at < 0:
            parts.append([text[at:end]])
            break
        if open_at > at:
            parts.append([text[at:open_at]])
        close_at = text.index("]", open_at, end)
        parts.append(_range_values(text, open_at + 1, close_at))
        at = close_at + 1
    count = int(np.prod([len(p) for p in parts], dtype=np.float64))
    if count > room:
        raise _hostlist_error(text, start + 1, f"entry {text[start:end]!r} gives more than {MAX_HOSTS} hosts in all")
    return ["".join(combo) for combo in itertools.product(*parts)]


def expand_hostlist(text: str) -> list[str]:
    """Return the host names of a Slurm host list, in order.

    Parameters
    ----------
    text : str
        Entries separated by commas or white space outside brackets; an entry is text with
        any number of bracket groups of numbers and ranges (``node[0400-0431,0500]``,
        ``rack[1-2]n[01-03]``, ``node[1-2]-ib``).  A range keeps the width of its first
        number (``[08-10]`` -> ``08, 09, 10``; ``[8-10]`` -> ``8, 9, 10``).

    Returns
    -------
    list of str
        Several bracket groups multiply, the last varying fastest.  Repeated names are kept
        (callers that need distinct names check).

    Raises
    ------
    InvalidInputError
        Naming the text and the 1-based column of the fault: an unclosed ``[``, a ``]``
        without ``[``, brackets inside brackets, empty brackets, a range that is not
        digits or runs backwards, more than :data:`MAX_HOSTS` hosts.

    Examples
    --------
    >>> expand_hostlist("node[0400-0402,0500],login1")
    ['node0400', 'node0401', 'node0402', 'node0500', 'login1']
    >>> expand_hostlist("rack[1-2]n[01-02]")
    ['rack1n01', 'rack1n02', 'rack2n01', 'rack2n02']
    >>> expand_hostlist("node[3-1]")
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.InvalidInputError: hostlist 'node[3-1]': range '3-1' runs backwards at column 6
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"hostlist: expected a string; got {type(text).__name__}")
    out: list[str] = []
    at, n = 0, len(text)
    while at < n:
        if text[at] in _SEPARATORS:
            at += 1
            continue
        start, open_at = at, -1
        while at < n and (open_at >= 0 or text[at] not in _SEPARATORS):
            c = text[at]
            if c == "[":
                if open_at >= 0:
                    raise _hostlist_error(text, at + 1, f"'[' inside brackets (opened at column {open_at + 1})")
                open_at = at
            elif c == "]":
                if open_at < 0:
                    raise _hostlist_error(text, at + 1, "']' without a matching '['")
                open_at = -1
            at += 1
        if open_at >= 0:
            raise _hostlist_error(text, open_at + 1, "'[' is never closed")
        out.extend(_expand_token(text, start, at, MAX_HOSTS - len(out)))
    return out


_TRAILING_DIGITS = re.compile(r"(.*?)([0-9]+)", re.S)


def compress_hostlist(names: Sequence[str]) -> str:
    """Return the shortest host list of ``names`` in Slurm's syntax that expands to them, in order.

    Neighbouring names that differ only in a trailing number counting up by one become a
    range (``node0400 .. node0431`` -> ``node[0400-0431]``), keeping their zero padding;
    neighbouring ranges of one prefix share a bracket.  The order is kept (sort first for
    Slurm's sorted form), so ``expand_hostlist(compress_hostlist(names)) == list(names)``.

    Raises
    ------
    InvalidInputError
        On a name that is empty, not a string, or holds a character of the syntax
        (``[``, ``]``, ``,``, white space), naming it and its index.

    Examples
    --------
    >>> compress_hostlist(["node0400", "node0401", "node0402", "node0500", "login1"])
    'node[0400-0402,0500],login1'
    >>> compress_hostlist(["n9", "n10", "n08"])
    'n[9-10,08]'
    """
    groups: list[tuple[str, list | None]] = []  # (prefix, runs [first, last, width]) or (name, None)
    for k, name in enumerate(names):
        if not isinstance(name, str) or not name or any(c in name for c in "[],") or any(c.isspace() for c in name):
            raise InvalidInputError(f"hostlist: names[{k}] cannot be written in a host list; got {name!r}")
        m = _TRAILING_DIGITS.fullmatch(name)
        if m is None or not m.group(2).isascii():
            groups.append((name, None))
            continue
        prefix, digits = m.groups()
        value = int(digits)
        if groups and groups[-1][1] is not None and groups[-1][0] == prefix:
            run = groups[-1][1][-1]
            if value == run[1] + 1 and f"{value:0{run[2]}d}" == digits:
                run[1] = value
            else:
                groups[-1][1].append([value, value, len(digits)])
            continue
        groups.append((prefix, [[value, value, len(digits)]]))
    parts = []
    for prefix, runs in groups:
        if runs is None:
            parts.append(prefix)
            continue
        ranges = [f"{a:0{w}d}" if a == b else f"{a:0{w}d}-{b:0{w}d}" for a, b, w in runs]
        single = len(runs) == 1 and runs[0][0] == runs[0][1]
        parts.append(prefix + ranges[0] if single else f"{prefix}[{','.join(ranges)}]")
    return ",".join(parts)


def natural_key(name: str) -> tuple:
    """Sort key of a name with its numbers compared as numbers (``s2`` before ``s10``).

    Examples
    --------
    >>> sorted(["s10", "s2", "s02", "r1"], key=natural_key)
    ['r1', 's02', 's2', 's10']
    """
    return tuple((0, int(t), t) if t.isdigit() else (1, 0, t) for t in re.split(r"([0-9]+)", name) if t)


# -- topology.conf / scontrol show topology ------------------------------------------------------
