"""Coordinate transformations: hand-checked examples, including the Hopper worked example."""

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, hopper_machine
from mpitaskmap.mappers.geometric.transforms import (
    bandwidth_scale, box_transform, cube_sphere_unfold, drop_constant_dimensions, drop_dimensions, torus_shift,
)


def test_torus_shift_moves_interior_gap_to_the_edge():
    out = torus_shift([[0], [1], [4], [5], [6], [7]], [8], True)
    assert out[:, 0].tolist() == [8, 9, 4, 5, 6, 7]


def test_torus_shift_keeps_when_wrap_gap_is_largest_or_dimension_is_mesh():
    assert torus_shift([[0], [1], [2], [6]], [16], True)[:, 0].tolist() == [0, 1, 2, 6]  # wrap gap 10 > 4
    assert torus_shift([[0], [1], [4], [5], [6], [7]], [8], False)[:, 0].tolist() == [0, 1, 4, 5, 6, 7]
    assert torus_shift([[3], [3]], [8], True)[:, 0].tolist() == [3, 3]  # one value never shifts


def test_torus_shift_equal_gaps_prefer_fewer_processors_beside_the_gap():
    # values 0,4 on a ring of 8: interior gap 4 == wrap gap 4; weights 1+3 < wrap 3+1? equal -> no shift
    assert torus_shift([[0], [4], [4], [4]], [8], True)[:, 0].tolist() == [0, 4, 4, 4]
    # values 0, 1, 5 on ring of 8: interior 4 > wrap 3 -> shift values below 5
    assert torus_shift([[0], [1], [5]], [8], True)[:, 0].tolist() == [8, 9, 5]


def test_torus_shift_opens_a_fully_occupied_ring_at_its_lightest_adjacent_pair():
    # Zoltan2's rule with gaps of 1 (issue 13): ring of 4, every router occupied, processors
    # per router 2, 1, 2, 3.  Adjacent pairs (0,1): 2+1 = 3, (1,2): 1+2 = 3, (2,3): 2+3 = 5,
    # wrap pair (3,0): 3+2 = 5.  Lightest = 3, first of the tie = (0,1): border 1, router 0 -> 4.
    routers = [[0], [0], [1], [2], [2], [3], [3], [3]]
    assert torus_shift(routers, [4], True)[:, 0].tolist() == [4, 4, 1, 2, 2, 3, 3, 3]
    # the wrap pair strictly lightest (1+1 < 2+2): unchanged
    assert torus_shift([[0], [1], [1], [2], [2], [3]], [4], True)[:, 0].tolist() == [0, 1, 1, 2, 2, 3]
    # a full, uniform ring: every pair weighs the same, so no shift (strictly smaller needed)
    assert torus_shift([[0], [1], [2], [3]], [4], True)[:, 0].tolist() == [0, 1, 2, 3]


def test_torus_shift_rejects_coordinates_outside_the_ring():
    with pytest.raises(InvalidInputError, match=r"row 1 column 0: value 4 outside \[0, 4\)"):
        torus_shift([[0], [4]], [4], True)
    with pytest.raises(InvalidInputError, match=r"row 0 column 1: value -1 outside \[0, 3\)"):
        torus_shift([[0, -1], [1, 1]], [4, 3], True)


def test_torus_shift_hopper_worked_example():
    m = hopper_machine()
    s = torus_shift(m.router_coords, m.dims, m.wrap)
    assert sorted(set(s[:, 0].tolist())) == [0, 1, 2, 3, 9, 10]  # x: wrap gap 7 > 6, unchanged
    assert sorted(set(s[:, 1].tolist())) == [4, 5, 6, 7, 8, 9]  # y < 4 gets +8
    assert min(s[:, 2]) == 6 and max(s[:, 2]) == 24  # z < 6 gets +24


def test_bandwidth_scale_gemini_y_and_shifted_coordinate():
    bw = [[75.0, 37.5, 75.0, 37.5]]
    assert bandwidth_scale([[0], [1], [2], [3], [4], [5]], bw, [4])[:, 0].tolist() == [0, 1, 3, 4, 6, 7]


def test_box_transform_default_weight_separates_boxes_first():
    out = box_transform([[0, 0], [1, 0], [2, 7]], (2, 8))
    w = 2 * 8 * 8
    assert out.tolist() == [[0, 0, 0, 0], [0, 0, 1, 0], [w, 0, 0, 7]]


def test_drop_dimensions_and_constants():
    assert drop_dimensions([[1, 2, 3, 4, 1]], [4]).tolist() == [[1, 2, 3, 4]]
    with pytest.raises(InvalidInputError, match="cannot drop every dimension"):
        drop_dimensions([[1]], [0])
    with pytest.raises(InvalidInputError, match=r"must lie in \[0, 2\)"):
        drop_dimensions([[1, 2]], [2])
    assert drop_constant_dimensions([[5, 5], [5, 5]]).tolist() == [[5], [5]]


def test_cube_sphere_unfold_is_continuous_across_face_edges():
    rng = np.random.default_rng(0)
    p = rng.normal(size=(2000, 3))
    p /= np.linalg.norm(p, axis=1)[:, None]
    q = p + 1e-6 * rng.normal(size=p.shape)
    a, b = cube_sphere_unfold(p), cube_sphere_unfold(q)
    d = np.abs(a - b)
    d[:, 0] = np.minimum(d[:, 0], 8 - d[:, 0])  # the equatorial row wraps in x
    near_equator_or_same_face = d.max(axis=1) < 1e-3
    # points near the edges between the poles and the non-+X equatorial faces jump (the unfolding
    # cuts there); everything else is continuous
    assert near_equator_or_same_face.mean() > 0.97
    assert cube_sphere_unfold([[0, 0, -1]]).tolist() == [[1.0, -2.0]]
    with pytest.raises(InvalidInputError, match="point 0 is at the origin"):
        cube_sphere_unfold([[0, 0, 0]])


def test_drop_constant_dimensions_one_pass_ranges_and_errors():
    from mpitaskmap import _mj

    c = np.array([[1.0, 5.0, -0.0], [2.0, 5.0, 1.0], [0.5, 5.0, 0.0]])
    lo, hi = _mj.column_ranges(c)
    assert lo.tolist() == [0.5, 5.0, 0.0] and hi.tolist() == [2.0, 5.0, 1.0]
    out = drop_constant_dimensions(c)
    assert out.tolist() == [[1.0, 0.0], [2.0, 1.0], [0.5, 0.0]]
    assert drop_constant_dimensions(c[:, [0, 2]]) is not c  # a copy only when needed ...
    full = np.ascontiguousarray(c[:, [0, 2]])
    assert drop_constant_dimensions(full) is full  # ... nothing dropped: the same array
    with pytest.raises(InvalidInputError, match=r"non-finite value at index \(2, 1\); got nan"):
        drop_constant_dimensions(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, np.nan]]))
    with pytest.raises(InvalidInputError, match=r"non-finite value at index \(0, 0\); got -inf"):
        drop_constant_dimensions(np.array([[-np.inf, 2.0], [3.0, 4.0]]))


@pytest.mark.parametrize("d", [1, 3, 5])
def test_column_ranges_matches_numpy_and_flags_non_finite(d):
    # d == 3 has its own row-major loop; other widths go column by column
    from mpitaskmap import _mj

    c = np.random.default_rng(d).normal(size=(1000, d)) * 100
    lo, hi = _mj.column_ranges(c)
    np.testing.assert_array_equal(lo, c.min(axis=0))
    np.testing.assert_array_equal(hi, c.max(axis=0))
    for k in range(d):
        bad = c.copy()
        bad[999 - k, k] = np.nan  # NaN anywhere: every entry NaN
        lo, hi = _mj.column_ranges(bad)
        assert np.isnan(lo).all() and np.isnan(hi).all()
        bad[999 - k, k] = np.inf  # an infinity shows as its column's maximum
        assert _mj.column_ranges(bad)[1][k] == np.inf
