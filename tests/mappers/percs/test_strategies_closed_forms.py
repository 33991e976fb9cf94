"""Closed-form throughputs of the PERCS strategies (halo, direct and indirect routing),
checked against the exact simulator on n_s = 16 (64 x 32 grid) and 32 (64 x 64) for
n_d = 1..16.  The formulas are those of the strategy notes in
:mod:`mpitaskmap.mappers.percs.strategies`; throughput is GB/s per node (4 / t)."""

import numpy as np
import pytest

from mpitaskmap.mappers.percs.patterns import halo_graph

from mpitaskmap.machines.percs import PercsMachine

from mpitaskmap.mappers.percs import map_percs, throughput

GRIDS = {16: (64, 32), 32: (64, 64)}
N_D = [1, 2, 4, 8, 16]
_GRAPHS = {n_s: halo_graph(*shape) for n_s, shape in GRIDS.items()}

#: direct routing, D-bound: 40 n_d / (units on the busiest supernode pair)
DIRECT_D = {"default": 2.5, "node_sequential": 2.5, "drawer_sequential": 5.0, "supernode_sequential": 10.0,
            "mod_colouring": 20.0}
#: indirect routing: inter-supernode volume V leaving (and entering) every supernode;
#: D-class throughput 20 n_s n_d / V
INDIRECT_V = {"default": 32, "node_sequential": 32, "drawer_sequential": 18, "supernode_sequential": 12,
              "mod_colouring": 16}


def loads(strategy, n_s, n_d, routing="direct", model="paper"):
    g = _GRAPHS[n_s]
    m = PercsMachine(n_s, n_d, routing=routing, model=model)
    return m.link_loads(g.indptr, g.indices, g.weights, map_percs(g, m, method=strategy).task_to_proc)


def class_max_data(L):
    return {r["link"]: r["max_data"] for r in L.by_class()}


@pytest.mark.parametrize("n_s", sorted(GRIDS))
@pytest.mark.parametrize("n_d", N_D)
@pytest.mark.parametrize("strategy", ["default", "node_sequential", "drawer_sequential", "supernode_sequential"])
def test_direct_blocking_is_d_bound_at_its_closed_form(strategy, n_d, n_s):
    # default / node blocking: a supernode holds a 64 x 2 strip, 16 units to each y
    # neighbour; drawer blocking a 32 x 4 strip (8 units); supernode blocking a 16 x 8
    # block (4 units): 40 n_d / units GB/s, and no L link limits up to n_d = 16.
    L = loads(strategy, n_s, n_d)
    assert class_max_data(L)["D"] == pytest.approx(40 / DIRECT_D[strategy] / n_d)
    assert throughput(L) == pytest.approx(DIRECT_D[strategy] * n_d)
    assert L.bottleneck() == "D"


@pytest.mark.parametrize("n_s", sorted(GRIDS))
@pytest.mark.parametrize("n_d", N_D)
def test_direct_mod_colouring_closed_form(n_d, n_s):
    # D links alone allow 20 n_d (2 units per pair); an LR link carries two L hops of
    # 1 / (2 n_d) each plus 1/16 of striped intra-supernode traffic: 320 n_d / (16 + n_d)
    L = loads("mod_colouring", n_s, n_d)
    assert throughput(L, link_class="D") == pytest.approx(20 * n_d)
    assert class_max_data(L)["LR"] == pytest.approx(1 / n_d + 1 / 16)
    assert throughput(L) == pytest.approx(320 * n_d / (16 + n_d))
    assert L.bottleneck() == "LR"


def test_published_cells_of_the_paper_model():
    # Table I (n_s = 32): mod-colouring at n_d = 8 is LR-bound at 107; supernode blocking
    # at n_d = 16 still reaches 160 (D and LR tie); drawer blocking 5 n_d
    mod = loads("mod_colouring", 32, 8)
    assert round(throughput(mod)) == 107 and mod.bottleneck() == "LR"
    sn = loads("supernode_sequential", 32, 16)
    assert throughput(sn) == pytest.approx(160) and throughput(sn, link_class="LR") == pytest.approx(160)
    assert [round(throughput(loads("drawer_sequential", 32, n_d))) for n_d in (1, 2, 4, 8)] == [5, 10, 20, 40]
    assert throughput(loads("default", 16, 4)) == pytest.approx(10)  # Table II, n_s = 16


@pytest.mark.parametrize("n_s", sorted(GRIDS))
@pytest.mark.parametrize("n_d", N_D)
@pytest.mark.parametrize("strategy", sorted(INDIRECT_V))
def test_indirect_d_links_closed_form(strategy, n_d, n_s):
    # every D link (a -> c) carries (out(a) + in(c)) / (n_s n_d) = 2 V / (n_s n_d)
    L = loads(strategy, n_s, n_d, routing="indirect")
    assert throughput(L, link_class="D") == pytest.approx(20 * n_s * n_d / INDIRECT_V[strategy])
    if n_d == 1:  # D-bound at n_d = 1, and better than direct routing
        assert L.bottleneck() == "D"
        assert throughput(L) > throughput(loads(strategy, n_s, n_d))


@pytest.mark.parametrize("n_d", N_D)
def test_d_loads_do_not_depend_on_the_l_hop_model(n_d):
    for strategy in ("default", "supernode_sequential", "mod_colouring"):
        p, s = loads(strategy, 32, n_d), loads(strategy, 32, n_d, model="striped")
        assert np.array_equal(p.data[p.link_class == 2], s.data[s.link_class == 2])


def test_striped_model_moves_the_limit_to_ll():
    # the previous model: mod-colouring at n_d = 8 is LL-bound at 137.8 (LL load 39/64)
    L = loads("mod_colouring", 32, 8, model="striped")
    assert L.bottleneck() == "LL"
    assert class_max_data(L)["LL"] == pytest.approx(39 / 64)
    assert throughput(L) == pytest.approx(4 * 21 * 64 / 39)


def test_uniform_model_gives_the_text_and_table_i_for_mod_colouring_not_for_supernode_blocking():
    # model "uniform" (every segment over all 32 nodes): LR link y->z carries (R(y) + C(z)) / 32
    mod = [loads("mod_colouring", 32, n_d, model="uniform") for n_d in (1, 2, 4, 8)]
    assert [round(throughput(L), 1) for L in mod] == [20.0, 40.0, 80.0, 106.7]
    assert [L.bottleneck() for L in mod] == ["D", "D", "D", "LR"]
    assert class_max_data(mod[-1])["LR"] == pytest.approx(6 / 32)
    sn = loads("supernode_sequential", 32, 16, model="uniform")
    assert throughput(sn) == pytest.approx(128) and sn.bottleneck() == "LR"  # the paper: 160
