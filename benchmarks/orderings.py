"""Ordering study: AverageHops of H, Z, FZ, MFZ (and the library's best) on regular grids.

Reproduces the AverageHops study of Deveci et al. (ALGORITHMS.md 2.5): a ``td``-dimensional
grid of tasks with nearest-neighbour communication (``2 * td + 1``-point stencil, the same
length in every dimension) is mapped one-to-one onto a fully allocated ``pd``-dimensional
block of processors (the same length in every dimension) by the geometric mapper with one
part ordering per column:

  H = Hilbert, Z, FZ = flipped Z, MFZ = modified FZ (only where pd is a multiple of td or
  td of pd), each with ``shift=False`` and the longest-dimension rule on both sides;

for three cases: ``mesh_mesh`` (non-periodic tasks, mesh machine), ``mesh_torus``
(non-periodic tasks, torus machine) and ``torus_torus`` (periodic tasks, torus machine).
Settings (tasks: pd -> td values), from ALGORITHMS.md 2.5::

    262,144: pd=1 -> 2,3,4,5,6,8      1,048,576: pd=2 -> 1,3,4,5,6,8
    262,144: pd=3 -> 1,2,4,5,6,9        262,144: pd=4 -> 1,2,3,5,6,8
     32,768: pd=5 -> 1,2,3,4,10          65,536: pd=6 -> 1,2,3,4,9
     65,536: pd=8 -> 1,2,4              262,144: pd=9 -> 1,2,3,6
  1,048,576: pd=10 -> 1,2,4,5

A setting runs by default only when both grids have integer lengths (23 of the 45; e.g.
262,144 tasks: pd=3 is 64^3, td=2 is 512^2, td=9 is 4^9; pd=4 and pd=6 never do);
the others are listed as skipped.  ``--near-integer`` includes them with the closest
integer lengths whose product is the task count (prime factors, largest first, each
multiplied onto the currently shortest length; e.g. 262,144 in 4-D is 32x32x16x16).

BEST column
-----------
The best the library's full candidate search can do for the row:
``candidate_list(graph, machine)`` (all five orderings FZ, MFZ, Z, Gray, Hilbert; all rotation
pairs; the "auto" processor-coordinate variants) scored by AverageHops.  That list is far
too long to evaluate at these sizes (925 candidates for 5-D tasks on a 10-D torus, ~4 s
each at 1M tasks), so BEST evaluates it *up to symmetry* (on the default settings this loses nothing):

* Candidates are grouped into classes with equal AverageHops.  A rotation makes MJ cut
  the dimensions in the cyclic order of the permutation.  When one side (tasks or
  processors) is a full grid with one power-of-two length L in every dimension (same
  periodicity), cycling through its d dimensions cuts each exactly log2(L) times, every
  cut an exact halving, so the part numbering under rotation ``pi o sigma`` is the
  numbering under ``sigma`` moved by the dimension permutation ``pi`` -- an automorphism of
  the stencil (tasks) or of the torus/mesh (processors), which leaves every edge's hop
  count, hence AverageHops, unchanged.  So on such a side all rotations are one class
  ("rotated"), distinct from the longest-dimension rule ("*").  On any other side (the
  near-integer grids, e.g. 32x32x16x16) cuts eventually fall on exhausted dimensions and
  are decided by index tie-breaks, which are not symmetric, so every rotation is its own
  class.  The class key is (processor variant, ordering, task side, processor side).
  Variants with identical processor coordinates are already merged by
  ``candidate_list`` (on a full block allocation the torus shift is a no-op).  Checked
  exhaustively at small sizes (every member of the full list of each class scored: all
  equal for every default pd:td shape at 512-4,096 tasks and for several near-integer
  shapes) and spot-checked at full size (below).
* On the default (integer-length) settings both sides are such grids, so each ordering
  has at most 4 classes (longest/longest, task rotation, processor rotation, both) and
  Hilbert has 1: at most 17 classes, all of which are evaluated.  The 4 longest/longest
  classes of H, Z, FZ, MFZ are the table's columns; their scores are reused (after
  checking that the processor coordinates with and without the shift are identical), so
  at most 13 new maps per row and case.
* One extra, non-representative member of the largest FZ class is evaluated as a
  symmetry spot check per row and case (reported; it competes for BEST too).
* Budget: at most ``--best-max`` classes (default 24) per row and case, taken round-robin
  over the orderings in ``candidate_list`` order.  On the default settings this cap is never
  reached (the search is complete); with ``--near-integer`` unequal lengths create more
  classes and the cap can truncate the search (the table's "searched" column says
  evaluated/classes, and the JSON keeps both counts).

Parallelism: the work units (one per setting and task periodicity; the two non-periodic
cases share one task graph) run on ``--jobs`` worker processes (default 2, largest units
first); every map and metric inside a unit is single-threaded.

Output
------
One table per case (AverageHops; "best" = the best of the four paper columns, "BEST cand" =
the winning candidate's label), then geometric means per column of the value divided by the
row's best of H/Z/FZ/MFZ (MFZ over the rows where it applies), BEST's ratio, win counts,
and a comparison with the paper's figures.  ``--json PATH`` writes ``{"machine": ...,
..., "records": [...]}`` where every record is ``{"tasks", "pd", "td", "case", "ordering",
"average_hops", "seconds"}`` plus extra keys.  ``ordering`` is "H", "Z", "FZ", "MFZ" or
"BEST" (an extension of the issue's enum); ``seconds`` is the mapping time (median of
``--repeat``) for a column, and for BEST the time of the whole search (reused column
evaluations included).  BEST records also carry ``candidate`` (label of the winner),
``evaluated``, ``classes``, ``candidates_total``, ``complete`` and ``symmetry_check``.

``--quick`` shrinks every setting to the smallest power-of-two task count 2^k with k >= 9
and k a multiple of both pd and td (so the lengths stay integers), skipping settings that
would need more than 65,536 tasks (near-integer ones use 4,096 tasks).

Run:  python -m benchmarks.orderings [--quick] [--rows 3:2,9:6] [--cases mesh_mesh,...]
      [--orderings H,Z,FZ,MFZ,BEST] [--near-integer] [--jobs 2] [--json PATH]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import time
from collections import OrderedDict

import numpy as np

from benchmarks.harness import machine_info, median_time, print_table, write_json

from mpitaskmap import TaskGraph, torus_machine
from mpitaskmap import Problem, best_of, candidate_list
from mpitaskmap.search.scoring import apply
from mpitaskmap.mappers.geometric.mj import ORDERINGS
from mpitaskmap.mappers.geometric.mapper import map_geometric, processor_coords
from mpitaskmap.metrics import evaluate

# pd -> (tasks, td values), ALGORITHMS.md 2.5
SETTINGS: dict[int, tuple[int, tuple[int, ...]]] = {
    1: (262_144, (2, 3, 4, 5, 6, 8)),
    2: (1_048_576, (1, 3, 4, 5, 6, 8)),
    3: (262_144, (1, 2, 4, 5, 6, 9)),
    4: (262_144, (1, 2, 3, 5, 6, 8)),
    5: (32_768, (1, 2, 3, 4, 10)),
    6: (65_536, (1, 2, 3, 4, 9)),
    8: (65_536, (1, 2, 4)),
    9: (262_144, (1, 2, 3, 6)),
    10: (1_048_576, (1, 2, 4, 5)),
}
# case -> (periodic tasks, wrapped machine)
CASES: dict[str, tuple[bool, bool]] = {
    "mesh_mesh": (False, False),
    "mesh_torus": (False, True),
    "torus_torus": (True, True),
}
CASE_TITLES = {"mesh_mesh": "Mesh to Mesh", "mesh_torus": "Mesh to Torus", "torus_torus": "Torus to Torus"}
COLUMNS: dict[str, str] = {"H": "hilbert", "Z": "z", "FZ": "fz", "MFZ": "mfz"}
ALL_COLUMNS = ["H", "Z", "FZ", "MFZ", "BEST"]
SEARCH_ORDERINGS = ORDERINGS  # candidate_list's default order
PAPER_GEOMEAN = {"H": (1.27, 1.37), "Z": (1.38, 1.64), "FZ": (1.04, 1.07), "MFZ": (1.00, 1.00)}
QUICK_MAX_TASKS = 65_536
QUICK_NEAR_TASKS = 4_096
REL_TOL = 1e-9


# --------------------------------------------------------------------------- settings
def exact_root(n: int, d: int) -> int | None:
    """Return the integer ``r`` with ``r ** d == n``, or None."""
    r = round(n ** (1.0 / d))
    for c in (r - 1, r, r + 1):
        if c >= 1 and c**d == n:
            return c
    return None


def balanced_lengths(n: int, d: int) -> tuple[int, ...]:
    """Return ``d`` integer lengths with product ``n``, as equal as the factors allow.

    Prime factors, largest first, each multiplied onto the currently shortest length;
    the result is sorted longest first (so x is the longest dimension).

    >>> balanced_lengths(262_144, 4), balanced_lengths(262_144, 3)
    ((32, 32, 16, 16), (64, 64, 64))
    """
    factors, m, p = [], n, 2
    while p * p <= m:
        while m % p == 0:
            factors.append(p)
            m //= p
        p += 1
    if m > 1:
        factors.append(m)
    lengths = [1] * d
    for f in sorted(factors, reverse=True):
        i = min(range(d), key=lambda k: (lengths[k], k))
        lengths[i] *= f
    return tuple(sorted(lengths, reverse=True))


def grid_label(shape) -> str:
    shape = tuple(shape)
    if len(set(shape)) == 1:
        return f"{shape[0]}^{len(shape)}" if len(shape) > 1 else str(shape[0])
    return "x".join(map(str, shape))


def mfz_applies(pd: int, td: int) -> bool:
    return pd % td == 0 or td % pd == 0


def quick_tasks(pd: int, td: int) -> int | None:
    """Smallest 2^k, k >= 9 a multiple of lcm(pd, td), if it is at most QUICK_MAX_TASKS."""
    step = pd * td // math.gcd(pd, td)
    k = step * max(1, -(-9 // step))
    return 2**k if 2**k <= QUICK_MAX_TASKS else None


def build_rows(quick: bool, near_integer: bool, only: set | None) -> tuple[list[dict], list[dict]]:
    """Return (rows to run, skipped settings with reasons)."""
    rows, skipped = [], []
    for pd, (tasks, tds) in SETTINGS.items():
        for td in tds:
            if only is not None and (pd, td) not in only:
                continue
            exact = exact_root(tasks, pd) is not None and exact_root(tasks, td) is not None
            n = tasks
            if not exact and not near_integer:
                skipped.append({"tasks": tasks, "pd": pd, "td": td,
                                "reason": "non-integer lengths (%.3g^%d procs, %.3g^%d tasks)"
                                % (tasks ** (1 / pd), pd, tasks ** (1 / td), td)})
                continue
            if quick:
                if exact:
                    n = quick_tasks(pd, td)
                    if n is None:
                        skipped.append({"tasks": tasks, "pd": pd, "td": td,
                                        "reason": f"--quick: integer lengths need > {QUICK_MAX_TASKS:,} tasks"})
                        continue
                else:
                    n = QUICK_NEAR_TASKS
            if exact and exact_root(n, pd) and exact_root(n, td):
                pshape, tshape = (exact_root(n, pd),) * pd, (exact_root(n, td),) * td
            else:
                pshape, tshape = balanced_lengths(n, pd), balanced_lengths(n, td)
            rows.append({"tasks": n, "paper_tasks": tasks, "pd": pd, "td": td, "exact": exact,
                         "task_shape": tshape, "proc_shape": pshape})
    return rows, skipped


# --------------------------------------------------------------------------- BEST search
def _symmetric(dims) -> bool:
    """True for a full grid whose dimensions all have one power-of-two length and periodicity."""
    return dims is not None and len(set(dims)) == 1 and (dims[0][0] & (dims[0][0] - 1)) == 0


def _side_key(perm, dims):
    if perm is None:
        return "*"
    if _symmetric(dims):  # every rotation is an automorphism image of every other
        return "rotated"
    return tuple(perm)


def _class_key(cand, variant_key, task_dims, proc_dims):
    """Key under which candidates have the same AverageHops (see module docstring)."""
    o = dict(cand.options)
    return (variant_key, o["ordering"], _side_key(o["task_perm"], task_dims), _side_key(o["proc_perm"], proc_dims))


def _variant_info(machine, cand, wrap):
    """(hashable key of the processor coordinates, per-dim (length, wrap) or None)."""
    opts = {k: cand.option(k) for k in ("shift", "bandwidth", "box", "drop")}
    c = processor_coords(machine, **opts)
    key = tuple(opts.values())
    ext = (np.ptp(c, axis=0) + 1).astype(np.int64)
    is_grid = (
        np.allclose(c, np.round(c))
        and int(np.prod(ext)) == c.shape[0]
        and np.unique(np.round(c).astype(np.int64), axis=0).shape[0] == c.shape[0]
    )
    return key, (tuple((int(e), bool(wrap)) for e in ext) if is_grid else None), c


def best_search(graph, machine, task_shape, periodic, wrap, column_scores, best_max):
    """Evaluate the symmetry classes of the full candidate list; return the BEST record part.

    ``column_scores`` maps an ordering name to (average_hops, seconds) of the
    longest/longest, shift=False mapping already computed for the table.
    """
    t_start = time.perf_counter()
    cands = candidate_list(graph, machine, orderings=SEARCH_ORDERINGS, rotate=True, variants="auto")
    task_dims = tuple((int(n), bool(periodic)) for n in task_shape)
    noshift = processor_coords(machine, shift=False)
    vcache, classes = {}, OrderedDict()
    for i, cand in enumerate(cands):
        vk = tuple(cand.option(k) for k in ("shift", "bandwidth", "box", "drop"))
        if vk not in vcache:
            vcache[vk] = _variant_info(machine, cand, wrap)
        key = _class_key(cand, vk, task_dims, vcache[vk][1])
        classes.setdefault(key, []).append(i)
    # round-robin over orderings, each in candidate_list order
    rank, seen = {}, {}
    for key, members in classes.items():
        o = cands[members[0]].option("ordering")
        rank[key] = seen.get(o, 0)
        seen[o] = rank[key] + 1
    opos = {o: k for k, o in enumerate(SEARCH_ORDERINGS)}
    order = sorted(classes, key=lambda k: (rank[k], opos[cands[classes[k][0]].option("ordering")], classes[k][0]))
    chosen = order[:best_max]
    scores, reused, to_eval = {}, 0, []
    reused_seconds = 0.0
    for key in chosen:
        i = classes[key][0]
        o = dict(cands[i].options)
        plain = o["task_perm"] is None and o["proc_perm"] is None and not o["bandwidth"] and o["box"] is None \
            and not o["drop"]
        if plain and o["ordering"] in column_scores and np.array_equal(vcache[key[0]][2], noshift):
            scores[i] = column_scores[o["ordering"]][0]
            reused_seconds += column_scores[o["ordering"]][1]
            reused += 1
        else:
            to_eval.append(i)
    if to_eval:
        res = best_of(graph, machine, [cands[i] for i in to_eval], metric="average_hops")
        scores.update(zip(to_eval, res.scores))
    # symmetry spot check: a non-representative member of the largest FZ class
    check = None
    fz_multi = [k for k in chosen if k[1] == "fz" and len(classes[k]) > 1]
    if fz_multi:
        key = max(fz_multi, key=lambda k: (len(classes[k]), -classes[k][0]))
        j = classes[key][-1]
        ttp = apply(cands[j], Problem(graph, machine)).task_to_proc
        s = float(evaluate(graph, machine, ttp, ["average_hops"])["average_hops"])
        rep = scores[classes[key][0]]
        check = {"candidate": cands[j].label(), "score": s,
                 "representative": cands[classes[key][0]].label(), "representative_score": rep,
                 "class_size": len(classes[key]),
                 "equal": abs(s - rep) <= REL_TOL * max(abs(rep), 1.0)}
        scores[j] = s
    win = min(scores, key=lambda i: (scores[i], i))
    return {
        "average_hops": float(scores[win]),
        "seconds": reused_seconds + time.perf_counter() - t_start,
        "candidate": cands[win].label(),
        "evaluated": len(chosen) + (check is not None),
        "reused_columns": reused,
        "classes": len(classes),
        "classes_evaluated": len(chosen),
        "candidates_total": len(cands),
        "complete": len(chosen) == len(classes),
        "symmetry_check": check,
    }


# --------------------------------------------------------------------------- work units
def run_unit(unit: dict) -> dict:
    """Run every selected case of one setting that shares the task graph's periodicity."""
    t0, c0 = time.perf_counter(), time.process_time()
    row, periodic = unit["row"], unit["periodic"]
    graph = TaskGraph.stencil(row["task_shape"], periodic=periodic)
    records = []
    base = {"tasks": row["tasks"], "pd": row["pd"], "td": row["td"]}
    extra = {"task_grid": list(row["task_shape"]), "proc_grid": list(row["proc_shape"]),
             "integer_lengths": row["exact"]}
    for case in unit["cases"]:
        wrap = CASES[case][1]
        machine = torus_machine(row["proc_shape"], wrap=wrap)
        column_scores = {}
        for col in unit["columns"]:
            if col == "BEST" or (col == "MFZ" and not mfz_applies(row["pd"], row["td"])):
                continue
            ordering = COLUMNS[col]
            sec, mapping = median_time(
                lambda: map_geometric(graph, machine, ordering=ordering, shift=False), unit["repeat"])
            tm = time.perf_counter()
            ah = float(mapping.metric("average_hops"))
            column_scores[ordering] = (ah, sec + time.perf_counter() - tm)
            records.append({**base, "case": case, "ordering": col, "average_hops": ah, "seconds": sec, **extra})
        if "BEST" in unit["columns"]:
            best = best_search(graph, machine, row["task_shape"], periodic, wrap, column_scores, unit["best_max"])
            records.append({**base, "case": case, "ordering": "BEST", **best, **extra})
    return {"records": records, "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0,
            "label": f"pd={row['pd']} td={row['td']} tasks={row['tasks']:,} periodic={periodic}"}


def _unit_cost(unit: dict) -> float:
    row = unit["row"]
    return row["tasks"] * (row["pd"] + row["td"] + 4) * len(unit["cases"])


# --------------------------------------------------------------------------- reporting
def _close(a: float, b: float) -> bool:
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b), 1.0)


def _geomean(xs):
    return float(np.exp(np.mean(np.log(xs)))) if xs else float("nan")


def summarize(records: list[dict], rows: list[dict], cases: list[str], columns: list[str]) -> dict:
    """Per case: table rows, geomeans normalised to the row's best paper column, win counts."""
    by = {(r["pd"], r["td"], r["case"], r["ordering"]): r for r in records}
    paper_cols = [c for c in columns if c != "BEST"]
    out = {}
    for case in cases:
        table, ratios, wins, best_rows = [], {c: [] for c in columns}, {c: 0 for c in paper_cols}, []
        n_rows = 0
        for row in rows:
            vals = {c: by[(row["pd"], row["td"], case, c)]["average_hops"]
                    for c in columns if (row["pd"], row["td"], case, c) in by}
            if not vals:
                continue
            n_rows += 1
            line = {"tasks": row["tasks"], "pd": row["pd"], "td": row["td"],
                    "task grid": grid_label(row["task_shape"]), "proc grid": grid_label(row["proc_shape"])}
            line.update({c: vals.get(c, "-") for c in columns})
            paper_vals = {c: v for c, v in vals.items() if c != "BEST"}
            if paper_vals:
                ref = min(paper_vals.values())
                winners = [c for c, v in paper_vals.items() if _close(v, ref)]
                for c in winners:
                    wins[c] += 1
                line["best"] = "=".join(winners)
                for c, v in vals.items():
                    ratios[c].append(v / ref)
                beats = "BEST" in vals and vals["BEST"] < ref and not _close(vals["BEST"], ref)
                best_rows.append({"pd": row["pd"], "td": row["td"], "winners": winners, "best_beats_columns": beats})
            if "BEST" in vals:
                b = by[(row["pd"], row["td"], case, "BEST")]
                line["BEST cand"] = b["candidate"].replace("geometric ", "").replace(" shift", "")
                line["searched"] = f"{b['classes_evaluated']}/{b['classes']}"
            table.append(line)
        out[case] = {"table": table, "geomean": {c: _geomean(ratios[c]) for c in columns},
                     "geomean_rows": {c: len(ratios[c]) for c in columns}, "wins": wins,
                     "rows": n_rows, "row_winners": best_rows}
    return out


def paper_comparison(summary: dict, columns: list[str]) -> list[str]:
    lines = []
    paper_cols = [c for c in columns if c != "BEST"]
    for case, s in summary.items():
        g = s["geomean"]
        parts = []
        for c in paper_cols:
            lo, hi = PAPER_GEOMEAN[c]
            paper = f"{lo:.2f}" if lo == hi else f"{lo:.2f}-{hi:.2f}"
            parts.append(f"{c} {g[c]:.3f} (paper {paper})")
        lines.append(f"  {CASE_TITLES[case]:<15} " + ", ".join(parts))
    lines.append("")
    if "Z" in paper_cols:
        z_rows = {(w["pd"], w["td"]) for s in summary.values() for w in s["row_winners"] if "Z" in w["winners"]}
        z_bad = sorted(r for r in z_rows if r[1] % r[0])
        lines.append(f"  Z (co-)best in {len(z_rows)} pd:td settings"
                     + (f"; td a multiple of pd in all of them" if not z_bad and z_rows else "")
                     + (f"; NOT a multiple in {', '.join(f'{p}:{t}' for p, t in z_bad)}" if z_bad else ""))
    if "H" in paper_cols:
        one = [(s_case, w) for s_case, s in summary.items() for w in s["row_winners"] if w["pd"] == 1 or w["td"] == 1]
        h_one = [x for x in one if "H" in x[1]["winners"]]
        other = [(c, w) for c, s in summary.items() for w in s["row_winners"]
                 if w["pd"] != 1 and w["td"] != 1 and "H" in w["winners"]]
        lines.append(f"  H (co-)best in {len(h_one)} of {len(one)} row-cases with td=1 or pd=1"
                     + (" (misses: " + ", ".join(f"{CASE_TITLES[c]} {w['pd']}:{w['td']} -> {'='.join(w['winners'])}"
                                                  for c, w in one if "H" not in w["winners"]) + ")"
                        if len(h_one) < len(one) else "")
                     + f"; H best elsewhere in {len(other)} row-cases")
    if "FZ" in paper_cols and "MFZ" in paper_cols:
        fm = [(c, w) for c, s in summary.items() for w in s["row_winners"]
              if "FZ" in w["winners"] or "MFZ" in w["winners"]]
        total = sum(len(s["row_winners"]) for s in summary.values())
        lines.append(f"  FZ or MFZ (co-)best in {len(fm)} of {total} row-cases")
    if "BEST" in columns:
        beat = sum(w["best_beats_columns"] for s in summary.values() for w in s["row_winners"])
        total = sum(len(s["row_winners"]) for s in summary.values())
        lines.append(f"  BEST strictly below the best column in {beat} of {total} row-cases")
    return lines


def _parse_list(text: str | None, valid, name: str, ap) -> list:
    if text is None:
        return list(valid)
    items = [t.strip() for t in text.split(",") if t.strip()]
    bad = [t for t in items if t not in valid]
    if bad or not items:
        ap.error(f"{name}: unknown {bad or text!r}; valid: {', '.join(valid)}")
    return [v for v in valid if v in items]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="shrunken settings (<= 65,536 tasks), under a minute")
    ap.add_argument("--rows", metavar="PD:TD,...", help="only these pd:td settings, e.g. 3:2,9:6")
    ap.add_argument("--cases", metavar="LIST", help="subset of " + ",".join(CASES))
    ap.add_argument("--orderings", metavar="LIST", help="subset of " + ",".join(ALL_COLUMNS))
    ap.add_argument("--near-integer", action="store_true",
                    help="also run settings with non-integer lengths (closest integer lengths)")
    ap.add_argument("--best-max", type=int, default=24, metavar="N",
                    help="max symmetry classes BEST evaluates per row and case (default 24)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2; 1 = in-process)")
    ap.add_argument("--repeat", type=int, default=1, help="median of this many mapping timings (default 1)")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    only = None
    if args.rows:
        only = set()
        for item in args.rows.split(","):
            try:
                pd, td = (int(v) for v in item.split(":"))
            except ValueError:
                ap.error(f"--rows: expected PD:TD pairs like 3:2; got {item!r}")
            if pd not in SETTINGS or td not in SETTINGS[pd][1]:
                ap.error(f"--rows: {pd}:{td} is not a setting of ALGORITHMS.md 2.5")
            only.add((pd, td))
    cases = _parse_list(args.cases, list(CASES), "--cases", ap)
    columns = _parse_list(args.orderings, ALL_COLUMNS, "--orderings", ap)
    if args.best_max < 1 or args.jobs < 1 or args.repeat < 1:
        ap.error("--best-max, --jobs and --repeat must be positive")

    t_wall = time.perf_counter()
    rows, skipped = build_rows(args.quick, args.near_integer, only)
    units = []
    for row in rows:
        for periodic in (False, True):
            cs = [c for c in cases if CASES[c][0] == periodic]
            if cs:
                units.append({"row": row, "periodic": periodic, "cases": cs, "columns": columns,
                              "best_max": args.best_max, "repeat": args.repeat})
    units.sort(key=_unit_cost, reverse=True)
    records, unit_cpu = [], []

    def _done(res):
        records.extend(res["records"])
        unit_cpu.append(res["cpu_seconds"])
        print(f"  [{time.perf_counter() - t_wall:7.1f} s] {res['label']}: {res['seconds']:.1f} s "
              f"(cpu {res['cpu_seconds']:.1f} s)", file=sys.stderr, flush=True)

    if args.jobs == 1 or len(units) <= 1:
        for u in units:
            _done(run_unit(u))
    else:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(min(args.jobs, len(units))) as pool:
            for res in pool.imap_unordered(run_unit, units, chunksize=1):
                _done(res)
    order_c = {c: k for k, c in enumerate(cases)}
    order_o = {c: k for k, c in enumerate(ALL_COLUMNS)}
    records.sort(key=lambda r: (r["pd"], r["td"], order_c[r["case"]], order_o[r["ordering"]]))
    wall = time.perf_counter() - t_wall

    info = machine_info()
    summary = summarize(records, rows, cases, columns)
    mode = "quick (shrunken settings)" if args.quick else "full"
    print(f"Ordering study (ALGORITHMS.md 2.5), {mode}: AverageHops of td-D stencil task grids mapped "
          f"one-to-one onto pd-D block allocations")
    print(f"  columns: H=Hilbert, Z, FZ, MFZ (only where pd|td or td|pd), map_geometric(shift=False, longest-dim "
          f"cuts); best = best of those; machine cores = {info['cores']}, jobs = {args.jobs}")
    if "BEST" in columns:
        print(f"  BEST = best of candidate_list(graph, machine) [orderings fz,mfz,z,gray,hilbert x all rotation pairs x "
              f"'auto' variants] by AverageHops, evaluated up to symmetry: one representative per class of "
              f"equal score (on a side that is a power-of-two cube all rotations are automorphic images; "
              f"elsewhere each rotation is its own class), at most "
              f"{args.best_max} classes per row/case round-robin over orderings, + 1 symmetry spot check; "
              f"'searched' = classes evaluated/classes")
    for case in cases:
        s = summary[case]
        if not s["table"]:
            continue
        print(f"\n{CASE_TITLES[case]} ({case}): AverageHops")
        cols = ["tasks", "pd", "td", "task grid", "proc grid"] + columns + ["best"]
        if "BEST" in columns:
            cols += ["BEST cand", "searched"]
        print_table(s["table"], cols)
    print("\nGeometric mean of AverageHops / (row's best of " + "/".join(c for c in columns if c != "BEST")
          + "); MFZ over the rows where it applies")
    gtab = []
    for case in cases:
        s = summary[case]
        if not s["rows"]:
            continue
        line = {"case": CASE_TITLES[case], "rows": s["rows"]}
        line.update({c: s["geomean"][c] for c in columns})
        if "MFZ" in columns:
            line["MFZ rows"] = s["geomean_rows"]["MFZ"]
        line.update({f"{c} wins": s["wins"][c] for c in columns if c != "BEST"})
        gtab.append(line)
    gcols = ["case", "rows"] + columns + (["MFZ rows"] if "MFZ" in columns else []) + \
        [f"{c} wins" for c in columns if c != "BEST"]
    if gtab:
        print_table(gtab, gcols)
    if all(c in columns for c in COLUMNS) and gtab:
        print("\nComparison with the paper (geomean normalised to the best; H 1.27-1.37, Z 1.38-1.64, "
              "FZ 1.04-1.07, MFZ 1.00; Z best only when td is a multiple of pd; H best when td or pd is 1):")
        for line in paper_comparison({c: summary[c] for c in cases if summary[c]["rows"]}, columns):
            print(line)
    checks = [r["symmetry_check"] for r in records if r["ordering"] == "BEST" and r.get("symmetry_check")]
    if checks:
        bad = [c for c in checks if not c["equal"]]
        print(f"\nSymmetry spot checks: {len(checks)} (non-representative FZ rotation vs its class representative), "
              f"{len(bad)} mismatches" + ("".join(f"\n  {c['candidate']}: {c['score']:.6g} vs "
                                                   f"{c['representative_score']:.6g}" for c in bad)))
    incomplete = [r for r in records if r["ordering"] == "BEST" and not r["complete"]]
    if "BEST" in columns:
        print(f"BEST searches truncated by --best-max: {len(incomplete)}")
    if skipped:
        print(f"\nSkipped settings ({len(skipped)}):")
        for s in skipped:
            print(f"  tasks={s['tasks']:,} pd={s['pd']} td={s['td']}: {s['reason']}")
    n_proc = min(args.jobs, max(1, len(units)))
    cpu = sum(unit_cpu)
    print(f"\nwall time: {wall:.1f} s ({len(units)} work units on {n_proc} processes); CPU time of the units: "
          f"{cpu:.1f} s (largest unit {max(unit_cpu, default=0.0):.1f} s), i.e. about "
          f"{max(cpu / n_proc, max(unit_cpu, default=0.0)):.0f} s of wall time on {n_proc} otherwise idle cores")
    write_json(args.json, records, benchmark="orderings", mode=mode, wall_seconds=wall, cpu_seconds=cpu,
               jobs=args.jobs, best_max=args.best_max, near_integer=args.near_integer, cases=cases, orderings=columns,
               skipped=skipped,
               geomean={c: {"geomean": summary[c]["geomean"], "rows": summary[c]["geomean_rows"],
                            "wins": summary[c]["wins"]} for c in cases})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
