"""Helpers of the providers (private): spec options, env values, loading C libraries."""

from __future__ import annotations

import ctypes
import os
from typing import Sequence

from ..errors import InvalidInputError, ProviderError

__all__ = ["parse_options", "parse_lengths", "parse_wrap", "parse_int", "load_library", "read_env"]


def read_env(name: str) -> str | None:
    """Return the stripped value of environment variable ``name``, or None if unset or empty."""
    value = os.environ.get(name, "").strip()
    return value or None


def parse_options(text: str, valid: Sequence[str], spec: str) -> dict[str, str]:
    """Split ``"k=v,k=v"`` into a dict, checking every key against ``valid``."""
    out: dict[str, str] = {}
    if not text:
        return out
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if not sep or not value.strip():
            raise InvalidInputError(f"provider: expected key=value in {spec!r}; got {item!r}")
        if key not in valid:
            raise InvalidInputError(f"provider: unknown key {key!r} in {spec!r}; valid keys: {sorted(valid)}")
        if key in out:
            raise InvalidInputError(f"provider: key {key!r} given twice in {spec!r}")
        out[key] = value.strip()
    return out


def parse_int(value, key: str, spec: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int >= ``minimum``."""
    try:
        out = int(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"provider: {key} must be an integer in {spec!r}; got {value!r}") from None
    if out < minimum:
        raise InvalidInputError(f"provider: {key} must be >= {minimum} in {spec!r}; got {out}")
    return out


def parse_lengths(value, key: str, spec: str, *, n: int | None = None) -> tuple[int, ...]:
    """Return ``"4x4x2"`` (or a sequence of ints) as a tuple of positive ints."""
    parts = value.lower().split("x") if isinstance(value, str) else list(value)
    out = tuple(parse_int(p, key, spec) for p in parts)
    if n is not None and len(out) != n:
        raise InvalidInputError(f"provider: {key} needs {n} lengths like {'x'.join(['4'] * n)} in {spec!r}; got {value!r}")
    return out


def parse_wrap(value, key: str, spec: str, n: int) -> tuple[bool, ...]:
    """Return ``"1"``, ``"0"``, ``"1x1x0"`` (or bools) as ``n`` wrap flags."""
    if isinstance(value, bool):
        return (value,) * n
    if isinstance(value, str):
        parts = value.lower().split("x")
    else:
        parts = [str(int(bool(v))) for v in value]
    flags = []
    for p in parts:
        if p in ("1", "true", "yes"):
            flags.append(True)
        elif p in ("0", "false", "no"):
            flags.append(False)
        else:
            raise InvalidInputError(f"provider: {key} flags are 0 or 1 in {spec!r}; got {value!r}")
    if len(flags) == 1:
        return (flags[0],) * n
    if len(flags) != n:
        raise InvalidInputError(f"provider: {key} needs 1 or {n} flags in {spec!r}; got {value!r}")
    return tuple(flags)


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
