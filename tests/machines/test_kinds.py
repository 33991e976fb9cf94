"""The registry of network kinds: names, lookups, refusals, and the capabilities consumers ask of a machine."""

import numpy as np
import pytest

from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import (DragonflyMachine, FatTreeMachine, NetworkInfo, TorusMachine, known_kinds, network_kind,
                                 register_kind, torus_machine, write_machine_file)
from mpitaskmap.machines.dragonfly import dragonfly_machine
from mpitaskmap.machines.kinds import NetworkKind, SimForm, file_form, file_form_of, kind_of, sim_forms


def test_the_five_kinds_register_in_import_order_with_their_simulated_machines():
    assert known_kinds() == ["flat", "torus", "percs", "fattree", "dragonfly"]
    assert sorted(sim_forms()) == ["aries", "bgq", "dragonfly", "fattree", "frontera", "frontier", "percs",
                                   "perlmutter", "supermuc-ng", "titan", "torus"]
    assert {name: kind for kind in known_kinds() for name in (f.name for f in network_kind(kind).sim_forms)} == {
        "titan": "torus", "bgq": "torus", "torus": "torus", "percs": "percs", "fattree": "fattree",
        "frontera": "fattree", "supermuc-ng": "fattree", "dragonfly": "dragonfly", "frontier": "dragonfly",
        "perlmutter": "dragonfly", "aries": "dragonfly"}


def test_an_unknown_kind_names_the_kinds_known():
    with pytest.raises(InvalidInputError) as exc:
        network_kind("mesh")
    assert str(exc.value) == "kind: expected one of ['flat', 'torus', 'percs', 'fattree', 'dragonfly']; got 'mesh'"
    with pytest.raises(InvalidInputError) as exc:
        NetworkInfo(dims=(4,), kind="ring")
    assert str(exc.value) == "kind: expected one of ['flat', 'torus', 'percs', 'fattree', 'dragonfly']; got 'ring'"


def test_the_kinds_check_their_network_records():
    with pytest.raises(InvalidInputError, match=r"^dims: a torus network needs at least one dimension; got \(\)$"):
        NetworkInfo(dims=(), kind="torus")
    with pytest.raises(InvalidInputError, match=r"^dims: a flat network has no dimensions; got \[4\]$"):
        NetworkInfo(dims=(4,), kind="flat")
    with pytest.raises(InvalidInputError, match=r"^options: a fattree network needs 'pattern'"):
        NetworkInfo(kind="fattree")
    with pytest.raises(InvalidInputError, match=r"^options: a dragonfly network needs \[.*\]; 'switches' is missing$"):
        NetworkInfo(dims=(3, 4, 2), kind="dragonfly")


def test_register_kind_refuses_what_is_not_a_kind_and_a_simulated_machine_of_another_kind():
    with pytest.raises(InvalidInputError, match=r"^kind: expected a NetworkKind; got str$"):
        register_kind("ring")
    clash = NetworkKind("other", lambda gathered, network, name: None,
                        sim_forms=(SimForm("titan", (), None, None, None, None),))
    with pytest.raises(InvalidInputError, match=r"^kind 'other': simulated machine 'titan' is the 'torus' kind's$"):
        register_kind(clash)
    assert "other" not in known_kinds()


def test_a_machine_finds_its_kind_and_file_form_by_its_class():
    assert kind_of(torus_machine([4, 4])).name == "torus"
    assert kind_of(dragonfly_machine(n_groups=3, switches=2, nodes_per_switch=2, nodes=2)).name == "dragonfly"
    assert kind_of(object()) is None
    assert file_form_of(torus_machine([4])) == ("torus", network_kind("torus").file_form)
    assert file_form(None) is network_kind("torus").file_form and file_form("dragonfly").network_line
    assert file_form("torus") is None  # the torus form has no 'network' line


def test_write_machine_file_refuses_a_kind_without_a_writer(tmp_path):
    m = dragonfly_machine(n_groups=3, switches=2, nodes_per_switch=2, nodes=2)
    with pytest.raises(InvalidInputError, match=r"^machine: no network kind writes a DragonflyMachine as a machine "
                                                r"file$"):
        write_machine_file(m, tmp_path / "m.txt")


def test_the_capabilities_a_simulator_asks_have_defaults_and_kinds_override_them():
    torus = torus_machine([4, 4])
    assert torus.routing == "minimal" and torus.fat_tree_shape() is None and not torus.single_paths_differ
    src, dst = np.array([0, 3]), np.array([5, 10])
    assert all(np.array_equal(a, b) for a, b in zip(torus.single_path_routes(src, dst), torus.routes(src, dst)))
    tree = FatTreeMachine.regular((4, 2), (1, 2), 10.0, np.arange(8), routing="ecmp")
    assert tree.fat_tree_shape() == ((4, 2), (1, 2)) and tree.routing == "ecmp" and not tree.single_paths_differ
    assert FatTreeMachine.from_paths([("a",), ("b",)], ["n0", "n1"], [0, 0, 1]).fat_tree_shape() is None
    valiant = DragonflyMachine(3, 3, 2, range(18), routing="valiant")
    assert valiant.single_paths_differ and not valiant.with_routing("minimal").single_paths_differ
    assert isinstance(torus, TorusMachine)


def test_a_simulated_jobs_options_are_checked_in_order_with_the_machines_defaults():
    from mpitaskmap.machines.kinds import parse_sim_job
    assert parse_sim_job({}, "demo", ppn=16) == {"ppn": 16, "nodes": None, "seed": 0}
    assert parse_sim_job({"nodes": "8", "seed": "3", "routing": "Valiant"}, "demo", routing="minimal",
                         routings=("minimal", "valiant")) == {"ppn": 1, "nodes": 8, "seed": 3, "routing": "valiant"}
    with pytest.raises(InvalidInputError) as exc:  # ppn before nodes before seed before routing
        parse_sim_job({"ppn": "0", "nodes": "x", "seed": "-1", "routing": "ecmp"}, "demo", routing="minimal",
                      routings=("minimal",))
    assert str(exc.value) == "demo: ppn must be >= 1; got 0"
    with pytest.raises(InvalidInputError) as exc:
        parse_sim_job({"seed": "-1", "routing": "ecmp"}, "demo", routing="minimal", routings=("minimal",))
    assert str(exc.value) == "demo: seed must be >= 0; got -1"
