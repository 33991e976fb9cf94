"""The torus machine (machines/torus/): hop distance, dimension-order routing, link bandwidths, validation."""

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, TorusMachine, gemini_bandwidth

from reference import ref_hops, ref_link_id, ref_route

# A 4x4 torus with five processors, hand-computed distances.
COORDS_4X4 = [[0, 0], [3, 0], [1, 2], [2, 2], [0, 3]]


@pytest.fixture
def torus4x4():
    return TorusMachine(COORDS_4X4, dims=[4, 4])


def test_hops_on_4x4_torus_use_wrap_links(torus4x4):
    src = [0, 0, 0, 1, 2, 3]
    dst = [1, 2, 4, 2, 3, 3]
    # (0,0)-(3,0): 1 via wrap; (0,0)-(1,2): 1+2; (0,0)-(0,3): 1 via wrap;
    # (3,0)-(1,2): 2+2; (1,2)-(2,2): 1; same processor: 0.
    assert torus4x4.hops(src, dst).tolist() == [1, 3, 1, 4, 1, 0]


def test_hops_on_4x4_mesh_do_not_wrap():
    mesh = TorusMachine(COORDS_4X4, dims=[4, 4], wrap=False)
    assert mesh.hops([0, 0, 1], [1, 4, 2]).tolist() == [3, 3, 4]


def test_mixed_wrap_flags():
    m = TorusMachine([[0, 0], [3, 3]], dims=[4, 4], wrap=[True, False])
    assert m.hops([0], [1]).tolist() == [1 + 3]


def test_processors_on_one_router_are_zero_hops():
    m = TorusMachine([[1, 1], [1, 1], [2, 1]], dims=[4, 4], node_ids=[0, 1, 2])
    assert m.hops([0, 0], [1, 2]).tolist() == [0, 1]


def test_route_crosses_wrap_link_in_minus_direction(torus4x4):
    # (0,0) -> (3,0): one hop X- over the wrap link leaving router 0.
    assert torus4x4.route(0, 1) == [("X-", 0 * 4 + 2 * 0 + 1)]
    # (3,0) -> (0,0): one hop X+ over the wrap link leaving router 3.
    assert torus4x4.route(1, 0) == [("X+", 3 * 4 + 0)]


def test_route_is_dimension_order_and_ties_go_positive():
    m = TorusMachine([[0, 0], [2, 0], [1, 2], [0, 3]], dims=[4, 4])
    # distance 2 on a ring of 4 both ways: positive direction, routers 0 then 1.
    assert m.route(0, 1) == [("X+", 0), ("X+", 4)]
    # (1,2) -> (0,3): X first (X- from router 9), then Y+ from router 8.
    assert m.route(2, 3) == [("X-", 9 * 4 + 1), ("Y+", 8 * 4 + 2)]


@pytest.mark.parametrize("seed", range(5))
def test_hops_and_routes_match_reference_on_random_machines(seed):
    rng = np.random.default_rng(seed)
    n_dims = int(rng.integers(1, 5))
    dims = rng.integers(1, 7, size=n_dims)
    wrap = rng.random(n_dims) < 0.6
    coords = np.stack([rng.integers(0, d, size=30) for d in dims], axis=1)
    m = TorusMachine(coords, dims=dims, wrap=wrap)
    src = rng.integers(0, 30, size=50)
    dst = rng.integers(0, 30, size=50)
    expected = [ref_hops(coords[s], coords[d], dims, wrap) for s, d in zip(src, dst)]
    assert m.hops(src, dst).tolist() == expected
    for s, d in zip(src[:10], dst[:10]):
        ref = [ref_link_id(c, k, dr, dims) for c, k, dr in ref_route(coords[s], coords[d], dims, wrap)]
        assert [lid for _, lid in m.route(int(s), int(d))] == ref


def test_gemini_link_bandwidths_per_position():
    x, y, z = gemini_bandwidth([25, 16, 24])
    assert set(x) == {75.0}
    assert y[:4].tolist() == [75.0, 37.5, 75.0, 37.5]
    assert z[6:9].tolist() == [120.0, 75.0, 120.0] and z[15] == 75.0 and z[23] == 75.0


def test_minus_link_has_bandwidth_of_the_same_cable():
    m = TorusMachine([[0, 0, 0]], dims=[2, 4, 24], bandwidth="gemini")
    bw = m.link_bandwidths().reshape(-1, 3, 2)
    r = 0  # router (0,0,0)
    assert bw[r, 1, 0] == 75.0  # Y+ from y=0: mezzanine 0-1
    assert bw[r, 1, 1] == 37.5  # Y- from y=0 to y=3: cable 3-0
    assert bw[r, 2, 1] == 75.0  # Z- from z=0 to z=23: cable between groups


def test_per_dimension_and_per_position_bandwidth():
    m = TorusMachine([[0, 0]], dims=[3, 2], bandwidth=[2.0, [1.0, 4.0]])
    bw = m.link_bandwidths().reshape(3, 2, 2, 2)  # (y, x, dim, dir) since x is fastest
    assert bw[0, 0, 0].tolist() == [2.0, 2.0]
    assert bw[0, 0, 1].tolist() == [1.0, 4.0]  # Y+ from y=0 uses pos 0, Y- uses pos 1 (wrap)


class TestBadInput:
    def test_coordinate_outside_torus_names_processor_and_value(self):
        with pytest.raises(InvalidInputError, match=r"processor 1 has coordinate 4 in dimension 0, outside \[0, 4\)"):
            TorusMachine([[0, 0], [4, 0]], dims=[4, 4])

    def test_negative_coordinate(self):
        with pytest.raises(InvalidInputError, match="processor 0 has coordinate -1"):
            TorusMachine([[-1, 0]], dims=[4, 4])

    def test_nan_coordinate(self):
        with pytest.raises(InvalidInputError, match=r"index \(0, 1\)"):
            TorusMachine([[0.0, np.nan]], dims=[4, 4])

    def test_fractional_coordinate(self):
        with pytest.raises(InvalidInputError, match="1.5"):
            TorusMachine([[0.0, 1.5]], dims=[4, 4])

    def test_wrong_shape(self):
        with pytest.raises(InvalidInputError, match="expected 2 columns"):
            TorusMachine([[0, 0, 0]], dims=[4, 4])

    def test_zero_size_machine(self):
        with pytest.raises(InvalidInputError, match="at least one processor"):
            TorusMachine(np.zeros((0, 2)), dims=[4, 4])

    def test_bad_dims(self):
        with pytest.raises(InvalidInputError, match="positive integers"):
            TorusMachine([[0]], dims=[0])

    def test_bad_bandwidth(self):
        with pytest.raises(InvalidInputError, match="dimension 1 position 0 must be positive"):
            TorusMachine([[0, 0]], dims=[2, 2], bandwidth=[1.0, [0.0, 1.0]])

    def test_node_on_two_routers(self):
        with pytest.raises(InvalidInputError, match="processors 0 and 1 are on node 5"):
            TorusMachine([[0, 0], [1, 0]], dims=[2, 2], node_ids=[5, 5])

    def test_hops_index_out_of_range(self, torus4x4):
        with pytest.raises(InvalidInputError, match="position 0; got 9"):
            torus4x4.hops([9], [0])
