"""Geometric mapping against a network hierarchy: task coordinates cut by the tree of switches.

On a machine whose nodes hang under a hierarchy of switches (:meth:`Machine.node_hierarchy
<mpitaskmap.machines.Machine.node_hierarchy>`: a fat tree), processor coordinates say little
-- every node under one leaf is as far as every other -- but the tree says exactly which
processors are close.  :func:`map_tree_split` therefore partitions only the tasks, against
the tree: the machine's :class:`~mpitaskmap.machines.views.DomainTree` halves the
allocation switch by switch (the children of one switch halved by capacity, then each child
by the level below), and the tasks of a domain are cut by one coordinate plane into two
parts of the halves' sizes, recursively (recursive coordinate bisection, as MJ does with
exact part counts), until each part fits one node.  So the heaviest groups of neighbouring
tasks share a node, then a leaf switch, then a pod, and only the cuts of the top levels
cross the tapered up-links.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from ...errors import InvalidInputError, NotApplicableError
from ...machines import Machine
from ...mapping import Mapping, check_fit
from .mapper import _task_coords
from .mj import mj_partition
from .transforms import drop_constant_dimensions

__all__ = ["map_tree_split"]


def _half_count(n: int, cap_left: int, cap_right: int) -> int:
    """Tasks of ``n`` for the left half: in proportion to the capacities, rounded half up, within both capacities.

    With more tasks than processors (oversubscription) the shares stay proportional.
    """
    total = cap_left + cap_right
    left = (2 * n * cap_left + total) // (2 * total)
    if n <= total:
        left = min(max(left, n - cap_right), cap_left)
    return int(left)


def _cut_dimension(sub: np.ndarray, n_left: int) -> int:
    """The dimension to cut ``sub`` after ``n_left`` points: the longest extent among the clean cuts.

    A cut is clean along a dimension when the ``n_left``-th and the next point (in that
    coordinate's order) differ there, so a plane separates the two sides; a 3 | 3 split of
    a 3 x 2 grid of blocks is clean across the short side only.  Without a clean cut: the
    longest extent.  Ties: the lowest dimension.
    """
    extent = sub.max(axis=0) - sub.min(axis=0)
    if 0 < n_left < sub.shape[0]:
        srt = np.sort(sub, axis=0)
        clean = srt[n_left - 1] < srt[n_left]
        if clean.any():
            return int(np.argmax(np.where(clean, extent, -np.inf)))
    return int(np.argmax(extent))


def _cut_along_tree(points: np.ndarray, tree, capacity: np.ndarray, perm) -> np.ndarray:
    """Node index of every point: the points of a domain cut by one plane into its halves' shares."""
    n, n_dims = points.shape
    out = np.empty(n, dtype=np.int64)
    stack = [(0, np.arange(n, dtype=np.int64), 0)]
    while stack:
        d, members, depth = stack.pop()
        if not members.size:
            continue
        if tree.node[d] >= 0:
            out[members] = tree.node[d]
            continue
        left, right = tree.children[d]
        n_left = _half_count(members.size, int(capacity[left]), int(capacity[right]))
        if n_dims == 0:
            order = np.arange(members.size)
        else:
            sub = points[members]
            if perm is None:
                dim = _cut_dimension(sub, n_left)
            else:
                dim = perm[depth % n_dims]
            order = np.lexsort((members, sub[:, dim]))
        stack.append((int(right), np.sort(members[order[n_left:]]), depth + 1))
        stack.append((int(left), np.sort(members[order[:n_left]]), depth + 1))
    return out


def map_tree_split(
    tasks,
    machine: Machine,
    *,
    task_perm: Sequence[int] | None = None,
    task_coords=None,
    oversubscribe: bool = False,
) -> Mapping:
    """Map tasks by cutting their coordinates along the machine's tree of switches (module notes).

    Parameters
    ----------
    tasks : TaskGraph or (n_tasks, td) array_like of float
        The task graph (with coordinates) or just the task coordinates.
    machine : Machine
        A machine with a hierarchy (:meth:`~mpitaskmap.machines.Machine.node_hierarchy`).
    task_perm : sequence of int, optional
        Cut dimensions cycle in this order, one per depth of the domain tree (a
        "rotation"); None (default) = the longest extent of the domain's tasks (ties: the
        lowest dimension) among the dimensions where a plane separates the two shares.
        Constant dimensions are dropped first.
    task_coords : (n_tasks, td) array_like of float, optional
        Coordinates to use instead of the task graph's own.
    oversubscribe : bool, optional
        Allow more tasks than processors (default False).

    Returns
    -------
    Mapping
        ``method="geometric"``, ``info`` with ``hierarchy=True``, the rotation and the seconds.

    Raises
    ------
    NotApplicableError
        When the machine has no hierarchy.
    InvalidInputError
        On missing task coordinates, a permutation of the wrong length, or more tasks
        than processors without ``oversubscribe``.

    Notes
    -----
    Every cut orders its domain's tasks by (coordinate, task index): O(n_tasks log n_tasks)
    per depth of the domain tree, O(n_tasks log n_tasks log n_nodes) in all.
    Deterministic.

    Examples
    --------
    A 4 x 2 grid on two leaves of two 2-core nodes: each leaf gets a 2 x 2 block (x < 2 on
    leaf 0), each node a 1 x 2 column of it.

    >>> from mpitaskmap import TaskGraph
    >>> from mpitaskmap.machines import FatTreeMachine
    >>> m = FatTreeMachine.regular([2, 2], [1, 1], 1.0, [0, 0, 1, 1, 2, 2, 3, 3])
    >>> map_tree_split(TaskGraph.stencil([4, 2]), m).task_to_proc.tolist()
    [0, 2, 4, 6, 1, 3, 5, 7]
    """
    t0 = time.perf_counter()
    hierarchy = machine.node_hierarchy()
    if hierarchy is None:
        raise NotApplicableError(f"machine: the tree split needs a hierarchy of switches; {machine.name!r} has none")
    coords, graph = _task_coords(tasks, task_coords)
    coords = drop_constant_dimensions(coords)
    n_tasks, n_dims = coords.shape
    check_fit(n_tasks, machine.n_procs, oversubscribe)
    perm = None
    if task_perm is not None:
        perm = [int(v) for v in task_perm]
        if sorted(perm) != list(range(n_dims)):
            raise InvalidInputError(f"task_perm: expected a permutation of 0..{n_dims - 1} (varying task dimensions); "
                                    f"got {list(task_perm)}")
    view = machine.node_view()
    tree = hierarchy.domain_tree(view.capacity)
    cap = np.asarray(view.capacity)
    blocks = (bool(n_dims) and view.n_nodes <= n_tasks <= machine.n_procs and view.n_nodes > 1
              and bool((cap == cap[0]).all()))
    task_to_proc = np.empty(n_tasks, dtype=np.intp)
    if blocks:
        # node-sized blocks first (MJ, equal parts: compact blocks), then the blocks along the tree
        parts = mj_partition(coords, view.n_nodes, ordering="fz", prime_split=True)
        count = np.bincount(parts, minlength=view.n_nodes).astype(np.float64)
        centroid = np.stack([np.bincount(parts, weights=coords[:, k], minlength=view.n_nodes) for k in range(n_dims)],
                            axis=1) / count[:, None]
        node_of_part = _cut_along_tree(centroid, tree, tree.capacity // int(cap[0]), perm)
        node_of_task = node_of_part[parts]
    else:
        node_of_task = _cut_along_tree(coords, tree, tree.capacity, perm)
    order = np.lexsort((np.arange(n_tasks), node_of_task))
    start = np.searchsorted(node_of_task[order], np.arange(view.n_nodes + 1))
    for node in np.flatnonzero(np.diff(start)).tolist():
        members = order[start[node]: start[node + 1]]
        procs = view.procs[view.proc_ptr[node]: view.proc_ptr[node + 1]]
        task_to_proc[members] = procs[np.arange(members.size) % procs.size]
    info = {"hierarchy": True, "task_perm": None if perm is None else tuple(perm),
            "idle_processors": max(machine.n_procs - n_tasks, 0), "seconds": time.perf_counter() - t0}
    return Mapping(task_to_proc, machine, graph, oversubscribe=oversubscribe, method="geometric", info=info)
