"""Register once: every method, option parser, check and builder declared in one place.

* the method table (:data:`mpitaskmap.search.registry.METHOD_TABLE`): the command line accepts
  exactly the options :func:`mpitaskmap.map` does, spelled as the table says, and its
  progress bars follow the table's refinement flags;
* grid dispatch: :func:`mpitaskmap.mappers.grid.heuristics.map_grid` is the one call of a
  heuristic by name, for the grid family and ``regular`` too;
* the judge stage (:func:`mpitaskmap.search.judge.judge_stage`): one rule for ``map(auto)``
  and ``remap()`` (whose MPI side tests/runtime/test_remapping.py checks against the serial one);
* one option parser (:mod:`mpitaskmap._options`): duplicate keys rejected in every spec;
* one ``bytes_per_weight`` check; one PERCS builder behind ``percs:`` and ``sim:percs:``.
"""

from __future__ import annotations

import dataclasses
import io
import math

import numpy as np
import pytest

import mpitaskmap
from mpitaskmap import TaskGraph, torus_machine
from mpitaskmap.cli import main
from mpitaskmap.cli._inputs import load_machine, load_tasks
from mpitaskmap.cli._methods import Context, run_method
from mpitaskmap.cli._progress import Progress
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.mapfiles import read_map
from mpitaskmap.providers import get_provider, machine_from_provider
from mpitaskmap.search.judge import JUDGE_TIE, judge_stage
from mpitaskmap.search.methods import METHODS
from mpitaskmap.search.problem import Candidate, Problem
from mpitaskmap.search.registry import (METHOD_TABLE, find_method, format_method, method_candidate, parse_method)

TORUS = ("sim:torus:dims=4x4x2", "stencil3d:4x4x2")  # 32 tasks on 32 processors, one per node


def _sample(option):
    """A valid value of ``option`` other than its default, of the type map() takes."""
    return {"flag": False, "int": 1, "float": 0.5, "lengths": (2, 2, 8), "ints": (1, 0),
            "choice": option.choices[-1] if option.choices else "x",
            "names": tuple(option.choices[:2])}[option.kind]


def _every_option():
    for name, m in METHOD_TABLE.items():
        for arg in m.args or ("",):
            for key in m.option_names(arg):
                yield (f"{name}:{arg}" if arg else name), key


# -- the method table ------------------------------------------------------------------------
def test_the_table_covers_every_family_method():
    from mpitaskmap.search.families import graph

    assert [n for n, m in METHOD_TABLE.items() if m.family == "graph"] == list(graph.METHODS)
    assert {m.family for m in METHOD_TABLE.values()} - {""} == {"identity", "geometric", "graph", "grid", "percs",
                                                                "rubik"}


def test_methods_is_derived_from_the_table():
    assert list(METHODS) == list(METHOD_TABLE)
    assert all(METHODS[n].startswith(m.description) for n, m in METHOD_TABLE.items())
    assert "options ordering, shift, bandwidth, box, drop, task_perm, proc_perm" in METHODS["geometric"]
    assert "axis (tilt)" in METHODS["rubik"]


@pytest.mark.parametrize("method, key", list(_every_option()))
def test_every_declared_option_is_accepted_by_the_api_and_the_command_line(method, key):
    entry, arg = find_method(method)
    value = _sample(entry.option(key))
    # the command line's spelling reads back to exactly what map() takes
    text = format_method(method, {key: value})
    assert parse_method(text) == (method, {key: value})
    # and map() (through the candidate, or the search's own check) takes it
    if entry.search:
        entry.check_options(arg, {key: value})
    else:
        assert method_candidate(method, **{key: value}).option(key) == value


def test_options_the_table_does_not_list_are_rejected_by_both_naming_the_option():
    cases = [("grid:affn", "variant", 1), ("greedy", "ordering", "z"), ("rubik:map", "axis", 1),
             ("identity", "delta", 8), ("auto", "ordering", "z")]
    for method, key, value in cases:
        with pytest.raises(InvalidInputError, match=f"{key}: not an option of method '{method}'"):
            find_method(method)[0].check_options(find_method(method)[1], {key: value})
        with pytest.raises(InvalidInputError, match=f"unknown key '{key}'"):
            parse_method(f"{method}:{key}={value}")
    g, m = TaskGraph.stencil([4, 4]), torus_machine([4, 4])
    with pytest.raises(InvalidInputError, match="variant: not an option of method 'grid:affn'"):
        mpitaskmap.map(g, m, "grid:affn", variant=1)


def test_the_command_line_rejects_an_unlisted_option_and_a_bad_value(capsys):
    for spec, message in [("grid:affn:variant=1", "unknown key 'variant'; valid keys: ['fold_dim']"),
                          ("greedy:ordering=z", "unknown key 'ordering'; valid keys: ['delta']"),
                          ("geometric:box=2xa", "box needs lengths >= 1 like 4x4x4; got '2xa'"),
                          ("geometric:shift=maybe", "shift is a flag"),
                          ("geometric:ordering=spiral", "ordering must be one of"),
                          ("auto:orderings=fz/spiral", "orderings: unknown 'spiral'")]:
        status = main(["map", "-m", TORUS[0], "-t", TORUS[1], "--method", spec, "-q"])
        err = capsys.readouterr().err
        assert status == 1 and f"--method {spec!r}: " in err and message in err, err


def test_the_geometric_spelling_of_the_command_line_gives_the_apis_mapping(tmp_path, capsys):
    machine = load_machine(*TORUS[:1], 32).machine
    graph = load_tasks(TORUS[1]).graph
    # the spelling parses as before (bandwidth and box together is the mapper's error, not the parser's)
    assert parse_method("geometric:ordering=z,shift=0,bandwidth=1,box=2x2x8") == (
        "geometric", {"ordering": "z", "shift": False, "bandwidth": True, "box": (2, 2, 8)})
    for spec, options in [
        ("geometric:ordering=z,shift=0,box=2x2x2", dict(ordering="z", shift=False, box=(2, 2, 2))),
        ("geometric:ordering=hilbert,bandwidth=1", dict(ordering="hilbert", bandwidth=True)),
        ("geometric:ordering=z,drop=2,task_perm=2x0x1,proc_perm=1x0",
         dict(ordering="z", drop=(2,), task_perm=(2, 0, 1), proc_perm=(1, 0))),
        ("geometric+uwh:ordering=gray,delta=4", dict(ordering="gray", delta=4)),
        ("grid:sfc:curve=snake", dict(curve="snake")),
    ]:
        path = tmp_path / "map.csv"
        assert main(["map", "-m", TORUS[0], "-t", TORUS[1], "--method", spec, "-q", "-o", f"csv={path}"]) == 0
        capsys.readouterr()
        want = mpitaskmap.map(graph, machine, parse_method(spec)[0], **options)
        np.testing.assert_array_equal(read_map(path, machine, "csv", graph=graph).task_to_proc, want.task_to_proc)


def test_command_flags_are_defaults_of_the_options_of_the_same_name():
    machine = load_machine(*TORUS[:1], 32).machine
    graph = load_tasks(TORUS[1]).graph
    ctx = Context(defaults={"ordering": "z", "shift": False, "bandwidth": False, "orderings": ("fz",)})
    mapping, _ = run_method("geometric", graph, machine, ctx)
    assert mapping.info["options"] == "geometric:ordering=z,shift=0,bandwidth=0"
    mapping, _ = run_method("geometric:ordering=hilbert", graph, machine, ctx)  # the spec beats the flag
    assert mapping.info["options"] == "geometric:ordering=hilbert,shift=0,bandwidth=0"
    mapping, _ = run_method("geometric+uwh", graph, machine, ctx)  # only the options the method takes
    assert mapping.info["options"] == "geometric+uwh:ordering=z"


def test_best_of_takes_method_names_from_the_table():
    g, m = TaskGraph.stencil([4, 4]), torus_machine([4, 4])
    res = mpitaskmap.best_of(g, m, ["identity", "greedy+uwh", method_candidate("geometric", ordering="z")])
    assert res.candidates == [method_candidate("identity"), method_candidate("greedy+uwh"),
                              method_candidate("geometric", ordering="z")]
    with pytest.raises(InvalidInputError, match="'auto' is a search, not one candidate"):
        mpitaskmap.best_of(g, m, ["auto"])
    with pytest.raises(InvalidInputError, match="expected a Candidate or a method name; got int"):
        mpitaskmap.best_of(g, m, [3])


def _bars(monkeypatch, spec: str) -> dict:
    """The progress keywords the command line passes to map() for ``spec`` (map() itself not run)."""
    import mpitaskmap.cli._methods as cli_methods

    seen = {}

    def fake_map(graph, machine, method, **kwargs):
        seen.update(kwargs)
        return mpitaskmap.identity_mapping(graph, machine)

    monkeypatch.setattr(cli_methods, "map_tasks", fake_map)
    g, m = TaskGraph.stencil([4, 4]), torus_machine([4, 4])
    run_method(spec, g, m, Context(progress=Progress("candidates", stream=io.StringIO())))
    return {k: v.label for k, v in seen.items() if isinstance(v, Progress)}


@pytest.mark.parametrize("name", [n for n, m in METHOD_TABLE.items() if not m.args and n != "auto"])
def test_progress_bars_follow_the_tables_refinement_flags(name, monkeypatch):
    entry = METHOD_TABLE[name]
    bars = _bars(monkeypatch, name)
    assert ("progress" in bars) == entry.uwh and ("congestion_progress" in bars) == entry.congestion
    if entry.uwh:
        assert bars["progress"] == "UWH refinement passes"
    if entry.congestion:
        assert bars["congestion_progress"] == f"{name} refinement iterations"


def test_the_progress_bar_comes_from_the_table(monkeypatch):
    assert _bars(monkeypatch, "greedy") == {}
    monkeypatch.setitem(METHOD_TABLE, "greedy", dataclasses.replace(METHOD_TABLE["greedy"], uwh=True))
    assert _bars(monkeypatch, "greedy") == {"progress": "UWH refinement passes"}
    # map() passes its callbacks by the same flags
    seen = []
    g, m = TaskGraph.stencil([4, 4]), torus_machine([4, 4])
    mpitaskmap.map(g, m, "greedy+uwh", progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1][0] == seen[-1][1]


# -- grid dispatch once ------------------------------------------------------------------------
def test_every_grid_heuristic_is_called_through_the_one_dispatch(monkeypatch):
    import mpitaskmap.mappers.grid.heuristics as heuristics

    calls = []
    for name, fn in list(heuristics._FUNCTIONS.items()):
        def spy(*args, _fn=fn, _name=name, **kwargs):
            calls.append(_name)
            return _fn(*args, **kwargs)

        monkeypatch.setitem(heuristics._FUNCTIONS, name, spy)
    g, m = TaskGraph.stencil([8, 4]), torus_machine([8, 4], wrap=False)
    mpitaskmap.map(g, m, "grid:affn")  # the grid family
    assert calls == ["affn"]
    calls.clear()
    res = mpitaskmap.map_regular(g, m)  # regular: the family's candidates, then PAIRS
    assert calls[-1] == "pairs" and {"affn", "sfc"} <= set(calls)
    assert len(calls) == len([r for r in res.table if r["name"] != "identity"])


# -- the judge stage once ----------------------------------------------------------------------
def _stage(times: dict, error: str = "", also=None, max_work=None, top=3):
    cands = [Candidate.make("c", str(i)) for i in range(5)]
    scores = [3.0, 1.0, 1.0, 2.0, 5.0]
    digests = {0: b"a", 1: b"b", 2: b"b", 3: b"c", 4: b"d"}
    asked = []

    def replay(shortlist):
        asked.append(list(shortlist))
        return {i: times[i] for i in shortlist if i in times}, error

    return judge_stage("fluid", cands, scores, digests, replay, top=top, also=also, max_work=max_work), asked


def test_judge_stage_shortlists_replays_and_ranks():
    # the three best distinct mappings by the objective (2 is 1's mapping); the metric's pick, 4,
    # scores worse than the default order (index 0) by the objective, so it is not replayed
    out, asked = _stage({1: 2.0, 3: 1.0, 0: 1.5, 4: 0.5}, also={"latency": {0: 9.0, 1: 9.0, 3: 9.0, 4: 1.0}})
    assert asked == [[1, 3, 0]]
    assert [(r["index"], r["chosen_by"], r["objective_rank"], r["simulated_rank"]) for r in out.judged] == [
        (1, "objective", 1, 3), (3, "objective", 2, 1), (0, "objective", 3, 2)]
    assert out.index == 3 and out.why == ""
    # the objective's best alone, then the metric's best among the mappings no worse than the default,
    # then the default order (the baseline, replayed whatever the shortlist)
    out, asked = _stage({1: 2.0, 3: 1.0, 4: 0.5, 0: 3.0}, also={"latency": {0: 9.0, 1: 9.0, 3: 2.0, 4: 1.0}}, top=1)
    assert asked == [[1, 3, 0]]
    assert [(r["index"], r["chosen_by"], r["objective_rank"], r["simulated_rank"]) for r in out.judged] == [
        (1, "objective", 1, 2), (3, "latency", 2, 1), (0, "default order", 3, 3)]
    assert out.index == 3 and out.default_simulated_s == 3.0
    # times within the tie go to the better objective
    out, _ = _stage({1: 1.0, 3: 1.0 - JUDGE_TIE / 2, 0: 2.0})
    assert out.index == 1


def test_judge_stage_leaves_the_objective_to_decide_on_failure_or_budget():
    out, _ = _stage({1: 2.0}, error="judge: rank 1: RuntimeError: boom")
    assert out.index is None and out.why == "the judge failed (judge: rank 1: RuntimeError: boom): the objective decides"
    assert [r["simulated_rank"] for r in out.judged] == [None] * 3 and math.isnan(out.judged[1]["simulated_s"])
    out, _ = _stage({1: 2.0, 3: math.inf}, max_work=1000)
    assert out.index is None and out.why == "the fluid replay of #3 c 3 passed its work budget (1,000): the objective decides"


def test_map_auto_runs_the_shared_judge_stage(monkeypatch):
    import mpitaskmap.search.engine as engine

    runs = []
    real = engine.judge_stage
    monkeypatch.setattr(engine, "judge_stage", lambda *a, **k: runs.append(a[0]) or real(*a, **k))
    g, m = TaskGraph.stencil([4, 4, 2]), torus_machine([4, 4, 2])
    assert mpitaskmap.map(g, m).info["judge"] in ("fluid", None) and runs == ["fluid"]


# -- one option parser -------------------------------------------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["-m", "sim:torus:dims=4x4x2,ppn=1,ppn=2", "-t", TORUS[1]], "provider 'sim:torus:dims=4x4x2,ppn=1,ppn=2': "
                                                                   "key 'ppn' given twice"),
    (["-m", "percs:ns=2,ns=4", "-t", "stencil2d:16x16"], "--machine 'percs:ns=2,ns=4': key 'ns' given twice"),
    (["-m", TORUS[0], "-t", "stencil3d:4x4x2:points=7,points=27"], "--tasks 'stencil3d:4x4x2:points=7,points=27': "
                                                                   "key 'points' given twice"),
    (["-m", TORUS[0], "-t", TORUS[1], "--method", "geometric:ordering=z,ordering=fz"],
     "--method 'geometric:ordering=z,ordering=fz': key 'ordering' given twice"),
])
def test_duplicate_keys_are_rejected_by_every_spec_of_the_command_line(argv, message, capsys):
    assert main(["eval" if "--method" not in argv else "map", *argv, "-q"]) == 1
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("spec", ["sim:titan:ppn=1,ppn=2", "sim:percs:nd=1,nd=2", "rca:lib=a,lib=b",
                                  "bgq:shape=2x2x2x2x2,shape=4x4x4x4x2"])
def test_duplicate_keys_are_rejected_by_every_provider_spec(spec):
    key = spec.split(":")[-1].split("=")[0]
    with pytest.raises(InvalidInputError, match=f"provider {spec!r}: key {key!r} given twice"):
        get_provider(spec)


# -- one bytes_per_weight check ----------------------------------------------------------------
def test_one_bytes_per_weight_check(capsys):
    from mpitaskmap.metrics import predicted_time
    from mpitaskmap.sim.fluid import exchange_messages

    g, m = TaskGraph.stencil([4]), torus_machine([4])
    message = "bytes_per_weight: must be positive and finite; got -1.0"
    with pytest.raises(InvalidInputError, match=message):
        exchange_messages(g, m, np.arange(4), -1.0)
    with pytest.raises(InvalidInputError, match="bytes_per_weight: must be non-negative and finite; got -1.0"):
        predicted_time(g, m, np.arange(4), bytes_per_weight=-1.0)
    assert predicted_time(g, m, np.arange(4), bytes_per_weight=0.0) > 0  # empty messages: their latency only
    assert main(["eval", "-m", TORUS[0], "-t", TORUS[1], "--bytes-per-weight", "-1", "-q"]) == 1
    assert "--" + message.replace("_", "-") in capsys.readouterr().err


# -- one builder per machine kind --------------------------------------------------------------
def test_percs_and_sim_percs_build_the_same_machine_with_the_same_checks():
    direct = load_machine("percs:ns=2,nd=2,routing=indirect", 256).machine
    provided = get_provider("sim:percs:ns=2,nd=2,routing=indirect")
    via_provider = machine_from_provider(provided, 256)
    assert repr(direct) == repr(provided.machine(256)) == repr(via_provider)
    assert (direct.n_s, direct.n_d, direct.routing) == (via_provider.n_s, via_provider.n_d, via_provider.routing) == (
        2, 2, "indirect")
    np.testing.assert_array_equal(direct.hops(np.arange(256), np.arange(256)[::-1]),
                                  via_provider.hops(np.arange(256), np.arange(256)[::-1]))
    for bad, body in [("ns=2,nd=3", "n_d: D links per supernode pair must be one of [1, 2, 4, 8, 16, 32]; got 3"),
                      ("ns=0", "ns must be >= 1; got 0"), ("routing=valiant", "routing must be one of")]:
        with pytest.raises(InvalidInputError) as cli:
            load_machine(f"percs:{bad}", 256)
        with pytest.raises(InvalidInputError) as sim:  # at spec time, not when a job first asks
            get_provider(f"sim:percs:{bad}")
        assert str(cli.value).startswith(f"--machine 'percs:{bad}': {body}")
        assert str(sim.value).startswith(f"provider 'sim:percs:{bad}': {body}")
        assert str(cli.value).split("': ", 1)[1] == str(sim.value).split("': ", 1)[1]
