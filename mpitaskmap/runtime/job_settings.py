"""The job-level settings every rank must share, compared on every rank before a remap starts.

:func:`mpitaskmap.remap` and every call on its path (:func:`mpitaskmap.create_cart`,
:func:`mpitaskmap.create_dist_graph_adjacent`, :func:`~.topology_comms.cart_order`,
:func:`~.topology_comms.dist_graph_order`, and so the PMPI library's hooks) read their
configuration on every rank and compare it first (:func:`agree_settings`): a provider spec or
job-level variable that one rank sees differently would otherwise leave the job mapped by
one rank's view, or split it between two.

The rule:

* **Job-level, equal (or unset) on every rank**: the ``provider=`` argument and
  :data:`JOB_VARIABLES` (``MPITASKMAP_DISABLE``, ``MPITASKMAP_PROVIDER``,
  ``MPITASKMAP_COORDS_FILE``, and the machine shapes ``MPITASKMAP_BGQ_SHAPE``,
  ``MPITASKMAP_BGQ_WRAP``, ``MPITASKMAP_FJMPI_SHAPE``), compared as the code reads them
  (stripped; empty is unset), whether or not this call uses them.  When one differs, every
  rank ends alike, with one error naming each differing setting, its values and the ranks
  holding each (:func:`describe_differences`): every rank raises it as a
  :class:`~mpitaskmap.errors.MappingError`, or with ``on_error="identity"`` returns the
  default order, and rank 0 logs it.
* **Per rank or per node, may differ** (:data:`RANK_VARIABLES`): where a rank finds its own
  node's facts (library paths, the node's nid, cname or xname file, the CXI NIC a rank is
  bound to), its interpreter (``MPITASKMAP_LIBPYTHON``, ``MPITASKMAP_PYTHON``), its compile
  cache (``MPITASKMAP_CACHE_DIR``) and its log level (``MPITASKMAP_LOG``: each rank its own;
  rank 0 speaks, the others only warn).  What a rank learns through them and reports
  (coordinates, the network) is still compared in the gather.

Cost: one ``Allreduce`` of two int64 (the least and, negated, the largest 62-bit digest of
the ranks' settings), which replaces the broadcast of rank 0's configuration that the
runtime made before; only when they differ, a ``gather`` of every rank's settings to rank 0
and a ``bcast`` of the one-line error.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from .._textio import rank_ranges
from ..providers._util import read_env

__all__ = ["JOB_VARIABLES", "RANK_VARIABLES", "PROVIDER_ARGUMENT", "local_settings", "settings_digest",
           "describe_differences", "agree_settings"]

#: Environment variables that describe the job: equal (or unset) on every rank.
JOB_VARIABLES = ("MPITASKMAP_DISABLE", "MPITASKMAP_PROVIDER", "MPITASKMAP_COORDS_FILE", "MPITASKMAP_BGQ_SHAPE",
                 "MPITASKMAP_BGQ_WRAP", "MPITASKMAP_FJMPI_SHAPE")
#: Environment variables each rank may set its own way (its node's files and libraries, its NIC,
#: its interpreter, cache and log level); not compared.  The traffic recorder's (read by the PMPI
#: library's C core, not by remap) settle their own differences: MPITASKMAP_RECORD set on some ranks
#: only writes nothing and says so (agreed in MPI_Finalize), rank 0's chunk is taken, and each rank
#: bounds its own table of communicators.
RANK_VARIABLES = ("MPITASKMAP_LOG", "MPITASKMAP_CACHE_DIR", "MPITASKMAP_CXI_NIC", "MPITASKMAP_CXI_LIB",
                  "MPITASKMAP_RCA_LIB", "MPITASKMAP_CRAY_NID_FILE", "MPITASKMAP_CRAY_CNAME_FILE",
                  "MPITASKMAP_XNAME_FILE", "MPITASKMAP_FJMPI_LIB", "MPITASKMAP_BGQ_LIB", "MPITASKMAP_LIBPYTHON",
                  "MPITASKMAP_PYTHON", "MPITASKMAP_RECORD", "MPITASKMAP_RECORD_CHUNK", "MPITASKMAP_RECORD_COMMS")
#: How the ``provider=`` argument is named in the error.
PROVIDER_ARGUMENT = "the provider argument"
#: Values named per differing setting (the others are counted), and runs of ranks per value.
_MAX_VALUES, _MAX_RUNS = 4, 8
_TRUE = ("1", "true", "yes", "on")


def local_settings(provider=None) -> tuple:
    """This rank's job-level settings: ``((name, value), ...)``, the provider argument first.

    Not collective.

    Parameters
    ----------
    provider : str, Provider or None
        The ``provider=`` argument of the call (a Provider object stands for its ``spec``).

    Returns
    -------
    tuple of (str, str or None)
        :data:`PROVIDER_ARGUMENT` and its value, then every :data:`JOB_VARIABLES` entry and
        its stripped value (None when unset or empty).

    Examples
    --------
    >>> import os
    >>> os.environ["MPITASKMAP_PROVIDER"] = " sim:titan:ppn=1 "
    >>> local_settings("hostname")[:3]
    (('the provider argument', 'hostname'), ('MPITASKMAP_DISABLE', None), ('MPITASKMAP_PROVIDER', 'sim:titan:ppn=1'))
    >>> del os.environ["MPITASKMAP_PROVIDER"]
    """
    if provider is not None and not isinstance(provider, str):
        provider = str(getattr(provider, "spec", provider))
    return ((PROVIDER_ARGUMENT, provider),) + tuple((name, read_env(name)) for name in JOB_VARIABLES)


def settings_digest(settings: tuple) -> int:
    """A signed 62-bit digest of ``settings``, equal on ranks whose settings are equal.

    62 bits, so that its negation fits an int64 too (:func:`agree_settings` takes the least
    and the largest in one ``Allreduce``).

    Examples
    --------
    >>> a = settings_digest((("MPITASKMAP_PROVIDER", "sim:titan"),))
    >>> a == settings_digest((("MPITASKMAP_PROVIDER", "sim:titan"),)), abs(a) < 2**61
    (True, True)
    >>> a == settings_digest((("MPITASKMAP_PROVIDER", "sim:bogus"),))
    False
    """
    raw = hashlib.blake2b(repr(settings).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(raw, "little", signed=True) >> 2


def _ranks_text(ranks: list) -> str:
    """``rank 1``, ``ranks 0,2-3``; more than a few runs are cut short and counted."""
    if len(ranks) == 1:
        return f"rank {ranks[0]}"
    runs = rank_ranges(ranks).split(",")
    if len(runs) > _MAX_RUNS:
        return f"ranks {','.join(runs[:_MAX_RUNS])},... ({len(ranks)} ranks)"
    return f"ranks {','.join(runs)}"


def _value_text(name: str, value: str | None) -> str:
    if value is None:
        return "not given" if name == PROVIDER_ARGUMENT else "unset"
    return repr(value)


def describe_differences(settings_by_rank: Sequence[tuple]) -> str:
    """The agreed error: every setting that differs between ranks, its values and their ranks.

    Not collective (rank 0 words it from the gathered settings).

    Parameters
    ----------
    settings_by_rank : sequence of tuple
        :func:`local_settings` of every rank, in rank order.

    Returns
    -------
    str
        ``""`` when every rank has the same settings; else one clause per differing
        setting, joined by ``"; "``: ``NAME differs between ranks: RANKS VALUE, RANKS
        VALUE`` with the values in the order of their first rank, the ranks as runs
        (``0,2-3``).  An unset variable reads ``unset``, a missing ``provider=`` argument
        ``not given``.  At most 4 values are named per setting (then ``and N other
        values``), at most 8 runs of ranks per value (then ``,... (N ranks)``).

    Examples
    --------
    >>> titan = ("MPITASKMAP_PROVIDER", "sim:titan:ppn=1")
    >>> print(describe_differences([(titan,), (("MPITASKMAP_PROVIDER", "sim:bogus"),), (titan,), (titan,)]))
    MPITASKMAP_PROVIDER differs between ranks: ranks 0,2-3 'sim:titan:ppn=1', rank 1 'sim:bogus'
    >>> describe_differences([(titan,), (titan,)])
    ''
    """
    if not settings_by_rank:
        return ""
    clauses = []
    for k, (name, _) in enumerate(settings_by_rank[0]):
        ranks_of: dict = {}  # value -> its ranks, in the order of the first rank holding each value
        for rank, settings in enumerate(settings_by_rank):
            ranks_of.setdefault(settings[k][1], []).append(rank)
        if len(ranks_of) == 1:
            continue
        groups = [f"{_ranks_text(ranks)} {_value_text(name, value)}" for value, ranks in ranks_of.items()]
        if len(groups) > _MAX_VALUES:
            groups = groups[:_MAX_VALUES] + [f"and {len(groups) - _MAX_VALUES} other values"]
        clauses.append(f"{name} differs between ranks: {', '.join(groups)}")
    return "; ".join(clauses)


def agree_settings(comm, provider=None) -> dict:
    """Read this rank's configuration and check that every rank of ``comm`` has the same.

    Collective over ``comm``; never raises on a difference (the caller ends every rank
    alike on ``config["error"]``).

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The ranks of the call.
    provider : str, Provider or None
        The call's ``provider=`` argument, compared like the variables.

    Returns
    -------
    dict
        ``disable`` (bool: ``MPITASKMAP_DISABLE`` is ``1``, ``true``, ``yes`` or ``on``;
        False when the settings differ), ``provider`` (``MPITASKMAP_PROVIDER`` or None),
        ``log`` (this rank's ``MPITASKMAP_LOG`` or None) and ``error``: ``""`` when
        every rank has the same :func:`local_settings`, else
        :func:`describe_differences` of them, the same text on every rank.

    Notes
    -----
    One ``Allreduce`` (``MIN`` over this rank's digest and its negation); after a
    difference, a ``gather`` to rank 0 and a ``bcast`` of the error line.
    """
    from mpi4py import MPI  # the runtime's import; mpi4py stays out of module import time

    mine = local_settings(provider)
    digest = settings_digest(mine)
    least = np.empty(2, dtype=np.int64)
    comm.Allreduce(np.array([digest, -digest], dtype=np.int64), least, op=MPI.MIN)
    error = ""
    if int(least[0]) != -int(least[1]):  # the least digest is not the largest: the ranks differ
        everyone = comm.gather(mine, root=0)
        error = comm.bcast(describe_differences(everyone) if comm.Get_rank() == 0 else None, root=0)
    values = dict(mine)
    disable = (values["MPITASKMAP_DISABLE"] or "").lower() in _TRUE
    return {"disable": disable and not error, "provider": values["MPITASKMAP_PROVIDER"],
            "log": read_env("MPITASKMAP_LOG"), "error": error}
