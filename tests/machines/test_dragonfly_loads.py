"""A dragonfly's link loads and predicted time leg by leg (machines/dragonfly/loads.py) against the routes, and the
node-pair route table kept on the machine (Machine.node_pair_routes) that congestion refinement shares."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import mpitaskmap as mt
import mpitaskmap.machines.base as base_module
import mpitaskmap.machines.dragonfly.dragonfly as dragonfly_module
import mpitaskmap.machines.dragonfly.loads as loads_module
import mpitaskmap.mappers.graph.node_network as node_network
import mpitaskmap.mappers.graph.umpa as umpa
from mpitaskmap.errors import InvalidInputError, NotApplicableError
from mpitaskmap.machines import DragonflyMachine, Machine, two_level
from mpitaskmap.machines.base import NodePairRoutes
from mpitaskmap.machines.dragonfly import DRAGONFLY_GROUP_RULE
from mpitaskmap.machines.dragonfly.loads import group_tables, node_pair_route_entries, routed_traffic
from mpitaskmap.machines.dragonfly.presets import dragonfly_machine
from mpitaskmap.mapping import Mapping

ROUTINGS = ("minimal", "ecmp", "valiant")


class Reference(DragonflyMachine):
    """The same machine with the base's routes-based loads and route table (the generic computation)."""

    _routed_traffic = Machine._routed_traffic
    node_pair_routes = Machine.node_pair_routes


def reference(m: DragonflyMachine) -> Reference:
    switches = m.switches_per_group if m.wiring == "all-to-all" else (m.rows, m.columns)
    return Reference(m.n_groups, switches, m.nodes_per_switch, m.node_ids, global_links=m.global_links,
                     global_ports=m.global_ports, bandwidth=m.class_bandwidths(), routing=m.routing)


def traffic(m, *args):
    """routed_traffic with the machine's group-level rule."""
    return routed_traffic(m, DRAGONFLY_GROUP_RULE[m.routing], *args)


def entries(m):
    """node_pair_route_entries with the machine's group-level rule."""
    return node_pair_route_entries(m, DRAGONFLY_GROUP_RULE[m.routing])


def csr(src, dst, weights, n_tasks):
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n_tasks + 1, dtype=np.int64)
    np.cumsum(np.bincount(np.asarray(src), minlength=n_tasks), out=indptr[1:])
    return indptr, np.asarray(dst)[order], np.asarray(weights, dtype=np.float64)[order]


def assert_same_traffic(m, indptr, indices, weights, procs, overlap_weight):
    want = Machine._routed_traffic(m, indptr, indices, weights, procs, overlap_weight=overlap_weight)
    got = traffic(m, indptr, indices, weights, procs, overlap_weight)
    np.testing.assert_allclose(got.data, want.data, rtol=1e-12, atol=1e-12)
    assert np.array_equal(got.messages, want.messages)
    if overlap_weight is None:
        assert got.slowest is None
    else:
        assert np.array_equal(np.isfinite(got.slowest), np.isfinite(want.slowest))
        crossed = np.isfinite(want.slowest)
        np.testing.assert_allclose(got.slowest[crossed], want.slowest[crossed], rtol=1e-12)


def random_machine(rng, routing, wiring):
    G = int(rng.integers(3, 7))
    switches = int(rng.integers(1, 5)) if wiring == "all-to-all" else (int(rng.integers(1, 4)), int(rng.integers(2, 4)))
    S = switches if isinstance(switches, int) else switches[0] * switches[1]
    h, n = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    ports = math.ceil(G * h / S) + int(rng.integers(0, 2))  # sometimes two links of a pair on one switch
    N = G * S * n
    nodes = rng.choice(N, size=int(rng.integers(1, min(N, 24) + 1)), replace=False)
    return DragonflyMachine(G, switches, n, np.repeat(nodes, int(rng.integers(1, 3))), global_links=h,
                            global_ports=ports, routing=routing)


# -- hand-computed --------------------------------------------------------------------------------------------
def test_valiant_loads_hand_computed_a_message_counts_once_per_link():
    # 3 groups of 3 switches, 2 nodes each, one link per pair (switch b of group a holds a -> b): nodes 0, 1
    # (g0 s0) send 4 and 2 to nodes 17, 16 (g2 s2), both through g1: local g0 s0->s1, global g0->g1 (arrives
    # at g1 s0), local g1 s0->s2, global g1->g2 (arrives at g2 s1), local g2 s1->s2: 7 links a message
    m = DragonflyMachine(3, 3, 2, [0, 1, 16, 17], routing="valiant")
    indptr, indices, weights = csr([0, 1], [3, 2], [4.0, 2.0], 4)
    t = traffic(m, indptr, indices, weights, np.arange(4), 1.0)
    shared = ["local g0 s0->s1", "global g0->g1 #0", "local g1 s0->s2", "global g1->g2 #0", "local g2 s1->s2"]
    names = m.link_names(np.flatnonzero(t.messages))
    assert sorted(names) == sorted(shared + ["node 0 up", "node 1 up", "node 16 down", "node 17 down"])
    by_name = dict(zip(names, zip(t.data[t.messages > 0], t.messages[t.messages > 0], t.slowest[t.messages > 0])))
    # the weights add up, the messages count once each; latency 7 links x min(1, 1 / w): 1.75 and 3.5
    assert all(by_name[k] == (6.0, 2.0, 3.5) for k in shared)
    assert by_name["node 0 up"] == (4.0, 1.0, 1.75) and by_name["node 16 down"] == (2.0, 1.0, 3.5)


def test_ecmp_loads_hand_computed_halves_and_unions():
    # the ecmp machine of tests/machines/test_dragonfly.py (h = 2): node 0 (g0 s0) -> node 14 (g2 s1) splits over j0
    # (local 36, global 56, arrives g2 s0, local 48) and j1 (local 37, global 57, arrives g2 s1 itself)
    m = DragonflyMachine(3, 3, 2, [0, 14], global_links=2, routing="ecmp")
    indptr, indices, weights = csr([0], [1], [8.0], 2)
    t = traffic(m, indptr, indices, weights, np.arange(2), math.inf)
    assert {int(k): float(t.data[k]) for k in np.flatnonzero(t.data)} == {
        0: 8.0, 32: 8.0, 36: 4.0, 37: 4.0, 56: 4.0, 57: 4.0, 48: 4.0}
    assert np.flatnonzero(t.messages).tolist() == [0, 32, 36, 37, 48, 56, 57]
    # expected length 2 + (1 + 1 + 1 + 0) / 2 + 1 = 4.5 links (the route's fractions sum), every message full weight
    assert set(t.slowest[np.isfinite(t.slowest)].tolist()) == {4.5}


def test_group_tables_hand_computed():
    # three_groups of tests/machines/test_dragonfly.py, Valiant: 0 -> 2 passes g1 only; it leaves g0 on the links to g1
    # (j0 on s0, j1 on s2) and reaches g2 on the links from g1 (j0 on s0, j1 on s2), half each
    t = group_tables(DragonflyMachine(3, 3, 2, [0], global_links=2, routing="valiant"), "valiant")
    assert t.lanes == 1 and t.through[0, 2].tolist() == [0.0, 1.0, 0.0]
    assert t.departure[0, 0, 2].tolist() == [0.5, 0.0, 0.5] and t.arrival[0, 0, 2].tolist() == [0.5, 0.0, 0.5]
    # group legs: 2 global links + the local hop in g1 from (1->0: s0 or s1) to (1->2: s1 or s2): 3 of 4 pairs
    assert t.group_hops[0, 0, 2] == pytest.approx(2.75)
    # minimal: one lane per link, the node pair's (u + v) mod 2
    t = group_tables(DragonflyMachine(3, 3, 2, [0], global_links=2), "minimal")
    assert t.lanes == 2 and t.departure[:, 0, 2].tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert t.through.sum() == 0 and t.group_hops[:, 0, 2].tolist() == [1.0, 1.0]


# -- against the routes -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("wiring", ["all-to-all", "row-column"])
@pytest.mark.parametrize("routing", ROUTINGS)
def test_equal_to_the_routes_on_random_graphs_and_allocations(routing, wiring):
    rng = np.random.default_rng(sum(map(ord, routing + wiring)))
    for _ in range(25):
        m = random_machine(rng, routing, wiring)
        n_tasks, n_edges = int(rng.integers(1, 30)), int(rng.integers(0, 80))
        procs = rng.choice(m.n_procs, size=n_tasks, replace=n_tasks > m.n_procs)
        indptr, indices, weights = csr(rng.integers(0, n_tasks, n_edges), rng.integers(0, n_tasks, n_edges),
                                       rng.random(n_edges) * 10, n_tasks)
        for overlap_weight in (None, 0.7, math.inf):
            assert_same_traffic(m, indptr, indices, weights, procs, overlap_weight)


@pytest.mark.parametrize("routing", ROUTINGS)
@pytest.mark.parametrize("switches", [4, (2, 3)])
def test_link_loads_and_link_time_equal_the_generic_computation(routing, switches):
    m = dragonfly_machine(n_groups=5, switches=switches, nodes_per_switch=2, global_links=2, nodes=18, ppn=2, seed=4,
                          routing=routing)
    ref = reference(m)
    g = mt.TaskGraph.stencil([6, 6], periodic=True, weight=1.0)
    g2 = mt.TaskGraph.from_edges(np.arange(36), (np.arange(36) * 7) % 36, np.arange(36) + 1.0, n_tasks=36)
    rng = np.random.default_rng(2)
    for graph in (g, g2):
        procs = rng.permutation(m.n_procs)[: graph.n_tasks]
        args = (graph.indptr, graph.indices, graph.weights, procs)
        # the fast path itself (the machine's own method uses it only under "valiant" or long "ecmp" exchanges)
        want = ref.link_loads(*args)
        got = traffic(m, *args)
        np.testing.assert_allclose(got.data, want.data, rtol=1e-12, atol=1e-12)
        assert np.array_equal(np.rint(got.messages).astype(np.int64), want.messages)
        loads = m.link_loads(*args)
        np.testing.assert_allclose(loads.data, want.data, rtol=1e-12, atol=1e-12)
        assert np.array_equal(loads.messages, want.messages) and loads.class_names == want.class_names
        for overlap_weight in (math.inf, 2.5):
            kw = dict(seconds_per_weight=1e-9, hop_latency=1e-7, overlap_weight=overlap_weight)
            seconds, link = m.link_time(*args, **kw)
            ref_seconds, ref_link = ref.link_time(*args, **kw)
            assert seconds == pytest.approx(ref_seconds, rel=1e-12)
            # ties go to the lowest link id: the same link, or one the reference values equally up to rounding
            generic = Machine._routed_traffic(ref, *args, overlap_weight=overlap_weight)
            value = generic.data * 1e-9 / ref.link_bandwidths() + 1e-7 * generic.slowest
            assert value[ref_link] == ref_seconds
            assert link == ref_link or value[link] == pytest.approx(ref_seconds, rel=1e-12)


@pytest.mark.parametrize("routing", ROUTINGS)
def test_traffic_inside_groups_only_and_on_one_node(routing):
    # inside one group every routing takes the local hops; one node: no link at all
    m = DragonflyMachine(4, (2, 3), 2, np.repeat([12, 13, 14, 20, 23], 2), global_links=2, routing=routing)
    assert len(set(m.locate(range(m.n_procs))[:, 0].tolist())) == 1  # all in group 1
    rng = np.random.default_rng(5)
    indptr, indices, weights = csr(rng.integers(0, 10, 40), rng.integers(0, 10, 40), rng.random(40), 10)
    for overlap_weight in (None, 0.5, math.inf):
        assert_same_traffic(m, indptr, indices, weights, np.arange(10), overlap_weight)
    t = traffic(m, indptr, indices, weights, np.arange(10))
    assert t.data[m.link_classes()[0] == 3].sum() == 0  # no global link
    one = DragonflyMachine(4, (2, 3), 2, [7, 7, 7], routing=routing)
    indptr, indices, weights = csr([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], 3)
    t = traffic(one, indptr, indices, weights, np.arange(3), 1.0)
    assert not t.data.any() and not t.messages.any() and not np.isfinite(t.slowest).any()
    assert one.link_time(indptr, indices, weights, np.arange(3), seconds_per_weight=1.0, hop_latency=1.0) == (0.0, -1)


def test_dense_and_sparse_allocations_take_both_ways_of_the_latency():
    # every node of the machine and all-to-all traffic: every start key has a message (group by group); a few
    # nodes: a few keys (one by one) -- the same values either way
    full = DragonflyMachine(4, (2, 2), 1, np.arange(16), global_links=2, routing="valiant")
    src, dst = np.divmod(np.arange(16 * 16), 16)
    keep = src != dst
    indptr, indices, weights = csr(src[keep], dst[keep], 1.0 + (src[keep] * dst[keep]) % 5, 16)
    assert_same_traffic(full, indptr, indices, weights, np.arange(16), 3.0)
    sparse = DragonflyMachine(8, (2, 3), 2, [0, 95], global_links=2, routing="valiant")
    indptr, indices, weights = csr([0, 1], [1, 0], [1.0, 2.0], 2)
    assert_same_traffic(sparse, indptr, indices, weights, np.arange(2), 3.0)


def test_valiant_is_the_product_of_its_group_paths_and_minimal_legs():
    # the decomposition of the module notes: group_paths with h links = group_paths with one link (which
    # groups, what share) x each global leg spread evenly over the h links as "minimal" spreads it
    G, h = 6, 3
    a, b = np.divmod(np.arange(G * G), G)
    a, b = a[a != b], b[a != b]
    full = two_level.group_paths(a, b, G, h, "valiant")
    skeleton = two_level.group_paths(a, b, G, 1, "valiant")
    leg = two_level.group_paths([0], [1], G, h, "minimal")
    assert leg.first.tolist() == list(range(h)) and np.allclose(leg.share, 1 / h)
    expected = sorted((p, c, j1, j2, s / h / h) for p, c, s in zip(skeleton.pair, skeleton.via, skeleton.share)
                      for j1 in range(h) for j2 in range(h))
    got = sorted(zip(full.pair, full.via, full.first, full.second, full.share))
    assert [x[:4] for x in got] == [x[:4] for x in expected]
    assert np.allclose([x[4] for x in got], [x[4] for x in expected], rtol=1e-15)


def test_tables_follow_a_change_of_the_shared_group_paths(monkeypatch):
    # as the machine's routes do (tests/machines/test_dragonfly.py): a changed rule rebuilds the cached tables
    m = DragonflyMachine(4, 3, 1, range(12), routing="valiant")
    before = loads_module._cached_tables(m, "valiant")
    assert loads_module._cached_tables(m, "valiant")[0] is before[0]  # kept while the rule stays
    shared = two_level.group_paths
    monkeypatch.setattr(two_level, "group_paths", lambda *args, **kw: shared(*args, **kw))
    assert loads_module._cached_tables(m, "valiant")[0] is not before[0]


# -- which machines use it -----------------------------------------------------------------------------------
@pytest.mark.parametrize("routing, chunk, fast", [("valiant", 1 << 22, True), ("minimal", 1, False),
                                                  ("ecmp", 1 << 22, False), ("ecmp", 100, True)])
def test_the_machine_uses_it_where_routes_are_long(monkeypatch, routing, chunk, fast):
    # "valiant" always; "ecmp" once the graph's edges x (2 + 5 h) pass ROUTE_CHUNK_ENTRIES (here 12 x 12 = 144)
    calls = []
    monkeypatch.setattr(loads_module, "routed_traffic", lambda *a: calls.append(a) or routed_traffic(*a))
    monkeypatch.setattr(dragonfly_module, "ROUTE_CHUNK_ENTRIES", chunk)
    m = DragonflyMachine(3, 3, 2, range(18), global_links=2, routing=routing)
    g = mt.TaskGraph.stencil([12], periodic=True)  # 24 edges
    procs = np.arange(12) + 6
    loads = m.link_loads(g.indptr, g.indices, g.weights, procs)
    assert bool(calls) == fast
    assert np.allclose(loads.data, reference(m).link_loads(g.indptr, g.indices, g.weights, procs).data)


# -- the node-pair route table ---------------------------------------------------------------------------------
@pytest.mark.parametrize("routing", ["ecmp", "valiant"])
def test_route_entries_counted_without_routing_equal_the_routes(routing):
    rng = np.random.default_rng(7)
    for wiring in ("all-to-all", "row-column"):
        for _ in range(15):
            m = random_machine(rng, routing, wiring)
            view = m.node_view()
            rep, n = view.representative, view.n_nodes
            assert entries(m) == m.routes(np.repeat(rep, n), np.tile(rep, n)).links.size
    with pytest.raises(InvalidInputError, match="'minimal' route's entries are its hops"):
        node_pair_route_entries(DragonflyMachine(3, 3, 2, [0, 17]), "minimal")


def test_node_pair_routes_are_built_once_and_kept_on_the_machine(monkeypatch):
    m = dragonfly_machine(n_groups=4, switches=(2, 2), nodes_per_switch=2, global_links=2, nodes=9, seed=2,
                          routing="valiant")
    calls = []
    routes = DragonflyMachine.routes
    monkeypatch.setattr(DragonflyMachine, "routes", lambda self, s, d: calls.append(len(s)) or routes(self, s, d))
    table = m.node_pair_routes(10 ** 6)
    rep, n = m.node_view().representative, m.n_nodes
    whole = routes(m, np.repeat(rep, n), np.tile(rep, n))
    assert table.complete and table.entries == whole.links.size == entries(m)
    assert all(np.array_equal(x, y) for x, y in zip(table.routes, whole))
    assert not any(arr.flags.writeable for arr in table.routes)  # shared: read-only
    assert sum(calls) == n * n
    assert m.node_pair_routes(10 ** 6) is table and sum(calls) == n * n  # kept: not routed again
    assert m.node_pair_routes(table.entries - 1) == (None, table.entries, True)
    assert "_node_pair_routes" not in pickle.loads(pickle.dumps(m)).__dict__  # derived data: not pickled


def test_a_table_over_the_limit_stops_routing_and_is_remembered(monkeypatch):
    m = reference(dragonfly_machine(n_groups=4, switches=3, nodes_per_switch=2, nodes=10, seed=1, global_links=2,
                                    routing="ecmp"))
    total = entries(m)
    calls = []
    routes = DragonflyMachine.routes
    monkeypatch.setattr(DragonflyMachine, "routes", lambda self, s, d: calls.append(len(s)) or routes(self, s, d))
    monkeypatch.setattr(base_module, "ROUTE_CHUNK_ENTRIES", 30)  # a source node or two a chunk
    refused = m.node_pair_routes(total // 3)
    assert refused.routes is None and not refused.complete and total // 3 < refused.entries < total
    assert sum(calls) < m.n_nodes ** 2  # stopped before routing every pair
    routed = sum(calls)
    assert m.node_pair_routes(total // 4) == refused and sum(calls) == routed  # a lower limit: refused at once
    table = m.node_pair_routes(total)  # a larger limit: routed again, in chunks
    assert table.complete and table.entries == total and sum(calls) == routed + m.n_nodes ** 2
    # in chunks: the same table as one batch
    rep, n = m.node_view().representative, m.n_nodes
    assert all(np.array_equal(x, y) for x, y in zip(table.routes, routes(m, np.repeat(rep, n), np.tile(rep, n))))
    # counted to the end: the exact count
    assert reference(m).node_pair_routes(total - 1) == (None, total, True)


def test_dragonfly_refuses_a_too_big_table_without_routing(monkeypatch):
    m = DragonflyMachine(5, (2, 2), 1, range(20), global_links=2, routing="valiant")
    calls = []
    monkeypatch.setattr(DragonflyMachine, "routes", lambda self, s, d: calls.append(1))
    total = entries(m)
    assert m.node_pair_routes(total - 1) == NodePairRoutes(None, total, True) and not calls


def test_congestion_refinements_share_the_table_and_big_valiant_tables_skip(monkeypatch):
    m = dragonfly_machine(n_groups=4, switches=(2, 2), nodes_per_switch=2, global_links=2, nodes=8, ppn=2, seed=5,
                          routing="valiant")
    g = mt.TaskGraph.stencil([4, 4], periodic=True)
    calls = []
    routes = DragonflyMachine.routes
    monkeypatch.setattr(DragonflyMachine, "routes", lambda self, s, d: calls.append(len(s)) or routes(self, s, d))
    start = Mapping(np.arange(16), m, g)
    first = umpa.refine_congestion(start)
    second = umpa.refine_congestion(start, objective="max_messages")
    assert sum(calls) == m.n_nodes ** 2  # one table for both
    assert first.metric("latency") <= start.metric("latency")
    assert second.metric("max_messages") <= start.metric("max_messages")
    # over the budget: NotApplicableError from the exact count, before any routing
    other = dragonfly_machine(n_groups=4, switches=(2, 2), nodes_per_switch=2, global_links=2, nodes=8, ppn=2,
                              seed=6, routing="valiant")
    calls.clear()
    n_entries = entries(other)
    monkeypatch.setattr(node_network, "MAX_ROUTE_ENTRIES", n_entries - 1)
    with pytest.raises(NotApplicableError, match=f"they have {n_entries} route entries > MAX_ROUTE_ENTRIES"):
        umpa.refine_congestion(Mapping(np.arange(16), other, g))
    assert not calls


@pytest.mark.parametrize("routing", ["ecmp", "valiant"])
@pytest.mark.parametrize("switches", [4, (2, 3)])
def test_route_entries_count_every_pairs_merged_route(routing, switches):
    # every ordered pair of a random allocation: the count equals the length of the route the machine builds
    from mpitaskmap.machines.dragonfly.loads import route_entries

    rng = np.random.default_rng(11)
    for groups, links in ((5, 1), (4, 2)):
        m = dragonfly_machine(n_groups=groups, switches=switches, nodes_per_switch=2, global_links=links, nodes=12,
                              seed=int(rng.integers(100)),
                              routing=routing)
        src, dst = np.divmod(np.arange(m.n_procs ** 2), m.n_procs)
        want = np.diff(m.routes(src, dst).indptr)
        got = route_entries(m, DRAGONFLY_GROUP_RULE[routing], m.node_ids[src].astype(np.int64),
                            m.node_ids[dst].astype(np.int64))
        assert got.tolist() == want.tolist()
        assert got.sum() == entries(m)  # the all-pairs count is their sum
        assert m.exchange_route_entries(src, dst, np.ones(src.size)).tolist() == want.tolist()


def test_exchange_route_entries_under_ugal_follow_each_messages_choice():
    m = dragonfly_machine(n_groups=6, switches=4, nodes_per_switch=2, nodes=24, seed=4, routing="ugal")
    rng = np.random.default_rng(2)
    src, dst = rng.integers(0, m.n_procs, 200), rng.integers(0, m.n_procs, 200)
    volume = rng.uniform(1.0, 50.0, 200)
    routed = m.exchange_routes(src, dst, volume)
    got = m.exchange_route_entries(src, dst, volume)
    assert got.tolist() == np.diff(routed.indptr).tolist()
    assert (got > 7).any() and (got <= 7).any()  # some pairs detour, others stay minimal
    assert dragonfly_machine(n_groups=6, nodes=24, seed=4).exchange_route_entries(src, dst, volume) is None
