"""PERCS / Power 775 mapping study (ALGORITHMS.md section 5): the paper's Tables I-IV.

Every cell is the throughput per node ``4 / t`` with ``t = max(L_LL/21, L_LR/5, L_D/10)``
(:func:`mpitaskmap.mappers.percs.throughput`) and the bottleneck link class
(:meth:`~mpitaskmap.machines.LinkLoads.bottleneck`), from the exact link loads of
:class:`~mpitaskmap.machines.percs.PercsMachine` under the paper's machine model
(``model="paper"``: striped intra-supernode messages, single-link L hops of L-D-L routes;
blocks laid out as in :func:`mpitaskmap.mappers.percs.map_blocking`).  Random strategies show
the mean and standard deviation over SEEDS (0..19; bottleneck: the most frequent one).  Tables
(rows n_d or n_s; columns the paper's strategies, then ours):

* Table I   (``halo_nd``)       halo, direct routing, n_s = 32 (64 x 64 tasks), n_d = 1..16
* Table II  (``halo_ns``)       halo, direct routing, n_d = 4, n_s = 16..128 (grids P >= Q)
* Table III (``halo_indirect``) halo, indirect routing, n_s = 32, n_d = 1..16
* Table IV  (``transpose_nd``)  transpose, direct routing, n_s = 32 (64 x 64 tasks), n_d = 1..16
* ``transpose``: transpose, direct and indirect routing, n_d = 4, several grids (Equations 4 and 6)

Extra columns: the library's geometric mapper (MJ on the (supernode, drawer, node, core)
embedding) and the greedy graph mapper when ``mpitaskmap.mappers.graph.greedy`` is installed.
After the tables, each of the paper's Tables I-IV is printed in its layout with
"paper / ours / verdict" per cell, then every one of its 89 cells (:data:`PAPER_CELLS`) is
compared with ours under the three L models (within tolerance: +-10% deterministic, +-25%
random, same bottleneck class where the paper names one), each cell outside it with its
reason in one line, and the summary line ``PERCS: N/89 cells within tolerance``.

Run:  python -m benchmarks.percs_study [--only halo_nd,transpose] [--json PATH] [--greedy-max-edges N]
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys
import time

import numpy as np

from benchmarks.harness import print_table, write_json

from mpitaskmap import map_geometric
from mpitaskmap.mappers.percs.patterns import halo_graph, transpose_graph
from mpitaskmap.machines.percs import PercsMachine
from mpitaskmap.mappers.percs import map_percs, throughput

#: Seeds of the random strategies (mean and standard deviation over them; the paper prints one draw).
SEEDS = range(20)
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
# grid (P, Q) for n_s supernodes, P (x, fastest) >= Q: the paper's default at n_s = 16,
# n_d = 4 (10 GB/s, Table II) needs rows of 64 tasks, i.e. 64 x 32 rather than 32 x 64.
# Mod-colouring colours 64 x 32 transposed.
HALO_GRID = {16: (64, 32), 32: (64, 64), 64: (128, 64), 128: (128, 128)}

# --- the paper's published values -----------------------------------------------------
# Chakaravarthy, Kedia, Sabharwal, Katta, Rajamony, Ramanan, "Mapping Strategies for the
# PERCS Architecture", HiPC 2012 (arXiv:1208.2849); text extraction in
# ../shared/papers/percs-mapping-strategies.txt, section VI (the extraction prints each
# caption below its rows).  Every cell of Tables I-IV, typed in row by row as printed:
# 6 x 5 (Table I) + 6 x 4 (Table II) + 5 x 5 (Table III) + 2 x 5 (Table IV) = 89 cells.
# "(*)" (Tables I-II) marks the cells where "the LR-links became the bottleneck" (section
# VI-A: "In most of the cases, D-links were the bottleneck"); Tables III and IV print the
# class after each value.  An unmarked cell of Tables I-II names no class (compared on the
# value only).  Columns as printed; the paper omits NODE SEQ / NODE RND from its tables.
PAPER_TABLES = {
    # study: (table, row key, other fixed parameter, columns (paper name, our strategy), rows as printed)
    "halo_nd": ("I", "n_d", {"n_s": 32}, [
        ("DEF", "default"), ("DRW SEQ", "drawer_sequential"), ("DRW RND", "drawer_random"),
        ("SN SEQ", "supernode_sequential"), ("SN RND", "supernode_random"), ("MOD CLR", "mod_colouring")], """
        1   2    5   8         10    10        20
        2   5   10  16         20    20        40
        4  10   20  33         40    40        64 (*)
        8  20   40  66         80    80       107 (*)
        16 40   80  120 (*)   160   128 (*)   160 (*)
    """),
    "halo_ns": ("II", "n_s", {"n_d": 4}, [
        ("DEF", "default"), ("DRW SEQ", "drawer_sequential"), ("DRW RND", "drawer_random"),
        ("SN SEQ", "supernode_sequential"), ("SN RND", "supernode_random"), ("MOD CLR", "mod_colouring")], """
        16   10   20   29   40   40   64 (*)
        32   10   20   33   40   40   64 (*)
        64    5   20   37   40   40   64 (*)
        128   5   10   38   40   40   64 (*)
    """),
    "halo_indirect": ("III", "n_d", {"n_s": 32}, [
        ("DEF", "default"), ("DRW SEQ", "drawer_sequential"), ("DRW RND", "drawer_random"),
        ("SN SEQ", "supernode_sequential"), ("SN RND", "supernode_random")], """
        1   20 (D)    36 (D)    27 (D)    53 (D)    53 (D)
        2   34 (LR)   58 (LR)   53 (D)    91 (LR)   96 (LR)
        4   80 (D)   128 (LL)  107 (D)   134 (LL)  174 (LR)
        8  103 (LL)   93 (LL)  127 (LL)  183 (LR)  167 (LL)
        16  64 (LL)  179 (LL)  103 (LL)  168 (LL)  148 (LL)
    """),
    "transpose_nd": ("IV", "n_d", {"n_s": 32}, [
        ("SN SEQ", "supernode_sequential"), ("Hybrid Scheme", "transpose_hybrid")], """
        1    2 (D)   20 (D)
        2    5 (D)   40 (D)
        4   10 (D)   80 (D)
        8   20 (D)   80 (LR)
        16  40 (D)   80 (LR)
    """),
}
_CELL = re.compile(r"(\d+(?:\.\d+)?)(?:\s*\((\*|D|LR|LL)\))?")


def _paper_cells() -> list[tuple]:
    """Expand PAPER_TABLES into one entry per printed cell.

    Entry: (study, n_s, n_d, strategy, value GB/s, bottleneck class named by the paper or None,
    source "Table I row n_d=4 col MOD CLR", the cell as printed).  "(*)" names the LR class.
    """
    out = []
    for study, (table, row_key, fixed, columns, text) in PAPER_TABLES.items():
        for line in text.strip().splitlines():
            row, rest = line.split(None, 1)
            cells = _CELL.findall(rest)
            if len(cells) != len(columns):
                raise AssertionError(f"Table {table} row {row}: {len(cells)} cells for {len(columns)} columns")
            for (col, strategy), (value, mark) in zip(columns, cells):
                params = dict(fixed, **{row_key: int(row)})
                neck = {"": None, "*": "LR"}.get(mark, mark)
                printed = value + (f" ({mark})" if mark else "")
                out.append((study, params["n_s"], params["n_d"], strategy, float(value), neck,
                            f"Table {table} row {row_key}={row} col {col}", printed))
    return out


PAPER_CELLS = _paper_cells()
N_PAPER_CELLS = 89
assert len(PAPER_CELLS) == N_PAPER_CELLS, len(PAPER_CELLS)

# The text's closed forms (section IV-C and VI-A; not table cells, printed separately):
# supernode blocking 10 n_d and mod-colouring 20 n_d GB/s while the D links limit.
TEXT_CELLS = [
    ("halo_nd", 32, n_d, "supernode_sequential", 10.0 * n_d, "D", "text: 10 n_d", f"{10 * n_d} (D)")
    for n_d in (1, 2, 4, 8)
] + [
    ("halo_nd", 32, n_d, "mod_colouring", 20.0 * n_d, "D", "text: 20 n_d", f"{20 * n_d} (D)") for n_d in (1, 2, 4)
]
#: Why a cell still differs from the paper by more than the tolerance (keyed like PAPER_CELLS,
#: plus the source for the text's closed forms).
REASONS = {
    ("halo_nd", 32, 1, "default"):
        "2.5 = 40 n_d / 16 (two 64-task rows send 16 units over the one D link); 2 would need 20 units "
        "on a D link or 10 on an LR link, which no layout or L model gives: we read it as 2.5 printed with "
        "round-half-to-even (Table IV's SN SEQ prints the same 2 at n_d = 1)",
    ("halo_nd", 32, 2, "mod_colouring"):
        "LR-bound at 320 n_d/(16+n_d) = 35.6 (two L hops of 1/(2 n_d) share an LR link into a gateway, "
        "+1/16 striped), the formula of Table I's own 64 (*) at n_d = 4 and 107 (*) at n_d = 8; the text's "
        "20 n_d (section VI-A: 'For the cases of n_d = 1, 2, the D-link is the bottleneck') counts the D links alone",
    ("transpose_nd", 32, 1, "supernode_sequential"):
        "2.5 D printed as 2, as Table I's DEF at n_d = 1 (the same column 2, 5, 10, 20, 40): every other cell "
        "of Tables I-IV is ours rounded to nearest (106.7 -> 107, 35.6 -> 36, 53.3 -> 53), so 2.5 -> 2 reads as "
        "round-half-to-even (C's printf %.0f)",
    ("transpose_nd", 32, 4, "transpose_hybrid"):
        "a tie in the paper's own Equation (4), min{20h, 80} with 20h = 80 at n_d = 4: the paper names D, ours "
        "is LR-bound 1.5% below the D bound (78.8; model striped gives 78.8 D)",
    ("halo_nd", 32, 16, "drawer_random"):
        "the paper's single draw was LR-bound; 1 of our 20 seeds is (the mode is D), value 114 +- 14 within 25% "
        "of 120",
    ("halo_ns", 128, 4, "drawer_sequential"):
        "20 on every n_s = 128 grid we tried (128x128, 256x64, 64x256, 512x32, 32x512); the paper's 10 halves "
        "as its DEF does at n_s = 64: the order of the drawer blocks (section IV-B: 'indexed in a canonical "
        "manner') is not given",
    ("halo_indirect", 32, 4, "supernode_random"):
        "value within 2% (176 +- 5 against 174); the class depends on the draw: LR allows 182.9 on every "
        "seed, LL 162.9-185.4 by where the random order puts neighbouring blocks, so 2 of our 20 seeds are "
        "LR-bound like the paper's single draw and 18 LL-bound",
    ("halo_nd", 32, 1, "mod_colouring", "text: 20 n_d"):
        "two L hops of 1/(2 n_d) share an LR link into a gateway (+1/16 striped): LR limits just below "
        "the D links, 320 n_d/(16+n_d) = 18.8, the formula of Table I's own 107 at n_d = 8",
    ("halo_nd", 32, 2, "mod_colouring", "text: 20 n_d"):
        "LR-bound at 320 n_d/(16+n_d) = 35.6, same cause; the text's 20 n_d counts the D links alone "
        "(model uniform gives 40 D but then 128, not 160, for supernode blocking at n_d = 16)",
    ("halo_nd", 32, 4, "mod_colouring", "text: 20 n_d"):
        "LR-bound at 320 n_d/(16+n_d) = 64, as Table I prints it (64 (*)): the text's 20 n_d = 80 is "
        "the D-link bound alone",
}
TOLERANCE = {"deterministic": 0.10, "random": 0.25}


# --- hook for the greedy graph mapper (issue 5) ---------------------------------------
# The "GREEDY" column runs mpitaskmap.mappers.graph.greedy.map_greedy(graph, machine) -> Mapping
# when that module is importable, and prints "n/a (graph mapper not installed)" otherwise.
def _greedy_mapper():
    try:
        from mpitaskmap.mappers.graph.greedy import map_greedy
    except ImportError:
        return None
    return map_greedy


GREEDY_NA = "n/a (graph mapper not installed)"
#: Largest graph (directed edges) given to the greedy mapper; set by --greedy-max-edges.
GREEDY_MAX_EDGES = [2_000_000]
# Mappings do not depend on the routing: computed once per (strategy, graph, n_s, n_d).
_CACHE: dict = {}


#: Our cells for the published ones: (study, n_s, n_d, strategy) -> {model: (throughput, bottleneck)}.
_OURS: dict = {}
_PAPER_KEYS = {c[:4] for c in PAPER_CELLS + TEXT_CELLS}


def run_cell(strategy: str, graph, machine) -> tuple[float, str, float | None] | str:
    """Return (throughput, bottleneck, spread) of one strategy, or a text cell when it cannot run.

    Random strategies: the mean throughput over SEEDS, the most frequent bottleneck and the
    standard deviation; the others: spread None.
    """
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
        tputs.append(throughput(loads))
        necks.append(loads.bottleneck())
    spread = float(np.std(tputs)) if len(tputs) > 1 else None
    return float(np.mean(tputs)), collections.Counter(necks).most_common(1)[0][0], spread


def fmt_cell(cell) -> str:
    """'64.0 LR', or '33.1±1.2 D' for a random strategy, or the text of a cell that did not run."""
    if isinstance(cell, str):
        return cell
    tput, neck, spread = cell
    return f"{tput:.1f}" + (f"±{spread:.1f}" if spread is not None else "") + f" {neck}"


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
            tput, neck, spread = cell
            row[col] = fmt_cell(cell)
            records.append({
                "study": study, "pattern": pattern, "routing": routing, "n_s": machine.n_s,
                "n_d": machine.n_d, "strategy": strategy, "throughput": tput, "bottleneck": neck,
                "spread": spread, "seeds": len(SEEDS) if spread is not None else 1,
                "grid": label.get("grid"), "model": machine.model, "seconds": round(secs, 3),
            })
            pkey = (study, machine.n_s, machine.n_d, strategy)
            if pkey in _PAPER_KEYS:
                _OURS[pkey] = {"paper": cell}
                for model in ("striped", "uniform"):
                    _OURS[pkey][model] = run_cell(strategy, graph, machine.with_model(model))
        rows.append(row)
    return rows


# graphs stay alive for the whole run: the mapping cache is keyed by id(graph)
_GRAPHS_ALIVE: list = []


def halo_rows(n_s_list, n_d_list, routing):
    out = []
    for n_s in n_s_list:
        P, Q = HALO_GRID[n_s]
        g = halo_graph(P, Q)
        _GRAPHS_ALIVE.append(g)
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


# Table IV does not print its grid; 64 x 64 is the n_s = 32 grid (P, Q powers of two) whose
# supernode blocking gives the printed 2, 5, 10, 20, 40 (32 x 128 and 128 x 32 give about half;
# 16 x 256 gives 20 n_d, LR-bound at 77 from n_d = 4).
TRANSPOSE_TABLE_GRID = (64, 64)


def study_transpose_nd(records):
    P, Q = TRANSPOSE_TABLE_GRID
    g = transpose_graph(P, Q)
    _GRAPHS_ALIVE.append(g)
    spec = [({"n_s": 32, "n_d": n_d, "grid": f"{P}x{Q}"}, g, PercsMachine(32, n_d, routing="direct"))
            for n_d in (1, 2, 4, 8, 16)]
    return run_table("transpose_nd", "transpose", "direct", spec, TRANSPOSE_COLUMNS, records)


TRANSPOSE_SHAPES = [(32, (16, 256)), (32, (32, 128)), (32, (64, 64)), (128, (64, 256)), (128, (128, 128))]


def study_transpose(records):
    tables = []
    graphs = {shape: transpose_graph(*shape) for _, shape in TRANSPOSE_SHAPES}
    _GRAPHS_ALIVE.extend(graphs.values())
    for routing in ("direct", "indirect"):
        spec = []
        for n_s, (P, Q) in TRANSPOSE_SHAPES:
            g = graphs[(P, Q)]
            spec.append(({"n_s": n_s, "n_d": 4, "grid": f"{P}x{Q}", "min_dim": min(P, Q)}, g,
                         PercsMachine(n_s, 4, routing=routing)))
        tables.append((routing, run_table(f"transpose_{routing}", "transpose", routing, spec,
                                          TRANSPOSE_COLUMNS, records)))
    return tables


STUDIES = ("halo_nd", "halo_ns", "halo_indirect", "transpose_nd", "transpose")
TABLE_OF = {"halo_nd": "I", "halo_ns": "II", "halo_indirect": "III", "transpose_nd": "IV",
            "transpose": "Eq. 4/6"}


def within_tolerance(paper: float, paper_neck, ours: float, neck: str, strategy: str) -> bool:
    """Whether our cell matches a published one: value within the tolerance, same named bottleneck."""
    tol = TOLERANCE["random" if strategy.endswith("_random") else "deterministic"]
    return abs(ours - paper) <= tol * paper and (paper_neck is None or paper_neck == neck)


PAPER_STRATEGIES = {s for _, s in HALO_COLUMNS[:8]} | {s for _, s in TRANSPOSE_COLUMNS[:5]}


def shape_checks(records) -> list[str]:
    """The paper's qualitative claims on routing, checked on the cells run (paper strategies only)."""
    by = {(r["pattern"], r["routing"], r["n_s"], r["n_d"], r["grid"], r["strategy"]): r for r in records
          if r["strategy"] in PAPER_STRATEGIES}
    out = []
    halo = [(k, r) for k, r in by.items() if k[0] == "halo" and k[1] == "direct" and r["bottleneck"] == "D"]
    pairs = [(r, by.get(("halo", "indirect") + k[2:])) for k, r in halo]
    pairs = [(d, i) for d, i in pairs if i is not None]
    if pairs:
        won = sum(i["throughput"] > d["throughput"] for d, i in pairs)
        out.append(f"halo: indirect beats direct in {won} of {len(pairs)} cells where direct routing is D-bound")
    tr = [(k, r) for k, r in by.items() if k[0] == "transpose" and k[1] == "direct"]
    for small in (True, False):
        sel = [(r, by.get(("transpose", "indirect") + k[2:])) for k, r in tr
               if (min(int(v) for v in k[4].split("x")) < 128) == small]
        sel = [(d, i) for d, i in sel if i is not None]
        if sel:
            won = sum(d["throughput"] > i["throughput"] for d, i in sel)
            out.append(f"transpose, smaller grid dimension {'<' if small else '>='} 128: direct beats indirect in "
                       f"{won} of {len(sel)} cells")
    return out


def verdict(paper_cell, ours) -> str:
    """'ok' (within tolerance), 'OFF' or 'not computed' for one published cell."""
    if ours is None or isinstance(ours, str):
        return "not computed"
    _, _, _, strategy, value, pneck = paper_cell[:6]
    return "ok" if within_tolerance(value, pneck, ours[0], ours[1], strategy) else "OFF"


def compare_with_paper(studies, cells=None) -> list[dict]:
    """Return one row per published cell of the studies run: paper, ours (three models), verdict, reason."""
    rows = []
    for cell in PAPER_CELLS if cells is None else cells:
        study, n_s, n_d, strategy, value, pneck, source, printed = cell
        if study not in studies:
            continue
        ours = _OURS.get((study, n_s, n_d, strategy))
        mine = None if ours is None else ours["paper"]
        v = verdict(cell, mine)
        alt = {m: fmt_cell(ours[m]) if ours else "" for m in ("striped", "uniform")}
        reason = REASONS.get((study, n_s, n_d, strategy, source)) or REASONS.get((study, n_s, n_d, strategy))
        if v == "not computed":
            reason = mine if isinstance(mine, str) else "not run"
        rows.append({
            "table": TABLE_OF[study], "n_s": n_s, "n_d": n_d, "strategy": strategy, "source": source,
            "paper": printed, "value": value, "bottleneck": pneck,
            "ours": fmt_cell(mine) if mine is not None else "", "ours striped": alt["striped"],
            "ours uniform": alt["uniform"], "verdict": v,
            "within tol": "yes" if v == "ok" else "no",
            "reason": "" if v == "ok" else (reason or "(no reason recorded)"),
        })
    return rows


def print_paper_layout(study, comparison) -> None:
    """Print one of the paper's tables in its layout: per cell 'paper / ours / verdict'."""
    table, row_key, fixed, columns, _ = PAPER_TABLES[study]
    mine = [r for r in comparison if r["table"] == table]
    by = {(r["n_s"], r["n_d"], r["strategy"]): r for r in mine}
    keys = sorted({(r["n_s"], r["n_d"]) for r in mine},
                  key=lambda k: k[0] if row_key == "n_s" else k[1])
    rows = []
    for n_s, n_d in keys:
        row = {row_key: n_s if row_key == "n_s" else n_d}
        for col, strategy in columns:
            r = by.get((n_s, n_d, strategy))
            row[col] = "" if r is None else f"{r['paper']} / {r['ours'] or '-'} / {r['verdict']}"
        rows.append(row)
    fixed_s = ", ".join(f"{k} = {v}" for k, v in fixed.items())
    print(f"\n== Table {table} in the paper's layout ({fixed_s}): paper / ours (model \"paper\") / verdict ==")
    print_table(rows, [row_key] + [c for c, _ in columns])


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
        "halo_nd": "Table I: halo, direct routing, n_s = 32: throughput GB/s per node and bottleneck",
        "halo_ns": "Table II: halo, direct routing, n_d = 4",
        "halo_indirect": "Table III: halo, indirect routing, n_s = 32",
    }
    for name in only:
        t0 = time.perf_counter()
        if name == "transpose_nd":
            rows = study_transpose_nd(records)
            print(f"\n== Table IV: transpose, direct routing, n_s = 32, grid {TRANSPOSE_TABLE_GRID[0]}x"
                  f"{TRANSPOSE_TABLE_GRID[1]} (the paper prints SN SEQ and HYBRID) ==")
            print_table(rows, ["n_s", "n_d", "grid"] + [c for c, _ in TRANSPOSE_COLUMNS])
        elif name == "transpose":
            for routing, rows in study_transpose(records):
                print(f"\n== Transpose, {routing} routing, n_d = 4, several grids (Equations 4 and 6; "
                      f"not a table of the paper) ==")
                print_table(rows, ["n_s", "n_d", "grid", "min_dim"] + [c for c, _ in TRANSPOSE_COLUMNS])
        else:
            rows = {"halo_nd": study_halo_nd, "halo_ns": study_halo_ns, "halo_indirect": study_halo_indirect}[name](
                records)
            print(f"\n== {titles[name]} ==")
            print_table(rows, halo_cols)
        print(f"({name}: {time.perf_counter() - t0:.1f} s)")
    comparison = compare_with_paper(only)
    for study in PAPER_TABLES:
        if study in only:
            print_paper_layout(study, comparison)
    if comparison:
        print(f"\n== Published cells: paper vs ours (model \"paper\"; models \"striped\" and \"uniform\" "
              f"for reference); +-10% deterministic, +-25% random (mean±sd over {len(SEEDS)} seeds), "
              f"same class where the paper names one ==")
        print_table(comparison, ["source", "strategy", "paper", "ours", "verdict", "ours striped", "ours uniform"])
        print("\nCells outside tolerance or not computed:")
        for r in comparison:
            if r["verdict"] != "ok":
                print(f"  {r['source']} ({r['strategy']}): paper {r['paper']}, ours {r['ours'] or '-'} "
                      f"[{r['verdict']}]: {r['reason']}")
    text = compare_with_paper(only, TEXT_CELLS)
    if text:
        print("\n== The text's closed forms (not table cells) ==")
        print_table(text, ["source", "n_d", "strategy", "paper", "ours", "verdict", "ours striped", "ours uniform"])
        for r in text:
            if r["reason"]:
                print(f"  {r['source']} n_d={r['n_d']} {r['strategy']}: {r['reason']}")
    n_ok = sum(r["verdict"] == "ok" for r in comparison)
    n_run = sum(r["verdict"] != "not computed" for r in comparison)
    print(f"\nPERCS: {n_ok}/{N_PAPER_CELLS} cells within tolerance"
          + ("" if n_run == N_PAPER_CELLS else f" ({n_run} of {N_PAPER_CELLS} computed in this run)"))
    checks = shape_checks(records)
    if checks:
        print("\n== The paper's routing claims (indirect beats direct for halo while D-bound; direct beats "
              "indirect for transpose when the smaller grid dimension is below 128) ==")
        for line in checks:
            print("  " + line)
    wall = time.perf_counter() - t_all
    print(f"\nwall time {wall:.1f} s; load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end "
          f"on {os.cpu_count()} cores")
    write_json(args.json, records, benchmark="percs_study", wall_seconds=wall, paper_comparison=comparison,
               text_comparison=text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
