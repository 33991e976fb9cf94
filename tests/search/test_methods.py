"""Every method of the front end and every family of the search, through every door.

For each method of :data:`mpitaskmap.search.methods.METHODS` (and every heuristic of the grid
family and strategy of the PERCS family) on an input where it applies: the result is a
valid mapping that respects node capacities, is deterministic, and is the same through
:func:`mpitaskmap.map`, :func:`mpitaskmap.best_of` (one candidate) and the command line
(``mpitaskmap map ... -o csv=PATH`` read back).
"""

from __future__ import annotations

import numpy as np
import pytest

import mpitaskmap
from mpitaskmap import Problem, TaskGraph, best_of, candidate_list, families_for, method_candidate
from mpitaskmap.cli import main
from mpitaskmap.cli._inputs import load_machine, load_tasks
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.mapfiles import read_map
from mpitaskmap.mappers.grid.heuristics import GRID_METHODS
from mpitaskmap.mappers.percs import STRATEGIES
from mpitaskmap.search import judge as judge_module
from mpitaskmap.search.methods import METHODS
from mpitaskmap.search.scoring import FAMILIES, REFINE_TOP, apply
from mpitaskmap.search.families.rubik import METHODS as RUBIK_METHODS

TITAN = ("sim:titan:nodes=8,ppn=4,seed=1", "stencil3d:4x4x2")  # 32 ranks, 4 per node
MESH = ("sim:torus:dims=8x4,wrap=0", "stencil2d:8x4")
BOX3 = ("sim:torus:dims=2x4x4,wrap=0", "stencil2d:8x4")
CORES = ("sim:torus:dims=4x4,ppn=2", "stencil2d:8x4")
PERCS = ("percs:ns=32,nd=1", "stencil2d:64x64")  # mod-colouring needs P = 64, Q >= 64
DRAGONFLY = ("sim:frontier:nodes=8,ppn=4,seed=1,routing=ugal", "stencil3d:4x4x2")  # balance deals over groups


def _case(method: str) -> tuple[str, str]:
    name, _, arg = method.partition(":")
    if name == "grid":
        return {"stack": BOX3, "fold": BOX3, "block": CORES}.get(arg, MESH)
    if name == "percs":
        return PERCS
    if name in ("regular", "rubik"):
        return MESH
    if name == "balance":
        return DRAGONFLY
    return TITAN


SPECS = ([m for m in METHODS if m not in ("grid", "percs", "rubik")] + [f"grid:{h}" for h in GRID_METHODS]
         + [f"percs:{s}" for s in STRATEGIES] + [f"rubik:{r}" for r in RUBIK_METHODS])


def _inputs(case):
    tasks = load_tasks(case[1]).graph
    return load_machine(case[0], tasks.n_tasks).machine, tasks


def test_every_method_of_the_table_is_covered():
    assert {s.partition(":")[0] for s in SPECS} == set(METHODS)
    assert set(FAMILIES) == {"identity", "geometric", "graph", "grid", "percs", "rubik"}


@pytest.mark.parametrize("method", SPECS)
def test_method_through_map_best_of_and_the_cli(method, tmp_path, capsys):
    case = _case(method)
    machine, graph = _inputs(case)
    a = mpitaskmap.map(graph, machine, method)
    b = mpitaskmap.map(graph, machine, method)
    # valid, deterministic, within the node capacities (one task per core here)
    assert a.n_tasks == graph.n_tasks and a.is_permutation
    np.testing.assert_array_equal(a.task_to_proc, b.task_to_proc)
    nodes, cap = machine.node_capacity()
    used = np.bincount(np.searchsorted(nodes, machine.node_ids[a.task_to_proc]), minlength=nodes.size)
    assert (used <= cap).all()
    # one candidate through best_of gives the same mapping
    if method not in ("regular", "auto"):
        one = best_of(graph, machine, [method_candidate(method)])
        np.testing.assert_array_equal(one.mapping.task_to_proc, a.task_to_proc)
    # the command line writes the same mapping
    path = tmp_path / "map.csv"
    status = main(["map", "-m", case[0], "-t", case[1], "--method", method, "-q", "-o", f"csv={path}"])
    capsys.readouterr()
    assert status == 0
    back = read_map(path, machine, "csv", graph=graph)
    np.testing.assert_array_equal(back.task_to_proc, a.task_to_proc)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_searched_alone_is_deterministic_and_applies(family):
    case = {"grid": MESH, "percs": PERCS, "rubik": MESH}.get(family, TITAN)
    machine, graph = _inputs(case)
    cands = candidate_list(graph, machine, families=family, rotate=False)
    assert cands and all(c.family == family for c in cands)
    assert cands == candidate_list(graph, machine, families=[family], rotate=False)
    res = best_of(graph, machine, cands)
    again = best_of(graph, machine, cands)
    assert res.index == again.index and res.scores == again.scores
    np.testing.assert_array_equal(res.mapping.task_to_proc, again.mapping.task_to_proc)
    assert res.mapping.is_permutation


def test_auto_searches_the_applicable_families_with_the_identity_first():
    machine, graph = _inputs(TITAN)
    # this small allocation is a full box of 4 routers (8 cores each), so grid applies too
    # (at router 0, so Rubik's model fits as well)
    assert families_for(Problem(graph, machine)) == ["geometric", "graph", "grid", "rubik"]
    m = mpitaskmap.map(graph, machine, judge=None)  # the two-stage search (its judge: tests/search/test_judge.py)
    assert m.info["families"] == "geometric,graph,grid,rubik"
    cands = candidate_list(graph, machine, families=["geometric", "graph", "grid", "rubik"], include_identity=True)
    best = best_of(graph, machine, cands, refine=REFINE_TOP)  # auto is the two-stage search
    assert m.info["candidates"] == len(best.candidates) == len(cands) + m.info["refined"]
    # the default objective on a machine with links is predicted time, refined by UWH and UWH+UMC,
    # and (a graph the judge replays five steps of) polished by node swaps, alone and after UMC
    assert m.info["metric"] == "predicted_time" and m.info["refined"] == 4 * REFINE_TOP
    hops = mpitaskmap.map(graph, machine, metric="weighted_hops")
    assert hops.info["metric"] == "weighted_hops" and hops.info["refined"] == REFINE_TOP  # one (UWH) per start
    np.testing.assert_array_equal(m.task_to_proc, best.mapping.task_to_proc)
    assert m.info["candidate_index"] == best.index and m.info["candidate"] == best.candidates[best.index].label()
    # the candidates it evaluated, both stages in order: the same list, and the winner recomputes
    assert [c.label() for c in m.info["candidate_list"]] == [c.label() for c in best.candidates]
    again = apply(m.info["candidate_list"][m.info["candidate_index"]], Problem(graph, machine))
    np.testing.assert_array_equal(again.task_to_proc, m.task_to_proc)
    # a single family name works like a list
    one = mpitaskmap.map(graph, machine, families="graph")
    assert one.info["families"] == "graph"
    # a sparse allocation is no box: no grid family; without coordinates the geometric family
    # takes the grid's the traffic forms, and without a grid it has nothing to cut
    sparse, tasks = _inputs(("sim:titan:nodes=16,ppn=2,seed=3", "stencil3d:4x4x2"))
    assert families_for(Problem(tasks, sparse)) == ["geometric", "graph"]
    bare = TaskGraph.from_edges(tasks.sources(), tasks.indices, tasks.weights, n_tasks=tasks.n_tasks)
    assert families_for(Problem(bare, sparse)) == ["geometric", "graph"]
    ring = TaskGraph.from_edges(np.arange(32), (np.arange(32) * 5 + 3) % 32, n_tasks=32)  # no grid: r -> 5r + 3
    assert not Problem(ring, sparse).grid_pattern.regular
    assert families_for(Problem(ring, sparse)) == ["graph"]
    pm, pg = _inputs(PERCS)
    assert "percs" in families_for(Problem(pg, pm))


def test_auto_ties_go_to_the_identity():
    # a 4x4 mesh of tasks on a 4x4 mesh: the default order is optimal, and so are many candidates
    g = TaskGraph.stencil([4, 4])
    machine = mpitaskmap.torus_machine([4, 4], wrap=False)
    m = mpitaskmap.map(g, machine)
    assert m.info["candidate_index"] == 0 and m.info["candidate"] == "identity (default order)"
    res = best_of(g, machine, candidate_list(g, machine, include_identity=True))
    assert res.scores.count(res.scores[0]) > 1  # several candidates tie with the identity


def test_front_end_errors_name_the_method_and_option():
    machine, graph = _inputs(TITAN)
    with pytest.raises(InvalidInputError, match="unknown 'bogus'"):
        mpitaskmap.map(graph, machine, "bogus")
    with pytest.raises(InvalidInputError, match="spiral: not an option of method 'geometric'"):
        mpitaskmap.map(graph, machine, "geometric", spiral=1)
    with pytest.raises(InvalidInputError, match="grid needs a name"):
        mpitaskmap.map(graph, machine, "grid")
    with pytest.raises(InvalidInputError, match="unknown grid heuristic 'nope'"):
        mpitaskmap.map(graph, machine, "grid:nope")
    with pytest.raises(InvalidInputError, match="only method 'auto' searches families"):
        mpitaskmap.map(graph, machine, "geometric", families="graph")
    with pytest.raises(InvalidInputError, match="is a search, not one candidate"):
        method_candidate("auto")
    with pytest.raises(InvalidInputError, match="families: unknown 'nope'"):
        mpitaskmap.map(graph, machine, families=["geometric", "nope"])
    # a graph without coordinates whose traffic is no grid (r -> 5r + 3): nothing for geometric to cut
    n = graph.n_tasks
    bare = TaskGraph.from_edges(np.arange(n), (np.arange(n) * 5 + 3) % n, n_tasks=n)
    with pytest.raises(InvalidInputError, match="geometric needs task coordinates"):
        mpitaskmap.map(bare, machine, families="geometric")


def test_winner_is_the_lowest_score_then_the_lowest_index():
    from mpitaskmap.search.scoring import winner

    assert winner([(2, 5.0), (0, 5.0), (1, 7.0)]) == (5.0, 0)
    assert winner([(3, 1.0), (1, 2.0)]) == (1.0, 3)
    assert winner([(0, float("inf")), (4, 9.0)]) == (9.0, 4)


def test_rubik_family_places_the_task_grid_like_rubik():
    # 6x5 tasks (x fastest) on a 10x3 mesh: the family runs Rubik's own program (app box
    # [5, 6], network box [10, 3], network.map(app)); task t is Rubik rank t
    g = TaskGraph.stencil([6, 5])
    m = mpitaskmap.torus_machine([10, 3], wrap=False)
    p = Problem(g, m)
    from mpitaskmap.search.families import rubik as rubik_family
    from mpitaskmap.mappers.rubik import box

    cands = rubik_family.candidates(p)
    assert [c.label() for c in cands] == [
        "rubik map", "rubik tilt axis=0 direction=1", "rubik tilt axis=1 direction=0", "rubik zorder"]
    mp = mpitaskmap.map(g, m, "rubik:map")
    net, app = box([10, 3]), box([5, 6])
    net.map(app)
    np.testing.assert_array_equal(mp.task_to_proc, net.to_mapping(m).task_to_proc)
    assert mp.metric("weighted_hops") < mpitaskmap.identity_mapping(g, m).metric("weighted_hops")
    # not a box at router 0, or not a grid: no candidates
    assert rubik_family.candidates(Problem(g, mpitaskmap.titan_machine(15, cores_per_node=2, seed=2))) == []
    bare = TaskGraph.from_matrix(np.ones((30, 30)) - np.eye(30))
    assert rubik_family.candidates(Problem(bare, m)) == []


def test_two_stage_search_refines_the_top_candidates_and_never_loses(monkeypatch):
    # kNN-like irregular graph on a sparse allocation: refinement finds something better
    rng = np.random.default_rng(7)
    pts = rng.random((64, 3))
    d = ((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    nbr = np.argsort(d, axis=1)[:, :4]
    src, dst = np.repeat(np.arange(64), 4), nbr.ravel()
    w = rng.integers(1, 11, size=src.size).astype(float)
    graph = TaskGraph.from_edges(np.r_[src, dst], np.r_[dst, src], np.r_[w, w], n_tasks=64, coords=pts)
    machine = mpitaskmap.titan_machine(64, cores_per_node=1, seed=4)
    cands = candidate_list(graph, machine, include_identity=True, rotate=False)
    one = best_of(graph, machine, cands, metric="weighted_hops")
    two = best_of(graph, machine, cands, refine=3, metric="weighted_hops")
    assert len(two.candidates) == len(cands) + 3 and two.scores[: len(cands)] == one.scores
    # the second stage refines the three best of the first, in rank order
    from mpitaskmap.search.scoring import top_indices

    starts = [c.option("start") for c in two.candidates[len(cands):]]
    assert starts == [cands[i] for i in top_indices(list(enumerate(one.scores)), 3)]
    assert two.score <= one.score <= one.scores[0]  # never worse than stage one or the identity
    assert two.score < one.score and two.index >= len(cands)  # here refinement helps
    assert two.mapping.info["candidate"] == starts[two.index - len(cands)].label() + " + uwh"
    again = best_of(graph, machine, cands, refine=3, metric="weighted_hops")
    np.testing.assert_array_equal(again.mapping.task_to_proc, two.mapping.task_to_proc)
    # for latency, each start is also refined for congestion, and polished by node swaps
    lat = best_of(graph, machine, cands, refine=2, metric="latency")
    chain = ["uwh", "uwh+umc", "nodes", "uwh+umc+nodes"]
    assert [c.method for c in lat.candidates[len(cands):]] == chain * 2
    assert lat.score <= lat.scores[0]
    # so is the default objective, predicted time (set by the most loaded link)
    pt = best_of(graph, machine, cands, refine=2)
    assert [c.method for c in pt.candidates[len(cands):]] == chain * 2
    assert pt.mapping.info["metric"] == "predicted_time" and pt.score <= min(pt.scores[: len(cands)])
    # a polish never raises its start's Latency(M) (the busiest link comes first in its order;
    # the predicted time may rise with longer routes, and the objective then ranks it lower)
    problem = Problem(graph, machine)
    second = pt.candidates[len(cands):]
    for start, polished in ((second[0].option("start"), second[2]), (second[1], second[3]),
                            (second[4].option("start"), second[6]), (second[5], second[7])):
        assert apply(polished, problem).metric("latency") <= apply(start, problem).metric("latency")
    # where the judge replays one step (a larger graph), the second stage has no node swaps
    monkeypatch.setattr(judge_module, "JUDGE_STEPS_MAX_EDGES", graph.indices.size - 1)
    one_step = best_of(graph, machine, cands, refine=2)
    assert [c.method for c in one_step.candidates[len(cands):]] == ["uwh", "uwh+umc"] * 2


def test_refinement_ties_keep_the_first_stage_winner():
    # a full torus where geometric is optimal: UWH cannot improve, so the first stage wins
    g = TaskGraph.stencil([4, 4, 4])
    machine = mpitaskmap.torus_machine([4, 4, 4])
    cands = candidate_list(g, machine, include_identity=True, rotate=False)
    res = best_of(g, machine, cands, refine=4)
    assert res.index == 0 and res.score == res.scores[0]
