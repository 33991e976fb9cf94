"""The registry of network kinds: what the library knows about each kind, found by its name.

A network kind (``"torus"``, ``"fattree"``, ...) is one sub-package of
:mod:`mpitaskmap.machines`; its ``kind`` module builds a :class:`NetworkKind` and calls
:func:`register_kind` when the package is imported.  Everything outside the kind that needs
kind-specific work asks the registry instead of testing names:

* the network record a provider gathers (:class:`~mpitaskmap.machines.network_record.NetworkInfo`)
  checks its dimensions and options with :attr:`NetworkKind.check_network`;
* the runtime builds the job's machine from gathered locations with :attr:`NetworkKind.assemble`;
* ``sim:NAME:...`` specs (the ``sim`` provider, ``--machine``) are the kinds' :class:`SimForm`;
* a machine file whose first directive is ``network NAME`` is read by the kind's
  :class:`MachineFileForm` (the torus form, without that line, is the ``"torus"`` kind's);
* the other spellings of ``--machine`` (``percs:...``, ``topology.conf:NODELIST``, ``hopper``)
  are the kinds' :class:`SpecForm`.

A kind defined elsewhere (a test's ring network) registers the same way and gets all of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple, Sequence

import numpy as np

from .._options import parse_choice, parse_int
from ..errors import InvalidInputError

__all__ = ["NetworkKind", "SimForm", "MachineFileForm", "SpecForm", "Gathered", "register_kind", "unregister_kind",
           "network_kind", "known_kinds", "parse_sim_job", "sim_form", "sim_forms", "spec_forms", "file_form",
           "file_form_of", "file_networks", "kind_of"]


class Gathered(NamedTuple):
    """The locations of a job's ranks, as :attr:`NetworkKind.assemble` receives them.

    Attributes
    ----------
    coords : (n_ranks, n_dims) ndarray of int
        Router coordinate of every rank, checked inside the network's dimensions.
    nodes : (n_ranks,) ndarray of str or bytes
        Node key of every rank.
    node_ids : (n_ranks,) ndarray of intp
        Node id of every rank: node keys numbered 0, 1, ... by first appearance.
    first_index : (n_keys,) ndarray of intp
        First rank of every distinct node key (keys in sorted order).
    inverse : (n_ranks,) ndarray of intp
        Distinct node key of every rank (an index into ``first_index``).
    """

    coords: np.ndarray
    nodes: np.ndarray
    node_ids: np.ndarray
    first_index: np.ndarray
    inverse: np.ndarray


@dataclass(frozen=True)
class SimForm:
    """One simulated machine ``sim:NAME:k=v,...`` (the ``sim`` provider and ``--machine``).

    Attributes
    ----------
    name : str
        The spec's second field (``"titan"``, ``"frontier"``).
    keys : tuple of str
        The option keys it takes.
    parse : callable
        ``parse(options, what) -> params``: options are the spec's ``{key: text}``; raises
        :class:`~mpitaskmap.errors.InvalidInputError` starting with ``what``.
    build : callable
        ``build(params, size, spec) -> Machine``: the simulated machine for a job of ``size``
        ranks (a :class:`~mpitaskmap.errors.ProviderError` naming ``spec`` if it cannot hold it).
    network : callable
        ``network(params) -> NetworkInfo``: the record every rank reports.
    locate : callable
        ``locate(machine, params, rank) -> (coords, node)``: where processor ``rank`` sits.
    """

    name: str
    keys: tuple
    parse: Callable
    build: Callable
    network: Callable
    locate: Callable


def parse_sim_job(o: dict, what: str, *, ppn: int = 1, routing: str | None = None,
                  routings: Sequence[str] = ()) -> dict:
    """The job's options of a simulated machine (a :attr:`SimForm.parse`'s first ones), checked in this order.

    Parameters
    ----------
    o : dict
        The spec's options, ``{key: text}``.
    what : str
        What errors start with (the spec).
    ppn : int, optional
        Default processes per node.
    routing : str or None, optional
        Default routing, one of ``routings``; None: the machine takes no ``routing=``.
    routings : sequence of str, optional
        The routings it knows.

    Returns
    -------
    dict
        ``ppn``, ``nodes`` (None when not given: enough nodes for the job), ``seed`` (of the
        node allocation) and, with a ``routing`` default, ``routing``.

    Raises
    ------
    InvalidInputError
        On a bad value, naming it.

    Examples
    --------
    >>> parse_sim_job({"nodes": "4"}, "demo", routing="minimal", routings=("minimal", "valiant"))
    {'ppn': 1, 'nodes': 4, 'seed': 0, 'routing': 'minimal'}
    """
    p: dict = {"ppn": parse_int(o.get("ppn", ppn), "ppn", what)}
    p["nodes"] = parse_int(o["nodes"], "nodes", what) if "nodes" in o else None
    p["seed"] = parse_int(o.get("seed", 0), "seed", what, minimum=0)
    if routing is not None:
        p["routing"] = parse_choice(o.get("routing", routing), "routing", what, routings)
    return p


@dataclass(frozen=True)
class MachineFileForm:
    """A kind's machine-file form (:mod:`mpitaskmap.machines.machine_file`).

    Attributes
    ----------
    read : callable
        ``read(path, lines, bandwidth, name) -> (machine, hosts)``: ``lines`` are the file's
        ``(line number, raw text, tokens)`` (the ``network NAME ...`` line first, if the form
        has one); ``hosts`` the host name of every node id, or None.
    write : callable or None
        ``write(machine) -> list of str``: the lines of a file that reads back equal (of a
        machine of the kind's :attr:`NetworkKind.machine_type`).
    network_line : bool
        Whether the form starts with ``network NAME`` (False: the headerless torus form).
    hosts : callable or None
        ``hosts(path, lines, machine) -> list or None``: the host names by node id without
        reading the machine again (None: ``read``'s).
    """

    read: Callable
    write: Callable | None = None
    network_line: bool = True
    hosts: Callable | None = None


@dataclass(frozen=True)
class SpecForm:
    """Another spelling of ``--machine`` (``percs:ns=4``, ``topology.conf:NODELIST``, ``hopper``).

    ``matches(text) -> bool`` and ``load(text, n_ranks, what) -> (machine, spec, hosts)``.
    """

    matches: Callable
    load: Callable


@dataclass(frozen=True)
class NetworkKind:
    """What the library knows about one kind of network (module notes).

    Attributes
    ----------
    name : str
        The kind's name, as :attr:`NetworkInfo.kind <mpitaskmap.machines.network_record.NetworkInfo>` says it.
    assemble : callable
        ``assemble(gathered, network, name) -> Machine``: the job's machine from the
        :class:`Gathered` locations of its ranks.
    check_network : callable, optional
        ``check_network(dims, options)``: raises :class:`~mpitaskmap.errors.InvalidInputError`
        on dimensions or options this kind's network record cannot have.
    machine_type : type, optional
        The class of the kind's machines (:func:`kind_of` finds a machine's kind by it).
    network_of : callable, optional
        ``network_of(machine) -> NetworkInfo``: the record every rank of a machine read whole
        (a machine file) reports.
    coords_of : callable, optional
        ``coords_of(machine, rank) -> tuple of int``: the coordinate rank ``rank`` reports in it.
    sim_forms : tuple of SimForm
        Its simulated machines.
    file_form : MachineFileForm or None
        Its machine-file form.
    spec_forms : tuple of SpecForm
        Its other ``--machine`` spellings.
    """

    name: str
    assemble: Callable
    check_network: Callable | None = None
    machine_type: type | None = None
    network_of: Callable | None = None
    coords_of: Callable | None = None
    sim_forms: tuple = ()
    file_form: MachineFileForm | None = None
    spec_forms: tuple = ()


_KINDS: dict[str, NetworkKind] = {}


def register_kind(kind: NetworkKind) -> NetworkKind:
    """Register ``kind`` under its name (replacing a kind of that name) and return it.

    Raises
    ------
    InvalidInputError
        If ``kind`` is not a :class:`NetworkKind`, or one of its simulated machines is
        already a simulated machine of another kind.
    """
    if not isinstance(kind, NetworkKind):
        raise InvalidInputError(f"kind: expected a NetworkKind; got {type(kind).__name__}")
    for form in kind.sim_forms:
        owner = next((k.name for k in _KINDS.values() if k.name != kind.name
                      and any(f.name == form.name for f in k.sim_forms)), None)
        if owner is not None:
            raise InvalidInputError(f"kind {kind.name!r}: simulated machine {form.name!r} is the {owner!r} kind's")
    _KINDS[kind.name] = kind
    return kind


def unregister_kind(name: str) -> NetworkKind:
    """Remove the kind named ``name`` from the registry and return it (to register it again)."""
    kind = network_kind(name)
    del _KINDS[name]
    return kind


def known_kinds() -> list[str]:
    """Return the names of the registered kinds, in registration order.

    Examples
    --------
    >>> known_kinds()[:5]
    ['flat', 'torus', 'percs', 'fattree', 'dragonfly']
    """
    return list(_KINDS)


def network_kind(name: str) -> NetworkKind:
    """Return the registered kind named ``name``.

    Raises
    ------
    InvalidInputError
        On a name no kind has; the message names the kinds known.

    Examples
    --------
    >>> network_kind("torus").name
    'torus'
    >>> network_kind("mesh")
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.InvalidInputError: kind: expected one of ['flat', 'torus', 'percs', 'fattree', 'dragonfly']; got 'mesh'
    """
    kind = _KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise InvalidInputError(f"kind: expected one of {known_kinds()}; got {name!r}")
    return kind


def sim_forms() -> dict[str, SimForm]:
    """Return every registered simulated machine by name (``sim:NAME:...``)."""
    return {form.name: form for kind in _KINDS.values() for form in kind.sim_forms}


def sim_form(name: str, what: str) -> SimForm:
    """Return the simulated machine ``name``; raises naming ``what`` and the valid names."""
    forms = sim_forms()
    if name not in forms:
        raise InvalidInputError(f"provider: unknown simulated machine {name!r}{what}; valid: {sorted(forms)}")
    return forms[name]


def spec_forms() -> list[SpecForm]:
    """Return the registered ``--machine`` spellings, kind by kind in registration order."""
    return [form for kind in _KINDS.values() for form in kind.spec_forms]


def file_form(name: str | None) -> MachineFileForm | None:
    """Return the machine-file form of a ``network NAME`` line (None: the headerless form), or None if none."""
    for kind in _KINDS.values():
        form = kind.file_form
        if form is not None and ((kind.name == name and form.network_line) if name is not None
                                 else not form.network_line):
            return form
    return None


def kind_of(machine) -> NetworkKind | None:
    """Return the registered kind whose machines ``machine`` is one of (its :attr:`~NetworkKind.machine_type`), or None."""
    for kind in _KINDS.values():
        if kind.machine_type is not None and isinstance(machine, kind.machine_type):
            return kind
    return None


def file_form_of(machine) -> tuple[str, MachineFileForm] | None:
    """Return ``(kind name, form)`` of the machine-file form that writes ``machine``, or None."""
    kind = kind_of(machine)
    if kind is None or kind.file_form is None or kind.file_form.write is None:
        return None
    return kind.name, kind.file_form


def file_networks() -> list[str]:
    """Return the kinds whose machine file starts with a ``network NAME`` line."""
    return [k.name for k in _KINDS.values() if k.file_form is not None and k.file_form.network_line]
