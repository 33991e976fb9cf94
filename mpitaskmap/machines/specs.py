"""Machines from spec options: one builder per machine kind behind every spelling of its spec.

A PERCS system is written ``percs:ns=4,nd=8`` on the command line, ``sim:percs:ns=4,nd=8``
as a provider, and arrives as a :class:`~mpitaskmap.providers.NetworkInfo` of kind
``"percs"`` in ``remap()``; all three build it with :func:`percs_from_options`, so they
accept the same values and fail with the same message.  (The torus, Titan and BG/Q
specs have one spelling, ``sim:KIND:...``, read by :mod:`mpitaskmap.providers.sim`.)
"""

from __future__ import annotations

from typing import Mapping

from .._options import parse_choice, parse_int
from ..errors import InvalidInputError
from .percs import PercsMachine
from .percs_routing import ROUTINGS

__all__ = ["PERCS_KEYS", "PERCS_DEFAULTS", "percs_from_options"]

#: Keys of a PERCS spec: supernodes, D links per supernode pair, inter-supernode routing.
PERCS_KEYS = ("ns", "nd", "routing")
#: Their values when a spec leaves them out.
PERCS_DEFAULTS = {"ns": 2, "nd": 1, "routing": "direct"}


def percs_from_options(options: Mapping[str, object], what: str, *, name: str | None = None) -> PercsMachine:
    """Build the PERCS machine of a spec's options.

    Parameters
    ----------
    options : mapping
        Keys of :data:`PERCS_KEYS` (missing ones take :data:`PERCS_DEFAULTS`), values as
        written in the spec (text) or already numbers.
    what : str
        Names the spec in errors, e.g. ``"--machine 'percs:ns=2,nd=3'"``.
    name : str, optional
        The machine's description (default ``percs(NSxND, ROUTING)``).

    Returns
    -------
    PercsMachine

    Raises
    ------
    InvalidInputError
        On an unknown key or a bad value (``nd`` must be one of 1, 2, 4, 8, 16, 32),
        starting with ``what``.

    Examples
    --------
    >>> percs_from_options({"ns": "4", "nd": "2"}, "demo")
    PercsMachine(n_s=4, n_d=2, routing='direct', model='paper')
    >>> percs_from_options({"nd": "3"}, "demo")
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.InvalidInputError: demo: n_d: D links per supernode pair must be one of [...]; got 3
    """
    unknown = sorted(set(options) - set(PERCS_KEYS))
    if unknown:
        raise InvalidInputError(f"{what}: unknown key {unknown[0]!r}; valid keys: {sorted(PERCS_KEYS)}")
    o = {**PERCS_DEFAULTS, **options}
    n_s = parse_int(o["ns"], "ns", what)
    n_d = parse_int(o["nd"], "nd", what)
    routing = parse_choice(o["routing"], "routing", what, ROUTINGS)
    try:
        return PercsMachine(n_s, n_d, routing=routing, name=name)
    except InvalidInputError as exc:  # n_d not a power of two up to 32: the machine's own check
        raise InvalidInputError(f"{what}: {exc}") from None
