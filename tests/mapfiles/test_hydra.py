"""MPICH Hydra's placement (mpitaskmap/mapfiles/hydra.py): one host-file line per node with the -rankmap blocks, or
the host file of rank runs; expectations written out by hand."""

import pytest

from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import FlatMachine
from mpitaskmap.mapfiles.hydra import HydraPlacement, hydra_rankmap, hydra_runs
from mpitaskmap.mapping import Mapping


def test_rankmap_lines_are_the_used_nodes_in_node_order_and_blocks_merge_equal_runs():
    # 4 nodes of 3 processors; node 2 unused.  Rank -> node: 3 3 0 0 1 1 3 0 1
    machine = FlatMachine([0] * 3 + [1] * 3 + [2] * 3 + [3] * 3)
    m = Mapping([9, 10, 0, 1, 3, 4, 11, 2, 5], machine)
    p = hydra_rankmap(m, hosts="h%d")
    # lines: h0 (line 0), h1 (line 1), h3 (line 2); rank lines 2 2 | 0 0 1 1 | 2 | 0 1: runs of 2 on lines 0 and
    # 1 are one block, and so are the single ranks on lines 0 and 1
    assert p == HydraPlacement("h0:3\nh1:3\nh3:3\n", "(2,1,2),(0,2,2),2,(0,2,1)")


def test_one_rank_per_line_in_turn_is_one_block():
    m = Mapping(list(range(0, 8, 2)) + list(range(1, 8, 2)), FlatMachine([0, 0, 1, 1, 2, 2, 3, 3]))
    assert hydra_rankmap(m, hosts=["a", "b", "c", "d"]) == HydraPlacement("a:2\nb:2\nc:2\nd:2\n",
                                                                          "(0,4,1),(0,4,1)")


def test_runs_follow_rank_order_and_repeat_hosts():
    m = Mapping([0, 2, 1, 3, 4, 5], FlatMachine([0, 0, 1, 1, 1, 1]))
    assert hydra_runs(m, hosts="n%d") == "n0:1\nn1:1\nn0:1\nn1:3\n"


def test_bad_host_names_are_refused():
    m = Mapping([0, 1], FlatMachine([0, 1]))
    with pytest.raises(InvalidInputError, match="% field"):
        hydra_rankmap(m, hosts="node")
