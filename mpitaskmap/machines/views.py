"""Views of a machine that mappers, map files and plots need: its nodes (:class:`NodeView`), its box.

Built by :meth:`mpitaskmap.machines.Machine.node_view` and
:meth:`mpitaskmap.machines.TorusMachine.box_shape`; :func:`strides` numbers grid cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import InvalidInputError, NotApplicableError

__all__ = ["MAX_MATRIX_NODES", "NodeView", "NodeHierarchy", "DomainTree", "BoxShape", "strides", "default_dim_names",
           "split_half"]

#: Largest node count of a node hop matrix (:meth:`NodeView.hop_matrix`, n x n int32).
MAX_MATRIX_NODES = 8192


def default_dim_names(n_dims: int) -> list[str]:
    """Return display names of the dimensions: X, Y, Z for up to three, else D0, D1, ...

    Parameters
    ----------
    n_dims : int
        Number of dimensions.

    Returns
    -------
    list of str
        One name per dimension.

    Examples
    --------
    >>> default_dim_names(3)
    ['X', 'Y', 'Z']
    """
    if n_dims <= 3:
        return ["X", "Y", "Z"][:n_dims]
    return [f"D{k}" for k in range(n_dims)]


def strides(dims: Sequence[int] | np.ndarray) -> np.ndarray:
    """Return the linear-id strides of a grid numbered dimension 0 fastest.

    The cell at coordinates ``c`` has id ``c @ strides(dims)``; its coordinate in
    dimension ``k`` is ``(id // strides(dims)[k]) % dims[k]``.  Router ids, node ids of
    simulated machines and task ids of stencils all use this numbering.

    Parameters
    ----------
    dims : sequence of int
        Grid lengths, each at least 1.

    Returns
    -------
    (len(dims),) ndarray of int64
        ``1, dims[0], dims[0] * dims[1], ...``.

    Raises
    ------
    InvalidInputError
        If ``dims`` is not a 1-D sequence of positive integers.

    Examples
    --------
    >>> strides([4, 3, 2]).tolist()
    [1, 4, 12]
    """
    arr = np.asarray(dims)
    if arr.ndim != 1 or (arr.size and (arr.dtype.kind not in "iu" or (arr < 1).any())):
        raise InvalidInputError(f"dims: expected a 1-D sequence of positive integer lengths; got {dims!r}")
    out = np.ones(arr.size, dtype=np.int64)
    if arr.size > 1:
        np.cumprod(arr[:-1].astype(np.int64), out=out[1:])
    return out




def _position_in_group(keys: np.ndarray) -> np.ndarray:
    """Position of every entry among the entries with the same key, in index order (intp)."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1]))
    first = np.maximum.accumulate(np.where(starts, np.arange(keys.size), 0))
    out = np.empty(keys.size, dtype=np.intp)
    out[order] = np.arange(keys.size) - first
    return out


class NodeView:
    """The machine seen node by node (built by :meth:`Machine.node_view`, cached there).

    Node index ``i`` (0 .. n_nodes-1) is the ``i``-th smallest node id.  All arrays are
    read-only: the view is shared by every caller of :meth:`Machine.node_view`.

    Attributes
    ----------
    nodes : (n_nodes,) ndarray of intp
        Distinct node ids, ascending; node index ``i`` is node ``nodes[i]``.
    capacity : (n_nodes,) ndarray of int64
        Processors (cores) per node.
    proc_ptr : (n_nodes + 1,) ndarray of intp
    procs : (n_procs,) ndarray of intp
        The processors of node ``i`` are ``procs[proc_ptr[i]:proc_ptr[i+1]]``, ascending.
    node_of_proc : (n_procs,) ndarray of int64
        Node index of every processor.
    representative : (n_nodes,) ndarray of intp
        One processor per node (its lowest id), for node-to-node distances.
    slot_in_node : (n_procs,) ndarray of intp
        Position of every processor among the processors of its node (0, 1, ... in
        processor-id order): the logical core index of node-level files.
    node_router : (n_nodes,) ndarray of int64 or None
        On a :class:`TorusMachine`: the router id (:meth:`TorusMachine.router_ids`) of
        every node; None on other machines.
    router_ptr : (n_routers + 1,) ndarray of int64 or None
    router_nodes : (n_nodes,) ndarray of int64 or None
        On a :class:`TorusMachine`: the nodes on router ``r`` are
        ``router_nodes[router_ptr[r]:router_ptr[r+1]]``, ascending, for every router of
        the whole network; None on other machines.

    Examples
    --------
    >>> from mpitaskmap.machines import FlatMachine
    >>> v = FlatMachine([5, 2, 5, 5]).node_view()
    >>> v.nodes.tolist(), v.capacity.tolist(), v.node_of_proc.tolist()
    ([2, 5], [1, 3], [1, 0, 1, 1])
    >>> v.hop_matrix().tolist()
    [[0, 1], [1, 0]]
    """

    def __init__(self, machine) -> None:
        self._machine = machine
        order = np.argsort(machine.node_ids, kind="stable").astype(np.intp)
        nodes, counts = np.unique(machine.node_ids[order], return_counts=True)
        n = nodes.size
        self.nodes = nodes.astype(np.intp)
        self.capacity = counts.astype(np.int64)
        self.procs = order
        self.proc_ptr = np.zeros(n + 1, dtype=np.intp)
        np.cumsum(counts, out=self.proc_ptr[1:])
        self.node_of_proc = np.empty(machine.n_procs, dtype=np.int64)
        self.node_of_proc[order] = np.repeat(np.arange(n, dtype=np.int64), counts)
        self.representative = order[self.proc_ptr[:-1]]
        self.slot_in_node = _position_in_group(machine.node_ids)
        self.node_router: np.ndarray | None = None
        self.router_ptr: np.ndarray | None = None
        self.router_nodes: np.ndarray | None = None
        self._hop_matrix: np.ndarray | None = None

    def _set_routers(self, router_of_proc: np.ndarray, n_routers: int) -> None:
        """Fill the router fields from the router id of every processor (torus machines)."""
        node_router = router_of_proc[self.representative].astype(np.int64)
        self.node_router = node_router
        self.router_nodes = np.argsort(node_router, kind="stable").astype(np.int64)
        self.router_ptr = np.zeros(n_routers + 1, dtype=np.int64)
        np.cumsum(np.bincount(node_router, minlength=n_routers), out=self.router_ptr[1:])

    def _freeze(self) -> "NodeView":
        for arr in (self.nodes, self.capacity, self.procs, self.proc_ptr, self.node_of_proc, self.representative,
                    self.slot_in_node, self.node_router, self.router_ptr, self.router_nodes):
            if arr is not None:
                arr.setflags(write=False)
        return self

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return int(self.nodes.size)

    def hop_matrix(self) -> np.ndarray:
        """Return the hop distance between every pair of nodes, (n_nodes, n_nodes) int32.

        Computed on first use from :meth:`Machine.hops` of the representatives and kept
        with the view (4 * n_nodes**2 bytes).

        Raises
        ------
        NotApplicableError
            When the machine has more than :data:`MAX_MATRIX_NODES` nodes (a limit of the
            methods that need the matrix; an :class:`InvalidInputError` too).
        """
        if self._hop_matrix is None:
            n = self.n_nodes
            if n > MAX_MATRIX_NODES:
                raise NotApplicableError(
                    f"machine: the node hop matrix of a {type(self._machine).__name__} is n x n and supports "
                    f"at most {MAX_MATRIX_NODES} nodes; got {n}"
                )
            rep = self.representative
            dist = self._machine.hops(np.repeat(rep, n), np.tile(rep, n)).reshape(n, n).astype(np.int32)
            dist.setflags(write=False)
            self._hop_matrix = dist
        return self._hop_matrix


@dataclass(frozen=True)
class BoxShape:
    """The box of a full box allocation (:meth:`TorusMachine.box_shape`).

    Every router of the box ``origin[k] <= c[k] < origin[k] + lengths[k]`` holds exactly
    ``cores`` processors and no processor is outside it.

    Attributes
    ----------
    origin : tuple of int
        Lowest router coordinate of the box in every dimension.
    lengths : tuple of int
        Routers of the box along every dimension.
    cores : int
        Processors per router.
    """

    origin: tuple
    lengths: tuple
    cores: int

    @property
    def n_routers(self) -> int:
        """Number of routers of the box."""
        return int(np.prod(self.lengths, dtype=np.int64))


def split_half(weights: np.ndarray) -> int:
    """Number of leading entries whose total is closest to half the whole (at least 1, at most n-1).

    Ties: fewer entries.  The one rule by which the library halves a row of capacities
    (processor domains, part ranges, the children of a switch).

    Examples
    --------
    >>> split_half(np.array([4, 4, 2, 2])), split_half(np.array([1, 1, 1]))
    (1, 1)
    """
    csum = np.cumsum(weights)
    total = csum[-1]
    return int(np.argmin(np.abs(2 * csum[:-1] - total))) + 1


@dataclass(frozen=True)
class DomainTree:
    """A binary tree of node domains, the recursive bisection of a machine's nodes (domain 0 = every node).

    Every domain is either one node (a leaf) or two halves.  Built by
    :meth:`NodeHierarchy.domain_tree` on a hierarchy of switches: the children of one switch
    are halved by capacity (:func:`split_half`, in group order) until single children
    remain, which are then split by the level below, so two halves of a domain meet at the
    switch of its ``level`` and never lower.  The dual recursive bisection
    (:func:`~mpitaskmap.mappers.graph.bisection.processor_tree`) builds one on any machine,
    by coordinates or hops where there is no hierarchy.

    Attributes
    ----------
    children : (n_domains, 2) ndarray of int64
        The two halves of every domain; -1 for a leaf.
    node : (n_domains,) ndarray of int64
        The node index of a leaf, -1 elsewhere.
    capacity : (n_domains,) ndarray of int64
        Processors in the domain.
    representative : (n_domains,) ndarray of int64
        The node that stands for the domain (the distance between two domains is the
        distance between their representatives): on a hierarchy the domain's lowest node
        index.
    level : (n_domains,) ndarray of int64 or None
        On a hierarchy, the switch level where the two halves meet (0 for a leaf); None
        for a tree not built from one.
    """

    children: np.ndarray
    node: np.ndarray
    capacity: np.ndarray
    representative: np.ndarray
    level: np.ndarray | None = None

    @property
    def n_domains(self) -> int:
        """Number of domains (2 * n_nodes - 1)."""
        return int(self.node.size)


@dataclass(frozen=True)
class NodeHierarchy:
    """The allocated nodes grouped by the switches (or enclosures) above them, level by level.

    Built by :meth:`Machine.node_hierarchy <mpitaskmap.machines.Machine.node_hierarchy>` on
    machines whose network is a hierarchy (a fat tree's switch levels).  Node index ``i`` is
    the node view's (:class:`NodeView`); nodes sharing a group at level ``l`` share every
    higher level's group too, and the top level is one group.

    Attributes
    ----------
    groups : tuple of (n_nodes,) ndarray of int64
        Group of every node at each level, the lowest (leaf) level first.
    level_names : tuple of str
        One name per level, for reports.

    Examples
    --------
    >>> h = NodeHierarchy((np.array([0, 0, 1]), np.array([0, 0, 0])), ("leaf", "spine"))
    >>> h.n_levels, [d.tolist() for d in h.children(2, 0)]
    (2, [[0, 1], [2]])
    """

    groups: tuple
    level_names: tuple

    @property
    def n_levels(self) -> int:
        """Number of levels above the nodes."""
        return len(self.groups)

    def children(self, level: int, group: int) -> list[np.ndarray]:
        """Return the node indices under each child of group ``group`` of ``level`` (1-based), in group order.

        The children of a level-1 group are its nodes, one each.
        """
        members = np.flatnonzero(self.groups[level - 1] == group)
        if level == 1:
            return [members[i: i + 1] for i in range(members.size)]
        below = self.groups[level - 2][members]
        return [members[below == g] for g in np.unique(below).tolist()]

    def domain_tree(self, capacity) -> DomainTree:
        """Return the binary tree of node domains that follows the hierarchy (see :class:`DomainTree`).

        Parameters
        ----------
        capacity : (n_nodes,) array_like of int
            Processors of every node (:attr:`NodeView.capacity`).

        Returns
        -------
        DomainTree
            Domains numbered breadth first.

        Notes
        -----
        O(n_nodes log n_nodes) for the children lists plus O(n_nodes) domains.

        Examples
        --------
        >>> h = NodeHierarchy((np.array([0, 0, 1]), np.array([0, 0, 0])), ("leaf", "spine"))
        >>> t = h.domain_tree([2, 2, 4])
        >>> t.children[0].tolist(), t.level[:3].tolist(), t.capacity[:3].tolist()
        ([1, 2], [2, 1, 0], [8, 4, 4])
        """
        cap = np.asarray(capacity, dtype=np.int64)
        n = cap.size
        if any(g.shape != (n,) for g in self.groups):
            raise InvalidInputError(f"capacity: expected one entry per node of the hierarchy ({self.groups[0].size}); "
                                    f"got {n}")
        below = [np.arange(n, dtype=np.int64)] + [np.asarray(g, dtype=np.int64) for g in self.groups]
        cap_at = [np.bincount(u, weights=cap).astype(np.int64) for u in below]  # capacity of every unit per level
        first_at = []
        for u in below:
            f = np.full(int(u.max()) + 1, n, dtype=np.int64)
            np.minimum.at(f, u, np.arange(n, dtype=np.int64))
            first_at.append(f)
        kids = []  # kids[k][g] = units of level k - 1 under group g of level k (k >= 1), ascending
        for k in range(1, len(below)):
            pairs = np.unique(np.stack([below[k], below[k - 1]], axis=1), axis=0)
            starts = np.searchsorted(pairs[:, 0], np.arange(int(below[k].max()) + 2))
            kids.append((pairs[:, 1], starts))
        children, node, capacity_out, level, first = [], [], [], [], []
        queue = [(len(below) - 1, np.unique(below[-1]))]
        head = 0
        while head < len(queue):
            k, units = queue[head]
            head += 1
            while units.size == 1 and k > 0:  # one child: the domain is the level below
                sub, starts = kids[k - 1]
                units = sub[starts[units[0]]: starts[units[0] + 1]]
                k -= 1
            capacity_out.append(int(cap_at[k][units].sum()))
            first.append(int(first_at[k][units].min()))
            if units.size == 1:  # k == 0: one node
                children.append((-1, -1))
                node.append(int(units[0]))
                level.append(0)
                continue
            cut = split_half(cap_at[k][units])
            children.append((len(queue), len(queue) + 1))
            node.append(-1)
            level.append(k + 1)
            queue.append((k, units[:cut]))
            queue.append((k, units[cut:]))
        return DomainTree(np.asarray(children, dtype=np.int64).reshape(-1, 2), np.asarray(node, dtype=np.int64),
                          np.asarray(capacity_out, dtype=np.int64), np.asarray(first, dtype=np.int64),
                          np.asarray(level, dtype=np.int64))

