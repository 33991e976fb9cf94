"""Shared helpers of the benchmark scripts: timing, memory, machine info, JSON output."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
import tracemalloc
from typing import Callable

import numpy as np


def median_time(fn: Callable[[], object], repeat: int = 5) -> tuple[float, object]:
    """Run fn ``repeat`` times; return the median wall time (s) and the last result."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def peak_memory(fn: Callable[[], object]) -> tuple[int, object]:
    """Return the peak traced allocation (bytes; NumPy buffers included) of one call."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, result


def machine_info() -> dict:
    """Describe the machine the benchmark ran on."""
    return {
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
    }


def write_json(path: str | None, records: list, **extra) -> None:
    """Write the records plus machine info to ``path`` (no-op when path is None)."""
    if not path:
        return
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"machine": machine_info(), **extra, "records": records}, fh, indent=1)


def print_table(rows: list[dict], columns: list[str]) -> None:
    """Print rows as an aligned text table."""
    cells = [[_fmt(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for row in cells:
        print("  ".join(v.rjust(w) for v, w in zip(row, widths)))


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e5 else f"{v:,.0f}"
    return str(v)
