"""Group communication of Rubik mappings: all-to-all graphs and the links each group uses.

The point of Rubik's shapes and tilts is bandwidth for collectives over
sub-communicators: a group spread over more dimensions has more links for its
all-to-all, even if its messages travel more hops.  These helpers build the task graph of
each group's all-to-all and count the links its messages cross, with the library's one
routing model (:func:`mpitaskmap.metrics.link_loads`).
"""

from __future__ import annotations

import numpy as np

from ... import metrics
from ...errors import InvalidInputError
from ...mapping import Mapping
from ...graphs.taskgraph import TaskGraph
from .tree import Box

__all__ = ["rank_groups", "alltoall_graph", "groups_alltoall_graph", "group_link_loads", "group_link_usage"]


def rank_groups(tree: Box) -> np.ndarray:
    """Return the group of every rank: the depth-first index of the leaf of ``tree`` holding it.

    Parameters
    ----------
    tree : Box
        A root box: the application tree gives its groups (sub-communicators); a network
        tree gives the network leaf each rank sits in now.

    Returns
    -------
    (tree.size,) ndarray of intp
        ``out[r]`` is the leaf number of rank ``r`` (the order ``map`` pairs leaves in).

    Raises
    ------
    InvalidInputError
        If ``tree`` is not a root box.

    Examples
    --------
    >>> from mpitaskmap.mappers.rubik import box
    >>> b = box([2, 4]); b.mod([1, 2])
    >>> rank_groups(b).tolist()
    [0, 1, 0, 1, 0, 1, 0, 1]
    """
    if not isinstance(tree, Box) or tree.parent is not None:
        raise InvalidInputError(f"tree: expected a root rubik Box; got {tree!r}")
    out = np.empty(tree.size, dtype=np.intp)
    for k, leaf in enumerate(tree.leaves()):
        out[leaf.ranks.ravel()] = k
    return out


def _group_lists(groups) -> list[np.ndarray]:
    if isinstance(groups, Box):
        groups = rank_groups(groups)
    arr = np.asarray(groups)
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu" or (arr < 0).any():
        raise InvalidInputError(f"groups: expected a Box or one group id >= 0 per rank; got {groups!r}")
    order = np.argsort(arr, kind="stable")
    bounds = np.flatnonzero(np.diff(arr[order])) + 1
    return np.split(order, bounds)


def alltoall_graph(members, n_tasks: int, *, weight: float = 1.0) -> TaskGraph:
    """Return the task graph of an all-to-all among ``members``: one message per ordered pair.

    Parameters
    ----------
    members : (k,) array_like of int
        Ranks of the group.
    n_tasks : int
        Total number of tasks (ranks) of the application.
    weight : float, optional
        Volume of every message (default 1.0).

    Returns
    -------
    TaskGraph
        ``k * (k - 1)`` edges.

    Examples
    --------
    >>> alltoall_graph([0, 2, 3], 4).n_edges
    6
    """
    m = np.unique(np.asarray(members, dtype=np.intp))
    src = np.repeat(m, m.size)
    dst = np.tile(m, m.size)
    keep = src != dst
    return TaskGraph.from_edges(src[keep], dst[keep], np.full(int(keep.sum()), float(weight)), n_tasks=n_tasks)


def groups_alltoall_graph(groups, *, weight: float = 1.0) -> TaskGraph:
    """Return the task graph of every group's all-to-all at once (all sub-communicators busy).

    Parameters
    ----------
    groups : Box or (n_tasks,) array_like of int
        The application tree (its leaves are the groups) or the group id of every rank.
    weight : float, optional
        Volume of every message (default 1.0).

    Returns
    -------
    TaskGraph
        One edge per ordered pair of distinct ranks in the same group.

    Examples
    --------
    >>> groups_alltoall_graph([0, 0, 1, 1, 1]).n_edges
    8
    """
    lists = _group_lists(groups)
    n = sum(g.size for g in lists)
    src, dst = [], []
    for m in lists:
        s, d = np.repeat(m, m.size), np.tile(m, m.size)
        src.append(s[s != d])
        dst.append(d[s != d])
    src_all, dst_all = np.concatenate(src), np.concatenate(dst)
    return TaskGraph.from_edges(src_all, dst_all, np.full(src_all.size, float(weight)), n_tasks=n)


def group_link_loads(mapping: Mapping, groups) -> list:
    """Return the link loads of each group's all-to-all run alone.

    Parameters
    ----------
    mapping : Mapping
        Placement of all ranks on a machine with a link model (e.g. a torus).
    groups : Box or (n_tasks,) array_like of int
        The application tree (its leaves are the groups) or the group id of every rank.

    Returns
    -------
    list of LinkLoads
        One per group (in group order), from :func:`mpitaskmap.metrics.link_loads` on
        :func:`alltoall_graph` of the group.

    Raises
    ------
    InvalidInputError
        If the groups do not cover the mapping's tasks.
    """
    lists = _group_lists(groups)
    n = sum(g.size for g in lists)
    if n != mapping.n_tasks:
        raise InvalidInputError(f"groups: expected {mapping.n_tasks} ranks in all; got {n}")
    return [metrics.link_loads(alltoall_graph(m, n), mapping.machine, mapping.task_to_proc) for m in lists]


def group_link_usage(mapping: Mapping, groups) -> np.ndarray:
    """Return the number of distinct network links used by each group's all-to-all.

    Parameters
    ----------
    mapping : Mapping
        Placement of all ranks on a machine with a link model (e.g. a torus).
    groups : Box or (n_tasks,) array_like of int
        The application tree (its leaves are the groups) or the group id of every rank.

    Returns
    -------
    (n_groups,) ndarray of int64
        Directed links crossed by at least one message of the group's all-to-all alone,
        under the machine's static routing (:func:`mpitaskmap.metrics.link_loads`).

    Raises
    ------
    InvalidInputError
        If the groups do not cover the mapping's tasks.

    Examples
    --------
    >>> from mpitaskmap.mappers.rubik import box
    >>> from mpitaskmap.machines.torus.presets import torus_machine
    >>> app = box([2, 4]); app.div([2, 1])          # two groups of 4 ranks
    >>> net = box([4, 2]); net.div([1, 2]); net.map(app)
    >>> group_link_usage(net.to_mapping(torus_machine([4, 2])), app).tolist()
    [8, 8]
    """
    return np.array([loads.n_used() for loads in group_link_loads(mapping, groups)], dtype=np.int64)
