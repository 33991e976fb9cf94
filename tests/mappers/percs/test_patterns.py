"""The PERCS study's traffic: halo and transpose patterns, one unit sent per task."""

import numpy as np

from mpitaskmap.mappers.percs.patterns import grid_shape, halo_graph, transpose_graph


def test_patterns_send_one_unit_per_task():
    for g in (halo_graph(8, 16), transpose_graph(8, 16), transpose_graph(5, 3)):
        sent = np.bincount(g.sources(), weights=g.weights, minlength=g.n_tasks)
        assert np.allclose(sent, 1.0)
    assert grid_shape(transpose_graph(8, 16)) == (8, 16)
    g = transpose_graph(4, 3)
    row = g.indices[g.indptr[0]:g.indptr[1]]
    assert sorted(row.tolist()) == [1, 2, 3, 4, 8]
