"""Tests for mpitaskmap.mappers.geometric.mj (MJ partitioner) and its kernel mpitaskmap._mj."""

from fractions import Fraction

import numpy as np
import pytest

from mpitaskmap import _mj
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.mappers.geometric.mj import ORDERINGS, mj_part_sizes, mj_partition

from reference_mj import reference_mj, reference_part_sizes, round_half_up

# ----------------------------------------------------------------------------------
# Pinned vectors, copied verbatim from ALGORITHMS.md section 2.2: 64 points on a line
# (positions 0..63, one point per part), the part number each position receives.
LINE64_Z = list(range(64))
LINE64_FZ = [int(v) for v in """
0 1 3 2 6 7 5 4 12 13 15 14 10 11 9 8 24 25 27 26 30 31 29 28 20 21 23 22 18 19 17 16
48 49 51 50 54 55 53 52 60 61 63 62 58 59 57 56 40 41 43 42 46 47 45 44 36 37 39 38 34 35 33 32
""".split()]
LINE64_MFZ = [int(v) for v in """
31 30 28 29 25 24 26 27 19 18 16 17 21 20 22 23 7 6 4 5 1 0 2 3 11 10 8 9 13 12 14 15
47 46 44 45 41 40 42 43 35 34 32 33 37 36 38 39 55 54 52 53 49 48 50 51 59 58 56 57 61 60 62 63
""".split()]

# Hand-checked 4 x 4 grid, 16 parts, longest-dimension cuts (ties -> dimension 0).
# Point (x, y) is row x * 4 + y of GRID4; the tables are indexed [x][y].
GRID4 = np.array([[x, y] for x in range(4) for y in range(4)], dtype=float)
GRID4_PARTS = {
    # cut x, then y, then x, then y: part bits = x1 y1 x0 y0
    "z": [[0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]],
    # leaf order (0,0) (0,1) (1,0) (1,1) (0,3) (0,2) (1,3) (1,2) (3,0) (3,1) (2,0) ...
    # as worked out in reference/zoltan2.md section 5.6
    "fz": [[0, 1, 5, 4], [2, 3, 7, 6], [10, 11, 15, 14], [8, 9, 13, 12]],
    # the lower side is mirrored: part 0 is (1, 1)
    "mfz": [[3, 2, 6, 7], [1, 0, 4, 5], [9, 8, 12, 13], [11, 10, 14, 15]],
    # the upper side has all coordinates negated: (3,3) (3,2) (2,2) (2,3) are 8..11
    "gray": [[0, 1, 6, 7], [3, 2, 5, 4], [12, 13, 10, 11], [15, 14, 9, 8]],
    # the order-2 Hilbert curve
    "hilbert": [[0, 3, 4, 5], [1, 2, 7, 6], [14, 13, 8, 9], [15, 12, 11, 10]],
}

# 2 x 2 x 2 cube, point (x, y, z) is row 4x + 2y + z.  Each dimension is cut once, so
# the single-dimension flips (fz, mfz) change nothing; gray mirrors y and z too.
CUBE2 = np.array([[x, y, z] for x in range(2) for y in range(2) for z in range(2)], dtype=float)
CUBE2_PARTS = {
    "z": [0, 1, 2, 3, 4, 5, 6, 7],
    "fz": [0, 1, 2, 3, 4, 5, 6, 7],
    "mfz": [0, 1, 2, 3, 4, 5, 6, 7],
    "gray": [0, 1, 3, 2, 6, 7, 5, 4],
    "hilbert": [0, 3, 7, 4, 1, 2, 6, 5],
}

MJ_ORDERINGS = ["z", "gray", "fz", "mfz"]


def check_partition(part, n, n_parts, **tree):
    """Every point assigned, values in range, part sizes exactly as promised."""
    assert part.dtype == np.intp and part.shape == (n,)
    assert part.min() == 0 and part.max() == n_parts - 1
    sizes = np.bincount(part, minlength=n_parts)
    np.testing.assert_array_equal(sizes, mj_part_sizes(n, n_parts, **tree))
    assert sizes.min() >= n // n_parts and sizes.max() <= -(-n // n_parts)


# ---------------------------------------------------------------------------- pinned
@pytest.mark.parametrize("ordering,expected", [("z", LINE64_Z), ("fz", LINE64_FZ), ("mfz", LINE64_MFZ)])
def test_line64_pinned_vectors(ordering, expected):
    line = np.arange(64, dtype=float)[:, None]
    assert mj_partition(line, 64, ordering=ordering).tolist() == expected
    assert reference_mj(line, 64, ordering=ordering) == expected


def test_line64_fz_is_binary_reflected_gray_code():
    i = np.arange(64)
    np.testing.assert_array_equal(LINE64_FZ, i ^ (i >> 1))
    part = mj_partition(i.astype(float), 64, ordering="fz")
    # neighbouring positions get parts that differ in exactly one bit
    flips = part[1:] ^ part[:-1]
    assert all(bin(int(f)).count("1") == 1 for f in flips)
    # on a line gray (all coordinates) and fz (the cut coordinate) coincide
    np.testing.assert_array_equal(mj_partition(i, 64, ordering="gray"), part)


def test_line64_mfz_is_fz_with_the_lower_side_mirrored():
    # MFZ = FZ of the mirrored line inside each top-level half... checked directly:
    # position 21 is the first part, the two halves meet at the middle cut.
    assert LINE64_MFZ.index(0) == 21 and LINE64_MFZ.index(31) == 0 and LINE64_MFZ.index(32) == 42


@pytest.mark.parametrize("ordering", ORDERINGS)
def test_grid4_hand_checked(ordering):
    part = mj_partition(GRID4, 16, ordering=ordering)
    np.testing.assert_array_equal(part.reshape(4, 4), GRID4_PARTS[ordering])
    assert reference_mj(GRID4, 16, ordering=ordering) == part.tolist()


@pytest.mark.parametrize("ordering", ORDERINGS)
def test_cube2_hand_checked(ordering):
    assert mj_partition(CUBE2, 8, ordering=ordering).tolist() == CUBE2_PARTS[ordering]


def test_grid4_fz_cycling_dims_equals_longest():
    # on a square grid longest-dimension cuts alternate x, y, x, y like cycling
    for ordering in MJ_ORDERINGS:
        np.testing.assert_array_equal(
            mj_partition(GRID4, 16, ordering=ordering, longest_dim=False),
            mj_partition(GRID4, 16, ordering=ordering),
        )


def test_hilbert_parts_are_neighbours():
    g = np.array([[x, y, z] for x in range(8) for y in range(8) for z in range(8)], dtype=float)
    part = mj_partition(g, 512, ordering="hilbert")
    walk = g[np.argsort(part)]
    assert (np.abs(np.diff(walk, axis=0)).sum(axis=1) == 1).all()


# ------------------------------------------------------------ cut dimension and order
def test_longest_dimension_is_cut_first():
    # 8 x 2 grid: the long dimension 0 is cut three times before dimension 1
    g = np.array([[x, y] for x in range(8) for y in range(2)], dtype=float)
    part = mj_partition(g, 2, ordering="z")
    np.testing.assert_array_equal(part, (g[:, 0] >= 4).astype(int))
    part = mj_partition(g, 16, ordering="z")
    np.testing.assert_array_equal(part, 2 * g[:, 0] + g[:, 1])
    # cycling cuts dimension 0 then 1 then 0 ...
    part = mj_partition(g, 4, ordering="z", longest_dim=False)
    np.testing.assert_array_equal(part, 2 * (g[:, 0] >= 4) + g[:, 1])


def test_dim_order_breaks_ties_and_sets_cycle():
    # square: the tie goes to the lowest dimension after dim_order
    part = mj_partition(GRID4, 2, ordering="z", dim_order=[1, 0])
    np.testing.assert_array_equal(part, (GRID4[:, 1] >= 2).astype(int))
    part = mj_partition(GRID4, 2, ordering="z", longest_dim=False, dim_order=[1, 0])
    np.testing.assert_array_equal(part, (GRID4[:, 1] >= 2).astype(int))
    # dim_order is the same as permuting the columns
    rng = np.random.default_rng(3)
    pts = rng.integers(0, 5, size=(200, 3)).astype(float)
    for ordering in ORDERINGS:
        np.testing.assert_array_equal(
            mj_partition(pts, 13, ordering=ordering, dim_order=[2, 0, 1]),
            mj_partition(pts[:, [2, 0, 1]], 13, ordering=ordering),
        )


# ------------------------------------------------------------------ uneven part counts
def test_part_sizes_hand_checked():
    assert mj_part_sizes(10, 4).tolist() == [3, 2, 3, 2]  # zoltan2.md section 6
    assert mj_part_sizes(7, 5).tolist() == [2, 1, 1, 2, 1]
    assert mj_part_sizes(8, 3).tolist() == [3, 3, 2]
    assert mj_part_sizes(10, 3, prime_split=True).tolist() == [4, 3, 3]
    assert mj_part_sizes(5, 1).tolist() == [5]
    assert mj_part_sizes(16, 8, part_counts=[4, 2]).tolist() == [2] * 8


@pytest.mark.parametrize("n_parts", [1, 2, 3, 5, 6, 7, 10, 12, 17, 31, 48, 100])
@pytest.mark.parametrize("prime_split", [False, True])
def test_part_sizes_match_reference(n_parts, prime_split):
    for n in [n_parts, n_parts + 1, 2 * n_parts - 1, 3 * n_parts + 2, 1000]:
        if n < n_parts:
            continue
        sizes = mj_part_sizes(n, n_parts, prime_split=prime_split)
        assert sizes.tolist() == reference_part_sizes(n, n_parts, prime_split=prime_split)
        assert sizes.sum() == n and sizes.min() >= n // n_parts and sizes.max() <= -(-n // n_parts)


@pytest.mark.parametrize("n_parts", [3, 5, 6, 7, 10])
@pytest.mark.parametrize("ordering", MJ_ORDERINGS)
def test_uneven_part_counts_on_a_line(n_parts, ordering):
    line = np.arange(n_parts, dtype=float)
    part = mj_partition(line, n_parts, ordering=ordering)
    assert sorted(part.tolist()) == list(range(n_parts))
    assert part.tolist() == reference_mj(line[:, None], n_parts, ordering=ordering)
    if ordering == "z":
        assert part.tolist() == list(range(n_parts))


def test_uneven_hand_checked():
    line = np.arange(8.0)
    assert mj_partition(line, 3, ordering="z").tolist() == [0, 0, 0, 1, 1, 1, 2, 2]
    assert mj_partition(line, 3, ordering="fz").tolist() == [0, 0, 0, 2, 2, 1, 1, 1]
    assert mj_partition(line, 3, ordering="mfz").tolist() == [0, 0, 0, 1, 1, 1, 2, 2]
    # 7 points, 5 parts: 2|3 parts get 3|4 points (round_half_up(7 * 2 / 5) = 3)
    assert mj_partition(np.arange(7.0), 5, ordering="z").tolist() == [0, 0, 1, 2, 3, 3, 4]


@pytest.mark.parametrize("n,n_parts", [(1000, 37), (1000, 1000), (999, 4), (513, 512), (100, 1)])
def test_balance_n_greater_than_parts(n, n_parts):
    rng = np.random.default_rng(n + n_parts)
    pts = rng.random((n, 3))
    for ordering in ORDERINGS:
        check_partition(mj_partition(pts, n_parts, ordering=ordering), n, n_parts)


# ------------------------------------------------------------------------ prime split
def test_prime_split_10800():
    assert _mj._py_left_parts(10800, True) == 6480
    assert _mj._py_left_parts(10800, False) == 5400
    assert _mj._py_largest_prime_factor(10800) == 5
    sizes = mj_part_sizes(10800, 10800, prime_split=True)
    assert (sizes == 1).all()
    line = np.arange(10800, dtype=float)
    part = mj_partition(line, 10800, ordering="z", prime_split=True)
    np.testing.assert_array_equal(part, np.arange(10800))
    # the first cut is at 6480: points 0..6479 hold parts 0..6479 for every ordering
    part = mj_partition(line, 10800, ordering="fz", prime_split=True)
    assert part[:6480].max() == 6479 and part[6480:].min() == 6480
    # 2 x 10800 points: the first cut sends 12960 points left
    part = mj_partition(np.repeat(line, 2), 10800, ordering="z", prime_split=True)
    assert (part < 6480).sum() == 12960


@pytest.mark.parametrize("n_parts,left", [(3, 2), (5, 3), (6, 4), (7, 4), (9, 6), (15, 9), (16, 8), (14, 8), (2, 1)])
def test_prime_split_counts(n_parts, left):
    assert _mj._py_left_parts(n_parts, True) == left
    sizes = mj_part_sizes(n_parts, n_parts, prime_split=True)
    part = mj_partition(np.arange(float(n_parts)), n_parts, ordering="z", prime_split=True)
    assert (part < left).sum() == left and sizes.sum() == n_parts


def test_kernel_share_is_round_half_up():
    for n in range(0, 40):
        for np_ in range(1, 12):
            for c in range(np_ + 1):
                assert _mj._py_share(n, np_, c) == round_half_up(Fraction(n * c, np_))
    assert _mj._py_share(2**40 + 7, 2**30 - 3, 2**29) == round_half_up(Fraction((2**40 + 7) * 2**29, 2**30 - 3))


# ----------------------------------------------------------------------- multisection
def test_multisection_line_serpentine():
    line = np.arange(16.0)
    assert mj_partition(line, 8, ordering="z", part_counts=[4, 2]).tolist() == [
        0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]
    # fz: odd slabs are mirrored
    assert mj_partition(line, 8, ordering="fz", part_counts=[4, 2]).tolist() == [
        0, 0, 1, 1, 3, 3, 2, 2, 4, 4, 5, 5, 7, 7, 6, 6]
    # mfz: even slabs are mirrored
    assert mj_partition(line, 8, ordering="mfz", part_counts=[4, 2]).tolist() == [
        1, 1, 0, 0, 2, 2, 3, 3, 5, 5, 4, 4, 6, 6, 7, 7]


def test_multisection_grid_and_reference():
    g = np.array([[x, y] for x in range(6) for y in range(4)], dtype=float)
    part = mj_partition(g, 6, ordering="z", part_counts=[3, 2])
    np.testing.assert_array_equal(part, 2 * (g[:, 0] // 2) + (g[:, 1] >= 2))
    rng = np.random.default_rng(11)
    pts = rng.integers(0, 6, size=(300, 3)).astype(float)
    for pc in ([5, 2, 2], [5, 1, 4], [20], [2, 2, 5], [1, 1, 20]):
        for ordering in ORDERINGS:
            for longest in (True, False):
                part = mj_partition(pts, 20, ordering=ordering, part_counts=pc, longest_dim=longest)
                check_partition(part, 300, 20, part_counts=pc)
                assert part.tolist() == reference_mj(pts, 20, ordering=ordering, part_counts=pc, longest_dim=longest)


def test_bisection_part_counts_equals_default():
    rng = np.random.default_rng(5)
    pts = rng.random((64, 3))
    for ordering in ORDERINGS:
        np.testing.assert_array_equal(
            mj_partition(pts, 16, ordering=ordering, part_counts=[2, 2, 2, 2]),
            mj_partition(pts, 16, ordering=ordering),
        )


# ------------------------------------------------------------ duplicates, determinism
def test_identical_points_are_split_by_index():
    pts = np.zeros((64, 3))
    for ordering in ORDERINGS:
        np.testing.assert_array_equal(mj_partition(pts, 64, ordering=ordering), np.arange(64))
        np.testing.assert_array_equal(mj_partition(pts, 8, ordering=ordering), np.arange(64) // 8)


def test_cores_sharing_a_node_coordinate():
    # 16 nodes on a 4x4 grid, 16 cores each (same coordinate); 256 parts
    nodes = np.array([[x, y] for x in range(4) for y in range(4)], dtype=float)
    pts = np.repeat(nodes, 16, axis=0)
    for ordering in MJ_ORDERINGS:
        part = mj_partition(pts, 256, ordering=ordering)
        check_partition(part, 256, 256)
        # whole nodes stay together: 16 consecutive parts per node, in the node order
        node_part = mj_partition(nodes, 16, ordering=ordering)
        np.testing.assert_array_equal(part // 16, np.repeat(node_part, 16))
        # and inside a node the cores keep their index order (ties broken by index)
        assert (np.diff(part.reshape(16, 16), axis=1) == 1).all()
        assert part.tolist() == reference_mj(pts, 256, ordering=ordering)


def test_negative_zero_ties_with_zero():
    pts = np.array([[0.0], [-0.0], [0.0], [-0.0]])
    for ordering in ORDERINGS:
        np.testing.assert_array_equal(mj_partition(pts, 4, ordering=ordering), [0, 1, 2, 3])


def test_independent_of_memory_layout_and_dtype():
    rng = np.random.default_rng(2)
    base = rng.integers(0, 4, size=(120, 3))
    expect = {o: mj_partition(base.astype(float), 24, ordering=o) for o in ORDERINGS}
    big = np.zeros((240, 6))
    big[::2, ::2] = base
    variants = [
        np.asfortranarray(base.astype(float)),
        base.astype(np.float32),
        base,  # integers
        big[::2, ::2],  # strided view
        base.astype(float).tolist(),
    ]
    for v in variants:
        for o in ORDERINGS:
            np.testing.assert_array_equal(mj_partition(v, 24, ordering=o), expect[o])
    ro = base.astype(float)
    ro.flags.writeable = False  # read-only input is fine and left untouched
    copy = ro.copy()
    mj_partition(ro, 24)
    np.testing.assert_array_equal(ro, copy)


def test_deterministic_repeated_calls():
    rng = np.random.default_rng(9)
    pts = rng.integers(0, 3, size=(5000, 4)).astype(float)
    first = mj_partition(pts, 777, prime_split=True)
    for _ in range(3):
        np.testing.assert_array_equal(mj_partition(pts, 777, prime_split=True), first)


def test_many_dimensions():
    rng = np.random.default_rng(4)
    for d in (1, 2, 5, 10, 12):
        pts = rng.integers(0, 3, size=(200, d)).astype(float)
        for ordering in ORDERINGS:
            part = mj_partition(pts, 40, ordering=ordering)
            check_partition(part, 200, 40)
            assert part.tolist() == reference_mj(pts, 40, ordering=ordering)


# ---------------------------------------------------------------- reference agreement
@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_reference_seeded(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    d = int(rng.integers(1, 6))
    n_parts = int(rng.integers(1, n + 1))
    if seed % 3 == 0:
        pts = rng.random((n, d)) * rng.integers(1, 100, size=d)
    else:
        pts = rng.integers(-3, 4, size=(n, d)).astype(float)  # many ties
    kw = dict(
        longest_dim=bool(seed % 2),
        dim_order=rng.permutation(d).tolist(),
        prime_split=bool(seed % 4 == 1),
    )
    for ordering in ORDERINGS:
        part = mj_partition(pts, n_parts, ordering=ordering, **kw)
        check_partition(part, n, n_parts, prime_split=kw["prime_split"])
        assert part.tolist() == reference_mj(pts, n_parts, ordering=ordering, **kw)


@pytest.mark.slow
@pytest.mark.parametrize("ordering", ORDERINGS)
def test_agrees_with_reference_grid_4096(ordering):
    g = np.array([[x, y, z] for x in range(16) for y in range(16) for z in range(16)], dtype=float)
    g = np.repeat(g, 2, axis=0)
    for n_parts in (4096, 1000):
        part = mj_partition(g, n_parts, ordering=ordering)
        check_partition(part, len(g), n_parts)
        assert part.tolist() == reference_mj(g, n_parts, ordering=ordering)


@pytest.mark.slow
def test_agrees_with_reference_larger_random():
    rng = np.random.default_rng(21)
    pts = np.round(rng.normal(size=(3000, 3)) * 10, 1)  # floats with many duplicates
    for ordering in ORDERINGS:
        for n_parts in (97, 3000):
            part = mj_partition(pts, n_parts, ordering=ordering, prime_split=True)
            check_partition(part, 3000, n_parts, prime_split=True)
            assert part.tolist() == reference_mj(pts, n_parts, ordering=ordering, prime_split=True)


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402


@st.composite
def problems(draw):
    d = draw(st.integers(1, 4))
    n = draw(st.integers(1, 40))
    values = st.sampled_from([-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0]) | st.floats(-1e6, 1e6, allow_nan=False)
    pts = draw(st.lists(st.lists(values, min_size=d, max_size=d), min_size=n, max_size=n))
    n_parts = draw(st.integers(1, n))
    return np.array(pts, dtype=float), n_parts, draw(st.permutations(range(d)))


@settings(max_examples=150, deadline=None)
@given(problems(), st.sampled_from(ORDERINGS), st.booleans(), st.booleans())
def test_agrees_with_reference_property(problem, ordering, longest_dim, prime_split):
    pts, n_parts, dim_order = problem
    part = mj_partition(pts, n_parts, ordering=ordering, longest_dim=longest_dim,
                        dim_order=dim_order, prime_split=prime_split)
    check_partition(part, len(pts), n_parts, prime_split=prime_split)
    assert part.tolist() == reference_mj(pts, n_parts, ordering=ordering, longest_dim=longest_dim,
                                         dim_order=dim_order, prime_split=prime_split)
    # with distinct values in every column no tie ever needs the index, so a row
    # permutation just moves the part ids along
    if all(len(np.unique(pts[:, c])) == len(pts) for c in range(pts.shape[1])) and ordering != "hilbert":
        perm = np.random.default_rng(0).permutation(len(pts))
        moved = mj_partition(pts[perm], n_parts, ordering=ordering, longest_dim=longest_dim,
                             dim_order=dim_order, prime_split=prime_split)
        np.testing.assert_array_equal(moved, part[perm])


# ------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "args,kwargs,match",
    [
        ((np.zeros((4, 2)), 0), {}, "n_parts: must be >= 1; got 0"),
        ((np.zeros((4, 2)), -3), {}, "n_parts: must be >= 1"),
        ((np.zeros((4, 2)), 2.0), {}, "n_parts: expected an integer; got 2.0"),
        ((np.zeros((4, 2)), True), {}, "n_parts: expected an integer"),
        ((np.zeros((3, 2)), 4), {}, "coords: fewer points than parts \\(n_parts=4\\); got 3 points"),
        ((np.zeros((4, 0)), 2), {}, "coords: needs at least one dimension"),
        ((np.zeros((0, 2)), 1), {}, "coords: fewer points than parts"),
        ((np.zeros((2, 2, 2)), 1), {}, "coords: expected a 2-D"),
        ((np.array([[0.0, np.nan], [1, 1]]), 1), {}, "coords: non-finite value at index \\(0, 1\\); got nan"),
        ((np.array([[0.0, 1], [np.inf, 1]]), 1), {}, "coords: non-finite value at index \\(1, 0\\); got inf"),
        ((np.array([["a", "b"]]), 1), {}, "coords: cannot be read as a float array"),
        ((np.zeros((4, 2)), 2), {"ordering": "peano"},
         "ordering: unknown ordering, valid names are 'fz', 'mfz', 'z', 'gray', 'hilbert'; got 'peano'"),
        ((np.zeros((4, 2)), 2), {"ordering": None}, "ordering: unknown ordering"),
        ((np.zeros((4, 2)), 2), {"dim_order": [0, 0]}, "dim_order: expected a permutation of 0..1; got \\[0, 0\\]"),
        ((np.zeros((4, 2)), 2), {"dim_order": [0, 1, 2]}, "dim_order: expected a permutation"),
        ((np.zeros((4, 2)), 4), {"part_counts": [2, 3]},
         "part_counts: product must equal n_parts=4; got \\[2, 3\\]"),
        ((np.zeros((4, 2)), 4), {"part_counts": [4, 0]}, "part_counts: every entry must be >= 1"),
        ((np.zeros((4, 2)), 4), {"part_counts": []}, "part_counts: expected a non-empty"),
        ((np.zeros((4, 2)), 4), {"part_counts": [2.0, 2.0]}, "part_counts: expected a non-empty 1-D sequence of integers"),
        ((np.zeros((4, 2)), 4), {"part_counts": [2, 2], "prime_split": True},
         "prime_split: cannot be combined with part_counts"),
        ((np.zeros((4, 65)), 4), {"ordering": "hilbert"}, "at most 64 dimensions; got 65"),
    ],
)
def test_bad_input(args, kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        mj_partition(*args, **kwargs)


def test_bad_input_is_value_error_and_part_sizes_errors():
    with pytest.raises(ValueError):
        mj_partition(np.zeros((4, 2)), 2, ordering="Z")
    with pytest.raises(InvalidInputError, match="n: fewer points than parts \\(n_parts=5\\); got 4"):
        mj_part_sizes(4, 5)
    with pytest.raises(InvalidInputError, match="n_parts: must be < 2\\*\\*31"):
        mj_part_sizes(2**32, 2**31)
    with pytest.raises(InvalidInputError, match="n: expected an integer"):
        mj_part_sizes(4.0, 2)


def _bucket_path_points(seed: int, n: int) -> np.ndarray:
    """3-D points with many ties, negative values and -0.0 (large enough for the kernel's
    bucketed selection, which runs on nodes of >= 8192 points)."""
    rng = np.random.default_rng(seed)
    pts = np.round(rng.normal(size=(n, 3)) * 4, 0)
    pts[rng.random(n) < 0.2, 1] = -0.0
    pts[: n // 3, 2] = rng.random(n // 3)
    return np.ascontiguousarray(pts)


@pytest.mark.parametrize("ordering", ["z", "gray", "fz", "mfz"])
def test_three_dim_record_path_equals_generic_kernel(ordering):
    # d == 3 bisection runs on 28-byte records with bucketed selection; d == 4 runs the
    # generic item kernel.  A constant fourth column is never the longest dimension, so
    # both must give the same parts, point for point.
    pts = _bucket_path_points(3, 30_000)
    pts4 = np.ascontiguousarray(np.c_[pts, np.zeros(len(pts))])
    for n_parts in (30_000, 7, 4096):
        for dim_order in (None, [2, 0, 1]):
            d4 = None if dim_order is None else dim_order + [3]
            a = mj_partition(pts, n_parts, ordering=ordering, dim_order=dim_order, prime_split=True)
            b = mj_partition(pts4, n_parts, ordering=ordering, dim_order=d4, prime_split=True)
            assert np.array_equal(a, b)


def test_three_dim_record_path_cycling_matches_reference():
    # cycling dimensions (no extents known): the bucketed selection computes the key range
    pts = _bucket_path_points(4, 20_000)
    for ordering in ("fz", "gray"):
        part = mj_partition(pts, 16, ordering=ordering, longest_dim=False, dim_order=[1, 2, 0])
        assert part.tolist() == reference_mj(pts, 16, ordering=ordering, longest_dim=False, dim_order=[1, 2, 0])


# ------------------------------------------------------- integer records (d == 3 bisection)
def _integer_points(seed: int, n: int, spread: int) -> np.ndarray:
    """3-D whole-number points with ties, negative values and -0.0 (the kernel's int32
    record path), in [-spread, spread]."""
    rng = np.random.default_rng(seed)
    pts = rng.integers(-spread, spread + 1, size=(n, 3)).astype(float)
    pts[rng.random(n) < 0.1, 0] = -0.0
    return np.ascontiguousarray(pts)


@pytest.mark.parametrize("ordering", ["z", "gray", "fz", "mfz"])
@pytest.mark.parametrize("spread", [3, 40, 10**6])
def test_integer_record_path_equals_double_record_path(ordering, spread):
    # whole numbers run on int32 records; adding 0.5 to every value keeps every key order,
    # tie and extent but sends the same points down the double-record path.  spread 3: few
    # values (boundaries inside a value); 40: about one value per bucket; 10**6: buckets of
    # many values (shifted buckets, boundaries inside a bucket).
    pts = _integer_points(spread, 20_000, spread)
    half = pts + 0.5
    for n_parts in (20_000, 4096, 1000, 7, 2):
        for dim_order in (None, [2, 0, 1]):
            for longest_dim in (True, False):
                kw = dict(ordering=ordering, dim_order=dim_order, longest_dim=longest_dim, prime_split=True)
                a = mj_partition(pts, n_parts, **kw)
                assert np.array_equal(a, mj_partition(half, n_parts, **kw)), (n_parts, dim_order, longest_dim)
                check_partition(a, len(pts), n_parts, prime_split=True)


@pytest.mark.parametrize("ordering", ["z", "gray", "fz", "mfz"])
def test_integer_record_path_matches_reference(ordering):
    for seed, (n, spread, n_parts) in enumerate([(600, 2, 600), (900, 30, 97), (500, 10**5, 64)]):
        pts = _integer_points(seed, n, spread)
        for longest_dim in (True, False):
            kw = dict(ordering=ordering, longest_dim=longest_dim, dim_order=[1, 2, 0], prime_split=True)
            assert mj_partition(pts, n_parts, **kw).tolist() == reference_mj(pts, n_parts, **kw)


def test_integer_record_path_limits():
    # whole numbers up to 2**30 in magnitude are exact int32 keys (extents up to 2**31);
    # beyond that the double records take over: both must agree with the reference
    rng = np.random.default_rng(5)
    for top in (2.0**30, 2.0**30 + 1, 2.0**40):
        pts = rng.integers(-3, 4, size=(300, 3)).astype(float)
        pts[0] = [top, -top, 0.0]
        pts[1] = [-top, top, -top]
        for ordering in ("fz", "gray"):
            part = mj_partition(pts, 50, ordering=ordering)
            assert part.tolist() == reference_mj(pts, 50, ordering=ordering), top


def test_integer_record_path_grid_row_orders():
    # a 16 x 8 x 4 grid in two row orders: every cut falls between two coordinate values,
    # so a point's part depends only on its coordinates, whatever the row order
    g = np.array([[x, y, z] for x in range(16) for y in range(8) for z in range(4)], dtype=float)
    perm = np.random.default_rng(6).permutation(len(g))
    for ordering in ("fz", "mfz"):
        part = mj_partition(g, len(g), ordering=ordering)
        assert part.tolist() == reference_mj(g, len(g), ordering=ordering)
        np.testing.assert_array_equal(mj_partition(g[perm], len(g), ordering=ordering), part[perm])


def test_integer_record_path_grid_guess_checked():
    # n divisible by the number of key values but the values unevenly filled: the kernel's
    # grid guess (boundary = kmin + t / (n / values)) is wrong and must be detected.
    # 48 points, x in 0..3 with 20/10/2/16 points (y, z in 0..1, so x is cut first): the
    # guess for the first cut is x < 2, which sends 30 points left instead of 24; the
    # boundary lies inside x = 1.
    rng = np.random.default_rng(8)
    xs = np.repeat([0.0, 1.0, 2.0, 3.0], [20, 10, 2, 16])
    pts = np.c_[xs, rng.integers(0, 2, 48), rng.integers(0, 2, 48)].astype(float)
    pts = np.ascontiguousarray(pts[rng.permutation(48)])
    for ordering in ("z", "fz"):
        for n_parts in (2, 4, 48):
            part = mj_partition(pts, n_parts, ordering=ordering)
            assert part.tolist() == reference_mj(pts, n_parts, ordering=ordering)
            assert np.array_equal(part, mj_partition(pts + 0.5, n_parts, ordering=ordering))
    # the first cut by hand: the 24 smallest (x, index) go to part 0
    order = np.lexsort((np.arange(48), pts[:, 0]))
    expected = np.ones(48, dtype=np.intp)
    expected[order[:24]] = 0
    assert mj_partition(pts, 2, ordering="z").tolist() == expected.tolist()


def test_integer_record_path_identical_records_uneven_parts():
    # ten cores at one 3-D point, 3 parts: every key ties, so index order decides.  With
    # prime_split the 3 parts split 2 | 1: share(10, 3, 2) = 7 points left, then
    # share(7, 2, 1) = 4 | 3; without it 1 | 2: share(10, 3, 1) = 3 points left, then
    # share(7, 2, 1) = 4 | 3.
    pts = np.tile([[2.0, -1.0, 5.0]], (10, 1))
    for ordering in ("z", "fz", "mfz", "gray"):
        assert mj_partition(pts, 3, ordering=ordering, prime_split=True).tolist() == [0] * 4 + [1] * 3 + [2] * 3
        assert mj_partition(pts, 3, ordering=ordering).tolist() == [0] * 3 + [1] * 4 + [2] * 3
    # nodes of 12 cores on a 3-D grid, rows interleaved, uneven part counts
    nodes = np.array([[x, y, z] for x in range(3) for y in range(2) for z in range(2)], dtype=float)
    cores = np.repeat(nodes, 12, axis=0)[np.random.default_rng(9).permutation(144)]
    for n_parts in (144, 100, 30, 7):
        for ordering in ("fz", "gray"):
            kw = dict(ordering=ordering, prime_split=True)
            assert mj_partition(cores, n_parts, **kw).tolist() == reference_mj(cores, n_parts, **kw)
