"""The search's judge (mpitaskmap.search.judge): the default fluid replay of auto's best candidates."""

import numpy as np
import pytest

import mpitaskmap
from mpitaskmap import TaskGraph, titan_machine, torus_machine
from mpitaskmap.search import judge as judge_mod
from mpitaskmap.cli import main
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.sim.fluid import fluid_exchange
from mpitaskmap.search.judge import (DEFAULT_JUDGE, DEFAULT_ORDER, FLUID_JUDGE_MAX_WORK, FLUID_JUDGE_MAX_WORK_STEPS,
                                     FLUID_JUDGE_MAX_WORK_RESOLVED, FLUID_JUDGE_RESOLUTION,
                                     JUDGE_STEPS, JUDGE_TIE, JUDGE_TOP, default_judge, fluid_seconds, judge_change,
                                     judge_order, judge_stage, resolve_judge)
from mpitaskmap.machines import FlatMachine
from mpitaskmap.search.problem import Problem
from mpitaskmap.search.scoring import apply
from mpitaskmap.search.problem import Candidate
from demo_inputs import FRONTIER, TITAN, minighost_input


@pytest.fixture(scope="module")
def overruled():
    """An input where the replay overrules the objective: 512 ranks, 64 Titan nodes, seed 8."""
    g = TaskGraph.stencil((8, 8, 8), weight=2560.0)
    m = titan_machine(64, cores_per_node=8, seed=8)
    return g, m, mpitaskmap.map(g, m, judge=None), mpitaskmap.map(g, m)


def test_judge_order_ties_within_the_replays_precision_go_to_the_objective():
    # 1 + JUDGE_TIE / 2 is equal to 1: the better score (position 1) wins; 1 - 2 JUDGE_TIE is faster
    assert judge_order([1.0 + JUDGE_TIE / 2, 1.0], [1.0, 2.0], [5, 3])[0] == 0
    assert judge_order([1.0, 1.0 + JUDGE_TIE / 2], [2.0, 1.0], [3, 5])[0] == 1
    assert judge_order([1.0, 1.0 - 2 * JUDGE_TIE], [1.0, 2.0], [0, 1])[0] == 1
    # equal times and scores: the lower index
    assert judge_order([1.0, 1.0], [1.0, 1.0], [7, 2]) == [1, 0]
    assert judge_order([], [], []) == []
    with pytest.raises(InvalidInputError, match="differ in length"):
        judge_order([1.0], [1.0, 2.0], [0])


def test_judge_order_keeps_the_default_order_unless_a_mapping_replays_faster_by_more_than_the_tie():
    """The judge's one tie rule, by hand: times within JUDGE_TIE of the fastest are equal, and among equal times
    the default order (index 0) comes first.

    Mutation checks (run when written): ``indices[k] != 0`` -> ``== 0`` in ``judge_order`` (the default order
    last among equals), or the term dropped (the better objective first), fails the first assertion;
    comparing with ``fastest`` instead of ``fastest * (1 + JUDGE_TIE)`` (no tolerance) fails the second.
    """
    # the rule: a mapping replaces the default order (index 0) only when t * (1 + JUDGE_TIE) < t_default
    # equal times: the default order, though the objective scores it worse
    assert judge_order([1.0, 1.0], [1.0, 2.0], [5, 0]) == [1, 0]
    # faster by less than JUDGE_TIE: no gain, the default order is kept
    assert judge_order([1.0, 1.0 + JUDGE_TIE / 2], [1.0, 2.0], [5, 0]) == [1, 0]
    # faster by more than JUDGE_TIE: it replaces the default order
    assert judge_order([1.0, 1.0 + 2 * JUDGE_TIE], [1.0, 2.0], [5, 0]) == [0, 1]
    # the default order among several tied with the fastest: first; the others by objective
    assert judge_order([1.0, 1.0, 1.0 + JUDGE_TIE / 2], [1.5, 1.0, 2.0], [3, 4, 0]) == [2, 1, 0]


def test_default_judge_applies_to_routed_machines_of_moderate_size(monkeypatch):
    g = TaskGraph.stencil([4, 4])
    assert default_judge(Problem(g, torus_machine([4, 4])))[0] == "fluid"
    name, why = default_judge(Problem(g, FlatMachine(np.repeat(np.arange(4), 4))))
    assert name is None and "no routed links on 'flat'" in why
    # any machine with links, not only a torus: PERCS, whose routes split, is replayed too
    from mpitaskmap.machines.percs import PercsMachine

    assert default_judge(Problem(TaskGraph.stencil([16, 16]), PercsMachine(2, 1)))[0] == "fluid"
    monkeypatch.setattr(judge_mod, "FLUID_JUDGE_MAX_EDGES", g.indices.size - 1)
    name, why = default_judge(Problem(g, torus_machine([4, 4])))
    assert name is None and f"{g.indices.size:,} edges" in why
    monkeypatch.setattr(judge_mod, "FLUID_JUDGE_MAX_EDGES", g.indices.size)
    assert default_judge(Problem(g, torus_machine([4, 4])))[0] == "fluid"


def test_resolve_judge():
    p = Problem(TaskGraph.stencil([4, 4]), torus_machine([4, 4]))
    # the budget of a replay of several steps
    assert resolve_judge(p, DEFAULT_JUDGE, False) == ("fluid", f"{p.graph.indices.size} edges <= 500,000",
                                                      {"max_work": FLUID_JUDGE_MAX_WORK_STEPS,
                                                       "max_route_entries": judge_mod.FLUID_JUDGE_MAX_ROUTE_ENTRIES})
    assert resolve_judge(p, DEFAULT_JUDGE, True)[0] is None  # a given metric decides
    assert resolve_judge(p, None, False)[0] is None
    assert resolve_judge(p, "fluid", True) == ("fluid", "requested", {})  # asked for: no budget
    assert resolve_judge(p, "simulate", False)[0] == "simulate"
    with pytest.raises(InvalidInputError, match="judge: unknown 'oracle'"):
        resolve_judge(p, "oracle", False)


def test_the_default_search_keeps_the_fastest_replayed(overruled):
    g, m, plain, judged = overruled
    info = judged.info
    assert info["judge"] == "fluid" and plain.info["judge"] is None
    rows = info["judged"]
    assert [r["chosen_by"] for r in rows][:JUDGE_TOP] == ["objective"] * JUDGE_TOP
    assert rows[0]["candidate"] == plain.info["candidate"] == info["objective_winner"]
    # brute force: replay every judged candidate again; the pick is the fastest, by more than the tie
    problem = Problem(g, m)
    times = [fluid_exchange(g, m, apply(info["candidate_list"][r["index"]], problem).task_to_proc,
                            link_latency=1e-7, steps=JUDGE_STEPS).seconds / JUDGE_STEPS for r in rows]
    assert times == [r["simulated_s"] for r in rows]
    best = int(np.argmin(times))
    assert best != 0 and times[best] < times[0] * (1 - JUDGE_TIE)
    assert info["candidate"] == rows[best]["candidate"] != plain.info["candidate"]
    np.testing.assert_array_equal(judged.task_to_proc, apply(info["candidate_list"][rows[best]["index"]],
                                                             problem).task_to_proc)
    assert rows[best]["simulated_rank"] == 1
    assert sorted(r["objective_rank"] for r in rows) == list(range(1, len(rows) + 1))
    # the info describes the mapping returned: its own method's keys, the search's keys beside them
    own = apply(info["candidate_list"][rows[best]["index"]], problem).info
    timed = [k for k in own if k.endswith("seconds")]  # wall times differ from run to run
    assert {k: info[k] for k in own if k not in timed} == {k: v for k, v in own.items() if k not in timed}
    assert (info["candidates"], info["refined"], info["families"]) == (
        plain.info["candidates"], plain.info["refined"], plain.info["families"])


def test_a_given_metric_decides_alone(overruled):
    g, m, plain, _ = overruled
    by_time = mpitaskmap.map(g, m, metric="predicted_time")
    assert by_time.info["judge"] is None and "a metric was given" in by_time.info["judge_why"]
    np.testing.assert_array_equal(by_time.task_to_proc, plain.task_to_proc)


def test_equal_replays_keep_the_default_order(overruled, monkeypatch):
    g, m, plain, _ = overruled
    monkeypatch.setattr(judge_mod, "fluid_seconds", lambda problem, mapping, options: 1.0)
    tied = mpitaskmap.map(g, m)
    assert tied.info["judge"] == "fluid" and plain.info["candidate_index"] != 0
    # no mapping replays faster than the default order: it is returned, the objective's pick is not
    assert (tied.info["candidate"], tied.info["candidate_index"]) == ("identity (default order)", 0)
    assert tied.task_to_proc.tolist() == list(range(g.n_tasks)) and tied.info["default_simulated_s"] == 1.0
    assert tied.info["objective_winner"] == plain.info["candidate"]
    # none of the objective's pick's own keys (its ordering, shift, ...) describe the default order
    assert "ordering" in plain.info and "ordering" not in tied.info and tied.info["candidates"] == plain.info["candidates"]
    # the identity wins a tie of scores and times: a machine where every mapping is equal
    g2, m2 = TaskGraph.stencil([2, 2]), torus_machine([2, 2])
    assert mpitaskmap.map(g2, m2).info["candidate"] == "identity (default order)"


def test_a_replay_past_its_route_entry_bound_is_not_built_and_the_objective_decides(monkeypatch):
    # UGAL detours list hundreds of links a pair: the default judge counts a replay's route entries first and
    # builds none past its bound (memory), naming the bound; below it the same search replays
    from mpitaskmap.machines.dragonfly.presets import dragonfly_machine

    m = dragonfly_machine(n_groups=8, switches=4, nodes_per_switch=2, nodes=32, ppn=2, seed=3, routing="ugal")
    g = TaskGraph.stencil([4, 4, 4], weight=20000.0)
    full = mpitaskmap.map(g, m)
    assert full.info["judge"] == "fluid" and any(np.isfinite(r["simulated_s"]) for r in full.info["judged"])
    counted = [fluid_exchange(g, m, apply(full.info["candidate_list"][r["index"]], Problem(g, m)).task_to_proc,
                              max_route_entries=1).route_entries for r in full.info["judged"]]
    assert min(counted) > 100
    monkeypatch.setattr(judge_mod, "FLUID_JUDGE_MAX_ROUTE_ENTRIES", min(counted) - 1)
    cut = mpitaskmap.map(g, m)
    assert cut.info["judge"] is None
    assert f"or its route-entry bound ({min(counted) - 1:,}): the objective decides" in cut.info["judge_why"]
    assert cut.info["judged"][0]["simulated_s"] == np.inf
    assert cut.info["candidate"] == full.info["objective_winner"]


def test_over_budget_the_objective_decides(overruled):
    g, m, plain, _ = overruled
    cut = mpitaskmap.map(g, m, judge="fluid", judge_options={"max_work": 1})
    assert cut.info["judge"] is None and "passed its work budget (1)" in cut.info["judge_why"]
    # the replays stop at the first past its budget: the rest of the shortlist is not replayed
    times = [row["simulated_s"] for row in cut.info["judged"]]
    assert times[0] == np.inf and all(np.isnan(t) for t in times[1:])
    assert all(row["simulated_rank"] is None for row in cut.info["judged"])
    np.testing.assert_array_equal(cut.task_to_proc, plain.task_to_proc)


def test_judge_options_reach_the_replay(overruled, monkeypatch):
    g, m, _, _ = overruled
    seen = []
    monkeypatch.setattr(judge_mod, "fluid_seconds", lambda problem, mapping, options: seen.append(options) or 1.0)
    mpitaskmap.map(g, m, judge="fluid", judge_options={"model": "CM02", "link_latency": 2e-7}, judge_top=2)
    assert seen and all(o == {"model": "CM02", "link_latency": 2e-7} for o in seen)
    seen.clear()
    mpitaskmap.map(g, m)  # the default judge: its budget and its bound on route entries
    assert seen and all(o == {"max_work": FLUID_JUDGE_MAX_WORK_STEPS,
                              "max_route_entries": judge_mod.FLUID_JUDGE_MAX_ROUTE_ENTRIES} for o in seen)


def test_cli_map_reports_the_judge(capsys):
    # 1-byte messages (weight=1): a case where the judge finds a mapping faster than the default order
    args = ["map", "-m", "sim:titan:nodes=8,ppn=4,seed=1", "-t", "stencil3d:4x4x2:weight=1", "--method", "auto",
            "--format", "csv"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "replayed (fluid judge) the 4 best distinct mappings of the search (predicted_time)" in err
    assert "(the fastest replayed by the fluid judge)" in err
    assert main(args + ["--judge", "none"]) == 0
    err = capsys.readouterr().err
    assert "replayed" not in err and "no judge: no judge requested" in err
    assert main(args + ["--metric", "weighted_hops"]) == 0
    assert "no judge: a metric was given: it decides" in capsys.readouterr().err
    assert main(args + ["--judge", "oracle"]) == 2
    assert "invalid choice: 'oracle'" in capsys.readouterr().err
    assert main(["map", "-m", "sim:titan:nodes=8,ppn=4,seed=1", "-t", "stencil3d:4x4x2", "--method", "geometric",
                 "--judge", "fluid"]) != 0
    assert "--judge fluid: only --method auto" in capsys.readouterr().err
    # --simulate is --judge simulate: with another --judge it is a contradiction
    assert main(args + ["--simulate", "--judge", "fluid"]) != 0
    assert "--simulate: is --judge simulate; got also --judge fluid" in capsys.readouterr().err


def test_judge_of_parsed_options():
    from types import SimpleNamespace

    from mpitaskmap.cli._common import judge_of

    assert judge_of(SimpleNamespace(judge="default", simulate=False)) == "default"
    assert judge_of(SimpleNamespace(judge="none", simulate=False)) is None
    assert judge_of(SimpleNamespace(judge="default", simulate=True)) == "simulate"
    assert judge_of(SimpleNamespace(judge="simulate", simulate=True)) == "simulate"
    assert judge_of(SimpleNamespace()) == "default"  # commands without the options


def test_shortlist_takes_the_mappings_tied_with_the_last_one_kind_at_a_time():
    from mpitaskmap.search.judge import JUDGE_TIED_MAX, judge_shortlist

    # top 2: #1 (1.0) and the first of the four tied at 2.0 (#2); the rest of the tie joins, one of each kind in
    # turn: #4 (kind b) before #3 (a second variant of kind a); #6 (3.0) never; #5 is #2's mapping
    scores = [(0, 9.0), (1, 1.0), (2, 2.0), (3, 2.0), (4, 2.0), (5, 2.0), (6, 3.0), (7, 2.0 * (1 + 1e-13))]
    digests = {i: bytes([i]) for i in range(8)} | {5: bytes([2])}
    kinds = {2: "a", 3: "a", 4: "b", 7: "a"}
    assert judge_shortlist(scores, digests, 2, kinds=kinds) == [1, 2, 4, 3, 7]
    assert judge_shortlist(scores, digests, 2, tied_max=4, kinds=kinds) == [1, 2, 4, 3]
    assert judge_shortlist(scores, digests, 2, tied_max=2, kinds=kinds) == [1, 2]  # no room: the top only
    assert judge_shortlist(scores, digests, 3, kinds=kinds) == [1, 2, 3, 4, 7]  # #3 in the top: kinds only order the rest
    # a tie below the top does not extend it: #1 and #2 are the top 2 of distinct scores 1.0, 2.0
    assert judge_shortlist([(0, 9.0), (1, 1.0), (2, 2.0), (3, 5.0), (4, 5.0)], {i: bytes([i]) for i in range(5)},
                           2) == [1, 2]
    # many tied: JUDGE_TIED_MAX in all, kinds in turn
    many = [(0, 9.0)] + [(i, 1.0) for i in range(1, 41)]
    out = judge_shortlist(many, {i: bytes([i]) for i in range(41)}, 4, kinds={i: i % 3 for i in range(41)})
    assert len(out) == JUDGE_TIED_MAX and out[:4] == [1, 2, 3, 4]
    # the top replayed kind 1 twice, kinds 2 and 0 once: a second of 2 and 0 (in order of appearance among the
    # tied: 5, 6), then a third of 2 and 0 with the first tied of kind 1 (8, 9, 7)
    assert out[4:9] == [5, 6, 8, 9, 7]


def test_judge_stage_picks_a_faster_mapping_among_the_tied(capsys):
    from mpitaskmap.search.judge import TIED

    # six candidates tie on the objective; the fastest replay is the sixth, past the top 4
    cands = [Candidate.make("identity", "identity")] + [Candidate.make("c", f"m{i}") for i in range(1, 7)]
    scores = [5.0] + [1.0] * 6
    digests = {i: bytes([i]) for i in range(7)}
    times = {i: 2.0 for i in range(7)} | {6: 1.0}
    out = judge_stage("fluid", cands, scores, digests, lambda ids: ({i: times[i] for i in ids}, ""))
    assert out.index == 6 and out.default_simulated_s == 2.0
    assert [r["chosen_by"] for r in out.judged] == ["objective"] * 4 + [TIED] * 2 + [DEFAULT_ORDER]
    # SimGrid runs: the caller's top is the budget, no extension
    simulated = judge_stage("simulate", cands, scores, digests, lambda ids: ({i: times[i] for i in ids}, ""))
    # the top 4 and the default order; all replay 2.0: the default order is kept
    assert simulated.index == 0 and len(simulated.judged) == 5 and simulated.judged[-1]["chosen_by"] == DEFAULT_ORDER
    assert judge_stage("simulate", cands, scores, digests, lambda ids: ({i: times[i] for i in ids}, ""),
                       tied_max=6).index == 6


def test_the_judge_replays_several_steps_of_small_exchanges_and_one_of_large(monkeypatch):
    g = TaskGraph.stencil([4, 4, 2], weight=2560.0)
    m = torus_machine([4, 4], cores_per_node=2)
    p = Problem(g, m)
    mapping = mpitaskmap.identity_mapping(g, m)
    several = fluid_exchange(g, m, mapping.task_to_proc, link_latency=1e-7, steps=JUDGE_STEPS)
    one = fluid_exchange(g, m, mapping.task_to_proc, link_latency=1e-7)
    assert judge_mod.judge_steps(p) == JUDGE_STEPS == 5
    # the judge's figure is the mean step of the replay: the end of the last step over the steps
    assert judge_mod.fluid_seconds(p, mapping) == several.seconds / JUDGE_STEPS != one.seconds
    assert judge_mod.fluid_seconds(p, mapping, {"steps": 2}) == fluid_exchange(
        g, m, mapping.task_to_proc, link_latency=1e-7, steps=2).seconds / 2
    monkeypatch.setattr(judge_mod, "JUDGE_STEPS_MAX_EDGES", g.indices.size - 1)
    assert judge_mod.judge_steps(p) == 1
    assert judge_mod.fluid_seconds(p, mapping) == one.seconds
    # the default judge's budget follows the steps it replays
    assert resolve_judge(p, DEFAULT_JUDGE, False)[2] == {"max_work": FLUID_JUDGE_MAX_WORK, "max_route_entries": judge_mod.FLUID_JUDGE_MAX_ROUTE_ENTRIES}
    monkeypatch.setattr(judge_mod, "JUDGE_STEPS_MAX_EDGES", g.indices.size)
    assert judge_mod.judge_steps(p) == JUDGE_STEPS
    with pytest.raises(InvalidInputError, match="steps: expected an int >= 1"):
        judge_mod.fluid_seconds(p, mapping, {"steps": 0})


def test_above_the_exact_size_the_judge_replays_at_a_resolution_and_ties_within_it(monkeypatch):
    g = TaskGraph.stencil([4, 4, 2], weight=2560.0)
    m = torus_machine([4, 4], cores_per_node=2)
    p = Problem(g, m)
    mapping = mpitaskmap.identity_mapping(g, m)
    assert judge_mod.judge_resolution(p) == 0.0
    assert resolve_judge(p, DEFAULT_JUDGE, False)[2] == {"max_work": FLUID_JUDGE_MAX_WORK_STEPS, "max_route_entries": judge_mod.FLUID_JUDGE_MAX_ROUTE_ENTRIES}
    monkeypatch.setattr(judge_mod, "JUDGE_EXACT_MAX_EDGES", g.indices.size - 1)
    assert judge_mod.judge_resolution(p) == FLUID_JUDGE_RESOLUTION == 0.01
    name, why, options = resolve_judge(p, DEFAULT_JUDGE, False)
    assert name == "fluid" and why.endswith("replayed at a resolution of 0.01")
    assert options == {"max_work": FLUID_JUDGE_MAX_WORK_RESOLVED, "resolution": FLUID_JUDGE_RESOLUTION,
                       "max_route_entries": judge_mod.FLUID_JUDGE_MAX_ROUTE_ENTRIES}
    # the replay the judge runs: five steps at that resolution
    coarse = fluid_exchange(g, m, mapping.task_to_proc, link_latency=1e-7, steps=JUDGE_STEPS, resolution=0.01)
    assert judge_mod.fluid_seconds(p, mapping, options) == coarse.seconds / JUDGE_STEPS
    assert judge_mod.fluid_seconds(p, mapping, {}) != coarse.seconds / JUDGE_STEPS
    # its tie: a pick replayed 0.5% faster than the default order is no evidence, 2% faster is
    assert judge_mod.judge_tie(options) == 0.01 and judge_mod.judge_tie({}) == JUDGE_TIE
    cands = [Candidate.make("c", str(i)) for i in range(2)]
    stage = lambda faster, tie: judge_mod.judge_stage("fluid", cands, [2.0, 1.0], {0: b"a", 1: b"b"},
                                                      lambda ids: ({0: 1.0, 1: 1.0 - faster}, ""), tie=tie).index
    assert stage(0.005, 0.01) == 0 and stage(0.02, 0.01) == 1 and stage(0.005, JUDGE_TIE) == 1
    # the second stage polishes node swaps only where the judge replays exactly
    from mpitaskmap.search.scoring import polishes_nodes

    assert not polishes_nodes(p)
    monkeypatch.setattr(judge_mod, "JUDGE_EXACT_MAX_EDGES", g.indices.size)
    assert polishes_nodes(p)


def test_the_search_hands_the_resolution_and_its_tie_to_the_judge(overruled, monkeypatch):
    g, m, _, _ = overruled
    monkeypatch.setattr(judge_mod, "JUDGE_EXACT_MAX_EDGES", g.indices.size - 1)
    seen = []

    def replay(problem, mapping, options):  # the default order 0.5% slower than any other mapping
        seen.append(options)
        return 1.005 if np.array_equal(mapping.task_to_proc, np.arange(g.n_tasks)) else 1.0

    monkeypatch.setattr(judge_mod, "fluid_seconds", replay)
    kept = mpitaskmap.map(g, m)
    assert seen and all(o == {"max_work": FLUID_JUDGE_MAX_WORK_RESOLVED, "resolution": 0.01, "max_route_entries": judge_mod.FLUID_JUDGE_MAX_ROUTE_ENTRIES}
                        for o in seen)
    assert kept.info["judge"] == "fluid" and kept.info["candidate"] == "identity (default order)"
    assert "resolution of 0.01" in kept.info["judge_why"] and kept.info["judge_seconds"] > 0


# -- the default order, replayed beside every shortlist ----------------------------------------
def _stage_rows(times: dict, scores=(3.0, 1.0, 2.0)):
    from mpitaskmap.search.families import identity

    cands = [identity.CANDIDATE] + [Candidate.make("c", f"m{i}") for i in range(1, len(scores))]
    digests = {i: bytes([i]) for i in range(len(scores))}
    asked = []

    def replay(ids):
        asked.append(list(ids))
        return {i: times[i] for i in ids if i in times}, ""

    return judge_stage("fluid", cands, list(scores), digests, replay, top=1), asked


def test_judge_stage_replays_the_default_order_and_keeps_it_without_a_gain():
    # the objective's best (#1) and the default order, replayed last
    out, asked = _stage_rows({0: 1.0, 1: 1.0})
    assert asked == [[1, 0]]
    assert [(r["index"], r["chosen_by"], r["objective_rank"], r["simulated_rank"]) for r in out.judged] == [
        (1, "objective", 1, 2), (0, DEFAULT_ORDER, 2, 1)]
    assert (out.index, out.default_simulated_s, out.why) == (0, 1.0, "")
    # faster by more than the tie: the pick
    out, _ = _stage_rows({0: 1.0, 1: 1.0 / (1 + 2 * JUDGE_TIE)})
    assert out.index == 1 and [r["simulated_rank"] for r in out.judged] == [1, 2]
    # by less: no gain
    out, _ = _stage_rows({0: 1.0, 1: 1.0 / (1 + JUDGE_TIE / 2)})
    assert out.index == 0
    # a default order the objective shortlists already is replayed once, under its own reason
    # (here the only one no worse than itself by the objective)
    out, asked = _stage_rows({0: 1.0, 1: 0.5}, scores=(1.0, 2.0, 2.0))
    assert asked == [[0]] and out.index == 0 and [r["chosen_by"] for r in out.judged] == ["objective"]
    # a replay that returns no time for the default order: the objective decides, and says why
    out, _ = _stage_rows({1: 1.0})
    assert out.index is None and out.why == ("the fluid replay gave no time for #0 identity (default order): the "
                                             "objective decides")
    assert np.isnan(out.default_simulated_s)


@pytest.mark.parametrize("faster, kept", [(0.0, True), (JUDGE_TIE / 2, True), (2 * JUDGE_TIE, False)],
                         ids=["equal", "within-the-tie", "beyond-the-tie"])
def test_map_keeps_the_default_order_unless_a_mapping_replays_faster(monkeypatch, faster, kept):
    graph, machine = minighost_input(FRONTIER)

    def seconds(problem, mapping, options):  # the default order 1 s, every other mapping 1 / (1 + faster)
        return 1.0 if mapping.task_to_proc.tolist() == list(range(16)) else 1.0 / (1.0 + faster)

    monkeypatch.setattr(judge_mod, "fluid_seconds", seconds)
    best = mpitaskmap.map(graph, machine, families="geometric")
    # every other mapping ties: the objective's pick (#5) is the fastest of them
    assert best.info["candidate_index"] == (0 if kept else 5) and best.info["default_simulated_s"] == 1.0
    replayed, _ = judge_change("fluid", best.info["judged"], best.info["candidate_index"], "predicted_time")
    assert ("no gain found" in replayed) == kept


def test_the_frontier_demo_keeps_the_default_order_no_gain_found():
    """The README's dragonfly demo (16 ranks on 8 nodes of a simulated Frontier): the objective's
    pick predicts 32.5% less, and every shortlisted mapping replays what the default order replays
    (SimGrid agrees: 1.44e-06 s both, the demo's table): the default order is kept."""
    graph, machine = minighost_input(FRONTIER)
    best = mpitaskmap.map(graph, machine, families="geometric")  # remap()'s search: its family, its judge
    info = best.info
    assert info["judge"] == "fluid" and info["objective_winner"] == "geometric tree T(1,2,0)"
    assert (info["candidate_index"], info["candidate"]) == (0, "identity (default order)")
    assert best.task_to_proc.tolist() == list(range(16))
    rows = info["judged"]
    assert [r["chosen_by"] for r in rows] == ["objective"] * 4 + ["tie"] * 12 + [DEFAULT_ORDER]
    default = rows[-1]
    problem = Problem(graph, machine)
    assert default["index"] == 0 and default["simulated_rank"] == 1
    assert info["default_simulated_s"] == default["simulated_s"] == fluid_seconds(
        problem, mpitaskmap.identity_mapping(graph, machine))
    assert default["simulated_s"] == pytest.approx(1.44e-06, rel=1e-5)
    # no replay is faster (some are slower by an ulp: within the tie)
    assert all(default["simulated_s"] <= r["simulated_s"] <= default["simulated_s"] * (1 + JUDGE_TIE) for r in rows)
    replayed, objective = judge_change("fluid", rows, 0, info["metric"])
    assert replayed == ("replayed step: default 1.44e-06 s, no gain found: the fastest of the 16 other mappings "
                        "replayed, #5, 1.44e-06 s; the default order is kept")
    assert objective == ("predicted_time: default 5.66849e-07 s -> 5.66849e-07 s (predicted, unchanged); the "
                         "objective's pick #5: 3.82529e-07 s (predicted, 32.5% lower)")


def test_the_titan_demo_reports_both_replayed_times_and_the_replayed_change_first():
    """The README's main demo (16 ranks, sparse Titan): the pick replays 38.3% faster than the default order."""
    graph, machine = minighost_input(TITAN)
    best = mpitaskmap.map(graph, machine, families="geometric")
    info = best.info
    assert (info["candidate_index"], info["candidate"]) == (1, "geometric fz T* P* shift")
    problem = Problem(graph, machine)
    default_s = fluid_seconds(problem, mpitaskmap.identity_mapping(graph, machine))
    winner_s = fluid_seconds(problem, best)
    assert info["default_simulated_s"] == default_s == pytest.approx(7.091972e-07, rel=1e-6)
    assert winner_s == pytest.approx(4.378474287e-07, rel=1e-9)  # SimGrid's own (tests/test_message_model.py)
    assert winner_s * (1 + JUDGE_TIE) < default_s
    replayed, objective = judge_change("fluid", info["judged"], 1, info["metric"])
    # 1 - 4.378e-07 / 7.092e-07 = 38.3%; the predicted times halve (2.513e-07 -> 1.257e-07)
    assert replayed == "replayed step: default 7.092e-07 s -> 4.378e-07 s (38.3% lower)"
    assert objective == "predicted_time: default 2.51316e-07 s -> 1.25658e-07 s (predicted, 50.0% lower)"


def test_judge_change_names_the_objectives_pick_and_needs_the_default_row():
    rows = [dict(index=5, score=2.0, simulated_s=3.0, simulated_rank=3),
            dict(index=7, score=3.0, simulated_s=1.0, simulated_rank=1),
            dict(index=0, score=4.0, simulated_s=4.0, simulated_rank=2)]
    # the judge's pick (#7) is not the objective's (#5): both predicted changes, the pick's first
    assert judge_change("simulate", rows, 7, "weighted_hops") == (
        "simulated step: default 4 s -> 1 s (75.0% lower)",
        "weighted_hops: default 4 -> 3 (25.0% lower); the objective's pick #5: 2 (50.0% lower)")
    with pytest.raises(InvalidInputError, match=r"judged: no row of the default order \(#0\) or of the winner \(#9\)"):
        judge_change("fluid", rows, 9, "predicted_time")
    with pytest.raises(InvalidInputError, match="no row of the default order"):
        judge_change("fluid", rows[:2], 7, "predicted_time")


def test_cli_map_leads_with_the_replayed_change(capsys):
    args = ["map", "-m", FRONTIER, "-t", "stencil3d:4x2x2:weight=4608", "--method", "auto", "--format", "csv"]
    assert main(args) == 0
    err = capsys.readouterr().err.splitlines()
    k = next(i for i, line in enumerate(err) if line.startswith("winner: "))
    assert err[k] == "winner: identity (default order) (the fluid judge: no gain found)"
    assert err[k + 1].startswith("  replayed step: default 1.44e-06 s, no gain found: ")
    assert err[k + 2].startswith("  predicted_time: default 5.66849e-07 s -> 5.66849e-07 s (predicted, unchanged)")
    row = next(line for line in err if line.split()[2:4] == ["default", "order"])
    assert row.endswith("judge (no gain found: the default order is kept)")


def test_cli_compare_says_what_the_judge_found_for_auto(capsys, tmp_path):
    page = tmp_path / "report.html"
    args = ["compare", "-m", FRONTIER, "-t", "stencil3d:4x2x2:weight=4608", "--methods", "identity,geometric,auto",
            "--html", str(page)]
    assert main(args) == 0
    err = capsys.readouterr().err.splitlines()
    k = next(i for i, line in enumerate(err) if line.startswith("auto: replayed step: "))
    assert err[k].startswith("auto: replayed step: default 1.44e-06 s, no gain found: ")
    assert err[k].endswith("; the default order is kept")
    assert err[k + 1].startswith("  predicted_time: default 5.66849e-07 s -> 5.66849e-07 s (predicted, unchanged); "
                                 "the objective's pick #")
    assert [line.split(":")[0] for line in err if "replayed step" in line] == ["auto"]  # only where the judge decided
    assert "auto: replayed step: default 1.44e-06 s, no gain found: " in page.read_text()
