"""Simulated machines as a provider (not collective): demos and tests on a laptop.

Spec strings (keys are optional unless marked; lengths are written ``4x4x2``); each simulated
machine is defined by its network kind (:mod:`mpitaskmap.machines.kinds`) and parsed by
:func:`mpitaskmap.machines.specs.parse_sim_spec`, the parser ``--machine`` shares:

=====================================================  ===============================================
spec                                                   machine
=====================================================  ===============================================
``sim`` = ``sim:titan``                                Titan-like Cray XK7 sparse allocation
``sim:titan:nodes=64,ppn=1,seed=1,busy=0.5,dims=..``   :func:`~mpitaskmap.machines.torus.presets.titan_machine`;
                                                       ``nodes`` defaults to ``ceil(size / ppn)``,
                                                       ``ppn`` to 16, ``seed`` 0, ``busy`` 0.5
``sim:bgq:shape=4x4x4x4x2,ppn=16,order=ABCDET,wrap=1``  :func:`~mpitaskmap.machines.torus.presets.bgq_machine`
``sim:torus:dims=4x4x4,ppn=1,npr=1,wrap=1``            :func:`~mpitaskmap.machines.torus.presets.torus_machine`
                                                       (``dims`` required; ``npr`` nodes per router)
``sim:percs:ns=2,nd=1,routing=direct``                 :func:`~mpitaskmap.machines.percs.percs_from_options`
                                                       (whole system: the job has ``ns * 128`` ranks;
                                                       the command line's ``percs:`` spec)
``sim:fattree:leaves=32,nodes_per_leaf=16,taper=4,``   :func:`~mpitaskmap.machines.fattree.presets.fattree_machine`:
``levels=2,nodes=64,ppn=8,seed=1``                     ``nodes`` scattered over a 2- or 3-level tree;
``[,leaves_per_pod=,bw=12.5,routing=dmodk]``           ``nodes`` defaults to ``ceil(size / ppn)``,
                                                       ``ppn`` to 1, ``taper`` 1, ``seed`` 0
``sim:frontera:nodes=64,ppn=56,seed=1,routing=``       :func:`~mpitaskmap.machines.fattree.presets.fattree_preset`
``sim:supermuc-ng:nodes=,ppn=,seed=,routing=``         (published shapes of the two clusters)
``sim:dragonfly:n_groups=9,switches=4,nodes_per_switch=``  :func:`~mpitaskmap.machines.dragonfly.presets.dragonfly_machine`:
``2,global_links=1,nodes=16,ppn=4,seed=1,groups=``       ``nodes`` scattered over a dragonfly of ``n_groups``
``[,global_ports=,bw=25,routing=minimal]``               groups of ``switches`` switches all-to-all, or
``[,bw_node=,bw_local=,bw_green=,bw_black=,``            ``RxC`` rows x columns of routers (Aries);
``bw_global=]``                                          ``nodes`` defaults to ``ceil(size / ppn)``,
                                                       ``ppn`` to 1, ``seed`` 0; ``bw`` GB/s of every link,
                                                       ``bw_CLASS`` of one class (as in a machine file)
``sim:frontier:nodes=64,ppn=8,seed=1,groups=4,``       :func:`~mpitaskmap.machines.dragonfly.presets.dragonfly_preset`
``routing=minimal``                                    (published shapes; ``groups=k`` confines the
``sim:perlmutter:nodes=,ppn=,seed=,groups=,routing=``  allocation to ``k`` groups drawn at random;
``sim:aries:nodes=,ppn=,seed=,groups=,routing=``       ``routing`` one of ``DRAGONFLY_ROUTINGS``)
=====================================================  ===============================================

Rank ``r`` is processor ``r`` of the simulated machine, i.e. its default rank order (ALPS
curve order on Titan, the ``order`` letters on BG/Q, router order on a torus, Slurm's block
order on the sorted node list of a fat tree or a dragonfly).  A fat tree's rank reports its tree node as
its coordinate in a ``"fattree"`` network holding the tree's shape, so every rank
assembles the same :class:`~mpitaskmap.machines.FatTreeMachine`; a dragonfly's rank reports
``(group, switch, slot)`` in a ``"dragonfly"`` network holding the shape, links, bandwidths
and routing, so every rank assembles the same :class:`~mpitaskmap.machines.DragonflyMachine`
(node names ``nid%05d`` of the node number ``(g S + s) n + k``).  The
machines are deterministic, so every rank builds the same one.  A job larger than the
machine is a :class:`~mpitaskmap.errors.ProviderError`; a malformed spec is an
:class:`~mpitaskmap.errors.InvalidInputError` naming the key.
"""

from __future__ import annotations

from ..machines import Machine
from ..machines.kinds import sim_forms
from ..machines.specs import SimSpec, parse_sim_spec
from ._base import Location, NetworkInfo, Provider

__all__ = ["SimProvider", "SIM_KINDS"]

#: Valid keys per simulated machine of the library's own kinds (a kind registered later,
#: e.g. by a test, is a simulated machine too: :func:`~mpitaskmap.machines.kinds.sim_forms`).
SIM_KINDS = {name: form.keys for name, form in sim_forms().items()}


class SimProvider(Provider):
    """Locate ranks on a simulated machine of a registered network kind.

    Not collective, rank-addressable, deterministic.

    Parameters
    ----------
    kind : str or SimSpec
        A parsed spec (:func:`~mpitaskmap.machines.specs.parse_sim_spec`), or the simulated
        machine (:func:`~mpitaskmap.machines.kinds.sim_forms`): ``"titan"``, ``"bgq"``,
        ``"torus"``, ``"percs"``, ``"fattree"``, ``"frontera"``, ``"supermuc-ng"``,
        ``"dragonfly"``, ``"frontier"``, ``"perlmutter"`` or ``"aries"``.
    **options : str or int
        Its keys, as in the spec string.

    Raises
    ------
    InvalidInputError
        Unknown kind or key, or a bad value (the message lists the valid keys).

    Examples
    --------
    >>> p = SimProvider("bgq", shape="2x1x1x1x2", ppn=2)
    >>> [p.locate(r, 8) for r in (0, 2)]
    [Location(coords=(0, 0, 0, 0, 0), node='bgq-0.0.0.0.0'), Location(coords=(0, 0, 0, 0, 1), node='bgq-0.0.0.0.1')]
    >>> p = SimProvider.from_spec("sim:titan:ppn=1,seed=1")
    >>> [p.locate(r, 4).node for r in range(4)]
    ['nid00000', 'nid00001', 'nid00050', 'nid00051']
    >>> p = SimProvider.from_spec("sim:fattree:leaves=4,nodes_per_leaf=4,taper=2,nodes=6,ppn=2,seed=1")
    >>> [p.locate(r, 12) for r in (0, 2)]
    [Location(coords=(0,), node='node0000'), Location(coords=(2,), node='node0002')]
    >>> p = SimProvider.from_spec("sim:dragonfly:n_groups=3,switches=3,nodes_per_switch=2,nodes=4,ppn=2,seed=1")
    >>> [p.locate(r, 8) for r in (0, 7)]
    [Location(coords=(1, 0, 1), node='nid00007'), Location(coords=(2, 2, 1), node='nid00017')]
    """

    name = "sim"
    rank_addressable = True

    def __init__(self, kind: str | SimSpec = "titan", **options) -> None:
        super().__init__()
        self._sim = kind if isinstance(kind, SimSpec) else SimSpec(kind, **options)
        self.kind = self._sim.name

    @classmethod
    def from_spec(cls, spec: str) -> "SimProvider":
        """Return the provider of a spec string ``sim[:KIND[:k=v,...]]``."""
        return cls(parse_sim_spec(spec))

    @property
    def spec(self) -> str:
        """Spec string of this provider."""
        return self._sim.spec

    def machine(self, size: int) -> Machine:
        """Return the simulated machine for a job of ``size`` ranks (cached per size).

        Raises
        ------
        ProviderError
            If the simulated machine has fewer than ``size`` processors.
        """
        return self._sim.machine(size)

    def locate(self, rank: int, size: int) -> Location:
        """Return processor ``rank`` of the simulated machine for a job of ``size`` ranks."""
        return self._sim.locate(rank, size)

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the simulated network (independent of the job size)."""
        return self._sim.network()
