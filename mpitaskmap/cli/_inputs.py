"""Inputs of the command line (private): machine specs, task specs, mapping files.

Machine specs
-------------
Read by :func:`mpitaskmap.machines.machine_from_spec` (:mod:`mpitaskmap.machines.specs`):

``sim:KIND[:k=v,...]``     a simulated machine of a network kind (:mod:`mpitaskmap.machines.kinds`),
                           built for a job of ``--ranks`` ranks (default: one per task)
``file:PATH`` or ``PATH``  a machine file (:mod:`mpitaskmap.machines.machine_file`)
``hopper``                 the bundled real 512-rank Cray allocation
``percs:ns=N,nd=D[,routing=direct|indirect]``  an IBM PERCS two-level network
``TOPOLOGY_FILE:NODELIST[:ppn=N,taper=T,bw=GBPS,routing=dmodk|ecmp]``
                           a fat tree: Slurm's ``topology.conf`` (or saved ``scontrol show
                           topology``) and the job's nodes as a host list (``node[01-64]``),
                           ranks filling the nodes in list order
                           (:func:`mpitaskmap.machines.fattree.slurm_topology.read_topology_spec`)

Task specs
----------
``stencil3d:64x32x32[:points=7,periodic=0,weight=1]``  (also ``stencil2d:``, ``stencil:``)
``transpose:PxQ``          the PERCS transpose pattern on a P x Q grid
``coords:PATH``            task coordinates, one task per line; nearest-neighbour proxy graph
``matrix:PATH``            communication matrix: dense rows or Matrix Market coordinate format
``recording:PATH``         a traffic recording (``mpitaskmap record``: PATH, PATH.counts.mtx,
                           PATH.json): one round of the run (:mod:`mpitaskmap.graphs.recording`)
``ompi-monitoring:PREFIX`` Open MPI's pml monitoring files PREFIX.<rank>.prof (its "E" lines)
``PATH``                   a recording when PATH.json or PATH.counts.mtx is beside it; Open MPI's
                           monitoring when PATH.0.prof is; Matrix Market if the file says so;
                           else task coordinates
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from .._options import parse_flag, parse_float, parse_int, parse_options
from ..errors import InvalidInputError
from ..machines import Machine, machine_from_spec
from ..machines.specs import MACHINE_FORMS
from ..mapfiles import MAP_FORMATS, detect_map_format, format_from_name, read_map
from ..mapping import Mapping
from ..graphs.graph_files import is_matrix_market, is_ompi_monitoring, is_recording, read_number_rows
from ..graphs.recording import Recording, read_graph_file, read_matrix_file, read_ompi_monitoring, read_recording
from ..graphs.taskgraph import TaskGraph

__all__ = ["MachineInput", "TaskInput", "load_machine", "load_tasks", "split_format_path", "guess_format",
           "read_mapping_file", "MACHINE_FORMS", "TASK_FORMS"]

TASK_FORMS = ("stencil3d:16x8x8[:points=27,periodic=1,weight=1] | transpose:PxQ | coords:PATH | matrix:PATH | "
              "recording:PATH | ompi-monitoring:PREFIX | PATH")


@dataclass
class MachineInput:
    """A machine read from the command line, with the host names of its nodes if known."""

    machine: Machine
    spec: str
    hosts: list | None = None
    note: str = ""

    def describe(self) -> str:
        """Return one line: spec, processors, nodes and network."""
        m = self.machine
        text = f"{self.spec}: {m.n_procs} processors on {m.n_nodes} nodes"
        if m.has_router_grid:
            kind = "torus" if all(m.wrap) else "mesh" if not any(m.wrap) else "torus/mesh"
            text += f", {kind} {'x'.join(str(int(d)) for d in m.dims)} ({' '.join(m.dim_names)})"
        else:
            text += f", {m.name}"
        return text


@dataclass
class TaskInput:
    """A task graph read from the command line."""

    graph: TaskGraph
    spec: str
    shape: tuple = field(default_factory=tuple)
    recording: Recording | None = None

    def describe(self) -> str:
        """Return one line: spec, tasks, messages and coordinates; a recording's totals and rounds."""
        g = self.graph
        coords = "no coordinates" if g.coords is None else f"{g.coords.shape[1]}-D coordinates"
        text = f"{self.spec}: {g.n_tasks} tasks, {g.n_edges} messages, {coords}"
        if not g.sized:
            text += ", no message sizes"
        if self.recording is not None:
            text += f"; {self.recording.describe()}"
        return text


# -- machines ----------------------------------------------------------------------------------
def load_machine(spec: str, n_ranks: int) -> MachineInput:
    """Return the machine named by ``spec`` for a job of ``n_ranks`` ranks (see the module doc).

    Every form is read by :func:`mpitaskmap.machines.machine_from_spec`, the parser the
    providers and the benchmarks share.
    """
    machine, name, hosts = machine_from_spec(spec, n_ranks, what="--machine")
    return MachineInput(machine, name, hosts)


# -- tasks ---------------------------------------------------------------------------------------
def _lengths(text: str, what: str) -> tuple[int, ...]:
    try:
        out = tuple(int(v) for v in text.lower().split("x"))
    except ValueError:
        raise InvalidInputError(f"{what}: expected lengths like 64x32x32; got {text!r}") from None
    if not out or min(out) < 1:
        raise InvalidInputError(f"{what}: lengths must be positive; got {text!r}")
    return out


def load_tasks(spec: str, task_coords: str | None = None) -> TaskInput:
    """Return the task graph named by ``spec`` (see the module doc)."""
    text = spec.strip()
    form, _, rest = text.partition(":")
    form = form.lower()
    if form.startswith("stencil"):
        dims_text, _, opt_text = rest.partition(":")
        shape = _lengths(dims_text, "--tasks")
        want = form[len("stencil"):]
        if want and want != f"{len(shape)}d":
            raise InvalidInputError(f"--tasks: {form} needs {want[:-1]} lengths; got {dims_text!r}")
        what = f"--tasks {text!r}"
        opts = parse_options(opt_text, ("points", "periodic", "weight"), what)
        try:
            graph = TaskGraph.stencil(
                shape, points=parse_int(opts["points"], "points", what) if "points" in opts else None,
                periodic=parse_flag(opts.get("periodic", "0"), "periodic", what),
                weight=parse_float(opts["weight"], "weight", what) if "weight" in opts else None,
            )
        except ValueError as exc:
            raise InvalidInputError(f"--tasks: {exc}") from None
        return TaskInput(_attach(graph, task_coords), text, shape)
    if form == "transpose":
        from ..mappers.percs.patterns import transpose_graph

        shape = _lengths(rest, "--tasks")
        if len(shape) != 2:
            raise InvalidInputError(f"--tasks: transpose needs PxQ; got {rest!r}")
        return TaskInput(transpose_graph(*shape), text, shape)
    if form == "coords":
        return TaskInput(TaskGraph.from_coordinate_proxy(_number_rows(rest)), text)
    if form == "matrix":
        return TaskInput(_attach(read_matrix_file(rest), task_coords), text)
    if form in ("recording", "ompi-monitoring"):
        rec = read_recording(rest) if form == "recording" else read_ompi_monitoring(rest)
        return TaskInput(_attach(rec.graph, task_coords), text, recording=rec)
    if is_recording(text) or is_ompi_monitoring(text):
        graph, found = read_graph_file(text)
        return TaskInput(_attach(graph, task_coords), text, recording=found)
    if not os.path.exists(text):
        raise InvalidInputError(f"--tasks: no such file and not a known spec ({TASK_FORMS}); got {spec!r}")
    if is_matrix_market(text):
        return TaskInput(_attach(read_matrix_file(text), task_coords), text)
    return TaskInput(TaskGraph.from_coordinate_proxy(_number_rows(text)), text)


def _attach(graph: TaskGraph, task_coords: str | None) -> TaskGraph:
    return graph if task_coords is None else graph.with_coords(_number_rows(task_coords))


def _number_rows(path: str) -> np.ndarray:
    """Read rows of numbers (spaces or commas); ``#`` comments and blank lines skipped."""
    return read_number_rows(path)[0]


# -- mapping files -------------------------------------------------------------------------------
def split_format_path(value: str) -> tuple[str | None, str]:
    """Split ``FORMAT=PATH`` (FORMAT a key of MAP_FORMATS) into its parts; else (None, value)."""
    fmt, sep, path = value.partition("=")
    if sep and fmt in MAP_FORMATS:
        return fmt, path
    return None, value


def guess_format(path: str, what: str = "-o") -> str:
    """Return the map-file format implied by a file name, or raise naming ``what`` (the option) and the choices."""
    fmt = format_from_name(path)
    if fmt is None:
        raise InvalidInputError(
            f"{what}: cannot tell the map-file format of {path!r} from its name; write {what} FORMAT={path} with FORMAT "
            f"one of {sorted(MAP_FORMATS)}"
        )
    return fmt


def host_options(fmt: str, mi: MachineInput, hosts_arg: str | None) -> dict:
    """Return the ``hosts=`` option of the host-file formats (empty for the others)."""
    if fmt not in ("openmpi_rankfile", "slurm_hostfile", "smpi_hostfile"):
        return {}
    return {"hosts": hosts_arg if hosts_arg is not None else mi.hosts}


def read_mapping_file(value: str, mi: MachineInput, graph: TaskGraph, hosts_arg: str | None) -> Mapping:
    """Read ``[FORMAT=]PATH`` into a Mapping on the machine, with the task graph attached.

    Without ``FORMAT=`` the format comes from the file's content
    (:func:`~mpitaskmap.mapfiles.detect_map_format`).
    """
    fmt, path = split_format_path(value)
    if not os.path.exists(path):
        raise InvalidInputError(f"--mapping: no such file; got {path!r}")
    fmt = fmt or detect_map_format(path, what="--mapping", name_it=f"write --mapping FORMAT={path}")
    mapping = read_map(path, mi.machine, fmt, graph=graph, **host_options(fmt, mi, hosts_arg))
    mapping.method = os.path.basename(path)
    return mapping
