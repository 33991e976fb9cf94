"""Mapping methods of the command line (private): ``NAME[:ARG][:OPTIONS]`` turned into :func:`mpitaskmap.map`.

The methods, their options and how a spec spells each value are the library's own table
(:data:`mpitaskmap.search.registry.METHOD_TABLE`, read by
:func:`~mpitaskmap.search.registry.parse_method`): the command line accepts exactly the
options :func:`mpitaskmap.map` does.  This module only adds what a command knows: its
flags as option defaults (``--ordering``, ``--box``, ...), the auto search's objective and
judge, and progress bars for the methods the table says refine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from ..errors import InvalidInputError
from ..graphs.taskgraph import TaskGraph
from ..machines import Machine
from ..mapping import IDENTITY, Mapping
from ..metrics import DEFAULT_MESSAGE_MODEL, MessageModel, default_metric
from ..search.judge import DEFAULT_JUDGE, JUDGE_ALSO, JUDGE_TOP, resolve_judge
from ..search.methods import map as map_tasks
from ..search.problem import Problem
from ..sim.fluid import DEFAULT_NETWORK_MODEL, network_model
from ..search.registry import find_method, format_method, parse_method
from ._progress import Progress

__all__ = ["run_method", "Context"]


@dataclass
class Context:
    """What a method needs besides the graph and machine."""

    #: Option values set by the command's flags (``--ordering``, ``--no-shift``, ``--bandwidth``,
    #: ``--box``, ``--orderings``): every method that takes the option gets them, unless its
    #: spec sets it (``geometric:ordering=z`` beats ``--ordering fz``).
    defaults: dict = field(default_factory=dict)
    metric: str | None = None  # None: the machine's default objective (metrics.default_metric)
    families: tuple | None = None
    progress: Callable | None = None
    model: MessageModel = DEFAULT_MESSAGE_MODEL  # the messages of the objective and of the judge's replays
    network: str = DEFAULT_NETWORK_MODEL.name  # the judge's network model (mpitaskmap.sim.fluid.NETWORK_MODELS)
    judge: str | None = DEFAULT_JUDGE  # auto's judge (mpitaskmap.search.judge): "default", "fluid", "simulate" or None
    judge_top: int = JUDGE_TOP
    judge_also: tuple = JUDGE_ALSO  # metrics whose best candidate the judge simulates too
    oversubscribe: bool = False  # --oversubscribe: more tasks than processors allowed (mapping.check_fit)
    jobs: int | None = None  # --jobs: auto's worker processes (None: every core, mpitaskmap.search.parallel)


def _bar(ctx: Context, what: str):
    """A progress bar for a refinement, quiet when the command's bar is quiet."""
    base = ctx.progress
    if base is None:
        return None
    return Progress(what, stream=base.stream, quiet=base.quiet)


def _auto_options(graph: TaskGraph, machine: Machine, ctx: Context) -> tuple[dict, str]:
    """The keywords of ``map(method="auto")`` from the command's objective and judge options, and why the judge."""
    metric = ctx.metric if ctx.metric is not None else default_metric(machine)
    if metric == "predicted_time":  # the objective with the command's message model
        metric = ctx.model.objective()
    options = dict(metric=metric, families=ctx.families)
    # the objective passed is a callable (the command's message model), so the default judge
    # is resolved here, where it is known whether the objective is the default one
    problem = Problem(graph, machine, oversubscribe=ctx.oversubscribe)
    judge, why, added = resolve_judge(problem, ctx.judge, ctx.metric is not None)
    if judge is None:
        options.update(judge=None)
    else:
        options.update(judge=judge, judge_top=ctx.judge_top, judge_also=ctx.judge_also,
                       judge_options=dict(ctx.model.replay_options(), **_network_options(judge, ctx.network), **added))
    return options, why


def _network_options(judge: str, network: str) -> dict:
    """The judge option that selects the network model: the fluid replay's ``model``, SimGrid's ``config``."""
    model = network_model(network)
    return {"model": model.name} if judge == "fluid" else {"config": model.simgrid_config}


def run_method(spec: str, graph: TaskGraph, machine: Machine, ctx: Context) -> tuple[Mapping, float]:
    """Run the method ``NAME[:ARG][:OPTIONS]``; return its mapping (labelled ``spec``) and the seconds.

    ``mapping.info["options"]`` is the method with every option it ran with, spelled as a
    spec (:func:`~mpitaskmap.search.registry.format_method`).
    """
    if spec.strip().partition(":")[0].strip().lower() == "default":
        raise InvalidInputError(f"--method: the default order is called {IDENTITY!r}; got {spec!r}")
    method, options = parse_method(spec, "--method")
    entry, arg = find_method(method)
    if entry.needs_coords and graph.coords is None:
        raise InvalidInputError(f"--method {entry.name}: the tasks have no coordinates; give --task-coords or use "
                                "greedy")
    for key in entry.option_names(arg):
        if key not in options and ctx.defaults.get(key) is not None:
            options[key] = ctx.defaults[key]
    ran_with = format_method(method, options)
    extra: dict = {}
    progress = None
    if entry.name == "auto":
        extra, why = _auto_options(graph, machine, ctx)
        extra["jobs"] = ctx.jobs
        progress = ctx.progress
    if entry.uwh:  # the table says which methods refine: a bar for their passes, one for congestion
        progress = _bar(ctx, "UWH refinement passes")
    if entry.congestion:
        extra["congestion_progress"] = _bar(ctx, f"{entry.name} refinement iterations")
    t0 = time.perf_counter()
    mapping = map_tasks(graph, machine, method, progress=progress, oversubscribe=ctx.oversubscribe, **options,
                        **extra)
    seconds = time.perf_counter() - t0
    if entry.name == "auto" and ctx.judge == DEFAULT_JUDGE and mapping.info.get("judge_why") in (
            "requested", "no judge requested"):
        mapping.info["judge_why"] = why  # resolved here, not by map()
    mapping.info["options"] = ran_with
    mapping.method = spec.strip()
    return mapping, seconds
