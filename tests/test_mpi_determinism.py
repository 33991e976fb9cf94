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
