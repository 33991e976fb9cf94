"""Parameters of a simulated platform shared by the in-process replay and SimGrid's platforms.

The units of the machine's bandwidth numbers, the loopback link of every host, and the one
check of a platform's parameters (:func:`platform_parameters`): :mod:`~.fluid` and
:mod:`~.simgrid` describe the same platform, so they read it the same way.
"""

from __future__ import annotations

from typing import NamedTuple

from .._validate import check_positive
from ..errors import InvalidInputError

__all__ = ["BANDWIDTH_UNITS", "DEFAULT_LOOPBACK", "check_link", "PlatformParameters", "platform_parameters"]

#: Bytes per second of each bandwidth unit SimGrid accepts (SI prefixes are powers of 10):
#: the units of the platform files (:mod:`mpitaskmap.sim.simgrid`) and of this model.
BANDWIDTH_UNITS = {
    "Bps": 1.0,
    "kBps": 1e3,
    "MBps": 1e6,
    "GBps": 1e9,
    "TBps": 1e12,
    "KiBps": 2.0**10,
    "MiBps": 2.0**20,
    "GiBps": 2.0**30,
    "TiBps": 2.0**40,
}

#: Loopback link of every host (messages inside a node): (bandwidth in ``bandwidth_unit``,
#: latency in seconds), the values of SimGrid's own cluster examples (50 GBps, 0.1 us).
DEFAULT_LOOPBACK = (50.0, 1e-7)


def check_link(pair, name: str) -> tuple[float, float]:
    """A (bandwidth, latency in seconds) pair, checked; an error names ``name``."""
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise InvalidInputError(f"{name}: expected (bandwidth, latency in seconds); got {pair!r}")
    return check_positive(pair[0], f"{name} bandwidth"), check_positive(pair[1], f"{name} latency", allow_zero=True)


class PlatformParameters(NamedTuple):
    """Checked parameters of a platform (:func:`platform_parameters`)."""

    unit: float  # bytes per second of one unit of the machine's bandwidths
    link_latency: float  # seconds per network link
    loopback: tuple  # (bandwidth in machine units, latency s) of a host's loopback or a router's crossbar
    node_link: tuple | None  # (bandwidth, latency s) of every node's injection and ejection link, or None


def platform_parameters(link_latency, bandwidth_unit: str, loopback, node_link) -> PlatformParameters:
    """Check a platform's parameters; an error names the one at fault.

    Parameters
    ----------
    link_latency : float
        Seconds per network link, >= 0.
    bandwidth_unit : str
        A key of :data:`BANDWIDTH_UNITS`.
    loopback, node_link : (float, float) or None
        (bandwidth, latency in seconds) pairs; ``node_link`` may be None.

    Returns
    -------
    PlatformParameters

    Examples
    --------
    >>> platform_parameters(1e-7, "GBps", DEFAULT_LOOPBACK, None).unit
    1000000000.0
    """
    if bandwidth_unit not in BANDWIDTH_UNITS:
        raise InvalidInputError(f"bandwidth_unit: unknown unit {bandwidth_unit!r}; valid: {sorted(BANDWIDTH_UNITS)}")
    return PlatformParameters(
        BANDWIDTH_UNITS[bandwidth_unit],
        check_positive(link_latency, "link_latency", allow_zero=True),
        check_link(loopback, "loopback"),
        None if node_link is None else check_link(node_link, "node_link"),
    )
