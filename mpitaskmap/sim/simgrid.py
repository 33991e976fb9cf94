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
``"cluster"`` -- SimGrid's own ``<cluster topology="TORUS">`` element (or a flat
    ``<cluster>`` for a :class:`~mpitaskmap.machines.FlatMachine`).  Chosen by
    ``form="auto"`` when SimGrid can say the same thing in one element: every dimension
    wraps, every link has one bandwidth, one node per router with node id = router id
    (host ``i`` sits at router ``i``, dimension 0 fastest, as in SimGrid), no
    ``node_link``, and host names of the form ``PREFIX%dSUFFIX`` (``hosts="n%d"``; a
    cluster cannot zero-pad, so the default ``"nid%05d"`` gives the explicit form).
    SimGrid then routes dimension by dimension the shorter way round; on an even-length
    dimension its tie-break for the two equally short ways may differ from ours (same
    hop count, same time on a uniform torus).  Routers without an allocated node are
    hosts too.

``"explicit"`` -- one ``Full``-routing zone: a host per node, a link per *directed*
    torus link that some route crosses (its bandwidth is the machine's bandwidth of that
    link, :meth:`~mpitaskmap.machines.TorusMachine.link_bandwidths`, so per-dimension and
    per-position bandwidths such as Gemini's are kept; a mesh has no wrap links), and for
    every ordered pair of nodes the route :meth:`~mpitaskmap.machines.TorusMachine.route`
    gives, link for link.  Torus link ``id`` (the numbering of
    :class:`~mpitaskmap.machines.LinkLoads`) is named ``l<id>_<dim><sign>``, e.g.
    ``l14_Y-`` (:func:`torus_link_id`).  With ``node_link=(bandwidth, latency)`` every host
    also has an injection link ``<host>_up`` and an ejection link ``<host>_down`` at
    either end of its routes; without it, hosts of one router talk through a per-router
    crossbar link ``r<router>_xbar`` (loopback bandwidth and latency), since SimGrid
    forbids empty routes.  Every host has a ``<host>_loopback`` link for messages inside
    the node.  The route table grows as ``n_nodes ** 2``; pass ``node_pairs`` to declare
    only the routes a simulation uses.

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
>>> from mpitaskmap.machines.presets import torus_machine
>>> xml = platform_xml(torus_machine([4, 4]), link_latency=1e-6, hosts="n%d")
>>> 'topology="TORUS"' in xml and 'topo_parameters="4,4"' in xml
True
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import Sequence
from xml.sax.saxutils import quoteattr

import numpy as np

from .. import _torus
from ..errors import InvalidInputError
from .fluid import BANDWIDTH_UNITS, DEFAULT_LOOPBACK, check_link, check_positive
from ..machines import FlatMachine, Machine, TorusMachine
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

# Machines of the library SimGrid cannot express, by class name (this module sits below the
# mapper families, so it does not import them to test the type).
_NOT_EXPRESSIBLE = {
    "PercsMachine": (
        "a PERCS network stripes every message over several links inside a supernode and over "
        "several D links between supernodes (indirect routing splits it further); a SimGrid "
        "route is one static path per host pair"
    ),
}


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


def _node_table(machine: Machine) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct node ids, the first processor of each and its processor count."""
    nodes, first, counts = np.unique(machine.node_ids, return_index=True, return_counts=True)
    return nodes, first, counts


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
    machine : TorusMachine or FlatMachine
        The allocation: tori and meshes (any number of dimensions, per-dimension or
        per-position bandwidths: the simulated Titan, BG/Q blocks, laptop tori) and the
        flat host-name machine.
    link_latency : float
        Latency of every network link, in seconds (the per-hop latency).
    node_link : (float, float), optional
        (bandwidth in ``bandwidth_unit``, latency in s) of the link between a node and
        its router, one each way.  None (default): a torus node sits at its router with no
        link of its own; a flat machine's nodes get (1.0, ``link_latency``), its only links.
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
        On a machine of unknown kind or one SimGrid cannot express (naming why), a bad
        latency, bandwidth, unit, form or pair, ``form="cluster"`` where the cluster form
        does not apply (naming the condition), or too many nodes for all-pairs routes.

    Notes
    -----
    Explicit form: O(n_pairs * route length) time and output size.  Cluster form: O(1)
    output (O(n_nodes) for a flat machine's radical list).
    """
    if not isinstance(machine, Machine):
        raise InvalidInputError(f"machine: expected a Machine; got {type(machine).__name__}")
    for cls in type(machine).__mro__:
        if cls.__name__ in _NOT_EXPRESSIBLE:
            raise InvalidInputError(
                f"machine: SimGrid cannot express a {type(machine).__name__}: {_NOT_EXPRESSIBLE[cls.__name__]}"
            )
    if not isinstance(machine, (TorusMachine, FlatMachine)):
        raise InvalidInputError(
            f"machine: unknown machine kind {type(machine).__name__}; SimGrid platforms are written for "
            "TorusMachine (torus, mesh, Gemini, BG/Q) and FlatMachine"
        )
    if form not in ("auto", "cluster", "explicit"):
        raise InvalidInputError(f"form: unknown platform form {form!r}; valid: ['auto', 'cluster', 'explicit']")
    if bandwidth_unit not in BANDWIDTH_UNITS:
        raise InvalidInputError(f"bandwidth_unit: unknown unit {bandwidth_unit!r}; valid: {sorted(BANDWIDTH_UNITS)}")
    unit = BANDWIDTH_UNITS[bandwidth_unit]
    lat = check_positive(link_latency, "link_latency", allow_zero=True)
    loop_bw, loop_lat = check_link(loopback, "loopback")
    if node_link is not None:
        node_link = check_link(node_link, "node_link")
    if not isinstance(host_speed, str) or not re.fullmatch(r"[0-9.eE+-]+[kMGTPE]?f", host_speed):
        raise InvalidInputError(f"host_speed: expected a SimGrid speed like '1Gf'; got {host_speed!r}")
    names = host_names(machine, hosts)
    nodes, first, counts = _node_table(machine)

    if isinstance(machine, FlatMachine):
        nl = node_link if node_link is not None else (1.0, lat)
        why_not = _flat_cluster_obstacle(hosts, node_pairs)
        if form == "cluster" and why_not:
            raise InvalidInputError(f"form: the cluster form does not apply: {why_not}")
        if form != "explicit" and not why_not:
            return _flat_cluster(hosts, nodes, counts, nl, unit, host_speed, (loop_bw, loop_lat))
        pairs = _pairs(nodes, node_pairs)
        nodes, first, counts = _hosts_of_pairs(nodes, first, counts, pairs, node_pairs)
        return _explicit(machine, names, nodes, first, counts, pairs, lat, nl, unit, host_speed, (loop_bw, loop_lat))

    why_not = _torus_cluster_obstacle(machine, hosts, node_link, node_pairs)
    if form == "cluster" and why_not:
        raise InvalidInputError(f"form: the cluster form does not apply: {why_not}")
    if form != "explicit" and not why_not:
        return _torus_cluster(machine, hosts, int(counts.max()), lat, unit, host_speed, (loop_bw, loop_lat))
    pairs = _pairs(nodes, node_pairs)
    nodes, first, counts = _hosts_of_pairs(nodes, first, counts, pairs, node_pairs)
    return _explicit(machine, names, nodes, first, counts, pairs, lat, node_link, unit, host_speed, (loop_bw, loop_lat))


# -- cluster form -------------------------------------------------------------------------------
def _torus_cluster_obstacle(machine: TorusMachine, hosts, node_link, node_pairs) -> str:
    """Why SimGrid's TORUS cluster does not say the same as the explicit form ('' if it does)."""
    if not machine.wrap.all():
        return "a mesh dimension (SimGrid's TORUS cluster wraps every dimension)"
    bws = np.concatenate(machine.link_bandwidth)
    if not (bws == bws[0]).all():
        return "unequal link bandwidths (a cluster has one bandwidth)"
    if node_link is not None:
        return "a node_link (a cluster host sits at its torus vertex)"
    if node_pairs is not None:
        return "node_pairs (a cluster declares no routes)"
    if not np.array_equal(machine.node_ids, machine.router_ids()):
        return "node ids that are not router ids (a cluster has one host per router, host i at router i)"
    if _cluster_naming(hosts if hosts is not None else "nid%05d") is None:
        return f"host names {hosts if hosts is not None else 'nid%05d'!r} (a cluster names host i PREFIX + i + SUFFIX)"
    return ""


def _flat_cluster_obstacle(hosts, node_pairs) -> str:
    if node_pairs is not None:
        return "node_pairs (a cluster declares no routes)"
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


def _torus_cluster(machine: TorusMachine, hosts, cores: int, lat: float, unit: float, host_speed: str, loop) -> str:
    bw = float(machine.link_bandwidth[0][0]) * unit
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


def _explicit(machine, names, nodes, first, counts, pairs, lat, node_link, unit, host_speed, loop) -> str:
    host = {int(k): quoteattr(names[int(k)]) for k in nodes}  # quoted once: the loop below is hot
    proc_of = {int(k): int(p) for k, p in zip(nodes, first)}
    torus = isinstance(machine, TorusMachine)
    router = machine.router_ids() if torus else None
    bw_of = machine.link_bandwidths() if torus else None
    coords = machine.router_coords if torus else None
    d = machine.n_dims if torus else 0
    links: dict[str, tuple[float, float]] = {}  # quoted name -> (bytes/s, s), in first-use order
    ctn: dict[object, str] = {}  # key -> '<link_ctn id=.../>'
    routes: list[str] = []

    def use(key, name: str, bw: float, latency: float) -> str:
        if key not in ctn:
            q = quoteattr(name)
            links[q] = (bw, latency)
            ctn[key] = f"<link_ctn id={q}/>"
        return ctn[key]

    for u, v in pairs.tolist():
        path: list[str] = []
        if node_link is not None:
            path.append(use(("up", u), f"{names[u]}_up", node_link[0] * unit, node_link[1]))
        if torus:
            # the kernel behind TorusMachine.route (the library's one routing function), called
            # without re-validating trusted processor ids: half the time of a 24^3 platform
            for lid in _torus.route_links(coords, machine.dims, machine.wrap, proc_of[u], proc_of[v]).tolist():
                if lid not in ctn:
                    dim = machine.dim_names[(lid % (2 * d)) // 2]
                    use(lid, f"l{lid}_{dim}{'+-'[lid % 2]}", float(bw_of[lid]) * unit, lat)
                path.append(ctn[lid])
        if node_link is not None:
            path.append(use(("down", v), f"{names[v]}_down", node_link[0] * unit, node_link[1]))
        if not path:  # two nodes of one router, no node links: the router's crossbar
            r = int(router[proc_of[u]])
            path.append(use(("xbar", r), f"r{r}_xbar", loop[0] * unit, loop[1]))
        routes.append(f'    <route src={host[u]} dst={host[v]} symmetrical="NO">{"".join(path)}</route>\n')
    for k in nodes.tolist():  # messages inside a node
        loop_ctn = use(("loopback", k), f"{names[k]}_loopback", loop[0] * unit, loop[1])
        routes.append(f'    <route src={host[k]} dst={host[k]} symmetrical="NO">{loop_ctn}</route>\n')
    out = [_HEADER, '  <zone id="network" routing="Full">\n']
    out += [f'    <host id={host[k]} speed="{host_speed}" core="{c}"/>\n'
            for k, c in zip(nodes.tolist(), counts.tolist())]
    out += [f'    <link id={q} bandwidth="{_fmt_bw(bw)}" latency="{_fmt_lat(la)}"/>\n'
            for q, (bw, la) in links.items()]
    out += routes
    out += ["  </zone>\n", _FOOTER]
    return "".join(out)


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
