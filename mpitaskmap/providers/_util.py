"""Helpers of the providers (private): env values, loading C libraries.

Spec options and their values are read by :mod:`mpitaskmap._options`, the parser every spec
of the library shares.
"""

from __future__ import annotations

import ctypes
import os
from typing import Sequence

from ..errors import ProviderError

__all__ = ["load_library", "read_env"]


def read_env(name: str) -> str | None:
    """Return the stripped value of environment variable ``name``, or None if unset or empty."""
    value = os.environ.get(name, "").strip()
    return value or None


def load_library(candidates: Sequence[str], symbols: Sequence[str], what: str):
    """Open the first candidate library that exports every name in ``symbols``.

    A candidate of None means the main program (``ctypes.CDLL(None)``).  Returns
    ``(library, label)``.

    Raises ProviderError listing every candidate tried and why it failed.
    """
    tried = []
    for cand in candidates:
        label = cand if cand is not None else "<main program>"
        try:
            lib = ctypes.CDLL(cand)
        except OSError as exc:
            tried.append(f"{label} ({exc})")
            continue
        missing = [s for s in symbols if not hasattr(lib, s)]
        if missing:
            tried.append(f"{label} (loaded, but lacks {', '.join(missing)})")
            continue
        return lib, label
    if not tried:
        raise ProviderError(f"{what}: no library to try")
    raise ProviderError(f"{what}: no usable library; tried: " + "; ".join(tried))
