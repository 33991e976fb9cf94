"""Coordinates from a machine file (not collective): rank ``r`` runs where row ``r`` says.

The file (format: :mod:`mpitaskmap.machines.machine_file`) is named by ``path=``, by the spec
``file:PATH``, or by ``$MPITASKMAP_COORDS_FILE``.  It must describe exactly as many ranks
as the job has (a dragonfly-form file: every rank reports its ``(group, switch, slot)`` in the
file's ``"dragonfly"`` network).  Parsed files are cached per path (and modification time), so the
processes of one node read a file once each, not once per call.

A Slurm topology instead: ``TOPOLOGY_FILE:NODELIST[:ppn=8,taper=4,bw=12.5,routing=dmodk]``
(a ``topology.conf`` or saved ``scontrol show topology``, the job's nodes as a host list,
:func:`~mpitaskmap.machines.fattree.slurm_topology.read_topology_spec`): rank ``r`` runs on node
``r // ppn`` of the list, located by the ``SLURM_TOPOLOGY_ADDR`` that node has in that
topology, so the job's machine is the fat tree the ``slurm`` provider would give on those
nodes.
"""

from __future__ import annotations

import os

from ..errors import ProviderError
from ..machines import Machine
from ..machines.kinds import NetworkKind, kind_of
from ..machines.machine_file import read_machine_file
from ..machines.fattree.slurm_topology import TopologySpec, is_topology_spec, read_topology_spec
from ..machines.fattree import fattree_network
from ._base import Location, NetworkInfo, Provider, check_rank
from ._util import read_env

__all__ = ["FileProvider", "clear_file_cache"]

_CACHE: dict[tuple, object] = {}


def clear_file_cache() -> None:
    """Forget every parsed machine file."""
    _CACHE.clear()


def _load_topology(spec: str) -> tuple[TopologySpec, list[str]]:
    """The topology spec and every node's address (cached per file, modification time and spec)."""
    path = spec.partition(":")[0]
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ProviderError(f"file: {path}: cannot read the topology file of {spec!r} ({exc.strerror or exc})") from None
    key = (os.path.realpath(path), st.st_mtime_ns, st.st_size, spec)
    found = _CACHE.get(key)
    if found is None:
        topo = read_topology_spec(spec, f"file {spec!r}")
        found = (topo, topo.addresses())
        _CACHE[key] = found
    return found


def _load(path: str) -> Machine:
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ProviderError(f"file: {path}: cannot read the machine file ({exc.strerror or exc})") from None
    key = (os.path.realpath(path), st.st_mtime_ns, st.st_size)
    machine = _CACHE.get(key)
    if machine is None:
        try:
            machine = read_machine_file(path)
        except OSError as exc:
            raise ProviderError(f"file: {path}: cannot read the machine file ({exc.strerror or exc})") from None
        _CACHE[key] = machine
    return machine


class FileProvider(Provider):
    """Read every rank's router coordinate and node from a machine file.

    Not collective, rank-addressable.

    Parameters
    ----------
    path : str or path-like, optional
        The machine file, or a topology spec ``TOPOLOGY_FILE:NODELIST[:OPTIONS]`` (module
        notes); default ``$MPITASKMAP_COORDS_FILE``.

    Notes
    -----
    Parse errors of the file are :class:`~mpitaskmap.errors.InvalidInputError` with
    ``file:line`` (raised by :func:`~mpitaskmap.machines.machine_file.read_machine_file`); a
    missing file or a rank count different from the job size is a
    :class:`~mpitaskmap.errors.ProviderError`.  Node strings are ``node<id>`` with the
    file's node ids.
    """

    name = "file"
    rank_addressable = True

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        super().__init__()
        self._path = os.fspath(path) if path is not None else None

    @property
    def path(self) -> str:
        """The machine file this provider reads."""
        path = self._path or read_env("MPITASKMAP_COORDS_FILE")
        if not path:
            raise ProviderError("file: no machine file: pass path= or set MPITASKMAP_COORDS_FILE")
        return path

    @property
    def spec(self) -> str:
        """Spec string of this provider (``file:PATH``)."""
        try:
            return f"file:{self.path}"
        except ProviderError:
            return "file"

    @property
    def is_topology(self) -> bool:
        """Whether the path is a Slurm topology spec ``TOPOLOGY_FILE:NODELIST[:OPTIONS]``."""
        return is_topology_spec(self.path)

    def machine(self) -> Machine:
        """Return the parsed machine file, or the fat tree of a topology spec (cached)."""
        if self.is_topology:
            return _load_topology(self.path)[0].machine(name=self.spec)
        return _load(self.path)

    def check(self) -> None:
        """Raise ProviderError if no file is named or it cannot be read (parse errors propagate)."""
        if self.is_topology:
            _load_topology(self.path)
        else:
            self.machine()

    def locate(self, rank: int, size: int) -> Location:
        """Return row ``rank`` of the machine file.

        Raises
        ------
        ProviderError
            If the file is missing or describes a number of ranks other than ``size``.
        """
        rank, size = check_rank(rank, size)
        if self.is_topology:
            topo, addresses = _load_topology(self.path)
            if topo.n_ranks != size:
                raise ProviderError(f"file: {self.path} describes {len(topo.nodes)} nodes x {topo.ppn} = {topo.n_ranks} "
                                    f"ranks but the job has {size}")
            return Location((), addresses[rank // topo.ppn])
        m = self.machine()
        if m.n_procs != size:
            raise ProviderError(
                f"file: {self.path} describes {m.n_procs} ranks but the job has {size}; "
                "the file needs one row per rank"
            )
        # the coordinate the file's kind reports (a dragonfly file: (group, switch, slot) in a "dragonfly" network)
        return Location(self._kind(m).coords_of(m, rank), f"node{int(m.node_ids[rank])}")

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the file's dims, wrap flags, bandwidths and dimension names.

        A ``"fattree"`` network for a topology spec; else the network the file's kind
        records for its machine (:attr:`~mpitaskmap.machines.kinds.NetworkKind.network_of`): the
        ``"dragonfly"`` network (:func:`~mpitaskmap.machines.dragonfly.dragonfly_network`) for the
        dragonfly form.
        """
        if self.is_topology:
            topo = _load_topology(self.path)[0]
            return fattree_network(topo.pattern, taper=topo.taper, bandwidth=topo.bandwidth, routing=topo.routing)
        m = self.machine()
        return self._kind(m).network_of(m)

    def _kind(self, m: Machine) -> NetworkKind:
        """The network kind of the machine the file describes, which says what its ranks report."""
        kind = kind_of(m)
        if kind is None or kind.network_of is None or kind.coords_of is None:
            raise ProviderError(f"file: {self.path}: a {type(m).__name__} cannot be located rank by rank (its "
                                "network kind registers no network_of/coords_of)")
        return kind
