"""The dragonfly form of a machine file: a ``network dragonfly`` line, then one line per host.

The form is described in :mod:`mpitaskmap.machines.machine_file`; the kind registers
:func:`read_dragonfly_file` as its reader.
"""

from __future__ import annotations

import os

import numpy as np

from ..._options import parse_choice, parse_float, parse_int, parse_lengths, parse_options
from ..._textio import counted
from ...errors import InvalidInputError
from ..machine_file import file_error, file_ints
from .dragonfly import DRAGONFLY_CLASS_BW_KEYS, DRAGONFLY_ROUTINGS, DragonflyMachine, class_bandwidth_options

__all__ = ["read_dragonfly_file", "DRAGONFLY_FILE_KEYS"]

#: Keys of a ``network dragonfly`` line (:mod:`mpitaskmap.machines.machine_file`).
DRAGONFLY_FILE_KEYS = ("n_groups", "switches", "nodes_per_switch", "global_links", "global_ports", "routing", "bw",
                       *DRAGONFLY_CLASS_BW_KEYS)


def read_dragonfly_file(path: str | os.PathLike, lines: list, bandwidth, name: str | None
                        ) -> tuple[DragonflyMachine, list[str]]:
    """The dragonfly form (module notes): the machine and the host name of every node id ('' where none)."""
    lineno, raw, tok = lines[0]
    if len(tok) < 2 or tok[1].lower() != "dragonfly":
        raise file_error(path, lineno, raw, "the network line is 'network dragonfly KEY=VALUE ...' (dragonfly is the only "
                   "network a machine file names; a torus file has a 'dims' line instead)")
    what = f"{path}:{lineno}"
    o = parse_options(",".join(tok[2:]), DRAGONFLY_FILE_KEYS, what)
    missing = [k for k in ("n_groups", "switches", "nodes_per_switch") if k not in o]
    if missing:
        raise file_error(path, lineno, raw, f"the network line needs {missing[0]}= (n_groups, switches and "
                   "nodes_per_switch are required)")
    switches = parse_lengths(o["switches"], "switches", what)
    if len(switches) > 2:
        raise file_error(path, lineno, raw, f"switches is S (all-to-all, Slingshot) or RxC (rows x columns, Aries); "
                   f"got switches={o['switches']}")
    n_groups = parse_int(o["n_groups"], "n_groups", what, minimum=2)
    per_switch = parse_int(o["nodes_per_switch"], "nodes_per_switch", what)
    global_links = parse_int(o.get("global_links", 1), "global_links", what)
    ports = parse_int(o["global_ports"], "global_ports", what) if "global_ports" in o else None
    routing = parse_choice(o.get("routing", "minimal"), "routing", what, DRAGONFLY_ROUTINGS)

    def build(proc_nodes, bw, label=None) -> DragonflyMachine:
        return DragonflyMachine(n_groups, switches[0] if len(switches) == 1 else switches, per_switch, proc_nodes,
                                global_links=global_links, global_ports=ports, bandwidth=bw, routing=routing,
                                name=label)

    per_class = class_bandwidth_options(o, what)
    try:  # the shape and bandwidths checked on the network line, by the machine itself (one node)
        probe = build([0], parse_float(o["bw"], "bw", what) if "bw" in o else 25.0)
        if bandwidth is None and per_class:  # bw for every class, then the classes named
            bandwidth = {**(probe.class_bandwidths() if "bw" in o else {}), **per_class}
        if bandwidth is not None:
            probe = build([0], bandwidth)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{what}: {exc}; got {raw.strip()!r}") from None
    G, R, C, n = probe.n_groups, probe.rows, probe.columns, probe.nodes_per_switch
    row_column = probe.wiring == "row-column"
    form = "host NAME RANKS GROUP ROW COLUMN" if row_column else "host NAME RANKS GROUP SWITCH"
    seen: dict[str, int] = {}  # host -> line
    on_switch: dict[int, list[int]] = {}  # switch of the machine -> lines of its hosts
    numbers: list[int] = []
    ranks: list[int] = []
    names: list[str] = []
    for lineno, raw, tok in lines[1:]:
        key = tok[0].lower()
        if key == "network":
            raise file_error(path, lineno, raw, f"a second network line (the first is line {lines[0][0]})")
        if key != "host":
            raise file_error(path, lineno, raw, f"a 'network dragonfly' file has '{form}' lines after its network line "
                       "(torus directives and coordinate lines are the torus form; the two forms do not mix)")
        if len(tok) != len(form.split()):
            raise file_error(path, lineno, raw, f"a host line of this {probe.wiring} dragonfly is '{form}' "
                       f"({len(form.split())} fields)")
        host = tok[1]
        if host in seen:
            raise file_error(path, lineno, raw, f"host {host!r} is given on line {seen[host]} already; a host is one node "
                       "on one switch: give it once, with all its ranks")
        vals = file_ints(tok[2:], path, lineno, raw, form.split(None, 2)[2].lower().replace(" ", ", "))
        if vals[0] < 1:
            raise file_error(path, lineno, raw, f"RANKS must be positive; got {vals[0]}")
        fields = list(zip(("group", "row", "column") if row_column else ("group", "switch"), vals[1:],
                          (G, R, C) if row_column else (G, R * C)))
        for field, value, bound in fields:
            if not 0 <= value < bound:
                raise file_error(path, lineno, raw, f"{field} {value} outside [0, {bound})")
        g = vals[1]
        s = vals[2] * C + vals[3] if row_column else vals[2]
        taken = on_switch.setdefault(g * R * C + s, [])
        if len(taken) == n:
            raise file_error(path, lineno, raw, f"switch {s} of group {g} has {n} nodes, all taken by the hosts of lines "
                       f"{', '.join(map(str, taken))}; host {host!r} is one too many")
        seen[host] = lineno
        numbers.append(int(probe.node_number(g, s, len(taken))[0]))
        taken.append(lineno)
        ranks.append(vals[0])
        names.append(host)
    if not numbers:
        raise InvalidInputError(f"{path}: no ranks found (no '{form}' line after the network line)")
    sw = str(o["switches"])
    sw_words = counted(int(sw), "switch", "switches") if sw.isdigit() else f"{sw} switches"
    label = (f"{os.path.basename(str(path))} (dragonfly: {counted(G, 'group')} x {sw_words} x {counted(n, 'node')}, "
             f"{counted(probe.global_links, 'global link')} per pair, {probe.routing} routing)")
    machine = build(np.repeat(numbers, ranks), probe.class_bandwidths(), name or label)
    by_node = [""] * (max(numbers) + 1)
    for k, host in zip(numbers, names):
        by_node[k] = host
    return machine, by_node
