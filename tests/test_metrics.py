"""Metrics: hand-computed small cases and brute-force references on random cases."""

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, TaskGraph, TorusMachine, evaluate, torus_machine
from mpitaskmap import metrics

from reference import ref_link_bw, ref_metrics

RING_MAPPING = [0, 2, 1, 3]  # tasks of a periodic 4-ring scattered on a 4-ring of routers


@pytest.fixture
def ring():
    return TaskGraph.stencil([4], periodic=True), torus_machine([4], bandwidth=[[1.0, 2.0, 1.0, 2.0]])


def test_identity_on_matching_torus_is_one_hop_per_edge():
    g = TaskGraph.stencil([4, 4], periodic=True)
    m = torus_machine([4, 4])
    values = evaluate(g, m, np.arange(16))
    assert values["total_hops"] == 64 and values["weighted_hops"] == 64.0
    assert values["average_hops"] == 1.0 and values["max_hops"] == 1
    assert values["max_messages"] == 1 and values["average_messages"] == 1.0
    rows = {r["link"]: r for r in metrics.link_loads(g, m, np.arange(16)).by_class()}
    assert [rows[k]["used_links"] for k in ("X+", "X-", "Y+", "Y-")] == [16, 16, 16, 16]


def test_scattered_ring_hand_computed(ring):
    g, m = ring
    # hops t0-t1: 2, t1-t2: 1, t2-t3: 2, t3-t0: 1, both directions.
    assert metrics.total_hops(g, m, RING_MAPPING) == 12
    assert metrics.edge_hops(g, m, RING_MAPPING).tolist() == [2, 1, 2, 1, 1, 2, 1, 2]  # CSR order
    loads = metrics.link_loads(g, m, RING_MAPPING)
    # X+ messages leaving routers 0..3: 2, 3, 2, 3 (ties of length 2 go +); X-: router 2 and router 0.
    plus = loads.messages.reshape(4, 1, 2)[:, 0, 0].tolist()
    minus = loads.messages.reshape(4, 1, 2)[:, 0, 1].tolist()
    assert plus == [2, 3, 2, 3] and minus == [1, 0, 1, 0]
    assert loads.max_messages() == 3 and loads.average_messages() == 2.0
    # latency: X+ r uses bw[r] = 1,2,1,2; X- r uses bw[r-1].
    assert loads.max_latency() == 2.0
    assert loads.average_latency() == pytest.approx((2 + 1.5 + 2 + 1.5 + 0.5 + 0.5) / 6)
    rows = {r["link"]: r for r in loads.by_class()}
    assert rows["X+"]["total_data"] == 10 and rows["X+"]["used_links"] == 4
    assert rows["X-"]["total_data"] == 2 and rows["X-"]["used_links"] == 2


def test_weights_scale_weighted_hops_and_data():
    g = TaskGraph.from_edges([0, 1], [1, 0], [5.0, 2.0], n_tasks=2)
    m = TorusMachine([[0, 0], [2, 1]], dims=[4, 4])
    assert metrics.weighted_hops(g, m, [0, 1]) == 5.0 * 3 + 2.0 * 3
    assert metrics.max_data(g, m, [0, 1]) == 5.0


def test_edges_within_a_router_cross_no_link():
    g = TaskGraph.from_edges([0], [1], [7.0], n_tasks=2)
    m = TorusMachine([[1, 1], [1, 1]], dims=[3, 3], node_ids=[0, 1])
    assert metrics.weighted_hops(g, m, [0, 1]) == 0.0
    assert metrics.link_loads(g, m, [0, 1]).n_used() == 0
    assert metrics.average_messages(g, m, [0, 1]) == 0.0


@pytest.mark.parametrize("seed", range(8))
def test_metrics_match_brute_force_reference(seed):
    rng = np.random.default_rng(100 + seed)
    n_dims = int(rng.integers(1, 4))
    dims = rng.integers(2, 6, size=n_dims)
    wrap = rng.random(n_dims) < 0.5
    n_procs = 25
    coords = np.stack([rng.integers(0, d, size=n_procs) for d in dims], axis=1)
    bw = [rng.uniform(0.5, 3.0, size=d) for d in dims]
    m = TorusMachine(coords, dims=dims, wrap=wrap, bandwidth=bw)
    n_tasks = 40
    src = rng.integers(0, n_tasks, size=120)
    dst = rng.integers(0, n_tasks, size=120)
    w = rng.uniform(0, 10, size=120)
    g = TaskGraph.from_edges(src, dst, w, n_tasks=n_tasks)
    ttp = rng.integers(0, n_procs, size=n_tasks)
    th, wh, mh, data, msgs = ref_metrics(g.sources(), g.indices, g.weights, ttp, coords, dims, wrap, bw)
    assert metrics.total_hops(g, m, ttp) == th
    assert metrics.weighted_hops(g, m, ttp) == pytest.approx(wh, rel=1e-12)
    assert metrics.max_hops(g, m, ttp) == mh
    loads = metrics.link_loads(g, m, ttp)
    nz = np.flatnonzero(loads.messages)
    assert sorted(nz.tolist()) == sorted(msgs)
    for lid in nz:
        assert loads.messages[lid] == msgs[lid]
        assert loads.data[lid] == pytest.approx(data[lid], rel=1e-12)
        assert loads.bandwidth[lid] == ref_link_bw(int(lid), list(dims), bw)
    lat = {lid: data[lid] / ref_link_bw(lid, list(dims), bw) for lid in data}
    if lat:
        assert loads.max_latency() == pytest.approx(max(lat.values()))
        assert loads.average_latency() == pytest.approx(sum(lat.values()) / len(lat))
        assert loads.average_messages() == pytest.approx(sum(msgs.values()) / len(msgs))
        assert loads.max_data() == pytest.approx(max(data.values()))


def test_metrics_invariant_under_task_relabelling():
    rng = np.random.default_rng(7)
    g = TaskGraph.stencil([4, 3, 2], weight=1.0)  # sized, as the relabelled copy built from its weights is
    m = torus_machine([3, 2, 4])
    ttp = rng.permutation(24)
    perm = rng.permutation(24)  # new id of old task t is perm[t]
    inv = np.argsort(perm)
    g2 = TaskGraph.from_edges(perm[g.sources()], perm[g.indices], g.weights, n_tasks=24)
    a = evaluate(g, m, ttp)
    b = evaluate(g2, m, ttp[inv])
    assert a == pytest.approx(b)


def test_evaluate_rejects_unknown_metric_listing_valid_names():
    g = TaskGraph.stencil([2])
    with pytest.raises(ValueError, match=r"unknown name 'hops'; valid: \['average_hops'"):
        evaluate(g, torus_machine([2]), [0, 1], ["hops"])


def test_task_to_proc_validation():
    g = TaskGraph.stencil([3])
    with pytest.raises(InvalidInputError, match="expected length 3; got 2"):
        metrics.total_hops(g, torus_machine([3]), [0, 1])
    with pytest.raises(InvalidInputError, match=r"out of range \[0, 3\) at position 2; got 5"):
        metrics.total_hops(g, torus_machine([3]), [0, 1, 5])
