"""ibnetdiscover's topology file as a fat tree (mpitaskmap/machines/fattree/ibnetdiscover.py): records, cabling,
speeds and taper by hand, the errors naming their line, and the PATH:NODELIST spec reading it."""

from __future__ import annotations

import pytest

from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines.fattree.ibnetdiscover import fabric_topology, is_ibnetdiscover, parse_ibnetdiscover
from mpitaskmap.machines.fattree.slurm_topology import read_topology_spec

from fabric_dumps import ibnetdiscover_dump as dump


def test_records_links_and_speeds():
    text = dump()
    assert is_ibnetdiscover(text)
    f = parse_ibnetdiscover(text, "f.txt")
    assert sum(n.kind == "S" for n in f.nodes.values()) == 4 and sum(n.kind == "H" for n in f.nodes.values()) == 8
    leaf0 = [link for link in f.links if link.guid == "a0"]
    assert [(link.port, link.peer, link.peer_port) for link in leaf0][-2:] == [(5, "e0", 1), (6, "e1", 1)]
    assert {link.gbytes for link in f.links} == {12.5}  # 4 lanes x 25 Gb/s
    assert parse_ibnetdiscover(dump(speed="4xHDR"), "f").links[0].gbytes == 25.0
    assert parse_ibnetdiscover(dump(speed="2xNDR"), "f").links[0].gbytes == 25.0


def test_the_tree_the_cabling_gives():
    # 4 hosts of 12.5 GB/s over 2 up-links of 12.5: taper 2; the leaves and the spines by their descriptions
    t = fabric_topology(parse_ibnetdiscover(dump(), "f"))
    assert t.topology.splitlines() == ["SwitchName=leaf0 Nodes=n0,n1,n2,n3", "SwitchName=leaf1 Nodes=n4,n5,n6,n7",
                                       "SwitchName=spine0 Switches=leaf0,leaf1", "SwitchName=spine1 Switches=leaf0,leaf1"]
    assert (t.bandwidth, t.taper, t.spines) == (12.5, 2.0, 2)
    # two cables to each spine: 4 up-links, taper 1; faster up-links lower the taper
    assert fabric_topology(parse_ibnetdiscover(dump(cables=2), "f")).spines == 4
    assert fabric_topology(parse_ibnetdiscover(dump(cables=2), "f")).taper == 1.0
    assert fabric_topology(parse_ibnetdiscover(dump(up_speed="4xHDR"), "f")).taper == 1.0


def test_errors_name_the_line():
    with pytest.raises(InvalidInputError, match=r"^f:3: a port line before any Switch or Ca record$"):
        parse_ibnetdiscover('vendid=0x2c9\n\n[1] "H-1"[1] # "x"\n', "f")
    with pytest.raises(InvalidInputError, match=r'^f:2: GUID 1 has a record already, on line 1$'):
        parse_ibnetdiscover('Ca 1 "H-1" # "a"\nCa 1 "H-1" # "b"\n', "f")
    with pytest.raises(InvalidInputError, match=r"^f:2: port 1 of 'leaf' is cabled to GUID 9, which has no record$"):
        parse_ibnetdiscover('Switch 2 "S-1" # "leaf"\n[1] "H-9"[1] # "n0 x" lid 1 4xEDR\n', "f")
    with pytest.raises(InvalidInputError, match=r"^f:2: not a line of ibnetdiscover's topology: 'hello'$"):
        parse_ibnetdiscover('Ca 1 "H-1" # "a"\nhello\n', "f")
    with pytest.raises(InvalidInputError, match=r"leaves are cabled unevenly: 'MF0;leaf0:MSB7700/U1' has 2 up-links "
                                                r"\(taper 2\), 'MF0;leaf1:MSB7700/U1' 1 \(taper 4\)"):
        fabric_topology(parse_ibnetdiscover(dump(skip_up={(1, 1)}), "f"))
    with pytest.raises(InvalidInputError, match="the hosts' links must print one known speed"):
        fabric_topology(parse_ibnetdiscover(dump(speed="4xWHAT"), "f"))


def test_the_spec_reads_a_dump_and_the_options_win(tmp_path):
    path = tmp_path / "fabric.txt"
    path.write_text(dump())
    spec = read_topology_spec(f"{path}:n[0,1,4,5]:ppn=2")
    # the cabling is known: d-mod-k on the hosts in leaf and port order (OpenSM's ftree), not an unknown routing
    assert (spec.bandwidth, spec.taper, spec.spines, spec.routing) == (12.5, 2.0, 2, "dmodk")
    m = spec.machine()
    assert m.up_links == (1, 2) and m.level_bandwidths()[1].tolist() == [12.5, 12.5]  # 4 x 12.5 / 2 / 2
    assert m.numbering.tolist() == [0, 1, 4, 5]
    path.write_text(dump(reverse=True))  # n0 on port 4 of leaf0, n3 on port 1: numbered by port
    assert read_topology_spec(f"{path}:n[0,1,4,5]").machine().numbering.tolist() == [3, 2, 7, 6]
    assert read_topology_spec(f"{path}:n[0,1,4,5]:routing=unknown").routing == "unknown"
    told = read_topology_spec(f"{path}:n[0,1,4,5]:taper=4,uplinks=1,routing=dmodk")
    assert (told.taper, told.spines, told.routing) == (4.0, 1, "dmodk")
    with pytest.raises(InvalidInputError, match="node 'n9'"):
        read_topology_spec(f"{path}:n[0,9]")
