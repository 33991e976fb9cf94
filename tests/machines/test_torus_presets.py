"""The tori presets (machines/torus/presets.py): laptop tori, Titan-like allocations, BG/Q blocks, Hopper data."""

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, bgq_machine, hopper_machine, titan_machine, torus_machine
from mpitaskmap.machines.torus.presets import alps_node_order


def test_torus_machine_rank_order_and_nodes():
    m = torus_machine([3, 2], cores_per_node=2, nodes_per_router=2)
    assert m.n_procs == 24 and m.n_nodes == 12
    assert m.router_coords[:5].tolist() == [[0, 0]] * 4 + [[1, 0]]
    assert m.node_ids[:6].tolist() == [0, 0, 1, 1, 2, 2]
    assert m.router_coords[-1].tolist() == [2, 1]


def test_alps_order_is_a_permutation_with_router_nodes_adjacent():
    order = alps_node_order([5, 3, 4], 2)
    assert sorted(order.tolist()) == list(range(5 * 3 * 4 * 2))
    assert np.all(order[1::2] == order[::2] + 1)


def test_titan_allocation_is_deterministic_sparse_and_fills_nodes():
    a = titan_machine(128, cores_per_node=4, seed=3)
    b = titan_machine(128, cores_per_node=4, seed=3)
    c = titan_machine(128, cores_per_node=4, seed=4)
    assert np.array_equal(a.router_coords, b.router_coords) and np.array_equal(a.node_ids, b.node_ids)
    assert not np.array_equal(a.node_ids, c.node_ids)
    assert a.n_procs == 512 and a.n_nodes == 128
    assert np.all(np.diff(a.node_ids.reshape(128, 4), axis=1) == 0)
    assert a.dims.tolist() == [25, 16, 24]
    # with half the machine busy, the job's nodes are not the first 128 of the curve
    first = alps_node_order([25, 16, 24], 2)[:128]
    assert set(np.unique(a.node_ids)) != set(first.tolist())
    # an empty machine hands out exactly the first nodes of the curve, in order
    empty = titan_machine(128, cores_per_node=1, busy_fraction=0.0)
    assert empty.node_ids.tolist() == first.tolist()


def test_titan_busy_fraction_is_roughly_respected():
    m = titan_machine(1000, cores_per_node=1, busy_fraction=0.5, seed=0)
    all_nodes = alps_node_order([25, 16, 24], 2)
    last = int(np.flatnonzero(np.isin(all_nodes, m.node_ids)).max())
    busy_before = (last + 1 - 1000) / (last + 1)
    assert 0.3 < busy_before < 0.7


def test_titan_too_many_nodes():
    with pytest.raises(InvalidInputError, match="only .* of 19200 nodes are free"):
        titan_machine(15000, busy_fraction=0.5)


def test_bgq_abcdet_fills_nodes_and_tabcde_spreads_along_e():
    m = bgq_machine((2, 2, 2, 2, 2), ranks_per_node=4, order="ABCDET")
    assert m.n_procs == 128 and m.n_nodes == 32
    assert m.router_coords[:4].tolist() == [[0, 0, 0, 0, 0]] * 4
    assert m.router_coords[4].tolist() == [0, 0, 0, 0, 1]
    t = bgq_machine((2, 2, 2, 2, 2), ranks_per_node=4, order="TABCDE")
    assert t.router_coords[:3].tolist() == [[0, 0, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 1, 0]]
    assert t.router_coords[32].tolist() == [0, 0, 0, 0, 0]  # T changes slowest
    assert sorted(map(tuple, t.router_coords.tolist())) == sorted(map(tuple, m.router_coords.tolist()))
    assert m.dim_names == ["A", "B", "C", "D", "E"]


def test_bgq_bad_order_and_shape():
    with pytest.raises(InvalidInputError, match="permutation of 'ABCDET'"):
        bgq_machine(order="ABCDEX")
    with pytest.raises(InvalidInputError, match="5 lengths"):
        bgq_machine((4, 4, 4))


def test_hopper_real_allocation_groups_nodes():
    m = hopper_machine()
    assert m.n_procs == 512 and m.dims.tolist() == [17, 8, 24]
    sizes = np.bincount(m.node_ids)
    assert sorted(sizes.tolist()) == [8] + [24] * 21
    assert len(np.unique(m.router_ids())) == 15
    assert m.router_coords[0].tolist() == [2, 4, 13]
    assert m.router_coords[:, 0].max() == 10 and m.router_coords[:, 2].max() == 20
