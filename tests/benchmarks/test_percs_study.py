"""The PERCS study's published cells: all of Tables I-IV, as printed, and the tolerance rule."""

import collections

import pytest


@pytest.fixture(scope="module")
def study(benchmark_loader):
    with benchmark_loader("percs_study") as mod:
        yield mod


def test_every_cell_of_tables_one_to_four_is_typed_in(study):
    per_table = collections.Counter(cell[6].split(" row ")[0] for cell in study.PAPER_CELLS)
    assert per_table == {"Table I": 30, "Table II": 24, "Table III": 25, "Table IV": 10}
    # Table I, row n_d = 8, MOD CLR: the paper prints 107 (*), the (*) naming the LR class
    cell = next(c for c in study.PAPER_CELLS if c[6] == "Table I row n_d=8 col MOD CLR")
    assert cell[4:6] == (107.0, "LR") and cell[7] == "107 (*)"


def test_tolerance_is_ten_percent_deterministic_and_twenty_five_random_with_the_named_class(study):
    assert study.within_tolerance(100.0, None, 109.9, "D", "supernode_sequential")
    assert not study.within_tolerance(100.0, None, 110.1, "D", "supernode_sequential")
    assert study.within_tolerance(100.0, None, 124.0, "D", "drawer_random")
    assert not study.within_tolerance(100.0, "LR", 100.0, "D", "drawer_random")
