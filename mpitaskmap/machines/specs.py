"""Machine specs: the one parser behind ``--machine``, the ``sim`` provider, ``remap()`` and the benchmarks.

=================================================  ==================================================
spec                                               machine
=================================================  ==================================================
``sim:NAME[:k=v,...]``                             a simulated machine of a registered kind
                                                   (:func:`parse_sim_spec`; ``sim`` = ``sim:titan``)
``file:PATH`` or ``PATH``                          a machine file (:mod:`~.machine_file`)
the kinds' other spellings                         ``hopper``, ``percs:ns=4,nd=8``,
                                                   ``TOPOLOGY_FILE:NODELIST[:ppn=8,taper=4]``
=================================================  ==================================================

Every form is defined by a network kind (:mod:`~.kinds`); this module only tells them apart.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from .._options import parse_options
from ..errors import InvalidInputError, ProviderError
from .base import Machine
from .kinds import SimForm, sim_form, spec_forms
from .machine_file import machine_file_hosts, read_machine_file
from .network_record import Location, NetworkInfo, assemble_machine, check_rank

__all__ = ["SimSpec", "parse_sim_spec", "MachineSpec", "machine_from_spec", "MACHINE_FORMS"]

#: The forms :func:`machine_from_spec` reads, as its error names them.
MACHINE_FORMS = ("sim:titan:nodes=64,ppn=16,seed=1 | sim:bgq:... | sim:torus:dims=4x4x4 | "
                 "sim:fattree:leaves=32,nodes_per_leaf=16,taper=4,nodes=64,ppn=8 | sim:frontera:nodes=64 | "
                 "sim:frontier:nodes=64,ppn=8,groups=4,routing=minimal|ugal|either|... | sim:perlmutter:... | "
                 "sim:aries:... | "
                 "sim:dragonfly:n_groups=9,switches=4|6x16,nodes_per_switch=2,global_links=1,nodes=16 | file:PATH | "
                 "PATH | hopper | percs:ns=4,nd=8 | topology.conf:NODELIST[:ppn=8,taper=4]")


class SimSpec:
    """A parsed simulated machine ``sim:NAME:k=v,...``: its machine per job size, network and rank locations.

    Not collective, deterministic: every rank that parses the same spec builds the same
    machine.  Rank ``r`` is processor ``r`` of the simulated machine.

    Parameters
    ----------
    name : str
        A registered simulated machine (:func:`~mpitaskmap.machines.kinds.sim_forms`).
    **options : str or int
        Its keys, as in the spec string.

    Raises
    ------
    InvalidInputError
        Unknown name or key, or a bad value (the message lists the valid ones).

    Examples
    --------
    >>> s = SimSpec("torus", dims="4x4", ppn=2)
    >>> s.spec, s.locate(5, 8)
    ('sim:torus:dims=4x4,ppn=2', Location(coords=(2, 0), node='node2'))
    """

    def __init__(self, name: str = "titan", **options) -> None:
        name = str(name).lower()
        self.form: SimForm = sim_form(name, "")
        self.name = name
        raw = ",".join(f"{k}={v}" for k, v in options.items())
        #: The spec string that :func:`parse_sim_spec` turns back into this spec.
        self.spec = f"sim:{name}" + (f":{raw}" if raw else "")
        self.params = self.form.parse(parse_options(raw, self.form.keys, f"provider {self.spec!r}"),
                                      f"provider {self.spec!r}")
        self._machines: dict[int, Machine] = {}

    def machine(self, size: int) -> Machine:
        """Return the simulated machine for a job of ``size`` ranks (cached per size).

        Raises
        ------
        ProviderError
            If the simulated machine has fewer than ``size`` processors.
        """
        _, size = check_rank(0, size)
        m = self._machines.get(size)
        if m is not None:
            return m
        m = self.form.build(self.params, size, self.spec)
        if m.n_procs < size:
            raise ProviderError(f"sim: {self.spec!r} has {m.n_procs} processors but the job has {size} ranks")
        self._machines[size] = m
        return m

    def locate(self, rank: int, size: int) -> Location:
        """Return where processor ``rank`` of the machine for a job of ``size`` ranks sits."""
        rank, size = check_rank(rank, size)
        coords, node = self.form.locate(self.machine(size), self.params, rank)
        return Location(coords, node)

    def network(self) -> NetworkInfo:
        """Return the simulated network (independent of the job size)."""
        return self.form.network(self.params)


def parse_sim_spec(spec: str) -> SimSpec:
    """Return the simulated machine of a spec string ``sim[:NAME[:k=v,...]]``.

    Raises
    ------
    InvalidInputError
        If the spec does not start with ``sim``, names no registered simulated machine
        (the message lists them), or has a bad key or value.

    Examples
    --------
    >>> parse_sim_spec("sim:bgq:shape=2x1x1x1x2,ppn=2").network().dims
    (2, 1, 1, 1, 2)
    """
    parts = spec.split(":", 2)
    if parts[0].strip().lower() != "sim":
        raise InvalidInputError(f"provider: expected a spec starting with 'sim'; got {spec!r}")
    name = parts[1].strip().lower() if len(parts) > 1 and parts[1].strip() else "titan"
    form = sim_form(name, f" in {spec!r}")
    opts = parse_options(parts[2] if len(parts) > 2 else "", form.keys, f"provider {spec!r}")
    return SimSpec(name, **opts)


class MachineSpec(NamedTuple):
    """A machine read from a spec: the machine, the spec as it describes it, the host names of its nodes if known."""

    machine: Machine
    spec: str
    hosts: list | None


def machine_from_spec(spec: str, n_ranks: int, *, what: str = "--machine") -> MachineSpec:
    """Return the machine named by ``spec`` for a job of ``n_ranks`` ranks (module notes).

    Parameters
    ----------
    spec : str
        ``sim:NAME:...``, ``file:PATH``, ``PATH`` or a kind's own spelling.
    n_ranks : int
        The job's ranks (a simulated machine is built for them).
    what : str
        Names the spec in errors (default ``"--machine"``).

    Returns
    -------
    MachineSpec
        A simulated machine is assembled from its ranks' locations as ``remap()`` assembles
        it (its name is the spec); ``hosts[k]`` names node id ``k`` (``""`` where no node of
        the job has that id), or None when the spec names no hosts.

    Raises
    ------
    InvalidInputError
        On a malformed spec, or a path that is no file and no known spec.
    ProviderError
        If a simulated machine cannot hold ``n_ranks`` ranks.

    Examples
    --------
    >>> m = machine_from_spec("sim:torus:dims=4x4,ppn=2", 8)
    >>> m.spec, m.machine.n_nodes, m.hosts[:3]
    ('sim:torus:dims=4x4,ppn=2', 4, ['node0', 'node1', 'node2'])
    """
    text = spec.strip()
    if text.lower().startswith("sim"):
        return _simulated(parse_sim_spec(text), n_ranks)
    for form in spec_forms():
        if form.matches(text):
            return MachineSpec(*form.load(text, n_ranks, what))
    path = text[5:] if text.lower().startswith("file:") else text
    if not os.path.exists(path):
        raise InvalidInputError(f"{what}: no such machine file and not a known spec ({MACHINE_FORMS}); got {spec!r}")
    machine = read_machine_file(path)
    return MachineSpec(machine, path, machine_file_hosts(path, machine))


def _simulated(sim: SimSpec, n_ranks: int) -> MachineSpec:
    """The job's machine of a simulated spec, assembled from every rank's location, and its hosts by node id."""
    _, n_ranks = check_rank(0, n_ranks)
    locations = [sim.locate(r, n_ranks) for r in range(n_ranks)]
    machine = assemble_machine(locations, sim.network(), name=sim.spec)
    view = machine.node_view()
    # by node id, as host_names reads a list (a fat tree's node ids are tree node numbers: ids without a
    # node of the job get no name)
    hosts = [""] * (int(view.nodes.max()) + 1)
    for k, r in zip(view.nodes.tolist(), view.representative.tolist()):
        hosts[k] = locations[int(r)].node
    return MachineSpec(machine, sim.spec, hosts)
