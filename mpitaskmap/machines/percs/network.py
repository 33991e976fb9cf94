"""The PERCS / Power 775 two-level direct network: constants, wiring and link numbering.

A supernode is 4 drawers of 8 nodes; a node holds 4 processors (ALGORITHMS.md
section 5).  Inside a supernode every ordered pair of distinct nodes is joined by a
directed L link: LL (21 GB/s) inside a drawer, LR (5 GB/s) between drawers.  Every
ordered pair of distinct supernodes is joined by ``n_d`` directed D links (10 GB/s).
The nodes of a supernode form ``n_d`` buckets of ``W = 32 / n_d`` consecutive nodes, and
the D link of bucket ``j`` towards supernode ``b`` leaves node ``j * W + (b mod W)``
(:func:`d_link_node`); the same physical cable arrives, in ``b``, at the node of
``b``'s bucket ``j`` that serves ``a``, ``j * W + (a mod W)``.

Self-loops (an L link from a node to itself, a D link from a supernode to itself) are
a convention of the routing rules only: they make every route the same shape, but they
are not links of the machine, carry nothing and are absent from the link numbering.

Link numbering (compact, self-loops left out) of
:class:`~mpitaskmap.machines.percs.PercsMachine` (its ``n_links``, routes and link loads):

* L links: ``s * 992 + y * 31 + (z if z < y else z - 1)`` for the link from node ``y``
  to node ``z != y`` (node numbers 0..31 inside supernode ``s``);
* D links: ``n_s * 992 + (a * n_d + j) * (n_s - 1) + (b if b < a else b - 1)`` for the
  D link of bucket ``j`` from supernode ``a`` to supernode ``b != a``.
"""

from __future__ import annotations

import numpy as np

from ...errors import InvalidInputError

__all__ = [
    "PROCS_PER_NODE",
    "NODES_PER_DRAWER",
    "DRAWERS_PER_SUPERNODE",
    "NODES_PER_SUPERNODE",
    "PROCS_PER_SUPERNODE",
    "LL_BANDWIDTH",
    "LR_BANDWIDTH",
    "D_BANDWIDTH",
    "VALID_N_D",
    "LINK_CLASSES",
    "bucket_width",
    "d_link_node",
    "check_network",
    "L_LINKS_PER_SUPERNODE",
    "link_tables",
]

PROCS_PER_NODE = 4
NODES_PER_DRAWER = 8
DRAWERS_PER_SUPERNODE = 4
NODES_PER_SUPERNODE = NODES_PER_DRAWER * DRAWERS_PER_SUPERNODE
PROCS_PER_SUPERNODE = PROCS_PER_NODE * NODES_PER_SUPERNODE
LL_BANDWIDTH = 21.0
LR_BANDWIDTH = 5.0
D_BANDWIDTH = 10.0
VALID_N_D = (1, 2, 4, 8, 16, 32)
#: Link classes in the order of their codes (:func:`link_tables`), from the most local to the most global.
LINK_CLASSES = ("LL", "LR", "D")
#: L links of one supernode in the compact numbering (ordered pairs of distinct nodes).
L_LINKS_PER_SUPERNODE = NODES_PER_SUPERNODE * (NODES_PER_SUPERNODE - 1)  # 992


def check_network(n_s, n_d) -> tuple[int, int]:
    """Validate a network size and return it as ``(n_s, n_d)`` Python ints.

    Parameters
    ----------
    n_s : int
        Number of supernodes, at least 1.
    n_d : int
        D links between every pair of supernodes, one of 1, 2, 4, 8, 16, 32.

    Returns
    -------
    tuple of int

    Raises
    ------
    InvalidInputError
        On a non-integer or out-of-range size.

    Examples
    --------
    >>> check_network(4, 2)
    (4, 2)
    """
    if isinstance(n_s, bool) or not isinstance(n_s, (int, np.integer)) or int(n_s) < 1:
        raise InvalidInputError(f"n_s: the number of supernodes must be an integer >= 1; got {n_s!r}")
    if isinstance(n_d, bool) or not isinstance(n_d, (int, np.integer)) or int(n_d) not in VALID_N_D:
        raise InvalidInputError(f"n_d: D links per supernode pair must be one of {list(VALID_N_D)}; got {n_d!r}")
    return int(n_s), int(n_d)


def bucket_width(n_d: int) -> int:
    """Return ``W = 32 / n_d``, the number of nodes in one D-link bucket.

    Examples
    --------
    >>> bucket_width(4)
    8
    """
    _, n_d = check_network(1, n_d)
    return NODES_PER_SUPERNODE // n_d


def d_link_node(j, b, n_d: int):
    """Return the node (0..31 inside its supernode) where the D link of bucket ``j`` to ``b`` leaves.

    The bucket wiring of ALGORITHMS.md section 5: ``j * W + (b mod W)`` with
    ``W = 32 / n_d``.  The link from supernode ``a`` to ``b`` arrives in ``b`` at
    ``d_link_node(j, a, n_d)``.

    Parameters
    ----------
    j : int or array_like of int
        Bucket, ``0 <= j < n_d``.
    b : int or array_like of int
        Target supernode (any supernode, the source's own included: a self-loop).
    n_d : int
        D links per supernode pair.

    Returns
    -------
    int or ndarray of int64

    Examples
    --------
    >>> d_link_node(1, 13, 4)   # W = 8: node 8 + 13 % 8
    13
    >>> d_link_node([0, 1, 2, 3], 5, 4).tolist()
    [5, 13, 21, 29]
    """
    w = bucket_width(n_d)
    j_arr, b_arr = np.asarray(j), np.asarray(b)
    if ((j_arr < 0) | (j_arr >= n_d)).any():
        raise InvalidInputError(f"j: bucket must lie in [0, {n_d}); got {j!r}")
    out = j_arr.astype(np.int64) * w + b_arr.astype(np.int64) % w
    return int(out) if out.ndim == 0 else out


def link_tables(n_s: int, n_d: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the class code and bandwidth of every link in the compact numbering.

    Parameters
    ----------
    n_s, n_d : int
        Network size.

    Returns
    -------
    link_class : (n_links,) ndarray of int8
        0 = LL, 1 = LR, 2 = D (see :data:`LINK_CLASSES`).
    bandwidth : (n_links,) ndarray of float64
        GB/s.

    Examples
    --------
    >>> cls, bw = link_tables(2, 1)
    >>> cls.size, int((cls == 0).sum()), int((cls == 1).sum()), bw[-1]
    (1986, 448, 1536, np.float64(10.0))
    """
    n_s, n_d = check_network(n_s, n_d)
    y, z = np.divmod(np.arange(NODES_PER_SUPERNODE**2), NODES_PER_SUPERNODE)
    off = y != z
    same_drawer = (y[off] // NODES_PER_DRAWER) == (z[off] // NODES_PER_DRAWER)
    l_class = np.where(same_drawer, 0, 1).astype(np.int8)
    n_d_links = n_s * n_d * (n_s - 1)
    link_class = np.concatenate([np.tile(l_class, n_s), np.full(n_d_links, 2, dtype=np.int8)])
    bw_of_class = np.array([LL_BANDWIDTH, LR_BANDWIDTH, D_BANDWIDTH])
    return link_class, bw_of_class[link_class]
