"""Coordinates from a machine file (not collective): rank ``r`` runs where row ``r`` says.

The file (format: :mod:`mpitaskmap.machines.machine_file`) is named by ``path=``, by the spec
``file:PATH``, or by ``$MPITASKMAP_COORDS_FILE``.  It must describe exactly as many ranks
as the job has.  Parsed files are cached per path (and modification time), so the
processes of one node read a file once each, not once per call.
"""

from __future__ import annotations

import os

from ..errors import ProviderError
from ..machines import TorusMachine
from ..machines.machine_file import read_machine_file
from ._base import Location, NetworkInfo, Provider, check_rank
from ._util import read_env

__all__ = ["FileProvider", "clear_file_cache"]

_CACHE: dict[tuple, TorusMachine] = {}


def clear_file_cache() -> None:
    """Forget every parsed machine file."""
    _CACHE.clear()


def _load(path: str) -> TorusMachine:
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
        The machine file; default ``$MPITASKMAP_COORDS_FILE``.

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

    def machine(self) -> TorusMachine:
        """Return the parsed machine file (cached)."""
        return _load(self.path)

    def check(self) -> None:
        """Raise ProviderError if no file is named or it cannot be read (parse errors propagate)."""
        self.machine()

    def locate(self, rank: int, size: int) -> Location:
        """Return row ``rank`` of the machine file.

        Raises
        ------
        ProviderError
            If the file is missing or describes a number of ranks other than ``size``.
        """
        rank, size = check_rank(rank, size)
        m = self.machine()
        if m.n_procs != size:
            raise ProviderError(
                f"file: {self.path} describes {m.n_procs} ranks but the job has {size}; "
                "the file needs one row per rank"
            )
        return Location(tuple(int(c) for c in m.router_coords[rank]), f"node{int(m.node_ids[rank])}")

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the file's dims, wrap flags, bandwidths and dimension names."""
        m = self.machine()
        return NetworkInfo(
            dims=tuple(int(d) for d in m.dims),
            wrap=tuple(bool(w) for w in m.wrap),
            bandwidth=[b.tolist() for b in m.link_bandwidth],
            dim_names=tuple(m.dim_names),
        )
