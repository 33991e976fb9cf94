"""Automatic choice of a coordinate provider (not collective).

Detection order (:data:`AUTO_ORDER`); the first that applies wins:

1. ``env``: ``$MPITASKMAP_PROVIDER``, if set to anything but ``auto``, is used as the spec.
2. ``file``: ``$MPITASKMAP_COORDS_FILE`` is set.  Chosen without falling back: a broken
   file the user asked for is an error at ``locate``, not a reason to try something else.
3. ``rca``: the Cray nid file (``/proc/cray_xt/nid``) exists and the RCA library loads
   and answers ``rca_get_max_dimension`` (a Cray XE/XK Gemini torus, or a Cray XC's Aries
   dragonfly, whose nodes also need their cname: :mod:`.rca`).
4. ``bgq``: a library exporting ``MPIX_Torus_ndims`` and ``MPIX_Rank2torus`` is found and
   reports a 5-D torus.
5. ``fjmpi``: a library exporting ``FJMPI_Topology_get_coords`` (Fujitsu MPI) answers for
   world rank 0 with a Tofu coordinate (:mod:`.fjmpi`).
6. ``cxi``: libfabric loads and lists a CXI NIC (HPE Slingshot) whose place is within the
   default shape (:mod:`.cxi`; another shape through ``MPITASKMAP_PROVIDER=cxi:...``).
7. ``xname``: ``/etc/cray/xname`` holds a node xname (HPE Cray EX without a usable
   libfabric: groups are known, switches approximated; :mod:`.xname`).
8. ``slurm``: ``SLURM_TOPOLOGY_ADDR`` and ``SLURM_TOPOLOGY_ADDR_PATTERN`` are set and name
   switches, blocks or a torus (a Slurm topology plugin; :mod:`.slurm`).  Its options
   (``taper=``, ``dims=``) come through ``MPITASKMAP_PROVIDER=slurm:...``.
9. ``hostname``: always applies (node-only, flat network).

The vendor interfaces come first, most specific first: the Cray XE/XK/XC nid file, then the
MPI libraries' own extensions (IBM, Fujitsu), then libfabric's CXI NIC and the xname of an HPE
Cray EX node (its fallback: the xname knows the cabinet but not the switch), then what the
scheduler says (Slurm), then the host name.  Each interface belongs to one kind of machine,
so at most one vendor step applies on a real system.

Every step is recorded in the chosen provider's ``probes`` as ``(name, outcome)``, where
outcome is ``"selected"`` or why the step was skipped, and logged in one line at level INFO
on the ``mpitaskmap`` logger (``MPITASKMAP_LOG=info`` shows it during ``remap()``;
:func:`probe_summary`).
Detection is local: different nodes could in principle see different files or
libraries, so the runtime must check that every rank chose the same ``spec``.
"""

from __future__ import annotations

import logging
import os

from ..errors import InvalidInputError, ProviderError
from ._base import Provider
from ._spec import provider_from_spec
from ._util import read_env
from .bgq import BgqProvider
from .cxi import CxiProvider
from .file import FileProvider
from .fjmpi import FjmpiProvider
from .hostname import HostnameProvider
from .rca import RcaProvider
from .slurm import SlurmProvider
from .xname import XnameProvider

__all__ = ["detect_provider", "probe_summary", "AUTO_ORDER"]

logger = logging.getLogger(__name__)

AUTO_ORDER = ("env", "file", "rca", "bgq", "fjmpi", "cxi", "xname", "slurm", "hostname")


def probe_summary(probes) -> str:
    """One line: the provider auto-detection chose and why it skipped each one before it.

    Examples
    --------
    >>> probe_summary([("env", "MPITASKMAP_PROVIDER not set"), ("file", "MPITASKMAP_COORDS_FILE not set"),
    ...                ("hostname", "selected")])
    'provider auto-detection: hostname selected; skipped env (MPITASKMAP_PROVIDER not set), file \
(MPITASKMAP_COORDS_FILE not set)'
    """
    *skipped, (name, how) = probes
    text = f"provider auto-detection: {name} {how}"
    if skipped:
        text += "; skipped " + ", ".join(f"{n} ({why})" for n, why in skipped)
    return text


def detect_provider() -> Provider:
    """Return the first applicable provider in :data:`AUTO_ORDER`, with ``probes`` set.

    Not collective.

    Returns
    -------
    Provider
        Its ``probes`` attribute lists every step tried and its outcome.

    Raises
    ------
    InvalidInputError
        If ``$MPITASKMAP_PROVIDER`` holds an invalid spec (the message names the variable).
    """
    probes: list[tuple[str, str]] = []

    def chosen(provider: Provider, name: str, how: str = "selected") -> Provider:
        probes.append((name, how))
        provider.probes = tuple(probes)
        logger.info("%s", probe_summary(provider.probes))
        return provider

    env = read_env("MPITASKMAP_PROVIDER")
    if env is not None and env.lower() != "auto":
        try:
            provider = provider_from_spec(env)
        except InvalidInputError as exc:
            raise InvalidInputError(f"MPITASKMAP_PROVIDER: {exc}") from None
        return chosen(provider, "env", f"selected: MPITASKMAP_PROVIDER={env}")
    probes.append(("env", "MPITASKMAP_PROVIDER not set" if env is None else "MPITASKMAP_PROVIDER=auto"))

    if read_env("MPITASKMAP_COORDS_FILE") is not None:
        return chosen(FileProvider(), "file", f"selected: MPITASKMAP_COORDS_FILE={read_env('MPITASKMAP_COORDS_FILE')}")
    probes.append(("file", "MPITASKMAP_COORDS_FILE not set"))

    rca = RcaProvider()
    if not os.path.exists(rca.nid_file):
        probes.append(("rca", f"{rca.nid_file} not found (not a Cray XE/XK compute node)"))
    else:
        try:
            rca.check()
            return chosen(rca, "rca")
        except ProviderError as exc:
            probes.append(("rca", str(exc)))

    for name, make in (("bgq", BgqProvider), ("fjmpi", FjmpiProvider), ("cxi", CxiProvider)):
        provider = make()
        try:
            provider.check()
            return chosen(provider, name)
        except ProviderError as exc:
            probes.append((name, str(exc)))

    xname = XnameProvider()
    if not os.path.exists(xname.xname_file):
        probes.append(("xname", f"{xname.xname_file} not found (not an HPE Cray EX node)"))
    else:
        try:
            xname.check()
            return chosen(xname, "xname")
        except ProviderError as exc:
            probes.append(("xname", str(exc)))

    slurm = SlurmProvider()
    try:
        slurm.check()
        return chosen(slurm, "slurm")
    except ProviderError as exc:
        probes.append(("slurm", str(exc)))

    return chosen(HostnameProvider(), "hostname")
