"""Router coordinates in narrow integer types (int16, int32; issue 14's shared windows).

The torus kernels are specialised for int16, int32 and int64 coordinates
(cext/_topology.pxd ``coord_t``); a TorusMachine keeps such an array as given.  Every
kernel and mapper must give exactly what it gives with int64, and the Python code around
them must not overflow a narrow type (router ids, neighbours, box extents).
"""

import numpy as np
import pytest

from mpitaskmap import TaskGraph, TorusMachine, map_geometric, map_greedy, refine_congestion
from mpitaskmap import _graphmap, _grid, _mj, _torus
from mpitaskmap._validate import COORD_DTYPES, as_int_matrix, as_narrowest_coords, narrowest_int_dtype
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.mappers.graph.bisection import map_bisection, processor_tree
from mpitaskmap.mappers.grid.pairs import map_pairs
from mpitaskmap.providers import NetworkInfo, assemble_machine_arrays
from mpitaskmap.mappers.geometric.transforms import torus_shift

NARROW = (np.int16, np.int32)


def _random_case(seed, *, n_procs=48, n_tasks=40):
    """A random torus/mesh (1-4 dims, mixed wrap flags), processors on random routers (some
    shared), and a random weighted CSR graph with a random task -> processor mapping."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 5))
    dims = rng.integers(2, 8, size=d)
    wrap = rng.random(d) < 0.5
    coords = np.stack([rng.integers(0, L, size=n_procs) for L in dims], axis=1).astype(np.int64)
    src = rng.integers(0, n_tasks, size=4 * n_tasks)
    dst = rng.integers(0, n_tasks, size=4 * n_tasks)
    m = np.zeros((n_tasks, n_tasks))
    np.add.at(m, (src, dst), rng.integers(1, 5, size=src.size).astype(float))
    graph = TaskGraph.from_matrix(m)
    ttp = rng.integers(0, n_procs, size=n_tasks)
    return coords, dims, wrap, graph, ttp


def _metrics(machine, graph, ttp):
    """Everything the torus kernels compute for one mapping, as plain Python values."""
    ttp = np.asarray(ttp, dtype=np.intp)
    p = np.arange(machine.n_procs)
    out = dict(
        hops=machine.hops(p, p[::-1]).tolist(),
        sums=machine.csr_hop_sums(graph.indptr, graph.indices, graph.weights, ttp),
        edge_hops=machine.csr_edge_hops(graph.indptr, graph.indices, ttp).tolist(),
        routes=[machine.route(a, b) for a, b in zip(p[:12], p[::-1][:12])],
        time=machine.link_time(graph.indptr, graph.indices, graph.weights, ttp, seconds_per_weight=1e-3,
                               hop_latency=1e-6),
    )
    loads = machine.link_loads(graph.indptr, graph.indices, graph.weights, ttp)
    out["data"], out["messages"] = loads.data.tolist(), loads.messages.tolist()
    return out


# -- the helpers that choose the type ------------------------------------------------------


def test_narrowest_int_dtype_is_int16_below_2_15_then_int32_then_int64():
    assert [narrowest_int_dtype(m).name for m in (0, 2**15 - 1)] == ["int16", "int16"]
    assert [narrowest_int_dtype(m).name for m in (2**15, 2**31 - 1)] == ["int32", "int32"]
    assert narrowest_int_dtype(2**31).name == "int64"
    assert narrowest_int_dtype(127, (np.int8, np.int16)).name == "int8"


def test_as_narrowest_coords_never_clips():
    small = np.array([[0, 32767], [5, 1]])
    got = as_narrowest_coords(small)
    assert got.dtype == np.int16 and got.flags.c_contiguous and np.array_equal(got, small)
    # an out-of-int16 coordinate goes int32, exactly; so does -2**15 (|value| < 2**15 rule)
    for v in (32768, 40000, -32768):
        got = as_narrowest_coords(np.array([[1, v]]))
        assert got.dtype == np.int32 and got[0, 1] == v
    got = as_narrowest_coords(np.array([[2**31]]))
    assert got.dtype == np.int64 and got[0, 0] == 2**31
    # already the narrowest exact type: no copy
    already = np.array([[1, 2]], dtype=np.int16)
    assert as_narrowest_coords(already) is already
    # floats holding whole numbers (what the plain gather receives)
    got = as_narrowest_coords(np.array([[3.0, 40000.0]]))
    assert got.dtype == np.int32 and got.tolist() == [[3, 40000]]


def test_as_int_matrix_keeps_or_widens_to_a_kernel_type():
    for dt in COORD_DTYPES:
        a = np.array([[1, 2], [3, 4]], dtype=dt)
        assert as_int_matrix(a, "c", keep_coord_dtype=True) is a
        assert as_int_matrix(a, "c").dtype == np.int64  # the default is unchanged
    widened = {np.int8: np.int16, np.uint8: np.int16, np.uint16: np.int32, np.uint32: np.int64,
               np.uint64: np.int64, np.bool_: np.int16}
    for src, dst in widened.items():
        a = np.array([[1, 0]], dtype=src)
        got = as_int_matrix(a, "c", keep_coord_dtype=True)
        assert got.dtype == dst and got.tolist() == [[1, 0]]
    assert as_int_matrix(np.array([[65535]], dtype=np.uint16), "c", keep_coord_dtype=True)[0, 0] == 65535
    assert as_int_matrix([[1, 2]], "c", keep_coord_dtype=True).dtype == np.int64
    assert as_int_matrix(np.array([[1.0, 2.0]]), "c", keep_coord_dtype=True).dtype == np.int64
    # non-contiguous: a contiguous copy of the same type
    strided = np.arange(8, dtype=np.int16).reshape(4, 2)[::2]
    got = as_int_matrix(strided, "c", keep_coord_dtype=True)
    assert got.dtype == np.int16 and got.flags.c_contiguous and got.tolist() == [[0, 1], [4, 5]]


# -- TorusMachine keeps them ------------------------------------------------------------------


@pytest.mark.parametrize("dt", COORD_DTYPES)
def test_torus_machine_keeps_the_coordinates_as_given(dt):
    coords = np.array([[0, 1], [3, 2], [3, 2]], dtype=dt)
    coords.setflags(write=False)  # e.g. a view of a shared-memory window
    m = TorusMachine(coords, dims=[4, 3], node_ids=[0, 1, 1])
    assert m.router_coords is coords
    assert m.hops([0], [1]).tolist() == [2]  # min(3, 1) + 1


@pytest.mark.parametrize("dt", NARROW)
def test_torus_machine_validates_narrow_coordinates_alike(dt):
    with pytest.raises(InvalidInputError, match=r"processor 1 has coordinate 4 in dimension 0, outside \[0, 4\)"):
        TorusMachine(np.array([[0], [4]], dtype=dt), dims=[4])
    with pytest.raises(InvalidInputError, match=r"processor 0 has coordinate -1 in dimension 0"):
        TorusMachine(np.array([[-1], [2]], dtype=dt), dims=[4])
    with pytest.raises(InvalidInputError, match="on different routers"):
        TorusMachine(np.array([[0], [1]], dtype=dt), dims=[4], node_ids=[0, 0])


# -- kernels: identical results for every type ---------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_torus_kernels_give_identical_results_for_every_coordinate_type(seed):
    coords, dims, wrap, graph, ttp = _random_case(seed)
    ref = _metrics(TorusMachine(coords, dims, wrap=wrap), graph, ttp)
    assert sum(ref["messages"]) > 0
    for dt in NARROW:
        m = TorusMachine(coords.astype(dt), dims, wrap=wrap)
        assert m.router_coords.dtype == dt
        assert _metrics(m, graph, ttp) == ref


@pytest.mark.parametrize("dt", COORD_DTYPES)
def test_link_time_one_hop_path_and_walks_with_narrow_coordinates(dt):
    """A 2-D stencil on its 8x8 torus shifted by one column: every message either stays on
    its router or crosses one link (the kernel's one-hop path); reversed, routes are walked."""
    graph = TaskGraph.stencil([8, 8], periodic=True)
    grid = np.stack(np.meshgrid(np.arange(8), np.arange(8), indexing="ij"), axis=-1).reshape(-1, 2)[:, ::-1]
    shifted = np.ascontiguousarray(grid)
    m64 = TorusMachine(shifted, dims=[8, 8])
    m = TorusMachine(shifted.astype(dt), dims=[8, 8])
    for ttp in (np.arange(64), np.arange(64)[::-1].copy()):
        want = m64.link_time(graph.indptr, graph.indices, graph.weights, ttp, seconds_per_weight=1.0, hop_latency=0.5)
        got = m.link_time(graph.indptr, graph.indices, graph.weights, ttp, seconds_per_weight=1.0, hop_latency=0.5)
        assert got == want
    # identity: every route one hop, each link carries one unit: 1 * 1 + 0.5 * 1
    assert m.link_time(graph.indptr, graph.indices, graph.weights, np.arange(64), seconds_per_weight=1.0,
                       hop_latency=0.5)[0] == 1.5


def test_kernels_read_values_beyond_int16_exactly():
    """Coordinates near 2**15 (int16 limit) and beyond it (int32) on long rings: the wrap
    distance and the routes across the seam are computed in 64 bits."""
    for L, dt in ((32768, np.int16), (60000, np.int32)):
        coords = np.array([[L - 1, 0], [0, 1], [L // 2, 2], [1, 0]], dtype=np.int64)
        ref = TorusMachine(coords, dims=[L, 3])
        m = TorusMachine(coords.astype(dt), dims=[L, 3])
        assert m.router_coords.dtype == dt
        p = np.array([0, 0, 0, 2, 3])
        q = np.array([1, 2, 3, 3, 0])
        # per dimension the shorter way round: (L-1 -> 0) is 1 hop, (L-1 -> L/2) is L/2 - 1
        assert m.hops(p, q).tolist() == ref.hops(p, q).tolist() == [2, L // 2, 2, L // 2, 2]
        assert m.route(0, 1) == ref.route(0, 1)
        assert [name for name, _ in m.route(0, 1)] == ["X+", "Y+"]  # across the seam: L-1 -> 0
        graph = TaskGraph.from_matrix(np.ones((4, 4)) - np.eye(4))
        assert _metrics(m, graph, np.arange(4)) == _metrics(ref, graph, np.arange(4))


@pytest.mark.parametrize("dt", NARROW)
def test_direct_kernel_calls_take_every_coordinate_type(dt):
    coords64 = np.array([[0, 0], [3, 1], [1, 2], [2, 2]], dtype=np.int64)
    coords = coords64.astype(dt)
    dims = np.array([4, 3], dtype=np.int64)
    wrap = np.array([1, 0], dtype=np.uint8)
    src = np.array([0, 1, 2], dtype=np.intp)
    dst = np.array([1, 2, 3], dtype=np.intp)
    out, want = np.empty(3, dtype=np.int64), np.empty(3, dtype=np.int64)
    _torus.hops_pairs(coords, dims, wrap, src, dst, out)
    _torus.hops_pairs(coords64, dims, wrap, src, dst, want)
    assert out.tolist() == want.tolist() == [2, 3, 1]
    assert _torus.route_links(coords, dims, wrap, 1, 2).tolist() == _torus.route_links(coords64, dims, wrap, 1,
                                                                                       2).tolist()
    hists = _mj.column_histograms(coords, dims)
    assert [h.tolist() for h in hists] == [[1, 1, 1, 1], [1, 1, 2]]
    with pytest.raises(TypeError):  # no specialisation for other types
        _torus.hops_pairs(coords.astype(np.uint8), dims, wrap, src, dst, out)


# -- mappers whose kernels take router coordinates ------------------------------------------


def _stencil_job(dt):
    graph = TaskGraph.stencil([4, 4, 2])
    rng = np.random.default_rng(3)
    dims = [6, 5, 4]
    routers = rng.choice(np.prod(dims), size=16, replace=False)
    rc = np.stack(np.unravel_index(routers, dims[::-1])[::-1], axis=1)
    coords = np.repeat(rc, 2, axis=0).astype(dt)  # 2 cores per node
    return graph, TorusMachine(coords, dims, wrap=[True, False, True], node_ids=np.repeat(np.arange(16), 2))


def _mapper_results(g, m) -> dict:
    """task_to_proc of every mapper with its own torus kernels."""
    return dict(
        greedy=map_greedy(g, m).task_to_proc,
        congestion=refine_congestion(map_greedy(g, m), max_iter=50).task_to_proc,
        bisection=map_bisection(g, m).task_to_proc,
        pairs=map_pairs(g, m, seed=1, max_proposals=2000).task_to_proc,
        geometric=map_geometric(g, m).task_to_proc,
    )


def test_mappers_give_identical_mappings_for_every_coordinate_type():
    g, m64 = _stencil_job(np.int64)
    want = _mapper_results(g, m64)
    tree64 = processor_tree(m64)
    for dt in NARROW:
        g, m = _stencil_job(dt)
        assert m.router_coords.dtype == dt
        got = _mapper_results(g, m)
        for name in want:
            assert np.array_equal(got[name], want[name]), name
        tree = processor_tree(m)
        for field in ("children", "node", "capacity", "representative"):
            assert np.array_equal(getattr(tree, field), getattr(tree64, field)), field


@pytest.mark.parametrize("dt", NARROW)
def test_graph_and_grid_kernels_take_narrow_coordinates(dt):
    """make_net keeps its node rows as int64; pairs_refine and torus_tree are specialised."""
    coords64 = np.array([[0], [1], [2], [3]], dtype=np.int64)
    dims = np.array([4], dtype=np.int64)
    wrap = np.ones(1, dtype=np.uint8)
    i64 = np.int64
    outs = []
    for c in (coords64, coords64.astype(dt)):
        # torus_tree: 4 nodes of one processor on a ring -> 7 domains
        children = np.full((7, 2), -1, dtype=i64)
        node, capacity, rep = (np.zeros(7, dtype=i64) for _ in range(3))
        _graphmap.torus_tree(c, dims, wrap, np.ones(4, dtype=i64), children, node, capacity, rep)
        # pairs_refine: a path 0-1-2-3 placed 0, 2, 1, 3: exchanging tasks 1 and 2 saves hops
        ptr = np.array([0, 1, 3, 5, 6], dtype=np.intp)
        idx = np.array([1, 0, 2, 1, 3, 2], dtype=np.intp)
        t2p = np.array([0, 2, 1, 3], dtype=np.intp)
        p2t = np.array([0, 2, 1, 3], dtype=np.intp)
        pn_ptr = np.array([0, 2, 4, 6, 8], dtype=np.intp)
        pn_idx = np.array([1, 3, 0, 2, 1, 3, 0, 2], dtype=np.intp)
        acc = _grid.pairs_refine(ptr, idx, np.full(6, 2.0), c, dims, wrap, t2p, p2t, pn_ptr, pn_idx,
                                 np.array([1], dtype=np.intp), np.array([1], dtype=np.intp),
                                 np.zeros(1, dtype=i64), np.zeros(1, dtype=i64), 1e-9)
        # make_net: node distances through the network object
        net = _graphmap.make_net(c, dims, wrap, np.arange(5, dtype=i64), np.arange(4, dtype=i64),
                                 np.arange(4, dtype=i64), np.zeros((0, 0), dtype=np.int32))
        tw = np.ones(2)
        wh = _graphmap.node_assignment_wh(np.array([0, 1, 2], dtype=i64), np.array([1, 0], dtype=i64), tw, net,
                                          np.array([0, 2], dtype=i64))
        outs.append((children.tolist(), node.tolist(), capacity.tolist(), rep.tolist(), acc, t2p.tolist(), wh))
    assert outs[0] == outs[1]
    assert outs[0][4] == (1, 4.0) and outs[0][5] == [0, 1, 2, 3]  # 3 edges x 2 hops -> 3 x 1 hop, weight 2
    assert outs[0][6] == 2.0  # tasks on nodes 0 and 2 of the ring: 2 hops x weight 1 (each edge once)


# -- Python code around the kernels: no overflow in a narrow type ----------------------------


def test_router_ids_are_int64_products():
    m = TorusMachine(np.array([[299, 299, 299], [1, 2, 3]], dtype=np.int16), dims=[300, 300, 300])
    ids = m.router_ids()
    assert ids.dtype == np.int64 and ids.tolist() == [299 + 300 * 299 + 90000 * 299, 1 + 600 + 270000]


def test_neighbors_across_the_int16_seam():
    """On a ring of 2**15 routers, coordinate 32767 + 1 overflows int16: the wrap neighbour
    (router 0) is found in int64 arithmetic, as with int64 coordinates."""
    coords = np.array([[0], [32767], [100], [32766]])
    for dt in (np.int16, np.int64):
        ptr, idx = TorusMachine(coords.astype(dt), dims=[32768]).neighbors()
        assert [idx[ptr[p]:ptr[p + 1]].tolist() for p in range(4)] == [[1], [0, 3], [], [1]]


def test_box_shape_of_a_full_int16_ring():
    m = TorusMachine(np.arange(32768, dtype=np.int16)[:, None], dims=[32768])
    assert m.box_shape().lengths == (32768,) and m.box_shape().origin == (0,)


def test_torus_shift_reads_narrow_coordinates():
    coords = np.array([[0], [1], [4], [5], [6], [7]])
    want = torus_shift(coords, [8], True)
    for dt in NARROW:
        assert np.array_equal(torus_shift(coords.astype(dt), [8], True), want)
    assert want[:, 0].tolist() == [8.0, 9.0, 4.0, 5.0, 6.0, 7.0]


# -- the runtime's machine: the narrowest exact type --------------------------------------


def test_assemble_machine_arrays_narrows_exactly():
    nodes = np.array(["a", "b", "c"])
    m = assemble_machine_arrays(np.array([[0, 1], [3, 0], [2, 2]], dtype=np.int64), nodes,
                                NetworkInfo(dims=(4, 3)), name="t")
    assert m.router_coords.dtype == np.int16 and m.router_coords.tolist() == [[0, 1], [3, 0], [2, 2]]
    # int8 from the narrow gather widens to int16; one coordinate beyond int16 takes int32, exactly
    m = assemble_machine_arrays(np.array([[1], [2], [3]], dtype=np.int8), nodes, NetworkInfo(dims=(4,)), name="t")
    assert m.router_coords.dtype == np.int16
    m = assemble_machine_arrays(np.array([[0], [40000], [32767]]), nodes, NetworkInfo(dims=(65536,)), name="t")
    assert m.router_coords.dtype == np.int32 and m.router_coords[:, 0].tolist() == [0, 40000, 32767]
    assert m.hops([0], [1]).tolist() == [65536 - 40000]


@pytest.mark.parametrize("dt", COORD_DTYPES)
def test_hop_sums_of_graphs_without_edges_or_tasks(dt):
    m = TorusMachine(np.array([[0, 0], [1, 2]], dtype=dt), dims=[2, 3])
    none = TaskGraph.from_matrix(np.zeros((2, 2)))
    assert m.csr_hop_sums(none.indptr, none.indices, none.weights, np.array([0, 1])) == (0, 0.0, 0)
    empty = np.zeros(1, dtype=np.intp)
    assert _torus.csr_hop_sums(empty, np.zeros(0, dtype=np.intp), np.zeros(0), np.zeros(0, dtype=np.intp),
                               m.router_coords, m.dims, m.wrap) == (0, 0.0, 0)
    one = TaskGraph.from_matrix(np.array([[0.0, 3.0], [0.0, 0.0]]))
    assert m.csr_hop_sums(one.indptr, one.indices, one.weights, np.array([0, 1])) == (2, 6.0, 2)
