"""The group-level routing of two-level networks: dragonflies and PERCS, one implementation for both.

ALGORITHMS.md section 8.2 (and section 5 for PERCS's own wiring).

A two-level network joins **groups** of endpoints by ``h`` **global links** between every
pair of groups: the groups of a dragonfly (:mod:`~mpitaskmap.machines.dragonfly`), the
supernodes of PERCS (:mod:`~mpitaskmap.machines.percs`, whose ``n_d`` D links per pair are
the global links).  Routing such a network is two choices: *which groups and global links*
a pair's traffic passes, with what share (:func:`group_paths`, this module), and *how the
machine's wiring* joins the endpoints to the global links inside each group (each machine's
own business: local hops to the switch holding a link on a dragonfly, L hops to the gateway
node ``j W + (c mod W)`` on PERCS).  Both machines take their group-level paths from
:func:`group_paths` and expand every row into links, so a change here changes both.

A row of :class:`GroupPaths` is one path of a pair from group ``a`` to group ``b``: the
first leg over global link ``first`` from ``a`` to ``via``, then, unless the path is
direct (``second == -1``, ``via == b``), the second leg over global link ``second`` from
``via`` to ``b``.  With ``ends=True`` ``via`` may be ``a`` or ``b`` itself; that leg is a
free self-loop which the machine skips while keeping the hops inside the group.

The rules of the machines (:data:`GROUP_ROUTINGS` with the keywords of :func:`group_paths`;
the dragonfly's table is :data:`~mpitaskmap.machines.dragonfly.DRAGONFLY_GROUP_RULE`, PERCS's
:data:`~mpitaskmap.machines.percs.routing.GROUP_RULES`):

=====================================  ====================================================
machine routing                        group-level rule
=====================================  ====================================================
dragonfly ``"ecmp"``, PERCS            ``"minimal"``: ``h`` direct paths, one per global
``"direct"``                           link, share ``1 / h``
dragonfly ``"minimal"``                ``"minimal"``, of which every node pair keeps one
                                       path (the dragonfly's static choice)
dragonfly ``"valiant"``                ``"valiant"``: every intermediate ``c`` other than
                                       ``a`` and ``b``, every (``j1``, ``j2``), share
                                       ``1 / ((G - 2) h^2)``
PERCS ``"indirect"``                   ``"valiant", ends=True, paired=True``: every
                                       supernode ``c`` (``a`` and ``b`` included), the same
                                       bucket ``j`` on both legs, share ``1 / (G h)``
=====================================  ====================================================
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import InvalidInputError

__all__ = ["GROUP_ROUTINGS", "GroupPaths", "group_paths"]

#: Group-level routing rules of :func:`group_paths` (module notes).
GROUP_ROUTINGS = ("minimal", "valiant")


class GroupPaths(NamedTuple):
    """The group-level paths of a batch of group pairs (:func:`group_paths`), one row per path.

    Attributes
    ----------
    pair : (n_paths,) ndarray of int64
        Index of the group pair in the batch.
    via : (n_paths,) ndarray of int64
        Intermediate group; the destination group on a direct path.
    first : (n_paths,) ndarray of int64
        Global link (``0 .. h - 1``) of the leg from the source group to ``via``.
    second : (n_paths,) ndarray of int64
        Global link of the leg from ``via`` to the destination group; -1 on a direct path.
    share : (n_paths,) ndarray of float64
        Share of the pair's traffic on the path (the shares of one pair sum to 1).
    """

    pair: np.ndarray
    via: np.ndarray
    first: np.ndarray
    second: np.ndarray
    share: np.ndarray


def group_paths(src_group, dst_group, n_groups: int, n_global: int, routing: str, *, ends: bool = False,
                paired: bool = False) -> GroupPaths:
    """Return the group-level paths of every pair of distinct groups: intermediate groups, global links, shares.

    The two-level routing of a dragonfly and of PERCS (whose supernodes are groups, its D
    links the global links; module notes): which groups a pair's traffic passes, over which
    of the ``n_global`` global links of each group pair, with what share.  Switches, nodes
    and the hops inside a group are the machine's business (its wiring); pairs inside one
    group have no rows.

    Parameters
    ----------
    src_group, dst_group : (n,) array_like of int
        Groups of the pairs' ends (trusted: ``0 <= g < n_groups``).
    n_groups : int
        Groups of the machine.
    n_global : int
        Global links between every pair of groups (``h``).
    routing : {"minimal", "valiant"}
        ``"minimal"``: one direct path per global link, share ``1 / h``.  ``"valiant"``:
        through every intermediate group (see ``ends``), minimal on both legs.
    ends : bool, optional
        Valiant only: count the source and destination groups as intermediates too, their
        self leg being a free self-loop the caller skips (PERCS's indirect routing);
        default False (the dragonfly's rule: ``G - 2`` intermediates).
    paired : bool, optional
        Valiant only: the second leg uses the same global link number as the first
        (PERCS's buckets), ``h`` paths per intermediate; default False: every
        (``j1``, ``j2``) combination, ``h^2`` paths per intermediate.

    Returns
    -------
    GroupPaths
        Rows ordered by pair, then intermediate group, then first and second link.

    Raises
    ------
    InvalidInputError
        On an unknown routing, or a Valiant pair without an intermediate group (two
        groups and ``ends`` False).

    Examples
    --------
    Three groups, two global links per pair: minimal spreads 0 -> 2 over both links;
    Valiant passes group 1 with every combination of links.

    >>> p = group_paths([0], [2], 3, 2, "minimal")
    >>> p.via.tolist(), p.first.tolist(), p.second.tolist(), p.share.tolist()
    ([2, 2], [0, 1], [-1, -1], [0.5, 0.5])
    >>> v = group_paths([0], [2], 3, 2, "valiant")
    >>> v.via.tolist(), v.first.tolist(), v.second.tolist(), v.share.tolist()
    ([1, 1, 1, 1], [0, 0, 1, 1], [0, 1, 0, 1], [0.25, 0.25, 0.25, 0.25])

    PERCS's indirect routing (every supernode an intermediate, bucket kept; the legs
    0 -> 0 and 1 -> 1 are the self-loops PERCS skips):

    >>> w = group_paths([0], [1], 3, 2, "valiant", ends=True, paired=True)
    >>> w.via.tolist(), w.first.tolist(), w.share.tolist()[0]
    ([0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1], 0.16666666666666666)
    """
    if routing not in GROUP_ROUTINGS:
        raise InvalidInputError(f"routing: expected one of {list(GROUP_ROUTINGS)}; got {routing!r}")
    a = np.asarray(src_group, dtype=np.int64).ravel()
    b = np.asarray(dst_group, dtype=np.int64).ravel()
    G, h = int(n_groups), int(n_global)
    inter = np.flatnonzero(a != b)
    j = np.arange(h, dtype=np.int64)
    if routing == "minimal":
        pair = np.repeat(inter, h)
        return GroupPaths(pair, b[pair], np.tile(j, inter.size), np.full(pair.size, -1, dtype=np.int64),
                          np.full(pair.size, 1.0 / h))
    groups = np.arange(G, dtype=np.int64)
    if ends:
        via = np.broadcast_to(groups, (inter.size, G))
    else:
        if inter.size and G < 3:
            raise InvalidInputError(f"routing: 'valiant' needs an intermediate group, i.e. at least 3 groups; got {G}")
        keep = (groups[None, :] != a[inter, None]) & (groups[None, :] != b[inter, None])
        via = np.broadcast_to(groups, keep.shape)[keep].reshape(inter.size, max(G - 2, 0))
    n_via = via.shape[1]
    if paired:
        first = second = np.tile(j, inter.size * n_via)
        per_via = h
    else:
        first = np.tile(np.repeat(j, h), inter.size * n_via)
        second = np.tile(j, inter.size * n_via * h)
        per_via = h * h
    pair = np.repeat(inter, n_via * per_via)
    return GroupPaths(pair, np.repeat(via.ravel(), per_via), first, second,
                      np.full(pair.size, 1.0 / (n_via * per_via)))

