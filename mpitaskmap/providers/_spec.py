"""Provider names and explicit spec strings (private): provider_from_spec and available_providers."""

from __future__ import annotations

from .._options import parse_options
from ..errors import InvalidInputError
from ._base import Provider
from .bgq import BgqProvider
from .cxi import CXI_KEYS, CxiProvider
from .file import FileProvider
from .fjmpi import FJMPI_KEYS, FjmpiProvider
from .hostname import HostnameProvider
from .rca import RCA_KEYS, RcaProvider
from .sim import SimProvider
from .slurm import SLURM_KEYS, SlurmProvider
from .xname import XNAME_KEYS, XnameProvider

__all__ = ["available_providers", "provider_from_spec"]

_NAMES = ("auto", "bgq", "cxi", "file", "fjmpi", "hostname", "rca", "sim", "slurm", "xname")


def available_providers() -> list[str]:
    """Return the provider names that :func:`get_provider` accepts, sorted.

    Not collective.  Whether a provider works on this machine is decided by
    ``get_provider("auto")`` (or by calling its ``check()``).

    Examples
    --------
    >>> available_providers()
    ['auto', 'bgq', 'cxi', 'file', 'fjmpi', 'hostname', 'rca', 'sim', 'slurm', 'xname']
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
    what = f"provider {spec!r}"
    if family == "rca":
        return RcaProvider(**parse_options(rest, RCA_KEYS, what))
    if family == "cxi":
        return CxiProvider(**parse_options(rest, CXI_KEYS, what))
    if family == "xname":
        return XnameProvider(**parse_options(rest, XNAME_KEYS, what))
    if family == "fjmpi":
        return FjmpiProvider(**parse_options(rest, FJMPI_KEYS, what))
    if family == "bgq":
        o = parse_options(rest, ("lib", "shape", "wrap"), what)
        return BgqProvider(lib=o.get("lib"), shape=o.get("shape"), wrap=o.get("wrap"))
    if family == "hostname":
        parse_options(rest, (), what)
        return HostnameProvider()
    if family == "slurm":
        return SlurmProvider(**parse_options(rest, SLURM_KEYS, what))
    raise InvalidInputError(f"provider: unknown provider {family!r} in {spec!r}; valid: {available_providers()}")
