"""Processors grouped into nodes, with no network coordinates (the ``hostname`` provider's model)."""

from __future__ import annotations

import numpy as np

from ..._validate import as_index_array
from ..base import Machine
from ..network_hops import NodeMetric, label_hops

__all__ = ["FlatMachine"]


class FlatMachine(Machine):
    """Processors grouped into nodes, with no network coordinates.

    Hop distance is 0 between processors of one node and ``inter_node_hops`` (default 1)
    between processors of different nodes: the model of a cluster whose only known
    topology is "same host or not" (the ``hostname`` provider).  It has no link model.

    Parameters
    ----------
    node_ids : (n_procs,) array_like of int
        Node of every processor.
    inter_node_hops : int, optional
        Distance between different nodes (default 1).
    name : str, optional
        Description used in reports.

    Examples
    --------
    >>> m = FlatMachine([0, 0, 1, 2])
    >>> m.hops([0, 0, 0], [1, 2, 3]).tolist()
    [0, 1, 1]
    """

    name = "flat"

    def __init__(self, node_ids, *, inter_node_hops: int = 1, name: str | None = None) -> None:
        node_ids = np.asarray(node_ids)
        super().__init__(node_ids.shape[0] if node_ids.ndim == 1 else -1, node_ids, name)
        self.inter_node_hops = int(inter_node_hops)

    def hops(self, src, dst) -> np.ndarray:
        """Return 0 for processors on one node, ``inter_node_hops`` otherwise."""
        src = as_index_array(np.atleast_1d(src), "src", upper=self.n_procs)
        dst = as_index_array(np.atleast_1d(dst), "dst", upper=self.n_procs, length=src.shape[0])
        return label_hops("flat", [self.inter_node_hops], self.node_ids[src][:, None], self.node_ids[dst][:, None])

    def _build_node_metric(self) -> NodeMetric:
        return NodeMetric.build("flat", [self.inter_node_hops], self.node_view().nodes[:, None])

    def geometric_coords(self) -> np.ndarray:
        """Return the node id as a 1-D embedding for geometric mapping.

        Distances along it mean nothing; it only keeps the processors of one node
        together, which is all this model knows.
        """
        return self.node_ids.astype(np.float64)[:, None]

