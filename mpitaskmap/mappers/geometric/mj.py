"""Multi-Jagged (MJ) geometric partitioning with space-filling part numbering.

The sequential MJ partitioner of ALGORITHMS.md section 2.2 (Deveci et al., the method
behind Zoltan2's task mapper): recursive exact-count bisection (or multisection) of a
point set, the left/lower side always getting the lower part numbers, with the Z, Gray,
flipped-Z (FZ), modified FZ (MFZ) and Hilbert orderings.  Task and processor
coordinates partitioned into the same number of parts give trees of the same shape
(:func:`mj_part_sizes`), so task part ``i`` can go to processor part ``i``.

The hot loop is the compiled kernel ``mpitaskmap._mj`` (cext/_mj.pyx); this module
validates and coerces the input and builds the Hilbert ordering from
:func:`mpitaskmap.curves.hilbert_keys`.

Rules fixed here (identical on every rank, for tasks and processors alike):

* **Rounding.** A node with ``n`` points and ``np`` parts whose slabs hold ``C_j``
  parts before boundary ``j`` puts the boundary at
  ``share(n, np, C_j) = round_half_up(n * C_j / np)``
  ``= (n // np) * C_j + (2 * (n % np) * C_j + np) // (2 * np)`` points.  It depends
  on ``n`` only, never on the coordinates.
* **Balance.** With ``n >= np`` every part gets ``n // np`` or ``n // np + 1`` points
  (so no part is empty): writing ``n = q*np + r`` with ``0 <= r < np``, the left
  child of ``np_l`` parts receives ``q*np_l + a`` points with
  ``a = round(r*np_l/np)`` in ``[0, np_l]`` and the right child ``q*np_r + (r - a)``
  with ``r - a <= r*np_r/np + 1/2 < np_r + 1/2``; by induction every leaf holds ``q``
  or ``q + 1``.  The same holds for multisection slabs.
* **Tie-break.** Along the cut dimension points are ordered by (signed coordinate,
  original row index); ``-0.0 == 0.0``.
* **Cut dimension.** Largest ``max - min`` extent of the node's points, ties to the
  lowest dimension index after ``dim_order``; or ``level mod n_dims``.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Optional, Sequence

import numpy as np

from ... import _mj  # compiled kernel (cext/_mj.pyx)
from ..._validate import as_float_matrix
from ...curves import hilbert_keys
from ...errors import InvalidInputError

__all__ = ["ORDERINGS", "mj_partition", "mj_part_sizes"]

#: Every ordering, in the order candidate searches try them (the one list; import it).
ORDERINGS = ("fz", "mfz", "z", "gray", "hilbert")

_ORDER_CODE = {"z": 0, "gray": 1, "fz": 2, "mfz": 3}
_MAX_PARTS = 2**31 - 1


# --------------------------------------------------------------------------- helpers
def _as_count(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidInputError(f"{name}: expected an integer; got {value!r}")
    value = int(value)
    if value < minimum:
        raise InvalidInputError(f"{name}: must be >= {minimum}; got {value}")
    if value > _MAX_PARTS:
        raise InvalidInputError(f"{name}: must be < 2**31; got {value}")
    return value


def _left_parts(n_parts: int, prime_split: bool) -> int:
    """Parts of the left child when ``n_parts >= 2`` parts are bisected (the kernel's rule)."""
    return int(_mj._py_left_parts(n_parts, prime_split))


@lru_cache(maxsize=4096)
def _bisection_depth(n_parts: int, prime_split: bool) -> int:
    if n_parts == 1:
        return 0
    left = _left_parts(n_parts, prime_split)
    return 1 + max(_bisection_depth(left, prime_split), _bisection_depth(n_parts - left, prime_split))


def _share(n, n_parts, c):
    """``round_half_up(n * c / n_parts)`` in exact integer arithmetic (scalars or arrays)."""
    return (n // n_parts) * c + (2 * (n % n_parts) * c + n_parts) // (2 * n_parts)


def _check_part_counts(part_counts, n_parts: int) -> np.ndarray:
    try:
        pc = np.asarray(part_counts)
    except Exception:  # pragma: no cover - np.asarray accepts nearly anything
        pc = None
    if pc is None or pc.ndim != 1 or pc.size == 0 or pc.dtype.kind not in "iu":
        raise InvalidInputError(
            f"part_counts: expected a non-empty 1-D sequence of integers; got {part_counts!r}"
        )
    if (pc < 1).any():
        raise InvalidInputError(f"part_counts: every entry must be >= 1; got {pc.tolist()}")
    if math.prod(int(k) for k in pc) != n_parts:
        raise InvalidInputError(
            f"part_counts: product must equal n_parts={n_parts}; got {pc.tolist()} "
            f"(product {math.prod(int(k) for k in pc)})"
        )
    return np.ascontiguousarray(pc, dtype=np.intp)


def _check_dim_order(dim_order, n_dims: int) -> np.ndarray:
    if dim_order is None:
        return np.arange(n_dims, dtype=np.intp)
    arr = np.asarray(dim_order)
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or arr.shape[0] != n_dims or not np.array_equal(
        np.sort(arr), np.arange(n_dims)
    ):
        raise InvalidInputError(
            f"dim_order: expected a permutation of 0..{n_dims - 1}; got {np.asarray(dim_order).tolist()!r}"
        )
    return np.ascontiguousarray(arr, dtype=np.intp)


def _hilbert_grid(coords: np.ndarray) -> tuple[np.ndarray, int]:
    """Quantise (n, d) coords onto the integer grid used by the ``"hilbert"`` ordering.

    ``n_bits = min(64 // d, 32)``.  Coordinates are shifted by their per-dimension
    minimum.  If the shifted values are all whole numbers below ``2**n_bits`` they are
    used as they are (integer grids stay exact); otherwise every dimension is scaled by
    the same factor ``(2**n_bits - 1) / E`` (``E`` = largest extent, preserving the
    aspect ratio) and floored.
    """
    n, d = coords.shape
    n_bits = min(64 // d, 32)
    shifted = coords - coords.min(axis=0)
    top = float(shifted.max()) if n else 0.0
    if top < 2**n_bits and np.all(shifted == np.floor(shifted)):
        return shifted.astype(np.int64), n_bits
    scale = (2**n_bits - 1) / top
    grid = np.floor(shifted * scale)
    np.clip(grid, 0, 2**n_bits - 1, out=grid)
    return grid.astype(np.int64), n_bits


def _as_coords(coords) -> np.ndarray:
    """C-contiguous finite (n, d) float64 coords, without temporaries when already so.

    The fast path checks finiteness through ``min``/``max`` (NaN propagates, an
    infinity shows up in one of them), so no n x d boolean mask is allocated; anything
    else goes through :func:`as_float_matrix`, which also builds the error message.
    """
    arr = coords if isinstance(coords, np.ndarray) else None
    if (
        arr is not None
        and arr.dtype == np.float64
        and arr.ndim == 2
        and arr.shape[0] > 0
        and arr.shape[1] > 0
        and arr.flags.c_contiguous
        and np.isfinite(arr.min())
        and np.isfinite(arr.max())
    ):
        return arr
    return as_float_matrix(coords, "coords", allow_1d=True)


# --------------------------------------------------------------------------- public API
def mj_part_sizes(
    n: int,
    n_parts: int,
    *,
    part_counts: Optional[Sequence[int]] = None,
    prime_split: bool = False,
) -> np.ndarray:
    """Return the number of points each part gets when ``n`` points are partitioned.

    The sizes depend only on ``n``, ``n_parts`` and the tree shape options, never on
    the coordinates or the ordering, so a task tree and a processor tree built with the
    same options have parts of the same sizes whenever they have the same ``n``.

    Parameters
    ----------
    n : int
        Number of points, ``n >= n_parts``.
    n_parts : int
        Number of parts, ``1 <= n_parts < 2**31``.
    part_counts : sequence of int, optional
        Multisection: slabs per level, product equal to ``n_parts``.
    prime_split : bool, optional
        Prime-aware uneven bisection (see :func:`mj_partition`).

    Returns
    -------
    sizes : (n_parts,) ndarray of intp
        ``sizes[p]`` points go to part ``p``; ``sizes.sum() == n`` and every size is
        ``n // n_parts`` or ``n // n_parts + 1``.

    Raises
    ------
    InvalidInputError
        If a count is not a positive integer, ``n < n_parts``, or ``part_counts`` is
        malformed or combined with ``prime_split``.

    Notes
    -----
    Level-by-level simulation of the partition tree with the rounding rule of the
    module docstring: O(n_parts * depth) time on NumPy arrays.

    Examples
    --------
    >>> mj_part_sizes(10, 4).tolist()
    [3, 2, 3, 2]
    >>> mj_part_sizes(10, 3, prime_split=True).tolist()
    [4, 3, 3]
    """
    n_parts = _as_count(n_parts, "n_parts")
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise InvalidInputError(f"n: expected an integer; got {n!r}")
    n = int(n)
    if n < n_parts:
        raise InvalidInputError(f"n: fewer points than parts (n_parts={n_parts}); got {n}")
    if part_counts is not None and prime_split:
        raise InvalidInputError("prime_split: cannot be combined with part_counts; got True")
    sizes = np.array([n], dtype=np.int64)
    parts = np.array([n_parts], dtype=np.int64)
    if part_counts is not None:
        pc = _check_part_counts(part_counts, n_parts)
        for k in pc.tolist():
            sub = parts // k  # all nodes of one level have the same part count
            cuts = np.stack([_share(sizes, parts, j * sub) for j in range(k + 1)], axis=1)
            sizes = np.diff(cuts, axis=1).ravel()
            parts = np.repeat(sub, k)
        return sizes.astype(np.intp)
    while (parts > 1).any():
        split = parts > 1
        left = np.ones_like(parts)
        for p in np.unique(parts[split]).tolist():
            left[parts == p] = _left_parts(p, bool(prime_split))
        n_left = _share(sizes, parts, left)
        reps = np.where(split, 2, 1)
        start = np.cumsum(reps) - reps
        new_sizes = np.empty(int(reps.sum()), dtype=np.int64)
        new_parts = np.empty_like(new_sizes)
        new_sizes[start] = np.where(split, n_left, sizes)
        new_parts[start] = np.where(split, left, parts)
        s = start[split] + 1
        new_sizes[s] = (sizes - n_left)[split]
        new_parts[s] = (parts - left)[split]
        sizes, parts = new_sizes, new_parts
    return sizes.astype(np.intp)


def mj_partition(
    coords,
    n_parts: int,
    *,
    ordering: str = "fz",
    longest_dim: bool = True,
    dim_order: Optional[Sequence[int]] = None,
    part_counts: Optional[Sequence[int]] = None,
    prime_split: bool = False,
) -> np.ndarray:
    """Partition points into ``n_parts`` geometric parts numbered along a space-filling order.

    Parameters
    ----------
    coords : (n, n_dims) array_like of float
        Point coordinates (a 1-D array is one dimension); finite, ``n >= n_parts``,
        ``n_dims >= 1``.  Any memory layout or dtype convertible to float64.
    n_parts : int
        Number of parts, ``1 <= n_parts < 2**31``.
    ordering : {"fz", "gray", "hilbert", "mfz", "z"}, optional
        Part numbering.  After each cut the lower side gets the lower numbers, and
        before recursing: ``"z"`` changes nothing; ``"gray"`` negates all coordinates
        of the upper side; ``"fz"`` negates the cut coordinate of the upper side;
        ``"mfz"`` negates the cut coordinate of the lower side.  With ``k > 2`` slabs
        (multisection) the flips are serpentine: odd slabs (``"fz"``, ``"gray"``) or
        even slabs (``"mfz"``) are flipped.  ``"hilbert"`` sorts the points along the
        Hilbert curve of their quantised coordinates (ties by index) and cuts that
        sequence into parts of the sizes :func:`mj_part_sizes` gives.
    longest_dim : bool, optional
        Cut the dimension with the largest extent of the current subset (ties to the
        lowest index); if False, cycle through the dimensions by recursion level.
        Not used by ``"hilbert"``.
    dim_order : (n_dims,) sequence of int, optional
        Permutation applied to the columns first (logical dimension ``i`` is column
        ``dim_order[i]``): it decides tie-breaks between equally long dimensions, the
        cycle order and the Hilbert curve's orientation.  Default: identity.
    part_counts : sequence of int, optional
        Multisection: ``part_counts[l]`` slabs at recursion level ``l`` along one
        dimension, each with an equal share of the parts; the product must equal
        ``n_parts``.  An entry of 1 is a level without a cut (and without a flip),
        which still counts for the ``longest_dim=False`` cycle.  Default: bisection.
    prime_split : bool, optional
        If the largest prime factor ``q`` of a node's part count is > 2, split it
        ``ceil(q/2) : floor(q/2)`` (10800 -> 6480 | 4320) instead of
        ``floor(np/2) : ceil(np/2)``.  Cannot be combined with ``part_counts``.

    Returns
    -------
    part : (n,) ndarray of intp
        Part of each point, in ``0 .. n_parts - 1``; part ``p`` holds
        ``mj_part_sizes(n, n_parts, ...)[p]`` points (``n // n_parts`` or one more).

    Raises
    ------
    InvalidInputError
        If ``coords`` is not a finite (n, n_dims) array with ``n_dims >= 1``, ``n_parts``
        is not an integer in ``[1, n]``, ``ordering`` is unknown (the message lists the
        valid names), ``dim_order`` is not a permutation, ``part_counts`` is malformed or
        its product differs from ``n_parts``, or ``part_counts`` is combined with
        ``prime_split``.

    Notes
    -----
    Each node orders its points by (signed coordinate along the cut dimension, original
    row index) and sends the first ``round_half_up(n * np_left / np)`` to the left,
    found by selection (``std::nth_element``), not sorting: O(n * (n_dims + 1)) per
    level, O(n * n_dims * log n_parts) in total, 16 bytes of work memory per point
    (three-dimensional bisection: records carrying the coordinates and a bucketed
    selection, same result; 16-byte int32 records when every coordinate is a whole
    number in ``[-2**30, 2**30]``, as on grids and tori, else 28-byte float64 records).
    Flips are per-frame signs, the coordinates are never copied.  The result depends
    only on the values and row order of ``coords`` (deterministic on every rank).
    ``"hilbert"`` costs O(n log n) (one sort).

    References
    ----------
    M. Deveci et al., "Exploiting Geometric Partitioning in Task Mapping for Parallel
    Computers", IPDPS 2014 (ALGORITHMS.md section 2.2).

    Examples
    --------
    >>> import numpy as np
    >>> line = np.arange(8.0)[:, None]
    >>> mj_partition(line, 8, ordering="z").tolist()
    [0, 1, 2, 3, 4, 5, 6, 7]
    >>> mj_partition(line, 8, ordering="fz").tolist()
    [0, 1, 3, 2, 6, 7, 5, 4]
    >>> mj_partition(line, 3, ordering="z").tolist()   # 1 part | 2 parts, 3 | 5 points
    [0, 0, 0, 1, 1, 1, 2, 2]
    >>> mj_partition(line, 3, ordering="fz").tolist()  # the upper side is mirrored
    [0, 0, 0, 2, 2, 1, 1, 1]
    """
    if not isinstance(ordering, str) or ordering not in ORDERINGS:
        raise InvalidInputError(
            f"ordering: unknown ordering, valid names are {', '.join(repr(o) for o in ORDERINGS)}; "
            f"got {ordering!r}"
        )
    return _partition_finite(
        _as_coords(coords), n_parts, ordering=ordering, longest_dim=longest_dim, dim_order=dim_order,
        part_counts=part_counts, prime_split=prime_split,
    )


def _partition_finite(
    coords: np.ndarray,
    n_parts: int,
    *,
    ordering: str,
    longest_dim: bool,
    dim_order: Optional[Sequence[int]],
    part_counts: Optional[Sequence[int]],
    prime_split: bool,
) -> np.ndarray:
    """:func:`mj_partition` on coordinates already known to be a finite, C-contiguous
    (n, d) float64 array with n, d >= 1 and a valid ``ordering`` (callers that validated
    them, like the geometric mapper, skip the O(n d) checks).  Validates the rest."""
    n, d = coords.shape
    n_parts = _as_count(n_parts, "n_parts")
    if n < n_parts:
        raise InvalidInputError(f"coords: fewer points than parts (n_parts={n_parts}); got {n} points")
    dims = _check_dim_order(dim_order, d)
    if part_counts is not None and prime_split:
        raise InvalidInputError("prime_split: cannot be combined with part_counts; got True")
    if part_counts is not None:
        pc = _check_part_counts(part_counts, n_parts)
        max_depth = int(pc.shape[0])
    else:
        pc = np.empty(0, dtype=np.intp)
        max_depth = _bisection_depth(n_parts, bool(prime_split))

    if ordering == "hilbert":
        if d > 64:
            raise InvalidInputError(f"coords: the hilbert ordering supports at most 64 dimensions; got {d}")
        grid, n_bits = _hilbert_grid(coords[:, dims])
        order = np.argsort(hilbert_keys(grid, n_bits), kind="stable")
        sizes = mj_part_sizes(n, n_parts, part_counts=part_counts, prime_split=prime_split)
        part = np.empty(n, dtype=np.intp)
        part[order] = np.repeat(np.arange(n_parts, dtype=np.intp), sizes)
        return part

    part = np.empty(n, dtype=np.intp)
    _mj.mj_partition_kernel(
        coords, dims, n_parts, _ORDER_CODE[ordering], bool(longest_dim), pc, bool(prime_split), max_depth, part
    )
    return part
