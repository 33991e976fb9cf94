"""The PERCS / Power 775 two-level direct network as a :class:`~mpitaskmap.machines.Machine`.

Hop distance, link loads and a coordinate embedding make it a target like any other:
:func:`mpitaskmap.metrics.evaluate`, :func:`mpitaskmap.map_geometric`, the candidate
search and ``remap()`` work on it unchanged.
"""

from __future__ import annotations

import numpy as np

from .._validate import as_index_array
from ..errors import InvalidInputError
from .base import Machine
from .percs_network import (
    DRAWERS_PER_SUPERNODE,
    NODES_PER_DRAWER,
    NODES_PER_SUPERNODE,
    PROCS_PER_NODE,
    PROCS_PER_SUPERNODE,
    PercsLinkLoads,
    check_network,
)
from .percs_routing import ROUTINGS, check_model, percs_link_loads

__all__ = ["PercsMachine", "EMBEDDING_SPACING"]

#: Spacing of the (supernode, drawer, node, core) coordinates of :meth:`PercsMachine.geometric_coords`.
EMBEDDING_SPACING = (1024.0, 64.0, 4.0, 1.0)


class PercsMachine(Machine):
    """A PERCS (IBM Power 775) system of ``n_s`` supernodes with ``n_d`` D links per pair.

    Processor ``p`` is core ``p % 4`` of node ``(p // 4) % 8`` of drawer
    ``(p // 32) % 4`` of supernode ``p // 128``; ``node_ids = p // 4``.

    Parameters
    ----------
    n_s : int
        Number of supernodes (>= 1; the study uses 16 to 512).
    n_d : int
        D links between every pair of supernodes: 1, 2, 4, 8, 16 or 32.
    routing : {"direct", "indirect"}, optional
        Inter-supernode routing used by :meth:`link_loads` (default "direct").
    model : {"paper", "striped", "uniform"}, optional
        L-link model used by :meth:`link_loads` (default "paper": intra-supernode messages
        striped over the source drawer, each L hop of an L-D-L route one L link;
        "striped": every L hop striped too; "uniform": every segment spread over all 32
        nodes).  See :mod:`mpitaskmap.machines.percs_routing`.
    name : str, optional
        Description used in reports.

    Raises
    ------
    InvalidInputError
        On an invalid ``n_s`` or ``n_d``.
    ValueError
        On an unknown routing or model (listing the valid ones).

    Notes
    -----
    **Hops** (:meth:`hops`) is the length of the shortest *direct* route, counting real
    links only (self-loops are free): 0 on one node; 1 inside a supernode (one LL link
    inside a drawer, one LR link between drawers); between supernodes ``a`` and ``b``,
    ``min_j [u != g_j] + 1 + [h_j != v]`` over the ``n_d`` D links, ``g_j`` and ``h_j``
    being the link's end nodes: 1 when ``u`` and ``v`` are the two ends of one D link, 2
    when one of them is, 3 otherwise.

    **Link loads** (:meth:`link_loads`) follow :mod:`mpitaskmap.machines.percs_routing`: striped
    intra-supernode segments, direct (L-D-L) or indirect (L-D-L-D-L) inter-supernode
    routes whose L hops are single links (model "paper"), striped (model "striped") or
    spread over the whole supernode (model "uniform"),
    fractional Data(e) in float64, and Congestion(e) counting a split message once on
    every link one of its paths crosses.

    **Embedding** (:meth:`geometric_coords`): (supernode, drawer, node, core) scaled by
    :data:`EMBEDDING_SPACING` so that every coarser level spans more than all finer ones
    together; a longest-dimension partitioner then cuts supernodes first, then drawers,
    then nodes.

    Examples
    --------
    >>> m = PercsMachine(2, 1)
    >>> m.n_procs, m.n_nodes
    (256, 64)
    >>> m.hops([0, 0, 0, 0], [1, 4, 32, 128]).tolist()
    [0, 1, 1, 2]
    """

    name = "percs"

    def __init__(self, n_s: int, n_d: int, *, routing: str = "direct", model: str = "paper",
                 name: str | None = None) -> None:
        self.n_s, self.n_d = check_network(n_s, n_d)
        if routing not in ROUTINGS:
            raise ValueError(f"routing: unknown {routing!r}; valid: {sorted(ROUTINGS)}")
        self.routing = routing
        self.model = check_model(model)
        n_procs = self.n_s * PROCS_PER_SUPERNODE
        tag = "" if model == "paper" else f", {model}"
        super().__init__(n_procs, np.arange(n_procs, dtype=np.intp) // PROCS_PER_NODE,
                         name or f"percs({self.n_s}x{self.n_d}, {routing}{tag})")

    def __repr__(self) -> str:
        return f"PercsMachine(n_s={self.n_s}, n_d={self.n_d}, routing={self.routing!r}, model={self.model!r})"

    @property
    def bucket_width(self) -> int:
        """Nodes per D-link bucket, ``W = 32 / n_d``."""
        return NODES_PER_SUPERNODE // self.n_d

    def with_routing(self, routing: str) -> "PercsMachine":
        """Return the same system (same L-hop model) with another inter-supernode routing."""
        return PercsMachine(self.n_s, self.n_d, routing=routing, model=self.model)

    def with_model(self, model: str) -> "PercsMachine":
        """Return the same system (same routing) with another L-hop model."""
        return PercsMachine(self.n_s, self.n_d, routing=self.routing, model=model)

    def locate(self, procs) -> np.ndarray:
        """Return (supernode, drawer, node in drawer, core) of every processor, (n, 4) int64.

        Examples
        --------
        >>> PercsMachine(2, 4).locate([0, 37, 255]).tolist()
        [[0, 0, 0, 0], [0, 1, 1, 1], [1, 3, 7, 3]]
        """
        p = as_index_array(np.atleast_1d(procs), "procs", upper=self.n_procs).astype(np.int64)
        return np.stack(
            [p // PROCS_PER_SUPERNODE, (p // (PROCS_PER_NODE * NODES_PER_DRAWER)) % DRAWERS_PER_SUPERNODE,
             (p // PROCS_PER_NODE) % NODES_PER_DRAWER, p % PROCS_PER_NODE], axis=1,
        )

    # -- distance --------------------------------------------------------------------
    def _node_hops(self, gp: np.ndarray, gq: np.ndarray) -> np.ndarray:
        a, u = np.divmod(gp, NODES_PER_SUPERNODE)
        b, v = np.divmod(gq, NODES_PER_SUPERNODE)
        w = self.bucket_width
        src_gw = u % w == b % w  # u is the end in a of a D link to b
        dst_gw = v % w == a % w  # v is the end in b of a D link from a
        both = src_gw & dst_gw & (u // w == v // w)
        inter = np.where(both, 1, np.where(src_gw | dst_gw, 2, 3))
        return np.where(gp == gq, 0, np.where(a == b, 1, inter)).astype(np.int64)

    def hops(self, src, dst) -> np.ndarray:
        """Return the hop distance between processors ``src[i]`` and ``dst[i]``.

        Parameters
        ----------
        src, dst : (n,) array_like of int
            Processor ids.

        Returns
        -------
        (n,) ndarray of int64
            0 on one node, 1 inside a supernode, 1 to 3 between supernodes (shortest
            direct L-D-L route; see the class notes).
        """
        src = as_index_array(np.atleast_1d(src), "src", upper=self.n_procs)
        dst = as_index_array(np.atleast_1d(dst), "dst", upper=self.n_procs, length=src.shape[0])
        return self._node_hops(src // PROCS_PER_NODE, dst // PROCS_PER_NODE)

    # -- links -----------------------------------------------------------------------
    @property
    def has_link_model(self) -> bool:
        """True: the routing of :mod:`mpitaskmap.machines.percs_routing` gives every message its links."""
        return True

    def link_loads(self, indptr, indices, weights, task_to_proc) -> PercsLinkLoads:
        """Return the exact per-link loads under this machine's routing.

        See :func:`mpitaskmap.machines.percs_routing.percs_link_loads`; inputs are trusted
        (validated by the metric functions).
        """
        return percs_link_loads(indptr, indices, weights, task_to_proc, self.n_s, self.n_d, self.routing,
                                self.model)

    # -- embedding -------------------------------------------------------------------
    def geometric_coords(self) -> np.ndarray:
        """Return the (supernode, drawer, node, core) embedding, (n_procs, 4) float64.

        Levels are scaled by :data:`EMBEDDING_SPACING` so that each coarser level spans
        more than every finer level together.
        """
        return self.locate(np.arange(self.n_procs)).astype(np.float64) * np.asarray(EMBEDDING_SPACING)


def _check_machine(machine) -> PercsMachine:
    if not isinstance(machine, PercsMachine):
        raise InvalidInputError(f"machine: expected a PercsMachine; got {type(machine).__name__}")
    return machine
