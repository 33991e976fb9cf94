"""Simulated time of a task graph's exchange under a mapping, on SimGrid.

:func:`simulate_exchange` turns the mapping's machine into a SimGrid platform
(:func:`mpitaskmap.sim.simgrid.platform_xml`, explicit form: the machine's link bandwidths, one
latency per link, routes identical to the machine's routes), starts every
message of the graph at once (one exchange step), waits for the last, repeats ``steps``
times, and returns the simulated seconds of each step and the load of every link.

The replay program
------------------
SimGrid is optional.  The replay is a small C++ program shipped with the package
(``mpitaskmap/data/simgrid_replay.cpp``, S4U actors, host-to-host ``Comm::sendto_async``,
the link-load plugin); on first use it is compiled against the system's ``libsimgrid``
into ``$MPITASKMAP_CACHE_DIR`` or ``$XDG_CACHE_HOME/mpitaskmap`` (default
``~/.cache/mpitaskmap``), keyed by a hash of its source, and run as a subprocess fed a
platform file and a message list.  :func:`mpitaskmap.sim.simgrid.simgrid_missing` with
``compiler=True`` says what is missing.

Why this and not SimGrid's Python binding (measured on this machine, Debian 12, 2 shared
cores): Debian's ``python3-simgrid`` (3.32) is built for Debian's ``/usr/bin/python3`` and
installed in its ``dist-packages``, outside our virtualenvs (a pyenv Python here: importing
it needs a path hack that holds only while the two minor versions match); the ``simgrid`` package on PyPI
(4.1) is a source distribution only (5.4 MB, about 380 C/C++ files of the library itself)
whose ``setup.py`` runs cmake and needs Boost and pybind11 from the system, and compiles
all of SimGrid on every fresh machine: tens of CPU minutes against CI's 90-minute budget
on 2 cores (not built here, to keep the shared cores free), and a SimGrid (4.1) other than
the one whose ``smpirun`` the SMPI side uses.  Debian's ``libsimgrid-dev`` (3.32) installs
in 9 s (``apt-get update`` and ``apt-get install libsimgrid-dev gfortran`` together), serves both
the SMPI side (:mod:`mpitaskmap.sim.simgrid`) and this replay, and the replay program compiles
against it once in 2 s of CPU (about 20 s of wall time on this loaded machine).

The network model
-----------------
By default SimGrid's ``SMPI`` model (``network/model:SMPI``, :data:`DEFAULT_CONFIG`): the
model an MPI application runs on under SMPI, with its message-size-dependent bandwidth and
latency factors, RTT-weighted sharing and cross-traffic -- the model the judge's
in-process replay computes (:data:`mpitaskmap.sim.fluid.DEFAULT_NETWORK_MODEL`), so the two
give one time for one mapping (the tests check it to 1e-6).  On request
(``config=CM02.simgrid_config``, :data:`mpitaskmap.sim.fluid.CM02`) the plain ``CM02`` model
without cross-traffic: every message is a flow whose rate is its max-min fair share of the
bandwidth of the links it crosses, after the latency of its route; a message of ``B`` bytes
alone on one link of bandwidth ``W`` and latency ``L`` takes ``L + B / W``, two such
messages on that link ``L + 2 B / W``.  SimGrid's ``LV08`` model (TCP corrections:
bandwidth x 0.97, latency x 13.01) is one ``config=("network/model:LV08",)`` away.

Messages between tasks of one node cross no network link; they are not sent (hop 0, as
in every metric of the library).

Speed (``benchmarks/simulate_speed.py``, this machine, 2 cores shared with other jobs; measured
under the CM02 model, the default until SMPI's became it):
one step of the 7-point stencil of 16 x 16 x 16 = 4096 tasks (23,040 messages of 16 KiB)
on a 24 x 24 x 24 torus, one task per node.  Writing the platform takes 0.7-0.9 s (most of it
naming the links the routes cross, one :meth:`Machine.link_name` call each: 23,040 on the
sub-cube below).  With
the tasks on a 16^3 sub-cube (no link shared) the whole call takes 8 s of wall time, 3.3 s
of it SimGrid's CPU; with task t on router t (rows of 16 tasks on rows of 24 routers: long,
contended routes) 53 s of wall time at a load average of 5, 21.5 s of SimGrid's CPU.  What
limits it is SimGrid's max-min sharing solver, whose cost grows about quadratically with
the number of flows that contend (router-order placement: 3,000 / 6,000 / 12,000 / 23,040
messages take 0.8 / 1.6 / 5.3 / 21.5 s of CPU), so a step of about 25,000 concurrent
messages is the practical size on such a machine; well-mapped graphs, whose messages share
few links, go further.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Sequence

import numpy as np

from .._validate import check_bytes_per_weight
from ..errors import InvalidInputError
from .fluid import DEFAULT_NETWORK_MODEL, exchange_messages
from ..machines.hosts import host_names
from ..mapping import Mapping, as_mapping
from .simgrid import DEFAULT_LOOPBACK, _platform, simgrid_missing
from ..graphs.taskgraph import TaskGraph
from ..metrics import DEFAULT_MESSAGE_MODEL, message_model_for

__all__ = ["ExchangeSimulation", "simulate_exchange", "replay_program", "DEFAULT_CONFIG"]

#: SimGrid settings of the replay unless told otherwise: those of the default network model
#: (:data:`mpitaskmap.sim.fluid.DEFAULT_NETWORK_MODEL`, SMPI's).  Pass
#: ``mpitaskmap.sim.fluid.CM02.simgrid_config`` for the plain fluid model.
DEFAULT_CONFIG = DEFAULT_NETWORK_MODEL.simgrid_config

_SOURCE = "simgrid_replay.cpp"


@dataclass(frozen=True)
class ExchangeSimulation:
    """Result of :func:`simulate_exchange`.

    Attributes
    ----------
    step_seconds : (steps,) ndarray of float64
        Simulated duration of every step, in seconds (all steps are equal: the same
        messages on an idle network).
    total_seconds : float
        Simulated time of all steps.
    link_names : list of str
        SimGrid names of the links that carried traffic (see :mod:`mpitaskmap.sim.simgrid`).
    link_ids : (n,) ndarray of int64
        The machine's link id (:meth:`~mpitaskmap.machines.Machine.routes`, the numbering of
        :class:`~mpitaskmap.machines.LinkLoads`) of every such link, -1 for node, crossbar
        and loopback links.
    link_bytes : (n,) ndarray of float64
        SimGrid's cumulated load of every link over all steps (link-load plugin), in bytes.
        It integrates the link's usage over time, so a flow adds its share of bandwidth
        during its latency phase as well: about ``bytes + bandwidth x latency`` per message.
    link_bandwidth : (n,) ndarray of float64
        Bandwidth of every link, in bytes per second.
    n_messages : int
        Messages sent per step (graph edges between different nodes).
    """

    step_seconds: np.ndarray
    total_seconds: float
    link_names: list
    link_ids: np.ndarray
    link_bytes: np.ndarray
    link_bandwidth: np.ndarray
    n_messages: int

    @property
    def seconds(self) -> float:
        """Simulated seconds of one step (the longest step)."""
        return float(self.step_seconds.max()) if self.step_seconds.size else 0.0

    @property
    def link_utilisation(self) -> np.ndarray:
        """Fraction of the simulated time each link was busy: load / (bandwidth x total time)."""
        if self.total_seconds <= 0:
            return np.zeros_like(self.link_bytes)
        return self.link_bytes / (self.link_bandwidth * self.total_seconds)

    def network_utilisation(self, n_links: int) -> np.ndarray:
        """Return the utilisation of every network link id of the machine (0 where unused).

        Parameters
        ----------
        n_links : int
            ``machine.n_links`` (the length of its LinkLoads arrays).

        Returns
        -------
        (n_links,) ndarray of float64
            Indexed by link id, comparable with :class:`~mpitaskmap.machines.LinkLoads`.
        """
        out = np.zeros(int(n_links), dtype=np.float64)
        net = self.link_ids >= 0
        out[self.link_ids[net]] = self.link_utilisation[net]
        return out


def _cache_dir() -> Path:
    env = os.environ.get("MPITASKMAP_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mpitaskmap"


def replay_program(*, rebuild: bool = False) -> Path:
    """Return the path of the compiled replay program, building it on first use.

    Parameters
    ----------
    rebuild : bool, optional
        Compile again even when a cached binary exists.

    Returns
    -------
    pathlib.Path
        ``<cache>/simgrid_replay-<hash of the source>``.

    Raises
    ------
    InvalidInputError
        If SimGrid or a C++ compiler is missing (naming what and how to install it).
    RuntimeError
        If the compilation fails (with the compiler's message).
    """
    missing = simgrid_missing(compiler=True)
    if missing:
        raise InvalidInputError(f"simulate: {missing}")
    source = resources.files("mpitaskmap").joinpath("data", _SOURCE).read_bytes()
    cache = _cache_dir()
    exe = cache / f"simgrid_replay-{hashlib.sha256(source).hexdigest()[:16]}"
    if exe.exists() and not rebuild:
        return exe
    cache.mkdir(parents=True, exist_ok=True)
    cxx = os.environ.get("CXX", "c++")
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        src = Path(tmp) / _SOURCE
        src.write_bytes(source)
        out = Path(tmp) / exe.name
        cmd = [cxx, "-O2", "-std=c++17", str(src), "-o", str(out), "-lsimgrid"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"simulate: building the replay program failed: {' '.join(cmd)}\n{proc.stderr[-3000:]}")
        os.replace(out, exe)  # atomic: a concurrent build leaves one complete binary
    return exe


def simulate_exchange(
    mapping: Mapping,
    graph: TaskGraph | None = None,
    *,
    link_latency: float = DEFAULT_MESSAGE_MODEL.hop_latency,
    steps: int = 1,
    bytes_per_weight: float | None = None,
    node_link: tuple[float, float] | None = None,
    bandwidth_unit: str = "GBps",
    loopback: tuple[float, float] = DEFAULT_LOOPBACK,
    config: Sequence[str] = DEFAULT_CONFIG,
    timeout: float | None = None,
    workdir=None,
) -> ExchangeSimulation:
    """Simulate ``steps`` exchange steps of ``graph`` under ``mapping`` on SimGrid.

    Every directed edge ``t -> u`` of weight ``w`` is one message of
    ``round(w * bytes_per_weight)`` bytes from the node of task ``t`` to the node of task
    ``u``.  A step starts all messages at once and ends when the last has arrived.

    Parameters
    ----------
    mapping : Mapping
        Task -> processor on any machine whose routes SimGrid can express (one path per
        node pair: see :func:`~mpitaskmap.sim.simgrid.platform_xml`).
    graph : TaskGraph, optional
        The exchange (default ``mapping.graph``).
    link_latency : float, optional
        Latency of every network link (per hop), in seconds (default the hop latency of
        :data:`~mpitaskmap.metrics.DEFAULT_MESSAGE_MODEL`, 1e-7).
    steps : int, optional
        Number of steps (default 1).
    bytes_per_weight : float, optional
        Bytes per unit of edge weight.  Default: the graph's
        (:func:`~mpitaskmap.metrics.message_model_for`: 1, weights are bytes, or
        :data:`~mpitaskmap.metrics.UNSIZED_BYTES_PER_WEIGHT` for a graph without message
        sizes).
    node_link, bandwidth_unit, loopback
        As for :func:`mpitaskmap.sim.simgrid.platform_xml` (machine bandwidths default to GB/s).
    config : sequence of str, optional
        SimGrid ``--cfg`` settings (default :data:`DEFAULT_CONFIG`: SMPI's network model, as
        the judge's in-process replay; ``mpitaskmap.sim.fluid.CM02.simgrid_config`` for the
        plain fluid model).
    timeout : float, optional
        Wall-clock seconds before the simulation is killed (default none).
    workdir : str or path-like, optional
        Directory for the platform and message files (default a temporary directory,
        removed afterwards); pass one to keep them.

    Returns
    -------
    ExchangeSimulation
        Step times and link loads.

    Raises
    ------
    InvalidInputError
        On a missing graph, bad ``steps``/``bytes_per_weight``, a machine SimGrid cannot
        express (see :func:`~mpitaskmap.sim.simgrid.platform_xml`), no message between
        different nodes, or SimGrid missing.
    RuntimeError
        If the replay program fails.

    Notes
    -----
    Platform size O(distinct node pairs x route length): only the nodes and the routes of
    node pairs that exchange messages are declared.  Time: see the module notes (a
    4096-task 7-point stencil step on a 24^3 torus takes 8 to 53 s of wall time here,
    depending on how much the mapping makes messages contend).
    """
    as_mapping(mapping)
    graph = graph if graph is not None else mapping.graph
    if not isinstance(graph, TaskGraph):
        raise InvalidInputError("graph: simulate_exchange needs the task graph (pass graph= or a mapping with one)")
    if graph.n_tasks != mapping.n_tasks:
        raise InvalidInputError(f"graph: has {graph.n_tasks} tasks, the mapping {mapping.n_tasks}")
    n_steps = int(steps)
    if n_steps < 1 or n_steps != steps:
        raise InvalidInputError(f"steps: expected a positive integer; got {steps!r}")
    bpw = check_bytes_per_weight(message_model_for(graph).bytes_per_weight if bytes_per_weight is None
                                 else bytes_per_weight)
    machine = mapping.machine
    src, dst, size = exchange_messages(graph, machine, mapping.task_to_proc, bpw)
    if src.size == 0:
        raise InvalidInputError("graph: no message crosses the network (every edge joins tasks of one node)")
    names = host_names(machine)
    pairs = np.unique(np.stack([src, dst], axis=1), axis=0)
    xml, link_ids = _platform(machine, link_latency=link_latency, node_link=node_link, hosts=None,
                              bandwidth_unit=bandwidth_unit, host_speed="1Gf", loopback=loopback, node_pairs=pairs,
                              form="explicit")
    exe = replay_program()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(workdir) if workdir is not None else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        (work / "platform.xml").write_text(xml)
        (work / "messages.txt").write_text(
            "".join(f"{names[a]} {names[b]} {int(s)}\n" for a, b, s in zip(src.tolist(), dst.tolist(), size.tolist()))
        )
        cmd = [str(exe), str(work / "platform.xml"), str(work / "messages.txt"), str(n_steps)]
        cmd += [f"--cfg={c}" for c in config] + ["--log=root.thres:critical"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        raise RuntimeError(f"simulate: the replay failed with exit code {proc.returncode}\n{tail}")
    return _parse(proc.stdout, n_steps, int(src.size), link_ids)


def _parse(text: str, n_steps: int, n_messages: int, link_ids: dict) -> ExchangeSimulation:
    steps = np.zeros(n_steps, dtype=np.float64)
    total = 0.0
    names: list[str] = []
    loads: list[float] = []
    bws: list[float] = []
    for line in text.splitlines():
        f = line.split(" ", 3)  # a link's name, last, is the rest of the line: it may hold spaces
        if f[0] == "step":
            steps[int(f[1])] = float(f[2])
        elif f[0] == "total":
            total = float(f[1])
        elif f[0] == "link":
            loads.append(float(f[1]))
            bws.append(float(f[2]))
            names.append(f[3])
    return ExchangeSimulation(
        step_seconds=steps,
        total_seconds=total,
        link_names=names,
        link_ids=np.array([link_ids.get(n, -1) for n in names], dtype=np.int64),
        link_bytes=np.array(loads, dtype=np.float64),
        link_bandwidth=np.array(bws, dtype=np.float64),
        n_messages=n_messages,
    )
