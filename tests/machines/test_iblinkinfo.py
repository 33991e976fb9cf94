"""iblinkinfo's output as a fat tree (mpitaskmap/machines/fattree/iblinkinfo.py): the default, --line and
--switches-only forms give the tree ibnetdiscover's dump of the same fabric gives; speeds by hand; errors naming
their line; the PATH:NODELIST spec reading it."""

from __future__ import annotations

import pytest

from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines.fattree.iblinkinfo import is_iblinkinfo, parse_iblinkinfo
from mpitaskmap.machines.fattree.ibnetdiscover import fabric_topology, is_ibnetdiscover, parse_ibnetdiscover
from mpitaskmap.machines.fattree.slurm_topology import read_topology_spec

from fabric_dumps import ibnetdiscover_dump, iblinkinfo_output as linkinfo

@pytest.mark.parametrize("form", ["default", "line", "switches-only"])
@pytest.mark.parametrize("reverse", [False, True])
def test_every_form_gives_the_tree_ibnetdiscover_gives(form, reverse):
    text = linkinfo(reverse=reverse, form=form)
    assert is_iblinkinfo(text) and not is_ibnetdiscover(text)
    ours = fabric_topology(parse_iblinkinfo(text, "links.txt"))
    theirs = fabric_topology(parse_ibnetdiscover(ibnetdiscover_dump(reverse=reverse), "fabric.txt"))
    assert ours == theirs
    # by hand: 2 leaves of 4 hosts, 2 spines, 4xEDR everywhere: taper 4 x 12.5 / (2 x 12.5) = 2
    assert (ours.bandwidth, ours.taper, ours.spines) == (12.5, 2.0, 2)
    # hosts numbered leaf by leaf in port order: reversed cabling numbers n3 first on leaf0
    assert ours.host_numbers["n3"] == (0 if reverse else 3) and ours.host_numbers["n4"] == (7 if reverse else 4)


def test_nodes_are_their_lids_and_kinds_come_from_heads_or_cabling():
    default = parse_iblinkinfo(linkinfo())
    assert default.nodes["lid1"].kind == "S" and default.nodes["lid1"].description == "MF0;leaf0:MSB7700/U1"
    assert default.nodes["lid20"].kind == "S" and default.nodes["lid50"].kind == "H"
    assert default.nodes["lid50"].description == "n0 mlx5_0"
    # switch ports 2 x (4 + 2), spine ports 2 x 2, CA ports 8: down ports are no cable
    assert len(default.links) == 12 + 4 + 8
    line = parse_iblinkinfo(linkinfo(form="line"))
    assert {k: n.kind for k, n in line.nodes.items()} == {k: n.kind for k, n in default.nodes.items()}
    assert line.nodes["lid1"].description == "MF0;leaf0:MSB7700/U1"  # the padded %30s description, stripped
    only = parse_iblinkinfo(linkinfo(form="switches-only"))
    assert only.nodes["lid53"].kind == "H" and only.nodes["lid53"].description == "n3 mlx5_0"


@pytest.mark.parametrize("speed, gbytes", [("4xEDR", 12.5), ("4xFDR", 7.0), ("4xHDR", 25.0), ("4xFDR10", 5.0),
                                           ("2xHDR", 12.5)])
def test_speeds_are_the_lanes_data_rate(speed, gbytes):
    fabric = parse_iblinkinfo(linkinfo(speed=speed))
    assert {link.gbytes for link in fabric.links} == {gbytes}


def test_the_spec_reads_iblinkinfo_as_it_reads_a_dump(tmp_path):
    path = tmp_path / "links.txt"
    path.write_text(linkinfo(reverse=True))
    spec = read_topology_spec(f"{path}:n[1,6]:ppn=2")
    assert (spec.routing, spec.spines, spec.taper, spec.bandwidth) == ("dmodk", 2, 2.0, 12.5)
    assert spec.numbering["n1"] == 2 and spec.numbering["n6"] == 5  # port order, reversed within each leaf
    dumped = tmp_path / "fabric.txt"
    dumped.write_text(ibnetdiscover_dump(reverse=True))
    other = read_topology_spec(f"{dumped}:n[1,6]:ppn=2")
    m, o = spec.machine(), other.machine()
    assert m.numbering.tolist() == o.numbering.tolist() and m.up_links == o.up_links
    assert m.routes([0], [3]).links.tolist() == o.routes([0], [3]).links.tolist()


def test_errors_name_the_line():
    with pytest.raises(InvalidInputError, match=r"links.txt:2: a port line starts \[0xGUID\] LID PORT"):
        parse_iblinkinfo("Switch: 0x01 leaf1:\n  x 1[  ] ==( 4X 25.78125 Gbps Active/ LinkUp)==>  5 1[  ] \"n\" ( )\n",
                         "links.txt")
    with pytest.raises(InvalidInputError, match=r"links.txt:3: a port of switch 'leaf1' prints LID 4, not the "
                                                r"switch's 3"):
        parse_iblinkinfo("Switch: 0x01 leaf1:\n"
                         "  3 1[  ] ==( 4X 25.78125 Gbps Active/ LinkUp)==>  5 1[  ] \"n1\" ( )\n"
                         "  4 2[  ] ==( 4X 25.78125 Gbps Active/ LinkUp)==>  6 1[  ] \"n2\" ( )\n", "links.txt")
    with pytest.raises(InvalidInputError, match=r"links.txt:2: the far end reads"):
        parse_iblinkinfo("Switch: 0x01 leaf1:\n  3 1[  ] ==( 4X 25.78125 Gbps Active/ LinkUp)==>  five\n",
                         "links.txt")
    with pytest.raises(InvalidInputError, match=r"links.txt:1: not a line of iblinkinfo's output"):
        parse_iblinkinfo("hello\n", "links.txt")
    with pytest.raises(InvalidInputError, match=r"links.txt: no port line"):
        parse_iblinkinfo("Switch: 0x01 leaf1:\n", "links.txt")
    with pytest.raises(InvalidInputError, match=r"links.txt:4: LID 3 is 'leaf2' and 'leaf1' \(line 1\)"):
        parse_iblinkinfo("Switch: 0x01 leaf1:\n  3 1[  ] ==( 4X 25.78125 Gbps Active/ LinkUp)==>  5 1[  ] \"n1\" ( )\n"
                         "Switch: 0x02 leaf2:\n  3 1[  ] ==( 4X 25.78125 Gbps Active/ LinkUp)==>  6 1[  ] \"n2\" ( )\n",
                         "links.txt")
    # an unknown speed: no GB/s, so the tree refuses it naming the line
    text = linkinfo().replace("25.78125 Gbps", "99.0 Gbps", 1)
    with pytest.raises(InvalidInputError, match=r"x.txt:2: the hosts' links must print one known speed"):
        fabric_topology(parse_iblinkinfo(text, "x.txt"))
