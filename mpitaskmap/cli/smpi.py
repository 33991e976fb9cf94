"""``mpitaskmap simgrid``: SimGrid platform, one SMPI hostfile per method, and the runs.

The module is named ``smpi`` so that it does not shadow :mod:`mpitaskmap.sim.simgrid` (the
platform writer and the ``smpirun`` wrapper of the library) inside this package.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Sequence, TextIO

from ..errors import InvalidInputError
from ..mapfiles import write_smpi_hostfile
from ..mapping import IDENTITY
from ..metrics import METRICS
from ..sim.simgrid import DEFAULT_LOOPBACK, SMPI_DETERMINISTIC, SMPI_UNIT_FACTORS, platform_xml
from ._registry import register
from ._common import (
    SHORT_NAMES, SIMULATED_COLUMN, Progress, _fmt, add_method_options, add_methods_option, command_parser, legend,
    load_inputs, message_model, metric_rows, run_methods,
)

__all__ = [
    "simgrid_command", "build_parser", "SmpiRun", "smpirun_command", "run_smpi", "hostfile_ranks",
    "SIMULATED_TIME", "SMPI_TIMING", "DEFAULT_METHODS", "DEFAULT_METRICS", "results_table",
]

DESCRIPTION = """\
Map a task graph onto an allocation with several methods and prepare SimGrid SMPI runs
of the application under each mapping: DIR/platform.xml (the allocation's network),
DIR/METHOD.hostfile (line r = host of MPI rank r) and DIR/run.sh (one smpirun line per
method).  With --run "./app ARGS" (an SMPI binary: smpicc -O2 -o app app.c) every
method's run is simulated once: the app's output goes to DIR/METHOD.out, SimGrid's log
to DIR/METHOD.err, and one table gives per method the model metrics, SimGrid's
simulated end time of the run ("SimGrid s", SMPI's network model), the figure
--time-regex reads from the app's output or from the file --time-file names ("app",
simulated by SimGrid too), and their change vs identity.  DIR/results.json holds the
same numbers.

The runs are communication-only (smpi/simulate-computation:no): the simulated time is
what the network model makes of the app's messages under each placement, independent
of this machine's load.  A run that fails, times out or cannot start gives one line
naming the method and its files; the other methods' results are still printed (exit
status 1).
"""

EPILOG = """\
methods (--methods NAME[:ARG][:OPTIONS],...):
{methods}

examples:
  smpicc -O2 -o halo3d examples/halo3d.c
  mpitaskmap simgrid -m sim:titan:ppn=8,seed=1 -t stencil3d:8x8x8 -o smpi512 \\
      --run "./halo3d 8 8 8 8 8 8 5 10" --time-regex 'max_comm_time (\\S+)'
  mpitaskmap simgrid -m sim:titan:ppn=16,seed=2 -t stencil3d:16x16x16 --methods identity,auto -o smpi
  sh smpi/run.sh ./halo3d 16 16 16 8 8 8 5 10          # the same runs by hand
  mpitaskmap simgrid -m sim:fattree:leaves=32,nodes_per_leaf=16,taper=4,nodes=64,ppn=8,seed=1 \\
      -t stencil3d:8x8x8 --hosts n%d -o smpift --run "./halo3d 8 8 8 8 8 8 5 10"
      (a regular d-mod-k fat tree with host names n0, n1, ... is SimGrid's own FAT_TREE
      cluster, every node of the tree a host; other host names, irregular trees and
      per-level bandwidths give an explicit platform with the same routes and times;
      ECMP routes, which SimGrid cannot follow, are refused)

exit status: 0 when every run gave its times, 1 on an error (one line per failed run;
--debug for a traceback), 2 on a bad command line.
"""

DEFAULT_METHODS = f"{IDENTITY},geometric,auto"
#: Metrics of the table unless --metrics says otherwise: the three of the MiniGhost study.
DEFAULT_METRICS = ("average_hops", "weighted_hops", "latency")
#: smpirun configuration that makes SimGrid print the simulated end time (see SIMULATED_TIME).
SMPI_TIMING = ("smpi/display-timing:yes",)
#: SimGrid 3.32's line on stderr at the end of a run: "[0.000055] [smpi_utils/INFO] Simulated time: 5.53303e-05 seconds."
SIMULATED_TIME = re.compile(r"Simulated time: ([0-9.eE+-]+) seconds")
# SimGrid's start-up chatter (configuration changes, host speed advice) is hidden; its
# timing line (smpi_utils) and warnings stay.
_LOG = ("--log=xbt_cfg.thres:warning", "--log=smpi_config.thres:warning")


@dataclass
class SmpiRun:
    """What one ``smpirun`` of one method gave."""

    label: str
    hostfile: str
    simulated: float | None = None
    figure: float | None = None
    wall: float | None = None
    error: str | None = None
    files: dict = field(default_factory=dict)


def smpirun_command(
    n_ranks: int, platform: str, hostfile: str, program: Sequence[str], config: Sequence[str] = ()
) -> list[str]:
    """Return the ``smpirun`` command line of one run.

    Parameters
    ----------
    n_ranks : int
        ``-np``.
    platform, hostfile : str
        Paths as they should appear on the line.
    program : sequence of str
        The SMPI binary and its arguments.
    config : sequence of str, optional
        SimGrid settings added after :data:`~mpitaskmap.sim.simgrid.SMPI_DETERMINISTIC` and
        :data:`SMPI_TIMING`, one ``--cfg=`` each.

    Returns
    -------
    list of str

    Examples
    --------
    >>> " ".join(smpirun_command(4, "p.xml", "h", ["./a", "1"]))[:62]
    'smpirun -np 4 -platform p.xml -hostfile h --cfg=smpi/simulate-'
    """
    cmd = ["smpirun", "-np", str(int(n_ranks)), "-platform", platform, "-hostfile", hostfile]
    cmd += [f"--cfg={c}" for c in (*SMPI_DETERMINISTIC, *SMPI_TIMING, *config)]
    return cmd + list(_LOG) + list(program)


def hostfile_ranks(path) -> int:
    """Return the number of ranks of an SMPI hostfile.

    Parameters
    ----------
    path : str or path-like
        The hostfile (one host per rank; blank lines and ``#`` comments skipped, as
        :func:`~mpitaskmap.mapfiles.read_smpi_hostfile` skips them).

    Returns
    -------
    int
        Its rank lines.
    """
    with open(path, encoding="utf-8") as fh:
        return sum(1 for line in fh if line.split("#", 1)[0].strip())


def run_smpi(
    cmd: Sequence[str],
    *,
    label: str,
    out_path: str,
    err_path: str,
    timeout: float,
    time_regex: re.Pattern | None = None,
    time_file: str | None = None,
    quiet: bool = False,
    stream: TextIO | None = None,
) -> SmpiRun:
    """Run one ``smpirun`` command with a progress bar and a wall-clock timeout; read its times.

    The app's stdout goes to ``out_path`` and SimGrid's log (stderr) to ``err_path``; the
    bar fills towards the timeout.  Nothing is raised for a failed run: the result's
    ``error`` says what went wrong and where to look.

    Parameters
    ----------
    cmd : sequence of str
        From :func:`smpirun_command` (its hostfile is the one after ``-hostfile``).
    label : str
        The method, for the bar and the messages.
    out_path, err_path : str
        Files for the app's stdout and SimGrid's stderr.
    timeout : float
        Wall-clock seconds before the run (its whole process group) is killed.
    time_regex : re.Pattern, optional
        Reads ``figure`` from the app's stdout (or ``time_file``): group 1 (or the whole
        match) as a float.
    time_file : str, optional
        A file the app writes in the current directory (e.g. MiniGhost's ``results.yaml``)
        that ``time_regex`` reads instead of the stdout.  It is removed before the run, so
        an earlier run's cannot be read, and moved to ``out_path + "." + its name`` after
        it (``files["time_file"]``).
    quiet : bool, optional
        No bar.
    stream : text stream, optional
        Where the bar goes (default stderr).

    Returns
    -------
    SmpiRun
        ``simulated`` from SimGrid's "Simulated time" line, ``figure``, ``wall`` seconds,
        or ``error`` (one line).
    """
    hostfile = cmd[cmd.index("-hostfile") + 1]
    result = SmpiRun(label, hostfile, files={"stdout": out_path, "stderr": err_path})
    where = f"({out_path}, {err_path})"
    if time_file is not None:
        if time_regex is None:
            raise ValueError("time_file: needs time_regex (what to read from it)")
        if os.path.lexists(time_file):
            os.remove(time_file)
    bar = Progress(f"{label}: smpirun (timeout {timeout:g} s)", stream=stream, quiet=quiet)
    t0 = time.perf_counter()
    with open(out_path, "w", encoding="utf-8") as out, open(err_path, "w", encoding="utf-8") as err:
        try:
            proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        except OSError as exc:
            result.error = f"{label}: cannot start {cmd[0]}: {exc.strerror or exc}"
            return result
        while proc.poll() is None:
            elapsed = time.perf_counter() - t0
            if elapsed > timeout:
                _kill_group(proc)
                result.wall = elapsed
                result.error = (f"{label}: smpirun killed after {timeout:g} s of wall-clock time (--timeout) "
                                f"{where}")
                _end_bar(bar)
                return result
            bar(int(elapsed), int(timeout) + 1)  # never "done": the result line ends the run
            time.sleep(0.05 if elapsed < 1 else 0.2)
    result.wall = time.perf_counter() - t0
    _end_bar(bar)
    with open(err_path, encoding="utf-8", errors="replace") as fh:
        log = fh.read()
    with open(out_path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    if proc.returncode != 0:
        last = [ln for ln in log.strip().splitlines() if ln.strip()]
        tail = f": {last[-1].strip()}" if last else ""
        result.error = f"{label}: the app failed with exit status {proc.returncode} {where}{tail}"
        return result
    m = SIMULATED_TIME.search(log)
    if m is None:
        result.error = f"{label}: no 'Simulated time' line in SimGrid's log {err_path}"
        return result
    result.simulated = float(m.group(1))
    source = out_path
    if time_file is not None:
        if not os.path.isfile(time_file):
            result.error = f"{label}: the app wrote no {time_file} (--time-file) in {os.getcwd()} {where}"
            return result
        source = f"{out_path}.{os.path.basename(time_file)}"
        shutil.move(time_file, source)
        result.files["time_file"] = source
        with open(source, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    if time_regex is not None:
        f = time_regex.search(text)
        if f is None:
            result.error = f"{label}: --time-regex {time_regex.pattern!r} matched nothing in {source}"
            return result
        value = f.group(1) if time_regex.groups else f.group(0)
        try:
            result.figure = float(value)
        except ValueError:
            result.error = f"{label}: --time-regex matched {value!r} in {source}, not a number"
    return result


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the run's process group (smpirun is a script that starts the app)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _end_bar(bar: Progress) -> None:
    if bar.tty and not bar.quiet:  # erase the unfinished bar; the result line replaces it
        bar.stream.write("\r\033[K")
        bar.stream.flush()


def _slug(label: str) -> str:
    """A file-name-safe form of a method spec: ``geometric:ordering=z`` -> ``geometric_ordering-z``."""
    return re.sub(r"[^A-Za-z0-9+._-]", "_", label.replace("=", "-"))


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``mpitaskmap simgrid``."""
    p = command_parser("simgrid", DESCRIPTION, EPILOG)
    g = p.add_argument_group("what to run")
    add_methods_option(g, DEFAULT_METHODS)
    g.add_argument("--metrics", metavar="M,M", default=",".join(DEFAULT_METRICS),
                   help=f"model metrics in the table (default {','.join(DEFAULT_METRICS)}); any of "
                        + ",".join(METRICS))
    add_method_options(p)
    g = p.add_argument_group("SimGrid")
    g.add_argument("-o", "--output", required=True, metavar="DIR", help="directory of the files (created)")
    g.add_argument("--run", metavar='"APP ARGS"', help="an SMPI binary and its arguments: run it once per method")
    g.add_argument("--np", type=int, metavar="N", help="smpirun -np (default: the number of tasks)")
    g.add_argument("--timeout", type=float, default=600.0, metavar="S",
                   help="wall-clock seconds per run before it is killed (default 600)")
    g.add_argument("--time-regex", metavar="REGEX",
                   help="read a figure from the app's output: group 1 of REGEX (e.g. 'max_comm_time (\\S+)')")
    g.add_argument("--time-file", metavar="FILE",
                   help="read --time-regex from FILE, which the app writes in the current directory, instead of its "
                        "output (e.g. MiniGhost's results.yaml with --time-regex 'Total_time:\\s*(\\S+)'); each run's "
                        "is kept as DIR/METHOD.out.FILE")
    g.add_argument("--loopback", default=f"{DEFAULT_LOOPBACK[0]:g},{DEFAULT_LOOPBACK[1]:g}", metavar="BW[,LAT]",
                   help="messages inside a node: bandwidth in the machine's link units (GB/s) and latency in s "
                        f"(default {DEFAULT_LOOPBACK[0]:g},{DEFAULT_LOOPBACK[1]:g}, SimGrid's cluster examples)")
    g.add_argument("--unit-factors", action="store_true",
                   help="SMPI latency/bandwidth factors 1 and no cross-traffic (a message takes L + B/W)")
    g.add_argument("--cfg", action="append", default=[], metavar="KEY:VALUE", help="more smpirun --cfg settings")
    return p


def results_table(rows, runs: dict, base_label: str, *, figure: bool, with_legend: bool = True) -> str:
    """Return the text table of ``mpitaskmap simgrid``.

    Parameters
    ----------
    rows : list of Row
        The mappings and their model metrics (:func:`~mpitaskmap.cli._common.metric_rows`).
    runs : dict
        Method label -> :class:`SmpiRun`; a label without a run (or a failed one) shows ``-``.
    base_label : str
        The row the changes are relative to (identity when it is in the list).
    figure : bool
        Add the app's figure (``--time-regex``) and its change.
    with_legend : bool, optional
        End with the legend line (:func:`~mpitaskmap.cli._common.legend`; default True).

    Returns
    -------
    str
        Aligned text: method, metrics, SimGrid's simulated end time (``SimGrid s``) and its
        change in percent, then ``app`` and its change; then the legend.
    """
    names = list(rows[0].metrics)
    base = runs.get(base_label)

    def change(value, ref):
        if value is None or ref is None or ref == 0:
            return "-"
        return f"{100.0 * (value / ref - 1.0):+.1f}%"

    cols = ["method", *[SHORT_NAMES.get(n, n) for n in names], SIMULATED_COLUMN, f"vs {base_label}"]
    if figure:
        cols += ["app", f"vs {base_label}"]
    table = []
    for r in rows:
        run = runs.get(r.label)
        sim = None if run is None else run.simulated
        line = [r.label, *[_fmt(r.metrics[n]) for n in names],
                "-" if sim is None else f"{sim:.6g}", change(sim, None if base is None else base.simulated)]
        if figure:
            fig = None if run is None else run.figure
            line += ["-" if fig is None else f"{fig:.6g}", change(fig, None if base is None else base.figure)]
        table.append(line)
    widths = [max(len(c), *(len(t[i]) for t in table)) for i, c in enumerate(cols)]
    out = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cols, widths)))]
    out += ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(t, widths))) for t in table]
    if with_legend:
        out.append(legend(cols, {SIMULATED_COLUMN: "SimGrid's simulated end time of the app's run (s)",
                                 f"vs {base_label}": f"change from the {base_label} row",
                                 "app": "the app's own figure, read from its output (or --time-file) by --time-regex"}))
    return "\n".join(out) + "\n"


def _write_run_sh(path: str, lines: list[tuple[str, list[str]]], program: list[str] | None, header: list[str]) -> None:
    """run.sh: paths relative to its own directory, the app from the caller's directory."""
    text = ["#!/bin/sh", *[f"# {h}" for h in header],
            "# usage: sh run.sh [APP ARGS...]   (default: the --run command); app output in METHOD.out", "set -e",
            'D=$(dirname "$0")']
    if program:
        text.append(f'if [ $# -eq 0 ]; then set -- {shlex.join(program)}; fi')
    else:
        text.append('if [ $# -eq 0 ]; then echo "usage: sh $0 APP [ARGS...]  (an SMPI binary)" >&2; exit 2; fi')
    for slug, cmd in lines:
        words = " ".join(f'"{w}"' if w.startswith("$D/") else shlex.quote(w) for w in cmd)
        text.append(f'echo "== {slug}" >&2')
        text.append(f'{words} "$@" > "$D/{slug}.out"')
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(text) + "\n")
    os.chmod(path, 0o755)


def simgrid_command(argv: list) -> int:
    """Run ``mpitaskmap simgrid`` with ``argv``; return the exit status.

    Parameters
    ----------
    argv : list of str
        Arguments after ``simgrid``.

    Returns
    -------
    int
        0 when every run gave its times (or nothing was run), 1 when a run failed or
        ``smpirun`` is missing (the table is printed all the same).
    """
    args = build_parser().parse_args(argv)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods:
        raise InvalidInputError("--methods: expected at least one method")
    slugs = [_slug(m) for m in methods]
    if len(set(slugs)) != len(slugs):
        raise InvalidInputError(f"--methods: each method once; got {methods}")
    program = shlex.split(args.run) if args.run else None
    if args.run is not None and not program:
        raise InvalidInputError("--run: expected an SMPI binary and its arguments; got an empty string")
    if program and os.sep in program[0] and not os.path.isfile(program[0]):
        raise InvalidInputError(f"--run: no such program {program[0]!r} (build it with smpicc -O2 -o APP APP.c)")
    if args.timeout <= 0:
        raise InvalidInputError(f"--timeout: must be positive seconds; got {args.timeout!r}")
    try:
        time_regex = re.compile(args.time_regex) if args.time_regex else None
    except re.error as exc:
        raise InvalidInputError(f"--time-regex: not a regular expression ({exc}); got {args.time_regex!r}") from None
    if args.time_file is not None and (time_regex is None or not program):
        raise InvalidInputError(f"--time-file {args.time_file!r}: goes with --run and --time-regex (what to read "
                                "from the file)")
    if args.time_file is not None and os.path.basename(args.time_file) != args.time_file:
        raise InvalidInputError(f"--time-file: a file name in the current directory, where the app writes it; got "
                                f"{args.time_file!r}")
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    loopback = _loopback(args.loopback)
    mi, ti = load_inputs(args)
    n_ranks = args.np if args.np is not None else ti.graph.n_tasks
    status = sys.stderr
    talk = not args.quiet
    if talk:
        status.write(f"machine  {mi.describe()}\ntasks    {ti.describe()}\n")
    hosts = args.hosts if args.hosts is not None else mi.hosts
    os.makedirs(args.output, exist_ok=True)
    platform = os.path.join(args.output, "platform.xml")
    with open(platform, "w", encoding="utf-8") as fh:
        fh.write(platform_xml(mi.machine, link_latency=args.link_latency, hosts=hosts, loopback=loopback))

    mappings = run_methods(methods, ti.graph, mi.machine, args)
    config = list(SMPI_UNIT_FACTORS if args.unit_factors else ()) + list(args.cfg)
    sh_lines, commands = [], {}
    for (spec, mapping, _), slug in zip(mappings, slugs):
        hostfile = os.path.join(args.output, f"{slug}.hostfile")
        write_smpi_hostfile(mapping, hostfile, hosts=hosts)
        sh_lines.append((slug, smpirun_command(n_ranks, "$D/platform.xml", f"$D/{slug}.hostfile", [], config)))
        commands[spec] = (slug, smpirun_command(n_ranks, platform, hostfile, program or [], config))
    run_sh = os.path.join(args.output, "run.sh")
    _write_run_sh(run_sh, sh_lines, [_abs_program(program[0]), *program[1:]] if program else None,
                  [f"machine {mi.describe()}", f"tasks   {ti.describe()}", "written by mpitaskmap simgrid"])
    if talk:
        status.write(f"wrote {platform}, {len(mappings)} hostfiles and {run_sh}\n")

    runs: dict[str, SmpiRun] = {}
    errors: list[str] = []
    if program is not None:
        if shutil.which("smpirun") is None:
            errors.append("smpirun is not on PATH (install SimGrid: apt-get install libsimgrid-dev); "
                          f"files written to {args.output}, no run made")
        else:
            for spec, _, _ in mappings:
                slug, cmd = commands[spec]
                ranks = hostfile_ranks(cmd[cmd.index("-hostfile") + 1])
                if ranks != n_ranks:
                    errors.append(f"{spec}: hostfile {cmd[cmd.index('-hostfile') + 1]} has {ranks} ranks but -np is "
                                  f"{n_ranks} (--np); not run")
                    continue
                run = run_smpi(cmd, label=spec, out_path=os.path.join(args.output, f"{slug}.out"),
                               err_path=os.path.join(args.output, f"{slug}.err"), timeout=args.timeout,
                               time_regex=time_regex, time_file=args.time_file, quiet=args.quiet)
                runs[spec] = run
                if run.error:
                    errors.append(run.error)
                elif talk:
                    status.write(f"{spec}: simulated {run.simulated:.6g} s in {run.wall:.1f} s\n")
    for line in errors:
        status.write(f"mpitaskmap simgrid: error: {line}\n")

    rows = metric_rows(mappings, metrics, message_model(args, ti.graph))
    base_label = next((lbl for lbl, _, _ in mappings if lbl.lower() == IDENTITY), mappings[0][0])
    sys.stdout.write(results_table(rows, runs, base_label, figure=time_regex is not None, with_legend=talk))
    with open(os.path.join(args.output, "results.json"), "w", encoding="utf-8") as fh:
        json.dump({
            "machine": mi.describe(), "tasks": ti.describe(), "np": n_ranks, "run": args.run, "time_file": args.time_file,
            "latency": args.link_latency, "loopback": loopback, "config": config, "baseline": base_label, "errors": errors,
            "rows": [{"method": r.label, "hostfile": f"{_slug(r.label)}.hostfile", "map_seconds": r.seconds,
                      "metrics": r.metrics,
                      "simulated": runs[r.label].simulated if r.label in runs else None,
                      "figure": runs[r.label].figure if r.label in runs else None,
                      "wall": runs[r.label].wall if r.label in runs else None,
                      "error": runs[r.label].error if r.label in runs else None} for r in rows],
        }, fh, indent=2)
    return 1 if errors else 0


def _loopback(text: str) -> tuple[float, float]:
    """Parse ``--loopback BW[,LAT]`` (LAT defaults to SimGrid's 1e-7 s)."""
    parts = [p.strip() for p in text.split(",")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) not in (1, 2) or values[0] <= 0 or (len(values) == 2 and values[1] < 0):
        raise InvalidInputError(f"--loopback: expected BANDWIDTH[,LATENCY] (positive, seconds); got {text!r}")
    return values[0], values[1] if len(values) == 2 else DEFAULT_LOOPBACK[1]


def _abs_program(path: str) -> str:
    """The app as run.sh names it: absolute when given as a path, as is when looked up on PATH."""
    return os.path.abspath(path) if os.sep in path else path


register("simgrid", "SimGrid SMPI: platform, one hostfile per method, run.sh; --run simulates the app per method")(
    simgrid_command
)
