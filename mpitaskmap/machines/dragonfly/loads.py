"""A dragonfly's link loads and predicted time aggregated by switch and group, not node pair by node pair.

The generic :meth:`Machine._routed_traffic <mpitaskmap.machines.base.Machine._routed_traffic>`
routes every distinct pair of nodes that exchange messages: under Valiant routing an
inter-group pair lists ``(G - 2) h^2`` paths, about 5,300 links on the ``"aries"`` preset,
so a 512-rank exchange takes minutes.  :func:`routed_traffic` gives the same ``Data(e)``,
``Congestion(e)`` and slowest route latency per link from the structure of the routes
(:mod:`~mpitaskmap.machines.dragonfly`, module notes), in time independent of the route
lengths, for every routing of the machine; :class:`~mpitaskmap.machines.dragonfly.DragonflyMachine`
uses it for :meth:`~mpitaskmap.machines.Machine.link_loads` and
:meth:`~mpitaskmap.machines.Machine.link_time` where routes are long (``"valiant"``, large
``"ecmp"`` exchanges; its ``_routed_traffic``).  :func:`node_pair_route_entries` counts the
entries of the node-pair route table of congestion refinement the same way, without routing.

**Legs.**  A message from node ``u`` (group ``a``, switch ``s``) to node ``v`` (group ``b``,
switch ``t``), ``u != v``, crosses ``u``'s up-link and ``v``'s down-link, and

* inside one group (``a == b``): the local hops ``s -> t`` (*inside leg*, key ``(a, s, t)``);
* between groups, on each of its paths: the local hops in ``a`` from ``s`` to the switch
  holding the path's first global link (*source leg*, key ``(a, s, b)``); the global links
  and, on a Valiant path through group ``c``, the local hops in ``c`` from where the first
  global link arrives to where the second leaves (*group legs*, key ``(a, b)``); the local
  hops in ``b`` from where the last global link arrives to ``t`` (*destination leg*, key
  ``(a, b, t)``).

The legs of one message lie in different groups or link classes, so their link sets are
disjoint: a message's ``Congestion`` is the sum over its legs of the links each leg's
paths cross (counted once), and each leg's links depend on its key only.  ``Data`` is
linear in the traffic; ``Congestion`` and the slowest latency are unions, computed per key.

**Group-level paths** come from :func:`~mpitaskmap.machines.two_level.group_paths`, the
routing the machine's :meth:`~mpitaskmap.machines.dragonfly.DragonflyMachine.routes` uses:
its rule with one global link per group pair says which groups a pair's traffic passes
with what share (:class:`GroupTables`: ``first``, ``through``, ``last``), and every global
leg ``p -> q`` spreads evenly over the ``h`` links of that pair as the rule ``"minimal"``
spreads it (``leg``: Valiant is minimal on both legs).  The ``h``-link paths of
:func:`~mpitaskmap.machines.two_level.group_paths` are exactly these products (tested).
Under ``"minimal"`` routing a node pair keeps one of its ``h`` paths, over link ``(u + v)
mod h``: the keys then carry that link number (a *lane*), each lane a single path.

**A leg inside one group is a product**: a set of switches it starts from, which depends on
one part of its key, times a set of switches it ends at, which depends on the other part
(inside leg: ``{s}`` x ``{t}``; source leg: ``{s}`` x the departures of ``a -> b``;
destination leg: the arrivals of ``a -> b`` x ``{t}``; group leg in ``c``: the arrivals
from ``a`` x the departures towards ``b``), each spread evenly as the paths are.  So per
group, with ``A`` the keys' start-switch shares, ``D`` their end-switch shares and ``W``
their weights:

* ``Data``: the switch-pair volumes ``A^T W D``, expanded onto the local hops once per
  distinct (group, switch, switch);
* ``Congestion``: on a row/column group a green hop ``x -> (row of x, column k)`` is on
  a key's paths iff ``x`` is one of its start switches and one of its end switches lies
  in column ``k != column of x``; a black hop ``(row r, column k) -> y`` iff one of its
  start switches lies in row ``r != row of y`` and ``y`` is one of its end switches (an
  all-to-all group is one row: local hop ``x -> y`` iff ``x`` starts and ``y`` ends).
  Counted by the matrix products ``1[A]^T N 1[D by column]`` and ``1[A by row]^T N 1[D]``
  (``N``: message counts per key);
* the slowest latency: the same two products in the (max, x) algebra over the keys'
  largest latencies.

**Route lengths** (the slowest latency's hops): the expected number of links a message
crosses is ``2 +`` the expected local hops of its source leg ``+`` its group legs' ``+``
its destination leg's, each an expectation over the leg's switch shares, so one value per
(source switch, destination switch).  Summed in another order than the node pairs' route
fractions: equal to the generic computation up to rounding (relative 1e-12 in the tests).
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from ...errors import InvalidInputError
from .. import two_level
from ..base import Machine, _Traffic

__all__ = ["GroupTables", "group_tables", "routed_traffic", "node_pair_route_entries", "route_entries"]

#: :func:`group_tables` and the local hops' link ids of the machines :func:`routed_traffic` has seen, with the
#: group-level routing they were built from (a machine's network never changes; an entry goes with its machine).
_TABLES: "weakref.WeakKeyDictionary[Machine, tuple]" = weakref.WeakKeyDictionary()


def _cached_tables(machine: Machine, group_rule: str) -> tuple:
    """(:func:`group_tables`, :func:`_hop_links`) of ``machine``, rebuilt when the shared group-level routing changed.

    The machine's routes take :func:`~mpitaskmap.machines.two_level.group_paths` at every
    call; so do these tables, through the function they were built with.
    """
    key = (two_level.group_paths, group_rule)
    cached = _TABLES.get(machine)
    if cached is None or cached[0] != key:
        cached = _TABLES[machine] = (key, group_tables(machine, group_rule), _hop_links(machine))
    return cached[1:]


class GroupTables(NamedTuple):
    """Where a dragonfly's traffic between two groups goes, group by group and switch by switch (:func:`group_tables`).

    ``G`` groups of ``S`` switches; shares are of one group pair's traffic.  A *lane* is a
    choice of global links: under ``"minimal"`` routing lane ``j`` is the static path over
    link ``j`` that node pairs with ``(u + v) mod h = j`` take (``h`` lanes); the spreading
    routings have one lane, spread over all ``h`` links.

    Attributes
    ----------
    leg : (lanes, G, G, S) ndarray of float64
        ``leg[l, p, q, x]``: share of a global leg between ``p`` and ``q`` (either way) on
        the links held by switch ``x`` of ``p``.
    first : (G, G, G) ndarray of float64
        ``first[a, b, c]``: share of ``a -> b`` whose first global leg goes ``a -> c``.
    through : (G, G, G) ndarray of float64
        ``through[a, b, c]``: share of ``a -> b`` through intermediate group ``c`` (0 but
        under Valiant routing).
    last : (G, G, G) ndarray of float64
        ``last[a, b, c]``: share of ``a -> b`` whose last global leg comes from ``c``.
    departure : (lanes, G, G, S) ndarray of float64
        ``departure[l, a, b, x]``: share of ``a -> b`` leaving ``a`` at switch ``x``.
    arrival : (lanes, G, G, S) ndarray of float64
        ``arrival[l, a, b, y]``: share of ``a -> b`` reaching ``b`` at switch ``y``.
    departure_hops : (lanes, G, G, S) ndarray of float64
        ``departure_hops[l, a, b, s]``: expected local hops from switch ``s`` of ``a`` to
        where ``a -> b`` leaves ``a``.
    arrival_hops : (lanes, G, G, S) ndarray of float64
        ``arrival_hops[l, a, b, t]``: expected local hops from where ``a -> b`` reaches
        ``b`` to switch ``t`` of ``b``.
    group_hops : (lanes, G, G) ndarray of float64
        Expected links of ``a -> b``'s group legs: global links and the local hops in
        intermediate groups.
    leg_links : (n, 4) ndarray of int64
        ``(lane, p, q, global link id)`` of every global link of every leg ``p -> q``.
    leg_shares : (n,) ndarray of float64
        Share of its leg's traffic on each of those links.
    """

    leg: np.ndarray
    first: np.ndarray
    through: np.ndarray
    last: np.ndarray
    departure: np.ndarray
    arrival: np.ndarray
    departure_hops: np.ndarray
    arrival_hops: np.ndarray
    group_hops: np.ndarray
    leg_links: np.ndarray
    leg_shares: np.ndarray

    @property
    def lanes(self) -> int:
        """Number of lanes (``h`` under ``"minimal"`` routing, else 1)."""
        return self.leg.shape[0]


def _local_hop_matrix(machine: Machine) -> np.ndarray:
    """(S, S) local hops between the switches of a group (the machine's rule), float64."""
    sw = np.arange(machine.switches_per_group, dtype=np.int64)
    return machine._local_hops(sw[:, None], sw[None, :]).astype(np.float64)


def group_tables(machine: Machine, group_rule: str) -> GroupTables:
    """Return the group-level shares of a dragonfly's routing (module notes), for every ordered pair of groups.

    Parameters
    ----------
    machine : DragonflyMachine
    group_rule : str
        The rule of :func:`~mpitaskmap.machines.two_level.group_paths` the machine's routing
        takes its paths from
        (:data:`DRAGONFLY_GROUP_RULE[machine.routing] <mpitaskmap.machines.dragonfly.DRAGONFLY_GROUP_RULE>`).

    Returns
    -------
    GroupTables

    Notes
    -----
    O(G^3 lanes + G^2 S^2 lanes) time and memory: independent of the allocation and the traffic.

    Examples
    --------
    Three groups of three switches, one global link per pair (switch ``b`` of group ``a``
    holds the link to ``b``): Valiant sends ``0 -> 2`` through group 1, leaving group 0 at
    switch 1 (its link to group 1) and reaching group 2 at switch 1 (its link to group 1).

    >>> from mpitaskmap.machines import DragonflyMachine
    >>> t = group_tables(DragonflyMachine(3, 3, 2, [0], routing="valiant"), "valiant")
    >>> t.through[0, 2].tolist(), t.departure[0, 0, 2].tolist(), t.arrival[0, 0, 2].tolist()
    ([0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0])
    >>> float(t.group_hops[0, 0, 2])  # two global links, one local hop in group 1 (from switch 0 to switch 2)
    3.0

    Minimal routing with two links per pair (two ports a switch): lane ``j`` leaves group 0
    towards group 2 on link ``j``, on port ``j G + 2`` of the group: port 2 on switch 1,
    port 5 on switch 2.

    >>> t = group_tables(DragonflyMachine(3, 3, 2, [0], global_links=2), "minimal")
    >>> t.lanes, t.departure[:, 0, 2].tolist()
    (2, [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    """
    G, S, h = machine.n_groups, machine.switches_per_group, machine.global_links
    static = machine.routing == "minimal"  # a node pair keeps the one path over link (u + v) mod h
    lanes = h if static else 1
    p, q = np.divmod(np.arange(G * G, dtype=np.int64), G)
    off = p != q
    p, q = p[off], q[off]
    legs = two_level.group_paths(p, q, G, h, "minimal")  # both legs of every routing are minimal
    lp, lq, j = p[legs.pair], q[legs.pair], legs.first
    lane = j if static else np.zeros_like(j)
    share = np.ones(j.size) if static else legs.share
    x = machine.global_switch(lp, lq, j)
    leg = np.bincount(((lane * G + lp) * G + lq) * S + x, weights=share,
                      minlength=lanes * G * G * S).reshape(lanes, G, G, S)
    leg_links = np.stack([lane, lp, lq, machine._global_link(lp, lq, j)], axis=1)
    skeleton = two_level.group_paths(p, q, G, 1, group_rule)  # which groups, with what share
    a, b, c = p[skeleton.pair], q[skeleton.pair], skeleton.via
    two = skeleton.second >= 0

    def cube(where, group):
        return np.bincount((a[where] * G + b[where]) * G + group[where], weights=skeleton.share[where],
                           minlength=G ** 3).reshape(G, G, G)

    every = np.ones(a.size, dtype=bool)
    first = cube(every, c)
    through = cube(two, c)
    last = cube(every, np.where(two, c, a))
    departure = first[None] @ leg  # batched over (lane, a): sum_c first[a, b, c] leg[l, a, c, x]
    arrival = (last.transpose(1, 0, 2)[None] @ leg).transpose(0, 2, 1, 3)  # sum_c last[a, b, c] leg[l, b, c, y]
    hops = _local_hop_matrix(machine)
    group_hops = np.broadcast_to(first.sum(axis=2), (lanes, G, G)).copy()  # the first global link
    if through.any():
        mid = (leg @ hops) @ leg.transpose(0, 1, 3, 2)  # [l, c, a, b]: local hops in c from a's links to b's
        group_hops += np.einsum("abc,lcab->lab", through, 1.0 + mid)  # the second global link and those hops
    return GroupTables(leg, first, through, last, departure, arrival, departure @ hops.T, arrival @ hops, group_hops,
                       leg_links, share)


class _LocalLoads:
    """The local hops' Data, Congestion and slowest latency of every group, leg by leg (:meth:`add`)."""

    def __init__(self, machine: Machine, latency: bool) -> None:
        G, S, R, C = machine.n_groups, machine.switches_per_group, machine.rows, machine.columns
        self.S, self.R, self.C = S, R, C
        self.pair = np.zeros((G, S, S))  # volume from switch x to switch y of a group
        self.green = np.zeros((G, S, C))  # messages on the hop x -> (row of x, column k)
        self.black = np.zeros((G, R, S))  # messages on the hop (row r, column of y) -> y
        self.slow_green = np.full((G, S, C), -np.inf) if latency else None
        self.slow_black = np.full((G, R, S), -np.inf) if latency else None

    def add(self, groups: np.ndarray, start: np.ndarray | None, end: np.ndarray | None, weight: np.ndarray,
            count: np.ndarray, slowest: np.ndarray | None) -> None:
        """Add a leg in each of ``groups``: keys ``(i, j)`` from start-switch shares ``start[:, i]`` to end-switch shares ``end[:, j]``.

        ``start`` (B, K1, S) and ``end`` (B, K2, S), None for the identity (key ``i`` starts
        at switch ``i``, key ``j`` ends at switch ``j``); ``weight``, ``count`` and
        ``slowest`` (B, K1, K2): the keys' volume, message count and largest latency
        (-inf: no message).
        """
        B, S, R, C = len(groups), self.S, self.R, self.C
        keys = [slice(None)] * 3  # the start and end keys with a message in some group (not on an identity side)
        if start is not None:
            keys[1] = np.flatnonzero(count.any(axis=(0, 2)))
            start = start[:, keys[1]]
        if end is not None:
            keys[2] = np.flatnonzero(count.any(axis=(0, 1)))
            end = end[:, keys[2]]
        weight, count = weight[tuple(keys[:2])][:, :, keys[2]], count[tuple(keys[:2])][:, :, keys[2]]
        slowest = None if slowest is None else slowest[tuple(keys[:2])][:, :, keys[2]]
        K1, K2 = weight.shape[1:]
        self.pair[groups] += _times(_times(weight, end), start, left=True)  # start^T W end
        on_a = None if start is None else (start > 0)
        on_d = None if end is None else (end > 0)
        if on_d is None:
            by_col = count.reshape(B, K1, R, C).sum(axis=2)  # (B, K1, C): to a switch in column k
        else:
            col_d = on_d.reshape(B, K2, R, C).any(axis=2)  # (B, K2, C): an end switch in column k
            by_col = count @ col_d
        self.green[groups] += by_col if on_a is None else on_a.transpose(0, 2, 1) @ by_col
        if R > 1:
            if on_a is None:
                by_row = count.reshape(B, R, C, K2).sum(axis=2)  # (B, R, K2): from a switch in row r
            else:
                row_a = on_a.reshape(B, K1, R, C).any(axis=3)  # (B, K1, R): a start switch in row r
                by_row = row_a.transpose(0, 2, 1) @ count
            self.black[groups] += by_row if on_d is None else by_row @ on_d
        if slowest is None:
            return
        # the latency, start key by start key with a message (an item): its largest over the end keys reaching
        # column k (green hops) and switch y (black hops), then over the start keys leaving from switch x
        # (green) or row r (black)
        active = np.isfinite(slowest).any(axis=2)
        b, i = np.nonzero(active)
        lat = slowest[b, i][:, None, :]  # (items, 1, K2)
        # few start keys with a message: their end masks gathered key by key, else every start key group by group
        # (the same values; the cheaper work)
        few = 4 * b.size < active.size

        def by_end(mask, width):  # (B, K1, width): max over the end keys j with mask[:, j] of the latency
            if few:
                out = np.full((B, K1, width), -np.inf)
                out[b, i] = _max_product(mask, lat, b)[:, 0]
                return out
            return _max_product(mask, slowest)

        to_column = (slowest.reshape(B, K1, R, C).max(axis=2) if on_d is None  # end key j ends at switch j
                     else by_end(col_d, C))
        green = (to_column if on_a is None
                 else _max_product(on_a & active[:, :, None], to_column.transpose(0, 2, 1)).transpose(0, 2, 1))
        np.maximum(self.slow_green[groups], green, out=green)
        self.slow_green[groups] = green
        if R > 1:
            to_switch = slowest if on_d is None else by_end(on_d, S)
            black = (to_switch.reshape(B, R, C, S).max(axis=2) if on_a is None  # start key i starts at switch i
                     else _max_product(row_a & active[:, :, None], to_switch.transpose(0, 2, 1)).transpose(0, 2, 1))
            np.maximum(self.slow_black[groups], black, out=black)
            self.slow_black[groups] = black

    def scatter(self, links: "_HopLinks", data: np.ndarray, messages: np.ndarray, slowest: np.ndarray | None) -> None:
        """Add the local hops' loads to the per-link arrays."""
        pair = self.pair.ravel()
        for hop in links.pair.T:  # both hops of a row/column path carry the volume
            ok = hop >= 0
            data += np.bincount(hop[ok], weights=pair[ok], minlength=data.size)
        hops = [(links.green, self.green, self.slow_green)]
        if self.R > 1:
            hops.append((links.black, self.black, self.slow_black))
        for link, count, slow in hops:
            ok = link >= 0
            messages += np.bincount(link[ok], weights=count.ravel()[ok], minlength=messages.size)
            if slowest is not None:
                np.maximum.at(slowest, link[ok], slow.ravel()[ok])


class _HopLinks(NamedTuple):
    """Link ids of a dragonfly's local hops (-1: none), for :meth:`_LocalLoads.scatter`."""

    pair: np.ndarray  # (G S S, 2): the hops of the path from switch x to switch y of group g, [(g S + x) S + y]
    green: np.ndarray  # (G S C,): the green (all-to-all: local) hop x -> (row of x, column k), [(g S + x) C + k]
    black: np.ndarray  # (G R S,): the black hop (row r, column of y) -> y, [(g R + r) S + y]


def _hop_links(machine: Machine) -> _HopLinks:
    """The local hops' link ids, from the machine's :meth:`_local_links`."""
    G, S, R, C = machine.n_groups, machine.switches_per_group, machine.rows, machine.columns
    green_ok, black_ok = _wiring_masks(machine)
    g, x, y = np.indices((G, S, S)).reshape(3, -1)
    pair = machine._local_links(g, x, y)
    g, x, k = np.indices((G, S, C)).reshape(3, -1)
    green = np.where(green_ok[x, k] > 0, machine._local_links(g, x, x // C * C + k)[:, 0], -1)  # stays in x's row
    g, r, y = np.indices((G, R, S)).reshape(3, -1)
    black = np.where(black_ok[r, y] > 0, machine._local_links(g, r * C + y % C, y)[:, 0], -1)  # in y's column
    return _HopLinks(pair, green, black)


def _wiring_masks(machine: Machine) -> tuple[np.ndarray, np.ndarray]:
    """(S, C) 1 where the green hop from ``x`` to column ``k`` exists (``k`` not ``x``'s column); (R, S) 1 where the black hop from row ``r`` to ``y`` exists."""
    S, R, C = machine.switches_per_group, machine.rows, machine.columns
    sw = np.arange(S)
    return ((sw[:, None] % C != np.arange(C)[None, :]).astype(np.int64),
            (np.arange(R)[:, None] != sw[None, :] // C).astype(np.int64))


def _max_product(mask: np.ndarray, values: np.ndarray, owner: np.ndarray | None = None) -> np.ndarray:
    """``out[n, x, k] = max(values[n, x, j] for j with mask[owner[n], j, k])``, -inf where no ``j``: the (max, x) product.

    Batched: item ``n`` of ``values`` (N, X, J) takes mask ``owner[n]`` of ``mask`` (B, J,
    K) (default: its own, ``N == B``).  Over the nonzeros of the masks only:
    O(nonzeros x X).

    Examples
    --------
    >>> _max_product(np.array([[[True, False], [True, True]]]), np.array([[[1.0, 5.0], [7.0, 2.0]]])).tolist()
    [[[5.0, 5.0], [7.0, 2.0]]]
    """
    B, K = mask.shape[0], mask.shape[2]
    N, X = values.shape[:2]
    owner = np.arange(N) if owner is None else owner
    gb, k, j = np.nonzero(mask.transpose(0, 2, 1))  # by (mask, k), then j
    per_mask = np.bincount(gb, minlength=B)
    count = per_mask[owner]  # nonzeros of every item's mask
    item = np.repeat(np.arange(N), count)
    pos = np.arange(item.size) - np.repeat(np.cumsum(count) - count, count) + np.repeat(
        (np.cumsum(per_mask) - per_mask)[owner], count)  # the item's nonzeros in its mask's list
    k, j = k[pos], j[pos]
    out = np.full((N, X, K), -np.inf)
    if item.size:
        seg = item * K + k
        first = np.flatnonzero(np.concatenate([[True], seg[1:] != seg[:-1]]))
        gathered = values.transpose(1, 0, 2)[:, item, j]  # (X, nonzeros): reduced along the contiguous axis
        out[item[first], :, k[first]] = np.maximum.reduceat(gathered, first, axis=1).T
    return out


def _times(weight: np.ndarray, shares: np.ndarray | None, left: bool = False) -> np.ndarray:
    """``weight @ shares`` (``shares^T @ weight`` with ``left``), batched; None shares: the identity."""
    if shares is None:
        return weight
    return shares.transpose(0, 2, 1) @ weight if left else weight @ shares


def _groups(count: np.ndarray) -> np.ndarray:
    """The groups (first axis) with a message in ``count``."""
    return np.flatnonzero(count.reshape(count.shape[0], -1).any(axis=1))


def _per_key(key: np.ndarray, size: int, weight: np.ndarray, latency: np.ndarray | None):
    """Volume, message count and largest latency (-inf: none) of every key in ``[0, size)``."""
    volume = np.bincount(key, weights=weight, minlength=size)
    count = np.bincount(key, minlength=size).astype(np.float64)
    slowest = None
    if latency is not None:
        slowest = np.full(size, -np.inf)
        np.maximum.at(slowest, key, latency)
    return volume, count, slowest


def routed_traffic(machine: Machine, group_rule: str, indptr, indices, weights, task_to_proc,
                   overlap_weight: float | None = None) -> _Traffic:
    """Return Data(e), Congestion(e) and (with ``overlap_weight``) the slowest route latency of every link of a dragonfly.

    What :meth:`Machine._routed_traffic <mpitaskmap.machines.base.Machine._routed_traffic>`
    returns from the machine's routes node pair by node pair, computed by leg (module
    notes).  Inputs are trusted (validated by the metric functions).

    Parameters
    ----------
    machine : DragonflyMachine
    group_rule : str
        The group-level rule of its routing (:func:`group_tables`).
    indptr, indices, weights, task_to_proc : ndarray
        CSR task graph (every directed edge one message) and the processor of every task.
    overlap_weight : float, optional
        As :meth:`~mpitaskmap.machines.Machine.link_time`; None: no latency (``slowest``
        None).

    Returns
    -------
    _Traffic
        ``data``, ``messages`` (float64 counts) and ``slowest`` (hops times the longest
        message's share ``min(1, overlap_weight / w)``; -inf on links no message crosses).

    Notes
    -----
    O(n_edges + n_links) plus, per leg, matrix products over the keys with messages: at
    most O(G^3 S + G^2 S^2) time and O(G^3 + G^2 S) memory (``G`` groups of ``S``
    switches), independent of the route lengths.  The machine's group tables and local
    hops' link ids are built on the first call (O(G^3 lanes + G^2 S^2 lanes)) and kept
    while the machine lives.

    Examples
    --------
    The Valiant example of :meth:`DragonflyMachine.routes`: node 0 (group 0) sends 4.0 to
    node 17 (group 2) over 7 links, all through group 1.

    >>> from mpitaskmap.machines import DragonflyMachine
    >>> m = DragonflyMachine(3, 3, 2, range(18), routing="valiant")
    >>> t = routed_traffic(m, "valiant", np.array([0, 1, 1]), np.array([1]), np.array([4.0]), np.array([0, 17]), 1.0)
    >>> m.link_names(np.flatnonzero(t.data)), t.data[t.data > 0].tolist()  # doctest: +NORMALIZE_WHITESPACE
    (['node 0 up', 'node 17 down', 'local g0 s0->s1', 'local g1 s0->s2', 'local g2 s1->s2', 'global g0->g1 #0',
      'global g1->g2 #0'], [4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0])
    >>> float(t.slowest.max())  # 7 links x min(1, 1.0 / 4.0)
    1.75
    """
    G, S, n, N = machine.n_groups, machine.switches_per_group, machine.nodes_per_switch, machine.n_network_nodes
    node = machine.node_ids.astype(np.int64)[np.asarray(task_to_proc)]
    indptr = np.asarray(indptr)
    u = np.repeat(node[: len(indptr) - 1], np.diff(indptr))
    v = node[np.asarray(indices)]
    moved = u != v
    u, v = u[moved], v[moved]
    w = np.asarray(weights, dtype=np.float64)[moved]
    n_links = machine.n_links
    data, messages = np.zeros(n_links), np.zeros(n_links)
    slowest = None if overlap_weight is None else np.full(n_links, -np.inf)
    if not u.size:
        return _Traffic(data, messages, slowest)
    a, s = np.divmod(u // n, S)
    b, t = np.divmod(v // n, S)
    inside = a == b
    tables, hop_links = _cached_tables(machine, group_rule)
    L = tables.lanes
    lane = (u + v) % L  # "minimal": the node pair's link (u + v) mod h (module notes of dragonfly); else lane 0
    latency = None
    if slowest is not None:
        length = np.where(inside, 2.0 + _local_hop_matrix(machine)[s, t], 0.0)
        x = ~inside
        k = (lane[x], a[x], b[x])
        length[x] = (2.0 + tables.departure_hops[k + (s[x],)] + tables.group_hops[k]
                     + tables.arrival_hops[k + (t[x],)])
        latency = length * np.minimum(1.0, overlap_weight / np.maximum(w, 1e-300))

    # node links: up-link u, down-link N + v, the whole weight
    for link in (u, N + v):
        data += np.bincount(link, weights=w, minlength=n_links)
        messages += np.bincount(link, minlength=n_links)
        if slowest is not None:
            np.maximum.at(slowest, link, latency)

    def keyed(where, key, shape):
        lat = None if latency is None else latency[where]
        return [None if arr is None else arr.reshape(shape) for arr in _per_key(key, int(np.prod(shape)), w[where], lat)]

    def part(arr, g):
        return None if arr is None else arr[g]

    local = _LocalLoads(machine, slowest is not None)
    # inside leg (g, s, t): from {s} to {t}
    i = np.flatnonzero(inside)
    vol, cnt, slow = keyed(i, (a[i] * S + s[i]) * S + t[i], (G, S, S))
    g = _groups(cnt)
    local.add(g, None, None, vol[g], cnt[g], part(slow, g))
    x = np.flatnonzero(~inside)
    if x.size:
        # source leg (a, s, lane, b): from {s} to the departures of a -> b
        vol, cnt, slow = keyed(x, ((a[x] * S + s[x]) * L + lane[x]) * G + b[x], (G, S, L * G))
        g = _groups(cnt)
        end = tables.departure[:, g].transpose(1, 0, 2, 3).reshape(g.size, L * G, S)
        local.add(g, None, end, vol[g], cnt[g], part(slow, g))
        # destination leg (b, lane, a, t): from the arrivals of a -> b to {t}
        vol, cnt, slow = keyed(x, ((b[x] * L + lane[x]) * G + a[x]) * S + t[x], (G, L * G, S))
        g = _groups(cnt)
        start = tables.arrival[:, :, g].transpose(2, 0, 1, 3).reshape(g.size, L * G, S)
        local.add(g, start, None, vol[g], cnt[g], part(slow, g))
        # group legs (lane, a, b): global links, and in an intermediate group c from the arrivals from a to the
        # departures to b
        vol, cnt, slow = keyed(x, (lane[x] * G + a[x]) * G + b[x], (L, G, G))
        sources, targets = np.flatnonzero(cnt.any(axis=(0, 2))), np.flatnonzero(cnt.any(axis=(0, 1)))
        pairs = np.ix_(sources, targets)
        through = tables.through[pairs]  # (sources, targets, c)
        c = np.flatnonzero(through.any(axis=(0, 1)))
        if c.size:
            through = through[:, :, c].transpose(2, 0, 1)  # (B, a, b)
            on = through > 0
            for l in range(L):
                shares = tables.leg[l, c]
                local.add(c, shares[:, sources], shares[:, targets], vol[l][pairs] * through,
                          np.where(on, cnt[l][pairs], 0.0), None if slow is None else np.where(on, slow[l][pairs], -np.inf))
        _add_global_links(tables, vol, cnt, slow, data, messages, slowest)
    local.scatter(hop_links, data, messages, slowest)
    return _Traffic(data, messages, slowest)


def _add_global_links(tables: GroupTables, volume: np.ndarray, count: np.ndarray, slow: np.ndarray | None,
                      data: np.ndarray, messages: np.ndarray, slowest: np.ndarray | None) -> None:
    """Add the global links' loads from the group pairs' (lanes, G, G) volume, count and latency.

    A leg ``p -> q`` is the first leg of pairs ``p -> b`` or the second of pairs ``a -> q``
    (over the groups that send and receive only).
    """
    L, G = volume.shape[:2]
    sources, targets = np.flatnonzero(count.any(axis=(0, 2))), np.flatnonzero(count.any(axis=(0, 1)))
    pairs = np.ix_(sources, targets)
    first, through = tables.first[pairs], tables.through[pairs]  # (a, b, c) over the pairs that talk
    vol, cnt = volume[:, sources][:, :, targets], count[:, sources][:, :, targets]
    leg_volume, leg_count = np.zeros((L, G, G)), np.zeros((L, G, G))
    leg_volume[:, sources] += np.einsum("lpb,pbq->lpq", vol, first)
    leg_volume[:, :, targets] += np.einsum("laq,aqp->lpq", vol, through)
    leg_count[:, sources] += np.einsum("lpb,pbq->lpq", cnt, (first > 0).astype(np.float64))
    leg_count[:, :, targets] += np.einsum("laq,aqp->lpq", cnt, (through > 0).astype(np.float64))
    lane, p, q, link = tables.leg_links.T
    share = tables.leg_shares
    data += np.bincount(link, weights=share * leg_volume[lane, p, q], minlength=data.size)
    messages += np.bincount(link, weights=np.where(share > 0, leg_count[lane, p, q], 0.0), minlength=messages.size)
    if slowest is not None:
        lat = slow[:, sources][:, :, targets]
        leg_slow = np.full((L, G, G), -np.inf)
        leg_slow[:, sources] = np.where(first[None] > 0, lat[..., None], -np.inf).max(axis=2)  # [l, p, b, q]
        as_second = np.where(through[None] > 0, lat[..., None], -np.inf).max(axis=1)  # [l, a, q, p] -> [l, q, p]
        leg_slow[:, :, targets] = np.maximum(leg_slow[:, :, targets], as_second.transpose(0, 2, 1))
        np.maximum.at(slowest, link, np.where(share > 0, leg_slow[lane, p, q], -np.inf))


def node_pair_route_entries(machine: Machine, group_rule: str) -> int:
    """Return the route entries of all ordered pairs of the allocation's nodes, counted without routing them.

    The size of :meth:`Machine.node_pair_routes
    <mpitaskmap.machines.base.Machine.node_pair_routes>`'s table under a spreading routing
    (``"ecmp"``, ``"valiant"``): a route lists every link one of its paths crosses, once,
    so a pair of nodes in two groups has 2 node links plus the links of its source leg,
    group legs and destination leg (module notes: disjoint sets), each leg's count the
    size of a union over its start and end switches (the green hops to the columns of its
    end switches from each start switch, the black hops to each end switch from the rows of
    its start switches).  Summed over nodes per switch and group.

    Parameters
    ----------
    machine : DragonflyMachine
        Routing ``"ecmp"`` or ``"valiant"``.
    group_rule : str
        The group-level rule of its routing (:func:`group_tables`).

    Returns
    -------
    int

    Raises
    ------
    InvalidInputError
        Under ``"minimal"`` routing (one path per node pair: its entries are its hops,
        :meth:`~mpitaskmap.machines.base.NodeView.hop_matrix`).

    Notes
    -----
    O(G^3 S + G^2 S^2 + n_nodes) time.

    Examples
    --------
    Nodes 0 and 17 of the Valiant example of :meth:`DragonflyMachine.routes`: 7 links each way.

    >>> from mpitaskmap.machines import DragonflyMachine
    >>> node_pair_route_entries(DragonflyMachine(3, 3, 2, [0, 17], routing="valiant"), "valiant")
    14
    """
    if machine.routing == "minimal":
        raise InvalidInputError("routing: node_pair_route_entries counts the spreading routings ('ecmp', 'valiant'); "
                                "a 'minimal' route's entries are its hops")
    G, S, n = machine.n_groups, machine.switches_per_group, machine.nodes_per_switch
    legs = _leg_entries(machine, group_rule)
    nodes = machine.node_view().nodes.astype(np.int64)
    per_switch = np.bincount(nodes // n, minlength=G * S).reshape(G, S)  # nodes on every switch
    per_group = per_switch.sum(axis=1)
    hops = _local_hop_matrix(machine).astype(np.int64)
    total = 2 * (nodes.size * nodes.size - nodes.size)  # node links of every pair of distinct nodes
    total += int(np.einsum("gs,st,gt->", per_switch, hops, per_switch))  # inside a group
    total += int(np.einsum("as,b,asb->", per_switch, per_group, legs.source))
    total += int(np.einsum("a,bt,abt->", per_group, per_switch, legs.destination))
    total += int(np.einsum("a,b,ab->", per_group, per_group, legs.group))
    return total


class _LegEntries(NamedTuple):
    """Links of each leg of a spreading routing's inter-group routes, by the leg's key (module notes): ``source``
    (a, s, b), ``destination`` (a, b, t), ``group`` (a, b); int64."""

    source: np.ndarray
    destination: np.ndarray
    group: np.ndarray


def _leg_entries(machine: Machine, group_rule: str) -> _LegEntries:
    """The links every leg of ``machine``'s spreading routing crosses (its union over the leg's paths), by key.

    A leg's count is the size of a union over its start and end switches: the green hops to
    the columns of its end switches from each start switch, the black hops to each end switch
    from the rows of its start switches.  O(G^3 S + G^2 S^2) time.
    """
    G, S, R, C = machine.n_groups, machine.switches_per_group, machine.rows, machine.columns
    tables = _cached_tables(machine, group_rule)[0]
    green_ok, black_ok = _wiring_masks(machine)

    def union(start, end):  # (..., K1, S) x (..., K2, S) switch masks -> (..., K1, K2) local hops in the union
        col_end = end.reshape(end.shape[:-1] + (R, C)).any(axis=-2).astype(np.int64)
        row_start = start.reshape(start.shape[:-1] + (R, C)).any(axis=-1).astype(np.int64)
        swap = tuple(range(end.ndim - 2)) + (end.ndim - 1, end.ndim - 2)
        return (start.astype(np.int64) @ green_ok @ col_end.transpose(swap)
                + row_start @ black_ok @ end.astype(np.int64).transpose(swap))

    eye = np.eye(S, dtype=bool)
    departs, arrives = tables.departure[0] > 0, tables.arrival[0] > 0  # (a, b, S)
    source = union(eye, departs)  # (a, s, b): from switch s of a to where a -> b leaves
    destination = union(arrives, eye)  # (a, b, t): from where a -> b reaches b to its switch t
    on = tables.leg[0] > 0  # (c, peer, S): the switches of c holding its links to the peer
    mid = union(on, on)  # (c, a, b): local hops in c from the links to a to those to b
    link_counts = np.bincount(tables.leg_links[:, 1] * G + tables.leg_links[:, 2],
                              weights=(tables.leg_shares > 0).astype(np.float64), minlength=G * G).reshape(G, G)
    first, through = tables.first > 0, tables.through > 0
    group = (np.einsum("abc,ac->ab", first, link_counts) + np.einsum("abc,cb->ab", through, link_counts)
             + np.einsum("abc,cab->ab", through, mid))
    return _LegEntries(source, destination, np.rint(group).astype(np.int64))


def route_entries(machine: Machine, group_rule: str, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Return the links of every node pair's route under a spreading routing (``"ecmp"``, ``"valiant"``), counted
    without routing: the length of :meth:`Machine.routes`' merged route of each pair.

    Parameters
    ----------
    machine : DragonflyMachine
    group_rule : str
        The group-level rule of its routing (:func:`group_tables`).
    u, v : (n,) ndarray of int64
        Node numbers (trusted).

    Returns
    -------
    (n,) ndarray of int64
        0 for a node with itself; inside a group the 2 node links and the local hops; between
        groups the 2 node links and the links of the pair's source, group and destination
        legs (module notes: disjoint sets).

    Notes
    -----
    O(G^3 S + G^2 S^2 + n) time, independent of the route lengths.

    Examples
    --------
    The Valiant example of :meth:`DragonflyMachine.routes`: node 0 to node 17, 7 links.

    >>> from mpitaskmap.machines import DragonflyMachine
    >>> m = DragonflyMachine(3, 3, 2, range(18), routing="valiant")
    >>> route_entries(m, "valiant", np.array([0, 0, 0]), np.array([17, 0, 3])).tolist()
    [7, 0, 3]
    """
    S, n = machine.switches_per_group, machine.nodes_per_switch
    a, s = np.divmod(u // n, S)
    b, t = np.divmod(v // n, S)
    out = np.where(u != v, 2, 0).astype(np.int64)
    inside = a == b
    out[inside] += _local_hop_matrix(machine).astype(np.int64)[s[inside], t[inside]]
    x = ~inside
    if x.any():
        legs = _leg_entries(machine, group_rule)
        ax, bx = a[x], b[x]
        out[x] += legs.source[ax, s[x], bx] + legs.destination[ax, bx, t[x]] + legs.group[ax, bx]
    return out
