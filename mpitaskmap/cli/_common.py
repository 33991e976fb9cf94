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
from typing import TextIO

from .._validate import check_bytes_per_weight, check_positive
from ..search.judge import DEFAULT_JUDGE, FLUID_JUDGE_MAX_EDGES, JUDGE_ALSO, JUDGE_TOP, JUDGES
from ..mapping import Mapping
from ..metrics import DEFAULT_OVERLAP_BYTES, METRICS, evaluate
from ..mappers.geometric.mj import ORDERINGS
from ..search.registry import METHOD_TABLE
from ._inputs import MACHINE_FORMS, TASK_FORMS, MachineInput, TaskInput, load_machine, load_tasks
from ._methods import Context, run_method
from ._progress import Progress

__all__ = ["Row", "Progress", "announce", "command_parser", "add_io_options", "add_methods_option",
           "add_method_options", "add_message_model_options", "message_model", "add_simulate_options", "load_inputs",
           "context_from", "run_methods",
           "metric_rows", "render_table", "SHORT_NAMES", "SIMULATED_COLUMN"]

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

#: --link-latency default: seconds per hop (100 ns, the order of a torus router's latency).
DEFAULT_LINK_LATENCY = 1e-7

#: --bytes-per-weight default: a unit-weight edge (the stencil3d: specs) is a 4 KiB message.
DEFAULT_BYTES_PER_WEIGHT = 4096.0

#: Header of the simulated-time column (``compare --simulate``): seconds of one exchange step.
SIMULATED_COLUMN = "simulated s"


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
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars or status lines")
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
    g.add_argument("-m", "--machine", required=True, metavar="SPEC", help=f"the allocation: {MACHINE_FORMS}")
    g.add_argument("-t", "--tasks", required=True, metavar="SPEC", help=f"the task graph: {TASK_FORMS}")
    g.add_argument("--task-coords", metavar="PATH", help="task coordinates for a matrix input (one row per task)")
    g.add_argument("--ranks", type=int, metavar="N",
                   help="job size for sim: machines (default: one rank per task)")
    g.add_argument("--hosts", metavar="FMT",
                   help="host names of nodes in rankfiles/host lists: a %%-format of the node id "
                        "(default: the machine's own names, else nid%%05d)")
    add_common_options(parser)


def add_message_model_options(group) -> None:
    """Add --bytes-per-weight and --link-latency: the messages of PredTime and of the simulator."""
    group.add_argument("--bytes-per-weight", type=float, default=DEFAULT_BYTES_PER_WEIGHT, metavar="BYTES",
                       help=f"message bytes per unit of edge weight (default {DEFAULT_BYTES_PER_WEIGHT:g}: a "
                            "unit-weight edge is 4 KiB; pass 1 when the weights are bytes), for the predicted-time "
                            "objective and the simulator")
    group.add_argument("--link-latency", type=float, default=DEFAULT_LINK_LATENCY, metavar="SECONDS",
                       help=f"seconds per hop, for the predicted-time objective and the simulator "
                            f"(default {DEFAULT_LINK_LATENCY:g})")
    group.add_argument("--overlap-bytes", type=float, default=DEFAULT_OVERLAP_BYTES, metavar="BYTES",
                       help=f"predicted-time objective: message size up to which a message pays its hop latency "
                            f"in full, beyond it in proportion (default {DEFAULT_OVERLAP_BYTES:g}; inf: always in full)")


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
                            f"and the graph has at most {FLUID_JUDGE_MAX_EDGES:,} edges, within a work budget)")
    group.add_argument("--simulate-top", type=int, default=DEFAULT_SIMULATE_TOP, metavar="K",
                       help=f"the judge: distinct mappings of auto to replay (default {DEFAULT_SIMULATE_TOP})")
    group.add_argument("--simulate-also", default=",".join(JUDGE_ALSO), metavar="M,M",
                       help="the judge: also replay auto's best candidate by each of these metrics "
                            f"(default {','.join(JUDGE_ALSO)}; '' for none)")


def message_model(args) -> dict:
    """The checked message model of parsed options: ``bytes_per_weight``, ``hop_latency``, ``overlap_bytes``."""
    check_positive(args.link_latency, "--link-latency", allow_zero=True)
    check_bytes_per_weight(args.bytes_per_weight, "--bytes-per-weight")
    if not args.overlap_bytes > 0:  # also rejects nan
        raise ValueError(f"--overlap-bytes: must be positive (bytes; inf allowed); got {args.overlap_bytes!r}")
    return {"bytes_per_weight": args.bytes_per_weight, "hop_latency": args.link_latency,
            "overlap_bytes": args.overlap_bytes}


def add_method_options(parser: argparse.ArgumentParser, *, auto_metric: bool = True) -> None:
    """Add the geometric options and the auto-search options."""
    g = parser.add_argument_group("method options")
    g.add_argument("--ordering", default="fz", choices=list(ORDERINGS),
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


def load_inputs(args) -> tuple[MachineInput, TaskInput]:
    """Read --tasks then --machine (sized for the job)."""
    tasks = load_tasks(args.tasks, args.task_coords)
    machine = load_machine(args.machine, args.ranks or tasks.graph.n_tasks)
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
        mapping, seconds = run_method(spec, graph, machine, context_from(args, progress))
        done(seconds)
        out.append((spec, mapping, seconds))
    return out


def context_from(args, progress=None) -> Context:
    """Build the method context from parsed options."""
    # the flags are defaults of the table's options of the same name, parsed as a spec spells them
    defaults = {"ordering": args.ordering, "shift": not args.no_shift, "bandwidth": args.bandwidth,
                "orderings": tuple(o.strip() for o in args.orderings.split(",") if o.strip())}
    if args.box:
        defaults["box"] = METHOD_TABLE["geometric"].option("box").parse(args.box, "--box")
    families = tuple(f.strip() for f in args.families.split(",") if f.strip()) if args.families else None
    model = message_model(args)
    top = getattr(args, "simulate_top", DEFAULT_SIMULATE_TOP)
    if top < 1:
        raise ValueError(f"--simulate-top: must be at least 1; got {top}")
    also = tuple(m.strip() for m in getattr(args, "simulate_also", ",".join(JUDGE_ALSO)).split(",") if m.strip())
    unknown = [m for m in also if m not in METRICS]
    if unknown:
        raise ValueError(f"--simulate-also: unknown metric {unknown[0]!r}; valid: {', '.join(METRICS)}")
    return Context(defaults=defaults, metric=args.metric, families=families, progress=progress,
                   bytes_per_weight=model["bytes_per_weight"], link_latency=model["hop_latency"],
                   overlap_bytes=model["overlap_bytes"],
                   judge=judge_of(args), judge_top=top, judge_also=also)


def judge_of(args) -> str | None:
    """The judge of parsed options: --simulate is --judge simulate; 'none' is None."""
    judge = getattr(args, "judge", DEFAULT_JUDGE)
    if getattr(args, "simulate", False):
        if judge not in (DEFAULT_JUDGE, "simulate"):
            raise ValueError(f"--simulate: is --judge simulate; got also --judge {judge}")
        return "simulate"
    return None if judge == "none" else judge


def metric_rows(mappings: list[tuple[str, Mapping, float | None]], metrics=None, model: dict | None = None
                ) -> list[Row]:
    """Evaluate every mapping with :func:`mpitaskmap.metrics.evaluate` (the one implementation).

    ``model`` (:func:`message_model`) gives the messages of the predicted-time column
    (default: weights are bytes).
    """
    model = model or {}
    rows = []
    for label, m, seconds in mappings:
        values = evaluate(m.graph, m.machine, m.task_to_proc, metrics, **model)
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


def render_table(rows: list[Row], fmt: str = "text", *, header: dict | None = None, extra: dict | None = None) -> str:
    """Return the table of ``rows`` as aligned text, CSV or JSON.

    Text and CSV have one line per mapping (method, metrics, seconds); JSON has
    ``{"header": ..., "rows": [{"method", "seconds", "metrics", "info"}]}`` with exact
    values.  ``extra`` maps a label to more JSON per row (e.g. per-direction loads).  When
    a row has a simulated time (:attr:`Row.simulated`), text and CSV get a ``simulated s``
    column after the metrics and JSON rows a ``"simulated_s"`` entry (null where absent).
    """
    names = list(rows[0].metrics) if rows else []
    simulated = any(r.simulated is not None for r in rows)
    if fmt == "json":
        out = {"header": header or {}, "rows": []}
        for r in rows:
            rec = {"method": r.label, "seconds": r.seconds, "metrics": r.metrics,
                   "info": {k: v for k, v in r.info.items() if isinstance(v, (str, int, float, bool)) or v is None}}
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
    cols = ["method", *[SHORT_NAMES.get(n, n) for n in names], *([SIMULATED_COLUMN] if simulated else []), "seconds"]
    table = [[r.label, *[_fmt(r.metrics[n]) for n in names],
              *([("" if r.simulated is None else f"{r.simulated:.4g}")] if simulated else []),
              "" if r.seconds is None else f"{r.seconds:.3f}"]
             for r in rows]
    widths = [max(len(c), *(len(t[i]) for t in table)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cols, widths)))]
    for t in table:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(t, widths))))
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
