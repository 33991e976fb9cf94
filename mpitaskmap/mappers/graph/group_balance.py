"""Group balance: tasks packed onto nodes, then the nodes dealt over the network's groups so group pairs carry even shares.

The literature's case for random placement on adaptively routed dragonflies (Jain et al., SC14;
Yang et al., SC16) is load balance: a job spread over every group puts an even share of its
traffic on every global link, which UGAL then spreads further.  This mapping seeks that balance
by construction instead of by chance, keeping what node packing gains inside nodes:

1. **Blocks**: the tasks are packed onto the machine's nodes with the network ignored (greedy
   growth and UWH on equidistant nodes, the ``packing`` method): heavy neighbours share a node.
   Each node's tasks are a *block*, which moves whole.
2. **Dealing**: blocks are taken in the order of their lowest task (the application's own order,
   usually a locality order) and dealt over the allocation's groups (the machine's node
   hierarchy level ``"group"``): a block may go only to a group among the least filled ones
   (placed blocks over the group's nodes of the block's size, so every group fills at the same
   pace, as a deal does), and among those to the one where its traffic to the blocks already
   placed raises the busiest group pair (each direction counted apart, as global links are)
   least; ties go to the lowest group.  Like PERCS's mod-colouring across supernodes, the
   traffic of a block leaves over distinct group pairs.
3. **Nodes**: a group's blocks take its nodes of their size in node order (switch by switch),
   in the order they were dealt; a task keeps its slot on the node.

Where it helps and where it does not is measured, not assumed: it gives up the locality of whole
groups, which minimal routing rewards, for balance, which adaptive routing may reward.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...errors import NotApplicableError
from ...graphs.taskgraph import TaskGraph
from ...machines import FlatMachine, Machine
from ...mapping import Mapping
from .greedy import map_greedy

__all__ = ["map_group_balance", "GROUP_LEVEL"]

#: The node hierarchy level whose groups are balanced (:meth:`~mpitaskmap.machines.Machine.node_hierarchy`).
GROUP_LEVEL = "group"


def map_group_balance(graph: TaskGraph, machine: Machine, *, delta: int = 8,
                      progress: Callable | None = None) -> Mapping:
    """Map by node packing, then deal the nodes' blocks over the machine's groups (module notes).

    Parameters
    ----------
    graph : TaskGraph
        Task communication graph (edge weights are the traffic).
    machine : Machine
        A machine whose node hierarchy has a ``"group"`` level (dragonflies), with at least two
        groups in the allocation.
    delta : int, optional
        UWH candidate nodes per task of the packing (default 8).
    progress : callable, optional
        ``progress(done, total)`` of the packing's UWH passes.

    Returns
    -------
    Mapping
        ``method == "balance"``; ``info["groups"]`` the groups dealt over.

    Raises
    ------
    NotApplicableError
        On a machine without a group level, or an allocation in one group.

    Notes
    -----
    O(packing + blocks x (groups + block edges x groups)).

    Examples
    --------
    A ring of 8 tasks, 2 per node, on 4 groups of one switch with 2 nodes: packing puts the
    ring's pairs (0 1), (2 3), ... on nodes 0-3 of groups 0 and 1; dealt, the four blocks go to
    the four groups, so the ring's four block-to-block edges cross four different group pairs.

    >>> from mpitaskmap.machines import DragonflyMachine
    >>> m = DragonflyMachine(4, 1, 2, np.repeat(np.arange(8), 2))
    >>> ring = TaskGraph.from_edges(np.arange(8), (np.arange(8) + 1) % 8, n_tasks=8)
    >>> groups = m.locate(map_group_balance(ring, m).task_to_proc)[:, 0]
    >>> groups.tolist()
    [0, 0, 1, 1, 2, 2, 3, 3]
    """
    hierarchy = machine.node_hierarchy()
    if hierarchy is None or GROUP_LEVEL not in hierarchy.level_names:
        raise NotApplicableError(f"balance: machine {machine.name!r} has no {GROUP_LEVEL!r} level to balance over")
    view = machine.node_view()
    group_of_node = np.asarray(hierarchy.groups[hierarchy.level_names.index(GROUP_LEVEL)], dtype=np.int64)
    groups, group_index = np.unique(group_of_node, return_inverse=True)
    K = groups.size
    if K < 2:
        raise NotApplicableError(f"balance: the allocation lies in one {GROUP_LEVEL}; there are no group pairs")

    flat = FlatMachine(machine.node_ids, name=f"{machine.name} (nodes only)")
    packed = map_greedy(graph, flat, refine=True, delta=delta, progress=progress)
    ttp = np.asarray(packed.task_to_proc, dtype=np.int64)
    node_of_task = view.node_of_proc[ttp]

    # blocks: the nodes packing used, in the order of their lowest task
    first_task = np.full(view.n_nodes, graph.n_tasks, dtype=np.int64)
    np.minimum.at(first_task, node_of_task, np.arange(graph.n_tasks))
    blocks = np.argsort(first_task, kind="stable")[: np.count_nonzero(first_task < graph.n_tasks)]
    block_of_node = np.full(view.n_nodes, -1, dtype=np.int64)
    block_of_node[blocks] = np.arange(blocks.size)

    # directed traffic between blocks, as CSR rows of out- and in-neighbours
    src = np.repeat(np.arange(graph.n_tasks), np.diff(graph.indptr))
    a, b = block_of_node[node_of_task[src]], block_of_node[node_of_task[graph.indices]]
    w = np.asarray(graph.weights, dtype=np.float64)
    inter = a != b
    out_ptr, out_nbr, out_w = _rows(a[inter], b[inter], w[inter], blocks.size)
    in_ptr, in_nbr, in_w = _rows(b[inter], a[inter], w[inter], blocks.size)

    capacity = np.asarray(view.capacity, dtype=np.int64)
    sizes = np.unique(capacity)
    # free nodes of every group and size, in node order; nodes of a size per group
    free = {(int(g), int(c)): list(np.flatnonzero((group_index == g) & (capacity == c)))
            for g in range(K) for c in sizes}
    total = {key: len(nodes) for key, nodes in free.items()}
    placed = np.zeros((K, sizes.size), dtype=np.int64)
    pair_load = np.zeros((K, K))
    group_of_block = np.full(blocks.size, -1, dtype=np.int64)
    target = np.empty(blocks.size, dtype=np.int64)
    for i, node in enumerate(blocks.tolist()):
        c = int(np.searchsorted(sizes, capacity[node]))
        have = np.asarray([total[(g, int(sizes[c]))] - placed[g, c] for g in range(K)])
        open_groups = np.flatnonzero(have > 0)  # the block's own node is free somewhere: never empty
        fill = placed[open_groups, c] / np.asarray([total[(int(g), int(sizes[c]))] for g in open_groups])
        choices = open_groups[fill == fill.min()]
        cost = np.zeros(choices.size)
        # traffic to placed blocks, by their group: out of the block (g -> h) and into it (h -> g)
        for ptr, nbr, wt, outgoing in ((out_ptr, out_nbr, out_w, True), (in_ptr, in_nbr, in_w, False)):
            lo, hi = ptr[i], ptr[i + 1]
            there = group_of_block[nbr[lo:hi]]
            known = there >= 0
            if not known.any():
                continue
            per_group = np.bincount(there[known], weights=wt[lo:hi][known], minlength=K)
            for h in np.flatnonzero(per_group).tolist():
                row = pair_load[choices, h] if outgoing else pair_load[h, choices]
                cost = np.maximum(cost, np.where(choices == h, 0.0, row + per_group[h]))
        g = int(choices[np.argmin(cost)])  # the first of the least: the lowest group
        group_of_block[i] = g
        placed[g, c] += 1
        target[i] = free[(g, int(sizes[c]))].pop(0)
        for ptr, nbr, wt, outgoing in ((out_ptr, out_nbr, out_w, True), (in_ptr, in_nbr, in_w, False)):
            lo, hi = ptr[i], ptr[i + 1]
            there = group_of_block[nbr[lo:hi]]
            known = (there >= 0) & (there != g)
            if outgoing:
                np.add.at(pair_load, (np.full(known.sum(), g), there[known]), wt[lo:hi][known])
            else:
                np.add.at(pair_load, (there[known], np.full(known.sum(), g)), wt[lo:hi][known])

    # a task keeps its slot: the proc of the same slot on its block's new node
    new_node = target[block_of_node[node_of_task]]
    slot = view.slot_in_node[ttp]
    task_to_proc = np.asarray(view.procs, dtype=np.int64)[np.asarray(view.proc_ptr, dtype=np.int64)[new_node] + slot]
    return Mapping(task_to_proc, machine, graph, method="balance",
                   info=dict(packed.info, groups=int(K)))


def _rows(src: np.ndarray, dst: np.ndarray, weight: np.ndarray, n: int):
    """CSR (indptr, neighbour, summed weight) of the directed pairs, one entry per distinct neighbour."""
    key = src * n + dst
    pairs, inverse = np.unique(key, return_inverse=True)
    summed = np.bincount(inverse, weights=weight, minlength=pairs.size)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(pairs // n, minlength=n), out=indptr[1:])
    return indptr, pairs % n, summed
