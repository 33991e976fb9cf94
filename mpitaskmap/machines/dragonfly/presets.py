"""Simulated dragonflies: a generic one and the published shapes of Frontier, Perlmutter and a Cray XC (Aries).

Allocations are drawn as a busy machine hands them out, as the simulated fat trees of
:mod:`~mpitaskmap.machines.fattree.presets` are: ``nodes`` nodes scattered at random
(``seed``) over the whole machine -- or, with ``groups=k``, over ``k`` groups drawn at random
first (a job the scheduler confined to a few groups) -- listed in ascending node number,
``ppn`` ranks on each, rank ``r`` on the ``r // ppn``-th node.  Every constructor is
deterministic: the same arguments give the same machine on every MPI rank and every run.

Spec strings these constructors are meant for (``nodes``, ``ppn``, ``seed``, ``groups`` and
``routing`` optional; not yet read by :mod:`mpitaskmap.providers.sim`)::

    sim:frontier:nodes=64,ppn=8,seed=1,groups=4,routing=minimal
    sim:perlmutter:nodes=,ppn=,seed=,groups=,routing=
    sim:aries:nodes=,ppn=,seed=,groups=,routing=

**The presets** (:data:`DRAGONFLY_PRESETS`; a node is attached to one switch and its NICs
are one node link):

* ``"frontier"`` (OLCF, HPE Cray EX, Slingshot-11): 74 groups, one per cabinet; 32 switches
  of 64 ports per group, all-to-all (31 ports); 16 ports of a switch go to NICs and a
  node has 4 NICs, so 4 nodes per switch and 128 per group (9,472 node slots, of which
  9,408 hold compute nodes); 4 global links between every pair of groups (292 of the up to
  16 x 32 = 512 global ports of a group; our arrangement numbers 74 x 4 = 296 ports, 10 per
  switch); 25 GB/s (200 Gb/s) links, so a node link is 4 x 25 = 100 GB/s.  Sources:
  glennklockwood.com/garden/systems/frontier and /garden/dragonfly (after the OLCF user
  guide and HPE).  Modelling assumption: the four NICs of a node sit on one switch
  (where they sit was not found).
* ``"perlmutter"`` (NERSC, HPE Cray EX, Slingshot): the 12 GPU groups, one per cabinet, of
  32 switches all-to-all; 8 chassis x 8 blades x 2 nodes = 128 nodes per group, 4 per
  switch, each node with 2 NICs (dual rail), so a 50 GB/s node link; 25 GB/s links.
  Source: NERSC's Perlmutter interconnect page (portal.nersc.gov, systems/perlmutter/
  interconnect).  Not found: the global links per pair of groups; assumed 13, which gives
  a group Frontier's published ratio of injection to global links (512 / 292 = 1.75:
  256 NIC links over 11 x 13 = 143 global links).  The CPU cabinets are not modelled.
* ``"aries"`` (a Cray XC40 shaped as NERSC's Cori): groups of 6 chassis (rows) x 16
  blades (columns), one Aries router per blade, 4 nodes per router (384 per group); 32
  groups, the fewest holding Cori's 2,388 Haswell + 9,688 KNL = 12,076 compute nodes
  (NERSC; the number of Cori's groups itself was not found).  Green links (1 electrical
  link, 14 Gb/s x 3 lanes = 5.25 GB/s), black links (3 links, 15.75 GB/s), global
  connections of 2 optical links between routers (NERSC's Cori interconnect page; 12.5
  Gb/s x 3 lanes = 4.69 GB/s each, 9.375 GB/s together), 5 per router (10 optical ports);
  15 connections per pair of groups, i.e. every connection of a fully cabled group
  (480) spread over the 32 group numbers of the absolute arrangement (an assumption:
  Cori's cabling was not found); node links 8 GB/s (NERSC: ~8 GB/s MPI bandwidth).
"""

from __future__ import annotations

import numpy as np

from ...errors import InvalidInputError
from .dragonfly import DragonflyMachine, _shape
from ..fattree.presets import _count, scattered_nodes

__all__ = ["DRAGONFLY_PRESETS", "dragonfly_machine", "dragonfly_preset", "scattered_group_nodes"]

#: Published shapes (module notes): groups, switches (an int: all-to-all; (rows, columns):
#: Aries), nodes per switch, global links per pair of groups, global ports per switch
#: (None: the fewest that fit), GB/s per link class.
DRAGONFLY_PRESETS = {
    "frontier": {"n_groups": 74, "switches": 32, "nodes_per_switch": 4, "global_links": 4, "global_ports": None,
                 "bandwidth": {"node": 100.0, "local": 25.0, "global": 25.0}},
    "perlmutter": {"n_groups": 12, "switches": 32, "nodes_per_switch": 4, "global_links": 13, "global_ports": None,
                   "bandwidth": {"node": 50.0, "local": 25.0, "global": 25.0}},
    "aries": {"n_groups": 32, "switches": (6, 16), "nodes_per_switch": 4, "global_links": 15, "global_ports": 5,
              "bandwidth": {"node": 8.0, "green": 5.25, "black": 15.75, "global": 9.375}},
}


def scattered_group_nodes(n_groups: int, nodes_per_group: int, nodes: int | None, seed: int,
                          groups: int | None = None) -> np.ndarray:
    """Return ``nodes`` distinct node numbers drawn at random (``seed``), ascending, within ``groups`` groups if given.

    Node ``v`` is in group ``v // nodes_per_group``.  Without ``groups`` the nodes are drawn
    over the whole machine (:func:`~mpitaskmap.machines.fattree.presets.scattered_nodes`);
    with ``groups=k``, ``k`` groups are drawn first (same seed), then the nodes among theirs.

    Parameters
    ----------
    n_groups, nodes_per_group : int
        Shape of the machine.
    nodes : int or None
        Nodes to draw; None: every node of the machine (of the ``groups`` drawn).
    seed : int
        Seed of the draws (>= 0).
    groups : int, optional
        Number of groups the allocation is confined to.

    Returns
    -------
    (nodes,) ndarray of int64

    Raises
    ------
    InvalidInputError
        On more groups than the machine has, or more nodes than the groups hold.

    Examples
    --------
    >>> scattered_group_nodes(4, 4, 3, seed=1, groups=2).tolist()
    [6, 7, 10]
    """
    G, per = _count(n_groups, "n_groups"), _count(nodes_per_group, "nodes_per_group")
    seed = _count(seed, "seed", 0)
    if groups is None:
        pool = np.arange(G * per, dtype=np.int64)
    else:
        k = _count(groups, "groups")
        if k > G:
            raise InvalidInputError(f"groups: the machine has {G} groups; got {k}")
        chosen = scattered_nodes(G, k, seed)
        pool = (chosen[:, None] * per + np.arange(per)[None, :]).ravel()
    if nodes is None:
        return pool
    nodes = _count(nodes, "nodes")
    if nodes > pool.size:
        where = "the machine has" if groups is None else f"{groups} groups hold"
        raise InvalidInputError(f"nodes: {where} {pool.size} nodes; got {nodes}")
    return pool[scattered_nodes(pool.size, nodes, seed)]


def _allocation(n_groups: int, switches, nodes_per_switch: int, nodes, ppn: int, seed: int, groups) -> np.ndarray:
    per_switch = _count(nodes_per_switch, "nodes_per_switch")
    rows, columns, _ = _shape(switches)
    chosen = scattered_group_nodes(n_groups, rows * columns * per_switch, nodes, seed, groups)
    return np.repeat(chosen, _count(ppn, "ppn"))


def dragonfly_machine(*, n_groups: int = 9, switches=4, nodes_per_switch: int = 2, global_links: int = 1,
                      global_ports: int | None = None, bandwidth=25.0, nodes: int | None = None, ppn: int = 1,
                      seed: int = 0, groups: int | None = None, routing: str = "minimal",
                      name: str | None = None) -> DragonflyMachine:
    """Return a scattered allocation on a dragonfly of any shape (default: Kim et al.'s balanced 9-group one).

    Parameters
    ----------
    n_groups, switches, nodes_per_switch, global_links, global_ports, bandwidth, routing
        As :class:`~mpitaskmap.machines.dragonfly.DragonflyMachine` (default 9 groups of 4
        switches all-to-all, 2 nodes per switch, one global link per pair, 25 GB/s).
    nodes : int, optional
        Allocated nodes (default: all, of the ``groups`` drawn).
    ppn : int, optional
        Ranks per node (default 1).
    seed : int, optional
        Draw of the allocation (default 0).
    groups : int, optional
        Confine the allocation to this many groups drawn at random.
    name : str, optional

    Returns
    -------
    DragonflyMachine
        Rank ``r`` on the ``r // ppn``-th allocated node, nodes ascending.

    Examples
    --------
    >>> m = dragonfly_machine(nodes=6, ppn=2, seed=1, groups=2)
    >>> m.n_procs, sorted(set(m.locate(range(12))[:, 0].tolist()))
    (12, [3, 4])
    """
    label = name or (f"dragonfly({n_groups} groups x {switches} switches x {nodes_per_switch}, "
                     f"{'all' if nodes is None else nodes} nodes x {ppn}, seed {seed}"
                     f"{'' if groups is None else f', {groups} groups'})")
    return DragonflyMachine(n_groups, switches, nodes_per_switch,
                            _allocation(n_groups, switches, nodes_per_switch, nodes, ppn, seed, groups),
                            global_links=global_links, global_ports=global_ports, bandwidth=bandwidth,
                            routing=routing, name=label)


def dragonfly_preset(machine: str, *, nodes: int | None = None, ppn: int = 1, seed: int = 0,
                     groups: int | None = None, routing: str = "minimal") -> DragonflyMachine:
    """Return a scattered allocation on a real machine's published dragonfly (:data:`DRAGONFLY_PRESETS`).

    Parameters
    ----------
    machine : {"frontier", "perlmutter", "aries"}
    nodes, ppn, seed, groups, routing
        As :func:`dragonfly_machine`.

    Returns
    -------
    DragonflyMachine

    Raises
    ------
    InvalidInputError
        On an unknown preset (listing the valid ones) or a bad allocation.

    Examples
    --------
    >>> m = dragonfly_preset("frontier", nodes=64, ppn=8, seed=3, groups=4)
    >>> m.n_groups, m.switches_per_group, m.nodes_per_switch, m.global_links, m.n_procs
    (74, 32, 4, 4, 512)
    """
    if machine not in DRAGONFLY_PRESETS:
        raise InvalidInputError(f"machine: unknown dragonfly preset {machine!r}; valid: {sorted(DRAGONFLY_PRESETS)}")
    p = DRAGONFLY_PRESETS[machine]
    label = (f"{machine}({'all' if nodes is None else nodes} nodes x {ppn}, seed {seed}"
             f"{'' if groups is None else f', {groups} groups'})")
    return dragonfly_machine(n_groups=p["n_groups"], switches=p["switches"], nodes_per_switch=p["nodes_per_switch"],
                             global_links=p["global_links"], global_ports=p["global_ports"],
                             bandwidth=p["bandwidth"], nodes=nodes, ppn=ppn, seed=seed, groups=groups,
                             routing=routing, name=label)
