"""Graph-mapper kernel: incremental link loads of the congestion refinement (cext/_graphmap.pyx).

The refinement keeps Data(e) and Congestion(e) up to date by removing and re-adding only
the routes of moved tasks, and tries each candidate swap or move by moving, looking and
undoing.  These tests compare that bookkeeping with a from-scratch recount
(:func:`mpitaskmap.metrics.link_loads`) and the trial's decision with a brute force.  Integer
weights keep every sum exact, so the comparisons are exact.
"""

import numpy as np
import pytest

from mpitaskmap import TaskGraph, metrics, titan_machine
from mpitaskmap import _graphmap
from mpitaskmap.mappers.graph import greedy as gm


def _setup(seed, n_tasks=40, n_edges=180, n_nodes=24, cores=4):
    """A random graph on a sparse Titan allocation with free cores; loads counted from scratch."""
    rng = np.random.default_rng(seed)
    m = titan_machine(n_nodes, cores_per_node=cores, seed=seed)
    g = TaskGraph.from_edges(rng.integers(0, n_tasks, n_edges), rng.integers(0, n_tasks, n_edges),
                             rng.integers(1, 6, n_edges), n_tasks=n_tasks)
    nn = gm.NodeNetwork(m)
    task_node = nn.task_nodes(rng.permutation(m.n_procs)[:n_tasks])
    msg = (g.indptr.astype(np.int64), g.indices.astype(np.int64), g.weights) + tuple(gm._incoming(g))
    data = np.zeros(m.n_links)
    msgs = np.zeros(m.n_links, dtype=np.int64)
    _graphmap.link_loads_nodes(msg[0], msg[1], msg[2], task_node, nn.net, data, msgs)
    return rng, m, g, nn, task_node, msg, data, msgs


def _random_rows(rng, nn, task_node, count):
    """Rows (t, s, b): swaps (s >= 0) and moves of t to a node with a free core (s = -1, node b)."""
    node = task_node.copy()
    rows = []
    while len(rows) < count:
        t, s = (int(x) for x in rng.integers(0, node.size, 2))
        free = np.flatnonzero(np.bincount(node, minlength=nn.n_nodes) < nn.capacity)
        if rng.random() < 0.5 and free.size:
            b = int(rng.choice(free))
            rows.append((t, -1, b))
            node[t] = b
        elif s != t:
            rows.append((t, s, 0))
            node[t], node[s] = node[s], node[t]
    return np.array(rows, dtype=np.int64), node


@pytest.mark.parametrize("seed", range(3))
def test_swaps_and_moves_update_loads_like_a_recount(seed):
    rng, m, g, nn, task_node, msg, data, msgs = _setup(seed)
    rows, expected_node = _random_rows(rng, nn, task_node, 60)
    assert (rows[:, 1] < 0).sum() > 10 and (rows[:, 1] >= 0).sum() > 10  # both kinds exercised
    _graphmap.apply_swaps_incrementally(*msg, task_node, nn.net, rows, data, msgs, m.link_bandwidths())
    assert np.array_equal(task_node, expected_node)
    fresh = metrics.link_loads(g, m, nn.task_procs(task_node))
    assert np.array_equal(msgs, fresh.messages)
    assert np.array_equal(data, fresh.data)


def test_a_move_needs_its_target_node():
    rng, m, g, nn, task_node, msg, data, msgs = _setup(0)
    with pytest.raises(ValueError, match="third column"):
        _graphmap.apply_swaps_incrementally(*msg, task_node, nn.net, np.array([[0, -1]], dtype=np.int64),
                                            data, msgs, m.link_bandwidths())


def _touched_links(g, m, nn, node, tasks):
    """Links on the routes of every message sent or received by ``tasks`` (node assignment)."""
    src = g.sources()
    keep = np.isin(src, tasks) | np.isin(g.indices, tasks)
    sub = TaskGraph.from_edges(src[keep], g.indices[keep], g.weights[keep], n_tasks=g.n_tasks)
    return metrics.link_loads(sub, m, nn.task_procs(node)).messages > 0


@pytest.mark.parametrize("objective", [0, 1])
def test_trial_decides_like_a_brute_force_and_leaves_no_trace(objective):
    rng, m, g, nn, task_node, msg, data, msgs = _setup(5)
    bw = m.link_bandwidths()

    def obj(loads):
        return loads.data / bw if objective == 0 else loads.messages.astype(float)

    before = obj(metrics.link_loads(g, m, nn.task_procs(task_node)))
    hot, m_old = int(np.argmax(before)), float(before.max())
    # single relocations from the start mapping: moves to free nodes and swaps, many touching the hot link
    free = np.flatnonzero(np.bincount(task_node, minlength=nn.n_nodes) < nn.capacity)
    rows = np.array([(t, -1, b) for t in range(task_node.size) for b in free[:4]]
                    + [(t, s, 0) for t in range(0, task_node.size, 3) for s in range(t + 1, task_node.size)
                       if task_node[t] != task_node[s]], dtype=np.int64)
    node0, data0, msgs0 = task_node.copy(), data.copy(), msgs.copy()
    accepted = _graphmap.trial_relocations(*msg, task_node, nn.net, rows, data, msgs, bw, objective, hot, m_old)
    # the trials moved, looked and undid: mapping and loads exactly as before
    assert np.array_equal(task_node, node0) and np.array_equal(msgs, msgs0) and np.array_equal(data, data0)
    expected = np.zeros(rows.shape[0], dtype=np.uint8)
    for i, (t, s, b) in enumerate(rows):
        node = node0.copy()
        if s >= 0:
            node[t], node[s] = node0[s], node0[t]
        else:
            node[t] = b
        after = obj(metrics.link_loads(g, m, nn.task_procs(node)))
        touched = _touched_links(g, m, nn, node, [t] if s < 0 else [t, s])
        peak = after[touched].max() if touched.any() else 0.0
        expected[i] = after[hot] < before[hot] - 1e-12 and peak < m_old - 1e-12
    assert 0 < expected.sum() < expected.size  # both outcomes occur
    lowers_hot = _graphmap.trial_relocations(*msg, task_node, nn.net, rows, data, msgs, bw, objective, hot, np.inf)
    assert (lowers_hot > accepted).any()  # some lower the hot link but load another one to the old maximum
    assert np.array_equal(accepted, expected)


@pytest.mark.parametrize("objective", [0, 1])
def test_refine_congestion_kernel_leaves_loads_equal_to_a_recount(objective):
    rng, m, g, nn, task_node, msg, data, msgs = _setup(7, n_tasks=48, n_edges=300)
    bw = m.link_bandwidths()
    start = task_node.copy()
    tptr, tadj, tw = gm._undirected(g)
    peak0 = (data / bw).max() if objective == 0 else msgs.max()
    it, swaps = _graphmap.refine_congestion(*msg, tptr, tadj, tw, nn.capacity, nn.net, bw, objective,
                                            8, 16, 500, task_node, data, msgs)
    assert swaps > 5
    # some accepted relocations were moves to free cores: the node occupancy changed
    assert not np.array_equal(np.bincount(task_node, minlength=nn.n_nodes),
                              np.bincount(start, minlength=nn.n_nodes))
    fresh = metrics.link_loads(g, m, nn.task_procs(task_node))
    assert np.array_equal(msgs, fresh.messages)
    assert np.array_equal(data, fresh.data)
    assert ((data / bw).max() if objective == 0 else msgs.max()) < peak0


def test_a_failed_route_buffer_allocation_raises_memory_error():
    # a 1-D torus of 2**60 routers: its route buffer (1 + 2**60 links of 8 bytes) cannot be allocated
    i64 = np.int64
    net = _graphmap.make_net(np.zeros((2, 1), dtype=i64), np.array([2**60], dtype=i64), np.zeros(1, dtype=np.uint8),
                             np.array([0, 2], dtype=i64), np.array([0, 1], dtype=i64), np.zeros(2, dtype=i64),
                             np.zeros((0, 0), dtype=np.int32))
    ptr, adj, w = np.array([0, 1, 2], dtype=i64), np.array([1, 0], dtype=i64), np.ones(2)
    task_node = np.array([0, 1], dtype=i64)
    data, msgs, bw = np.zeros(4), np.zeros(4, dtype=i64), np.ones(4)
    with pytest.raises(MemoryError, match="route buffer"):
        _graphmap.link_loads_nodes(ptr, adj, w, task_node, net, data, msgs)
    with pytest.raises(MemoryError, match="route buffer"):
        _graphmap.apply_swaps_incrementally(ptr, adj, w, ptr, adj, w, task_node, net,
                                            np.array([[0, 1]], dtype=i64), data, msgs, bw)
    with pytest.raises(MemoryError, match="route buffer"):
        _graphmap.refine_congestion(ptr, adj, w, ptr, adj, w, ptr, adj, w, np.ones(2, dtype=i64), net, bw,
                                    0, 8, 16, 10, task_node, data, msgs)
    assert task_node.tolist() == [0, 1] and not data.any() and not msgs.any()  # nothing was touched
