"""UMPa's refinement: weighted hops (UWH) and congestion (UMC / UMMC), their kernels' incremental loads."""

import numpy as np
import pytest

from mpitaskmap import (FlatMachine, InvalidInputError, Mapping, TaskGraph, hopper_machine, map_geometric, metrics,
                        titan_machine, torus_machine)
from mpitaskmap.mappers.graph import umpa
from mpitaskmap.mappers.graph.greedy import map_greedy
from mpitaskmap.mappers.graph.node_network import NodeNetwork, _undirected
from mpitaskmap import _graphmap
from ring_variants import assert_loads_are_a_recount, small_ring


@pytest.mark.parametrize("seed", range(4))
def test_refinement_never_increases_its_objective(seed):
    rng = np.random.default_rng(seed)
    m = titan_machine(16, cores_per_node=4, seed=seed)
    g = TaskGraph.from_edges(rng.integers(0, 64, 300), rng.integers(0, 64, 300), rng.integers(1, 9, 300), n_tasks=64)
    start = Mapping(rng.permutation(64), m, g)
    wh0 = start.metric("weighted_hops")
    r = umpa.refine_wh(start)
    assert r.metric("weighted_hops") <= wh0
    for objective, name in (("latency", "latency"), ("max_messages", "max_messages")):
        c = umpa.refine_congestion(start, objective=objective)
        assert c.metric(name) <= start.metric(name)
        assert np.bincount(c.task_to_proc, minlength=64).max() == 1


def test_refine_congestion_lowers_the_hot_link_on_hopper():
    g = TaskGraph.stencil([8, 8, 8])
    geo = map_geometric(g, hopper_machine())
    c = umpa.refine_congestion(geo)
    assert c.metric("latency") < geo.metric("latency")
    assert c.info["congestion_swaps"] > 0


def test_deterministic():
    g = TaskGraph.stencil([8, 4, 4])
    m = titan_machine(16, cores_per_node=8, seed=2)
    a = umpa.refine_wh(map_greedy(g, m))
    b = umpa.refine_wh(map_greedy(g, m))
    assert np.array_equal(a.task_to_proc, b.task_to_proc)


@pytest.mark.parametrize("seed", range(3))
def test_incremental_link_loads_equal_recomputation_after_random_swaps(seed):
    rng = np.random.default_rng(seed)
    m = titan_machine(24, cores_per_node=2, seed=seed)
    g = TaskGraph.from_edges(rng.integers(0, 48, 200), rng.integers(0, 48, 200), rng.integers(1, 5, 200), n_tasks=48)
    nn = NodeNetwork(m)
    ttp = rng.permutation(48)
    task_node = nn.task_nodes(ttp)
    mptr, madj, mw = g.indptr.astype(np.int64), g.indices.astype(np.int64), g.weights
    iptr, iadj, iw = umpa._incoming(g)
    data = np.zeros(m.n_links)
    msgs = np.zeros(m.n_links, dtype=np.int64)
    _graphmap.link_loads_nodes(mptr, madj, mw, task_node, nn.net, data, msgs)
    swaps = rng.integers(0, 48, size=(40, 2)).astype(np.int64)
    swaps = swaps[swaps[:, 0] != swaps[:, 1]]
    _graphmap.apply_swaps_incrementally(mptr, madj, mw, iptr, iadj, iw, task_node, nn.net,
                                        np.ascontiguousarray(swaps), data, msgs, m.link_bandwidths())
    fresh = metrics.link_loads(g, m, nn.task_procs(task_node))
    assert np.array_equal(msgs, fresh.messages)
    assert np.allclose(data, fresh.data)


def test_generic_machine_uses_the_hop_matrix():
    m = FlatMachine([0, 0, 1, 1, 2, 2])
    g = TaskGraph.from_edges([0, 1, 2, 3, 4, 5], [1, 0, 3, 2, 5, 4], n_tasks=6)
    mp = umpa.refine_wh(map_greedy(g, m))
    assert mp.metric("weighted_hops") == 0.0  # every pair shares a node
    with pytest.raises(InvalidInputError, match="needs routed links; 'flat' has no link model"):
        umpa.refine_congestion(mp)


def test_refinement_pass_by_pass_equals_one_kernel_call():
    # the kernel keeps each node's tasks in ascending order, so passes carry no hidden state
    rng = np.random.default_rng(3)
    m = titan_machine(16, cores_per_node=4, seed=3)
    g = TaskGraph.from_edges(rng.integers(0, 64, 400), rng.integers(0, 64, 400), rng.integers(1, 9, 400), n_tasks=64)
    nn = NodeNetwork(m)
    tptr, tadj, tw = _undirected(g)
    start = nn.task_nodes(rng.permutation(64))
    one = start.copy()
    _graphmap.refine_wh(tptr, tadj, tw, nn.capacity, nn.net, 8, 20, one)
    stepped = start.copy()
    umpa._refine_passes(tptr, tadj, tw, nn.capacity, nn.net, 8, 20, stepped, None)
    assert np.array_equal(one, stepped)


@pytest.mark.parametrize("split", [False, True])
def test_umc_and_ummc_on_a_ring_lower_their_objective_and_keep_exact_loads(split):
    ring = small_ring(split, cores=3)  # 36 cores for 30 tasks: moves to free cores as well as swaps
    rng = np.random.default_rng(1)
    g = TaskGraph.from_edges(rng.integers(0, 30, 150), rng.integers(0, 30, 150), rng.integers(1, 6, 150), n_tasks=30)
    start = Mapping(rng.permutation(ring.n_procs)[:30], ring, g)
    for objective, tag in (("latency", "umc"), ("max_messages", "ummc")):
        refined = umpa.refine_congestion(start, objective=objective)
        assert refined.method.endswith(tag) and refined.info["congestion_swaps"] > 0
        assert np.bincount(refined.task_to_proc, minlength=ring.n_procs).max() == 1
        assert refined.metric(objective) < start.metric(objective)
        # the same run by hand: the kernel's incremental loads at the end are a recount
        nn = NodeNetwork(ring, routes=True)
        task_node = nn.task_nodes(start.task_to_proc)
        _, _, data, msgs = umpa._congestion_passes(nn, g, task_node, objective, 8, 16, 2000, None)
        assert np.array_equal(nn.task_procs(task_node), refined.task_to_proc)
        assert_loads_are_a_recount(g, ring, nn, task_node, data, msgs)


def test_refinement_refuses_a_mapping_with_several_tasks_per_core():
    # the refinement kernels keep one task per core: an oversubscribed start is refused, not corrupted
    machine = torus_machine([2], cores_per_node=1)
    graph = TaskGraph.stencil([4])
    start = Mapping([0, 0, 1, 1], machine, graph, oversubscribe=True)
    for refine in (umpa.refine_wh, umpa.refine_congestion):
        with pytest.raises(InvalidInputError, match="4 tasks do not fit on 2 processors"):
            refine(start)
