"""What the peers take: integer edge weights, tasks placed on slots, a fat-tree allocation as a hierarchy.

Optional tooling of the benchmarks, shared by :mod:`scotch` and :mod:`kahip` (Scotch's
``tleaf`` target, KaHIP's process mapping); the library and its tests never need it.  Everything is read from a :class:`mpitaskmap.machines.FatTreeMachine`
through its public attributes: :meth:`node_hierarchy` (the allocated nodes' switch groups),
:meth:`level_bandwidths`, ``copies`` (switches per group, ``W_l``), ``groups`` and the node view.

Level costs
-----------
Both peers weigh a pair of processors by a distance that grows with the level of their lowest
common switch.  We give them the cost of crossing each switch level ``s = 1 .. h``

    c_s = b_node / (bandwidth per node of the level-``s`` up-links above a level-``s - 1`` group)

where a level-``s - 1`` group (a node for ``s = 1``) has ``W_s`` up-links of the level's
bandwidth and holds the tree nodes below it, and ``b_node`` is a node's own link: ``c_1 = 1``,
and a level tapered ``t:1`` costs ``t`` times the level below it (32 leaves x 16 nodes with 4
up-links of the same speed: ``c = (1, 4)``).  The worst group holding an allocated node counts.
The distance of a pair whose lowest common switch is at level ``s`` is ``c_1 + ... + c_s``
(the ``2 s`` links up and down, each level at its price); two ranks of one node cost the
smallest unit.  Integer peers get these times ``scale`` (default 10), rounded.

The allocated sub-tree
----------------------
A scattered allocation is an irregular tree: a leaf holds 0 .. m allocated nodes.  Each level's
*arity* is the largest number of allocated children of one group (``arities``); every processor
gets the path of child positions from the top down (``paths``), so a regular tree of those
arities contains the allocation, its missing terminals being the padding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TreeAllocation", "level_costs", "integer_weights", "place_on_slots"]


def level_costs(machine) -> np.ndarray:
    """Return ``c_s`` for every switch level ``s = 1 .. h`` (see the module notes), as float64.

    Examples: 32 leaves x 16 nodes with 4 up-links per leaf (4:1) -> ``[1.0, 4.0]``; a 3-level
    tree tapered 2:1 at both levels -> ``[1.0, 2.0, 4.0]``.
    """
    nodes = machine.node_view().nodes  # allocated tree nodes
    bws = machine.level_bandwidths()
    per_node = []
    for l, bw in enumerate(bws):
        if l == 0:
            below = nodes
            size = np.ones(machine.n_tree_nodes)
        else:
            below = machine.groups[l - 1][nodes]
            size = np.bincount(machine.groups[l - 1], minlength=bw.size).astype(np.float64)
        share = machine.copies[l + 1] * bw / size  # up-link bandwidth per tree node of every group
        per_node.append(float(share[np.unique(below)].min()))  # the worst group with an allocated node
    per_node = np.asarray(per_node)
    return per_node[0] / per_node


@dataclass
class TreeAllocation:
    """The allocated processors of a fat tree as a padded regular tree (see the module notes).

    Attributes
    ----------
    arities : tuple of int
        Largest number of allocated children of one group, per switch level, top level first
        (the children of a level-1 group are nodes).
    paths : (n_procs, h) ndarray of int64
        Child position of every processor's ancestors, top down: column 0 is the position of
        its level-``h - 1`` group among the top's children, column ``h - 1`` its node's position
        in its leaf.
    core : (n_procs,) ndarray of int64
        Position of every processor among its node's processors (ascending processor id).
    cores : int
        Largest number of processors of one node.
    costs : (h,) ndarray of float64
        :func:`level_costs`, lowest level first.
    """

    arities: tuple
    paths: np.ndarray
    core: np.ndarray
    cores: int
    costs: np.ndarray

    @classmethod
    def from_machine(cls, machine, costs=None) -> "TreeAllocation":
        """Read the allocation of ``machine`` (a FatTreeMachine); ``costs`` overrides :func:`level_costs`."""
        hierarchy = machine.node_hierarchy()
        if hierarchy is None:
            raise ValueError(f"machine {machine.name!r} has no switch hierarchy (node_hierarchy() is None)")
        view = machine.node_view()
        n_nodes = view.nodes.size
        h = hierarchy.n_levels
        below = np.arange(n_nodes, dtype=np.int64)  # level-0 unit of every node: itself
        columns, arities = [], []
        for l in range(h):
            above = np.asarray(hierarchy.groups[l], dtype=np.int64)
            pairs = np.unique(np.stack([above, below], axis=1), axis=0)  # (group, child) sorted
            first = np.searchsorted(pairs[:, 0], pairs[:, 0], side="left")
            position = np.arange(pairs.shape[0]) - first  # child's rank among its group's children
            row = np.searchsorted(pairs[:, 0] * (below.max() + 1) + pairs[:, 1], above * (below.max() + 1) + below)
            columns.append(position[row])
            arities.append(int(np.bincount(pairs[:, 0]).max()))
            below = above
        node_paths = np.stack(columns[::-1], axis=1)  # top level first
        node = view.node_of_proc
        order = np.argsort(node, kind="stable")
        core = np.empty(machine.n_procs, dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(np.bincount(node, minlength=n_nodes))])
        core[order] = np.arange(machine.n_procs) - starts[node[order]]
        c = level_costs(machine) if costs is None else np.asarray(costs, dtype=np.float64)
        if c.shape != (h,) or not (c > 0).all():
            raise ValueError(f"costs: expected {h} positive level costs (lowest level first); got {costs!r}")
        return cls(tuple(arities[::-1]), node_paths[node], core, int(view.capacity.max()), c)

    @property
    def n_procs(self) -> int:
        return int(self.core.size)

    def distances(self, scale: float = 10.0) -> np.ndarray:
        """Integer distance of a pair whose lowest common switch is at level ``s``, for ``s = 1 .. h``."""
        return np.rint(scale * np.cumsum(self.costs)).astype(np.int64)

    def common_level(self, p, q) -> np.ndarray:
        """Level of the lowest common switch of processors ``p`` and ``q`` (0: one node)."""
        a, b = self.paths[np.asarray(p)], self.paths[np.asarray(q)]
        differ = a != b
        h = self.paths.shape[1]
        first = np.where(differ.any(axis=-1), differ.argmax(axis=-1), h)  # first differing column, top down
        return h - first


def integer_weights(weights, nnz):
    """Edge weights as positive int32 (both peers need integers): as they are when they are, else scaled
    so the largest is 10**6 and rounded (at least 1).  Returns ``(weights, scale)``."""
    if weights is None:
        return np.ones(nnz, dtype=np.int32), 1.0
    w = np.asarray(weights, dtype=np.float64).ravel()
    if w.size != nnz:
        raise ValueError("weights must have one entry per adjacency entry")
    if (w < 0).any():
        raise ValueError("negative edge weights")
    if np.all(w == np.round(w)) and (w.max(initial=0) < 2**31 / 64):
        return np.maximum(w, 1).astype(np.int32), 1.0
    scale = 1e6 / w.max()                    # Scotch needs integer loads
    return np.maximum(np.round(w * scale), 1).astype(np.int32), scale


def place_on_slots(part, cap, offsets, proc_order, *, repair: bool, nearest):
    """Tasks on terminals -> tasks on procs, overflow reported or repaired.

    ``part[t]`` is task t's terminal (a position in the target's terminal list), terminal j
    has ``cap[j]`` procs, slots ``offsets[j] ..`` of ``proc_order``.  With ``repair``, each
    task beyond its terminal's capacity moves to ``nearest(j, free)``: a terminal with
    ``free > 0``, the closest to terminal j.  Tasks of one terminal take its slots in task
    order; overflow wraps (shares a proc).  Returns ``(task_to_proc, n_over, moved, used)``.
    """
    n, k = part.size, cap.size
    load = np.bincount(part, minlength=k)
    over = np.maximum(load - cap, 0)
    n_over = int(over.sum())
    moved = 0
    router = part.astype(np.int64)
    if repair and n_over:
        free = cap - np.minimum(load, cap)
        for j in np.flatnonzero(over):
            for t in np.flatnonzero(router == j)[cap[j]:]:
                dest = nearest(j, free)
                router[t] = dest
                free[dest] -= 1
                moved += 1
    order = np.argsort(router, kind="stable")
    rank_in_router = np.empty(n, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(np.bincount(router, minlength=k))])
    rank_in_router[order] = np.arange(n) - starts[router[order]]
    slot = offsets[router] + rank_in_router % cap[router]
    task_to_proc = proc_order[slot].astype(np.int64)
    used = np.bincount(task_to_proc, minlength=int(offsets[-1]))
    return task_to_proc, n_over, moved, used
