"""Helpers of the providers (private): env values, loading C libraries.

Spec options and their values are read by :mod:`mpitaskmap._options`, the parser every spec
of the library shares.
"""

from __future__ import annotations

import ctypes
import os
from typing import Callable, Sequence

from ..errors import ProviderError

__all__ = ["load_library", "read_env", "CLibrary"]


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


class CLibrary:
    """A provider's C library, opened on first use, its functions' signatures declared.

    Parameters
    ----------
    what : str
        Names the library in errors (``"rca"``, ``"cxi (libfabric)"``).
    functions : dict
        Every function the library must export, by name: ``(restype, argtypes)`` to declare,
        or None where ``ready`` declares it.
    candidates : callable
        ``candidates()``: the libraries to try, in order (None = the main program), asked at
        each attempt (an environment variable may have changed).
    ready : callable, optional
        ``ready(lib, label)`` before the library counts as opened: further declarations or
        checks; an error it raises leaves the library unopened, to be tried again.

    Attributes
    ----------
    label : str or None
        Which library was opened (:func:`load_library`'s label), for messages.
    """

    def __init__(self, what: str, functions: dict, candidates: Callable[[], list],
                 ready: Callable | None = None) -> None:
        self.what, self.functions, self._candidates, self._ready = what, functions, candidates, ready
        self._lib = None
        self.label: str | None = None

    def get(self):
        """The library (:class:`ctypes.CDLL`), opened on first use; raises ProviderError as :func:`load_library`."""
        if self._lib is None:
            lib, label = load_library(self._candidates(), tuple(self.functions), self.what)
            for name, signature in self.functions.items():
                if signature is not None:
                    getattr(lib, name).restype, getattr(lib, name).argtypes = signature[0], list(signature[1])
            if self._ready is not None:
                self._ready(lib, label)
            self._lib, self.label = lib, label
        return self._lib
