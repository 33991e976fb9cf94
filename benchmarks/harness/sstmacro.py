"""SST/macro, the packet-level reference: a dragonfly machine and a mapping as its parameter file and node order.

SST/macro (Sandia's Structural Simulation Toolkit, macroscale; ``benchmarks/sstmacro/build.sh``
builds it) runs an MPI program linked against its own simulated MPI over a packet-level network
model (``pisces`` switches) with minimal, Valiant or UGAL routers.  It is a network we did not
write: the check on our objective and replay that SimGrid, which routes dragonflies minimally
and statically, cannot be.

**Its dragonfly** (read in ``sstmac/hardware/topology/dragonfly.cc`` of the built commit; that
source is the authority): ``geometry = [a, g]``, ``g`` groups of ``a`` routers joined all-to-all
inside a group (one link between every two routers), ``concentration`` nodes on every router,
node ``(group a + router) concentration + port`` -- our numbering of an all-to-all
:class:`~mpitaskmap.machines.DragonflyMachine` with ``a = S`` and ``concentration = n``, so every
node keeps its group and switch.  Every router has ``group_connections = H`` global ports, wired
``inter_group``:

* ``circulant``: router ``r`` of group ``g`` links to router ``r`` of the groups
  ``g + (r H / 2 + k)`` and ``g - (r H / 2 + k)`` (mod ``g``), ``k = 1 .. H / 2``; a port whose
  far group is ``g`` itself stays unused (``H`` even);
* ``alltoall``: router ``r`` links ``covering = H / (g - 1)`` times to every other group, to the
  routers ``r + c a / covering`` (``c < covering``).

SST/macro therefore places the global links on other switches than our arrangement does (ours:
link ``j`` of groups ``a -> b`` on switch ``(j G + b) div p``, module notes of
:mod:`mpitaskmap.machines.dragonfly`), and gives every pair of groups the same number of links
only for some shapes.  :func:`sstmacro_shape` finds the wiring and ``H`` that give every pair
exactly the machine's ``global_links``, or says why none does; :func:`sstmacro_group_links`
counts the links per pair of groups as that wiring makes them (the test compares it with
SST/macro's own port dump when the simulator is built).  The routes inside a group and between
groups are then the same links (all-to-all groups, the pair's links), not the same switches.

**Aries' row/column groups** are SST/macro's ``cascade`` topology (``sstmac/hardware/topology/
cascade.cc``): ``geometry = [X, Y, g]``, router ``(x, y)`` of group ``g`` at switch ``g X Y + y X + x``
(our switch ``row C + column`` with ``X = C`` columns and ``Y = R`` rows: the same numbering), linked
all-to-all along ``x`` (our green row links) and along ``y`` (our black column links), and its
minimal router changes ``x`` first, then ``y`` -- our green-then-black hops.  Its ``H`` global
ports (``group_connections``) are wired circulant by the router's index ``A = x Y + y``: ports
``h < H/2`` to group ``g + A H/2 + h``, the others to ``g - A H/2 - (h - H/2)`` (mod ``g``), one
port per far group (``x + y + far group``: a second link to a group already reached takes the same
port and is one link), none to ``g`` itself (:func:`cascade_group_links`).  The link classes keep
their bandwidths through ``redundant``, integer multiples of one base (:func:`cascade_redundancy`).
At the pinned commit only its ``cascade_minimal`` router exists (the Valiant and UGAL routers of
``cascade_routing.cc`` are commented out): an Aries machine runs there under minimal routing only,
and :func:`sstmacro_params` refuses the adaptive ones naming that.  That router also looked for a
global port by another formula than the wiring's and lost packets between groups (the program
never finished); ``benchmarks/sstmacro/build.sh`` applies ``cascade-routing.patch``, which makes
it look for the groups its ports are wired to.  The cascade has no port dump
(``topology.dump_file``): its links per pair of groups are checked against the wiring's
formula re-walked port by port (the tests).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from mpitaskmap.machines import DragonflyMachine

from .smpi import HALO3D_TIME

ROOT = Path(__file__).resolve().parents[2]
#: Where ``benchmarks/sstmacro/build.sh`` installs by default (``$SSTMACRO_PREFIX`` overrides): outside
#: the source tree, as the library's own built PMPI libraries are.
DEFAULT_PREFIX = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mpitaskmap" / "sstmacro"
#: SST/macro's dragonfly routers by our routing names (``switch.router.name``).
SSTMACRO_ROUTERS = {"minimal": "dragonfly_minimal", "valiant": "dragonfly_valiant", "ugal": "dragonfly_ugal"}
#: SST/macro's routers of its ``cascade`` topology (Aries' row/column groups) by our routing names: only the
#: minimal one works at the pinned commit (module notes).
CASCADE_ROUTERS = {"minimal": "cascade_minimal"}
#: SST/macro's inter-group wirings, in the order :func:`sstmacro_shape` tries them.
WIRINGS = ("circulant", "alltoall")
#: The wiring of SST/macro's ``cascade`` topology (its own, not a choice: :func:`cascade_group_links`).
CASCADE = "cascade"


class SstShape(NamedTuple):
    """An SST/macro dragonfly (module notes): its ``geometry``, ``concentration`` and ``group_connections``.

    Attributes
    ----------
    routers : int
        Routers ``a`` of a group (our ``S``).
    groups : int
        Groups ``g`` (our ``G``).
    concentration : int
        Nodes per router (our ``n``).
    ports : int
        Global ports ``H`` of a router (``group_connections``).
    inter_group : str
        ``"circulant"`` or ``"alltoall"`` (the ``dragonfly`` topology), :data:`CASCADE` (the
        ``cascade`` topology's own wiring).
    pair_links : int
        Global links between every two groups (our ``global_links``).
    rows : int
        Rows ``Y`` of a ``cascade`` group (routers ``= rows x columns``); 1 for the ``dragonfly``
        topology's all-to-all groups.
    redundant : tuple of int
        ``cascade`` only: the green, black and global links' bandwidth as multiples of the base
        link bandwidth ``link_gbps`` (SST/macro's ``redundant``); empty for ``dragonfly``.
    link_gbps : float
        ``cascade`` only: that base bandwidth (GB/s); 0 for ``dragonfly`` (the machine's one
        network bandwidth).
    """

    routers: int
    groups: int
    concentration: int
    ports: int
    inter_group: str
    pair_links: int
    rows: int = 1
    redundant: tuple = ()
    link_gbps: float = 0.0

    @property
    def topology(self) -> str:
        """SST/macro's topology name: ``"cascade"`` for row/column groups, else ``"dragonfly"``."""
        return "cascade" if self.inter_group == CASCADE else "dragonfly"

    @property
    def geometry(self) -> list[int]:
        """SST/macro's ``geometry``: ``[a, g]`` (dragonfly), ``[X, Y, g]`` (cascade: columns, rows, groups)."""
        if self.topology == "cascade":
            return [self.routers // self.rows, self.rows, self.groups]
        return [self.routers, self.groups]


def sstmacro_group_links(routers: int, groups: int, ports: int, inter_group: str) -> np.ndarray:
    """Global links between every two groups of an SST/macro dragonfly, as its wiring makes them (module notes).

    Returns
    -------
    (groups, groups) ndarray of int64
        ``[g, q]``: links from a router of group ``g`` to a router of group ``q`` (0 on the
        diagonal: unused ports).  Symmetric for both wirings.

    Raises
    ------
    ValueError
        On a wiring SST/macro refuses: ``circulant`` with an odd ``ports``, ``alltoall`` whose
        ``ports`` is not a multiple of ``groups - 1`` or whose covering does not divide ``routers``.

    Examples
    --------
    Five groups of two routers, two ports each: router 0 reaches the groups at distance 1,
    router 1 those at distance 2, so every pair of groups has one link.

    >>> sstmacro_group_links(2, 5, 2, "circulant").tolist()[0]
    [0, 1, 1, 1, 1]
    """
    a, g, h = int(routers), int(groups), int(ports)
    links = np.zeros((g, g), dtype=np.int64)
    if inter_group == "circulant":
        if h % 2:
            raise ValueError(f"ports: the circulant wiring needs an even number of global ports; got {h}")
        half = h // 2
        for grp in range(g):
            for r in range(a):
                for k in range(1, half + 1):
                    for far in ((grp + r * half + k) % g, (grp - r * half - k) % g):
                        if far != grp:
                            links[grp, far] += 1
    elif inter_group == "alltoall":
        if g < 2 or h % (g - 1):
            raise ValueError(f"ports: the alltoall wiring needs a multiple of groups - 1 = {g - 1} ports; got {h}")
        covering = h // (g - 1)
        if covering == 0 or a % covering:
            raise ValueError(f"ports: the alltoall covering {covering} must divide the {a} routers of a group")
        links += a * covering
        np.fill_diagonal(links, 0)
    else:
        raise ValueError(f"inter_group: expected one of {list(WIRINGS)}; got {inter_group!r}")
    return links


def cascade_group_links(columns: int, rows: int, groups: int, ports: int) -> np.ndarray:
    """Global links between every two groups of SST/macro's ``cascade`` topology (module notes).

    Router ``(x, y)`` (index ``A = x rows + y``) sends its port ``h < H/2`` to group
    ``g + A H/2 + h`` and its port ``h >= H/2`` to ``g - A H/2 - (h - H/2)``, both mod
    ``groups``; a far group reached twice from one router is one link (one port per far
    group), the router's own group none.

    Returns
    -------
    (groups, groups) ndarray of int64
        ``[g, q]``: links from a router of group ``g`` to a router of group ``q``.

    Raises
    ------
    ValueError
        On ``ports`` of ``groups`` or more (SST/macro would lower it to ``groups - 1``), or
        below 1.

    Examples
    --------
    Four groups of 1 x 2 routers, two ports: router ``A = 0`` reaches only its own group (no
    link), router ``A = 1`` the groups ``g + 1`` and ``g - 1``.

    >>> cascade_group_links(1, 2, 4, 2).tolist()[0]
    [0, 1, 0, 1]
    """
    X, Y, G, H = int(columns), int(rows), int(groups), int(ports)
    if not 1 <= H < G:
        raise ValueError(f"ports: the cascade wiring needs 1 to groups - 1 = {G - 1} global ports; got {H}")
    half = H // 2
    links = np.zeros((G, G), dtype=np.int64)
    for grp in range(G):
        for x in range(X):
            for y in range(Y):
                A = x * Y + y
                far = {(grp + A * half + h) % G if h < half else (grp - A * half - (h - half)) % G for h in range(H)}
                for q in far - {grp}:
                    links[grp, q] += 1
    return links


def cascade_redundancy(bandwidth: dict, *, quantum: float = 1.0 / 64) -> tuple[float, tuple[int, int, int]]:
    """The base link bandwidth and SST/macro's ``redundant`` multiples of the green, black and global links.

    The largest base of which every class's GB/s is an integer multiple, to ``quantum``
    GB/s: the link classes keep their bandwidths exactly (SST/macro's multiples are
    integers and scale a port's bandwidth and credits).

    Raises
    ------
    ValueError
        When a bandwidth is not a multiple of ``quantum``.

    Examples
    --------
    The ``sim:aries`` preset's 5.25, 15.75 and 9.375 GB/s: 14, 42 and 25 times 0.375 GB/s.

    >>> cascade_redundancy({"green": 5.25, "black": 15.75, "global": 9.375})
    (0.375, (14, 42, 25))
    """
    import math

    units = []
    for name in ("green", "black", "global"):
        value = float(bandwidth[name]) / quantum
        if abs(value - round(value)) > 1e-9 or round(value) < 1:
            raise ValueError(f"bandwidth: {name} links of {bandwidth[name]} GB/s are no multiple of {quantum} GB/s")
        units.append(int(round(value)))
    base = math.gcd(*units)
    return base * quantum, tuple(u // base for u in units)


def sstmacro_shape(machine: DragonflyMachine, *, max_ports: int = 64) -> SstShape:
    """The SST/macro dragonfly of ``machine``'s network: the same groups, switches and nodes, and
    ``global_links`` links between every two groups.

    Tries the wirings in :data:`WIRINGS` order, each with the fewest ports (up to ``max_ports``)
    that give every pair of groups exactly ``machine.global_links`` links.

    A machine of row/column (Aries) groups becomes SST/macro's ``cascade`` (module notes), with
    the fewest ports whose wiring gives every pair ``global_links`` links and the green, black
    and global bandwidths kept as ``redundant`` multiples of one base.

    Raises
    ------
    ValueError
        On all-to-all groups with links of different bandwidths inside and between groups (a
        pisces switch gives the ``dragonfly`` topology's network links one bandwidth), or a
        shape no wiring reproduces (naming the pair counts the circulant or cascade wiring can
        give).

    Examples
    --------
    >>> sstmacro_shape(DragonflyMachine(33, 8, 4, range(8)))[:6]   # the issue's 33 x 8 x 4 circulant
    (8, 33, 4, 4, 'circulant', 1)

    Aries groups of 6 x 16 routers: the cascade wiring gives every pair of groups the same links
    only with 19 groups (2 ports a router, 10 links a pair; none for Cori's 32 groups and 15),
    and the classes' 5.25, 15.75 and 9.375 GB/s are 14, 42 and 25 x 0.375 GB/s.

    >>> aries = DragonflyMachine(19, (6, 16), 4, [0], global_links=10, global_ports=2,
    ...                          bandwidth={"node": 8.0, "green": 5.25, "black": 15.75, "global": 9.375})
    >>> s = sstmacro_shape(aries)
    >>> s.topology, s.geometry, s.ports, s.pair_links, s.redundant, s.link_gbps
    ('cascade', [16, 6, 19], 2, 10, (14, 42, 25), 0.375)
    """
    if not isinstance(machine, DragonflyMachine):
        raise ValueError(f"machine: SST/macro's dragonfly needs a DragonflyMachine; got {type(machine).__name__}")
    if machine.rows != 1:
        return _cascade_shape(machine)
    bw = machine._bandwidth
    if bw["local"] != bw["global"]:
        raise ValueError(f"machine: local links of {bw['local']} GB/s and global links of {bw['global']} GB/s; a "
                         f"pisces switch gives all its network links one bandwidth")
    a, g, want = machine.switches_per_group, machine.n_groups, machine.global_links
    seen = []
    for wiring in WIRINGS:
        for ports in range(1, max_ports + 1):
            try:
                links = sstmacro_group_links(a, g, ports, wiring)
            except ValueError:
                continue
            off = links[~np.eye(g, dtype=bool)]
            if wiring == "circulant" and off.min() == off.max():
                seen.append(int(off.min()))
            if off.min() == off.max() == want:
                return SstShape(a, g, machine.nodes_per_switch, ports, wiring, want)
    raise ValueError(f"machine: no SST/macro wiring of {g} groups x {a} routers gives every pair of groups "
                     f"{want} global links (circulant gives {sorted(set(seen))} with up to {max_ports} ports; "
                     f"alltoall a multiple of {a})")


def _cascade_shape(machine: DragonflyMachine) -> SstShape:
    """:func:`sstmacro_shape` of a row/column (Aries) machine: SST/macro's ``cascade`` with the fewest ports that give
    every pair of groups ``global_links`` links, the link classes' bandwidths kept (:func:`cascade_redundancy`)."""
    R, C, G, want = machine.rows, machine.columns, machine.n_groups, machine.global_links
    base, redundant = cascade_redundancy(machine._bandwidth)
    seen = set()
    for ports in range(1, G):
        links = cascade_group_links(C, R, G, ports)
        off = links[~np.eye(G, dtype=bool)]
        if off.min() == off.max() > 0:
            seen.add(int(off.min()))
            if off.min() == want:
                return SstShape(R * C, G, machine.nodes_per_switch, ports, CASCADE, want, R, redundant, base)
    gives = (f"gives every pair of groups {sorted(seen)} global links with some port count, not {want}" if seen
             else "gives the pairs of groups unequal links with every port count (19 groups of 6 x 16 routers "
                  "with 2 ports give every pair 10)")
    raise ValueError(f"machine: SST/macro's cascade wiring of {G} groups x {R} x {C} routers {gives}")


def sstmacro_nodes(machine: DragonflyMachine, task_to_proc: Sequence[int]) -> np.ndarray:
    """SST/macro's node id of every rank's processor: our node number (module notes: the same numbering).

    Examples
    --------
    >>> sstmacro_nodes(DragonflyMachine(3, 3, 2, [5, 5, 12, 13]), [3, 0, 1, 2]).tolist()
    [13, 5, 5, 12]
    """
    return np.asarray(machine.node_ids, dtype=np.int64)[np.asarray(task_to_proc, dtype=np.int64)]


def node_id_file(nodes: Sequence[int]) -> str:
    """The ``node_id_file`` of SST/macro's ``node_id`` allocation and indexing: the rank count, then every rank's node.

    Examples
    --------
    >>> node_id_file([13, 5, 5, 12])
    '4\\n13\\n5\\n5\\n12\\n'
    """
    return f"{len(nodes)}\n" + "".join(f"{int(v)}\n" for v in nodes)


def sstmacro_routings(shape: SstShape) -> tuple[str, ...]:
    """Our routing names SST/macro has a router for on ``shape``: :data:`CASCADE_ROUTERS`' on a ``cascade``
    (minimal only), else :data:`SSTMACRO_ROUTERS`'.

    Examples
    --------
    >>> sstmacro_routings(SstShape(8, 33, 4, 4, "circulant", 1))
    ('minimal', 'valiant', 'ugal')
    >>> sstmacro_routings(SstShape(96, 19, 4, 2, CASCADE, 10, 6, (14, 42, 25), 0.375))
    ('minimal',)
    """
    return tuple(CASCADE_ROUTERS if shape.topology == "cascade" else SSTMACRO_ROUTERS)


def sstmacro_params(shape: SstShape, machine: DragonflyMachine, *, routing: str, exe: str, argv: Sequence,
                    ranks: int, ppn: int, nodes_file: str, hop_latency_ns: float = 100.0, seed: int = 14) -> str:
    """SST/macro's parameter file for one run of ``exe`` (``argv``) over ``ranks`` ranks, ``ppn`` a node.

    The pisces packet model; network links at the machine's bandwidth and ``hop_latency_ns``
    (the latency of our replays' links), the NICs at its node links' bandwidth; ranks placed by
    ``nodes_file`` (:func:`node_id_file`); ``routing`` one of :data:`SSTMACRO_ROUTERS`.  A
    ``cascade`` shape (Aries) gets SST/macro's cascade topology, its base link bandwidth with the
    classes' ``redundant`` multiples (credits scaled from a base that gives the green links the
    dragonfly's 64 KB) and its minimal router, the only routing it has (:data:`CASCADE_ROUTERS`).
    """
    cascade = shape.topology == "cascade"
    routers = CASCADE_ROUTERS if cascade else SSTMACRO_ROUTERS
    if routing not in sstmacro_routings(shape):
        why = " (SST/macro's cascade topology, Aries, has only a minimal router)" if cascade else ""
        raise ValueError(f"routing: expected one of {list(routers)}{why}; got {routing!r}")
    node = machine._bandwidth["node"]
    if cascade:
        net, credits = shape.link_gbps, f"{max(4096, 65536 // shape.redundant[0])}B"
        xbar = 10 * shape.link_gbps * max(shape.redundant)
        topology = (f" name = cascade\n geometry = [{','.join(str(v) for v in shape.geometry)}]\n"
                    f" concentration = {shape.concentration}\n group_connections = {shape.ports}\n"
                    f" redundant = [{','.join(str(v) for v in shape.redundant)}]\n")
    else:
        net, credits = machine._bandwidth["global"], "64KB"
        xbar = 10 * net
        topology = (f" name = dragonfly\n geometry = [{shape.routers},{shape.groups}]\n"
                    f" concentration = {shape.concentration}\n group_connections = {shape.ports}\n"
                    f" inter_group = {shape.inter_group}\n")
    return f"""node {{
 app1 {{
  exe = {exe}
  argv = {' '.join(str(v) for v in argv)}
  launch_cmd = aprun -n {ranks} -N {ppn}
  allocation = node_id
  indexing = node_id
  node_id_file = {nodes_file}
 }}
 nic {{
  name = pisces
  injection {{
   mtu = 4096
   arbitrator = cut_through
   bandwidth = {node:g}GB/s
   latency = {hop_latency_ns:g}ns
   credits = 64KB
  }}
  ejection {{
   latency = {hop_latency_ns:g}ns
  }}
 }}
 memory {{
  name = pisces
  total_bandwidth = 100GB/s
  latency = 10ns
  max_single_bandwidth = 100GB/s
 }}
 proc {{
  ncores = {ppn}
  frequency = 2GHz
 }}
 name = simple
}}

switch {{
 name = pisces
 arbitrator = cut_through
 mtu = 4096
 link {{
  bandwidth = {net:g}GB/s
  latency = {hop_latency_ns:g}ns
  credits = {credits}
 }}
 xbar {{
  bandwidth = {xbar:g}GB/s
 }}
 logp {{
  bandwidth = {net:g}GB/s
  hop_latency = {hop_latency_ns:g}ns
  out_in_latency = {hop_latency_ns:g}ns
 }}
 router {{
  name = {routers[routing]}
  seed = {seed}
 }}
}}

topology {{
{topology}}}
"""


def sstmacro_prefix() -> Path:
    """Where SST/macro is installed: ``$SSTMACRO_PREFIX``, else :data:`DEFAULT_PREFIX`."""
    return Path(os.environ.get("SSTMACRO_PREFIX") or DEFAULT_PREFIX)


def sstmacro_missing() -> str | None:
    """Why SST/macro cannot run here (None when ``sstmac`` and ``sst++`` are installed)."""
    prefix = sstmacro_prefix()
    for tool in ("sstmac", "sst++"):
        if not os.access(prefix / "bin" / tool, os.X_OK):
            return f"no {tool} under {prefix / 'bin'} (bash benchmarks/sstmacro/build.sh)"
    return None


def build_halo3d_sst(work: Path) -> Path:
    """``examples/halo3d.c`` built with ``sst++`` into ``work``: the shared object SST/macro loads (``app1.exe``)."""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    src = work / "halo3d.cc"  # sst++ compiles C++ only (the C source is valid C++)
    shutil.copyfile(ROOT / "examples" / "halo3d.c", src)
    exe = work / "halo3d_sst"
    subprocess.run([str(sstmacro_prefix() / "bin" / "sst++"), "-O2", "-o", str(exe), str(src)], check=True,
                   capture_output=True, text=True)
    return exe


def run_sstmacro(params: str, work: Path, name: str, *, timeout: float = 900.0) -> float:
    """Run SST/macro on ``params`` in ``work`` (files ``name.ini``, ``name.out``); halo3d's max communication time (s).

    Raises
    ------
    RuntimeError
        When the simulator fails or prints no time (its output's tail in the message).
    """
    work = Path(work)
    ini = work / f"{name}.ini"
    ini.write_text(params)
    res = subprocess.run([str(sstmacro_prefix() / "bin" / "sstmac"), "-f", str(ini)], cwd=work, capture_output=True,
                         text=True, timeout=timeout)
    (work / f"{name}.out").write_text(res.stdout + res.stderr)
    found = re.search(HALO3D_TIME, res.stdout)
    if res.returncode != 0 or found is None:
        tail = (res.stdout + res.stderr)[-600:]
        raise RuntimeError(f"sstmac on {ini}: exit {res.returncode}, no max_comm_time: ...{tail}")
    return float(found.group(1))


def dumped_group_links(dump: str, routers: int, groups: int) -> np.ndarray:
    """Global links per pair of groups in SST/macro's port dump (``topology.dump_file``).

    Its lines: ``switch<id>,port,switch<id>,inport,level,type``, global links of type ``global``.

    Examples
    --------
    >>> dumped_group_links("component,port,destination,inport,level,type\\nswitch0,2,switch3,3,2,global", 2, 2).tolist()
    [[0, 1], [0, 0]]
    """
    links = np.zeros((groups, groups), dtype=np.int64)
    for line in dump.splitlines()[1:]:
        parts = line.split(",")
        if len(parts) == 6 and parts[5] == "global":
            src, dst = int(parts[0].removeprefix("switch")), int(parts[2].removeprefix("switch"))
            links[src // routers, dst // routers] += 1
    return links
