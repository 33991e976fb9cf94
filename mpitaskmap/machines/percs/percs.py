"""The PERCS / Power 775 two-level direct network as a :class:`~mpitaskmap.machines.Machine`.

Hop distance, the network contract of the machine base (links, classes, bandwidths and
split routes) and a coordinate embedding make it a target like any other:
:func:`mpitaskmap.metrics.evaluate`, :func:`mpitaskmap.metrics.predicted_time`,
:func:`mpitaskmap.map_geometric`, the candidate search and ``remap()`` work on it unchanged.
Algorithms defined on PERCS only (the strategies of :mod:`mpitaskmap.mappers.percs`) ask
for it through :func:`as_percs_machine`.
"""

from __future__ import annotations

import numpy as np

from ..._validate import as_index_array
from ...errors import InvalidInputError
from ..base import Machine, as_machine
from ..links import LinkLoads, Routes
from ..network_hops import NodeMetric, label_hops
from .network import (
    DRAWERS_PER_SUPERNODE,
    L_LINKS_PER_SUPERNODE,
    LINK_CLASSES,
    NODES_PER_DRAWER,
    NODES_PER_SUPERNODE,
    PROCS_PER_NODE,
    PROCS_PER_SUPERNODE,
    check_network,
    link_tables,
)
from .routing import _aggregate_loads, _node_routes, check_model, check_routing

__all__ = ["PercsMachine", "EMBEDDING_SPACING", "as_percs_machine", "is_percs_machine"]

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
        Inter-supernode routing of :meth:`routes` and :meth:`link_loads` (default "direct").
    model : {"paper", "striped", "uniform"}, optional
        L-link model of :meth:`routes` and :meth:`link_loads` (default "paper": intra-supernode messages
        striped over the source drawer, each L hop of an L-D-L route one L link;
        "striped": every L hop striped too; "uniform": every segment spread over all 32
        nodes).  See :mod:`mpitaskmap.machines.percs.routing`.
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

    **Links** (:attr:`n_links`, :meth:`link_classes`, :meth:`link_bandwidths`,
    :meth:`link_name`): the compact numbering of :mod:`mpitaskmap.machines.percs.network`,
    the ``n_s * 992`` L links (classes LL, 21 GB/s, and LR, 5 GB/s) then the
    ``n_s * n_d * (n_s - 1)`` D links (class D, 10 GB/s); self-loops are not links.

    **Routes** (:meth:`routes`) follow :mod:`mpitaskmap.machines.percs.routing`: striped
    intra-supernode segments, direct (L-D-L) or indirect (L-D-L-D-L) inter-supernode
    routes -- their supernodes and D links the group-level paths that PERCS shares with the
    dragonflies (:func:`~mpitaskmap.machines.two_level.group_paths`) -- whose L hops are
    single links (model "paper"), striped (model "striped") or spread over the whole
    supernode (model "uniform"); a pair's route lists every link one
    of its paths crosses, once, with the share of the traffic it carries.  The base derives
    the predicted time (:meth:`~mpitaskmap.machines.Machine.link_time`) from them;
    :meth:`link_loads` is a fast path giving the loads the routes give (fractional Data(e)
    in float64, Congestion(e) counting a split message once on every link one of its paths
    crosses).

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
        self.routing = check_routing(routing)
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
    def _build_node_metric(self) -> NodeMetric:
        return NodeMetric.build("percs", [NODES_PER_SUPERNODE, self.bucket_width], self.node_view().nodes[:, None])

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
        return label_hops("percs", [NODES_PER_SUPERNODE, self.bucket_width], (src // PROCS_PER_NODE)[:, None],
                          (dst // PROCS_PER_NODE)[:, None])

    # -- links and routes ------------------------------------------------------------
    @property
    def n_links(self) -> int:
        """Number of directed links: ``n_s * 992`` L links, then ``n_s * n_d * (n_s - 1)`` D links."""
        return self.n_s * L_LINKS_PER_SUPERNODE + self.n_s * self.n_d * (self.n_s - 1)

    def link_bandwidths(self) -> np.ndarray:
        """Return the bandwidth of every link, (n_links,) float64 GB/s (LL 21, LR 5, D 10)."""
        return link_tables(self.n_s, self.n_d)[1]

    def link_classes(self) -> tuple[np.ndarray, tuple]:
        """Return the class of every link (int8 codes) and the class names ``("LL", "LR", "D")``.

        Examples
        --------
        >>> codes, names = PercsMachine(2, 1).link_classes()
        >>> names, codes[[0, 6, 7, 1984]].tolist()
        (('LL', 'LR', 'D'), [0, 0, 1, 2])
        """
        return link_tables(self.n_s, self.n_d)[0], LINK_CLASSES

    def link_names(self, links) -> list[str]:
        """Return a readable name of every link: ``"LL s0 3->5"`` (class, supernode, nodes) or ``"D 0->2 j1"``.

        Raises
        ------
        InvalidInputError
            If a link is not in ``[0, n_links)``.

        Examples
        --------
        >>> m = PercsMachine(3, 2)
        >>> m.link_names([3 * 31 + 4, 992 + 31 * 9 + 3, 3 * 992 + 3])
        ['LL s0 3->5', 'LR s1 9->3', 'D 0->2 j1']
        """
        ids = self._checked_links(links)
        codes = self.link_classes()[0][ids]
        n_l = self.n_s * L_LINKS_PER_SUPERNODE
        s, rest = np.divmod(ids, L_LINKS_PER_SUPERNODE)
        y, zz = np.divmod(rest, NODES_PER_SUPERNODE - 1)
        z = np.where(zz < y, zz, zz + 1)
        aj, bb = np.divmod(ids - n_l, max(self.n_s - 1, 1))
        a, j = np.divmod(aj, self.n_d)
        b = np.where(bb < a, bb, bb + 1)
        return [f"{LINK_CLASSES[c]} s{si} {yi}->{zi}" if link < n_l else f"D {ai}->{bi} j{ji}"
                for link, c, si, yi, zi, ai, bi, ji in zip(ids.tolist(), codes.tolist(), s.tolist(), y.tolist(),
                                                            z.tolist(), a.tolist(), b.tolist(), j.tolist())]

    def routes(self, src, dst) -> Routes:
        """Return the routes ``src[i] -> dst[i]`` of a batch of processor pairs, with the share of every link.

        Route ``i`` lists every link one of the pair's paths crosses, once, with the share of
        the pair's traffic it carries, summed over those paths (the routing and L model of
        the machine; module notes of :mod:`mpitaskmap.machines.percs.routing`), in the order
        the paths first reach it.  Processors of one node have an empty route.

        Parameters
        ----------
        src, dst : array_like of int
            Processor ids, one pair per entry.

        Returns
        -------
        Routes
            CSR over the link ids of :attr:`n_links`.

        Raises
        ------
        InvalidInputError
            On processor ids out of range or batches of different lengths.

        Notes
        -----
        Entries per pair: at most 15 inside a supernode (one striped segment; 61 in model
        "uniform"); under direct routing at most ``3 n_d`` in model "paper"; under indirect
        routing up to ``2 (n_s - 1) n_d`` D links plus the L links of the ``n_s n_d`` paths
        (about 1,300 in model "paper" at n_s = 32, n_d = 16).  The group paths of every
        distinct supernode pair come from :func:`~mpitaskmap.machines.two_level.group_paths`
        (O(n_s n_d) rows per pair under indirect routing), the compiled kernel
        :mod:`mpitaskmap._percs` expands them in O(entries + 35 n_s n_d) per indirect pair.

        Examples
        --------
        >>> m = PercsMachine(2, 1)
        >>> r = m.routes([0], [128])   # node 0 of SN 0 -> node 0 of SN 1: L hop 0->1, D link 0->1
        >>> [m.link_name(k) for k in r.links], r.fractions.tolist()
        (['LL s0 0->1', 'D 0->1 j0'], [1.0, 1.0])
        """
        src, dst = self._checked_pairs(src, dst)
        return _node_routes(src // PROCS_PER_NODE, dst // PROCS_PER_NODE, self.n_s, self.n_d, self.routing,
                            self.model)

    def link_loads(self, indptr, indices, weights, task_to_proc) -> LinkLoads:
        """Return the exact per-link loads under this machine's routing (fast path of the routes' loads).

        Gives what :meth:`Machine.link_loads <mpitaskmap.machines.Machine.link_loads>` derives
        from :meth:`routes` (messages exactly, data to rounding) without listing routes:
        Data(e) from aggregated demands and the closed forms of striping, Congestion(e) from
        the compiled kernel over distinct node pairs.  Inputs are trusted (validated by the
        metric functions).

        Notes
        -----
        O(n_edges log n_edges + n_s * 1024 + n_s^2 * n_d) for the data; the message count
        costs O(pairs * 17 * n_d) (direct) or O(pairs * 32 * n_d * W + n_s * W^2 * 16 * n_d)
        (indirect), ``pairs`` being the distinct communicating node pairs.

        Examples
        --------
        >>> from mpitaskmap.mappers.percs.patterns import halo_graph
        >>> g, m = halo_graph(16, 16), PercsMachine(2, 1)
        >>> loads = m.link_loads(g.indptr, g.indices, g.weights, np.arange(g.n_tasks))
        >>> loads.bottleneck(), loads.max_latency()
        ('D', 0.8)
        """
        data, messages = _aggregate_loads(indptr, indices, weights, task_to_proc, self.n_s, self.n_d,
                                          self.routing, self.model)
        codes, bandwidth = link_tables(self.n_s, self.n_d)
        return LinkLoads(data=data, messages=messages, bandwidth=bandwidth, link_class=codes,
                         class_names=LINK_CLASSES)

    # -- embedding -------------------------------------------------------------------
    def geometric_coords(self) -> np.ndarray:
        """Return the (supernode, drawer, node, core) embedding, (n_procs, 4) float64.

        Levels are scaled by :data:`EMBEDDING_SPACING` so that each coarser level spans
        more than every finer level together.
        """
        return self.locate(np.arange(self.n_procs)).astype(np.float64) * np.asarray(EMBEDDING_SPACING)


def is_percs_machine(machine) -> bool:
    """Whether ``machine`` is a PERCS system (the question the PERCS family asks before it applies).

    Examples
    --------
    >>> is_percs_machine(PercsMachine(2, 1)), is_percs_machine("percs")
    (True, False)
    """
    return isinstance(machine, PercsMachine)


def as_percs_machine(machine) -> PercsMachine:
    """Return ``machine`` if it is a PERCS system; raise otherwise.

    The one check for algorithms defined on PERCS only (the strategies of
    :mod:`mpitaskmap.mappers.percs` use its supernodes, drawers and D-link buckets), so that
    nothing above the machine layer asks a machine its class.

    Raises
    ------
    InvalidInputError
        If ``machine`` is not a machine, or not a :class:`PercsMachine`.

    Examples
    --------
    >>> as_percs_machine(PercsMachine(2, 1)).n_s
    2
    >>> from mpitaskmap.machines import torus_machine
    >>> as_percs_machine(torus_machine([4]))
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.InvalidInputError: machine: expected a PercsMachine; got TorusMachine
    """
    as_machine(machine)
    if not isinstance(machine, PercsMachine):
        raise InvalidInputError(f"machine: expected a PercsMachine; got {type(machine).__name__}")
    return machine
