"""The ``"fattree"`` network kind: trees of switches, regular or read from Slurm.

Registers the kind's option checks, its assembly from gathered locations (a regular tree's
node numbers, or Slurm topology addresses), the simulated fat trees ``sim:fattree``,
``sim:frontera`` and ``sim:supermuc-ng`` and the ``--machine TOPOLOGY_FILE:NODELIST`` spec.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..._options import parse_float, parse_int
from ..._textio import rank_ranges
from ...errors import InvalidInputError, ProviderError
from ..kinds import Gathered, NetworkKind, SimForm, SpecForm, parse_sim_job, register_kind
from ..network_record import NetworkInfo, node_text
from .fattree import FAT_TREE_ROUTINGS, FatTreeMachine
from .hostlist import compress_hostlist
from .presets import FATTREE_PRESETS, fattree_machine, fattree_preset
from .slurm_topology import fattree_from_node_paths, is_topology_spec, parse_topology_addr, read_topology_spec

__all__ = ["fattree_network", "FATTREE_KIND", "FATTREE_SIM_KEYS"]

#: Options of a ``"fattree"`` network: from Slurm's topology addresses, or a regular tree.
FATTREE_ADDRESS_OPTIONS = ("pattern", "taper", "bandwidth", "routing")
FATTREE_REGULAR_OPTIONS = ("down", "up", "bandwidth", "routing")
#: Keys of ``sim:fattree`` (the presets take ``nodes``, ``ppn``, ``seed`` and ``routing``).
FATTREE_SIM_KEYS = ("leaves", "nodes_per_leaf", "taper", "levels", "leaves_per_pod", "nodes", "ppn", "seed", "bw",
                    "routing")


def _check_network(dims: tuple, options: tuple) -> None:
    keys = [k for k, _ in options]
    opts = dict(options)
    if "pattern" in opts:
        valid, form = FATTREE_ADDRESS_OPTIONS, "from topology addresses"
        if dims:
            raise InvalidInputError(f"dims: a fat tree from topology addresses has no dimensions; got {list(dims)}")
    elif "down" in opts and "up" in opts:
        valid, form = FATTREE_REGULAR_OPTIONS, "regular"
        n_tree = int(np.prod(opts["down"], dtype=np.int64))
        if dims != (n_tree,):
            raise InvalidInputError(f"dims: a regular fat tree's one dimension is its {n_tree} tree nodes "
                                    f"(prod of down {tuple(opts['down'])}); got {list(dims)}")
    else:
        raise InvalidInputError(f"options: a fattree network needs 'pattern' (topology addresses) or 'down' and 'up' "
                                f"(a regular tree); got keys {keys}")
    unknown = [k for k in keys if k not in valid]
    if unknown:
        raise InvalidInputError(f"options: unknown key {unknown[0]!r} of a {form} fattree network; valid: {list(valid)}")


def fattree_network(pattern: str, *, taper: float = 1.0, bandwidth: float = 12.5, routing: str = "dmodk") -> NetworkInfo:
    """Return the network of a fat tree whose ranks report Slurm topology addresses as node keys.

    Parameters
    ----------
    pattern : str
        ``SLURM_TOPOLOGY_ADDR_PATTERN`` (``switch.switch.node``, ``block.node``): equal on
        every rank, so a rank with another depth or plugin fails the runtime's network check.
    taper, bandwidth, routing
        As :func:`~mpitaskmap.machines.fattree.slurm_topology.fattree_from_node_paths`.

    Examples
    --------
    >>> fattree_network("switch.node", taper=4).options
    (('pattern', 'switch.node'), ('taper', 4.0), ('bandwidth', 12.5), ('routing', 'dmodk'))
    """
    return NetworkInfo(kind="fattree", options=(("pattern", str(pattern)), ("taper", float(taper)),
                                                ("bandwidth", float(bandwidth)), ("routing", str(routing))))


def _assemble(gathered: Gathered, network: NetworkInfo, name: str) -> FatTreeMachine:
    """The fat tree of a ``"fattree"`` network: from the ranks' tree nodes (regular) or their topology addresses."""
    coords, nodes, node_ids = gathered.coords, gathered.nodes, gathered.node_ids
    first_rank = np.sort(gathered.first_index)  # the first rank on node id k
    opts = dict(network.options)
    bandwidth, routing = opts.get("bandwidth", 12.5), opts.get("routing", "dmodk")
    if "down" in opts:  # a regular tree: the coordinate is the tree node
        return FatTreeMachine.regular(opts["down"], opts["up"], bandwidth, coords[:, 0], routing=routing, name=name)
    pattern = opts["pattern"]
    paths, names, rank_of_name, plugins = [], [], {}, set()
    for r in first_rank.tolist():
        key = node_text(nodes[r])
        try:
            addr = parse_topology_addr(key, pattern)
        except InvalidInputError as exc:
            raise InvalidInputError(f"locations: rank {r}: {exc}") from None
        if addr.plugin not in ("tree", "block"):
            raise InvalidInputError(f"locations: rank {r}: pattern {pattern!r} gives no switches; got {key!r}")
        if addr.node in rank_of_name:
            q = rank_of_name[addr.node]
            raise InvalidInputError(f"locations: ranks {q} and {r} are on node {addr.node!r} but report different "
                                    f"addresses {node_text(nodes[q])!r} and {key!r}")
        rank_of_name[addr.node] = r
        paths.append(addr.path)
        names.append(addr.node)
        plugins.add(addr.plugin)
    machine = fattree_from_node_paths(paths, names, node_ids, bandwidth=bandwidth, taper=opts.get("taper", 1.0),
                                      routing=routing, name=name, what="locations")
    if plugins == {"tree"}:  # after the structure's own checks, which name the fault more precisely
        _check_common_top(paths, names, node_ids)
    return machine


def _check_common_top(paths: list, names: list, node_ids: np.ndarray) -> None:
    """Raise unless every node's ``SLURM_TOPOLOGY_ADDR`` starts at one top switch.

    ``paths[k]`` and ``names[k]`` belong to node id ``k``; ``node_ids[r]`` is rank ``r``'s.
    A tree address lists every switch above the node, so two different tops are switches
    without a common ancestor: Slurm places no job across them unless
    ``TopologyParam=TopoOptional``, and then nothing says how they connect (the rule
    :func:`~mpitaskmap.machines.fattree.slurm_topology.node_paths` applies to a ``topology.conf``).
    """
    tops: dict[str, list] = {}  # top switch -> node ids below it
    for k, path in enumerate(paths):
        tops.setdefault(path[0], []).append(k)
    if len(tops) < 2:
        return
    parts = []
    for top, members in tops.items():
        ranks = np.flatnonzero(np.isin(node_ids, members))
        parts.append(f"{compress_hostlist([names[k] for k in members])} (rank{'s' if ranks.size > 1 else ''} "
                     f"{rank_ranges(ranks)}) below {top!r}")
    raise InvalidInputError(
        "locations: the job's nodes hang below switches without a common ancestor (SLURM_TOPOLOGY_ADDR): "
        f"{'; '.join(parts)}; Slurm places no job across switches without a common parent (unless "
        "TopologyParam=TopoOptional), and the addresses do not say how they connect: give the machine as a "
        "topology.conf with a switch above them (MPITASKMAP_COORDS_FILE=topology.conf:NODELIST)")


# -- the simulated fat trees -----------------------------------------------------------------------
def _sim_parse(kind: str, o: dict, s: str) -> dict:
    """The options of a simulated fat tree; its shape checked now by building it with one node."""
    p = parse_sim_job(o, s, routing="dmodk", routings=FAT_TREE_ROUTINGS)
    if kind == "fattree":
        shape = {key: parse_int(o[key], key, s) for key in ("leaves", "nodes_per_leaf", "taper", "levels",
                                                            "leaves_per_pod") if key in o}
        shape["bandwidth"] = parse_float(o.get("bw", 12.5), "bw", s, positive=True)
        p["shape"] = shape
        build = functools.partial(fattree_machine, **shape)
    else:
        build = functools.partial(fattree_preset, kind)
    p["build"] = build
    try:
        p["tree"] = build(nodes=1, ppn=1, seed=0, routing=p["routing"])
    except InvalidInputError as exc:
        raise InvalidInputError(f"{s}: {exc}") from None
    p["bandwidth"] = float(p["tree"].level_bandwidths()[0][0])
    return p


def _sim_build(p: dict, size: int, spec: str) -> FatTreeMachine:
    nodes = p["nodes"] if p["nodes"] is not None else math.ceil(size / p["ppn"])
    try:
        return p["build"](nodes=nodes, ppn=p["ppn"], seed=p["seed"], routing=p["routing"])
    except InvalidInputError as exc:
        raise ProviderError(f"sim: {spec!r} cannot hold a job of {size} ranks: {exc}") from None


def _sim_network(p: dict) -> NetworkInfo:
    """A regular ``"fattree"`` network holding the tree's shape: every rank assembles the same tree."""
    t: FatTreeMachine = p["tree"]
    return NetworkInfo(dims=(t.n_tree_nodes,), kind="fattree",
                       options=(("down", t.down_links), ("up", t.up_links), ("bandwidth", p["bandwidth"]),
                                ("routing", p["routing"])))


def _sim_locate(m: FatTreeMachine, p: dict, rank: int) -> tuple:
    """The tree node as the coordinate of a regular ``"fattree"`` network."""
    node = int(m.node_ids[rank])
    return (node,), m.node_names[node]


def _sim_form(kind: str, keys: tuple) -> SimForm:
    return SimForm(kind, keys, functools.partial(_sim_parse, kind), _sim_build, _sim_network, _sim_locate)


def _topology_path(text: str) -> str:
    return text[5:] if text.lower().startswith("file:") else text


def _load_topology(text: str, n_ranks: int, what: str) -> tuple:
    """``--machine TOPOLOGY_FILE:NODELIST[:...]``: the file provider's topology spec, by the same builder."""
    path = _topology_path(text)
    machine = read_topology_spec(path, f"{what} {text!r}").machine()
    return machine, path, list(machine.node_names)


FATTREE_KIND = register_kind(NetworkKind(
    "fattree", _assemble, _check_network, machine_type=FatTreeMachine,
    sim_forms=(_sim_form("fattree", FATTREE_SIM_KEYS),
               *(_sim_form(preset, ("nodes", "ppn", "seed", "routing")) for preset in FATTREE_PRESETS)),
    spec_forms=(SpecForm(lambda text: is_topology_spec(_topology_path(text)), _load_topology),)))
