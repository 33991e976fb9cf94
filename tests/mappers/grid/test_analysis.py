"""The process-topology analyser and the communication-matrix file format."""

import numpy as np
import pytest
import scipy.sparse as sp

from mpitaskmap import InvalidInputError, TaskGraph
from mpitaskmap.mappers.grid.analysis import analyse_grid, read_comm_matrix, write_comm_matrix


def dense(graph, perm=None):
    """Dense matrix of a task graph, rank perm[t] running task t (default identity)."""
    n = graph.n_tasks
    perm = np.arange(n) if perm is None else np.asarray(perm)
    a = np.zeros((n, n))
    a[perm[graph.sources()], perm[graph.indices]] = graph.weights
    return a


def y_fastest(shape):
    """Rank of every task (x fastest numbering) when ranks number y fastest instead."""
    ox, oy = shape
    t = np.arange(ox * oy)
    return (t % ox) * oy + t // ox


STENCILS = [
    ((6, 4), 5, False, (False, False)),
    ((6, 4), 5, [True, False], (True, False)),
    ((5, 7), 5, True, (True, True)),
    ((6, 4), 9, False, (False, False)),
    ((5, 7), 9, [False, True], (False, True)),
    ((2, 8), 5, True, (False, True)),  # a length-2 ring is its own non-periodic neighbour
    ((4, 3, 5), 7, False, (False, False, False)),
    ((4, 3, 5), 7, [True, False, True], (True, False, True)),
    ((3, 4, 3), 27, True, (True, True, True)),
    ((4, 3, 5), 27, False, (False, False, False)),
    ((3, 3, 3, 3), 9, False, (False,) * 4),
    ((16,), 3, True, (True,)),
]


@pytest.mark.parametrize("shape, points, periodic, expected", STENCILS)
def test_recognises_stencils(shape, points, periodic, expected):
    g = TaskGraph.stencil(shape, points=points, periodic=periodic)
    p = analyse_grid(g)
    assert p.regular, p.reason
    assert p.dims == tuple(shape)
    assert p.points == points
    assert p.periodic == expected
    assert p.coverage == 1.0


@pytest.mark.parametrize("periodic", [False, True])
@pytest.mark.parametrize("points", [5, 9])
def test_column_major_rank_order_gives_reversed_dims(points, periodic):
    g = TaskGraph.stencil((6, 4), points=points, periodic=periodic)
    p = analyse_grid(dense(g, y_fastest((6, 4))))
    assert p.regular and p.dims == (4, 6) and p.points == points
    assert p.periodic == (periodic, periodic)
    # the reported coordinates are those of the y-fastest numbering
    assert p.coords()[7].tolist() == [3, 1]


def test_input_forms_agree():
    g = TaskGraph.stencil((8, 3), periodic=True, weight=5.0)
    a = dense(g)
    csr = sp.csr_matrix(a)

    class CSRLike:
        def __init__(self, m):
            self.indptr, self.indices, self.data, self.shape = m.indptr, m.indices, m.data, m.shape

    results = {analyse_grid(x) for x in (g, a, csr, sp.coo_matrix(a), CSRLike(csr))}
    assert len(results) == 1 and results.pop().dims == (8, 3)


def test_ignores_light_edges_and_root_collectives():
    g = TaskGraph.stencil((6, 4), weight=1000.0)
    a = dense(g)
    rng = np.random.default_rng(0)
    noise = rng.random(a.shape) < 0.2
    a[noise] += 10.0  # light chatter: 1% of a halo message
    a[0, 1:] += 400.0  # rank 0 broadcasts ...
    a[1:, 0] += 400.0  # ... and gathers (heavier than the threshold)
    np.fill_diagonal(a, 0)
    p = analyse_grid(a)
    assert p.regular and p.dims == (6, 4) and p.points == 5
    assert p.n_light > 0
    assert p.n_collective == 24 - 1 - 2  # everyone but rank 0 and its two grid neighbours
    # with the threshold off the chatter makes the graph irregular
    assert not analyse_grid(a, threshold=0.0).regular


def test_heavy_collectives_on_rank_0():
    g = TaskGraph.stencil((4, 4, 2), weight=1.0)
    a = dense(g)
    a[0, 1:] += 100.0
    a[1:, 0] += 100.0
    p = analyse_grid(a)
    assert p.regular and p.dims == (4, 4, 2)
    without_root = analyse_grid(a, root=None)
    assert not without_root.regular and "rank 0 has 31 partners" in without_root.reason


def test_tolerates_a_few_missing_pairs():
    g = TaskGraph.stencil((10, 10))
    a = dense(g)
    a[55, 56] = a[56, 55] = 0  # one pair of 180 missing: 99.4% coverage
    p = analyse_grid(a)
    assert p.regular and p.dims == (10, 10) and 0.99 < p.coverage < 1
    assert not analyse_grid(a, min_coverage=1.0).regular


def test_non_periodic_boundaries_have_fewer_partners():
    p = analyse_grid(TaskGraph.stencil((7, 5), points=9))
    assert p.regular and p.periodic == (False, False) and p.coverage == 1.0


IRREGULAR = {
    "random": lambda rng: (rng.random((40, 40)) < 0.1).astype(float),
    # (12 ranks all-to-all would be a valid periodic 2x2x3 27-point grid: K12)
    "all_to_all": lambda rng: np.ones((30, 30)),
    "chords": lambda rng: dense(TaskGraph.stencil((30,), periodic=True)) + np.eye(30, k=7) + np.eye(30, k=-7),
    "half_grid": lambda rng: np.triu(dense(TaskGraph.stencil((8, 8))), k=2) * 0 + _half_grid(),
    "long_edges": lambda rng: dense(TaskGraph.stencil((6, 6))) + np.eye(36, k=13) + np.eye(36, k=-13),
}


def _half_grid():
    a = dense(TaskGraph.stencil((8, 8)))
    a[:, :] = np.where(np.abs(np.subtract.outer(np.arange(64), np.arange(64))) == 8, 0, a)  # no y edges
    a += np.eye(64, k=3) + np.eye(64, k=-3)
    return a


@pytest.mark.parametrize("name", sorted(IRREGULAR))
def test_rejects_irregular_graphs_with_a_reason(name):
    a = IRREGULAR[name](np.random.default_rng(1))
    np.fill_diagonal(a, 0)
    p = analyse_grid(a)
    assert not p.regular
    assert p.reason and p.dims == () and p.stencil == ""
    with pytest.raises(InvalidInputError, match="irregular"):
        p.coords()


def test_bad_input():
    with pytest.raises(InvalidInputError, match="square"):
        analyse_grid(np.ones((3, 4)))
    with pytest.raises(InvalidInputError, match=r"entry \(0, 1\) must be finite and >= 0; got -1.0"):
        analyse_grid(np.array([[0, -1.0], [1, 0]]))
    with pytest.raises(InvalidInputError, match="root"):
        analyse_grid(np.ones((3, 3)), root=5)


def test_file_round_trip(tmp_path):
    g = TaskGraph.stencil((5, 4), periodic=[True, False], weight=4096.0)
    path = tmp_path / "comm.txt"
    write_comm_matrix(path, g, comment="test matrix")
    back = read_comm_matrix(path)
    np.testing.assert_array_equal(dense(back), dense(g))
    assert analyse_grid(back).dims == (5, 4)


def test_file_format_details(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("# header\nranks 4\n0 1 10  # trailing comment\n\n1,0,10\n0 1 5\n2 3 1.5e3\n")
    g = read_comm_matrix(path)
    assert g.n_tasks == 4
    np.testing.assert_array_equal(dense(g)[0], [0, 15, 0, 0])
    assert dense(g)[2, 3] == 1500.0
    path.write_text("0 1\n")
    with pytest.raises(InvalidInputError, match=r"m.txt:1: expected 'src dst bytes'"):
        read_comm_matrix(path)
    path.write_text("ranks 2\n0 5 1\n")
    with pytest.raises(InvalidInputError, match="rank 5, outside 'ranks 2'"):
        read_comm_matrix(path)
    path.write_text("0 1 -3\n")
    with pytest.raises(InvalidInputError, match="bytes finite and >= 0"):
        read_comm_matrix(path)
