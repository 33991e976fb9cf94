"""Problem: the tasks' coordinates, the graph's own or those of the grid its traffic forms."""

from __future__ import annotations

import numpy as np

import mpitaskmap
from mpitaskmap import TaskGraph
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.search.families import geometric as geometric_family
from mpitaskmap.search.problem import Problem


def _bare(graph: TaskGraph) -> TaskGraph:
    """The graph's edges without its coordinates (what a recording or a matrix file gives)."""
    return TaskGraph.from_edges(graph.sources(), graph.indices, graph.weights, n_tasks=graph.n_tasks)


def test_a_graph_without_coordinates_takes_those_of_the_grid_its_traffic_forms():
    stencil = TaskGraph.stencil([4, 3, 2], weight=800.0)
    machine = mpitaskmap.torus_machine([4, 3, 2])
    p = Problem(_bare(stencil), machine)
    assert p.task_coords_source == "grid pattern"
    # rank r at (r % 4, r // 4 % 3, r // 12): the stencil's own numbering, x fastest
    np.testing.assert_array_equal(p.task_graph.coords, stencil.coords)
    assert p.task_graph.coords[13].tolist() == [1, 0, 1]
    np.testing.assert_array_equal(p.task_graph.indices, stencil.indices)
    np.testing.assert_array_equal(p.task_graph.weights, stencil.weights)
    assert p.task_dims == 3
    assert p.describe_task_coords() == ("task coordinates from the regular 3-D grid 4x3x2 the traffic forms "
                                        "(rank r at (r % 4, r // 4 % 3, r // 12))")


def test_the_graphs_own_coordinates_win_and_no_grid_means_none():
    stencil = TaskGraph.stencil([4, 4])
    machine = mpitaskmap.torus_machine([4, 4])
    own = Problem(stencil.with_coords(np.arange(32.0).reshape(16, 2)[::-1].copy()), machine)
    assert own.task_coords_source == "graph" and own.task_graph is own.graph and own.describe_task_coords() == ""
    ring = TaskGraph.from_edges(np.arange(16), (np.arange(16) * 5 + 3) % 16, n_tasks=16)  # r -> 5r + 3: no grid
    none = Problem(ring, machine)
    assert none.task_coords_source is None and none.task_graph.coords is None and none.task_dims == 0
    assert none.describe_task_coords() == ("no task coordinates (the traffic is not a regular grid: geometric "
                                           "candidates left out)")
    assert geometric_family.candidates(none) == []


def test_auto_maps_a_recorded_grid_as_its_declared_graph():
    # a recording has no coordinates: with the grid's, auto's geometric candidates are the declared
    # graph's and it returns the declared graph's mapping; the mapping keeps the graph it was given
    declared = TaskGraph.stencil([8, 4, 4], weight=25920.0)
    machine = machine_from_spec("sim:fattree:nodes=16,ppn=8,leaves=4,taper=4,seed=1", 128).machine
    recorded = _bare(declared)
    by_declared = mpitaskmap.map(declared, machine, "auto")
    by_recorded = mpitaskmap.map(recorded, machine, "auto")
    np.testing.assert_array_equal(by_recorded.task_to_proc, by_declared.task_to_proc)
    assert by_recorded.info["candidate"] == by_declared.info["candidate"]
    assert by_recorded.info["candidate"].startswith("geometric")
    assert by_recorded.graph is recorded and by_recorded.graph.coords is None
    assert by_recorded.info["task_coords"].startswith("task coordinates from the regular 3-D grid 8x4x4")
    assert "task_coords" not in by_declared.info
    # the geometric candidate alone, applied to the recording, is the declared graph's
    cand = by_declared.info["candidate_list"][1]
    assert cand.family == "geometric"
    got = geometric_family.apply(cand, Problem(recorded, machine))
    want = geometric_family.apply(cand, Problem(declared, machine))
    np.testing.assert_array_equal(got.task_to_proc, want.task_to_proc)
    assert got.graph is recorded
