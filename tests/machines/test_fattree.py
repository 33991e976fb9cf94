"""The fat-tree machine: hops, d-mod-k and ECMP routes, link loads, hand-computed on small trees."""

from __future__ import annotations

import numpy as np
import pytest

import mpitaskmap as mt
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import FatTreeMachine
from mpitaskmap.machines.fattree.presets import fattree_machine, fattree_preset, scattered_nodes
from mpitaskmap.metrics import link_loads


def two_level(routing="dmodk"):
    # 2 leaves of 2 nodes, 2 spines; links: up1 0-3, down1 4-7, up2 8-11, down2 12-15
    return FatTreeMachine.regular([2, 2], [1, 2], [10.0, 5.0], range(4), routing=routing)


def three_level(routing="dmodk"):
    # 8 nodes, 4 leaves of 2, 2 pods of 2 leaves with 2 pod spines each, 4 core switches;
    # up1 0-7, down1 8-15, up2 16-23, down2 24-31, up3 32-39, down3 40-47
    return FatTreeMachine.regular([2, 2, 2], [1, 2, 2], 1.0, range(8), routing=routing)


def test_hops_are_twice_the_level_of_the_lowest_common_switch():
    m = three_level()
    assert m.hops([0, 0, 0, 0, 5, 5], [0, 1, 2, 7, 4, 2]).tolist() == [0, 2, 4, 6, 2, 6]
    m2 = FatTreeMachine.regular([2, 2], [1, 1], 1.0, [0, 0, 1, 3])  # two cores on node 0
    assert m2.hops([0, 0, 0], [1, 2, 3]).tolist() == [0, 2, 4]


def test_dmodk_routes_two_levels_hand_computed():
    m = two_level()
    assert m.n_links == 16
    # to node 2: spine (2 // 1) % 2 = 0; to node 3: spine 1
    assert m.route(0, 2) == [("up1", 0), ("up2", 8), ("down2", 14), ("down1", 6)]
    assert m.route(0, 3) == [("up1", 0), ("up2", 9), ("down2", 15), ("down1", 7)]
    assert m.route(1, 0) == [("up1", 1), ("down1", 4)]
    assert m.routes([2], [2]).links.size == 0


def test_dmodk_routes_three_levels_hand_computed():
    m = three_level()
    # to node 7: level-2 copy 7 % 2 = 1, core copy 7 % 4 = 3
    assert [link for _, link in m.route(0, 7)] == [0, 17, 35, 47, 31, 15]
    # to node 4: level-2 copy 0, core copy 0
    assert [link for _, link in m.route(1, 4)] == [1, 16, 32, 44, 28, 12]


def test_ecmp_spreads_over_every_up_path():
    r = three_level("ecmp").routes([0], [7])
    got = dict(zip(r.links.tolist(), r.fractions.tolist()))
    expected = {0: 1.0, 16: 0.5, 17: 0.5, 32: 0.25, 33: 0.25, 34: 0.25, 35: 0.25,
                44: 0.25, 45: 0.25, 46: 0.25, 47: 0.25, 30: 0.5, 31: 0.5, 15: 1.0}
    assert got == expected
    assert r.lengths.tolist() == [6.0]
    r2 = two_level("ecmp").routes([0, 0], [1, 2])
    assert r2.indptr.tolist() == [0, 2, 8]
    assert r2.links.tolist() == [0, 5, 0, 8, 9, 14, 15, 6]


def test_link_loads_share_a_spine_under_dmodk_and_split_under_ecmp():
    # 0 -> 2 and 1 -> 2 both go through spine 0 (same destination); 1 -> 3 through spine 1
    g = mt.TaskGraph.from_edges([0, 1], [2, 2], [10.0, 10.0], n_tasks=4)
    loads = link_loads(g, two_level(), np.arange(4))
    assert loads.data[8] == 20.0 and loads.data[9] == 0.0 and loads.data[14] == 20.0
    assert loads.messages[8] == 2
    ecmp = link_loads(g, two_level("ecmp"), np.arange(4))
    assert ecmp.data[[8, 9, 14, 15]].tolist() == [10.0, 10.0, 10.0, 10.0]
    assert ecmp.messages[[8, 9]].tolist() == [2, 2]
    # the spine links have 5 GB/s, the node links 10: Latency(M) = 20 / 5
    assert loads.max_latency() == pytest.approx(4.0)
    assert loads.bottleneck() == "down2"
    h = link_loads(mt.TaskGraph.from_edges([0], [3], [10.0], n_tasks=4), two_level(), np.arange(4))
    assert h.data[[0, 9, 15, 7]].tolist() == [10.0] * 4 and h.data.sum() == 40.0


def test_from_paths_tapers_the_up_links_and_checks_the_tree():
    paths = [["s0", "s1"], ["s0", "s1"], ["s0", "s2"], ["s0", "s2"], ["s0", "s2"]]
    m = FatTreeMachine.from_paths(paths, ["a", "b", "c", "d", "e"], [0, 1, 2, 3, 4], bandwidth=10.0, taper=2.0)
    assert m.n_groups == (2, 1) and m.switch_names == (("s1", "s2"), ("s0",))
    # s1's up-link: 2 x 10 / 2 = 10 GB/s, s2's: 3 x 10 / 2 = 15
    assert m.level_bandwidths()[1].tolist() == [10.0, 15.0]
    assert m.hops([0, 0, 2], [1, 2, 4]).tolist() == [2, 4, 2]
    # several top switches get a common root
    m2 = FatTreeMachine.from_paths([["t0", "s1"], ["t1", "s2"]], ["a", "b"], [0, 1])
    assert m2.levels == 3 and m2.hops([0], [1]).tolist() == [6]
    with pytest.raises(InvalidInputError, match="same depth.*'c'"):
        FatTreeMachine.from_paths([["s0", "s1"], ["s0", "s1"], ["s2"]], ["a", "b", "c"], [0])
    with pytest.raises(InvalidInputError, match="'s1' is under both 's0' and 's9'"):
        FatTreeMachine.from_paths([["s0", "s1"], ["s9", "s1"]], ["a", "b"], [0])
    with pytest.raises(InvalidInputError, match="taper"):
        FatTreeMachine.from_paths([["s0"]], ["a"], [0], taper=0)


def test_constructor_rejects_trees_that_do_not_nest():
    with pytest.raises(InvalidInputError, match="does not nest"):
        FatTreeMachine([[0, 0, 1, 1], [0, 1, 1, 1], [0, 0, 0, 0]], [1, 1, 1], 1.0, [0])
    with pytest.raises(InvalidInputError, match="top level must be one group"):
        FatTreeMachine([[0, 0, 1, 1]], [1], 1.0, [0])
    with pytest.raises(InvalidInputError, match="up_links: entry 1"):
        FatTreeMachine([[0, 0, 1, 1], [0, 0, 0, 0]], [1, 0], 1.0, [0])
    with pytest.raises(InvalidInputError, match="bandwidth\\[1\\]"):
        FatTreeMachine([[0, 0, 1, 1], [0, 0, 0, 0]], [1, 1], [1.0, [1.0, -2.0]], [0])
    with pytest.raises(InvalidInputError, match="proc_nodes"):
        FatTreeMachine([[0, 0, 1, 1], [0, 0, 0, 0]], [1, 1], 1.0, [4])
    with pytest.raises(InvalidInputError, match="routing"):
        FatTreeMachine([[0, 0], [0, 0]], [1, 1], 1.0, [0], routing="valiant")


def test_generic_loads_equal_a_brute_force_walk_of_the_routes():
    rng = np.random.default_rng(4)
    m = fattree_machine(leaves=4, nodes_per_leaf=4, taper=2, levels=3, leaves_per_pod=2, nodes=10, ppn=2, seed=2,
                        routing="ecmp")
    g = mt.TaskGraph.from_edges(rng.integers(0, 20, 60), rng.integers(0, 20, 60), rng.random(60), n_tasks=20)
    ttp = rng.permutation(20)
    loads = link_loads(g, m, ttp)
    expected = np.zeros(m.n_links)
    src = np.repeat(np.arange(g.n_tasks), np.diff(g.indptr))
    for s, d, w in zip(src, g.indices, g.weights):
        r = m.routes([ttp[s]], [ttp[d]])
        expected[r.links] += w * r.fractions
    assert np.allclose(loads.data, expected, rtol=1e-12, atol=1e-12)


def test_presets_draw_scattered_sorted_allocations():
    m = fattree_machine(leaves=32, nodes_per_leaf=16, taper=4, nodes=64, ppn=8, seed=1)
    nodes = m.node_ids[::8]
    assert m.n_procs == 512 and np.all(np.diff(nodes) > 0) and np.unique(nodes).size == 64
    assert m.up_links == (1, 4) and m.down_links == (16, 32)
    assert np.array_equal(nodes, scattered_nodes(512, 64, 1))
    assert len(np.unique(nodes // 16)) > 16  # scattered over most leaves
    three = fattree_machine(leaves=8, nodes_per_leaf=4, taper=2, levels=3, leaves_per_pod=4)
    assert three.down_links == (4, 4, 2) and three.up_links == (1, 2, 2)
    f = fattree_preset("supermuc-ng", nodes=100, ppn=1, seed=0)
    assert f.n_tree_nodes == 6336 and f.up_links == (1, 24, 8)
    with pytest.raises(InvalidInputError, match="taper: must divide nodes_per_leaf"):
        fattree_machine(nodes_per_leaf=16, taper=3)
    with pytest.raises(InvalidInputError, match="nodes: the tree has 512 nodes"):
        fattree_machine(nodes=600)


def test_node_hierarchy_lists_the_switch_groups_of_the_allocated_nodes():
    m = FatTreeMachine.regular([2, 2], [1, 1], 1.0, [1, 1, 2, 3])
    h = m.node_hierarchy()
    assert [g.tolist() for g in h.groups] == [[0, 1, 1], [0, 0, 0]]
    assert [c.tolist() for c in h.children(2, 0)] == [[0], [1, 2]]
    assert mt.torus_machine([4]).node_hierarchy() is None
