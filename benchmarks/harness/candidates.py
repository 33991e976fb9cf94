"""The generated candidates of ``auto`` under SMPI: each distinct rank order simulated once, the fastest found.

Every mapping ``auto``'s search generated (both stages: ``info["candidate_list"]``) is rebuilt,
the mappings are grouped by rank order (the host of every rank, i.e. the hostfile; two mappings
that differ only by which core of a node runs a rank are one run), and each group chosen
(:func:`chosen_groups`) is simulated once (:func:`simulate_candidates`).  The summary gives the
fastest one and ``auto``'s gap to it, and for every metric how much slower than the fastest the
candidate of least metric runs; :func:`candidate_columns` and :func:`print_candidates` print it.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, Sequence

import numpy as np

from mpitaskmap.errors import NotApplicableError
from mpitaskmap.metrics import evaluate
from mpitaskmap.search.problem import Problem
from mpitaskmap.search.scoring import apply

from .smpi import SELECTORS, CaseRuns, host_order
from .tables import Column, print_columns

#: "within 2%" of issues 18, 19 and 30: auto's gap to the fastest generated candidate.
WITHIN = 0.02


def gap_percent(value: float, best: float) -> float:
    """How much slower ``value`` is than ``best``, in % (0 when equal)."""
    return 100.0 * (value / best - 1.0)


def distinct_orders(node_ids: np.ndarray, mappings) -> list[list[int]]:
    """Group the mappings by rank order: the indices of the mappings with one host order each.

    Parameters
    ----------
    node_ids : ndarray of int
        Node of every processor.
    mappings : sequence of (array of int or None)
        Task -> processor arrays; None (a candidate that did not apply) is left out.

    Returns
    -------
    list of list of int
        One group per distinct :func:`~benchmarks.harness.smpi.host_order`, in order of first
        appearance, each group's indices ascending (so its first index names it).  Two mappings
        that differ only by which core of a node runs a rank are one group: their hostfiles are
        the same.

    Examples
    --------
    >>> distinct_orders(np.array([0, 0, 1, 1]), [[0, 2, 1, 3], None, [1, 3, 0, 2], [2, 0, 3, 1]])
    [[0, 2], [3]]
    """
    groups: dict[bytes, list[int]] = {}
    for i, t2p in enumerate(mappings):
        if t2p is None:
            continue
        groups.setdefault(host_order(node_ids, t2p).tobytes(), []).append(i)
    return list(groups.values())


def fastest_group(groups: list[list[int]], times) -> int | None:
    """Index in ``groups`` of the fastest group (``times[g]``; None = the run failed); ties: the first.

    Examples
    --------
    >>> fastest_group([[0], [1, 2], [3]], [2.0, 1.0, 1.0])
    1
    >>> fastest_group([[0]], [None]) is None
    True
    """
    ok = [(t, g) for g, t in enumerate(times) if t is not None]
    return min(ok)[1] if ok else None


def metric_picks(candidates: list[dict]) -> dict[str, float]:
    """Per metric of :data:`SELECTORS`: how much slower (%) the candidate of least metric runs than the fastest.

    ``candidates``: :func:`simulate_candidates`' per-order records (``index``, ``metrics``,
    ``comm_s``; failed runs, ``comm_s`` None, are left out).  Ties of the metric go to the lowest
    candidate index, as the search breaks them.  0.0 for a metric means "it would have picked the
    fastest".

    Examples
    --------
    >>> c = [{"index": 0, "comm_s": 2.0, "metrics": dict.fromkeys(SELECTORS, 1.0)},
    ...      {"index": 5, "comm_s": 1.0, "metrics": dict(dict.fromkeys(SELECTORS, 1.0), latency=0.5)}]
    >>> metric_picks(c)["latency"], metric_picks(c)["weighted_hops"]
    (0.0, 100.0)
    """
    ok = [c for c in candidates if c["comm_s"] is not None]
    if not ok:
        return {}
    best = min(c["comm_s"] for c in ok)
    return {s: gap_percent(min(ok, key=lambda c: (c["metrics"][s], c["index"]))["comm_s"], best) for s in SELECTORS}


def candidates_verdict(summary: dict | None) -> str:
    """"yes"/"no" (with the gap): is auto within 2% (:data:`WITHIN`) of the fastest generated candidate?

    ``summary``: the case's :func:`simulate_candidates` result, None when the candidates were not
    simulated.

    Examples
    --------
    >>> candidates_verdict({"auto_gap_pct": 2.0}), candidates_verdict({"auto_gap_pct": 2.04})
    ('yes (+2.0%)', 'no (+2.0%)')
    """
    if summary is None:
        return "not simulated (--all-candidates)"
    gap = summary["auto_gap_pct"]
    if gap is None:
        return "n/a (no run)"
    return f"{'yes' if gap <= 100 * WITHIN else 'no'} ({gap:+.1f}%)"


def generated_candidates(graph, machine, candidate_list) -> tuple[list[str], list[np.ndarray | None]]:
    """Labels and mappings of the candidates of a search (``info["candidate_list"]``; None: did not apply)."""
    problem = Problem(graph, machine)
    labels, mappings = [], []
    for cand in candidate_list:
        labels.append(cand.label())
        try:
            mappings.append(np.asarray(apply(cand, problem).task_to_proc))
        except NotApplicableError:
            mappings.append(None)
    return labels, mappings


def chosen_groups(values: list[dict], top: int | None, must: int | None = None) -> list[int]:
    """Which distinct orders to simulate: all (``top`` None), else the ``top`` best by the default
    objective (``predicted_time``; ties: the lower index), each :data:`SELECTORS` metric's pick and
    the group ``must`` (auto's own); ascending.

    Examples
    --------
    >>> v = [dict.fromkeys(SELECTORS, 3.0), dict.fromkeys(SELECTORS, 1.0), dict(dict.fromkeys(SELECTORS, 2.0),
    ...      max_hops=0.5)]
    >>> chosen_groups(v, None), chosen_groups(v, 1), chosen_groups(v, 1, must=0)
    ([0, 1, 2], [1, 2], [0, 1, 2])
    """
    if top is None:
        return list(range(len(values)))
    keep = set(sorted(range(len(values)), key=lambda g: (values[g]["predicted_time"], g))[:top])
    keep |= {min(range(len(values)), key=lambda g: (values[g][s], g)) for s in SELECTORS}
    if must is not None:
        keep.add(must)
    return sorted(keep)


def simulate_candidates(runs: CaseRuns, graph, machine, candidate_list, auto_row: dict,
                        top: int | None = None, auto_t2p=None) -> dict:
    """Simulate the distinct candidates auto generated (all, or :func:`chosen_groups`' when ``top``);
    return the case's candidate summary (JSON-able)."""
    labels, mappings = generated_candidates(graph, machine, candidate_list)
    groups = distinct_orders(runs.node_ids, mappings)
    values = [evaluate(graph, machine, mappings[g[0]], list(SELECTORS)) for g in groups]
    must = None
    if auto_t2p is not None:
        key = host_order(runs.node_ids, auto_t2p).tobytes()
        must = next((i for i, g in enumerate(groups) if host_order(runs.node_ids, mappings[g[0]]).tobytes() == key),
                    None)
    chosen = chosen_groups(values, top, must)
    all_groups, groups = groups, [groups[i] for i in chosen]
    values = [values[i] for i in chosen]
    times, details = [], []
    t0 = time.perf_counter()
    for k, group in enumerate(groups):
        first = group[0]
        run, _ = runs.run(mappings[first], f"cand{first}", quiet=True)
        times.append(run.figure if run.error is None else None)
        details.append({"index": first, "label": labels[first], "same": group[1:], "comm_s": times[-1],
                        "error": run.error, "metrics": values[k]})
        if (k + 1) % 25 == 0 or k + 1 == len(groups):
            best = min((t for t in times if t is not None), default=None)
            print(f"# {runs.case} candidates: {k + 1}/{len(groups)} simulated, fastest so far {best}, "
                  f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    g = fastest_group(groups, times)
    out = {"n": runs.n, "case": runs.case, "generated": sum(m is not None for m in mappings),
           "distinct": len(all_groups), "simulated": len(groups), "failed": sum(t is None for t in times),
           "fastest_s": None,
           "fastest": None, "auto_s": auto_row["comm_s"], "auto_gap_pct": None, "metric_picks": metric_picks(details),
           "candidates": details}
    if g is not None:
        out["fastest_s"], out["fastest"] = times[g], labels[groups[g][0]]
        out["fastest_same"] = len(groups[g]) - 1
        if auto_row["comm_s"] is not None:
            out["auto_gap_pct"] = gap_percent(auto_row["comm_s"], times[g])
    return out


def _fastest_label(c: dict) -> str:
    label = c["fastest"] or "-"
    if c.get("fastest_same"):
        label += f" (and {c['fastest_same']} more with its rank order)"
    if c["failed"]:
        label += f"; {c['failed']} runs failed"
    return label


def candidate_columns(*, generated: bool = False, notes: bool = False) -> list[Column]:
    """The columns of the candidates table after a study's case columns.

    Parameters
    ----------
    generated : bool
        Show how many candidates the search generated (before the distinct rank orders).
    notes : bool
        Name beside the fastest candidate how many more share its rank order and how many runs failed.
    """
    cols = [Column("generated", 9, lambda c: c["generated"])] if generated else []
    return cols + [
        Column("distinct", 8, lambda c: c["distinct"]),
        Column("simulated", 9, lambda c: c.get("simulated", c["distinct"])),
        Column("fastest s", 10, lambda c: "-" if c["fastest_s"] is None else f"{c['fastest_s']:.4e}"),
        Column("auto s", 10, lambda c: "failed" if c["auto_s"] is None else f"{c['auto_s']:.4e}"),
        Column("auto gap", 8, lambda c: "-" if c["auto_gap_pct"] is None else f"{c['auto_gap_pct']:+.1f}%"),
        Column("fastest candidate", 0, _fastest_label if notes else (lambda c: c["fastest"] or "-"), "<", "  "),
    ]


def print_candidates(cands: list[dict], title: str, columns: Sequence[Column],
                     after: Callable[[Sequence[dict]], None] | None = None) -> None:
    """The candidates table: ``title``, then one row per case (nothing when no case simulated them).

    ``after(cands)`` prints further lines below the rows, before the blank line that ends the table.
    """
    if not cands:
        return
    print(title)
    print_columns([cands], columns, after_group=after)
