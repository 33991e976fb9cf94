"""Shared pieces of the subcommands (private): options, progress bar, metric tables.

Only the command line prints; everything here writes to the streams it is given.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import textwrap
from dataclasses import dataclass, field
from typing import Sequence, TextIO

from ..search.judge import (DEFAULT_JUDGE, FLUID_JUDGE_MAX_EDGES, FLUID_JUDGE_RESOLUTION, JUDGE_ALSO,
                           JUDGE_EXACT_MAX_EDGES, JUDGE_TOP, JUDGES)
from ..search.parallel import PARALLEL_MIN_TASKS
from ..mapping import Mapping, check_fit
from ..graphs.taskgraph import TaskGraph
from ..metrics import (DEFAULT_MESSAGE_MODEL, METRICS, UNSIZED_BYTES_PER_WEIGHT, MessageModel, evaluate,
                       message_model_for)
from ..sim.fluid import DEFAULT_NETWORK_MODEL, NETWORK_MODELS
from ..mappers.geometric.mj import ORDERINGS
from ..mappers.geometric.options import GEOMETRIC_DEFAULTS
from ..search.registry import METHOD_TABLE
from ._inputs import MACHINE_FORMS, TASK_FORMS, MachineInput, TaskInput, load_machine, load_tasks
from ._methods import Context, run_method
from ._progress import Progress

__all__ = ["Row", "Progress", "announce", "command_parser", "add_io_options", "add_methods_option",
           "add_method_options", "add_message_model_options", "message_model", "MODEL_OPTIONS", "add_simulate_options",
           "load_inputs",
           "context_from", "run_methods",
           "metric_rows", "align_columns", "render_table", "SHORT_NAMES", "SIMULATED_COLUMN", "SECONDS_COLUMN", "COLUMN_MEANINGS",
           "column_meanings", "legend", "column_help"]

#: Column headers of the text table: the paper's short names.
SHORT_NAMES = {
    "total_hops": "TH",
    "average_hops": "AvgHops",
    "weighted_hops": "WH",
    "max_hops": "MaxHops",
    "max_data": "Data(M)",
    "latency": "Latency(M)",
    "max_messages": "MMC",
    "average_messages": "AMC",
    "average_latency": "AC",
    "predicted_time": "PredTime",
}

#: Header of the simulated-time column (``compare --simulate``): SimGrid's seconds of one exchange
#: step (named by its model, as every printed time: "predicted", "replayed", "SimGrid").
SIMULATED_COLUMN = "SimGrid s"

#: Header of the time the method took (every metric table; JSON and CSV key ``seconds``).
SECONDS_COLUMN = "seconds"

#: What every column of a metric table means, with its unit, by metric name (the headers are
#: :data:`SHORT_NAMES`) or by header for the time columns: the one text of the legend under
#: every text table (:func:`legend`), of the HTML report's legend and of the ``--help`` of the
#: subcommands that print the table (:func:`column_help`).  "weight" is the task graph's edge
#: weight (bytes with the default --bytes-per-weight 1); link bandwidths are in GB/s, so
#: weight / bandwidth is in ns when the weights are bytes.
COLUMN_MEANINGS = {
    "total_hops": "hops of all messages (sum)",
    "average_hops": "hops per message",
    "weighted_hops": "hops x weight, summed (hop-bytes)",
    "max_hops": "hops of the longest route",
    "max_data": "most weight through one link",
    "latency": "most weight / bandwidth on one link (ns for bytes over GB/s)",
    "max_messages": "most messages through one link",
    "average_messages": "messages per link used",
    "average_latency": "weight / bandwidth per link used (ns for bytes over GB/s)",
    "predicted_time": "predicted s of one exchange step (the objective's formula)",
    SIMULATED_COLUMN: "SimGrid's simulated s of one exchange step",
    SECONDS_COLUMN: "wall s the method took to compute the mapping (-: read from a file)",
}


def column_meanings(columns: Sequence[str]) -> dict[str, str]:
    """Header -> meaning of the known columns among ``columns`` (headers of :data:`SHORT_NAMES` or time columns).

    Examples
    --------
    >>> column_meanings(["method", "AvgHops"])
    {'AvgHops': 'hops per message'}
    """
    by_header = {SHORT_NAMES.get(k, k): v for k, v in COLUMN_MEANINGS.items()}
    return {c: by_header[c] for c in columns if c in by_header}


def legend(columns: Sequence[str], more: dict[str, str] | None = None) -> str:
    """The one-line legend of a text table with these headers: each known column, its meaning and unit.

    ``more`` gives (or overrides) the meaning of headers of the caller's own table.

    Examples
    --------
    >>> legend(["method", "AvgHops", "WH"])
    'legend: AvgHops: hops per message; WH: hops x weight, summed (hop-bytes); lower is better'
    >>> legend(["method", "AvgHops", "app"], {"app": "the app's figure"})
    "legend: AvgHops: hops per message; app: the app's figure; lower is better"
    """
    known = {**column_meanings(columns), **(more or {})}
    parts = [f"{c}: {known[c]}" for c in dict.fromkeys(columns) if c in known]  # a repeated header once
    return "legend: " + "; ".join(parts + ["lower is better"])


def column_help(names: Sequence[str] | None = None,
                time_columns: Sequence[str] = (SIMULATED_COLUMN, SECONDS_COLUMN)) -> str:
    """The columns of the metric table, one per line, for a subcommand's ``--help``.

    Parameters
    ----------
    names : sequence of str, optional
        Metric names (default every metric).
    time_columns : sequence of str, optional
        The time columns the subcommand's table may have, after the metrics (default the
        simulated time and the method's time).
    """
    keys = list(names if names is not None else METRICS) + list(time_columns)
    heads = [(SHORT_NAMES.get(k, k), COLUMN_MEANINGS[k]) for k in keys if k in COLUMN_MEANINGS]
    width = max(len(h) for h, _ in heads)
    return "\n".join(f"  {h:<{width}}  {m}" for h, m in heads)


#: The options of the message model and what errors call its parameters (:class:`~mpitaskmap.metrics.MessageModel`).
MODEL_OPTIONS = ("--bytes-per-weight", "--link-latency", "--overlap-bytes")


@dataclass
class Row:
    """One mapping's line of a metric table."""

    label: str
    mapping: Mapping
    metrics: dict
    seconds: float | None = None
    info: dict = field(default_factory=dict)
    #: Simulated seconds of one exchange step (``compare --simulate``), None when not simulated.
    simulated: float | None = None


def announce(label: str, *, stream: TextIO | None = None, quiet: bool = False):
    """Say that ``label`` is running (on a terminal); return ``done(seconds)`` that reports its time.

    On a terminal the "running" line is overwritten by the result; elsewhere only the
    result line is written.
    """
    stream = stream if stream is not None else sys.stderr
    tty = bool(getattr(stream, "isatty", lambda: False)())
    if not quiet and tty:
        stream.write(f"{label}: running ...")
        stream.flush()

    def done(seconds: float) -> None:
        if not quiet:
            stream.write(("\r\033[K" if tty else "") + f"{label}: {seconds:.2f} s\n")

    return done


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """Add -q/--quiet and --debug."""
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars, status lines or legends")
    parser.add_argument("--debug", action="store_true", help="show the full traceback on errors")


def command_parser(command: str, description: str, epilog: str) -> argparse.ArgumentParser:
    """Return the parser of ``mpitaskmap COMMAND`` with its inputs (:func:`add_io_options`).

    Parameters
    ----------
    command : str
        The subcommand (``"map"``, ``"compare"``, ...): the parser's ``prog`` is
        ``mpitaskmap COMMAND``.
    description, epilog : str
        Text before and after the options, printed as written; ``{methods}`` in the
        epilog becomes :func:`method_help` (other braces doubled, as for :meth:`str.format`).

    Returns
    -------
    argparse.ArgumentParser
        With the input options, ``-q/--quiet`` and ``--debug``; the command adds its own.

    Examples
    --------
    >>> p = command_parser("demo", "A demo.", "methods: {methods}")
    >>> p.prog, "geometric" in p.epilog
    ('mpitaskmap demo', True)
    >>> p.parse_args(["-m", "sim:titan", "-t", "stencil3d:4x4x4"]).machine
    'sim:titan'
    """
    parser = argparse.ArgumentParser(
        prog=f"mpitaskmap {command}", description=description, epilog=epilog.format(methods=method_help()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_io_options(parser)
    return parser


def add_methods_option(group, default: str, what: str = "methods") -> None:
    """Add ``--methods M,M`` (a comma-separated list of method specs) to ``group``.

    Parameters
    ----------
    group : argparse argument group or parser
        Where the option goes.
    default : str
        The methods when the option is not given, comma-separated.
    what : str, optional
        The start of its help text (default ``"methods"``).

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> add_methods_option(p, "identity,geometric")
    >>> p.parse_args([]).methods
    'identity,geometric'
    """
    group.add_argument("--methods", default=default, metavar="M,M",
                       help=f"{what}, comma-separated (default {default})")


def add_io_options(parser: argparse.ArgumentParser) -> None:
    """Add the machine and task inputs (-m, -t, --task-coords, --ranks, --hosts)."""
    g = parser.add_argument_group("inputs")
    g.add_argument("-m", "--machine", required=True, metavar="SPEC",
                   help=f"the allocation: {MACHINE_FORMS} (the file forms: mpitaskmap formats)")
    g.add_argument("-t", "--tasks", required=True, metavar="SPEC",
                   help=f"the task graph: {TASK_FORMS} (the file forms: mpitaskmap formats tasks)")
    g.add_argument("--task-coords", metavar="PATH", help="task coordinates for a matrix input (one row per task)")
    g.add_argument("--ranks", type=int, metavar="N",
                   help="job size for sim: machines (default: one rank per task; fewer ranks than tasks needs "
                        "--oversubscribe)")
    g.add_argument("--oversubscribe", action="store_true",
                   help="allow more tasks than processors, several tasks per processor (identity and geometric "
                        "methods only); without it such a job is an error")
    g.add_argument("--hosts", metavar="FMT",
                   help="host names of nodes in rankfiles/host lists: a %%-format of the node id "
                        "(default: the machine's own names, else nid%%05d)")
    add_common_options(parser)


def add_message_model_options(group) -> None:
    """Add --bytes-per-weight, --link-latency and --overlap-bytes: the message model (the API's defaults).

    Their defaults are :data:`mpitaskmap.metrics.DEFAULT_MESSAGE_MODEL`, the API's, so a
    command and :func:`mpitaskmap.map` give one answer on one input.
    """
    model = DEFAULT_MESSAGE_MODEL
    group.add_argument("--bytes-per-weight", type=float, default=None, metavar="BYTES",
                       help=f"message bytes per unit of edge weight, for the predicted-time objective and the replays "
                            f"(default, as in the API: {model.bytes_per_weight:g}, the weights are bytes, so "
                            f"stencil3d:...:weight=W is W-byte messages; for a graph without message sizes, a stencil "
                            f"without weight= or a pattern matrix, {UNSIZED_BYTES_PER_WEIGHT:g})")
    group.add_argument("--link-latency", type=float, default=model.hop_latency, metavar="SECONDS",
                       help=f"seconds per hop, for the predicted-time objective and the replays "
                            f"(default {model.hop_latency:g})")
    group.add_argument("--overlap-bytes", type=float, default=model.overlap_bytes, metavar="BYTES",
                       help=f"predicted-time objective: message size up to which a message pays its hop latency "
                            f"in full, beyond it in proportion (default {model.overlap_bytes:g}; inf: always in full)")


#: --simulate-top default: distinct mappings of auto the judge replays.
DEFAULT_SIMULATE_TOP = JUDGE_TOP
#: --judge choices: the judges, "default" (the fluid judge where it applies) and "none".
JUDGE_CHOICES = (DEFAULT_JUDGE, *JUDGES, "none")


def add_simulate_options(group, what: str) -> None:
    """Add --simulate (described by ``what``), --judge, --simulate-top and --simulate-also: auto's judge."""
    group.add_argument("--simulate", action="store_true", help=what)
    group.add_argument("--judge", choices=JUDGE_CHOICES, default=DEFAULT_JUDGE,
                       help="auto: which replay picks the fastest of the search's best mappings: 'fluid' (SimGrid's "
                            "SMPI network model computed in-process), 'simulate' (SimGrid itself, as --simulate), "
                            "'none' (the objective alone), 'default' (fluid when the objective is the default one "
                            f"and the graph has at most {FLUID_JUDGE_MAX_EDGES:,} edges, within a work budget; above "
                            f"{JUDGE_EXACT_MAX_EDGES:,} edges at a resolution of {FLUID_JUDGE_RESOLUTION:g})")
    group.add_argument("--simulate-top", type=int, default=DEFAULT_SIMULATE_TOP, metavar="K",
                       help=f"the judge: distinct mappings of auto to replay (default {DEFAULT_SIMULATE_TOP})")
    group.add_argument("--simulate-also", default=",".join(JUDGE_ALSO), metavar="M,M",
                       help="the judge: also replay auto's best candidate by each of these metrics "
                            f"(default {','.join(JUDGE_ALSO)}; '' for none)")
    group.add_argument("--network-model", choices=sorted(NETWORK_MODELS), default=DEFAULT_NETWORK_MODEL.name,
                       help=f"the network model of every replay (the judge's, --simulate's): "
                            f"{DEFAULT_NETWORK_MODEL.name} (default: SimGrid's SMPI model, what an application under "
                            "SMPI runs on) or CM02 (the plain max-min fluid model)")


def message_model(args, graph: TaskGraph) -> MessageModel:
    """The message model of parsed options (:func:`add_message_model_options`) for ``graph``; an error names the option.

    Without ``--bytes-per-weight``, the API's default for this graph
    (:func:`mpitaskmap.metrics.message_model_for`: weights are bytes, or a representative size
    for a graph without message sizes).
    """
    bytes_per_weight = args.bytes_per_weight
    if bytes_per_weight is None:
        bytes_per_weight = message_model_for(graph).bytes_per_weight
    return MessageModel.checked(bytes_per_weight, args.link_latency, args.overlap_bytes, names=MODEL_OPTIONS)


def add_method_options(parser: argparse.ArgumentParser, *, auto_metric: bool = True) -> None:
    """Add the geometric options and the auto-search options."""
    g = parser.add_argument_group("method options")
    g.add_argument("--ordering", default=GEOMETRIC_DEFAULTS["ordering"], choices=list(ORDERINGS),
                   help="geometric part numbering (default fz)")
    g.add_argument("--no-shift", action="store_true", help="geometric: no torus shift of processor coordinates")
    g.add_argument("--bandwidth", action="store_true", help="geometric: scale coordinates by link bandwidth")
    g.add_argument("--box", metavar="AxBxC", help="geometric: box transform lengths, e.g. 2x2x8 (Gemini)")
    g.add_argument("--metric", default=None, choices=sorted(METRICS), metavar="NAME",
                   help="what auto minimises and compare ranks by (default predicted_time on machines with "
                        "a link model, weighted_hops elsewhere); any of " + ", ".join(METRICS))
    add_message_model_options(g)
    g.add_argument("--families", metavar="F,F",
                   help="auto: candidate families (default: every applicable one of geometric, graph, percs, grid)")
    g.add_argument("--orderings", metavar="O,O", default=",".join(ORDERINGS),
                   help="auto: geometric orderings to try (default all five)")
    g.add_argument("--jobs", type=int, default=None, metavar="N",
                   help=f"auto: worker processes for the candidates (default: every core this process may use; "
                        f"used from {PARALLEL_MIN_TASKS:,} tasks; 1: this process only)")


def load_inputs(args) -> tuple[MachineInput, TaskInput]:
    """Read --tasks then --machine (sized for the job); more tasks than processors only with --oversubscribe."""
    tasks = load_tasks(args.tasks, args.task_coords)
    machine = load_machine(args.machine, args.ranks or tasks.graph.n_tasks)
    check_fit(tasks.graph.n_tasks, machine.machine.n_procs, args.oversubscribe, what="--tasks",
              option="--oversubscribe")
    return machine, tasks


def run_methods(specs, graph, machine, args) -> list[tuple[str, Mapping, float]]:
    """Run each method spec on the inputs, each with its progress bar and its time line on stderr.

    Parameters
    ----------
    specs : sequence of str
        Method specs ``NAME[:ARG][:OPTIONS]``, run in this order.
    graph : TaskGraph
        The tasks.
    machine : Machine
        The allocation.
    args : argparse.Namespace
        The parsed options of the command (:func:`context_from`; ``args.quiet`` silences
        the bars and the time lines; an ``auto`` spec has its candidates bar instead of a
        time line).

    Returns
    -------
    list of (spec, Mapping, seconds)
        In the order of ``specs``: the rows :func:`metric_rows` takes.
    """
    out = []
    for spec in specs:
        progress = Progress(f"{spec}: candidates", quiet=args.quiet)
        done = announce(spec, quiet=args.quiet or spec.startswith("auto"))
        mapping, seconds = run_method(spec, graph, machine, context_from(args, graph, progress))
        done(seconds)
        out.append((spec, mapping, seconds))
    return out


def context_from(args, graph: TaskGraph, progress=None) -> Context:
    """Build the method context from parsed options, for ``graph`` (its message model: :func:`message_model`)."""
    # the flags are defaults of the table's options of the same name, parsed as a spec spells them
    defaults = {"ordering": args.ordering, "shift": not args.no_shift, "bandwidth": args.bandwidth,
                "orderings": tuple(o.strip() for o in args.orderings.split(",") if o.strip())}
    if args.box:
        defaults["box"] = METHOD_TABLE["geometric"].option("box").parse(args.box, "--box")
    families = tuple(f.strip() for f in args.families.split(",") if f.strip()) if args.families else None
    model = message_model(args, graph)
    top = getattr(args, "simulate_top", DEFAULT_SIMULATE_TOP)
    if top < 1:
        raise ValueError(f"--simulate-top: must be at least 1; got {top}")
    also = tuple(m.strip() for m in getattr(args, "simulate_also", ",".join(JUDGE_ALSO)).split(",") if m.strip())
    unknown = [m for m in also if m not in METRICS]
    if unknown:
        raise ValueError(f"--simulate-also: unknown metric {unknown[0]!r}; valid: {', '.join(METRICS)}")
    network = getattr(args, "network_model", DEFAULT_NETWORK_MODEL.name)
    jobs = getattr(args, "jobs", None)
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs: must be at least 1; got {jobs}")
    return Context(defaults=defaults, metric=args.metric, families=families, progress=progress, model=model,
                   network=network, judge=judge_of(args), judge_top=top, judge_also=also,
                   oversubscribe=args.oversubscribe, jobs=jobs)


def judge_of(args) -> str | None:
    """The judge of parsed options: --simulate is --judge simulate; 'none' is None."""
    judge = getattr(args, "judge", DEFAULT_JUDGE)
    if getattr(args, "simulate", False):
        if judge not in (DEFAULT_JUDGE, "simulate"):
            raise ValueError(f"--simulate: is --judge simulate; got also --judge {judge}")
        return "simulate"
    return None if judge == "none" else judge


def metric_rows(mappings: list[tuple[str, Mapping, float | None]], metrics=None,
                model: MessageModel = DEFAULT_MESSAGE_MODEL) -> list[Row]:
    """Evaluate every mapping with :func:`mpitaskmap.metrics.evaluate` (the one implementation).

    ``model`` (:func:`message_model`) gives the messages of the predicted-time column
    (default :data:`~mpitaskmap.metrics.DEFAULT_MESSAGE_MODEL`: weights are bytes).
    """
    rows = []
    for label, m, seconds in mappings:
        values = evaluate(m.graph, m.machine, m.task_to_proc, metrics, **model.metric_options())
        rows.append(Row(label, m, values, seconds, dict(m.info)))
    return rows


def _fmt(v) -> str:
    if isinstance(v, int):
        return f"{v:,}"
    v = float(v)
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.4g}"


def align_columns(header: Sequence[str], table: Sequence[Sequence[str]], indent: str = "") -> list[str]:
    """Return the lines of a text table: the first column left-aligned, the others right-aligned.

    Every column is as wide as its widest cell (header included) and two spaces separate
    columns, so every cell of a column ends (or, in the first, starts) at the same
    position, whatever the length of a label.

    Parameters
    ----------
    header : sequence of str
        The column headers.
    table : sequence of sequences of str
        The rows, one cell per header.
    indent : str, optional
        Put before every line.

    Returns
    -------
    list of str
        The header line, then one line per row (no trailing spaces).

    Examples
    --------
    >>> print("\\n".join(align_columns(["link", "max"], [["global", "2"], ["up1", "128"]])))
    link    max
    global    2
    up1     128
    """
    widths = [max(len(c), *(len(t[i]) for t in table)) for i, c in enumerate(header)]
    return [(indent + "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                for i, (c, w) in enumerate(zip(cells, widths)))).rstrip()
            for cells in [list(header), *table]]


def _json_info(value) -> bool:
    """Whether a mapping's ``info`` entry goes into JSON output: a scalar, or a table of text by text."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
    return isinstance(value, (str, int, float, bool)) or value is None


def render_table(rows: list[Row], fmt: str = "text", *, header: dict | None = None, extra: dict | None = None,
                 with_legend: bool = True) -> str:
    """Return the table of ``rows`` as aligned text, CSV or JSON.

    Text has one line per mapping (method, metrics, seconds: ``-`` for a mapping no method
    computed here, the column left out when no row has one) and, with ``with_legend``,
    a last line :func:`legend`; CSV has one line per mapping (method, metrics, seconds); JSON has
    ``{"header": ..., "rows": [{"method", "seconds", "metrics", "info"}]}`` with exact
    values (``info``: the mapping's scalar entries and its text tables, e.g. ``refused``).  ``extra`` maps a label to more JSON per row (e.g. per-direction loads).  When
    a row has a simulated time (:attr:`Row.simulated`), text and CSV get a ``simulated s``
    column after the metrics and JSON rows a ``"simulated_s"`` entry (null where absent).
    """
    names = list(rows[0].metrics) if rows else []
    simulated = any(r.simulated is not None for r in rows)
    if fmt == "json":
        out = {"header": header or {}, "rows": []}
        for r in rows:
            rec = {"method": r.label, "seconds": r.seconds, "metrics": r.metrics,
                   "info": {k: v for k, v in r.info.items() if _json_info(v)}}
            if simulated:
                rec["simulated_s"] = r.simulated
            if extra and r.label in extra:
                rec.update(extra[r.label])
            out["rows"].append(rec)
        return json.dumps(out, indent=2) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        sim_col = [SIMULATED_COLUMN] if simulated else []
        w.writerow(["method", *names, *sim_col, "seconds"])
        for r in rows:
            sim = ["" if r.simulated is None else repr(float(r.simulated))] if simulated else []
            w.writerow([r.label, *[repr(r.metrics[n]) if isinstance(r.metrics[n], float) else r.metrics[n]
                                   for n in names], *sim, "" if r.seconds is None else f"{r.seconds:.6f}"])
        return buf.getvalue()
    timed = any(r.seconds is not None for r in rows)
    cols = ["method", *[SHORT_NAMES.get(n, n) for n in names], *([SIMULATED_COLUMN] if simulated else []),
            *([SECONDS_COLUMN] if timed else [])]
    table = [[r.label, *[_fmt(r.metrics[n]) for n in names],
              *([("-" if r.simulated is None else f"{r.simulated:.4g}")] if simulated else []),
              *([("-" if r.seconds is None else f"{r.seconds:.3f}")] if timed else [])]
             for r in rows]
    lines = align_columns(cols, table)
    if with_legend:
        lines.append(legend(cols))
    return "\n".join(lines) + "\n"


def method_help() -> str:
    """Return the METHODS section of a man page: every method of the table, with its options spelled."""
    heads = {name: f"{name}:NAME" if m.args else name for name, m in METHOD_TABLE.items()}
    width = max(len(h) for h in heads.values())
    lines = []
    for name, m in METHOD_TABLE.items():
        lines.append(f"  {heads[name]:<{width}}  {m.description}")
        if m.options:
            lines += textwrap.wrap(" ".join(o.spelling() for o in m.options), 100, initial_indent=" " * (width + 4)
                                   + "options: ", subsequent_indent=" " * (width + 13), break_on_hyphens=False)
    lines.append("  options follow the name (geometric:ordering=z,box=2x2x8) or its NAME (grid:sfc:curve=snake)")
    return "\n".join(lines)
