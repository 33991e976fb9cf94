"""``mpitaskmap plot``: pictures of what mappings do to the network (PNG)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Collection

from ._registry import register
from ._common import Progress, add_method_options, add_methods_option, command_parser, context_from, load_inputs
from ._inputs import read_mapping_file
from ._methods import run_method

__all__ = ["plot_command", "build_parser", "KINDS", "applicable_kinds", "image_format"]

#: Plot kinds and what they show.
KINDS = {
    "allocation": "allocated routers in 3-D coloured by the part of the task domain they run, one panel per mapping",
    "links": "busiest link per link class (X+, X-, ... or LL, LR, D), Data and Latency = Data/bandwidth, "
             "bars per mapping",
    "hops": "share of messages at each hop distance, bars per mapping",
}

DESCRIPTION = """\
Draw what mappings do to the network, default vs mapped side by side, as image files:
PNG, or the format of -o's extension (.pdf, .svg, .jpg, ... any that matplotlib writes; an
extension it does not write is an error).  Needs matplotlib (pip install "mpitaskmap[plot]").

kinds (--kind, repeatable; default every kind that applies to the machine: the
allocation needs routers on a torus or mesh grid, the links a machine with links):
""" + "\n".join(f"  {k:<10}  {v}" for k, v in KINDS.items()) + """

With one --kind, -o names the file (.png added when it has no extension); otherwise -o
is a prefix and each file gets _KIND and the extension (.png by default) appended:
plot_allocation.png, plot_links.png, plot_hops.png by default, figs/run_links.pdf ... for
-o figs/run.pdf.
"""

EPILOG = """\
methods (--methods NAME[:ARG][:OPTIONS],...; default "identity,geometric"):
{methods}

examples:
  mpitaskmap plot -m sim:titan:nodes=64,ppn=16,seed=1 -t stencil3d:16x8x8 --kind links -o links.png
  mpitaskmap plot -m sim:titan:nodes=64,ppn=16,seed=1 -t stencil3d:16x8x8 -o figs/minighost
  mpitaskmap plot -m alloc.txt -t stencil3d:8x8x8 --methods identity --mapping MPICH_RANK_ORDER --kind hops -o h.png

exit status: 0 on success, 1 on an error (one line; --debug for the traceback).
"""


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``mpitaskmap plot``."""
    p = command_parser("plot", DESCRIPTION, EPILOG)
    g = p.add_argument_group("what to draw")
    g.add_argument("--kind", action="append", choices=list(KINDS), help="plot kind (repeatable; default all)")
    add_methods_option(g, "identity,geometric", "methods to draw")
    g.add_argument("--mapping", action="append", default=[], metavar="[FORMAT=]PATH",
                   help="also draw a reorder file (repeatable)")
    g.add_argument("--color-by", default="part", choices=["part", "x", "y", "z"],
                   help="allocation: colour by task-domain part or by a task coordinate (default part)")
    g.add_argument("--weighted", action="store_true", help="hops: share of volume instead of messages")
    g.add_argument("-o", "--output", default="plot", metavar="PATH",
                   help="image file (one kind) or prefix (several kinds); its extension picks the format "
                        "(default PNG); default 'plot'")
    g.add_argument("--dpi", type=int, default=100, help="resolution (default 100)")
    add_method_options(p)
    return p


def applicable_kinds(machine) -> list[str]:
    """Return the plot kinds that apply to ``machine``, in :data:`KINDS` order.

    The allocation plot needs routers on a torus or mesh grid
    (:attr:`~mpitaskmap.machines.Machine.has_router_grid`), the link plot a link model
    (:attr:`~mpitaskmap.machines.Machine.has_link_model`); the hop histogram applies to
    every machine.

    Examples
    --------
    >>> from mpitaskmap.machines import FlatMachine, torus_machine
    >>> applicable_kinds(torus_machine([2, 2])), applicable_kinds(FlatMachine([0, 1]))
    (['allocation', 'links', 'hops'], ['hops'])
    """
    applies = {"allocation": machine.has_router_grid, "links": machine.has_link_model, "hops": True}
    return [k for k in KINDS if applies[k]]


def image_format(output: str, formats: Collection[str]) -> tuple[str, str]:
    """Split ``-o`` into the file name without its extension and the image format.

    No extension means PNG; an extension matplotlib writes (``formats``, the canvas's
    supported file types) is the format; any other is an error naming them.

    Examples
    --------
    >>> image_format("figs/links.pdf", {"png": "", "pdf": ""}), image_format("plot", {"png": ""})
    (('figs/links', 'pdf'), ('plot', 'png'))
    >>> image_format("l.xyz", {"png": "", "pdf": ""})
    Traceback (most recent call last):
    ...
    ValueError: -o: matplotlib writes no '.xyz' files; got 'l.xyz'; use one of .pdf, .png (or no extension: PNG)
    """
    stem, ext = os.path.splitext(output)
    if not ext:
        return output, "png"
    fmt = ext[1:].lower()
    if fmt not in formats:
        known = ", ".join("." + f for f in sorted(formats))
        raise ValueError(f"-o: matplotlib writes no {ext!r} files; got {output!r}; use one of {known} "
                         "(or no extension: PNG)")
    return stem, fmt


def plot_command(argv: list) -> int:
    """Run ``mpitaskmap plot`` with ``argv``; return the exit status.

    Parameters
    ----------
    argv : list of str
        Arguments after ``plot``.

    Returns
    -------
    int
        0 on success.
    """
    args = build_parser().parse_args(argv)
    from ..viz.plots import _mpl, plot_allocation, plot_hop_histogram, plot_link_loads

    _, canvas = _mpl()  # fail before the work when matplotlib is missing
    stem, fmt = image_format(args.output, canvas.get_supported_filetypes())  # and on an extension it cannot write
    mi, ti = load_inputs(args)
    kinds = list(dict.fromkeys(args.kind)) if args.kind else applicable_kinds(mi.machine)
    mappings = {}
    for spec in [m.strip() for m in args.methods.split(",") if m.strip()]:
        progress = Progress(f"{spec}: candidates", quiet=args.quiet)
        mappings[spec] = run_method(spec, ti.graph, mi.machine, context_from(args, ti.graph, progress))[0]
    for value in args.mapping:
        m = read_mapping_file(value, mi, ti.graph, args.hosts)
        mappings[m.method] = m
    if not mappings:
        raise ValueError("--methods: expected at least one method or --mapping")
    if args.kind and len(kinds) == 1:
        paths = {kinds[0]: f"{stem}.{fmt}"}
    else:
        paths = {k: f"{stem}_{k}.{fmt}" for k in kinds}
    for kind, path in paths.items():
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        if kind == "allocation":
            fig = plot_allocation(mappings, color_by=args.color_by)
        elif kind == "links":
            fig = plot_link_loads(mappings)
        else:
            fig = plot_hop_histogram(mappings, weighted=args.weighted)
        fig.savefig(path, format=fmt, dpi=args.dpi)
        if not args.quiet:
            sys.stderr.write(f"wrote {path} ({kind}: {', '.join(mappings)})\n")
    return 0


register("plot", "pictures: allocation in 3-D, link loads per class, hop histograms (PNG)")(plot_command)
