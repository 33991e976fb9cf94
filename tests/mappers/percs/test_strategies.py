"""PERCS strategies and the perfect colouring; the published throughput formulas."""

import numpy as np
import pytest

from mpitaskmap import Problem, candidate_list
from mpitaskmap.search.scoring import apply
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.mappers.percs.patterns import halo_graph, transpose_graph
from mpitaskmap.machines.percs import PercsMachine
from mpitaskmap.mappers.percs import check_perfect_colouring, colouring_defects, map_blocking, map_default, map_mod_colouring, map_percs, map_transpose, mod_colouring, nice_permutation, STRATEGIES, throughput


def loads(mapping):
    g = mapping.graph
    return mapping.machine.link_loads(g.indptr, g.indices, g.weights, mapping.task_to_proc)


# ---------------------------------------------------------------- colouring --------


@pytest.mark.parametrize("R", [4, 8, 12, 16, 64])
@pytest.mark.parametrize("q", [8, 16, 32, 64, 128])
def test_mod_colouring_is_perfect(R, q):
    c = mod_colouring(R, q)
    assert colouring_defects(c) == []
    assert np.array_equal(np.bincount(c.ravel()), np.full(R * q // 2, 2))


def test_checker_finds_defects():
    assert not check_perfect_colouring([[0, 1], [1, 0]])
    c = mod_colouring(4, 8).copy()
    c[0, 0], c[0, 1] = c[0, 1], c[0, 0]  # a swap next to each other breaks distinctness
    assert colouring_defects(c)
    assert "used 1 times" in colouring_defects([[0, 0, 1]])[1]
    # the plain sequential pairing (both rows identity) is not perfect: 0 is next to itself
    assert not check_perfect_colouring(np.tile(np.arange(8), (4, 1)) + 8 * (np.arange(4)[:, None] // 2))


def test_nice_permutation():
    for q in (8, 16, 64):
        s = nice_permutation(q)
        assert sorted(s.tolist()) == list(range(q))
        assert s.tolist() == [(5 * i + 2) % q for i in range(q)]
    with pytest.raises(InvalidInputError, match="power of two"):
        nice_permutation(12)


# ---------------------------------------------------------------- strategies -------


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_every_strategy_is_a_permutation(name):
    m = PercsMachine(16, 2)
    g = halo_graph(32, 64) if not name.startswith("transpose") else transpose_graph(16, 128)
    mp = map_percs(g, m, method=name, seed=3)
    assert mp.is_permutation
    if name.endswith("random"):
        assert np.array_equal(mp.task_to_proc, map_percs(g, m, method=name, seed=3).task_to_proc)


def test_blocking_units():
    m = PercsMachine(2, 1)
    g = halo_graph(16, 16)
    t = np.arange(256)
    x, y = t % 16, t // 16
    for layout, shapes in (("paper", ((2, 2), (8, 4), (16, 8))), ("flat", ((2, 2), (4, 8), (8, 16)))):
        for level, (al, be), size in zip(("node", "drawer", "supernode"), shapes, (4, 32, 128)):
            ttp = map_blocking(g, m, level=level, layout=layout).task_to_proc
            block = x // al + (16 // al) * (y // be)
            assert np.array_equal(ttp // size, block)  # one block per hardware unit, in order
            rnd = map_blocking(g, m, level=level, order="random", seed=1, layout=layout).task_to_proc
            assert len(np.unique(rnd // size)) == 256 // size
            assert all(len(np.unique(rnd[block == k] // size)) == 1 for k in range(256 // size))
            if level != "supernode":  # 2 supernode blocks may well keep their order
                assert not np.array_equal(rnd, ttp)


def test_paper_layout_quads_to_nodes_sequentially():
    # paper section V-C: the 16x8 supernode block cut into 2x2 quads, quad k (x fastest,
    # 8 quads per row) on node k -- so a drawer holds a 16x2 strip of the block
    g = halo_graph(32, 16)
    ttp = map_blocking(g, PercsMachine(4, 1), level="supernode").task_to_proc
    t = np.arange(512)
    x, y = t % 32, t // 32
    assert np.array_equal(ttp // 4, (x % 16) // 2 + 8 * ((y % 8) // 2) + 32 * ((x // 16) + 2 * (y // 8)))
    drawer = ttp // 32
    assert np.array_equal(drawer % 4, (y % 8) // 2)
    # a drawer block (8x4) is 4x2 quads, in the same order
    dr = map_blocking(g, PercsMachine(4, 1), level="drawer").task_to_proc
    assert np.array_equal(dr // 4, (x % 8) // 2 + 4 * ((y % 4) // 2) + 8 * ((x // 8) + 4 * (y // 4)))
    assert np.array_equal(ttp % 4, x % 2 + 2 * (y % 2))
    # the flat layout puts 4 consecutive tasks along x on one node
    flat = map_blocking(g, PercsMachine(4, 1), level="supernode", layout="flat").task_to_proc
    assert np.array_equal(flat[:8] // 4, [0, 0, 0, 0, 1, 1, 1, 1])
    with pytest.raises(ValueError, match="layout"):
        map_blocking(g, PercsMachine(4, 1), layout="snake")


def test_mod_colouring_layout():
    m = PercsMachine(16, 1)
    mp = map_mod_colouring(halo_graph(32, 64), m)
    ttp = mp.task_to_proc
    t = np.arange(2048)
    x, y = t % 32, t // 32
    # every 2x2 quad on one node, every 8x8 block on 16 nodes (two drawers) of one supernode
    quad = (x // 2) + 16 * (y // 2)
    assert all(len(np.unique(ttp[quad == k] // 4)) == 1 for k in range(512))
    block = (x // 8) + 4 * (y // 8)
    for k in range(32):
        nodes = np.unique(ttp[block == k] // 4)
        assert len(nodes) == 16 and len(np.unique(nodes // 32)) == 1 and len(np.unique((nodes % 32) // 16)) == 1


def test_mod_colouring_transposes_a_grid_that_fits_only_transposed():
    # 64 x 32 fails P % 32 == 0 with Q >= 64 as given, and fits with x and y exchanged
    m = PercsMachine(16, 1)
    tr = map_mod_colouring(halo_graph(64, 32), m)
    ref = map_mod_colouring(halo_graph(32, 64), m).task_to_proc
    t = np.arange(2048)
    x, y = t % 64, t // 64
    assert tr.info["transposed"] is True
    assert np.array_equal(tr.task_to_proc, ref[y + 32 * x])
    assert map_mod_colouring(halo_graph(32, 64), m).info["transposed"] is False


def test_mod_colouring_preconditions():
    m = PercsMachine(64, 1)
    with pytest.raises(InvalidInputError, match="P a multiple of 32"):
        map_mod_colouring(halo_graph(48, 64), m)
    with pytest.raises(InvalidInputError, match="Q a power of two >= 64"):
        map_mod_colouring(halo_graph(32, 96), m)
    with pytest.raises(InvalidInputError, match="Q a power of two >= 64"):
        map_mod_colouring(halo_graph(96, 32), m)
    with pytest.raises(InvalidInputError, match="do not fit"):
        map_mod_colouring(halo_graph(64, 64), PercsMachine(16, 1))


def test_transpose_hybrid_keeps_short_lines():
    m = PercsMachine(4, 1)
    assert map_transpose(transpose_graph(8, 64), m).info["lines"] == "row"
    assert map_transpose(transpose_graph(64, 8), m).info["lines"] == "column"
    col = map_transpose(transpose_graph(64, 8), m, kind="column").task_to_proc
    assert col[:3].tolist() == [0, 8, 16] and col[64] == 1


def test_unknown_names():
    m = PercsMachine(2, 1)
    with pytest.raises(ValueError, match="supernode_sequential"):
        map_percs(halo_graph(16, 16), m, method="snake")
    with pytest.raises(ValueError, match="level"):
        map_blocking(halo_graph(16, 16), m, level="rack")
    with pytest.raises(InvalidInputError, match="P % 16"):
        map_blocking(halo_graph(12, 16), m, level="supernode")
    with pytest.raises(InvalidInputError, match="P % 8"):
        map_blocking(halo_graph(12, 16), m, level="supernode", layout="flat")


def test_candidate_family():
    m = PercsMachine(32, 1)
    g = halo_graph(64, 64)
    cands = candidate_list(g, m, families=["percs"])
    assert [c.method for c in cands] == ["supernode_sequential", "drawer_sequential", "node_sequential",
                                         "mod_colouring"]
    assert apply(cands[-1], Problem(g, m)).method == "percs mod_colouring"
    assert candidate_list(halo_graph(16, 16), PercsMachine(2, 1).with_routing("indirect"), families=["percs"])
    # no candidates off PERCS machines
    from mpitaskmap import torus_machine

    assert candidate_list(g, torus_machine([64, 64]), families="percs") == []


# ---------------------------------------------------------------- throughput -------


def test_throughput_formula():
    L = loads(map_default(halo_graph(64, 64), PercsMachine(32, 2)))
    mx = {r["link"]: r["max_data"] for r in L.by_class()}
    t = max(mx["LL"] / 21, mx["LR"] / 5, mx["D"] / 10)
    assert throughput(L) == pytest.approx(4 / t)
    assert min(throughput(L, link_class=k) for k in L.class_names) == pytest.approx(throughput(L))


def test_throughput_normalisation_idle_links_and_unknown_classes():
    L = loads(map_default(halo_graph(64, 64), PercsMachine(32, 2)))
    assert throughput(L, volume_per_node=8.0) == 2 * throughput(L) == 8 / L.max_latency()
    # 4 tasks on processors 0..3, one node: nothing crosses a link, any throughput is possible
    idle = loads(map_default(halo_graph(2, 2), PercsMachine(2, 1)))
    assert throughput(idle) == throughput(idle, link_class="D") == float("inf")
    with pytest.raises(InvalidInputError, match=r"link_class: 'X\+' is not a class of these loads \['LL', 'LR', 'D'\]"):
        throughput(L, link_class="X+")


def test_indirect_beats_direct_for_halo():
    g = halo_graph(64, 64)
    for n_d in (1, 4):
        mp = map_blocking(g, PercsMachine(32, n_d), level="supernode")
        direct = throughput(loads(mp))
        indirect = mp.machine.with_routing("indirect").link_loads(g.indptr, g.indices, g.weights, mp.task_to_proc)
        assert throughput(indirect) > direct


@pytest.mark.parametrize("n_d, paper, neck", [(4, 134, "LL"), (8, 183, "LR"), (16, 168, "LL")])
def test_supernode_blocking_reproduces_table_three(n_d, paper, neck):
    # paper Table III (halo 64x64, n_s = 32, indirect routing), column SN SEQ; nesting drawer
    # blocks inside the supernode block instead gave 119.5, 168.0 (LL) and 149.3
    g = halo_graph(64, 64)
    m = PercsMachine(32, n_d, routing="indirect")
    loads = m.link_loads(g.indptr, g.indices, g.weights, map_blocking(g, m, level="supernode").task_to_proc)
    assert round(throughput(loads)) == paper
    assert loads.bottleneck() == neck
