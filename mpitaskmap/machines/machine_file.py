"""Reading and writing machine files: where every rank of an allocation sits in the network.

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
``routing`` (``minimal``, ``ecmp`` or ``valiant``, default minimal), and the GB/s of the links: ``bw``
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
from importlib import resources
from typing import Sequence, cast

import numpy as np

from .._textio import counted
from .._options import parse_choice, parse_float, parse_int, parse_lengths, parse_options
from ..errors import InvalidInputError
from .base import Machine
from .dragonfly import DRAGONFLY_ROUTINGS, DragonflyMachine
from .torus import TorusMachine, gemini_bandwidth

__all__ = ["read_machine_file", "write_machine_file", "machine_file_hosts", "hopper_machine", "HOPPER_DIMS",
           "DRAGONFLY_FILE_KEYS"]

HOPPER_DIMS = (17, 8, 24)

#: Keys of a ``network dragonfly`` line (module notes).
DRAGONFLY_FILE_KEYS = ("n_groups", "switches", "nodes_per_switch", "global_links", "global_ports", "routing", "bw",
                       "bw_node", "bw_local", "bw_green", "bw_black", "bw_global")


def _err(path, lineno: int, text: str, what: str) -> InvalidInputError:
    return InvalidInputError(f"{path}:{lineno}: {what}; got {text.strip()!r}")


def _ints(tokens, path, lineno, text, what) -> list[int]:
    try:
        return [int(t) for t in tokens]
    except ValueError:
        raise _err(path, lineno, text, f"{what} must be integers") from None


def read_machine_file(
    path: str | os.PathLike,
    *,
    dims: Sequence[int] | None = None,
    wrap=None,
    ranks_per_node: int | None = None,
    bandwidth=None,
    name: str | None = None,
) -> TorusMachine | DragonflyMachine:
    """Read a machine file (module notes): a TorusMachine, or a DragonflyMachine for the dragonfly form.

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
    TorusMachine or DragonflyMachine
        The dragonfly form (first directive ``network dragonfly``) gives a
        :class:`~mpitaskmap.machines.DragonflyMachine`, every other file a TorusMachine.

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
    if lines and lines[0][2][0].lower() == "network":
        for key, value in (("dims", dims), ("wrap", wrap), ("ranks_per_node", ranks_per_node)):
            if value is not None:
                raise InvalidInputError(f"{path}: {key}= is a directive of the torus form, not of a "
                                        f"'network dragonfly' file; got {key}={value!r}")
        return _read_dragonfly(path, lines, bandwidth, name)[0]
    header: dict = {}
    coords: list[list[int]] = []
    explicit_nodes: list[int | None] = []
    host_names: dict[str, int] = {}
    host_lines: dict[tuple, int] = {}  # (host, slots, router) -> line, to refuse exact repeats
    rank_lines: list[int] = []
    n_dims = None
    for lineno, raw, tok in lines:
        key = tok[0].lower()
        if key == "network":
            raise _err(path, lineno, raw, "a 'network' line is the first directive of a dragonfly file (the "
                       "torus form has dims/wrap lines instead; the two forms do not mix)")
        if key == "dims":
            header["dims"] = _ints(tok[1:], path, lineno, raw, "dims")
        elif key == "wrap":
            header["wrap"] = [bool(v) for v in _ints(tok[1:], path, lineno, raw, "wrap flags")]
        elif key == "bandwidth":
            if len(tok) == 2 and tok[1].lower() == "gemini":
                header["bandwidth"] = "gemini"
            else:
                try:
                    header["bandwidth"] = [float(v) for v in tok[1:]]
                except ValueError:
                    raise _err(path, lineno, raw, "bandwidth must be 'gemini' or numbers") from None
        elif key == "names":
            header["names"] = tok[1:]
        elif key == "ranks_per_node":
            vals = _ints(tok[1:], path, lineno, raw, "ranks_per_node")
            if len(vals) != 1 or vals[0] < 1:
                raise _err(path, lineno, raw, "ranks_per_node takes one positive integer")
            header["ranks_per_node"] = vals[0]
        elif key == "host":
            if len(tok) < 4:
                raise _err(path, lineno, raw, "a host line is 'host NAME SLOTS x y z ...'")
            slots = _ints(tok[2:3], path, lineno, raw, "slots")[0]
            if slots < 1:
                raise _err(path, lineno, raw, "slots must be positive")
            c = _ints(tok[3:], path, lineno, raw, "coordinates")
            n_dims = _dim_count(n_dims, len(c), path, lineno, raw)
            key = (tok[1], slots, tuple(c))
            if key in host_lines:
                raise _err(path, lineno, raw, f"host {tok[1]!r} repeats line {host_lines[key]} exactly (the same "
                           "slots at the same router); give each host once with all its slots, or one "
                           "'x y z node=N' line per rank for ranks placed round-robin")
            host_lines[key] = lineno
            node = host_names.setdefault(tok[1], len(host_names))
            coords.extend([c] * slots)
            explicit_nodes.extend([node] * slots)
            rank_lines.extend([lineno] * slots)
        else:
            node = None
            if tok[-1].startswith("node="):
                node = _ints([tok[-1][5:]], path, lineno, raw, "node")[0]
                tok = tok[:-1]
            c = _ints(tok, path, lineno, raw, "coordinates")
            n_dims = _dim_count(n_dims, len(c), path, lineno, raw)
            coords.append(c)
            explicit_nodes.append(node)
            rank_lines.append(lineno)
    if not coords:
        raise InvalidInputError(f"{path}: no ranks found")
    dims = list(dims) if dims is not None else header.get("dims")
    if dims is None:
        raise InvalidInputError(f"{path}: no 'dims' line; pass dims= for a bare coordinate file")
    if len(dims) != n_dims:
        raise InvalidInputError(f"{path}: dims has {len(dims)} entries but ranks have {n_dims} coordinates")
    arr = np.asarray(coords, dtype=np.int64)
    bad = (arr < 0) | (arr >= np.asarray(dims)[None, :])
    if bad.any():
        r, k = (int(v) for v in np.argwhere(bad)[0])
        raise InvalidInputError(
            f"{path}:{rank_lines[r]}: rank {r}: coordinate {k + 1} of {n_dims} is {int(arr[r, k])}, outside "
            f"[0, {dims[k]})"
        )
    rpn = ranks_per_node if ranks_per_node is not None else header.get("ranks_per_node", 1)
    node_ids = _node_ids(coords, explicit_nodes, int(rpn))
    _check_one_router(path, arr, node_ids, rank_lines, {v: k for k, v in host_names.items()})
    return TorusMachine(
        arr,
        dims,
        wrap=wrap if wrap is not None else header.get("wrap", True),
        node_ids=node_ids,
        bandwidth=bandwidth if bandwidth is not None else header.get("bandwidth"),
        dim_names=header.get("names"),
        name=name or os.path.basename(str(path)),
    )


def _directives(path: str | os.PathLike) -> list[tuple[int, str, list[str]]]:
    """(line number, raw line, tokens) of every line of ``path`` that is not blank or a comment."""
    out = []
    with open(path, "r", encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            tok = raw.split("#", 1)[0].split()
            if tok:
                out.append((lineno, raw, tok))
    return out


def _read_dragonfly(path: str | os.PathLike, lines: list, bandwidth, name: str | None
                    ) -> tuple[DragonflyMachine, list[str]]:
    """The dragonfly form (module notes): the machine and the host name of every node id ('' where none)."""
    lineno, raw, tok = lines[0]
    if len(tok) < 2 or tok[1].lower() != "dragonfly":
        raise _err(path, lineno, raw, "the network line is 'network dragonfly KEY=VALUE ...' (dragonfly is the only "
                   "network a machine file names; a torus file has a 'dims' line instead)")
    what = f"{path}:{lineno}"
    o = parse_options(",".join(tok[2:]), DRAGONFLY_FILE_KEYS, what)
    missing = [k for k in ("n_groups", "switches", "nodes_per_switch") if k not in o]
    if missing:
        raise _err(path, lineno, raw, f"the network line needs {missing[0]}= (n_groups, switches and "
                   "nodes_per_switch are required)")
    switches = parse_lengths(o["switches"], "switches", what)
    if len(switches) > 2:
        raise _err(path, lineno, raw, f"switches is S (all-to-all, Slingshot) or RxC (rows x columns, Aries); "
                   f"got switches={o['switches']}")
    n_groups = parse_int(o["n_groups"], "n_groups", what, minimum=2)
    per_switch = parse_int(o["nodes_per_switch"], "nodes_per_switch", what)
    global_links = parse_int(o.get("global_links", 1), "global_links", what)
    ports = parse_int(o["global_ports"], "global_ports", what) if "global_ports" in o else None
    routing = parse_choice(o.get("routing", "minimal"), "routing", what, DRAGONFLY_ROUTINGS)

    def build(proc_nodes, bw, label=None) -> DragonflyMachine:
        return DragonflyMachine(n_groups, switches[0] if len(switches) == 1 else switches, per_switch, proc_nodes,
                                global_links=global_links, global_ports=ports, bandwidth=bw, routing=routing,
                                name=label)

    per_class = {k[3:]: parse_float(v, k, what) for k, v in o.items() if k.startswith("bw_")}
    try:  # the shape and bandwidths checked on the network line, by the machine itself (one node)
        probe = build([0], parse_float(o["bw"], "bw", what) if "bw" in o else 25.0)
        if bandwidth is None and per_class:  # bw for every class, then the classes named
            bandwidth = {**(probe.class_bandwidths() if "bw" in o else {}), **per_class}
        if bandwidth is not None:
            probe = build([0], bandwidth)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{what}: {exc}; got {raw.strip()!r}") from None
    G, R, C, n = probe.n_groups, probe.rows, probe.columns, probe.nodes_per_switch
    row_column = probe.wiring == "row-column"
    form = "host NAME RANKS GROUP ROW COLUMN" if row_column else "host NAME RANKS GROUP SWITCH"
    seen: dict[str, int] = {}  # host -> line
    on_switch: dict[int, list[int]] = {}  # switch of the machine -> lines of its hosts
    numbers: list[int] = []
    ranks: list[int] = []
    names: list[str] = []
    for lineno, raw, tok in lines[1:]:
        key = tok[0].lower()
        if key == "network":
            raise _err(path, lineno, raw, f"a second network line (the first is line {lines[0][0]})")
        if key != "host":
            raise _err(path, lineno, raw, f"a 'network dragonfly' file has '{form}' lines after its network line "
                       "(torus directives and coordinate lines are the torus form; the two forms do not mix)")
        if len(tok) != len(form.split()):
            raise _err(path, lineno, raw, f"a host line of this {probe.wiring} dragonfly is '{form}' "
                       f"({len(form.split())} fields)")
        host = tok[1]
        if host in seen:
            raise _err(path, lineno, raw, f"host {host!r} is given on line {seen[host]} already; a host is one node "
                       "on one switch: give it once, with all its ranks")
        vals = _ints(tok[2:], path, lineno, raw, form.split(None, 2)[2].lower().replace(" ", ", "))
        if vals[0] < 1:
            raise _err(path, lineno, raw, f"RANKS must be positive; got {vals[0]}")
        fields = list(zip(("group", "row", "column") if row_column else ("group", "switch"), vals[1:],
                          (G, R, C) if row_column else (G, R * C)))
        for field, value, bound in fields:
            if not 0 <= value < bound:
                raise _err(path, lineno, raw, f"{field} {value} outside [0, {bound})")
        g = vals[1]
        s = vals[2] * C + vals[3] if row_column else vals[2]
        taken = on_switch.setdefault(g * R * C + s, [])
        if len(taken) == n:
            raise _err(path, lineno, raw, f"switch {s} of group {g} has {n} nodes, all taken by the hosts of lines "
                       f"{', '.join(map(str, taken))}; host {host!r} is one too many")
        seen[host] = lineno
        numbers.append(int(probe.node_number(g, s, len(taken))[0]))
        taken.append(lineno)
        ranks.append(vals[0])
        names.append(host)
    if not numbers:
        raise InvalidInputError(f"{path}: no ranks found (no '{form}' line after the network line)")
    sw = str(o["switches"])
    sw_words = counted(int(sw), "switch", "switches") if sw.isdigit() else f"{sw} switches"
    label = (f"{os.path.basename(str(path))} (dragonfly: {counted(G, 'group')} x {sw_words} x {counted(n, 'node')}, "
             f"{counted(probe.global_links, 'global link')} per pair, {probe.routing} routing)")
    machine = build(np.repeat(numbers, ranks), probe.class_bandwidths(), name or label)
    by_node = [""] * (max(numbers) + 1)
    for k, host in zip(numbers, names):
        by_node[k] = host
    return machine, by_node


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
    if lines and lines[0][2][0].lower() == "network":
        return _read_dragonfly(path, lines, None, machine.name)[1]
    names: dict[str, int] = {}
    for _, _, tok in lines:
        if len(tok) >= 2 and tok[0].lower() == "host":
            names.setdefault(tok[1], len(names))
    if not names or len(names) != machine.n_nodes:
        return None
    return list(names)


def _check_one_router(path: str | os.PathLike, coords: np.ndarray, node_ids: np.ndarray, rank_lines: list[int],
                      host_of: dict[int, str]) -> None:
    """Raise naming the host (or node id) and both lines when a node's ranks sit at two routers."""
    _, first = np.unique(node_ids, return_index=True)
    lookup = np.full(int(node_ids.max()) + 1, -1, dtype=np.int64)
    lookup[node_ids[first]] = first
    head = lookup[node_ids]  # every rank's node's first rank
    bad = np.flatnonzero((coords != coords[head]).any(axis=1))
    if not bad.size:
        return
    r = int(bad[0])
    f, node = int(head[r]), int(node_ids[r])
    here, there = _line_texts(path, (rank_lines[r], rank_lines[f]))
    tok = there.split()
    who = f"host {host_of[node]!r}" if tok and tok[0].lower() == "host" and node in host_of else f"node {node}"
    raise _err(path, rank_lines[r], here, f"{who} is at router {coords[r].tolist()} here but at router "
               f"{coords[f].tolist()} on line {rank_lines[f]}; a node sits at one router")


def _line_texts(path: str | os.PathLike, linenos: Sequence[int]) -> list[str]:
    """The text of the given lines of ``path`` (read again: only errors need them)."""
    want = set(linenos)
    found: dict[int, str] = {}
    with open(path, "r", encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if lineno in want:
                found[lineno] = raw
    return [found.get(n, "") for n in linenos]


def _dim_count(n_dims, n, path, lineno, raw) -> int:
    if n == 0:
        raise _err(path, lineno, raw, "a rank line needs coordinates")
    if n_dims is not None and n != n_dims:
        raise _err(path, lineno, raw, f"expected {n_dims} coordinates like the lines before")
    return n


def _node_ids(coords: list, explicit: list, ranks_per_node: int) -> np.ndarray:
    """Explicit node ids where given; else runs of ranks on one router cut into nodes."""
    given = [e for e in explicit if e is not None]
    next_id = max(given) + 1 if given else 0
    out = np.empty(len(coords), dtype=np.int64)
    run_len, node = 0, -1
    for r, c in enumerate(coords):
        if explicit[r] is not None:
            out[r] = explicit[r]
            run_len = 0
            continue
        if run_len and c != coords[r - 1]:
            run_len = 0
        if run_len % ranks_per_node == 0:
            node, next_id = next_id, next_id + 1
        out[r] = node
        run_len += 1
    return out


def write_machine_file(machine: TorusMachine, path: str | os.PathLike) -> None:
    """Write a TorusMachine in machine-file format (header, then one rank per line).

    The written file reads back with :func:`read_machine_file` into an equal machine
    (same coordinates, node ids, lengths, wrap flags and per-dimension bandwidths).
    """
    lines = ["# mpitaskmap machine file v1", f"# {machine.name}"]
    lines.append("dims " + " ".join(str(int(d)) for d in machine.dims))
    lines.append("wrap " + " ".join(str(int(w)) for w in machine.wrap))
    lines.append("names " + " ".join(machine.dim_names))
    uniform = all(np.all(b == b[0]) for b in machine.link_bandwidth)
    if uniform:
        lines.append("bandwidth " + " ".join(repr(float(b[0])) for b in machine.link_bandwidth))
    elif all(np.array_equal(a, b) for a, b in zip(machine.link_bandwidth, _gemini_or_none(machine))):
        lines.append("bandwidth gemini")
    else:
        raise InvalidInputError("machine: per-position bandwidths other than 'gemini' cannot be written")
    for c, node in zip(machine.router_coords, machine.node_ids):
        lines.append(" ".join(str(int(v)) for v in c) + f" node={int(node)}")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def _gemini_or_none(machine: TorusMachine):
    if machine.n_dims != 3:
        return [np.array([])] * machine.n_dims
    return gemini_bandwidth(machine.dims)


def hopper_machine(*, dims: Sequence[int] = HOPPER_DIMS, bandwidth="gemini") -> TorusMachine:
    """Return the bundled real 512-rank Cray Gemini allocation (NERSC Hopper-like).

    512 ranks, 24 per node, 15 routers; torus extent 17 x 8 x 24 (inferred, see
    ``mpitaskmap/data/README.md``).  This is the allocation of Zoltan2's own task-mapping
    test, used by our tests and benchmarks with an 8 x 8 x 8 stencil.

    Returns
    -------
    TorusMachine

    Examples
    --------
    >>> m = hopper_machine()
    >>> m.n_procs, m.n_nodes, len(np.unique(m.router_ids()))
    (512, 22, 15)
    """
    ref = resources.files("mpitaskmap") / "data" / "hopper_512rank_machine.txt"
    with resources.as_file(ref) as p:
        return cast(TorusMachine, read_machine_file(p, dims=dims, ranks_per_node=24, bandwidth=bandwidth,
                                                    name="hopper-512 (real)"))
