"""Routes and exact link loads of the PERCS network under striped, direct and indirect routing.

Routing rules (ALGORITHMS.md section 5), for a message of volume ``w`` from node ``u``
of supernode ``a`` to node ``v`` of supernode ``b``; nodes are numbered 0..31 inside
their supernode, ``W = 32 / n_d``:

* **Striped L segment** ``u -> v`` inside one supernode (``u != v``): ``w / 8`` on each
  of the 8 paths ``u -> x -> v``, ``x`` any node of ``u``'s drawer.  A path through
  ``x = u`` or ``x = v`` uses a self-loop, which costs nothing, so the direct link
  ``u -> v`` carries ``w / 8`` (``2w / 8`` when ``v`` is in ``u``'s drawer).  A segment
  from a node to itself is free (intra-node traffic).
* **L hop** ``u -> v`` (``u != v``): the one L link ``u -> v`` carries ``w``.
* **Intra-supernode** (``a == b``): one striped segment ``u -> v``.

The choice of supernodes and buckets is the group-level routing shared with the dragonflies,
:func:`~mpitaskmap.machines.two_level.group_paths` (supernodes are its groups, the ``n_d`` D
links of a pair its global links, a bucket ``j`` its link number), called with the keywords of
:data:`GROUP_RULES`; the expansion of each group path into L hops and D links below is PERCS's
wiring:

* **Direct** (``a != b``; ``"minimal"``): ``w / n_d`` over each bucket ``j``: L hop
  ``u -> g = jW + (b mod W)`` in ``a``, the D link ``(a -> b, j)``, L hop
  ``h = jW + (a mod W) -> v`` in ``b`` (L-D-L).
* **Indirect** (``a != b``; ``"valiant", ends=True, paired=True``): ``w / (n_s n_d)`` over
  every intermediate supernode ``c`` (``a`` and ``b`` included) and bucket ``j``: L hop
  ``u -> jW + (c mod W)`` in ``a``, D link ``(a -> c, j)``, L hop ``jW + (a mod W) ->
  jW + (b mod W)`` in ``c``, D link ``(c -> b, j)``, L hop ``jW + (c mod W) -> v`` in ``b``
  (L-D-L-D-L).  When ``c`` is ``a`` or ``b`` one D link is the conventional self-loop
  (free); the route keeps its three L hops.  (The kernel expands any group path the same
  way, two buckets ``j1``, ``j2`` on the two legs included.)

**Models** (:data:`MODELS`) differ only in how L segments use the L links (D loads are the
same in all three):

* ``"paper"`` (default): each L hop of an L-D-L or L-D-L-D-L route is the single L link
  between its two nodes; only intra-supernode messages are striped.  This is the model
  of Chakaravarthy et al. (ALGORITHMS.md section 5: striping is stated for
  intra-supernode transfers, the inter-supernode route is the path L-D-L); it
  reproduces the published table cells we have (mod-colouring 107 GB/s, LR-bound, at
  n_s = 32, n_d = 8; supernode blocking still D-bound at 160 GB/s for n_d = 16) but
  makes mod-colouring LR-bound below the 20 n_d of the paper's text for n_d <= 4
  (``benchmarks/percs_study.py`` lists every cell).
* ``"uniform"``: every intra-supernode message and every L hop is spread evenly over
  the 32 two-hop paths ``u -> x -> v``, ``x`` any node of the supernode, so the link
  ``y -> z`` carries ``(R(y) + C(z)) / 32`` (all segment volume leaving ``y`` plus all
  entering ``z``).  Not the paper's stated rule; kept because it is the one L model we
  found under which mod-colouring gives the paper's text (20 n_d GB/s, D-bound, for
  n_d <= 4) *and* its Table I cell (106.7, LR-bound, at n_d = 8) -- at the price of
  supernode blocking at n_d = 16 (128 instead of the paper's 160).
* ``"striped"``: every L hop is itself a striped segment over the 8 nodes of its
  source's drawer (the model before issue 16).  It assumes the hardware stripes every
  L hop the way the paper stripes intra-supernode transfers -- our reading, not the
  paper's; it moves load from the LR links into a gateway node onto the LL links of the
  source drawer (mod-colouring at n_d = 8 becomes LL-bound at 137.8 GB/s instead of
  LR-bound at 106.7 GB/s) and keeps mod-colouring D-bound (20 n_d) up to n_d = 4.

**Routes** (behind :meth:`PercsMachine.routes
<mpitaskmap.machines.percs.PercsMachine.routes>`) list, for a node pair, every link its paths
cross with the share of the message it carries: the shares of one link summed over the paths
(a link appears once per route), self-loops left out: the group paths of every supernode pair
from :func:`~mpitaskmap.machines.two_level.group_paths`, expanded into links by the compiled
kernel :mod:`mpitaskmap._percs`, which the message count below shares.

**Link loads** (the fast path of :meth:`PercsMachine.link_loads
<mpitaskmap.machines.percs.PercsMachine.link_loads>`, equal to the loads the routes give):
Data(e) is linear in the traffic, so it is computed from aggregated demands (node to node
inside each supernode, node to supernode across) and the closed form of striping: the link
``y -> z`` of supernode ``s`` carries ``R(y) / 8`` (when ``z`` is in ``y``'s drawer;
``R(y)`` = all segment volume leaving ``y``) plus ``C(drawer(y), z) / 8`` (``C`` = segment
volume from ``y``'s drawer to ``z``); L hops add their demand to their one link.
Congestion(e) counts a message once on every link any of its paths crosses; it is not
linear and is counted by the compiled kernel over distinct node pairs (direct routing along
the group paths, as the routes; under indirect routing per residue class of the intermediate
supernodes).  The closed forms are those of the two rules of :data:`GROUP_RULES`; the tests
check them equal to the loads of the routes, which follow
:func:`~mpitaskmap.machines.two_level.group_paths`, so a change of the group-level routing
that they do not follow fails there.
"""

from __future__ import annotations

import numpy as np

from ... import _percs
from ...errors import InvalidInputError
from .. import two_level
from ..links import Routes
from .network import NODES_PER_DRAWER, NODES_PER_SUPERNODE, PROCS_PER_NODE, check_network

__all__ = ["ROUTINGS", "GROUP_RULES", "MODELS", "check_routing", "check_model", "compact_index"]

ROUTINGS = ("direct", "indirect")
#: The group-level rule of every routing of :data:`ROUTINGS`: the keywords of
#: :func:`~mpitaskmap.machines.two_level.group_paths` (module notes).  PERCS keeps its own
#: names; the shared function keeps the dragonfly's.
GROUP_RULES = {"direct": {"routing": "minimal"}, "indirect": {"routing": "valiant", "ends": True, "paired": True}}
#: L-link models (see the module notes); "paper" is the default.
MODELS = ("paper", "striped", "uniform")
_MODEL_CODE = {"paper": 0, "striped": 1, "uniform": 2}  # the kernel's mode argument
_N = NODES_PER_SUPERNODE


def compact_index(n_s: int, n_d: int) -> np.ndarray:
    """Return the full-numbering slot of every link of the compact numbering.

    The full numbering (used internally and by the kernel) has a slot per ordered node
    pair ``s * 1024 + y * 32 + z`` and per ``(a, j, b)`` D triple
    ``n_s * 1024 + (a * n_d + j) * n_s + b``, self-loops included; the compact numbering
    of :mod:`mpitaskmap.machines.percs.network` drops the self-loops.

    Examples
    --------
    >>> idx = compact_index(2, 1)
    >>> idx.size, idx[:3].tolist(), idx[-1].item()
    (1986, [1, 2, 3], 2050)
    """
    n_s, n_d = check_network(n_s, n_d)
    y, z = np.divmod(np.arange(_N * _N), _N)
    l_slots = np.flatnonzero(y != z)
    l_all = (np.arange(n_s)[:, None] * (_N * _N) + l_slots[None, :]).ravel()
    a, rest = np.divmod(np.arange(n_s * n_d * n_s), n_d * n_s)
    b = rest % n_s
    d_all = n_s * _N * _N + np.flatnonzero(a != b)
    return np.concatenate([l_all, d_all]).astype(np.int64)


def _bincount(keys, weights, minlength):
    """``np.bincount`` that always returns float64 (it returns int64 for empty input)."""
    return np.bincount(keys, weights=weights, minlength=minlength).astype(np.float64, copy=False)


def _stripe(demand: np.ndarray) -> np.ndarray:
    """Striped loads (n_s, 32, 32) of the L links from segment demands (n_s, 32, 32)."""
    dem = demand.copy()
    idx = np.arange(_N)
    dem[:, idx, idx] = 0.0  # segments from a node to itself are free
    drawer = idx // NODES_PER_DRAWER
    same = (drawer[:, None] == drawer[None, :]).astype(np.float64)
    out_of = dem.sum(axis=2)  # R(y)
    into = dem.reshape(dem.shape[0], _N // NODES_PER_DRAWER, NODES_PER_DRAWER, _N).sum(axis=2)  # C(d, z)
    load = (same[None, :, :] * out_of[:, :, None] + into[:, drawer, :]) / NODES_PER_DRAWER
    load[:, idx, idx] = 0.0
    return load


def check_model(model: str) -> str:
    """Return ``model`` if it is one of :data:`MODELS`; raise ``ValueError`` naming the valid ones."""
    if model not in MODELS:
        raise ValueError(f"model: unknown {model!r}; valid: {sorted(MODELS)}")
    return model


def check_routing(routing: str) -> str:
    """Return ``routing`` if it is one of :data:`ROUTINGS`; raise ``ValueError`` naming the valid ones."""
    if routing not in ROUTINGS:
        raise ValueError(f"routing: unknown {routing!r}; valid: {sorted(ROUTINGS)}")
    return routing


def _spread(demand: np.ndarray) -> np.ndarray:
    """Loads (n_s, 32, 32) of segments spread over all 32 two-hop paths: ``(R(y) + C(z)) / 32``."""
    dem = demand.copy()
    idx = np.arange(_N)
    dem[:, idx, idx] = 0.0
    load = (dem.sum(axis=2)[:, :, None] + dem.sum(axis=1)[:, None, :]) / _N
    load[:, idx, idx] = 0.0
    return load


def _hop_loads(demand: np.ndarray) -> np.ndarray:
    """Loads (n_s, 32, 32) of L hops: each demand on its one link, node-to-itself hops free."""
    load = demand.copy()
    idx = np.arange(_N)
    load[:, idx, idx] = 0.0
    return load


def _full_to_compact(n_s: int, n_d: int) -> np.ndarray:
    """Compact link id of every slot of the full numbering (-1 for the self-loop slots)."""
    comp = compact_index(n_s, n_d)
    out = np.full(n_s * _N * _N + n_s * n_d * n_s, -1, dtype=np.int64)
    out[comp] = np.arange(comp.size, dtype=np.int64)
    return out


def _i64(x) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.int64)


def _group_table(a: np.ndarray, b: np.ndarray, n_s: int, n_d: int, routing: str) -> tuple[np.ndarray, ...]:
    """The group-path table of the kernel for pairs between supernodes ``a[i]`` and ``b[i]``.

    Calls :func:`~mpitaskmap.machines.two_level.group_paths` once per distinct supernode pair
    (looked up in its module at every call, so the routing is the shared one) and returns
    ``(grp, gptr, via, first, second, share)``: pair ``i``'s paths are rows ``gptr[grp[i]]``
    to ``gptr[grp[i] + 1]``.  The rows are checked against what the kernel's wiring can
    expand (it writes link slots from them).

    Raises
    ------
    InvalidInputError
        On a group path the PERCS wiring cannot expand, naming the row and its values.
    """
    sn_pairs, grp = np.unique(a * n_s + b, return_inverse=True)
    ua, ub = np.divmod(sn_pairs, n_s)
    gp = two_level.group_paths(ua, ub, n_s, n_d, **GROUP_RULES[routing])
    pair, via, first, second = (_i64(x) for x in (gp.pair, gp.via, gp.first, gp.second))
    share = np.ascontiguousarray(gp.share, dtype=np.float64)
    direct = second < 0
    fine = pair.size == 0 or (
        pair[0] >= 0 and pair[-1] < sn_pairs.size and bool((pair[1:] >= pair[:-1]).all())
        and via.min() >= 0 and via.max() < n_s and first.min() >= 0 and first.max() < n_d and second.min() >= -1
        and second.max() < n_d and bool((via[direct] == ub[pair[direct]]).all())
        and share.min() > 0 and bool(np.isfinite(share).all()))
    if not fine:  # locate the first row at fault (the check above is the fast path)
        bad = ((pair < 0) | (pair >= sn_pairs.size) | (via < 0) | (via >= n_s) | (first < 0) | (first >= n_d)
               | (second < -1) | (second >= n_d) | ~(share > 0) | ~np.isfinite(share))
        bad[1:] |= pair[1:] < pair[:-1]
        ok = ~bad & direct
        bad[ok] |= via[ok] != ub[pair[ok]]
        i = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"group_paths: row {i} cannot be routed on PERCS(n_s={n_s}, n_d={n_d}) (rows by pair, 0 <= via < n_s, "
            f"0 <= first < n_d, -1 <= second < n_d, via the destination on a direct path, share > 0); got "
            f"pair={pair[i]}, via={via[i]}, first={first[i]}, second={second[i]}, share={share[i]}")
    gptr = np.zeros(sn_pairs.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair, minlength=sn_pairs.size), out=gptr[1:])
    return _i64(grp), gptr, via, first, second, share


def _node_routes(gp, gq, n_s: int, n_d: int, routing: str, model: str) -> Routes:
    """Routes (compact link ids) from node ``gp[i]`` to node ``gq[i]`` (node ids ``p // 4``), trusted input.

    Every link any path of the pair crosses, once, with the share of the message it
    carries (module notes), in the order the paths first reach it; an empty route between
    a node and itself.  The supernode-level paths come from :func:`_group_table` (the
    shared :func:`~mpitaskmap.machines.two_level.group_paths`), the kernel expands them.
    O(route entries) time and memory, two passes of the kernel (size, fill); about
    35 n_s n_d link visits per inter-supernode pair under indirect routing, plus
    O(n_s n_d) table rows per distinct supernode pair.
    """
    a, u = np.divmod(_i64(gp), _N)
    b, v = np.divmod(_i64(gq), _N)
    a, u, b, v = _i64(a), _i64(u), _i64(b), _i64(v)
    n_full = n_s * _N * _N + n_s * n_d * n_s
    stamp = np.zeros(n_full, dtype=np.int64)
    pos = np.zeros(n_full, dtype=np.int64)
    indptr = np.zeros(a.size + 1, dtype=np.int64)
    args = (a, u, b, v, *_group_table(a, b, n_s, n_d, routing), n_s, n_d, _MODEL_CODE[model], stamp, pos)
    nxt = _percs.pair_routes(*args, 1, indptr, np.empty(0, dtype=np.int64), np.empty(0))
    links = np.empty(int(indptr[-1]), dtype=np.int64)
    fractions = np.empty(links.size, dtype=np.float64)
    _percs.pair_routes(*args, nxt, indptr, links, fractions)
    return Routes(indptr, _full_to_compact(n_s, n_d)[links], fractions)


def _aggregate_loads(indptr, indices, weights, task_to_proc, n_s: int, n_d: int, routing: str,
                     model: str) -> tuple[np.ndarray, np.ndarray]:
    """Data(e) (float64) and Congestion(e) (int64) of every compact link for a CSR task graph.

    The fast path of :meth:`PercsMachine.link_loads
    <mpitaskmap.machines.percs.PercsMachine.link_loads>` (inputs trusted): Data(e) from the
    aggregated demands and the closed forms of the module notes, Congestion(e) from the
    kernel over distinct node pairs (and, under indirect routing, residue classes).

    Notes
    -----
    O(n_edges log n_edges + n_s * 1024 + n_s^2 * n_d) for the data; the message count
    costs O(pairs * 17 * n_d) (direct) or O(pairs * 32 * n_d * W) (indirect) plus
    O(n_s * W^2 * 16 * n_d) in the compiled kernel, ``pairs`` being the distinct
    communicating node pairs.  Memory: a few arrays of ``n_s * 1024 + n_s^2 * n_d`` entries.
    """
    W = _N // n_d
    indptr = np.asarray(indptr)
    src_task = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr))
    ttp = np.asarray(task_to_proc, dtype=np.int64)
    gp = ttp[src_task] // PROCS_PER_NODE
    gq = ttp[np.asarray(indices)] // PROCS_PER_NODE
    w = np.asarray(weights, dtype=np.float64)
    keep = gp != gq
    gp, gq, w = gp[keep], gq[keep], w[keep]
    a, u = np.divmod(gp, _N)
    b, v = np.divmod(gq, _N)
    intra = a == b
    inter = ~intra
    demand = _bincount(
        a[intra] * _N * _N + u[intra] * _N + v[intra], w[intra], minlength=n_s * _N * _N
    ).reshape(n_s, _N, _N)
    hops = np.zeros_like(demand)  # L hops of inter-supernode routes
    ai, ui, bi, vi, wi = a[inter], u[inter], b[inter], v[inter], w[inter]
    t_sn = _bincount(ai * n_s + bi, wi, minlength=n_s * n_s).reshape(n_s, n_s)
    d_full = np.zeros((n_s, n_d, n_s))
    if routing == "direct":
        to_res = _bincount((ai * _N + ui) * W + bi % W, wi, minlength=n_s * _N * W)
        hops.reshape(n_s, _N, n_d, W)[...] += to_res.reshape(n_s, _N, 1, W) / n_d
        from_res = _bincount((bi * W + ai % W) * _N + vi, wi, minlength=n_s * W * _N)
        hops.reshape(n_s, n_d, W, _N)[...] += from_res.reshape(n_s, 1, W, _N) / n_d
        d_full += t_sn[:, None, :] / n_d
    else:
        share = 1.0 / (n_s * n_d)
        cnt = np.bincount(np.arange(n_s) % W, minlength=W).astype(np.float64)  # intermediates per residue
        out_node = _bincount(ai * _N + ui, wi, minlength=n_s * _N).reshape(n_s, _N)
        in_node = _bincount(bi * _N + vi, wi, minlength=n_s * _N).reshape(n_s, _N)
        hops.reshape(n_s, _N, n_d, W)[...] += out_node[:, :, None, None] * cnt[None, None, None, :] * share
        hops.reshape(n_s, n_d, W, _N)[...] += cnt[None, None, :, None] * in_node[:, None, None, :] * share
        res = np.arange(n_s) % W
        mm = np.zeros((W, W))
        np.add.at(mm, (res[:, None], res[None, :]), t_sn)
        mid = np.zeros((n_d, W, n_d, W))
        for j in range(n_d):
            mid[j, :, j, :] = mm * share
        hops += mid.reshape(1, _N, _N)
        out_sn, in_sn = t_sn.sum(axis=1), t_sn.sum(axis=0)
        d_full += (out_sn[:, None, None] + in_sn[None, None, :]) * share
    if model == "paper":
        l_load = _stripe(demand) + _hop_loads(hops)
    elif model == "striped":
        l_load = _stripe(demand + hops)
    else:
        l_load = _spread(demand + hops)
    full_data = np.concatenate([l_load.ravel(), d_full.ravel()])

    # Congestion(e): distinct node pairs with multiplicity, counted by the kernel.
    n_full = full_data.size
    msg = np.zeros(n_full, dtype=np.int64)
    stamp = np.zeros(n_full, dtype=np.int64)
    key = gp * (n_s * _N) + gq
    pairs, mult = np.unique(key, return_counts=True)
    pu, pv = np.divmod(pairs, n_s * _N)
    psa, pu = np.divmod(pu, _N)
    psb, pv = np.divmod(pv, _N)
    by_residue = routing == "indirect"  # the residue closed form of the indirect rule; direct along the group paths
    psa, psb = _i64(psa), _i64(psb)
    table = ((_i64([]),) * 5 + (np.empty(0),) if by_residue  # inter pairs do not read the table
             else _group_table(psa, psb, n_s, n_d, routing))
    nxt = _percs.pair_messages(
        psa, _i64(pu), psb, _i64(pv), _i64(mult), *table, n_s, n_d, by_residue, _MODEL_CODE[model], msg, stamp, 1
    )
    if routing == "indirect" and inter.any():
        m_sn = np.bincount(ai * n_s + bi, minlength=n_s * n_s).reshape(n_s, n_s)
        res = np.arange(n_s) % W
        n_cls = np.zeros((W, W), dtype=np.int64)
        np.add.at(n_cls, (res[:, None], res[None, :]), m_sn)
        from_c = np.zeros((n_s, W), dtype=np.int64)  # messages leaving c, by destination residue
        np.add.at(from_c, (np.arange(n_s)[:, None], res[None, :]), m_sn)
        into_c = np.zeros((n_s, W), dtype=np.int64)  # messages entering c, by source residue
        np.add.at(into_c, (np.arange(n_s)[:, None], res[None, :]), m_sn.T)
        nc = np.broadcast_to(n_cls, (n_s, W, W)).copy()
        nc[np.arange(n_s), res, :] -= from_c
        nc[np.arange(n_s), :, res] -= into_c
        _percs.class_messages(np.ascontiguousarray(nc), n_d, _MODEL_CODE[model], msg, stamp, nxt)
        out_m, in_m = m_sn.sum(axis=1), m_sn.sum(axis=0)
        d_msg = out_m[:, None, None] + in_m[None, None, :] - m_sn[:, None, :]
        msg[n_s * _N * _N:] += np.broadcast_to(d_msg, (n_s, n_d, n_s)).ravel()
    comp = compact_index(n_s, n_d)
    return full_data[comp], msg[comp]
