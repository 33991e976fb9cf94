"""``mpitaskmap compare``: several methods side by side, as a table and an HTML report."""

from __future__ import annotations

import argparse
import sys
import time

from ..metrics import DEFAULT_MESSAGE_MODEL, METRICS, default_metric
from ..search.families.graph import worse_than_default_line
from ..search.judge import judge_change
from ..sim.fluid import DEFAULT_NETWORK_MODEL, network_model
from ._registry import register
from ._common import (
    SECONDS_COLUMN, SHORT_NAMES, SIMULATED_COLUMN, add_method_options, add_methods_option, add_simulate_options,
    announce, column_help, column_meanings, command_parser, load_inputs, message_model, metric_rows, render_table,
    run_methods,
)
from ._inputs import read_mapping_file

__all__ = ["compare_command", "build_parser", "report_figures", "simulated_seconds"]

DESCRIPTION = """\
Run several mapping methods on the same task graph and allocation and print their
metrics side by side, one row per method (text, CSV or JSON).  Reorder files given with
--mapping join the table.  With --html the table and the pictures (allocation in 3-D,
busiest link per link class, hop histogram) go into one self-contained HTML page.

Columns ("weight" is the task graph's edge weight, bandwidths are in GB/s; lower is
better; the best row by --metric is reported and highlighted in the HTML page; the same
legend ends the text table and the HTML table, -q or --format csv/json leave it out):
{columns}

Without matplotlib, --html writes the page with the table and its legend but no figures,
and one line says which extra to install.

With --simulate (needs SimGrid: apt-get install libsimgrid-dev) a "SimGrid s" column
gives SimGrid's time of one exchange step of each mapping: SimGrid replays every edge of
the task graph as one message of weight x --bytes-per-weight bytes, all at once, over the
machine's links (their bandwidths in GB/s, --link-latency seconds per hop) under its SMPI
network model (the model an application under SMPI runs on, and the fluid judge's;
--network-model CM02 for the plain fluid model) and reports when the last one arrives
(mpitaskmap.sim.simgrid_replay.simulate_exchange).  Messages between tasks of one node
cross no link; a mapping with only such messages takes 0 s.
"""

EPILOG = """\
methods (--methods NAME[:ARG][:OPTIONS],...):
{methods}

examples:
  mpitaskmap compare -m sim:titan:nodes=64,ppn=16,seed=1 -t stencil3d:16x8x8
  mpitaskmap compare -m sim:titan:nodes=64,ppn=16,seed=1 -t stencil3d:16x8x8 \\
      --methods identity,geometric,geometric:ordering=hilbert,greedy+uwh,auto --html report.html
  mpitaskmap compare -m alloc.txt -t matrix:comm.mtx --methods identity,greedy,umc --format csv -o table.csv
  mpitaskmap compare -m sim:titan:nodes=64,ppn=16,seed=1 -t stencil3d:16x8x8 --simulate --bytes-per-weight 16384

exit status: 0 on success, 1 on an error (one line; --debug for the traceback).
"""

DEFAULT_METHODS = "identity,geometric,greedy+uwh"


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``mpitaskmap compare``."""
    p = command_parser("compare", DESCRIPTION.replace("{columns}", column_help()), EPILOG)
    g = p.add_argument_group("what to compare")
    add_methods_option(g, DEFAULT_METHODS)
    g.add_argument("--mapping", action="append", default=[], metavar="[FORMAT=]PATH",
                   help="also evaluate a reorder file (repeatable)")
    g.add_argument("--metrics", metavar="M,M", help=f"metrics to show (default all that apply): {','.join(METRICS)}")
    add_method_options(p)
    g = p.add_argument_group("outputs")
    g.add_argument("--format", default="text", choices=["text", "csv", "json"], help="table format (default text)")
    g.add_argument("-o", "--output", metavar="PATH", help="write the table there instead of standard output")
    g.add_argument("--html", metavar="PATH", help="write a self-contained HTML report (table + plots)")
    add_simulate_options(p.add_argument_group("simulated time (SimGrid)"),
                         f"add a '{SIMULATED_COLUMN}' column: one exchange step of each mapping simulated by SimGrid "
                         "(--network-model); "
                         "auto rows are then judged by the simulator (the fastest of its --simulate-top best)")
    return p


def simulated_seconds(mapping, *, link_latency: float = DEFAULT_MESSAGE_MODEL.hop_latency,
                      bytes_per_weight: float | None = None,
                      network: str = DEFAULT_NETWORK_MODEL.name) -> float:
    """SimGrid's seconds of one exchange step of ``mapping`` (0 when no message leaves its node).

    Parameters
    ----------
    mapping : Mapping
        Task -> processor, with its task graph.
    link_latency : float, optional
        Seconds per hop (default that of :data:`~mpitaskmap.metrics.DEFAULT_MESSAGE_MODEL`).
    bytes_per_weight : float, optional
        Message bytes per unit of edge weight (default the graph's:
        :func:`~mpitaskmap.metrics.message_model_for`).
    network : str, optional
        The network model, a name of :data:`mpitaskmap.sim.fluid.NETWORK_MODELS` (default
        SMPI's, :data:`~mpitaskmap.sim.fluid.DEFAULT_NETWORK_MODEL`: the fluid judge's).

    Returns
    -------
    float
        :attr:`mpitaskmap.sim.simgrid_replay.ExchangeSimulation.seconds` under that model.
    """
    from ..sim.fluid import exchange_messages
    from ..sim.simgrid_replay import simulate_exchange

    # the messages the replay would send
    src, _, _ = exchange_messages(mapping.graph, mapping.machine, mapping.task_to_proc, bytes_per_weight)
    if src.size == 0:
        return 0.0
    return simulate_exchange(mapping, link_latency=link_latency, bytes_per_weight=bytes_per_weight,
                             config=network_model(network).simgrid_config).seconds


def judged_lines(label: str, info: dict) -> str:
    """Two lines of what the judge found for a method it decided (``auto``): replayed, then predicted.

    The wording is :func:`~mpitaskmap.search.judge.judge_change`'s, as ``mpitaskmap map`` and
    ``remap()`` print it.

    Examples
    --------
    >>> rows = [dict(index=3, score=2e-7, simulated_s=1e-6), dict(index=0, score=4e-7, simulated_s=1e-6)]
    >>> print(judged_lines("auto", dict(judge="fluid", judged=rows, candidate_index=0, metric="predicted_time")), end="")
    auto: replayed step: default 1e-06 s, no gain found: the other mapping replayed, #3, 1e-06 s; the default order is kept
      predicted_time: default 4e-07 s -> 4e-07 s (predicted, unchanged); the objective's pick #3: 2e-07 s (predicted, 50.0% lower)
    """
    replayed, objective = judge_change(info["judge"], info["judged"], info["candidate_index"],
                                       info.get("metric", "objective"))
    return f"{label}: {replayed}\n  {objective}\n"


def report_figures(rows, best: int) -> list[tuple[str, bytes]]:
    """Return (caption, PNG) of the report's figures: allocation, link loads, hop histogram."""
    from ..viz.plots import figure_png, plot_allocation, plot_hop_histogram, plot_link_loads

    figures = []
    machine = rows[0].mapping.machine
    by_label = {r.label: r.mapping for r in rows}
    if machine.has_router_grid:
        pair = {rows[0].label: rows[0].mapping}
        pair[rows[best].label] = rows[best].mapping
        fig = plot_allocation(pair)
        figures.append((f"Allocation in 3-D: {' vs '.join(pair)}; routers coloured by the part of the task "
                        "domain they run (compact blobs = neighbours stay close)", figure_png(fig)))
    if machine.has_link_model:
        fig = plot_link_loads(by_label)
        figures.append(("Busiest link per link class, Data and Latency = Data / bandwidth: the tallest right-hand "
                        "bar is Latency(M), the congestion that bounds communication time", figure_png(fig)))
    fig = plot_hop_histogram(by_label)
    figures.append(("Hop distance of every message, per method", figure_png(fig)))
    return figures


def compare_command(argv: list) -> int:
    """Run ``mpitaskmap compare`` with ``argv``; return the exit status.

    Parameters
    ----------
    argv : list of str
        Arguments after ``compare``.

    Returns
    -------
    int
        0 on success.
    """
    args = build_parser().parse_args(argv)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods and not args.mapping:
        raise ValueError("--methods: expected at least one method")
    no_figures = ""  # why the HTML page has no figures
    if args.html:
        from ..viz.plots import _mpl

        try:
            _mpl()  # known before the work; without it the table is still printed and written
        except ImportError:
            no_figures = 'matplotlib is missing; install the plot extra: pip install "mpitaskmap[plot]"'
    if args.simulate:
        from ..sim.simgrid import simgrid_missing

        why = simgrid_missing(compiler=True)  # fail before the work when SimGrid is missing
        if why:
            raise ValueError(f"--simulate: {why}")
    mi, ti = load_inputs(args)
    status = sys.stderr
    talk = not args.quiet
    if talk:
        status.write(f"machine  {mi.describe()}\ntasks    {ti.describe()}\n")
    if args.methods == DEFAULT_METHODS and ti.graph.coords is None:  # a recording or a matrix: no coordinates
        methods = [m for m in methods if m != "geometric"]
        if talk:
            status.write("geometric left out of the default methods: the tasks have no coordinates "
                         "(--task-coords PATH gives them)\n")
    mappings = run_methods(methods, ti.graph, mi.machine, args)
    for value in args.mapping:
        m = read_mapping_file(value, mi, ti.graph, args.hosts)
        mappings.append((m.method, m, None))
    labels = [label for label, _, _ in mappings]
    if len(set(labels)) != len(labels):
        raise ValueError(f"--methods: each method once; got {labels}")
    metrics = [s.strip() for s in args.metrics.split(",")] if args.metrics else None
    model = message_model(args, ti.graph)
    rows = metric_rows(mappings, metrics, model)
    if args.simulate:
        for r in rows:
            done = announce(f"{r.label}: simulating", quiet=args.quiet)
            t0 = time.perf_counter()
            r.simulated = simulated_seconds(r.mapping, **model.replay_options(), network=args.network_model)
            done(time.perf_counter() - t0)
    wanted = args.metric or default_metric(mi.machine)
    key = wanted if wanted in rows[0].metrics else next(iter(rows[0].metrics))
    best = min(range(len(rows)), key=lambda i: (rows[i].metrics[key], i))
    header = {"machine": mi.describe(), "tasks": ti.describe(), "metric": key, "best": rows[best].label}
    table = render_table(rows, args.format, header=header, with_legend=talk)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(table)
        if talk:
            status.write(f"wrote {args.output} ({args.format} table)\n")
    else:
        sys.stdout.write(table)
    base = rows[0].metrics[key]
    ratio = f" = {rows[best].metrics[key] / base:.3f} x {rows[0].label}" if base else ""
    judged = [judged_lines(r.label, r.info) for r in rows if r.info and r.info.get("judge")]
    if talk:
        status.write(f"best by {key}: {rows[best].label}{ratio}\n")
        status.write("".join(judged))  # what the judge found, where it decided (auto): the replayed change first
        status.write("".join(worse_than_default_line(r.label, r.info) for r in rows))  # graph methods only
    if args.html:
        from ..viz.report_html import write_html_report

        names = list(rows[0].metrics)
        sim = [SIMULATED_COLUMN] if args.simulate else []
        timed = any(r.seconds is not None for r in rows)
        columns = ["method", *[SHORT_NAMES.get(n, n) for n in names], *sim, *([SECONDS_COLUMN] if timed else [])]
        cells = [[r.label, *[r.metrics[n] for n in names], *([r.simulated] if sim else []),
                  *(["-" if r.seconds is None else round(r.seconds, 4)] if timed else [])]
                 for r in rows]
        notes = [f"Best by {key}: {rows[best].label}{ratio}. Lower is better.", *(" ".join(j.split()) for j in judged)]
        if no_figures:
            notes.append(f"No figures: {no_figures}.")
        if sim:
            notes.append(f"{SIMULATED_COLUMN}: SimGrid's simulated time of one exchange step under its "
                         f"{args.network_model} network model (every edge one message of weight x {model.bytes_per_weight:g} bytes, all at once, "
                         f"{model.hop_latency:g} s per hop, the machine's link bandwidths); seconds: time the method "
                         "took to map.")
        write_html_report(args.html, f"mpitaskmap: {ti.spec} on {mi.spec}", columns, cells,
                          images=[] if no_figures else report_figures(rows, best), highlight=best, notes=notes,
                          legend=column_meanings(columns),
                          meta={"machine": mi.describe(), "tasks": ti.describe(), "methods": ", ".join(labels)})
        if no_figures:  # said even with -q: the page lacks what was asked
            status.write(f"mpitaskmap compare: wrote {args.html} without figures: {no_figures}\n")
        elif talk:
            status.write(f"wrote {args.html} (HTML report)\n")
    return 0


register("compare", "several methods side by side: table (text/CSV/JSON) and HTML report")(compare_command)
