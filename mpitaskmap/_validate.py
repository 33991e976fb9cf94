"""Input validation shared by the public functions (private).

Each helper raises :class:`~mpitaskmap.errors.InvalidInputError` with a message of the
form ``"<name>: <what is wrong> at index <i>; got <value>"`` so the user can find the
offending entry.  Nothing is clipped, rounded or dropped silently.
"""

from __future__ import annotations

import numpy as np

from .errors import InvalidInputError

__all__ = [
    "as_float_matrix",
    "as_int_matrix",
    "as_index_array",
    "as_weights",
    "first_bad",
    "COORD_DTYPES",
    "narrowest_int_dtype",
    "as_narrowest_coords",
    "check_positive",
    "check_bytes_per_weight",
]

#: The integer types the torus kernels take router coordinates in (``coord_t`` of
#: cext/_topology.pxd), narrowest first.
COORD_DTYPES = (np.dtype(np.int16), np.dtype(np.int32), np.dtype(np.int64))


def first_bad(mask: np.ndarray) -> tuple:
    """Return the index tuple of the first True entry of ``mask`` (C order)."""
    flat = int(np.flatnonzero(mask.ravel())[0])
    return tuple(int(i) for i in np.unravel_index(flat, mask.shape))


def _fmt_index(idx: tuple) -> str:
    return str(idx[0]) if len(idx) == 1 else str(idx)


def as_float_matrix(a, name: str, *, n_cols: int | None = None, allow_1d: bool = False) -> np.ndarray:
    """Return ``a`` as a C-contiguous (n, d) float64 array with only finite values."""
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{name}: cannot be read as a float array ({exc})") from None
    if arr.ndim == 1 and allow_1d:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise InvalidInputError(f"{name}: expected a 2-D (n, n_dims) array; got shape {arr.shape}")
    if arr.shape[1] == 0:
        raise InvalidInputError(f"{name}: needs at least one dimension; got shape {arr.shape}")
    if n_cols is not None and arr.shape[1] != n_cols:
        raise InvalidInputError(f"{name}: expected {n_cols} columns; got shape {arr.shape}")
    # fast path: NaN propagates into min/max and an infinity shows up in one of them, so
    # two reductions replace an (n, d) boolean mask when everything is finite
    if arr.size and np.isfinite(arr.min()) and np.isfinite(arr.max()):
        return np.ascontiguousarray(arr)
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = first_bad(bad)
        raise InvalidInputError(
            f"{name}: non-finite value at index {_fmt_index(idx)}; got {float(arr[idx])!r}"
        )
    return np.ascontiguousarray(arr)


def as_int_matrix(a, name: str, *, n_cols: int | None = None, keep_coord_dtype: bool = False) -> np.ndarray:
    """Return ``a`` as a C-contiguous (n, d) integer array; floats must be whole numbers.

    The type is int64; with ``keep_coord_dtype``, an array of one of :data:`COORD_DTYPES`
    keeps its type (no copy when it is C-contiguous) and other integer types widen to the
    narrowest of them that holds every value of the type (int8, uint8 -> int16; uint16 ->
    int32; uint32, uint64 -> int64).
    """
    arr = np.asarray(a)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise InvalidInputError(f"{name}: expected a 2-D (n, n_dims) array; got shape {arr.shape}")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            idx = first_bad(bad)
            raise InvalidInputError(
                f"{name}: expected integer coordinates, value at index {_fmt_index(idx)} is {float(arr[idx])!r}"
            )
    elif arr.dtype.kind not in "iub":
        raise InvalidInputError(f"{name}: expected integers; got dtype {arr.dtype}")
    if n_cols is not None and arr.shape[1] != n_cols:
        raise InvalidInputError(f"{name}: expected {n_cols} columns; got shape {arr.shape}")
    dtype = np.dtype(np.int64)
    if keep_coord_dtype and arr.dtype.kind in "iub":
        dtype = np.promote_types(arr.dtype, np.int16)  # the narrowest of COORD_DTYPES holding the type
        if dtype.kind != "i":  # uint64: no signed type holds it; int64 as before
            dtype = np.dtype(np.int64)
    return np.ascontiguousarray(arr, dtype=dtype)


def narrowest_int_dtype(magnitude: int, types: tuple = (np.int16, np.int32)) -> np.dtype:
    """The first of ``types`` (narrowest first), else int64, holding every value of ``|value| <= magnitude``.

    Parameters
    ----------
    magnitude : int
        Largest absolute value to hold (>= 0).
    types : tuple of signed integer types
        Candidates, narrowest first; default int16, int32 (:data:`COORD_DTYPES`).

    Returns
    -------
    numpy.dtype

    Examples
    --------
    >>> [narrowest_int_dtype(m).name for m in (0, 2**15 - 1, 2**15, 2**31 - 1, 2**31)]
    ['int16', 'int16', 'int32', 'int32', 'int64']
    """
    for dtype in types:
        if magnitude <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def as_narrowest_coords(coords: np.ndarray) -> np.ndarray:
    """Return integer coordinates in the narrowest of :data:`COORD_DTYPES` holding every value exactly.

    int16 when every ``|value| < 2**15``, else int32 when every ``|value| < 2**31``, else
    int64; never clipped.  No copy when ``coords`` already has that type (and is
    C-contiguous).  O(n) (one min and one max).

    Examples
    --------
    >>> as_narrowest_coords(np.array([[0, 32767]])).dtype.name, as_narrowest_coords(np.array([[-1, 32768]])).dtype.name
    ('int16', 'int32')
    """
    arr = np.asarray(coords)
    magnitude = max(-int(arr.min()), int(arr.max()), 0) if arr.size else 0
    return np.ascontiguousarray(arr, dtype=narrowest_int_dtype(magnitude))


def as_index_array(a, name: str, *, upper: int, length: int | None = None) -> np.ndarray:
    """Return ``a`` as a 1-D intp array whose values lie in ``[0, upper)``."""
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise InvalidInputError(f"{name}: expected a 1-D array; got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            pass
        else:
            raise InvalidInputError(f"{name}: expected integer indices; got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.intp)
    if length is not None and arr.shape[0] != length:
        raise InvalidInputError(f"{name}: expected length {length}; got {arr.shape[0]}")
    bad = (arr < 0) | (arr >= upper)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"{name}: index out of range [0, {upper}) at position {i}; got {int(arr[i])}"
        )
    return arr


def as_weights(a, name: str, length: int) -> np.ndarray:
    """Return ``a`` as a 1-D float64 array of finite, non-negative values of ``length``."""
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(length, float(arr))
    if arr.ndim != 1 or arr.shape[0] != length:
        raise InvalidInputError(f"{name}: expected shape ({length},); got {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(f"{name}: weights must be finite and >= 0, index {i} is {float(arr[i])!r}")
    return np.ascontiguousarray(arr)


def check_positive(value, name: str, *, allow_zero: bool = False) -> float:
    """Return ``value`` as a float; an error names ``name`` unless it is positive (or 0) and finite.

    Examples
    --------
    >>> check_positive("2.5", "link_latency")
    2.5
    >>> check_positive(0, "link_latency", allow_zero=True)
    0.0
    """
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name}: expected a number; got {value!r}") from None
    if not np.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        need = "non-negative" if allow_zero else "positive"
        raise InvalidInputError(f"{name}: must be {need} and finite; got {value!r}")
    return v


def check_bytes_per_weight(value, name: str = "bytes_per_weight", *, allow_zero: bool = False) -> float:
    """Return message bytes per unit of edge weight, checked: positive and finite.

    The one check of every consumer of the message model (the predicted-time objective,
    the fluid and SimGrid replays, the command line's ``--bytes-per-weight``).  Only the
    objective passes ``allow_zero``: with zero bytes a message still pays its hop latency
    there, while a replay of empty messages would have nothing to send.

    Examples
    --------
    >>> check_bytes_per_weight(4096)
    4096.0
    >>> check_bytes_per_weight(0.0)
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.InvalidInputError: bytes_per_weight: must be positive and finite; got 0.0
    """
    return check_positive(value, name, allow_zero=allow_zero)
