"""Task graphs: stencils, matrices, neighbour lists, canonical CSR and validation."""

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, TaskGraph
from mpitaskmap.graphs.taskgraph import stencil_offsets


def edges(g):
    return sorted(zip(g.sources().tolist(), g.indices.tolist(), g.weights.tolist()))


def test_2d_five_point_stencil_hand_checked():
    g = TaskGraph.stencil([3, 2])  # tasks: 0 1 2 / 3 4 5, x fastest
    assert g.n_tasks == 6
    assert edges(g) == sorted(
        [(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0), (3, 4, 1.0), (4, 3, 1.0), (4, 5, 1.0), (5, 4, 1.0),
         (0, 3, 1.0), (3, 0, 1.0), (1, 4, 1.0), (4, 1, 1.0), (2, 5, 1.0), (5, 2, 1.0)]
    )
    assert g.coords.tolist() == [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]]
    assert g.is_symmetric()


def test_3d_seven_point_counts_non_periodic_and_periodic():
    g = TaskGraph.stencil([4, 3, 2])
    # interior faces: (3*3*2) + (4*2*2) + (4*3*1) = 18 + 16 + 12 = 46 undirected
    assert g.n_edges == 2 * 46
    gp = TaskGraph.stencil([4, 3, 5], periodic=True)
    assert gp.n_edges == 60 * 6
    assert np.all(np.diff(gp.indptr) == 6)


def test_periodic_length_two_merges_both_neighbours():
    g = TaskGraph.stencil([2], periodic=True)
    assert edges(g) == [(0, 1, 2.0), (1, 0, 2.0)]


def test_27_point_and_9_point():
    assert stencil_offsets(3, 27).shape == (26, 3)
    g = TaskGraph.stencil([3, 3], points=9)
    assert np.diff(g.indptr)[4] == 8  # centre task talks to all 8 around it


def test_task_numbering_x_fastest():
    g = TaskGraph.stencil([4, 3, 2])
    t = 1 + 4 * (2 + 3 * 1)
    assert g.coords[t].tolist() == [1, 2, 1]


def test_from_matrix_dense_and_sparse_agree():
    m = np.array([[0, 2, 0], [1, 0, 3], [0, 0, 0]], dtype=float)
    g = TaskGraph.from_matrix(m)
    assert edges(g) == [(0, 1, 2.0), (1, 0, 1.0), (1, 2, 3.0)]
    scipy_sparse = pytest.importorskip("scipy.sparse")
    assert edges(TaskGraph.from_matrix(scipy_sparse.csr_matrix(m))) == edges(g)


def test_from_neighbor_lists_merges_duplicates():
    g = TaskGraph.from_neighbor_lists([[1, 1], [0], []], [[1.0, 2.5], [4.0], []])
    assert edges(g) == [(0, 1, 3.5), (1, 0, 4.0)]
    assert g.volumes().tolist() == [7.5, 7.5, 0.0]


class TestBadInput:
    def test_edge_to_missing_task(self):
        with pytest.raises(InvalidInputError, match=r"dst: index out of range \[0, 3\) at position 1; got 7"):
            TaskGraph.from_edges([0, 1], [1, 7], n_tasks=3)

    def test_negative_weight(self):
        with pytest.raises(InvalidInputError, match="index 1 is -2.0"):
            TaskGraph.from_edges([0, 1], [1, 0], [1.0, -2.0], n_tasks=2)

    def test_nan_weight_in_matrix(self):
        with pytest.raises(InvalidInputError, match=r"entry \(0, 1\)"):
            TaskGraph.from_matrix([[0, np.nan], [0, 0]])

    def test_non_square_matrix(self):
        with pytest.raises(InvalidInputError, match="square"):
            TaskGraph.from_matrix(np.zeros((2, 3)))

    def test_bad_csr(self):
        with pytest.raises(InvalidInputError, match="must start at 0 and end at len"):
            TaskGraph([0, 1, 3], [1, 0])
        with pytest.raises(InvalidInputError, match="non-decreasing"):
            TaskGraph([0, 2, 1, 2], [1, 0])

    def test_coords_wrong_rows(self):
        with pytest.raises(InvalidInputError, match="one row per task"):
            TaskGraph.from_edges([0], [1], n_tasks=2, coords=[[0.0]])

    def test_coords_nan(self):
        with pytest.raises(InvalidInputError, match="non-finite value at index"):
            TaskGraph.from_edges([0], [1], n_tasks=2, coords=[[0.0], [np.inf]])

    def test_bad_stencil(self):
        with pytest.raises(InvalidInputError, match="has 7 or 27 points; got 9"):
            TaskGraph.stencil([2, 2, 2], points=9)
        with pytest.raises(InvalidInputError, match="positive integer"):
            TaskGraph.stencil([0, 2])

    def test_zero_tasks(self):
        with pytest.raises(InvalidInputError, match="at least one task"):
            TaskGraph.from_edges([], [], n_tasks=0)

    def test_neighbor_weight_length_mismatch(self):
        with pytest.raises(InvalidInputError, match="task 0 has 2 neighbours but 1 weights"):
            TaskGraph.from_neighbor_lists([[1, 1], [0]], [[1.0], [1.0]])


@pytest.mark.parametrize("seed", range(5))
def test_from_neighbor_arrays_equals_from_edges_sorted_or_not(seed):
    # the no-sort fast path (partners strictly increasing in every task) and the sorting
    # path give the canonical graph from_edges gives
    rng = np.random.default_rng(seed)
    n = 30
    counts = rng.integers(0, 5, size=n)
    nbrs = [np.sort(rng.choice(n, size=c, replace=False)) for c in counts]
    if seed % 2:  # unsorted rows with a repeated partner: the sorting path
        nbrs = [np.r_[v[::-1], v[:1]] if v.size else v for v in nbrs]
        counts = np.array([v.size for v in nbrs])
    flat = np.concatenate(nbrs).astype(np.int64)
    w = rng.random(flat.size)
    g = TaskGraph.from_neighbor_arrays(counts, flat, w)
    ref = TaskGraph.from_edges(np.repeat(np.arange(n), counts), flat, w, n_tasks=n)
    np.testing.assert_array_equal(g.indptr, ref.indptr)
    np.testing.assert_array_equal(g.indices, ref.indices)
    np.testing.assert_allclose(g.weights, ref.weights)


def test_from_neighbor_arrays_errors():
    with pytest.raises(InvalidInputError, match="counts add up to 3 partners; got 2"):
        TaskGraph.from_neighbor_arrays([1, 2], [1, 0])
    with pytest.raises(InvalidInputError, match="expected 2 volumes"):
        TaskGraph.from_neighbor_arrays([1, 1], [1, 0], [1.0])
    with pytest.raises(InvalidInputError, match="index out of range"):
        TaskGraph.from_neighbor_arrays([1, 1], [1, 7])


# -- whether the weights are message sizes (TaskGraph.sized) -----------------------------------------


def test_a_graph_built_without_weights_carries_no_message_sizes(tmp_path):
    from mpitaskmap.graphs.recording import read_matrix_file

    assert not TaskGraph([0, 1, 1], [1]).sized and TaskGraph([0, 1, 1], [1], [5.0]).sized
    assert TaskGraph([0, 1, 1], [1], sized=False).sized is False  # weights given, declared not sizes
    assert not TaskGraph.from_edges([0], [1], n_tasks=2).sized
    assert TaskGraph.from_edges([0], [1], [1.0], n_tasks=2).sized  # 1.0 given: one byte, a size
    assert not TaskGraph.stencil([3, 2]).sized and TaskGraph.stencil([3, 2], weight=1.0).sized
    assert np.array_equal(TaskGraph.stencil([3, 2]).weights, TaskGraph.stencil([3, 2], weight=1.0).weights)
    # both paths of from_neighbor_arrays: rows already canonical, and rows to sort
    for nbrs in ([[1], [0, 2], [1]], [[1], [2, 0], [1]]):
        assert not TaskGraph.from_neighbor_lists(nbrs).sized
        assert TaskGraph.from_neighbor_lists(nbrs, [[1.0] * len(v) for v in nbrs]).sized
    assert not TaskGraph.from_coordinate_proxy([[0, 0], [1, 0]]).sized
    assert TaskGraph.from_coordinate_proxy([[0, 0], [1, 0]], weight=64.0).sized
    assert TaskGraph.from_matrix([[0, 3], [3, 0]]).sized
    unsized = TaskGraph.stencil([2, 2])
    assert not unsized.with_coords(None).sized and TaskGraph.stencil([2, 2], weight=8.0).with_coords(None).sized
    # files: a pattern matrix says who talks to whom only; a real one gives volumes
    (tmp_path / "p.mtx").write_text("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n")
    (tmp_path / "r.mtx").write_text("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n2 1 1\n")
    for read in (TaskGraph.from_file, read_matrix_file):
        assert not read(tmp_path / "p.mtx").sized and read(tmp_path / "r.mtx").sized
        assert np.array_equal(read(tmp_path / "p.mtx").weights, read(tmp_path / "r.mtx").weights)
