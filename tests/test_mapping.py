"""Mapping object: validation, inverse, capacity, summary."""

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, Mapping, TaskGraph, identity_mapping, torus_machine


def test_permutation_and_inverse():
    m = Mapping([2, 0, 1], torus_machine([3]), TaskGraph.stencil([3]))
    assert m.is_permutation
    assert m.inverse().tolist() == [1, 2, 0]
    assert m.idle_processors().size == 0


def test_more_tasks_than_processors_balanced_capacity():
    g = TaskGraph.stencil([10])
    default = identity_mapping(g, torus_machine([4]), oversubscribe=True)
    assert default.tasks_per_proc().tolist() == [3, 2, 3, 2]
    ptr, tasks = default.proc_to_tasks()
    assert ptr.tolist() == [0, 3, 5, 8, 10] and tasks[:3].tolist() == [0, 1, 2]
    with pytest.raises(InvalidInputError, match="processor 0 holds 4 tasks, more than the capacity 3"):
        Mapping([0, 0, 0, 0, 1, 1, 2, 2, 3, 3], torus_machine([4]), g, oversubscribe=True)


def test_fewer_tasks_reports_idle_processors():
    m = Mapping([3, 1], torus_machine([5]), TaskGraph.stencil([2]))
    assert m.idle_processors().tolist() == [0, 2, 4]
    assert not m.is_permutation
    with pytest.raises(InvalidInputError, match="not a permutation"):
        m.inverse()


def test_duplicate_processor_in_permutation_case_is_rejected():
    with pytest.raises(InvalidInputError, match="processor 1 holds 2 tasks"):
        Mapping([1, 1, 0], torus_machine([3]))


def test_metric_and_summary():
    g = TaskGraph.stencil([4], periodic=True)
    m = Mapping([0, 2, 1, 3], torus_machine([4]), g, method="scatter")
    assert m.metric("total_hops") == 12
    text = m.summary(["total_hops", "max_messages"])
    assert text.splitlines()[0].startswith("scatter: 4 tasks on 4 processors (0 idle)")
    assert "total_hops" in text and "12" in text


def test_metric_without_graph():
    m = Mapping(np.arange(3), torus_machine([3]))
    with pytest.raises(InvalidInputError, match="no task graph"):
        m.metric("total_hops")
