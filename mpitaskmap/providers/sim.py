"""Simulated machines as a provider (not collective): demos and tests on a laptop.

Spec strings (keys are optional unless marked; lengths are written ``4x4x2``):

=====================================================  ===============================================
spec                                                   machine
=====================================================  ===============================================
``sim`` = ``sim:titan``                                Titan-like Cray XK7 sparse allocation
``sim:titan:nodes=64,ppn=1,seed=1,busy=0.5,dims=..``   :func:`~mpitaskmap.machines.presets.titan_machine`;
                                                       ``nodes`` defaults to ``ceil(size / ppn)``,
                                                       ``ppn`` to 16, ``seed`` 0, ``busy`` 0.5
``sim:bgq:shape=4x4x4x4x2,ppn=16,order=ABCDET,wrap=1``  :func:`~mpitaskmap.machines.presets.bgq_machine`
``sim:torus:dims=4x4x4,ppn=1,npr=1,wrap=1``            :func:`~mpitaskmap.machines.presets.torus_machine`
                                                       (``dims`` required; ``npr`` nodes per router)
``sim:percs:ns=2,nd=1,routing=direct``                 :func:`~mpitaskmap.machines.specs.percs_from_options`
                                                       (whole system: the job has ``ns * 128`` ranks;
                                                       the command line's ``percs:`` spec)
``sim:fattree:leaves=32,nodes_per_leaf=16,taper=4,``   :func:`~mpitaskmap.machines.fattree_presets.fattree_machine`:
``levels=2,nodes=64,ppn=8,seed=1``                     ``nodes`` scattered over a 2- or 3-level tree;
``[,leaves_per_pod=,bw=12.5,routing=dmodk]``           ``nodes`` defaults to ``ceil(size / ppn)``,
                                                       ``ppn`` to 1, ``taper`` 1, ``seed`` 0
``sim:frontera:nodes=64,ppn=56,seed=1,routing=``       :func:`~mpitaskmap.machines.fattree_presets.fattree_preset`
``sim:supermuc-ng:nodes=,ppn=,seed=,routing=``         (published shapes of the two clusters)
``sim:dragonfly:n_groups=9,switches=4,nodes_per_switch=``  :func:`~mpitaskmap.machines.dragonfly_presets.dragonfly_machine`:
``2,global_links=1,nodes=16,ppn=4,seed=1,groups=``       ``nodes`` scattered over a dragonfly of ``n_groups``
``[,global_ports=,bw=25,routing=minimal]``               groups of ``switches`` switches all-to-all, or
                                                       ``RxC`` rows x columns of routers (Aries);
                                                       ``nodes`` defaults to ``ceil(size / ppn)``,
                                                       ``ppn`` to 1, ``seed`` 0; ``bw`` GB/s of every link
``sim:frontier:nodes=64,ppn=8,seed=1,groups=4,``       :func:`~mpitaskmap.machines.dragonfly_presets.dragonfly_preset`
``routing=minimal``                                    (published shapes; ``groups=k`` confines the
``sim:perlmutter:nodes=,ppn=,seed=,groups=,routing=``  allocation to ``k`` groups drawn at random;
``sim:aries:nodes=,ppn=,seed=,groups=,routing=``       ``routing`` ``minimal`` or ``valiant``)
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

import functools
import math

from .._options import parse_choice, parse_float, parse_int, parse_lengths, parse_options, parse_wrap
from ..errors import InvalidInputError, ProviderError
from ..machines import FatTreeMachine, Machine, TorusMachine
from ..machines.dragonfly import DRAGONFLY_ROUTINGS
from ..machines.dragonfly_presets import DRAGONFLY_PRESETS, dragonfly_machine, dragonfly_preset
from ..machines.fattree import FAT_TREE_ROUTINGS
from ..machines.fattree_presets import FATTREE_PRESETS, fattree_machine, fattree_preset
from ..machines.percs import PercsMachine
from ..machines.percs_network import DRAWERS_PER_SUPERNODE, NODES_PER_DRAWER
from ..machines.presets import BGQ_ORDERS, TITAN_DIMS, bgq_machine, titan_machine, torus_machine
from ..machines.specs import PERCS_KEYS, percs_from_options
from ._base import Location, NetworkInfo, Provider, check_rank, dragonfly_network
from .bgq import BGQ_DIM_NAMES, bgq_node_name

__all__ = ["SimProvider", "SIM_KINDS", "FATTREE_KINDS", "DRAGONFLY_KINDS"]

#: Valid keys per simulated machine kind.
SIM_KINDS = {
    "titan": ("nodes", "ppn", "seed", "busy", "dims"),
    "bgq": ("shape", "ppn", "order", "wrap"),
    "torus": ("dims", "ppn", "npr", "wrap"),
    "percs": PERCS_KEYS,
    "fattree": ("leaves", "nodes_per_leaf", "taper", "levels", "leaves_per_pod", "nodes", "ppn", "seed", "bw",
                "routing"),
    **{preset: ("nodes", "ppn", "seed", "routing") for preset in FATTREE_PRESETS},
    "dragonfly": ("n_groups", "switches", "nodes_per_switch", "global_links", "global_ports", "bw", "nodes", "ppn",
                  "seed", "groups", "routing"),
    **{preset: ("nodes", "ppn", "seed", "groups", "routing") for preset in DRAGONFLY_PRESETS},
}
#: The simulated fat trees (kinds of :data:`SIM_KINDS`).
FATTREE_KINDS = ("fattree",) + tuple(FATTREE_PRESETS)
#: The simulated dragonflies (kinds of :data:`SIM_KINDS`); ``n_groups`` is the machine's groups of
#: ``sim:dragonfly``, ``groups`` the allocation's group limit in every kind.
DRAGONFLY_KINDS = ("dragonfly",) + tuple(DRAGONFLY_PRESETS)


class SimProvider(Provider):
    """Locate ranks on a simulated machine built by :mod:`mpitaskmap.machines.presets`.

    Not collective, rank-addressable, deterministic.

    Parameters
    ----------
    kind : str
        Machine family, a key of :data:`SIM_KINDS`: ``"titan"``, ``"bgq"``, ``"torus"``,
        ``"percs"``, ``"fattree"``, ``"frontera"``, ``"supermuc-ng"``, ``"dragonfly"``,
        ``"frontier"``, ``"perlmutter"`` or ``"aries"``.
    **options : str or int
        The keys of :data:`SIM_KINDS` for that kind, as in the spec string.

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

    def __init__(self, kind: str = "titan", **options) -> None:
        super().__init__()
        kind = str(kind).lower()
        if kind not in SIM_KINDS:
            raise InvalidInputError(f"provider: unknown simulated machine {kind!r}; valid: {sorted(SIM_KINDS)}")
        self.kind = kind
        raw = ",".join(f"{k}={v}" for k, v in options.items())
        self._spec = f"sim:{kind}" + (f":{raw}" if raw else "")
        opts = parse_options(raw, SIM_KINDS[kind], f"provider {self._spec!r}")
        self._options = opts
        self._params = self._parse(kind, opts)
        self._machines: dict[int, Machine] = {}

    @classmethod
    def from_spec(cls, spec: str) -> "SimProvider":
        """Return the provider of a spec string ``sim[:KIND[:k=v,...]]``."""
        parts = spec.split(":", 2)
        if parts[0].strip().lower() != "sim":
            raise InvalidInputError(f"provider: expected a spec starting with 'sim'; got {spec!r}")
        kind = parts[1].strip().lower() if len(parts) > 1 and parts[1].strip() else "titan"
        if kind not in SIM_KINDS:
            raise InvalidInputError(
                f"provider: unknown simulated machine {kind!r} in {spec!r}; valid: {sorted(SIM_KINDS)}"
            )
        opts = parse_options(parts[2] if len(parts) > 2 else "", SIM_KINDS[kind], f"provider {spec!r}")
        return cls(kind, **opts)

    @property
    def spec(self) -> str:
        """Spec string of this provider."""
        return self._spec

    def _parse(self, kind: str, o: dict) -> dict:
        s = f"provider {self._spec!r}"
        p: dict = {}
        if kind == "titan":
            p["ppn"] = parse_int(o.get("ppn", 16), "ppn", s)
            p["nodes"] = parse_int(o["nodes"], "nodes", s) if "nodes" in o else None
            p["seed"] = parse_int(o.get("seed", 0), "seed", s, minimum=0)
            p["dims"] = parse_lengths(o.get("dims", TITAN_DIMS), "dims", s, n=3)
            busy = parse_float(o.get("busy", 0.5), "busy", s)
            if not 0.0 <= busy < 1.0:
                raise InvalidInputError(f"{s}: busy must lie in [0, 1); got {busy}")
            p["busy"] = busy
        elif kind == "bgq":
            p["shape"] = parse_lengths(o.get("shape", "4x4x4x4x2"), "shape", s, n=5)
            p["ppn"] = parse_int(o.get("ppn", 16), "ppn", s)
            order = o.get("order", "ABCDET").upper()
            if order not in BGQ_ORDERS:
                raise InvalidInputError(f"{s}: order must be a permutation of ABCDET; got {order!r}")
            p["order"] = order
            p["wrap"] = parse_wrap(o.get("wrap", "1"), "wrap", s, 5)
        elif kind == "percs":  # the whole system, whatever the job: built (and checked) once, here
            p["machine"] = percs_from_options(o, s)
        elif kind in FATTREE_KINDS:
            self._parse_fattree(kind, o, s, p)
        elif kind in DRAGONFLY_KINDS:
            self._parse_dragonfly(kind, o, s, p)
        else:
            if "dims" not in o:
                raise InvalidInputError(f"{s}: sim:torus needs dims=, e.g. dims=4x4x4")
            p["dims"] = parse_lengths(o["dims"], "dims", s)
            p["ppn"] = parse_int(o.get("ppn", 1), "ppn", s)
            p["npr"] = parse_int(o.get("npr", 1), "npr", s)
            p["wrap"] = parse_wrap(o.get("wrap", "1"), "wrap", s, len(p["dims"]))
        return p

    @staticmethod
    def _parse_fattree(kind: str, o: dict, s: str, p: dict) -> None:
        """The options of a simulated fat tree; its shape checked now by building it with one node."""
        p["ppn"] = parse_int(o.get("ppn", 1), "ppn", s)
        p["nodes"] = parse_int(o["nodes"], "nodes", s) if "nodes" in o else None
        p["seed"] = parse_int(o.get("seed", 0), "seed", s, minimum=0)
        p["routing"] = parse_choice(o.get("routing", "dmodk"), "routing", s, FAT_TREE_ROUTINGS)
        if kind == "fattree":
            shape = {key: parse_int(o[key], key, s) for key in ("leaves", "nodes_per_leaf", "taper", "levels",
                                                                "leaves_per_pod") if key in o}
            bw = parse_float(o.get("bw", 12.5), "bw", s)
            if bw <= 0:
                raise InvalidInputError(f"{s}: bw must be positive; got {bw:g}")
            shape["bandwidth"] = bw
            p["shape"] = shape
            build = functools.partial(fattree_machine, **shape)
        else:
            build = functools.partial(fattree_preset, kind)
        p["build"] = build
        try:
            p["tree"] = build(nodes=1, ppn=1, seed=0, routing=p["routing"])
        except InvalidInputError as exc:
            raise InvalidInputError(f"{s}: {exc}") from None
        p["bandwidth"] = float(p["tree"].level_bandwidths()[0][0])

    @staticmethod
    def _parse_dragonfly(kind: str, o: dict, s: str, p: dict) -> None:
        """The options of a simulated dragonfly; its shape (and group limit) checked now by building it with one node."""
        p["ppn"] = parse_int(o.get("ppn", 1), "ppn", s)
        p["nodes"] = parse_int(o["nodes"], "nodes", s) if "nodes" in o else None
        p["seed"] = parse_int(o.get("seed", 0), "seed", s, minimum=0)
        p["routing"] = parse_choice(o.get("routing", "minimal"), "routing", s, DRAGONFLY_ROUTINGS)
        if kind == "dragonfly":
            shape: dict = {"n_groups": parse_int(o.get("n_groups", 9), "n_groups", s, minimum=2)}
            switches = parse_lengths(o.get("switches", 4), "switches", s)
            if len(switches) > 2:
                raise InvalidInputError(f"{s}: switches must be S (all-to-all) or RxC (rows x columns, Aries); "
                                        f"got {o['switches']!r}")
            shape["switches"] = switches[0] if len(switches) == 1 else switches
            for key in ("nodes_per_switch", "global_links", "global_ports"):
                if key in o:
                    shape[key] = parse_int(o[key], key, s)
            bw = parse_float(o.get("bw", 25.0), "bw", s)
            if bw <= 0:
                raise InvalidInputError(f"{s}: bw must be positive; got {bw:g}")
            shape["bandwidth"] = bw
            build = functools.partial(dragonfly_machine, **shape)
        else:
            build = functools.partial(dragonfly_preset, kind)
        p["groups"] = parse_int(o["groups"], "groups", s) if "groups" in o else None
        p["build"] = build
        try:
            p["shape"] = build(nodes=1, ppn=1, seed=0, groups=p["groups"], routing=p["routing"])
        except InvalidInputError as exc:
            raise InvalidInputError(f"{s}: {exc}") from None

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
        p = self._params
        if self.kind == "titan":
            nodes = p["nodes"] if p["nodes"] is not None else math.ceil(size / p["ppn"])
            try:
                m = titan_machine(nodes, cores_per_node=p["ppn"], dims=p["dims"], busy_fraction=p["busy"], seed=p["seed"])
            except InvalidInputError as exc:
                raise ProviderError(f"sim: {self._spec!r} cannot hold a job of {size} ranks: {exc}") from None
        elif self.kind == "bgq":
            m = bgq_machine(p["shape"], ranks_per_node=p["ppn"], order=p["order"], wrap=list(p["wrap"]))
        elif self.kind == "percs":
            m = p["machine"]
        elif self.kind in FATTREE_KINDS:
            nodes = p["nodes"] if p["nodes"] is not None else math.ceil(size / p["ppn"])
            try:
                m = p["build"](nodes=nodes, ppn=p["ppn"], seed=p["seed"], routing=p["routing"])
            except InvalidInputError as exc:
                raise ProviderError(f"sim: {self._spec!r} cannot hold a job of {size} ranks: {exc}") from None
        elif self.kind in DRAGONFLY_KINDS:
            nodes = p["nodes"] if p["nodes"] is not None else math.ceil(size / p["ppn"])
            try:
                m = p["build"](nodes=nodes, ppn=p["ppn"], seed=p["seed"], groups=p["groups"], routing=p["routing"])
            except InvalidInputError as exc:
                raise ProviderError(f"sim: {self._spec!r} cannot hold a job of {size} ranks: {exc}") from None
        else:
            m = torus_machine(p["dims"], wrap=list(p["wrap"]), cores_per_node=p["ppn"], nodes_per_router=p["npr"])
        if m.n_procs < size:
            raise ProviderError(f"sim: {self._spec!r} has {m.n_procs} processors but the job has {size} ranks")
        self._machines[size] = m
        return m

    def _node_name(self, m, rank: int) -> str:
        if self.kind == "percs":
            s, dr, n = self._percs_coords(m, rank)
            return f"sn{s}-d{dr}-n{n}"
        if self.kind == "titan":
            return f"nid{int(m.node_ids[rank]):05d}"
        if self.kind == "bgq":
            return bgq_node_name(m.router_coords[rank])
        if self.kind in FATTREE_KINDS:
            return m.node_names[int(m.node_ids[rank])]
        if self.kind in DRAGONFLY_KINDS:
            return f"nid{int(m.node_ids[rank]):05d}"
        return f"node{int(m.node_ids[rank])}"

    def locate(self, rank: int, size: int) -> Location:
        """Return processor ``rank`` of the simulated machine for a job of ``size`` ranks."""
        rank, size = check_rank(rank, size)
        m = self.machine(size)
        if self.kind == "percs":
            return Location(self._percs_coords(m, rank), self._node_name(m, rank))
        if self.kind in FATTREE_KINDS:  # the tree node as the coordinate of a regular "fattree" network
            return Location((int(m.node_ids[rank]),), self._node_name(m, rank))
        if self.kind in DRAGONFLY_KINDS:  # (group, switch, slot) in a "dragonfly" network
            return Location(tuple(int(c) for c in m.locate(rank)[0]), self._node_name(m, rank))
        return Location(tuple(int(c) for c in m.router_coords[rank]), self._node_name(m, rank))

    @staticmethod
    def _percs_coords(m: PercsMachine, rank: int) -> tuple:
        """(supernode, drawer, node in drawer) of processor ``rank``."""
        return tuple(int(v) for v in m.locate(rank)[0, :3])

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the simulated network (independent of the job size)."""
        p = self._params
        if self.kind == "titan":
            return NetworkInfo(dims=p["dims"], wrap=(True,) * 3, bandwidth="gemini", dim_names=("X", "Y", "Z"))
        if self.kind == "bgq":
            return NetworkInfo(dims=p["shape"], wrap=p["wrap"], bandwidth=None, dim_names=BGQ_DIM_NAMES)
        if self.kind == "percs":
            m = p["machine"]
            return NetworkInfo(dims=(m.n_s, DRAWERS_PER_SUPERNODE, NODES_PER_DRAWER), wrap=False, kind="percs",
                               options=(("n_d", m.n_d), ("routing", m.routing)))
        if self.kind in FATTREE_KINDS:
            t: FatTreeMachine = p["tree"]
            return NetworkInfo(dims=(t.n_tree_nodes,), kind="fattree",
                               options=(("down", t.down_links), ("up", t.up_links), ("bandwidth", p["bandwidth"]),
                                        ("routing", p["routing"])))
        if self.kind in DRAGONFLY_KINDS:
            return dragonfly_network(p["shape"])
        return NetworkInfo(dims=p["dims"], wrap=p["wrap"], bandwidth=None, dim_names=None)
