"""Rubik's permutation kernels on NumPy arrays: tilt, shear, zigzag, Z-order, transpose.

Every function permutes the *contents* of ``cells`` in place, so it works on any view (a
node of a :class:`~mpitaskmap.mappers.rubik.Box` is a view of its root's array, strided for
``mod`` children).  With ``x`` the local coordinate and ``n`` the local extents, "the
element at ``x`` moves to ``T(x)``" is exact and every shift is cyclic.  The formulas are
those of the released LLNL Rubik (``arrayutils.py``, ``zorder.py``), vectorised: one
gather/scatter instead of a loop of ``np.roll`` over hyperplanes.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...curves import morton_keys
from ...errors import InvalidInputError

__all__ = ["tilt", "shear", "zigzag", "zigzag_shifts", "zorder", "zorder_points", "transpose"]


def _axis(cells: np.ndarray, value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < cells.ndim:
        raise InvalidInputError(f"{name}: expected an axis in [0, {cells.ndim}); got {value!r}")
    return int(value)


def _pair(cells: np.ndarray, axis, direction) -> tuple[int, int]:
    a, d = _axis(cells, axis, "axis"), _axis(cells, direction, "direction")
    if a == d:
        raise InvalidInputError(f"direction: must differ from axis {a}; got {d}")
    return a, d


def _shift_along(cells: np.ndarray, axis: int, direction: int, shifts: np.ndarray) -> None:
    """Move the element at ``x`` to ``x[axis] + shifts[x[direction]]`` (cyclic) along ``axis``."""
    dest = list(np.broadcast_arrays(*np.indices(cells.shape, sparse=True)))
    dest[axis] = (dest[axis] + shifts[dest[direction]]) % cells.shape[axis]
    cells[tuple(dest)] = cells.copy()


def tilt(cells: np.ndarray, axis: int, direction: int, slope: int = 1) -> None:
    """Tilt hyperplanes in place: the element at ``x`` moves to ``x[axis] + slope * x[direction]``.

    Each hyperplane ``x[direction] = i`` is shifted cyclically along ``axis`` by
    ``i * slope``; the other coordinates stay.  In the paper's words, ``tilt(Z, X, 1)``
    tilts the Z planes along X (``z' = z + x``).

    Parameters
    ----------
    cells : ndarray
        The array (or view) to permute.
    axis : int
        The axis along which elements move.
    direction : int
        The axis whose coordinate sets the shift (``!= axis``).
    slope : int, optional
        Shift per hyperplane (default 1; may be negative).

    Raises
    ------
    InvalidInputError
        On an axis out of range or ``axis == direction``.

    Examples
    --------
    >>> a = np.arange(9).reshape(3, 3)
    >>> tilt(a, 1, 0, 1)
    >>> a.tolist()
    [[0, 1, 2], [5, 3, 4], [7, 8, 6]]
    """
    a, d = _pair(cells, axis, direction)
    _shift_along(cells, a, d, int(slope) * np.arange(cells.shape[d]))


def shear(cells: np.ndarray, axis: int, direction: int, slope: int = 1) -> None:
    """Shear hyperplanes normal to ``axis`` along ``direction`` in place: ``tilt(cells, direction, axis, slope)``.

    Examples
    --------
    >>> a = np.arange(9).reshape(3, 3)
    >>> shear(a, 1, 0, 2)
    >>> a.tolist()
    [[0, 4, 8], [3, 7, 2], [6, 1, 5]]
    """
    a, d = _pair(cells, axis, direction)
    tilt(cells, d, a, slope)


def zigzag_shifts(n: int, depth: int, stride: int = 1) -> np.ndarray:
    """Return Rubik's zigzag shift ``s(i)`` of hyperplanes ``i = 0 .. n-1``.

    ``s(0) = 0``; for ``i >= 1``, with ``b = (i // (2 * stride)) * 2 * stride + stride``,
    ``s(i) = depth - (|i - b| * depth) // stride`` (floor division, as Rubik).

    Parameters
    ----------
    n : int
        Number of hyperplanes.
    depth : int
        Largest shift.
    stride : int, optional
        Hyperplanes over which the shift ramps up (default 1).

    Returns
    -------
    (n,) ndarray of int64

    Raises
    ------
    InvalidInputError
        If ``stride < 1``.

    Examples
    --------
    >>> zigzag_shifts(8, 2, 2).tolist(), zigzag_shifts(8, 3, 2).tolist()
    ([0, 1, 2, 1, 0, 1, 2, 1], [0, 2, 3, 2, 0, 2, 3, 2])
    """
    stride, depth = int(stride), int(depth)
    if stride < 1:
        raise InvalidInputError(f"stride: must be >= 1; got {stride}")
    i = np.arange(int(n), dtype=np.int64)
    base = (i // (2 * stride)) * 2 * stride + stride
    shifts = depth - (np.abs(i - base) * depth) // stride
    shifts[:1] = 0
    return shifts


def zigzag(cells: np.ndarray, axis: int, direction: int, depth: int, stride: int = 1) -> None:
    """Shift hyperplanes ``x[direction] = i`` along ``axis`` by :func:`zigzag_shifts` in place.

    With ``stride=1`` odd hyperplanes move by ``depth`` and even ones stay.

    Parameters
    ----------
    cells : ndarray
        The array (or view) to permute.
    axis : int
        The axis along which elements move.
    direction : int
        The axis that indexes the hyperplanes (``!= axis``).
    depth : int
        Largest shift.
    stride : int, optional
        Hyperplanes over which the shift ramps up (default 1).

    Raises
    ------
    InvalidInputError
        On a bad axis pair or ``stride < 1``.

    Examples
    --------
    >>> a = np.arange(12).reshape(4, 3)
    >>> zigzag(a, 1, 0, 1)
    >>> a.tolist()
    [[0, 1, 2], [5, 3, 4], [6, 7, 8], [11, 9, 10]]
    """
    a, d = _pair(cells, axis, direction)
    _shift_along(cells, a, d, zigzag_shifts(cells.shape[d], depth, stride))


def zorder_points(shape: Sequence[int]) -> np.ndarray:
    """Return every cell of ``shape`` in Z (Morton) order, dimension 0 in the lowest bit.

    Bit ``b`` of coordinate ``k`` is bit ``b * ndim + k`` of the code, so dimension 0
    varies fastest along the curve (the opposite of the rank scan); codes of cells outside
    a shape that is not a power of two are skipped.

    Parameters
    ----------
    shape : sequence of int
        Extents.

    Returns
    -------
    (prod(shape), ndim) ndarray of intp

    Raises
    ------
    InvalidInputError
        If a code would need more than 64 bits.

    Examples
    --------
    >>> zorder_points([2, 3]).tolist()
    [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2]]
    """
    shape = tuple(int(s) for s in shape)
    bits = max(1, max(shape) - 1).bit_length()
    if bits * len(shape) > 64:
        raise InvalidInputError(f"shape: a Morton code of this box needs more than 64 bits; got {shape}")
    pts = np.stack(np.unravel_index(np.arange(int(np.prod(shape))), shape), axis=1)
    return pts[np.argsort(morton_keys(pts, bits), kind="stable")].astype(np.intp)


def zorder(cells: np.ndarray) -> None:
    """Reorder ``cells`` in place along the Z curve: C-order element ``k`` moves to ``zorder_points[k]``.

    Raises
    ------
    InvalidInputError
        If a code would need more than 64 bits.

    Examples
    --------
    >>> a = np.arange(4).reshape(2, 2)
    >>> zorder(a)
    >>> a.tolist()
    [[0, 2], [1, 3]]
    """
    points = zorder_points(cells.shape)
    cells[tuple(points.T)] = cells.ravel().copy()


def transpose(cells: np.ndarray, axes: Sequence[int]) -> None:
    """Refill ``cells`` in place, in scan order, with the scan of its transpose (shape kept).

    Raises
    ------
    InvalidInputError
        If ``axes`` is not a permutation of the axes.

    Examples
    --------
    >>> a = np.arange(6).reshape(2, 3)
    >>> transpose(a, [1, 0])
    >>> a.tolist()
    [[0, 3, 1], [4, 2, 5]]
    """
    try:
        order = [int(v) for v in axes]
    except (TypeError, ValueError):
        raise InvalidInputError(f"axes: expected a permutation of 0..{cells.ndim - 1}; got {axes!r}") from None
    if sorted(order) != list(range(cells.ndim)):
        raise InvalidInputError(f"axes: expected a permutation of 0..{cells.ndim - 1}; got {order}")
    cells[...] = cells.transpose(order).ravel().reshape(cells.shape)
