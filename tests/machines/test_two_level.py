"""The shared group-level routing of two-level networks (dragonflies and PERCS): group_paths by hand."""

from __future__ import annotations

import numpy as np
import pytest

import mpitaskmap.machines as machines
import mpitaskmap.machines.dragonfly.dragonfly as dragonfly
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import two_level
from mpitaskmap.machines.percs.routing import GROUP_RULES, ROUTINGS
from mpitaskmap.machines.two_level import GROUP_ROUTINGS, GroupPaths, group_paths


def rows(p: GroupPaths) -> list[tuple]:
    return list(zip(p.pair.tolist(), p.via.tolist(), p.first.tolist(), p.second.tolist(), p.share.tolist()))


def test_one_implementation_for_both_machines():
    # the dragonfly module re-exports the shared function (nothing copied); PERCS names its rules by keywords
    assert dragonfly.group_paths is group_paths and dragonfly.GroupPaths is GroupPaths
    assert machines.group_paths is group_paths and machines.GroupPaths is GroupPaths
    assert GROUP_ROUTINGS == ("minimal", "valiant")
    assert set(GROUP_RULES) == set(ROUTINGS) and {r["routing"] for r in GROUP_RULES.values()} <= set(GROUP_ROUTINGS)
    assert GROUP_RULES == {"direct": {"routing": "minimal"},
                           "indirect": {"routing": "valiant", "ends": True, "paired": True}}


def test_minimal_one_direct_path_per_global_link():
    # pairs (0->2), (1->1) inside a group: no rows, (3->0); h = 3: a third on each link, second leg none
    p = group_paths([0, 1, 3], [2, 1, 0], 4, 3, "minimal")
    third = 1 / 3
    assert rows(p) == [(0, 2, 0, -1, third), (0, 2, 1, -1, third), (0, 2, 2, -1, third),
                       (2, 0, 0, -1, third), (2, 0, 1, -1, third), (2, 0, 2, -1, third)]
    assert all(x.dtype == np.int64 for x in p[:4]) and p.share.dtype == np.float64


def test_valiant_the_four_combinations_of_ends_and_paired():
    # G = 4, h = 2, pair 1 -> 2: intermediates 0, 3 (dragonfly) or 0..3 (ends); every (j1, j2) or j1 == j2
    dfly = group_paths([1], [2], 4, 2, "valiant")
    assert rows(dfly) == [(0, c, j1, j2, 1 / 8) for c in (0, 3) for j1 in (0, 1) for j2 in (0, 1)]
    paired = group_paths([1], [2], 4, 2, "valiant", paired=True)
    assert rows(paired) == [(0, c, j, j, 1 / 4) for c in (0, 3) for j in (0, 1)]
    ends = group_paths([1], [2], 4, 2, "valiant", ends=True)
    assert rows(ends) == [(0, c, j1, j2, 1 / 16) for c in range(4) for j1 in (0, 1) for j2 in (0, 1)]
    percs = group_paths([1], [2], 4, 2, "valiant", ends=True, paired=True)
    assert rows(percs) == [(0, c, j, j, 1 / 8) for c in range(4) for j in (0, 1)]


def test_valiant_batches_skip_pairs_inside_a_group():
    p = group_paths([0, 2, 2, 1], [1, 2, 0, 0], 3, 1, "valiant")
    assert rows(p) == [(0, 2, 0, 0, 1.0), (2, 1, 0, 0, 1.0), (3, 2, 0, 0, 1.0)]
    assert group_paths([], [], 3, 2, "valiant").pair.size == 0


def test_two_groups_need_ends_for_valiant():
    with pytest.raises(InvalidInputError, match=r"routing: 'valiant' needs an intermediate group, i.e. at least 3 "
                                                r"groups; got 2"):
        group_paths([0], [1], 2, 1, "valiant")
    # PERCS on two supernodes: the intermediates are the ends, both paths part self-loop
    assert rows(group_paths([0], [1], 2, 1, "valiant", ends=True, paired=True)) == [(0, 0, 0, 0, 0.5),
                                                                                    (0, 1, 0, 0, 0.5)]
    with pytest.raises(InvalidInputError, match=r"routing: expected one of \['minimal', 'valiant'\]; got 'indirect'"):
        group_paths([0], [1], 3, 1, "indirect")  # PERCS's names are mapped by GROUP_RULES, not here
    assert two_level.__all__ == ["GROUP_ROUTINGS", "GroupPaths", "group_paths"]
