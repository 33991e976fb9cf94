"""Slurm's topology in the machine layer: host lists, topology.conf / scontrol text, topology
addresses, and the fat tree of a job built from them (hand-computed hops and bandwidths)."""

import numpy as np
import pytest

from mpitaskmap import InvalidInputError
from mpitaskmap.machines import FatTreeMachine
from mpitaskmap.machines.fattree.hostlist import MAX_HOSTS, compress_hostlist, expand_hostlist, natural_key
from mpitaskmap.machines.fattree.slurm_topology import (TopologyAddress, fattree_from_node_paths, fattree_from_topology,
                                                is_topology_spec, node_paths, parse_topology_addr, parse_topology_conf,
                                                read_topology_spec)

# -- host lists ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, names", [
    ("node[0400-0403,0500]", ["node0400", "node0401", "node0402", "node0403", "node0500"]),
    ("n[8-10]", ["n8", "n9", "n10"]),  # the width of the first number: no padding
    ("n[08-10]", ["n08", "n09", "n10"]),
    ("n[098-100]", ["n098", "n099", "n100"]),
    ("rack[1-2]n[01-03]", ["rack1n01", "rack1n02", "rack1n03", "rack2n01", "rack2n02", "rack2n03"]),
    ("a1,b[2-3]", ["a1", "b2", "b3"]),
    ("node[1-2]-ib", ["node1-ib", "node2-ib"]),  # text after the last bracket
    ("a1 b2\tc3\nd4", ["a1", "b2", "c3", "d4"]),  # white space separates like commas
    ("a,,b, ", ["a", "b"]),  # empty entries are skipped, as Slurm's tokenizer does
    ("[1-3]", ["1", "2", "3"]),
    ("x[3,1,2]", ["x3", "x1", "x2"]),  # order as written
    ("", []),
])
def test_expand_hostlist(text, names):
    assert expand_hostlist(text) == names


@pytest.mark.parametrize("text, message", [
    ("node[1-", "hostlist 'node[1-': '[' is never closed at column 5"),
    ("node1]", "hostlist 'node1]': ']' without a matching '[' at column 6"),
    ("n[1[2]]", "hostlist 'n[1[2]]': '[' inside brackets (opened at column 2) at column 4"),
    ("a1,n[]", "hostlist 'a1,n[]': empty brackets '[]' at column 5"),
    ("n[a-3]", "hostlist 'n[a-3]': bad range 'a-3': expected N or N-M with digits N, M at column 3"),
    ("n[1-2,x]", "hostlist 'n[1-2,x]': bad range 'x': expected N or N-M with digits N, M at column 7"),
    ("n[1-]", "hostlist 'n[1-]': bad range '1-': expected N or N-M with digits N, M at column 3"),
    ("n[-1]", "hostlist 'n[-1]': bad range '-1': expected N or N-M with digits N, M at column 3"),
    ("n[5-3]", "hostlist 'n[5-3]': range '5-3' runs backwards at column 3"),
    ("n[0-2000000]", f"hostlist 'n[0-2000000]': range '0-2000000' gives more than {MAX_HOSTS} hosts at column 3"),
    ("a[0-2000]b[0-2000]", f"hostlist 'a[0-2000]b[0-2000]': entry 'a[0-2000]b[0-2000]' gives more than {MAX_HOSTS} "
                           "hosts in all at column 1"),
])
def test_expand_hostlist_errors_name_text_and_column(text, message):
    with pytest.raises(InvalidInputError) as exc:
        expand_hostlist(text)
    assert str(exc.value) == message


@pytest.mark.parametrize("names, text", [
    (["node0400", "node0401", "node0402", "node0500"], "node[0400-0402,0500]"),
    (["n9", "n10", "n08"], "n[9-10,08]"),  # n10 continues n9 (no padding); n08 is padded, a new run
    (["n099", "n100", "n101"], "n[099-101]"),
    (["a", "b1", "b2", "c"], "a,b[1-2],c"),
    (["n1", "n3", "m2", "n4"], "n[1,3],m2,n4"),  # the order is kept
    (["s3"], "s3"),
    (["rack1n01", "rack1n02"], "rack1n[01-02]"),
    ([], ""),
])
def test_compress_hostlist(names, text):
    assert compress_hostlist(names) == text
    assert expand_hostlist(text) == names


def test_compress_then_expand_round_trips_random_lists():
    rng = np.random.default_rng(7)
    prefixes = ["n", "node", "rack1n", "x-", ""]
    for _ in range(300):
        names = []
        for _ in range(int(rng.integers(1, 12))):
            width = int(rng.integers(0, 4))
            number = int(rng.integers(0, 120))
            names.append(f"{prefixes[int(rng.integers(len(prefixes)))]}{number:0{width}d}" if width else
                         f"{prefixes[int(rng.integers(len(prefixes)))]}{number}")
        names = [n or "0" for n in names]
        assert expand_hostlist(compress_hostlist(names)) == names
        assert compress_hostlist(expand_hostlist(compress_hostlist(names))) == compress_hostlist(names)


@pytest.mark.parametrize("name", ["a[1]", "a,b", "a b", "", 5])
def test_compress_hostlist_rejects_names_the_syntax_cannot_hold(name):
    with pytest.raises(InvalidInputError, match=r"^hostlist: names\[1\] cannot be written in a host list; got "):
        compress_hostlist(["ok1", name])


def test_natural_key_orders_numbers_as_numbers():
    assert sorted(["s10", "s9", "s09", "t1", "s1a"], key=natural_key) == ["s1a", "s09", "s9", "s10", "t1"]


# -- topology.conf -----------------------------------------------------------------------------------
THREE_LEVELS = """\
# a core switch, two spines, four leaves of four nodes
SwitchName=s10 Nodes=node[0400-0403] LinkSpeed=100
SwitchName=s11 Nodes=node[0404-0407]
SwitchName=s12 Nodes=node[0408-0411]
SwitchName=s13 Nodes=node[0412-0415]
SwitchName=s1 Switches=s[10-11]
SwitchName=s2 Switches=s[12-13]
SwitchName=s0 Switches=s[1-2]
"""

# the same tree as `scontrol show topology` prints it (upper switches list every node below)
SCONTROL = """\
SwitchName=s10 Level=0 LinkSpeed=1 Nodes=node[0400-0403]
SwitchName=s11 Level=0 LinkSpeed=1 Nodes=node[0404-0407]
SwitchName=s12 Level=0 LinkSpeed=1 Nodes=node[0408-0411]
SwitchName=s13 Level=0 LinkSpeed=1 Nodes=node[0412-0415]
SwitchName=s1 Level=1 LinkSpeed=1 Nodes=node[0400-0407] Switches=s[10-11]
SwitchName=s2 Level=1 LinkSpeed=1 Nodes=node[0408-0415] Switches=s[12-13]
SwitchName=s0 Level=2 LinkSpeed=1 Nodes=node[0400-0415] Switches=s[1-2]
"""


@pytest.mark.parametrize("text", [THREE_LEVELS, SCONTROL])
def test_parse_a_three_level_tree(text):
    tree = parse_topology_conf(text, "t.conf")
    assert tree.kind == "tree" and tree.levels == 3 and tree.source == "t.conf"
    assert list(tree.switches) == ["s10", "s11", "s12", "s13", "s1", "s2", "s0"]
    assert [tree.switches[s].level for s in tree.switches] == [0, 0, 0, 0, 1, 1, 2]
    assert tree.switches["s1"].switches == ("s10", "s11") and tree.switches["s1"].nodes == ()
    assert tree.switches["s11"].parents == ("s1",) and tree.switches["s0"].parents == ()
    assert tree.switches["s12"].nodes == ("node0408", "node0409", "node0410", "node0411")
    assert tree.leaf_of["node0413"] == "s13" and len(tree.nodes) == 16
    assert node_paths(tree, "node[0400,0405,0415]") == [("s0", "s1", "s10"), ("s0", "s1", "s11"), ("s0", "s2", "s13")]


def test_parse_reads_comments_continuations_escapes_quotes_and_any_key_case():
    text = ("switchname=s1 nodes=a[1-2] \\\n"
            "   linkspeed = 5   # a comment\n"
            "SWITCHNAME=s2 NODES=\"a3,a4\" # another\n"
            "\n"
            "  # only a comment\n"
            "SwitchName=s0 Switches=s[1-2] \\\n"
            "\\\n"
            "\n")
    tree = parse_topology_conf(text)
    assert tree.switches["s1"].nodes == ("a1", "a2") and tree.switches["s1"].link_speed == 5
    assert tree.switches["s2"].nodes == ("a3", "a4") and tree.switches["s2"].link_speed is None
    assert tree.switches["s0"].switches == ("s1", "s2") and tree.switches["s0"].line == 6
    # an escaped '#' is a character of the value, not a comment; an escaped one alone is a bad token
    assert parse_topology_conf("SwitchName=s1 Nodes=a\\#1").switches["s1"].nodes == ("a#1",)
    assert parse_topology_conf("SwitchName=s1 Nodes=a#1").switches["s1"].nodes == ("a",)
    with pytest.raises(InvalidInputError, match=r"^t:2: expected Key=Value; got '#'$"):
        parse_topology_conf("SwitchName=s1 Nodes=a1\nSwitchName=s0 Switches=s1 \\# x", "t")


def test_switches_with_several_parents_give_one_group_per_level():
    # the Slurm manual's older example: three leaves under three spines, all under s6
    text = """SwitchName=s0 Nodes=tux[0-3]   LinkSpeed=900
SwitchName=s1 Nodes=tux[4-7]   LinkSpeed=900
SwitchName=s2 Nodes=tux[8-11]  LinkSpeed=900
SwitchName=s3 Switches=s[0-2]  LinkSpeed=1800
SwitchName=s4 Switches=s[0-2]  LinkSpeed=1800
SwitchName=s5 Switches=s[0-2]  LinkSpeed=1800
SwitchName=s6 Switches=s[3-5]  LinkSpeed=3600
"""
    tree = parse_topology_conf(text)
    assert tree.switches["s1"].parents == ("s3", "s4", "s5")
    assert node_paths(tree, ["tux0", "tux5"]) == [("s6", "s[3-5]", "s0"), ("s6", "s[3-5]", "s1")]
    m = fattree_from_topology(tree, "tux[0-1,5,9]")
    # same leaf: node - leaf - node = 2 hops; other leaf: up to the spine group and down = 4
    assert m.hops([0, 0, 0], [1, 2, 3]).tolist() == [2, 4, 4]


def test_overlapping_parent_sets_are_not_a_tree():
    # p2 is above l1 and l2, p1 above l1 only, p3 above l2 only: no tree
    text = "SwitchName=l1 Nodes=a1\nSwitchName=l2 Nodes=a2\nSwitchName=p1 Switches=l1\nSwitchName=p2 Switches=l[1-2]\n" \
           "SwitchName=p3 Switches=l2\nSwitchName=top Switches=p[1-3]"
    with pytest.raises(InvalidInputError) as exc:
        parse_topology_conf(text, "x.conf")
    assert str(exc.value) == ("x.conf:3: switch 'p1' is above 'l1' but not above 'l2', though both are below 'p2': "
                              "switches that share a child switch must share all of them (parallel spines), else the "
                              "network is no tree")
    # the same fault in the addresses Slurm gives at run time (s[1-2] and s[2-3] at one level)
    with pytest.raises(InvalidInputError) as exc:
        fattree_from_node_paths([("top", "p[1-2]", "l1"), ("top", "p[2-3]", "l2")], ["a1", "a2"], [0, 1], what="job")
    assert str(exc.value) == ("job: switch 'p2' is in 'p[1-2]' at level 1 above node 'a1' but in 'p[2-3]' at level 1 "
                              "above node 'a2': not a tree")


@pytest.mark.parametrize("text, message", [
    ("SwitchName=s1 Nodes=a1\nSwitchName=s0 Switch=s1", "t.conf:2: unknown key 'Switch' in a SwitchName= line; valid: "
                                                          "Level, LinkSpeed, Nodes, Switches"),
    ("Nodes=a1 SwitchName=s1", "t.conf:1: unknown key 'Nodes'; a line starts with SwitchName=, BlockName= or BlockSizes= "
                               "(or AggregatedBlock=, from scontrol show topology)"),
    ("SwitchName=s1 Nodes=a1\n\nSwitchName=s1 Nodes=a2", "t.conf:3: switch 's1' is already defined on line 1"),
    ("SwitchName=s1 Nodes=a[1-3]\nSwitchName=s2 Nodes=a[3-4]", "t.conf:2: node 'a3' is under two leaf switches: "
                                                              "'s1' (line 1) and 's2'"),
    ("SwitchName=s1 Nodes=a1\nSwitchName=s2 Nodes=a2\nSwitchName=s0 \\\n  Switches=s[1-3]",
     "t.conf:4: switch 's0' lists child switch 's3', which no SwitchName= line defines"),
    ("SwitchName=s1 Nodes=a1\nSwitchName=s2 Switches=s[1,3]\nSwitchName=s3 Switches=s2",
     "t.conf:3: switches form a cycle: s2 -> s3 -> s2"),
    ("SwitchName=s1 Switches=s1", "t.conf:1: switches form a cycle: s1 -> s1"),
    ("SwitchName=s1 Nodes=a1 Switches=s2\nSwitchName=s2 Nodes=a2", "t.conf:1: switch 's1' has both Nodes= and Switches=; "
     "a switch has nodes or switches below it, not both (as Slurm requires)"),
    ("SwitchName=s1 Nodes=a1 Nodes=a2", "t.conf:1: Nodes= given twice in one line"),
    ("SwitchName=s1 Nodes=a[1-", "t.conf:1: Nodes=: hostlist 'a[1-': '[' is never closed at column 2"),
    ("SwitchName=s1 Nodes=a[1-2],a2", "t.conf:1: Nodes= lists 'a2' twice (entries 2 and 3)"),
    ("SwitchName=s1 Nodes=a1 LinkSpeed=fast", "t.conf:1: LinkSpeed must be an integer >= 0; got 'fast'"),
    ("SwitchName=s.1 Nodes=a1", "t.conf:1: SwitchName 's.1' cannot name a switch: '.' separates the components of "
                                "Slurm's topology address"),
    ("SwitchName=s1 Nodes=a1 junk", "t.conf:1: expected Key=Value; got 'junk'"),
    ("SwitchName=s1 Nodes=a1 LinkSpeed=\"5", "t.conf:1: expected Key=Value; got 'LinkSpeed=\"5'"),
    ("SwitchName=s1 Nodes=a1\nBlockName=b1 Nodes=a2", "t.conf:2: BlockName= in a file for topology/tree (SwitchName=): "
                                                      "one topology describes switches or blocks, not both"),
    ("# nothing\n\n", "t.conf: no SwitchName= or BlockName= line"),
    ("SwitchName=s1 Level=0 Nodes=a1\nSwitchName=s0 Level=2 Switches=s1 Nodes=a1",
     "t.conf:2: switch 's0' has Level=2 but its child switches put it at level 1"),
    ("SwitchName=s1 Level=0 Nodes=a[1-2]\nSwitchName=s0 Level=1 Switches=s1 Nodes=a[1-3]",
     "t.conf:2: switch 's0' lists node 'a3', which none of its child switches has"),
    ("SwitchName=s1 Level=0 Nodes=a[1-2]\nSwitchName=s0 Level=1 Switches=s1 Nodes=a1",
     "t.conf:2: switch 's0' does not list node 'a2', which is below its child switches"),
])
def test_parse_errors_name_line_and_token(text, message):
    with pytest.raises(InvalidInputError) as exc:
        parse_topology_conf(text, "t.conf")
    assert str(exc.value) == message


def test_blocks_and_their_scontrol_form():
    conf = "BlockName=b1 Nodes=node[1-4]\nBlockName=b2 Nodes=node[5-8]\nblocksizes=4,8\n"
    shown = ("BlockName=b1 BlockIndex=0 Nodes=node[1-4] BlockSize=4\nBlockName=b2 BlockIndex=1 Nodes=node[5-8] BlockSize=4\n"
             "AggregatedBlock=b[1-2] BlockIndex=2 Nodes=node[1-8] BlockSize=8\n")
    for text in (conf, shown):
        tree = parse_topology_conf(text)
        assert tree.kind == "block" and tree.levels == 1 and list(tree.switches) == ["b1", "b2"]
        assert node_paths(tree, ["node2", "node7"]) == [("b1",), ("b2",)]
    assert parse_topology_conf(conf).block_sizes == (4, 8) and parse_topology_conf(shown).aggregated == ("b[1-2]",)
    # one block level below an implicit root: same block 2 hops, another block 4
    m = fattree_from_topology(parse_topology_conf(conf), "node[1-2,5]")
    assert m.levels == 2 and m.hops([0, 0], [1, 2]).tolist() == [2, 4]


@pytest.mark.parametrize("text, message", [
    ("BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n2", "t.conf:2: node 'n2' is in two blocks: 'b1' (line 1) and 'b2'"),
    ("BlockName=b1 Nodes=n1\nBlockName=b1 Nodes=n2", "t.conf:2: block 'b1' is already defined on line 1"),
    ("BlockName=b1 Nodes=n1\nBlockSizes=4,12", "t.conf:2: BlockSizes= 12 must be larger than 4 and 4 times a power of two"),
    ("BlockName=b1 Nodes=n1\nBlockSizes=4,x", "t.conf:2: BlockSizes= needs positive integers; got 'x'"),
    ("BlockSizes=4\nBlockName=b1 Nodes=n1\nBlockSizes=4", "t.conf:3: BlockSizes= given twice (first on line 1)"),
    ("BlockName=b1 Switches=s1", "t.conf:1: unknown key 'Switches' in a BlockName= line; valid: BlockIndex, BlockSize, "
                                 "Nodes"),
    ("BlockSizes=4", "t.conf: no BlockName= line"),
    ("BlockName=b1 Nodes=n1\nSwitchName=s1 Nodes=n2", "t.conf:2: SwitchName= in a file for topology/block (BlockName=, "
                                                      "BlockSizes=): one topology describes switches or blocks, not both"),
])
def test_block_errors(text, message):
    with pytest.raises(InvalidInputError) as exc:
        parse_topology_conf(text, "t.conf")
    assert str(exc.value) == message


def test_node_paths_errors():
    tree = parse_topology_conf(THREE_LEVELS, "t.conf")
    with pytest.raises(InvalidInputError, match=r"^t.conf: node 'node9999' is not in the topology \(no Nodes= lists it\)$"):
        node_paths(tree, "node[0400,9999]")
    with pytest.raises(InvalidInputError, match=r"^t.conf: nodes: node 'node0401' is listed twice \(entries 1 and 3\)$"):
        node_paths(tree, "node[0401-0402],node0401")
    # a leaf right below the core, next to a two-level branch: its nodes have no level-1 switch
    uneven = parse_topology_conf("SwitchName=l1 Nodes=a1\nSwitchName=l2 Nodes=a2\nSwitchName=m Switches=l1\n"
                                 "SwitchName=top Switches=m,l2", "u.conf")
    assert node_paths(uneven, "a1") == [("top", "m", "l1")]
    with pytest.raises(InvalidInputError) as exc:
        node_paths(uneven, "a2")
    assert str(exc.value) == ("u.conf:2: the nodes of leaf switch 'l2' have no switch at level 1 (the top is level 2); "
                              "Slurm gives them an empty address component there, and a tree whose leaves hang at "
                              "different depths is not modelled")


# two trees side by side: Slurm loads such a file (slurmctld warns "no switch can reach all nodes through its
# descendants") but places no job across switches without a common parent (src/plugins/topology/tree/
# switch_record.c, doc/html/topology.shtml)
TWO_ROOTS = """\
SwitchName=l1 Nodes=n[1-2]
SwitchName=l2 Nodes=n[3-4]
SwitchName=l3 Nodes=n[5-6]
SwitchName=t1 Switches=l[1-2]
SwitchName=t2 Switches=l3
"""


def test_switches_without_a_common_ancestor_are_no_job(tmp_path):
    tree = parse_topology_conf(TWO_ROOTS, "two.conf")
    assert tree.roots == ("t1", "t2") and parse_topology_conf(THREE_LEVELS).roots == ("s0",)
    # a job below one of them is modelled: its own subtree
    assert node_paths(tree, "n[1,3]") == [("t1", "l1"), ("t1", "l2")]
    assert fattree_from_topology(tree, "n[1,3]").hops([0], [1]).tolist() == [4]
    # across them: no implicit top switch; the nodes, the switches and their lines named
    message = ("two.conf: the job's nodes hang below switches without a common ancestor: n[1-2,4] below 't1' (line 4); "
               "n5 below 't2' (line 5); Slurm places no job across switches without a common parent (unless "
               "TopologyParam=TopoOptional), and the file does not say how they connect: add a switch above them "
               "(SwitchName=top Switches=t[1-2]) or take nodes below one of them")
    for call in (lambda: node_paths(tree, "n[1-2,4-5]"), lambda: fattree_from_topology(tree, "n[1-2,4-5]")):
        with pytest.raises(InvalidInputError) as exc:
            call()
        assert str(exc.value) == message
    # leaf switches alone, no switch above any: the leaves are the roots
    leaves = parse_topology_conf("SwitchName=a Nodes=x1\nSwitchName=b Nodes=x2\n", "leaves.conf")
    with pytest.raises(InvalidInputError) as exc:
        node_paths(leaves, "x[1-2]")
    assert str(exc.value).startswith("leaves.conf: the job's nodes hang below switches without a common ancestor: "
                                     "x1 below 'a' (line 1); x2 below 'b' (line 2); ")
    # roots of different depths: the missing ancestor is the error, not the uneven depth
    uneven = parse_topology_conf(TWO_ROOTS + "SwitchName=t0 Switches=t1\n", "u.conf")
    with pytest.raises(InvalidInputError, match=r"^u.conf: the job's nodes hang below switches without a common "
                                                r"ancestor: n1 below 't0' \(line 6\); n5 below 't2' \(line 5\); "):
        node_paths(uneven, "n[1,5]")
    # the command line's spec fails when it is read, naming the file
    path = tmp_path / "topology.conf"
    path.write_text(TWO_ROOTS)
    with pytest.raises(InvalidInputError, match=rf"^{path}: the job's nodes hang below switches without a common "):
        read_topology_spec(f"{path}:n[1-6]:ppn=2")
    # blocks are no tree: a job spans blocks (topology/block), below one implicit root
    blocks = parse_topology_conf("BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\n")
    assert blocks.roots == ("b1", "b2") and node_paths(blocks, "n[1,3]") == [("b1",), ("b2",)]


# -- topology addresses -------------------------------------------------------------------------------
@pytest.mark.parametrize("addr, pattern, expected", [
    ("s0.s12.node0417", "switch.switch.node", TopologyAddress("tree", ("s0", "s12"), (), "node0417")),
    ("s6.s[3-5].s0.tux1", "switch.switch.switch.node", TopologyAddress("tree", ("s6", "s[3-5]", "s0"), (), "tux1")),
    ("s6..s9.tux1", "switch.switch.switch.node", TopologyAddress("tree", ("s6", "", "s9"), (), "tux1")),
    ("s0.node.cluster.org", "switch.node", TopologyAddress("tree", ("s0",), (), "node.cluster.org")),
    (" b3.node12\n", "block.node", TopologyAddress("block", ("b3",), (), "node12")),
    ("pod1:1:2:0.node05", "torus:x:y:z.node", TopologyAddress("torus3d", ("pod1",), (1, 2, 0), "node05")),
    ("node0417", "node", TopologyAddress("node", (), (), "node0417")),
])
def test_parse_topology_addr(addr, pattern, expected):
    assert parse_topology_addr(addr, pattern) == expected


@pytest.mark.parametrize("addr, pattern, message", [
    ("s0.node1", "switch.switch.node", "SLURM_TOPOLOGY_ADDR 's0.node1' has 2 components but SLURM_TOPOLOGY_ADDR_PATTERN "
                                       "'switch.switch.node' has 3"),
    ("s0.", "switch.node", "SLURM_TOPOLOGY_ADDR 's0.' has no node name but SLURM_TOPOLOGY_ADDR_PATTERN 'switch.node' has 2"),
    ("b3node12", "block.node", "SLURM_TOPOLOGY_ADDR 'b3node12' has 1 components but SLURM_TOPOLOGY_ADDR_PATTERN "
                               "'block.node' has 2"),
    (".node12", "block.node", "SLURM_TOPOLOGY_ADDR '.node12': empty block name (pattern 'block.node')"),
    ("pod1:1:2.node05", "torus:x:y:z.node", "SLURM_TOPOLOGY_ADDR 'pod1:1:2.node05': expected NAME:X:Y:Z (integers >= 0) "
                                            "before the node, as the pattern 'torus:x:y:z.node' says; got 'pod1:1:2'"),
    ("pod1:1:-2:0.n5", "torus:x:y:z.node", "SLURM_TOPOLOGY_ADDR 'pod1:1:-2:0.n5': expected NAME:X:Y:Z (integers >= 0) "
                                           "before the node, as the pattern 'torus:x:y:z.node' says; got 'pod1:1:-2:0'"),
    ("ring0:3.n5", "ring:position.node", "SLURM_TOPOLOGY_ADDR_PATTERN 'ring:position.node' is none of Slurm's "
                                         "topology/tree (switch.switch.node), topology/block (block.node), "
                                         "topology/torus3d (torus:x:y:z.node) or flat (node) patterns"),
    ("s0.n1", "switch.host", "SLURM_TOPOLOGY_ADDR_PATTERN 'switch.host' does not end in 'node'"),
])
def test_parse_topology_addr_errors(addr, pattern, message):
    with pytest.raises(InvalidInputError) as exc:
        parse_topology_addr(addr, pattern)
    assert str(exc.value) == message


# -- the machine ------------------------------------------------------------------------------------------
def test_fattree_from_topology_hops_routes_and_bandwidths():
    tree = parse_topology_conf(THREE_LEVELS, "t.conf")
    # rank order = node list order, 2 ranks per node: ranks 0-1 on node0408, 2-3 on node0400, ...
    m = fattree_from_topology(tree, "node0408,node0400,node0401,node0404", ppn=2, bandwidth=10.0, taper=2.0,
                              name="demo")
    assert isinstance(m, FatTreeMachine) and m.name == "demo" and m.n_procs == 8
    # tree nodes in path order: node0400, node0401 (s10), node0404 (s11), node0408 (s2/s12)
    assert m.node_names == ("node0400", "node0401", "node0404", "node0408")
    assert m.node_ids.tolist() == [3, 3, 0, 0, 1, 1, 2, 2]
    # same node 0; same leaf 2 (node-leaf-node); same spine 4; across the core 6
    assert m.hops([2, 2, 2, 2], [3, 4, 6, 0]).tolist() == [0, 2, 4, 6]
    # link bandwidths: nodes 10; a leaf's up-link = its job nodes x 10 / 2; a spine's = its leaves' / 2
    bws = m.level_bandwidths()
    assert bws[0].tolist() == [10.0] * 4
    assert bws[1].tolist() == [10.0, 5.0, 5.0]  # s10 (2 nodes), s11 (1), s12 (1)
    assert bws[2].tolist() == [7.5, 2.5]  # s1 = (10 + 5) / 2, s2 = 5 / 2
    # a route across the core climbs 3 links and descends 3
    assert [c for c, _ in m.route(2, 0)] == ["up1", "up2", "up3", "down3", "down2", "down1"]
    assert m.node_hierarchy().groups[0].tolist() == [0, 0, 1, 2]


def test_fattree_from_node_paths_errors_and_order():
    m = fattree_from_node_paths([("b2",), ("b1",), ("b10",)], ["z", "y", "x"], [0, 1, 2, 2])
    assert m.node_names == ("y", "z", "x") and m.node_ids.tolist() == [1, 0, 2, 2]  # b1 < b2 < b10
    cases = [
        (([("s0", "")], ["n1"], [0]), "where: node 'n1' has no switch at level 0 of its address 's0..n1': a tree whose "
                                      "leaves hang at different depths is not modelled"),
        (([("s0", "a")], ["n1", "n2"], [0]), "where: expected one switch path per node name (2); got 1"),
        (([("s0", "a"), ("s0", "b")], ["n1", "n1"], [0]), "where: node 'n1' is given twice, under s0.a and s0.b"),
        (([("s0", "a"), ("a", "b")], ["n1", "n2"], [0]),
         "where: switch 'a' is in 'a' at level 0 above node 'n1' but in 'a' at level 1 above node 'n2': not a tree"),
        (([("s0", "a"), ("b",)], ["n1", "n2"], [0]), "where: paths: every node must hang at the same depth; 'n2' is under b "
                                                     "but 'n1' under s0.a"),
        (([("s0", "a"), ("s0", "b")], ["n1", "n2"], [0, 2]), "where: proc_nodes must be node indices in [0, 2); got [0, 2]"),
        (([("s0", "a")], ["n1"], [0]), "where: routing: expected one of ['dmodk', 'ecmp', 'unknown']; got 'up'"),
    ]
    for (paths, names, procs), message in cases:
        kw = {"routing": "up"} if "routing" in message else {}
        with pytest.raises(InvalidInputError) as exc:
            fattree_from_node_paths(paths, names, procs, what="where", **kw)
        assert str(exc.value) == message
    with pytest.raises(InvalidInputError, match=r"^where: taper: expected a positive number; got -1.0$"):
        fattree_from_node_paths([("s0",)], ["n1"], [0], taper=-1.0, what="where")


def test_read_topology_spec(tmp_path):
    path = tmp_path / "topology.conf"
    path.write_text(THREE_LEVELS)
    spec = read_topology_spec(f"{path}:node[0400-0401,0412]:ppn=4,taper=4,bw=25,routing=ecmp", "demo")
    assert (spec.nodes, spec.ppn, spec.taper, spec.bandwidth, spec.routing) == (
        ("node0400", "node0401", "node0412"), 4, 4.0, 25.0, "ecmp")
    assert spec.n_ranks == 12 and spec.pattern == "switch.switch.switch.node"
    assert spec.addresses() == ["s0.s1.s10.node0400", "s0.s1.s10.node0401", "s0.s2.s13.node0412"]
    m = spec.machine()
    assert m.routing == "ecmp" and m.n_procs == 12 and m.hops([0, 0], [4, 8]).tolist() == [2, 6]
    assert m.name == f"{path}: 3 nodes x 4, taper 4:1, 25 GB/s, ecmp"
    defaults = read_topology_spec(f"{path}:node0400")
    assert (defaults.ppn, defaults.taper, defaults.bandwidth, defaults.routing) == (1, 1.0, 12.5, "dmodk")
    assert is_topology_spec(f"{path}:node0400") and not is_topology_spec(str(path)) and not is_topology_spec("a:")
    for text, message in [
        (f"{path}", "demo: expected TOPOLOGY_FILE:NODELIST[:ppn=N,taper=T,bw=GBPS,routing=dmodk|ecmp|unknown,spines=K]; got "),
        (f"{path}:node0400:ppn=0", "demo: ppn must be >= 1; got 0"),
        (f"{path}:node0400:taper=-2", "demo: taper must be positive; got -2"),
        (f"{path}:node0400:routing=minimal", "demo: routing must be one of ['dmodk', 'ecmp', 'unknown']; got 'minimal'"),
        (f"{path}:node0400:speed=1", "demo: unknown key 'speed'; valid keys: ['bw', 'ppn', 'routing', 'spines', 'taper', 'uplinks']"),
        (f"{path}:node[0400-", f"demo: NODELIST: hostlist 'node[0400-': '[' is never closed at column 5"),
        (f"{path}:node0400,node7", f"{path}: node 'node7' is not in the topology (no Nodes= lists it)"),
        (f"{tmp_path}/none.conf:node1", f"demo: cannot read the topology file '{tmp_path}/none.conf' (No such file or "
                                        "directory)"),
    ]:
        with pytest.raises(InvalidInputError) as exc:
            read_topology_spec(text, "demo")
        assert str(exc.value).startswith(message), (text, str(exc.value))
    bad = tmp_path / "bad.conf"
    bad.write_text("SwitchName=s1 Nodes=a1\nSwitchName=s0 Switches=s9\n")
    with pytest.raises(InvalidInputError, match=rf"^{bad}:2: switch 's0' lists child switch 's9'"):
        read_topology_spec(f"{bad}:a1", "demo")
