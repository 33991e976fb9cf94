"""The torus form of a machine file (:mod:`mpitaskmap.machines.machine_file`): dims, wrap and one line per rank.

The headerless form (no ``network`` line), so also the Zoltan2 coordinate files; the bundled
Hopper allocation (:func:`hopper_machine`) is one.
"""

from __future__ import annotations

import os
from importlib import resources
from typing import Sequence, cast

import numpy as np

from ...errors import InvalidInputError
from ..base import Machine
from ..machine_file import file_error, file_ints, file_line_texts, read_machine_file
from .torus import TorusMachine, gemini_bandwidth

__all__ = ["read_torus_file", "torus_file_lines", "torus_file_hosts", "hopper_machine", "HOPPER_DIMS"]

HOPPER_DIMS = (17, 8, 24)


def read_torus_file(path: str | os.PathLike, lines: list, bandwidth, name: str | None, *, dims=None, wrap=None,
                    ranks_per_node: int | None = None) -> tuple[TorusMachine, None]:
    """The torus form's machine of the lines of ``path`` (:func:`~mpitaskmap.machines.machine_file.read_machine_file`)."""
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
            raise file_error(path, lineno, raw, "a 'network' line is the first directive of a dragonfly file (the "
                       "torus form has dims/wrap lines instead; the two forms do not mix)")
        if key == "dims":
            header["dims"] = file_ints(tok[1:], path, lineno, raw, "dims")
        elif key == "wrap":
            header["wrap"] = [bool(v) for v in file_ints(tok[1:], path, lineno, raw, "wrap flags")]
        elif key == "bandwidth":
            if len(tok) == 2 and tok[1].lower() == "gemini":
                header["bandwidth"] = "gemini"
            else:
                try:
                    header["bandwidth"] = [float(v) for v in tok[1:]]
                except ValueError:
                    raise file_error(path, lineno, raw, "bandwidth must be 'gemini' or numbers") from None
        elif key == "names":
            header["names"] = tok[1:]
        elif key == "ranks_per_node":
            vals = file_ints(tok[1:], path, lineno, raw, "ranks_per_node")
            if len(vals) != 1 or vals[0] < 1:
                raise file_error(path, lineno, raw, "ranks_per_node takes one positive integer")
            header["ranks_per_node"] = vals[0]
        elif key == "host":
            if len(tok) < 4:
                raise file_error(path, lineno, raw, "a host line is 'host NAME SLOTS x y z ...'")
            slots = file_ints(tok[2:3], path, lineno, raw, "slots")[0]
            if slots < 1:
                raise file_error(path, lineno, raw, "slots must be positive")
            c = file_ints(tok[3:], path, lineno, raw, "coordinates")
            n_dims = _dim_count(n_dims, len(c), path, lineno, raw)
            key = (tok[1], slots, tuple(c))
            if key in host_lines:
                raise file_error(path, lineno, raw, f"host {tok[1]!r} repeats line {host_lines[key]} exactly (the same "
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
                node = file_ints([tok[-1][5:]], path, lineno, raw, "node")[0]
                tok = tok[:-1]
            c = file_ints(tok, path, lineno, raw, "coordinates")
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
    ), None


def torus_file_hosts(path: str | os.PathLike, lines: list, machine: Machine) -> list[str] | None:
    """The hosts of the torus form's ``host`` lines by node id, or None when some node has none."""
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
    here, there = file_line_texts(path, (rank_lines[r], rank_lines[f]))
    tok = there.split()
    who = f"host {host_of[node]!r}" if tok and tok[0].lower() == "host" and node in host_of else f"node {node}"
    raise file_error(path, rank_lines[r], here, f"{who} is at router {coords[r].tolist()} here but at router "
               f"{coords[f].tolist()} on line {rank_lines[f]}; a node sits at one router")


def _dim_count(n_dims, n, path, lineno, raw) -> int:
    if n == 0:
        raise file_error(path, lineno, raw, "a rank line needs coordinates")
    if n_dims is not None and n != n_dims:
        raise file_error(path, lineno, raw, f"expected {n_dims} coordinates like the lines before")
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


def torus_file_lines(machine: TorusMachine) -> list[str]:
    """The lines of a TorusMachine in the torus form (header, then one rank per line).

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
    return lines


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
