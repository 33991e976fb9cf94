"""Time of exchange steps under SimGrid's flow-level network model, computed in-process.

:func:`fluid_exchange` replays the exchange of a task graph under a mapping as
:func:`mpitaskmap.sim.simgrid_replay.simulate_exchange` does on SimGrid -- the same platform
(:func:`mpitaskmap.sim.simgrid.platform_xml`, explicit form: the machine's link bandwidths, one
latency per link, the machine's routes, node links or a router's crossbar), the same
messages (every edge between tasks of different nodes, all started at once) -- but with the
flow-level model written out in a Cython kernel (``cext/_fluid.pyx``) instead of a
subprocess, so it needs no SimGrid and costs milliseconds to a second at thousands of tasks.
It also replays several steps as an application under SMPI runs them (``steps``: each rank
starts its next step when its messages have arrived), which SimGrid's one-step replay does
not: the waits that build up between ranks over steps are what separate mappings whose
one-step times tie.

The model
---------
SimGrid's ``CM02`` family of network models (the ``SMPI`` model is ``CM02`` with
message-size-dependent corrections), for a message of ``B`` bytes on a route of links
``l`` with bandwidth ``W_l`` and latency ``L_l``:

* it starts after ``lat_factor(B) * sum(L_l)`` seconds;
* then it is a flow whose rate is its share of a *weighted* max-min fair allocation of
  the links' bandwidth: a flow's sharing penalty is ``sum(L_l) + weight_S * sum(1 / W_l)``
  (RTT-weighted sharing: long routes get less), its rate on the links it crosses is
  proportional to 1 / penalty, and with cross-traffic it also loads every link of the
  reverse route with ``crosstraffic`` times its rate (the acknowledgements);
* it sends ``bw_factor(B)`` bytes per byte of its share; its bytes gone, it ends.

Rates are recomputed whenever a message starts or ends.  :data:`SMPI` is the model an MPI
application runs under in SimGrid (``network/model:SMPI``: SimGrid 3.32's default factor
tables, ``weight_S`` = 8775, cross-traffic 0.05) and the default of every replay of the
library (:data:`DEFAULT_NETWORK_MODEL`: this one, the judge's, ``simulate_exchange``'s);
:data:`CM02` is the plain fluid model (``CM02.simgrid_config`` in SimGrid), on request.
Each model carries its SimGrid settings (:attr:`NetworkModel.simgrid_config`), so one name
selects the same model here and in SimGrid.  Not modelled: SimGrid's TCP-window bound on a
flow's rate (``network/TCP-gamma`` / (2 x latency): terabytes per second at the sub-
microsecond latencies of a torus, far above any link) and wifi links.  The tests check the
kernel against SimGrid itself, message by message, where SimGrid is installed.

Routes that split
-----------------
The model is read from the machine's network contract
(:meth:`~mpitaskmap.machines.Machine.routes`), so it replays any machine with links.  Where
a pair's traffic splits over several paths (fractions below 1: ECMP, PERCS striping), which
SimGrid cannot express (one route per host pair), the message stays one flow that takes
``fraction`` x its rate on each link, so its rate is bounded by ``W_l / fraction`` on every
link; its latency and penalty sum ``fraction x L_l`` and ``weight_S x fraction / W_l``: the
expected values over its paths.

Sources and where the library differs from SimGrid: ALGORITHMS.md section 10.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import _fluid
from .._validate import as_index_array, check_bytes_per_weight
from ..errors import InvalidInputError
from ..machines import Machine, as_machine
from ..graphs.taskgraph import TaskGraph
from ..metrics import DEFAULT_MESSAGE_MODEL, message_model_for
from .params import DEFAULT_LOOPBACK, platform_parameters

__all__ = ["NetworkModel", "SMPI", "CM02", "NETWORK_MODELS", "DEFAULT_NETWORK_MODEL", "network_model",
           "FluidExchange", "exchange_messages", "step_lower_bound", "check_resolution", "fluid_exchange"]

#: SMPI's default ``smpi/bw-factor`` (SimGrid 3.32): (smallest message size in bytes, factor),
#: largest size first; a message takes the factor of the first row whose size it reaches.
SMPI_BANDWIDTH_FACTORS = ((65472, 0.940694), (15424, 0.697866), (9376, 0.58729), (5776, 1.08739),
                          (3484, 0.77493), (1426, 0.608902), (732, 0.341987), (257, 0.338112), (0, 0.812084))
#: SMPI's default ``smpi/lat-factor`` (SimGrid 3.32), as :data:`SMPI_BANDWIDTH_FACTORS`.
SMPI_LATENCY_FACTORS = ((65472, 11.6436), (15424, 3.48845), (9376, 2.59299), (5776, 2.18796), (3484, 1.88101),
                        (1426, 1.61075), (732, 1.9503), (257, 1.95341), (0, 2.01467))


#: SMPI's ``smpi/send-is-detached-thresh`` (SimGrid 3.32 default): a send of fewer bytes is
#: detached (its request completes at once, the data goes when the receive is posted); a
#: larger one completes when its data has arrived.  In a replay of several steps a rank
#: waits for its sends of at least this size.
SMPI_DETACHED_SEND_BYTES = 65536


def _factor_table(rows, name: str) -> tuple[tuple[float, float], ...]:
    table = tuple((float(size), float(value)) for size, value in rows)
    if not table or table[-1][0] != 0.0:
        raise InvalidInputError(f"{name}: the last row must be for size 0 (every message needs a factor)")
    if any(a[0] <= b[0] for a, b in zip(table, table[1:])):
        raise InvalidInputError(f"{name}: sizes must be strictly decreasing; got {[s for s, _ in table]}")
    if any(not np.isfinite(v) or v <= 0 for _, v in table):
        raise InvalidInputError(f"{name}: factors must be positive and finite; got {[v for _, v in table]}")
    return table


@dataclass(frozen=True)
class NetworkModel:
    """A flow-level network model of SimGrid's ``CM02`` family.

    Attributes
    ----------
    name : str
        What reports call it.
    weight_s : float
        ``network/weight-S``, bytes: a flow's sharing penalty adds ``weight_s / W`` seconds
        per link of bandwidth ``W`` it crosses (0: latency-only penalties).
    crosstraffic : float
        Share of a flow's rate it also takes on each link of its reverse route (0: none).
    bandwidth_factors, latency_factors : tuple of (size, factor)
        Message-size-dependent corrections, largest size first, the last for size 0.
    simgrid_config : tuple of str
        SimGrid ``--cfg`` settings that select this model in SimGrid
        (:func:`mpitaskmap.sim.simgrid_replay.simulate_exchange`'s ``config``); empty for a
        model SimGrid has no name for.
    """

    name: str
    weight_s: float
    crosstraffic: float
    bandwidth_factors: tuple = ((0.0, 1.0),)
    latency_factors: tuple = ((0.0, 1.0),)
    simgrid_config: tuple = ()
    _checked: bool = field(default=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not np.isfinite(self.weight_s) or self.weight_s < 0:
            raise InvalidInputError(f"weight_s: must be >= 0 and finite; got {self.weight_s!r}")
        if not np.isfinite(self.crosstraffic) or not 0 <= self.crosstraffic <= 1:
            raise InvalidInputError(f"crosstraffic: must lie in [0, 1]; got {self.crosstraffic!r}")
        object.__setattr__(self, "bandwidth_factors", _factor_table(self.bandwidth_factors, "bandwidth_factors"))
        object.__setattr__(self, "latency_factors", _factor_table(self.latency_factors, "latency_factors"))
        if isinstance(self.simgrid_config, str) or not all(isinstance(c, str) for c in self.simgrid_config):
            raise InvalidInputError(f"simgrid_config: expected a sequence of 'KEY:VALUE' strings; got "
                                    f"{self.simgrid_config!r}")
        object.__setattr__(self, "simgrid_config", tuple(self.simgrid_config))

    @staticmethod
    def _lookup(table, size: np.ndarray) -> np.ndarray:
        out = np.empty(size.shape, dtype=np.float64)
        done = np.zeros(size.shape, dtype=bool)
        for threshold, value in table:
            hit = ~done & (size >= threshold)
            out[hit] = value
            done |= hit
        return out

    def bandwidth_factor(self, size) -> np.ndarray:
        """Bandwidth factor of messages of ``size`` bytes (array)."""
        return self._lookup(self.bandwidth_factors, np.asarray(size, dtype=np.float64))

    def latency_factor(self, size) -> np.ndarray:
        """Latency factor of messages of ``size`` bytes (array)."""
        return self._lookup(self.latency_factors, np.asarray(size, dtype=np.float64))


#: SimGrid's SMPI network model (``network/model:SMPI``): what an MPI application sees.
SMPI = NetworkModel("SMPI", weight_s=8775.0, crosstraffic=0.05, bandwidth_factors=SMPI_BANDWIDTH_FACTORS,
                    latency_factors=SMPI_LATENCY_FACTORS, simgrid_config=("network/model:SMPI",))
#: SimGrid's CM02 model without cross-traffic: the plain max-min fluid model, no TCP or SMPI corrections.
CM02 = NetworkModel("CM02", weight_s=20537.0, crosstraffic=0.0,
                    simgrid_config=("network/model:CM02", "network/crosstraffic:0"))
#: Models by name.
NETWORK_MODELS = {m.name: m for m in (SMPI, CM02)}
#: The network model of every replay unless told otherwise: SMPI's, the one an application
#: under SMPI runs on (the fluid judge, :func:`fluid_exchange`,
#: :func:`~mpitaskmap.sim.simgrid_replay.simulate_exchange`, ``compare --simulate``, the demo).
DEFAULT_NETWORK_MODEL = SMPI


def network_model(model: NetworkModel | str) -> NetworkModel:
    """The :class:`NetworkModel` of ``model``: itself, or the one of :data:`NETWORK_MODELS` by that name.

    Examples
    --------
    >>> network_model("CM02").simgrid_config
    ('network/model:CM02', 'network/crosstraffic:0')
    """
    if isinstance(model, str):
        if model not in NETWORK_MODELS:
            raise InvalidInputError(f"model: unknown network model {model!r}; valid: {sorted(NETWORK_MODELS)}")
        return NETWORK_MODELS[model]
    if not isinstance(model, NetworkModel):
        raise InvalidInputError(f"model: expected a NetworkModel or a name; got {type(model).__name__}")
    return model


@dataclass(frozen=True)
class FluidExchange:
    """One exchange step replayed by :func:`fluid_exchange`.

    Attributes
    ----------
    seconds : float
        When the last message ended (s): of the last step.
    src, dst : ndarray
        Source and destination node of every message: the edges between nodes in CSR order,
        then (``steps`` > 1) those inside a node in CSR order.
    size : ndarray
        Bytes of every message.
    finish : ndarray
        When each message ended (s), in its last step.
    n_events : int
        How many times the rates were recomputed.
    model : str
        The network model's name.
    work : int
        Route entries of the messages whose rates were recomputed, summed over the events:
        what the replay cost, in the unit of ``max_work``.
    complete : bool
        False when the replay stopped at ``max_work`` or was not built past
        ``max_route_entries`` (``seconds`` and ``finish`` are then inf).
    steps : int
        Exchange steps replayed.
    src_task, dst_task : ndarray
        Source and destination task of every message.
    quantum : float
        Seconds between two recomputations of the rates at the least (``resolution`` x
        :func:`step_lower_bound`); 0 for the exact replay.
    route_entries : int or None
        The messages' route entries counted before routing (node links included, paths
        forward) where the replay counted them (a bound was given and the machine counts its
        routes), else None.
    """

    seconds: float
    src: np.ndarray
    dst: np.ndarray
    size: np.ndarray
    finish: np.ndarray
    n_events: int
    model: str
    work: int = 0
    complete: bool = True
    steps: int = 1
    src_task: np.ndarray | None = None
    dst_task: np.ndarray | None = None
    quantum: float = 0.0
    route_entries: int | None = None


def exchange_messages(graph: TaskGraph, machine: Machine, task_to_proc,
                      bytes_per_weight: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Source node, destination node and bytes of every message of one exchange step.

    Every directed edge ``t -> u`` of weight ``w`` between tasks on different nodes is one
    message of ``round(w * bytes_per_weight)`` bytes; edges inside a node and of zero bytes
    are not sent (hop 0, as in every metric of the library).

    Parameters
    ----------
    graph : TaskGraph
    machine : Machine
    task_to_proc : array_like of int
        Processor of every task.
    bytes_per_weight : float, optional
        Bytes per unit of edge weight.  Default: the graph's
        (:func:`~mpitaskmap.metrics.message_model_for`: 1, weights are bytes, or
        :data:`~mpitaskmap.metrics.UNSIZED_BYTES_PER_WEIGHT` for a graph without message
        sizes).

    Returns
    -------
    (src, dst, size) : (ndarray, ndarray, ndarray)
        int64 node ids and float64 bytes, CSR order.
    """
    _, _, src, dst, size = _messages(graph, machine, task_to_proc, bytes_per_weight, inside=False)
    return src, dst, size


def _messages(graph: TaskGraph, machine: Machine, task_to_proc, bytes_per_weight: float | None, *, inside: bool):
    """``(src_task, dst_task, src_node, dst_node, bytes)`` of the edges of nonzero bytes, CSR order;
    those inside a node too when ``inside``."""
    ttp = as_index_array(task_to_proc, "task_to_proc", upper=machine.n_procs, length=graph.n_tasks)
    bpw = check_bytes_per_weight(message_model_for(graph).bytes_per_weight if bytes_per_weight is None
                                 else bytes_per_weight)
    node = np.asarray(machine.node_ids, dtype=np.int64)[ttp]
    src_task = np.repeat(np.arange(graph.n_tasks, dtype=np.int64), np.diff(graph.indptr))
    dst_task = np.asarray(graph.indices, dtype=np.int64)
    src, dst = node[src_task], node[dst_task]
    size = np.rint(graph.weights * bpw)
    keep = (size > 0) & (src_task != dst_task) if inside else (src != dst) & (size > 0)
    return src_task[keep], dst_task[keep], src[keep], dst[keep], size[keep]


def _routes(machine: Machine, src: np.ndarray, dst: np.ndarray, size: np.ndarray, node_link, loop, lat: float,
            unit: float, *, reverse: bool = False):
    """The platform's routes of messages between nodes ``src[i] -> dst[i]`` of ``size[i]`` bytes, as CSR.

    The machine routes them as one exchange (:meth:`Machine.exchange_routes`: a dragonfly's
    UGAL chooses over all of them); with ``reverse`` the paths back, ``dst[i] -> src[i]``, of the
    same choice.

    Returns ``(indptr, links, fractions, capacity, latency)``: message ``i`` crosses
    ``links[indptr[i]:indptr[i+1]]`` with those shares of its traffic; ``capacity`` (B/s)
    and ``latency`` (s) are per link id.  Link ids: the machine's network links (none
    without a link model), then with ``node_link`` an injection link per node id and an
    ejection link per node id, then one crossbar per router (:meth:`Machine.router_ids`)
    for messages between nodes of one router without node links -- the layout of
    :func:`mpitaskmap.sim.simgrid.platform_xml`'s explicit form.
    """
    n_nodes = int(np.asarray(machine.node_ids).max()) + 1
    # a node's routes are those of its lowest processor (the node view's representative)
    view = machine.node_view()
    src_proc = view.representative[np.searchsorted(view.nodes, src)]
    dst_proc = view.representative[np.searchsorted(view.nodes, dst)]
    if reverse:  # the links below are those of the paths back
        src, dst = dst, src
    if machine.has_link_model:
        ptr, net_links, net_fractions = machine.exchange_routes(src_proc, dst_proc, size, reverse=reverse)
        n_net = machine.n_links
        cap = [machine.link_bandwidths() * unit]
        lat_of = [np.full(n_net, lat)]
    else:  # node links only
        ptr, net_links, net_fractions, n_net = np.zeros(src.size + 1, np.int64), np.zeros(0, np.int64), np.zeros(0), 0
        cap, lat_of = [], []
    hops = np.diff(ptr)
    up = down = None
    if node_link is not None:
        up, down = n_net + src, n_net + n_nodes + dst
        cap += [np.full(2 * n_nodes, node_link[0] * unit)]
        lat_of += [np.full(2 * n_nodes, node_link[1])]
    base = n_net + (2 * n_nodes if node_link is not None else 0)
    n_links_of = hops + (2 if node_link is not None else 0)
    xbar = n_links_of == 0  # two nodes of one router, no node links: the router's crossbar
    if xbar.any():
        n_routers = int(machine.n_routers)
        cap += [np.full(n_routers, loop[0] * unit)]
        lat_of += [np.full(n_routers, loop[1])]
    n_links_of = np.where(xbar, 1, n_links_of)
    indptr = np.zeros(src.size + 1, dtype=np.int64)
    np.cumsum(n_links_of, out=indptr[1:])
    links = np.empty(int(indptr[-1]), dtype=np.int64)
    fractions = np.ones(links.size)  # node links and crossbars carry the whole message
    start = indptr[:-1]
    offset = 0
    if node_link is not None:
        links[start] = up
        links[indptr[1:] - 1] = down
        offset = 1
    # network links: route i's k-th entry goes to indptr[i] + offset + k
    pos = np.repeat(start + offset - ptr[:-1], hops) + np.arange(net_links.size)
    links[pos] = net_links
    fractions[pos] = net_fractions
    if xbar.any():
        links[start[xbar]] = base + machine.router_ids()[src_proc[xbar]]
    capacity = np.concatenate(cap) if cap else np.zeros(0)
    latency = np.concatenate(lat_of) if lat_of else np.zeros(0)
    return indptr, links, fractions, capacity, latency


def _counted_entries(machine: Machine, src: np.ndarray, dst: np.ndarray, size: np.ndarray, node_link) -> int | None:
    """The route entries of messages ``src[i] -> dst[i]`` between nodes as :func:`_routes` will lay them out (node
    links, network links, a crossbar), paths forward, counted without routing them; None when the machine does not
    count its routes (:meth:`~mpitaskmap.machines.Machine.exchange_route_entries`)."""
    if not machine.has_link_model:
        return None
    view = machine.node_view()
    entries = machine.exchange_route_entries(view.representative[np.searchsorted(view.nodes, src)],
                                             view.representative[np.searchsorted(view.nodes, dst)], size)
    if entries is None:
        return None
    return int(np.maximum(entries + (2 if node_link is not None else 0), 1).sum())


def _with_loopbacks(indptr, links, fractions, capacity, latency, n_inside: int, loop, unit: float):
    """Routes of :func:`_routes` followed by ``n_inside`` messages inside a node, each on a
    loopback link of its own: a FATPIPE link bounds every flow alone, so a link per message
    is that link exactly."""
    if n_inside == 0:
        return indptr, links, fractions, capacity, latency
    own = capacity.size + np.arange(n_inside, dtype=np.int64)
    return (np.concatenate([indptr, indptr[-1] + 1 + np.arange(n_inside, dtype=np.int64)]),
            np.concatenate([links, own]), np.concatenate([fractions, np.ones(n_inside)]),
            np.concatenate([capacity, np.full(n_inside, loop[0] * unit)]),
            np.concatenate([latency, np.full(n_inside, loop[1])]))


def step_lower_bound(flow_ptr: np.ndarray, flow_links: np.ndarray, flow_cons: np.ndarray, capacity: np.ndarray,
                     size: np.ndarray, factor: np.ndarray, delay: np.ndarray) -> float:
    """A time no exchange step of these flows can beat (s), under the fluid model.

    Two bounds, the larger: the busiest link's bytes (a flow of ``size`` bytes at bandwidth
    factor ``factor`` consumes ``cons x size / factor`` of every link it crosses) over its
    capacity, after the shortest start delay; and the slowest message alone, its delay plus
    its bytes at the rate its tightest link allows.

    Parameters
    ----------
    flow_ptr, flow_links, flow_cons : ndarray
        Flows' routes as CSR: link ids and consumptions.
    capacity : ndarray
        Bytes/s of every link.
    size, factor, delay : ndarray
        Bytes, bandwidth factor and start delay (s) of every flow.

    Returns
    -------
    float
        Seconds; 0 without flows.  O(route entries).

    Examples
    --------
    Two 100-byte flows on one 10 B/s link, one also on a 2 B/s link: the slow link bounds
    the step (100 / 2 = 50 s), more than the shared one (200 / 10 = 20 s).

    >>> step_lower_bound(np.array([0, 1, 3]), np.array([0, 0, 1]), np.ones(3), np.array([10.0, 2.0]),
    ...                  np.array([100.0, 100.0]), np.ones(2), np.zeros(2))
    50.0
    """
    if size.size == 0:
        return 0.0
    flow_of = np.repeat(np.arange(size.size), np.diff(flow_ptr))
    per_byte = flow_cons / factor[flow_of]
    load = np.bincount(flow_links, weights=per_byte * size[flow_of], minlength=capacity.size)
    used = load > 0
    links_bound = float(np.max(load[used] / capacity[used])) + float(delay.min())
    tightest = np.maximum.reduceat(per_byte / capacity[flow_links], flow_ptr[:-1])
    alone_bound = float(np.max(delay + size * tightest))
    return max(links_bound, alone_bound)


def check_resolution(resolution) -> float:
    """``resolution`` of :func:`fluid_exchange`, checked: a real in [0, 1)."""
    if isinstance(resolution, bool) or not isinstance(resolution, (int, float, np.integer, np.floating)) \
            or not 0 <= resolution < 1:
        raise InvalidInputError(f"resolution: expected a number in [0, 1); got {resolution!r}")
    return float(resolution)


def check_steps(steps) -> int:
    """``steps`` of :func:`fluid_exchange`, checked: an int >= 1."""
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise InvalidInputError(f"steps: expected an int >= 1; got {steps!r}")
    return int(steps)


def fluid_exchange(
    graph: TaskGraph,
    machine: Machine,
    task_to_proc,
    *,
    link_latency: float = DEFAULT_MESSAGE_MODEL.hop_latency,
    bytes_per_weight: float | None = None,
    node_link: tuple[float, float] | None = None,
    bandwidth_unit: str = "GBps",
    loopback: tuple[float, float] = DEFAULT_LOOPBACK,
    model: NetworkModel | str = DEFAULT_NETWORK_MODEL,
    max_work: int | None = None,
    steps: int = 1,
    resolution: float = 0.0,
    max_route_entries: int | None = None,
) -> FluidExchange:
    """Replay ``steps`` exchange steps of ``graph`` under a flow-level network model.

    One step (the default): every message between nodes starts at time 0
    (:func:`exchange_messages`); the step ends when the last has arrived.  Several steps: every
    task is an MPI rank that posts all its receives and sends of a step at once (``Irecv``,
    ``Isend``, ``Waitall``), as a halo exchange does, and posts the next step when the step's
    messages to it have arrived and its sends of :data:`SMPI_DETACHED_SEND_BYTES` or more
    have completed (smaller ones are detached); a message goes once both of its ranks have
    posted its step.  The messages inside a node then count too, each on a FATPIPE loopback
    of the node (``loopback``), since they hold their ranks back.  The result is the end of
    the last step.  The platform is :func:`mpitaskmap.sim.simgrid.platform_xml`'s explicit one and
    the model SimGrid's (module notes), so the result is what
    :func:`mpitaskmap.sim.simgrid_replay.simulate_exchange` returns with the matching ``config``
    (the model's :attr:`~NetworkModel.simgrid_config`; both default to :data:`SMPI`) -- without
    SimGrid.

    Parameters
    ----------
    graph : TaskGraph
    machine : Machine
        Any machine: with a link model (:attr:`~mpitaskmap.machines.Machine.has_link_model`)
        messages follow its routes, a share of the message on each link of a route that
        splits; without one they cross node links only.
    task_to_proc : array_like of int
        Processor of every task.
    link_latency : float, optional
        Latency of every network link (per hop), seconds, >= 0 (default the hop latency of
        :data:`~mpitaskmap.metrics.DEFAULT_MESSAGE_MODEL`, 1e-7).
    bytes_per_weight : float, optional
        Bytes per unit of edge weight.  Default: the graph's
        (:func:`~mpitaskmap.metrics.message_model_for`: 1, weights are bytes, or
        :data:`~mpitaskmap.metrics.UNSIZED_BYTES_PER_WEIGHT` for a graph without message
        sizes).
    node_link : (float, float), optional
        Injection and ejection link of every node: (bandwidth in ``bandwidth_unit``, latency
        in s).  Default none on a machine with a link model; (1, ``link_latency``) on one
        without (a flat machine), as the platform.
    bandwidth_unit : str, optional
        Unit of the machine's bandwidths (default GB/s; a key of
        :data:`mpitaskmap.sim.params.BANDWIDTH_UNITS`).
    loopback : (float, float), optional
        A router's crossbar, for nodes of one router without node links, and with several
        steps every node's loopback (default :data:`mpitaskmap.sim.params.DEFAULT_LOOPBACK`).
    model : NetworkModel or str, optional
        :data:`SMPI` (default, :data:`DEFAULT_NETWORK_MODEL`) or :data:`CM02`, or a name of
        :data:`NETWORK_MODELS`.
    max_work : int, optional
        Stop once the replay's work (:attr:`FluidExchange.work`) passes this and return an
        incomplete result (default None: replay to the end).  Deterministic, unlike a
        wall-clock limit: about 1e8 a second on this project's 2-core test machine.  Every
        message's rate is computed at least once a step, so where the machine counts its
        routes' links before routing them (:meth:`~mpitaskmap.machines.Machine.exchange_route_entries`:
        a dragonfly's Valiant and UGAL detours) a replay whose ``steps`` x route entries
        already pass the budget stops before building its routes (``work`` is then that count,
        ``n_events`` 0): the same incomplete result, without the routes' time and memory.
    max_route_entries : int, optional
        Where the machine counts its routes' links before routing them (as above), a replay
        whose messages' routes would hold more entries than this (node links included, paths
        forward) is not built: an incomplete result (``work`` 0, ``n_events`` 0,
        ``route_entries`` the count).  A bound on the replay's memory, about 100 bytes an entry
        with the paths back and the kernel's indexes (default None: no bound).
    steps : int, optional
        Exchange steps, >= 1 (default 1).  Over several, the ranks drift apart and wait on
        one another, and nearly every message starts and ends at an instant of its own: a
        replay of 5 steps costs 10 to 100 times one (0.03-0.5 s at 512-1,024 ranks here).
    resolution : float, optional
        0 (default): exact, the rates recomputed at every start and end.  In (0, 1): the
        rates are recomputed at most once every ``resolution`` x :func:`step_lower_bound`
        seconds (the quantum, :attr:`FluidExchange.quantum`): a message starts at most one
        quantum late and the bandwidth an ended message frees waits at most one quantum for
        the others (its own end keeps its exact instant).  The cost is then at most
        (makespan / quantum + 1) recomputations of every message's rate, however the ranks
        drift: O(steps x messages x route length / resolution) for steps near the bound.

    Returns
    -------
    FluidExchange

    Raises
    ------
    InvalidInputError
        On bad parameters.  One step with no message between different nodes takes 0 s.

    Notes
    -----
    A route that splits (fractions below 1: ECMP, PERCS striping) is one flow that takes
    ``fraction`` x its rate on each of its links (and, with cross-traffic, ``crosstraffic
    x fraction`` on each link of the reverse route); its latency is the sum of ``fraction
    x latency`` over its links and its sharing penalty adds ``weight_s x fraction / W``
    per link.  A single-path route has every fraction 1: SimGrid's model exactly.


    Time O(events x (active messages + their route links x log)); the number of events is
    at most twice the number of messages times ``steps`` and far smaller when messages share
    start times and rates, and with a ``resolution`` at most makespan / quantum + 1.
    Memory O(messages x route length).
    """
    for name, bound in (("max_work", max_work), ("max_route_entries", max_route_entries)):
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, (int, np.integer)) or bound < 1):
            raise InvalidInputError(f"{name}: expected a positive int or None; got {bound!r}")
    model = network_model(model)
    resolution = check_resolution(resolution)
    if not isinstance(graph, TaskGraph):
        raise InvalidInputError(f"graph: expected a TaskGraph; got {type(graph).__name__}")
    as_machine(machine)
    unit, lat, loop, node_link = platform_parameters(link_latency, bandwidth_unit, loopback, node_link)
    if node_link is None and not machine.has_link_model:  # node links are the only links
        node_link = (1.0, lat)
    steps = check_steps(steps)
    src_rank, dst_rank, src, dst, size = _messages(graph, machine, task_to_proc, bytes_per_weight, inside=steps > 1)
    if src.size == 0:  # one step whose every edge joins tasks of one node: it costs no network time
        return FluidExchange(seconds=0.0, src=src, dst=dst, size=size, finish=np.zeros(0), n_events=0,
                             model=model.name, steps=steps, src_task=src_rank, dst_task=dst_rank)
    # messages between nodes first, then those inside a node, each on a loopback of its own
    # (SimGrid's cluster loopbacks and the explicit platform's are FATPIPE: no sharing)
    by_kind = np.argsort(src == dst, kind="stable")
    src_rank, dst_rank, src, dst, size = (a[by_kind] for a in (src_rank, dst_rank, src, dst, size))
    n_inter = int((src != dst).sum())
    entries = None
    if max_work is not None or max_route_entries is not None:
        entries = _counted_entries(machine, src[:n_inter], dst[:n_inter], size[:n_inter], node_link)
        least = None if entries is None else steps * (entries + src.size - n_inter)
        too_big = entries is not None and max_route_entries is not None and entries > max_route_entries
        if too_big or (least is not None and max_work is not None and least > max_work):
            # too large to hold, or it cannot end within the budget: stop before routing
            return FluidExchange(seconds=float("inf"), src=src, dst=dst, size=size.astype(np.float64),
                                 finish=np.full(src.size, np.inf), n_events=0, model=model.name,
                                 work=0 if too_big else least, complete=False, steps=steps, src_task=src_rank,
                                 dst_task=dst_rank, route_entries=entries)
    indptr, links, fractions, capacity, latency = _routes(machine, src[:n_inter], dst[:n_inter], size[:n_inter],
                                                          node_link, loop, lat, unit)
    indptr, links, fractions, capacity, latency = _with_loopbacks(indptr, links, fractions, capacity, latency,
                                                                  src.size - n_inter, loop, unit)
    # every fraction is 1.0 on a single path, so these are SimGrid's sums exactly
    route_latency = np.add.reduceat(latency[links] * fractions, indptr[:-1])
    penalty = route_latency + model.weight_s * np.add.reduceat(fractions / capacity[links], indptr[:-1])
    if not np.all(penalty > 0):
        raise InvalidInputError("link_latency: with weight_s = 0 and zero latency a flow has no sharing penalty")
    if model.crosstraffic > 0:
        back_ptr, back_links, back_fractions, _, _ = _routes(machine, src[:n_inter], dst[:n_inter], size[:n_inter],
                                                             node_link, loop, lat, unit, reverse=True)
        back_ptr = np.concatenate([back_ptr, np.full(src.size - n_inter, back_ptr[-1])])
        n = src.size
        fwd_len, back_len = np.diff(indptr), np.diff(back_ptr)
        flow_ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(fwd_len + back_len, out=flow_ptr[1:])
        flow_links = np.empty(int(flow_ptr[-1]), dtype=np.int64)
        flow_cons = np.empty(flow_links.size, dtype=np.float64)
        fwd_pos = np.repeat(flow_ptr[:-1] - indptr[:-1], fwd_len) + np.arange(links.size)
        back_pos = np.repeat(flow_ptr[:-1] + fwd_len - back_ptr[:-1], back_len) + np.arange(back_links.size)
        flow_links[fwd_pos], flow_cons[fwd_pos] = links, fractions
        flow_links[back_pos], flow_cons[back_pos] = back_links, model.crosstraffic * back_fractions
    else:
        flow_ptr, flow_links, flow_cons = indptr, links, fractions
    n_links = capacity.size
    flow_of = np.repeat(np.arange(src.size, dtype=np.int64), np.diff(flow_ptr))
    by_link = np.argsort(flow_links, kind="stable")
    link_ptr = np.zeros(n_links + 1, dtype=np.int64)
    np.cumsum(np.bincount(flow_links, minlength=n_links), out=link_ptr[1:])
    delay = model.latency_factor(size) * route_latency
    factor = model.bandwidth_factor(size)
    size = size.astype(np.float64)
    quantum = 0.0
    if resolution > 0:
        quantum = resolution * step_lower_bound(flow_ptr, flow_links, flow_cons, capacity, size, factor, delay)
    finish = np.empty(src.size, dtype=np.float64)
    seconds, n_events, work = _fluid.fluid_replay(flow_ptr, flow_links, flow_cons, link_ptr,
                                                  np.ascontiguousarray(flow_of[by_link]), capacity, penalty, delay,
                                                  size, factor, src_rank, dst_rank,
                                                  (size >= SMPI_DETACHED_SEND_BYTES).astype(np.uint8),
                                                  graph.n_tasks, steps, finish, int(max_work or 0), quantum)
    complete = seconds >= 0
    if not complete:
        seconds, finish = float("inf"), np.full(src.size, np.inf)
    return FluidExchange(seconds=float(seconds), src=src, dst=dst, size=size, finish=finish,
                         n_events=int(n_events), model=model.name, work=int(work), complete=complete, steps=steps,
                         src_task=src_rank, dst_task=dst_rank, quantum=quantum, route_entries=entries)
