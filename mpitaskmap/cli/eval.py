"""``mpitaskmap eval``: the metrics of the default order or of existing reorder files."""

from __future__ import annotations

import argparse
import sys

from ..mapping import IDENTITY, identity_mapping
from ..metrics import METRICS, link_loads
from ._registry import register
from ._common import (_fmt, add_message_model_options, align_columns, column_help, command_parser, load_inputs,
                      message_model, metric_rows, render_table)
from ._inputs import read_mapping_file

__all__ = ["eval_command", "build_parser", "class_table", "CLASS_LEGEND"]

DESCRIPTION = """\
Evaluate mappings of a task graph on an allocation: the default order (task t on
processor t) and any reorder files given with --mapping, one row each.

Metrics (one implementation, mpitaskmap.metrics; the link metrics on machines with a link
model; "weight" is the task graph's edge weight, bandwidths are in GB/s; lower is better;
the same legend ends the text table, -q or --format csv/json leave it out):
""" + column_help(time_columns=()) + "\n"

EPILOG = """\
mapping files (--mapping [FORMAT=]PATH, repeatable; FORMAT from the file's content when
omitted, the name deciding only where the content fits several):
  mpich_rank_order, openmpi_rankfile, slurm_hostfile, smpi_hostfile, bluegene, csv
  (a host list, Slurm's or SMPI's, fixes only the node of each rank; its metrics are exact)

examples:
  mpitaskmap eval -m sim:titan:nodes=64,ppn=16,seed=1 -t stencil3d:16x8x8
  mpitaskmap eval -m sim:titan:nodes=64,ppn=16,seed=1 -t stencil3d:16x8x8 --mapping MPICH_RANK_ORDER
  mpitaskmap eval -m alloc.txt -t matrix:comm.mtx --mapping csv=old.csv --by-class --format json

exit status: 0 on success, 1 on an error (one line; --debug for the traceback).
"""


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``mpitaskmap eval``."""
    p = command_parser("eval", DESCRIPTION, EPILOG)
    g = p.add_argument_group("what to evaluate")
    g.add_argument("--mapping", action="append", default=[], metavar="[FORMAT=]PATH",
                   help="a reorder file to evaluate (repeatable)")
    g.add_argument("--no-identity", action="store_true", help="leave out the row of the default order (identity)")
    g.add_argument("--metrics", metavar="M,M", help=f"metrics to show (default all that apply): {','.join(METRICS)}")
    g.add_argument("--by-class", action="store_true",
                   help="also show the load of the busiest link per link class (X+, X-, ... on a torus)")
    g.add_argument("--format", default="text", choices=["text", "csv", "json"], help="table format")
    add_message_model_options(p.add_argument_group("the messages of the PredTime column"))
    return p


#: The columns of the per-class tables of ``--by-class``.
CLASS_COLUMNS = ("link", "max data", "max latency", "max msgs", "links used")

#: The legend under the per-class tables of ``--by-class``.
CLASS_LEGEND = ("legend: link: the link class (X+, X-, ... on a torus); max data: most weight through one link of the "
                "class; max latency: most weight / bandwidth on one (ns for bytes over GB/s); max msgs: most messages "
                "through one; links used: links of the class that carry traffic")


def class_table(rows) -> tuple[str, dict]:
    """Return the per-class link table (text) and its JSON records per row label.

    The text is one table per row, its columns aligned by
    :func:`~mpitaskmap.cli._common.align_columns` (numbers as in the metric table).  Each link class of the machine (``X+``, ``X-``, ... on a torus, ``LL``/``LR``/``D`` on
    PERCS) shows the largest Data(e) and Latency(e) over its links, from
    :meth:`~mpitaskmap.machines.LinkLoads.by_class`.
    """
    lines, records = [], {}
    for r in rows:  # the legend line is the caller's: after the last row's table
        m = r.mapping
        dirs = link_loads(m.graph, m.machine, m.task_to_proc).by_class()
        records[r.label] = {"by_class": dirs}
        lines.append(f"{r.label}: busiest link per link class")
        lines += align_columns(CLASS_COLUMNS, [[d["link"], _fmt(d["max_data"]), _fmt(d["max_latency"]),
                                                _fmt(d["max_messages"]), _fmt(d["used_links"])] for d in dirs],
                               indent="  ")
    return "\n".join(lines) + "\n", records


def eval_command(argv: list) -> int:
    """Run ``mpitaskmap eval`` with ``argv``; return the exit status.

    Parameters
    ----------
    argv : list of str
        Arguments after ``eval``.

    Returns
    -------
    int
        0 on success.
    """
    args = build_parser().parse_args(argv)
    mi, ti = load_inputs(args)
    if not args.quiet and args.format == "text":
        sys.stderr.write(f"machine  {mi.describe()}\ntasks    {ti.describe()}\n")
    mappings = [] if args.no_identity else [
        (IDENTITY, identity_mapping(ti.graph, mi.machine, oversubscribe=args.oversubscribe), None)]
    for value in args.mapping:
        m = read_mapping_file(value, mi, ti.graph, args.hosts)
        mappings.append((m.method, m, None))
    if not mappings:
        raise ValueError("eval: nothing to evaluate; give --mapping or drop --no-identity")
    metrics = [s.strip() for s in args.metrics.split(",")] if args.metrics else None
    rows = metric_rows(mappings, metrics, message_model(args, ti.graph))
    header = {"machine": mi.describe(), "tasks": ti.describe()}
    extra = None
    if args.by_class:
        if not mi.machine.has_link_model:
            raise ValueError(f"--by-class: the machine {mi.machine.name!r} has no link model")
        text, extra = class_table(rows)
    sys.stdout.write(render_table(rows, args.format, header=header, extra=extra, with_legend=not args.quiet))
    if args.by_class and args.format == "text":
        sys.stdout.write("\n" + text + ("" if args.quiet else CLASS_LEGEND + "\n"))
    return 0


register("eval", "metrics of the default order or of existing reorder files")(eval_command)
