"""UGAL on a dragonfly: which flows of one exchange take their minimal path and which the Valiant detour.

Real dragonflies (Aries, Slingshot) route adaptively: per packet, the source router compares the
queue towards the minimal path's global link with the queue towards a random intermediate group
and takes the detour when ``q_min x H_min > q_val x H_val`` (UGAL-L: Kim et al., "Technology-driven,
highly-scalable dragonfly topology", ISCA 2008; SST/macro's ``dragonfly_ugal`` router compares the
two ports' queue lengths times 3 and 5 switch hops, with a strict inequality).

The model here decides per *flow* (an inter-group node pair of one exchange, its messages summed):

* **Minimal**: the pair's static minimal path over global link ``j = (u + v) mod h`` (the
  ``"minimal"`` routing of :class:`~mpitaskmap.machines.dragonfly.DragonflyMachine`).
* **Valiant**: the spread of the ``"valiant"`` routing, ``w / ((G - 2) h)`` on every global link
  ``a -> c`` and ``c -> b`` of every intermediate group ``c``.
* **The rule**: a flow detours when the load the *other* flows put on its minimal global link,
  times :data:`UGAL_MIN_HOPS`, exceeds the mean load the other flows put on its spread's global
  links, times :data:`UGAL_VALIANT_HOPS`.  A queue is approximated by the link's load (the bytes
  routed over it in the exchange); only global links enter the rule, as only the global ports
  differ between the two choices at the source group.  A flow alone on its link stays minimal,
  and so does one whose two sides differ by less than 1e-12 of the exchange's volume (a tie: the
  loads are summed in an order of the kernel's, which must not decide).
* **The fixed point**: flows decide one after another (largest volume first, ties in the order
  given), each seeing the others' current choices; sweeps repeat until one changes nothing,
  at most :data:`UGAL_MAX_SWEEPS` (the choice after the last sweep otherwise; reported).

Exact and deterministic for a given exchange.  Where it differs from a packet-level UGAL: a whole
flow takes one choice (a packet-level router splits a congested flow between both), local links do
not enter the rule, and traffic inside a group stays minimal (SST/macro also detours inside a group
through a third switch).  Fewer than three groups leave no intermediate: every flow stays minimal.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import _ugal
from ..._validate import as_index_array, as_weights
from ...errors import InvalidInputError
from ..fattree.presets import _count

__all__ = ["UGAL_MIN_HOPS", "UGAL_VALIANT_HOPS", "UGAL_MAX_SWEEPS", "UgalChoice", "ugal_detours"]

#: Switch hops of a minimal and of a Valiant inter-group path, the weights of UGAL-L's queue
#: comparison (SST/macro's ``dragonfly_ugal``: ``min_dist = 3``, ``val_dist = 5``).
UGAL_MIN_HOPS = 3.0
UGAL_VALIANT_HOPS = 5.0

#: Sweeps of the fixed point before it stops with the choices it has.
UGAL_MAX_SWEEPS = 32


class UgalChoice(NamedTuple):
    """The UGAL fixed point of one exchange (:func:`ugal_detours`).

    Attributes
    ----------
    detour : (n_flows,) ndarray of bool
        Whether each flow takes the Valiant spread.
    sweeps : int
        Sweeps run (the last one changed nothing when ``converged``).
    converged : bool
        Whether a fixed point was reached within :data:`UGAL_MAX_SWEEPS`.
    """

    detour: np.ndarray
    sweeps: int
    converged: bool


def ugal_detours(src_group, dst_group, link, volume, n_groups: int, global_links: int, *,
                 max_sweeps: int = UGAL_MAX_SWEEPS) -> UgalChoice:
    """Return which flows of one exchange take the Valiant detour under UGAL (module notes).

    Parameters
    ----------
    src_group, dst_group : (n_flows,) array_like of int
        Groups of every flow's source and destination (different: flows inside a group are
        not UGAL's choice).
    link : (n_flows,) array_like of int
        The global link (``< global_links``) each flow's minimal path takes.
    volume : (n_flows,) array_like of float
        Every flow's volume (bytes or graph weight; >= 0, finite).
    n_groups, global_links : int
        The dragonfly's groups ``G`` and global links ``h`` per pair of groups.
    max_sweeps : int, optional
        Sweeps before stopping without a fixed point (default :data:`UGAL_MAX_SWEEPS`).

    Returns
    -------
    UgalChoice

    Raises
    ------
    InvalidInputError
        On a group or link out of range, a flow inside one group, a negative or non-finite
        volume, arrays of different lengths, or a bad count (naming it).

    Notes
    -----
    O(sweeps x flows) time (a Valiant spread placed in O(1): module notes of ``cext/_ugal.pyx``), O(G^2 h)
    memory.

    Examples
    --------
    Four groups, one link per pair.  Two flows share the link 0 -> 1: the larger decides first,
    finds the other on its link and nothing on the spread, and detours; the other then stays.

    >>> c = ugal_detours([0, 0], [1, 1], [0, 0], [2.0, 1.0], 4, 1)
    >>> c.detour.tolist(), c.converged
    ([True, False], True)

    A flow alone stays minimal.

    >>> ugal_detours([0], [1], [0], [5.0], 4, 1).detour.tolist()
    [False]
    """
    G = _count(n_groups, "n_groups", 2)
    h = _count(global_links, "global_links", 1)
    sweeps_max = _count(max_sweeps, "max_sweeps", 1)
    a = as_index_array(np.atleast_1d(src_group), "src_group", upper=G).astype(np.int64)
    b = as_index_array(np.atleast_1d(dst_group), "dst_group", upper=G, length=a.size).astype(np.int64)
    j = as_index_array(np.atleast_1d(link), "link", upper=h, length=a.size).astype(np.int64)
    w = as_weights(np.atleast_1d(volume), "volume", a.size)
    same = np.flatnonzero(a == b)
    if same.size:
        raise InvalidInputError(f"flow {same[0]}: source and destination both in group {a[same[0]]}; UGAL "
                                f"chooses between groups only")
    detour = np.zeros(a.size, dtype=np.uint8)
    if G < 3 or a.size == 0:  # no intermediate group: every flow stays minimal
        return UgalChoice(detour.astype(bool), 0, True)
    order = np.lexsort((np.arange(a.size), -w)).astype(np.int64)  # largest first, ties in the given order
    sweeps, converged = _ugal.ugal_detours(a, b, j, w, order, G, h, UGAL_MIN_HOPS,
                                           UGAL_VALIANT_HOPS, sweeps_max, detour)
    return UgalChoice(detour.astype(bool), int(sweeps), bool(converged))
