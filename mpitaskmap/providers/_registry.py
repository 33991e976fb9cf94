"""Provider names and spec strings (private): get_provider and available_providers."""

from __future__ import annotations

from ..errors import InvalidInputError
from ._base import Provider
from ._util import parse_options
from .bgq import BgqProvider
from .file import FileProvider
from .hostname import HostnameProvider
from .rca import RcaProvider
from .sim import SimProvider

__all__ = ["get_provider", "available_providers", "provider_from_spec"]

_NAMES = ("auto", "bgq", "file", "hostname", "rca", "sim")


def available_providers() -> list[str]:
    """Return the provider names that :func:`get_provider` accepts, sorted.

    Not collective.  Whether a provider works on this machine is decided by
    ``get_provider("auto")`` (or by calling its ``check()``).

    Examples
    --------
    >>> available_providers()
    ['auto', 'bgq', 'file', 'hostname', 'rca', 'sim']
    """
    return list(_NAMES)


def provider_from_spec(spec: str) -> Provider:
    """Return the provider of an explicit spec (``"auto"`` is handled by :func:`get_provider`)."""
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidInputError(f"provider: expected a non-empty spec string; got {spec!r}")
    spec = spec.strip()
    family, _, rest = spec.partition(":")
    family = family.strip().lower()
    if family == "sim":
        return SimProvider.from_spec(spec)
    if family == "file":
        return FileProvider(rest) if rest else FileProvider()
    if family == "rca":
        o = parse_options(rest, ("lib", "nid_file"), spec)
        return RcaProvider(lib=o.get("lib"), nid_file=o.get("nid_file"))
    if family == "bgq":
        o = parse_options(rest, ("lib", "shape", "wrap"), spec)
        return BgqProvider(lib=o.get("lib"), shape=o.get("shape"), wrap=o.get("wrap"))
    if family == "hostname":
        parse_options(rest, (), spec)
        return HostnameProvider()
    raise InvalidInputError(f"provider: unknown provider {family!r} in {spec!r}; valid: {available_providers()}")


def get_provider(spec: str | Provider | None = None) -> Provider:
    """Return the coordinate provider named by ``spec``.

    Not collective.

    Parameters
    ----------
    spec : str, Provider or None, optional
        ``None`` means ``$MPITASKMAP_PROVIDER``, else ``"auto"``.  A spec is a name,
        optionally followed by ``:`` and options: ``"auto"``, ``"file"``,
        ``"file:PATH"``, ``"sim:titan:ppn=1"``, ``"rca"``, ``"rca:lib=PATH"``,
        ``"bgq:shape=4x4x4x8x2"``, ``"hostname"``.  A Provider is returned unchanged.

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
        from .auto import detect_provider

        return detect_provider()
    return provider_from_spec(spec)
