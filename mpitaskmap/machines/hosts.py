"""Host names of an allocation's nodes: one naming for platforms, hostfiles and map files."""

from __future__ import annotations

from ..errors import InvalidInputError
from .base import Machine, as_machine

__all__ = ["DEFAULT_HOST_FORMAT", "host_names"]


#: Host name of node id ``k`` when no names are given: Cray's ``nid`` convention.
DEFAULT_HOST_FORMAT = "nid%05d"


def host_names(machine: Machine, hosts=None) -> list[str]:
    """Return the host name of every node id ``0 .. max(node_ids)`` of ``machine``.

    Parameters
    ----------
    machine : Machine
        The processors; their ``node_ids`` index the result.
    hosts : None, str or sequence of str, optional
        None: :data:`DEFAULT_HOST_FORMAT` (``"nid%05d"``) applied to the node id; a
        string with ``%``: that format applied to the node id; a sequence: the name of
        node id ``k`` is ``hosts[k]``.

    Returns
    -------
    list of str
        ``names[k]`` is the host of node id ``k``.

    Raises
    ------
    InvalidInputError
        If a format has no ``%`` or fails, the sequence is shorter than the largest node
        id, or the names used by the machine are empty, contain white space or repeat.

    Examples
    --------
    >>> from mpitaskmap.machines import FlatMachine
    >>> host_names(FlatMachine([0, 0, 1]))
    ['nid00000', 'nid00001']
    >>> host_names(FlatMachine([0, 1]), "node%d"), host_names(FlatMachine([1, 0]), ["a", "b"])
    (['node0', 'node1'], ['a', 'b'])
    """
    as_machine(machine)
    n = int(machine.node_ids.max()) + 1
    if hosts is None:
        hosts = DEFAULT_HOST_FORMAT
    if isinstance(hosts, str):
        if "%" not in hosts:
            raise InvalidInputError(f"hosts: a host-name format needs a % field like 'nid%05d'; got {hosts!r}")
        try:
            names = [hosts % k for k in range(n)]
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"hosts: format {hosts!r} cannot take a node id ({exc}); got {hosts!r}") from None
    else:
        names = [str(h) for h in hosts]
        if len(names) < n:
            raise InvalidInputError(
                f"hosts: need a name for every node id 0..{n - 1}; got {len(names)} names"
            )
    used = machine.node_view().nodes.tolist()
    seen: dict[str, int] = {}
    for k in used:
        name = names[k]
        if not name or any(c.isspace() for c in name):
            raise InvalidInputError(f"hosts: node {k} needs a non-empty name without white space; got {name!r}")
        if name in seen:
            raise InvalidInputError(f"hosts: nodes {seen[name]} and {k} have the same name; got {name!r}")
        seen[name] = k
    return names
