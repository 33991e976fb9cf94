"""An InfiniBand fabric as ``ibnetdiscover`` prints it: switches, hosts, cables and their speeds, as a fat tree.

What an InfiniBand administrator has where Slurm's ``topology.conf`` is silent: every switch, every
host channel adapter (CA), every cable with its ports, width and speed.  ``ibnetdiscover``'s
topology file holds one record per node::

    Switch  36 "S-248a0703005f6e80"     # "leaf1" enhanced port 0 lid 3 lmc 0
    [1]     "H-b8599f0300e2c1d0"[1](b8599f0300e2c1d1)   # "node01 HCA-1" lid 5 4xEDR
    [33]    "S-248a0703005f7e00"[1]     # "spine1" lid 7 4xEDR

    Ca      1 "H-b8599f0300e2c1d0"      # "node01 HCA-1"
    [1](b8599f0300e2c1d1)  "S-248a0703005f6e80"[1]   # lid 5 lmc 0 "leaf1" lid 3 4xEDR

(``vendid=``, ``devid=``, ``sysimgguid=``, ``switchguid=``, ``caguid=`` lines between records are
read past.)  A record's head names the node's type, ports and GUID (``S-`` switch, ``H-`` CA,
``R-`` router), its comment the NodeDescription; each port line names the peer's GUID and port,
its comment the peer's description and the link's width and speed (``4xEDR``).  A host's name is
the first word of its CA's NodeDescription (``node01 HCA-1`` -> ``node01``), a switch's its whole
description.

:func:`parse_ibnetdiscover` reads the text; :func:`fabric_topology` gives the two-level fat tree
the cabling describes: the leaves (switches with hosts), the spines (the switches cabled to
leaves), every leaf's cables up, the hosts' link speed and the taper the cabling gives (a leaf's
host links over its up-links, by speed), as ``topology.conf`` text for
:func:`~mpitaskmap.machines.fattree.slurm_topology.parse_topology_conf` (the ``PATH:NODELIST``
spec reads either, :func:`~mpitaskmap.machines.fattree.slurm_topology.read_topology_spec`), and
every host's number in the cabling's order (leaf by leaf, port by port: OpenSM's ``ftree``
routing engine's), which d-mod-k then follows: the cabling says what ``topology.conf`` cannot.
A fabric of more than two switch levels, leaves cabled unevenly (another number of up-links, or
another taper) or links of a speed it does not know are refused, naming them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import InvalidInputError
from .hostlist import natural_key

__all__ = ["IbNode", "IbLink", "IbFabric", "is_ibnetdiscover", "parse_ibnetdiscover", "FabricTree", "fabric_topology",
           "LANE_GBPS"]

#: Gb/s of one lane at every InfiniBand speed ibnetdiscover prints (nominal: 4xEDR = 100 Gb/s).
LANE_GBPS = {"SDR": 2.5, "DDR": 5.0, "QDR": 10.0, "FDR10": 10.0, "FDR": 14.0, "EDR": 25.0, "HDR": 50.0,
             "NDR": 100.0, "XDR": 200.0}

_HEAD = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9A-Fa-f]+)"(.*)$')
_PORT = re.compile(r'^\[(\d+)\](?:\([0-9A-Fa-f]+\))?\s+"([SHR])-([0-9A-Fa-f]+)"\[(\d+)\](.*)$')
_QUOTED = re.compile(r'"([^"]*)"')
_SPEED = re.compile(r'\b(\d+)x(' + "|".join(sorted(LANE_GBPS, key=len, reverse=True)) + r')\b')


@dataclass(frozen=True)
class IbNode:
    """A switch, CA or router: its type (``S``, ``H``, ``R``), GUID, NodeDescription and head line."""

    kind: str
    guid: str
    description: str
    line: int


@dataclass(frozen=True)
class IbLink:
    """One cable as a port line shows it: from (GUID, port) to (GUID, port), GB/s (None when not printed), line."""

    guid: str
    port: int
    peer: str
    peer_port: int
    gbytes: float | None
    line: int


@dataclass(frozen=True)
class IbFabric:
    """A parsed ``ibnetdiscover`` topology (:func:`parse_ibnetdiscover`): its nodes by GUID and its port lines."""

    source: str
    nodes: dict
    links: tuple


def is_ibnetdiscover(text: str) -> bool:
    """Whether ``text`` reads as ``ibnetdiscover`` output (a ``Switch`` or ``Ca`` record head).

    Examples
    --------
    >>> is_ibnetdiscover('Switch 36 "S-0001" # "leaf1"\\n'), is_ibnetdiscover("SwitchName=s1 Nodes=n1\\n")
    (True, False)
    """
    return any(_HEAD.match(line.strip()) for line in text.splitlines())


def parse_ibnetdiscover(text: str, source: str = "ibnetdiscover") -> IbFabric:
    """Read ``ibnetdiscover``'s topology text (module notes).

    Parameters
    ----------
    text : str
    source : str, optional
        Names the text in errors (a path).

    Returns
    -------
    IbFabric

    Raises
    ------
    InvalidInputError
        ``SOURCE:LINE: ...`` on a port line outside a record, a GUID given two records, a link
        whose peer has no record, or a port line that does not read.

    Examples
    --------
    >>> f = parse_ibnetdiscover('''Switch 2 "S-a1" # "leaf1" enhanced port 0 lid 1 lmc 0
    ... [1] "H-b1"[1](b2) # "n1 HCA-1" lid 2 4xEDR
    ... Ca 1 "H-b1" # "n1 HCA-1"
    ... [1](b2) "S-a1"[1] # lid 2 lmc 0 "leaf1" lid 1 4xEDR''')
    >>> sorted(f.nodes), f.links[0].gbytes
    (['a1', 'b1'], 12.5)
    """
    nodes: dict[str, IbNode] = {}
    links = []
    current: IbNode | None = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head = _HEAD.match(line)
        if head:
            guid = head.group(4).lower()
            quoted = _QUOTED.findall(head.group(5))
            if guid in nodes:
                raise InvalidInputError(f"{source}:{lineno}: GUID {guid} has a record already, on line "
                                        f"{nodes[guid].line}")
            current = nodes[guid] = IbNode(head.group(3), guid, quoted[0] if quoted else "", lineno)
            continue
        if line.startswith("["):
            port = _PORT.match(line)
            if port is None:
                raise InvalidInputError(f"{source}:{lineno}: a port line reads [PORT] \"S-GUID\"[PORT] ...; got "
                                        f"{line!r}")
            if current is None:
                raise InvalidInputError(f"{source}:{lineno}: a port line before any Switch or Ca record")
            speed = _SPEED.search(port.group(5))
            gbytes = None if speed is None else int(speed.group(1)) * LANE_GBPS[speed.group(2)] / 8.0
            links.append(IbLink(current.guid, int(port.group(1)), port.group(3).lower(), int(port.group(4)), gbytes,
                                lineno))
            continue
        if "=" in line and line.split("=", 1)[0].isidentifier():  # vendid=, devid=, sysimgguid=, ...
            continue
        raise InvalidInputError(f"{source}:{lineno}: not a line of ibnetdiscover's topology: {line!r}")
    for link in links:
        if link.peer not in nodes:
            raise InvalidInputError(f"{source}:{link.line}: port {link.port} of {nodes[link.guid].description!r} is "
                                    f"cabled to GUID {link.peer}, which has no record")
    return IbFabric(source, nodes, tuple(links))


@dataclass(frozen=True)
class FabricTree:
    """The two-level fat tree of a fabric (:func:`fabric_topology`).

    Attributes
    ----------
    topology : str
        ``topology.conf`` text: every leaf with its hosts, every spine above every leaf.
    bandwidth : float
        GB/s of a host's link.
    taper : float
        A leaf's host links over its up-links, by speed (every leaf alike).
    spines : int
        Up-links of every leaf (cables to spines; two cables to one spine count twice).
    host_numbers : dict of str to int
        Every host's number in the cabling's order: leaves in the natural order of their names,
        a leaf's hosts by the port they are cabled to, as OpenSM's ``ftree`` routing engine
        indexes them for its d-mod-k.
    """

    topology: str
    bandwidth: float
    taper: float
    spines: int
    host_numbers: dict


def fabric_topology(fabric: IbFabric) -> FabricTree:
    """The fat tree a fabric's cabling describes (module notes).

    Raises
    ------
    InvalidInputError
        Naming the source and a line: no host, a host cabled to no switch or to two, a
        switch above the spines (more than two levels), leaves with different up-link counts
        or tapers, links of unknown or different speeds.

    Examples
    --------
    >>> f = parse_ibnetdiscover('''Switch 3 "S-a1" # "leaf1"
    ... [1] "H-b1"[1] # "n1 HCA-1" lid 2 4xEDR
    ... [2] "H-b2"[1] # "n2 HCA-1" lid 3 4xEDR
    ... [3] "S-c1"[1] # "spine1" lid 4 4xEDR
    ... Switch 1 "S-c1" # "spine1"
    ... [1] "S-a1"[3] # "leaf1" lid 1 4xEDR
    ... Ca 1 "H-b1" # "n1 HCA-1"
    ... [1] "S-a1"[1] # lid 2 lmc 0 "leaf1" lid 1 4xEDR
    ... Ca 1 "H-b2" # "n2 HCA-1"
    ... [1] "S-a1"[2] # lid 3 lmc 0 "leaf1" lid 1 4xEDR''')
    >>> t = fabric_topology(f)
    >>> print(t.topology, end=""); t.bandwidth, t.taper, t.spines, t.host_numbers
    SwitchName=leaf1 Nodes=n1,n2
    SwitchName=spine1 Switches=leaf1
    (12.5, 2.0, 1, {'n1': 0, 'n2': 1})
    """
    src, nodes = fabric.source, fabric.nodes
    host_leaf: dict[str, tuple[str, int]] = {}  # host guid -> (leaf guid, line)
    host_port: dict[str, int] = {}  # host guid -> the leaf port it is cabled to
    up: dict[str, list] = {}  # leaf guid -> its links to non-host switches
    host_speeds = []
    for link in fabric.links:
        a, b = nodes[link.guid], nodes[link.peer]
        if a.kind == "S" and b.kind == "H":
            known = host_leaf.setdefault(b.guid, (a.guid, link.line))
            if known[0] != a.guid:
                raise InvalidInputError(f"{src}:{link.line}: host {_host(b)!r} is cabled to two switches, "
                                        f"{nodes[known[0]].description!r} (line {known[1]}) and {a.description!r}")
            host_port[b.guid] = link.port
            host_speeds.append(link)
    if not host_leaf:
        raise InvalidInputError(f"{src}: no host (Ca) is cabled to a switch")
    leaves = {leaf for leaf, _ in host_leaf.values()}
    for link in fabric.links:
        a, b = nodes[link.guid], nodes[link.peer]
        if a.kind == "S" and b.kind == "S" and link.guid in leaves:
            if link.peer in leaves:
                raise InvalidInputError(f"{src}:{link.line}: leaf {a.description!r} is cabled to leaf "
                                        f"{b.description!r}: not a fat tree")
            up.setdefault(link.guid, []).append(link)
    spines = {link.peer for links in up.values() for link in links}
    for link in fabric.links:
        a, b = nodes[link.guid], nodes[link.peer]
        if link.guid in spines and b.kind == "S" and link.peer not in leaves:
            raise InvalidInputError(f"{src}:{link.line}: spine {a.description!r} is cabled to {b.description!r}, "
                                    "which is no leaf: a fabric of more than two switch levels is not read")
    speeds = {link.gbytes for link in host_speeds}
    if None in speeds or len(speeds) != 1:
        bad = next(link for link in host_speeds if link.gbytes is None or link.gbytes != host_speeds[0].gbytes)
        raise InvalidInputError(f"{src}:{bad.line}: the hosts' links must print one known speed (e.g. 4xEDR); "
                                f"got {sorted(speeds, key=str)}")
    bandwidth = speeds.pop()
    hosts_of: dict[str, list[str]] = {}
    for host, (leaf, _) in host_leaf.items():
        hosts_of.setdefault(leaf, []).append(_host(nodes[host]))
    shape = {}
    for leaf in leaves:
        links = up.get(leaf, [])
        if any(link.gbytes is None for link in links):
            bad = next(link for link in links if link.gbytes is None)
            raise InvalidInputError(f"{src}:{bad.line}: up-link of leaf {nodes[leaf].description!r} prints no "
                                    "known speed (e.g. 4xEDR)")
        capacity = sum(link.gbytes for link in links)
        shape[leaf] = (len(links), len(hosts_of[leaf]) * bandwidth / capacity if capacity else 0.0)
    if len(leaves) > 1 and any(n == 0 for n, _ in shape.values()):
        lone = next(leaf for leaf, (n, _) in shape.items() if n == 0)
        raise InvalidInputError(f"{src}:{nodes[lone].line}: leaf {nodes[lone].description!r} has no up-link")
    by_line = sorted(shape, key=lambda g: nodes[g].line)
    first = by_line[0]
    other = next((g for g in by_line if shape[g] != shape[first]), None)
    if other is not None:
        (na, ta), (nb, tb) = shape[first], shape[other]
        raise InvalidInputError(f"{src}:{nodes[other].line}: leaves are cabled unevenly: {nodes[first].description!r} "
                                f"has {na} up-links (taper {ta:g}), {nodes[other].description!r} {nb} (taper {tb:g}); "
                                "the tree model needs every leaf alike")
    n_up, taper = next(iter(shape.values()))
    order = sorted(leaves, key=lambda g: natural_key(nodes[g].description))
    lines = [f"SwitchName={_name(nodes[g])} Nodes={','.join(sorted(hosts_of[g], key=natural_key))}" for g in order]
    for spine in sorted(spines, key=lambda g: natural_key(nodes[g].description)):
        below = sorted({link.guid for links in up.values() for link in links if link.peer == spine},
                       key=lambda g: natural_key(nodes[g].description))
        lines.append(f"SwitchName={_name(nodes[spine])} Switches={','.join(_name(nodes[g]) for g in below)}")
    numbers, k = {}, 0
    for g in order:
        for host in sorted((h for h, (leaf, _) in host_leaf.items() if leaf == g), key=host_port.__getitem__):
            numbers[_host(nodes[host])] = k
            k += 1
    return FabricTree("\n".join(lines) + "\n", bandwidth, taper if n_up else 1.0, max(n_up, 1), numbers)


def _host(node: IbNode) -> str:
    """A host's name: the first word of its CA's NodeDescription."""
    return node.description.split()[0] if node.description.split() else f"H-{node.guid}"


def _name(node: IbNode) -> str:
    """A switch's name in topology.conf: its description's first word (``MF0;leaf1:MSB7700/U1`` -> ``leaf1``)."""
    words = node.description.split()
    name = words[0] if words else f"S-{node.guid}"
    if ";" in name:  # Mellanox "MF0;leaf1:MSB7700/U1": the switch's own name between ';' and ':'
        name = name.split(";", 1)[1].split(":", 1)[0]
    return re.sub(r"[\[\],.=\"]", "_", name) or f"S-{node.guid}"
