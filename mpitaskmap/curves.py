"""Space-filling-curve keys for integer grid points: Hilbert (Skilling) and Morton (Z).

Both functions are vectorised over the points (the loops run over bits and dimensions
only, at most 64 iterations each) and return one ``uint64`` key per point.  Sorting the
points by key orders them along the curve.  They are used by the ``"hilbert"`` ordering
of :func:`mpitaskmap.mappers.geometric.mj.mj_partition` and by simulated machines that number
nodes along a curve (e.g. the Cray ALPS default order).

References
----------
J. Skilling, "Programming the Hilbert curve", AIP Conf. Proc. 707, 381 (2004) —
the ``AxestoTranspose`` transform used by :func:`hilbert_keys`.
"""

from __future__ import annotations

import numpy as np

from ._validate import as_int_matrix
from .errors import InvalidInputError

__all__ = ["hilbert_keys", "morton_keys"]


def _check_grid(int_coords, n_bits, name: str = "int_coords") -> np.ndarray:
    """Validate ``(int_coords, n_bits)`` and return the coords as (n, d) uint64."""
    if isinstance(n_bits, bool) or not isinstance(n_bits, (int, np.integer)):
        raise InvalidInputError(f"n_bits: expected an integer; got {n_bits!r}")
    n_bits = int(n_bits)
    arr = as_int_matrix(int_coords, name)
    n, d = arr.shape
    if d == 0:
        raise InvalidInputError(f"{name}: needs at least one dimension; got shape {arr.shape}")
    if n_bits < 1:
        raise InvalidInputError(f"n_bits: must be >= 1; got {n_bits}")
    if d * n_bits > 64:
        raise InvalidInputError(
            f"n_bits: n_dims * n_bits must be <= 64 to fit a uint64 key; got {d} * {n_bits} = {d * n_bits}"
        )
    if n:
        bad = arr < 0
        if n_bits < 63:
            bad |= arr >= (1 << n_bits)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            raise InvalidInputError(
                f"{name}: coordinates must lie in [0, 2**{n_bits}), index ({i}, {j}); got {int(arr[i, j])}"
            )
    return arr.astype(np.uint64)


def _interleave(x: np.ndarray, n_bits: int, msb_first_dim0: bool) -> np.ndarray:
    """Interleave the bits of the columns of ``x`` (n, d) uint64 into one uint64 per row.

    With ``msb_first_dim0`` (Hilbert convention) key bit ``j*d + (d-1-i)`` is bit ``j`` of
    column ``i``; otherwise (Morton convention) key bit ``j*d + i`` is bit ``j`` of column
    ``i``.
    """
    n, d = x.shape
    key = np.zeros(n, dtype=np.uint64)
    one = np.uint64(1)
    for j in range(n_bits):
        for i in range(d):
            pos = j * d + ((d - 1 - i) if msb_first_dim0 else i)
            key |= ((x[:, i] >> np.uint64(j)) & one) << np.uint64(pos)
    return key


def hilbert_keys(int_coords, n_bits: int) -> np.ndarray:
    """Return the index of each grid point along the d-dimensional Hilbert curve.

    Parameters
    ----------
    int_coords : (n, n_dims) array_like of int
        Grid coordinates, each in ``[0, 2**n_bits)``.  A 1-D array is read as one
        dimension.  Floats are accepted only if they are whole numbers.
    n_bits : int
        Bits per dimension (the curve covers a ``2**n_bits`` cube); needs
        ``n_dims * n_bits <= 64``.

    Returns
    -------
    keys : (n,) ndarray of uint64
        Hilbert index of each point, a bijection from the ``2**(n_dims*n_bits)`` grid
        points onto ``[0, 2**(n_dims*n_bits))``.

    Raises
    ------
    InvalidInputError
        If the array is not 2-D integer data, has no column, a coordinate is outside
        ``[0, 2**n_bits)``, or ``n_dims * n_bits > 64``.

    Notes
    -----
    Skilling's transform (``AxestoTranspose``): undo excess work from the top bit down,
    Gray-encode, then interleave the transposed bits, most significant first, dimension
    0 first within each bit level.  Consecutive keys are grid neighbours (Manhattan
    distance 1) and the curve starts at the origin.  In one dimension the key is the
    coordinate itself.  Time O(n * n_dims * n_bits), memory O(n * n_dims) (one uint64
    copy of the input).

    Examples
    --------
    >>> import numpy as np
    >>> pts = np.array([[x, y] for x in range(2) for y in range(2)])
    >>> hilbert_keys(pts, 1).tolist()   # (0,0) (0,1) (1,0) (1,1)
    [0, 1, 3, 2]
    >>> hilbert_keys(np.arange(4)[:, None], 2).tolist()
    [0, 1, 2, 3]
    """
    x = _check_grid(int_coords, n_bits)
    n_bits = int(n_bits)
    n, d = x.shape
    cols = [x[:, i].copy() for i in range(d)]
    # Inverse undo: from the top bit down to bit 1.
    q = 1 << (n_bits - 1)
    while q > 1:
        p = np.uint64(q - 1)
        uq = np.uint64(q)
        for i in range(d):
            hit = (cols[i] & uq) != 0
            # where the bit is set: invert the low bits of X[0]
            cols[0] ^= np.where(hit, p, np.uint64(0))
            if i:
                # otherwise: exchange the low bits of X[0] and X[i]
                t = (cols[0] ^ cols[i]) & p
                t[hit] = 0
                cols[0] ^= t
                cols[i] ^= t
        q >>= 1
    # Gray encode.
    for i in range(1, d):
        cols[i] ^= cols[i - 1]
    t = np.zeros(n, dtype=np.uint64)
    q = 1 << (n_bits - 1)
    while q > 1:
        t ^= np.where((cols[d - 1] & np.uint64(q)) != 0, np.uint64(q - 1), np.uint64(0))
        q >>= 1
    for i in range(d):
        cols[i] ^= t
    return _interleave(np.stack(cols, axis=1) if n else x, n_bits, msb_first_dim0=True)


def morton_keys(int_coords, n_bits: int) -> np.ndarray:
    """Return the Morton (Z-order) key of each grid point, dimension 0 in the lowest bit.

    Parameters
    ----------
    int_coords : (n, n_dims) array_like of int
        Grid coordinates, each in ``[0, 2**n_bits)``.  A 1-D array is read as one
        dimension.
    n_bits : int
        Bits per dimension; needs ``n_dims * n_bits <= 64``.

    Returns
    -------
    keys : (n,) ndarray of uint64
        Key whose bit ``j * n_dims + i`` is bit ``j`` of coordinate ``i``.

    Raises
    ------
    InvalidInputError
        Same conditions as :func:`hilbert_keys`.

    Notes
    -----
    Bit interleaving; time O(n * n_dims * n_bits).  Dimension 0 varies fastest along
    the curve.

    Examples
    --------
    >>> import numpy as np
    >>> morton_keys(np.array([[0, 0], [1, 0], [0, 1], [1, 1], [2, 0]]), 2).tolist()
    [0, 1, 2, 3, 4]
    """
    x = _check_grid(int_coords, n_bits)
    return _interleave(x, int(n_bits), msb_first_dim0=False)
