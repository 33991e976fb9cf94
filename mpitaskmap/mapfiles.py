"""Map and rank-reorder files: tell the launcher where every MPI rank should run.

Every writer takes a :class:`~mpitaskmap.mapping.Mapping` (task ``t`` = MPI rank ``t`` of
the application, placed on processor ``mapping.task_to_proc[t]`` of its machine) and every
reader takes the file plus the :class:`~mpitaskmap.machine.Machine` it refers to and
returns a ``Mapping`` again, so any mapper's result can be written and any file evaluated
with :mod:`mpitaskmap.metrics`.  Targets are a path (``str`` or path-like, opened and
closed here) or an open text stream.  Lines starting with ``#`` and blank lines are
ignored by every reader; every reader error names the file, the line and the bad text.

Formats
-------
``"bluegene"`` -- Blue Gene/P and Blue Gene/Q map file (:func:`write_bluegene_map`).
    One line per rank, in rank order (line ``r`` is rank ``r``): the router coordinates
    of the rank's processor followed by its core slot ``t``, separated by single spaces,
    no header, no trailing space::

        0 0 0 0
        0 0 0 1
        1 0 0 0

    BG/P: ``x y z t`` (``mpirun -mapfile FILE``); BG/Q: ``a b c d e t`` (``runjob
    --mapping FILE``).  The slot of a processor is its position among the processors on
    the same router, in processor-id order (:func:`router_slots`); on Blue Gene, with one
    node per router, that is the core (``T``) coordinate.  This is also the format of the
    released Rubik's ``write_map_file``.

``"mpich_rank_order"`` -- Cray MPICH custom rank order (:func:`write_mpich_rank_order`).
    Used with ``MPICH_RANK_REORDER_METHOD=3``: Cray MPICH reads the file named
    ``MPICH_RANK_ORDER`` from the working directory of rank 0 and places the listed ranks
    on the job's slots in the order listed, filling the first node's cores, then the
    next node's, in the launcher's node order.  Entry ``i`` of the list is therefore the
    rank that runs on processor ``i`` of the machine (processor ids follow that launch
    order).  Ranks are separated by commas; ``a-b`` is the range ``a, a+1, ..., b`` (a
    descending range ``b-a`` is read as well); line breaks have no meaning beyond
    separating entries.  We write one line per node::

        # mpitaskmap rank order: use with MPICH_RANK_REORDER_METHOD=3
        0,1,4,5
        2,3,6,7

    The mapping must be a permutation (as many ranks as processors, one each).

``"csv"`` -- plain CSV (:func:`write_mapping_csv`), one row per rank in rank order with a
    header: ``rank,proc,node`` followed, on a torus, by one column per dimension (named
    after ``machine.dim_names``) and ``slot``::

        rank,proc,node,X,Y,slot
        0,3,3,1,1,0

    The reader takes the ``proc`` column and checks ``node`` and the coordinates against
    the machine.

``"openmpi_rankfile"`` -- Open MPI rankfile (:func:`write_openmpi_rankfile`).
    Read by Open MPI's launcher: ``mpirun --rankfile FILE`` (Open MPI 4 and earlier) or
    ``mpirun --map-by rankfile:file=FILE`` (Open MPI 5).  One line per rank, in rank
    order: ``rank R=HOST slot=S``, where ``HOST`` is the host name of the node
    (:func:`host_names`) and ``S`` the processor's position among the processors of its
    node, in processor-id order (the logical core index; :func:`node_slots`)::

        rank 0=nid00000 slot=0
        rank 1=nid00001 slot=1
        rank 2=nid00000 slot=1

    The file pins every rank to one core, so reading it back gives the same mapping.

``"slurm_hostfile"`` -- Slurm arbitrary-distribution host list (:func:`write_slurm_hostfile`).
    Read by ``srun --distribution=arbitrary`` from the file named by the environment
    variable ``SLURM_HOSTFILE``: line ``r`` is the host name of the node that runs rank
    ``r``, nothing else on the line::

        nid00000
        nid00001
        nid00000

    It fixes the node of every rank, not the core: Slurm numbers the ranks of one node
    onto its cores itself.  The reader therefore places the ranks of each node on that
    node's processors in ascending rank order.  Every metric of a torus depends only on
    the routers, and all processors of a node share one router, so the metrics of the
    read-back mapping equal those of the written one; the mapping itself is equal when
    the written one already kept each node's ranks in ascending processor order (see
    :func:`node_canonical`).

Host names
----------
Both host files name nodes.  ``hosts=None`` uses :data:`DEFAULT_HOST_FORMAT`
(``"nid%05d"``: Cray's ``nid`` names from the node id, as on the Cray systems and the
simulated Titan); a ``%`` format string is applied to the node id (``"node%d"``); a
sequence gives the name of node id ``k`` at position ``k`` (e.g. the names of a job's
``scontrol show hostnames`` in node-id order, or a machine file's ``host`` lines).
Readers take the same ``hosts`` to turn names back into node ids.

Notes
-----
Plain coordinate lines without a machine (what Rubik writes for any box) are handled by
:func:`write_coordinate_lines` and :func:`read_coordinate_lines`.  :data:`MAP_FORMATS`
registers each format's writer and reader by name; :func:`write_map` and
:func:`read_map` dispatch on it.
"""

from __future__ import annotations

import contextlib
import csv
import os
import sys
from typing import Callable, Iterator, TextIO

import numpy as np

from .errors import InvalidInputError
from .machine import Machine, TorusMachine
from .mapping import Mapping
from .taskgraph import TaskGraph

__all__ = [
    "write_coordinate_lines",
    "read_coordinate_lines",
    "router_slots",
    "mapping_coords",
    "coords_to_procs",
    "write_bluegene_map",
    "read_bluegene_map",
    "write_mpich_rank_order",
    "read_mpich_rank_order",
    "write_mapping_csv",
    "read_mapping_csv",
    "DEFAULT_HOST_FORMAT",
    "host_names",
    "node_slots",
    "node_canonical",
    "write_openmpi_rankfile",
    "read_openmpi_rankfile",
    "write_slurm_hostfile",
    "read_slurm_hostfile",
    "MAP_FORMATS",
    "write_map",
    "read_map",
]

RANK_ORDER_HEADER = "# mpitaskmap rank order: use with MPICH_RANK_REORDER_METHOD=3"


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


def _torus(mapping: Mapping) -> TorusMachine:
    if not isinstance(mapping, Mapping):
        raise InvalidInputError(f"mapping: expected a Mapping; got {type(mapping).__name__}")
    if not isinstance(mapping.machine, TorusMachine):
        raise InvalidInputError(
            f"mapping: this format needs a machine with router coordinates (TorusMachine); "
            f"got {type(mapping.machine).__name__}"
        )
    return mapping.machine


# -- coordinate lines ---------------------------------------------------------------------
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


# -- Blue Gene ----------------------------------------------------------------------------
def router_slots(machine: TorusMachine) -> np.ndarray:
    """Return the slot of every processor on its router (0, 1, ... in processor-id order).

    Parameters
    ----------
    machine : TorusMachine
        The processors.

    Returns
    -------
    (n_procs,) ndarray of intp
        Position of each processor among the processors that share its router.

    Examples
    --------
    >>> from mpitaskmap.simulated import torus_machine
    >>> router_slots(torus_machine([2], cores_per_node=3)).tolist()
    [0, 1, 2, 0, 1, 2]
    """
    if not isinstance(machine, TorusMachine):
        raise InvalidInputError(f"machine: expected a TorusMachine; got {type(machine).__name__}")
    rid = machine.router_ids()
    order = np.argsort(rid, kind="stable")
    sorted_rid = rid[order]
    starts = np.concatenate(([True], sorted_rid[1:] != sorted_rid[:-1]))
    first = np.maximum.accumulate(np.where(starts, np.arange(rid.size), 0))
    slots = np.empty(rid.size, dtype=np.intp)
    slots[order] = np.arange(rid.size) - first
    return slots


def mapping_coords(mapping: Mapping) -> np.ndarray:
    """Return the Blue Gene coordinates of every task: router coordinates plus core slot.

    Parameters
    ----------
    mapping : Mapping
        A mapping on a :class:`~mpitaskmap.machine.TorusMachine`.

    Returns
    -------
    (n_tasks, n_dims + 1) ndarray of int64
        Row ``t``: the router coordinates of task ``t``'s processor, then its slot.
    """
    machine = _torus(mapping)
    p = mapping.task_to_proc
    return np.column_stack([machine.router_coords[p], router_slots(machine)[p]]).astype(np.int64)


def _lookup(coords: np.ndarray, machine: TorusMachine) -> tuple[np.ndarray, np.ndarray]:
    """Return (processor, found) for every (router coordinates[, slot]) row of ``coords``."""
    d = machine.n_dims
    if coords.ndim != 2 or coords.shape[1] not in (d, d + 1):
        raise InvalidInputError(
            f"coords: expected {d + 1} columns (router coordinates of a {d}-D machine, then the slot) "
            f"or {d} (slot 0); got shape {coords.shape}"
        )
    slot = coords[:, d] if coords.shape[1] == d + 1 else np.zeros(coords.shape[0], dtype=np.int64)
    router = coords[:, :d]
    bad = ((router < 0) | (router >= machine.dims[None, :])).any(axis=1) | (slot < 0)
    proc_slots = router_slots(machine).astype(np.int64)
    width = int(proc_slots.max()) + 1
    strides = np.concatenate(([1], np.cumprod(machine.dims[:-1]))).astype(np.int64)
    proc_keys = machine.router_ids() * width + proc_slots
    order = np.argsort(proc_keys, kind="stable")
    sorted_keys = proc_keys[order]
    keys = np.where(bad, -1, (np.clip(router, 0, None) @ strides) * width + np.minimum(slot, width))
    pos = np.clip(np.searchsorted(sorted_keys, keys), 0, sorted_keys.size - 1)
    found = ~bad & (slot < width) & (sorted_keys[pos] == keys)
    return order[pos].astype(np.intp), found


def coords_to_procs(coords, machine: TorusMachine) -> np.ndarray:
    """Return the processor at every row of router coordinates plus slot.

    Parameters
    ----------
    coords : (n, n_dims + 1) or (n, n_dims) array_like of int
        Router coordinates then the slot (:func:`router_slots`); without the slot
        column, slot 0.
    machine : TorusMachine
        The processors.

    Returns
    -------
    (n,) ndarray of intp
        Processor ids.

    Raises
    ------
    InvalidInputError
        On the wrong number of columns, or a row with no processor (naming the row).

    Examples
    --------
    >>> from mpitaskmap.simulated import torus_machine
    >>> coords_to_procs([[1, 1], [0, 0]], torus_machine([2], cores_per_node=2)).tolist()
    [3, 0]
    """
    if not isinstance(machine, TorusMachine):
        raise InvalidInputError(f"machine: expected a TorusMachine; got {type(machine).__name__}")
    arr = np.asarray(coords)
    if arr.ndim != 2 or (arr.size and arr.dtype.kind not in "iu"):
        raise InvalidInputError(f"coords: expected a 2-D integer array; got shape {arr.shape}, dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    procs, found = _lookup(arr, machine)
    if not found.all():
        i = int(np.flatnonzero(~found)[0])
        raise InvalidInputError(
            f"coords: row {i} names no processor of the machine (router coordinates, slot); got {arr[i].tolist()}"
        )
    return procs


def write_bluegene_map(mapping: Mapping, path) -> None:
    """Write a Blue Gene/P or /Q map file: per rank, router coordinates and core slot.

    Parameters
    ----------
    mapping : Mapping
        A mapping on a :class:`~mpitaskmap.machine.TorusMachine` (BG/P: 3-D, BG/Q: 5-D).
    path : str, path-like or text stream
        Where to write.

    Raises
    ------
    InvalidInputError
        If the machine has no router coordinates.

    Examples
    --------
    >>> from mpitaskmap.simulated import torus_machine
    >>> m = Mapping([1, 2, 0], torus_machine([3]))
    >>> write_bluegene_map(m, sys.stdout)
    1 0
    2 0
    0 0
    """
    write_coordinate_lines(mapping_coords(mapping), path)


def read_bluegene_map(path, machine: TorusMachine, graph: TaskGraph | None = None) -> Mapping:
    """Read a Blue Gene map file into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file: line ``r`` holds rank ``r``'s router coordinates and slot (a file with
        only the router coordinates means slot 0).
    machine : TorusMachine
        The machine the coordinates refer to.
    graph : TaskGraph, optional
        Attached to the result for metrics.

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        On a malformed line, a coordinate/slot with no processor (naming the line), or
        two ranks on one processor.
    """
    if not isinstance(machine, TorusMachine):
        raise InvalidInputError(f"machine: expected a TorusMachine; got {type(machine).__name__}")
    name = _name(path)
    coords, lines, rows = _int_lines(path)
    try:
        procs, found = _lookup(coords, machine)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{name}: {exc}") from None
    if not found.all():
        i = int(np.flatnonzero(~found)[0])
        raise InvalidInputError(
            f"{name}:{lines[i]}: no processor of the machine at these router coordinates and slot; "
            f"got {rows[i]!r}"
        )
    return Mapping(procs, machine, graph, method=f"bluegene map {name}")


# -- Cray MPICH_RANK_ORDER ----------------------------------------------------------------
def _compress(ranks: list[int]) -> str:
    parts, i = [], 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        parts.append(f"{ranks[i]}-{ranks[j]}" if j > i else str(ranks[i]))
        i = j + 1
    return ",".join(parts)


def write_mpich_rank_order(mapping: Mapping, path, *, ranges: bool = False) -> None:
    """Write a Cray ``MPICH_RANK_ORDER`` file (for ``MPICH_RANK_REORDER_METHOD=3``).

    Parameters
    ----------
    mapping : Mapping
        A permutation mapping; processor ids are the launcher's slot order.
    path : str, path-like or text stream
        Where to write (Cray MPICH looks for a file named ``MPICH_RANK_ORDER``).
    ranges : bool, optional
        Write runs of consecutive ranks as ``a-b`` (default False: every rank listed).

    Raises
    ------
    InvalidInputError
        If the mapping is not a permutation.

    Examples
    --------
    >>> from mpitaskmap.simulated import torus_machine
    >>> m = Mapping([0, 2, 1, 3], torus_machine([2], cores_per_node=2))
    >>> write_mpich_rank_order(m, sys.stdout)
    # mpitaskmap rank order: use with MPICH_RANK_REORDER_METHOD=3
    0,2
    1,3
    """
    if not isinstance(mapping, Mapping):
        raise InvalidInputError(f"mapping: expected a Mapping; got {type(mapping).__name__}")
    if not mapping.is_permutation:
        raise InvalidInputError(
            f"mapping: MPICH_RANK_ORDER needs one rank per processor; got {mapping.n_tasks} tasks "
            f"on {mapping.machine.n_procs} processors"
        )
    order = mapping.inverse().tolist()
    nodes = mapping.machine.node_ids
    breaks = np.flatnonzero(nodes[1:] != nodes[:-1]) + 1
    bounds = [0, *breaks.tolist(), len(order)]
    lines = [RANK_ORDER_HEADER]
    for a, b in zip(bounds[:-1], bounds[1:]):
        chunk = order[a:b]
        lines.append(_compress(chunk) if ranges else ",".join(map(str, chunk)))
    with _opened(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def read_mpich_rank_order(path, machine: Machine, graph: TaskGraph | None = None) -> Mapping:
    """Read a Cray ``MPICH_RANK_ORDER`` file into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file: entry ``i`` is the rank placed on processor ``i``.
    machine : Machine
        The processors in launch order.
    graph : TaskGraph, optional
        Attached to the result for metrics.

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        On a malformed entry (naming the line), a repeated or missing rank, or more
        entries than processors.
    """
    name = _name(path)
    entries: list[int] = []
    first_line: dict[int, int] = {}
    with _opened(path, "r") as fh:
        for lineno, text, raw in _content_lines(fh):
            for tok in text.replace(",", " ").split():
                try:
                    if "-" in tok.lstrip("-"):
                        a, b = (int(v) for v in tok.split("-"))
                        vals = list(range(a, b + 1)) if a <= b else list(range(a, b - 1, -1))
                    else:
                        vals = [int(tok)]
                except ValueError:
                    raise _line_error(name, lineno, raw, f"bad rank entry {tok!r}") from None
                for v in vals:
                    if v < 0:
                        raise _line_error(name, lineno, raw, f"negative rank {v}")
                    if v in first_line:
                        raise _line_error(name, lineno, raw, f"rank {v} already listed on line {first_line[v]}")
                    first_line[v] = lineno
                    entries.append(v)
    n = len(entries)
    if n == 0:
        raise InvalidInputError(f"{name}: no ranks found; got an empty rank order")
    if n > machine.n_procs:
        raise InvalidInputError(f"{name}: lists {n} ranks but the machine has {machine.n_procs} processors; got {n}")
    missing = sorted(set(range(n)) - set(entries))
    if missing:
        raise InvalidInputError(f"{name}: ranks must be 0..{n - 1}, each once; got rank {missing[0]} missing")
    ttp = np.empty(n, dtype=np.intp)
    ttp[np.asarray(entries)] = np.arange(n)
    return Mapping(ttp, machine, graph, capacity=1, method=f"MPICH_RANK_ORDER {name}")


# -- CSV ----------------------------------------------------------------------------------
def write_mapping_csv(mapping: Mapping, path) -> None:
    """Write a plain CSV: rank, processor, node and (on a torus) coordinates and slot.

    Parameters
    ----------
    mapping : Mapping
        Any mapping.
    path : str, path-like or text stream
        Where to write.

    Examples
    --------
    >>> from mpitaskmap.simulated import torus_machine
    >>> write_mapping_csv(Mapping([1, 0], torus_machine([2])), sys.stdout)
    rank,proc,node,X,slot
    0,1,1,1,0
    1,0,0,0,0
    """
    if not isinstance(mapping, Mapping):
        raise InvalidInputError(f"mapping: expected a Mapping; got {type(mapping).__name__}")
    machine = mapping.machine
    p = mapping.task_to_proc
    header = ["rank", "proc", "node"]
    cols = [np.arange(p.size), p, machine.node_ids[p]]
    if isinstance(machine, TorusMachine):
        header += list(machine.dim_names) + ["slot"]
        cols += list(machine.router_coords[p].T) + [router_slots(machine)[p]]
    table = np.column_stack(cols).astype(np.int64)
    with _opened(path, "w") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(table.tolist())


def read_mapping_csv(path, machine: Machine, graph: TaskGraph | None = None) -> Mapping:
    """Read a CSV written by :func:`write_mapping_csv` into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file; needs ``rank`` and ``proc`` columns, any others are checked if known
        (``node``, the dimension names, ``slot``).
    machine : Machine
        The processors.
    graph : TaskGraph, optional
        Attached to the result for metrics.

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        On a missing column, a non-integer cell, ranks that are not 0..n-1 each once, or a
        node/coordinate that disagrees with the machine (naming the line).
    """
    name = _name(path)
    with _opened(path, "r") as fh:
        reader = csv.reader(line for line in fh if line.strip() and not line.lstrip().startswith("#"))
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            raise InvalidInputError(f"{name}: no header found; got an empty file") from None
        rows = list(reader)
    for col in ("rank", "proc"):
        if col not in header:
            raise InvalidInputError(f"{name}: the header needs a {col!r} column; got {header}")
    try:
        table = np.asarray([[int(v) for v in row] for row in rows], dtype=np.int64).reshape(len(rows), len(header))
    except ValueError:
        raise InvalidInputError(f"{name}: every cell must be an integer and every row have {len(header)} cells") from None
    if table.shape[0] == 0:
        raise InvalidInputError(f"{name}: no rows found; got a header only")
    col = {h: table[:, k] for k, h in enumerate(header)}
    rank, proc = col["rank"], col["proc"]
    n = rank.size
    if sorted(rank.tolist()) != list(range(n)):
        raise InvalidInputError(f"{name}: the rank column must hold 0..{n - 1} once each; got {rank[:8].tolist()}...")
    bad = (proc < 0) | (proc >= machine.n_procs)
    expected = {"node": None}
    if isinstance(machine, TorusMachine):
        expected.update({d: k for k, d in enumerate(machine.dim_names)})
        expected["slot"] = -1
    safe = np.clip(proc, 0, machine.n_procs - 1)
    for h, k in expected.items():
        if h not in col:
            continue
        if h == "node":
            truth = machine.node_ids[safe]
        elif k == -1:
            truth = router_slots(machine)[safe]
        else:
            truth = machine.router_coords[safe, k]
        bad |= col[h] != truth
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"{name}:{i + 2}: processor, node or coordinates do not match the machine; got {table[i].tolist()}"
        )
    ttp = np.empty(n, dtype=np.intp)
    ttp[rank] = proc
    return Mapping(ttp, machine, graph, method=f"csv {name}")


# -- host names (Open MPI rankfile, Slurm host list) -----------------------------------------
#: Host name of node id ``k`` when no names are given: Cray's ``nid`` convention.
DEFAULT_HOST_FORMAT = "nid%05d"


def host_names(machine: Machine, hosts=None) -> list[str]:
    """Return the host name of every node id ``0 .. max(node_ids)`` of ``machine``.

    Parameters
    ----------
    machine : Machine
        The processors; their ``node_ids`` index the result.
    hosts : None, str or sequence of str, optional
        None: :data:`DEFAULT_HOST_FORMAT` (``"nid%05d"``) applied to the node id; a
        string with ``%``: that format applied to the node id; a sequence: the name of
        node id ``k`` is ``hosts[k]``.

    Returns
    -------
    list of str
        ``names[k]`` is the host of node id ``k``.

    Raises
    ------
    InvalidInputError
        If a format has no ``%`` or fails, the sequence is shorter than the largest node
        id, or the names used by the machine are empty, contain white space or repeat.

    Examples
    --------
    >>> from mpitaskmap.machine import FlatMachine
    >>> host_names(FlatMachine([0, 0, 1]))
    ['nid00000', 'nid00001']
    >>> host_names(FlatMachine([0, 1]), "node%d"), host_names(FlatMachine([1, 0]), ["a", "b"])
    (['node0', 'node1'], ['a', 'b'])
    """
    if not isinstance(machine, Machine):
        raise InvalidInputError(f"machine: expected a Machine; got {type(machine).__name__}")
    n = int(machine.node_ids.max()) + 1
    if hosts is None:
        hosts = DEFAULT_HOST_FORMAT
    if isinstance(hosts, str):
        if "%" not in hosts:
            raise InvalidInputError(f"hosts: a host-name format needs a % field like 'nid%05d'; got {hosts!r}")
        try:
            names = [hosts % k for k in range(n)]
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"hosts: format {hosts!r} cannot take a node id ({exc}); got {hosts!r}") from None
    else:
        names = [str(h) for h in hosts]
        if len(names) < n:
            raise InvalidInputError(
                f"hosts: need a name for every node id 0..{n - 1}; got {len(names)} names"
            )
    used = np.unique(machine.node_ids).tolist()
    seen: dict[str, int] = {}
    for k in used:
        name = names[k]
        if not name or any(c.isspace() for c in name):
            raise InvalidInputError(f"hosts: node {k} needs a non-empty name without white space; got {name!r}")
        if name in seen:
            raise InvalidInputError(f"hosts: nodes {seen[name]} and {k} have the same name; got {name!r}")
        seen[name] = k
    return names


def _node_of_host(machine: Machine, hosts) -> dict[str, int]:
    names = host_names(machine, hosts)
    return {names[k]: k for k in np.unique(machine.node_ids).tolist()}


def node_slots(machine: Machine) -> np.ndarray:
    """Return the slot of every processor on its node (0, 1, ... in processor-id order).

    Parameters
    ----------
    machine : Machine
        The processors.

    Returns
    -------
    (n_procs,) ndarray of intp
        Position of each processor among the processors of its node: the logical core
        index written to an Open MPI rankfile.

    Examples
    --------
    >>> from mpitaskmap.machine import FlatMachine
    >>> node_slots(FlatMachine([3, 3, 0, 3, 0])).tolist()
    [0, 1, 0, 2, 1]
    """
    if not isinstance(machine, Machine):
        raise InvalidInputError(f"machine: expected a Machine; got {type(machine).__name__}")
    node = machine.node_ids
    order = np.argsort(node, kind="stable")
    sorted_node = node[order]
    starts = np.concatenate(([True], sorted_node[1:] != sorted_node[:-1]))
    first = np.maximum.accumulate(np.where(starts, np.arange(node.size), 0))
    slots = np.empty(node.size, dtype=np.intp)
    slots[order] = np.arange(node.size) - first
    return slots


def _node_procs(machine: Machine) -> dict[int, np.ndarray]:
    """Processors of every node id, ascending."""
    order = np.argsort(machine.node_ids, kind="stable")
    nodes, starts = np.unique(machine.node_ids[order], return_index=True)
    return {int(k): p for k, p in zip(nodes.tolist(), np.split(order, starts[1:]))}


def _procs_of_nodes(task_node: np.ndarray, machine: Machine) -> np.ndarray:
    """Place the tasks of every node on its processors in ascending task order."""
    procs = _node_procs(machine)
    ttp = np.empty(task_node.size, dtype=np.intp)
    order = np.argsort(task_node, kind="stable")
    nodes, starts, counts = np.unique(task_node[order], return_index=True, return_counts=True)
    for k, a, c in zip(nodes.tolist(), starts.tolist(), counts.tolist()):
        p = procs[k]
        tasks = order[a:a + c]
        # more ranks than cores: deal them round-robin (the capacity check of Mapping decides)
        ttp[tasks] = p[np.arange(c) % p.size]
    return ttp


def node_canonical(mapping: Mapping) -> Mapping:
    """Return ``mapping`` with the ranks of every node on its processors in ascending order.

    Every task keeps its node, so every metric of a machine whose nodes each sit on one
    router is unchanged; this is what a node-level file (:func:`write_slurm_hostfile`)
    can express, and what :func:`read_slurm_hostfile` returns.

    Parameters
    ----------
    mapping : Mapping
        Any mapping.

    Returns
    -------
    Mapping
        Same machine, graph and method.

    Examples
    --------
    >>> from mpitaskmap.machine import FlatMachine
    >>> node_canonical(Mapping([1, 0, 2], FlatMachine([0, 0, 1]))).task_to_proc.tolist()
    [0, 1, 2]
    """
    if not isinstance(mapping, Mapping):
        raise InvalidInputError(f"mapping: expected a Mapping; got {type(mapping).__name__}")
    machine = mapping.machine
    ttp = _procs_of_nodes(machine.node_ids[mapping.task_to_proc], machine)
    return Mapping(ttp, machine, mapping.graph, capacity=mapping.capacity, method=mapping.method,
                   info=mapping.info)


# -- Open MPI rankfile -------------------------------------------------------------------------
def write_openmpi_rankfile(mapping: Mapping, path, *, hosts=None) -> None:
    """Write an Open MPI rankfile (``mpirun --rankfile FILE``): per rank, host and core slot.

    Parameters
    ----------
    mapping : Mapping
        Any mapping (processor ids are the cores of the allocation in launch order).
    path : str, path-like or text stream
        Where to write.
    hosts : None, str or sequence of str, optional
        Host names of the nodes, see :func:`host_names` (default ``"nid%05d"``).

    Raises
    ------
    InvalidInputError
        On bad host names.

    Examples
    --------
    >>> from mpitaskmap.machine import FlatMachine
    >>> m = Mapping([2, 0, 1, 3], FlatMachine([0, 0, 1, 1]))
    >>> write_openmpi_rankfile(m, sys.stdout, hosts=["n1", "n2"])
    rank 0=n2 slot=0
    rank 1=n1 slot=0
    rank 2=n1 slot=1
    rank 3=n2 slot=1
    """
    if not isinstance(mapping, Mapping):
        raise InvalidInputError(f"mapping: expected a Mapping; got {type(mapping).__name__}")
    machine = mapping.machine
    names = host_names(machine, hosts)
    p = mapping.task_to_proc
    node = machine.node_ids[p].tolist()
    slot = node_slots(machine)[p].tolist()
    text = "".join(f"rank {r}={names[k]} slot={s}\n" for r, (k, s) in enumerate(zip(node, slot)))
    with _opened(path, "w") as fh:
        fh.write(text)


def read_openmpi_rankfile(path, machine: Machine, graph: TaskGraph | None = None, *, hosts=None) -> Mapping:
    """Read an Open MPI rankfile into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file: lines ``rank R=HOST slot=S`` (any order, ranks 0..n-1 once each) with a
        single logical core ``S`` (:func:`node_slots`); ``#`` lines are skipped.
    machine : Machine
        The processors the file refers to.
    graph : TaskGraph, optional
        Attached to the result for metrics.
    hosts : None, str or sequence of str, optional
        Host names of the nodes, as given to the writer (:func:`host_names`).

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        On a malformed line, an unknown host, a slot the node does not have, a
        socket:core or range slot (naming the line), or ranks that are not 0..n-1 once
        each.
    """
    name = _name(path)
    node_of = _node_of_host(machine, hosts)
    procs = _node_procs(machine)
    placed: dict[int, tuple[int, int]] = {}
    with _opened(path, "r") as fh:
        for lineno, text, raw in _content_lines(fh):
            tok = text.split()
            if len(tok) != 3 or tok[0] != "rank" or "=" not in tok[1] or not tok[2].startswith("slot="):
                raise _line_error(name, lineno, raw, "expected 'rank R=HOST slot=S'")
            r_text, host = tok[1].split("=", 1)
            try:
                r, s = int(r_text), int(tok[2][5:])
            except ValueError:
                raise _line_error(
                    name, lineno, raw, "rank and slot must be integers (one logical core, as written here)"
                ) from None
            if r < 0 or s < 0:
                raise _line_error(name, lineno, raw, "rank and slot must be >= 0")
            if host not in node_of:
                raise _line_error(name, lineno, raw, f"unknown host {host!r} (not a node of the machine)")
            cores = procs[node_of[host]]
            if s >= cores.size:
                raise _line_error(name, lineno, raw, f"host {host} has slots 0..{cores.size - 1}")
            if r in placed:
                raise _line_error(name, lineno, raw, f"rank {r} already placed on line {placed[r][1]}")
            placed[r] = (int(cores[s]), lineno)
    n = len(placed)
    if n == 0:
        raise InvalidInputError(f"{name}: no 'rank' lines found; got an empty rankfile")
    missing = sorted(set(range(n)) - set(placed))
    if missing:
        raise InvalidInputError(f"{name}: ranks must be 0..{n - 1}, each once; got rank {missing[0]} missing")
    ttp = np.asarray([placed[r][0] for r in range(n)], dtype=np.intp)
    return Mapping(ttp, machine, graph, method=f"rankfile {name}")


# -- Slurm arbitrary distribution ----------------------------------------------------------------
def write_slurm_hostfile(mapping: Mapping, path, *, hosts=None) -> None:
    """Write a Slurm host list for ``srun --distribution=arbitrary`` (``SLURM_HOSTFILE``).

    Parameters
    ----------
    mapping : Mapping
        Any mapping; only the node of each rank is written.
    path : str, path-like or text stream
        Where to write (point ``SLURM_HOSTFILE`` at it).
    hosts : None, str or sequence of str, optional
        Host names of the nodes, see :func:`host_names` (default ``"nid%05d"``).

    Raises
    ------
    InvalidInputError
        On bad host names.

    Examples
    --------
    >>> from mpitaskmap.machine import FlatMachine
    >>> write_slurm_hostfile(Mapping([2, 0, 1, 3], FlatMachine([0, 0, 1, 1])), sys.stdout)
    nid00001
    nid00000
    nid00000
    nid00001
    """
    if not isinstance(mapping, Mapping):
        raise InvalidInputError(f"mapping: expected a Mapping; got {type(mapping).__name__}")
    names = host_names(mapping.machine, hosts)
    node = mapping.machine.node_ids[mapping.task_to_proc].tolist()
    with _opened(path, "w") as fh:
        fh.write("".join(names[k] + "\n" for k in node))


def read_slurm_hostfile(path, machine: Machine, graph: TaskGraph | None = None, *, hosts=None) -> Mapping:
    """Read a Slurm arbitrary-distribution host list into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file: line ``r`` (blank and ``#`` lines skipped) is the host of rank ``r``.
    machine : Machine
        The processors the file refers to.
    graph : TaskGraph, optional
        Attached to the result for metrics.
    hosts : None, str or sequence of str, optional
        Host names of the nodes, as given to the writer (:func:`host_names`).

    Returns
    -------
    Mapping
        The ranks of every node on its processors in ascending rank order (the file
        names nodes, not cores; see :func:`node_canonical`).

    Raises
    ------
    InvalidInputError
        On an unknown host or a line with more than one word (naming the line), an empty
        file, or more ranks on a node than it has processors (when the ranks fit the
        machine one per processor).
    """
    name = _name(path)
    node_of = _node_of_host(machine, hosts)
    task_node: list[int] = []
    with _opened(path, "r") as fh:
        for lineno, text, raw in _content_lines(fh):
            if len(text.split()) != 1:
                raise _line_error(name, lineno, raw, "expected one host name per line")
            if text not in node_of:
                raise _line_error(name, lineno, raw, f"unknown host {text!r} (not a node of the machine)")
            task_node.append(node_of[text])
    if not task_node:
        raise InvalidInputError(f"{name}: no host lines found; got an empty host list")
    ttp = _procs_of_nodes(np.asarray(task_node, dtype=np.intp), machine)
    return Mapping(ttp, machine, graph, method=f"SLURM_HOSTFILE {name}")


# -- registry ------------------------------------------------------------------------------
MAP_FORMATS: dict[str, tuple[Callable, Callable]] = {
    "bluegene": (write_bluegene_map, read_bluegene_map),
    "mpich_rank_order": (write_mpich_rank_order, read_mpich_rank_order),
    "csv": (write_mapping_csv, read_mapping_csv),
    "openmpi_rankfile": (write_openmpi_rankfile, read_openmpi_rankfile),
    "slurm_hostfile": (write_slurm_hostfile, read_slurm_hostfile),
}


def _format(format: str) -> tuple[Callable, Callable]:
    if format not in MAP_FORMATS:
        raise InvalidInputError(f"format: unknown map-file format {format!r}; valid: {sorted(MAP_FORMATS)}")
    return MAP_FORMATS[format]


def write_map(mapping: Mapping, path, format: str, **options) -> None:
    """Write ``mapping`` in one of the :data:`MAP_FORMATS`.

    Parameters
    ----------
    mapping : Mapping
        The mapping.
    path : str, path-like or text stream
        Where to write.
    format : str
        A key of :data:`MAP_FORMATS` (``"bluegene"``, ``"csv"``, ``"mpich_rank_order"``,
        ``"openmpi_rankfile"``, ``"slurm_hostfile"``).
    **options
        Keyword options of that format's writer (``hosts=`` for the host files,
        ``ranges=`` for the rank order).

    Raises
    ------
    InvalidInputError
        On an unknown format (listing the valid names) or what the writer rejects.
    TypeError
        On an option the writer does not take.
    """
    _format(format)[0](mapping, path, **options)


def read_map(path, machine: Machine, format: str, graph: TaskGraph | None = None, **options) -> Mapping:
    """Read a map file in one of the :data:`MAP_FORMATS` into a Mapping on ``machine``.

    Parameters
    ----------
    path : str, path-like or text stream
        The file.
    machine : Machine
        The processors it refers to.
    format : str
        A key of :data:`MAP_FORMATS`.
    graph : TaskGraph, optional
        Attached to the result for metrics.
    **options
        Keyword options of that format's reader (``hosts=`` for the host files).

    Returns
    -------
    Mapping

    Raises
    ------
    InvalidInputError
        On an unknown format (listing the valid names) or what the reader rejects.
    TypeError
        On an option the reader does not take.
    """
    return _format(format)[1](path, machine, graph, **options)
