"""Reading and writing machine files: where every rank of an allocation sits in the network.

This module reads the lines and hands them to the network kind's form (:mod:`~mpitaskmap.machines.kinds`):
a file whose first directive is ``network NAME`` to the kind ``NAME`` (the dragonfly form:
:mod:`mpitaskmap.machines.dragonfly.machine_file`), any other to the torus form
(:mod:`mpitaskmap.machines.torus.machine_file`).

The format (version 1) is plain text, one directive or rank per line; ``#`` starts a
comment; blank lines are ignored.

==========================  ==================================================================
line                        meaning
==========================  ==================================================================
``dims 17 8 24``            network lengths (required unless passed as ``dims=``)
``wrap 1 1 0``              torus (1) or mesh (0) per dimension (default all 1)
``bandwidth gemini``        link bandwidths: ``gemini`` or one value per dimension
``names X Y Z``             dimension names used in reports
``ranks_per_node 24``       consecutive ranks on one router are cut into nodes of this size
``x y z``                   one rank: its router coordinate
``x y z node=7``            one rank with an explicit node id
``host nid00012 16 x y z``  ``16`` consecutive ranks on host ``nid00012`` at router x y z
==========================  ==================================================================

Ranks are numbered in file order.  A file of bare ``x y z`` lines and nothing else (the
Zoltan2 test format, e.g. the bundled Hopper allocation) reads with ``dims=`` given by the
caller.  Node ids: explicit ``node=`` or ``host`` lines win; otherwise consecutive ranks
with the same router form nodes of ``ranks_per_node`` (default: every rank its own node).
A node sits at one router: a host (or ``node=`` id) given at two routers is an error
naming it and both lines.  A ``host`` line that repeats an earlier one exactly (same name,
slots and router) is an error naming both lines, not more slots: it is how a host listed
twice or a file pasted twice reads.  A host may still appear on several lines with
different slot counts; ranks placed round-robin over nodes (one rank a line, hosts
repeating) are written as ``x y z node=N`` lines.
Every error names the file, the line number and the offending text.

The dragonfly form
------------------
A file whose first directive is a ``network dragonfly`` line describes an allocation on a
:class:`~mpitaskmap.machines.DragonflyMachine` (HPE Slingshot or Cray Aries), e.g. from
``sacct``'s node list and the nodes' xnames (the cabinet is the group on an HPE Cray EX)::

    # 3 Slingshot groups of 4 switches, 2 nodes each
    network dragonfly n_groups=3 switches=4 nodes_per_switch=2 global_links=2 bw_node=50 bw_local=25 bw_global=25
    host nid000012 8 0 1      # 8 ranks on nid000012: group 0, switch 1
    host nid000107 8 2 3

=====================================  ==========================================================
``network dragonfly KEY=VALUE ...``    the shape, wiring, bandwidths and routing (first directive;
                                       keys below, separated by spaces or commas)
``host NAME RANKS GROUP SWITCH``       ``RANKS`` consecutive ranks on host ``NAME``, attached to
                                       switch ``SWITCH`` of group ``GROUP`` (all-to-all groups)
``host NAME RANKS GROUP ROW COLUMN``   the same on a row/column group (Aries: chassis, blade);
                                       the switch is ``ROW * columns + COLUMN``
=====================================  ==========================================================

Keys of the ``network`` line (as :class:`~mpitaskmap.machines.DragonflyMachine` and the
``sim:dragonfly`` spec name them): ``n_groups``, ``switches`` (``S``: all-to-all, Slingshot;
``RxC``: rows x columns, Aries) and ``nodes_per_switch`` are required; ``global_links``
(per pair of groups, default 1), ``global_ports`` (per switch, default the fewest that fit),
``routing`` (``minimal``, ``ecmp``, ``valiant``, ``ugal`` or ``either``, default minimal), and the GB/s of the links: ``bw``
for every class and ``bw_node``, ``bw_local`` (all-to-all), ``bw_green``, ``bw_black``
(row/column) and ``bw_global`` per class, a class value winning over ``bw`` (default the
machine's 25 GB/s everywhere; per-class values name every class unless ``bw`` is given).
Ranks are numbered in file order.  A host is one node; the nodes of one switch take its slots
``0, 1, ...`` in file order (the routes do not depend on the slot), so a host is node
``(GROUP * S + SWITCH) * nodes_per_switch + slot`` of the machine.  Errors, each naming the
file and line: an unknown or missing key, a shape the machine refuses, a host line with
another field count than the wiring's, a group, switch, row or column out of range, more
hosts on a switch than it has nodes, a host given twice, and any torus directive or bare
coordinate line (the two forms do not mix).  :func:`machine_file_hosts` gives the hosts'
names by node id (for the map files).
"""

from __future__ import annotations

import os
from typing import Sequence

from ..errors import InvalidInputError
from .base import Machine
from .kinds import file_form, file_form_of, file_networks

__all__ = ["read_machine_file", "write_machine_file", "machine_file_hosts", "file_error", "file_ints",
           "file_line_texts"]


def file_error(path, lineno: int, text: str, what: str) -> InvalidInputError:
    """Return the error of line ``lineno`` of a machine file: ``path:line: what; got 'text'``."""
    return InvalidInputError(f"{path}:{lineno}: {what}; got {text.strip()!r}")


def file_ints(tokens, path, lineno, text, what) -> list[int]:
    """Return the tokens of a machine-file line as integers, or raise :func:`file_error` naming ``what``."""
    try:
        return [int(t) for t in tokens]
    except ValueError:
        raise file_error(path, lineno, text, f"{what} must be integers") from None


def read_machine_file(
    path: str | os.PathLike,
    *,
    dims: Sequence[int] | None = None,
    wrap=None,
    ranks_per_node: int | None = None,
    bandwidth=None,
    name: str | None = None,
) -> Machine:
    """Read a machine file (module notes): a TorusMachine, or the machine of the ``network NAME`` line's kind.

    Parameters
    ----------
    path : str or path-like
        The file.
    dims, wrap, ranks_per_node : optional
        Override (or supply, for bare coordinate files) the header directives of the torus
        form; refused for the dragonfly form (it has none of them).
    bandwidth : optional
        Override the file's bandwidths: ``gemini`` or one value per dimension (torus form);
        one GB/s value or one per link class (dragonfly form, as
        :class:`~mpitaskmap.machines.DragonflyMachine` takes it).
    name : str, optional
        Description (default: the file name).

    Returns
    -------
    Machine
        The dragonfly form (first directive ``network dragonfly``) gives a
        :class:`~mpitaskmap.machines.DragonflyMachine`, a ``network NAME`` line the machine of
        kind ``NAME``'s form, every other file a TorusMachine.

    Raises
    ------
    InvalidInputError
        On a malformed line, a coordinate outside ``dims``, inconsistent dimension counts,
        a file without ranks, the dragonfly form's errors (module notes) or lines of the two
        forms mixed; the message carries ``file:line``.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "alloc.txt")
    ...     with open(path, "w") as fh:
    ...         _ = fh.write("network dragonfly n_groups=3 switches=2x2 nodes_per_switch=2\\n"
    ...                      "host c0 4 0 1 1\\nhost c1 4 0 1 1\\nhost c2 4 2 0 1\\n")
    ...     m = read_machine_file(path)
    >>> m.wiring, m.n_procs, sorted(set(m.node_ids.tolist())), m.locate([0, 4, 8]).tolist()
    ('row-column', 12, [6, 7, 18], [[0, 3, 0], [0, 3, 1], [2, 1, 0]])
    """
    lines = _directives(path)
    form, name_line = _form(path, lines)
    if name_line:
        for key, value in (("dims", dims), ("wrap", wrap), ("ranks_per_node", ranks_per_node)):
            if value is not None:
                raise InvalidInputError(f"{path}: {key}= is a directive of the torus form, not of a "
                                        f"'network {lines[0][2][1].lower()}' file; got {key}={value!r}")
        return form.read(path, lines, bandwidth, name)[0]
    return form.read(path, lines, bandwidth, name, dims=dims, wrap=wrap, ranks_per_node=ranks_per_node)[0]


def _form(path, lines: list):
    """The form that reads ``lines`` (a kind's, by its ``network NAME`` line; else the headerless torus form)
    and whether it has a network line."""
    if lines and lines[0][2][0].lower() == "network":
        lineno, raw, tok = lines[0]
        form = file_form(tok[1].lower()) if len(tok) >= 2 else None
        if form is None:
            named = file_networks()
            known = (f"{named[0]} is the only network a machine file names" if len(named) == 1 else
                     f"the networks a machine file names are {', '.join(named)}")
            raise file_error(path, lineno, raw, f"the network line is 'network {named[0] if named else 'NAME'} "
                             f"KEY=VALUE ...' ({known}; a torus file has a 'dims' line instead)")
        return form, True
    form = file_form(None)
    if form is None:
        raise InvalidInputError(f"{path}: no network kind reads a machine file without a 'network' line")
    return form, False


def _directives(path: str | os.PathLike) -> list[tuple[int, str, list[str]]]:
    """(line number, raw line, tokens) of every line of ``path`` that is not blank or a comment."""
    out = []
    with open(path, "r", encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            tok = raw.split("#", 1)[0].split()
            if tok:
                out.append((lineno, raw, tok))
    return out


def machine_file_hosts(path: str | os.PathLike, machine: Machine) -> list[str] | None:
    """Return the host names of a machine file's ``host`` lines by node id of ``machine`` (read from ``path``).

    The map files' ``hosts=`` list (:func:`~mpitaskmap.machines.hosts.host_names`):
    ``names[k]`` is the host of node id ``k``.  Dragonfly form: every node is a host line and
    its id its node number (``''`` at ids without a node).  Torus form: the hosts numbered 0,
    1, ... in order of first appearance as :func:`read_machine_file` numbers them, or None
    when some node has no host line (the default naming then applies to the whole machine).

    Parameters
    ----------
    path : str or path-like
        The machine file.
    machine : Machine
        What :func:`read_machine_file` read from it.

    Returns
    -------
    list of str or None

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "alloc.txt")
    ...     with open(path, "w") as fh:
    ...         _ = fh.write("network dragonfly n_groups=3 switches=2 nodes_per_switch=2\\n"
    ...                      "host nid7 2 1 0\\nhost nid3 2 0 1\\n")
    ...     m = read_machine_file(path)
    ...     names = machine_file_hosts(path, m)
    >>> m.node_ids.tolist(), names
    ([4, 4, 2, 2], ['', '', 'nid3', '', 'nid7'])
    """
    lines = _directives(path)
    form, _ = _form(path, lines)
    if form.hosts is not None:
        return form.hosts(path, lines, machine)
    return form.read(path, lines, None, machine.name)[1]


def file_line_texts(path: str | os.PathLike, linenos: Sequence[int]) -> list[str]:
    """The text of the given lines of ``path`` (read again: only errors need them)."""
    want = set(linenos)
    found: dict[int, str] = {}
    with open(path, "r", encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if lineno in want:
                found[lineno] = raw
    return [found.get(n, "") for n in linenos]


def write_machine_file(machine: Machine, path: str | os.PathLike) -> None:
    """Write a machine in its kind's machine-file form (a TorusMachine: header, then one rank per line).

    The written file reads back with :func:`read_machine_file` into an equal machine
    (same coordinates, node ids, lengths, wrap flags and per-dimension bandwidths).

    Raises
    ------
    InvalidInputError
        If no registered kind writes machines of this type.
    """
    found = file_form_of(machine)
    if found is None:
        raise InvalidInputError(f"machine: no network kind writes a {type(machine).__name__} as a machine file")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(found[1].write(machine)) + "\n")
