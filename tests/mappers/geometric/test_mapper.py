"""Geometric mapper: the three mapping cases, hand-checked small cases, candidates, best_of."""

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, TaskGraph, hopper_machine, identity_mapping, titan_machine, torus_machine
from mpitaskmap.machines import TorusMachine
from mpitaskmap import Candidate, best_of, candidate_list
from mpitaskmap.search.families.geometric import candidate, rotations
from mpitaskmap.search.families.identity import CANDIDATE as IDENTITY_CANDIDATE


def _tasks(d: int) -> TaskGraph:
    """A task graph whose coordinates vary in ``d`` dimensions."""
    return TaskGraph.stencil([3] * d)
from mpitaskmap.mappers.geometric.mapper import map_geometric, processor_coords, select_compact_subset


@pytest.mark.parametrize("ordering", ["fz", "z", "gray", "hilbert"])
def test_matching_grid_on_mesh_is_optimal_for_every_ordering(ordering):
    # A 4x4 task grid on a 4x4 mesh: every ordering pairs task parts and processor parts of
    # identical trees, so each task lands on the processor with its own coordinates.
    g = TaskGraph.stencil([4, 4])
    m = torus_machine([4, 4], wrap=False)
    mp = map_geometric(g, m, ordering=ordering, shift=False)
    assert mp.is_permutation
    assert mp.metric("average_hops") == 1.0
    assert np.array_equal(m.router_coords[mp.task_to_proc], g.coords.astype(int))


def test_mfz_numbers_processors_with_the_lower_side_flipped():
    # 8 tasks on a line, 8 processors on a line: FZ tasks vs flipped-lower processors.
    # FZ leaf order of positions: 0 1 3 2 6 7 5 4 -> the task at part j goes to the processor
    # whose MFZ part is j; MFZ of 8 points is 3 2 0 1 5 4 6 7 (positions -> parts).
    g = TaskGraph.stencil([8])
    mp = map_geometric(g, torus_machine([8], wrap=False), ordering="mfz", shift=False)
    fz = [0, 1, 3, 2, 6, 7, 5, 4]
    mfz = [3, 2, 0, 1, 5, 4, 6, 7]
    expected = [mfz.index(fz[t]) for t in range(8)]
    assert mp.task_to_proc.tolist() == expected


def test_line_of_tasks_onto_scrambled_line_of_processors():
    # processors listed in scrambled order: the mapping must put task i on the processor at x = i
    xs = [5, 2, 7, 0, 3, 6, 1, 4]
    m = torus_machine([8], wrap=False)
    m2 = type(m)(np.array(xs)[:, None], dims=[8], wrap=False)
    g = TaskGraph.stencil([8])
    mp = map_geometric(g, m2, shift=False)
    assert [xs[p] for p in mp.task_to_proc] == list(range(8))
    assert mp.metric("total_hops") == 14


def test_2x2x2_cube_onto_rotated_cube():
    g = TaskGraph.stencil([2, 2, 2])
    m = torus_machine([2, 2, 2], wrap=False)
    for ordering in ("fz", "z", "gray"):
        mp = map_geometric(g, m, ordering=ordering)
        assert mp.metric("total_hops") == 24  # 12 undirected unit edges, both directions


def test_more_tasks_than_processors_balanced_within_one():
    g = TaskGraph.stencil([10, 3])
    m = torus_machine([4], wrap=False)
    with pytest.raises(InvalidInputError, match="graph: 30 tasks do not fit on 4 processors one task each"):
        map_geometric(g, m)  # several tasks per processor only when asked for
    mp = map_geometric(g, m, oversubscribe=True)
    assert sorted(mp.tasks_per_proc().tolist()) == [7, 7, 8, 8]
    # each processor holds a contiguous slab of x
    xs = [sorted(set(g.coords[mp.task_to_proc == p, 0].astype(int).tolist())) for p in range(4)]
    assert all(x == list(range(x[0], x[-1] + 1)) for x in xs)


def test_fewer_tasks_than_processors_picks_a_compact_subset():
    g = TaskGraph.stencil([2, 2])
    coords = [[0, 0], [7, 7], [1, 0], [7, 0], [0, 1], [1, 1], [4, 4]]
    m = type(torus_machine([8, 8]))(coords, dims=[8, 8], wrap=False)
    mp = map_geometric(g, m, shift=False)
    assert sorted(mp.task_to_proc.tolist()) == [0, 2, 4, 5]
    assert mp.idle_processors().tolist() == [1, 3, 6]
    assert mp.info["idle_processors"] == 3
    assert mp.metric("average_hops") == 1.0


def test_select_compact_subset_on_a_line():
    assert select_compact_subset([[0.0], [10.0], [11.0], [1.0], [12.0]], 3).tolist() == [1, 2, 4]
    with pytest.raises(InvalidInputError, match=r"must lie in \[1, 5\]"):
        select_compact_subset([[0.0]] * 5, 6)


def test_torus_shift_helps_an_allocation_across_the_wrap():
    # processors at x = 6,7,0,1 on a ring of 8: without the shift MJ sees two far groups
    m = type(torus_machine([8]))([[6], [7], [0], [1]], dims=[8])
    g = TaskGraph.stencil([4])
    assert map_geometric(g, m, shift=True).metric("total_hops") == 6
    assert map_geometric(g, m, shift=False).metric("total_hops") > 6


def test_mj_on_a_fully_occupied_ring_follows_the_lightest_pair_shift():
    # 8 processors on the 4 routers of a 1-D torus, 2, 1, 2, 3 per router (issue 13).
    # torus_shift opens the ring between routers 0 and 1 (weight 2+1 = 3, the first of the
    # two lightest pairs; the wrap pair weighs 3+2 = 5), so router 0 becomes coordinate 4.
    # FZ on the 8-task chain: task parts [0, 1, 3, 2, 6, 7, 5, 4].  Processor side, keys =
    # shifted coordinates, ties by index in every frame (a flip mirrors keys, not indices):
    #   root: lower half = the 4 smallest (coord, index): procs 2 (1), 3 (2), 4 (2), 5 (3);
    #   lower half: left {2, 3} -> parts 0, 1; right {4, 5} flipped (keys -2, -3) -> 5: 2, 4: 3;
    #   upper half flipped: keys 6: -3, 7: -3, 0: -4, 1: -4; left = {0, 1}, tie by index
    #   -> 0: 4, 1: 5; right {6, 7} flipped back (3, 3), tie by index -> 6: 6, 7: 7.
    # Task t goes to the processor of its part: parts 0..7 = procs 2, 3, 5, 4, 0, 1, 6, 7.
    m = TorusMachine([[0], [0], [1], [2], [2], [3], [3], [3]], dims=[4])
    g = TaskGraph.stencil([8])
    proc_of_part = [2, 3, 5, 4, 0, 1, 6, 7]
    expected = [proc_of_part[p] for p in [0, 1, 3, 2, 6, 7, 5, 4]]
    assert expected == [2, 3, 4, 5, 6, 7, 1, 0]
    assert map_geometric(g, m).task_to_proc.tolist() == expected
    # without the shift (keys = coordinates 0, 0, 1, 2, 2, 3, 3, 3) the same derivation:
    #   lower half {0, 1, 2, 3}: left {0, 1} -> 0: 0, 1: 1; right flipped (2: -1, 3: -2) -> 3: 2, 2: 3;
    #   upper half flipped (4: -2, 5, 6, 7: -3): left {5, 6} -> 5: 4, 6: 5; right {4, 7}
    #   flipped back (4: 2, 7: 3) -> 4: 6, 7: 7.  Parts 0..7 = procs 0, 1, 3, 2, 5, 6, 4, 7.
    proc_of_part = [0, 1, 3, 2, 5, 6, 4, 7]
    expected = [proc_of_part[p] for p in [0, 1, 3, 2, 6, 7, 5, 4]]
    assert expected == [0, 1, 2, 3, 4, 7, 6, 5]
    assert map_geometric(g, m, shift=False).task_to_proc.tolist() == expected


def test_processor_coords_variants_and_errors():
    m = titan_machine(8, cores_per_node=1, seed=0)
    assert processor_coords(m, box=(2, 2, 8)).shape[1] <= 6
    assert processor_coords(m, bandwidth=True).shape[1] <= 3
    with pytest.raises(InvalidInputError, match="not both"):
        processor_coords(m, bandwidth=True, box=(2, 2, 8))


def test_bad_input():
    g = TaskGraph.from_edges([0], [1], n_tasks=2)
    with pytest.raises(InvalidInputError, match="no coordinates"):
        map_geometric(g, torus_machine([2]))
    with pytest.raises(InvalidInputError, match="unknown 'spiral'"):
        map_geometric(TaskGraph.stencil([2]), torus_machine([2]), ordering="spiral")
    with pytest.raises(InvalidInputError, match="non-finite"):
        map_geometric(np.array([[0.0], [np.nan]]), torus_machine([2]))


def test_rotations_and_candidate_counts():
    assert rotations(1) == []
    assert len(rotations(3)) == 6 and len(rotations(5)) == 10
    m = torus_machine([4, 4, 4])  # full torus, uniform bandwidth: shift is a no-op
    cands = candidate_list(_tasks(3), m)
    # one variant; fz, mfz, z, gray each 6*6 + 6 + 6 + 1 = 49, plus one Hilbert
    assert len(cands) == 4 * 49 + 1
    assert cands[0] == candidate("fz") == Candidate.make(
        "geometric", "mj", ordering="fz", task_perm=None, proc_perm=None, shift=True, bandwidth=False, box=None,
        drop=())
    assert cands[0].label() == "geometric fz T* P* shift"
    with_id = candidate_list(_tasks(3), m, include_identity=True)
    assert with_id[0] == IDENTITY_CANDIDATE and with_id[0].family == "identity" and with_id[1:] == cands
    # 2-D tasks on a 3-D machine: no MFZ (neither count divides the other)
    assert {c.option("ordering") for c in candidate_list(_tasks(2), m)} == {"fz", "z", "gray", "hilbert"}
    # tasks without coordinates: no geometric candidates
    assert candidate_list(TaskGraph.from_edges([0], [1], [1.0], n_tasks=2), torus_machine([2])) == []


def test_candidate_list_is_deterministic_and_variants_follow_the_machine():
    t = titan_machine(32, cores_per_node=2, seed=5)
    a, b = candidate_list(_tasks(3), t), candidate_list(_tasks(3), t)
    assert a == b and [c.label() for c in a] == [c.label() for c in b]
    labels = {(c.option("shift"), c.option("bandwidth"), c.option("box")) for c in a}
    assert (True, True, None) in labels and (True, False, (2, 2, 8)) in labels
    bgq_like = torus_machine([2, 2, 2, 2, 2])
    assert any(c.option("drop") for c in candidate_list(_tasks(3), bgq_like)) is False  # every dim has length 2
    five = torus_machine([4, 3, 2, 2, 2], wrap=True)
    assert any(c.option("drop") == (2, 3, 4) for c in candidate_list(_tasks(3), five))


def test_best_of_on_hopper_beats_default_and_identity_candidate_guards():
    g = TaskGraph.stencil([8, 8, 8])
    m = hopper_machine()
    cands = candidate_list(g, m, include_identity=True, orderings=["fz", "z"], rotate=False)
    res = best_of(g, m, cands, metric="weighted_hops")
    default = identity_mapping(g, m).metric("weighted_hops")
    assert res.scores[0] == default == 7440.0
    assert res.score == min(res.scores) < 0.65 * default
    assert res.mapping.info["candidate_index"] == res.index
    # ties go to the lowest index
    same = best_of(g, m, [IDENTITY_CANDIDATE] * 3)
    assert same.index == 0


def test_best_of_errors():
    g, m = TaskGraph.stencil([2]), torus_machine([2])
    with pytest.raises(InvalidInputError, match="empty"):
        best_of(g, m, [])
    with pytest.raises(InvalidInputError, match="unknown 'hops'"):
        best_of(g, m, [candidate()], metric="hops")


@pytest.mark.parametrize("seed", range(6))
def test_every_result_is_a_valid_mapping_on_random_allocations(seed):
    rng = np.random.default_rng(seed)
    nodes = int(rng.integers(2, 40))
    cpn = int(rng.integers(1, 5))
    m = titan_machine(nodes, cores_per_node=cpn, seed=seed)
    n_tasks = int(rng.integers(1, 3 * m.n_procs))
    coords = rng.integers(0, 6, size=(n_tasks, int(rng.integers(1, 4)))).astype(float)
    graph = TaskGraph.from_edges([], [], [], n_tasks=n_tasks, coords=coords)
    for cand in candidate_list(graph, m, rotate=False, oversubscribe=True)[:8]:
        o = dict(cand.options)
        mp = map_geometric(coords, m, ordering=o["ordering"], shift=o["shift"], bandwidth=o["bandwidth"], box=o["box"],
                           oversubscribe=True)
        load = mp.tasks_per_proc()
        if n_tasks >= m.n_procs:
            assert load.min() >= n_tasks // m.n_procs and load.max() <= -(-n_tasks // m.n_procs)
        else:
            assert load.max() == 1 and load.sum() == n_tasks


def test_identical_task_and_processor_coordinates_share_one_partition():
    # task coordinates equal to the processor coordinates (row for row) give the same MJ
    # tree on both sides: every task on the processor of its own row, for any ordering and
    # rotation that both sides share; sides that differ in ordering (mfz numbers processors
    # with the lower side flipped) or rotation are partitioned separately.
    from mpitaskmap.mappers.geometric.mj import mj_partition

    m = torus_machine([4, 6, 2], wrap=False)
    rng = np.random.default_rng(3)
    scrambled = rng.permutation(m.n_procs)
    coords = m.router_coords.astype(float)
    for ordering in ("fz", "z", "gray", "hilbert"):
        for perm in (None, [1, 0, 2]):
            mp = map_geometric(coords, m, ordering=ordering, shift=False, task_perm=perm, proc_perm=perm)
            assert mp.task_to_proc.tolist() == list(range(m.n_procs))
    # the same points in another row order are not shared, and still map each task home
    mp = map_geometric(coords[scrambled], m, shift=False)
    assert mp.task_to_proc.tolist() == scrambled.tolist()

    def composed(task_order, proc_order, task_perm, proc_perm):
        kw = dict(prime_split=True)
        tp = mj_partition(coords, m.n_procs, ordering=task_order, longest_dim=task_perm is None,
                          dim_order=task_perm, **kw)
        pp = mj_partition(coords, m.n_procs, ordering=proc_order, longest_dim=proc_perm is None,
                          dim_order=proc_perm, **kw)
        proc_of_part = np.empty(m.n_procs, dtype=np.intp)
        proc_of_part[pp] = np.arange(m.n_procs)
        return proc_of_part[tp].tolist()

    mfz = map_geometric(coords, m, ordering="mfz", shift=False).task_to_proc.tolist()
    assert mfz == composed("fz", "mfz", None, None) and mfz != list(range(m.n_procs))
    rot = map_geometric(coords, m, shift=False, task_perm=[0, 1, 2], proc_perm=[1, 0, 2]).task_to_proc.tolist()
    assert rot == composed("fz", "fz", [0, 1, 2], [1, 0, 2]) and rot != list(range(m.n_procs))
    one = map_geometric(coords, m, shift=False, task_perm=[1, 0, 2]).task_to_proc.tolist()
    assert one == composed("fz", "fz", [1, 0, 2], None) and one != list(range(m.n_procs))


# -- GeometricCache: a search's candidates share their partitions ---------------------------------
def _every_option():
    """Orderings x rotations x transformations, as a search lists them."""
    perms = [None, (0, 1, 2), (2, 1, 0), (1, 2, 0)]
    for shift in (True, False):
        for bandwidth in (False, True):
            for ordering in ("fz", "mfz", "z", "gray", "hilbert"):
                for tp in perms:
                    for pp in perms:
                        yield dict(ordering=ordering, task_perm=tp, proc_perm=pp, shift=shift, bandwidth=bandwidth)


@pytest.mark.parametrize("n_tasks", [64, 48])  # every processor; a compact subset of them
def test_the_cache_gives_every_candidate_the_mapping_it_has_without_it(n_tasks, monkeypatch):
    from mpitaskmap.mappers.geometric import mapper
    from mpitaskmap.mappers.geometric.mapper import GeometricCache

    m = torus_machine([4, 4, 4], wrap=[True, True, False], bandwidth=[[1.0] * 4, [2.0] * 4, [1.0] * 4])
    g = TaskGraph.stencil([4, 4, 4] if n_tasks == 64 else [4, 4, 3])
    runs = []
    partition = mapper._partition_finite
    monkeypatch.setattr(mapper, "_partition_finite", lambda *a, **k: runs.append(k["ordering"]) or partition(*a, **k))
    options = list(_every_option())
    alone = [map_geometric(g, m, **opt).task_to_proc for opt in options]
    runs_alone = len(runs)
    runs.clear()
    cache = GeometricCache(g, m)
    for opt, expected in zip(options, alone):
        np.testing.assert_array_equal(map_geometric(g, m, cache=cache, **opt).task_to_proc, expected, err_msg=str(opt))
    # each partition once: the tasks' by ordering (mfz numbers them as fz) and rotation, the
    # processors' by transformation, ordering and rotation
    task_keys = {("fz" if o["ordering"] == "mfz" else o["ordering"], o["task_perm"]) for o in options}
    proc_keys = {(o["shift"], o["bandwidth"], o["ordering"], o["proc_perm"]) for o in options}
    assert len(runs) <= len(task_keys) + len(proc_keys) == 16 + 80 < runs_alone // 5
    assert cache.misses == 1 + 4 + len(runs) and cache.hits + cache.misses >= 3 * len(options)


def test_the_cache_keeps_the_most_recent_within_its_budget_and_serves_only_its_own_inputs():
    from mpitaskmap.mappers.geometric.mapper import GeometricCache

    m = torus_machine([4, 4, 4])
    g = TaskGraph.stencil([4, 4, 4])
    part = 64 * np.dtype(np.intp).itemsize  # one side's parts, or the processors' ids: 512 B
    coords = 64 * 3 * 8  # one side's coordinates
    cache = GeometricCache(g, m, max_bytes=16 * (part + coords))  # room for the processors' entry
    map_geometric(g, m, ordering="z", task_perm=(0, 1, 2), cache=cache)
    assert (cache.hits, cache.misses) == (0, 4)  # tasks, processors, task parts, processor parts
    map_geometric(g, m, ordering="z", task_perm=(0, 1, 2), proc_perm=(2, 1, 0), cache=cache)
    assert (cache.hits, cache.misses) == (3, 5)  # only the processors' new rotation computed
    assert cache._bytes == coords + (part + coords) + 3 * part
    # a budget below sixteen times an entry keeps none of them
    none = GeometricCache(g, m, max_bytes=16 * part - 1)
    map_geometric(g, m, cache=none)
    map_geometric(g, m, cache=none)
    assert none.hits == 0 and none._bytes == 0
    # past the budget the least recently used leave first: the oldest partitions, not the
    # coordinates every call reads
    small = GeometricCache(g, m, max_bytes=16 * (part + coords))
    first = ("proc parts", True, False, None, (), "fz", (1, 2, 0), True)
    perms = [(0, 1, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0), (1, 0, 2), (0, 2, 1)]
    for shift in (True, False):  # 2 x 4 x 6 processor partitions, 4 x 6 task ones: 36 KB > 32 KB
        for ordering in ("fz", "z", "gray", "hilbert"):
            for tp in perms:
                for pp in perms:
                    map_geometric(g, m, ordering=ordering, task_perm=tp, proc_perm=pp, shift=shift, cache=small)
                    assert small._bytes <= small.max_bytes
    last = ("proc parts", False, False, None, (), "hilbert", (1, 0, 2), True)
    assert first not in small._kept and last in small._kept
    assert ("tasks",) in small._kept and ("procs", False, False, None, ()) in small._kept
    with pytest.raises(InvalidInputError, match="serves the tasks and machine it was made for"):
        map_geometric(TaskGraph.stencil([4, 4, 4]), m, cache=cache)
    with pytest.raises(InvalidInputError, match="serves the tasks and machine it was made for"):
        map_geometric(g, torus_machine([4, 4, 4]), cache=cache)
    with pytest.raises(InvalidInputError, match="not with task_coords"):
        map_geometric(g, m, cache=cache, task_coords=g.coords)
    with pytest.raises(InvalidInputError, match="max_bytes: expected an int >= 0"):
        GeometricCache(g, m, max_bytes=-1)
