"""Shared types of the coordinate providers: NetworkInfo, Location, Provider, assemble_machine.

Nothing here communicates.  A provider answers, for one process, "where do I run?"
(:class:`Location`) and "what network are those coordinates in?" (:class:`NetworkInfo`);
the runtime gathers the answers and calls :func:`assemble_machine`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .._textio import rank_ranges
from .._validate import as_narrowest_coords
from ..errors import InvalidInputError, ProviderError
from ..machines import DragonflyMachine, FatTreeMachine, FlatMachine, Machine, TorusMachine
from ..machines.hostlist import compress_hostlist
from ..machines.slurm_topology import fattree_from_node_paths, parse_topology_addr
from ..machines.specs import PERCS_DEFAULTS, percs_from_options

__all__ = [
    "NetworkInfo",
    "Location",
    "Provider",
    "assemble_machine",
    "assemble_machine_arrays",
    "machine_from_provider",
    "NETWORK_KINDS",
    "fattree_network",
    "dragonfly_network",
    "xname_dragonfly_network",
    "xname_place",
    "parse_xname",
    "XNAME_APPROXIMATION",
]

NETWORK_KINDS = ("flat", "torus", "percs", "fattree", "dragonfly")
#: Options of a ``"fattree"`` network: from Slurm's topology addresses, or a regular tree.
FATTREE_ADDRESS_OPTIONS = ("pattern", "taper", "bandwidth", "routing")
FATTREE_REGULAR_OPTIONS = ("down", "up", "bandwidth", "routing")
#: Options of a ``"dragonfly"`` network (:func:`dragonfly_network`), all required.
DRAGONFLY_OPTIONS = ("switches", "global_links", "global_ports", "bandwidth", "routing")
#: Options of a ``"dragonfly"`` network from xnames (:func:`xname_dragonfly_network`), all required.
XNAME_DRAGONFLY_OPTIONS = ("xname", "n_groups", "global_links", "global_ports", "bandwidth", "routing")
#: An HPE Cray EX node xname: cabinet, chassis, (compute blade) slot, node board, node.
_XNAME_RE = re.compile(r"x([0-9]+)c([0-9]+)s([0-9]+)b([0-9]+)n([0-9]+)")
#: The fields of an xname below the cabinet: (letter's word, shape option, what its count counts).
_XNAME_FIELDS = (("chassis", "chassis", "chassis of a cabinet"), ("slot", "slots", "compute blade slots of a chassis"),
                 ("board", "boards", "node boards of a blade"), ("node", "nodes_per_board", "nodes of a board"))
#: What a dragonfly built from xnames assumes (:func:`xname_dragonfly_network`); the machine's name says it.
XNAME_APPROXIMATION = ("xname approximation: group = cabinet, switch = (chassis, slot); the real switch wiring "
                       "and global links are not known from xnames")


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
        if self.kind not in NETWORK_KINDS:
            raise InvalidInputError(f"kind: expected one of {list(NETWORK_KINDS)}; got {self.kind!r}")
        dims = tuple(_as_int(d, "dims") for d in self.dims)
        if any(d < 1 for d in dims):
            raise InvalidInputError(f"dims: lengths must be positive; got {list(dims)}")
        if self.kind == "torus" and not dims:
            raise InvalidInputError("dims: a torus network needs at least one dimension; got ()")
        if self.kind == "flat" and dims:
            raise InvalidInputError(f"dims: a flat network has no dimensions; got {list(dims)}")
        if self.kind == "fattree":
            _check_fattree_options(dims, self.options)
        if self.kind == "dragonfly":
            _check_dragonfly_options(dims, self.options)
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


def _check_fattree_options(dims: tuple, options: tuple) -> None:
    keys = [k for k, _ in options]
    opts = dict(options)
    if "pattern" in opts:
        valid, form = FATTREE_ADDRESS_OPTIONS, "from topology addresses"
        if dims:
            raise InvalidInputError(f"dims: a fat tree from topology addresses has no dimensions; got {list(dims)}")
    elif "down" in opts and "up" in opts:
        valid, form = FATTREE_REGULAR_OPTIONS, "regular"
        n_tree = int(np.prod(opts["down"], dtype=np.int64))
        if dims != (n_tree,):
            raise InvalidInputError(f"dims: a regular fat tree's one dimension is its {n_tree} tree nodes "
                                    f"(prod of down {tuple(opts['down'])}); got {list(dims)}")
    else:
        raise InvalidInputError(f"options: a fattree network needs 'pattern' (topology addresses) or 'down' and 'up' "
                                f"(a regular tree); got keys {keys}")
    unknown = [k for k in keys if k not in valid]
    if unknown:
        raise InvalidInputError(f"options: unknown key {unknown[0]!r} of a {form} fattree network; valid: {list(valid)}")


def _check_dragonfly_options(dims: tuple, options: tuple) -> None:
    keys = [k for k, _ in options]
    valid, form = (XNAME_DRAGONFLY_OPTIONS, "dragonfly network from xnames") if "xname" in keys else \
        (DRAGONFLY_OPTIONS, "dragonfly network")
    unknown = [k for k in keys if k not in valid]
    if unknown:
        raise InvalidInputError(f"options: unknown key {unknown[0]!r} of a {form}; valid: {list(valid)}")
    missing = [k for k in valid if k not in keys]
    if missing:
        raise InvalidInputError(f"options: a {form} needs {list(valid)}; {missing[0]!r} is missing")
    if "xname" in keys:
        if dims:
            raise InvalidInputError(f"dims: a dragonfly network from xnames has no dimensions (node keys are xnames); "
                                    f"got {list(dims)}")
        return
    switches = dict(options)["switches"]
    per_group = int(np.prod(switches, dtype=np.int64))
    if len(dims) != 3 or dims[1] != per_group:
        raise InvalidInputError(f"dims: a dragonfly network's dimensions are (groups, {per_group} switches "
                                f"(switches {switches!r}), nodes per switch); got {list(dims)}")


def dragonfly_network(machine: DragonflyMachine) -> NetworkInfo:
    """Return the ``"dragonfly"`` network of a dragonfly machine's shape: whatever its allocation, every rank the same.

    Examples
    --------
    >>> net = dragonfly_network(DragonflyMachine(3, (2, 2), 2, [0], bandwidth=10.0))
    >>> net.dims, net.options[:3]
    ((3, 4, 2), (('switches', (2, 2)), ('global_links', 1), ('global_ports', 1)))
    """
    switches = machine.switches_per_group if machine.wiring == "all-to-all" else (machine.rows, machine.columns)
    return NetworkInfo(dims=(machine.n_groups, machine.switches_per_group, machine.nodes_per_switch),
                       kind="dragonfly",
                       options=(("switches", switches), ("global_links", machine.global_links),
                                ("global_ports", machine.global_ports),
                                ("bandwidth", tuple(machine.class_bandwidths().items())),
                                ("routing", machine.routing)))


def parse_xname(text: str) -> tuple[int, int, int, int, int]:
    """Return ``(cabinet, chassis, slot, board, node)`` of an HPE Cray EX node xname, strictly (nothing around it).

    Raises
    ------
    InvalidInputError
        On text that is not a node xname ``x<cabinet>c<chassis>s<slot>b<board>n<node>``.

    Examples
    --------
    >>> parse_xname("x1016c2s3b0n1")
    (1016, 2, 3, 0, 1)
    """
    m = _XNAME_RE.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise InvalidInputError(f"expected a node xname like x1016c2s3b0n1 (x cabinet, c chassis, s slot, b board, "
                                f"n node); got {text!r}")
    cabinet, chassis, slot, board, node = (int(v) for v in m.groups())
    return cabinet, chassis, slot, board, node


def xname_place(xname: str, shape: Sequence[int]) -> tuple[int, int, int]:
    """Return ``(cabinet, switch, slot)`` of a node xname on the switches of :func:`xname_dragonfly_network`.

    ``x<cabinet>c<chassis>s<slot>b<board>n<node>`` (:func:`parse_xname`): the switch is
    ``chassis * slots + slot`` (a compute blade slot of a chassis; an approximation,
    :data:`XNAME_APPROXIMATION`), the slot on it ``board * nodes_per_board + node``.

    Parameters
    ----------
    xname : str
        The whole xname, nothing around it.
    shape : (int, int, int, int)
        ``(chassis, slots, boards, nodes_per_board)``: the counts per cabinet, chassis, slot
        and board; a field at or above its count is an error.

    Raises
    ------
    InvalidInputError
        On text that is not a node xname, or a field out of range (naming it).

    Examples
    --------
    >>> xname_place("x1016c2s3b0n1", (8, 8, 2, 2))
    (1016, 19, 1)
    """
    cabinet, *fields = parse_xname(xname)
    for value, count, (word, field, what) in zip(fields, shape, _XNAME_FIELDS):
        if value >= count:
            raise InvalidInputError(f"xname {xname!r}: {word} {value} lies outside the {count} {what} "
                                    f"({field}={count})")
    chassis, slot, board, node = fields
    return cabinet, chassis * shape[1] + slot, board * shape[3] + node


def xname_dragonfly_network(shape: Sequence[int] = (8, 8, 2, 2), *, n_groups: int | None = None,
                            global_links: int = 1, global_ports: int | None = None, bandwidth: float = 25.0,
                            routing: str = "minimal") -> NetworkInfo:
    """Return the ``"dragonfly"`` network of ranks whose node keys are HPE Cray EX xnames.

    What an xname tells (:func:`xname_place`): the cabinet, which is the dragonfly group on
    these machines, and where in the cabinet the node sits.  What it cannot tell, assumed
    (:data:`XNAME_APPROXIMATION`, also in the assembled machine's name): the switch of a
    node, taken as its compute blade slot (``chassis * slots + slot``: ``chassis * slots``
    switches per group, ``boards * nodes_per_board`` nodes on each); the wiring inside a
    group (all-to-all, as Slingshot's); ``global_links`` between every pair of groups.
    The job's cabinets, in ascending number, become groups 0, 1, ... of a machine of
    ``n_groups`` groups (None: as many as the job's cabinets, at least 2).

    Parameters
    ----------
    shape : (int, int, int, int), optional
        ``(chassis, slots, boards, nodes_per_board)`` per cabinet; default ``(8, 8, 2, 2)``,
        an HPE Cray EX liquid-cooled cabinet (8 chassis of 8 compute blade slots).
    n_groups, global_links, global_ports, routing
        As :class:`~mpitaskmap.machines.DragonflyMachine`.
    bandwidth : float, optional
        GB/s of every link (default 25.0, Slingshot's 200 Gb/s).

    Examples
    --------
    >>> xname_dragonfly_network(n_groups=4).options[:2]
    (('xname', (8, 8, 2, 2)), ('n_groups', 4))
    """
    shape = tuple(int(v) for v in shape)
    if len(shape) != 4 or min(shape) < 1:
        raise InvalidInputError(f"shape: expected 4 positive counts (chassis, slots, boards, nodes_per_board); "
                                f"got {shape}")
    bw = float(bandwidth)
    return NetworkInfo(kind="dragonfly", options=(
        ("xname", shape), ("n_groups", None if n_groups is None else int(n_groups)),
        ("global_links", int(global_links)), ("global_ports", None if global_ports is None else int(global_ports)),
        ("bandwidth", (("node", bw), ("local", bw), ("global", bw))), ("routing", str(routing))))


def fattree_network(pattern: str, *, taper: float = 1.0, bandwidth: float = 12.5, routing: str = "dmodk") -> NetworkInfo:
    """Return the network of a fat tree whose ranks report Slurm topology addresses as node keys.

    Parameters
    ----------
    pattern : str
        ``SLURM_TOPOLOGY_ADDR_PATTERN`` (``switch.switch.node``, ``block.node``): equal on
        every rank, so a rank with another depth or plugin fails the runtime's network check.
    taper, bandwidth, routing
        As :func:`~mpitaskmap.machines.slurm_topology.fattree_from_node_paths`.

    Examples
    --------
    >>> fattree_network("switch.node", taper=4).options
    (('pattern', 'switch.node'), ('taper', 4.0), ('bandwidth', 12.5), ('routing', 'dmodk'))
    """
    return NetworkInfo(kind="fattree", options=(("pattern", str(pattern)), ("taper", float(taper)),
                                                ("bandwidth", float(bandwidth)), ("routing", str(routing))))


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


class Provider:
    """Base class of the coordinate providers (not collective).

    Subclasses set :attr:`name` and implement :meth:`locate` and :meth:`network`.  A
    provider never communicates: it is called on every rank, and the runtime gathers.

    Attributes
    ----------
    name : str
        Family name, as in :func:`~mpitaskmap.providers.get_provider` specs (``"rca"``).
    rank_addressable : bool
        True if :meth:`locate` can describe *any* rank of the job (file, sim, bgq), so
        one process can build the whole machine (:func:`machine_from_provider`); False
        if it only knows the calling process (rca, hostname), whatever ``rank`` says.
    probes : tuple of (str, str)
        Set by ``auto`` detection: every provider tried, in order, with ``"selected"``
        or the reason it was skipped.  Empty otherwise.
    """

    name: str = "provider"
    rank_addressable: bool = False

    def __init__(self) -> None:
        self.probes: tuple = ()

    @property
    def spec(self) -> str:
        """Spec string that :func:`~mpitaskmap.providers.get_provider` turns back into this provider."""
        return self.name

    def check(self) -> None:
        """Raise :class:`~mpitaskmap.errors.ProviderError` if this provider cannot work here.

        Not collective.  Used by ``auto`` detection; cheap (no per-rank work).
        """

    def locate(self, rank: int, size: int) -> Location:
        """Return where the process with job rank ``rank`` of ``size`` runs.

        Not collective.  ``rank`` and ``size`` are the ``MPI_COMM_WORLD`` rank and size
        of the job, not those of the communicator being remapped.

        Raises
        ------
        ProviderError
            If the location cannot be determined; the message says why.
        InvalidInputError
            If ``rank`` is not in ``[0, size)``.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define locate")

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the network the coordinates of :meth:`locate` live in.

        Not collective.  ``size`` (the job size) is only needed by providers that
        derive the extents from the job (bgq without a configured shape).
        """
        raise NotImplementedError(f"{type(self).__name__} does not define network")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"


def _percs_machine(coords: np.ndarray, network: NetworkInfo, name: str) -> Machine:
    """A PercsMachine: the job must be the whole system with rank r on processor r."""
    opts = dict(network.options)
    spec = {"ns": network.dims[0], "nd": opts.get("n_d", PERCS_DEFAULTS["nd"]),
            "routing": opts.get("routing", PERCS_DEFAULTS["routing"])}
    m = percs_from_options(spec, f"network {name!r}", name=name)
    if coords.shape[0] != m.n_procs:
        raise InvalidInputError(
            f"locations: a PERCS machine models the whole system of {m.n_procs} processors; got {coords.shape[0]} ranks"
        )
    expected = m.locate(np.arange(m.n_procs))[:, :3]  # (supernode, drawer, node) of processor r
    bad = np.flatnonzero((coords[:, :3] != expected).any(axis=1))
    if bad.size:
        r = int(bad[0])
        raise InvalidInputError(
            f"locations: rank {r} is on PERCS node {tuple(int(v) for v in coords[r, :3])} but processor {r} is on "
            f"{tuple(int(v) for v in expected[r])}; ranks must fill nodes in processor order"
        )
    return m


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
        A TorusMachine for ``network.kind == "torus"``; for ``"flat"`` the node-only
        machine ``mpitaskmap.machines.FlatMachine`` (0 hops within, 1 hop between nodes);
        for ``"percs"`` a :class:`~mpitaskmap.machines.percs.PercsMachine` (the job must be the whole
        system, rank ``r`` on processor ``r``); for ``"fattree"`` a
        :class:`~mpitaskmap.machines.FatTreeMachine` whose node ids are tree node numbers:
        from topology addresses, the job's nodes in the order of their switch paths
        (:func:`~mpitaskmap.machines.slurm_topology.fattree_from_node_paths`), for a
        regular tree the ranks' coordinates; for ``"dragonfly"`` a
        :class:`~mpitaskmap.machines.DragonflyMachine` whose node ids are the node numbers
        ``(g S + s) n + k`` of the ranks' coordinates (from xnames: of their node keys'
        places, :func:`xname_place`, the job's cabinets numbered in ascending order).

    Raises
    ------
    InvalidInputError
        If there are no locations, an entry is not a Location, a rank has the wrong
        number of coordinates or one outside ``[0, dims[k])``, or two ranks on one node
        report different routers.  The message names the rank.
    ProviderError
        For a flat network when this version has no ``FlatMachine``.

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
        As :func:`assemble_machine`; a :class:`~mpitaskmap.machines.TorusMachine` holds the
        router coordinates in the narrowest exact of int16, int32, int64
        (:func:`~mpitaskmap._validate.as_narrowest_coords`).

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
            f"got {tuple(int(c) for c in coords[r])} on node {_node_text(nodes[r])!r}"
        )
    _, first_index, inverse = np.unique(nodes, return_index=True, return_inverse=True)
    first = first_index[inverse]  # the first rank on every rank's node
    moved = np.flatnonzero((coords != coords[first]).any(axis=1))
    if moved.size:
        r = int(moved[0])
        q = int(first[r])
        raise InvalidInputError(
            f"locations: ranks {q} and {r} are on node {_node_text(nodes[r])!r} but report different routers "
            f"{tuple(int(c) for c in coords[q])} and {tuple(int(c) for c in coords[r])}"
        )
    label = np.empty(first_index.size, dtype=np.intp)
    label[np.argsort(first_index, kind="stable")] = np.arange(first_index.size)
    node_ids = label[inverse]
    if network.kind == "flat":
        return FlatMachine(node_ids, name=name)
    if network.kind == "percs":
        return _percs_machine(coords, network, name)
    if network.kind == "fattree":
        return _fattree_machine(coords, nodes, first_index[np.argsort(first_index, kind="stable")], node_ids,
                                network, name)
    if network.kind == "dragonfly":
        return _dragonfly_machine(coords, nodes, first_index, inverse, network, name)
    return TorusMachine(
        as_narrowest_coords(coords),  # int16 on every real network; the machine keeps them so
        network.dims,
        wrap=list(network.wrap),
        node_ids=node_ids,
        bandwidth=network.bandwidth,
        dim_names=list(network.dim_names) if network.dim_names is not None else None,
        name=name,
    )


def _fattree_machine(coords: np.ndarray, nodes: np.ndarray, first_rank: np.ndarray, node_ids: np.ndarray,
                     network: NetworkInfo, name: str) -> FatTreeMachine:
    """The fat tree of a ``"fattree"`` network; ``first_rank[k]``: the first rank on node id ``k``."""
    opts = dict(network.options)
    bandwidth, routing = opts.get("bandwidth", 12.5), opts.get("routing", "dmodk")
    if "down" in opts:  # a regular tree: the coordinate is the tree node
        return FatTreeMachine.regular(opts["down"], opts["up"], bandwidth, coords[:, 0], routing=routing, name=name)
    pattern = opts["pattern"]
    paths, names, rank_of_name, kinds = [], [], {}, set()
    for r in first_rank.tolist():
        key = _node_text(nodes[r])
        try:
            addr = parse_topology_addr(key, pattern)
        except InvalidInputError as exc:
            raise InvalidInputError(f"locations: rank {r}: {exc}") from None
        if addr.kind not in ("tree", "block"):
            raise InvalidInputError(f"locations: rank {r}: pattern {pattern!r} gives no switches; got {key!r}")
        if addr.node in rank_of_name:
            q = rank_of_name[addr.node]
            raise InvalidInputError(f"locations: ranks {q} and {r} are on node {addr.node!r} but report different "
                                    f"addresses {_node_text(nodes[q])!r} and {key!r}")
        rank_of_name[addr.node] = r
        paths.append(addr.path)
        names.append(addr.node)
        kinds.add(addr.kind)
    machine = fattree_from_node_paths(paths, names, node_ids, bandwidth=bandwidth, taper=opts.get("taper", 1.0),
                                      routing=routing, name=name, what="locations")
    if kinds == {"tree"}:  # after the structure's own checks, which name the fault more precisely
        _check_common_top(paths, names, node_ids)
    return machine


def _check_common_top(paths: list, names: list, node_ids: np.ndarray) -> None:
    """Raise unless every node's ``SLURM_TOPOLOGY_ADDR`` starts at one top switch.

    ``paths[k]`` and ``names[k]`` belong to node id ``k``; ``node_ids[r]`` is rank ``r``'s.
    A tree address lists every switch above the node, so two different tops are switches
    without a common ancestor: Slurm places no job across them unless
    ``TopologyParam=TopoOptional``, and then nothing says how they connect (the rule
    :func:`~mpitaskmap.machines.slurm_topology.node_paths` applies to a ``topology.conf``).
    """
    tops: dict[str, list] = {}  # top switch -> node ids below it
    for k, path in enumerate(paths):
        tops.setdefault(path[0], []).append(k)
    if len(tops) < 2:
        return
    parts = []
    for top, members in tops.items():
        ranks = np.flatnonzero(np.isin(node_ids, members))
        parts.append(f"{compress_hostlist([names[k] for k in members])} (rank{'s' if ranks.size > 1 else ''} "
                     f"{rank_ranges(ranks)}) below {top!r}")
    raise InvalidInputError(
        "locations: the job's nodes hang below switches without a common ancestor (SLURM_TOPOLOGY_ADDR): "
        f"{'; '.join(parts)}; Slurm places no job across switches without a common parent (unless "
        "TopologyParam=TopoOptional), and the addresses do not say how they connect: give the machine as a "
        "topology.conf with a switch above them (MPITASKMAP_COORDS_FILE=topology.conf:NODELIST)")


def _dragonfly_machine(coords: np.ndarray, nodes: np.ndarray, first_index: np.ndarray, inverse: np.ndarray,
                       network: NetworkInfo, name: str) -> DragonflyMachine:
    """The dragonfly of a ``"dragonfly"`` network; ``first_index``: the first rank on every distinct node key,
    ``inverse``: the distinct node key of every rank."""
    opts = dict(network.options)
    if "xname" in opts:
        coords, G, name = _xname_places(nodes, first_index, inverse, opts, name)
        S, n = opts["xname"][0] * opts["xname"][1], opts["xname"][2] * opts["xname"][3]
        switches = S
    else:
        (G, S, n), switches = network.dims, opts["switches"]
    number = (coords[:, 0].astype(np.int64) * S + coords[:, 1]) * n + coords[:, 2]
    firsts = np.sort(first_index)
    values, count = np.unique(number[firsts], return_counts=True)
    if (count > 1).any():  # two node keys on one (group, switch, slot)
        v = values[np.flatnonzero(count > 1)[0]]
        q, r = (int(x) for x in firsts[number[firsts] == v][:2])
        raise InvalidInputError(f"locations: ranks {q} and {r} are on nodes {_node_text(nodes[q])!r} and "
                                f"{_node_text(nodes[r])!r} but report the same (group, switch, slot) "
                                f"{tuple(int(c) for c in coords[r])}")
    return DragonflyMachine(G, switches, n, number, global_links=opts["global_links"],
                            global_ports=opts["global_ports"], bandwidth=dict(opts["bandwidth"]),
                            routing=opts["routing"], name=name)


def _xname_places(nodes: np.ndarray, first_index: np.ndarray, inverse: np.ndarray, opts: dict,
                  name: str) -> tuple[np.ndarray, int, str]:
    """(group, switch, slot) of every rank from the xnames of its node key, the groups and the machine's name.

    The job's cabinets in ascending number are groups 0, 1, ... (:func:`xname_dragonfly_network`).
    """
    places = np.empty((first_index.size, 3), dtype=np.int64)
    for k, r in enumerate(first_index.tolist()):
        try:
            places[k] = xname_place(_node_text(nodes[r]), opts["xname"])
        except InvalidInputError as exc:
            raise InvalidInputError(f"locations: rank {r}: {exc}") from None
    cabinets, group = np.unique(places[:, 0], return_inverse=True)
    G = opts["n_groups"] if opts["n_groups"] is not None else max(2, cabinets.size)
    if cabinets.size > G:
        raise InvalidInputError(f"locations: the job's nodes are in {cabinets.size} cabinets (x{cabinets[0]} .. "
                                f"x{cabinets[-1]}) but the network has n_groups={G} groups")
    places[:, 0] = group.ravel()
    return places[inverse.ravel()], G, f"{name} [{XNAME_APPROXIMATION}]"


def _node_text(key) -> str:
    return key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)


def machine_from_provider(provider: Provider, size: int, *, name: str | None = None) -> Machine:
    """Build the whole job's machine in one process from a rank-addressable provider.

    Not collective.  For offline use (site staff, tests): calls ``provider.locate(r,
    size)`` for every rank and :func:`assemble_machine`.

    Raises
    ------
    ProviderError
        If the provider only knows the calling process (``rank_addressable`` is False),
        or as ``locate`` does.

    Examples
    --------
    >>> from mpitaskmap.providers import get_provider
    >>> m = machine_from_provider(get_provider("sim:torus:dims=4x4,ppn=2"), 8)
    >>> m.router_coords[:4].tolist(), m.node_ids[:4].tolist()
    ([[0, 0], [0, 0], [1, 0], [1, 0]], [0, 0, 1, 1])
    """
    _, size = check_rank(0, size)
    if not provider.rank_addressable:
        raise ProviderError(
            f"provider: {provider.spec!r} only knows the calling process; gather its locations "
            "over MPI instead (remap does)"
        )
    locations = [provider.locate(r, size) for r in range(size)]
    return assemble_machine(locations, provider.network(size=size), name=name or provider.spec)
