"""Cases x methods: a study's cases run one after the other, their rows gathered, the JSON rewritten after each."""

from __future__ import annotations

from typing import Callable, Iterable, TypeVar

from .output import write_json

Case = TypeVar("Case")


def run_cases(cases: Iterable[Case], run_case: Callable[[Case], tuple[list[dict], dict | None]],
              json_path: str | None, *, candidates: bool = True) -> tuple[list[dict], list[dict]]:
    """Run every case; return all rows and every case's candidate summary.

    Parameters
    ----------
    cases : iterable
        The study's cases, in the order of its table.
    run_case : callable
        ``run_case(case) -> (rows, summary)``: a row per method of the case (e.g. from
        :func:`benchmarks.harness.smpi.run_methods`) and the case's candidate summary, or None.
    json_path : str or None
        The study's ``--json``: rewritten after every case (an interrupted run keeps what it
        measured), with the rows as ``records`` and, with ``candidates``, the summaries.
    candidates : bool
        Whether the JSON has a ``candidates`` entry.

    Returns
    -------
    tuple of (list of dict, list of dict)
        The rows of every case, then the summaries that are not None.
    """
    rows: list[dict] = []
    summaries: list[dict] = []
    for case in cases:
        case_rows, summary = run_case(case)
        rows += case_rows
        if summary is not None:
            summaries.append(summary)
        if candidates:
            write_json(json_path, rows, candidates=summaries)
        else:
            write_json(json_path, rows)
    return rows, summaries


def group_by(rows: list[dict], keys: tuple[str, ...], order: Callable[[tuple], object] | None = None
             ) -> list[tuple[tuple, dict[str, dict]]]:
    """The rows per case: ``[(case, {method: row})]``, cases sorted (by ``order`` when given).

    Parameters
    ----------
    rows : list of dict
        Rows with a ``method`` and the case's ``keys``.
    keys : tuple of str
        The fields naming a case.
    order : callable, optional
        Sort key of a case tuple (default: the tuple itself).

    Examples
    --------
    >>> group_by([{"n": 2, "method": "a"}, {"n": 1, "method": "b"}], ("n",))
    [((1,), {'b': {'n': 1, 'method': 'b'}}), ((2,), {'a': {'n': 2, 'method': 'a'}})]
    """
    cases = sorted({tuple(r[k] for k in keys) for r in rows}, key=order)
    return [(case, {r["method"]: r for r in rows if tuple(r[k] for k in keys) == case}) for case in cases]
