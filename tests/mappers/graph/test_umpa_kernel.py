"""UMPa's refinement kernel: incremental link loads of the congestion refinement (cext/_graphmap.pyx).

The refinement keeps Data(e) and Congestion(e) up to date by removing and re-adding only
the routes of moved tasks, and tries each candidate swap or move by moving, looking and
undoing.  These tests compare that bookkeeping with a from-scratch recount
(:func:`mpitaskmap.metrics.link_loads`, and a message-by-message brute force over
:meth:`Machine.routes`) and the trial's decision with a brute force, in both route modes:
the torus's routes computed in the kernel, and the route table of a machine known only by
its contract (the test ring, with single paths or split ones: ``ring_variants.py``).  Integer
weights and fractions of 1/2 keep every sum exact, so the comparisons are exact.
"""

import numpy as np
import pytest

from mpitaskmap import TaskGraph, metrics, titan_machine
from mpitaskmap import _graphmap, _hops
from mpitaskmap.machines.base import NEAREST_NODES
from mpitaskmap.machines.network_hops import METRIC_PARAMS
from mpitaskmap.mappers.graph import umpa
from mpitaskmap.mappers.graph.node_network import NodeNetwork, _undirected
from ring_variants import RingMachine, SplitRing, assert_loads_are_a_recount


#: The machines of the tests by route mode: a sparse Titan allocation (torus routes in the
#: kernel, or forced into a table), the ring (a table of single paths) and the split ring.
MACHINES = ("torus", "torus table", "ring", "split ring")


def make_machine(kind, seed=0, n_nodes=24):
    """The machine and its kernel network (with routes) of one of :data:`MACHINES`.

    Titan: ``n_nodes`` nodes of 4 cores; the ring: 6 routers of 2 nodes of 6 cores (room
    for 40 tasks to move between its 12 nodes).
    """
    if kind.startswith("torus"):
        m = titan_machine(n_nodes, cores_per_node=4, seed=seed)
    else:
        m = (RingMachine if kind == "ring" else SplitRing)(6, nodes_per_router=2, cores=6)
    nn = NodeNetwork(m, routes=True, _route_table=kind == "torus table")
    assert nn.routing == ("torus" if kind == "torus" else "table")
    return m, nn


def _setup(seed, kind="torus", n_tasks=40, n_edges=180, n_nodes=24):
    """A random graph on a machine of :data:`MACHINES` with free cores; loads counted from scratch."""
    rng = np.random.default_rng(seed)
    m, nn = make_machine(kind, seed, n_nodes)
    g = TaskGraph.from_edges(rng.integers(0, n_tasks, n_edges), rng.integers(0, n_tasks, n_edges),
                             rng.integers(1, 6, n_edges), n_tasks=n_tasks)
    task_node = nn.task_nodes(rng.permutation(m.n_procs)[:n_tasks])
    msg = (g.indptr.astype(np.int64), g.indices.astype(np.int64), g.weights) + tuple(umpa._incoming(g))
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


@pytest.mark.parametrize("kind", MACHINES)
def test_loads_from_scratch_are_a_recount(kind):
    rng, m, g, nn, task_node, msg, data, msgs = _setup(1, kind)
    assert_loads_are_a_recount(g, m, nn, task_node, data, msgs)
    if kind == "split ring":  # split routes count data by fraction: some link holds a half
        assert (data % 1 == 0.5).any()


@pytest.mark.parametrize("kind", MACHINES)
@pytest.mark.parametrize("seed", range(3))
def test_swaps_and_moves_update_loads_like_a_recount(seed, kind):
    rng, m, g, nn, task_node, msg, data, msgs = _setup(seed, kind)
    rows, expected_node = _random_rows(rng, nn, task_node, 60)
    assert (rows[:, 1] < 0).sum() > 10 and (rows[:, 1] >= 0).sum() > 10  # both kinds exercised
    _graphmap.apply_swaps_incrementally(*msg, task_node, nn.net, rows, data, msgs, m.link_bandwidths())
    assert np.array_equal(task_node, expected_node)
    assert_loads_are_a_recount(g, m, nn, task_node, data, msgs)


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


@pytest.mark.parametrize("kind, seed", [("torus", 5), ("split ring", 3)])
@pytest.mark.parametrize("objective", [0, 1])
def test_trial_decides_like_a_brute_force_and_leaves_no_trace(objective, kind, seed):
    rng, m, g, nn, task_node, msg, data, msgs = _setup(seed, kind)
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


@pytest.mark.parametrize("kind", MACHINES)
@pytest.mark.parametrize("objective", [0, 1])
def test_refine_congestion_kernel_leaves_loads_equal_to_a_recount(objective, kind):
    rng, m, g, nn, task_node, msg, data, msgs = _setup(7, kind, n_tasks=40, n_edges=300)
    bw = m.link_bandwidths()
    start = task_node.copy()
    tptr, tadj, tw = _undirected(g)
    peak0 = (data / bw).max() if objective == 0 else msgs.max()
    it, swaps = _graphmap.refine_congestion(*msg, tptr, tadj, tw, nn.capacity, nn.net, bw, objective,
                                            8, 16, 500, task_node, data, msgs)
    assert swaps > 5
    # some accepted relocations were moves to free cores: the node occupancy changed
    assert not np.array_equal(np.bincount(task_node, minlength=nn.n_nodes),
                              np.bincount(start, minlength=nn.n_nodes))
    assert_loads_are_a_recount(g, m, nn, task_node, data, msgs)
    assert ((data / bw).max() if objective == 0 else msgs.max()) < peak0


@pytest.mark.parametrize("objective", ["latency", "max_messages"])
@pytest.mark.parametrize("seed", range(3))
def test_the_route_table_of_a_torus_gives_the_torus_modes_mapping(seed, objective):
    # one refinement loop, the route lookup switched: the table of the torus's own routes must
    # reproduce every swap of the on-the-fly routes (same distances and BFS in both)
    rng = np.random.default_rng(seed)
    m = titan_machine(32, cores_per_node=4, seed=seed)
    g = TaskGraph.from_edges(rng.integers(0, 100, 500), rng.integers(0, 100, 500), rng.integers(1, 9, 500),
                             n_tasks=100)
    start = rng.permutation(m.n_procs)[:100]
    results = []
    for forced in (False, True):
        nn = NodeNetwork(m, routes=True, _route_table=forced)
        assert nn.routing == ("table" if forced else "torus")
        task_node = nn.task_nodes(start)
        it, swaps, data, msgs = umpa._congestion_passes(nn, g, task_node, objective, 8, 16, 2000, None)
        results.append((task_node, swaps, data, msgs))
    (node_t, swaps_t, data_t, msgs_t), (node_x, swaps_x, data_x, msgs_x) = results
    assert swaps_t > 10 and swaps_x == swaps_t
    assert np.array_equal(node_x, node_t)
    assert np.array_equal(data_x, data_t) and np.array_equal(msgs_x, msgs_t)


def _ring_net(**table):
    """The kernel network of a 2-node machine at distance 1 (hop matrix), with a route table."""
    i64 = np.int64
    return _graphmap.make_net(np.zeros((2, 1), dtype=i64), np.ones(1, dtype=i64), np.zeros(1, dtype=np.uint8),
                              np.zeros(1, dtype=i64), np.zeros(0, dtype=i64), np.zeros(2, dtype=i64),
                              np.array([[0, 1], [1, 0]], dtype=np.int32), **table,
                              near=np.array([[0, 1], [1, 0]], dtype=i64))


def test_route_table_by_hand_and_its_checks():
    # node 0 -> 1 splits 3:1 over links 0 and 1; node 1 -> 0 takes link 2 (pairs 0-0, 0-1, 1-0, 1-1)
    good = dict(route_ptr=np.array([0, 0, 2, 3, 3]), route_links=np.array([0, 1, 2]),
                route_fractions=np.array([0.75, 0.25, 1.0]))
    net = _ring_net(**good)
    ptr, adj, w = np.array([0, 1, 2], dtype=np.int64), np.array([1, 0], dtype=np.int64), np.array([8.0, 2.0])
    data, msgs = np.zeros(3), np.zeros(3, dtype=np.int64)
    _graphmap.link_loads_nodes(ptr, adj, w, np.array([0, 1], dtype=np.int64), net, data, msgs)
    assert data.tolist() == [6.0, 2.0, 2.0] and msgs.tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="links up to 2; got 2 entries"):  # load arrays too short for the table
        _graphmap.link_loads_nodes(ptr, adj, w, np.array([0, 1], dtype=np.int64), net, np.zeros(2),
                                   np.zeros(2, dtype=np.int64))
    bad = [({"route_ptr": np.array([0, 0, 2, 3])}, "expected 5 entries"),
           ({"route_ptr": np.array([0, 2, 0, 3, 3])}, "must rise from 0"),
           ({"route_fractions": np.array([0.75, 0.25])}, "route_fractions: expected shape"),
           ({"route_fractions": np.array([0.75, 0.0, 1.0])}, r"in \(0, 1\]"),
           ({"route_links": np.array([0, -1, 2])}, "must be >= 0")]
    for change, message in bad:
        with pytest.raises(ValueError, match=message):
            _ring_net(**dict(good, **change))
    with pytest.raises(ValueError, match="go together"):
        _ring_net(route_ptr=good["route_ptr"])
    # a hop-matrix net without a table has no routes: the congestion kernels refuse it
    with pytest.raises(ValueError, match="built without routes"):
        _graphmap.link_loads_nodes(ptr, adj, w, np.array([0, 1], dtype=np.int64), _ring_net(), data, msgs)


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


def test_matrix_candidates_from_the_nearest_table_equal_a_full_scan():
    # the first `want` nodes nearest the sources (ties: node id), skipping `exclude`: the
    # nearest-table shortcut must give exactly the full scan's answer, ties included
    rng = np.random.default_rng(7)
    for n, levels in ((40, 3), (150, 4), (300, 2)):
        ndist = rng.integers(1, levels + 1, size=(n, n)).astype(np.int32)
        ndist = np.minimum(ndist, ndist.T)
        np.fill_diagonal(ndist, 0)
        near = _hops.nearest_nodes(0, np.zeros(METRIC_PARAMS, dtype=np.int64), np.zeros((0, 1), dtype=np.int64),
                                   ndist, NEAREST_NODES)
        net = _graphmap.make_net(np.zeros((n, 1), dtype=np.int64), np.ones(1, dtype=np.int64),
                                 np.zeros(1, dtype=np.uint8), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                                 np.zeros(n, dtype=np.int64), ndist, near=near)
        assert near.shape == (n, min(n, NEAREST_NODES))
        assert np.array_equal(near[:, 0], np.arange(n))  # a node is nearest itself
        for _ in range(30):
            sources = rng.integers(0, n, size=rng.integers(1, 6)).tolist()
            exclude = int(rng.integers(-1, n))
            want = int(rng.integers(1, 70))
            mind = ndist[sources].min(axis=0).astype(np.int64)
            order = [v for v in np.lexsort((np.arange(n), mind)).tolist() if v != exclude][:want]
            assert _graphmap._py_level_nodes(net, sources, exclude, want) == order
