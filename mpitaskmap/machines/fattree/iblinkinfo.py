"""An InfiniBand fabric as ``iblinkinfo`` prints it: every port of every node, with the node at its other end.

``iblinkinfo`` (infiniband-diags, beside ``ibnetdiscover``) is what many administrators keep: a
head per node, then one line per port, the port's LID and number, the link's width, speed and
state, and the remote end's LID, port and NodeDescription::

    Switch: 0x248a0703005f6e80 leaf1:
              3    1[  ] ==( 4X       25.78125 Gbps Active/  LinkUp)==>       5    1[  ] "node01 HCA-1" ( )
              3   33[  ] ==( 4X       25.78125 Gbps Active/  LinkUp)==>       7    1[  ] "spine1" ( )
              3    2[  ] ==(                Down/ Polling)==>             [  ] "" ( )
    CA: node01 HCA-1:
          0xb8599f0300e2c1d1      5    1[  ] ==( 4X       25.78125 Gbps Active/  LinkUp)==>       3    1[  ] "leaf1" ( )

A switch's ports print the switch's own LID first; a CA's print the port GUID, then its LID.  A
node is known by its LID (a switch's port-0 LID, a CA port's base LID), which is what the remote
end prints; a remote end with no head of its own (``iblinkinfo --switches-only``) is a host whose
CA prints that description.  Down ports and ports "not available" are read past.  The
``--line`` form (``0xGUID "DESC" LID PORT[..] ==(..)==> 0xGUID LID PORT[..] "DESC" (..)``, one
line per port, no heads) is read too, its nodes by their LIDs alike; there nothing says which
node is a switch: a node that prints two or more ports is one, and so is every node a
single-port node is cabled to.  The widths and speeds are the active ones (``4X`` at
``25.78125 Gbps`` is 4xEDR: 100 Gb/s of data).

:func:`parse_iblinkinfo` gives the same :class:`~mpitaskmap.machines.fattree.ibnetdiscover.IbFabric`
as :func:`~mpitaskmap.machines.fattree.ibnetdiscover.parse_ibnetdiscover`, so
:func:`~mpitaskmap.machines.fattree.ibnetdiscover.fabric_topology` reads the tree, speeds, taper,
spines and host numbering from either.
"""

from __future__ import annotations

import re

from ...errors import InvalidInputError
from .ibnetdiscover import LANE_GBPS, IbFabric, IbLink, IbNode

__all__ = ["is_iblinkinfo", "parse_iblinkinfo", "SIGNAL_SPEEDS"]

#: The lane speed ``iblinkinfo`` prints (its signalling rate, Gb/s) -> the speed's name in :data:`LANE_GBPS`.
SIGNAL_SPEEDS = {"2.5": "SDR", "5.0": "DDR", "10.0": "QDR", "14.0625": "FDR", "25.78125": "EDR", "53.125": "HDR",
                 "106.25": "NDR", "212.5": "XDR"}

_HEAD = re.compile(r"^(Switch|CA|Router):\s+(?:(0x[0-9A-Fa-f]+)\s+)?(.*?):?\s*$")
_LINK = re.compile(r"==\((.*?)\)==>")
# the local end: [0xGUID ["DESC"]] LID PORT[EXT]; the remote end: [0xGUID] LID PORT[EXT] "DESC"
_LOCAL = re.compile(r'^(?:(0x[0-9A-Fa-f]+)\s+(?:"\s*(.*?)"\s+)?)?(\d+)\s+(\d+)\[[^\]]*\]\s*$')
_REMOTE = re.compile(r'^(?:(0x[0-9A-Fa-f]+)\s+)?(\d+)\s+(\d+)\[[^\]]*\]\s+"([^"]*)"')
_ACTIVE = re.compile(r"^\s*(\d+)X\s+([\d.]+)\s+Gbps(\s+\(FDR10\))?\s+Active/", re.IGNORECASE)


def is_iblinkinfo(text: str) -> bool:
    """Whether ``text`` reads as ``iblinkinfo`` output (a port line ``... ==( ... )==> ...``).

    Examples
    --------
    >>> is_iblinkinfo('Switch: 0x01 leaf1:\\n   3  1[  ] ==( 4X 25.78125 Gbps Active/ LinkUp)==>  5  1[  ] "n1" ( )\\n')
    True
    >>> is_iblinkinfo('Switch 36 "S-0001" # "leaf1"\\n')
    False
    """
    return any(_LINK.search(line) for line in text.splitlines())


def parse_iblinkinfo(text: str, source: str = "iblinkinfo") -> IbFabric:
    """Read ``iblinkinfo``'s output, default or ``--line`` form (module notes).

    Parameters
    ----------
    text : str
    source : str, optional
        Names the text in errors (a path).

    Returns
    -------
    IbFabric
        Nodes keyed ``lidN`` (kind ``S`` switch, ``H`` CA, ``R`` router), one link per active
        port line (GB/s from the width and speed; None for a speed it does not know).

    Raises
    ------
    InvalidInputError
        ``SOURCE:LINE: ...`` on a port line that does not read, a switch port line that does
        not print its switch's LID, two nodes claiming one LID, or no port line at all.

    Examples
    --------
    >>> f = parse_iblinkinfo('''Switch: 0x0a1 leaf1:
    ...    1    1[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==>    2    1[  ] "n1 HCA-1" ( )
    ... CA: n1 HCA-1:
    ...    0x0b2    2    1[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==>    1    1[  ] "leaf1" ( )''')
    >>> sorted((k, n.kind, n.description) for k, n in f.nodes.items()), f.links[0].gbytes
    ([('lid1', 'S', 'leaf1'), ('lid2', 'H', 'n1 HCA-1')], 12.5)
    """
    kinds = {"Switch": "S", "CA": "H", "Router": "R"}
    nodes: dict[str, IbNode] = {}
    seen: dict[str, tuple[str, int]] = {}  # remote ends: key -> (description, first line)
    ports: dict[str, set] = {}  # --line form: the ports every node prints
    links = []
    head: tuple[str, str, int] | None = None  # (kind, description, line) of the node whose ports follow
    head_key: str | None = None
    lines_seen = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        link = _LINK.search(line)
        if link is None:
            m = _HEAD.match(line)
            if m is None:
                raise InvalidInputError(f"{source}:{lineno}: not a line of iblinkinfo's output: {line!r}")
            head, head_key = (kinds[m.group(1)], m.group(3).strip(), lineno), None
            continue
        lines_seen = True
        local, remote = line[:link.start()].strip(), line[link.end():].strip()
        lm = _LOCAL.match(local)
        if lm is None:
            raise InvalidInputError(f"{source}:{lineno}: a port line starts [0xGUID] LID PORT[..]; got {local!r}")
        key = f"lid{int(lm.group(3))}"
        if head is not None:
            if head_key is None:
                head_key = key
                _claim(nodes, key, IbNode(head[0], key, head[1], head[2]), source, lineno)
            elif key != head_key and head[0] == "S":
                raise InvalidInputError(f"{source}:{lineno}: a port of switch {head[1]!r} prints LID "
                                        f"{key[3:]}, not the switch's {head_key[3:]}")
        else:  # --line: the node's description is on every one of its lines
            seen.setdefault(key, ((lm.group(2) or "").strip(), lineno))
            ports.setdefault(key, set()).add(int(lm.group(4)))
        active = _ACTIVE.match(link.group(1))
        if active is None or remote.startswith('"') or not remote or remote.startswith("["):
            continue  # down, not available: no cable to read
        rm = _REMOTE.match(remote)
        if rm is None:
            raise InvalidInputError(f"{source}:{lineno}: the far end reads [0xGUID] LID PORT[..] \"DESC\"; got "
                                    f"{remote!r}")
        peer = f"lid{int(rm.group(2))}"
        seen.setdefault(peer, (rm.group(4).strip(), lineno))
        speed = "FDR10" if active.group(3) else SIGNAL_SPEEDS.get(active.group(2))
        gbytes = None if speed is None else int(active.group(1)) * LANE_GBPS[speed] / 8.0
        links.append(IbLink(head_key if head is not None else key, int(lm.group(4)), peer, int(rm.group(3)), gbytes,
                            lineno))
    if not lines_seen:
        raise InvalidInputError(f"{source}: no port line (... ==( ... )==> ...): not iblinkinfo's output")
    if head is None:  # --line form: switches are the nodes with several ports and the hosts' peers
        single = {k for k, p in ports.items() if len(p) == 1}
        switches = {k for k, p in ports.items() if len(p) > 1}
        switches |= {l.peer for l in links if l.guid in single and l.guid not in switches}
        for key, (desc, lineno) in seen.items():
            nodes[key] = IbNode("S" if key in switches else "H", key, desc, lineno)
    for key, (desc, lineno) in seen.items():  # far ends printed by no head: hosts (iblinkinfo --switches-only)
        if key not in nodes:
            nodes[key] = IbNode("H", key, desc, lineno)
    return IbFabric(source, nodes, tuple(links))


def _claim(nodes: dict, key: str, node: IbNode, source: str, lineno: int) -> None:
    if key in nodes:
        raise InvalidInputError(f"{source}:{lineno}: LID {key[3:]} is {node.description!r} and "
                                f"{nodes[key].description!r} (line {nodes[key].line})")
    nodes[key] = node
