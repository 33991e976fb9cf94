"""SimGrid platforms from the machine model, and SMPI runs on them.

This module is the one place of the library that knows SimGrid's platform format
(``platform.dtd`` version 4.1, as read by SimGrid 3.32).  :func:`platform_xml` turns a
:class:`~mpitaskmap.machines.Machine` into a platform on which ``smpirun`` runs an MPI
program (the hostfile comes from :func:`mpitaskmap.mapfiles.write_smpi_hostfile`) and on
which :mod:`mpitaskmap.sim.simgrid_replay` replays a task graph's exchange.  SimGrid itself is
optional: nothing here imports it, and the library maps without it.

Hosts
-----
One SimGrid host per *node* of the machine, named as the map files name it
(:func:`mpitaskmap.mapfiles.host_names`, default ``"nid%05d"``), so one allocation has one
set of host names in the platform, the SMPI hostfile, the Slurm host list and the Open MPI
rankfile.  A host has as many cores as its node has processors.

Two forms
---------
``"cluster"`` -- SimGrid's own ``<cluster topology="TORUS">`` element for a machine whose
    routers sit on a torus grid (:attr:`~mpitaskmap.machines.Machine.has_router_grid`,
    routed dimension by dimension), its ``<cluster topology="FAT_TREE">`` for a regular fat
    tree (below), or a flat ``<cluster>`` for a machine without network
    links (:attr:`~mpitaskmap.machines.Machine.has_link_model` False: a
    :class:`~mpitaskmap.machines.FlatMachine`).  Chosen by ``form="auto"`` when SimGrid
    can say the same thing in one element: every dimension wraps, every link has one
    bandwidth, one node per router with node id = router id (host ``i`` sits at router
    ``i``, dimension 0 fastest, as in SimGrid), no ``node_link``, and host names of the
    form ``PREFIX%dSUFFIX`` (``hosts="n%d"``; a cluster cannot zero-pad, so the default
    ``"nid%05d"`` gives the explicit form).  SimGrid then routes dimension by dimension
    the shorter way round; on an even-length dimension its tie-break for the two equally
    short ways may differ from ours (same hop count, same time on a uniform torus).
    Routers without an allocated node are hosts too.

    SimGrid's ``<cluster topology="FAT_TREE">`` for a regular fat tree (a machine with
    ``down_links``, ``up_links`` and ``routing``, as
    :meth:`~mpitaskmap.machines.FatTreeMachine.regular` builds it), chosen by ``form="auto"``
    when it says the same as the explicit form: d-mod-k routing, every link of every level
    one bandwidth (a taper by fewer up-links, not by slower ones), no ``node_link``, no
    ``node_pairs`` and ``PREFIX%dSUFFIX`` host names.  ``topo_parameters`` is
    ``h;m_1,...,m_h;w_1,...,w_h;1,...,1`` (levels; down-links of a level-``l`` switch;
    parents of an element of level ``l - 1``; one cable per parent/child pair), e.g.
    ``2;16,32;1,4;1,1`` for 32 leaves of 16 nodes with 4 up-links each (4:1).  SimGrid
    numbers the hosts of the cluster in radical order and labels host ``k`` with the digits
    of ``k`` in the mixed radix ``m_1, m_2, ...`` (lowest level fastest), which is our tree
    node numbering: the cluster's radical is ``0 .. prod(m) - 1`` and host ``k`` is tree node
    ``k`` (every node of the tree is a host, allocated or not: SimGrid needs them all; the
    job's ranks sit on the allocated ones through the hostfile).  SimGrid's up-port at level
    ``l`` is ``(k_dst // (w_1 ... w_l)) mod w_{l+1}`` and its down path the unique one, links
    split up/down (``SPLITDUPLEX``, the DTD's default, written out): link for link the
    routes of the machine's ``"dmodk"`` rule (``tests/sim/test_simgrid_fattree.py`` reads
    SimGrid's routes back and compares every pair).  An ``"ecmp"`` tree splits a pair's
    traffic over its up-paths, which no SimGrid route can say: both forms refuse it (the
    message names the pair; ``machine.with_routing("dmodk")`` is the same tree as SimGrid's
    FAT_TREE routes it, :func:`mpitaskmap.sim.fluid.fluid_exchange` replays ECMP).  A tree
    with per-level or per-switch bandwidths, or an irregular one (Slurm's), gets the
    explicit form.

``"explicit"`` -- one ``Full``-routing zone written from the machine's network contract,
    for any machine: a host per node, a link per *directed* network link that some route
    crosses (its bandwidth is the machine's,
    :meth:`~mpitaskmap.machines.Machine.link_bandwidths`, so per-dimension and
    per-position bandwidths such as Gemini's are kept; a mesh has no wrap links), named
    :meth:`~mpitaskmap.machines.Machine.link_name` (``l<id>_<class>``, e.g. ``l14_Y-`` on a
    torus: :func:`torus_link_id` reads the id back), and for every ordered pair of nodes
    the route :meth:`~mpitaskmap.machines.Machine.routes` gives, link for link.  A SimGrid
    route is one path, so a machine whose routes split a pair's traffic over several
    paths (a fraction below 1: PERCS striping, ECMP) is refused for the pairs that split
    (``node_pairs`` of single-path pairs still work; :func:`mpitaskmap.sim.fluid.fluid_exchange`
    replays split routes) -- unless the machine names one path per pair for simulators like
    SimGrid (``single_path_routes``: dragonflies, below).  With ``node_link=(bandwidth,
    latency)`` every host also has an injection link ``<host>_up`` and an ejection link ``<host>_down`` at either end of its
    routes; a machine without network links has only these (``node_link`` defaults to
    (1.0, ``link_latency``) there).  Without node links, hosts of one router
    (:meth:`~mpitaskmap.machines.Machine.router_ids`) talk through a per-router crossbar
    link ``r<router>_xbar`` (loopback bandwidth and latency), since SimGrid forbids empty
    routes.  Every host has a ``<host>_loopback`` link for messages inside the node, FATPIPE
    as the loopbacks of SimGrid's own clusters (each message alone at its bandwidth).  The
    route table grows as ``n_nodes ** 2``; pass ``node_pairs`` to declare only the routes a
    simulation uses.

    **Dragonflies** (:class:`~mpitaskmap.machines.DragonflyMachine`, Slingshot or Aries, of
    any shape: SimGrid's own ``DRAGONFLY`` cluster cannot express Slingshot-sized
    all-to-all groups, ``h`` global links per group pair on different switches, or per-class
    bandwidths) get the explicit form: a host per allocated node, the machine's node links
    (``node 5 up``/``down``), local (``local``, or ``green`` and ``black``) and global links
    (``global g0->g2 #1``) at their class bandwidths, and every pair's route link for link
    from :meth:`~mpitaskmap.machines.DragonflyMachine.single_path_routes`.  With one global
    link per pair of groups (``global_links=1``) these are the machine's minimal routes
    exactly; with ``h > 1`` the machine's minimal routing splits every pair's traffic evenly
    over the ``h`` global links between its groups, which no SimGrid route can say, so each
    pair takes one of those ``h`` paths, the one over link ``(u + v) mod h`` (``u``, ``v``
    the node numbers): the pairs of two groups spread over their links as a hashed
    minimal routing spreads them, not each pair over all.  A Valiant-routed machine is
    written with these minimal routes too (a warning is logged): SMPI runs on a dragonfly
    use minimal routes, while the replay of :func:`mpitaskmap.sim.fluid.fluid_exchange` and
    the objective follow the machine's Valiant spreading.

Units: the machine's bandwidth numbers are read in ``bandwidth_unit`` (default GB/s,
10^9 bytes/s, as the Gemini figures are); ``link_latency`` is in seconds per link.

Running SMPI
------------
:func:`smpirun` runs ``smpirun -np N -platform P -hostfile H program args`` with
:data:`SMPI_DETERMINISTIC` (``smpi/simulate-computation:no``: communication-only timings,
independent of this machine's load) and returns the completed process.
:data:`SMPI_UNIT_FACTORS` sets SMPI's latency and bandwidth correction factors to 1 and
turns off cross-traffic, so one message of ``B`` bytes over one link takes ``L + B / W``
(plus SMPI's own few tens of nanoseconds per message: 24 ns over a 1 GB/s link, measured).
Fortran codes build with ``smpif90``, which names object files only for ``.f90``/``.F90``
sources.
:func:`simgrid_missing` tells why SimGrid cannot be used here (``None`` when it can):
install it with ``apt-get install libsimgrid-dev`` (Debian's SimGrid 3.32, which brings
``smpicc``, ``smpicxx``, ``smpif90``, ``smpirun``, the headers and ``libsimgrid``; add
``gfortran`` for Fortran codes).

Examples
--------
>>> from mpitaskmap.machines.torus.presets import torus_machine
>>> xml = platform_xml(torus_machine([4, 4]), link_latency=1e-6, hosts="n%d")
>>> 'topology="TORUS"' in xml and 'topo_parameters="4,4"' in xml
True
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
from typing import Sequence
from xml.sax.saxutils import quoteattr

import numpy as np

from ..errors import InvalidInputError
from .params import BANDWIDTH_UNITS, DEFAULT_LOOPBACK, platform_parameters
from ..machines import Machine, as_machine
from ..machines.hosts import host_names

__all__ = [
    "platform_xml",
    "torus_link_id",
    "BANDWIDTH_UNITS",
    "DEFAULT_LOOPBACK",
    "MAX_ALL_PAIRS_NODES",
    "SMPI_DETERMINISTIC",
    "SMPI_UNIT_FACTORS",
    "simgrid_missing",
    "smpirun",
]

#: Largest node count for which the explicit form declares the route of every node pair
#: (511,756 routes at this size); beyond it pass ``node_pairs`` or use the cluster form.
MAX_ALL_PAIRS_NODES = 1024

#: smpirun configuration for deterministic, communication-only timings.
SMPI_DETERMINISTIC = ("smpi/simulate-computation:no",)

#: smpirun configuration that makes a message of B bytes over one link take L + B / W:
#: SMPI's latency and bandwidth factors set to 1 for every size, no cross-traffic.
SMPI_UNIT_FACTORS = ("smpi/bw-factor:0:1", "smpi/lat-factor:0:1", "network/crosstraffic:0")

_HEADER = (
    "<?xml version='1.0'?>\n"
    '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
    '<platform version="4.1">\n'
)
_FOOTER = "</platform>\n"

_log = logging.getLogger(__name__)

#: Node pairs routed per call of :meth:`Machine.routes` while writing the explicit form (bounds
#: the memory of one batch to a few MB of route entries).
_ROUTE_BATCH = 1 << 16


def _fmt_bw(bytes_per_s: float) -> str:
    return f"{float(bytes_per_s)!r}Bps"


def _fmt_lat(seconds: float) -> str:
    return f"{float(seconds)!r}s"


def _cluster_naming(hosts) -> tuple[str, str] | None:
    """Return (prefix, suffix) when ``hosts`` names node k as prefix + str(k) + suffix."""
    if not isinstance(hosts, str):
        return None
    m = re.fullmatch(r"([^%]*)%[di]([^%]*)", hosts)
    return (m.group(1), m.group(2)) if m else None


def _radical(ids: Sequence[int]) -> str:
    """SimGrid radical of sorted distinct ints: '0-3,7,9-10'."""
    parts = []
    ids = list(ids)
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return ",".join(parts)


def torus_link_id(name: str) -> int:
    """Return the :class:`~mpitaskmap.machines.LinkLoads` link id of an explicit torus link name.

    Parameters
    ----------
    name : str
        A link name of the explicit form of :func:`platform_xml` (``"l<id>_<dim><sign>"``).

    Returns
    -------
    int
        The directed link id, or -1 for any other link (node, crossbar, loopback links,
        and the links of SimGrid's cluster form).

    Examples
    --------
    >>> torus_link_id("l14_Y-"), torus_link_id("nid00003_up")
    (14, -1)
    """
    m = re.fullmatch(r"l(\d+)_\w+[+-]", name)
    return int(m.group(1)) if m else -1


def _pairs(nodes: np.ndarray, node_pairs) -> np.ndarray:
    """Ordered pairs of distinct nodes whose routes are declared, (k, 2) int64, sorted."""
    if node_pairs is None:
        if nodes.size > MAX_ALL_PAIRS_NODES:
            raise InvalidInputError(
                f"machine: the explicit form declares a route for every pair of its {nodes.size} nodes, "
                f"more than MAX_ALL_PAIRS_NODES={MAX_ALL_PAIRS_NODES}; pass node_pairs with the pairs "
                "that communicate, or use the cluster form (hosts='n%d' on a uniform torus)"
            )
        a, b = np.meshgrid(nodes, nodes, indexing="ij")
        pairs = np.stack([a.ravel(), b.ravel()], axis=1)
    else:
        pairs = np.asarray(node_pairs)
        if pairs.size == 0:
            return np.zeros((0, 2), dtype=np.int64)
        if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.dtype.kind not in "iu":
            raise InvalidInputError(
                f"node_pairs: expected a (k, 2) integer array of node ids; got shape {pairs.shape}, dtype {pairs.dtype}"
            )
        known = np.isin(pairs, nodes)
        if not known.all():
            i, j = (int(v) for v in np.argwhere(~known)[0])
            raise InvalidInputError(f"node_pairs: row {i} names node {int(pairs[i, j])}, not a node of the machine")
    pairs = np.unique(pairs.astype(np.int64), axis=0)
    return pairs[pairs[:, 0] != pairs[:, 1]]


def platform_xml(
    machine: Machine,
    *,
    link_latency: float,
    node_link: tuple[float, float] | None = None,
    hosts=None,
    bandwidth_unit: str = "GBps",
    host_speed: str = "1Gf",
    loopback: tuple[float, float] = DEFAULT_LOOPBACK,
    node_pairs=None,
    form: str = "auto",
) -> str:
    """Return a SimGrid platform (XML text) for ``machine``.

    Parameters
    ----------
    machine : Machine
        The allocation, of any kind: its links and routes (the network contract) become the
        platform's (tori and meshes of any number of dimensions with per-dimension or
        per-position bandwidths: the simulated Titan, BG/Q blocks, laptop tori; any kind
        with single-path routes; dragonflies of any shape and routing, on one minimal path
        per pair: module notes), and a machine without network links (the flat host-name
        machine) gets node links only.
    link_latency : float
        Latency of every network link, in seconds (the per-hop latency).
    node_link : (float, float), optional
        (bandwidth in ``bandwidth_unit``, latency in s) of the link between a node and
        its router, one each way.  None (default): a node sits at its router with no link
        of its own; on a machine without network links (1.0, ``link_latency``), its only
        links.
    hosts : None, str or sequence of str, optional
        Host names of the nodes as for the map files
        (:func:`mpitaskmap.mapfiles.host_names`; default ``"nid%05d"``).
    bandwidth_unit : str, optional
        Unit of the machine's bandwidth numbers, a key of :data:`BANDWIDTH_UNITS`
        (default ``"GBps"``).
    host_speed : str, optional
        Speed of every core in SimGrid's syntax (default ``"1Gf"``; irrelevant with
        ``smpi/simulate-computation:no``).
    loopback : (float, float), optional
        (bandwidth in ``bandwidth_unit``, latency in s) of messages inside one node and,
        without ``node_link``, between the nodes of one router (default
        :data:`DEFAULT_LOOPBACK`).
    node_pairs : (k, 2) array_like of int, optional
        Explicit form only: the ordered (source node id, destination node id) pairs whose
        routes are declared, and only the nodes they name become hosts (default every
        node and every pair, at most :data:`MAX_ALL_PAIRS_NODES` nodes).
    form : {"auto", "cluster", "explicit"}, optional
        Platform form (see the module notes); ``"auto"`` takes the cluster form when it
        says the same as the explicit one.

    Returns
    -------
    str
        The platform, ready to write to a ``.xml`` file.

    Raises
    ------
    InvalidInputError
        On a non-machine, a route SimGrid cannot express (one that splits a pair's traffic,
        naming the pair), a link name that is no SimGrid id, a bad latency, bandwidth,
        unit, form or pair, ``form="cluster"`` where the cluster form does not apply
        (naming the condition), or too many nodes for all-pairs routes.

    Notes
    -----
    Explicit form: O(n_pairs * route length) time and output size, the routes computed
    by :meth:`Machine.routes` in batches of ``2**16`` pairs.  Cluster form: O(1) output
    (O(n_nodes) for a flat machine's radical list).
    """
    return _platform(machine, link_latency=link_latency, node_link=node_link, hosts=hosts,
                     bandwidth_unit=bandwidth_unit, host_speed=host_speed, loopback=loopback, node_pairs=node_pairs,
                     form=form)[0]


def _platform(machine, *, link_latency, node_link, hosts, bandwidth_unit, host_speed, loopback, node_pairs,
              form) -> tuple[str, dict]:
    """:func:`platform_xml`, and the machine's link id of every network link it declares, by SimGrid name."""
    as_machine(machine)
    if form not in ("auto", "cluster", "explicit"):
        raise InvalidInputError(f"form: unknown platform form {form!r}; valid: ['auto', 'cluster', 'explicit']")
    unit, lat, loop, node_link = platform_parameters(link_latency, bandwidth_unit, loopback, node_link)
    if not isinstance(host_speed, str) or not re.fullmatch(r"[0-9.eE+-]+[kMGTPE]?f", host_speed):
        raise InvalidInputError(f"host_speed: expected a SimGrid speed like '1Gf'; got {host_speed!r}")
    names = host_names(machine, hosts)
    view = machine.node_view()
    nodes, first, counts = view.nodes, view.representative, view.capacity

    tree = machine.fat_tree_shape() if machine.has_link_model else None
    if tree is not None:
        why_not = _fat_tree_cluster_obstacle(machine, hosts, node_link, node_pairs)
    elif machine.has_link_model:
        why_not = _torus_cluster_obstacle(machine, hosts, node_link, node_pairs)
    else:  # node links are the only links
        node_link = node_link if node_link is not None else (1.0, lat)
        why_not = _flat_cluster_obstacle(hosts, node_pairs)
    if form == "cluster" and why_not:
        raise InvalidInputError(f"form: the cluster form does not apply: {why_not}")
    if form != "explicit" and not why_not:
        if tree is not None:
            return _fat_tree_cluster(machine, tree, hosts, int(counts.max()), lat, unit, host_speed, loop), {}
        if machine.has_link_model:
            return _torus_cluster(machine, hosts, int(counts.max()), lat, unit, host_speed, loop), {}
        return _flat_cluster(hosts, nodes, counts, node_link, unit, host_speed, loop), {}
    pairs = _pairs(nodes, node_pairs)
    nodes, first, counts = _hosts_of_pairs(nodes, first, counts, pairs, node_pairs)
    split_note = f" (SimGrid's FAT_TREE cluster does not apply either: {why_not})" if tree is not None and why_not else ""
    return _explicit(machine, names, nodes, first, counts, pairs, lat, node_link, unit, host_speed, loop, split_note)


# -- cluster form -------------------------------------------------------------------------------
def _torus_cluster_obstacle(machine: Machine, hosts, node_link, node_pairs) -> str:
    """Why SimGrid's TORUS cluster does not say the same as the explicit form ('' if it does).

    Asks capabilities, not the class: routers on a torus grid (``has_router_grid``, whose
    machines route dimension by dimension as SimGrid's TORUS does, with ``dims`` and
    ``wrap``), and the contract's link bandwidths and router ids.
    """
    if not machine.has_router_grid:
        return (f"{machine.name!r} has no torus grid of routers (SimGrid's TORUS cluster is one) and is no regular "
                "fat tree (SimGrid's FAT_TREE cluster)")
    if not np.asarray(machine.wrap, dtype=bool).all():
        return "a mesh dimension (SimGrid's TORUS cluster wraps every dimension)"
    bws = machine.link_bandwidths()
    if not (bws == bws[0]).all():
        return "unequal link bandwidths (a cluster has one bandwidth)"
    if node_link is not None:
        return "a node_link (a cluster host sits at its torus vertex)"
    if node_pairs is not None:
        return "node_pairs (a cluster declares no routes)"
    if not np.array_equal(machine.node_ids, machine.router_ids()):
        return "node ids that are not router ids (a cluster has one host per router, host i at router i)"
    return _naming_obstacle(hosts)


def _fat_tree_cluster_obstacle(machine: Machine, hosts, node_link, node_pairs) -> str:
    """Why SimGrid's FAT_TREE cluster does not say the same as the explicit form ('' if it does)."""
    routing = machine.routing
    if routing != "dmodk":
        return (f"routing {routing!r} (SimGrid's FAT_TREE cluster routes d-mod-k, one path per pair; "
                "machine.with_routing('dmodk') is the tree it simulates)")
    bws = machine.link_bandwidths()
    if not (bws == bws[0]).all():
        codes, classes = machine.link_classes()
        spans = []
        for k, c in enumerate(classes):
            b = bws[codes == k]
            if b.size:
                spans.append(f"{c} {float(b.min()):g}" + (f"-{float(b.max()):g}" if b.max() > b.min() else ""))
        return f"unequal link bandwidths ({', '.join(spans)}; a FAT_TREE cluster has one bandwidth)"
    if node_link is not None:
        return "a node_link (a FAT_TREE host's link to its leaf is the tree's level-1 link)"
    if node_pairs is not None:
        return "node_pairs (a cluster declares no routes)"
    return _naming_obstacle(hosts)


def _fat_tree_cluster(machine: Machine, tree, hosts, cores: int, lat: float, unit: float, host_speed: str,
                      loop) -> str:
    down, up = tree
    bw = float(machine.link_bandwidths()[0]) * unit  # one bandwidth: checked by the obstacle test
    attrs = _cluster_attrs(hosts, f"0-{int(np.prod(down, dtype=np.int64)) - 1}", cores, host_speed, loop, unit)
    topo = ";".join([str(len(down)), ",".join(map(str, down)), ",".join(map(str, up)), ",".join("1" for _ in down)])
    return (
        _HEADER
        + f'  <cluster id="fattree" {attrs} bw="{_fmt_bw(bw)}" lat="{_fmt_lat(lat)}" sharing_policy="SPLITDUPLEX" '
        f'topology="FAT_TREE" topo_parameters="{topo}"/>\n'
        + _FOOTER
    )


def _flat_cluster_obstacle(hosts, node_pairs) -> str:
    """Why SimGrid's flat cluster does not say the same as node links alone ('' if it does)."""
    if node_pairs is not None:
        return "node_pairs (a cluster declares no routes)"
    return _naming_obstacle(hosts)


def _naming_obstacle(hosts) -> str:
    if _cluster_naming(hosts if hosts is not None else "nid%05d") is None:
        return f"host names {hosts if hosts is not None else 'nid%05d'!r} (a cluster names host i PREFIX + i + SUFFIX)"
    return ""


def _cluster_attrs(hosts, radical: str, cores: int, host_speed: str, loop, unit: float) -> str:
    naming = _cluster_naming(hosts)
    assert naming is not None  # checked by the caller's obstacle test
    prefix, suffix = naming
    return (
        f"prefix={quoteattr(prefix)} radical={quoteattr(radical)} suffix={quoteattr(suffix)} "
        f'speed="{host_speed}" core="{cores}" '
        f'loopback_bw="{_fmt_bw(loop[0] * unit)}" loopback_lat="{_fmt_lat(loop[1])}"'
    )


def _torus_cluster(machine: Machine, hosts, cores: int, lat: float, unit: float, host_speed: str, loop) -> str:
    bw = float(machine.link_bandwidths()[0]) * unit  # one bandwidth: checked by the obstacle test
    attrs = _cluster_attrs(hosts, f"0-{machine.n_routers - 1}", cores, host_speed, loop, unit)
    topo = ",".join(str(int(d)) for d in machine.dims)
    return (
        _HEADER
        + f'  <cluster id="torus" {attrs} bw="{_fmt_bw(bw)}" lat="{_fmt_lat(lat)}" '
        f'topology="TORUS" topo_parameters="{topo}"/>\n'
        + _FOOTER
    )


def _flat_cluster(hosts, nodes, counts, nl, unit: float, host_speed: str, loop) -> str:
    attrs = _cluster_attrs(hosts, _radical(nodes.tolist()), int(counts.max()), host_speed, loop, unit)
    return (
        _HEADER
        + f'  <cluster id="flat" {attrs} bw="{_fmt_bw(nl[0] * unit)}" lat="{_fmt_lat(nl[1])}" '
        'sharing_policy="SPLITDUPLEX"/>\n'
        + _FOOTER
    )


# -- explicit form ------------------------------------------------------------------------------
def _hosts_of_pairs(nodes, first, counts, pairs, node_pairs):
    """With ``node_pairs``, keep only the nodes they name (SimGrid's Full routing holds a
    table of n_hosts ** 2 entries, so idle hosts cost memory and time)."""
    if node_pairs is None:
        return nodes, first, counts
    keep = np.isin(nodes, np.asarray(node_pairs, dtype=np.int64).reshape(-1))
    return nodes[keep], first[keep], counts[keep]


def _routes_of_pairs(machine: Machine, names, nodes, first, pairs, split_note: str = "") -> tuple[np.ndarray, np.ndarray]:
    """CSR (indptr, links) of the single-path routes of node pairs, from :meth:`Machine.routes` in batches.

    :meth:`Machine.single_path_routes <mpitaskmap.machines.Machine.single_path_routes>`: the
    routes, or the one path per pair a kind names for such simulators (a dragonfly's minimal
    routes: module notes); when those differ from the routes (:attr:`single_paths_differ`)
    a warning is logged.

    Raises InvalidInputError naming the first pair whose traffic splits (a fraction below 1).
    """
    routes_of, routing = machine.single_path_routes, machine.routing
    if machine.single_paths_differ:
        _log.warning("platform: %r routes %r, which SimGrid cannot follow (one route per host pair); the platform "
                     "has its minimal routes, one path per pair (the replay and the objective keep %r)",
                     machine.name, routing, routing)
    proc = first[np.searchsorted(nodes, pairs)]  # a node's routes are those of its lowest processor
    ptrs, links, n_entries = [np.zeros(1, dtype=np.int64)], [], 0
    for lo in range(0, pairs.shape[0], _ROUTE_BATCH):
        r = routes_of(proc[lo:lo + _ROUTE_BATCH, 0], proc[lo:lo + _ROUTE_BATCH, 1])
        split = np.flatnonzero(r.fractions < 1.0)
        if split.size:
            j = int(split[0])
            i = lo + int(np.searchsorted(r.indptr, j, side="right")) - 1
            u, v = (int(k) for k in pairs[i])
            raise InvalidInputError(
                f"machine: SimGrid follows one route per host pair, but {machine.name!r} splits the traffic of node "
                f"{u} ({names[u]}) -> node {v} ({names[v]}) over several paths (a share of {float(r.fractions[j]):g} "
                f"on link {machine.link_name(int(r.links[j]))}); replay it with mpitaskmap.sim.fluid.fluid_exchange, "
                f"or declare only single-path pairs (node_pairs){split_note}"
            )
        ptrs.append(np.asarray(r.indptr[1:], dtype=np.int64) + n_entries)
        links.append(np.asarray(r.links, dtype=np.int64))
        n_entries += r.links.size
    return np.concatenate(ptrs), (np.concatenate(links) if links else np.zeros(0, dtype=np.int64))


def _network_link_names(machine: Machine, ids: np.ndarray) -> list[str]:
    """:meth:`Machine.link_names` of the link ids, checked to be distinct SimGrid ids.

    A SimGrid id is any non-empty string (spaces included: PERCS names its links
    ``"LL s0 0->1"``), but an XML parser turns a tab or a line break inside an attribute
    into a space, so a name must be printable (:meth:`str.isprintable`).
    """
    out = machine.link_names(ids)
    seen: dict[str, int] = {}
    for link, name in zip(ids.tolist(), out):
        if not isinstance(name, str) or not name or not name.isprintable():
            raise InvalidInputError(
                f"machine: {machine.name!r} names link {link} {name!r}, not a SimGrid link id "
                "(a non-empty printable string)")
        if name in seen:
            raise InvalidInputError(f"machine: {machine.name!r} names links {seen[name]} and {link} both {name!r}")
        seen[name] = link
    return out


def _explicit(machine, names, nodes, first, counts, pairs, lat, node_link, unit, host_speed,
              loop, split_note: str = "") -> tuple[str, dict]:
    host = {int(k): quoteattr(names[int(k)]) for k in nodes}  # quoted once: the loop below is hot
    links: dict[str, tuple[float, float]] = {}  # quoted name -> (bytes/s, s), network links first
    ctn: dict[object, str] = {}  # key -> '<link_ctn id=.../>'
    link_ids: dict[str, int] = {}  # SimGrid name -> machine link id
    routes: list[str] = []
    if machine.has_link_model:
        ptr, route_links = _routes_of_pairs(machine, names, nodes, first, pairs, split_note)
        used, at = np.unique(route_links, return_inverse=True)
        bw = machine.link_bandwidths()[used] * unit
        net = []
        for link, name, b in zip(used.tolist(), _network_link_names(machine, used), bw.tolist()):
            q = quoteattr(name)
            links[q] = (b, lat)
            link_ids[name] = link
            net.append(f"<link_ctn id={q}/>")
        entries = [net[k] for k in at.tolist()]
        router = machine.router_ids()[first[np.searchsorted(nodes, pairs[:, 0])]]
    else:
        ptr, entries, router = np.zeros(pairs.shape[0] + 1, dtype=np.int64), [], None

    def use(key, name: str, bw: float, latency: float) -> str:
        if key not in ctn:
            q = quoteattr(name)
            if name in link_ids:
                raise InvalidInputError(f"machine: a network link of {machine.name!r} is named {name!r}, the name "
                                        "of a node link, crossbar or loopback of the platform")
            links[q] = (bw, latency)
            ctn[key] = f"<link_ctn id={q}/>"
        return ctn[key]

    bounds = ptr.tolist()
    for i, (u, v) in enumerate(pairs.tolist()):
        path = "".join(entries[bounds[i]:bounds[i + 1]])
        if node_link is not None:
            path = (use(("up", u), f"{names[u]}_up", node_link[0] * unit, node_link[1]) + path
                    + use(("down", v), f"{names[v]}_down", node_link[0] * unit, node_link[1]))
        elif not path:  # two nodes of one router, no node links: the router's crossbar
            r = int(router[i])
            path = use(("xbar", r), f"r{r}_xbar", loop[0] * unit, loop[1])
        routes.append(f'    <route src={host[u]} dst={host[v]} symmetrical="NO">{path}</route>\n')
    fatpipes = set()
    for k in nodes.tolist():  # messages inside a node: FATPIPE, as the loopbacks of SimGrid's clusters
        loop_ctn = use(("loopback", k), f"{names[k]}_loopback", loop[0] * unit, loop[1])
        fatpipes.add(quoteattr(f"{names[k]}_loopback"))
        routes.append(f'    <route src={host[k]} dst={host[k]} symmetrical="NO">{loop_ctn}</route>\n')
    out = [_HEADER, '  <zone id="network" routing="Full">\n']
    out += [f'    <host id={host[k]} speed="{host_speed}" core="{c}"/>\n'
            for k, c in zip(nodes.tolist(), counts.tolist())]
    out += [f'    <link id={q} bandwidth="{_fmt_bw(bw)}" latency="{_fmt_lat(la)}"'
            + (' sharing_policy="FATPIPE"/>\n' if q in fatpipes else '/>\n')
            for q, (bw, la) in links.items()]
    out += routes
    out += ["  </zone>\n", _FOOTER]
    return "".join(out), link_ids


# -- running SMPI -------------------------------------------------------------------------------
def simgrid_missing(*, compiler: bool = False) -> str | None:
    """Return why SimGrid cannot be used on this machine, or None when it can.

    Parameters
    ----------
    compiler : bool, optional
        Also require a C++ compiler and SimGrid's headers (to build the replay program of
        :mod:`mpitaskmap.sim.simgrid_replay`).

    Returns
    -------
    str or None
        A one-line reason (what is missing and how to install it), or None.
    """
    for tool in ("smpirun", "smpicc"):
        if shutil.which(tool) is None:
            return f"SimGrid's {tool} is not on PATH (install SimGrid: apt-get install libsimgrid-dev)"
    if compiler:
        if shutil.which(os.environ.get("CXX", "c++")) is None:
            return f"no C++ compiler {os.environ.get('CXX', 'c++')!r} on PATH to build the SimGrid replay program"
        if not _simgrid_header():
            return "SimGrid's C++ headers (simgrid/s4u.hpp) are missing (apt-get install libsimgrid-dev)"
    return None


def _simgrid_header() -> str | None:
    for root in ("/usr/include", "/usr/local/include", os.path.join(os.environ.get("CONDA_PREFIX", "/nonexistent"), "include")):
        path = os.path.join(root, "simgrid", "s4u.hpp")
        if os.path.exists(path):
            return path
    return None


def smpirun(
    program,
    args: Sequence[str] = (),
    *,
    platform,
    hostfile,
    n_ranks: int,
    config: Sequence[str] = SMPI_DETERMINISTIC,
    timeout: float | None = 600,
    cwd=None,
) -> subprocess.CompletedProcess:
    """Run an SMPI program (built with ``smpicc``/``smpicxx``/``smpif90``) under ``smpirun``.

    Parameters
    ----------
    program : str or path-like
        The executable.
    args : sequence of str, optional
        Its arguments.
    platform : str or path-like
        Platform file (write :func:`platform_xml` to it).
    hostfile : str or path-like
        Hostfile (:func:`mpitaskmap.mapfiles.write_smpi_hostfile`): rank i runs on the host
        of line i.
    n_ranks : int
        Number of MPI ranks (``-np``).
    config : sequence of str, optional
        SimGrid ``--cfg`` settings (default :data:`SMPI_DETERMINISTIC`; add
        :data:`SMPI_UNIT_FACTORS` for factor-free timings).
    timeout : float, optional
        Seconds of wall-clock time before the run is killed (default 600).
    cwd : str or path-like, optional
        Working directory.

    Returns
    -------
    subprocess.CompletedProcess
        With ``stdout`` (the program's output) and ``stderr`` (SimGrid's log) as text.

    Raises
    ------
    InvalidInputError
        If ``n_ranks`` is not positive or SimGrid is missing (naming why).
    RuntimeError
        If the run fails (exit code and the end of SimGrid's log in the message).
    """
    n = int(n_ranks)
    if n < 1:
        raise InvalidInputError(f"n_ranks: expected a positive rank count; got {n_ranks!r}")
    missing = simgrid_missing()
    if missing:
        raise InvalidInputError(f"smpirun: {missing}")
    cmd = ["smpirun", "-np", str(n), "-platform", os.fspath(platform), "-hostfile", os.fspath(hostfile)]
    cmd += [f"--cfg={c}" for c in config]
    cmd += ["--log=root.thres:warning", os.fspath(program), *[str(a) for a in args]]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        raise RuntimeError(f"smpirun failed with exit code {proc.returncode}: {' '.join(cmd)}\n{tail}")
    return proc
