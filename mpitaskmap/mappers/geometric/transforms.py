"""Coordinate transformations applied before geometric partitioning (ALGORITHMS.md 2.4).

Each function takes coordinates and returns new float64 coordinates; none changes the
machine or the metrics, which are always computed on the true network.

* :func:`torus_shift` - move the largest empty gap of each wrapping dimension to the
  edge of the coordinate range, so MJ sees an allocation that straddles the wrap-around
  as one block (with no empty gap, the ring opens between the two adjacent values with
  the fewest processors, as in Zoltan2).
* :func:`bandwidth_scale` - stretch every dimension by the cumulative ``1/bw`` of the
  links crossed from the origin, so fast links look short.
* :func:`box_transform` - group routers into boxes (e.g. 2 x 2 x 8 on Gemini) and give the
  partitioner (heavily weighted) box coordinates plus coordinates inside the box.
* :func:`drop_dimensions` - ignore dimensions (BG/Q "+E": E has length 2 and doubled links).
* :func:`cube_sphere_unfold` - points on a sphere to a 2-D unfolded cube, so neighbouring
  elements of a cube-sphere mesh (HOMME) stay neighbours in the plane.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ... import _mj  # compiled kernel: column_ranges, column_histograms
from ..._validate import COORD_DTYPES, as_float_matrix
from ...errors import InvalidInputError

__all__ = [
    "torus_shift",
    "bandwidth_scale",
    "box_transform",
    "drop_dimensions",
    "drop_constant_dimensions",
    "cube_sphere_unfold",
]


def torus_shift(coords, dims: Sequence[int], wrap) -> np.ndarray:
    """Shift each wrapping dimension so that its largest empty gap sits at the edge.

    Parameters
    ----------
    coords : (n, n_dims) array_like of int
        Router coordinates, ``0 <= coords[:, k] < dims[k]``.
    dims : sequence of int
        Network lengths.
    wrap : bool or sequence of bool
        Whether each dimension wraps; other dimensions are left alone.

    Returns
    -------
    (n, n_dims) ndarray of float64
        Coordinates where, per wrapping dimension, every value below the largest interior
        gap has ``dims[k]`` added (values then lie in ``[0, 2 * dims[k] - 1)``).

    Notes
    -----
    Per dimension: take the sorted distinct values ``f0 < ... < fk``; the wrap gap is
    ``L - fk + f0``; an interior gap is ``b - a`` for consecutive values, weighted by the
    processors on its two sides (``count[a] + count[b]``).  The best interior gap is the
    largest, on equal gaps the one of smallest weight, then the first.  Shift when it is
    larger than the wrap gap, or equal to it with a strictly smaller weight (Zoltan2's
    rule, ``shiftMachineCoordinates``).  This includes gaps of 1: on a dimension where
    every value is occupied the ring is opened between the two adjacent values with the
    fewest processors (a full, uniform torus is never shifted).  Measured on 4096 random
    nodes of a 24^3 torus (issue 13) this is what made our per-rotation MJ candidates
    worse than Zoltan2's.  O(n log n) per dimension.

    Examples
    --------
    >>> torus_shift([[0], [1], [4], [5], [6], [7]], [8], True)[:, 0].tolist()
    [8.0, 9.0, 4.0, 5.0, 6.0, 7.0]
    >>> torus_shift([[0], [0], [1], [2], [2], [3], [3], [3]], [4], True)[:, 0].tolist()
    [4.0, 4.0, 1.0, 2.0, 2.0, 3.0, 3.0, 3.0]
    """
    c = np.asarray(coords)
    out = np.array(c, dtype=np.float64, copy=True)
    dims = [int(d) for d in dims]
    wraps = np.broadcast_to(np.asarray(wrap, dtype=bool), (len(dims),))
    # O(n d + sum L) histograms in one compiled pass instead of sorts (np.unique); narrow router
    # coordinates (int16, int32) are read in their type, without an int64 copy
    try:
        hists = _mj.column_histograms(
            np.ascontiguousarray(c, dtype=c.dtype if c.dtype in COORD_DTYPES else np.int64).reshape(c.shape[0], -1),
            np.asarray(dims, dtype=np.int64),
        )
    except ValueError as exc:
        raise InvalidInputError(f"coords: router coordinates must be integers in [0, length): {exc}") from None
    for k, length in enumerate(dims):
        if not wraps[k]:
            continue
        hist = hists[k]
        values = np.flatnonzero(hist)
        counts = hist[values]
        if values.size < 2:
            continue
        wrap_gap = length - int(values[-1]) + int(values[0])
        wrap_weight = int(counts[-1] + counts[0])
        gaps = np.diff(values)
        weights = counts[1:] + counts[:-1]
        best = int(np.argmax(gaps))
        # among equal largest gaps, the smallest weight; then the first
        ties = np.flatnonzero(gaps == gaps[best])
        best = int(ties[np.argmin(weights[ties])])
        gap, weight = int(gaps[best]), int(weights[best])
        if gap > wrap_gap or (gap == wrap_gap and weight < wrap_weight):
            border = values[best + 1]
            out[c[:, k] < border, k] += length
    return out


def bandwidth_scale(coords, link_bandwidth: Sequence, dims: Sequence[int]) -> np.ndarray:
    """Replace each coordinate by the cumulative ``bw_max / bw`` of the links from the origin.

    Parameters
    ----------
    coords : (n, n_dims) array_like of float
        Integer-valued coordinates, possibly torus-shifted (values up to ``2 * L - 2``).
    link_bandwidth : sequence of (dims[k],) array_like
        Bandwidth of the link from ``c`` to ``c + 1`` (mod ``L``) per dimension.
    dims : sequence of int
        Network lengths.

    Returns
    -------
    (n, n_dims) ndarray of float64
        Scaled coordinates: crossing the fastest link anywhere costs 1, a link of half
        that bandwidth costs 2.  A shifted coordinate ``c >= L`` continues the
        cumulative sum around the ring.

    Examples
    --------
    >>> bandwidth_scale([[0], [1], [2], [3]], [[75.0, 37.5, 75.0, 37.5]], [4])[:, 0].tolist()
    [0.0, 1.0, 3.0, 4.0]
    """
    c = as_float_matrix(coords, "coords")
    dims = [int(d) for d in dims]
    if len(link_bandwidth) != c.shape[1] or len(dims) != c.shape[1]:
        raise InvalidInputError(
            f"link_bandwidth: expected {c.shape[1]} dimensions; got {len(link_bandwidth)} and dims {dims}"
        )
    bw_max = max(float(np.max(b)) for b in link_bandwidth)
    out = np.empty_like(c)
    for k, length in enumerate(dims):
        cost = bw_max / np.asarray(link_bandwidth[k], dtype=np.float64)
        prefix = np.concatenate(([0.0], np.cumsum(cost)))  # prefix[c] = cost from 0 to c
        ci = c[:, k].astype(np.int64)
        out[:, k] = (ci // length) * prefix[length] + prefix[ci % length]
    return out


def box_transform(coords, box: Sequence[int], *, box_weight: float | None = None) -> np.ndarray:
    """Split each coordinate into (box index, position in box): n dims become 2 n.

    Parameters
    ----------
    coords : (n, n_dims) array_like of float
        Integer-valued router coordinates (possibly torus-shifted).
    box : sequence of int
        Box lengths per dimension, e.g. ``(2, 2, 8)`` on Cray Gemini (X pairs, Y mezzanine
        pairs, Z backplane groups).
    box_weight : float, optional
        Factor applied to the box coordinates; default ``2 * max(box) * (max coord + 1)``,
        large enough that the longest extent is always a box dimension while more than
        one box remains, so MJ separates boxes before it cuts inside one.

    Returns
    -------
    (n, 2 * n_dims) ndarray of float64
        ``[box_weight * (c // box), c % box]``.

    Examples
    --------
    >>> box_transform([[0, 3], [1, 5]], (2, 4), box_weight=10).tolist()
    [[0.0, 0.0, 0.0, 3.0], [0.0, 10.0, 1.0, 1.0]]
    """
    c = as_float_matrix(coords, "coords")
    b = np.asarray(box)
    if b.shape != (c.shape[1],) or b.dtype.kind not in "iu" or (b < 1).any():
        raise InvalidInputError(f"box: expected {c.shape[1]} positive integer lengths; got {list(box)}")
    ci = c.astype(np.int64)
    if box_weight is None:
        box_weight = 2.0 * float(b.max()) * float(ci.max() + 1)
    return np.hstack([box_weight * (ci // b), ci % b]).astype(np.float64)


def drop_dimensions(coords, drop: Sequence[int]) -> np.ndarray:
    """Return the coordinates without the listed dimensions (e.g. BG/Q's E: ``drop=[4]``).

    Raises
    ------
    InvalidInputError
        If a listed dimension does not exist or every dimension would be dropped.

    Examples
    --------
    >>> drop_dimensions([[1, 2, 3]], [1]).tolist()
    [[1.0, 3.0]]
    """
    c = as_float_matrix(coords, "coords")
    drop_set = sorted({int(k) for k in drop})
    if any(k < 0 or k >= c.shape[1] for k in drop_set):
        raise InvalidInputError(f"drop: dimensions must lie in [0, {c.shape[1]}); got {list(drop)}")
    keep = [k for k in range(c.shape[1]) if k not in drop_set]
    if not keep:
        raise InvalidInputError(f"drop: cannot drop every dimension; got {list(drop)}")
    return np.ascontiguousarray(c[:, keep])


def drop_constant_dimensions(coords) -> np.ndarray:
    """Return the coordinates without dimensions on which every point agrees.

    A constant dimension is never cut along its longest extent and only wastes candidates
    (its permutations give the same mapping), so mappers remove it.  At least one
    dimension is always kept.

    Examples
    --------
    >>> drop_constant_dimensions([[1, 5, 0], [2, 5, 1]]).tolist()
    [[1.0, 0.0], [2.0, 1.0]]
    """
    c = coords
    if not (
        isinstance(c, np.ndarray) and c.dtype == np.float64 and c.ndim == 2 and c.shape[0] > 0
        and c.shape[1] > 0 and c.flags.c_contiguous
    ):
        c = as_float_matrix(coords, "coords")
    lo, hi = _mj.column_ranges(c)  # one pass; NaN propagates into lo/hi
    if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
        c = as_float_matrix(coords, "coords")  # raises, naming the first bad value
    varying = [k for k in range(c.shape[1]) if lo[k] < hi[k]]
    if len(varying) == c.shape[1]:
        return c  # nothing to drop: no copy
    return np.ascontiguousarray(c[:, varying or [0]])


def cube_sphere_unfold(xyz) -> np.ndarray:
    """Project points on a sphere to the six cube faces and unfold them into a plane.

    The gnomonic projection sends each point to the face of the largest absolute
    component; faces are laid out as the four equatorial faces in a row
    (+X, +Y, -X, -Y, each 2 units wide, so the row wraps in x like the sphere) with +Z
    above and -Z below +X.  Neighbouring elements of a cube-sphere mesh (HOMME) land close
    together.

    Parameters
    ----------
    xyz : (n, 3) array_like of float
        Points (any radius; the origin is not allowed).

    Returns
    -------
    (n, 2) ndarray of float64
        Unfolded coordinates, x in [0, 8), y in [-3, 3].

    Raises
    ------
    InvalidInputError
        On a point at the origin or a wrong shape.

    Examples
    --------
    >>> cube_sphere_unfold([[1, 0, 0], [0, 1, 0], [0, 0, 1]]).tolist()
    [[1.0, 0.0], [3.0, 0.0], [1.0, 2.0]]
    """
    p = as_float_matrix(xyz, "xyz", n_cols=3)
    a = np.abs(p)
    if (a.max(axis=1) == 0).any():
        i = int(np.flatnonzero(a.max(axis=1) == 0)[0])
        raise InvalidInputError(f"xyz: point {i} is at the origin")
    face_axis = np.argmax(a, axis=1)
    out = np.empty((p.shape[0], 2))
    x, y, z = p[:, 0], p[:, 1], p[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        # equatorial faces: horizontal position along the ring, vertical = z / |horizontal|
        fx = face_axis == 0
        fy = face_axis == 1
        fz = face_axis == 2
        px = fx & (x > 0)
        nx = fx & (x < 0)
        py = fy & (y > 0)
        ny = fy & (y < 0)
        out[px] = np.c_[1 + y[px] / x[px], z[px] / x[px]]
        out[py] = np.c_[3 - x[py] / y[py], z[py] / y[py]]
        out[nx] = np.c_[5 + y[nx] / x[nx], -z[nx] / x[nx]]
        out[ny] = np.c_[(7 - x[ny] / y[ny]) % 8, -z[ny] / y[ny]]
        pz = fz & (z > 0)
        nz = fz & (z <= 0)
        out[pz] = np.c_[1 + y[pz] / z[pz], 2 - x[pz] / z[pz]]
        out[nz] = np.c_[1 - y[nz] / z[nz], -2 - x[nz] / z[nz]]
    return out
