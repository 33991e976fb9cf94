"""The harness of the benchmark studies: cases x methods, SMPI runs, tables with legends, JSON, timing.

A study declares its cases, its methods and its columns, and calls:

* :func:`~benchmarks.harness.cases.run_cases` (cases one after the other, rows gathered, ``--json``
  rewritten after each) and :func:`~benchmarks.harness.cases.group_by` (rows per case);
* for application time under SimGrid: :mod:`benchmarks.harness.smpi` (halo3d built once,
  :func:`~benchmarks.harness.smpi.app_case`, :func:`~benchmarks.harness.smpi.run_methods`: a row per
  method with its metrics and simulated time, each distinct rank order run once) and
  :mod:`benchmarks.harness.candidates` (every distinct candidate of ``auto`` simulated, the fastest);
* :func:`~benchmarks.harness.tables.print_table` (columns by key) or
  :func:`~benchmarks.harness.tables.print_columns` (declared fixed-width
  :class:`~benchmarks.harness.tables.Column` objects), each with an optional legend;
* :func:`~benchmarks.harness.output.write_json` / :func:`~benchmarks.harness.output.read_json`;
* :func:`~benchmarks.harness.timing.median_time`, :func:`~benchmarks.harness.timing.peak_memory`;
* :mod:`benchmarks.harness.peers`: the optional peers (Zoltan2, Scotch) as studies call them.
* :mod:`benchmarks.harness.mpis`: the real MPIs the recorder's studies run under (compilers, launcher line,
  the PMPI library built for each).
"""

from .cases import group_by, run_cases
from .output import machine_info, read_json, write_json
from .tables import Column, print_columns, print_legend, print_table
from .timing import median_time, peak_memory

__all__ = ["Column", "group_by", "machine_info", "median_time", "peak_memory", "print_columns", "print_legend",
           "print_table", "read_json", "run_cases", "write_json"]
