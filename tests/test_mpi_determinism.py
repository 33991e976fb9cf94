"""Under mpiexec: every rank builds identical simulated machines and metrics (determinism rule)."""

import numpy as np
import pytest

from mpitaskmap import TaskGraph, evaluate, titan_machine


@pytest.mark.mpi(min_size=2)
def test_simulated_machine_and_metrics_identical_on_all_ranks(comm):
    if comm.size < 2:
        pytest.skip("one rank: nothing to compare")
    m = titan_machine(comm.size * 8, cores_per_node=2, seed=11)
    g = TaskGraph.stencil([4, 4, comm.size])
    ttp = np.arange(g.n_tasks)
    values = evaluate(g, m, ttp)
    digest = (m.router_coords.tobytes(), m.node_ids.tobytes(), tuple(sorted(values.items())))
    everyone = comm.allgather(digest)
    assert all(d == everyone[0] for d in everyone)


@pytest.mark.mpi(min_size=1)
def test_default_objective_is_predicted_time_and_agrees_with_the_serial_search(comm):
    """The parallel search scores by PredictedTime by default, the same on every rank as serially."""
    from mpitaskmap import best_of, candidate_list
    from mpitaskmap.runtime.mpi_search import search_candidates
    from mpitaskmap.search.scoring import REFINE_TOP

    m = titan_machine(32, cores_per_node=2, seed=5)
    g = TaskGraph.stencil([4, 4, 4])
    cands = candidate_list(g, m, include_identity=True)
    res = search_candidates(comm, g, m, cands, refine=REFINE_TOP)
    serial = best_of(g, m, cands, refine=REFINE_TOP)
    assert serial.mapping.info["metric"] == "predicted_time"
    assert res.scores == serial.scores and (res.score, res.index) == (serial.score, serial.index)
    np.testing.assert_array_equal(res.task_to_proc, serial.mapping.task_to_proc)
    everyone = comm.allgather((res.score, res.index, tuple(res.scores), res.task_to_proc.tobytes()))
    assert all(e == everyone[0] for e in everyone)
    # a hop search is a different search: its scores are weighted hops
    hops = search_candidates(comm, g, m, cands, metric="weighted_hops", refine=0)
    assert hops.scores[0] == float(evaluate(g, m, np.arange(g.n_tasks), ["weighted_hops"])["weighted_hops"])
