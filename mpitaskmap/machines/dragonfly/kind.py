"""The ``"dragonfly"`` network kind: HPE Slingshot and Cray Aries dragonflies.

Registers the kind's option checks, its assembly from gathered locations (``(group, switch,
slot)`` coordinates, or HPE Cray EX xnames: :mod:`~.xname`), the simulated dragonflies
``sim:dragonfly``, ``sim:frontier``, ``sim:perlmutter`` and ``sim:aries`` and the
``network dragonfly`` machine-file form (:mod:`~.machine_file`).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..._options import parse_float, parse_int, parse_lengths
from ...errors import InvalidInputError, ProviderError
from ..kinds import Gathered, MachineFileForm, NetworkKind, SimForm, parse_sim_job, register_kind
from ..network_record import NetworkInfo, node_text
from .dragonfly import DRAGONFLY_CLASS_BW_KEYS, DRAGONFLY_ROUTINGS, DragonflyMachine, class_bandwidth_options
from .machine_file import read_dragonfly_file
from .presets import DRAGONFLY_PRESETS, dragonfly_machine, dragonfly_preset
from .xname import XNAME_APPROXIMATION, XNAME_DRAGONFLY_OPTIONS, xname_place

__all__ = ["dragonfly_network", "DRAGONFLY_KIND", "DRAGONFLY_SIM_KEYS"]

#: Options of a ``"dragonfly"`` network (:func:`dragonfly_network`), all required.
DRAGONFLY_OPTIONS = ("switches", "global_links", "global_ports", "bandwidth", "routing")
#: Options of a ``"dragonfly"`` network from xnames (:func:`xname_dragonfly_network`), all required.
XNAME_DRAGONFLY_OPTIONS = ("xname", "n_groups", "global_links", "global_ports", "bandwidth", "routing")
#: Keys of ``sim:dragonfly``; ``n_groups`` is the machine's groups, ``groups`` the allocation's group limit.
DRAGONFLY_SIM_KEYS = ("n_groups", "switches", "nodes_per_switch", "global_links", "global_ports", "bw",
                      *DRAGONFLY_CLASS_BW_KEYS, "nodes", "ppn", "seed", "groups", "routing")


def _check_network(dims: tuple, options: tuple) -> None:
    keys = [k for k, _ in options]
    valid, form = (XNAME_DRAGONFLY_OPTIONS, "dragonfly network from xnames") if "xname" in keys else \
        (DRAGONFLY_OPTIONS, "dragonfly network")
    unknown = [k for k in keys if k not in valid]
    if unknown:
        raise InvalidInputError(f"options: unknown key {unknown[0]!r} of a {form}; valid: {list(valid)}")
    missing = [k for k in valid if k not in keys]
    if missing:
        raise InvalidInputError(f"options: a {form} needs {list(valid)}; {missing[0]!r} is missing")
    if "xname" in keys:
        if dims:
            raise InvalidInputError(f"dims: a dragonfly network from xnames has no dimensions (node keys are xnames); "
                                    f"got {list(dims)}")
        return
    switches = dict(options)["switches"]
    per_group = int(np.prod(switches, dtype=np.int64))
    if len(dims) != 3 or dims[1] != per_group:
        raise InvalidInputError(f"dims: a dragonfly network's dimensions are (groups, {per_group} switches "
                                f"(switches {switches!r}), nodes per switch); got {list(dims)}")


def dragonfly_network(machine: DragonflyMachine) -> NetworkInfo:
    """Return the ``"dragonfly"`` network of a dragonfly machine's shape: whatever its allocation, every rank the same.

    Examples
    --------
    >>> net = dragonfly_network(DragonflyMachine(3, (2, 2), 2, [0], bandwidth=10.0))
    >>> net.dims, net.options[:3]
    ((3, 4, 2), (('switches', (2, 2)), ('global_links', 1), ('global_ports', 1)))
    """
    switches = machine.switches_per_group if machine.wiring == "all-to-all" else (machine.rows, machine.columns)
    return NetworkInfo(dims=(machine.n_groups, machine.switches_per_group, machine.nodes_per_switch),
                       kind="dragonfly",
                       options=(("switches", switches), ("global_links", machine.global_links),
                                ("global_ports", machine.global_ports),
                                ("bandwidth", tuple(machine.class_bandwidths().items())),
                                ("routing", machine.routing)))


def _assemble(gathered: Gathered, network: NetworkInfo, name: str) -> DragonflyMachine:
    """The dragonfly of a ``"dragonfly"`` network: from the ranks' (group, switch, slot), or their xnames."""
    coords, nodes, first_index, inverse = gathered.coords, gathered.nodes, gathered.first_index, gathered.inverse
    opts = dict(network.options)
    if "xname" in opts:
        coords, G, name = _xname_places(nodes, first_index, inverse, opts, name)
        S, n = opts["xname"][0] * opts["xname"][1], opts["xname"][2] * opts["xname"][3]
        switches = S
    else:
        (G, S, n), switches = network.dims, opts["switches"]
    number = (coords[:, 0].astype(np.int64) * S + coords[:, 1]) * n + coords[:, 2]
    firsts = np.sort(first_index)
    values, count = np.unique(number[firsts], return_counts=True)
    if (count > 1).any():  # two node keys on one (group, switch, slot)
        v = values[np.flatnonzero(count > 1)[0]]
        q, r = (int(x) for x in firsts[number[firsts] == v][:2])
        raise InvalidInputError(f"locations: ranks {q} and {r} are on nodes {node_text(nodes[q])!r} and "
                                f"{node_text(nodes[r])!r} but report the same (group, switch, slot) "
                                f"{tuple(int(c) for c in coords[r])}")
    return DragonflyMachine(G, switches, n, number, global_links=opts["global_links"],
                            global_ports=opts["global_ports"], bandwidth=dict(opts["bandwidth"]),
                            routing=opts["routing"], name=name)


def _xname_places(nodes: np.ndarray, first_index: np.ndarray, inverse: np.ndarray, opts: dict,
                  name: str) -> tuple[np.ndarray, int, str]:
    """(group, switch, slot) of every rank from the xnames of its node key, the groups and the machine's name.

    The job's cabinets in ascending number are groups 0, 1, ... (:func:`xname_dragonfly_network`).
    """
    places = np.empty((first_index.size, 3), dtype=np.int64)
    for k, r in enumerate(first_index.tolist()):
        try:
            places[k] = xname_place(node_text(nodes[r]), opts["xname"])
        except InvalidInputError as exc:
            raise InvalidInputError(f"locations: rank {r}: {exc}") from None
    cabinets, group = np.unique(places[:, 0], return_inverse=True)
    G = opts["n_groups"] if opts["n_groups"] is not None else max(2, cabinets.size)
    if cabinets.size > G:
        raise InvalidInputError(f"locations: the job's nodes are in {cabinets.size} cabinets (x{cabinets[0]} .. "
                                f"x{cabinets[-1]}) but the network has n_groups={G} groups")
    places[:, 0] = group.ravel()
    return places[inverse.ravel()], G, f"{name} [{XNAME_APPROXIMATION}]"


# -- the simulated dragonflies ---------------------------------------------------------------------
def _sim_parse(kind: str, o: dict, s: str) -> dict:
    """The options of a simulated dragonfly; its shape (and group limit) checked now by building it with one node."""
    p = parse_sim_job(o, s, routing="minimal", routings=DRAGONFLY_ROUTINGS)
    if kind == "dragonfly":
        shape: dict = {"n_groups": parse_int(o.get("n_groups", 9), "n_groups", s, minimum=2)}
        switches = parse_lengths(o.get("switches", 4), "switches", s)
        if len(switches) > 2:
            raise InvalidInputError(f"{s}: switches must be S (all-to-all) or RxC (rows x columns, Aries); "
                                    f"got {o['switches']!r}")
        shape["switches"] = switches[0] if len(switches) == 1 else switches
        for key in ("nodes_per_switch", "global_links", "global_ports"):
            if key in o:
                shape[key] = parse_int(o[key], key, s)
        shape["bandwidth"] = parse_float(o.get("bw", 25.0), "bw", s, positive=True)
        per_class = class_bandwidth_options(o, s)
        if per_class:  # bw on every class (given or the default), then the classes named (as in a machine file)
            try:
                every = dragonfly_machine(**shape, nodes=1).class_bandwidths() if "bw" in o else {}
            except InvalidInputError as exc:
                raise InvalidInputError(f"{s}: {exc}") from None
            shape["bandwidth"] = {**every, **per_class}
        build = functools.partial(dragonfly_machine, **shape)
    else:
        build = functools.partial(dragonfly_preset, kind)
    p["groups"] = parse_int(o["groups"], "groups", s) if "groups" in o else None
    p["build"] = build
    try:
        p["shape"] = build(nodes=1, ppn=1, seed=0, groups=p["groups"], routing=p["routing"])
    except InvalidInputError as exc:
        raise InvalidInputError(f"{s}: {exc}") from None
    return p


def _sim_build(p: dict, size: int, spec: str) -> DragonflyMachine:
    nodes = p["nodes"] if p["nodes"] is not None else math.ceil(size / p["ppn"])
    try:
        return p["build"](nodes=nodes, ppn=p["ppn"], seed=p["seed"], groups=p["groups"], routing=p["routing"])
    except InvalidInputError as exc:
        raise ProviderError(f"sim: {spec!r} cannot hold a job of {size} ranks: {exc}") from None


def _sim_locate(m: DragonflyMachine, p: dict, rank: int) -> tuple:
    """``(group, switch, slot)`` in a ``"dragonfly"`` network; node names ``nid%05d`` of the node number."""
    return tuple(int(c) for c in m.locate(rank)[0]), f"nid{int(m.node_ids[rank]):05d}"


def _sim_form(kind: str, keys: tuple) -> SimForm:
    return SimForm(kind, keys, functools.partial(_sim_parse, kind), _sim_build,
                   lambda p: dragonfly_network(p["shape"]), _sim_locate)


DRAGONFLY_KIND = register_kind(NetworkKind(
    "dragonfly", _assemble, _check_network, machine_type=DragonflyMachine, network_of=dragonfly_network,
    coords_of=lambda m, rank: tuple(int(c) for c in m.locate(rank)[0]),
    sim_forms=(_sim_form("dragonfly", DRAGONFLY_SIM_KEYS),
               *(_sim_form(preset, ("nodes", "ppn", "seed", "groups", "routing")) for preset in DRAGONFLY_PRESETS)),
    file_form=MachineFileForm(read_dragonfly_file)))
