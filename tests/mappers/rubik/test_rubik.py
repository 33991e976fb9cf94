"""Rubik partition trees: hand-computed cases (the SC'12 paper's examples first), 2-D..5-D
boxes, errors where the released Rubik silently corrupts, and a differential test against a
literal, loop-by-loop restatement of Rubik's own kernels (tests/reference-style model below)."""

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from mpitaskmap.errors import InvalidInputError
from mpitaskmap.mapping import Mapping
from mpitaskmap.mappers.rubik import Box, box, div, mod
from mpitaskmap.mappers.rubik.analysis import (
    alltoall_graph,
    group_link_loads,
    group_link_usage,
    groups_alltoall_graph,
    rank_groups,
)
from mpitaskmap.mappers.rubik.permute import zigzag_shifts, zorder_points
from mpitaskmap.machines.torus.presets import bgq_machine, torus_machine
from mpitaskmap.graphs.taskgraph import TaskGraph

ROOT = Path(__file__).resolve().parents[3]
X, Y, Z = 0, 1, 2


def cells_of(node):
    return node.ranks.ravel().tolist()


# -- the paper's examples (hand-computed) -----------------------------------------------------
def test_paper_div_2_1_4_on_4x4x4():
    b = box([4, 4, 4])
    b.div([2, 1, 4])
    assert b.children.shape == (2, 1, 4)
    assert all(c.shape == (2, 4, 1) for c in b)
    # child (i, 0, k) holds x in [2i, 2i+2), all y, z = k: rank 16x + 4y + z
    assert cells_of(b[0, 0, 0]) == [0, 4, 8, 12, 16, 20, 24, 28]
    assert cells_of(b.children[1, 0, 3]) == [35, 39, 43, 47, 51, 55, 59, 63]
    assert [c.flat_index for c in b] == list(range(8))
    assert b[1, 0, 2].index == (1, 0, 2) and b[1, 0, 2].level == 1 and b[1, 0, 2].parent is b


def test_paper_tile_2_4_1_equals_div_2_1_4():
    a, b = box([4, 4, 4]), box([4, 4, 4])
    a.tile([2, 4, 1])
    b.div([2, 1, 4])
    assert a.children.shape == b.children.shape == (2, 1, 4)
    assert [cells_of(c) for c in a] == [cells_of(c) for c in b]


def test_paper_mod_2_2_2():
    b = box([4, 4, 4])
    b.mod([2, 2, 2])
    assert b.children.shape == (2, 2, 2)
    # child (i, j, k) holds the cells with x = i, j, k (mod 2)
    assert cells_of(b[0, 0, 0]) == [0, 2, 8, 10, 32, 34, 40, 42]
    assert cells_of(b[1, 1, 1]) == [21, 23, 29, 31, 53, 55, 61, 63]
    for c in b:
        i, j, k = c.index
        for r in cells_of(c):
            assert (r // 16 % 2, r // 4 % 4 % 2, r % 4 % 2) == (i, j, k)


def test_paper_cut_div_div_mod():
    b = box([4, 4, 4])
    b.cut([2, 2, 2], [div, div, mod])
    assert cells_of(b[0, 0, 0]) == [0, 2, 4, 6, 16, 18, 20, 22]
    assert cells_of(b[1, 0, 1]) == [33, 35, 37, 39, 49, 51, 53, 55]
    c = box([4, 4, 4])
    c.cut([2, 2, 2], ["div", "div", "mod"])
    assert [cells_of(x) for x in b] == [cells_of(x) for x in c]


def test_paper_planes_9x3x8_onto_cubes_6x6x6():
    app = box([9, 3, 8])
    app.tile([9, 3, 1])  # 8 planes x[2] = k of 27 ranks
    net = box([6, 6, 6])
    net.tile([3, 3, 3])  # 8 cubes of 27
    assert app.compatible(net) and net.compatible(app)
    net.map(app)
    coords = net.rank_coords()
    # hand: rank r = 24 x + 8 y + k; plane k -> cube unravel(k, (2,2,2)); local index 3x + y
    assert coords[0].tolist() == [0, 0, 0]
    assert coords[1].tolist() == [0, 0, 3]  # plane 1 -> cube (0,0,1)
    assert coords[8].tolist() == [0, 0, 1]  # (0,1,0): local index 1
    assert coords[4].tolist() == [3, 0, 0]  # plane 4 -> cube (1,0,0)
    assert coords[215].tolist() == [5, 5, 5]
    for r in range(216):
        x, y, k = r // 24, r // 8 % 3, r % 8
        cube = np.array(np.unravel_index(k, (2, 2, 2)))
        local = np.array(np.unravel_index(3 * x + y, (3, 3, 3)))
        assert coords[r].tolist() == (3 * cube + local).tolist()


def test_paper_two_tilts_on_4x4x4():
    b = box([4, 4, 4])
    b.tilt(Z, X, 1)  # z' = z + x
    b.tilt(X, Y, 1)  # x' = x + y
    coords = b.rank_coords()
    assert coords[21].tolist() == [2, 1, 2]  # rank 21 = (1, 1, 1)
    assert coords[63].tolist() == [2, 3, 2]  # (3, 3, 3): x' = 6 % 4, z' = 6 % 4
    for r in range(64):
        x, y, z = np.unravel_index(r, (4, 4, 4))
        assert coords[r].tolist() == [(x + y) % 4, y, (z + x) % 4]
    # every x-line still holds 4 distinct y; each XY plane of ranks now spans all 4 z
    assert sorted(set(coords[:16, 2].tolist())) == [0, 1, 2, 3]


def test_paper_different_permutation_per_child_12x4x4():
    b = box([12, 4, 4])
    b.div([3, 1, 1])
    b[0, 0, 0].tilt(Z, X, 1)
    b[1, 0, 0].zigzag(Z, X, 1)
    b[2, 0, 0].zorder()
    coords = b.rank_coords()
    for r in range(192):
        x, y, z = (int(v) for v in np.unravel_index(r, (12, 4, 4)))
        if x < 4:
            want = [x, y, (z + x) % 4]
        elif x < 8:
            want = [x, y, (z + (x - 4) % 2) % 4]
        else:
            k = r - 128  # local C-order index in the 4x4x4 child; Morton: bit 3b+d = bit b of coord d
            want = [8 + ((k >> 0) & 1) + 2 * ((k >> 3) & 1), ((k >> 1) & 1) + 2 * ((k >> 4) & 1),
                    ((k >> 2) & 1) + 2 * ((k >> 5) & 1)]
        assert coords[r].tolist() == want, r
    assert coords[129].tolist() == [9, 0, 0] and coords[130].tolist() == [8, 1, 0]
    assert coords[132].tolist() == [8, 0, 1] and coords[136].tolist() == [10, 0, 0]
    # the permutations stayed inside their own child
    assert sorted(cells_of(b[1, 0, 0])) == list(range(64, 128))


# -- boxes, slicing, indexing ----------------------------------------------------------------
@pytest.mark.parametrize("shape", [[5], [3, 4], [2, 3, 4], [2, 1, 3, 2], [2, 2, 1, 3, 2]])
def test_box_scan_order_last_dimension_fastest(shape):
    b = box(shape)
    assert b.shape == tuple(shape) and b.ndim == len(shape) and b.size == int(np.prod(shape))
    assert_array_equal(b.ranks, np.arange(b.size).reshape(shape))
    assert_array_equal(b.rank_coords(), np.stack(np.unravel_index(np.arange(b.size), shape), axis=1))
    assert b.is_leaf() and list(b.leaves()) == [b] and b.depth() == 1


def test_div_last_chunk_takes_the_remainder_and_mod_sizes():
    b = box([7])
    b.div([3])
    assert [cells_of(c) for c in b] == [[0, 1], [2, 3], [4, 5, 6]]
    m = box([5])
    m.mod([2])
    assert [cells_of(c) for c in m] == [[0, 2, 4], [1, 3]]
    t = box([6, 2])
    t.tile([4, 2])  # 6 // 4 = 1 chunk of 6
    assert t.children.shape == (1, 1) and t[0, 0].shape == (6, 2)
    assert [div(7, c, 3) for c in range(3)] == [slice(0, 2), slice(2, 4), slice(4, 7)]
    assert mod(5, 1, 2) == slice(1, None, 2)


def test_short_divisor_list_gives_lower_dimensional_grid_and_tile_pads_with_ones():
    b = box([4, 2, 3])
    b.div([2])
    assert b.children.shape == (2,) and b[1].shape == (2, 2, 3) and cells_of(b[1])[0] == 12
    t = box([4, 2, 3])
    sizes = (2,)
    t.tile(sizes)  # pads to [2, 1, 1]: divisors [2, 2, 3]
    assert sizes == (2,) and t.children.shape == (2, 2, 3) and t[1, 1, 2].shape == (2, 1, 1)


def test_hierarchy_of_any_depth_and_dfs_leaf_order():
    b = box([4, 4])
    b.div([2, 1])
    b[0, 0].div([1, 2])  # left half split again: depth differs between branches
    b[0, 0][0, 1].mod([2, 1])
    leaves = list(b.leaves())
    assert [cells_of(x) for x in leaves] == [[0, 1, 4, 5], [2, 3], [6, 7], list(range(8, 16))]
    assert b.depth() == 4 and leaves[1].level == 3 and leaves[1].ancestors[0] is b and leaves[1].root is b
    assert [x.index for x in b] == [(0, 0), (1, 0)]
    b.div([1, 1])  # re-cutting replaces the subtree
    assert b.children.shape == (1, 1) and b.depth() == 2


# -- permutations on 2-D..5-D, hand-computed -------------------------------------------------
def test_tilt_and_shear_match_rubiks_docstring_pictures():
    b = box([3, 3])
    b.shear(0, 1, 1)
    assert b.ranks.tolist() == [[0, 1, 2], [5, 3, 4], [7, 8, 6]]
    c = box([3, 3])
    c.shear(1, 0, 2)
    assert c.ranks.tolist() == [[0, 4, 8], [3, 7, 2], [6, 1, 5]]
    d = box([3, 3])
    d.tilt(0, 1, -1)  # negative slope: x0' = x0 - x1
    assert d.ranks.tolist() == [[0, 4, 8], [3, 7, 2], [6, 1, 5]]


@pytest.mark.parametrize(
    "shape, axis, direction, slope",
    [([4, 3], 0, 1, 1), ([3, 4, 2], 2, 0, 1), ([2, 3, 4, 5], 3, 1, 2), ([2, 2, 3, 2, 4], 1, 4, -1)],
)
def test_tilt_formula_in_n_dimensions(shape, axis, direction, slope):
    b = box(shape)
    b.tilt(axis, direction, slope)
    coords = b.rank_coords()
    for r in range(b.size):
        x = list(np.unravel_index(r, shape))
        x[axis] = (x[axis] + slope * x[direction]) % shape[axis]
        assert coords[r].tolist() == x


def test_zigzag_shifts_follow_rubiks_ramp():
    assert zigzag_shifts(6, 1, 1).tolist() == [0, 1, 0, 1, 0, 1]
    assert zigzag_shifts(8, 2, 2).tolist() == [0, 1, 2, 1, 0, 1, 2, 1]
    assert zigzag_shifts(8, 3, 2).tolist() == [0, 2, 3, 2, 0, 2, 3, 2]
    assert zigzag_shifts(4, -1, 1).tolist() == [0, -1, 0, -1]


@pytest.mark.parametrize("shape, axis, direction, depth, stride", [([4, 3], 1, 0, 1, 1), ([8, 2, 5], 2, 0, 2, 2),
                                                                   ([2, 6, 2, 3], 0, 1, 1, 2),
                                                                   ([3, 2, 2, 2, 4], 0, 4, 3, 2)])
def test_zigzag_formula_in_n_dimensions(shape, axis, direction, depth, stride):
    b = box(shape)
    b.zigzag(axis, direction, depth, stride)
    s = zigzag_shifts(shape[direction], depth, stride)
    coords = b.rank_coords()
    for r in range(b.size):
        x = list(np.unravel_index(r, shape))
        x[axis] = (x[axis] + int(s[x[direction]])) % shape[axis]
        assert coords[r].tolist() == x


def test_zorder_dimension_0_is_the_lowest_bit():
    assert zorder_points([2, 2]).tolist() == [[0, 0], [1, 0], [0, 1], [1, 1]]
    b = box([4, 4])
    b.zorder()
    # rank k goes to the k-th Morton point: x0 = bits 0,2 of k; x1 = bits 1,3
    assert b.ranks.tolist() == [[0, 2, 8, 10], [1, 3, 9, 11], [4, 6, 12, 14], [5, 7, 13, 15]]
    odd = box([3, 2])  # not a power of two: codes of missing cells are skipped
    odd.zorder()
    assert zorder_points([3, 2]).tolist() == [[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], [2, 1]]
    assert odd.ranks.tolist() == [[0, 2], [1, 3], [4, 5]]


@pytest.mark.parametrize("ndim", [3, 4, 5])
def test_zorder_on_unit_hypercubes(ndim):
    b = box([2] * ndim)
    b.zorder()
    coords = b.rank_coords()
    for k in range(2**ndim):
        assert coords[k].tolist() == [(k >> d) & 1 for d in range(ndim)]


def test_transpose_refills_in_scan_order():
    b = box([2, 3])
    b.transpose([1, 0])
    assert b.ranks.tolist() == [[0, 3, 1], [4, 2, 5]]


def test_permutations_compose_in_order():
    a, b = box([3, 3]), box([3, 3])
    a.tilt(0, 1, 1)
    a.tilt(0, 1, 1)
    b.tilt(0, 1, 2)
    assert_array_equal(a.ranks, b.ranks)
    c = box([4, 4])
    c.tilt(0, 1, 1)
    c.zigzag(1, 0, 1)
    d = box([4, 4])
    d.zigzag(1, 0, 1)
    d.tilt(0, 1, 1)
    assert not np.array_equal(c.ranks, d.ranks)  # order matters, as in Rubik


def test_permuting_an_interior_node_moves_ranks_across_child_windows():
    b = box([4, 4])
    b.div([1, 2])  # left half x1 < 2, right half x1 >= 2
    b.tilt(1, 0, 2)  # shift rows 1 and 3 by 2 columns
    assert cells_of(b[0, 0]) == [0, 1, 6, 7, 8, 9, 14, 15]
    b2 = box([4, 4])
    b2.mod([2, 1])  # child 1 = odd rows, local coordinates x0 // 2
    b2[1, 0].tilt(1, 0, 1)  # local row 1 (global row 3) shifts by 1
    assert b2.ranks.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [15, 12, 13, 14]]


# -- map -------------------------------------------------------------------------------------
def test_map_plane_onto_cube_and_3d_onto_5d():
    app = box([8, 8])
    app.tile([8, 2])  # 4 column blocks of 16
    net = box([4, 4, 4])
    net.tile([4, 4, 1])  # 4 z-planes of 16... (tile pads nothing here)
    net.map(app)
    for k, (a, n) in enumerate(zip(app.leaves(), net.leaves())):
        assert cells_of(n) == cells_of(a)
    assert net.rank_coords()[2].tolist() == [0, 0, 1]  # rank 2 = (0, 2): block 1 -> plane z = 1
    app3 = box([4, 4, 4])
    app3.tile([4, 4, 1])
    net5 = box([2, 2, 2, 2, 4])
    net5.div([1, 1, 1, 1, 4])
    net5.map(app3)
    coords = net5.rank_coords()
    for r in range(64):
        z = r % 4
        local = r // 4  # scan position inside the 4x4x1 plane
        assert coords[r].tolist() == [*np.unravel_index(local, (2, 2, 2, 2)), z]


def test_map_uses_depth_first_preorder_pairing():
    # app leaves in DFS: [0..3], [4, 5], [6, 7]; BFS would put the size-4 leaf elsewhere
    app = box([8])
    app.div([2])
    app[1].div([2])
    net = box([8])
    net.div([2])
    net[1].div([2])
    net.map(app)
    assert net.ranks.tolist() == list(range(8))
    net2 = box([2, 4])
    net2.div([2, 1])
    net2[1, 0].div([1, 2])
    net2.map(app)
    assert net2.ranks.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_map_wipes_earlier_network_permutations_but_keeps_app_permutations():
    app = box([4])
    app.div([2])
    net = box([2, 2])
    net.div([2, 1])
    net.tilt(1, 0, 1)
    net.map(app)
    assert net.ranks.tolist() == [[0, 1], [2, 3]]
    app2 = box([2, 2])
    app2.div([2, 1])
    app2.tilt(1, 0, 1)  # app permuted before map: the leaf scan meets 0,1 then 3,2
    net.map(app2)
    assert net.ranks.tolist() == [[0, 1], [3, 2]]
    assert net.rank_coords().tolist() == [[0, 0], [0, 1], [1, 1], [1, 0]]


def test_map_onto_itself_is_identity():
    b = box([3, 4])
    b.mod([3, 2])
    b.map(b)
    assert_array_equal(b.ranks, np.arange(12).reshape(3, 4))


# -- errors where Rubik corrupts or crashes ---------------------------------------------------
def test_incompatible_trees_raise_clear_errors():
    app, net = box([4, 4]), box([16])
    app.div([2, 1])
    net.div([4])
    with pytest.raises(InvalidInputError, match=r"app: cannot map a 2-leaf partition onto a 4-leaf partition"):
        net.map(app)
    a7, n7 = box([7]), box([7])
    a7.div([2])  # sizes 3, 4
    n7.mod([2])  # sizes 4, 3
    assert not n7.compatible(a7)
    with pytest.raises(InvalidInputError, match=r"app: leaf 0 \(depth-first\) has 3 ranks but network leaf 0 has 4"):
        n7.map(a7)
    with pytest.raises(InvalidInputError, match=r"app: cannot map size 8 onto size 7"):
        box([7]).map(box([8]))
    assert isinstance(InvalidInputError("x"), ValueError)  # Rubik raised ValueError


def test_map_needs_roots():
    app, net = box([4]), box([4])
    net.div([2])
    with pytest.raises(InvalidInputError, match="map: call it on the root"):
        net[0].map(box([2]))
    app.div([2])
    with pytest.raises(InvalidInputError, match="app: must be the root"):
        box([2]).map(app[1])
    with pytest.raises(InvalidInputError, match="app: expected a Box"):
        net.map([0, 1, 2, 3])


@pytest.mark.parametrize(
    "op, args, message",
    [
        ("div", ([5, 1],), r"divisors: axis 0 of extent 4 .*got 5"),  # Rubik: empty children
        ("div", ([0, 1],), r"divisors: axis 0 .*got 0"),  # Rubik: silently no children
        ("mod", ([1, 4],), r"divisors: axis 1 of extent 3 .*got 4"),
        ("div", ([1, 1, 1],), r"divisors: expected 1 to 2 entries"),  # Rubik: IndexError
        ("tile", ([5, 1],), r"sizes: tile size on axis 0 must lie in \[1, 4\]; got 5"),  # Rubik: no children
        ("tile", ([0],), r"sizes: tile size on axis 0"),  # Rubik: ZeroDivisionError
        ("tile", ([1, 1, 1],), r"sizes: expected at most 2"),
        ("cut", ([2, 1], [div]), r"kinds: expected one slicer per divisor"),
        ("cut", ([2, 1], "split"), r"kinds: expected div or mod"),
        ("div", ([3, 1],), None),
        ("tilt", (0, 0, 1), r"direction: must differ from axis 0; got 0"),  # Rubik: bare Exception
        ("tilt", (2, 0, 1), r"axis: expected an axis in \[0, 2\); got 2"),
        ("zigzag", (0, 1, 1, 0), r"stride: must be >= 1; got 0"),
        ("transpose", ([0, 0],), r"axes: expected a permutation"),
    ],
)
def test_bad_arguments_raise(op, args, message):
    b = box([4, 3])
    if message is None:
        getattr(b, op)(*args)  # uneven but legal, as in Rubik
        assert [c.size for c in b] == [3, 3, 6]
        with pytest.raises(InvalidInputError, match=r"divisors: 3 does not divide axis 0 of extent 4"):
            b.div(*args, exact=True)
        return
    with pytest.raises(InvalidInputError, match=message):
        getattr(b, op)(*args)


def test_box_rejects_bad_shapes():
    for shape in ([], [0, 2], [-1], [2.5]):
        with pytest.raises(InvalidInputError, match="shape"):
            box(shape)


# -- a literal model of the released Rubik's code, for differential tests ----------------------
class Meta:
    """Rubik's element wrapper: an opaque object holding the rank."""

    def __init__(self, rank):
        self.rank = rank


class RefNode:
    """Rubik's Partition reduced to what decides the map file: views, hyperplane rolls."""

    def __init__(self, arr, parent=None):
        self.box, self.parent, self.children = arr, parent, []

    @classmethod
    def root(cls, shape):
        arr = np.empty(shape, dtype=object)
        for i, idx in enumerate(np.ndindex(*shape)):
            arr[idx] = Meta(i)
        return cls(arr)

    def cut(self, divisors, slicers):
        self.children = []
        for index in np.ndindex(*divisors):
            sl = []
            for dim, i in enumerate(index):
                n = divisors[dim]
                if slicers[dim] == "div":
                    size = self.box.shape[dim] // n
                    sl.append(slice(i * size, None if i == n - 1 else i * size + size))
                else:
                    sl.append(slice(i, None, n))
            self.children.append(RefNode(self.box[tuple(sl)], self))

    def leaves(self):
        if self.children:
            for c in self.children:
                yield from c.leaves()
        else:
            yield self

    def _roll_planes(self, axis, direction, shift_of):
        arr = self.box
        if axis > direction:
            axis -= 1
        for i in range(1, arr.shape[direction]):
            sel = [slice(None)] * arr.ndim
            sel[direction] = i
            plane = arr[tuple(sel)]
            plane[...] = np.roll(plane, shift_of(i), axis=axis)

    def tilt(self, axis, direction, slope):
        self._roll_planes(axis, direction, lambda i: i * slope)

    def zigzag(self, axis, direction, depth, stride):
        def shift(i):
            base = (i // (stride * 2)) * (stride * 2) + stride
            return depth - (abs(i - base) * depth) // stride

        self._roll_planes(axis, direction, shift)

    def zorder(self):
        shape, nd = self.box.shape, self.box.ndim
        codes = []
        for point in np.ndindex(*shape):
            code = 0
            for k, x in enumerate(point):
                for b in range(8):
                    code |= ((x >> b) & 1) << (b * nd + k)
            codes.append((code, point))
        buffer = self.box.copy()
        for i, (_, point) in enumerate(sorted(codes)):
            self.box[point] = buffer.flat[i]

    def map(self, other):
        for leaf, oleaf in zip(list(self.leaves()), list(other.leaves())):
            leaf.box.flat = [Meta(o.rank) for o in oleaf.box.flat]  # copies, as Rubik

    def map_file(self):
        where = {}
        for idx in np.ndindex(*self.box.shape):
            where[self.box[idx].rank] = idx
        return "".join(" ".join(map(str, where[r])) + "\n" for r in range(self.box.size))


def _node(root, path):
    for i in path:
        root = root.children.flat[i] if isinstance(root, Box) else root.children[i]
    return root


def _random_cuts(rng, shape):
    """Return a random nested cut sequence as (path of child flat indices, divisors, kinds)."""
    scratch, record, leaves = box(shape), [], [()]
    for _ in range(int(rng.integers(0, 4))):
        path = leaves[int(rng.integers(len(leaves)))]
        node = _node(scratch, path)
        k = int(rng.integers(1, node.ndim + 1))
        divs = [int(rng.integers(1, node.shape[a] + 1)) for a in range(k)]
        kinds = [("div", "mod")[int(rng.integers(2))] for _ in range(k)]
        node.cut(divs, kinds)
        record.append((path, divs, kinds))
        leaves.remove(path)
        leaves += [path + (i,) for i in range(node.children.size)]
    return record


def _replay(record, ours, ref):
    for path, divs, kinds in record:
        _node(ours, path).cut(divs, kinds)
        _node(ref, path).cut(divs, kinds)


def _paths(node, path=()):
    yield path
    for i, child in enumerate(node.children.flat):
        yield from _paths(child, path + (i,))


def _permute_both(rng, ours, ref):
    """Apply the same random tilts, zigzags and Z-orders to random nodes of both trees."""
    paths = list(_paths(ours))
    for _ in range(int(rng.integers(1, 5))):
        path = paths[int(rng.integers(len(paths)))]
        o, r = _node(ours, path), _node(ref, path)
        kind = int(rng.integers(3))
        if kind < 2 and o.ndim >= 2:
            a, d = (int(v) for v in rng.choice(o.ndim, size=2, replace=False))
            if kind == 0:
                s = int(rng.integers(-2, 3))
                o.tilt(a, d, s)
                r.tilt(a, d, s)
            else:
                depth, stride = int(rng.integers(-1, 4)), int(rng.integers(1, 4))
                o.zigzag(a, d, depth, stride)
                r.zigzag(a, d, depth, stride)
        else:
            o.zorder()
            r.zorder()


@pytest.mark.parametrize("ndim", [1, 2, 3, 4, 5])
def test_differential_against_literal_rubik_model(ndim):
    rng = np.random.default_rng(ndim)
    for trial in range(60):
        shape = [int(v) for v in rng.integers(1, 5, size=ndim)]
        record = _random_cuts(rng, shape)
        app, app_ref = box(shape), RefNode.root(shape)
        _replay(record, app, app_ref)
        _permute_both(rng, app, app_ref)  # app permutations before map matter
        out = io.StringIO()
        app.write_map_file(out)
        assert out.getvalue() == app_ref.map_file(), (trial, shape, record)
        net, net_ref = box(shape), RefNode.root(shape)
        _replay(record, net, net_ref)
        _permute_both(rng, net, net_ref)  # wiped by map, in both
        net.map(app)
        net_ref.map(app_ref)
        _permute_both(rng, net, net_ref)
        assert net.ranks.ravel().tolist() == [c.rank for c in net_ref.box.flat]
        out = io.StringIO()
        net.write_map_file(out)
        assert out.getvalue() == net_ref.map_file(), (trial, shape, record)


@pytest.mark.parametrize("ndim", [3, 4, 5])
def test_differential_rows_mapped_onto_higher_dimensional_network(ndim):
    rng = np.random.default_rng(100 + ndim)
    for trial in range(40):
        rows, cols = (int(v) for v in rng.integers(1, 5, size=2))
        app, app_ref = box([rows, cols]), RefNode.root([rows, cols])
        _replay([((), [rows], ["div"])], app, app_ref)
        _permute_both(rng, app, app_ref)
        split = [int(v) for v in rng.integers(1, 3, size=ndim - 2)]
        while int(np.prod(split)) > cols or cols % int(np.prod(split)):
            split = [1] * (ndim - 2)
        net_shape = [rows, *split, cols // int(np.prod(split))]
        net, net_ref = box(net_shape), RefNode.root(net_shape)
        _replay([((), [rows], ["div"])], net, net_ref)
        net.map(app)
        net_ref.map(app_ref)
        _permute_both(rng, net, net_ref)
        out = io.StringIO()
        net.write_map_file(out)
        assert out.getvalue() == net_ref.map_file(), (trial, net_shape)


# -- output: map file, rank coordinates, Mapping ---------------------------------------------
def test_createmap_example_map_file():
    # Rubik's examples/createmap.py: 8x8 app tiled [4,4] onto a 4x4x4 torus tiled [1,4,4]
    app = box([8, 8])
    app.tile([4, 4])
    torus = box([4, 4, 4])
    torus.tile([1, 4, 4])
    torus.map(app)
    out = io.StringIO()
    torus.write_map_file(out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 64 and out.getvalue().endswith("3 3 3\n")
    assert lines[:6] == ["0 0 0", "0 0 1", "0 0 2", "0 0 3", "1 0 0", "1 0 1"]
    assert lines[8] == "0 1 0" and lines[36] == "3 0 0" and lines[45] == "3 1 1"  # rank 45 = (5, 5)
    for r in range(64):
        i, j = divmod(r, 8)
        assert lines[r] == f"{2 * (i // 4) + j // 4} {i % 4} {j % 4}"


def test_write_map_file_to_path_and_stdout(tmp_path, capsys):
    b = box([2, 2])
    b.tilt(0, 1, 1)
    b.write_map_file(str(tmp_path / "m"))
    assert (tmp_path / "m").read_bytes() == b"0 0\n1 1\n1 0\n0 1\n"
    b.write_map_file()
    assert capsys.readouterr().out == "0 0\n1 1\n1 0\n0 1\n"


def test_child_map_file_lists_its_ranks_with_local_coordinates():
    b = box([4, 4])
    b.mod([2, 1])
    b.tilt(1, 0, 1)
    out = io.StringIO()
    b[1, 0].write_map_file(out)  # odd rows; after the tilt row 1 holds 7,4,5,6 and row 3 holds 13,14,15,12
    assert out.getvalue() == "0 1\n0 2\n0 3\n0 0\n1 3\n1 0\n1 1\n1 2\n"


def test_to_mapping_on_bgq_matches_the_abcdet_default():
    shape, t = (2, 1, 2, 1, 2), 2
    machine = bgq_machine(shape, ranks_per_node=t, order="ABCDET")
    net = box([*shape, t])
    m = net.to_mapping(machine)
    assert isinstance(m, Mapping) and m.is_permutation and m.method == "rubik"
    assert_array_equal(m.task_to_proc, np.arange(machine.n_procs))


def test_to_mapping_on_a_torus_with_cores_and_metrics():
    machine = torus_machine([4, 4], cores_per_node=2)  # processor = router_id * 2 + slot
    app = box([4, 8])
    app.tile([1, 8])  # 4 rows of 8 ranks
    net = box([4, 4, 2])
    net.tile([4, 1, 2])  # 4 columns x1 = k of 4 routers x 2 cores
    net.map(app)
    g = TaskGraph.stencil([8, 4])  # task x + 8 y = rank 8 y + x (Rubik scan)
    m = net.to_mapping(machine, g)
    for r in range(32):
        x0, x1, s = net.rank_coords()[r]
        assert m.task_to_proc[r] == (x0 + 4 * x1) * 2 + s
    assert m.metric("total_hops") == int(m.metric("total_hops"))
    assert m.summary().startswith("rubik: 32 tasks on 32 processors")
    with pytest.raises(InvalidInputError, match=r"box: rank 16 sits at cell \[4, 0, 0\], which is no"):
        box([8, 4, 1]).to_mapping(machine)
    with pytest.raises(InvalidInputError, match="machine: a 4-D box needs a 4-D or 3-D machine; got 2-D"):
        box([2, 2, 2, 2]).to_mapping(machine)
    with pytest.raises(InvalidInputError, match="to_mapping: call it on the root"):
        net[0, 0, 0].to_mapping(machine)


# -- group analysis ---------------------------------------------------------------------------
def test_group_link_usage_counts_links_with_library_routing():
    machine = torus_machine([4, 4])
    app = box([4, 4])
    app.tile([1, 4])  # 4 groups of 4 consecutive ranks
    rows = box([4, 4])
    rows.tile([1, 4])
    rows.map(app)  # each group on one x0-row ring of 4 routers: 4 routers x 2 directions along dim 1
    assert group_link_usage(rows.to_mapping(machine), app).tolist() == [8, 8, 8, 8]
    blocks = box([4, 4])
    blocks.tile([2, 2])  # each group on a 2x2 square: 8 directed links
    blocks.map(app)
    assert group_link_usage(blocks.to_mapping(machine), app).tolist() == [8, 8, 8, 8]
    tilted = box([4, 4])
    tilted.tile([1, 4])
    tilted.map(app)
    tilted.tilt(0, 1, 1)  # each group becomes a diagonal: routes need both dimensions
    usage = group_link_usage(tilted.to_mapping(machine), app)
    assert (usage > 8).all()
    loads = group_link_loads(tilted.to_mapping(machine), rank_groups(app))
    assert [x.n_used() for x in loads] == usage.tolist()
    assert rank_groups(app).tolist() == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4
    assert alltoall_graph([1, 2], 4).n_edges == 2 and groups_alltoall_graph(app).n_edges == 48
    with pytest.raises(InvalidInputError, match="groups: expected 16 ranks"):
        group_link_usage(rows.to_mapping(machine), [0, 0, 1])


# -- visualisation and examples ---------------------------------------------------------------
def test_plot_box_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    from mpitaskmap.viz.rubik import plot_box

    net = box([4, 4, 4, 2])
    net.tile([4, 2, 2, 2])
    app2 = box([8, 16])
    app2.tile([2, 16])
    net.map(app2)
    net.tilt(2, 0, 1)
    path = tmp_path / "box.png"
    fig = plot_box(net, path, groups=app2, fixed=[1])
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000
    assert "fixed at [1]" in fig.axes[0].get_title()
    with pytest.raises(InvalidInputError, match="fixed: expected 1 indices"):
        plot_box(net, fixed=[5])
    with pytest.raises(InvalidInputError, match="groups: expected a Box or one group id"):
        plot_box(net, groups=[0, 1])
    plot_box(box([3, 2]))  # 2-D boxes are drawn as one layer


def test_plot_box_without_matplotlib_says_what_to_install(monkeypatch):
    from mpitaskmap.viz.rubik import plot_box

    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"plot_box needs matplotlib; install the 'plot' extra: "
                                          r"pip install \"mpitaskmap\[plot\]\""):
        plot_box(box([2, 2, 2]))


def _run_example(name, *args):
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / name), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _rows(out):
    rows = {}
    for line in out.splitlines():
        parts = line.rsplit(None, 6)
        if len(parts) == 7 and parts[1].replace(".", "").isdigit():
            rows[parts[0].strip()] = [float(v) for v in parts[1:]]
    return rows


def test_pf3d_example_tilts_spread_each_group_over_more_links(tmp_path):
    mapfile = tmp_path / "pf3d.map"
    rows = _rows(_run_example("rubik_pf3d.py", "--small", "--mapfile", str(mapfile)))
    assert rows["tilted planes"][0] > rows["planes"][0] == rows["default (rank order)"][0]
    assert rows["tilted planes"][1] < rows["planes"][1]  # fewer messages on the busiest link
    lines = mapfile.read_text().splitlines()
    assert len(lines) == 128 and all(len(line.split()) == 4 for line in lines)


def test_qbox_example_runs_and_spreads_columns():
    rows = _rows(_run_example("rubik_qbox.py", "--small"))
    assert rows["cut [mod,div,div,div]"][0] > rows["default (rank order)"][0]
    assert rows["cut [mod,div,div,div]+tilt"][1] < rows["default (rank order)"][1]
