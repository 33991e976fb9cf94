"""The geometric option set is declared once (mappers/geometric/options.py) and read by every user."""

import argparse
import inspect

import numpy as np
import pytest

from mpitaskmap import InvalidInputError, TaskGraph, torus_machine
from mpitaskmap.cli import _common
from mpitaskmap.mappers.geometric.mapper import map_geometric, processor_coords
from mpitaskmap.mappers.geometric.options import GEOMETRIC_DEFAULTS, GEOMETRIC_OPTIONS
from mpitaskmap.search.families import geometric as geometric_family
from mpitaskmap.search.problem import Candidate, Problem
from mpitaskmap.search.registry import METHOD_TABLE


def _defaults(function) -> dict:
    return {name: p.default for name, p in inspect.signature(function).parameters.items()
            if name in GEOMETRIC_DEFAULTS}


def test_the_declaration():
    assert [o.name for o in GEOMETRIC_OPTIONS] == ["ordering", "shift", "bandwidth", "box", "drop", "task_perm",
                                                   "proc_perm"]
    assert GEOMETRIC_DEFAULTS == {"ordering": "fz", "shift": True, "bandwidth": False, "box": None, "drop": (),
                                  "task_perm": None, "proc_perm": None}


def test_mapper_candidate_and_cli_defaults_are_the_declared_ones():
    assert _defaults(map_geometric) == GEOMETRIC_DEFAULTS
    assert dict(geometric_family.candidate().options) == GEOMETRIC_DEFAULTS
    with pytest.raises(InvalidInputError, match=r"^rotate: not an option of the geometric mapper; valid: \['ordering'"):
        geometric_family.candidate(rotate=True)
    transforms = _defaults(processor_coords)
    assert list(transforms) == ["shift", "bandwidth", "box", "drop"]
    assert transforms == {k: GEOMETRIC_DEFAULTS[k] for k in transforms}
    parser = argparse.ArgumentParser()
    _common.add_method_options(parser)
    assert parser.get_default("ordering") == "fz"


def test_the_method_table_offers_the_declared_options_in_order():
    table = METHOD_TABLE["geometric"].options
    assert [(o.name, o.kind, o.help, o.choices) for o in table] == [
        (o.name, o.kind, o.help, o.choices) for o in GEOMETRIC_OPTIONS]
    assert METHOD_TABLE["geometric"].option("box").parse("2x2x8", "--method") == (2, 2, 8)
    assert METHOD_TABLE["geometric+uwh"].options[0] == METHOD_TABLE["geometric"].option("ordering")


def test_the_family_computes_a_candidate_with_every_option_passed_through():
    # a candidate that sets options maps as map_geometric does with the same keywords; one
    # that sets none maps with the declared defaults
    g, m = TaskGraph.stencil([4, 4, 2]), torus_machine([4, 4, 2])
    bare = geometric_family.apply(Candidate("geometric", "mj", (), "bare"), Problem(g, m)).task_to_proc
    assert np.array_equal(bare, map_geometric(g, m).task_to_proc)
    for options in (dict(ordering="z", task_perm=(1, 0, 2), proc_perm=None, shift=False, bandwidth=False,
                         box=(2, 2, 2), drop=()),
                    dict(ordering="gray", task_perm=None, proc_perm=(1, 0), shift=True, bandwidth=True, box=None,
                         drop=(2,))):
        cand = geometric_family.candidate(**options)
        assert dict(cand.options) == options
        got = geometric_family.apply(cand, Problem(g, m)).task_to_proc
        assert np.array_equal(got, map_geometric(g, m, **options).task_to_proc)
        assert not np.array_equal(got, bare)
