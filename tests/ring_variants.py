"""Variants of the test ring (``test_ring_network.RingMachine``) for the graph-mapper tests,
and the exact recount of link loads they are checked against.

* :class:`SplitRing`: traffic between opposite routers split half and half over both ways
  round (a machine whose routes have fractions), clockwise links twice as fast;
* :class:`GridRing`: the ring declaring a router grid (a 1-D torus: the same routers, link
  ids and routes), without the router CSR in its node view;
* :class:`GridRingWithRouters`: with it -- what the graph mappers' torus path asks for;
* :func:`small_ring`: the graph-mapper tests' ring, 6 routers of 2 nodes, plain or split.
"""

from __future__ import annotations

import numpy as np

from mpitaskmap import metrics
from mpitaskmap.machines import NodeView, Routes
from test_ring_network import RingMachine

__all__ = ["RingMachine", "SplitRing", "GridRing", "GridRingWithRouters", "small_ring", "brute_loads",
           "assert_loads_are_a_recount"]


class SplitRing(RingMachine):
    """The ring with the traffic between opposite routers split over both ways round."""

    name = "split ring"

    def link_bandwidths(self) -> np.ndarray:
        return np.where(np.arange(self.n_links) % 2 == 0, 2.0, 1.0)

    def routes(self, src, dst) -> Routes:
        src, dst = self._checked_pairs(src, dst)
        n = self.ring_size
        ptr, links, fractions = [0], [], []
        for a, b in zip(self.router_of_proc[src].tolist(), self.router_of_proc[dst].tolist()):
            cw = (b - a) % n
            ways = [(cw, 0)] if 2 * cw < n else [(n - cw, 1)] if 2 * cw > n else [(cw, 0), (n - cw, 1)]
            for steps, backwards in ways:  # link 2 r leaves router r clockwise, 2 r + 1 counter-clockwise
                links += [2 * ((a - k if backwards else a + k) % n) + backwards for k in range(steps)]
                fractions += [1.0 / len(ways)] * steps
            ptr.append(len(links))
        return Routes(np.array(ptr, dtype=np.int64), np.array(links, dtype=np.int64), np.array(fractions))


class GridRing(RingMachine):
    """The ring declaring a router grid (router_coords, dims, wrap of a 1-D torus)."""

    has_router_grid = True

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.router_coords = self.router_of_proc[:, None].astype(np.int64)
        self.dims, self.wrap = np.array([self.ring_size]), np.array([True])


class GridRingWithRouters(GridRing):
    """The grid ring whose node view also has the router CSR."""

    def _build_node_view(self) -> NodeView:
        view = NodeView(self)
        view._set_routers(self.router_ids(), self.n_routers)
        return view


def small_ring(split: bool = False, cores: int = 2) -> RingMachine:
    """The ring of 6 routers with 2 nodes each of ``cores`` cores; split: a :class:`SplitRing`."""
    return (SplitRing if split else RingMachine)(6, nodes_per_router=2, cores=cores)


def brute_loads(g, m, procs):
    """Data(e) and Congestion(e), message by message along ``m.routes`` (no grouping, no kernel)."""
    data, msgs = np.zeros(m.n_links), np.zeros(m.n_links, dtype=np.int64)
    for t, u, w in zip(g.sources().tolist(), g.indices.tolist(), g.weights.tolist()):
        r = m.routes([procs[t]], [procs[u]])
        for link, fraction in zip(r.links.tolist(), r.fractions.tolist()):
            data[link] += w * fraction
            msgs[link] += 1
    return data, msgs


def assert_loads_are_a_recount(g, m, nn, task_node, data, msgs):
    """The graph kernel's loads ``data``/``msgs`` for the node assignment ``task_node``
    (NodeNetwork ``nn``) equal metrics.link_loads and the brute force, exactly."""
    procs = nn.task_procs(task_node)
    fresh = metrics.link_loads(g, m, procs)
    brute_data, brute_msgs = brute_loads(g, m, procs)
    assert np.array_equal(msgs, fresh.messages) and np.array_equal(msgs, brute_msgs)
    assert np.array_equal(data, fresh.data) and np.array_equal(data, brute_data)
