"""Mapping methods of the command line (private): ``NAME[:OPTIONS]`` turned into :func:`mpitaskmap.map`.

The table of methods is the library's own (:data:`mpitaskmap.search.methods.METHODS`); this
module only parses the command-line spelling of options (``geometric:ordering=hilbert,shift=0``,
``percs:mod_colouring``, ``grid:affn``) and adds progress bars.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from ..errors import InvalidInputError
from ..search.judge import DEFAULT_JUDGE, JUDGE_ALSO, JUDGE_TOP, resolve_judge
from ..machines import Machine
from ..mapping import IDENTITY, Mapping
from ..metrics import DEFAULT_HOP_LATENCY, DEFAULT_OVERLAP_BYTES, default_metric, time_objective
from ..mappers.geometric.mj import ORDERINGS
from ..search.methods import METHODS, map as map_tasks
from ..search.problem import Problem
from ..graphs.taskgraph import TaskGraph
from ._inputs import parse_options
from ._progress import Progress

__all__ = ["run_method", "GeometricOptions", "Context"]


def _flag(v: str) -> bool:
    return v.lower() in ("1", "true", "yes", "on")


@dataclass
class GeometricOptions:
    """Options of the geometric mapper given on the command line."""

    ordering: str = "fz"
    shift: bool = True
    bandwidth: bool = False
    box: tuple | None = None

    def updated(self, text: str) -> "GeometricOptions":
        """Return a copy with ``k=v,...`` options (ordering, shift, bandwidth, box) applied."""
        o = parse_options(text, ("ordering", "shift", "bandwidth", "box"), "--method geometric")
        box = self.box
        if "box" in o:
            try:
                box = tuple(int(v) for v in o["box"].lower().split("x"))
            except ValueError:
                raise InvalidInputError(f"--method geometric: box is lengths like 2x2x8; got {o['box']!r}") from None
        return GeometricOptions(
            ordering=o.get("ordering", self.ordering),
            shift=_flag(o["shift"]) if "shift" in o else self.shift,
            bandwidth=_flag(o["bandwidth"]) if "bandwidth" in o else self.bandwidth,
            box=box,
        )

    def label(self) -> str:
        """Return e.g. ``"fz, shift"``."""
        parts = [self.ordering] + [n for n, on in (("shift", self.shift), ("bw", self.bandwidth)) if on]
        if self.box:
            parts.append("box " + "x".join(map(str, self.box)))
        return ", ".join(parts)


@dataclass
class Context:
    """What a method needs besides the graph and machine."""

    geometric: GeometricOptions
    metric: str | None = None  # None: the machine's default objective (metrics.default_metric)
    families: tuple | None = None
    orderings: tuple = ORDERINGS
    progress: Callable | None = None
    bytes_per_weight: float = 1.0  # message bytes per unit of weight (objective and simulator)
    link_latency: float = DEFAULT_HOP_LATENCY  # seconds per hop (objective and simulator)
    overlap_bytes: float = DEFAULT_OVERLAP_BYTES  # message size beyond which the objective overlaps latency
    judge: str | None = DEFAULT_JUDGE  # auto's judge (mpitaskmap.search.judge): "default", "fluid", "simulate" or None
    judge_top: int = JUDGE_TOP
    judge_also: tuple = JUDGE_ALSO  # metrics whose best candidate the judge simulates too


def _bar(ctx: Context, what: str):
    """A progress bar for a refinement, quiet when the command's bar is quiet."""
    base = ctx.progress
    if base is None:
        return None
    return Progress(what, stream=base.stream, quiet=base.quiet)


def run_method(spec: str, graph: TaskGraph, machine: Machine, ctx: Context) -> tuple[Mapping, float]:
    """Run the method ``NAME[:OPTIONS]``; return its mapping (labelled ``spec``) and the seconds."""
    name, _, arg = spec.strip().partition(":")
    name = name.lower()
    if name == "default":
        raise InvalidInputError(f"--method: the default order is called {IDENTITY!r}; got {spec!r}")
    if name not in METHODS:
        raise InvalidInputError(f"--method: unknown {name!r}; valid: {sorted(METHODS)}")
    if arg and name not in ("geometric", "geometric+uwh", "percs", "grid", "rubik"):
        raise InvalidInputError(f"--method: {name} takes no options; got {spec!r}")
    method, options, progress = name, {}, None
    if name in ("geometric", "geometric+uwh"):
        if graph.coords is None:
            raise InvalidInputError(f"--method {name}: the tasks have no coordinates; give --task-coords or use greedy")
        o = ctx.geometric.updated(arg)
        options = dict(ordering=o.ordering)
        if name == "geometric":
            options.update(shift=o.shift, bandwidth=o.bandwidth, box=o.box)
    elif name in ("grid", "percs", "rubik"):
        method = f"{name}:{arg}"
    elif name == "auto":
        metric = ctx.metric if ctx.metric is not None else default_metric(machine)
        if metric == "predicted_time":  # the objective with the command's message model
            metric = time_objective(ctx.bytes_per_weight, ctx.link_latency, ctx.overlap_bytes)
        options = dict(metric=metric, families=ctx.families, orderings=ctx.orderings)
        # the objective passed is a callable (the command's message model), so the default judge
        # is resolved here, where it is known whether the objective is the default one
        judge, why, added = resolve_judge(Problem(graph, machine), ctx.judge, ctx.metric is not None)
        if judge is None:
            options.update(judge=None)
        else:
            options.update(judge=judge, judge_top=ctx.judge_top, judge_also=ctx.judge_also,
                           judge_options=dict(link_latency=ctx.link_latency, bytes_per_weight=ctx.bytes_per_weight,
                                              **added))
        progress = ctx.progress
    if name in ("greedy+uwh", "geometric+uwh", "identity+uwh", "umc", "ummc", "bisection"):
        progress = _bar(ctx, "UWH refinement passes")
    if name in ("umc", "ummc"):
        options["congestion_progress"] = _bar(ctx, f"{name} refinement iterations")
    t0 = time.perf_counter()
    mapping = map_tasks(graph, machine, method, progress=progress, **options)
    seconds = time.perf_counter() - t0
    if name == "auto" and ctx.judge == DEFAULT_JUDGE and mapping.info.get("judge_why") in ("requested",
                                                                                          "no judge requested"):
        mapping.info["judge_why"] = why  # resolved here, not by map()
    if name == "geometric":
        mapping.info["options"] = o.label()
    mapping.method = spec.strip()
    return mapping, seconds
