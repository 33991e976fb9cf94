"""The network contract of the machine base: links, classes, routes, and the loads derived from them.

Every machine kind with a link model gives n_links, link_bandwidths, link_classes and
routes; the base derives link loads, predicted time, route() and link names from them.  A
kind's compiled fast path must give what the generic path gives (checked here for the
torus; tests/machines/test_percs_routing.py does PERCS, tests/test_ring_network.py a kind defined in
a test).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpitaskmap import TaskGraph
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import FlatMachine, LinkLoads, Machine, Routes, TorusMachine, torus_machine


def _random_case(seed):
    rng = np.random.default_rng(seed)
    dims = [int(d) for d in rng.integers(2, 6, size=rng.integers(1, 4))]
    wrap = [bool(b) for b in rng.integers(0, 2, size=len(dims))]
    bandwidth = [rng.uniform(0.5, 2.0, size=d) for d in dims]
    m = torus_machine(dims, wrap=wrap, bandwidth=bandwidth, cores_per_node=int(rng.integers(1, 3)))
    n = m.n_procs
    src, dst = rng.integers(0, n, 60), rng.integers(0, n, 60)
    g = TaskGraph.from_edges(src, dst, rng.uniform(0, 3e3, 60), n_tasks=n)
    return rng, m, g, rng.permutation(n).astype(np.intp)


@pytest.mark.parametrize("seed", range(10))
def test_torus_fast_paths_equal_the_generic_path(seed):
    rng, m, g, ttp = _random_case(seed)
    fast = m.link_loads(g.indptr, g.indices, g.weights, ttp)
    generic = Machine.link_loads(m, g.indptr, g.indices, g.weights, ttp)
    assert np.array_equal(fast.messages, generic.messages)
    assert np.allclose(fast.data, generic.data, rtol=1e-13, atol=0)
    assert np.array_equal(fast.link_class, generic.link_class) and fast.class_names == generic.class_names
    for overlap in (128.0, 1e3, math.inf):
        kw = dict(seconds_per_weight=1e-9, hop_latency=1e-7, overlap_weight=overlap)
        t_fast, l_fast = m.link_time(g.indptr, g.indices, g.weights, ttp, **kw)
        t_gen, l_gen = Machine.link_time(m, g.indptr, g.indices, g.weights, ttp, **kw)
        assert t_gen == pytest.approx(t_fast, rel=1e-6) and l_gen == l_fast


def test_routes_are_csr_with_unit_fractions_on_a_torus():
    m = TorusMachine([[0, 0], [3, 1], [1, 0], [0, 0]], dims=[4, 4])
    r = m.routes([0, 1, 0], [1, 0, 3])
    assert isinstance(r, Routes)
    # 0 -> 1: X- from (0,0) (link 1), then Y+ from (3,0) (router 3: 3*4 + 2); 1 -> 0: X+ from (3,1), Y- from (0,1)
    assert r.indptr.tolist() == [0, 2, 4, 4] and r.links.tolist() == [1, 14, 28, 19]
    assert r.fractions.tolist() == [1.0] * 4 and r.lengths.tolist() == [2.0, 2.0, 0.0]
    assert m.route(0, 1) == [("X-", 1), ("Y+", 14)]
    assert m.link_name(14) == "l14_Y+"


def test_routes_reject_bad_pairs():
    m = torus_machine([4])
    with pytest.raises(InvalidInputError, match="routes: src has 2 entries, dst 1"):
        m.routes([0, 1], [2])
    with pytest.raises(InvalidInputError, match="dst"):
        m.routes([0], [9])
    with pytest.raises(InvalidInputError, match=r"link: must lie in \[0, 8\); got 8"):
        m.link_name(8)


def test_a_machine_without_links_says_so_everywhere():
    m = FlatMachine([0, 0, 1])
    assert m.n_links == 0 and not m.has_link_model
    g = TaskGraph.from_edges([0], [2], [1.0], n_tasks=3)
    for call in (lambda: m.routes([0], [2]), m.link_bandwidths, m.link_classes,
                 lambda: m.link_loads(g.indptr, g.indices, g.weights, np.arange(3))):
        with pytest.raises(InvalidInputError, match="'flat' has no link model"):
            call()


def test_split_routes_count_data_by_fraction_and_messages_once():
    class Diamond(Machine):
        """Two nodes joined by two parallel links (0 and 1), traffic split 3:1; link 2 back."""

        name = "diamond"

        def hops(self, src, dst):
            return (np.asarray(src) != np.asarray(dst)).astype(np.int64)

        def geometric_coords(self):
            return np.asarray(self.node_ids, dtype=np.float64)[:, None]

        @property
        def n_links(self):
            return 3

        def link_bandwidths(self):
            return np.array([1.0, 1.0, 2.0])

        def link_classes(self):
            return np.array([0, 0, 1]), ("fwd", "back")

        def routes(self, src, dst):
            src, dst = self._checked_pairs(src, dst)
            links, fracs, ptr = [], [], [0]
            for a, b in zip(src.tolist(), dst.tolist()):
                if a < b:
                    links += [0, 1]
                    fracs += [0.75, 0.25]
                elif a > b:
                    links += [2]
                    fracs += [1.0]
                ptr.append(len(links))
            return Routes(np.array(ptr), np.array(links, dtype=np.int64), np.array(fracs))

    m = Diamond(4, node_ids=[0, 0, 1, 1])  # routes are per node: through processors 0 and 2
    g = TaskGraph.from_edges([0, 1, 2], [2, 3, 0], [8.0, 4.0, 2.0], n_tasks=4)
    loads = m.link_loads(g.indptr, g.indices, g.weights, np.arange(4))
    assert loads.data.tolist() == [9.0, 3.0, 2.0] and loads.messages.tolist() == [2, 2, 1]
    assert loads.max_latency() == 9.0 and loads.bottleneck() == "fwd"
    rows = {r["link"]: r for r in loads.by_class()}
    assert rows["fwd"] == {"link": "fwd", "n_links": 2, "max_data": 9.0, "total_data": 12.0, "max_latency": 9.0,
                           "max_messages": 2, "used_links": 2}
    # predicted time: link 0 carries 9 units at bw 1 -> 9 s, plus its route's latency: the route
    # 0 -> 1 crosses 0.75 + 0.25 = 1 link on average
    seconds, link = m.link_time(g.indptr, g.indices, g.weights, np.arange(4), seconds_per_weight=1.0,
                                hop_latency=0.5)
    assert (seconds, link) == (9.5, 0)
    assert m.route(0, 2) == [("fwd", 0), ("fwd", 1)]


def test_bottleneck_ties_go_to_the_class_listed_last():
    loads = LinkLoads(np.array([1.0, 2.0, 2.0]), np.array([1, 1, 1]), np.array([1.0, 1.0, 1.0]),
                      np.array([0, 1, 2]), ("LL", "LR", "D"))
    assert loads.bottleneck() == "D"
    loads = LinkLoads(np.array([1.0, 2.0, 1.0]), np.array([1, 1, 1]), np.array([1.0, 1.0, 1.0]),
                      np.array([0, 1, 2]), ("LL", "LR", "D"))
    assert loads.bottleneck() == "LR"


def test_routers_default_to_one_per_node_and_the_torus_shares_them():
    # the base: router = the node's index in the node view (node ids 2 and 7 -> routers 0 and 1)
    flat = FlatMachine([7, 2, 7, 2, 2])
    assert flat.router_ids().tolist() == [1, 0, 1, 0, 0] and flat.n_routers == 2
    flat.router_ids()[0] = 5  # a new array on every call: the cached node view is untouched
    assert flat.router_ids()[0] == 1
    # a torus overrides both: two nodes on each of the 4 routers of the whole ring, 2 allocated
    torus = TorusMachine([[3], [3], [1]], dims=[4], node_ids=[0, 1, 2])
    assert torus.router_ids().tolist() == [3, 3, 1] and torus.n_routers == 4


@pytest.mark.parametrize("chunk", [1, 5, 1 << 22])
def test_the_generic_path_gives_the_same_loads_whatever_its_chunk_of_routes(monkeypatch, chunk):
    import mpitaskmap.machines.base as base

    monkeypatch.setattr(base, "ROUTE_CHUNK_ENTRIES", chunk)
    _, m, g, ttp = _random_case(3)
    fast = m.link_loads(g.indptr, g.indices, g.weights, ttp)
    generic = Machine.link_loads(m, g.indptr, g.indices, g.weights, ttp)
    assert np.array_equal(fast.messages, generic.messages) and np.allclose(fast.data, generic.data, rtol=1e-13)
    kw = dict(seconds_per_weight=1e-9, hop_latency=1e-7, overlap_weight=128.0)
    assert Machine.link_time(m, g.indptr, g.indices, g.weights, ttp, **kw)[1] == \
        m.link_time(g.indptr, g.indices, g.weights, ttp, **kw)[1]
