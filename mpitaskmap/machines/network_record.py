"""The record a provider gathers: where one rank sits (Location) in which network (NetworkInfo).

A coordinate provider (:mod:`mpitaskmap.providers`) answers, for one process, "where do I run?"
(:class:`Location`) and "what network are those coordinates in?" (:class:`NetworkInfo`); the
runtime gathers the answers and calls :func:`assemble_machine_arrays`, which hands them to the
network's kind (:mod:`~mpitaskmap.machines.kinds`).  The record belongs to the machine layer
because every kind defines its own; :mod:`mpitaskmap.providers` re-exports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import InvalidInputError
from .base import Machine
from .kinds import Gathered, network_kind

__all__ = ["NetworkInfo", "Location", "assemble_machine", "assemble_machine_arrays", "check_rank", "node_text"]


def _as_int(value, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidInputError(f"{name}: expected an integer; got {value!r}")
    return int(value)


def check_rank(rank, size) -> tuple[int, int]:
    """Return ``(rank, size)`` as ints after checking ``0 <= rank < size``."""
    size = _as_int(size, "size")
    rank = _as_int(rank, "rank")
    if size < 1:
        raise InvalidInputError(f"size: a job has at least one rank; got {size}")
    if not 0 <= rank < size:
        raise InvalidInputError(f"rank: must lie in [0, {size}); got {rank}")
    return rank, size


def _freeze_bandwidth(bandwidth, n_dims: int):
    """Return a hashable, comparable form of a TorusMachine ``bandwidth`` argument."""
    if bandwidth is None or isinstance(bandwidth, str):
        return bandwidth
    if np.isscalar(bandwidth):
        return float(bandwidth)
    per_dim = list(bandwidth)
    if len(per_dim) != n_dims:
        raise InvalidInputError(f"bandwidth: expected one entry per dimension ({n_dims}); got {len(per_dim)}")
    out = []
    for entry in per_dim:
        arr = np.asarray(entry, dtype=np.float64)
        if arr.ndim == 0:
            out.append(float(arr))
        elif arr.size and np.all(arr == arr.flat[0]):
            out.append(float(arr.flat[0]))
        else:
            out.append(tuple(float(v) for v in arr.ravel()))
    if all(isinstance(v, float) for v in out) and len(set(out)) == 1:
        return out[0]
    return tuple(out)


@dataclass(frozen=True)
class NetworkInfo:
    """The network that a provider's coordinates live in.

    Equal on every rank of a job (the runtime may compare them); hashable and picklable.

    Attributes
    ----------
    dims : tuple of int
        Length of every dimension of the whole network (not just the job's part).
        Empty for ``kind="flat"``.
    wrap : tuple of bool
        Torus (True) or mesh (False) per dimension; a single bool or None (the default,
        all True) is expanded.
    bandwidth : None, float, ``"gemini"`` or tuple
        As :class:`~mpitaskmap.machines.TorusMachine` takes it: None (1.0 everywhere), one
        float, ``"gemini"``, or one entry per dimension (a float, or a tuple of
        ``dims[k]`` per-position values).  Sequences are frozen into tuples; constant
        per-dimension entries become one float, so equal networks compare equal.
    dim_names : tuple of str or None
        Display names (e.g. ``("A", "B", "C", "D", "E")``); None for the defaults.
    kind : str
        The name of a registered network kind (:func:`~mpitaskmap.machines.kinds.known_kinds`):
        ``"torus"`` (router coordinates on a torus/mesh), ``"flat"`` (no coordinates:
        0 hops within a node, 1 hop between nodes; see :func:`assemble_machine`),
        ``"percs"`` (an IBM PERCS two-level network: ``dims = (n_s, 4, 8)`` for
        supernode, drawer and node coordinates; ``options`` holds ``n_d`` and ``routing``)
        or ``"fattree"`` (a tree of switches, :class:`~mpitaskmap.machines.FatTreeMachine`),
        in one of two forms.  From Slurm's topology addresses (:func:`fattree_network`):
        no dimensions, every rank's node key is its ``SLURM_TOPOLOGY_ADDR``
        (``s0.s12.node0417``), ``options`` hold ``pattern`` (``SLURM_TOPOLOGY_ADDR_PATTERN``),
        ``taper``, ``bandwidth`` and ``routing``.  A regular tree (simulated clusters):
        ``dims = (tree nodes,)``, a rank's coordinate is its tree node, ``options`` hold
        ``down`` and ``up`` (:meth:`~mpitaskmap.machines.FatTreeMachine.regular`),
        ``bandwidth`` and ``routing``.  Or ``"dragonfly"``
        (:class:`~mpitaskmap.machines.DragonflyMachine`, :func:`dragonfly_network`):
        ``dims = (groups, switches per group, nodes per switch)``, a rank's coordinate is
        ``(group, switch, slot)`` (on a row/column group the switch is ``row * columns +
        column``), ``options`` hold ``switches`` (an int, or ``(rows, columns)``),
        ``global_links``, ``global_ports``, ``bandwidth`` (``(class, GB/s)`` pairs) and
        ``routing``: all a rank needs to rebuild the whole machine.  A dragonfly from
        xnames (:func:`xname_dragonfly_network`) has no dimensions: every rank's node key
        is its xname, ``options`` hold ``xname`` (the cabinet's shape), ``n_groups``,
        ``global_links``, ``global_ports``, ``bandwidth`` and ``routing``.
    options : tuple of (str, object)
        Kind-specific parameters (PERCS: ``(("n_d", 4), ("routing", "direct"))``).

    Examples
    --------
    >>> NetworkInfo(dims=(4, 4), wrap=(True, False)).bandwidth is None
    True
    """

    dims: tuple = ()
    wrap: tuple | bool | None = None
    bandwidth: object = None
    dim_names: tuple | None = None
    kind: str = "torus"
    options: tuple = ()

    def __post_init__(self) -> None:
        kind = network_kind(self.kind)
        dims = tuple(_as_int(d, "dims") for d in self.dims)
        if any(d < 1 for d in dims):
            raise InvalidInputError(f"dims: lengths must be positive; got {list(dims)}")
        if kind.check_network is not None:
            kind.check_network(dims, self.options)
        wrap = True if self.wrap is None else self.wrap
        if isinstance(wrap, (bool, np.bool_)):
            wrap = (bool(wrap),) * len(dims)
        wrap = tuple(bool(w) for w in wrap)
        if len(wrap) != len(dims):
            raise InvalidInputError(f"wrap: expected {len(dims)} flags; got {len(wrap)}")
        names = self.dim_names
        if names is not None:
            names = tuple(str(n) for n in names)
            if len(names) != len(dims):
                raise InvalidInputError(f"dim_names: expected {len(dims)} names; got {list(names)}")
        object.__setattr__(self, "dims", dims)
        object.__setattr__(self, "wrap", wrap)
        object.__setattr__(self, "dim_names", names)
        object.__setattr__(self, "bandwidth", _freeze_bandwidth(self.bandwidth, len(dims)))

    @property
    def n_dims(self) -> int:
        """Number of network dimensions (0 for a flat network)."""
        return len(self.dims)


@dataclass(frozen=True)
class Location:
    """Where one process runs: its router coordinate and its node.

    Attributes
    ----------
    coords : tuple of int
        Router coordinate, one entry per network dimension (empty on a flat network).
        Processes on one router (cores of a node, nodes sharing a Gemini) share it.
    node : str
        Node identity (``"nid00012"``, a hostname, ...).  Processes on one node have
        equal strings; different nodes have different strings.

    Examples
    --------
    >>> Location((3, 5, 7), "nid00012").coords
    (3, 5, 7)
    """

    coords: tuple = ()
    node: str = ""

    def __post_init__(self) -> None:
        coords = tuple(_as_int(c, "coords") for c in self.coords)
        if not isinstance(self.node, str) or not self.node:
            raise InvalidInputError(f"node: expected a non-empty string; got {self.node!r}")
        object.__setattr__(self, "coords", coords)


def assemble_machine(locations: Sequence[Location], network: NetworkInfo, *, name: str) -> Machine:
    """Build the machine of a job from the gathered locations of its ranks.

    Not collective.  Rank ``r`` of the result is ``locations[r]``; node ids are numbered
    0, 1, ... by first appearance of each node string.

    Parameters
    ----------
    locations : sequence of Location
        One per rank, in rank order (e.g. the result of ``comm.allgather``).
    network : NetworkInfo
        The network of the coordinates.
    name : str
        Description of the machine (e.g. the provider's spec).

    Returns
    -------
    Machine
        The machine the network's kind assembles (:attr:`~mpitaskmap.machines.kinds.NetworkKind.assemble`):
        a TorusMachine for a ``"torus"`` network; for ``"flat"`` the node-only
        machine ``mpitaskmap.machines.FlatMachine`` (0 hops within, 1 hop between nodes);
        for ``"percs"`` a :class:`~mpitaskmap.machines.percs.PercsMachine` (the job must be the whole
        system, rank ``r`` on processor ``r``); for ``"fattree"`` a
        :class:`~mpitaskmap.machines.FatTreeMachine` whose node ids are tree node numbers:
        from topology addresses, the job's nodes in the order of their switch paths
        (:func:`~mpitaskmap.machines.fattree.slurm_topology.fattree_from_node_paths`), for a
        regular tree the ranks' coordinates; for ``"dragonfly"`` a
        :class:`~mpitaskmap.machines.DragonflyMachine` whose node ids are the node numbers
        ``(g S + s) n + k`` of the ranks' coordinates (from xnames: of their node keys'
        places, :func:`~mpitaskmap.machines.dragonfly.xname.xname_place`, the job's cabinets numbered in ascending order).

    Raises
    ------
    InvalidInputError
        If there are no locations, an entry is not a Location, a rank has the wrong
        number of coordinates or one outside ``[0, dims[k])``, or two ranks on one node
        report different routers.  The message names the rank.

    Examples
    --------
    >>> locs = [Location((0, 1), "a"), Location((0, 1), "a"), Location((3, 0), "b")]
    >>> m = assemble_machine(locs, NetworkInfo(dims=(4, 2), wrap=(True, True)), name="demo")
    >>> m.node_ids.tolist(), m.hops([0, 0], [1, 2]).tolist()
    ([0, 0, 1], [0, 2])
    """
    if not isinstance(network, NetworkInfo):
        raise InvalidInputError(f"network: expected a NetworkInfo; got {type(network).__name__}")
    locations = list(locations)
    if not locations:
        raise InvalidInputError("locations: a machine needs at least one rank; got 0")
    n_dims = network.n_dims
    for r, loc in enumerate(locations):
        if not isinstance(loc, Location):
            raise InvalidInputError(f"locations: rank {r} is not a Location; got {type(loc).__name__}")
        if len(loc.coords) != n_dims:
            raise InvalidInputError(
                f"locations: rank {r} has {len(loc.coords)} coordinates, the network has {n_dims}; "
                f"got {loc.coords}"
            )
    coords = np.array([loc.coords for loc in locations], dtype=np.int64).reshape(len(locations), n_dims)
    nodes = np.array([loc.node for loc in locations])
    return assemble_machine_arrays(coords, nodes, network, name=name)


def assemble_machine_arrays(coords: np.ndarray, nodes: np.ndarray, network: NetworkInfo, *, name: str) -> Machine:
    """Build the machine of a job from arrays: router coordinates and node keys, rank by rank.

    Not collective; what :func:`assemble_machine` and ``remap()`` (from gathered arrays,
    without a Python object per rank) both call.

    Parameters
    ----------
    coords : (n_ranks, network.n_dims) array_like of int
        Router coordinate of every rank.
    nodes : (n_ranks,) ndarray of str or bytes
        Node identity of every rank (equal keys = one node); node ids are numbered 0, 1,
        ... by first appearance.
    network : NetworkInfo
        The network of the coordinates.
    name : str
        Description of the machine.

    Returns
    -------
    Machine
        As :func:`assemble_machine`.

    Raises
    ------
    InvalidInputError
        On a coordinate outside ``[0, dims[k])`` or two ranks of one node on different
        routers; the message names the first such rank.

    Notes
    -----
    O(n_ranks log n_ranks) in NumPy.

    Examples
    --------
    >>> m = assemble_machine_arrays([[0, 1], [0, 1], [3, 0]], np.array(["a", "a", "b"]),
    ...                             NetworkInfo(dims=(4, 2)), name="demo")
    >>> m.node_ids.tolist()
    [0, 0, 1]
    """
    if not isinstance(network, NetworkInfo):
        raise InvalidInputError(f"network: expected a NetworkInfo; got {type(network).__name__}")
    n_dims = network.n_dims
    nodes = np.asarray(nodes)
    if nodes.ndim != 1 or nodes.size == 0:
        raise InvalidInputError(f"locations: a machine needs at least one rank; got node keys of shape {nodes.shape}")
    n = nodes.size
    coords = np.asarray(coords)
    if coords.dtype.kind not in "iu":
        coords = coords.astype(np.int64)
    if coords.size != n * n_dims:
        raise InvalidInputError(f"coords: expected ({n}, {n_dims}) router coordinates; got shape {coords.shape}")
    coords = coords.reshape(n, n_dims)
    dims = np.asarray(network.dims, dtype=np.int64)
    outside = (coords < 0) | (coords >= dims)
    if outside.any():
        r, k = (int(v[0]) for v in np.nonzero(outside))
        raise InvalidInputError(
            f"locations: rank {r} has coordinate {int(coords[r, k])} in dimension {k}, outside [0, {dims[k]}); "
            f"got {tuple(int(c) for c in coords[r])} on node {node_text(nodes[r])!r}"
        )
    _, first_index, inverse = np.unique(nodes, return_index=True, return_inverse=True)
    first = first_index[inverse]  # the first rank on every rank's node
    moved = np.flatnonzero((coords != coords[first]).any(axis=1))
    if moved.size:
        r = int(moved[0])
        q = int(first[r])
        raise InvalidInputError(
            f"locations: ranks {q} and {r} are on node {node_text(nodes[r])!r} but report different routers "
            f"{tuple(int(c) for c in coords[q])} and {tuple(int(c) for c in coords[r])}"
        )
    label = np.empty(first_index.size, dtype=np.intp)
    label[np.argsort(first_index, kind="stable")] = np.arange(first_index.size)
    gathered = Gathered(coords, nodes, label[inverse], first_index, inverse)
    return network_kind(network.kind).assemble(gathered, network, name)


def node_text(key) -> str:
    """A node key as text (gathered keys arrive as bytes)."""
    return key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)
