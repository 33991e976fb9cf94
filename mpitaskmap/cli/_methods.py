"""Mapping methods of the command line (private): one table of names, each a library call.

Every entry calls the library's own mapper (nothing is re-implemented here).  A method is
written ``NAME`` or ``NAME:OPTIONS``: ``geometric:ordering=hilbert,shift=0``,
``percs:mod_colouring``, ``grid:affn``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..candidates import best_of, candidate_list
from ..errors import InvalidInputError
from ..machine import Machine, TorusMachine
from ..mappers.geometric import map_geometric
from ..mappers.graph import map_greedy, refine_congestion, refine_wh
from ..mapping import Mapping, identity_mapping
from ..taskgraph import TaskGraph
from ._inputs import parse_options

__all__ = ["METHODS", "run_method", "method_names", "auto_families", "GeometricOptions"]


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
        flag = lambda v: v.lower() in ("1", "true", "yes", "on")  # noqa: E731
        box = self.box
        if "box" in o:
            try:
                box = tuple(int(v) for v in o["box"].lower().split("x"))
            except ValueError:
                raise InvalidInputError(f"--method geometric: box is lengths like 2x2x8; got {o['box']!r}") from None
        return GeometricOptions(
            ordering=o.get("ordering", self.ordering),
            shift=flag(o["shift"]) if "shift" in o else self.shift,
            bandwidth=flag(o["bandwidth"]) if "bandwidth" in o else self.bandwidth,
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
    metric: str = "weighted_hops"
    families: tuple | None = None
    orderings: tuple = ("fz", "mfz", "z", "gray", "hilbert")
    progress: Callable | None = None


def _geometric(g, m, arg, ctx) -> Mapping:
    o = ctx.geometric.updated(arg)
    if g.coords is None:
        raise InvalidInputError("--method geometric: the tasks have no coordinates; give --task-coords or use greedy")
    mapping = map_geometric(g, m, ordering=o.ordering, shift=o.shift, bandwidth=o.bandwidth, box=o.box)
    mapping.info["options"] = o.label()
    return mapping


def _bar(ctx, what: str):
    """A progress bar for a refinement, quiet when the command's bar is quiet."""
    from ._common import Progress

    base = ctx.progress
    if base is None:
        return None
    return Progress(what, stream=base.stream, quiet=base.quiet)


def _geometric_uwh(g, m, arg, ctx) -> Mapping:
    return refine_wh(_geometric(g, m, arg, ctx), progress=_bar(ctx, "UWH refinement passes"))


def _greedy(g, m, arg, ctx) -> Mapping:
    return map_greedy(g, m)


def _greedy_uwh(g, m, arg, ctx) -> Mapping:
    return map_greedy(g, m, refine=True, progress=_bar(ctx, "UWH refinement passes"))


def _congestion(objective: str):
    def run(g, m, arg, ctx) -> Mapping:
        if not isinstance(m, TorusMachine):
            raise InvalidInputError(f"--method: congestion refinement needs a torus machine; got {type(m).__name__}")
        start = map_greedy(g, m, refine=True, progress=_bar(ctx, "UWH refinement passes"))
        return refine_congestion(start, objective=objective, progress=_bar(ctx, f"{objective} refinement iterations"))
    return run


def _percs(g, m, arg, ctx) -> Mapping:
    from ..percs import STRATEGIES, PercsMachine, map_percs

    if not isinstance(m, PercsMachine):
        raise InvalidInputError("--method percs: needs a PERCS machine (--machine percs:ns=N,nd=D)")
    if arg not in STRATEGIES:
        raise InvalidInputError(f"--method percs:STRATEGY: unknown {arg!r}; valid: {sorted(STRATEGIES)}")
    return map_percs(g, m, method=arg)


def _regular_module():
    import importlib

    try:
        regular = importlib.import_module("mpitaskmap.mappers.regular")
    except ImportError as exc:
        raise InvalidInputError(
            f"--method: the regular-grid heuristics (mpitaskmap.mappers.regular) are not available in this "
            f"installation ({exc})"
        ) from None
    return regular


def _regular(g, m, arg, ctx) -> Mapping:
    result = _regular_module().map_regular(g, m)
    result.mapping.info["candidate"] = result.best
    return result.mapping


def _grid(g, m, arg, ctx) -> Mapping:
    mod = _regular_module()
    if not arg:
        raise InvalidInputError(f"--method grid:HEURISTIC: name one of {sorted(mod.GRID_METHODS)}")
    return mod.map_grid(g, m, method=arg)


def task_dims(graph: TaskGraph) -> int:
    """Return the number of task coordinate dimensions that vary (0 without coordinates)."""
    if graph.coords is None:
        return 0
    return int(np.count_nonzero(np.ptp(graph.coords, axis=0) > 0))


def auto_families(graph: TaskGraph, machine: Machine) -> list[str]:
    """Return the candidate families that apply: geometric (with coordinates), graph, percs, grid."""
    fams = ["geometric"] if task_dims(graph) else []
    fams.append("graph")
    from ..percs import PercsMachine

    if isinstance(machine, PercsMachine):
        fams.append("percs")
    if isinstance(machine, TorusMachine):
        try:
            _regular_module()
            candidate_list(1, machine, families=["grid"], orderings=["fz"])
            fams.append("grid")
        except InvalidInputError:
            pass
    return fams


def _auto(g, m, arg, ctx) -> Mapping:
    families = list(ctx.families) if ctx.families else auto_families(g, m)
    if "geometric" in families and task_dims(g) == 0:
        raise InvalidInputError("--families: geometric needs task coordinates; give --task-coords")
    cands = candidate_list(max(1, task_dims(g)), m, include_identity=True, families=families,
                           orderings=ctx.orderings)
    if task_dims(g) == 0:  # the graph family also offers geometric+uwh, which needs coordinates
        cands = [c for c in cands if not c.kind.startswith("geometric")]
    result = best_of(cands, g, m, metric=ctx.metric, progress=ctx.progress)
    mapping = result.mapping
    mapping.info.update(candidates=len(cands), families=",".join(families), search_seconds=result.seconds)
    return mapping


#: name -> (function(graph, machine, option text, context) -> Mapping, one-line description)
METHODS: dict[str, tuple[Callable, str]] = {
    "default": (lambda g, m, arg, ctx: identity_mapping(g, m), "the default order: task t on processor t"),
    "geometric": (_geometric, "geometric (Multi-Jagged) mapping; options ordering=, shift=, bandwidth=, box="),
    "greedy": (_greedy, "greedy graph growth (UG)"),
    "greedy+uwh": (_greedy_uwh, "greedy growth, then weighted-hop swap refinement (UWH)"),
    "geometric+uwh": (_geometric_uwh, "geometric, then weighted-hop swap refinement"),
    "umc": (_congestion("latency"), "greedy+uwh, then refinement of the max link latency Latency(M)"),
    "ummc": (_congestion("messages"), "greedy+uwh, then refinement of the max message count MMC"),
    "percs": (_percs, "PERCS strategy percs:NAME (blocking, mod_colouring, transpose; PERCS machines)"),
    "regular": (_regular, "regular-grid analyser + best grid heuristic (when mpitaskmap.mappers.regular exists)"),
    "grid": (_grid, "one regular-grid heuristic grid:NAME (affn, fold, stack, ...)"),
    "auto": (_auto, "best of every applicable candidate by --metric (identity included)"),
}


def method_names() -> list[str]:
    """Return the method names, in table order."""
    return list(METHODS)


def run_method(spec: str, graph: TaskGraph, machine: Machine, ctx: Context) -> tuple[Mapping, float]:
    """Run the method ``NAME[:OPTIONS]``; return its mapping (labelled ``spec``) and the seconds."""
    name, _, arg = spec.strip().partition(":")
    name = name.lower()
    if name not in METHODS:
        raise InvalidInputError(f"--method: unknown {name!r}; valid: {sorted(METHODS)}")
    if arg and name not in ("geometric", "geometric+uwh", "percs", "grid"):
        raise InvalidInputError(f"--method: {name} takes no options; got {spec!r}")
    t0 = time.perf_counter()
    mapping = METHODS[name][0](graph, machine, arg, ctx)
    seconds = time.perf_counter() - t0
    mapping.method = spec.strip()
    return mapping, seconds
