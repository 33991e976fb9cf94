"""Fat trees: the switch hierarchy of InfiniBand and Ethernet clusters, with up/down routing.

A fat tree here is a *parallel generalized fat tree* as SimGrid's ``FAT_TREE`` cluster and
the XGFT literature describe it, generalised to the irregular trees Slurm's
``topology.conf`` gives:

* **Tree nodes** (compute nodes, level 0) are numbered ``0 .. n_tree_nodes - 1``; the
  allocation is a subset of them (:attr:`FatTreeMachine.node_ids` are tree node numbers).
* **Groups** nest level by level: ``groups[l - 1][v]`` is the group of tree node ``v`` at
  switch level ``l`` (1 = leaf, ``h`` = top, where every node is in group 0); nodes of one
  level-``l`` group share their level-``l`` switches.  In a regular tree a leaf group is
  ``v // m_1``, a level-2 group ``v // (m_1 m_2)``, ...; Slurm's trees give any number of
  children per switch.
* **Up-links**: every element (node or switch) at level ``l - 1`` has ``w_l`` parents
  (``up_links[l - 1]``), so a level-``l`` group holds ``W_l = w_1 ... w_l`` switches; the
  taper of a level is its down-links over its up-links.  Switch ``(g, c)`` of level ``l``
  (group ``g``, copy ``c < W_l``) is the parent, through port ``p < w_l``, of every element
  ``(g', c')`` of level ``l - 1`` with ``g'`` in ``g`` and ``c = c' + W_{l-1} p``.  Each
  parent/child pair is joined by one link each way.

**Routing** (up/down, as InfiniBand's subnet managers and SimGrid's ``FAT_TREE``): a message
from node ``a`` to node ``b`` climbs to the lowest level ``L`` where ``a`` and ``b`` share
a group, then descends along the unique path to ``b``; hops = ``2 L`` (0 inside a node).

* ``"dmodk"`` (default, deterministic): at level ``l`` the up-port is
  ``(b // W_{l-1}) mod w_l``, so the switch reached at level ``l`` is copy ``b mod W_l``
  (SimGrid's ``FatTreeZone`` rule, ``b`` being the destination's tree node number).
* ``"ecmp"``: the pair's traffic splits evenly over all ``W_L`` up-paths; a level-``l`` link
  of the route carries ``1 / W_l`` of it.
* ``"unknown"``: d-mod-k on a host numbering nobody told us (a subnet manager's: OpenSM's ftree
  numbers the hosts its own way, and Slurm's ``topology.conf`` does not say how).  A pair's
  expected load under a random numbering is ECMP's even split, so :meth:`routes`, the link loads
  and the replay take ECMP's fractions; the predicted time (:meth:`link_time`) is that of the
  numberings :meth:`routing_samples` gives, combined as
  :func:`~mpitaskmap.machines.base.sampled_time` does (the weighted mean plus the worst, halved),
  which, unlike the expected loads, sees traffic crowding onto few destinations, whose up-links a
  destination-based routing cannot spread.  The samples: first the *listed* numbering
  (``numbering``, else the tree node numbers: the hosts leaf by leaf in the order the topology
  lists them, which OpenSM's ftree gives when the hosts are cabled to their leaf's ports in name
  order, the usual practice), weighted :data:`LISTED_NUMBERING_WEIGHT`; then
  :data:`UNKNOWN_ROUTING_SAMPLES` seeded random numberings sharing the rest: hosts numbered leaf by
  leaf (OpenSM's ftree does), each leaf a block of its hosts in the whole cluster (``leaf_hosts``),
  leaves and the job's nodes within a leaf in random order, so a leaf's hosts spread evenly over
  its up-links as d-mod-k spreads them, and which job node lands on which up-link is left to
  chance.  ``"dmodk"`` follows ``numbering`` in place of the tree node number when one is given
  (a known numbering).

**Link numbering** (:attr:`FatTreeMachine.n_links`): per level ``l = 1 .. h``, first the
up-links then the down-links between levels ``l - 1`` and ``l``; the link of element
``e = g' W_{l-1} + c'`` of level ``l - 1`` through port ``p`` is ``e w_l + p`` within its
block.  Classes are ``up1, down1, up2, down2, ...`` (most local first).

Sources and where the library differs from them: ALGORITHMS.md section 7.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..._validate import as_index_array
from ...errors import InvalidInputError
from ..base import Machine
from ..links import Routes
from ... import _hops
from ..network_hops import METRIC_KINDS, NodeMetric, label_hops
from ..views import NodeHierarchy

__all__ = ["FatTreeMachine", "FAT_TREE_ROUTINGS", "UNKNOWN_ROUTING_SAMPLES", "LISTED_NUMBERING_WEIGHT"]

#: Routing rules of :class:`FatTreeMachine`.
FAT_TREE_ROUTINGS = ("dmodk", "ecmp", "unknown")

#: Random host numberings a machine under ``"unknown"`` routing is evaluated on (:meth:`FatTreeMachine.routing_samples`).
UNKNOWN_ROUTING_SAMPLES = 8

#: Under ``"unknown"`` routing, the weight of the listed numbering (hosts in the topology's order) in the expected
#: time, the random ones sharing the rest: as likely as all others together.  Measured under SimGrid (issue 43,
#: ``benchmarks/app_time_fattree.py --described topology``, 12 cases): ``auto`` at or below node packing, geometric
#: and greedy+uwh on 10 of 12 (7 with the random numberings alone); with the hosts not cabled in name order
#: (``--cabling shuffled``) 10 of 12 (11 alone), faster than alone on 4 cases, slower on 1.
LISTED_NUMBERING_WEIGHT = 0.5


def _positive_ints(values, name: str) -> tuple[int, ...]:
    out = []
    for k, v in enumerate(values):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or int(v) < 1:
            raise InvalidInputError(f"{name}: entry {k} must be an integer >= 1; got {v!r}")
        out.append(int(v))
    return tuple(out)


class FatTreeMachine(Machine):
    """The processors of one allocation on a fat tree (module notes: groups, up-links, routing).

    Parameters
    ----------
    groups : sequence of h (n_tree_nodes,) array_like of int
        Group of every tree node at switch levels 1 .. h (leaf first); groups must nest
        (nodes sharing a level-``l`` group share every higher one) and the top level has one
        group.  Group ids of a level are ``0 .. G_l - 1``.
    up_links : sequence of h int
        ``w_l``: parents of every element of level ``l - 1`` (1 for a plain tree).
    bandwidth : sequence of h entries
        Bandwidth (GB/s) of the links between levels ``l - 1`` and ``l``: a float, or one
        value per group of level ``l - 1`` (per tree node for ``l = 1``), e.g. a tapered
        up-link of an irregular tree.
    proc_nodes : (n_procs,) array_like of int
        Tree node of every processor (the allocation; cores of a node share it).
    routing : {"dmodk", "ecmp", "unknown"}, optional
        Up/down routing rule (default ``"dmodk"``).
    numbering : (n_tree_nodes,) array_like of int, optional
        The host number d-mod-k follows for every tree node: distinct non-negative integers
        (a subnet manager's numbering of the whole cluster, of which the tree holds the job's
        part); default the tree node numbers themselves.
    leaf_hosts : (n_leaves,) array_like of int, optional
        Hosts below every leaf switch (level-1 group) in the whole cluster, at least its tree
        nodes: the blocks of the numberings ``"unknown"`` samples (default its tree nodes).
    node_names : sequence of str, optional
        Host name of every tree node (reports, host files).
    switch_names : sequence of h sequences of str, optional
        Name of every group of every level (``s12``), for reports.
    name : str, optional
        Description used in reports.

    Raises
    ------
    InvalidInputError
        On groups that do not nest, a top level with several groups, non-positive
        up-links or bandwidths, or processors on nodes outside the tree (naming them).

    Examples
    --------
    Two leaves of two nodes under one spine, one processor per node:

    >>> m = FatTreeMachine([[0, 0, 1, 1], [0, 0, 0, 0]], [1, 1], [10.0, 10.0], [0, 1, 2, 3])
    >>> m.hops([0, 0], [1, 3]).tolist()
    [2, 4]
    >>> m.route(0, 3)
    [('up1', 0), ('up2', 8), ('down2', 11), ('down1', 7)]
    """

    name = "fattree"

    def __init__(self, groups: Sequence, up_links: Sequence[int], bandwidth: Sequence, proc_nodes, *,
                 routing: str = "dmodk", node_names: Sequence[str] | None = None,
                 switch_names: Sequence[Sequence[str]] | None = None, name: str | None = None,
                 numbering=None, leaf_hosts=None) -> None:
        groups = [np.asarray(g) for g in groups]
        if not groups:
            raise InvalidInputError("groups: a fat tree needs at least one switch level; got none")
        n_tree = groups[0].shape[0] if groups[0].ndim == 1 else -1
        if n_tree < 1:
            raise InvalidInputError(f"groups: level 1 must list the leaf group of every tree node; got shape {groups[0].shape}")
        self.groups = tuple(
            as_index_array(g, f"groups[{l}]", upper=n_tree, length=n_tree).astype(np.int64) for l, g in enumerate(groups)
        )
        self.levels = len(self.groups)
        self.up_links = _positive_ints(up_links, "up_links")
        if len(self.up_links) != self.levels:
            raise InvalidInputError(f"up_links: expected {self.levels} entries (one per level); got {len(self.up_links)}")
        if routing not in FAT_TREE_ROUTINGS:
            raise InvalidInputError(f"routing: expected one of {list(FAT_TREE_ROUTINGS)}; got {routing!r}")
        self.routing = routing
        self.n_tree_nodes = n_tree
        self.numbering = None
        if numbering is not None:
            hosts = as_index_array(np.asarray(numbering), "numbering", upper=np.iinfo(np.int64).max,
                                   length=n_tree).astype(np.int64)
            if np.unique(hosts).size != n_tree:
                raise InvalidInputError(f"numbering: expected {n_tree} distinct host numbers; "
                                        f"{n_tree - np.unique(hosts).size} repeat")
            self.numbering = hosts
        self.n_groups = tuple(int(g.max()) + 1 for g in self.groups)
        for l, g in enumerate(self.groups):
            used = np.zeros(self.n_groups[l], dtype=bool)
            used[g] = True
            if not used.all():
                raise InvalidInputError(f"groups[{l}]: group ids must be 0 .. {self.n_groups[l] - 1} with none empty; "
                                        f"group {int(np.flatnonzero(~used)[0])} has no node")
        if self.n_groups[-1] != 1:
            raise InvalidInputError(f"groups: the top level must be one group (every node under it); got {self.n_groups[-1]}")
        # parent group of every group of level l (level 0: the tree nodes themselves)
        parents = []
        lower = np.arange(n_tree)
        for l, g in enumerate(self.groups):
            parent = np.full(int(lower.max()) + 1, -1, dtype=np.int64)
            parent[lower] = g
            clash = np.flatnonzero(parent[lower] != g)
            if clash.size:
                v = int(clash[0])
                raise InvalidInputError(
                    f"groups: level {l + 1} does not nest in level {l}: tree node {v} (group {int(lower[v])} at level {l}) "
                    f"is in group {int(g[v])} while another node of its group is in {int(parent[lower[v]])}"
                )
            parents.append(parent)
            lower = g
        self.parent_group = tuple(parents)  # parent_group[l][g'] = level-(l+1) group of level-l group g'
        self.copies = tuple(int(np.prod(self.up_links[:l], dtype=np.int64)) for l in range(self.levels + 1))  # W_l
        self._lower_count = (n_tree,) + self.n_groups[:-1]  # G_{l-1}
        self._bandwidth = self._check_bandwidth(bandwidth)
        offsets = [0]
        for l in range(self.levels):
            offsets.append(offsets[-1] + 2 * self._block(l))
        self._offsets = np.asarray(offsets, dtype=np.int64)
        proc_nodes = np.asarray(proc_nodes)
        pn = as_index_array(proc_nodes, "proc_nodes", upper=n_tree)
        super().__init__(pn.shape[0], pn, name)
        #: ``m_l`` per level when the tree is regular (:meth:`regular`; SimGrid's FAT_TREE), else None.
        self.down_links: tuple | None = None
        own = np.bincount(self.groups[0], minlength=self.n_groups[0])
        self.leaf_hosts = own if leaf_hosts is None else as_index_array(
            np.asarray(leaf_hosts), "leaf_hosts", upper=np.iinfo(np.int64).max, length=self.n_groups[0])
        short = np.flatnonzero(self.leaf_hosts < own)
        if short.size:
            raise InvalidInputError(f"leaf_hosts: leaf {int(short[0])} holds {int(own[short[0]])} tree nodes; "
                                    f"got {int(self.leaf_hosts[short[0]])} hosts")
        self.node_names = None if node_names is None else tuple(str(s) for s in node_names)
        if self.node_names is not None and len(self.node_names) != n_tree:
            raise InvalidInputError(f"node_names: expected {n_tree} names; got {len(self.node_names)}")
        self.switch_names = None if switch_names is None else tuple(tuple(str(s) for s in lv) for lv in switch_names)
        if self.switch_names is not None:
            if len(self.switch_names) != self.levels or any(
                    len(lv) != n for lv, n in zip(self.switch_names, self.n_groups)):
                raise InvalidInputError(f"switch_names: expected {list(self.n_groups)} names per level")

    # -- construction ------------------------------------------------------------------
    def _block(self, l: int) -> int:
        """Links of one direction between levels l and l + 1 (0-based l): G_l W_l w_{l+1}."""
        return self._lower_count[l] * self.copies[l] * self.up_links[l]

    def _check_bandwidth(self, bandwidth) -> tuple:
        entries = list(bandwidth) if not np.isscalar(bandwidth) else [bandwidth] * self.levels
        if len(entries) != self.levels:
            raise InvalidInputError(f"bandwidth: expected {self.levels} entries (one per level); got {len(entries)}")
        out = []
        for l, entry in enumerate(entries):
            arr = np.asarray(entry, dtype=np.float64)
            if arr.ndim == 0:
                arr = np.full(self._lower_count[l], float(arr))
            if arr.shape != (self._lower_count[l],):
                raise InvalidInputError(f"bandwidth[{l}]: expected a float or {self._lower_count[l]} values "
                                        f"(one per element below level {l + 1}); got shape {arr.shape}")
            bad = np.flatnonzero(~(arr > 0) | ~np.isfinite(arr))
            if bad.size:
                raise InvalidInputError(f"bandwidth[{l}]: must be positive and finite; entry {int(bad[0])} is {arr[bad[0]]}")
            out.append(arr)
        return tuple(out)

    @classmethod
    def regular(cls, down: Sequence[int], up: Sequence[int], bandwidth, proc_nodes, *, routing: str = "dmodk",
                node_names: Sequence[str] | None = None, name: str | None = None) -> "FatTreeMachine":
        """Build a regular tree in SimGrid's ``FAT_TREE`` terms: ``down[l]`` children per level-``l`` switch.

        Parameters
        ----------
        down : sequence of h int
            ``m_l``: down-links of every level-``l`` switch (``down[0]`` = nodes per leaf).
        up : sequence of h int
            ``w_l``: up-links of every element of level ``l - 1`` (``up[0]`` = leaves per
            node, usually 1); the taper of level ``l`` is ``down[l-1] / up[l]``.
        bandwidth : float or sequence of h float
            GB/s of the links of every level.
        proc_nodes : (n_procs,) array_like of int
            Tree node (``0 .. prod(down) - 1``, leaves consecutive) of every processor.
        routing : {"dmodk", "ecmp"}, optional
        node_names : sequence of str, optional
            Host name of every tree node.
        name : str, optional

        Returns
        -------
        FatTreeMachine

        Examples
        --------
        SimGrid's ``2;4,4;1,2;1,1``: 4 leaves of 4 nodes, two spines:

        >>> m = FatTreeMachine.regular([4, 4], [1, 2], 10.0, range(16))
        >>> m.n_groups, m.copies, m.n_links
        ((4, 1), (1, 1, 2), 48)
        """
        down = _positive_ints(down, "down")
        up = _positive_ints(up, "up")
        if len(up) != len(down):
            raise InvalidInputError(f"up: expected {len(down)} entries, one per level; got {len(up)}")
        n_tree = int(np.prod(down, dtype=np.int64))
        v = np.arange(n_tree)
        groups = [v // int(np.prod(down[: l + 1], dtype=np.int64)) for l in range(len(down))]
        bw = [bandwidth] * len(down) if np.isscalar(bandwidth) else list(bandwidth)
        m = cls(groups, up, bw, proc_nodes, routing=routing, node_names=node_names, name=name)
        m.down_links = down
        return m

    @classmethod
    def from_paths(cls, paths: Sequence[Sequence[str]], node_names: Sequence[str], proc_nodes, *,
                   bandwidth: float = 12.5, taper: float = 1.0, routing: str = "dmodk",
                   name: str | None = None, spines: int = 1, numbering=None, leaf_nodes=None) -> "FatTreeMachine":
        """Build a tree from every node's switch path, top down: one parent per switch, ``spines`` at the top.

        The form Slurm gives (``SLURM_TOPOLOGY_ADDR`` = ``s0.s12.node0417``: switches from
        the top down, then the node; or ``topology.conf``'s switches).  A switch's up-links
        have the bandwidth of all its down-links over ``taper``, shared evenly by its
        ``spines`` parallel links to the top level (one each to the top switch's ``spines``
        copies); a node's link ``bandwidth``.

        Parameters
        ----------
        paths : sequence of sequences of str
            Switch names of every tree node, top switch first; all of one length.  Several
            top switches get a common root above them (named ``"(root)"``).
        node_names : sequence of str
            Host name of every tree node, one per path.
        proc_nodes : (n_procs,) array_like of int
            Tree node (index into ``paths``) of every processor.
        bandwidth : float, optional
            GB/s of a node's link to its leaf (default 12.5, HDR100 / 100 GbE).
        taper : float, optional
            Down-link over up-link capacity of every switch (default 1.0: full bisection).
        routing : {"dmodk", "ecmp", "unknown"}, optional
        name : str, optional
        spines : int, optional
            Parallel up-links of every switch below the top level (default 1).
        numbering : (n_nodes,) array_like of int, optional
            Host numbers d-mod-k follows (the constructor's), one per path.
        leaf_nodes : (n_nodes,) array_like of int, optional
            The nodes below each path's leaf switch in the whole cluster: a leaf's down
            capacity is then that many node links (its physical capacity), not the paths'
            (the job's share of it, the default).

        Returns
        -------
        FatTreeMachine

        Raises
        ------
        InvalidInputError
            On paths of different depths (naming two nodes), a switch name reused at two
            levels or under two parents, a bad taper or spine count.

        Examples
        --------
        >>> m = FatTreeMachine.from_paths([["s0", "s1"], ["s0", "s1"], ["s0", "s2"]], ["a", "b", "c"], [0, 1, 2],
        ...                               bandwidth=10.0, taper=2.0)
        >>> m.hops([0, 0], [1, 2]).tolist(), [float(b.max()) for b in m.level_bandwidths()]
        ([2, 4], [10.0, 10.0])

        Two spines: the leaves' 20 GB/s of up-link capacity as two links of 10.

        >>> m = FatTreeMachine.from_paths([["s0", "s1"], ["s0", "s1"], ["s0", "s2"]], ["a", "b", "c"], [0, 1, 2],
        ...                               bandwidth=10.0, spines=2)
        >>> m.up_links, [b.tolist() for b in m.level_bandwidths()]
        ((1, 2), [[10.0, 10.0, 10.0], [10.0, 5.0]])
        """
        if not len(paths) or len(paths) != len(node_names):
            raise InvalidInputError(f"paths: expected one switch path per node name ({len(node_names)}); got {len(paths)}")
        depth = {len(p) for p in paths}
        if len(depth) != 1:
            short = min(range(len(paths)), key=lambda i: len(paths[i]))
            deep = max(range(len(paths)), key=lambda i: len(paths[i]))
            raise InvalidInputError(
                f"paths: every node must hang at the same depth; {node_names[short]!r} is under "
                f"{'.'.join(paths[short]) or '(no switch)'} but {node_names[deep]!r} under {'.'.join(paths[deep])}"
            )
        d = depth.pop()
        if d < 1:
            raise InvalidInputError("paths: every node needs at least one switch (its leaf); got empty paths")
        if not (isinstance(taper, (int, float, np.integer, np.floating)) and np.isfinite(taper) and taper > 0):
            raise InvalidInputError(f"taper: expected a positive number; got {taper!r}")
        tops = sorted({p[0] for p in paths})
        levels = [[p[k] for p in paths] for k in range(d - 1, -1, -1)]  # leaf level first
        if len(tops) > 1:
            levels.append(["(root)"] * len(paths))
        groups, names, seen = [], [], {}
        parent_of: dict = {}
        for l, col in enumerate(levels):
            uniq, inv = np.unique(np.asarray(col, dtype=object).astype(str), return_inverse=True)
            for s in uniq.tolist():
                if s in seen and seen[s] != l:
                    raise InvalidInputError(f"paths: switch {s!r} appears at two levels ({seen[s] + 1} and {l + 1})")
                seen[s] = l
            if l + 1 < len(levels):
                for v, s in enumerate(col):
                    up_name = levels[l + 1][v]
                    if parent_of.setdefault(s, up_name) != up_name:
                        raise InvalidInputError(
                            f"paths: switch {s!r} is under both {parent_of[s]!r} and {up_name!r} (node {node_names[v]!r})"
                        )
            groups.append(inv.astype(np.int64))
            names.append(uniq.tolist())
        n_tree = len(paths)
        spines = _positive_ints([spines], "spines")[0]
        if spines > 1 and len(groups) < 2:
            raise InvalidInputError(f"spines: a tree of one switch level has no links to spines; got {spines}")
        # bandwidth: nodes' links, then each switch's up-link = its down capacity / taper
        bws = [np.full(n_tree, float(bandwidth))]
        lower, lower_bw = np.arange(n_tree), bws[0]
        for l in range(len(groups) - 1):
            g = groups[l]
            parent_of_lower = np.zeros(int(lower.max()) + 1, dtype=np.int64)
            parent_of_lower[lower] = g
            down_cap = np.bincount(parent_of_lower, weights=lower_bw, minlength=int(g.max()) + 1)
            if l == 0 and leaf_nodes is not None:
                full = as_index_array(np.asarray(leaf_nodes), "leaf_nodes", upper=np.iinfo(np.int64).max,
                                      length=n_tree)
                down_cap = np.zeros(int(g.max()) + 1)
                down_cap[g] = full * float(bandwidth)
            bws.append(down_cap / float(taper))
            lower, lower_bw = g, bws[-1]
        up_links = [1] * len(groups)
        if spines > 1:  # the top level's links: the capacity shared by the parallel links
            up_links[-1] = spines
            bws[-1] = bws[-1] / spines
        hosts = None
        if leaf_nodes is not None:  # the hosts of every leaf group: those of any of its paths
            hosts = np.zeros(int(groups[0].max()) + 1, dtype=np.int64)
            hosts[groups[0]] = np.asarray(leaf_nodes, dtype=np.int64)
        return cls(groups, up_links, bws, proc_nodes, routing=routing, node_names=list(node_names),
                   switch_names=names, name=name, numbering=numbering, leaf_hosts=hosts)

    def fat_tree_shape(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """``(down, up)`` of a tree built by :meth:`regular` (SimGrid's FAT_TREE terms), else None."""
        if self.down_links is None:
            return None
        return tuple(int(m) for m in self.down_links), tuple(int(w) for w in self.up_links)

    def with_routing(self, routing: str, numbering=None) -> "FatTreeMachine":
        """Return the same allocation with another routing rule (:data:`FAT_TREE_ROUTINGS`), the numbering kept
        unless another is given."""
        out = FatTreeMachine(self.groups, self.up_links, self._bandwidth, self.node_ids, routing=routing,
                             node_names=self.node_names, switch_names=self.switch_names, name=self.name,
                             numbering=self.numbering if numbering is None else numbering,
                             leaf_hosts=self.leaf_hosts)
        out.down_links = self.down_links
        return out

    @property
    def routes_known(self) -> bool:
        """Whether the routes are the network's own (False under ``"unknown"``: ECMP's expected split)."""
        return self.routing != "unknown"

    def routing_samples(self) -> tuple:
        """The machines the routing may be: under ``"unknown"`` the tree under d-mod-k on the listed numbering, then on
        each of :data:`UNKNOWN_ROUTING_SAMPLES` random host numberings (seeds 0, 1, ...; kept), else ``(self,)``.

        Examples
        --------
        >>> m = FatTreeMachine.regular([4, 4], [1, 2], 10.0, range(16), routing="unknown")
        >>> [s.routing for s in m.routing_samples()][:2], len(m.routing_samples())
        (['dmodk', 'dmodk'], 9)
        """
        if self.routing != "unknown":
            return (self,)
        samples = self.__dict__.get("_routing_samples")
        if samples is None:
            samples = self._routing_samples = (self.with_routing("dmodk"),) + tuple(
                self.with_routing("dmodk", self._sampled_numbering(np.random.default_rng(k)))
                for k in range(UNKNOWN_ROUTING_SAMPLES))
        return samples

    def routing_weights(self) -> np.ndarray:
        """How likely each of :meth:`routing_samples` is: under ``"unknown"`` the listed numbering
        :data:`LISTED_NUMBERING_WEIGHT`, the random ones the rest evenly.

        Examples
        --------
        >>> FatTreeMachine.regular([4, 4], [1, 2], 10.0, range(16), routing="unknown").routing_weights()[:3].tolist()
        [0.5, 0.0625, 0.0625]
        """
        if self.routing != "unknown":
            return super().routing_weights()
        rest = (1.0 - LISTED_NUMBERING_WEIGHT) / UNKNOWN_ROUTING_SAMPLES
        return np.array([LISTED_NUMBERING_WEIGHT] + [rest] * UNKNOWN_ROUTING_SAMPLES)

    def _sampled_numbering(self, rng: np.random.Generator) -> np.ndarray:
        """A host numbering a subnet manager could give (module notes): leaf by leaf, in random order."""
        leaf = self.groups[0]
        order = rng.permutation(self.n_groups[0])
        start = np.zeros(self.n_groups[0], dtype=np.int64)
        start[order] = np.concatenate([[0], np.cumsum(self.leaf_hosts[order])[:-1]])
        out = np.empty(self.n_tree_nodes, dtype=np.int64)
        for g in range(self.n_groups[0]):
            members = np.flatnonzero(leaf == g)
            out[members] = start[g] + rng.choice(int(self.leaf_hosts[g]), size=members.size, replace=False)
        return out

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state.pop("_routing_samples", None)  # derived, rebuilt on use
        return state

    def __repr__(self) -> str:
        return (f"FatTreeMachine(levels={self.levels}, groups={list(self.n_groups)}, up_links={list(self.up_links)}, "
                f"n_procs={self.n_procs}, routing={self.routing!r})")

    # -- distance ------------------------------------------------------------------------
    def _tree_labels(self) -> np.ndarray:
        """The tree node, its group at every level and (with a numbering) its host number, (n_tree_nodes, 1 + levels
        [+ 1]) int64: the tree metric's labels, the last one what d-mod-k follows."""
        table = self.__dict__.get("_label_table")
        if table is None:
            host = () if self.numbering is None else (self.numbering,)
            table = np.column_stack((np.arange(self.n_tree_nodes, dtype=np.int64),) + self.groups + host)
            self._label_table = table
        return table

    def _common_level(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Lowest switch level where tree nodes a and b share a group (0 when a == b)."""
        table = self._tree_labels()
        return label_hops("tree", [self.levels], table[a], table[b]) // 2

    def _build_node_metric(self) -> NodeMetric:
        return NodeMetric.build("tree", [self.levels], self._tree_labels()[self.node_view().nodes],
                                route_params=self._route_params(), n_links=self.n_links)

    def hops(self, src, dst) -> np.ndarray:
        """Return ``2 L``, ``L`` the lowest level of a switch common to both processors' nodes (0 on one node)."""
        src, dst = self._checked_pairs(src, dst)
        return 2 * self._common_level(self.node_ids[src], self.node_ids[dst])

    def geometric_coords(self) -> np.ndarray:
        """Return the tree node number as a 1-D embedding (nodes of one leaf are consecutive).

        The geometric family maps against the tree itself (:meth:`node_hierarchy`); this
        embedding serves plain MJ, which then cuts the node order into contiguous runs.
        """
        return self.node_ids.astype(np.float64)[:, None]

    # -- the hierarchy -------------------------------------------------------------------
    def node_hierarchy(self) -> NodeHierarchy:
        """Return the switch groups of the allocated nodes, level by level (see :class:`NodeHierarchy`)."""
        view = self.node_view()
        tree_node = view.nodes  # NodeView nodes are the node ids, i.e. tree node numbers
        return NodeHierarchy(tuple(g[tree_node] for g in self.groups), tuple(f"level {l + 1}" for l in range(self.levels)))

    def level_bandwidths(self) -> tuple:
        """Return the link bandwidths of every level, per element below it (GB/s; copies of the constructor's)."""
        return tuple(b.copy() for b in self._bandwidth)

    # -- links ---------------------------------------------------------------------------
    @property
    def n_links(self) -> int:
        return int(self._offsets[-1])

    def link_classes(self) -> tuple[np.ndarray, tuple]:
        codes = np.empty(self.n_links, dtype=np.int64)
        for l in range(self.levels):
            n = self._block(l)
            codes[self._offsets[l]: self._offsets[l] + n] = 2 * l
            codes[self._offsets[l] + n: self._offsets[l + 1]] = 2 * l + 1
        names = tuple(f"{d}{l + 1}" for l in range(self.levels) for d in ("up", "down"))
        return codes, names

    def link_bandwidths(self) -> np.ndarray:
        out = np.empty(self.n_links)
        for l in range(self.levels):
            n = self._block(l)
            # element e = g' W_l + c' of level l, port p: link e w + p -> bandwidth of group g'
            per_link = np.repeat(self._bandwidth[l], self.copies[l] * self.up_links[l])
            out[self._offsets[l]: self._offsets[l] + n] = per_link
            out[self._offsets[l] + n: self._offsets[l + 1]] = per_link
        return out

    def _group_below(self, v: np.ndarray, l: int) -> np.ndarray:
        """Group of tree nodes v at level l (0-based; level 0 = the node itself)."""
        return v if l == 0 else self.groups[l - 1][v]

    def routes(self, src, dst) -> Routes:
        """Return the up/down routes of processor pairs (module notes: d-mod-k or ECMP fractions).

        Notes
        -----
        d-mod-k: ``2 L`` links per pair (up levels 1..L, then down L..1).  ECMP:
        ``2 (W_1 + ... + W_L)`` entries per pair.  O(entries) time and memory.
        """
        src, dst = self._checked_pairs(src, dst)
        table = self._tree_labels()
        return Routes(*_hops.label_routes(METRIC_KINDS["tree"], self._route_params(), table[self.node_ids[src]],
                                          table[self.node_ids[dst]]))

    def _route_params(self) -> np.ndarray:
        """The compiled routes' parameters (``cext/_network_hops.pxd``): levels, ECMP flag, then per level
        the up links, the copies below and above, the level's link offset and its links of one direction."""
        per_level = [[self.up_links[l], self.copies[l], self.copies[l + 1], int(self._offsets[l]), self._block(l)]
                     for l in range(self.levels)]
        rule = 1 if self.routing in ("ecmp", "unknown") else (2 if self.numbering is not None else 0)
        return np.asarray([self.levels, rule] + [v for row in per_level for v in row],
                          dtype=np.int64)
