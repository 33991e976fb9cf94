"""Dragonflies: groups of switches, all-to-all (HPE Slingshot) or row/column (Cray Aries) inside a group.

A dragonfly here has ``G`` **groups** of ``S`` switches, ``n`` compute nodes on every switch
and ``h`` **global links** between every pair of groups:

* **Nodes** are numbered ``v = (g S + s) n + k`` (group ``g``, switch ``s`` of the group,
  slot ``k`` on the switch); the allocation is a subset of them
  (:attr:`DragonflyMachine.node_ids` are node numbers).
* **Inside a group**, either every switch is joined to every other one (``switches=S``:
  Slingshot's all-to-all, link class ``local``), or the group is ``R`` rows by ``C``
  columns of routers (``switches=(R, C)``: Aries, switch ``s = r C + c``) with every pair of
  one row joined by a ``green`` link and every pair of one column by a ``black`` link.
  One link each way per joined pair; a class's bandwidth is that of the whole connection
  between the two switches (Aries' three black cables are one link of three times the
  bandwidth).
* **Global links** follow the *absolute* arrangement of SimGrid's ``DRAGONFLY`` cluster,
  extended to ``h`` links per pair of groups and ``p`` global ports per switch.  SimGrid
  joins groups ``a`` and ``b`` by one link from switch number ``b`` of group ``a`` to switch
  number ``a`` of group ``b`` (the switch whose number is the other group's), so switch ``a``
  of group ``a`` has no global link.  Here a group's global ports are numbered ``k = j G +
  b`` (link ``j < h`` towards group ``b``; the ports ``j G + a`` of group ``a`` itself stay
  unused, as in SimGrid) and port ``k`` sits on switch ``k // p`` of the group: the link
  ``j`` between ``a`` and ``b`` leaves switch ``(j G + b) // p`` of ``a`` and arrives at switch
  ``(j G + a) // p`` of ``b`` (:meth:`DragonflyMachine.global_switch`).  With ``h = p = 1``
  this is SimGrid's rule; with ``h > 1`` the links of one pair sit ``G`` ports apart, on
  different switches whenever ``G >= p``.  ``G h <= S p`` must hold; ``p`` defaults to the
  fewest ports that fit, ``ceil(G h / S)``.
* **Node links** join every node to its switch, one each way (class ``node``).

**Routing** (:data:`DRAGONFLY_ROUTINGS`; the group-level choices are
:func:`~mpitaskmap.machines.two_level.group_paths`, shared with PERCS):

* Inside a group: the node's up-link, the local hop(s) between the two switches (one on
  an all-to-all group; on a row/column group the green hop along the source's row, then
  the black hop along the destination's column, as SimGrid's ``DRAGONFLY`` does), the
  destination's down-link.
* ``"minimal"`` (default): a minimal path between groups ``a`` and ``b`` takes one of the
  ``h`` global links ``j`` between them: local hop(s) to the switch of ``a`` holding link
  ``j``, link ``j``, local hop(s) from its far end to the destination's switch.  Every node
  pair ``(u, v)`` (node numbers) has one static path, over link ``j = (u + v) mod h``, so the
  pairs of two groups spread over their links as a hashed, table-based minimal routing
  spreads them -- and as SimGrid, which follows one route per host pair, simulates them
  (:func:`mpitaskmap.sim.simgrid.platform_xml` writes exactly these routes).
* ``"ecmp"``: minimal, every pair's traffic split evenly over the ``h`` minimal paths
  (``1 / h`` on each): the average load of an adaptive minimal routing.
* ``"valiant"``: the pair's traffic is spread evenly over every *intermediate* group ``c``
  other than ``a`` and ``b`` (``1 / (G - 2)`` each): minimal from the source to ``c``
  (spread over the ``h`` links ``a -> c``), then minimal from where it arrived in ``c`` to
  the destination (spread over the ``h`` links ``c -> b``), so each (``c``, ``j1``, ``j2``)
  path carries ``1 / ((G - 2) h^2)``.  Source and destination groups are left out: through
  them the path degenerates into the minimal one, while Valiant routing on a dragonfly
  (Kim et al., ISCA 2008: a random intermediate group) exists to leave the minimal path's
  global links; so every inter-group pair is routed fully non-minimally, the far end of
  the spreading that UGAL mixes with minimal routing.  It needs ``G >= 3``.
* ``"ugal"``: adaptive, as Aries and Slingshot route: every inter-group node pair of an
  exchange takes either its ``"minimal"`` path or the ``"valiant"`` spread, by UGAL-L's load
  rule as a fixed point over the exchange (:mod:`~mpitaskmap.machines.dragonfly.ugal`).  The
  choice depends on the whole exchange, so it is made where an exchange is routed (link loads,
  :meth:`~DragonflyMachine.link_time`, the replay's :meth:`~DragonflyMachine.exchange_routes`);
  :meth:`~DragonflyMachine.routes` of a pair, and the graph mappers' node-pair tables, give the
  minimal path, the one a pair alone on the network keeps.  Traffic inside a group stays
  minimal; with two groups (no intermediate) every pair does.
* ``"either"``: the network may route minimally or by UGAL, nobody says which: the predicted
  time and the judge's replay rank a mapping under both (:meth:`~DragonflyMachine.routing_samples`,
  combined as :func:`~mpitaskmap.machines.base.sampled_time` combines them: the mean plus the
  worse, halved); routes, hops and link loads are the minimal ones.

**Hops** (:meth:`DragonflyMachine.hops`): links on the pair's minimal path (``"minimal"``, ``"ugal"``),
or on the shortest of its minimal paths (``"ecmp"``, ``"valiant"``), node links included: 0 on
one node, 2 between nodes of one switch, 3 inside an all-to-all group (3 or 4 in a row/column
group), 3 to 7 between groups.

**Link numbering** (:attr:`DragonflyMachine.n_links`; ``N = G S n`` nodes): up-link of node
``v`` is ``v``, its down-link ``N + v``; then the local (green) links, ``(g S + s) (C - 1) +
c'`` from switch ``s = r C + c`` to ``r C + c'`` (``c'`` counted without ``c``; on an
all-to-all group ``R = 1``, ``C = S``); then the black links, ``(g S + s) (R - 1) + r'`` from
``s`` to ``r' C + c``; then the global links, ``(a (G - 1) + b') h + j`` for link ``j`` from
``a`` to ``b`` (``b'`` counted without ``a``).  Classes run from the most local to the most
global: ``node, local, global`` or ``node, green, black, global``.

Sources and where the library differs from them: ALGORITHMS.md section 8.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from ..._options import parse_float
from ..._validate import as_index_array, as_weights
from ...errors import InvalidInputError
from ..base import ROUTE_CHUNK_ENTRIES, Machine, NodePairRoutes, _Traffic
from ..fattree.presets import _count
from ..links import Routes, merge_routes
from ... import _hops
from ..network_hops import METRIC_KINDS, NodeMetric, label_hops
from .. import two_level
from ..two_level import GROUP_ROUTINGS, GroupPaths, group_paths
from ..views import NodeHierarchy
from .ugal import UgalChoice, ugal_detours

__all__ = ["DragonflyMachine", "DRAGONFLY_ROUTINGS", "DRAGONFLY_CLASS_BW_KEYS", "class_bandwidth_options", "GroupPaths",
           "group_paths"]

#: Routing rules of :class:`DragonflyMachine` (module notes) and the group-level rule of
#: :func:`~mpitaskmap.machines.two_level.group_paths` each one takes its paths from (re-exported here
#: with it and :class:`GroupPaths`): ``"minimal"`` keeps one of the minimal paths per node pair.
DRAGONFLY_GROUP_RULE = {"minimal": "minimal", "ecmp": "minimal", "valiant": "valiant", "ugal": "minimal",
                        "either": "minimal"}
DRAGONFLY_ROUTINGS = tuple(DRAGONFLY_GROUP_RULE)
#: Keys giving one link class its GB/s in a dragonfly's ``sim:dragonfly`` spec and machine-file network line
#: (``bw`` gives every class); ``local`` on all-to-all groups, ``green`` and ``black`` on rows and columns.
DRAGONFLY_CLASS_BW_KEYS = ("bw_node", "bw_local", "bw_green", "bw_black", "bw_global")


def class_bandwidth_options(options: Mapping[str, str], what: str) -> dict[str, float]:
    """The link classes' GB/s a dragonfly's ``bw_CLASS`` options name (:data:`DRAGONFLY_CLASS_BW_KEYS`), by class.

    Given with ``bw``, they override it on their classes; without it they must name every
    class of the machine (it says which is missing).

    Raises
    ------
    InvalidInputError
        On a value that is not a positive number, naming the key and ``what``.

    Examples
    --------
    >>> class_bandwidth_options({"bw": "25", "bw_green": "5.25", "bw_global": "9.375"}, "demo")
    {'green': 5.25, 'global': 9.375}
    """
    return {key[3:]: parse_float(options[key], key, what, positive=True) for key in DRAGONFLY_CLASS_BW_KEYS
            if key in options}
assert set(DRAGONFLY_GROUP_RULE.values()) <= set(GROUP_ROUTINGS)

#: Routings whose :meth:`DragonflyMachine.routes` give one static minimal path per node pair
#: (``"ugal"``: the path of a pair alone; its exchange-wide choice is made where an exchange is routed).
ONE_PATH_ROUTINGS = ("minimal", "ugal", "either")

#: Columns of the path table of :meth:`DragonflyMachine.routes`: up-link, two local hops in the
#: source group, the first global link, two local hops in the next group, the second global
#: link (Valiant), two local hops in the destination group, down-link.
_PATH_COLUMNS = 10


def _shape(switches) -> tuple[int, int, str]:
    """(rows, columns, wiring) of ``switches``: an int (all-to-all) or a (rows, columns) pair."""
    if isinstance(switches, (int, np.integer)) and not isinstance(switches, (bool, np.bool_)):
        return 1, _count(switches, "switches"), "all-to-all"
    try:
        if isinstance(switches, (str, bytes)):
            raise TypeError
        rows, cols = switches
    except (TypeError, ValueError):
        raise InvalidInputError(f"switches: expected an int (all-to-all group) or a (rows, columns) pair (Aries); "
                                f"got {switches!r}") from None
    return _count(rows, "switches: rows"), _count(cols, "switches: columns"), "row-column"


class DragonflyMachine(Machine):
    """The processors of one allocation on a dragonfly (module notes: wiring, global arrangement, routing).

    Parameters
    ----------
    n_groups : int
        Groups ``G`` of the machine (>= 2).
    switches : int or (int, int)
        Switches of a group: ``S`` joined all-to-all (Slingshot), or ``(rows, columns)`` of
        routers joined all-to-all along each row (green) and each column (black) (Aries).
    nodes_per_switch : int
        Compute nodes ``n`` on every switch.
    proc_nodes : (n_procs,) array_like of int
        Node number ``(g S + s) n + k`` of every processor (the allocation; cores of a node
        share it).
    global_links : int, optional
        Global links ``h`` between every pair of groups (default 1).
    global_ports : int, optional
        Global ports ``p`` of a switch (default ``ceil(G h / S)``, the fewest that fit).
    bandwidth : float or mapping, optional
        GB/s of every link: one float for all, or one value per class name
        (``{"node":, "local":, "global":}``, or ``"green"`` and ``"black"`` for ``"local"``
        on a row/column group); default 25.0 (Slingshot's 200 Gb/s).
    routing : {"minimal", "ecmp", "valiant", "ugal", "either"}, optional
        Default ``"minimal"`` (module notes).
    name : str, optional
        Description used in reports.

    Raises
    ------
    InvalidInputError
        On a bad shape, too few global ports for the links (``G h > S p``), a bandwidth
        that is not positive or names an unknown or missing class, Valiant routing with
        two groups, or processors on nodes outside the machine (naming the value).

    Examples
    --------
    Three groups of three switches, two nodes per switch, one global link per pair
    (SimGrid's arrangement: switch ``b`` of group ``a`` holds the link to group ``b``):

    >>> m = DragonflyMachine(3, 3, 2, range(18))
    >>> m.n_links, m.hops([0, 0, 0, 0], [1, 2, 6, 17]).tolist()
    (60, [2, 3, 4, 5])
    >>> m.route(0, 17)   # node 0 (g0 s0) -> node 17 (g2 s2): local to s2, global to g2 (arrives at s0), local to s2
    [('node', 0), ('local', 37), ('global', 55), ('local', 49), ('node', 35)]
    """

    name = "dragonfly"

    def __init__(self, n_groups: int, switches, nodes_per_switch: int, proc_nodes, *, global_links: int = 1,
                 global_ports: int | None = None, bandwidth: float | Mapping[str, float] = 25.0,
                 routing: str = "minimal", name: str | None = None) -> None:
        self.n_groups = _count(n_groups, "n_groups", 2)
        self.rows, self.columns, self.wiring = _shape(switches)
        self.switches_per_group = self.rows * self.columns
        self.nodes_per_switch = _count(nodes_per_switch, "nodes_per_switch")
        self.global_links = _count(global_links, "global_links")
        G, S, h = self.n_groups, self.switches_per_group, self.global_links
        self.global_ports = math.ceil(G * h / S) if global_ports is None else _count(global_ports, "global_ports")
        if G * h > S * self.global_ports:
            raise InvalidInputError(
                f"global_ports: {S} switches x {self.global_ports} ports hold {S * self.global_ports} of the "
                f"{G} x {h} = {G * h} global port numbers a group needs (module notes); got {self.global_ports}")
        if routing not in DRAGONFLY_ROUTINGS:
            raise InvalidInputError(f"routing: expected one of {list(DRAGONFLY_ROUTINGS)}; got {routing!r}")
        if routing == "valiant" and G < 3:
            raise InvalidInputError(f"routing: 'valiant' needs an intermediate group, i.e. n_groups >= 3; got {G}")
        self.routing = routing
        self.n_network_nodes = G * S * self.nodes_per_switch
        self._names = (("node", "local", "global") if self.wiring == "all-to-all"
                       else ("node", "green", "black", "global"))
        self._bandwidth = self._check_bandwidth(bandwidth)
        N = self.n_network_nodes
        self._off_local = 2 * N
        self._off_black = self._off_local + G * S * (self.columns - 1)
        self._off_global = self._off_black + G * S * (self.rows - 1)
        pn = as_index_array(np.asarray(proc_nodes), "proc_nodes", upper=N)
        super().__init__(pn.shape[0], pn, name)

    def _check_bandwidth(self, bandwidth) -> dict:
        if isinstance(bandwidth, Mapping):
            unknown = [k for k in bandwidth if k not in self._names]
            if unknown:
                raise InvalidInputError(f"bandwidth: unknown link class {unknown[0]!r}; the classes of this "
                                        f"{self.wiring} dragonfly are {list(self._names)}")
            missing = [k for k in self._names if k not in bandwidth]
            if missing:
                raise InvalidInputError(f"bandwidth: no value for link class {missing[0]!r}; "
                                        f"expected one per class {list(self._names)}")
            values = {k: bandwidth[k] for k in self._names}
        else:
            values = {k: bandwidth for k in self._names}
        out = {}
        for k, v in values.items():
            try:
                f = float(v)
            except (TypeError, ValueError):
                f = math.nan
            if isinstance(v, (bool, np.bool_)) or not (math.isfinite(f) and f > 0):
                raise InvalidInputError(f"bandwidth[{k!r}]: must be a positive finite number (GB/s); got {v!r}")
            out[k] = f
        return out

    def with_routing(self, routing: str) -> "DragonflyMachine":
        """Return the same allocation with another routing rule (:data:`DRAGONFLY_ROUTINGS`).

        Examples
        --------
        >>> DragonflyMachine(3, 3, 2, [0, 17]).with_routing("valiant").routing
        'valiant'
        """
        switches = self.switches_per_group if self.wiring == "all-to-all" else (self.rows, self.columns)
        return DragonflyMachine(self.n_groups, switches, self.nodes_per_switch, self.node_ids,
                                global_links=self.global_links, global_ports=self.global_ports,
                                bandwidth=dict(self._bandwidth), routing=routing, name=self.name)

    def __repr__(self) -> str:
        shape = self.switches_per_group if self.wiring == "all-to-all" else (self.rows, self.columns)
        return (f"DragonflyMachine(n_groups={self.n_groups}, switches={shape}, "
                f"nodes_per_switch={self.nodes_per_switch}, "
                f"global_links={self.global_links}, n_procs={self.n_procs}, routing={self.routing!r})")

    # -- places ---------------------------------------------------------------------------
    def locate(self, procs) -> np.ndarray:
        """Return (group, switch in the group, slot on the switch) of every processor, (n, 3) int64.

        Examples
        --------
        >>> DragonflyMachine(3, (2, 2), 2, [0, 9, 23]).locate([0, 1, 2]).tolist()
        [[0, 0, 0], [1, 0, 1], [2, 3, 1]]
        """
        p = as_index_array(np.atleast_1d(procs), "procs", upper=self.n_procs)
        v = self.node_ids[p].astype(np.int64)
        sw, slot = np.divmod(v, self.nodes_per_switch)
        g, s = np.divmod(sw, self.switches_per_group)
        return np.stack([g, s, slot], axis=1)

    def node_number(self, group, switch, slot) -> np.ndarray:
        """Return the node number ``(g S + s) n + k`` of nodes given by group, switch and slot, int64.

        On a row/column group the switch is ``row * columns + column``.

        Raises
        ------
        InvalidInputError
            On a coordinate out of range (naming it and its index).

        Examples
        --------
        >>> DragonflyMachine(3, (2, 2), 2, [0]).node_number([1, 2], [0, 3], [1, 1]).tolist()
        [9, 23]
        """
        g = as_index_array(np.atleast_1d(group), "group", upper=self.n_groups).astype(np.int64)
        s = as_index_array(np.atleast_1d(switch), "switch", upper=self.switches_per_group, length=g.size)
        k = as_index_array(np.atleast_1d(slot), "slot", upper=self.nodes_per_switch, length=g.size)
        return (g * self.switches_per_group + s) * self.nodes_per_switch + k

    def global_switch(self, group, peer, link) -> np.ndarray:
        """Return the switch of ``group`` that holds global link ``link`` between ``group`` and ``peer``.

        The absolute arrangement of the module notes: port ``link * G + peer`` of the group,
        on switch ``(link * G + peer) // p``.  Link ``j`` from ``a`` to ``b`` leaves
        ``global_switch(a, b, j)`` and arrives at ``global_switch(b, a, j)``.  Inputs are
        trusted (broadcast int arrays).

        Examples
        --------
        SimGrid's rule (one link per pair, one port per switch): switch ``b`` of group ``a``.

        >>> m = DragonflyMachine(3, 3, 2, [0])
        >>> m.global_switch([0, 0, 2], [1, 2, 0], [0, 0, 0]).tolist()
        [1, 2, 0]
        """
        return (np.asarray(link, dtype=np.int64) * self.n_groups + np.asarray(peer, dtype=np.int64)) \
            // self.global_ports

    # -- the hierarchy and the embedding --------------------------------------------------
    def node_hierarchy(self) -> NodeHierarchy:
        """Return the allocated nodes grouped by switch, (row,) group and the whole machine (lowest level first).

        A row level (the Aries chassis, joined by green links) sits between switch and
        group on a row/column group.

        Examples
        --------
        >>> h = DragonflyMachine(3, (2, 2), 2, [0, 1, 3, 9]).node_hierarchy()
        >>> h.level_names, [g.tolist() for g in h.groups]
        (('switch', 'row', 'group', 'machine'), [[0, 0, 1, 4], [0, 0, 0, 2], [0, 0, 0, 1], [0, 0, 0, 0]])
        """
        v = self.node_view().nodes.astype(np.int64)
        sw = v // self.nodes_per_switch
        g = sw // self.switches_per_group
        levels = [sw]
        names = ["switch"]
        if self.wiring == "row-column":
            levels.append(sw // self.columns)  # rows are numbered g R + r: C consecutive switches each
            names.append("row")
        levels += [g, np.zeros_like(g)]
        names += ["group", "machine"]
        return NodeHierarchy(tuple(levels), tuple(names))

    def geometric_coords(self) -> np.ndarray:
        """Return the (group, switch, slot) embedding, (n_procs, 3) float64, a group step costing most.

        Scaled as Zoltan2's ``MachineDragonflyRCA`` scales its group coordinate (twice the
        routers of a group times the finer levels' unit): slot ``k`` as is, switch ``s`` times
        ``n``, group ``g`` times ``2 S n``, so one group step spans twice all the switches of
        a group and a switch step more than all slots of a switch; a longest-dimension
        partitioner cuts groups first, then switches (row-major on a row/column group, so
        whole rows stay together), then nodes.

        Examples
        --------
        >>> DragonflyMachine(3, 3, 2, [0, 3, 17]).geometric_coords().tolist()
        [[0.0, 0.0, 0.0], [0.0, 2.0, 1.0], [24.0, 4.0, 1.0]]
        """
        loc = self.locate(np.arange(self.n_procs)).astype(np.float64)
        n, S = self.nodes_per_switch, self.switches_per_group
        return loc * np.array([2.0 * S * n, float(n), 1.0])

    # -- distance ---------------------------------------------------------------------------
    def _local_hops(self, s, t) -> np.ndarray:
        """Local links between switches s and t of one group (0, 1 or 2; broadcast): the metric's, less the node links."""
        s, t = np.broadcast_arrays(np.asarray(s, dtype=np.int64), np.asarray(t, dtype=np.int64))
        n = self.nodes_per_switch
        hops = label_hops("dragonfly", self._metric_params(), (s * n).reshape(-1, 1), (t * n).reshape(-1, 1)) - 2
        return np.where(s == t, 0, hops.reshape(s.shape))

    def hops(self, src, dst) -> np.ndarray:
        """Return the links on the pair's minimal path (the shortest of them under ``"ecmp"``, ``"valiant"``), node links too.

        Examples
        --------
        >>> m = DragonflyMachine(3, (2, 2), 1, range(12))
        >>> m.hops([0, 0, 0, 0], [1, 2, 3, 0]).tolist()   # same row, same column, both, same node
        [3, 3, 4, 0]

        Two global links per pair: node 0 (g0 s0) -> 14 (g2 s1) is routed over link (0 + 14) mod 2
        = 0 (a local hop at both ends); spread, it also takes link 1 (from g0 s2 to g2 s1: one).

        >>> m = DragonflyMachine(3, 3, 2, range(18), global_links=2)
        >>> m.hops([0], [14]).tolist(), m.with_routing("ecmp").hops([0], [14]).tolist()
        ([5], [4])
        """
        src, dst = self._checked_pairs(src, dst)
        return label_hops("dragonfly", self._metric_params(), self.node_ids[src][:, None], self.node_ids[dst][:, None])

    def _metric_params(self) -> list:
        """The dragonfly metric's parameters (``cext/_network_hops.pxd``): ``"minimal"`` and ``"ugal"`` keep
        the one static path (module notes), the other rules the shortest over the pair's global links."""
        return [self.nodes_per_switch, self.switches_per_group, self.columns, self.n_groups, self.global_links,
                self.global_ports, int(self.routing in ONE_PATH_ROUTINGS)]

    def _build_node_metric(self) -> NodeMetric:
        # the one static path of "minimal" is a formula too; the spread routings keep their tables
        routes = (dict(route_params=self._route_params(), n_links=self.n_links) if self.routing in ONE_PATH_ROUTINGS
                  else {})
        return NodeMetric.build("dragonfly", self._metric_params(), self.node_view().nodes[:, None], **routes)

    def _route_params(self) -> np.ndarray:
        """The compiled minimal routes' parameters (``cext/_network_hops.pxd``)."""
        return np.asarray([self.nodes_per_switch, self.switches_per_group, self.rows, self.columns, self.n_groups,
                           self.global_links, self.global_ports, self.n_network_nodes, self._off_local,
                           self._off_black, self._off_global], dtype=np.int64)

    # -- links ------------------------------------------------------------------------------
    @property
    def n_links(self) -> int:
        """Number of directed links: node links, local (green, black) links, then global links."""
        G, h = self.n_groups, self.global_links
        return self._off_global + G * (G - 1) * h

    def link_classes(self) -> tuple[np.ndarray, tuple]:
        """Return the class of every link and the class names, most local first.

        Examples
        --------
        >>> codes, names = DragonflyMachine(3, (2, 2), 1, [0]).link_classes()
        >>> names, np.bincount(codes).tolist()
        (('node', 'green', 'black', 'global'), [24, 12, 12, 6])
        """
        codes = np.empty(self.n_links, dtype=np.int64)
        codes[: self._off_local] = 0
        codes[self._off_local: self._off_black] = 1
        codes[self._off_black: self._off_global] = len(self._names) - 2
        codes[self._off_global:] = len(self._names) - 1
        return codes, self._names

    def link_bandwidths(self) -> np.ndarray:
        """Return the bandwidth of every link (GB/s), from the class bandwidths."""
        codes, names = self.link_classes()
        return np.asarray([self._bandwidth[k] for k in names])[codes]

    def class_bandwidths(self) -> dict:
        """Return the GB/s of every link class (a copy).

        Examples
        --------
        >>> DragonflyMachine(3, 3, 1, [0], bandwidth={"node": 100, "local": 25, "global": 25}).class_bandwidths()
        {'node': 100.0, 'local': 25.0, 'global': 25.0}
        """
        return dict(self._bandwidth)

    def link_names(self, links) -> list[str]:
        """Return a readable name of every link: ``"node 5 up"``, ``"local g0 s1->s2"``, ``"global g0->g2 #1"``.

        Raises
        ------
        InvalidInputError
            On a link id out of range (naming it).

        Examples
        --------
        >>> DragonflyMachine(3, 3, 2, range(18)).link_names([0, 18, 37, 55])
        ['node 0 up', 'node 0 down', 'local g0 s0->s2', 'global g0->g2 #0']
        """
        ids = self._checked_links(links)
        G, S, h, N = self.n_groups, self.switches_per_group, self.global_links, self.n_network_nodes
        R, C = self.rows, self.columns
        out = []
        for k in ids.tolist():
            if k < N:
                out.append(f"node {k} up")
            elif k < 2 * N:
                out.append(f"node {k - N} down")
            elif k < self._off_black:
                sw, c2 = divmod(k - self._off_local, C - 1)
                g, s = divmod(sw, S)
                r, c = divmod(s, C)
                c2 += c2 >= c
                out.append(f"{self._names[1]} g{g} s{s}->s{r * C + c2}")
            elif k < self._off_global:
                sw, r2 = divmod(k - self._off_black, R - 1)
                g, s = divmod(sw, S)
                r, c = divmod(s, C)
                r2 += r2 >= r
                out.append(f"black g{g} s{s}->s{r2 * C + c}")
            else:
                ab, j = divmod(k - self._off_global, h)
                a, b = divmod(ab, G - 1)
                b += b >= a
                out.append(f"global g{a}->g{b} #{j}")
        return out

    # -- routes -----------------------------------------------------------------------------
    def _local_links(self, g, s, t) -> np.ndarray:
        """(n, 2) link ids of the local hops from switch s to switch t of group g (-1: none).

        Green along the source's row, then black along the destination's column.
        """
        S, R, C = self.switches_per_group, self.rows, self.columns
        r1, c1 = np.divmod(s, C)
        r2, c2 = np.divmod(t, C)
        green = c1 != c2
        black = r1 != r2
        green_link = self._off_local + (g * S + s) * (C - 1) + c2 - (c2 > c1)
        mid = r1 * C + c2  # where the green hop arrives
        black_link = self._off_black + (g * S + mid) * (R - 1) + r2 - (r2 > r1)
        out = np.full((np.size(s), 2), -1, dtype=np.int64)
        out[:, 0] = np.where(green, green_link, np.where(black, black_link, -1))
        out[:, 1] = np.where(green & black, black_link, -1)
        return out

    def _global_link(self, a, b, j) -> np.ndarray:
        G, h = self.n_groups, self.global_links
        return self._off_global + (a * (G - 1) + b - (b > a)) * h + j

    def _paths(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Path table (n_paths, 10) of link ids (-1: none) and the pair index of every path, under ``"ecmp"`` or ``"valiant"``.

        The paths of one pair share its traffic evenly (:func:`group_paths` splits evenly).
        ``"minimal"`` keeps one path a pair: :meth:`routes` computes it by formula.
        """
        n, S, N = self.nodes_per_switch, self.switches_per_group, self.n_network_nodes
        ga, s = np.divmod(u // n, S)
        gb, t = np.divmod(v // n, S)
        intra = np.flatnonzero((u != v) & (ga == gb))
        t_intra = np.full((intra.size, _PATH_COLUMNS), -1, dtype=np.int64)
        t_intra[:, 1:3] = self._local_links(ga[intra], s[intra], t[intra])
        # looked up on the shared module at every call, as PERCS does: one routing for both machines
        gp = two_level.group_paths(ga, gb, self.n_groups, self.global_links, DRAGONFLY_GROUP_RULE[self.routing])
        p = gp.pair
        a, b, c, j1 = ga[p], gb[p], gp.via, gp.first
        direct = gp.second < 0
        j2 = np.where(direct, 0, gp.second)
        x2 = self.global_switch(c, b, j2)
        t_inter = np.full((p.size, _PATH_COLUMNS), -1, dtype=np.int64)
        t_inter[:, 1:3] = self._local_links(a, s[p], self.global_switch(a, c, j1))
        t_inter[:, 3] = self._global_link(a, c, j1)
        t_inter[:, 4:6] = self._local_links(c, self.global_switch(c, a, j1), np.where(direct, t[p], x2))
        w = np.flatnonzero(~direct)
        t_inter[w, 6] = self._global_link(c[w], b[w], j2[w])
        t_inter[w, 7:9] = self._local_links(b[w], self.global_switch(b[w], c[w], j2[w]), t[p][w])
        table = np.concatenate([t_intra, t_inter])
        pair = np.concatenate([intra, p])
        table[:, 0] = u[pair]
        table[:, -1] = N + v[pair]
        return table, pair

    def _paths_per_pair(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Rows of the path table every pair needs (for chunking)."""
        n, S, G, h = self.nodes_per_switch, self.switches_per_group, self.n_groups, self.global_links
        ga, gb = u // (n * S), v // (n * S)
        per_inter = {"ecmp": h, "valiant": (G - 2) * h * h}[self.routing]
        return np.where(ga != gb, per_inter, (u != v).astype(np.int64))

    def _node_routes(self, u: np.ndarray, v: np.ndarray) -> Routes:
        """Routes of node pairs (trusted node numbers): the paths merged, a link once per pair.

        A pair's paths carry equal shares, so a link's fraction is the number of the pair's
        paths crossing it over the pair's paths: exact (1.0 where every path crosses it, as
        on the node links), where summing ``(G - 2) h^2`` shares would round above 1.
        """
        table, pair = self._paths(u, v)
        by_hop = table.T  # entries in the order the paths reach them: hop position first, then path
        used = by_hop >= 0
        key = np.broadcast_to(pair, by_hop.shape)[used] * self.n_links + by_hop[used]
        order = np.argsort(key, kind="stable")  # a link's first entry is where a path first reaches it
        key = key[order]
        start = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]])) if key.size else np.zeros(0, np.int64)
        merged_key = key[start]
        merged_seen = order[start]
        merged_pair = merged_key // self.n_links
        crossing = np.diff(np.append(start, key.size))  # paths of the pair crossing the link
        merged_frac = crossing / np.bincount(pair, minlength=u.size)[merged_pair]
        final = np.lexsort((merged_seen, merged_pair))
        indptr = np.zeros(u.size + 1, dtype=np.int64)
        np.cumsum(np.bincount(merged_pair, minlength=u.size), out=indptr[1:])
        return Routes(indptr, (merged_key % self.n_links)[final], merged_frac[final].astype(np.float64))

    def routes(self, src, dst) -> Routes:
        """Return the routes of processor pairs under the machine's routing (module notes), with fractions.

        Every link one of a pair's paths crosses appears once, with the share of the pair's
        traffic summed over those paths, in the order the paths first reach it (by hop
        position); processors of one node have an empty route.

        Notes
        -----
        Minimal: at most 7 entries per inter-group pair with one global link per pair,
        up to ``2 + 5 h`` with ``h``.  Valiant enumerates ``(G - 2) h^2`` paths per
        inter-group pair (before merging; pairs are routed in chunks of about
        :data:`~mpitaskmap.machines.base.ROUTE_CHUNK_ENTRIES` path entries) and lists up to
        ``(G - 2) (6 h + 2 h^2) + 2`` links (about 5,300 on average on the ``"aries"``
        preset, 1,800 on ``"frontier"``: seconds per thousand pairs).  O(entries log
        entries) time.

        Examples
        --------
        Valiant on three groups: the one intermediate group carries everything.

        >>> m = DragonflyMachine(3, 3, 2, range(18), routing="valiant")
        >>> r = m.routes([0], [17])
        >>> m.link_names(r.links), r.fractions.tolist()  # doctest: +NORMALIZE_WHITESPACE
        (['node 0 up', 'local g0 s0->s1', 'global g0->g1 #0', 'local g1 s0->s2', 'global g1->g2 #0',
          'local g2 s1->s2', 'node 17 down'], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
        """
        src, dst = self._checked_pairs(src, dst)
        u, v = self.node_ids[src].astype(np.int64), self.node_ids[dst].astype(np.int64)
        if self.routing in ONE_PATH_ROUTINGS:  # one static path a pair: the compiled formula (the graph kernels' too)
            return Routes(*_hops.label_routes(METRIC_KINDS["dragonfly"], self._route_params(), u[:, None],
                                              v[:, None]))
        per_pair = self._paths_per_pair(u, v) * _PATH_COLUMNS
        if per_pair.sum() <= ROUTE_CHUNK_ENTRIES:
            return self._node_routes(u, v)
        pieces, start = [], 0
        cum = np.cumsum(per_pair)
        while start < u.size:
            base = cum[start - 1] if start else 0
            stop = max(start + 1, int(np.searchsorted(cum, base + ROUTE_CHUNK_ENTRIES, side="right")))
            pieces.append(self._node_routes(u[start:stop], v[start:stop]))
            start = stop
        offsets = np.cumsum([0] + [int(r.indptr[-1]) for r in pieces])
        indptr = np.concatenate([[0]] + [r.indptr[1:] + off for r, off in zip(pieces, offsets[:-1])])
        return Routes(indptr.astype(np.int64), np.concatenate([r.links for r in pieces]),
                      np.concatenate([r.fractions for r in pieces]))


    def single_path_routes(self, src, dst) -> Routes:
        """Return one minimal path per processor pair, whatever the routing: the ``"minimal"`` routes.

        What a simulator that follows one route per pair is given (SimGrid,
        :func:`mpitaskmap.sim.simgrid.platform_xml`): between groups the node pair's minimal
        path over global link ``(u + v) mod h`` (module notes).  The machine's own routes
        under ``"minimal"``; an ``"ecmp"`` or ``"valiant"`` machine gets them too.  Fractions
        are all 1; processors of one node have an empty route.

        Examples
        --------
        Node 0 (g0 s0) -> node 17 (g2 s2) with two global links per pair: ``(0 + 17) mod 2``
        picks link 1, which leaves switch 2 of group 0 and arrives at switch 1 of group 2.

        >>> m = DragonflyMachine(3, 3, 2, range(18), global_links=2, routing="valiant")
        >>> r = m.single_path_routes([0], [17])
        >>> m.link_names(r.links), r.fractions.tolist()  # doctest: +NORMALIZE_WHITESPACE
        (['node 0 up', 'local g0 s0->s2', 'global g0->g2 #1', 'local g2 s1->s2', 'node 17 down'],
         [1.0, 1.0, 1.0, 1.0, 1.0])
        """
        return (self if self.routing in ONE_PATH_ROUTINGS else self.with_routing("minimal")).routes(src, dst)

    @property
    def single_paths_differ(self) -> bool:
        """Whether :meth:`single_path_routes` (minimal) differ from how the machine routes: unless ``"minimal"``."""
        return self.routing != "minimal"

    # -- link loads -------------------------------------------------------------------------
    def _routed_traffic(self, indptr, indices, weights, task_to_proc, overlap_weight: float | None = None) -> _Traffic:
        """Data(e), Congestion(e) and the slowest route through every link, leg by leg where routes are long.

        :func:`mpitaskmap.machines.dragonfly.loads.routed_traffic` gives the values of the
        base's node-pair routing in time independent of the route lengths, after a fixed
        cost of a few milliseconds: used under ``"valiant"`` (thousands of links per pair),
        and under ``"ecmp"`` (``2 + 5 h`` links) once the messages could hold more than
        :data:`~mpitaskmap.machines.base.ROUTE_CHUNK_ENTRIES` route entries (by the graph's
        size, so every mapping of one graph is evaluated the same way); ``"minimal"`` (at
        most 7 links) and smaller ``"ecmp"`` exchanges are routed by the base.
        """
        if self.routing == "ugal":
            return self._ugal_traffic(indptr, indices, weights, task_to_proc, overlap_weight)
        long_routes = self.routing == "valiant" or (
            self.routing == "ecmp" and len(indices) * (2 + 5 * self.global_links) > ROUTE_CHUNK_ENTRIES)
        if not long_routes:
            return super()._routed_traffic(indptr, indices, weights, task_to_proc, overlap_weight)
        from .loads import routed_traffic
        return routed_traffic(self, DRAGONFLY_GROUP_RULE[self.routing], indptr, indices, weights, task_to_proc,
                              overlap_weight)

    # -- adaptive routing ---------------------------------------------------------------------
    @property
    def adaptive_routing(self) -> bool:
        """Whether the machine routes by UGAL (``"ugal"``, or maybe: ``"either"``): routes depend on the traffic."""
        return self.routing in ("ugal", "either")

    def routing_samples(self) -> tuple:
        """Under ``"either"`` this allocation under ``"minimal"`` and under ``"ugal"`` (kept), else ``(self,)``.

        Examples
        --------
        >>> [m.routing for m in DragonflyMachine(4, 2, 1, range(8), routing="either").routing_samples()]
        ['minimal', 'ugal']
        """
        if self.routing != "either":
            return (self,)
        samples = self.__dict__.get("_routing_samples")
        if samples is None:
            samples = self._routing_samples = (self.with_routing("minimal"), self.with_routing("ugal"))
        return samples

    def ugal_choice(self, src_nodes, dst_nodes, volume) -> UgalChoice:
        """Return which flows of one exchange UGAL sends on the Valiant detour (:mod:`~.ugal`), whatever the routing.

        Parameters
        ----------
        src_nodes, dst_nodes : (n_flows,) array_like of int
            Node numbers (``(g S + s) n + k``) of every flow's ends; a flow inside one group
            (or one node) stays minimal.
        volume : (n_flows,) array_like of float
            Every flow's volume (>= 0).

        Returns
        -------
        UgalChoice
            ``detour`` per flow, with the fixed point's sweeps.

        Raises
        ------
        InvalidInputError
            On a node number out of the machine, or a bad volume.

        Examples
        --------
        Four groups of two switches, one node each; nodes 0 and 1 (group 0) both send to group 1
        over its one global link: the larger flow detours.

        >>> m = DragonflyMachine(4, 2, 1, range(8))
        >>> m.ugal_choice([0, 1, 0], [2, 3, 1], [1.0, 3.0, 9.0]).detour.tolist()
        [False, True, False]
        """
        N = self.n_network_nodes
        u = as_index_array(np.atleast_1d(src_nodes), "src_nodes", upper=N).astype(np.int64)
        v = as_index_array(np.atleast_1d(dst_nodes), "dst_nodes", upper=N, length=u.size).astype(np.int64)
        w = as_weights(np.atleast_1d(volume), "volume", u.size)
        per_group = self.nodes_per_switch * self.switches_per_group
        gu, gv = u // per_group, v // per_group
        inter = np.flatnonzero(gu != gv)
        choice = ugal_detours(gu[inter], gv[inter], (u[inter] + v[inter]) % self.global_links, w[inter],
                              self.n_groups, self.global_links)
        detour = np.zeros(u.size, dtype=bool)
        detour[inter] = choice.detour
        return UgalChoice(detour, choice.sweeps, choice.converged)

    def _valiant_twin(self) -> "DragonflyMachine":
        """This allocation under ``"valiant"`` (UGAL's detours; kept: its group tables are built once)."""
        twin = self.__dict__.get("_valiant_machine")
        if twin is None:
            twin = self._valiant_machine = self.with_routing("valiant")
        return twin

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state.pop("_valiant_machine", None)  # derived, rebuilt on use
        state.pop("_routing_samples", None)
        return state

    def _ugal_traffic(self, indptr, indices, weights, task_to_proc, overlap_weight) -> _Traffic:
        """:meth:`_routed_traffic` under ``"ugal"``: the node pairs' fixed point, then the minimal pairs routed
        minimally and the detoured ones by the Valiant routing, their loads summed."""
        view = self.node_view()
        node = view.node_of_proc[np.asarray(task_to_proc)]
        indptr = np.asarray(indptr, dtype=np.int64)
        indices = np.asarray(indices, dtype=np.int64)
        weights = np.asarray(weights, dtype=np.float64)
        rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
        a, b = node[rows], node[indices]
        inter = np.flatnonzero(a != b)
        pairs, inverse = np.unique(a[inter] * view.n_nodes + b[inter], return_inverse=True)
        volume = np.bincount(inverse, weights=weights[inter], minlength=pairs.size)
        nodes = np.asarray(view.nodes, dtype=np.int64)
        detour_pair = self.ugal_choice(nodes[pairs // view.n_nodes], nodes[pairs % view.n_nodes], volume).detour
        detour = np.zeros(rows.size, dtype=bool)
        detour[inter] = detour_pair[inverse]

        def edges(keep):
            ptr = np.zeros(indptr.size, dtype=np.int64)
            np.cumsum(np.bincount(rows[keep], minlength=indptr.size - 1), out=ptr[1:])
            return ptr, indices[keep], weights[keep]

        minimal = super()._routed_traffic(*edges(~detour), task_to_proc, overlap_weight)
        if not detour.any():
            return minimal
        valiant = self._valiant_twin()._routed_traffic(*edges(detour), task_to_proc, overlap_weight)
        slowest = None if minimal.slowest is None else np.maximum(minimal.slowest, valiant.slowest)
        return _Traffic(minimal.data + valiant.data, minimal.messages + valiant.messages, slowest)

    def exchange_routes(self, src, dst, volume, *, reverse: bool = False) -> Routes:
        """Return the routes of the messages of one exchange (:meth:`Machine.exchange_routes`); UGAL chooses here.

        Under ``"ugal"`` the messages' node pairs (volumes summed) go through the fixed point of
        :meth:`ugal_choice`: a detoured pair's messages take the Valiant spread, the others
        their minimal path.  Every other routing routes each pair as :meth:`routes` does.

        Examples
        --------
        Two nodes of group 0 send to group 1 (one global link): the larger pair, 1 -> 3, detours
        through groups 2 and 3, half its traffic on each (node links, then two global links per
        intermediate: no local hop, every switch on the way holds the next global link).

        >>> m = DragonflyMachine(4, 2, 1, range(8), routing="ugal")
        >>> r = m.exchange_routes([0, 1], [2, 3], [1.0, 3.0])
        >>> m.link_names(r.links[r.indptr[1]:]), r.fractions[r.indptr[1]:].tolist()  # doctest: +NORMALIZE_WHITESPACE
        (['node 1 up', 'global g0->g2 #0', 'global g0->g3 #0', 'global g2->g1 #0', 'global g3->g1 #0',
          'node 3 down'], [1.0, 0.5, 0.5, 0.5, 0.5, 1.0])
        """
        if self.routing != "ugal":
            return super().exchange_routes(src, dst, volume, reverse=reverse)
        src, dst = self._checked_pairs(src, dst)
        detour = self._exchange_detours(src, dst, volume)
        there, back = (dst, src) if reverse else (src, dst)
        minimal = self.routes(there, back)
        if not detour.any():
            return minimal
        return merge_routes(minimal, self._valiant_twin().routes(there[detour], back[detour]), detour)

    def _exchange_detours(self, src: np.ndarray, dst: np.ndarray, volume) -> np.ndarray:
        """Which messages of one exchange (checked processor ids) UGAL detours: their node pairs' volumes summed,
        through :meth:`ugal_choice`."""
        w = as_weights(np.atleast_1d(volume), "volume", src.size)
        u, v = self.node_ids[src].astype(np.int64), self.node_ids[dst].astype(np.int64)
        pairs, inverse = np.unique(u * self.n_network_nodes + v, return_inverse=True)
        flows = np.bincount(inverse, weights=w, minlength=pairs.size)
        return self.ugal_choice(pairs // self.n_network_nodes, pairs % self.n_network_nodes, flows).detour[inverse]

    def exchange_route_entries(self, src, dst, volume) -> np.ndarray | None:
        """Return the links of every message's route in :meth:`exchange_routes`, counted without routing.

        Under ``"valiant"`` and ``"ecmp"`` every pair's merged route, and under ``"ugal"`` a
        detoured pair's, is counted leg by leg
        (:func:`mpitaskmap.machines.dragonfly.loads.route_entries`), a minimal one by its hops:
        a Valiant route lists thousands of links, so a replay can know its size before building
        it.  None under ``"minimal"`` and ``"either"`` (at most ``2 + 5 h`` links a pair:
        routing them costs no more than counting).

        Examples
        --------
        Two nodes of group 0 send to group 1 (the example of :meth:`exchange_routes`): the
        minimal pair crosses 3 links, the detoured one 6.

        >>> m = DragonflyMachine(4, 2, 1, range(8), routing="ugal")
        >>> m.exchange_route_entries([0, 1], [2, 3], [1.0, 3.0]).tolist()
        [3, 6]
        >>> DragonflyMachine(4, 2, 1, range(8)).exchange_route_entries([0], [2], [1.0]) is None
        True
        """
        if self.routing not in ("ugal", "valiant", "ecmp"):
            return None
        from .loads import route_entries

        src, dst = self._checked_pairs(src, dst)
        if self.routing != "ugal":
            as_weights(np.atleast_1d(volume), "volume", src.size)
            return route_entries(self, DRAGONFLY_GROUP_RULE[self.routing], self.node_ids[src].astype(np.int64),
                                 self.node_ids[dst].astype(np.int64))
        detour = self._exchange_detours(src, dst, volume)
        out = self.hops(src, dst).astype(np.int64)
        if detour.any():
            out[detour] = route_entries(self, DRAGONFLY_GROUP_RULE["valiant"], self.node_ids[src[detour]].astype(np.int64),
                                        self.node_ids[dst[detour]].astype(np.int64))
        return out

    def node_pair_routes(self, max_entries: int) -> NodePairRoutes:
        """Return the routes between every ordered pair of nodes (:meth:`Machine.node_pair_routes`), a too big table refused at once.

        Under ``"ecmp"`` and ``"valiant"`` the table's entries are counted first, exactly and
        without routing (:func:`mpitaskmap.machines.dragonfly.loads.node_pair_route_entries`):
        a Valiant pair lists thousands of links, so a table over ``max_entries`` would
        otherwise be routed up to the limit before being refused.

        Examples
        --------
        >>> DragonflyMachine(3, 3, 2, [0, 17], routing="valiant").node_pair_routes(13)
        NodePairRoutes(routes=None, entries=14, complete=True)
        """
        if self.routing not in ONE_PATH_ROUTINGS:
            from .loads import node_pair_route_entries
            entries = node_pair_route_entries(self, DRAGONFLY_GROUP_RULE[self.routing])
            if entries > int(max_entries):
                return NodePairRoutes(None, entries, True)
        return super().node_pair_routes(max_entries)
