"""The grid family of the search: map_regular, the grid candidates in the one candidate list, the stencil2d example."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mpitaskmap
from mpitaskmap import Candidate, InvalidInputError, NotApplicableError, Problem, TaskGraph, best_of, candidate_list
from mpitaskmap import torus_machine
from mpitaskmap.search.families import grid as grid_family
from mpitaskmap.search.families.identity import CANDIDATE as IDENTITY_CANDIDATE
from mpitaskmap.mappers.grid.heuristics import GRID_METHODS, map_grid
from mpitaskmap.metrics import weighted_hops
from mpitaskmap.search.methods import map_regular
from mpitaskmap.search.scoring import apply


def grid_candidates(graph, machine):
    return grid_family.candidates(Problem(graph, machine))

ROOT = Path(__file__).resolve().parents[3]

# best hop-bytes of the suite, from tests/mappers/grid/test_heuristics.py's hand-checked tables
# (PAIRS does not improve them within its default budget), and the default placement
BEST = {((6, 5), (10, 3)): (160, 350), ((9, 8), (6, 12)): (352, 772)}


@pytest.mark.parametrize("case", sorted(BEST))
def test_map_regular_picks_the_lowest_row(case):
    shape, pdims = case
    g, m = TaskGraph.stencil(shape), torus_machine(pdims, wrap=False)
    res = map_regular(g, m)
    rows = [r for r in res.table if r["applicable"]]
    assert res.table[0]["name"] == "identity" and res.table[0]["hop_bytes"] == BEST[case][1]
    assert res.mapping.metric("weighted_hops") == min(r["hop_bytes"] for r in rows) == BEST[case][0]
    assert res.pattern.dims == shape
    assert {r["name"] for r in res.table} >= {"mxovlp", "mxov+al", "exco", "coce", "affn", "step", "sfc", "pairs"}
    assert all(r["hops_per_byte"] >= 1.0 for r in rows)
    assert "*" in res.summary()


def test_map_regular_from_a_matrix_with_collectives_and_3d_machine():
    g = TaskGraph.stencil((32, 8), weight=1000.0)
    a = np.zeros((256, 256))
    a[g.sources(), g.indices] = g.weights
    a[1:, 0] += 8.0  # residual gather on rank 0: light, ignored by the analyser
    m = torus_machine((4, 4, 4), wrap=False, cores_per_node=4)
    res = map_regular(a, m)
    assert res.pattern.dims == (32, 8)
    names = {r["name"] for r in res.table if r["applicable"]}
    assert {"stack", "fold", "sfc", "block"} <= names and "affn" not in names
    # hop-bytes include the gather traffic; the halo part reaches its bound (432 x 1000)
    halo = weighted_hops(g, m, res.mapping.task_to_proc)
    assert halo == 432_000.0
    assert res.best.startswith("block block=2x2")


def test_map_regular_is_deterministic_and_never_worse_than_default():
    g, m = TaskGraph.stencil((12, 10), periodic=True), torus_machine((6, 4, 5))
    a, b = map_regular(g, m), map_regular(g, m)
    assert np.array_equal(a.mapping.task_to_proc, b.mapping.task_to_proc)
    assert a.mapping.metric("weighted_hops") <= a.table[0]["hop_bytes"]


def test_map_regular_errors():
    with pytest.raises(InvalidInputError, match="not a regular grid"):
        map_regular(np.ones((30, 30)) - np.eye(30), torus_machine((10, 3)))
    with pytest.raises(InvalidInputError, match="one task per processor"):
        map_regular(TaskGraph.stencil((4, 4)), torus_machine((4, 2)))
    with pytest.raises(ValueError, match="unknown grid heuristic 'nope'"):  # the one dispatch's message
        map_grid(TaskGraph.stencil((4, 4)), torus_machine((4, 4)), method="nope")


@pytest.mark.parametrize("method", GRID_METHODS)
def test_map_grid_dispatches(method):
    g = TaskGraph.stencil((8, 4))
    m = torus_machine((4, 4), cores_per_node=2) if method == "block" else torus_machine((8, 4), wrap=False)
    if method in ("stack", "fold"):
        m = torus_machine((2, 4, 4), wrap=False)
    assert map_grid(g, m, method=method).is_permutation


def test_candidates_extend_the_one_list():
    m = torus_machine((10, 3), wrap=False)
    g = TaskGraph.stencil((6, 5))
    cands = candidate_list(g, m, orderings=["fz"], rotate=False, families=("geometric", "grid"))
    kinds = [c.family for c in cands]
    assert kinds[0] == "geometric" and "grid" in kinds
    assert [c for c in cands if c.family == "grid"] == grid_candidates(g, m)
    res = best_of(g, m, cands, metric="weighted_hops")
    assert res.score == 160.0
    assert cands[res.index].family == "grid"  # geometric alone does worse here
    assert min(res.scores[: kinds.index("grid")]) > 160.0
    # the same list through a single family name
    assert candidate_list(g, m, families="grid") == grid_candidates(g, m)


def test_grid_candidates_by_machine_shape():
    assert [c.method for c in grid_candidates(TaskGraph.stencil((8, 4)), torus_machine((2, 4, 4)))][:2] == [
        "stack", "fold"]
    assert {c.method for c in grid_candidates(TaskGraph.stencil((4, 4, 4)), torus_machine((4, 4, 4)))} == {"sfc"}
    blocks = [c for c in grid_candidates(TaskGraph.stencil((8, 8)), torus_machine((4, 4), cores_per_node=4))
              if c.method == "block"]
    assert len(blocks) == 3  # 1x4, 2x2, 4x1
    from mpitaskmap.machines import FlatMachine

    assert grid_candidates(TaskGraph.stencil((2, 2)), FlatMachine([0, 0, 1, 1])) == []
    # not a regular grid, or counts that differ: the family has no candidates
    assert grid_candidates(TaskGraph.from_matrix(np.ones((30, 30)) - np.eye(30)), torus_machine((10, 3))) == []
    assert grid_candidates(TaskGraph.stencil((2, 2)), torus_machine((4, 2))) == []
    assert grid_family.candidates(Problem(TaskGraph.stencil((4, 4)), torus_machine((4, 2)), oversubscribe=True)) == []


def test_inapplicable_candidates_are_skipped_by_the_search():
    m = torus_machine((10, 3), wrap=False)
    irregular = TaskGraph.from_matrix(np.ones((30, 30)) - np.eye(30))
    cands = grid_candidates(TaskGraph.stencil((6, 5)), m)
    for cand in cands:
        with pytest.raises(NotApplicableError, match="grid: irregular"):
            apply(cand, Problem(irregular, m))
    res = best_of(irregular, m, [IDENTITY_CANDIDATE] + cands)
    assert res.index == 0 and all(s == float("inf") for s in res.scores[1:])
    # a stack variant that does not exist for these shapes
    cand = Candidate.make("grid", "stack", variant=5)
    with pytest.raises(NotApplicableError, match="variant 5 of 3"):
        apply(cand, Problem(TaskGraph.stencil((8,)), torus_machine((2, 2, 2))))  # 3 variants: s = 0, 1, 2; c = 0


def test_a_real_error_in_a_grid_candidate_propagates():
    # an unknown heuristic is a bug, not "does not apply": the search must not hide it
    g, m = TaskGraph.stencil((6, 5)), torus_machine((10, 3), wrap=False)
    with pytest.raises(InvalidInputError, match="unknown grid heuristic 'nope'") as err:
        best_of(g, m, [IDENTITY_CANDIDATE, Candidate.make("grid", "nope")])
    assert not isinstance(err.value, NotApplicableError)
    # an out-of-range option is a real error too (old code swallowed it as "does not apply")
    m2 = torus_machine((5, 3), wrap=False, cores_per_node=2)
    with pytest.raises(InvalidInputError, match="fold_dim: must lie in") as err:
        best_of(g, m2, [IDENTITY_CANDIDATE, Candidate.make("grid", "affn", fold_dim=7)])
    assert not isinstance(err.value, NotApplicableError)


def test_regular_refines_the_best_heuristic_with_pairs():
    m = torus_machine((10, 3), wrap=False)
    g = TaskGraph.stencil((6, 5))
    res = map_regular(g, m)
    pairs = [r for r in res.table if r["name"] == "pairs"]
    # the first of the heuristics that tie at 160 (MXOVLP, row 1) is the start
    assert len(pairs) == 1 and pairs[0]["variant"] == "from mxovlp"
    assert pairs[0]["hop_bytes"] <= 160.0
    assert mpitaskmap.map(g, m, "regular").metric("weighted_hops") == res.mapping.metric("weighted_hops")


MPIEXEC = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")


@pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec next to this Python or on PATH")
def test_stencil2d_example_recognises_and_remaps():
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("MPITASKMAP_DISABLE", None)
    proc = subprocess.run(
        [MPIEXEC, "-n", "8", sys.executable, "-m", "mpi4py", "examples/stencil2d.py", "--n", "16", "--steps", "2"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "analyser: regular 2-D grid 4x2 (fastest first), 5-point stencil, periodic (F,F)" in out
    assert "mpitaskmap.remap: remapped" in out
    rows = dict(re.findall(r"^(default|remapped)\s+([\d.]+)", out, flags=re.M))
    assert float(rows["remapped"]) < float(rows["default"])
    assert mpitaskmap.map_regular is map_regular
