"""The ``"flat"`` network kind: nodes without coordinates (the ``hostname`` provider's)."""

from __future__ import annotations

from ...errors import InvalidInputError
from ..kinds import Gathered, NetworkKind, register_kind
from .flat import FlatMachine

__all__ = ["FLAT_KIND"]


def _check_network(dims: tuple, options: tuple) -> None:
    if dims:
        raise InvalidInputError(f"dims: a flat network has no dimensions; got {list(dims)}")


def _assemble(gathered: Gathered, network, name: str) -> FlatMachine:
    """0 hops within a node, 1 hop between nodes: the node ids are all a flat network knows."""
    return FlatMachine(gathered.node_ids, name=name)


FLAT_KIND = register_kind(NetworkKind("flat", _assemble, _check_network, machine_type=FlatMachine))
