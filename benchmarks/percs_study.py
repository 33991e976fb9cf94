"""PERCS / Power 775 mapping study (ALGORITHMS.md section 5): throughput per node (GB/s).

Every cell is the throughput per node ``4 / t`` with ``t = max(L_LL/21, L_LR/5, L_D/10)``
and the bottleneck link class, from the exact link-load simulator of
:mod:`mpitaskmap.percs`.  Random strategies show the mean over seeds 0..4 (bottleneck:
the most frequent one).  Studies:

* ``halo_nd``       halo, direct routing, n_s = 32 (64 x 64 tasks), n_d = 1..16
* ``halo_ns``       halo, direct routing, n_d = 4, n_s = 16..128
* ``halo_indirect`` halo, indirect routing, n_s = 32, n_d = 1..16
* ``transpose``     transpose, direct and indirect routing, several grid shapes

Extra columns: the library's geometric mapper (MJ on the (supernode, drawer, node, core)
embedding) and the greedy graph mapper when ``mpitaskmap.mappers.graph`` is installed.

Run:  python benchmarks/percs_study.py [--only halo_nd,transpose] [--json PATH] [--greedy-max-edges N]
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _util import print_table, write_json  # noqa: E402

from mpitaskmap import map_geometric  # noqa: E402
from mpitaskmap.percs import PercsMachine, halo_graph, map_percs, transpose_graph  # noqa: E402

SEEDS = range(5)
HALO_COLUMNS = [
    ("DEF", "default"),
    ("NODE SEQ", "node_sequential"),
    ("NODE RND", "node_random"),
    ("DRW SEQ", "drawer_sequential"),
    ("DRW RND", "drawer_random"),
    ("SN SEQ", "supernode_sequential"),
    ("SN RND", "supernode_random"),
    ("MOD CLR", "mod_colouring"),
    ("GEOM MJ", "geometric"),
    ("GREEDY", "greedy"),
]
TRANSPOSE_COLUMNS = [
    ("DEF", "default"),
    ("SN SEQ", "supernode_sequential"),
    ("ROW", "transpose_row"),
    ("COLUMN", "transpose_column"),
    ("HYBRID", "transpose_hybrid"),
    ("GEOM MJ", "geometric"),
    ("GREEDY", "greedy"),
]
# grid (P, Q) for n_s supernodes: P a multiple of 32, Q a power of two >= 64 (mod-colouring)
HALO_GRID = {16: (32, 64), 32: (64, 64), 64: (64, 128), 128: (128, 128)}


# --- hook for the greedy graph mapper (issue 5) ---------------------------------------
# The "GREEDY" column runs mpitaskmap.mappers.graph.map_greedy(graph, machine) -> Mapping
# when that module is importable, and prints "n/a (graph mapper not installed)" otherwise.
def _greedy_mapper():
    try:
        from mpitaskmap.mappers.graph import map_greedy
    except ImportError:
        return None
    return map_greedy


GREEDY_NA = "n/a (graph mapper not installed)"
#: Largest graph (directed edges) given to the greedy mapper; set by --greedy-max-edges.
GREEDY_MAX_EDGES = [2_000_000]
# Mappings do not depend on the routing: computed once per (strategy, graph, n_s, n_d).
_CACHE: dict = {}


def run_cell(strategy: str, graph, machine) -> tuple[float, str] | str:
    """Return (throughput, bottleneck) of one strategy, or a text cell when it cannot run."""
    key = (strategy, id(graph), machine.n_s, machine.n_d)
    if key in _CACHE:
        mappings = _CACHE[key]
    else:
        mappings = _mappings(strategy, graph, machine)
        if isinstance(mappings, str):
            return mappings
        _CACHE[key] = mappings
    tputs, necks = [], []
    for mp in mappings:
        loads = machine.link_loads(graph.indptr, graph.indices, graph.weights, mp.task_to_proc)
        tputs.append(loads.throughput())
        necks.append(loads.bottleneck())
    return float(np.mean(tputs)), collections.Counter(necks).most_common(1)[0][0]


def _mappings(strategy: str, graph, machine):
    if strategy == "geometric":
        mappings = [map_geometric(graph, machine)]
    elif strategy == "greedy":
        greedy = _greedy_mapper()
        if greedy is None:
            return GREEDY_NA
        if graph.n_edges > GREEDY_MAX_EDGES[0]:
            return f"skipped (> {GREEDY_MAX_EDGES[0]:,} edges)"
        mappings = [greedy(graph, machine)]
    elif strategy.endswith("_random"):
        mappings = [map_percs(graph, machine, method=strategy, seed=s) for s in SEEDS]
    else:
        try:
            mappings = [map_percs(graph, machine, method=strategy)]
        except ValueError as exc:  # preconditions of the strategy (InvalidInputError)
            return f"n/a ({str(exc).split(';')[0].split(': ', 1)[-1]})"
    return mappings


def run_table(study, pattern, routing, rows_spec, columns, records) -> list[dict]:
    """Run one table; rows_spec is a list of (label dict, graph, machine)."""
    rows = []
    for label, graph, machine in rows_spec:
        row = dict(label)
        for col, strategy in columns:
            t0 = time.perf_counter()
            cell = run_cell(strategy, graph, machine)
            secs = time.perf_counter() - t0
            if isinstance(cell, str):
                row[col] = cell
                continue
            tput, neck = cell
            row[col] = f"{tput:.1f} {neck}"
            records.append({
                "study": study, "pattern": pattern, "routing": routing, "n_s": machine.n_s,
                "n_d": machine.n_d, "strategy": strategy, "throughput": tput, "bottleneck": neck,
                "grid": label.get("grid"), "seconds": round(secs, 3),
            })
        rows.append(row)
    return rows


def halo_rows(n_s_list, n_d_list, routing):
    out = []
    for n_s in n_s_list:
        P, Q = HALO_GRID[n_s]
        g = halo_graph(P, Q)
        for n_d in n_d_list:
            out.append(({"n_s": n_s, "n_d": n_d, "grid": f"{P}x{Q}"}, g, PercsMachine(n_s, n_d, routing=routing)))
    return out


def study_halo_nd(records):
    return run_table("halo_nd", "halo", "direct", halo_rows([32], [1, 2, 4, 8, 16], "direct"), HALO_COLUMNS, records)


def study_halo_ns(records):
    return run_table("halo_ns", "halo", "direct", halo_rows([16, 32, 64, 128], [4], "direct"), HALO_COLUMNS, records)


def study_halo_indirect(records):
    return run_table("halo_indirect", "halo", "indirect", halo_rows([32], [1, 2, 4, 8, 16], "indirect"),
                     HALO_COLUMNS, records)


TRANSPOSE_SHAPES = [(32, (16, 256)), (32, (32, 128)), (32, (64, 64)), (128, (64, 256)), (128, (128, 128))]


def study_transpose(records):
    tables = []
    graphs = {shape: transpose_graph(*shape) for _, shape in TRANSPOSE_SHAPES}
    for routing in ("direct", "indirect"):
        spec = []
        for n_s, (P, Q) in TRANSPOSE_SHAPES:
            g = graphs[(P, Q)]
            spec.append(({"n_s": n_s, "n_d": 4, "grid": f"{P}x{Q}", "min_dim": min(P, Q)}, g,
                         PercsMachine(n_s, 4, routing=routing)))
        tables.append((routing, run_table(f"transpose_{routing}", "transpose", routing, spec,
                                          TRANSPOSE_COLUMNS, records)))
    return tables


STUDIES = ("halo_nd", "halo_ns", "halo_indirect", "transpose")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help=f"comma-separated subset of {','.join(STUDIES)}")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--greedy-max-edges", type=int, default=GREEDY_MAX_EDGES[0],
                    help="skip the greedy mapper on larger graphs (default %(default)s)")
    args = ap.parse_args(argv)
    GREEDY_MAX_EDGES[0] = args.greedy_max_edges
    only = STUDIES if not args.only else tuple(s.strip() for s in args.only.split(","))
    unknown = [s for s in only if s not in STUDIES]
    if unknown:
        ap.error(f"--only: unknown study {unknown[0]!r}; valid: {sorted(STUDIES)}")
    records: list = []
    t_all = time.perf_counter()
    load0 = os.getloadavg()[0]
    halo_cols = ["n_s", "n_d", "grid"] + [c for c, _ in HALO_COLUMNS]
    titles = {
        "halo_nd": "Halo, direct routing, n_s = 32: throughput GB/s per node and bottleneck",
        "halo_ns": "Halo, direct routing, n_d = 4",
        "halo_indirect": "Halo, indirect routing, n_s = 32",
    }
    for name in only:
        t0 = time.perf_counter()
        if name == "transpose":
            for routing, rows in study_transpose(records):
                print(f"\n== Transpose, {routing} routing, n_d = 4 ==")
                print_table(rows, ["n_s", "n_d", "grid", "min_dim"] + [c for c, _ in TRANSPOSE_COLUMNS])
        else:
            rows = {"halo_nd": study_halo_nd, "halo_ns": study_halo_ns, "halo_indirect": study_halo_indirect}[name](
                records)
            print(f"\n== {titles[name]} ==")
            print_table(rows, halo_cols)
        print(f"({name}: {time.perf_counter() - t0:.1f} s)")
    wall = time.perf_counter() - t_all
    print(f"\nwall time {wall:.1f} s; load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end "
          f"on {os.cpu_count()} cores")
    write_json(args.json, records, benchmark="percs_study", wall_seconds=wall)
    return 0


if __name__ == "__main__":
    sys.exit(main())
