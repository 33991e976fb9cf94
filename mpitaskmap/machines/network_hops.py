"""Hop distance from a few labels per node: the compiled formulas of the fat tree, dragonfly, PERCS and flat kinds.

A :class:`NodeMetric` is how a machine off the torus tells the graph kernels its node-to-node
distance without a node-by-node matrix: a kind, a few integer parameters and one row of labels
per node of its :class:`~mpitaskmap.machines.views.NodeView` (label 0 the node's number in the
network; a fat tree adds its group at every switch level).  The kinds' own ``hops`` call the same
compiled formulas through :func:`label_hops` (``cext/_network_hops.pxd``), so the machine and the
kernels can never disagree.  Memory O(n_nodes x labels); a distance costs O(levels) or O(1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _hops
from ..errors import InvalidInputError

__all__ = ["NodeMetric", "METRIC_KINDS", "METRIC_PARAMS", "label_hops"]

#: Kind codes of ``cext/_network_hops.pxd`` (its enum), by name.
METRIC_KINDS = {"tree": 1, "dragonfly": 2, "percs": 3, "flat": 4}

#: Parameters a kind's formula reads (the compiled array's fixed length).
METRIC_PARAMS = 8


def _params(kind: str, params) -> np.ndarray:
    if kind not in METRIC_KINDS:
        raise InvalidInputError(f"kind: expected one of {list(METRIC_KINDS)}; got {kind!r}")
    values = [int(p) for p in params]
    if len(values) > METRIC_PARAMS:
        raise InvalidInputError(f"params: at most {METRIC_PARAMS} values; got {len(values)}")
    return np.asarray(values + [0] * (METRIC_PARAMS - len(values)), dtype=np.int64)


def label_hops(kind: str, params, labels_a: np.ndarray, labels_b: np.ndarray) -> np.ndarray:
    """Return the hops between the nodes of label rows ``labels_a[i]`` and ``labels_b[i]``, (n,) int64.

    Parameters
    ----------
    kind : {"tree", "dragonfly", "percs", "flat"}
        The formula (``cext/_network_hops.pxd``).
    params : sequence of int
        The kind's parameters (tree: levels; dragonfly: nodes per switch, switches, columns,
        groups, global links, global ports, minimal flag; PERCS: nodes per supernode, bucket
        width; flat: hops between nodes).
    labels_a, labels_b : (n, width) array_like of int
        Label rows of the two ends of every pair; label 0 is the node number.

    Returns
    -------
    (n,) ndarray of int64

    Examples
    --------
    Two leaves of two nodes under one spine (tree labels: node, leaf, spine):

    >>> a = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
    >>> b = [[0, 0, 0], [1, 0, 0], [3, 1, 0]]
    >>> label_hops("tree", [2], a, b).tolist()
    [0, 2, 4]
    """
    p = _params(kind, params)
    la = np.ascontiguousarray(labels_a, dtype=np.int64)
    lb = np.ascontiguousarray(labels_b, dtype=np.int64)
    if la.ndim != 2 or la.shape != lb.shape or la.shape[1] < 1:
        raise InvalidInputError(f"labels: expected two (n, width >= 1) arrays of one shape; got {la.shape} and {lb.shape}")
    out = np.empty(la.shape[0], dtype=np.int64)
    _hops.label_hops(METRIC_KINDS[kind], p, la, lb, out)
    return out


@dataclass(frozen=True)
class NodeMetric:
    """The hop distance between the nodes of a node view, as labels and a compiled formula.

    Attributes
    ----------
    kind : str
        A key of :data:`METRIC_KINDS`.
    params : (METRIC_PARAMS,) ndarray of int64
        The formula's parameters, zero-padded.
    labels : (n_nodes, width) ndarray of int64
        Label row of every node of the view (read-only); label 0 the node number.
    route_params : ndarray of int64 or None
        Where the kind also routes by formula (a fat tree: ``cext/_network_hops.pxd``), the
        routes' parameters: congestion refinement then needs no table of every node pair.
    n_links : int
        The machine's directed links (the routes' link ids are below it; 0 without routes).

    Examples
    --------
    >>> from mpitaskmap.machines import FlatMachine
    >>> m = FlatMachine([3, 1, 3]).node_metric()
    >>> m.kind, m.labels.tolist(), m.hops([0, 0], [0, 1]).tolist()
    ('flat', [[1], [3]], [0, 1])
    """

    kind: str
    params: np.ndarray
    labels: np.ndarray
    route_params: np.ndarray | None = None
    n_links: int = 0

    @classmethod
    def build(cls, kind: str, params, labels, *, route_params=None, n_links: int = 0) -> "NodeMetric":
        """Check and freeze a metric (labels copied to a read-only int64 array)."""
        lab = np.array(labels, dtype=np.int64, ndmin=2)
        if lab.ndim != 2 or lab.shape[1] < 1:
            raise InvalidInputError(f"labels: expected (n_nodes, width >= 1); got shape {lab.shape}")
        p = _params(kind, params)
        lab.setflags(write=False)
        p.setflags(write=False)
        rp = None
        if route_params is not None:
            rp = np.array(route_params, dtype=np.int64)
            rp.setflags(write=False)
        return cls(kind, p, lab, rp, int(n_links))

    @property
    def code(self) -> int:
        """The compiled kind code (:data:`METRIC_KINDS`)."""
        return METRIC_KINDS[self.kind]

    def total_hops(self) -> int:
        """Return the hops summed over every ordered pair of nodes (O(n_nodes**2) time once, then cached).

        Examples
        --------
        >>> from mpitaskmap.machines import FlatMachine
        >>> FlatMachine([0, 1, 2], inter_node_hops=2).node_metric().total_hops()
        12
        """
        known = self.__dict__.get("_total_hops")
        if known is None:
            known = int(_hops.total_label_hops(self.code, self.params, self.labels))
            object.__setattr__(self, "_total_hops", known)  # frozen: a derived figure, kept with the labels
        return known

    def hops(self, a, b) -> np.ndarray:
        """Return the hops between nodes ``a[i]`` and ``b[i]`` of the view (node indices), (n,) int64."""
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        return label_hops(self.kind, self.params, self.labels[a], self.labels[b])
