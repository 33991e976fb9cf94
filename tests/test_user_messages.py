"""What a user reads (issue 39, item 8): a change in words ("33.3% higher", never "-33.3% lower"),
counts in the right number ("1 global link"), a --by-class table whose columns line up, and file
positions counted from 1 (lines, entries, numbers of a row)."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from mpitaskmap._textio import counted
from mpitaskmap.cli import main
from mpitaskmap.cli._common import align_columns
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines.machine_file import read_machine_file
from mpitaskmap.machines.torus.presets import torus_machine
from mpitaskmap.mapfiles import read_mapping_csv
from mpitaskmap.metrics import change_text

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# -- a change in words ------------------------------------------------------------------------------
@pytest.mark.parametrize("before, after, text", [
    (3.0, 2.0, "33.3% lower"),
    (3.0, 4.0, "33.3% higher"),  # the "-33.3% lower"
    (3.0, 3.0, "unchanged"),
    (0.0, 0.0, "unchanged"),
    (2e-7, 1e-7, "50.0% lower"),
    (1000.0, 1000.4, "0.0% higher"),  # higher, by less than the one decimal shows
])
def test_change_text(before, after, text):
    assert change_text(before, after) == text


def test_change_text_needs_a_positive_reference():
    with pytest.raises(InvalidInputError, match=r"^before: a relative change needs a positive reference and a finite "
                                                r"value; got 0.0 -> 1.0$"):
        change_text(0.0, 1.0)


@pytest.mark.parametrize("after, words", [(1e-7, "50.0% lower"), (3e-7, "50.0% higher"), (2e-7, "unchanged")])
def test_the_remap_summary_spells_the_change_in_words(after, words):
    from mpitaskmap.runtime.report import RemapReport

    rep = RemapReport(status="remapped", metric="predicted_time", n_candidates=10, winner="geometric", winner_index=3,
                      before=2e-7, after=after)
    assert rep.summary().splitlines()[1] == (f"  predicted_time: default 2e-07 s -> {after:.6g} s (predicted, {words}); "
                                             "winner #3 geometric of 10 candidates")


def test_the_remap_summary_counts_the_candidates_that_applied():
    from mpitaskmap.runtime.report import RemapReport

    base = dict(status="remapped", metric="predicted_time", n_candidates=10, winner="geometric", winner_index=3,
                before=2e-7, after=1e-7)
    assert RemapReport(**base, n_refused=3).summary().splitlines()[1].endswith(
        "winner #3 geometric of 7 candidates (3 more did not apply)")
    assert RemapReport(**base, n_refused=3, n_refined=2).summary().splitlines()[1].endswith(
        "winner #3 geometric of 7 candidates (2 refined) (3 more did not apply)")
    judged = [{"index": 0, "candidate": "identity", "simulated_s": 2e-6, "score": 2e-7, "chosen_by": "default order"},
              {"index": 3, "candidate": "geometric", "simulated_s": 1e-6, "score": 1e-7, "chosen_by": "objective"}]
    line = RemapReport(**base, n_refused=1, n_refined=2, judge="fluid", judged=judged).summary().splitlines()[1]
    assert line.endswith("winner #3 geometric of 9 candidates (2 refined, 1 more did not apply)")


def test_the_demo_compares_in_words():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import minighost
    finally:
        sys.path.pop(0)
    base = {"average_hops": 1.286, "latency": 245.8}
    assert minighost.versus_line("group", "default", {"average_hops": 1.143, "latency": 245.8}, base,
                                 ("SimGrid", 7.092e-07, 6.259e-07)) == (
        "group: AverageHops 11.1% lower, Latency(M) unchanged, SimGrid time 11.7% lower (vs default)")
    assert minighost.versus_line("worse", "default", {"average_hops": 1.5, "latency": 300.0}, base) == (
        "worse: AverageHops 16.6% higher, Latency(M) 22.1% higher (vs default)")


# -- counts -------------------------------------------------------------------------------------------
def test_counted():
    assert [counted(n, "global link") for n in (0, 1, 2)] == ["0 global links", "1 global link", "2 global links"]
    assert counted(1, "switch", "switches") == "1 switch" and counted(3, "switch", "switches") == "3 switches"


@pytest.mark.parametrize("links, words", [(1, "1 global link"), (2, "2 global links")])
def test_dragonfly_machine_file_label_counts_its_global_links(links, words, tmp_path):
    p = tmp_path / "df.txt"
    p.write_text(f"network dragonfly n_groups=3 switches=2 nodes_per_switch=1 global_links={links}\nhost a 1 0 0\n"
                 "host b 1 1 1\n")
    assert read_machine_file(p).name == f"df.txt (dragonfly: 3 groups x 2 switches x 1 node, {words} per pair, " \
                                        "minimal routing)"


# -- the --by-class table ------------------------------------------------------------------------------
def _cells(line):
    """(start, end) of every cell: runs of words with single spaces, columns two or more spaces apart."""
    return [m.span() for m in re.finditer(r"\S+(?: \S+)*", line)]


def test_by_class_columns_line_up(capsys):
    status, out, err = run(capsys, "eval", "-m", "sim:frontier:nodes=8,ppn=2,seed=1", "-t", "stencil3d:4x2x2",
                           "--by-class", "-q")
    assert status == 0, err
    lines = out.splitlines()
    at = lines.index("identity: busiest link per link class")
    table = lines[at + 1:at + 5]
    assert table == [
        "  link    max data  max latency  max msgs  links used",
        "  node           5         0.05         5          16",
        "  local          3         0.12         3          44",
        "  global         2         0.08         2          22",  # 'global' is longer than 'link': the column widens
    ]
    head = _cells(table[0])
    for row in table[1:]:
        cells = _cells(row)
        assert cells[0][0] == head[0][0]  # the class names start where 'link' does
        assert [end for _, end in cells[1:]] == [end for _, end in head[1:]]  # the numbers end under their header


def test_align_columns():
    assert align_columns(["link", "max"], [["global", "2"], ["up1", "128"]], indent="  ") == [
        "  link    max", "  global    2", "  up1     128"]


# -- positions in files count from 1 ---------------------------------------------------------------------
def test_csv_mapping_errors_name_the_files_line(tmp_path):
    machine = torus_machine([2, 2])
    p = tmp_path / "m.csv"
    p.write_text("# saved by hand\nrank,proc,X\n\n0,1,1\n1,2,1\n")  # line 5: proc 2 is at X = 0
    with pytest.raises(InvalidInputError) as exc:
        read_mapping_csv(p, machine)
    assert str(exc.value) == f"{p}:5: processor, node or coordinates do not match the machine; got [1, 2, 1]"
    p.write_text("rank,proc\n0,1\n# x\n1,a\n")
    with pytest.raises(InvalidInputError) as exc:
        read_mapping_csv(p, machine)
    assert str(exc.value) == f"{p}:4: every cell must be an integer; got '1,a'"
    p.write_text("rank,proc\n0,1,2\n")
    with pytest.raises(InvalidInputError) as exc:
        read_mapping_csv(p, machine)
    assert str(exc.value) == f"{p}:2: expected 2 cells like the header; got '0,1,2'"


def test_matrix_file_errors_name_line_and_number(capsys, tmp_path):
    sim = "sim:titan:nodes=2,ppn=2"
    dense = tmp_path / "m.txt"
    dense.write_text("# volumes\n0 1 2\n1 0 -1\n2 1 0\n")
    status, _, err = run(capsys, "eval", "-m", sim, "-t", f"matrix:{dense}", "-q")
    assert (status, err) == (1, f"mpitaskmap eval: error: {dense}:3: number 3 of the row must be finite and >= 0 "
                                "(a volume); got -1.0\n")
    dense.write_text("0 1\n1 0\n1 1\n")
    status, _, err = run(capsys, "eval", "-m", sim, "-t", f"matrix:{dense}", "-q")
    assert err == f"mpitaskmap eval: error: {dense}: a communication matrix is square; got 3 rows of 2 numbers\n"
    mm = tmp_path / "m.mtx"
    head = "%%MatrixMarket matrix coordinate real general\n% comment\n3 3 2\n1 2 1.0\n"
    for bad, message in [("4 1 2.0", "index outside 1..3 (the size line's); got '4 1 2.0'"),
                         ("3 x 2.0", "expected 3 numbers 'ROW COLUMN VALUE' (1-based indices); got '3 x 2.0'"),
                         ("3 1 nan", "the value must be finite (a volume); got '3 1 nan'")]:
        mm.write_text(head + bad + "\n")
        status, _, err = run(capsys, "eval", "-m", sim, "-t", str(mm), "-q")
        assert (status, err) == (1, f"mpitaskmap eval: error: {mm}:5: {message}\n")
    mm.write_text("%%MatrixMarket matrix coordinate real general\n3 two 2\n")
    status, _, err = run(capsys, "eval", "-m", sim, "-t", str(mm), "-q")
    assert err == f"mpitaskmap eval: error: {mm}:2: expected the size line 'ROWS COLUMNS ENTRIES'; got '3 two 2'\n"
