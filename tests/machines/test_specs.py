"""machine_from_spec and the sim specs: one parser for every spelling of a machine, each form's result and errors."""

from pathlib import Path

import numpy as np
import pytest

from mpitaskmap.errors import InvalidInputError, ProviderError
from mpitaskmap.machines import FatTreeMachine, PercsMachine, TorusMachine, machine_from_spec, write_machine_file
from mpitaskmap.machines.specs import MACHINE_FORMS, SimSpec, parse_sim_spec
from mpitaskmap.providers import get_provider, machine_from_provider

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("spec, n", [("sim:titan:ppn=1,seed=1", 64), ("sim:torus:dims=4x4x4,ppn=2", 32),
                                     ("sim:frontera:nodes=8,ppn=4,seed=2", 32),
                                     ("sim:frontier:nodes=4,ppn=8,seed=3", 32), ("sim:percs:ns=1", 128)])
def test_a_sim_spec_is_the_machine_remap_assembles_and_names_its_hosts(spec, n):
    machine, name, hosts = machine_from_spec(spec, n)
    p = get_provider(spec)
    expected = machine_from_provider(p, n)
    assert name == p.spec and machine.name == expected.name == p.spec and type(machine) is type(expected)
    assert machine.node_ids.tolist() == expected.node_ids.tolist()
    assert np.array_equal(machine.hops(np.arange(n), np.arange(n)[::-1]), expected.hops(np.arange(n), np.arange(n)[::-1]))
    first = np.unique(machine.node_ids, return_index=True)[1]
    assert [hosts[machine.node_ids[r]] for r in first] == [p.locate(int(r), n).node for r in first]


def test_the_other_spellings_hopper_percs_topology_and_files(tmp_path):
    hopper, name, hosts = machine_from_spec("hopper", 1)
    assert (name, hosts, hopper.n_procs, hopper.n_nodes) == ("hopper", None, 512, 22)
    percs, name, hosts = machine_from_spec("percs:ns=2,nd=2", 1)
    assert isinstance(percs, PercsMachine) and (percs.n_s, percs.n_d, name, hosts) == (2, 2, "percs:ns=2,nd=2", None)
    tree, name, hosts = machine_from_spec(f"file:{EXAMPLES}/topology.conf:node[0001-0004]:ppn=2", 1)
    assert isinstance(tree, FatTreeMachine) and tree.n_procs == 8 and name == f"{EXAMPLES}/topology.conf:node[0001-0004]:ppn=2"
    assert hosts == ["node0001", "node0002", "node0003", "node0004"]
    torus = machine_from_spec("sim:torus:dims=4x2", 8).machine
    write_machine_file(torus, tmp_path / "alloc.txt")
    back, name, hosts = machine_from_spec(str(tmp_path / "alloc.txt"), 1)
    assert isinstance(back, TorusMachine) and name == str(tmp_path / "alloc.txt") and hosts is None
    assert back.node_ids.tolist() == torus.node_ids.tolist() and back.dims.tolist() == [4, 2]


def test_errors_name_the_spec_and_the_forms():
    with pytest.raises(InvalidInputError) as exc:
        machine_from_spec("no-such-file", 4)
    assert str(exc.value) == f"--machine: no such machine file and not a known spec ({MACHINE_FORMS}); got 'no-such-file'"
    with pytest.raises(InvalidInputError, match=r"^machines: no such machine file"):
        machine_from_spec("no-such-file", 4, what="machines")
    with pytest.raises(InvalidInputError, match=r"^--machine 'percs:nd=3': n_d: D links per supernode pair must be"):
        machine_from_spec("percs:nd=3", 4)
    with pytest.raises(InvalidInputError, match=r"^provider: unknown simulated machine 'mesh' in 'sim:mesh'; valid: "
                                                r"\['aries', 'bgq', "):
        machine_from_spec("sim:mesh", 4)
    with pytest.raises(ProviderError, match=r"^sim: 'sim:torus:dims=2x2' has 4 processors but the job has 5 ranks$"):
        machine_from_spec("sim:torus:dims=2x2", 5)


def test_parse_sim_spec_and_simspec():
    spec = parse_sim_spec("sim")
    assert spec.spec == "sim:titan" and spec.name == "titan" and spec.network().bandwidth == "gemini"
    s = SimSpec("torus", dims="4x4", ppn=2)
    assert s.spec == "sim:torus:dims=4x4,ppn=2" and s.machine(8) is s.machine(8)  # cached per job size
    assert [(loc.coords, loc.node) for loc in (s.locate(0, 8), s.locate(7, 8))] == [((0, 0), "node0"), ((3, 0), "node3")]
    with pytest.raises(InvalidInputError, match=r"^provider: expected a spec starting with 'sim'; got 'file:x'$"):
        parse_sim_spec("file:x")
    with pytest.raises(InvalidInputError, match=r"^provider 'sim:torus:dim=4': unknown key 'dim'"):
        parse_sim_spec("sim:torus:dim=4")
