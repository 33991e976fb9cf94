"""The JSON every study writes (its records plus the machine it ran on) and reads back."""

from __future__ import annotations

import json
import os
import platform

import numpy as np


def machine_info() -> dict:
    """Describe the machine the benchmark ran on: cores, Python, NumPy, platform.

    Returns
    -------
    dict
        ``cores``, ``python``, ``numpy`` and ``platform``.
    """
    return {
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
    }


def write_json(path: str | None, records: list, **extra) -> None:
    """Write the records plus machine info to ``path`` (nothing when path is None or empty).

    Parameters
    ----------
    path : str or None
        The study's ``--json`` argument.
    records : list
        The study's records (JSON-able), under ``"records"``.
    **extra
        Further top-level entries (e.g. ``candidates=...``), between ``"machine"`` and ``"records"``.
    """
    if not path:
        return
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"machine": machine_info(), **extra, "records": records}, fh, indent=1)


def read_json(paths: list[str], *keys: str) -> tuple[list, ...]:
    """Merge the ``records`` (and the lists under ``keys``) of earlier :func:`write_json` files.

    Parameters
    ----------
    paths : list of str
        Files written by :func:`write_json`, merged in this order.
    *keys : str
        Further list entries to merge (a file without one adds nothing).

    Returns
    -------
    tuple of list
        The merged records, then one merged list per key.
    """
    merged: tuple[list, ...] = tuple([] for _ in range(1 + len(keys)))
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        merged[0].extend(data["records"])
        for out, key in zip(merged[1:], keys):
            out.extend(data.get(key, []))
    return merged
