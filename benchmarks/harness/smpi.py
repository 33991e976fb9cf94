"""The SMPI runs of the application studies: halo3d built once, one simulated run per distinct rank order.

``examples/halo3d.c`` (a MiniGhost-like 3-D 7-point halo exchange) is built with ``smpicc``
(:func:`build_halo3d`) and run under ``smpirun`` on the SimGrid platform of a case's machine,
communication only.  A case (:class:`AppCase`, made by :func:`app_case`) holds the task graph
of the app, the machine, its platform file and its :class:`CaseRuns`; :func:`run_methods` maps
and runs every method of a case and returns one row per method.  Every mapping is a task ->
processor array in the task numbering of ``TaskGraph.stencil``, which is halo3d's rank
numbering (x fastest; :func:`check_task_numbering`), and runs through the same hostfile writer
and ``smpirun`` line (the pieces of ``mpitaskmap simgrid``, :mod:`mpitaskmap.cli.smpi`).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable, Sequence

import numpy as np

from mpitaskmap.cli.smpi import SmpiRun, run_smpi, smpirun_command
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.mapfiles import write_smpi_hostfile
from mpitaskmap.mapping import Mapping
from mpitaskmap.metrics import DEFAULT_HOP_LATENCY, evaluate
from mpitaskmap.sim.simgrid import platform_xml, simgrid_missing

from .tables import Column

ROOT = Path(__file__).resolve().parents[2]
#: halo3d's task grid per job size (ranks).
GRIDS = {512: (8, 8, 8), 4096: (16, 16, 16), 64: (4, 4, 4), 256: (8, 8, 4), 1024: (16, 8, 8), 2048: (16, 16, 8)}
#: halo3d's own communication time line (the figure of its runs).
HALO3D_TIME = r"max_comm_time (\S+)"
#: The metrics every application row is evaluated by (and the candidates' selectors).
SELECTORS = ("predicted_time", "average_hops", "weighted_hops", "latency", "max_data", "max_messages", "max_hops")


@functools.lru_cache(maxsize=None)
def example_module(name: str) -> ModuleType:
    """``examples/NAME.py`` as a module (``examples/`` is not a package: loaded from its file, once)."""
    spec = importlib.util.spec_from_file_location(f"examples_{name}", ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def halo3d_task(rank: int, grid) -> tuple[int, int, int]:
    """The task ``(x, y, z)`` that ``examples/halo3d.c`` rank ``rank`` owns (x fastest, as its line 67)."""
    px, py, _ = grid
    return rank % px, (rank // px) % py, rank // (px * py)


def check_task_numbering(graph: TaskGraph, grid) -> None:
    """Raise unless ``graph`` numbers its tasks as halo3d numbers its ranks (task t = rank t).

    Every mapping of the studies (ours and the peers', which get ``graph.coords`` as their task
    coordinates) is a task -> processor array, and rank ``t`` of the hostfile is task ``t``.
    """
    want = np.array([halo3d_task(r, grid) for r in range(graph.n_tasks)], dtype=np.float64)
    if graph.coords is None or not np.array_equal(np.asarray(graph.coords, dtype=np.float64), want):
        raise RuntimeError(f"TaskGraph.stencil{tuple(grid)} does not number its tasks as halo3d numbers its "
                           "ranks (x fastest): the hostfiles would be in the wrong order")


def host_order(node_ids: np.ndarray, task_to_proc) -> np.ndarray:
    """The node of every rank (rank = task): what a hostfile says and all that SMPI sees of a mapping.

    Examples
    --------
    >>> host_order(np.array([0, 0, 1, 1]), [2, 0, 3, 1]).tolist()
    [1, 0, 1, 0]
    """
    return np.asarray(node_ids)[np.asarray(task_to_proc, dtype=np.int64)]


def add_app_arguments(ap: argparse.ArgumentParser) -> None:
    """The halo3d and run options every SMPI application study takes."""
    ap.add_argument("--cells", type=int, default=8, help="cells per rank along each axis (default 8)")
    ap.add_argument("--vars", type=int, default=5, help="variables per cell (default 5)")
    ap.add_argument("--steps", type=int, default=5, help="time steps (default 5)")
    ap.add_argument("--latency", type=float, default=DEFAULT_HOP_LATENCY,
                    help=f"seconds per link (default {DEFAULT_HOP_LATENCY:g}, a Gemini hop: the library's message model)")
    ap.add_argument("--timeout", type=float, default=900.0, help="wall seconds per run (default 900)")
    ap.add_argument("--json", help="write the rows and the candidates there")
    ap.add_argument("--keep", help="directory for platforms, hostfiles and outputs (default: a temporary one)")


def add_platform_arguments(ap: argparse.ArgumentParser, platforms: Sequence[str], methods: Sequence[str]) -> None:
    """The job and platform options of a study over SMPI platforms: --ranks (a grid of :data:`GRIDS`), --ppn,
    --platforms, --methods, and --report (an earlier run's --json)."""
    ap.add_argument("--ranks", type=int, default=512, help=f"job size (default 512; grids: {sorted(GRIDS)})")
    ap.add_argument("--ppn", type=int, default=8, help="ranks per node (default 8)")
    ap.add_argument("--platforms", default=",".join(platforms), help=f"default {','.join(platforms)}")
    ap.add_argument("--methods", default=",".join(methods), help=f"default {','.join(methods)}")
    ap.add_argument("--report", help="print the table and verdicts of a --json file of an earlier run")


def ready_to_run(ap: argparse.ArgumentParser, args, print_report: Callable[[list], None],
                 required: dict[str, str] | None = None) -> bool:
    """Whether a study of :func:`add_platform_arguments` goes on to run its cases.

    ``--report``: prints the earlier run's table (``print_report(rows)``) and stops.  Otherwise
    every option of ``required`` (attribute -> error) must be set, SimGrid must be there (else
    "skipped: WHY" and stop) and ``--ranks`` a grid of :data:`GRIDS` (errors through ``ap``).
    """
    if args.report:
        from .output import read_json
        (rows,) = read_json([args.report])
        print_report(rows)
        return False
    for attr, message in (required or {}).items():
        if not getattr(args, attr):
            ap.error(message)
    why = simgrid_missing()
    if why:
        print(f"skipped: {why}")
        return False
    if args.ranks not in GRIDS:
        ap.error(f"--ranks: one of {sorted(GRIDS)}")
    return True


def add_other_app_arguments(ap: argparse.ArgumentParser) -> None:
    """The options of a study that may run another application than halo3d (``--app-command`` ...)."""
    ap.add_argument("--app-command", help="another application's SMPI binary and arguments instead of halo3d "
                    "(ranks numbered x fastest as halo3d's, no wrap; e.g. MiniGhost built with smpif90); its figure "
                    "is what --time-regex reads, else SimGrid's simulated end time")
    ap.add_argument("--time-regex", help="with --app-command: its own time, group 1 of REGEX in its output or "
                    "--time-file (MiniGhost: 'Total_time:\\s*(\\S+)')")
    ap.add_argument("--time-file", help="with --app-command and --time-regex: the file the app writes in the "
                    "current directory that holds its time (MiniGhost: results.yaml)")
    ap.add_argument("--face-bytes", type=float, help="with --app-command: its message per face and step (bytes), "
                    "the declared graph's weight")
    ap.add_argument("--smpi-cfg", action="append", default=[], help="with --app-command: a SimGrid setting for its "
                    "runs (repeatable), e.g. smpi/gather:ompi_binomial for MiniGhost at 512 ranks")


def app_program(ap: argparse.ArgumentParser, args, prefix: str) -> tuple[str, str, list | None, float]:
    """``(work, app, program, face)`` of a study's application: halo3d built, or ``--app-command``'s.

    Checks the options of :func:`add_other_app_arguments` (an error through ``ap``); ``program``
    None and ``app`` the halo3d binary for halo3d, whose face is ``cells^2 x vars x 8`` bytes.
    """
    if bool(args.app_command) != bool(args.face_bytes):
        ap.error("--app-command and --face-bytes go together")
    if (args.time_regex or args.time_file) and not args.app_command:
        ap.error("--time-regex and --time-file go with --app-command (halo3d's time is read already)")
    if args.time_file and not args.time_regex:
        ap.error("--time-file needs --time-regex (what to read from it)")
    if args.app_command:
        work = args.keep or tempfile.mkdtemp(prefix=prefix)
        os.makedirs(work, exist_ok=True)
        return work, "", shlex.split(args.app_command), float(args.face_bytes)
    work, app = build_halo3d(args, prefix)
    return work, app, None, float(args.cells ** 2 * args.vars * 8)


def build_halo3d(args, prefix: str) -> tuple[str, str]:
    """Compile ``examples/halo3d.c`` with smpicc into the work directory (``--keep`` or a new temporary one).

    Returns ``(work, app)``; prints the line describing the app's message sizes (without its end).
    """
    work = args.keep or tempfile.mkdtemp(prefix=prefix)
    os.makedirs(work, exist_ok=True)
    app = os.path.join(work, "halo3d")
    subprocess.run(["smpicc", "-O2", "-o", app, os.path.join(ROOT, "examples", "halo3d.c")], check=True,
                   capture_output=True)
    print(f"halo3d: {args.cells}^3 cells x {args.vars} vars per rank ({args.cells ** 2 * args.vars * 8} B per face "
          f"message), {args.steps} steps; link latency {args.latency:g} s; ", end="")
    return work, app


def parse_cases(text: str) -> list[tuple[int, ...]]:
    """``"512:8,4096:16"`` -> ``[(512, 8), (4096, 16)]`` (the ``--cases`` of the application studies)."""
    return [tuple(int(v) for v in c.split(":")) for c in text.split(",")]


def parse_ints(text: str) -> list[int]:
    """``"1,2"`` -> ``[1, 2]`` (``--seeds``, ``--tapers``)."""
    return [int(s) for s in text.split(",")]


class CaseRuns:
    """The SMPI runs of one case, each distinct rank order once (SMPI is deterministic here)."""

    def __init__(self, n: int, machine, hosts, platform: str, program: list, work: str, case: str, timeout: float,
                 config: Sequence[str] = (), time_regex: str | None = HALO3D_TIME, time_file: str | None = None):
        self.n, self.machine, self.hosts, self.platform = n, machine, hosts, platform
        self.program, self.work, self.case, self.timeout = program, work, case, timeout
        self.config = tuple(config)
        self.time_file = time_file  # the app's own file time_regex reads (MiniGhost's results.yaml)
        self.node_ids = np.asarray(machine.node_ids)
        # None: the app prints no time of its own; its figure is SimGrid's simulated end time
        self.regex = None if time_regex is None else re.compile(time_regex)
        self.done: dict[bytes, tuple[SmpiRun, str]] = {}

    def run(self, task_to_proc, label: str, *, quiet: bool = False) -> tuple[SmpiRun, str | None]:
        """Simulate the mapping; return its run and the label of the earlier identical run (or None)."""
        key = host_order(self.node_ids, task_to_proc).tobytes()
        if key in self.done:
            run, first = self.done[key]
            return run, first
        slug = f"{self.case}_{re.sub(r'[^A-Za-z0-9.=-]+', '_', label)}"[:150]
        hostfile = os.path.join(self.work, f"{slug}.hostfile")
        write_smpi_hostfile(Mapping(np.asarray(task_to_proc), self.machine), hostfile, hosts=self.hosts)
        cmd = smpirun_command(self.n, self.platform, hostfile, self.program, self.config)
        run = run_smpi(cmd, label=f"{self.case} {label}", out_path=os.path.join(self.work, f"{slug}.out"),
                       err_path=os.path.join(self.work, f"{slug}.err"), timeout=self.timeout,
                       time_regex=self.regex, time_file=self.time_file, quiet=quiet)
        if self.regex is None and run.error is None:
            run.figure = run.simulated
        self.done[key] = (run, label)
        return run, None


@dataclass
class AppCase:
    """One case of an application study: halo3d's graph on a machine, its platform and its runs.

    Attributes
    ----------
    name : str
        The case's name in file names and progress lines (e.g. ``n512_ppn8_seed1``).
    key : dict
        The case's fields, first in every row (e.g. ``{"n": 512, "ppn": 8, "seed": 1}``).
    grid : tuple of int
        halo3d's task grid.
    graph : TaskGraph
        The app's task graph (one message of ``cells^2 * vars * 8`` bytes per face).
    machine : Machine
        The machine of the case.
    runs : CaseRuns
        Its SMPI runs.
    """

    name: str
    key: dict
    grid: tuple
    graph: TaskGraph
    machine: object
    runs: CaseRuns


def app_case(name: str, key: dict, grid, machine, hosts, args, app: str, work: str, *, program: list | None = None,
             face_bytes: float | None = None, config: Sequence[str] = (), time_regex: str | None = HALO3D_TIME,
             time_file: str | None = None, **platform_options) -> AppCase:
    """Build one case: the graph of halo3d on ``grid``, the platform file of ``machine``, its runs.

    ``program`` (another app's command line, whose ranks are numbered as halo3d's) replaces halo3d's,
    with ``face_bytes`` its message per face, ``config`` its SimGrid settings and ``time_regex`` its
    time line (None: SimGrid's simulated end time), read from its output or from ``time_file``, a
    file it writes in the current directory (:func:`mpitaskmap.cli.smpi.run_smpi`).  ``platform_options`` go to
    :func:`mpitaskmap.sim.simgrid.platform_xml` beside the link latency (``args.latency``) and the
    host names.
    """
    face = args.cells * args.cells * args.vars * 8 if face_bytes is None else face_bytes
    graph = TaskGraph.stencil(grid, weight=float(face))
    check_task_numbering(graph, grid)
    platform = os.path.join(work, f"{name}.xml")
    with open(platform, "w", encoding="utf-8") as fh:
        fh.write(platform_xml(machine, link_latency=args.latency, hosts=hosts, **platform_options))
    if program is None:
        program = [app, *map(str, grid), *[str(args.cells)] * 3, str(args.vars), str(args.steps)]
    n = graph.n_tasks
    return AppCase(name, key, tuple(grid), graph, machine, CaseRuns(n, machine, hosts, platform, program, work, name,
                                                                     args.timeout, config, time_regex, time_file))


#: ``map_row(method, case) -> (task_to_proc, info)``: a study's mapping of one method of a case.
MapRow = Callable[[str, AppCase], tuple[np.ndarray, dict]]


def run_methods(case: AppCase, methods: Sequence[str], map_row: MapRow, *, end_time: bool = False,
                on_mapped: Callable[[str, np.ndarray, dict], None] | None = None,
                extra: Callable[[str, dict], dict] | None = None) -> list[dict]:
    """Map and run every method of one case; return one row per method.

    Parameters
    ----------
    case : AppCase
        The case.
    methods : sequence of str
        The study's methods, in the order of the table.
    map_row : callable
        ``map_row(method, case) -> (task_to_proc, info)``; a RuntimeError (a peer that failed)
        makes a row with ``metrics`` None and the error, and the other methods go on.
    end_time : bool
        Record SimGrid's simulated end time (``end_s``) and print it in the progress line.
    on_mapped : callable, optional
        ``on_mapped(method, task_to_proc, info)`` after each mapping (e.g. to keep auto's candidates).
    extra : callable, optional
        ``extra(method, info) -> dict``: further fields of the row.

    Returns
    -------
    list of dict
        Per method: the case's key, ``method``, ``metrics`` (:data:`SELECTORS`), ``map_s``,
        ``comm_s`` (halo3d's ``max_comm_time``; None when the run failed), ``end_s`` (with
        ``end_time``), ``wall_s`` (None for a reused run), ``same_as`` (the method whose run
        was reused) and ``error``, then the ``extra`` fields.
    """
    rows = []
    for method in methods:
        t0 = time.perf_counter()
        try:
            t2p, info = map_row(method, case)
        except RuntimeError as exc:  # a peer that failed: a row saying so, the others go on
            print(f"# {case.name} {method}: mapping failed: {exc}", file=sys.stderr, flush=True)
            row = {**case.key, "method": method, "metrics": None, "map_s": time.perf_counter() - t0, "comm_s": None}
            row.update({"end_s": None} if end_time else {})
            rows.append({**row, "wall_s": None, "same_as": None, "error": f"mapping failed: {exc}"})
            continue
        map_s = time.perf_counter() - t0
        if on_mapped is not None:
            on_mapped(method, t2p, info)
        run, same_as = case.runs.run(t2p, method)
        row = {**case.key, "method": method, "metrics": evaluate(case.graph, case.machine, t2p, list(SELECTORS)),
               "map_s": map_s, "comm_s": run.figure}
        row.update({"end_s": run.simulated} if end_time else {})
        row.update({"wall_s": None if same_as else run.wall, "same_as": same_as, "error": run.error})
        row.update(extra(method, info) if extra is not None else {})
        rows.append(row)
        times = [f"comm {run.figure:.4g} s"] + ([f"end {run.simulated:.4g} s"] if end_time else [])
        status = run.error or ", ".join(times + [f"same run as {same_as}" if same_as else f"wall {run.wall:.0f} s"])
        print(f"# {case.name} {method}: {status}", file=sys.stderr, flush=True)
    return rows


def comm_change(row: dict, base: float | None) -> str:
    """A row's ``comm_s`` against the case's identity time, as ``+1.2%`` (``-`` without either)."""
    return "-" if row["comm_s"] is None or not base else f"{100 * (row['comm_s'] / base - 1):+.1f}%"


def comm_text(row: dict) -> str:
    """A row's ``comm_s`` in the tables (``failed`` when the run failed)."""
    return "failed" if row["comm_s"] is None else f"{row['comm_s']:.4e}"


#: The app-time studies' per-method columns after ``method``, by header (rows carry ``metrics``, ``comm_s``,
#: ``base`` (the case's identity time), ``end_s``, ``map_s``, ``wall_s``); each study picks its own with
#: :func:`method_columns`.
METHOD_COLUMNS = {c.header: c for c in (
    Column("AvgHops", 7, lambda r: f"{r['metrics']['average_hops']:.3f}"),
    Column("WeightedHops", 13, lambda r: f"{r['metrics']['weighted_hops']:,.0f}"),
    Column("Latency(M)", 10, lambda r: f"{r['metrics']['latency']:.4g}"),
    Column("PredTime", 10, lambda r: f"{r['metrics']['predicted_time']:.4g}"),
    Column("comm s", 10, comm_text),
    Column("app s", 10, comm_text),  # the same figure when it is another app's own time (--time-regex)
    Column("vs identity", 11, lambda r: comm_change(r, r["base"])),
    Column("end s", 10, lambda r: "-" if r["end_s"] is None else f"{r['end_s']:.4e}"),
    Column("map s", 6, lambda r: f"{r['map_s']:.1f}"),
    Column("wall s", 6, lambda r: "same" if r.get("same_as") else "-" if r["wall_s"] is None else f"{r['wall_s']:.0f}"),
)}


def method_columns(method_width: int, headers: Sequence[str]) -> list[Column]:
    """The ``method`` column (``method_width`` wide) and the :data:`METHOD_COLUMNS` named by ``headers``, in order.

    Raises
    ------
    KeyError
        A header that is not one of :data:`METHOD_COLUMNS`.
    """
    return [Column("method", method_width, lambda r: r["method"], "<", "  ")] + [METHOD_COLUMNS[h] for h in headers]

