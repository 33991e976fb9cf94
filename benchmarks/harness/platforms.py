"""The studies' simulated platforms, shared: the fat tree's and the dragonfly's case specs, node packing, the scaling cases.

``app_time_fattree.py``, ``app_time_dragonfly.py`` and ``app_time_recorded.py`` run on the same
machines and compare against the same node-packing row; ``auto_scaling.py`` and
``fluid_resolution.py`` on the same four networks at any size; each spec and the row are defined
here once.
"""

from __future__ import annotations

import numpy as np

import mpitaskmap
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines import FlatMachine

#: Nodes below a leaf switch, and leaves of the tree, per job size (the tree holds twice the
#: nodes of the largest allocation, so allocations are scattered).
NODES_PER_LEAF = 16
LEAVES = {512: 32, 4096: 64, 64: 8, 1024: 32}
#: Host names of the platforms: SimGrid's FAT_TREE cluster needs PREFIX%d names.
HOSTS = "n%d"
#: Dragonfly allocations: nodes drawn over the whole machine, or over a few groups.
SCATTERED, CONFINED = "scattered", "confined"
#: Dragonfly shapes of the studies beside the ``sim:`` presets, by name: ``circulant`` is the
#: dragonfly SST/macro can wire as ours (:func:`benchmarks.harness.sstmacro.sstmacro_shape`: 33
#: all-to-all groups of 8 switches, 4 nodes a switch, one global link between every two groups,
#: 25 GB/s), the issue-43 measurement's shape; ``cascade`` is Aries' groups as SST/macro's ``cascade``
#: topology wires them evenly (19 groups of 6 x 16 routers, 4 nodes a router, 2 global ports a router
#: and 10 links a pair; the ``sim:aries`` preset's link bandwidths).
DRAGONFLY_SHAPES = {"circulant": "dragonfly:n_groups=33,switches=8,nodes_per_switch=4,global_links=1",
                    "cascade": "dragonfly:n_groups=19,switches=6x16,nodes_per_switch=4,global_links=10,global_ports=2,"
                               "bw_node=8,bw_green=5.25,bw_black=15.75,bw_global=9.375"}
#: The scaling studies' networks (:func:`scaling_spec`) and ranks a node.
SCALING_NETWORKS = ("titan", "fattree", "frontier", "aries")
SCALING_PPN = 8


#: The networks of :data:`SCALING_NETWORKS` whose routing a scaling case may choose (the dragonflies').
SCALING_ROUTED = ("frontier", "aries")


def scaling_spec(network: str, ranks: int, seed: int = 1, routing: str | None = None) -> str:
    """The ``sim:`` spec of a scaling case: ``ranks`` at :data:`SCALING_PPN` a node on one of :data:`SCALING_NETWORKS`.

    ``titan`` a Gemini 3-D torus, ``fattree`` a 2-level tree of 16-node leaves with 4:1 taper and
    twice the job's nodes, ``frontier`` / ``aries`` the Slingshot and Aries dragonflies; nodes
    scattered (seed ``seed``).  ``routing``: the dragonflies' (:data:`SCALING_ROUTED`; ``minimal``,
    ``ugal``, ``either`` ...), None for the machine's default; the other networks take none.

    Raises
    ------
    ValueError
        A routing for a network that takes none.

    Examples
    --------
    >>> scaling_spec("fattree", 512)
    'sim:fattree:leaves=8,nodes_per_leaf=16,taper=4,levels=2,nodes=64,ppn=8,seed=1'
    >>> scaling_spec("aries", 65536)
    'sim:aries:nodes=8192,ppn=8,seed=1'
    >>> scaling_spec("frontier", 512, routing="ugal")
    'sim:frontier:nodes=64,ppn=8,seed=1,routing=ugal'
    """
    nodes = ranks // SCALING_PPN
    if routing is not None and network not in SCALING_ROUTED:
        raise ValueError(f"routing {routing!r}: only the dragonflies ({', '.join(SCALING_ROUTED)}) take one; "
                         f"got network {network!r}")
    if network == "fattree":
        return (f"sim:fattree:leaves={max(2, 2 * nodes // 16)},nodes_per_leaf=16,taper=4,levels=2,"
                f"nodes={nodes},ppn={SCALING_PPN},seed={seed}")
    return f"sim:{network}:nodes={nodes},ppn={SCALING_PPN},seed={seed}" + (f",routing={routing}" if routing else "")


def fattree_spec(n: int, ppn: int, seed: int, taper: int) -> str:
    """The ``sim:fattree`` machine spec of one case.

    Examples
    --------
    >>> fattree_spec(512, 8, 1, 4)
    'sim:fattree:leaves=32,nodes_per_leaf=16,taper=4,levels=2,nodes=64,ppn=8,seed=1'
    """
    return (f"sim:fattree:leaves={LEAVES[n]},nodes_per_leaf={NODES_PER_LEAF},taper={taper},levels=2,"
            f"nodes={n // ppn},ppn={ppn},seed={seed}")


def dragonfly_spec(machine: str, allocation: str, n: int, ppn: int, seed: int, groups: int) -> str:
    """The ``sim:`` dragonfly spec of one case (``confined``: the allocation's nodes in ``groups`` groups).

    Examples
    --------
    >>> dragonfly_spec("frontier", SCATTERED, 512, 8, 1, 4)
    'sim:frontier:nodes=64,ppn=8,seed=1'
    >>> dragonfly_spec("circulant", CONFINED, 512, 8, 1, 2)
    'sim:dragonfly:n_groups=33,switches=8,nodes_per_switch=4,global_links=1,nodes=64,ppn=8,seed=1,groups=2'
    """
    shape = DRAGONFLY_SHAPES.get(machine)
    base = (f"sim:{shape}," if shape else f"sim:{machine}:") + f"nodes={n // ppn},ppn={ppn},seed={seed}"
    return base + (f",groups={groups}" if allocation == CONFINED else "")


def node_packing(graph: TaskGraph, machine) -> np.ndarray:
    """Task -> processor of node packing: the graph onto the nodes with a flat network.

    What an Open MPI user gets at best from ``MPI_Dist_graph_create_adjacent`` with ``reorder=1``
    (treematch sees inside nodes only), and what CrayPat's rank-order file optimises (on-node
    bytes): the task graph partitioned onto the nodes with every node one hop from every other
    (:class:`~mpitaskmap.machines.FlatMachine`, greedy graph mapping with refinement), nodes in
    the scheduler's order.
    """
    flat = FlatMachine(machine.node_ids, name="nodes only")
    return np.asarray(mpitaskmap.map(graph, flat, "greedy+uwh").task_to_proc)
