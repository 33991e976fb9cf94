"""Graph files parsed to arrays (mpitaskmap/graphs/graph_files.py): the Matrix Market reader's two paths.

A body without comments or blank lines is parsed by NumPy in one pass; anything else line by
line.  Both must give the same entries and line numbers, and the same errors.
"""

from __future__ import annotations

import pytest

from mpitaskmap.errors import InvalidInputError
from mpitaskmap.graphs.graph_files import matrix_edges, read_matrix_entries

HEAD = "%%MatrixMarket matrix coordinate real general\n% a comment\n3 3 3\n"


@pytest.mark.parametrize("body, lines", [
    ("1 2 10\n3 1 4.5\n2 3 7 99\n", [4, 5, 6]),  # one pass (an extra column ignored, as line by line)
    ("1 2 10\n% between\n3 1 4.5\n\n2 3 7 99", [4, 6, 8]),  # line by line
])
def test_both_paths_give_the_same_entries_and_line_numbers(tmp_path, body, lines):
    path = tmp_path / "m.mtx"
    path.write_text(HEAD + body)
    e = read_matrix_entries(path)
    assert (e.n, e.rows.tolist(), e.cols.tolist(), e.values.tolist(), e.lines.tolist()) == (
        3, [0, 2, 1], [1, 0, 2], [10.0, 4.5, 7.0], lines)
    assert (e.field, e.symmetry) == ("real", "general")


@pytest.mark.parametrize("body, message", [
    ("1 2 10\n3 1 x\n", r"m\.mtx:5: expected 3 numbers 'ROW COLUMN VALUE' \(1-based indices\); got '3 1 x'"),
    ("1 2 10\n3 1\n", r"m\.mtx:5: expected 3 numbers"),
    ("1 2 10\n2.0 1 3\n", r"m\.mtx:5: expected 3 numbers"),  # an index is a whole number as written
    ("1 2 10\n3 1 inf\n", r"m\.mtx:5: the value must be finite \(a volume\); got '3 1 inf'"),
    ("1 2 10\n0 1 3\n", r"m\.mtx:5: index outside 1\.\.3 \(the size line's\); got '0 1 3'"),
])
def test_a_bad_line_is_named_whichever_path_meets_it(tmp_path, body, message):
    path = tmp_path / "m.mtx"
    path.write_text(HEAD + body)
    with pytest.raises(InvalidInputError, match=message):
        read_matrix_entries(path)


def test_pattern_and_symmetric_files_as_edges(tmp_path):
    path = tmp_path / "p.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n")
    n, src, dst, w = matrix_edges(path)  # the diagonal dropped, the other entry both ways
    assert (n, src.tolist(), dst.tolist(), w.tolist()) == (3, [1, 0], [0, 1], [1.0, 1.0])
