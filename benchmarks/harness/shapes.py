"""Task grid shapes shared by the speed studies."""

from __future__ import annotations


def stencil_dims(ranks: int) -> list[int]:
    """A near-cubic 3-D grid of ``ranks`` tasks (a power of two), x longest.

    Raises
    ------
    SystemExit
        When ``ranks`` is not a power of two (names ``--ranks``, the studies' argument).

    Examples
    --------
    >>> stencil_dims(4096), stencil_dims(8192)
    ([16, 16, 16], [32, 16, 16])
    """
    k = ranks.bit_length() - 1
    if 1 << k != ranks:
        raise SystemExit(f"--ranks: expected a power of two; got {ranks}")
    dims = [1 << (k // 3 + (1 if i < k % 3 else 0)) for i in range(3)]
    return dims
