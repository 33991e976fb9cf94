"""The base of the coordinate providers: Provider, and the whole machine from a rank-addressable one.

Nothing here communicates.  A provider answers, for one process, "where do I run?"
(:class:`~mpitaskmap.machines.network_record.Location`) and "what network are those coordinates
in?" (:class:`~mpitaskmap.machines.network_record.NetworkInfo`); the runtime gathers the answers
and the network's kind builds the machine
(:func:`~mpitaskmap.machines.network_record.assemble_machine_arrays`).  Providers only locate.
"""

from __future__ import annotations

import numpy as np

from .._options import parse_options
from ..errors import ProviderError
from ..machines import Machine
from ..machines.network_record import Location, NetworkInfo, assemble_machine, check_rank

__all__ = ["Provider", "machine_from_provider", "check_rank", "Location", "NetworkInfo"]


class Provider:
    """Base class of the coordinate providers (not collective).

    Subclasses set :attr:`name` and implement :meth:`locate` and :meth:`network`.  A
    provider never communicates: it is called on every rank, and the runtime gathers.

    Attributes
    ----------
    name : str
        Family name, as in :func:`~mpitaskmap.providers.get_provider` specs (``"rca"``).
    rank_addressable : bool
        True if :meth:`locate` can describe *any* rank of the job (file, sim, bgq), so
        one process can build the whole machine (:func:`machine_from_provider`); False
        if it only knows the calling process (rca, hostname), whatever ``rank`` says.
    probes : tuple of (str, str)
        Set by ``auto`` detection: every provider tried, in order, with ``"selected"``
        or the reason it was skipped.  Empty otherwise.
    """

    name: str = "provider"
    rank_addressable: bool = False

    def __init__(self) -> None:
        self.probes: tuple = ()
        self._given: dict = {}

    def _record_options(self, given: dict) -> str:
        """Remember the options given (None values left out), for :attr:`spec`; return them as ``k=v,...`` text."""
        self._given = {k: _spec_text(v) for k, v in given.items() if v is not None}
        return ",".join(f"{k}={v}" for k, v in self._given.items())

    def _read_options(self, given: dict, keys: tuple[str, ...]) -> tuple[dict[str, str], str]:
        """Remember the options given (:meth:`_record_options`) and read them as spec text.

        Returns ``(options, what)``: the options by key, checked against ``keys``
        (:func:`~mpitaskmap._options.parse_options`), and ``"provider 'SPEC'"``, which every
        error about them starts with.
        """
        text = self._record_options(given)
        what = f"provider {self.spec!r}"
        return parse_options(text, keys, what), what

    @property
    def spec(self) -> str:
        """Spec string that :func:`~mpitaskmap.providers.get_provider` turns back into this provider.

        The name, then ``:key=value,...`` of the options given (:meth:`_record_options`), in the
        order given; lengths are written ``4x4x2``, floats as ``%g``.
        """
        if not self._given:
            return self.name
        return f"{self.name}:" + ",".join(f"{k}={v}" for k, v in self._given.items())

    def check(self) -> None:
        """Raise :class:`~mpitaskmap.errors.ProviderError` if this provider cannot work here.

        Not collective.  Used by ``auto`` detection; cheap (no per-rank work).
        """

    def locate(self, rank: int, size: int) -> Location:
        """Return where the process with job rank ``rank`` of ``size`` runs.

        Not collective.  ``rank`` and ``size`` are the ``MPI_COMM_WORLD`` rank and size
        of the job, not those of the communicator being remapped.

        Raises
        ------
        ProviderError
            If the location cannot be determined; the message says why.
        InvalidInputError
            If ``rank`` is not in ``[0, size)``.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define locate")

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the network the coordinates of :meth:`locate` live in.

        Not collective.  ``size`` (the job size) is only needed by providers that
        derive the extents from the job (bgq without a configured shape).
        """
        raise NotImplementedError(f"{type(self).__name__} does not define network")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"


def machine_from_provider(provider: Provider, size: int, *, name: str | None = None) -> Machine:
    """Build the whole job's machine in one process from a rank-addressable provider.

    Not collective.  For offline use (site staff, tests): calls ``provider.locate(r,
    size)`` for every rank and :func:`assemble_machine`.

    Raises
    ------
    ProviderError
        If the provider only knows the calling process (``rank_addressable`` is False),
        or as ``locate`` does.

    Examples
    --------
    >>> from mpitaskmap.providers import get_provider
    >>> m = machine_from_provider(get_provider("sim:torus:dims=4x4,ppn=2"), 8)
    >>> m.router_coords[:4].tolist(), m.node_ids[:4].tolist()
    ([[0, 0], [0, 0], [1, 0], [1, 0]], [0, 0, 1, 1])
    """
    _, size = check_rank(0, size)
    if not provider.rank_addressable:
        raise ProviderError(
            f"provider: {provider.spec!r} only knows the calling process; gather its locations "
            "over MPI instead (remap does)"
        )
    locations = [provider.locate(r, size) for r in range(size)]
    return assemble_machine(locations, provider.network(size=size), name=name or provider.spec)


def _spec_text(value) -> str:
    """An option value as a spec writes it: lengths and flags ``4x4x2``, ``1x0``; floats ``%g``."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if isinstance(value, (tuple, list)):
        return "x".join(_spec_text(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)
