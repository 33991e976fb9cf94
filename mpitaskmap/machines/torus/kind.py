"""The ``"torus"`` network kind: routers on an n-D torus or mesh (Gemini, BG/Q, Tofu, simulated).

Registers the kind's checks, its assembly from gathered router coordinates, the simulated
machines ``sim:titan``, ``sim:bgq`` and ``sim:torus``, the headerless machine-file form and
``--machine hopper``.
"""

from __future__ import annotations

import math

from ..._options import parse_float, parse_int, parse_lengths, parse_wrap
from ..._validate import as_narrowest_coords
from ...errors import InvalidInputError, ProviderError
from ..kinds import Gathered, MachineFileForm, NetworkKind, SimForm, SpecForm, parse_sim_job, register_kind
from ..network_record import NetworkInfo
from .machine_file import hopper_machine, read_torus_file, torus_file_hosts, torus_file_lines
from .presets import BGQ_DIM_NAMES, BGQ_ORDERS, TITAN_DIMS, bgq_machine, bgq_node_name, titan_machine, torus_machine
from .torus import TorusMachine

__all__ = ["TORUS_KIND"]


def _check_network(dims: tuple, options: tuple) -> None:
    if not dims:
        raise InvalidInputError("dims: a torus network needs at least one dimension; got ()")


def _assemble(gathered: Gathered, network: NetworkInfo, name: str) -> TorusMachine:
    return TorusMachine(
        as_narrowest_coords(gathered.coords),  # int16 on every real network; the machine keeps them so
        network.dims,
        wrap=list(network.wrap),
        node_ids=gathered.node_ids,
        bandwidth=network.bandwidth,
        dim_names=list(network.dim_names) if network.dim_names is not None else None,
        name=name,
    )


def _router_location(machine, rank: int, node: str) -> tuple:
    return tuple(int(c) for c in machine.router_coords[rank]), node


# -- sim:titan -------------------------------------------------------------------------------------
def _titan_parse(o: dict, s: str) -> dict:
    p = parse_sim_job(o, s, ppn=16)
    p["dims"] = parse_lengths(o.get("dims", TITAN_DIMS), "dims", s, n=3)
    busy = parse_float(o.get("busy", 0.5), "busy", s)
    if not 0.0 <= busy < 1.0:
        raise InvalidInputError(f"{s}: busy must lie in [0, 1); got {busy}")
    p["busy"] = busy
    return p


def _titan_build(p: dict, size: int, spec: str) -> TorusMachine:
    nodes = p["nodes"] if p["nodes"] is not None else math.ceil(size / p["ppn"])
    try:
        return titan_machine(nodes, cores_per_node=p["ppn"], dims=p["dims"], busy_fraction=p["busy"], seed=p["seed"])
    except InvalidInputError as exc:
        raise ProviderError(f"sim: {spec!r} cannot hold a job of {size} ranks: {exc}") from None


TITAN_FORM = SimForm(
    "titan", ("nodes", "ppn", "seed", "busy", "dims"), _titan_parse, _titan_build,
    lambda p: NetworkInfo(dims=p["dims"], wrap=(True,) * 3, bandwidth="gemini", dim_names=("X", "Y", "Z")),
    lambda m, p, rank: _router_location(m, rank, f"nid{int(m.node_ids[rank]):05d}"))


# -- sim:bgq ---------------------------------------------------------------------------------------
def _bgq_parse(o: dict, s: str) -> dict:
    p: dict = {"shape": parse_lengths(o.get("shape", "4x4x4x4x2"), "shape", s, n=5),
               "ppn": parse_int(o.get("ppn", 16), "ppn", s)}
    order = o.get("order", "ABCDET").upper()
    if order not in BGQ_ORDERS:
        raise InvalidInputError(f"{s}: order must be a permutation of ABCDET; got {order!r}")
    p["order"] = order
    p["wrap"] = parse_wrap(o.get("wrap", "1"), "wrap", s, 5)
    return p


BGQ_FORM = SimForm(
    "bgq", ("shape", "ppn", "order", "wrap"), _bgq_parse,
    lambda p, size, spec: bgq_machine(p["shape"], ranks_per_node=p["ppn"], order=p["order"], wrap=list(p["wrap"])),
    lambda p: NetworkInfo(dims=p["shape"], wrap=p["wrap"], bandwidth=None, dim_names=BGQ_DIM_NAMES),
    lambda m, p, rank: _router_location(m, rank, bgq_node_name(m.router_coords[rank])))


# -- sim:torus -------------------------------------------------------------------------------------
def _torus_parse(o: dict, s: str) -> dict:
    if "dims" not in o:
        raise InvalidInputError(f"{s}: sim:torus needs dims=, e.g. dims=4x4x4")
    p: dict = {"dims": parse_lengths(o["dims"], "dims", s)}
    p["ppn"] = parse_int(o.get("ppn", 1), "ppn", s)
    p["npr"] = parse_int(o.get("npr", 1), "npr", s)
    p["wrap"] = parse_wrap(o.get("wrap", "1"), "wrap", s, len(p["dims"]))
    return p


TORUS_FORM = SimForm(
    "torus", ("dims", "ppn", "npr", "wrap"), _torus_parse,
    lambda p, size, spec: torus_machine(p["dims"], wrap=list(p["wrap"]), cores_per_node=p["ppn"],
                                        nodes_per_router=p["npr"]),
    lambda p: NetworkInfo(dims=p["dims"], wrap=p["wrap"], bandwidth=None, dim_names=None),
    lambda m, p, rank: _router_location(m, rank, f"node{int(m.node_ids[rank])}"))

HOPPER_SPEC = SpecForm(lambda text: text.lower() == "hopper", lambda text, n_ranks, what: (hopper_machine(), "hopper", None))

def _network_of(m: TorusMachine) -> NetworkInfo:
    """The torus network of a machine read whole: its dims, wrap flags, bandwidths and dimension names."""
    return NetworkInfo(dims=tuple(int(d) for d in m.dims), wrap=tuple(bool(w) for w in m.wrap),
                       bandwidth=[b.tolist() for b in m.link_bandwidth], dim_names=tuple(m.dim_names))


TORUS_KIND = register_kind(NetworkKind(
    "torus", _assemble, _check_network, machine_type=TorusMachine, network_of=_network_of,
    coords_of=lambda m, rank: tuple(int(c) for c in m.router_coords[rank]),
    sim_forms=(TITAN_FORM, BGQ_FORM, TORUS_FORM),
    file_form=MachineFileForm(read_torus_file, torus_file_lines, network_line=False, hosts=torus_file_hosts),
    spec_forms=(HOPPER_SPEC,)))
