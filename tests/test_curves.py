"""Tests for mpitaskmap.curves: Hilbert (Skilling) and Morton keys."""

import itertools

import numpy as np
import pytest

from mpitaskmap.curves import hilbert_keys, morton_keys
from mpitaskmap.errors import InvalidInputError

from reference_mj import reference_hilbert_key, reference_morton_key

# Hand-checked: the 2-D order-1 and order-2 Hilbert curves starting at the origin and
# leaving along dimension 1 first (Skilling's convention, dimension 0 most significant).
HILBERT_2D_ORDER1 = [(0, 0), (0, 1), (1, 1), (1, 0)]
HILBERT_2D_ORDER2 = [
    (0, 0), (1, 0), (1, 1), (0, 1), (0, 2), (0, 3), (1, 3), (1, 2),
    (2, 2), (2, 3), (3, 3), (3, 2), (3, 1), (2, 1), (2, 0), (3, 0),
]


def full_grid(d, n_bits):
    return np.array(list(itertools.product(range(2**n_bits), repeat=d)), dtype=np.int64)


def test_hilbert_2d_hand_checked():
    for curve, bits in [(HILBERT_2D_ORDER1, 1), (HILBERT_2D_ORDER2, 2)]:
        keys = hilbert_keys(np.array(curve), bits)
        np.testing.assert_array_equal(keys, np.arange(len(curve), dtype=np.uint64))


def test_hilbert_1d_is_identity():
    x = np.arange(256)
    np.testing.assert_array_equal(hilbert_keys(x[:, None], 8), x.astype(np.uint64))
    np.testing.assert_array_equal(hilbert_keys(x, 8), x.astype(np.uint64))  # 1-D input


@pytest.mark.parametrize("d,n_bits", [(1, 5), (2, 1), (2, 4), (3, 1), (3, 3), (4, 2), (5, 2), (6, 1), (10, 1)])
def test_hilbert_bijective_and_continuous(d, n_bits):
    pts = full_grid(d, n_bits)
    keys = hilbert_keys(pts, n_bits)
    assert keys.dtype == np.uint64
    np.testing.assert_array_equal(np.sort(keys), np.arange(2 ** (d * n_bits), dtype=np.uint64))
    walk = pts[np.argsort(keys)]
    np.testing.assert_array_equal(walk[0], np.zeros(d))
    steps = np.abs(np.diff(walk, axis=0)).sum(axis=1)
    assert (steps == 1).all(), "consecutive Hilbert keys must be grid neighbours"


@pytest.mark.parametrize("d,n_bits", [(1, 64), (2, 32), (3, 21), (4, 16), (5, 12), (8, 8), (16, 4), (64, 1)])
def test_hilbert_matches_scalar_reference(d, n_bits):
    rng = np.random.default_rng(d * 100 + n_bits)
    hi = min(2**n_bits, 2**63)
    pts = rng.integers(0, hi, size=(50, d), dtype=np.int64)
    pts[0] = 0
    pts[1] = hi - 1
    keys = hilbert_keys(pts, n_bits)
    expected = [reference_hilbert_key(p, n_bits) for p in pts.tolist()]
    assert keys.tolist() == expected


@pytest.mark.parametrize("d,n_bits", [(1, 64), (2, 32), (3, 21), (5, 12), (10, 6)])
def test_morton_matches_scalar_reference(d, n_bits):
    rng = np.random.default_rng(7 + d)
    pts = rng.integers(0, min(2**n_bits, 2**63), size=(50, d), dtype=np.int64)
    assert morton_keys(pts, n_bits).tolist() == [reference_morton_key(p, n_bits) for p in pts.tolist()]


def test_morton_dimension0_lowest_bit():
    pts = full_grid(2, 2)[:, ::-1]  # (x, y) with x fastest
    keys = morton_keys(pts, 2)
    # x in bits 0 and 2, y in bits 1 and 3
    np.testing.assert_array_equal(keys, (pts[:, 0] & 1) | ((pts[:, 1] & 1) << 1) | ((pts[:, 0] >> 1) << 2) | ((pts[:, 1] >> 1) << 3))
    np.testing.assert_array_equal(morton_keys([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 1), [1, 2, 4])


def test_empty_and_dtypes():
    assert hilbert_keys(np.zeros((0, 3), dtype=np.int64), 4).shape == (0,)
    assert morton_keys(np.zeros((0, 2), dtype=np.int32), 4).dtype == np.uint64
    # whole floats and unsigned input are accepted
    np.testing.assert_array_equal(hilbert_keys(np.array([[1.0, 1.0]]), 1), [2])
    np.testing.assert_array_equal(hilbert_keys(np.array([[1, 1]], dtype=np.uint8), 1), [2])


@pytest.mark.parametrize("func", [hilbert_keys, morton_keys])
@pytest.mark.parametrize(
    "coords,n_bits,match",
    [
        ([[0, -1]], 4, "coordinates must lie in"),
        ([[0, 16]], 4, r"\[0, 2\*\*4\)"),
        ([[0, 0, 0]], 22, "n_dims \\* n_bits must be <= 64"),
        ([[0, 0]], 0, "n_bits: must be >= 1"),
        ([[0, 0]], 2.0, "n_bits: expected an integer"),
        ([[0.5, 0]], 2, "expected integer coordinates"),
        (np.zeros((2, 0), dtype=int), 2, "at least one dimension"),
        (np.zeros((2, 2, 2), dtype=int), 2, "2-D"),
    ],
)
def test_bad_input(func, coords, n_bits, match):
    with pytest.raises(InvalidInputError, match=match):
        func(coords, n_bits)
