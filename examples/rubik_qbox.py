"""Qbox-style Rubik mapping: process-grid columns spread over the torus with mod cuts and tilts.

Qbox (first-principles molecular dynamics) distributes its wave functions over a 2-D
process grid: the plane-wave FFTs run inside every *column* (an all-to-all over the
column's sub-communicator), dense linear algebra reduces along every *row*.  With the
default rank order a column of 128 ranks sits on half an XY plane of nodes.  Rubik's
``qball.py`` recipe instead cuts the network with ``mod`` along X (each group takes every
other X plane) and ``div`` elsewhere, then tilts X along Y, so a column's all-to-all gets
more links; compact blocks are shown for comparison.

Run:  python examples/rubik_qbox.py [--small] [--mapfile PATH]
"""

import argparse
import sys
import time

import numpy as np

from mpitaskmap.mapping import identity_mapping
from mpitaskmap.mappers.rubik import box, div, mod
from mpitaskmap.mappers.rubik.analysis import group_link_loads, groups_alltoall_graph
from mpitaskmap.machines.torus.presets import torus_machine

HEADER = (f"{'mapping':<28} {'links/col':>9} {'col MMC':>7} {'all MMC':>7} {'col hops':>8} "
          f"{'row hops':>8} {'row MMC':>7}")
LEGEND = """\
links/col: distinct directed links one column's all-to-all crosses (mean over columns)
col MMC:   most messages on one link when one column's all-to-all runs alone (max over columns)
all MMC:   most messages on one link when every column's all-to-all runs at once
col hops / row hops: average hops per message; row MMC: most row messages on one link"""


def report(name, mapping, app, columns, rows):
    """One table row: per-column link use (library routing) and whole-pattern metrics."""
    per_col = group_link_loads(mapping, app)
    links = np.mean([loads.n_used() for loads in per_col])
    col_mmc = max(loads.max_messages() for loads in per_col)
    return (
        f"{name:<28} {links:>9.1f} {col_mmc:>7d} {mapping.metric('max_messages', columns):>7d} "
        f"{mapping.metric('average_hops', columns):>8.3f} {mapping.metric('average_hops', rows):>8.3f} "
        f"{mapping.metric('max_messages', rows):>7d}"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="4x4x4 torus x 2 cores, 8 x 16 grid (for tests)")
    parser.add_argument("--mapfile", help="write the cut+tilt map file (Blue Gene/P format) here")
    args = parser.parse_args(argv)
    if args.small:
        (X, Y, Z), T, (ncol, nrow) = (4, 4, 4), 2, (8, 16)
    else:
        (X, Y, Z), T, (ncol, nrow) = (8, 8, 8), 4, (16, 128)
    t0 = time.perf_counter()
    machine = torus_machine([X, Y, Z], cores_per_node=T, name=f"BG/P-like torus {X}x{Y}x{Z} x {T} cores")
    app = box([ncol, nrow])                 # rank = col * nrow + row: a column is contiguous
    app.tile([1, nrow])                     # group = one column
    row_ids = np.arange(app.size) % nrow    # row sub-communicators, for the second pattern
    columns = groups_alltoall_graph(app)
    rows = groups_alltoall_graph(row_ids)

    def network(divisors, kinds=div, tilts=()):
        net = box([X, Y, Z, T])             # map-file lines: x y z t
        net.cut(divisors, kinds)
        net.map(app)
        for axis, direction, slope in tilts:
            net.tilt(axis, direction, slope)
        return net

    planar = [X, nrow // T // X, 1, T]      # a column on X * (nrow/T/X) nodes of one Z plane
    groups = [2, 2, 2, ncol // 8]           # 16 groups (8 in the small case)
    recipe = (groups, [mod, div, div, div])
    candidates = {
        "planar tiles (like default)": network([X // planar[0], Y // planar[1], Z, 1]),
        "cut [mod,div,div,div]": network(*recipe),
        "cut [mod,div,div,div]+tilt": network(*recipe, tilts=[(0, 1, 1)]),
        "blocks (div " + "x".join(map(str, groups)) + ")": network(groups),
    }
    print(f"Qbox-style: {ncol} x {nrow} process grid = {app.size} ranks, {ncol} column groups of {nrow} "
          f"(FFT all-to-all), {nrow} row groups of {ncol}; {machine.name}")
    print(HEADER)
    print(report("default (rank order)", identity_mapping(columns, machine), app, columns, rows))
    for name, net in candidates.items():
        print(report(name, net.to_mapping(machine, columns), app, columns, rows))
    print(LEGEND)
    if args.mapfile:
        candidates["cut [mod,div,div,div]+tilt"].write_map_file(args.mapfile)
        print(f"wrote {args.mapfile} ({app.size} lines 'x y z t')")
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
