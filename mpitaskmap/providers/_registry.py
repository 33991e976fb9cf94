"""The provider of a spec (private): :func:`get_provider`, explicit specs and ``auto``."""

from __future__ import annotations

from ._base import Provider
from ._spec import provider_from_spec
from .auto import detect_provider

__all__ = ["get_provider"]


def get_provider(spec: str | Provider | None = None) -> Provider:
    """Return the coordinate provider named by ``spec``.

    Not collective.

    Parameters
    ----------
    spec : str, Provider or None, optional
        ``None`` means ``$MPITASKMAP_PROVIDER``, else ``"auto"``.  A spec is a name,
        optionally followed by ``:`` and options: ``"auto"``, ``"file"``,
        ``"file:PATH"``, ``"sim:titan:ppn=1"``, ``"rca"``, ``"rca:lib=PATH"``,
        ``"rca:network=aries"``, ``"bgq:shape=4x4x4x8x2"``, ``"fjmpi:shape=24x23x24"``,
        ``"cxi:preset=perlmutter"``, ``"xname:n_groups=74"``, ``"hostname"``.  A Provider is
        returned unchanged.

    Returns
    -------
    Provider
        For ``"auto"``, the detected provider with its ``probes`` recorded.

    Raises
    ------
    InvalidInputError
        Unknown name (the message lists the valid ones), unknown option key, bad value.

    Examples
    --------
    >>> get_provider("sim:torus:dims=4x4").locate(5, 16)
    Location(coords=(1, 1), node='node5')
    """
    if isinstance(spec, Provider):
        return spec
    if spec is None or (isinstance(spec, str) and spec.strip().lower() == "auto"):
        return detect_provider()
    return provider_from_spec(spec)
