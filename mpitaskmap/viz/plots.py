"""Pictures of what a mapping does to the network (optional, matplotlib).

Three figures, each comparing mappings of one task graph on one machine side by side:

* :func:`plot_allocation` -- the allocated routers in 3-D, coloured by the part of the
  task domain (or a task coordinate) they run: default vs mapped shows whether
  neighbouring tasks landed on neighbouring routers.
* :func:`plot_link_loads` -- the busiest link per link class (X+, X-, Y+, ... on a
  torus, LL/LR/D on PERCS: any machine with links) for Data and Latency = Data /
  bandwidth: the picture that explains why a mapping is faster.
* :func:`plot_hop_histogram` -- how many messages travel 0, 1, 2, ... hops.

Every value comes from :mod:`mpitaskmap.metrics` (the one implementation).  matplotlib is
imported only when a function runs (install the ``plot`` extra: ``pip install
"mpitaskmap[plot]"``); without it the call raises ImportError saying so.  Figures are
drawn off-screen (Agg canvas, no pyplot state), so they work on headless machines.
"""

from __future__ import annotations

import io
import os
from typing import Mapping as MappingType

import numpy as np

from ..errors import InvalidInputError
from ..machines import Machine
from ..mapping import Mapping
from ..metrics import edge_hops, link_loads

__all__ = ["plot_allocation", "plot_link_loads", "plot_hop_histogram", "figure_png", "task_parts"]

_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
            "#bcbd22", "#17becf"]


def _mpl(what: str = "mpitaskmap.viz.plots"):
    """matplotlib's Figure and Agg canvas classes; ImportError naming ``what`` and the extra without it."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            f"{what} needs matplotlib; install the 'plot' extra: pip install \"mpitaskmap[plot]\""
        ) from exc
    return Figure, FigureCanvasAgg


def _new_figure(size, *, layout: str | None = "constrained"):
    """An off-screen figure of ``size`` inches at 100 dpi (an Agg canvas: no pyplot state, works headless)."""
    Figure, Canvas = _mpl()
    fig = Figure(figsize=size, dpi=100, layout=layout)
    Canvas(fig)
    return fig


def _labelled(mappings) -> list[tuple[str, Mapping]]:
    if isinstance(mappings, Mapping):
        mappings = [mappings]
    items = list(mappings.items()) if isinstance(mappings, MappingType) else [(m.method or "mapping", m) for m in mappings]
    if not items:
        raise InvalidInputError("mappings: expected at least one Mapping; got none")
    for label, m in items:
        if not isinstance(m, Mapping):
            raise InvalidInputError(f"mappings: {label!r} is not a Mapping; got {type(m).__name__}")
        if m.graph is None:
            raise InvalidInputError(f"mappings: {label!r} has no task graph; build it with the graph")
    return items


def _save(fig, path):
    """Write ``fig`` as PNG to ``path`` unless it is None; return ``fig``."""
    if path is not None:
        fig.savefig(os.fspath(path), format="png")
    return fig


def figure_png(fig, *, dpi: int | None = None) -> bytes:
    """Return a figure as PNG bytes (for embedding, e.g. in an HTML report).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    dpi : int, optional
        Resolution (default the figure's).

    Returns
    -------
    bytes
        The PNG file.
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def task_parts(mapping: Mapping, *, n_dims: int = 3) -> tuple[np.ndarray, list[str]]:
    """Return the part of every task: the octant of the task domain it lies in.

    Each of the first ``n_dims`` varying task coordinates is cut at its middle, giving up
    to ``2 ** n_dims`` parts numbered with dimension 0 in the lowest bit.  Without task
    coordinates the parts are ``2 ** n_dims`` equal blocks of consecutive task ids.

    Parameters
    ----------
    mapping : Mapping
        A mapping with its task graph.
    n_dims : int, optional
        Coordinates used (default 3).

    Returns
    -------
    parts : (n_tasks,) ndarray of intp
    names : list of str
        A legend label per part, e.g. ``"x<8 y>=4"``.

    Examples
    --------
    >>> from mpitaskmap import TaskGraph, torus_machine, identity_mapping
    >>> m = identity_mapping(TaskGraph.stencil([4, 2]), torus_machine([8]))
    >>> parts, names = task_parts(m)
    >>> parts.tolist(), names
    ([0, 0, 1, 1, 2, 2, 3, 3], ['x<2 y<1', 'x>=2 y<1', 'x<2 y>=1', 'x>=2 y>=1'])
    """
    g = mapping.graph
    n = g.n_tasks
    if g.coords is None:
        k = 2 ** n_dims
        parts = (np.arange(n) * k // n).astype(np.intp)
        size = -(-n // k)
        return parts, [f"tasks {i * size}-{min(n, (i + 1) * size) - 1}" for i in range(k)]
    c = g.coords
    varying = [k for k in range(c.shape[1]) if np.ptp(c[:, k]) > 0][:n_dims]
    parts = np.zeros(n, dtype=np.intp)
    cuts = []
    for bit, k in enumerate(varying):
        mid = (c[:, k].min() + c[:, k].max()) / 2
        cut = np.ceil(mid) if np.array_equal(c[:, k], np.round(c[:, k])) else mid  # integer grid: x >= ceil
        parts |= (c[:, k] >= cut).astype(np.intp) << bit
        cuts.append(("xyz"[k] if k < 3 else f"c{k}", float(cut)))
    names = []
    for p in range(2 ** len(varying)):
        names.append(" ".join(f"{a}{'>=' if p >> b & 1 else '<'}{_num(v)}" for b, (a, v) in enumerate(cuts)))
    return parts, names


def _num(v) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def plot_allocation(
    mappings,
    path: str | os.PathLike | None = None,
    *,
    color_by: str = "part",
    title: str | None = None,
):
    """Draw the allocated routers in 3-D, coloured by the tasks they run, one panel per mapping.

    Every allocated router is a dot (its size grows with the tasks on it); grey dots are
    routers of the allocation with no task.  ``color_by="part"`` colours a router by the
    octant of the task domain (:func:`task_parts`) most of its tasks lie in, so a good
    mapping shows a few compact colour blobs and the default order of a sparse
    allocation shows them scattered; ``"x"``, ``"y"`` or ``"z"`` colours by the mean task
    coordinate instead.

    Parameters
    ----------
    mappings : Mapping, sequence of Mapping or dict of str to Mapping
        Mappings of one task graph on one machine whose routers sit on a torus or mesh
        grid (:attr:`~mpitaskmap.machines.Machine.has_router_grid`); labels are the dict
        keys or the mappings' ``method``.
    path : str or path-like, optional
        Save the figure there as PNG.
    color_by : {"part", "x", "y", "z"}, optional
        Colouring (default "part").
    title : str, optional
        Figure title (default: machine and task counts).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    InvalidInputError
        If a machine has no router coordinates, or ``color_by`` is unknown.
    """
    items = _labelled(mappings)
    if color_by not in ("part", "x", "y", "z"):
        raise InvalidInputError(f"color_by: unknown {color_by!r}; valid: ['part', 'x', 'y', 'z']")
    for label, m in items:
        if not m.machine.has_router_grid:
            raise InvalidInputError(
                f"mappings: {label!r}: the allocation plot needs router coordinates (routers on a torus or mesh "
                f"grid); {m.machine.name!r} has none"
            )
    n = len(items)
    fig = _new_figure((5.2 * n + 0.6, 6.0))
    first = items[0][1]
    machine = first.machine
    names3 = (list(machine.dim_names) + ["", ""])[:3]
    parts, part_names = task_parts(first)
    k = "xyz".index(color_by) if color_by != "part" else None
    if k is not None and (first.graph.coords is None or first.graph.coords.shape[1] <= k):
        raise InvalidInputError(f"color_by: the tasks have no {color_by} coordinate")
    scatter = None
    for i, (label, m) in enumerate(items):
        ax = fig.add_subplot(1, n, i + 1, projection="3d")
        pos, lo, hi = _proc_positions(m.machine)
        used = np.zeros(m.machine.n_procs, dtype=bool)
        used[m.task_to_proc] = True
        ax.scatter(*pos[~used].T, s=3, c="#cccccc", depthshade=False)
        tp = pos[m.task_to_proc]
        size = 14 if m.n_tasks <= 2048 else 4
        if k is None:
            colours = np.asarray(_COLOURS)[parts % len(_COLOURS)]
            ax.scatter(*tp.T, s=size, c=colours, depthshade=False, edgecolors="none")
        else:
            scatter = ax.scatter(*tp.T, s=size, c=m.graph.coords[:, k], cmap="viridis", depthshade=False,
                                 edgecolors="none")
        ax.set_title(f"{label}\naverage hops {m.metric('average_hops'):.3g}", fontsize=10)
        for setlim, setlab, a, b, name, length in zip((ax.set_xlim, ax.set_ylim, ax.set_zlim),
                                                      (ax.set_xlabel, ax.set_ylabel, ax.set_zlabel),
                                                      lo, hi, names3, list(m.machine.dims[:3]) + [1, 1]):
            setlim(a - 0.5, b + 0.5)
            setlab(f"{name} (of {int(length)})" if name else "")
        ax.set_box_aspect([max(b - a + 1, 1) for a, b in zip(lo, hi)])
        from matplotlib.ticker import MaxNLocator

        for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
            axis.set_major_locator(MaxNLocator(nbins=5, integer=True))
    if k is None:
        from matplotlib.lines import Line2D

        present = np.unique(parts)
        handles = [Line2D([], [], ls="", marker="o", color=_COLOURS[p % len(_COLOURS)], label=part_names[p])
                   for p in present]
        handles.append(Line2D([], [], ls="", marker="o", color="#cccccc", label="allocated, idle"))
        fig.legend(handles=handles, loc="outside lower center", ncols=min(5, len(handles)), fontsize=8,
                   title="colour: part of the task domain (halves of each task dimension); one dot per task, "
                         "grouped around its router", title_fontsize=8)
    elif scatter is not None:
        fig.colorbar(scatter, ax=fig.axes, shrink=0.6, label=f"task {color_by} coordinate")
    extra = f" (dimensions {', '.join(names3)} of {machine.n_dims})" if machine.n_dims > 3 else ""
    fig.suptitle(title or f"{first.graph.n_tasks} tasks on {machine.n_procs} processors of {machine.name}{extra}",
                 fontsize=11)
    return _save(fig, path)


def _proc_positions(machine: Machine) -> tuple[np.ndarray, list, list]:
    """Return a 3-D point per processor: its router, offset by its slot on a small grid.

    The processors of one router sit on a ``c x c x c`` grid (``c = ceil(cbrt(slots))``)
    inside the router's unit cell, so tasks sharing a router stay visible.  Also returns
    the bounding box (low, high) of the allocated routers per axis.
    """
    d = min(3, machine.n_dims)
    rc = np.zeros((machine.n_procs, 3))
    rc[:, :d] = machine.router_coords[:, :d]
    slots = machine.router_slots()
    c = max(1, int(np.ceil(round((int(slots.max()) + 1) ** (1 / 3), 6))))
    grid = np.stack([slots % c, (slots // c) % c, slots // (c * c)], axis=1).astype(float)
    offset = (grid - (c - 1) / 2) * (0.6 / c) if c > 1 else np.zeros_like(grid)
    lo = rc.min(axis=0).astype(int).tolist()
    hi = rc.max(axis=0).astype(int).tolist()
    return rc + offset, lo, hi


def plot_link_loads(
    mappings,
    path: str | os.PathLike | None = None,
    *,
    title: str | None = None,
    volume_unit: str = "volume",
):
    """Draw the busiest link per link class, Data and Latency, as grouped bars per mapping.

    For each class of the machine's links (:meth:`~mpitaskmap.machines.Machine.link_classes`:
    ``X+``, ``X-``, ``Y+``, ... on a torus; ``LL``, ``LR``, ``D`` on PERCS; whatever a
    machine kind names them), from the most local to the most global, the bars show the
    largest Data(e) (left) and Latency(e) = Data(e) / bw(e) (right) over the links of that
    class, from :meth:`~mpitaskmap.machines.LinkLoads.by_class`.  The tallest bar of the
    right panel is Latency(M), the congestion that bounds the communication time.

    Parameters
    ----------
    mappings : Mapping, sequence of Mapping or dict of str to Mapping
        Mappings of one task graph on one machine with a link model.
    path : str or path-like, optional
        Save the figure there as PNG.
    title : str, optional
        Figure title.
    volume_unit : str, optional
        Unit of the task graph's message volumes, for the axis labels (default "volume").

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    InvalidInputError
        If a machine has no link model.
    """
    items = _labelled(mappings)
    records = []
    for label, m in items:
        if not m.machine.has_link_model:
            raise InvalidInputError(f"mappings: {label!r}: the machine {m.machine.name!r} has no link model")
        records.append(link_loads(m.graph, m.machine, m.task_to_proc).by_class())
    links = [r["link"] for r in records[0]]
    fig = _new_figure((max(7.0, 1.1 * len(links) * (1 + 0.35 * len(items))) + 1, 4.4))
    x = np.arange(len(links))
    width = 0.8 / len(items)
    panels = (("max_data", f"max Data(e) [{volume_unit}]", "Busiest link per class: Data"),
              ("max_latency", f"max Data(e)/bw(e) [{volume_unit} per GB/s]", "... and Latency = Data / bandwidth"))
    for j, (key, ylabel, sub) in enumerate(panels):
        ax = fig.add_subplot(1, 2, j + 1)
        for i, ((label, _), rec) in enumerate(zip(items, records)):
            values = [r[key] for r in rec]
            ax.bar(x + (i - (len(items) - 1) / 2) * width, values, width, label=f"{label} (max {max(values):.3g})",
                   color=_COLOURS[i % len(_COLOURS)])
        ax.set_xticks(x, links)
        ax.set_xlabel("link class")
        ax.set_ylabel(ylabel)
        ax.set_title(sub, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    m0 = items[0][1]
    fig.suptitle(title or f"Link loads: {m0.graph.n_tasks} tasks on {m0.machine.name}", fontsize=11)
    return _save(fig, path)


def plot_hop_histogram(
    mappings,
    path: str | os.PathLike | None = None,
    *,
    weighted: bool = False,
    title: str | None = None,
):
    """Draw the share of messages (or volume) at each hop distance, one bar colour per mapping.

    Parameters
    ----------
    mappings : Mapping, sequence of Mapping or dict of str to Mapping
        Mappings of one task graph.
    path : str or path-like, optional
        Save the figure there as PNG.
    weighted : bool, optional
        Weight messages by volume (default False: count them).
    title : str, optional
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    """
    items = _labelled(mappings)
    hops = [edge_hops(m.graph, m.machine, m.task_to_proc) for _, m in items]
    top = max(int(h.max()) if h.size else 0 for h in hops)
    fig = _new_figure((max(6.0, 0.45 * (top + 1) * (1 + 0.3 * len(items))) + 1, 4.2))
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / len(items)
    x = np.arange(top + 1)
    for i, ((label, m), h) in enumerate(zip(items, hops)):
        w = m.graph.weights if weighted else np.ones(h.size)
        share = 100 * np.bincount(h, weights=w, minlength=top + 1) / max(w.sum(), 1e-300)
        mean = float(h @ w / w.sum()) if w.sum() else 0.0
        ax.bar(x + (i - (len(items) - 1) / 2) * width, share, width, color=_COLOURS[i % len(_COLOURS)],
               label=f"{label} (mean {mean:.3g} hops)")
    ax.set_xticks(x)
    ax.set_xlabel("hops between sender and receiver")
    ax.set_ylabel("% of volume" if weighted else "% of messages")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    m0 = items[0][1]
    ax.set_title(title or f"Hop distance of every message: {m0.graph.n_tasks} tasks on {m0.machine.name}", fontsize=11)
    return _save(fig, path)
