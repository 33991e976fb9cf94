"""Group balance (mappers/graph/group_balance.py): the deal by hand, whole blocks, even fill, and its place in the search."""

import numpy as np
import pytest

import mpitaskmap
from mpitaskmap import TaskGraph, torus_machine
from mpitaskmap.errors import NotApplicableError
from mpitaskmap.machines import DragonflyMachine, FatTreeMachine
from mpitaskmap.mappers.graph.group_balance import map_group_balance
from mpitaskmap.search.families import graph as graph_family
from mpitaskmap.search.families.graph import map_packing
from mpitaskmap.search.problem import Problem


def test_the_deal_by_hand():
    # 3 groups of one switch with 2 nodes, one processor a node: every task is a block, dealt in task order.
    # edges 1->0 (5), 2->0 (5), 3->1 (1); tasks 4 and 5 talk to nobody.
    #   task 0: every group empty and nothing placed to talk to: the lowest, g0.
    #   task 1: g1 and g2 are the least filled (0 of 2); 1->0 would load pair g1->g0 or g2->g0 with 5: a tie, g1.
    #   task 2: g2 alone is least filled, although joining task 0 in g0 would cost nothing (the deal comes first).
    #   task 3: all half full; 3->1 costs pair g0->g1 1, g2->g1 1, nothing in g1 itself: g1.
    #   task 4: g0 and g2 half full, no traffic: g0.  task 5: g2.
    # Inside a group the blocks take the nodes in order: g0 nodes 0, 1; g1 nodes 2, 3; g2 nodes 4, 5.
    m = DragonflyMachine(3, 1, 2, range(6))
    g = TaskGraph.from_edges([1, 2, 3], [0, 0, 1], [5.0, 5.0, 1.0], n_tasks=6)
    mapping = map_group_balance(g, m)
    assert m.locate(mapping.task_to_proc)[:, 0].tolist() == [0, 1, 2, 1, 0, 2]
    assert mapping.task_to_proc.tolist() == [0, 2, 4, 3, 1, 5]
    assert mapping.method == "balance" and mapping.info["groups"] == 3


def ring(n):
    return TaskGraph.from_edges(np.arange(n), (np.arange(n) + 1) % n, np.ones(n), n_tasks=n)


def group_pair_loads(g, m, ttp):
    grp = m.locate(ttp)[:, 0]
    src = np.repeat(np.arange(g.n_tasks), np.diff(g.indptr))
    a, b = grp[src], grp[g.indices]
    loads = np.zeros((m.n_groups, m.n_groups))
    np.add.at(loads, (a[a != b], b[a != b]), g.weights[a != b])
    return loads


def test_blocks_stay_whole_groups_fill_evenly_and_the_busiest_pair_is_lighter_than_packings():
    # 6 groups of 2 switches x 2 nodes, 4 ranks a node, the allocation every node of the machine
    m = DragonflyMachine(6, 2, 2, np.repeat(np.arange(24), 4))
    g = TaskGraph.stencil([8, 6, 2])
    packed = map_packing(g, m)
    balanced = map_group_balance(g, m)
    node_packed, node_balanced = m.node_ids[packed.task_to_proc], m.node_ids[balanced.task_to_proc]
    # the same blocks: tasks share a node after exactly when they did in the packing
    same_before = node_packed[:, None] == node_packed[None, :]
    same_after = node_balanced[:, None] == node_balanced[None, :]
    assert np.array_equal(same_before, same_after)
    assert np.unique(balanced.task_to_proc).size == g.n_tasks
    per_group = np.bincount(m.locate(balanced.task_to_proc)[:, 0], minlength=6)
    assert per_group.tolist() == [16] * 6  # 4 nodes of 4 tasks in every group
    assert group_pair_loads(g, m, balanced.task_to_proc).max() < group_pair_loads(g, m, packed.task_to_proc).max()


def test_a_ring_crosses_distinct_group_pairs():
    m = DragonflyMachine(4, 1, 2, np.repeat(np.arange(8), 2))
    mapping = map_group_balance(ring(8), m)
    loads = group_pair_loads(ring(8), m, mapping.task_to_proc)
    assert loads.max() == 1.0 and int((loads > 0).sum()) == 4


def test_it_needs_groups():
    with pytest.raises(NotApplicableError, match="has no 'group' level"):
        map_group_balance(ring(8), torus_machine([2, 2, 2]))
    with pytest.raises(NotApplicableError, match="has no 'group' level"):
        map_group_balance(ring(4), FatTreeMachine.regular([2, 2], [1, 1], 10.0, [0, 1, 2, 3]))
    with pytest.raises(NotApplicableError, match="the allocation lies in one group"):
        map_group_balance(ring(4), DragonflyMachine(3, 2, 2, [0, 1, 2, 3]))


def test_the_search_tries_it_where_the_routing_adapts():
    m = DragonflyMachine(4, 2, 2, np.repeat(np.arange(16), 2))
    labels = lambda machine: [c.method for c in graph_family.candidates(Problem(ring(32), machine))]
    assert "balance" not in labels(m) and "balance" not in labels(m.with_routing("valiant"))
    assert labels(m.with_routing("ugal"))[-1] == "balance"
    # one group under UGAL: nothing to balance, no candidate
    assert "balance" not in labels(DragonflyMachine(4, 2, 2, np.repeat([0, 1, 2, 3], 8), routing="ugal"))
    # by name, on any dragonfly
    assert mpitaskmap.map(ring(32), m, method="balance").method == "balance"
