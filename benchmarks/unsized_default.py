"""What ``auto`` does with a task graph that carries no message sizes, on application time under SMPI.

Issue 42 ("a default that sees contention").  A user who gives the pattern but not the sizes --
``stencil3d:8x8x8`` without ``:weight=``, ``remap(comm, coords, neighbors=...)`` without
``weights=``, an application's ``MPI_Cart_create`` caught by the preload library -- gives a graph
whose edges all weigh 1 (:attr:`mpitaskmap.TaskGraph.sized` False).  Read as one byte a message,
the predicted-time objective then sees only hop latency; the library instead assumes
:data:`mpitaskmap.metrics.UNSIZED_BYTES_PER_WEIGHT` bytes per unit of weight for such a graph
(:func:`mpitaskmap.metrics.message_model_for`).  This study runs the application with its real
message sizes under SimGrid's ``smpirun``, communication only, once per rank order:

* ``identity``: the scheduler's block order;
* ``auto sized``: ``mpitaskmap.map(TaskGraph.stencil(grid, weight=face bytes), machine)``, the call
  with the sizes (the reference gain);
* ``auto unsized``: ``mpitaskmap.map(TaskGraph.stencil(grid), machine)``: the graph ``remap()``
  builds from neighbours without weights and searches (``remap`` gathers it and runs the same
  search: ``tests/test_message_model.py`` checks that the API, the command line and ``remap()``
  give one winner on one input, with and without sizes);
* ``cli unsized``: ``mpitaskmap map -m SPEC -t stencil3d:8x8x8 -o csv=FILE`` (the command line,
  in process), the mapping read back from its file;
* ``auto 1 byte``: the same graph with every message one byte (``weight=1``, what the unsized
  default was before): the gap the representative size closes.

Share = (identity - method) / (identity - auto sized): the part of the sized call's gain a call
without sizes keeps.  Target (issue 42): at least 80% on every case.

Platforms: ``titan`` (``sim:titan:ppn=8``: a sparse allocation of a Cray XK7 torus, the torus
study's), ``titan12`` (``sim:titan:dims=12x8x8,nodes=64,ppn=8``: 64 nodes of a 12x8x8 torus, the
issue's MiniGhost case), ``fattree4`` (a 2-level fat tree with 4:1 up-links, the fat-tree study's)
and ``frontier`` (the Slingshot dragonfly, scattered nodes, the dragonfly study's).  The
application is ``examples/halo3d.c`` (``--cells``, ``--vars``: faces of ``cells^2 x vars x 8``
bytes), or another code with ``--app-command`` (the released MiniGhost built for SMPI by
``python -m benchmarks.recorded_apps``), as in ``app_time_recorded.py``.

Run:  python -m benchmarks.unsized_default [--ranks 512] [--seeds 1,2] [--platforms titan,titan12,fattree4,frontier]
      [--cells 16 --vars 50 --steps 5] [--json PATH] [--keep DIR]
      [--app-command "miniGhost.x ..." --face-bytes B --smpi-cfg smpi/gather:ompi_binomial
       --time-file results.yaml --time-regex 'Total_time:\\s*(\\S+)']
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys

import numpy as np

import mpitaskmap
from mpitaskmap.cli import main as cli_main
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.mapfiles import read_map
from mpitaskmap.mapping import IDENTITY

from benchmarks.harness.cases import run_cases
from benchmarks.harness.platforms import HOSTS, SCATTERED, dragonfly_spec, fattree_spec
from benchmarks.harness.smpi import (GRIDS, HALO3D_TIME, add_app_arguments, add_other_app_arguments,
                                     add_platform_arguments, app_case, app_program, ready_to_run, run_methods)
from benchmarks.harness.tables import Column, print_columns

AUTO_SIZED, AUTO_UNSIZED, CLI_UNSIZED, AUTO_1B = "auto sized", "auto unsized", "cli unsized", "auto 1 byte"
METHODS = (IDENTITY, AUTO_SIZED, AUTO_UNSIZED, CLI_UNSIZED, AUTO_1B)
#: The methods without sizes the target applies to.
UNSIZED = (AUTO_UNSIZED, CLI_UNSIZED)
PLATFORMS = ("titan", "titan12", "fattree4", "frontier")
#: The torus study's on-node loopback (GB/s), for the titan platforms.
LOOPBACK_GBPS = 400.0
#: "at least 80% of the gain over identity that the weighted call gets".
SHARE_TARGET = 0.80


def platform_spec(platform: str, n: int, ppn: int, seed: int) -> str:
    """The ``sim:`` spec of a platform's case (the other studies' own spec functions)."""
    if platform == "titan":
        return f"sim:titan:ppn={ppn},seed={seed}"
    if platform == "titan12":
        return f"sim:titan:dims=12x8x8,nodes={n // ppn},ppn={ppn},seed={seed}"
    if platform == "fattree4":
        return fattree_spec(n, ppn, seed, 4)
    if platform == "frontier":
        return dragonfly_spec("frontier", SCATTERED, n, ppn, seed, 0)
    raise SystemExit(f"--platforms: unknown {platform!r}; valid: {', '.join(PLATFORMS)}")


def cli_mapping(spec: str, grid, machine, work: str, name: str) -> tuple[np.ndarray, dict]:
    """``mpitaskmap map -m SPEC -t stencil3d:GRID --method auto -o csv=FILE`` in process: the mapping it wrote."""
    path = os.path.join(work, f"{name}_cli.csv")
    tasks = "stencil3d:" + "x".join(str(int(g)) for g in grid)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = cli_main(["map", "-m", spec, "-t", tasks, "--method", "auto", "-q", "--format", "json",
                           "-o", f"csv={path}"])
    if status != 0:
        raise RuntimeError(f"mpitaskmap map -m {spec} -t {tasks}: exit {status}")
    info = json.loads(out.getvalue())["rows"][1]["info"]
    return np.asarray(read_map(path, machine, "csv").task_to_proc), info


def map_row(method: str, case, spec: str, work: str) -> tuple[np.ndarray, dict]:
    """Task -> processor of one row and the library's ``Mapping.info`` ({} for identity)."""
    grid, machine, face = case.grid, case.machine, float(case.graph.weights[0])
    if method == IDENTITY:
        return np.arange(case.graph.n_tasks), {}
    if method == CLI_UNSIZED:
        return cli_mapping(spec, grid, machine, work, case.name)
    graph = {AUTO_SIZED: TaskGraph.stencil(grid, weight=face), AUTO_UNSIZED: TaskGraph.stencil(grid),
             AUTO_1B: TaskGraph.stencil(grid, weight=1.0)}[method]
    mapping = mpitaskmap.map(graph, machine, "auto")
    return np.asarray(mapping.task_to_proc), mapping.info


def add_shares(rows: list[dict]) -> None:
    """``share`` of every row: its gain over the case's identity / the sized call's (None without both)."""
    by_case: dict = {}
    for r in rows:
        by_case.setdefault((r["platform"], r["seed"]), {})[r["method"]] = r
    for case in by_case.values():
        base = case.get(IDENTITY, {}).get("comm_s")
        sized = case.get(AUTO_SIZED, {}).get("comm_s")
        for r in case.values():
            t = r.get("comm_s")
            ok = None not in (base, sized, t) and base > sized
            r["share"] = (base - t) / (base - sized) if ok else None
            r["vs_identity"] = (t / base - 1) if None not in (base, t) and base > 0 else None


def verdicts(rows: list[dict]) -> list[str]:
    """One line per (case, method without sizes): its share against the 80% target."""
    out = []
    for r in rows:
        if r["method"] in UNSIZED and r.get("share") is not None:
            ok = r["share"] >= SHARE_TARGET
            out.append(f"{'PASS' if ok else 'FAIL'}  {r['platform']} seed {r['seed']} {r['method']}: "
                       f"{100 * r['share']:.1f}% of the sized call's gain (target >= {100 * SHARE_TARGET:.0f}%)")
    return out


COLUMNS = [Column("platform", 9, lambda r: r["platform"]), Column("seed", 4, lambda r: r["seed"]),
           Column("method", 12, lambda r: r["method"]),
           Column("time s", 11, lambda r: "failed" if r.get("comm_s") is None else f"{r['comm_s']:.4e}"),
           Column("vs identity", 11, lambda r: "" if r.get("vs_identity") is None else f"{100 * r['vs_identity']:+.1f}%"),
           Column("share", 7, lambda r: "" if r.get("share") is None or r["method"] in (IDENTITY, AUTO_SIZED)
                  else f"{100 * r['share']:.1f}%"),
           Column("candidate", 0, lambda r: r.get("label") or "")]


def print_report(rows: list[dict]) -> None:
    """The table (a group per case), its legend and the verdicts."""
    add_shares(rows)
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["platform"], r["seed"]), []).append(r)
    print_columns(list(groups.values()), COLUMNS, legend={
        "time s": "the application's figure (halo3d: its largest exchange time; --time-regex: the app's own)",
        "share": "(identity - method) / (identity - auto sized): the sized call's gain kept without sizes"})
    for line in verdicts(rows):
        print(line)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_platform_arguments(ap, PLATFORMS, METHODS)
    ap.add_argument("--seeds", default="1,2", help="allocation seeds (default 1,2)")
    add_other_app_arguments(ap)
    ap.add_argument("--loopback", type=float, default=LOOPBACK_GBPS,
                    help=f"titan platforms: a node's loopback bandwidth, GB/s (default {LOOPBACK_GBPS:g}, as app_time_smpi)")
    add_app_arguments(ap)
    args = ap.parse_args(argv)
    if not ready_to_run(ap, args, print_report):
        return 0
    methods = args.methods.split(",")
    grid = GRIDS[args.ranks]
    work, app, program, face = app_program(ap, args, "mpitaskmap_unsized_")
    print(f"work {work}; {face:g} B per face message")
    cases = [(p, int(s)) for p in args.platforms.split(",") for s in args.seeds.split(",")]

    def run_case(case_key) -> tuple[list[dict], None]:
        platform, seed = case_key
        n, ppn = args.ranks, args.ppn
        spec = platform_spec(platform, n, ppn, seed)
        mi = machine_from_spec(spec, n)
        hosts = mi.hosts if platform.startswith("titan") else HOSTS
        options = ({"loopback": (args.loopback, 1e-7)} if platform.startswith("titan")
                   else {"form": "cluster"} if platform == "fattree4" else {})
        case = app_case(f"{platform}_n{n}_ppn{ppn}_seed{seed}", {"platform": platform, "n": n, "ppn": ppn,
                                                                  "seed": seed},
                        grid, mi.machine, hosts, args, app, work, program=program, face_bytes=face,
                        config=args.smpi_cfg, time_regex=args.time_regex if program else HALO3D_TIME,
                        time_file=args.time_file, **options)
        rows = run_methods(case, methods, lambda method, c: map_row(method, c, spec, work),
                           extra=lambda method, info: {"label": info.get("candidate")})
        return rows, None

    rows, _ = run_cases(cases, run_case, args.json, candidates=False)
    print_report(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
