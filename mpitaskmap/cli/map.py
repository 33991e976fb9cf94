"""``mpitaskmap map``: compute a mapping offline and write the files a launcher reads."""

from __future__ import annotations

import argparse
import sys
import time

from ..search.families.graph import worse_than_default_line
from ..search.judge import DEFAULT_ORDER, JUDGE_TIE, JUDGES, NO_GAIN, TIED, judge_change
from ..mapfiles import MAP_FORMATS, write_map
from ..mapping import IDENTITY, identity_mapping
from ..metrics import describe_sizes
from ._registry import register
from ._common import (
    COLUMN_MEANINGS, SECONDS_COLUMN, SIMULATED_COLUMN, Progress, add_method_options, add_simulate_options, announce, command_parser,
    column_help, context_from, load_inputs, message_model, metric_rows, render_table,
)
from ._inputs import guess_format, host_options, split_format_path
from ._methods import run_method

__all__ = ["map_command", "build_parser"]

DESCRIPTION = """\
Map a task graph onto an allocation with one method and write rank-reorder files.

The machine (-m) is where the job runs, one processor per MPI rank in the launcher's
order; the tasks (-t) are the application's ranks and their messages.  Task t of the
result is MPI rank t of the application, placed on the processor the method chose.
The metrics of the default order and of the mapping are printed side by side, with a
legend line under the table (left out by -q and --format csv/json); lower is better:
""" + column_help(time_columns=(SECONDS_COLUMN,)) + "\n"

EPILOG = """\
methods (--method NAME[:ARG][:OPTIONS]):
{methods}

outputs (-o [FORMAT=]PATH, repeatable; FORMAT from the name when omitted):
  mpich_rank_order  Cray MPICH: MPICH_RANK_REORDER_METHOD=3 reads ./MPICH_RANK_ORDER
  openmpi_rankfile  Open MPI: mpirun --rankfile FILE (5.x: --map-by rankfile:file=FILE)
  slurm_hostfile    Slurm: SLURM_HOSTFILE=FILE srun --distribution=arbitrary
  bluegene          Blue Gene/Q: runjob --mapping FILE (BG/P: mpirun -mapfile FILE)
  csv               rank,proc,node,coordinates,slot for your own tools
  (name rules: *rank_order* -> mpich_rank_order, *.csv -> csv, *rankfile* ->
   openmpi_rankfile, *hostfile*/*slurm* -> slurm_hostfile, *.map -> bluegene)

host names: a sim: machine and a machine file with 'host' lines name their nodes;
otherwise nodes are nid%05d of the node id (Cray); --hosts 'node%03d' overrides.

examples:
  mpitaskmap map -m sim:titan:nodes=64,ppn=16,seed=1 -t stencil3d:16x8x8 -o MPICH_RANK_ORDER
  mpitaskmap map -m alloc.txt -t stencil3d:32x32x16:points=27 --method auto -o rankfile -o map.csv
  mpitaskmap map -m sim:bgq:shape=2x2x4x4x2 -t stencil3d:16x16x16 --method geometric:ordering=z -o block.map
  mpitaskmap map -m percs:ns=16,nd=8 -t stencil2d:32x64 --method percs:mod_colouring -o csv=percs.csv

exit status: 0 on success, 1 on an error (one line; --debug for the traceback), 2 on
a bad command line.  Formats in detail: python -c "import mpitaskmap.mapfiles as f; help(f)"
"""


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``mpitaskmap map``."""
    p = command_parser("map", DESCRIPTION, EPILOG)
    p.add_argument("--method", default=None, metavar="NAME[:ARG][:OPTIONS]",
                   help="mapping method (default geometric; auto for tasks without coordinates: a recording, a "
                        "matrix); see 'methods' below")
    add_method_options(p)
    g = p.add_argument_group("outputs")
    g.add_argument("-o", "--output", action="append", default=[], metavar="[FORMAT=]PATH",
                   help=f"write the mapping; FORMAT one of {', '.join(sorted(MAP_FORMATS))}")
    g.add_argument("--ranges", action="store_true", help="MPICH_RANK_ORDER: write runs as a-b")
    g.add_argument("--format", default="text", choices=["text", "csv", "json"], help="metric table format")
    add_simulate_options(p.add_argument_group("the simulator as the judge (auto, needs SimGrid)"),
                         "auto: simulate the --simulate-top best distinct mappings of the search (one exchange "
                         "step each, SimGrid) and keep the fastest; both rankings are printed")
    return p


def map_command(argv: list) -> int:
    """Run ``mpitaskmap map`` with ``argv``; return the exit status.

    Parameters
    ----------
    argv : list of str
        Arguments after ``map``.

    Returns
    -------
    int
        0 on success.
    """
    args = build_parser().parse_args(argv)
    outputs = []
    for value in args.output:  # check every output before the (possibly long) mapping
        fmt, path = split_format_path(value)
        outputs.append((fmt or guess_format(path), path))
    mi, ti = load_inputs(args)
    status = sys.stderr
    if not args.quiet and args.format == "text":
        status.write(f"machine  {mi.describe()}\ntasks    {ti.describe()}\n")
    if args.method is None:  # geometric needs coordinates; a recording or a matrix has none
        args.method = "geometric" if ti.graph.coords is not None else "auto"
        if ti.graph.coords is None and not args.quiet and args.format == "text":
            status.write("method   auto (the default for tasks without coordinates; geometric needs them)\n")
    if (args.simulate or args.judge in JUDGES) and not args.method.lower().startswith("auto"):
        flag = "--simulate" if args.simulate else f"--judge {args.judge}"
        raise ValueError(f"{flag}: only --method auto has candidates to judge; got {args.method!r}")
    progress = Progress(f"{args.method}: candidates", quiet=args.quiet)
    ctx = context_from(args, ti.graph, progress)
    if not ti.graph.sized and not args.quiet and args.format == "text":
        status.write(f"messages {describe_sizes(ti.graph, ctx.model)}\n")
    done = announce(args.method, quiet=args.quiet or args.format != "text" or args.method.startswith("auto"))
    mapping, seconds = run_method(args.method, ti.graph, mi.machine, ctx)
    done(seconds)
    t0 = time.perf_counter()  # the default order is a method too: timed like the other row
    default = identity_mapping(ti.graph, mi.machine, oversubscribe=args.oversubscribe)
    rows = metric_rows([(IDENTITY, default, time.perf_counter() - t0), (args.method, mapping, seconds)],
                       model=ctx.model)
    header = {"machine": mi.describe(), "tasks": ti.describe(), "method": args.method}
    sys.stdout.write(render_table(rows, args.format, header=header, with_legend=not args.quiet))
    for fmt, path in outputs:
        options = host_options(fmt, mi, args.hosts)
        if fmt == "mpich_rank_order" and args.ranges:
            options["ranges"] = True
        write_map(mapping, path, fmt, **options)
        if not args.quiet:
            status.write(f"wrote {path} ({fmt}, {mapping.n_tasks} ranks)\n")
    if not args.quiet and mapping.info.get("judge"):
        status.write(judged_table(mapping.info))
    if not args.quiet and "candidate" in mapping.info:
        chosen_by = f" (chosen by {mapping.info['metric']})" if "metric" in mapping.info else ""
        judge = mapping.info.get("judge")
        if judge:
            if mapping.info.get("candidate_index") == 0:
                chosen_by = f" (the {judge} judge: {NO_GAIN})"
            else:
                chosen_by = (" (the fastest simulated)" if judge == "simulate"
                             else f" (the fastest replayed by the {judge} judge)")
        elif "judge_why" in mapping.info:
            chosen_by += f"; no judge: {mapping.info['judge_why']}"
        status.write(f"winner: {mapping.info['candidate']}{chosen_by}\n")
        status.write(refused_lines(mapping.info))
        if "task_coords" in mapping.info:
            status.write(f"  {mapping.info['task_coords']}\n")
        if judge:  # the replayed change is the headline, the objective's second
            replayed, objective = judge_change(judge, mapping.info["judged"], mapping.info["candidate_index"],
                                               mapping.info.get("metric", "objective"))
            status.write(f"  {replayed}\n  {objective}\n")
    if not args.quiet:
        status.write(worse_than_default_line(args.method, mapping.info))  # a graph method worse than the default
    return 0


#: Refused candidates a ``map`` summary names one by one (the others are counted).
REFUSED_SHOWN = 5


def refused_lines(info: dict) -> str:
    """The candidates of an ``auto`` search that did not apply, and why ("" when all applied).

    Examples
    --------
    >>> print(refused_lines({"candidates": 4, "applicable": 3, "refused": {"umc": "routes > MAX_ROUTE_ENTRIES"}}), end="")
      3 of 4 candidates applied; umc did not: routes > MAX_ROUTE_ENTRIES
    """
    refused = info.get("refused") or {}
    if not refused:
        return ""
    shown = list(refused.items())[:REFUSED_SHOWN]
    head = f"  {info.get('applicable')} of {info.get('candidates')} candidates applied; "
    if len(refused) == 1:
        label, why = shown[0]
        return head + f"{label} did not: {why}\n"
    lines = [head + f"{len(refused)} did not:"] + [f"    {label}: {why}" for label, why in shown]
    if len(refused) > len(shown):
        lines.append(f"    and {len(refused) - len(shown)} more (logger 'mpitaskmap', INFO, names each)")
    return "\n".join(lines) + "\n"


def judged_table(info: dict) -> str:
    """The judge's table: each replayed mapping's rank by the objective and by time, and the one picked.

    ``shortlisted by`` says why a mapping was replayed (the objective's best few, the
    best by a ``--simulate-also`` metric, or the default order, the baseline); ``picked``
    marks the mapping returned and who picked it: the judge, and the objective too when
    its own first is the fastest, or "no gain found" when the default order is kept.  A
    legend line ends the table.
    """
    rows = info["judged"]
    w = max(len("candidate"), *(len(r["candidate"]) for r in rows))
    picked_index = info.get("candidate_index")
    top = sum(r.get("chosen_by", "objective") == "objective" for r in rows)
    tied = sum(r.get("chosen_by") == TIED for r in rows)
    also = sorted({r["chosen_by"] for r in rows} - {"objective", TIED, DEFAULT_ORDER})
    fluid = info.get("judge") == "fluid"
    how = "replayed (fluid judge)" if fluid else "simulated"
    title = f"{how} the {top} best distinct mappings of the search ({info.get('metric', 'objective')})"
    if tied:
        title += f", {tied} more tied with the last of them"
    if also:
        title += " and the best by " + ", ".join(also)
    if any(r.get("chosen_by") == DEFAULT_ORDER for r in rows):
        title += ", and the default order"
    time_column = "replayed s" if fluid else SIMULATED_COLUMN  # every printed time names its model
    lines = [title + ":",
             f"  {'by objective':>12}  {'by time':>7}  {'shortlisted by':<14}  {'candidate':<{w}} {'objective':>11} "
             f"{time_column:>12}  picked"]
    for r in rows:
        picked = ""
        if picked_index is not None and r.get("index") == picked_index == 0:
            picked = f"judge ({NO_GAIN}: the default order is kept)"
        elif picked_index is not None and r.get("index") == picked_index:
            picked = f"judge (objective's #{r['objective_rank']}{' too' if r['objective_rank'] == 1 else ''})"
        lines.append(f"  {r['objective_rank']:>12}  {r['simulated_rank']:>7}  {r.get('chosen_by', 'objective'):<14}  "
                     f"{r['candidate']:<{w}} {r['score']:>11.5g} {r['simulated_s']:>12.5g}  {picked}".rstrip())
    replay = ("the fluid judge's in-process replay, mean s of an exchange step over its steps (SMPI network model)" if fluid
              else COLUMN_MEANINGS[SIMULATED_COLUMN])
    lines.append(f"legend: by objective / by time: rank by the objective ({info.get('metric', 'objective')}) and by "
                 f"{time_column}; shortlisted by: why it was replayed (objective: among its {top} best; {TIED}: scored "
                 f"the same as the last of them; a metric: the best by it; {DEFAULT_ORDER}: the baseline a pick must "
                 f"beat); objective: its score; {time_column}: {replay}; picked: the mapping returned (the fastest; "
                 f"times within {JUDGE_TIE:g} of each other go to the default order, then to the better objective)")
    return "\n".join(lines) + "\n"


register("map", "compute a mapping and write rank-reorder files")(map_command)

