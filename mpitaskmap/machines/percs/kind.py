"""The ``"percs"`` network kind: an IBM PERCS two-level network, the whole system.

One builder, :func:`percs_from_options`, behind every spelling of a PERCS machine:
``percs:ns=4,nd=8`` on the command line, ``sim:percs:ns=4,nd=8`` as a provider, and a
:class:`~mpitaskmap.machines.network_record.NetworkInfo` of kind ``"percs"`` in ``remap()``;
all three accept the same values and fail with the same message.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..._options import parse_choice, parse_int, parse_options
from ...errors import InvalidInputError
from ..kinds import Gathered, NetworkKind, SimForm, SpecForm, register_kind
from ..network_record import NetworkInfo
from .network import DRAWERS_PER_SUPERNODE, NODES_PER_DRAWER
from .percs import PercsMachine
from .routing import ROUTINGS

__all__ = ["PERCS_KEYS", "PERCS_DEFAULTS", "percs_from_options", "PERCS_KIND"]

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


def _assemble(gathered: Gathered, network: NetworkInfo, name: str) -> PercsMachine:
    """A PercsMachine: the job must be the whole system with rank r on processor r."""
    coords = gathered.coords
    opts = dict(network.options)
    spec = {"ns": network.dims[0], "nd": opts.get("n_d", PERCS_DEFAULTS["nd"]),
            "routing": opts.get("routing", PERCS_DEFAULTS["routing"])}
    m = percs_from_options(spec, f"network {name!r}", name=name)
    if coords.shape[0] != m.n_procs:
        raise InvalidInputError(
            f"locations: a PERCS machine models the whole system of {m.n_procs} processors; got {coords.shape[0]} ranks"
        )
    expected = m.locate(np.arange(m.n_procs))[:, :3]  # (supernode, drawer, node) of processor r
    bad = np.flatnonzero((coords[:, :3] != expected).any(axis=1))
    if bad.size:
        r = int(bad[0])
        raise InvalidInputError(
            f"locations: rank {r} is on PERCS node {tuple(int(v) for v in coords[r, :3])} but processor {r} is on "
            f"{tuple(int(v) for v in expected[r])}; ranks must fill nodes in processor order"
        )
    return m


def _coords(m: PercsMachine, rank: int) -> tuple:
    """(supernode, drawer, node in drawer) of processor ``rank``."""
    return tuple(int(v) for v in m.locate(rank)[0, :3])


def _locate(m: PercsMachine, p: dict, rank: int) -> tuple:
    s, dr, n = _coords(m, rank)
    return (s, dr, n), f"sn{s}-d{dr}-n{n}"


def _network(p: dict) -> NetworkInfo:
    m = p["machine"]
    return NetworkInfo(dims=(m.n_s, DRAWERS_PER_SUPERNODE, NODES_PER_DRAWER), wrap=False, kind="percs",
                       options=(("n_d", m.n_d), ("routing", m.routing)))


def _load_spec(text: str, n_ranks: int, what: str) -> tuple:
    """``--machine percs:ns=N,nd=D[,routing=...]``: the sim:percs machine, by the same builder."""
    what = f"{what} {text!r}"
    return percs_from_options(parse_options(text.partition(":")[2], PERCS_KEYS, what), what), text, None


#: ``sim:percs``: the whole system, whatever the job: built (and checked) once, when parsed.
PERCS_FORM = SimForm("percs", PERCS_KEYS, lambda o, s: {"machine": percs_from_options(o, s)},
                     lambda p, size, spec: p["machine"], _network, _locate)

PERCS_KIND = register_kind(NetworkKind(
    "percs", _assemble, machine_type=PercsMachine, sim_forms=(PERCS_FORM,),
    spec_forms=(SpecForm(lambda text: text.lower().startswith("percs:") or text.lower() == "percs", _load_spec),)))
