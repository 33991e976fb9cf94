"""PERCS as a machine like any other: provider, candidate families, skipped candidates."""

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, NotApplicableError, best_of, candidate_list
from mpitaskmap import Candidate, Problem
from mpitaskmap.search.scoring import apply
from mpitaskmap.mappers.percs.patterns import halo_graph
from mpitaskmap.machines.percs import PercsMachine
from mpitaskmap.providers import Location, NetworkInfo, assemble_machine, get_provider, machine_from_provider


def test_sim_percs_provider_builds_the_whole_system():
    p = get_provider("sim:percs:ns=2,nd=2,routing=indirect")
    assert p.locate(0, 256) == Location((0, 0, 0), "sn0-d0-n0")
    assert p.locate(255, 256) == Location((1, 3, 7), "sn1-d3-n7")
    m = machine_from_provider(p, 256)
    assert isinstance(m, PercsMachine) and (m.n_s, m.n_d, m.routing) == (2, 2, "indirect")
    assert p.network().kind == "percs"


def test_percs_machine_needs_the_whole_system_in_order():
    net = NetworkInfo(dims=(2, 4, 8), wrap=False, kind="percs", options=(("n_d", 1), ("routing", "direct")))
    locs = [Location((0, 0, 0), "a")] * 4
    with pytest.raises(InvalidInputError, match="whole system of 256 processors; got 4 ranks"):
        assemble_machine(locs, net, name="x")


def test_candidate_search_over_three_families_skips_inapplicable_strategies():
    m = PercsMachine(2, 2)
    g = halo_graph(16, 16)  # mod-colouring needs P a multiple of 32 and Q >= 64: not applicable
    cands = candidate_list(g, m, families=["geometric", "percs"], include_identity=True, rotate=False)
    res = best_of(g, m, cands, metric="latency")
    labels = [c.label() for c in cands]
    skipped = [labels[i] for i, s in enumerate(res.scores) if s == float("inf")]
    assert skipped == ["percs mod_colouring"]
    assert res.score == min(res.scores) <= res.scores[0]
    with pytest.raises(NotApplicableError, match="mod-colouring needs P a multiple of 32"):
        apply(Candidate.make("percs", "mod_colouring"), Problem(g, m))


def test_best_of_with_no_applicable_candidate():
    m = PercsMachine(2, 1)
    g = halo_graph(16, 16)
    with pytest.raises(InvalidInputError, match="none of the 1 candidates applies"):
        best_of(g, m, [Candidate.make("percs", "mod_colouring")])


def test_percs_machine_needs_ranks_in_processor_order():
    m = PercsMachine(2, 1)
    def loc(c):
        return Location(tuple(int(v) for v in c), "sn{}-d{}-n{}".format(*c))

    locs = [loc(m.locate(r)[0, :3]) for r in range(m.n_procs)]
    net = NetworkInfo(dims=(2, 4, 8), wrap=False, kind="percs", options=(("n_d", 1), ("routing", "direct")))
    assert isinstance(assemble_machine(locs, net, name="ok"), PercsMachine)
    # processor 4 is node 1 of drawer 0: a rank 4 on node 0 breaks the order
    locs[4] = loc((0, 0, 0))
    with pytest.raises(InvalidInputError, match=r"rank 4 is on PERCS node \(0, 0, 0\) but processor 4 is on \(0, 0, 1\)"):
        assemble_machine(locs, net, name="bad")
