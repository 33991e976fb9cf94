"""Simulated fat-tree clusters: a generic tapered tree and two real machines' published shapes.

Allocations are drawn as a busy cluster hands them out: ``nodes`` tree nodes scattered at
random over the whole tree (``seed``), listed in ascending order (Slurm's sorted node
list), ``ppn`` ranks on each, rank ``r`` on the ``r // ppn``-th node (Slurm's block
distribution).  Every constructor is deterministic: the same arguments give the same
machine on every MPI rank and every run.
"""

from __future__ import annotations

import numpy as np

from ...errors import InvalidInputError
from .fattree import FatTreeMachine

__all__ = ["fattree_machine", "scattered_nodes", "FATTREE_PRESETS", "fattree_preset"]

#: Published shapes of real clusters: ``down`` children per switch level, ``up`` parents per
#: element below it, link GB/s.
FATTREE_PRESETS = {
    # TACC Frontera: 8,008 nodes on HDR100 (12.5 GB/s); a leaf switch has 22 nodes below
    # and 18 up-links (11:9 taper) to the spine layer.
    "frontera": {"down": (22, 364), "up": (1, 18), "bandwidth": 12.5},
    # LRZ SuperMUC-NG: 6,336 thin nodes on Omni-Path 100 Gbit/s (12.5 GB/s) in 8 islands of
    # 792 (33 leaves x 24 nodes, non-blocking inside the island), islands pruned 1:4
    # towards the core.
    "supermuc-ng": {"down": (24, 33, 8), "up": (1, 24, 8), "bandwidth": 12.5},
}


def _count(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or int(value) < minimum:
        raise InvalidInputError(f"{name}: expected an integer >= {minimum}; got {value!r}")
    return int(value)


def scattered_nodes(n_tree_nodes: int, nodes: int, seed: int) -> np.ndarray:
    """Return ``nodes`` distinct tree nodes drawn at random (``seed``), ascending.

    Examples
    --------
    >>> scattered_nodes(16, 4, seed=1).tolist()
    [6, 7, 11, 15]
    """
    nodes = _count(nodes, "nodes")
    if nodes > n_tree_nodes:
        raise InvalidInputError(f"nodes: the tree has {n_tree_nodes} nodes; got {nodes}")
    rng = np.random.default_rng(_count(seed, "seed", 0))
    return np.sort(rng.choice(n_tree_nodes, size=nodes, replace=False)).astype(np.int64)


def _allocation(n_tree: int, nodes: int, ppn: int, seed: int) -> np.ndarray:
    ppn = _count(ppn, "ppn")
    return np.repeat(scattered_nodes(n_tree, nodes, seed), ppn)


def _names(n_tree: int) -> list[str]:
    width = max(4, len(str(n_tree - 1)))
    return [f"node{v:0{width}d}" for v in range(n_tree)]


def fattree_machine(*, leaves: int = 32, nodes_per_leaf: int = 16, taper: int = 1, levels: int = 2,
                    leaves_per_pod: int | None = None, nodes: int | None = None, ppn: int = 1, seed: int = 0,
                    bandwidth: float = 12.5, routing: str = "dmodk", name: str | None = None) -> FatTreeMachine:
    """Return a scattered allocation on a regular 2- or 3-level fat tree.

    Parameters
    ----------
    leaves : int, optional
        Leaf switches (default 32).
    nodes_per_leaf : int, optional
        Nodes below every leaf (default 16).
    taper : int, optional
        Down-links over up-links of every switch (default 1: full bisection; 4 = 4:1).
        Must divide ``nodes_per_leaf`` (and ``leaves_per_pod`` with 3 levels).
    levels : {2, 3}, optional
        Switch levels: leaf + spine, or leaf + pod spine + core (default 2).
    leaves_per_pod : int, optional
        Leaves of one pod with 3 levels (default: the largest divisor of ``leaves`` up to
        its square root times 2, at least 2).
    nodes : int, optional
        Allocated nodes (default: all).
    ppn : int, optional
        Ranks per node (default 1).
    seed : int, optional
        Draw of the scattered allocation (default 0).
    bandwidth : float, optional
        GB/s of every link (default 12.5).
    routing : {"dmodk", "ecmp"}, optional
    name : str, optional

    Returns
    -------
    FatTreeMachine
        Rank ``r`` on the ``r // ppn``-th allocated node, nodes ascending.

    Raises
    ------
    InvalidInputError
        On a taper that does not divide the down-links, a bad level count or too many nodes.

    Examples
    --------
    >>> m = fattree_machine(leaves=4, nodes_per_leaf=4, taper=2, nodes=6, ppn=2, seed=1)
    >>> m.up_links, m.node_ids[::2].tolist()
    ((1, 2), [0, 2, 5, 6, 9, 13])
    """
    leaves, npl = _count(leaves, "leaves"), _count(nodes_per_leaf, "nodes_per_leaf")
    taper, levels = _count(taper, "taper"), _count(levels, "levels")
    if levels not in (2, 3):
        raise InvalidInputError(f"levels: a simulated fat tree has 2 or 3 switch levels; got {levels}")
    if npl % taper:
        raise InvalidInputError(f"taper: must divide nodes_per_leaf ({npl}); got {taper}")
    if levels == 2:
        down, up = (npl, leaves), (1, npl // taper)
    else:
        if leaves_per_pod is None:
            leaves_per_pod = max((d for d in range(2, leaves + 1) if leaves % d == 0 and d * d <= 4 * leaves),
                                 default=leaves)
        lpp = _count(leaves_per_pod, "leaves_per_pod")
        if leaves % lpp:
            raise InvalidInputError(f"leaves_per_pod: must divide leaves ({leaves}); got {lpp}")
        if lpp % taper:
            raise InvalidInputError(f"taper: must divide leaves_per_pod ({lpp}); got {taper}")
        down, up = (npl, lpp, leaves // lpp), (1, npl // taper, lpp // taper)
    n_tree = int(np.prod(down))
    nodes = n_tree if nodes is None else nodes
    label = name or (f"fattree({levels} levels, {leaves}x{npl}, taper {taper}:1, {nodes} nodes x {ppn}, seed {seed})")
    return FatTreeMachine.regular(down, up, float(bandwidth), _allocation(n_tree, nodes, ppn, seed), routing=routing,
                                  node_names=_names(n_tree), name=label)


def fattree_preset(machine: str, *, nodes: int | None = None, ppn: int = 1, seed: int = 0,
                   routing: str = "dmodk") -> FatTreeMachine:
    """Return a scattered allocation on a real cluster's published fat tree (:data:`FATTREE_PRESETS`).

    Parameters
    ----------
    machine : {"frontera", "supermuc-ng"}
    nodes : int, optional
        Allocated nodes (default: the whole machine).
    ppn, seed, routing
        As :func:`fattree_machine`.

    Returns
    -------
    FatTreeMachine

    Examples
    --------
    >>> m = fattree_preset("frontera", nodes=64, ppn=2, seed=3)
    >>> m.n_tree_nodes, m.up_links, m.n_procs
    (8008, (1, 18), 128)
    """
    if machine not in FATTREE_PRESETS:
        raise InvalidInputError(f"machine: unknown fat-tree preset {machine!r}; valid: {sorted(FATTREE_PRESETS)}")
    p = FATTREE_PRESETS[machine]
    n_tree = int(np.prod(p["down"]))
    nodes = n_tree if nodes is None else nodes
    return FatTreeMachine.regular(p["down"], p["up"], p["bandwidth"], _allocation(n_tree, nodes, ppn, seed),
                                  routing=routing, node_names=_names(n_tree),
                                  name=f"{machine}({nodes} nodes x {ppn}, seed {seed})")
