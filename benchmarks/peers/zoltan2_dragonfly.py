"""Zoltan2's dragonfly machine model as a peer input: the processor coordinates its MJ task mapper sees.

Optional tooling of the benchmarks (the library and its tests never need it).  Zoltan2 maps onto
a Cray XC (Aries) through ``MachineDragonflyRCA``: every rank's coordinate is its router's RCA
mesh coordinate (group, row of the group's 6 x 16 routers, column); ranks of one node, and
nodes of one router, share it.  That is what its coordinate task mapper partitions by default
(Trilinos 13.2, ``Zoltan2_MachineDragonflyRCA.hpp`` and ``...RCAForTesting.hpp``: without the
``Machine_Optimization_Level`` parameter the coordinates are gathered as they are), and what
:func:`zoltan2_dragonfly_coords` gives an allocation of
:class:`mpitaskmap.machines.DragonflyMachine`: (group, row, column) on an Aries machine; on an
all-to-all (Slingshot) group, where Zoltan2 has no machine class, (group, 0, switch).

With an optimisation level above 0 Zoltan2 maps the coordinates into ``1 + R + C`` dimensions
first (group times ``3 R C``, one-hot row times 2, one-hot column), so that a group step
outweighs everything inside a group: :func:`zoltan2_transformed_coords`.  On our scattered
allocations Trilinos 13.2's MJ aborts on those (``Error at partitioning of processors PART:96
is assigned to 2 processors``, with or without ``ranks_per_node``, an explicit depth or
prime-first division), so the benchmarks use the default coordinates; the transform is kept
to show what was tried (``--zoltan2-transform``).
:func:`map_zoltan2_dragonfly` feeds the coordinates with the task coordinates to
``zoltan2.map_zoltan2`` (no torus shift: a dragonfly has no wrap-around).
"""

from __future__ import annotations

import numpy as np

from . import zoltan2

__all__ = ["zoltan2_dragonfly_coords", "zoltan2_transformed_coords", "map_zoltan2_dragonfly", "X_STRETCH", "Y_STRETCH",
           "Z_STRETCH"]

#: Zoltan2's default stretches (Machine_X/Y/Z_Stretch parameters unset).
X_STRETCH, Y_STRETCH, Z_STRETCH = 3, 2, 1


def zoltan2_dragonfly_coords(machine) -> np.ndarray:
    """Return the (n_procs, 3) router coordinates (group, row, column) Zoltan2 partitions by default.

    Examples
    --------
    >>> from mpitaskmap.machines import DragonflyMachine
    >>> m = DragonflyMachine(3, (2, 3), 1, [0, 4, 6])      # g0 r0 c0, g0 r1 c1, g1 r0 c0
    >>> zoltan2_dragonfly_coords(m).astype(int).tolist()
    [[0, 0, 0], [0, 1, 1], [1, 0, 0]]
    """
    loc = machine.locate(np.arange(machine.n_procs))  # (group, switch, slot)
    row, col = np.divmod(loc[:, 1], machine.columns)
    return np.stack([loc[:, 0], row, col], axis=1).astype(np.float64)


def zoltan2_transformed_coords(machine) -> np.ndarray:
    """Return the (n_procs, 1 + R + C) coordinates Zoltan2's dragonfly transform gives ``machine``'s processors.

    Processors of one node share the coordinate of their router (Zoltan2 gives every rank
    its node's RCA coordinate).

    Examples
    --------
    >>> from mpitaskmap.machines import DragonflyMachine
    >>> m = DragonflyMachine(3, (2, 3), 1, [0, 4, 6])      # g0 r0 c0, g0 r1 c1, g1 r0 c0
    >>> zoltan2_transformed_coords(m).astype(int).tolist()
    [[0, 2, 0, 1, 0, 0], [0, 0, 2, 0, 1, 0], [18, 2, 0, 1, 0, 0]]
    """
    loc = machine.locate(np.arange(machine.n_procs))  # (group, switch, slot)
    R, C = machine.rows, machine.columns
    row, col = np.divmod(loc[:, 1], C)
    out = np.zeros((machine.n_procs, 1 + R + C))
    out[:, 0] = X_STRETCH * loc[:, 0] * R * C
    out[np.arange(machine.n_procs), 1 + row] = Y_STRETCH
    out[np.arange(machine.n_procs), 1 + R + col] = Z_STRETCH
    return out


def map_zoltan2_dragonfly(task_coords, indptr, indices, weights, machine, *, transform: bool = False, **options):
    """Zoltan2's MJ task mapping of a task graph onto a dragonfly allocation; returns ``(task_to_proc, seconds)``.

    ``transform``: Zoltan2's optimisation-level transform (module notes) instead of its default
    coordinates.  ``options`` go to ``zoltan2.map_zoltan2`` (``nranks``, ``recursion_depth``, ...).
    """
    coords = zoltan2_transformed_coords(machine) if transform else zoltan2_dragonfly_coords(machine)
    return zoltan2.map_zoltan2(coords, task_coords, indptr, indices, weights, **options)
