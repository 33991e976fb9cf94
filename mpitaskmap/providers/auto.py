"""Automatic choice of a coordinate provider (not collective).

Detection order (:data:`AUTO_ORDER`); the first that applies wins:

1. ``env``: ``$MPITASKMAP_PROVIDER``, if set to anything but ``auto``, is used as the spec.
2. ``file``: ``$MPITASKMAP_COORDS_FILE`` is set.  Chosen without falling back: a broken
   file the user asked for is an error at ``locate``, not a reason to try something else.
3. ``rca``: the Cray nid file (``/proc/cray_xt/nid``) exists and the RCA library loads
   and answers ``rca_get_max_dimension``.
4. ``bgq``: a library exporting ``MPIX_Torus_ndims`` and ``MPIX_Rank2torus`` is found and
   reports a 5-D torus.
5. ``slurm``: ``SLURM_TOPOLOGY_ADDR`` and ``SLURM_TOPOLOGY_ADDR_PATTERN`` are set and name
   switches, blocks or a torus (a Slurm topology plugin; :mod:`.slurm`).  Its options
   (``taper=``, ``dims=``) come through ``MPITASKMAP_PROVIDER=slurm:...``.
6. ``hostname``: always applies (node-only, flat network).

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
from .file import FileProvider
from .hostname import HostnameProvider
from .rca import RcaProvider
from .slurm import SlurmProvider

__all__ = ["detect_provider", "probe_summary", "AUTO_ORDER"]

logger = logging.getLogger(__name__)

AUTO_ORDER = ("env", "file", "rca", "bgq", "slurm", "hostname")


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

    bgq = BgqProvider()
    try:
        bgq.check()
        return chosen(bgq, "bgq")
    except ProviderError as exc:
        probes.append(("bgq", str(exc)))

    slurm = SlurmProvider()
    try:
        slurm.check()
        return chosen(slurm, "slurm")
    except ProviderError as exc:
        probes.append(("slurm", str(exc)))

    return chosen(HostnameProvider(), "hostname")
