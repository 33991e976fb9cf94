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

Link numbering (compact, self-loops left out) used by :class:`PercsLinkLoads`:

* L links: ``s * 992 + y * 31 + (z if z < y else z - 1)`` for the link from node ``y``
  to node ``z != y`` (node numbers 0..31 inside supernode ``s``);
* D links: ``n_s * 992 + (a * n_d + j) * (n_s - 1) + (b if b < a else b - 1)`` for the
  D link of bucket ``j`` from supernode ``a`` to supernode ``b != a``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InvalidInputError
from .base import LinkLoads

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
    "link_tables",
    "PercsLinkLoads",
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
#: Link classes in the order of their codes in :attr:`PercsLinkLoads.link_class`.
LINK_CLASSES = ("LL", "LR", "D")
_L_PER_SN = NODES_PER_SUPERNODE * (NODES_PER_SUPERNODE - 1)  # 992


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


@dataclass(frozen=True)
class PercsLinkLoads(LinkLoads):
    """Traffic on every link of a PERCS network, with per-class summaries and throughput.

    A :class:`~mpitaskmap.machines.LinkLoads` whose links are numbered as described in
    :mod:`mpitaskmap.machines.percs_network`, so every generic link metric
    (:func:`mpitaskmap.metrics.evaluate`) works unchanged.  ``dim_names`` is
    ``["LL", "LR", "D"]`` and :meth:`by_direction` summarises per link class.

    Attributes
    ----------
    data : (n_links,) ndarray of float64
        Data(e): the (fractional) volume crossing each link.
    messages : (n_links,) ndarray of int64
        Congestion(e): the number of messages a positive share of which crosses the link
        (a split message counts once per link, however many of its paths cross it).
    bandwidth : (n_links,) ndarray of float64
        GB/s of each link.
    dim_names : list of str
        ``["LL", "LR", "D"]``.
    link_class : (n_links,) ndarray of int8
        Class code of every link, an index into ``dim_names``.
    n_s, n_d : int
        Network size.
    routing : str
        ``"direct"`` or ``"indirect"``.
    model : str
        L-link model, ``"paper"``, ``"striped"`` or ``"uniform"``
        (:data:`mpitaskmap.machines.percs_routing.MODELS`).
    """

    n_s: int = 0
    n_d: int = 0
    routing: str = "direct"
    model: str = "paper"

    def class_max_data(self) -> dict:
        """Return the largest Data(e) of each link class: ``{"LL": L_LL, "LR": L_LR, "D": L_D}``."""
        out = {}
        for code, name in enumerate(LINK_CLASSES):
            sel = self.data[self.link_class == code]
            out[name] = float(sel.max()) if sel.size else 0.0
        return out

    def class_times(self) -> dict:
        """Return ``L_X / bw_X`` for each class X: the time per unit of injected volume."""
        bw = {"LL": LL_BANDWIDTH, "LR": LR_BANDWIDTH, "D": D_BANDWIDTH}
        return {name: load / bw[name] for name, load in self.class_max_data().items()}

    def class_throughputs(self, volume_per_node: float = 4.0) -> dict:
        """Return the throughput each link class alone would allow, ``volume_per_node / (L_X / bw_X)``.

        A class that carries nothing allows an infinite throughput.
        """
        return {k: (volume_per_node / t if t > 0 else float("inf")) for k, t in self.class_times().items()}

    def throughput(self, volume_per_node: float = 4.0) -> float:
        """Return the throughput per node, ``volume_per_node / t`` with ``t = max_X L_X / bw_X``.

        With the normalisation of ALGORITHMS.md section 5 (every task sends one unit,
        four tasks per node) ``volume_per_node = 4`` gives GB/s per node.
        """
        t = max(self.class_times().values())
        return volume_per_node / t if t > 0 else float("inf")

    def bottleneck(self) -> str:
        """Return the class ("LL", "LR" or "D") with the largest ``L_X / bw_X``; ties go to D, then LR."""
        times = self.class_times()
        return max(("D", "LR", "LL"), key=lambda k: (times[k], -("D", "LR", "LL").index(k)))

    def by_direction(self) -> list[dict]:
        """Summarise the loads per link class (LL, LR, D) instead of per direction.

        Returns
        -------
        list of dict
            One record per class with keys ``link``, ``max_data``, ``total_data``,
            ``max_latency``, ``max_messages``, ``used_links``, plus ``n_links`` and
            ``throughput`` (the class's own throughput per node, see
            :meth:`class_throughputs`).
        """
        lat = self.latency
        tput = self.class_throughputs()
        rows = []
        for code, name in enumerate(LINK_CLASSES):
            sel = self.link_class == code
            n = int(sel.sum())
            rows.append(
                {
                    "link": name,
                    "max_data": float(self.data[sel].max()) if n else 0.0,
                    "total_data": float(self.data[sel].sum()),
                    "max_latency": float(lat[sel].max()) if n else 0.0,
                    "max_messages": int(self.messages[sel].max()) if n else 0,
                    "used_links": int(np.count_nonzero(self.messages[sel])),
                    "n_links": n,
                    "throughput": tput[name],
                }
            )
        return rows

    def link_name(self, link: int) -> str:
        """Return a readable name of link ``link``, e.g. ``"LL s0 3->5"`` or ``"D 0->2 j1"``."""
        link = int(link)
        n_l = self.n_s * _L_PER_SN
        if not 0 <= link < self.data.size:
            raise InvalidInputError(f"link: must lie in [0, {self.data.size}); got {link}")
        if link < n_l:
            s, rest = divmod(link, _L_PER_SN)
            y, zz = divmod(rest, NODES_PER_SUPERNODE - 1)
            z = zz if zz < y else zz + 1
            return f"{LINK_CLASSES[int(self.link_class[link])]} s{s} {y}->{z}"
        aj, bb = divmod(link - n_l, self.n_s - 1)
        a, j = divmod(aj, self.n_d)
        b = bb if bb < a else bb + 1
        return f"D {a}->{b} j{j}"
