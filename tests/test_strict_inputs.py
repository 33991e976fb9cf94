"""Strict inputs and messages that name what is at fault (issue 28, items 5, 6, 8 and 9).

One rule for job sizes (more tasks than processors only when asked for, everywhere), every
metric accepted by ``remap``, and one test per message of item 9: each names the file, line,
rank or value at fault.  The tables' legends are tested here too.
"""

import logging
import os
import sys

import numpy as np
import pytest

import mpitaskmap as mt
from mpitaskmap import InvalidInputError, MappingError, TaskGraph, torus_machine
from mpitaskmap.cli import main
from mpitaskmap.mapping import Mapping, check_fit, identity_mapping
from mpitaskmap.mappers.geometric.mapper import map_geometric
from mpitaskmap.search.problem import Problem

SIM = "sim:titan:nodes=16,ppn=4,seed=1"
TASKS = "stencil3d:4x4x4"


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# -- one rule: more tasks than processors only with oversubscribe --------------------------------
TOO_MANY = "graph: 16 tasks do not fit on 8 processors one task each; pass oversubscribe=True to place up to 2 tasks"


@pytest.mark.parametrize("call", [
    lambda g, m: identity_mapping(g, m),
    lambda g, m: map_geometric(g, m),
    lambda g, m: mt.map(g, m, "geometric"),
    lambda g, m: mt.map(g, m),
    lambda g, m: mt.map(g, m, "greedy+uwh"),
    lambda g, m: mt.best_of(g, m, ["identity", "geometric"]),
    lambda g, m: mt.candidate_list(g, m),
    lambda g, m: Problem(g, m),
], ids=["identity_mapping", "map_geometric", "map-geometric", "map-auto", "map-greedy", "best_of", "candidate_list",
        "Problem"])
def test_every_entry_point_refuses_more_tasks_than_processors_alike(call):
    g, m = TaskGraph.stencil([4, 4]), torus_machine([4, 2])
    with pytest.raises(InvalidInputError) as exc:
        call(g, m)
    assert str(exc.value) == TOO_MANY + " on a processor"


def test_mapping_itself_refuses_unless_asked_or_given_a_capacity():
    m = torus_machine([2])
    with pytest.raises(InvalidInputError, match="task_to_proc: 4 tasks do not fit on 2 processors one task each; "
                                                "pass oversubscribe=True"):
        Mapping([0, 0, 1, 1], m)
    assert Mapping([0, 0, 1, 1], m, oversubscribe=True).capacity == 2
    assert Mapping([0, 0, 1, 1], m, capacity=3).capacity == 3  # an explicit capacity is the caller's own limit
    check_fit(4, 4)
    with pytest.raises(InvalidInputError, match=r"^--tasks: 9 tasks do not fit on 4 processors one task each; "
                                                r"pass --oversubscribe to place up to 3 tasks on a processor$"):
        check_fit(9, 4, what="--tasks", option="--oversubscribe")


def test_oversubscribe_places_several_tasks_with_the_families_that_can():
    g, m = TaskGraph.stencil([4, 4]), torus_machine([4, 2])
    geo = mt.map(g, m, "geometric", oversubscribe=True)
    assert geo.tasks_per_proc().tolist() == [2] * 8 and geo.capacity == 2
    assert identity_mapping(g, m, oversubscribe=True).task_to_proc.tolist() == [t // 2 for t in range(16)]
    auto = mt.map(g, m, oversubscribe=True)  # searches identity and geometric only, no refinement
    assert auto.info["families"] == "geometric" and auto.info["refined"] == 0
    assert auto.tasks_per_proc().max() == 2
    res = mt.best_of(g, m, ["identity", "geometric"], refine=2, oversubscribe=True)
    assert len(res.candidates) == 2  # no second stage: the refinements move one task per processor
    with pytest.raises(InvalidInputError, match=r"^method 'greedy\+uwh': the graph family places one task per "
                                                r"processor, and 16 tasks on 8 processors need several; use a "
                                                r"method of the identity or geometric family$"):
        mt.map(g, m, "greedy+uwh", oversubscribe=True)
    with pytest.raises(InvalidInputError, match="^families: the graph family places one task per processor"):
        mt.map(g, m, families=["geometric", "graph"], oversubscribe=True)


def test_cli_refuses_more_tasks_than_ranks_unless_oversubscribe(capsys, tmp_path):
    out_csv = tmp_path / "x.csv"
    status, out, err = run(capsys, "map", "-m", "sim:titan:ppn=16", "-t", TASKS, "--ranks", "32", "-o", str(out_csv))
    assert status == 1 and out == "" and not out_csv.exists()
    assert err.splitlines()[-1] == ("mpitaskmap map: error: --tasks: 64 tasks do not fit on 32 processors one task "
                                    "each; pass --oversubscribe to place up to 2 tasks on a processor")
    status, _, _ = run(capsys, "map", "-m", "sim:titan:ppn=16", "-t", TASKS, "--ranks", "32", "-o", str(out_csv),
                       "--oversubscribe", "-q")
    assert status == 0
    procs = np.loadtxt(out_csv, delimiter=",", skiprows=1, dtype=np.int64)[:, 1]
    assert procs.size == 64 and np.bincount(procs).tolist() == [2] * 32


# -- item 6: remap takes every metric -------------------------------------------------------------
def test_remap_takes_every_metric_name():
    from mpi4py import MPI

    from mpitaskmap.runtime.mpi_search import search_candidates
    from mpitaskmap.runtime.remapping import METRIC_NAMES

    assert set(METRIC_NAMES) == set(mt.METRICS)
    new, rep = mt.remap(MPI.COMM_SELF, (0.0,), provider="sim:torus:dims=4", metric="total_hops", report=True)
    assert rep.metric == "total_hops" and rep.error == ""
    new.Free()
    # the search remap runs, on a machine with a network: the total hops of the winner
    g, m = TaskGraph.stencil([4, 4]), torus_machine([4, 4])
    new_of = np.random.default_rng(1).permutation(16)  # the same stencil with its tasks renumbered
    coords = np.empty_like(g.coords)
    coords[new_of] = g.coords
    shuffled = TaskGraph.from_edges(new_of[g.sources()], new_of[g.indices], g.weights, n_tasks=16, coords=coords)
    cands = mt.candidate_list(shuffled, m, include_identity=True, orderings=["fz"])
    res = search_candidates(MPI.COMM_SELF, shuffled, m, cands, metric="total_hops")
    assert res.error == "" and res.score == min(res.scores) == 48 < res.scores[0]  # 48 messages, one hop each
    assert res.score == mt.metrics.total_hops(shuffled, m, res.task_to_proc)


# -- item 9: every message names what is at fault ------------------------------------------------
def test_mapping_option_names_the_input_and_the_file(capsys, tmp_path):
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("hello world\n")
    status, _, err = run(capsys, "eval", "-m", SIM, "-t", TASKS, "--mapping", str(garbage), "-q")
    assert status == 1
    assert err == (f"mpitaskmap eval: error: --mapping: cannot tell the map-file format of '{garbage}' from its "
                   f"content: line 1 ('hello world') fits no format; write --mapping FORMAT={garbage} with FORMAT one "
                   "of ['bluegene', 'csv', 'mpich_rank_order', 'openmpi_rankfile', 'slurm_hostfile', 'smpi_hostfile']\n")
    # one word: a host list, read as one; the host is unknown (file and line named)
    garbage.write_text("hello\n")
    status, _, err = run(capsys, "eval", "-m", SIM, "-t", TASKS, "--mapping", str(garbage), "-q")
    assert status == 1
    assert err == (f"mpitaskmap eval: error: {garbage}:1: unknown host 'hello' (not a node of the machine); "
                   "got 'hello'\n")


def test_a_short_csv_mapping_names_the_file(capsys, tmp_path):
    short = tmp_path / "short.csv"
    short.write_text("rank,proc\n0,0\n1,1\n")
    graph, machine = TaskGraph.stencil([2, 2, 2]), torus_machine([2, 2, 2])
    with pytest.raises(InvalidInputError) as exc:
        mt.mapfiles.read_mapping_csv(short, machine, graph)
    assert str(exc.value) == (f"{short}: the file places 2 ranks but the task graph has 8 tasks; a map file lists "
                              "every rank (task) of the job")
    status, _, err = run(capsys, "eval", "-m", "sim:torus:dims=2x2x2", "-t", "stencil3d:2x2x2", "--mapping",
                         str(short), "-q")
    assert status == 1 and err == f"mpitaskmap eval: error: {exc.value}\n"
    # what Mapping itself refuses is prefixed with the file too
    over = tmp_path / "over.csv"
    over.write_text("rank,proc\n" + "".join(f"{r},{r % 2}\n" for r in range(8)))
    with pytest.raises(InvalidInputError, match=rf"^{over}: task_to_proc: processor 0 holds 4 tasks, more than the "
                                                r"capacity 1$"):
        mt.mapfiles.read_mapping_csv(over, machine, graph)


def test_one_host_at_two_routers_names_the_host_and_both_lines(tmp_path):
    from mpitaskmap.machines.machine_file import read_machine_file

    path = tmp_path / "two.txt"
    path.write_text("dims 4 4\nhost a 2 0 0\nhost b 2 1 0\n# a comment\nhost a 2 2 0\n")
    with pytest.raises(InvalidInputError) as exc:
        read_machine_file(path)
    assert str(exc.value) == (f"{path}:5: host 'a' is at router [2, 0] here but at router [0, 0] on line 2; a node "
                              "sits at one router; got 'host a 2 2 0'")
    path.write_text("dims 4 4\n1 1 node=3\n0 0 node=3\n")
    with pytest.raises(InvalidInputError, match=r":3: node 3 is at router \[0, 0\] here but at router \[1, 1\] on "
                                                r"line 2; a node sits at one router; got '0 0 node=3'$"):
        read_machine_file(path)


def test_exact_duplicate_host_lines_are_an_error_naming_both_lines(tmp_path):
    from mpitaskmap.machines.machine_file import read_machine_file

    path = tmp_path / "dup.txt"
    path.write_text("dims 4 4\nhost a 2 0 0\nhost b 2 1 0\nhost a 2 0 0\n")
    with pytest.raises(InvalidInputError) as exc:
        read_machine_file(path)
    assert str(exc.value) == (f"{path}:4: host 'a' repeats line 2 exactly (the same slots at the same router); give "
                              "each host once with all its slots, or one 'x y z node=N' line per rank for ranks "
                              "placed round-robin; got 'host a 2 0 0'")
    path.write_text("dims 4 4\nhost a 2 0 0\nhost b 2 1 0\nhost a 1 0 0\n")  # more slots of a, not a repeat
    m = read_machine_file(path)
    assert m.n_procs == 5 and m.node_ids.tolist() == [0, 0, 1, 1, 0]
    path.write_text("dims 4 4\n0 0 node=0\n1 0 node=1\n0 0 node=0\n")  # round-robin, one rank a line
    assert read_machine_file(path).node_ids.tolist() == [0, 1, 0]


def test_provider_mismatch_names_both_providers_and_networks():
    from mpitaskmap.providers import NetworkInfo
    from mpitaskmap.runtime.gather import describe_network, network_mismatch

    mine = describe_network("sim:torus:dims=2x8,wrap=0", NetworkInfo(dims=(2, 8), wrap=False))
    first = describe_network("sim:torus:dims=4x4", NetworkInfo(dims=(4, 4)))
    assert network_mismatch(1, mine, first) == (
        "provider: rank 1 reports provider 'sim:torus:dims=2x8,wrap=0' (torus network 2x8, wrap 00) but rank 0 "
        "reports provider 'sim:torus:dims=4x4' (torus network 4x4)")
    same = describe_network("file", NetworkInfo(dims=(4,)))
    assert network_mismatch(2, same, same).endswith("(they differ in link bandwidths, dimension names or router "
                                                    "coordinate count)")
    assert describe_network("hostname", NetworkInfo(kind="flat")) == "provider 'hostname' (flat network)"


@pytest.mark.mpi(min_size=2)
def test_provider_mismatch_across_ranks_names_them_on_every_rank():
    from mpi4py import MPI

    # the provider= argument differs: found before any provider is asked (runtime/job_settings.py); a network
    # that differs under one spec is named by the gather (tests/providers/test_slurm.py, ranks at different depths)
    world = MPI.COMM_WORLD
    spec = "sim:torus:dims=2x8,wrap=0" if world.rank == 1 else "sim:torus:dims=4x4"
    rest = "rank 0" if world.size == 2 else "ranks 0,2" if world.size == 3 else f"ranks 0,2-{world.size - 1}"
    for shared in (False, True):
        with pytest.raises(MappingError) as exc:
            mt.remap(world, (float(world.rank),), provider=spec, shared_memory=shared)
        assert str(exc.value) == (f"the provider argument differs between ranks: {rest} 'sim:torus:dims=4x4', "
                                  "rank 1 'sim:torus:dims=2x8,wrap=0'")


@pytest.mark.mpi
def test_remap_optimises_total_hops_under_mpi():
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    new, rep = mt.remap(world, (float(world.rank),), provider="sim:torus:dims=64,wrap=0", metric="total_hops",
                        report=True)
    assert rep.metric == "total_hops" and rep.after <= rep.before
    if world.size > 1:  # one rank a node: a network, so the report gives the metric before and after
        assert rep.nothing_to_map == "" and rep.summary().splitlines()[2].startswith("  total_hops: default ")
    new.Free()


@pytest.mark.parametrize("coords, why", [
    ("abc", "expected this rank's task coordinate as numbers, e.g. (x, y, z); got the string 'abc'"),
    ([0.0, "y"], "entry 1 is not a number; got 'y' (str)"),
    ([1.0, None], "entry 1 is not a number; got None (NoneType)"),
    ([[1, 2], [3]], "entry 0 is not a number; got [1, 2] (list)"),
])
def test_remap_says_what_is_wrong_with_coords(coords, why):
    from mpi4py import MPI

    with pytest.raises(MappingError) as exc:
        mt.remap(MPI.COMM_SELF, coords, provider="sim:torus:dims=4")
    assert str(exc.value) == f"task: rank 0: ValueError: coords: {why}"


def test_log_info_says_why_each_provider_was_skipped(monkeypatch, capsys, caplog):
    from mpi4py import MPI

    from mpitaskmap.providers.auto import detect_provider

    for var in ("MPITASKMAP_PROVIDER", "MPITASKMAP_COORDS_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MPITASKMAP_CRAY_NID_FILE", "/nonexistent/nid")
    monkeypatch.setenv("MPITASKMAP_BGQ_LIB", "/nonexistent/libmpi.so")  # other tests may have loaded a fake MPIX
    with caplog.at_level(logging.INFO, logger="mpitaskmap"):
        provider = detect_provider()
    assert provider.name == "hostname"
    line = caplog.records[-1].getMessage()
    assert line.startswith("provider auto-detection: hostname selected; skipped env (MPITASKMAP_PROVIDER not set), "
                           "file (MPITASKMAP_COORDS_FILE not set), rca (/nonexistent/nid not found (not a Cray XE/XK "
                           "compute node)), bgq (")
    monkeypatch.setenv("MPITASKMAP_LOG", "info")  # what a user sets: rank 0 logs the same line during remap()
    capsys.readouterr()
    mt.remap(MPI.COMM_SELF, (0.0,)).Free()
    err = capsys.readouterr().err
    assert "[mpitaskmap 0] INFO: provider auto-detection: hostname selected; skipped env (MPITASKMAP_PROVIDER " in err


def test_one_node_report_says_nothing_to_map():
    from mpi4py import MPI

    new, rep = mt.remap(MPI.COMM_SELF, (0.0, 0.0), provider="sim:titan:ppn=16,seed=1", report=True)
    new.Free()
    assert rep.status == "identity" and rep.before == rep.after == 0.0
    assert rep.nothing_to_map == "the 1 rank runs on one node (no network between them); the default order is kept"
    summary = rep.summary().splitlines()
    assert summary[2] == "  nothing to map: the 1 rank runs on one node (no network between them); the default order is kept"
    assert not any("default 0 -> 0" in line for line in summary)
    # several nodes (a network): the usual line, test_remap_optimises_total_hops_under_mpi


def test_plot_honours_the_extension_or_refuses_it(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    jpg = tmp_path / "l.jpg"
    pytest.importorskip("PIL")  # matplotlib writes JPEG through Pillow
    status, _, _ = run(capsys, "plot", "-m", SIM, "-t", TASKS, "--kind", "links", "-o", str(jpg), "-q")
    assert status == 0 and jpg.read_bytes()[:3] == b"\xff\xd8\xff" and not (tmp_path / "l.jpg.png").exists()
    status, _, _ = run(capsys, "plot", "-m", SIM, "-t", TASKS, "--kind", "hops", "--kind", "links",
                       "-o", str(tmp_path / "figs.svg"), "-q")
    assert status == 0 and (tmp_path / "figs_links.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "figs_hops.svg").exists()
    status, _, err = run(capsys, "plot", "-m", SIM, "-t", TASKS, "-o", str(tmp_path / "l.xyz"), "-q")
    assert status == 1 and err.startswith(f"mpitaskmap plot: error: -o: matplotlib writes no '.xyz' files; got "
                                          f"'{tmp_path / 'l.xyz'}'; use one of ")
    assert ".pdf" in err and ".svg" in err and err.endswith(" (or no extension: PNG)\n")


def test_best_of_prints_short():
    g, m = TaskGraph.stencil([8, 8, 8]), mt.titan_machine(32, cores_per_node=16, seed=1)
    res = mt.best_of(g, m, mt.candidate_list(g, m, families=["geometric", "graph"], include_identity=True),
                     metric="latency")
    text = repr(res)
    assert str(res) == text and len(text) < 200 and "\n" not in text
    assert text.startswith(f"BestOf(winner #{res.index} {res.candidates[res.index].label()!r}, "
                           f"score {res.score:.6g}, {len(res.candidates)} candidates, 0 not applicable, ")


# -- items 7 and 8: tables explain themselves ---------------------------------------------------
def test_every_text_table_ends_with_its_legend_unless_quiet_or_csv_json(capsys, tmp_path):
    status, out, _ = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "identity,geometric")
    lines = out.splitlines()
    assert status == 0 and len(lines) == 4 and lines[3].startswith("legend: TH: hops of all messages (sum); ")
    assert lines[3].endswith("; seconds: wall s the method took to compute the mapping (-: read from a file); lower "
                             "is better")
    for extra in (["-q"], ["--format", "csv"], ["--format", "json"]):
        _, out, _ = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "identity,geometric", *extra)
        assert "legend" not in out
    _, out, _ = run(capsys, "eval", "-m", SIM, "-t", TASKS, "--by-class")
    assert out.splitlines()[2].startswith("legend: TH: ") and out.rstrip().splitlines()[-1].startswith(
        "legend: link: the link class (X+, X-, ... on a torus); max data: most weight through one link of the class")


def test_seconds_are_never_blank_beside_a_time(capsys, tmp_path):
    order = tmp_path / "order.csv"
    run(capsys, "map", "-m", SIM, "-t", TASKS, "-o", str(order), "-q")
    _, out, _ = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "identity", "--mapping", str(order), "-q")
    head, ident, read = (line.split() for line in out.splitlines())
    assert head[-1] == "seconds" and float(ident[-1]) >= 0 and read[0] == "order.csv" and read[-1] == "-"


def test_help_of_every_table_command_explains_its_columns(capsys):
    for command, present, absent in (("eval", ["PredTime", "Latency(M)"], ["seconds  ", "SimGrid s"]),
                                     ("map", ["PredTime", "seconds"], ["SimGrid s"]),
                                     ("compare", ["PredTime", "seconds", "SimGrid s"], [])):
        status, text, _ = run(capsys, command, "--help")
        assert status == 0
        for header in present:
            assert f"\n  {header} " in text, (command, header)
        for header in absent:
            assert f"\n  {header} " not in text, (command, header)
        assert "  PredTime    predicted s of one exchange step (the objective's formula)\n" in text


def test_html_report_has_the_same_legend(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    page = tmp_path / "r.html"
    status, out, _ = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "identity,geometric", "--html",
                         str(page))
    assert status == 0
    html = page.read_text()
    assert ('<p class="legend">Legend: <b>TH</b>: hops of all messages (sum); <b>AvgHops</b>: hops per message; '
            in html)
    assert "<b>PredTime</b>: predicted s of one exchange step (the objective&#x27;s formula)" in html


def test_compare_html_without_matplotlib_prints_the_table_and_names_the_extra(capsys, tmp_path, monkeypatch):
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
    page = tmp_path / "r.html"
    status, out, err = run(capsys, "compare", "-m", SIM, "-t", TASKS, "--methods", "identity,geometric", "--html",
                           str(page), "-q")
    assert status == 0 and out.splitlines()[0].split()[:3] == ["method", "TH", "AvgHops"] and len(out.splitlines()) == 3
    assert err == (f"mpitaskmap compare: wrote {page} without figures: matplotlib is missing; install the plot extra: "
                   "pip install \"mpitaskmap[plot]\"\n")
    html = page.read_text()
    assert "<td>geometric</td>" in html and "<img" not in html and "No figures: matplotlib is missing" in html
    assert os.path.getsize(page) > 0


def test_the_simgrid_table_ends_with_its_legend():
    from mpitaskmap.cli._common import metric_rows
    from mpitaskmap.cli.smpi import SmpiRun, results_table

    g, m = TaskGraph.stencil([4, 2]), torus_machine([4, 2])
    rows = metric_rows([("identity", identity_mapping(g, m), 0.0)], ["average_hops", "weighted_hops"])
    runs = {"identity": SmpiRun("identity", "identity.hostfile", simulated=2.5e-6, figure=2.0e-6)}
    lines = results_table(rows, runs, "identity", figure=True).splitlines()
    assert lines[0].split() == ["method", "AvgHops", "WH", "SimGrid", "s", "vs", "identity", "app", "vs", "identity"]
    assert lines[2] == ("legend: AvgHops: hops per message; WH: hops x weight, summed (hop-bytes); SimGrid s: SimGrid's "
                        "simulated end time of the app's run (s); vs identity: change from the identity row; app: the "
                        "app's own figure, read from its output (or --time-file) by --time-regex; lower is better")
    assert len(results_table(rows, runs, "identity", figure=True, with_legend=False).splitlines()) == 2
