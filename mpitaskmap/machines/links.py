"""The network's links as data: routes of processor pairs and the traffic they carry.

:class:`Routes` is what :meth:`mpitaskmap.machines.Machine.routes` returns (CSR over link
ids, a fraction per link where traffic splits); :class:`LinkLoads` is Data(e) and
Congestion(e) of every link with its class, from which the link metrics are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..errors import InvalidInputError

__all__ = ["BANDWIDTH_UNIT", "Routes", "LinkLoads"]


#: Bytes per second of one unit of a machine's link bandwidth: bandwidths are in GB/s.
BANDWIDTH_UNIT = 1e9


class Routes(NamedTuple):
    """Routes of a batch of processor pairs, as CSR over link ids (:meth:`Machine.routes`).

    Route ``i`` crosses links ``links[indptr[i]:indptr[i+1]]``; ``fractions`` gives the
    share of the pair's traffic on each of them (1.0 on a single path; a pair whose traffic
    splits over several paths -- ECMP, Valiant, PERCS striping -- has fractions below 1,
    summing over the links of any cut between the two ends to 1).  A link appears at most
    once in a route; its order in the route is the order of the path when there is one.
    An empty route joins processors that share a router (or a node).

    Attributes
    ----------
    indptr : (n_pairs + 1,) ndarray of int64
    links : (n_entries,) ndarray of int64
    fractions : (n_entries,) ndarray of float64
    """

    indptr: np.ndarray
    links: np.ndarray
    fractions: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        """Expected number of links each pair's traffic crosses (sum of its fractions), float64."""
        n = self.indptr.size - 1
        pair = np.repeat(np.arange(n), np.diff(self.indptr))
        return np.bincount(pair, weights=self.fractions, minlength=n).astype(np.float64, copy=False)


def merge_routes(first: Routes, second: Routes, use_second) -> Routes:
    """Return one batch of routes: pair ``i``'s from ``second`` where ``use_second[i]``, else from ``first``.

    Parameters
    ----------
    first : Routes
        Routes of every pair.
    second : Routes
        Routes of the pairs where ``use_second`` holds only, in their order.
    use_second : (n_pairs,) array_like of bool

    Returns
    -------
    Routes

    Raises
    ------
    InvalidInputError
        When the batches do not match the mask's pairs.

    Examples
    --------
    >>> a = Routes(np.array([0, 1, 3]), np.array([5, 6, 7]), np.ones(3))
    >>> b = Routes(np.array([0, 2]), np.array([8, 9]), np.array([0.5, 0.5]))
    >>> m = merge_routes(a, b, [False, True])
    >>> m.indptr.tolist(), m.links.tolist(), m.fractions.tolist()
    ([0, 1, 3], [5, 8, 9], [1.0, 0.5, 0.5])
    """
    mask = np.asarray(use_second, dtype=bool).reshape(-1)
    n = mask.size
    if first.indptr.size != n + 1 or second.indptr.size != int(mask.sum()) + 1:
        raise InvalidInputError(f"merge_routes: {first.indptr.size - 1} and {second.indptr.size - 1} routes do not "
                                f"match a mask of {n} pairs, {int(mask.sum())} from the second batch")
    len_first = np.diff(first.indptr)
    length = len_first.copy()
    length[mask] = np.diff(second.indptr)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(length, out=indptr[1:])
    links = np.empty(int(indptr[-1]), dtype=np.int64)
    fractions = np.empty(links.size, dtype=np.float64)
    for routes, pairs in ((first, np.flatnonzero(~mask)), (second, np.flatnonzero(mask))):
        own = np.arange(pairs.size) if routes is second else pairs  # the pairs' rows in this batch
        counts = np.diff(routes.indptr)[own]
        entry = np.repeat(routes.indptr[:-1][own], counts) + (np.arange(counts.sum()) -
                                                               np.repeat(np.cumsum(counts) - counts, counts))
        pos = np.repeat(indptr[:-1][pairs], counts) + (entry - np.repeat(routes.indptr[:-1][own], counts))
        links[pos] = routes.links[entry]
        fractions[pos] = routes.fractions[entry]
    return Routes(indptr, links, fractions)


@dataclass(frozen=True)
class LinkLoads:
    """Traffic on every directed link of a machine under its static routes.

    Link ids are the machine's (:meth:`Machine.routes`); every link has a class
    (``X+`` on a torus, ``LL``/``LR``/``D`` on PERCS, ...), listed from the most local to
    the most global, so summaries can group them (:meth:`by_class`).

    Attributes
    ----------
    data : (n_links,) ndarray of float64
        Data(e): the summed volume of messages crossing each link (a share of a split
        message counts with its fraction).
    messages : (n_links,) ndarray of int64
        Congestion(e): the number of messages crossing each link (a split message counts
        once on every link one of its paths crosses).
    bandwidth : (n_links,) ndarray of float64
        Bandwidth of each link (same unit as the machine's bandwidths).
    link_class : (n_links,) ndarray of int
        Class of every link, an index into ``class_names``.
    class_names : tuple of str
        Name of every link class.
    """

    data: np.ndarray
    messages: np.ndarray
    bandwidth: np.ndarray
    link_class: np.ndarray
    class_names: tuple

    @property
    def latency(self) -> np.ndarray:
        """Latency(e) = Data(e) / bw(e) for every link."""
        return self.data / self.bandwidth

    @property
    def used(self) -> np.ndarray:
        """Boolean mask of the links crossed by at least one message."""
        return self.messages > 0

    def max_data(self) -> float:
        """Return Data(M), the largest volume on any link."""
        return float(self.data.max()) if self.data.size else 0.0

    def max_latency(self) -> float:
        """Return Latency(M) (max volume congestion, MC): the largest Data(e)/bw(e)."""
        return float(self.latency.max()) if self.data.size else 0.0

    def max_messages(self) -> int:
        """Return MMC, the largest number of messages on any link."""
        return int(self.messages.max()) if self.messages.size else 0

    def n_used(self) -> int:
        """Return the number of links crossed by at least one message."""
        return int(np.count_nonzero(self.messages))

    def average_messages(self) -> float:
        """Return AMC: total Congestion(e) over the links actually used."""
        used = self.n_used()
        return float(self.messages.sum()) / used if used else 0.0

    def average_latency(self) -> float:
        """Return AC: total Latency(e) over the links actually used."""
        used = self.n_used()
        return float(self.latency.sum()) / used if used else 0.0

    def class_max_latency(self) -> dict:
        """Return the largest Data(e)/bw(e) of every link class, ``{name: value}`` (0.0 for an empty class)."""
        lat = self.latency
        return {name: float(lat[self.link_class == k].max(initial=0.0)) for k, name in enumerate(self.class_names)}

    def bottleneck(self) -> str:
        """Return the class of the most loaded link (largest Data(e)/bw(e)).

        Ties go to the class listed last (classes run from the most local to the most
        global, so a tie names the wider network).

        Examples
        --------
        >>> loads = LinkLoads(np.array([2.0, 4.0]), np.array([1, 1]), np.array([1.0, 2.0]),
        ...                   np.array([0, 1]), ("local", "global"))
        >>> loads.bottleneck()
        'global'
        """
        per_class = self.class_max_latency()
        names = list(self.class_names)
        return max(reversed(names), key=lambda n: per_class[n])

    def by_class(self) -> list[dict]:
        """Summarise the loads per link class (X+, X-, Y+, ... on a torus).

        Returns
        -------
        list of dict
            One record per class, in the machine's class order, with keys ``link`` (the
            class name), ``n_links``, ``max_data``, ``total_data``, ``max_latency``,
            ``max_messages`` and ``used_links``.
        """
        lat = self.latency
        rows = []
        for k, name in enumerate(self.class_names):
            sel = self.link_class == k
            rows.append(
                {
                    "link": name,
                    "n_links": int(np.count_nonzero(sel)),
                    "max_data": float(self.data[sel].max(initial=0.0)),
                    "total_data": float(self.data[sel].sum()),
                    "max_latency": float(lat[sel].max(initial=0.0)),
                    "max_messages": int(self.messages[sel].max(initial=0)),
                    "used_links": int(np.count_nonzero(self.messages[sel])),
                }
            )
        return rows
