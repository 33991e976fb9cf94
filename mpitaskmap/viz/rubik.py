"""Draw a Rubik box in 3-D: cells coloured by group, shaded by rank (optional, matplotlib).

matplotlib is imported only when :func:`plot_box` runs (install the ``plot`` extra:
``pip install mpitaskmap[plot]``); without it the call raises ImportError saying so.
The figure is drawn off-screen (Agg canvas, no pyplot state), so it works on headless
machines and inside MPI jobs.
"""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np

from ..errors import InvalidInputError
from ..mappers.rubik import Box
from ..mappers.rubik.analysis import rank_groups
from .plots import _mpl, _new_figure, _save

__all__ = ["plot_box"]


def plot_box(
    node: Box,
    path: str | os.PathLike | None = None,
    *,
    groups=None,
    fixed: Sequence[int] | None = None,
    title: str | None = None,
    axis_names: Sequence[str] | None = None,
):
    """Draw a box as 3-D voxels coloured by group, with a light-to-dark rank gradient.

    Every cell is a cube at its coordinate.  Its hue is its leaf (group, depth-first
    numbering, the pairing order of ``map``), and within a group the shade runs from
    light (lowest rank) to dark (highest), so tilts and zigzags show as slanted bands.

    Parameters
    ----------
    node : Box
        The box (usually a network root after ``map`` and permutations), 1-D to 3-D; a
        box with more dimensions is cut at ``fixed``.
    path : str or path-like, optional
        Save the figure there as PNG.
    groups : Box or (n_ranks,) array_like of int, optional
        What a group is: a tree whose leaves are the groups (e.g. the application tree,
        so a tilted group shows as one slanted colour), or the group of every rank.
        Default: the leaves of ``node``'s own tree (the network windows).
    fixed : sequence of int, optional
        Indices of the dimensions beyond the third (default all 0), e.g. the core slot
        ``T`` of a ``[X, Y, Z, T]`` network.
    title : str, optional
        Figure title (default: the shape and number of groups).
    axis_names : sequence of str, optional
        Labels of the first three axes (default ``"dim 0"``, ...).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    InvalidInputError
        If ``fixed`` does not match the extra dimensions or ``groups`` the ranks.
    """
    _mpl("plot_box")  # fail before the work when matplotlib is missing
    from matplotlib.colors import hsv_to_rgb

    if not isinstance(node, Box):
        raise InvalidInputError(f"node: expected a rubik Box; got {type(node).__name__}")
    if groups is None:
        groups = node.root
    by_rank = rank_groups(groups) if isinstance(groups, Box) else np.asarray(groups, dtype=np.intp)
    if by_rank.ndim != 1 or by_rank.shape[0] != node.root.size or (by_rank < 0).any():
        raise InvalidInputError(
            f"groups: expected a Box or one group id >= 0 per rank ({node.root.size}); got shape {by_rank.shape}"
        )
    ranks = node.ranks
    groups = by_rank[ranks]
    extra = node.ndim - 3
    if extra > 0:
        fix = [0] * extra if fixed is None else [int(v) for v in fixed]
        if len(fix) != extra or any(not 0 <= v < n for v, n in zip(fix, node.shape[3:])):
            raise InvalidInputError(
                f"fixed: expected {extra} indices within {list(node.shape[3:])}; got {fixed!r}"
            )
        ranks, groups = ranks[(Ellipsis, *fix)], groups[(Ellipsis, *fix)]
    while ranks.ndim < 3:
        ranks, groups = ranks[..., None], groups[..., None]
    present, groups = np.unique(groups, return_inverse=True)
    groups = groups.reshape(ranks.shape)
    n_groups = present.size
    # Hue per group (golden-ratio steps keep neighbours apart); value by rank within group.
    hue = (np.arange(n_groups) * 0.618034) % 1.0
    shade = np.zeros(ranks.shape)
    for g in range(n_groups):
        sel = groups == g
        order = np.argsort(np.argsort(ranks[sel], kind="stable"), kind="stable")
        shade[sel] = order / max(1, sel.sum() - 1)
    hsv = np.stack([hue[groups], 0.35 + 0.6 * shade, 0.95 - 0.45 * shade], axis=-1)
    colors = np.concatenate([hsv_to_rgb(hsv), np.full(ranks.shape + (1,), 0.95)], axis=-1)

    fig = _new_figure((6.4, 5.6), layout=None)  # no layout engine: the one 3-D axes keeps its default place
    ax = fig.add_subplot(projection="3d")
    ax.voxels(np.ones(ranks.shape, dtype=bool), facecolors=colors, edgecolor=(0.2, 0.2, 0.2, 0.35), linewidth=0.3)
    names = list(axis_names) if axis_names is not None else [f"dim {k}" for k in range(3)]
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_zlabel(names[2])
    ax.set_box_aspect(ranks.shape)
    label = title or f"box {'x'.join(map(str, node.shape))}: {n_groups} groups"
    if extra > 0 and title is None:
        label += f" (dims 3+ fixed at {fix})"
    ax.set_title(label + "\nhue: group, light -> dark: rank order in group", fontsize=9)
    return _save(fig, path)
