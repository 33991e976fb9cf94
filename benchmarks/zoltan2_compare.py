"""Head-to-head with the anchor: our MJ mapper vs Zoltan2's MJ task mapper, same inputs.

3-D 7-point stencils of 4,096 to 262,144 tasks, mapped one-to-one onto (a) a full torus of
the same shape and (b) a sparse Titan-like allocation (16 cores per node; other jobs hold
half the machine, or half of what the job leaves free when it needs more than half of the
19,200 nodes: ``busy = min(0.5, 0.5 * (1 - nodes / 19200))``).  Per input: seconds of one candidate (ours: FZ, longest dimension, torus shift;
Zoltan2: one MPI rank = its one longest/longest candidate, time of the mapping call alone,
measured inside its driver), WeightedHops of that candidate, and WeightedHops of our
candidate search: every ordering x variant without rotations, plus FZ with all task x
processor rotation pairs (about 200 candidates; ``remap()`` spreads such a list over the
job's ranks).  Ratios ours / Zoltan2.

Needs the optional peer: ``bash benchmarks/peers/install_peers.sh``.

Run:  python -m benchmarks.zoltan2_compare [--quick] [--repeat N] [--json PATH]
"""

from __future__ import annotations

import argparse
import os

from benchmarks.harness import print_table, write_json
from benchmarks.harness.peers import ANCHOR_COLUMNS, ANCHOR_SHAPES, zoltan2_anchor_rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the two smallest shapes")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    rows = zoltan2_anchor_rows(ANCHOR_SHAPES[:2] if args.quick else ANCHOR_SHAPES, args.repeat)
    if rows:
        print(f"ours vs Zoltan2 MJ task mapper (median of {args.repeat}; cores = {os.cpu_count()}; "
              "one candidate each, single-threaded)")
        print_table(rows, ANCHOR_COLUMNS)
        worse = [r["input"] for r in rows if r["wh_ratio_search"] > 1.0]
        print("WeightedHops of our search <= Zoltan2 on every input" if not worse
              else f"Zoltan2 better on: {worse}")
    write_json(args.json, rows, benchmark="zoltan2_compare")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
