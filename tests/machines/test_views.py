"""Views of the machine in the machine layer: strides, node view, router slots, neighbours,
box shape, the link-model capability and the hop sums the base class derives."""

import pickle

import numpy as np
import pytest

import mpitaskmap.machines.views as machine_module
from mpitaskmap import FlatMachine, InvalidInputError, Machine, TaskGraph, TorusMachine, evaluate, titan_machine
from mpitaskmap.metrics import HOP_METRICS, LINK_METRICS, link_loads
from mpitaskmap.machines.percs import PercsMachine
from mpitaskmap.machines import BoxShape, strides


# -- strides ---------------------------------------------------------------------------------
def test_strides_dimension_zero_fastest():
    assert strides([4, 3, 2]).tolist() == [1, 4, 12]
    assert strides([5]).tolist() == [1]
    assert strides([]).tolist() == []
    assert strides(np.array([2, 2, 2, 2], dtype=np.int32)).dtype == np.int64
    # cell (3, 2, 1) of a 4x3x2 grid: 3 + 2*4 + 1*12
    assert int(np.array([3, 2, 1]) @ strides([4, 3, 2])) == 23


@pytest.mark.parametrize("bad", [[0, 2], [2.5], [[2, 2]], [-1]])
def test_strides_reject_bad_lengths(bad):
    with pytest.raises(InvalidInputError, match="dims: expected a 1-D sequence of positive integer lengths"):
        strides(bad)


# -- node view -------------------------------------------------------------------------------
def test_node_view_of_a_titan_like_machine():
    m = titan_machine(4, cores_per_node=2, seed=1)
    # two nodes per router: nodes 0, 1 on router (0,0,0), nodes 50, 51 on router (0,1,0) = id 25
    assert m.node_ids.tolist() == [0, 0, 1, 1, 50, 50, 51, 51]
    v = m.node_view()
    assert v.nodes.tolist() == [0, 1, 50, 51]
    assert v.capacity.tolist() == [2, 2, 2, 2]
    assert v.proc_ptr.tolist() == [0, 2, 4, 6, 8]
    assert v.procs.tolist() == list(range(8))
    assert v.node_of_proc.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert v.representative.tolist() == [0, 2, 4, 6]
    assert v.slot_in_node.tolist() == [0, 1, 0, 1, 0, 1, 0, 1]
    assert v.node_router.tolist() == [0, 0, 25, 25]
    assert v.router_ptr.shape == (25 * 16 * 24 + 1,)
    assert v.router_ptr[[0, 1, 25, 26, -1]].tolist() == [0, 2, 2, 4, 4]
    assert v.router_nodes.tolist() == [0, 1, 2, 3]
    assert [a.tolist() for a in m.node_capacity()] == [[0, 1, 50, 51], [2, 2, 2, 2]]
    assert m.n_nodes == 4


def test_node_view_of_a_shuffled_torus_allocation():
    # p0 (1,0) node 7; p1 (0,1) node 3; p2 (1,0) node 7; p3 (0,1) node 4; p4 (0,0) node 9
    m = TorusMachine([[1, 0], [0, 1], [1, 0], [0, 1], [0, 0]], dims=[2, 2], node_ids=[7, 3, 7, 4, 9])
    v = m.node_view()
    assert v.nodes.tolist() == [3, 4, 7, 9]
    assert v.capacity.tolist() == [1, 1, 2, 1]
    assert v.procs.tolist() == [1, 3, 0, 2, 4]
    assert v.proc_ptr.tolist() == [0, 1, 2, 4, 5]
    assert v.node_of_proc.tolist() == [2, 0, 2, 1, 3]
    assert v.representative.tolist() == [1, 3, 0, 4]
    assert v.slot_in_node.tolist() == [0, 0, 1, 0, 0]
    # router ids (x + 2y): node 3 -> 2, node 4 -> 2, node 7 -> 1, node 9 -> 0
    assert v.node_router.tolist() == [2, 2, 1, 0]
    assert v.router_ptr.tolist() == [0, 1, 2, 4, 4]  # router 0: node 9; 1: node 7; 2: nodes 3, 4; 3: none
    assert v.router_nodes.tolist() == [3, 2, 0, 1]
    # a torus view also has the generic node hop matrix
    assert v.hop_matrix().tolist() == [[0, 0, 2, 1], [0, 0, 2, 1], [2, 2, 0, 1], [1, 1, 1, 0]]


def test_node_view_of_a_flat_machine_and_its_hop_matrix():
    m = FlatMachine([5, 2, 5, 5, 9], inter_node_hops=2)
    v = m.node_view()
    assert v.nodes.tolist() == [2, 5, 9]
    assert v.capacity.tolist() == [1, 3, 1]
    assert v.procs.tolist() == [1, 0, 2, 3, 4]
    assert v.proc_ptr.tolist() == [0, 1, 4, 5]
    assert v.node_of_proc.tolist() == [1, 0, 1, 1, 2]
    assert v.representative.tolist() == [1, 0, 4]
    assert v.slot_in_node.tolist() == [0, 0, 1, 2, 0]
    assert v.node_router is None and v.router_ptr is None and v.router_nodes is None
    assert v.hop_matrix().tolist() == [[0, 2, 2], [2, 0, 2], [2, 2, 0]]
    assert v.hop_matrix().dtype == np.int32


def test_node_view_is_cached_read_only_and_not_pickled():
    m = FlatMachine([0, 0, 1])
    v = m.node_view()
    assert m.node_view() is v
    assert v.hop_matrix() is v.hop_matrix()
    with pytest.raises(ValueError, match="read-only"):
        v.capacity[0] = 5
    with pytest.raises(ValueError, match="read-only"):
        v.hop_matrix()[0, 0] = 5
    copy = pickle.loads(pickle.dumps(m))
    assert "_node_view" not in copy.__dict__
    assert copy.node_view().capacity.tolist() == [2, 1]


def test_node_hop_matrix_is_limited(monkeypatch):
    monkeypatch.setattr(machine_module, "MAX_MATRIX_NODES", 2)
    v = FlatMachine([0, 1, 2]).node_view()
    assert v.capacity.tolist() == [1, 1, 1]  # the view itself has no limit
    with pytest.raises(InvalidInputError, match="node hop matrix of a FlatMachine .* at most 2 nodes; got 3"):
        v.hop_matrix()


# -- processors by router --------------------------------------------------------------------
def test_router_slots_in_processor_order():
    m = TorusMachine([[1], [0], [1], [0], [1]], dims=[2])
    assert m.router_slots().tolist() == [0, 0, 1, 1, 2]
    shuffled = TorusMachine([[1, 0], [0, 1], [1, 0], [0, 1], [0, 0]], dims=[2, 2])
    assert shuffled.router_slots().tolist() == [0, 0, 1, 1, 0]


def test_procs_at_finds_router_and_slot():
    m = TorusMachine([[1], [0], [1], [0], [1]], dims=[3])
    rows = [[1, 2], [0, 1], [1, 0], [0, 0], [1, 3], [2, 0], [3, 0], [-1, 0], [0, -1]]
    procs, found = m.procs_at(rows)
    assert found.tolist() == [True, True, True, True, False, False, False, False, False]
    assert procs[found].tolist() == [4, 3, 0, 1]
    procs, found = m.procs_at([[1], [0]])  # no slot column: slot 0
    assert found.tolist() == [True, True] and procs.tolist() == [0, 1]
    with pytest.raises(InvalidInputError, match="coords: expected 2 columns"):
        m.procs_at([[0, 0, 0]])
    with pytest.raises(InvalidInputError, match="of integers"):
        m.procs_at([[0.5, 0.0]])


def test_neighbors_by_hand_on_a_ring_and_a_line():
    # p0 router 0, p1 router 3, p2 and p3 router 1 of a length-4 ring
    coords = [[0], [3], [1], [1]]
    ptr, idx = TorusMachine(coords, dims=[4]).neighbors()
    assert [idx[ptr[p]:ptr[p + 1]].tolist() for p in range(4)] == [[1, 2, 3], [0], [0, 3], [0, 2]]
    ptr, idx = TorusMachine(coords, dims=[4], wrap=False).neighbors()
    assert [idx[ptr[p]:ptr[p + 1]].tolist() for p in range(4)] == [[2, 3], [], [0, 3], [0, 2]]


@pytest.mark.parametrize("seed", range(3))
def test_neighbors_are_the_processors_within_one_hop(seed):
    rng = np.random.default_rng(seed)
    dims = [4, 1, 3] if seed else [2, 5]
    n = 12
    coords = np.stack([rng.integers(0, d, n) for d in dims], axis=1)
    m = TorusMachine(coords, dims=dims, wrap=rng.random(len(dims)) < 0.5)
    ptr, idx = m.neighbors()
    for p in range(n):
        expected = [q for q in range(n) if q != p and m.hops([p], [q])[0] <= 1]
        assert idx[ptr[p]:ptr[p + 1]].tolist() == expected


def test_box_shape_of_box_allocations():
    m = TorusMachine([[1, 2], [2, 2], [1, 2], [2, 2]], dims=[4, 4])
    assert m.box_shape() == BoxShape(origin=(1, 2), lengths=(2, 1), cores=2)
    assert m.box_shape().n_routers == 2
    full = TorusMachine([[x, y] for y in range(2) for x in range(3)], dims=[3, 4])
    assert full.box_shape() == BoxShape(origin=(0, 0), lengths=(3, 2), cores=1)


@pytest.mark.parametrize(
    "coords, detail",
    [([[0, 0], [1, 1]], "2 processors on 2 of the 4 routers of the box 2x2"),
     ([[0, 0], [0, 0], [1, 0]], "3 processors on 2 of the 2 routers of the box 2x1")],
)
def test_box_shape_rejects_holes_and_uneven_routers(coords, detail):
    with pytest.raises(InvalidInputError, match=f"not a full box .*; got {detail}"):
        TorusMachine(coords, dims=[4, 4]).box_shape()


# -- link model ------------------------------------------------------------------------------
def _ring_graph(n):
    return TaskGraph.from_edges(np.arange(n), (np.arange(n) + 1) % n, np.arange(1, n + 1), n_tasks=n)


@pytest.mark.parametrize(
    "machine, has_links",
    [(TorusMachine([[0], [1], [2], [3]], dims=[4]), True),
     (FlatMachine([0, 0, 1, 1]), False),
     (PercsMachine(1, 1), True)],
)
def test_evaluate_picks_link_metrics_exactly_with_a_link_model(machine, has_links):
    assert machine.has_link_model is has_links
    values = evaluate(_ring_graph(4), machine, [0, 1, 2, 3])
    assert list(values) == list(HOP_METRICS) + (list(LINK_METRICS) if has_links else [])


def test_evaluate_asks_the_property_not_the_method():
    class LinksOff(FlatMachine):
        def link_loads(self, indptr, indices, weights, task_to_proc):
            raise AssertionError("evaluate must not call link_loads when has_link_model is False")

    values = evaluate(_ring_graph(4), LinksOff([0, 0, 1, 1]), [0, 1, 2, 3])
    assert list(values) == list(HOP_METRICS)


def test_link_loads_without_a_link_model_is_a_clear_error():
    m = FlatMachine([0, 1])
    g = _ring_graph(2)
    with pytest.raises(InvalidInputError, match="machine: .flat. has no link model"):
        link_loads(g, m, [0, 1])
    with pytest.raises(InvalidInputError, match="has no link model"):
        m.link_loads(g.indptr, g.indices, g.weights, np.array([0, 1]))


# -- the abstract base -----------------------------------------------------------------------
class _LineMachine(Machine):
    """Processors on a line, |p - q| hops apart: the smallest complete subclass."""

    def hops(self, src, dst):
        return np.abs(np.asarray(src, dtype=np.int64) - np.asarray(dst, dtype=np.int64))

    def geometric_coords(self):
        return np.arange(self.n_procs, dtype=np.float64)[:, None]


def test_machine_subclass_needs_hops_and_coordinates():
    class NoHops(Machine):
        def geometric_coords(self):
            return np.zeros((self.n_procs, 1))

    class NoCoords(Machine):
        def hops(self, src, dst):
            return np.zeros(len(src), dtype=np.int64)

    with pytest.raises(TypeError, match="abstract method.*hops"):
        NoHops(2)
    with pytest.raises(TypeError, match="abstract method.*geometric_coords"):
        NoCoords(2)
    with pytest.raises(TypeError):
        Machine(2)
    m = _LineMachine(5)
    assert m.has_link_model is False
    g = TaskGraph.from_edges([0, 1, 2], [2, 0, 1], [1.0, 2.0, 4.0], n_tasks=3)
    # tasks on processors 4, 0, 1: edges 0->2 |4-1| = 3, 1->0 |0-4| = 4, 2->1 |1-0| = 1
    assert m.csr_edge_hops(g.indptr, g.indices, np.array([4, 0, 1])).tolist() == [3, 4, 1]
    assert m.csr_hop_sums(g.indptr, g.indices, g.weights, np.array([4, 0, 1])) == (8, 3 * 1.0 + 4 * 2.0 + 4.0, 4)


def _random_graph(rng, n_tasks, n_edges):
    return TaskGraph.from_edges(rng.integers(0, n_tasks, n_edges), rng.integers(0, n_tasks, n_edges),
                                rng.integers(1, 9, n_edges).astype(float), n_tasks=n_tasks)


def _brute_force_hop_sums(graph, hop):
    total, weighted, most = 0, 0.0, 0
    for t in range(graph.n_tasks):
        for e in range(graph.indptr[t], graph.indptr[t + 1]):
            h = hop(t, int(graph.indices[e]))
            total += h
            weighted += h * float(graph.weights[e])
            most = max(most, h)
    return total, weighted, most


@pytest.mark.parametrize("seed", range(3))
def test_derived_hop_sums_equal_a_python_loop_on_a_flat_machine(seed):
    rng = np.random.default_rng(seed)
    node_ids = rng.integers(0, 6, 30)
    m = FlatMachine(node_ids, inter_node_hops=3)
    g = _random_graph(rng, 20, 90)
    ttp = rng.permutation(30)[:20]

    def hop(t, u):
        return 0 if node_ids[ttp[t]] == node_ids[ttp[u]] else 3

    th, wh, mh = m.csr_hop_sums(g.indptr, g.indices, g.weights, ttp)
    bt, bw, bm = _brute_force_hop_sums(g, hop)
    assert (th, mh) == (bt, bm) and wh == pytest.approx(bw)


@pytest.mark.parametrize("seed", range(2))
def test_derived_hop_sums_equal_a_python_loop_on_percs(seed):
    rng = np.random.default_rng(seed)
    m = PercsMachine(2, 2)
    g = _random_graph(rng, 100, 400)
    ttp = rng.permutation(m.n_procs)[:100]

    def hop(t, u):
        return int(m.hops([ttp[t]], [ttp[u]])[0])

    th, wh, mh = m.csr_hop_sums(g.indptr, g.indices, g.weights, ttp)
    bt, bw, bm = _brute_force_hop_sums(g, hop)
    assert (th, mh) == (bt, bm) and wh == pytest.approx(bw)
    assert mh == 3  # 400 random edges over 2 supernodes reach the 3-hop routes


def test_torus_compiled_hop_sums_equal_the_base_derivation():
    rng = np.random.default_rng(7)
    m = titan_machine(12, cores_per_node=4, seed=3)
    g = _random_graph(rng, 48, 300)
    ttp = rng.permutation(48).astype(np.intp)
    args = (g.indptr, g.indices, g.weights, ttp)
    assert m.csr_hop_sums(*args) == Machine.csr_hop_sums(m, *args)
    assert np.array_equal(m.csr_edge_hops(g.indptr, g.indices, ttp), Machine.csr_edge_hops(m, g.indptr, g.indices, ttp))
