"""Timing and memory of one call, the way every study measures them."""

from __future__ import annotations

import statistics
import time
import tracemalloc
from typing import Callable


def median_time(fn: Callable[[], object], repeat: int = 5) -> tuple[float, object]:
    """Run ``fn`` ``repeat`` times; return the median wall time and the last result.

    Parameters
    ----------
    fn : callable
        Called without arguments.
    repeat : int
        Number of calls.

    Returns
    -------
    tuple of (float, object)
        Median wall seconds of the calls, and what the last call returned.
    """
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def peak_memory(fn: Callable[[], object]) -> tuple[int, object]:
    """Return the peak traced allocation (bytes; NumPy buffers included) of one call and its result.

    Parameters
    ----------
    fn : callable
        Called once without arguments, under :mod:`tracemalloc`.

    Returns
    -------
    tuple of (int, object)
        Peak bytes allocated during the call, and what it returned.
    """
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, result
