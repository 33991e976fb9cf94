"""Perfect colourings of the 8 x 8 block grid for mod-colouring (ALGORITHMS.md section 5).

The P x Q task grid is cut into 8 x 8 blocks, an ``R x q`` block grid (``R = P / 8``
rows along x, ``q = Q / 8`` columns along y).  Colours are supernodes and every colour
is used by ``f = 2`` blocks.  A colouring is *perfect* when, for every colour, the
``4f = 8`` blocks adjacent to its blocks (periodic grid) carry 8 distinct colours, none
of them the colour itself: the halo traffic of a supernode then leaves over 8 different
supernode pairs, each carrying one block edge (2 units), half of what supernode blocking
puts on its busiest pair.

Construction: rows are paired into bands ``(2k, 2k + 1)`` with a colour set of ``q``
colours each (band ``k`` owns colours ``k q .. k q + q - 1``).  Colour ``k q + i`` sits at
column ``sigma1(i) = i`` of row ``2k`` and at column ``sigma2(i) = (5 i + 2) mod q`` of
row ``2k + 1``: the *nice* permutation pair.  For ``q >= 8`` a power of two the 6
in-band neighbours ``i +- 1``, ``sigma2^-1(i)``, ``i +- 5^-1``, ``sigma2(i)`` are distinct
and differ from ``i``, and the two neighbours in the bands above and below differ, also
when there are only two bands (``sigma2(sigma2(i)) != i`` because ``24 i + 12`` is never
a multiple of 8).  :func:`check_perfect_colouring` verifies any colouring.
"""

from __future__ import annotations

import numpy as np

from ...errors import InvalidInputError

__all__ = ["nice_permutation", "mod_colouring", "colouring_defects", "check_perfect_colouring"]


def _power_of_two(q: int) -> bool:
    return q >= 1 and q & (q - 1) == 0


def nice_permutation(q: int) -> np.ndarray:
    """Return ``sigma2(i) = (5 i + 2) mod q`` for ``i = 0 .. q-1`` (partner of the identity).

    Parameters
    ----------
    q : int
        A power of two, at least 8.

    Returns
    -------
    (q,) ndarray of intp

    Raises
    ------
    InvalidInputError
        If ``q`` is not a power of two >= 8.

    Examples
    --------
    >>> nice_permutation(8).tolist()
    [2, 7, 4, 1, 6, 3, 0, 5]
    """
    if isinstance(q, bool) or not isinstance(q, (int, np.integer)) or int(q) < 8 or not _power_of_two(int(q)):
        raise InvalidInputError(f"q: nice permutations need a power of two >= 8; got {q!r}")
    return ((5 * np.arange(int(q)) + 2) % int(q)).astype(np.intp)


def mod_colouring(R: int, q: int) -> np.ndarray:
    """Return the perfect colouring of an ``R x q`` block grid; entry ``[r, i]`` is a colour.

    Parameters
    ----------
    R : int
        Block rows, an even number >= 4 (the strategy asks P multiple of 32, i.e. R a
        multiple of 4).
    q : int
        Block columns, a power of two >= 8.

    Returns
    -------
    (R, q) ndarray of intp
        Colours ``0 .. R q / 2 - 1``, each used twice.

    Raises
    ------
    InvalidInputError
        If ``R`` is odd or below 4, or ``q`` is not a power of two >= 8.

    Examples
    --------
    >>> c = mod_colouring(4, 8)
    >>> c[:2].tolist()
    [[0, 1, 2, 3, 4, 5, 6, 7], [6, 3, 0, 5, 2, 7, 4, 1]]
    >>> check_perfect_colouring(c)
    True
    """
    sigma2 = nice_permutation(q)
    if isinstance(R, bool) or not isinstance(R, (int, np.integer)) or int(R) < 4 or int(R) % 2:
        raise InvalidInputError(f"R: block rows must be an even number >= 4; got {R!r}")
    R = int(R)
    out = np.empty((R, q), dtype=np.intp)
    inv = np.empty(q, dtype=np.intp)
    inv[sigma2] = np.arange(q)
    for k in range(R // 2):
        out[2 * k] = k * q + np.arange(q)
        out[2 * k + 1] = k * q + inv
    return out


def colouring_defects(colours, *, periodic: bool = True) -> list[str]:
    """Return why a block colouring is not perfect (an empty list when it is).

    Parameters
    ----------
    colours : (R, q) array_like of int
        Colour of every block.
    periodic : bool, optional
        Whether the block grid wraps around (default True, as the halo pattern does).

    Returns
    -------
    list of str
        One message per colour that is not used exactly twice or whose neighbour blocks
        are not 8 distinct other colours.

    Examples
    --------
    >>> colouring_defects([[0, 0], [1, 1]])[0]
    'colour 0: adjacent to itself'
    """
    c = np.asarray(colours)
    if c.ndim != 2 or c.dtype.kind not in "iu":
        raise InvalidInputError(f"colours: expected a 2-D integer array; got shape {c.shape}, dtype {c.dtype}")
    R, q = c.shape
    out = []
    cells: dict[int, list] = {}
    for r in range(R):
        for i in range(q):
            cells.setdefault(int(c[r, i]), []).append((r, i))
    for col in sorted(cells):
        blocks = cells[col]
        if len(blocks) != 2:
            out.append(f"colour {col}: used {len(blocks)} times, expected 2")
            continue
        nbrs = []
        for r, i in blocks:
            for dr, di in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                rr, ii = r + dr, i + di
                if periodic:
                    rr, ii = rr % R, ii % q
                elif not (0 <= rr < R and 0 <= ii < q):
                    continue
                nbrs.append(int(c[rr, ii]))
        if col in nbrs:
            out.append(f"colour {col}: adjacent to itself")
        elif len(set(nbrs)) != len(nbrs):
            dup = sorted({n for n in nbrs if nbrs.count(n) > 1})
            out.append(f"colour {col}: neighbour colours repeat {dup}")
    return out


def check_perfect_colouring(colours, *, periodic: bool = True) -> bool:
    """Return True when every colour is used twice and its 8 neighbour blocks have distinct other colours.

    Examples
    --------
    >>> check_perfect_colouring(mod_colouring(8, 16))
    True
    >>> check_perfect_colouring([[0, 1], [1, 0]])
    False
    """
    return not colouring_defects(colours, periodic=periodic)
