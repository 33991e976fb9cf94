"""Rubik: composable mappings of structured applications onto torus networks.

Both the application and the network are n-dimensional Cartesian boxes.  A box is the root
of a *partition tree*: its cells hold objects numbered in rank order (scan-line, the last
dimension fastest), and :meth:`Box.div`, :meth:`Box.tile`, :meth:`Box.mod` and
:meth:`Box.cut` split a node into child boxes (groups, e.g. sub-communicators) that can be
split again.  ``network.map(app)`` pairs the leaves of the two trees and copies each app
leaf's ranks into its network leaf; :meth:`Box.tilt`, :meth:`Box.zigzag` and
:meth:`Box.zorder` then permute the ranks inside any node to spread a group over more
links.  The result is a map file (:meth:`Box.write_map_file`), the rank -> coordinate array
(:meth:`Box.rank_coords`) or a :class:`~mpitaskmap.mapping.Mapping` on a machine
(:meth:`Box.to_mapping`) that every metric of :mod:`mpitaskmap.metrics` applies to.
The tree lives in :mod:`mpitaskmap.mappers.rubik.tree`, the permutation kernels (usable on any
NumPy array) in :mod:`mpitaskmap.mappers.rubik.permute`, and an optional matplotlib view in
:mod:`mpitaskmap.viz.rubik`.

Compatibility
-------------
A script written for the released LLNL Rubik (v1.0.1 / master) runs unchanged after
``from mpitaskmap.mappers.rubik import *`` and writes the same map file:

* ``box(shape)`` numbers ranks in C order (``np.unravel_index(r, shape)``).
* ``div``: chunk size ``D // d``, the **last chunk takes the remainder** (7 into 3 gives
  2, 2, 3); ``tile(t)`` is ``div([D // t])`` with ``t`` padded by 1s; ``mod``: child ``c``
  holds ``x % d == c`` with local coordinate ``x // d``.  A divisor list shorter than
  ``ndim`` leaves the trailing axes uncut and gives a lower-dimensional children grid.
* ``map`` pairs leaves in **depth-first pre-order** (children in C order), fills each
  network leaf in scan order, and wipes permutations applied to the network before it.
* ``tilt(a, d, s)``: the element at ``x`` moves to ``x[a] + s * x[d]`` (mod the extent)
  along ``a``; ``zigzag(a, d, depth, stride)`` shifts by Rubik's ramp ``s(i)``;
  ``zorder()`` uses Morton order with **dimension 0 in the lowest bit**.  Permutations
  move contents immediately; on an interior node they move ranks across its children.
* Map-file line ``r`` is rank ``r``: its coordinates, single spaces, no header.
* ``p.children[i, j]`` and the paper's ``p[i, j]`` both address children.

Where Rubik silently produces a wrong mapping, this module raises
:class:`~mpitaskmap.errors.InvalidInputError` instead: leaves of different sizes in
``map`` (Rubik duplicates or drops ranks), divisors or tiles that leave empty children or
none (Rubik keeps empty leaves, or quietly makes no children for a tile larger than the
box or a divisor 0), and ``map`` on a non-root node (Rubik writes an empty or broken
file).  ``tile`` does not modify the caller's list (Rubik pads it in place).

References
----------
A. Bhatele, T. Gamblin, S. H. Langer, P.-T. Bremer, E. W. Draeger, B. Hamann, K. E.
Isaacs, A. G. Landge, J. A. Levine, V. Pascucci, M. Schulz, C. H. Still, "Mapping
applications with collectives over sub-communicators on torus networks", SC'12.
ALGORITHMS.md section 6.

Examples
--------
>>> app = box([4, 4])
>>> app.tile([2, 4])                 # two 2x4 groups
>>> net = box([2, 2, 4])
>>> net.div([2, 1, 1])               # two 1x2x4 planes
>>> net.map(app)
>>> net.rank_coords()[:5].tolist()
[[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3], [0, 1, 0]]
"""

from .tree import Box, box, div, mod

__all__ = ["box", "Box", "div", "mod"]
