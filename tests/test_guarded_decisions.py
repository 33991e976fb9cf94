"""Decisions the code makes, each pinned by a hand-derived case that fails if the decision
is removed or reversed (checked by mutation when written: see each test's docstring).

* ``best_of``: a tie goes to the lowest candidate index (the identity, listed first).
* ``select_compact_subset``: the k-means refinement loop after the seeds.
* ``_node_shares``: largest-remainder rounding, remainder ties to the lower node.
* ``_fit_parts``: a part stays on its greedy node when it fits there.
* ``split_half``: a range is cut where its total is closest to half, ties to fewer entries.
* ``note_against_default``: a graph mapping is noted only when strictly worse than the
  default order by the default objective; a refined candidate does not inherit its start's note.
* ``auto`` over the graph family: a candidate worse than the default order by the objective
  never wins (the identity is candidate 0, ties to the lowest index, the judge's shortlist
  capped by the identity's score).

The MPI counterpart of the tie rule (``remap`` winner index 0 on a tie) is in
``tests/runtime/test_remapping.py``.
"""

import numpy as np
import pytest

import mpitaskmap
from mpitaskmap import Mapping, TaskGraph, TorusMachine, best_of, candidate_list, map_greedy, torus_machine
from mpitaskmap.mappers.geometric.mapper import select_compact_subset
from mpitaskmap.mappers.graph.partition import split_half
from mpitaskmap.search.families import graph as graph_family
from mpitaskmap.search.problem import Problem
from mpitaskmap.search.scoring import apply, refinement_candidates
from walkthrough import walkthrough_input

# Private helpers guarded here: if they move, this is the one line to fix.
from mpitaskmap.mappers.graph.greedy import _fit_parts, _node_shares
from mpitaskmap.mappers.graph.node_network import NodeNetwork


def line_of_nodes(cores):
    """Mesh line of routers, one node per router, node ``i`` with ``cores[i]`` cores."""
    node_ids = np.repeat(np.arange(len(cores)), cores)
    return TorusMachine(node_ids[:, None], [len(cores)], wrap=False, node_ids=node_ids)


# -- best_of: ties go to the lowest index ------------------------------------------------


def test_best_of_tie_goes_to_the_identity_listed_first():
    """A 2x2 mesh on a 2x2 torus: every candidate ties with the identity; index 0 wins.

    Derivation: the 5-point stencil on a 2x2 grid has 4 undirected edges = 8 directed unit
    messages, each between different processors, so weighted hops >= 8 for every mapping.
    The identity puts mesh neighbours on torus neighbours (1 hop each): 8, the minimum.
    So every candidate that scores 8 ties with it, and the rule "ties to the lowest index"
    must return index 0 and the identity mapping (ranks unchanged).

    Mutation check: ``(score, i) < best`` -> ``<=`` in ``search.score_candidates`` returns the last tied
    candidate (index 37, "geometric hilbert T* P* shift") and this test fails on ``index``.
    """
    graph = TaskGraph.stencil([2, 2])
    machine = torus_machine([2, 2])
    cands = candidate_list(graph, machine, include_identity=True)
    res = best_of(graph, machine, cands, metric="weighted_hops")
    assert res.scores[0] == 8.0
    tied = [i for i, s in enumerate(res.scores) if s == 8.0]
    assert len(tied) == len(cands) > 2  # every candidate ties: a real tie, not a lone winner
    # some tied candidate is a different placement, so a wrong winner would show in the mapping
    others = [best_of(graph, machine, [cands[i]], metric="weighted_hops").mapping.task_to_proc for i in tied[1:]]
    assert any(not np.array_equal(t, np.arange(4)) for t in others)
    assert res.index == 0 and res.score == 8.0
    assert res.mapping.task_to_proc.tolist() == [0, 1, 2, 3]


# -- select_compact_subset: the k-means refinement loop ------------------------------------


def test_compact_subset_refinement_moves_off_the_seed_sets():
    """Refinement finds a cluster that no seed's first k-nearest set is.

    Points on a line (index: x) 0: 11, 1: 5, 2: 20, 3: -0.5, 4: 6, 5: 4; k = 3; no window
    seeds, so the seeds are the bounding-box corners lo = -0.5, hi = 20 and the centre 9.75.

    First k-nearest sets (spread = sum of squared distances to the mean):
      lo -0.5 -> {-0.5, 4, 5} (mean 2.83, spread 17.17)
      hi 20   -> {20, 11, 6}  (mean 12.33, spread 100.67)
      centre  -> {11, 6, 5}   (mean 7.33, spread 20.67)
    so without refinement the answer is {-0.5, 4, 5} = indices [1, 3, 5].
    Refinement: from lo, centre 2.83 -> nearest {4, 5, 6} (6 is 3.17 away, -0.5 is 3.33);
    from centre, 7.33 -> {6, 5, 4} (4 is 3.33 away, 11 is 3.67); from hi, 12.33 ->
    {11, 6, 5} -> {4, 5, 6}.  {4, 5, 6} (mean 5, spread 2) is stable: indices [1, 4, 5].

    Mutation check: making the ``for _ in range(max_iter)`` loop run zero times returns
    [1, 3, 5] and the first assertion fails.
    """
    x = [[11.0], [5.0], [20.0], [-0.5], [6.0], [4.0]]
    assert select_compact_subset(x, 3, n_window_seeds=0).tolist() == [1, 4, 5]
    assert select_compact_subset(x, 3, n_window_seeds=0, max_iter=0).tolist() == [1, 3, 5]


def test_compact_subset_refinement_with_default_seeds_finds_the_closest_pair():
    """2-D, default seeds (window centroids along the FZ order, corners, centre), k = 2.

    Points 0: (3,4), 1: (5,3), 2: (3,1), 3: (0,4), 4: (2,4).  The most compact pair is
    the closest pair, (3,4)-(2,4) at distance 1 (spread 0.5); every other pair is at least
    2 apart (brute force below).  No seed's first k-nearest set is that pair: with
    ``max_iter=0`` the best seed set is {(0,4), (2,4)} = [3, 4] (spread 2).  Refinement
    reaches it, e.g. from the corner (0,1): {(3,1), (0,4)} (distance tie to (0,1), lower
    index first) has mean (1.5, 2.5), whose nearest two are (2,4) and (3,4) (tie at 4.5 with
    (0,4) and (3,1), lower index wins), and that set is stable.

    Mutation check: with the refinement loop removed the first assertion fails ([3, 4]).
    """
    pts = np.array([[3, 4], [5, 3], [3, 1], [0, 4], [2, 4]], dtype=float)
    assert select_compact_subset(pts, 2).tolist() == [0, 4]
    assert select_compact_subset(pts, 2, max_iter=0).tolist() == [3, 4]
    spreads = {
        (i, j): float(((pts[[i, j]] - pts[[i, j]].mean(axis=0)) ** 2).sum())
        for i in range(5)
        for j in range(i + 1, 5)
    }
    assert min(spreads, key=spreads.get) == (0, 4) and spreads[(0, 4)] == 0.5
    assert sorted(spreads.values())[1] == 2.0


# -- _node_shares: largest-remainder rounding -----------------------------------------------


@pytest.mark.parametrize(
    "n_tasks, capacity, expected",
    [
        # exact shares 5 * [3, 1, 2] / 6 = [2.5, 0.833, 1.667]: floors [2, 0, 1] leave 2 tasks;
        # the largest remainders are node 1 (0.833) and node 2 (0.667), not node 0 (0.5)
        (5, [3, 1, 2], [2, 1, 2]),
        # exact [0.5, 0.5, 0.5, 0.5]: floors 0 leave 2 tasks; equal remainders -> lower nodes
        (2, [1, 1, 1, 1], [1, 1, 0, 0]),
        # exact division: nothing to round
        (6, [3, 1, 2], [3, 1, 2]),
        # exact 7 * [4, 2, 2] / 8 = [3.5, 1.75, 1.75]: floors [3, 1, 1] leave 2; remainders
        # 0.75, 0.75 (nodes 1, 2) beat 0.5 (node 0)
        (7, [4, 2, 2], [3, 2, 2]),
    ],
)
def test_node_shares_rounds_by_largest_remainder(n_tasks, capacity, expected):
    """Mutation check: sorting remainders ascending (``-(exact - base)`` -> ``exact - base``)
    gives [3, 0, 2] for the first case; breaking ties to the higher node gives
    [0, 0, 1, 1] for the second."""
    shares = _node_shares(n_tasks, np.array(capacity, dtype=np.int64))
    assert shares.tolist() == expected
    assert int(shares.sum()) == n_tasks and (shares <= np.array(capacity)).all()


def test_two_phase_greedy_gives_each_node_its_share():
    """Public behaviour of the shares: nodes 0-1-2 on a line with 2, 3, 1 cores and a line of
    5 tasks.  Exact shares 5 * [2, 3, 1] / 6 = [1.667, 2.5, 0.833], floors [1, 2, 0] leave 2
    tasks for the largest remainders, nodes 2 (0.833) and 0 (0.667): shares [2, 2, 1].  The
    two-phase mapper makes one part per share and puts the parts on distinct nodes, so the
    tasks per used node are 2, 2 and 1 in some order.

    Mutation check: ascending remainders give shares [2, 3, 0] and the assertion fails.
    """
    machine = line_of_nodes([2, 3, 1])
    mapping = map_greedy(TaskGraph.stencil([5]), machine, two_phase=True, partitioner="greedy")
    per_node = np.bincount(machine.node_ids[mapping.task_to_proc], minlength=3)
    assert sorted(per_node.tolist()) == [1, 2, 2]


# -- _fit_parts: keep a part on its greedy node when it fits --------------------------------


def test_fit_parts_keeps_a_part_on_its_greedy_node_when_it_fits():
    """Nodes 0-1-2-3 on a line with 1, 2, 2, 2 cores; two parts of 2 tasks, the greedy
    placed part 0 on node 0 (1 core: does not fit) and part 1 on node 1 (fits).

    Part 1 keeps node 1.  Part 0 moves to the nearest free node with 2 cores: node 2
    (2 hops from node 0; node 3 is 3 hops).  Result [2, 1].

    Mutation check: without the keep-on-greedy-node pass, part 0 (first among equal
    sizes) takes its nearest fitting node, node 1, and part 1 is pushed to node 2:
    [1, 2], and the assertion fails.
    """
    nn = NodeNetwork(line_of_nodes([1, 2, 2, 2]))
    assert nn.capacity.tolist() == [1, 2, 2, 2]
    assert _fit_parts(np.array([0, 1]), np.array([2, 2]), nn).tolist() == [2, 1]


def test_fit_parts_leaves_a_fitting_placement_alone():
    """Every part fits on its greedy node: the placement is returned as is."""
    nn = NodeNetwork(line_of_nodes([1, 2, 2, 2]))
    assert _fit_parts(np.array([3, 0, 1]), np.array([2, 1, 2]), nn).tolist() == [3, 0, 1]


def test_fit_parts_always_finds_room_when_the_shares_fit_the_nodes():
    """Nodes 0-1-2 with 3, 1, 2 cores; parts of 2, 1, 2 tasks (the shares of 5 tasks) on
    greedy nodes 1, 0, 2.  Part 0 (2 tasks) does not fit node 1 (1 core); part 1 (1 task)
    keeps node 0 (3 cores), part 2 keeps node 2, and no free node holds part 0.  A valid
    answer exists (part i on node i), so the result must be one: distinct nodes, each
    holding its part (the keep pass strands part 0, so every part is placed largest first:
    part 0 (2 tasks) first: its greedy node 1 is too small, the nearest free node that fits is
    node 0; part 2 keeps node 2; part 1 takes the last, node 1)."""
    nn = NodeNetwork(line_of_nodes([3, 1, 2]))
    sizes = np.array([2, 1, 2])
    out = _fit_parts(np.array([1, 0, 2]), sizes, nn)
    assert out.tolist() == [0, 1, 2]
    assert (sizes <= nn.capacity[out]).all()


def test_two_phase_greedy_on_a_job_that_does_not_fill_its_last_node():
    """The public symptom of the bug above (fixed): 9 ranks at 4 per node on the Titan-like machine
    (nodes of 4, 4 and 1 cores).  Found with ``map_greedy(two_phase=True)`` on line graphs:
    ``sim:titan:ppn=4,seed=1`` fails at 9, 10, 11, 17, 19, ... ranks,
    ``sim:torus:dims=4x4,ppn=3`` at 7, 11, 14, 16, ...; ``remap(..., families=("graph",))``
    and ``best_of`` over the graph family fail the same way.  The result must be a valid
    mapping: distinct processors."""
    from mpitaskmap.providers import get_provider, machine_from_provider

    machine = machine_from_provider(get_provider("sim:titan:ppn=4,seed=1"), 9)
    mapping = map_greedy(TaskGraph.stencil([9]), machine, two_phase=True)
    assert sorted(mapping.task_to_proc.tolist()) == list(range(9))


# -- split_half: cut at half the total, ties to fewer entries ------------------------------


def test_split_half_ties_go_to_fewer_entries():
    """Totals [1, 1, 1]: a cut after 1 entry leaves 1 | 2, after 2 entries 2 | 1; both are
    1 away from half of 3, so the tie goes to fewer entries: 1.  Weights [1, 2, 1]: after 1
    entry 1 | 3, after 2 entries 3 | 1: tie again, 1.  [3, 1, 1, 1]: 3 | 3 after 1, exact.

    Mutation check: taking the last minimum gives 2 for the first two cases.
    """
    assert split_half(np.array([1, 1, 1])) == 1
    assert split_half(np.array([1, 2, 1])) == 1
    assert split_half(np.array([3, 1, 1, 1])) == 1


# -- note_against_default: strictly worse only, not inherited ---------------------------------


def test_graph_method_is_noted_only_when_strictly_worse_than_the_default_order():
    """A 4-task path on a line of 4 nodes, one core each: the default order puts path
    neighbours on line neighbours, the least any mapping can do, so the family's
    ``greedy+uwh`` finds a mapping that ties with it (predicted time equal): no note.  The
    order [0, 2, 1, 3] sends 0 -> 1 and 2 -> 3 two hops: worse, noted with both scores.

    Mutation check: ``>=`` in the comparison notes the tie and fails the first assertion.
    """
    g, m = TaskGraph.stencil([4]), torus_machine([4], wrap=False)
    problem = Problem(g, m)
    tie = apply(graph_family.candidate("greedy+uwh"), problem)
    assert tie.metric("predicted_time") == mpitaskmap.identity_mapping(g, m).metric("predicted_time")
    assert graph_family.WORSE_THAN_DEFAULT not in tie.info
    worse = graph_family.note_against_default(Mapping([0, 2, 1, 3], m, g), problem)
    note = worse.info[graph_family.WORSE_THAN_DEFAULT]
    assert note["value"] > note["default"] == tie.metric("predicted_time")


def test_refined_candidate_does_not_inherit_its_starts_note():
    """The refinements copy their start's ``info``; a note about the start is not about the
    refined mapping, so the search's second stage drops it.  Start: ``bisection`` on the
    walkthrough input, noted (predicted time 2.756e-06 s against the default order's
    2.195e-06 s).

    Mutation check: without the drop in ``scoring._apply_refined`` the refined mapping
    carries the note.
    """
    g, m = walkthrough_input()
    problem = Problem(g, m)
    start = graph_family.candidate("bisection")
    assert graph_family.WORSE_THAN_DEFAULT in apply(start, problem).info
    refined = apply(refinement_candidates([start], "predicted_time")[0], problem)
    assert graph_family.WORSE_THAN_DEFAULT not in refined.info


# -- auto over the graph family: never worse than the default order by the objective ----------


def _moved(graph, machine, task_to_proc) -> float:
    """Objective: tasks off their default processor; the default order scores 0, every other mapping more."""
    return float(np.count_nonzero(np.asarray(task_to_proc) != np.arange(graph.n_tasks)))


@pytest.mark.parametrize("judge", [None, "fluid"])
def test_auto_over_the_graph_family_never_returns_a_mapping_worse_than_the_default(judge):
    """On the walkthrough input every graph candidate moves tasks, so by the objective
    ``_moved`` each is worse than the default order (0).  The search lists the identity
    first and keeps the lowest (score, index); the judge replays only candidates scoring no
    worse than it.  So ``auto`` returns the default order, candidate 0, with or without the
    judge -- although the judge's replay finds graph mappings faster (the fluid replay of
    ``geometric+uwh fz`` is about 1.1e-06 s against the default order's 4.1e-06 s).
    """
    g, m = walkthrough_input()
    also = {} if judge is None else {"judge_also": ()}
    mapping = mpitaskmap.map(g, m, "auto", families="graph", metric=_moved, judge=judge, **also)
    assert mapping.info["candidate_index"] == 0 and _moved(g, m, mapping.task_to_proc) == 0.0


def test_auto_with_judge_also_never_returns_a_mapping_worse_than_the_default():
    """As above with the judge's second opinion on (``judge_also=("latency",)``, the default
    of an explicit ``judge="fluid"`` and of the command line's auto): the best candidate by
    Latency(M), ``geometric+uwh fz`` (objective 510 tasks moved), is replayed and picked."""
    g, m = walkthrough_input()
    mapping = mpitaskmap.map(g, m, "auto", families="graph", metric=_moved, judge="fluid", judge_also=("latency",))
    assert _moved(g, m, mapping.task_to_proc) == 0.0
