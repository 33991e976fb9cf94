"""HPE Cray EX xnames as places on a dragonfly: the approximation the ``xname`` provider makes.

What an xname tells is the cabinet (the dragonfly group on these machines) and where in it a
node sits; the switch is assumed (:data:`XNAME_APPROXIMATION`).  The ``"dragonfly"`` kind
(:mod:`~.kind`) assembles a job's machine from gathered xnames with :func:`xname_place`.
"""

from __future__ import annotations

import re
from typing import Sequence

from ...errors import InvalidInputError
from ..network_record import NetworkInfo

__all__ = ["parse_xname", "xname_place", "xname_dragonfly_network", "XNAME_APPROXIMATION", "XNAME_DRAGONFLY_OPTIONS"]

#: Options of a ``"dragonfly"`` network from xnames (:func:`xname_dragonfly_network`), all required.
XNAME_DRAGONFLY_OPTIONS = ("xname", "n_groups", "global_links", "global_ports", "bandwidth", "routing")
#: An HPE Cray EX node xname: cabinet, chassis, (compute blade) slot, node board, node.
_XNAME_RE = re.compile(r"x([0-9]+)c([0-9]+)s([0-9]+)b([0-9]+)n([0-9]+)")
#: The fields of an xname below the cabinet: (letter's word, shape option, what its count counts).
_XNAME_FIELDS = (("chassis", "chassis", "chassis of a cabinet"), ("slot", "slots", "compute blade slots of a chassis"),
                 ("board", "boards", "node boards of a blade"), ("node", "nodes_per_board", "nodes of a board"))
#: What a dragonfly built from xnames assumes (:func:`xname_dragonfly_network`); the machine's name says it.
XNAME_APPROXIMATION = ("xname approximation: group = cabinet, switch = (chassis, slot); the real switch wiring "
                       "and global links are not known from xnames")


def parse_xname(text: str) -> tuple[int, int, int, int, int]:
    """Return ``(cabinet, chassis, slot, board, node)`` of an HPE Cray EX node xname, strictly (nothing around it).

    Raises
    ------
    InvalidInputError
        On text that is not a node xname ``x<cabinet>c<chassis>s<slot>b<board>n<node>``.

    Examples
    --------
    >>> parse_xname("x1016c2s3b0n1")
    (1016, 2, 3, 0, 1)
    """
    m = _XNAME_RE.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise InvalidInputError(f"expected a node xname like x1016c2s3b0n1 (x cabinet, c chassis, s slot, b board, "
                                f"n node); got {text!r}")
    cabinet, chassis, slot, board, node = (int(v) for v in m.groups())
    return cabinet, chassis, slot, board, node


def xname_place(xname: str, shape: Sequence[int]) -> tuple[int, int, int]:
    """Return ``(cabinet, switch, slot)`` of a node xname on the switches of :func:`xname_dragonfly_network`.

    ``x<cabinet>c<chassis>s<slot>b<board>n<node>`` (:func:`parse_xname`): the switch is
    ``chassis * slots + slot`` (a compute blade slot of a chassis; an approximation,
    :data:`XNAME_APPROXIMATION`), the slot on it ``board * nodes_per_board + node``.

    Parameters
    ----------
    xname : str
        The whole xname, nothing around it.
    shape : (int, int, int, int)
        ``(chassis, slots, boards, nodes_per_board)``: the counts per cabinet, chassis, slot
        and board; a field at or above its count is an error.

    Raises
    ------
    InvalidInputError
        On text that is not a node xname, or a field out of range (naming it).

    Examples
    --------
    >>> xname_place("x1016c2s3b0n1", (8, 8, 2, 2))
    (1016, 19, 1)
    """
    cabinet, *fields = parse_xname(xname)
    for value, count, (word, field, what) in zip(fields, shape, _XNAME_FIELDS):
        if value >= count:
            raise InvalidInputError(f"xname {xname!r}: {word} {value} lies outside the {count} {what} "
                                    f"({field}={count})")
    chassis, slot, board, node = fields
    return cabinet, chassis * shape[1] + slot, board * shape[3] + node


def xname_dragonfly_network(shape: Sequence[int] = (8, 8, 2, 2), *, n_groups: int | None = None,
                            global_links: int = 1, global_ports: int | None = None, bandwidth: float = 25.0,
                            routing: str = "minimal") -> NetworkInfo:
    """Return the ``"dragonfly"`` network of ranks whose node keys are HPE Cray EX xnames.

    What an xname tells (:func:`xname_place`): the cabinet, which is the dragonfly group on
    these machines, and where in the cabinet the node sits.  What it cannot tell, assumed
    (:data:`XNAME_APPROXIMATION`, also in the assembled machine's name): the switch of a
    node, taken as its compute blade slot (``chassis * slots + slot``: ``chassis * slots``
    switches per group, ``boards * nodes_per_board`` nodes on each); the wiring inside a
    group (all-to-all, as Slingshot's); ``global_links`` between every pair of groups.
    The job's cabinets, in ascending number, become groups 0, 1, ... of a machine of
    ``n_groups`` groups (None: as many as the job's cabinets, at least 2).

    Parameters
    ----------
    shape : (int, int, int, int), optional
        ``(chassis, slots, boards, nodes_per_board)`` per cabinet; default ``(8, 8, 2, 2)``,
        an HPE Cray EX liquid-cooled cabinet (8 chassis of 8 compute blade slots).
    n_groups, global_links, global_ports, routing
        As :class:`~mpitaskmap.machines.DragonflyMachine`.
    bandwidth : float, optional
        GB/s of every link (default 25.0, Slingshot's 200 Gb/s).

    Examples
    --------
    >>> xname_dragonfly_network(n_groups=4).options[:2]
    (('xname', (8, 8, 2, 2)), ('n_groups', 4))
    """
    shape = tuple(int(v) for v in shape)
    if len(shape) != 4 or min(shape) < 1:
        raise InvalidInputError(f"shape: expected 4 positive counts (chassis, slots, boards, nodes_per_board); "
                                f"got {shape}")
    bw = float(bandwidth)
    return NetworkInfo(kind="dragonfly", options=(
        ("xname", shape), ("n_groups", None if n_groups is None else int(n_groups)),
        ("global_links", int(global_links)), ("global_ports", None if global_ports is None else int(global_ports)),
        ("bandwidth", (("node", bw), ("local", bw), ("global", bw))), ("routing", str(routing))))
