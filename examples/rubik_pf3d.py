"""pF3D-style Rubik mapping: application XY planes onto network planes, cubes, or tilted planes.

pF3D (laser-plasma interaction) runs 2-D FFTs inside every XY plane of its 3-D process
grid: an all-to-all over each plane's sub-communicator, plus light nearest-neighbour
traffic between planes.  On a Blue Gene/P-like torus (X x Y x Z nodes, T cores each) the
default rank order puts each plane's ranks on one XY plane of nodes.  Rubik can instead
map each application plane onto a cube of nodes, or keep planes and tilt them through Z
(the SC'12 paper's and Rubik's ``pf3d.py`` recipe), so each all-to-all has more links.

Run:  python examples/rubik_pf3d.py [--small] [--mapfile PATH] [--png PATH]
"""

import argparse
import sys
import time

import numpy as np

from mpitaskmap.mapping import identity_mapping
from mpitaskmap.mappers.rubik import box
from mpitaskmap.mappers.rubik.analysis import group_link_loads, groups_alltoall_graph
from mpitaskmap.machines.torus.presets import torus_machine
from mpitaskmap.graphs.taskgraph import TaskGraph


def build(net_dims, cores, app_shape, block):
    """Return the machine, the app tree (one group per XY plane) and the candidate mappings."""
    X, Y, Z = net_dims
    pz, py, px = app_shape                      # Rubik scan: px fastest, as pF3D numbers ranks
    machine = torus_machine(net_dims, cores_per_node=cores, name=f"BG/P-like torus {X}x{Y}x{Z} x {cores} cores")
    app = box([pz, py, px])
    app.tile([1, py, px])                       # group = one XY plane of the application
    plane = py * px // cores                    # nodes per group

    def network(tiles, tilts=()):
        net = box([X, Y, Z, cores])             # map-file lines: x y z t
        net.tile(tiles)
        net.map(app)
        for axis, direction, slope in tilts:
            net.tilt(axis, direction, slope)
        return net

    assert plane == X * Y and np.prod(block) == plane, "a group must fill one XY plane of nodes"
    bx, by, bz = block
    candidates = {
        "planes": network([X, Y, 1, cores]),
        "tilted planes": network([X, Y, 1, cores], [(2, 0, 1), (2, 1, 1)]),
        f"{bx}x{by}x{bz} blocks": network([bx, by, bz, cores]),
        f"tilted {bx}x{by}x{bz} blocks": network([bx, by, bz, cores], [(2, 0, 1), (2, 1, 1)]),
    }
    return machine, app, candidates


HEADER = (f"{'mapping':<24} {'links/grp':>9} {'grp MMC':>7} {'all MMC':>7} {'a2a hops':>8} "
          f"{'halo hops':>9} {'halo MMC':>8}")
LEGEND = """\
links/grp: distinct directed links one group's all-to-all crosses (mean over groups)
grp MMC:   most messages on one link when one group's all-to-all runs alone (max over groups)
all MMC:   most messages on one link when every group's all-to-all runs at once
a2a hops / halo hops: average hops per message; halo MMC: most halo messages on one link"""


def report(name, mapping, app, all_groups, halo):
    """One table row: per-group link use (library routing) and whole-pattern metrics."""
    per_group = group_link_loads(mapping, app)
    links = np.mean([loads.n_used() for loads in per_group])
    grp_mmc = max(loads.max_messages() for loads in per_group)
    return (
        f"{name:<24} {links:>9.1f} {grp_mmc:>7d} {mapping.metric('max_messages', all_groups):>7d} "
        f"{mapping.metric('average_hops', all_groups):>8.3f} {mapping.metric('average_hops', halo):>9.3f} "
        f"{mapping.metric('max_messages', halo):>8d}"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="4x4x4 torus x 2 cores, app 4x8x4 (for tests)")
    parser.add_argument("--mapfile", help="write the tilted-planes map file (Blue Gene/P format) here")
    parser.add_argument("--png", help="draw the tilted-planes network box (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.small:
        net_dims, cores, app_shape, block = (4, 4, 4), 2, (4, 8, 4), (2, 2, 4)
    else:
        net_dims, cores, app_shape, block = (8, 8, 8), 4, (8, 16, 16), (4, 4, 4)
    t0 = time.perf_counter()
    machine, app, candidates = build(net_dims, cores, app_shape, block)
    n = app.size
    all_groups = groups_alltoall_graph(app)
    pz, py, px = app_shape
    halo = TaskGraph.stencil([px, py, pz])      # task id x + px*(y + py*z) = the Rubik rank
    print(f"pF3D-style: app {pz}x{py}x{px} (Z x Y x X, X fastest) = {n} ranks, "
          f"{pz} XY-plane groups of {py * px}; {machine.name}")
    print(HEADER)
    default = identity_mapping(all_groups, machine)
    print(report("default (rank order)", default, app, all_groups, halo))
    for name, net in candidates.items():
        print(report(name, net.to_mapping(machine, all_groups), app, all_groups, halo))
    print(LEGEND)
    tilted = candidates["tilted planes"]
    if args.mapfile:
        tilted.write_map_file(args.mapfile)
        print(f"wrote {args.mapfile} ({n} lines 'x y z t')")
    if args.png:
        from mpitaskmap.viz.rubik import plot_box

        plot_box(tilted, args.png, groups=app, axis_names=["X", "Y", "Z"],
                 title=f"pF3D planes tilted through Z (core slot 0 of {cores})")
        print(f"wrote {args.png}")
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
