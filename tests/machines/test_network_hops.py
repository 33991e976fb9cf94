"""The compiled hop formulas off the torus (node metrics): equal to the routes' lengths and to brute force."""

import numpy as np
import pytest

from mpitaskmap import InvalidInputError
from mpitaskmap._graphmap import _py_level_nodes, make_net
from mpitaskmap.machines.base import NEAREST_NODES
from mpitaskmap.machines import DragonflyMachine, FatTreeMachine, FlatMachine, PercsMachine, torus_machine
from mpitaskmap.machines.dragonfly.presets import dragonfly_machine
from mpitaskmap.machines.fattree.presets import fattree_machine
from mpitaskmap.machines.network_hops import NodeMetric, label_hops
from mpitaskmap.machines.percs.network import NODES_PER_SUPERNODE, PROCS_PER_NODE


def _pairs(machine, count, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, machine.n_procs, count), rng.integers(0, machine.n_procs, count)


@pytest.mark.parametrize("machine", [
    dragonfly_machine(n_groups=5, switches=4, nodes_per_switch=2, global_links=2, nodes=30, seed=1),
    dragonfly_machine(n_groups=7, switches=(2, 3), nodes_per_switch=3, global_links=3, global_ports=4, nodes=80, seed=2),
    fattree_machine(leaves=8, nodes_per_leaf=4, taper=2, nodes=20, seed=3),
    fattree_machine(leaves=8, nodes_per_leaf=2, levels=3, nodes=12, ppn=2, seed=4),
], ids=["slingshot", "aries", "fattree2", "fattree3"])
def test_single_path_hops_are_the_routes_lengths(machine):
    # minimal dragonfly / d-mod-k fat tree: one path per pair, so the formula must count exactly
    # the links the machine routes over (node links included)
    src, dst = _pairs(machine, 3000, 0)
    assert np.array_equal(machine.hops(src, dst), machine.routes(src, dst).lengths.astype(np.int64))


def _dragonfly_reference(m, u, v, minimal):
    n, S, C, G, h = m.nodes_per_switch, m.switches_per_group, m.columns, m.n_groups, m.global_links

    def local(s, t):
        return int(s % C != t % C) + int(s // C != t // C)

    if u == v:
        return 0
    (ga, s), (gb, t) = divmod(u // n, S), divmod(v // n, S)
    if ga == gb:
        return 2 + local(s, t)
    links = [(u + v) % h] if minimal else range(h)
    return 3 + min(local(s, int(m.global_switch(ga, gb, j))) + local(int(m.global_switch(gb, ga, j)), t)
                   for j in links)


@pytest.mark.parametrize("routing", ["minimal", "ecmp", "valiant"])
def test_dragonfly_hops_equal_a_reference(routing):
    m = dragonfly_machine(n_groups=5, switches=(2, 3), nodes_per_switch=2, global_links=3, global_ports=3, nodes=50,
                          seed=5).with_routing(routing)
    src, dst = _pairs(m, 2000, 1)
    u, v = m.node_ids[src].tolist(), m.node_ids[dst].tolist()
    want = [_dragonfly_reference(m, a, b, routing == "minimal") for a, b in zip(u, v)]
    assert m.hops(src, dst).tolist() == want
    if routing != "minimal":  # the shortest of the pair's h global links: shorter than the static one somewhere
        static = m.with_routing("minimal").hops(src, dst)
        assert (m.hops(src, dst) <= static).all() and (m.hops(src, dst) < static).any()


def _percs_reference(gp, gq, w):
    a, u = divmod(gp, NODES_PER_SUPERNODE)
    b, v = divmod(gq, NODES_PER_SUPERNODE)
    if gp == gq:
        return 0
    if a == b:
        return 1
    src_gw, dst_gw = u % w == b % w, v % w == a % w
    if src_gw and dst_gw and u // w == v // w:
        return 1
    return 2 if src_gw or dst_gw else 3


@pytest.mark.parametrize("n_d", [1, 2, 4, 8])
def test_percs_hops_equal_the_direct_route_rule(n_d):
    m = PercsMachine(4, n_d)
    src, dst = _pairs(m, 3000, n_d)
    want = [_percs_reference(int(p) // PROCS_PER_NODE, int(q) // PROCS_PER_NODE, NODES_PER_SUPERNODE // n_d) for p, q in zip(src, dst)]
    assert m.hops(src, dst).tolist() == want


def test_flat_hops_and_metric():
    m = FlatMachine([4, 4, 9, 2], inter_node_hops=3)
    assert m.hops([0, 0, 0, 2], [1, 2, 3, 3]).tolist() == [0, 3, 3, 3]
    metric = m.node_metric()
    assert metric.kind == "flat" and metric.labels[:, 0].tolist() == [2, 4, 9]
    assert metric.hops([0, 0, 1], [0, 2, 2]).tolist() == [0, 3, 3]


@pytest.mark.parametrize("machine", [
    dragonfly_machine(n_groups=6, switches=(2, 2), nodes_per_switch=2, global_links=2, global_ports=3, nodes=40, ppn=2,
                      seed=6),
    fattree_machine(leaves=16, nodes_per_leaf=4, taper=4, nodes=50, ppn=3, seed=7),
    PercsMachine(3, 4),
    FlatMachine(np.repeat([7, 1, 5, 3], 2)),
], ids=["dragonfly", "fattree", "percs", "flat"])
def test_node_metric_is_the_machines_hops_and_the_kernels_distance(machine):
    view = machine.node_view()
    metric = machine.node_metric()
    assert metric is machine.node_metric()  # cached
    n = view.n_nodes
    assert metric.labels.shape[0] == n and not metric.labels.flags.writeable
    a, b = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    full = machine.hops(view.representative[a], view.representative[b]).reshape(n, n)
    assert np.array_equal(metric.hops(a, b).reshape(n, n), full)
    # the nearest nodes of every node are brute force's order (hops, then index), cached
    near = machine.nearest_nodes()
    width = min(n, NEAREST_NODES)
    want = np.array([np.lexsort((np.arange(n), full[v]))[:width] for v in range(n)])
    assert np.array_equal(near, want) and machine.nearest_nodes() is near and not near.flags.writeable
    # the kernel measures with the same formula: its candidates are brute force's, and those of
    # the matrix mode built from the machine's own hops
    kw = dict(metric=metric.code, metric_params=metric.params, metric_labels=metric.labels, near=near)
    net = make_net(np.zeros((n, 1), dtype=np.int64), np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.uint8),
                   np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(n, dtype=np.int64),
                   np.zeros((0, 0), dtype=np.int32), **kw)
    matrix_net = make_net(np.zeros((n, 1), dtype=np.int64), np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.uint8),
                          np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(n, dtype=np.int64),
                          full.astype(np.int32), near=near)
    rng = np.random.default_rng(3)
    for _ in range(40):
        sources = rng.integers(0, n, size=rng.integers(1, 4)).tolist()
        exclude, want_n = int(rng.integers(-1, n)), int(rng.integers(1, 80))
        mind = full[sources].min(axis=0)
        order = [v for v in np.lexsort((np.arange(n), mind)).tolist() if v != exclude][:want_n]
        assert _py_level_nodes(net, sources, exclude, want_n) == order
        assert _py_level_nodes(matrix_net, sources, exclude, want_n) == order
        cap = rng.integers(0, 2, size=n)
        if cap.any():
            level = mind[cap > 0].min()
            free = sorted(np.flatnonzero((cap > 0) & (mind == level)).tolist())
            assert sorted(_py_level_nodes(net, sources, -1, 1, cap)) == free


@pytest.mark.parametrize("machine", [
    dragonfly_machine(n_groups=8, switches=(2, 4), nodes_per_switch=4, global_links=2, global_ports=4, nodes=220,
                      ppn=1, seed=3),
    fattree_machine(leaves=32, nodes_per_leaf=8, taper=4, nodes=200, ppn=1, seed=4),
], ids=["dragonfly", "fattree"])
def test_nearest_free_level_past_the_near_lists_is_brute_forces(machine):
    # More nodes than a near list holds: the free level comes from the sources' lists when every
    # list reaches past it, else from a scan of every node.  Sparse capacity puts the nearest free
    # node past some lists (the scan), dense capacity within them; both are brute force's answer.
    view, metric = machine.node_view(), machine.node_metric()
    n = view.n_nodes
    assert n > NEAREST_NODES
    a, b = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    full = metric.hops(a, b).reshape(n, n)
    near = machine.nearest_nodes()
    net = make_net(np.zeros((n, 1), dtype=np.int64), np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.uint8),
                   np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(n, dtype=np.int64),
                   np.zeros((0, 0), dtype=np.int32), metric=metric.code, metric_params=metric.params,
                   metric_labels=metric.labels, near=near)
    radius = full[np.arange(n), near[:, -1]]  # a list holds every node nearer than this
    rng = np.random.default_rng(11)
    within = beyond = 0
    for trial in range(400):
        density = (0.01, 0.05, 0.3, 0.9)[trial % 4]
        cap = (rng.random(n) < density).astype(np.int64)
        if not cap.any():
            continue
        sources = rng.integers(0, n, size=rng.integers(1, 7)).tolist()
        mind = full[sources].min(axis=0)
        level = mind[cap > 0].min()
        free = np.flatnonzero((cap > 0) & (mind == level)).tolist()
        assert _py_level_nodes(net, sources, -1, 1, cap) == free, (sources, level)
        if (radius[sources] > level).all():
            within += 1
        else:
            beyond += 1
    assert within > 50 and beyond > 50, (within, beyond)


def test_torus_has_no_node_metric_and_bad_metrics_are_refused():
    assert torus_machine([4, 4]).node_metric() is None
    with pytest.raises(InvalidInputError, match="kind: expected one of"):
        NodeMetric.build("ring", [1], [[0]])
    with pytest.raises(InvalidInputError, match="params: at most 8 values; got 9"):
        label_hops("flat", range(9), [[0]], [[1]])
    with pytest.raises(InvalidInputError, match=r"labels: expected two \(n, width >= 1\) arrays of one shape"):
        label_hops("flat", [1], [[0], [1]], [[1]])


def test_fat_tree_levels_and_dragonfly_formula_by_hand():
    # two leaves of two nodes under one spine: 2 within a leaf, 4 across
    t = FatTreeMachine([[0, 0, 1, 1], [0, 0, 0, 0]], [1, 1], [10.0, 10.0], [0, 1, 2, 3])
    assert t.hops([0, 0, 0], [0, 1, 3]).tolist() == [0, 2, 4]
    assert t.node_metric().labels.tolist() == [[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0]]
    # 3 groups of 3 all-to-all switches, 1 node each, one global link per group pair on switch
    # (0 * 3 + peer) // 1 = peer: node 0 (g0 s0) -> node 4 (g1 s1): g0's link to g1 sits on s1
    # (1 local), arrives at g1's s0 (link to g0), 1 local to s1: 2 + 1 + 2 = 5
    d = DragonflyMachine(3, 3, 1, range(9))
    assert d.hops([0, 0, 0, 0], [0, 1, 4, 3]).tolist() == [0, 3, 5, 4]


def _minimal_route_reference(m, u, v):
    """The minimal path by the machine's own NumPy link helpers: up, local legs, global link (u + v) mod h, down."""
    if u == v:
        return []
    n, S = m.nodes_per_switch, m.switches_per_group
    (ga, s), (gb, t) = divmod(u // n, S), divmod(v // n, S)

    def legs(g, a, b):
        return [int(x) for x in m._local_links(np.array([g]), np.array([a]), np.array([b]))[0] if x >= 0]

    if ga == gb:
        middle = legs(ga, s, t)
    else:
        j = (u + v) % m.global_links
        middle = (legs(ga, s, int(m.global_switch(ga, gb, j))) + [int(m._global_link(ga, gb, j))]
                  + legs(gb, int(m.global_switch(gb, ga, j)), t))
    return [u] + middle + [m.n_network_nodes + v]


@pytest.mark.parametrize("switches, links, ports", [(4, 2, None), ((2, 3), 3, 4), ((3, 4), 1, None)])
def test_minimal_dragonfly_routes_by_formula_are_the_reference_path(switches, links, ports):
    m = dragonfly_machine(n_groups=6, switches=switches, nodes_per_switch=2, global_links=links, global_ports=ports,
                          nodes=40, seed=7)
    src, dst = _pairs(m, 1500, 2)
    routes = m.routes(src, dst)
    assert (routes.fractions == 1.0).all()
    for i, (p, q) in enumerate(zip(src, dst)):
        got = routes.links[routes.indptr[i]:routes.indptr[i + 1]].tolist()
        assert got == _minimal_route_reference(m, int(m.node_ids[p]), int(m.node_ids[q])), (p, q)
    # the spread routings are no formula: their metric carries no routes, the kernels table them
    assert m.node_metric().route_params is not None and m.with_routing("ecmp").node_metric().route_params is None
