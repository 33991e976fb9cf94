"""The dragonfly machine: wiring, minimal and Valiant routes, link loads, presets; hand-computed on small machines."""

from __future__ import annotations

import numpy as np
import pytest

import mpitaskmap as mt
import mpitaskmap.machines.dragonfly.dragonfly as dragonfly_module
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import DragonflyMachine, PercsMachine
from mpitaskmap.machines.dragonfly import group_paths
from mpitaskmap.machines.dragonfly.presets import (DRAGONFLY_PRESETS, dragonfly_machine, dragonfly_preset,
                                                   scattered_group_nodes)
from mpitaskmap.machines.percs.network import L_LINKS_PER_SUPERNODE
from mpitaskmap.metrics import link_loads


def three_groups(routing="minimal", proc_nodes=range(18)):
    # G = 3 groups of S = 3 switches (all-to-all), n = 2 nodes each (node v = (3 g + s) 2 + k), h = 2 global links
    # per pair, p = ceil(6 / 3) = 2 ports per switch: port 3 j + b on switch (3 j + b) // 2, so
    #   g0: (0->1, j0) s0, (0->1, j1) s2, (0->2, j0) s1, (0->2, j1) s2
    #   g1: (1->0, j0) s0, (1->0, j1) s1, (1->2, j0) s1, (1->2, j1) s2
    #   g2: (2->0, j0) s0, (2->0, j1) s1, (2->1, j0) s0, (2->1, j1) s2
    # links: up v = v, down v = 18 + v; local (3 g + s) 2 + t' + 36 (36..53); global (2 a + b') 2 + j + 54 (54..65)
    return DragonflyMachine(3, 3, 2, proc_nodes, global_links=2, routing=routing)


def as_dict(routes, i=0):
    lo, hi = routes.indptr[i], routes.indptr[i + 1]
    return dict(zip(routes.links[lo:hi].tolist(), routes.fractions[lo:hi].tolist()))


def test_numbering_and_the_absolute_global_arrangement():
    m = three_groups()
    assert (m.n_network_nodes, m.global_ports, m.n_links) == (18, 2, 66)
    a = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    b = [1, 1, 2, 2, 0, 0, 2, 2, 0, 0, 1, 1]
    j = [0, 1] * 6
    assert m.global_switch(a, b, j).tolist() == [0, 2, 1, 2, 0, 1, 1, 2, 0, 1, 0, 2]
    assert m.link_names([0, 18, 36, 37, 48, 56, 57, 61]) == [
        "node 0 up", "node 0 down", "local g0 s0->s1", "local g0 s0->s2", "local g2 s0->s1",
        "global g0->g2 #0", "global g0->g2 #1", "global g1->g2 #1"]
    codes, names = m.link_classes()
    assert names == ("node", "local", "global") and np.bincount(codes).tolist() == [36, 18, 12]
    # SimGrid's DRAGONFLY rule with h = p = 1: the link to group b leaves switch b
    single = DragonflyMachine(4, 4, 1, [0])
    assert single.global_ports == 1
    assert single.global_switch([0, 0, 0, 3], [1, 2, 3, 0], 0).tolist() == [1, 2, 3, 0]


def test_hops_count_the_links_of_the_pairs_minimal_path():
    m, spread = three_groups(), three_groups("ecmp")
    # same node, same switch, same group, and 0 -> 14 (g2 s1): 5 links over j0 (local, global, local), 4 over j1;
    # "minimal" routes node pair (0, 14) over j = (0 + 14) mod 2 = 0, "ecmp" counts the shortest of both
    assert m.hops([0, 0, 0, 0, 0], [0, 1, 2, 14, 6]).tolist() == [0, 2, 3, 5, 3]
    assert spread.hops([0, 0, 0, 0, 0], [0, 1, 2, 14, 6]).tolist() == [0, 2, 3, 4, 3]
    assert m.hops([1], [14]).tolist() == [4] == [m.routes([1], [14]).links.size]  # (1 + 14) mod 2 = 1: j1
    # node 0 (g0 s0) and node 6 (g1 s0) are the two ends of the cable (0->1, j0): 3 links; over j1 (g0 s2 to g1 s1) 5
    assert as_dict(m.routes([0], [6])) == {0: 1.0, 54: 1.0, 24: 1.0}  # (0 + 6) mod 2 = 0
    assert as_dict(spread.routes([0], [6])) == {0: 1.0, 54: 0.5, 37: 0.5, 55: 0.5, 44: 0.5, 24: 1.0}
    assert m.hops([6], [14]).tolist() == [5] == spread.hops([6], [14]).tolist()  # a local hop at both ends either way


def test_minimal_route_takes_global_link_u_plus_v_mod_h_hand_computed():
    m = three_groups()
    # (0 + 14) mod 2 = 0: g0 s0->s1 (36), global 56, arrives g2 s0, local s0->s1 (48)
    r = m.routes([0, 1], [14, 14])
    assert as_dict(r, 0) == {0: 1.0, 36: 1.0, 56: 1.0, 48: 1.0, 32: 1.0} and r.lengths.tolist() == [5.0, 4.0]
    # (1 + 14) mod 2 = 1: g0 s0->s2 (37), global 57, arrives at g2 s1 itself
    assert as_dict(r, 1) == {1: 1.0, 37: 1.0, 57: 1.0, 32: 1.0}
    # the pairs of two groups spread over both links; the single-path routes SimGrid gets are these
    ends = np.array([[u, v] for u in range(6) for v in range(12, 18)])
    routes = m.routes(ends[:, 0], ends[:, 1])
    on_link = np.isin(routes.links, [56, 57])
    assert np.bincount(routes.links[on_link] - 56).tolist() == [18, 18]
    single = m.with_routing("valiant").single_path_routes(ends[:, 0], ends[:, 1])
    assert np.array_equal(single.links, routes.links) and np.array_equal(single.indptr, routes.indptr)


def test_ecmp_route_spreads_over_the_global_links_hand_computed():
    r = three_groups("ecmp").routes([0], [14])
    # j0: g0 s0->s1 (36), global 56, arrives g2 s0, local s0->s1 (48); j1: g0 s0->s2 (37), global 57, arrives g2 s1
    assert as_dict(r) == {0: 1.0, 36: 0.5, 37: 0.5, 56: 0.5, 57: 0.5, 48: 0.5, 32: 1.0}
    assert r.links.tolist() == [0, 36, 37, 56, 57, 48, 32]  # hop position first, then the path
    assert r.lengths.tolist() == [4.5]
    inside = three_groups().routes([0, 0, 0], [1, 2, 0])
    assert inside.indptr.tolist() == [0, 2, 5, 5]
    assert inside.links.tolist() == [0, 19, 0, 36, 20]


def test_valiant_route_passes_every_intermediate_group_hand_computed():
    r = three_groups("valiant").routes([0], [14])
    # only group 1 is intermediate; each (j1, j2) path carries 1/4:
    # j1=0: from g0 s0 itself, global 54, arrives g1 s0; j1=1: local g0 s0->s2 (37), global 55, arrives g1 s1
    # j2=0: from g1 s1, global 60, arrives g2 s0, local s0->s1 (48); j2=1: from g1 s2, global 61, arrives g2 s2,
    #        local s2->s1 (53); inside g1: s0->s1 (42), s0->s2 (43), s1->s1 (none), s1->s2 (45)
    assert as_dict(r) == {0: 1.0, 37: 0.5, 54: 0.5, 55: 0.5, 42: 0.25, 43: 0.25, 45: 0.25, 60: 0.5, 61: 0.5,
                          48: 0.5, 53: 0.5, 32: 1.0}
    assert r.lengths.tolist() == [6.25]
    # inside a group Valiant routes minimally
    assert three_groups("valiant").routes([0], [2]).links.tolist() == [0, 36, 20]


def _graph():
    # procs 0, 1 on g0 s0 (nodes 0, 1), proc 2 on g2 s1 (node 14), proc 3 on g1 s0 (node 6)
    return mt.TaskGraph.from_edges([0, 1, 3], [2, 2, 2], [8.0, 4.0, 2.0], n_tasks=4)


def test_minimal_link_loads_hand_computed():
    loads = link_loads(_graph(), three_groups(proc_nodes=[0, 1, 14, 6]), np.arange(4))
    # 0->14 (8) over j0: 36, 56, 48; 1->14 (4) over j1: 37, 57; 6->14 (2), (6 + 14) mod 2 = 0: local g1 s0->s1
    # (42), global 60, arrives g2 s0, local 48
    expected = {0: 8.0, 1: 4.0, 6: 2.0, 36: 8.0, 56: 8.0, 48: 10.0, 37: 4.0, 57: 4.0, 42: 2.0, 60: 2.0, 32: 14.0}
    assert {int(k): float(loads.data[k]) for k in np.flatnonzero(loads.data)} == expected
    assert loads.messages[[32, 48, 36, 42]].tolist() == [3, 2, 1, 1]


def test_ecmp_link_loads_hand_computed():
    loads = link_loads(_graph(), three_groups("ecmp", proc_nodes=[0, 1, 14, 6]), np.arange(4))
    # 0->14 and 1->14 (12 in all) split over j0 and j1; 6->14: j0 local g1 s0->s1 (42), global 60, arrives g2 s0,
    # local 48; j1 local g1 s0->s2 (43), global 61, arrives g2 s2, local s2->s1 (53)
    expected = {0: 8.0, 1: 4.0, 6: 2.0, 36: 6.0, 37: 6.0, 56: 6.0, 57: 6.0, 48: 7.0, 42: 1.0, 43: 1.0, 60: 1.0,
                61: 1.0, 53: 1.0, 32: 14.0}
    got = {int(k): float(loads.data[k]) for k in np.flatnonzero(loads.data)}
    assert got == expected
    assert loads.messages[[32, 48, 36, 42]].tolist() == [3, 3, 2, 1]
    assert loads.bottleneck() == "node"  # 14 on the destination's down-link, every link 25 GB/s


def test_valiant_link_loads_hand_computed():
    loads = link_loads(_graph(), three_groups("valiant", [0, 1, 14, 6]), np.arange(4))
    # 12 from g0 through g1 (the route of the test above) plus 2 from g1 through g0:
    # j1=0 global (1->0, j0) 58 from g1 s0, arrives g0 s0; j1=1 local g1 s0->s1 (42), global 59, arrives g0 s2;
    # j2=0 from g0 s1: global 56, arrives g2 s0, local 48; j2=1 from g0 s2: global 57, arrives g2 s1;
    # inside g0: s0->s1 (36), s0->s2 (37), s2->s1 (41), s2->s2 (none), 1/4 each
    expected = {0: 8.0, 1: 4.0, 6: 2.0, 32: 14.0,
                37: 6.0 + 0.5, 54: 6.0, 55: 6.0, 42: 3.0 + 1.0, 43: 3.0, 45: 3.0, 60: 6.0, 61: 6.0, 48: 6.0 + 1.0,
                53: 6.0, 58: 1.0, 59: 1.0, 36: 0.5, 41: 0.5, 56: 1.0, 57: 1.0}
    got = {int(k): float(loads.data[k]) for k in np.flatnonzero(loads.data)}
    assert got.keys() == expected.keys()
    assert all(got[k] == pytest.approx(v, abs=1e-12) for k, v in expected.items())


def test_aries_group_routes_cross_the_row_then_the_column():
    # 3 groups of 2 rows x 3 columns, one node per router, one global link per pair on switch b (p = 1)
    # links: up 0..17, down 18..35, green (6 g + s) 2 + c' + 36, black (6 g + s) + 72, global (2 a + b') + 90
    m = DragonflyMachine(3, (2, 3), 1, range(18))
    assert (m.rows, m.columns, m.n_links) == (2, 3, 96)
    assert m.link_classes()[1] == ("node", "green", "black", "global")
    assert m.route(0, 1) == [("node", 0), ("green", 36), ("node", 19)]  # same row
    assert m.route(0, 3) == [("node", 0), ("black", 72), ("node", 21)]  # same column
    # (0,0) -> (1,2): green along row 0 to (0,2) = s2, then black along column 2 to s5
    assert m.route(0, 5) == [("node", 0), ("green", 37), ("black", 74), ("node", 23)]
    # node 3 = g0 (1,0) -> node 16 = g2 (1,1): to s2 = (0,2) holding the link to g2: green s3->s5, black s5->s2;
    # global 91 arrives at g2 s0 = (0,0): green s0->s1, black s1->s4
    assert m.route(3, 16) == [("node", 3), ("green", 43), ("black", 77), ("global", 91), ("green", 60),
                              ("black", 85), ("node", 34)]
    assert m.link_names([43, 77, 85]) == ["green g0 s3->s5", "black g0 s5->s2", "black g2 s1->s4"]
    assert m.hops([0, 0, 0, 3], [1, 3, 5, 16]).tolist() == [3, 3, 4, 7]


def test_node_hierarchy_follows_switches_rows_groups():
    m = three_groups(proc_nodes=[0, 0, 1, 3, 14, 17])
    h = m.node_hierarchy()
    assert h.level_names == ("switch", "group", "machine")
    # nodes 0, 1 (g0 s0), 3 (g0 s1), 14 (g2 s1 = switch 7), 17 (g2 s2 = switch 8)
    assert [g.tolist() for g in h.groups] == [[0, 0, 1, 7, 8], [0, 0, 0, 2, 2], [0] * 5]
    assert [c.tolist() for c in h.children(3, 0)] == [[0, 1, 2], [3, 4]]
    aries = DragonflyMachine(3, (2, 3), 1, [0, 2, 4, 6]).node_hierarchy()
    assert aries.level_names == ("switch", "row", "group", "machine")
    assert [g.tolist() for g in aries.groups[:3]] == [[0, 2, 4, 6], [0, 0, 1, 2], [0, 0, 0, 1]]


def test_geometric_coords_make_a_group_step_cost_most():
    m = three_groups(proc_nodes=[0, 5, 6])
    # (group x 2 S n = 12, switch x n = 2, slot): node 5 = g0 s2 k1, node 6 = g1 s0 k0
    assert m.geometric_coords().tolist() == [[0.0, 0.0, 0.0], [0.0, 4.0, 1.0], [12.0, 0.0, 0.0]]
    assert m.locate([0, 1, 2]).tolist() == [[0, 0, 0], [0, 2, 1], [1, 0, 0]]
    assert m.node_number([0, 1], [2, 0], [1, 0]).tolist() == [5, 6]


def test_group_paths_minimal_valiant_and_percs_rule():
    p = group_paths([0, 1, 2], [2, 1, 0], 4, 2, "minimal")
    assert p.pair.tolist() == [0, 0, 2, 2] and p.via.tolist() == [2, 2, 0, 0] and p.share.tolist() == [0.5] * 4
    v = group_paths([0], [3], 4, 1, "valiant")
    assert v.via.tolist() == [1, 2] and v.share.tolist() == [0.5, 0.5] and v.second.tolist() == [0, 0]
    assert group_paths([1], [1], 4, 2, "valiant").pair.size == 0
    with pytest.raises(InvalidInputError, match="at least 3 groups; got 2"):
        group_paths([0], [1], 2, 1, "valiant")
    with pytest.raises(InvalidInputError, match="'ugal'"):
        group_paths([0], [1], 3, 1, "ugal")


@pytest.mark.parametrize("percs_routing, routing, ends, paired",
                         [("direct", "minimal", False, False), ("indirect", "valiant", True, True)])
def test_group_paths_give_the_d_link_shares_of_percs(percs_routing, routing, ends, paired):
    # PERCS direct routing is the minimal rule (1/n_d per bucket); indirect spreads a pair over every supernode c
    # (ends included) and bucket j, the same j on both D legs, 1/(n_s n_d) each, a D leg from a supernode to
    # itself being a free self-loop
    n_s, n_d = 3, 2
    r = PercsMachine(n_s, n_d, routing=percs_routing).routes([0], [128 + 32 * 2])  # supernode 0 -> supernode 1
    d0 = n_s * L_LINKS_PER_SUPERNODE
    got = {k - d0: f for k, f in as_dict(r).items() if k >= d0}
    paths = group_paths([0], [1], n_s, n_d, routing, ends=ends, paired=paired)
    expected: dict = {}
    for c, j1, j2, share in zip(paths.via.tolist(), paths.first.tolist(), paths.second.tolist(), paths.share.tolist()):
        for a, b, j in ((0, c, j1), (c, 1, j2)):
            if a != b and j >= 0:  # PERCS's D numbering: (a n_d + j)(n_s - 1) + b'
                k = (a * n_d + j) * (n_s - 1) + b - (b > a)
                expected[k] = expected.get(k, 0.0) + share
    assert got.keys() == expected.keys()
    assert all(got[k] == pytest.approx(v) for k, v in expected.items())


def test_routes_in_chunks_equal_routes_at_once(monkeypatch):
    m = dragonfly_machine(n_groups=5, switches=(2, 2), nodes_per_switch=2, global_links=2, routing="valiant")
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, m.n_procs, 40), rng.integers(0, m.n_procs, 40)
    whole = m.routes(src, dst)
    monkeypatch.setattr(dragonfly_module, "ROUTE_CHUNK_ENTRIES", 200)  # 3 x 4 paths x 10 columns per pair: 1 a chunk
    parts = m.routes(src, dst)
    assert all(np.array_equal(x, y) for x, y in zip(whole, parts))


@pytest.mark.parametrize("routing", ["minimal", "valiant"])
def test_auto_maps_and_its_loads_equal_a_brute_force_walk_of_the_routes(routing):
    m = dragonfly_machine(n_groups=5, switches=(2, 3), nodes_per_switch=2, global_links=2, nodes=20, ppn=2, seed=3,
                          routing=routing)
    g = mt.TaskGraph.stencil([5, 8])
    mapping = mt.map(g, m, "auto")
    ttp = np.asarray(mapping.task_to_proc)
    assert sorted(ttp.tolist()) == list(range(40))
    loads = link_loads(g, m, ttp)
    expected = np.zeros(m.n_links)
    src = np.repeat(np.arange(g.n_tasks), np.diff(g.indptr))
    for s, d, w in zip(src, g.indices, g.weights):
        r = m.routes([ttp[s]], [ttp[d]])
        expected[r.links] += w * r.fractions
    assert np.allclose(loads.data, expected, rtol=1e-12, atol=1e-12)
    assert loads.data[m.link_classes()[0] == 2].sum() > 0  # the scattered allocation crosses groups


def test_presets_have_the_published_shapes():
    f = dragonfly_preset("frontier", nodes=64, ppn=8, seed=3)
    assert (f.n_groups, f.switches_per_group, f.nodes_per_switch, f.global_links, f.global_ports) == (74, 32, 4, 4, 10)
    assert f.n_network_nodes == 9472 and f.n_procs == 512
    assert f.class_bandwidths() == {"node": 100.0, "local": 25.0, "global": 25.0}
    p = dragonfly_preset("perlmutter", nodes=10)
    assert (p.n_groups, p.switches_per_group, p.global_links, p.global_ports) == (12, 32, 13, 5)
    assert p.n_network_nodes == 1536
    a = dragonfly_preset("aries", nodes=10, routing="valiant")
    assert (a.n_groups, a.rows, a.columns, a.nodes_per_switch, a.global_links, a.global_ports) == (32, 6, 16, 4, 15, 5)
    assert a.n_network_nodes == 32 * 384 and a.routing == "valiant"
    assert a.class_bandwidths() == {"node": 8.0, "green": 5.25, "black": 15.75, "global": 9.375}
    assert set(DRAGONFLY_PRESETS) == {"frontier", "perlmutter", "aries"}
    with pytest.raises(InvalidInputError, match="unknown dragonfly preset 'cori'"):
        dragonfly_preset("cori")


def test_scattered_allocations_are_sorted_distinct_and_respect_the_group_limit():
    m = dragonfly_preset("frontier", nodes=64, ppn=4, seed=1)
    nodes = m.node_ids[::4]
    assert np.all(np.diff(nodes) > 0) and np.array_equal(nodes, scattered_group_nodes(74, 128, 64, 1))
    assert np.unique(nodes // 128).size > 30  # scattered over many groups
    c = dragonfly_preset("frontier", nodes=200, ppn=1, seed=2, groups=2)
    assert np.unique(c.node_ids // 128).size == 2 and np.all(np.diff(c.node_ids) > 0)
    whole = dragonfly_machine(n_groups=4, switches=2, nodes_per_switch=2, groups=3)
    assert whole.n_procs == 12 and np.unique(whole.node_ids // 4).size == 3  # nodes=None: every node of 3 groups
    assert np.array_equal(dragonfly_preset("aries", nodes=50, seed=7, groups=3).node_ids,
                          dragonfly_preset("aries", nodes=50, seed=7, groups=3).node_ids)
    with pytest.raises(InvalidInputError, match="nodes: 2 groups hold 256 nodes; got 300"):
        dragonfly_preset("frontier", nodes=300, groups=2)
    with pytest.raises(InvalidInputError, match="groups: the machine has 74 groups; got 80"):
        dragonfly_preset("frontier", nodes=3, groups=80)
    with pytest.raises(InvalidInputError, match="nodes: the machine has 9472 nodes; got 10000"):
        dragonfly_preset("frontier", nodes=10000)


def test_errors_name_the_bad_value():
    with pytest.raises(InvalidInputError, match="n_groups: expected an integer >= 2; got 1"):
        DragonflyMachine(1, 3, 1, [0])
    with pytest.raises(InvalidInputError, match="switches: columns: expected an integer >= 1; got 0"):
        DragonflyMachine(3, (2, 0), 1, [0])
    with pytest.raises(InvalidInputError, match="switches: expected an int"):
        DragonflyMachine(3, "32", 1, [0])
    with pytest.raises(InvalidInputError, match="global_ports: 3 switches x 1 ports hold 3 of the 3 x 2 = 6"):
        DragonflyMachine(3, 3, 1, [0], global_links=2, global_ports=1)
    with pytest.raises(InvalidInputError, match="bandwidth: unknown link class 'blue'"):
        DragonflyMachine(3, 3, 1, [0], bandwidth={"node": 1, "local": 1, "global": 1, "blue": 1})
    with pytest.raises(InvalidInputError, match="bandwidth: no value for link class 'black'"):
        DragonflyMachine(3, (2, 2), 1, [0], bandwidth={"node": 1, "green": 1, "global": 1})
    with pytest.raises(InvalidInputError, match=r"bandwidth\['global'\]: must be a positive finite number.*got -5"):
        DragonflyMachine(3, 3, 1, [0], bandwidth={"node": 1, "local": 1, "global": -5})
    with pytest.raises(InvalidInputError, match="routing: expected one of"):
        DragonflyMachine(3, 3, 1, [0], routing="adaptive")
    with pytest.raises(InvalidInputError, match="'valiant' needs an intermediate group, i.e. n_groups >= 3; got 2"):
        DragonflyMachine(2, 3, 1, [0], routing="valiant")
    with pytest.raises(InvalidInputError, match="proc_nodes"):
        DragonflyMachine(3, 3, 1, [9])
    with pytest.raises(InvalidInputError, match="slot"):
        three_groups().node_number([0], [0], [2])


def test_hierarchy_mappers_cut_between_groups_first():
    from mpitaskmap.mappers.geometric.hierarchy import map_tree_split
    from mpitaskmap.mappers.graph import map_bisection
    # groups 0 and 2 of a 3 x 2 x 2 dragonfly, all their nodes, 2 cores each: 8 processors a group
    m = DragonflyMachine(3, 2, 2, np.repeat([0, 1, 2, 3, 8, 9, 10, 11], 2))
    g = mt.TaskGraph.stencil([4, 4])
    src = np.repeat(np.arange(g.n_tasks), np.diff(g.indptr))
    for mapping in (map_tree_split(g, m), map_bisection(g, m)):
        group = m.locate(mapping.task_to_proc)[:, 0]
        assert np.bincount(group, minlength=3).tolist() == [8, 0, 8]
        # the groups hold two 2 x 4 halves: 4 grid edges (8 directed) cross between them
        assert int(np.count_nonzero(group[src] != group[g.indices])) == 8


def test_valiant_fractions_are_exact_on_many_paths():
    # 47 intermediate groups x 3 x 3 links: 423 paths a pair; the node links carry all of them: exactly 1.0
    m = DragonflyMachine(49, 13, 1, [0, 13 * 48 + 5], global_links=3, routing="valiant")
    r = m.routes([0], [1])
    assert r.fractions[0] == 1.0 and r.fractions[-1] == 1.0
    assert r.fractions.max() == 1.0 and r.fractions.min() > 0
    codes = m.link_classes()[0][r.links]
    # each global link 0 -> c and c -> 48 (47 intermediates c, 3 links each) carries 3 of the 423 paths: 1 / 141
    assert np.count_nonzero(codes == 2) == 2 * 47 * 3
    assert np.allclose(r.fractions[codes == 2], 1 / 141, rtol=1e-12)


def test_routes_follow_a_change_of_the_shared_group_paths(monkeypatch):
    # the dragonfly takes its group-level paths from mpitaskmap.machines.two_level at every call, as PERCS does
    # (tests/machines/test_percs_routing.py): make the shared rule route every pair through intermediate groups and the
    # "ecmp" machine's route 0 -> 14 (g0 -> g2) becomes the Valiant route through g1
    from mpitaskmap.machines import two_level

    m = three_groups("ecmp")
    before = as_dict(m.routes([0], [14]))
    valiant = as_dict(three_groups("valiant").routes([0], [14]))
    shared = two_level.group_paths
    monkeypatch.setattr(two_level, "group_paths", lambda src, dst, n_groups, n_global, routing, **kw: shared(
        src, dst, n_groups, n_global, "valiant", **kw))
    assert as_dict(m.routes([0], [14])) == valiant != before
    monkeypatch.undo()
    assert as_dict(m.routes([0], [14])) == before
