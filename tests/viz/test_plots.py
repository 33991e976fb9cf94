"""Plots and the HTML report: PNG files of the expected size whose bars and points carry
the library's values, the `plot` subcommand, and a self-contained HTML page."""

import base64
import re
import struct
import subprocess
import sys

import numpy as np
import pytest

from mpitaskmap import TaskGraph, identity_mapping, map_geometric
from mpitaskmap.cli import main
from mpitaskmap.errors import InvalidInputError
from mpitaskmap.machines import FlatMachine
from mpitaskmap.metrics import edge_hops, link_loads
from mpitaskmap.viz.report_html import html_report, write_html_report
from mpitaskmap.machines.torus.presets import titan_machine

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path_or_bytes):
    data = path_or_bytes if isinstance(path_or_bytes, bytes) else open(path_or_bytes, "rb").read()
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def pair():
    machine = titan_machine(8, cores_per_node=4, seed=1)
    graph = TaskGraph.stencil([4, 4, 2])
    return {"default": identity_mapping(graph, machine), "geometric": map_geometric(graph, machine)}


def test_import_does_not_load_matplotlib():
    code = "import mpitaskmap.viz.plots, mpitaskmap.viz.report_html, mpitaskmap.cli, sys; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_missing_matplotlib_names_the_plot_extra(monkeypatch, pair):
    from mpitaskmap.viz import plots

    for name in [n for n in sys.modules if n == "matplotlib" or n.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"install the 'plot' extra: pip install \"mpitaskmap\[plot\]\""):
        plots.plot_hop_histogram(pair)


def test_link_load_bars_are_the_per_class_maxima(tmp_path, pair):
    pytest.importorskip("matplotlib")
    from mpitaskmap.viz.plots import plot_link_loads

    path = tmp_path / "links.png"
    fig = plot_link_loads(pair, path)
    w, h = fig.get_size_inches() * fig.dpi
    assert png_size(path) == (round(w), round(h)) and path.stat().st_size > 10000
    data_ax, lat_ax = fig.axes
    assert [t.get_text() for t in data_ax.get_xticklabels()] == ["X+", "X-", "Y+", "Y-", "Z+", "Z-"]
    for k, (label, m) in enumerate(pair.items()):
        rec = link_loads(m.graph, m.machine, m.task_to_proc).by_class()
        bars = data_ax.containers[k]
        assert [b.get_height() for b in bars] == [r["max_data"] for r in rec]
        assert [b.get_height() for b in lat_ax.containers[k]] == pytest.approx([r["max_latency"] for r in rec])
        assert data_ax.get_legend().get_texts()[k].get_text().startswith(label)
    assert "Data" in data_ax.get_title() and "bandwidth" in lat_ax.get_title()
    assert "per GB/s" in lat_ax.get_ylabel() and data_ax.get_xlabel() == "link class"


def test_hop_histogram_shares(tmp_path, pair):
    pytest.importorskip("matplotlib")
    from mpitaskmap.viz.plots import plot_hop_histogram

    fig = plot_hop_histogram(pair, tmp_path / "hops.png")
    ax = fig.axes[0]
    for k, m in enumerate(pair.values()):
        h = edge_hops(m.graph, m.machine, m.task_to_proc)
        heights = [b.get_height() for b in ax.containers[k]]
        share = 100 * np.bincount(h, minlength=len(heights)) / h.size
        assert heights == pytest.approx(share.tolist())
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    mean = edge_hops(pair["geometric"].graph, pair["geometric"].machine, pair["geometric"].task_to_proc).mean()
    assert legend[1] == f"geometric (mean {mean:.3g} hops)"
    assert ax.get_ylabel() == "% of messages" and png_size(tmp_path / "hops.png")[0] > 500


def test_allocation_draws_every_task_at_its_router(tmp_path, pair):
    pytest.importorskip("matplotlib")
    from mpitaskmap.viz.plots import plot_allocation, task_parts

    fig = plot_allocation(pair, tmp_path / "alloc.png")
    assert len(fig.axes) == 2 and png_size(tmp_path / "alloc.png") == (round(fig.get_size_inches()[0] * 100), 600)
    m = pair["geometric"]
    ax = fig.axes[1]
    tasks = ax.collections[-1]  # idle processors first, then one point per task
    xyz = np.column_stack(tasks._offsets3d)
    assert xyz.shape == (m.n_tasks, 3)
    router = m.machine.router_coords[m.task_to_proc]
    assert np.all(np.abs(xyz - router) < 0.5)  # each task drawn inside its router's cell
    parts, names = task_parts(m)
    assert len(names) == 8 and np.bincount(parts).tolist() == [4] * 8
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend[:2] == ["x<2 y<2 z<1", "x>=2 y<2 z<1"] and legend[-1] == "allocated, idle"
    assert "geometric" in ax.get_title() and "average hops" in ax.get_title()
    fig = plot_allocation(pair["default"], color_by="z")
    assert fig.axes[-1].get_ylabel() == "task z coordinate"  # the colour bar
    with pytest.raises(InvalidInputError, match="needs router coordinates"):
        flat = FlatMachine(np.repeat(np.arange(8), 4))
        plot_allocation(identity_mapping(pair["default"].graph, flat))
    with pytest.raises(InvalidInputError, match="color_by: unknown 'w'"):
        plot_allocation(pair, color_by="w")


def test_plot_subcommand_writes_the_three_pngs(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    prefix = tmp_path / "figs" / "small"
    status = main(["plot", "-m", "sim:titan:nodes=8,ppn=4,seed=1", "-t", "stencil3d:4x4x2", "-o", str(prefix),
                   "--dpi", "50"])
    _, err = capsys.readouterr()
    assert status == 0
    for kind in ("allocation", "links", "hops"):
        path = tmp_path / "figs" / f"small_{kind}.png"
        assert f"wrote {path} ({kind}: identity, geometric)" in err
        w, h = png_size(path)
        assert path.stat().st_size > 3000 and 250 < w < 1000 and 150 < h < 400  # dpi 50
    one = tmp_path / "one.png"
    status = main(["plot", "-m", "sim:torus:dims=4x4", "-t", "stencil2d:4x4", "--kind", "hops", "-o", str(one), "-q",
                   "--methods", "identity,geometric,greedy"])
    assert status == 0 and png_size(one) == (700, 420)


def test_html_report_is_self_contained_and_escaped(tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from mpitaskmap.viz.plots import figure_png

    fig = Figure(figsize=(2, 1), dpi=50)
    fig.add_subplot().plot([0, 1], [1, 0])
    png = figure_png(fig)
    assert png_size(png) == (100, 50)
    page = tmp_path / "r.html"
    write_html_report(page, "A <b> test", ["method", "WH"], [["default", 1536.0], ["geo & co", 2]],
                      images=[("links", png)], meta={"machine": "torus 4x4"}, highlight=1, notes=["lower is better"])
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<title>A &lt;b&gt; test</title>" in text
    assert '<tr class="best"><td>geo &amp; co</td><td class="num">2</td></tr>' in text
    assert '<td class="num">1,536</td>' in text and "<td>torus 4x4</td>" in text and "<p>lower is better</p>" in text
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert [base64.b64decode(d) for d in images] == [png]
    assert "<figcaption>links</figcaption>" in text
    with pytest.raises(InvalidInputError, match="is not PNG data"):
        html_report("t", ["a"], [[1]], images=[("x", b"GIF89a")])
    with pytest.raises(InvalidInputError, match="row 0 has 2 cells, the header 1"):
        html_report("t", ["a"], [[1, 2]])


def test_percs_link_classes_plot(tmp_path):
    pytest.importorskip("matplotlib")
    from mpitaskmap.machines.percs import PercsMachine
    from mpitaskmap.viz.plots import plot_link_loads

    graph = TaskGraph.stencil([16, 16])
    mapping = identity_mapping(graph, PercsMachine(2, 1))
    fig = plot_link_loads(mapping, tmp_path / "p.png")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["LL", "LR", "D"]
    rec = link_loads(graph, mapping.machine, mapping.task_to_proc).by_class()
    assert [b.get_height() for b in fig.axes[0].containers[0]] == [r["max_data"] for r in rec]
    assert [r["link"] for r in rec] == ["LL", "LR", "D"] and min(r["max_data"] for r in rec) > 0


def test_plot_subcommand_draws_the_kinds_that_apply_to_the_machine(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    # PERCS has links but no router grid: by default the link plot and the hop histogram
    prefix = tmp_path / "percs"
    status = main(["plot", "-m", "percs:ns=2,nd=1", "-t", "stencil2d:16x16", "--methods", "identity", "-o",
                   str(prefix), "--dpi", "40"])
    _, err = capsys.readouterr()
    assert status == 0 and "allocation" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["percs_hops.png", "percs_links.png"]
    # asked for, the allocation plot says why it does not apply
    status = main(["plot", "-m", "percs:ns=2,nd=1", "-t", "stencil2d:16x16", "--methods", "identity", "--kind",
                   "allocation", "-o", str(tmp_path / "a.png")])
    _, err = capsys.readouterr()
    assert status == 1 and "needs router coordinates" in err
