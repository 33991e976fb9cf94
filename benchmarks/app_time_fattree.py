"""Application time on fat-tree clusters under SimGrid SMPI: halo3d on scattered allocations, per mapping.

``examples/halo3d.c`` (the MiniGhost-like 3-D halo exchange of ``app_time_smpi.py``) runs
under ``smpirun`` on SimGrid's own ``FAT_TREE`` cluster (d-mod-k routes, the ones
:class:`~mpitaskmap.machines.FatTreeMachine` models link for link) for scattered allocations
of a 2-level tree (``sim:fattree``: leaves of 16 nodes, 12.5 GB/s links, leaf up-links
tapered 2:1 or 4:1; nodes drawn at random over the whole tree as on a busy cluster; ranks in
Slurm's block order), once per mapping, communication only.  Per (taper, ranks, ranks per
node, allocation seed) the table gives the model metrics of every mapping and ``comm s``,
halo3d's own maximum communication time (simulated), with its change against identity.

Mappings:

* ``identity``: Slurm's order (rank r on the r // ppn-th node of the sorted node list);
* ``node packing``: what an Open MPI user gets at best from ``MPI_Dist_graph_create_adjacent``
  with ``reorder=1`` (treematch sees inside nodes only): the task graph partitioned onto nodes
  with the network flat (every node one hop from every other:
  :class:`~mpitaskmap.machines.FlatMachine`, greedy graph mapping with refinement), nodes in
  Slurm's order;
* ``auto``: the library's default search on the fat tree (``mpitaskmap.map(..., "auto")``);
* ``scotch tleaf``: Scotch's static mapping onto a ``tleaf`` target restricted to the
  allocated processors (``benchmarks/peers/scotch.py``);
* ``kahip``: KaHIP's process mapping with the tree as hierarchy and distance strings
  (``benchmarks/peers/kahip.py``, ``pip install kahip``).

The peers are skipped with one printed reason when not installed.  Then, as in
``app_time_smpi.py``, every distinct mapping ``auto`` generated is simulated (all of them up
to 512 ranks, the best by the objective plus each metric's pick above), and the verdicts of
issue 30: ``auto`` at least 30% below identity on every 4:1 case, at or below every peer on
every case, within 2% of the fastest candidate it generated.

**A description that is not the simulator's** (``--described topology``, issue 43): SimGrid's
``FAT_TREE`` tree has ``--nodes-per-leaf`` nodes a leaf and as many parallel up-links to as many
spines as the taper leaves (16 nodes at 4:1: 4 spines; 8 at 2:1: 4; 8 at 4:1: 2), routed d-mod-k on
its host numbers; the library gets what a Slurm user has: a ``topology.conf`` that lists the
leaves and one spine (Slurm's tree plugin needs no more), the node list and ``ppn``, ``taper``,
and the spine count when the spec says it (:func:`topology_rows`).  Rows: ``identity``, ``node
packing``, ``geometric``, ``greedy+uwh``, ``auto`` (``spines=K``: the routing then ``unknown``),
``auto 1 spine`` (topology.conf and taper only: every leaf one up-link of the tapered capacity,
the model before issue 43), ``auto dmodk`` (``spines=K,routing=dmodk``: d-mod-k on the hosts in
name order, SimGrid's numbering), ``auto ibnet`` (an ``ibnetdiscover`` dump of the same tree,
:func:`ibnetdiscover_dump`: speeds, taper, spines and the hosts' numbering, leaf by leaf and port
by port, from its cabling), and the peers on the ``auto`` machine.  Verdicts: ``auto`` at
or below ``node packing``, ``geometric`` and ``greedy+uwh`` on every case, at least 30% below
identity at 4:1, at or below every peer.  ``--cabling shuffled``: the hosts are not cabled to their
leaf's ports in name order (within every leaf the library's host names are a seeded permutation of
SimGrid's, so the name order ``topology.conf`` lists is not the port order d-mod-k follows, while the
``ibnetdiscover`` dump, read from the cabling, still names every port's host): what ``routing=unknown``
and a wrong ``routing=dmodk`` cost when the likeliest numbering is not the network's.

Run:  python -m benchmarks.app_time_fattree [--cases 512:8,512:16,4096:8,4096:16] [--tapers 2,4]
      [--seeds 1,2] [--methods ...] [--top-candidates 8] [--json PATH] [--keep DIR]
      [--described sim|topology] [--nodes-per-leaf 16] [--cabling names|shuffled]
A 512-rank run takes 1-6 wall seconds here, a 4096-rank run 1-2 minutes (8-9 for a random order).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

import numpy as np

import mpitaskmap
from mpitaskmap.graphs.taskgraph import TaskGraph
from mpitaskmap.machines import machine_from_spec
from mpitaskmap.machines.fattree.slurm_topology import read_topology_spec
from mpitaskmap.mapping import IDENTITY
from mpitaskmap.sim.simgrid import simgrid_missing

from benchmarks.harness.candidates import (WITHIN, candidate_columns, candidates_verdict, gap_percent,
                                           print_candidates as print_candidates_table, simulate_candidates)
from benchmarks.harness.cases import group_by, run_cases
from benchmarks.harness.output import read_json
from benchmarks.harness.platforms import HOSTS, LEAVES, NODES_PER_LEAF, node_packing
from benchmarks.harness.platforms import fattree_spec as spec
from benchmarks.harness.smpi import (GRIDS, add_app_arguments, app_case, build_halo3d, method_columns, parse_cases,
                                     parse_ints, run_methods)
from benchmarks.harness.tables import Column, print_columns
from benchmarks.peers import kahip, scotch

AUTO = "auto"
NODE_PACKING = "node packing"
SCOTCH = "scotch tleaf"
KAHIP = "kahip"
METHODS = (IDENTITY, NODE_PACKING, AUTO, SCOTCH, KAHIP)
PEERS = (NODE_PACKING, SCOTCH, KAHIP)
GEOMETRIC = "geometric"
GREEDY = "greedy+uwh"
AUTO_ONE_SPINE = "auto 1 spine"
AUTO_DMODK = "auto dmodk"
AUTO_IBNET = "auto ibnet"
#: The rows of a ``--described topology`` case (the library told only what topology.conf and the spec say).
TOPOLOGY_METHODS = (IDENTITY, NODE_PACKING, GEOMETRIC, GREEDY, AUTO, AUTO_ONE_SPINE, AUTO_DMODK, AUTO_IBNET, SCOTCH,
                    KAHIP)
#: What ``auto`` must be at or below on a ``--described topology`` case (issue 43), beside the peers.
TOPOLOGY_BASELINES = (NODE_PACKING, GEOMETRIC, GREEDY)
#: ``--described``: the library sees the simulated tree exactly, or a Slurm topology.conf of it.
DESCRIPTIONS = ("sim", "topology")
#: ``--cabling``: the hosts cabled to their leaf's ports in name order (SimGrid's numbering), or not.
CABLINGS = ("names", "shuffled")
#: How a verdict line names a cabling.
CABLING_TEXT = {"names": "hosts cabled in name order", "shuffled": "hosts not cabled in name order"}
#: "at least 30% below identity on every 4:1 case".
TARGET_BELOW = 0.30


def peer_missing(method: str) -> str:
    """Why a peer row cannot run ("" when it can)."""
    if method == SCOTCH and not scotch.scotch_available():
        return "scotch tleaf skipped: libscotch not found (bash benchmarks/peers/install_peers.sh)"
    if method == KAHIP and not kahip.kahip_available():
        return "kahip skipped: KaHIP not installed (pip install kahip, or bash benchmarks/peers/install_peers.sh)"
    return ""


def map_row(method: str, graph: TaskGraph, machine) -> tuple[np.ndarray, dict]:
    """Task -> processor of one row and the library's ``Mapping.info`` ({} for the others)."""
    if method == IDENTITY:
        return np.arange(graph.n_tasks), {}
    if method == NODE_PACKING:
        return node_packing(graph, machine), {}
    if method == AUTO:
        mapping = mpitaskmap.map(graph, machine, "auto")
        return np.asarray(mapping.task_to_proc), mapping.info
    if method == SCOTCH:
        t2p, _ = scotch.map_scotch_tleaf(graph.indptr, graph.indices, graph.weights, machine, repair=True)
        return np.asarray(t2p, dtype=np.int64), {}
    if method == KAHIP:
        t2p, _ = kahip.map_kahip_tree(graph.indptr, graph.indices, graph.weights, machine, repair=True)
        return np.asarray(t2p, dtype=np.int64), {}
    raise SystemExit(f"--methods: unknown {method!r}; valid: {', '.join(METHODS)}")


def topology_conf(leaves: int, nodes_per_leaf: int) -> str:
    """A ``topology.conf`` of a 2-level tree as a Slurm administrator writes it: the leaves, one spine above.

    Examples
    --------
    >>> print(topology_conf(2, 4), end="")
    SwitchName=l0 Nodes=n[0-3]
    SwitchName=l1 Nodes=n[4-7]
    SwitchName=spine Switches=l[0-1]
    """
    prefix = HOSTS.split("%d")[0]
    lines = [f"SwitchName=l{k} Nodes={prefix}[{k * nodes_per_leaf}-{(k + 1) * nodes_per_leaf - 1}]"
             for k in range(leaves)]
    return "\n".join(lines + [f"SwitchName=spine Switches=l[0-{leaves - 1}]"]) + "\n"


def ibnetdiscover_dump(leaves: int, nodes_per_leaf: int, spines: int, speed: str = "4xEDR",
                       names: Sequence[str] | None = None) -> str:
    """``ibnetdiscover``'s topology file of a 2-level tree: every leaf cabled to its hosts and once to every spine.

    Hosts ``n0 ..`` (CA description ``nK HCA-1``; ``names[v]`` in place of ``nv`` when given) leaf by leaf, host
    ``v`` on port ``v % nodes_per_leaf + 1`` of its leaf; switches ``leafK`` and ``spineJ``; every link ``speed``.
    What an InfiniBand administrator would save for the tree SimGrid simulates.

    Examples
    --------
    >>> lines = [line.replace(chr(9), " ") for line in ibnetdiscover_dump(2, 2, 1).splitlines()]
    >>> print(lines[0]); print(lines[1])
    Switch 3 "S-0000000000001000"  # "leaf0" enhanced port 0 lid 1 lmc 0
    [1] "H-0000000000000000"[1](0000000000000001)  # "n0 HCA-1" lid 100 4xEDR
    """
    def sw(k: int) -> str:
        return f"S-{0x1000 + k:016x}"

    def ca(v: int) -> str:
        return f"H-{2 * v:016x}"

    def host(v: int) -> str:
        return f"n{v}" if names is None else names[v]

    out = []
    for k in range(leaves):
        out.append(f'Switch\t{nodes_per_leaf + spines} "{sw(k)}"\t\t# "leaf{k}" enhanced port 0 lid {1 + k} lmc 0')
        for p in range(nodes_per_leaf):
            v = k * nodes_per_leaf + p
            out.append(f'[{p + 1}]\t"{ca(v)}"[1]({2 * v + 1:016x})\t\t# "{host(v)} HCA-1" lid {100 + v} {speed}')
        for j in range(spines):
            out.append(f'[{nodes_per_leaf + j + 1}]\t"{sw(leaves + j)}"[{k + 1}]\t\t# "spine{j}" lid '
                       f'{1 + leaves + j} {speed}')
        out.append("")
    for j in range(spines):
        out.append(f'Switch\t{leaves} "{sw(leaves + j)}"\t\t# "spine{j}" enhanced port 0 lid {1 + leaves + j} lmc 0')
        for k in range(leaves):
            out.append(f'[{k + 1}]\t"{sw(k)}"[{nodes_per_leaf + j + 1}]\t\t# "leaf{k}" lid {1 + k} {speed}')
        out.append("")
    for v in range(leaves * nodes_per_leaf):
        k = v // nodes_per_leaf
        out.append(f'Ca\t1 "{ca(v)}"\t\t# "{host(v)} HCA-1"')
        out.append(f'[1]({2 * v + 1:016x})\t"{sw(k)}"[{v % nodes_per_leaf + 1}]\t\t# lid {100 + v} lmc 0 "leaf{k}" '
                   f'lid {1 + k} {speed}')
        out.append("")
    return "\n".join(out)


def shuffled_names(leaves: int, nodes_per_leaf: int, seed: int) -> list[str]:
    """The library's name of every SimGrid host when the hosts are not cabled in name order (``--cabling shuffled``):
    within every leaf a seeded permutation of the leaf's names, so the names stay the leaf's and their order is
    not the ports'.

    Examples
    --------
    >>> names = shuffled_names(2, 4, 1)
    >>> sorted(names[:4]) == ["n0", "n1", "n2", "n3"] and sorted(names[4:]) == ["n4", "n5", "n6", "n7"]
    True
    >>> names != [f"n{v}" for v in range(8)]
    True
    """
    rng = np.random.default_rng([43, seed])
    return [HOSTS % int(k * nodes_per_leaf + p) for k in range(leaves) for p in rng.permutation(nodes_per_leaf)]


def topology_machines(truth, conf: str, ppn: int, taper: int, spines: int, ibnet: str | None = None,
                      names: Sequence[str] | None = None) -> dict:
    """The library's machines of a ``--described topology`` case, by row: the job's nodes as a node list in rank
    order on ``conf`` (SimGrid's host ``v`` named ``names[v]``, default its own name), with ``taper`` and (but for
    ``auto 1 spine``) ``spines``."""
    nodes = np.asarray(truth.node_ids)[::ppn]
    nodelist = ",".join(HOSTS % int(v) if names is None else names[int(v)] for v in nodes)
    base = f"{conf}:{nodelist}:ppn={ppn},taper={taper}"
    machines = {AUTO: read_topology_spec(f"{base},spines={spines}").machine(),
                AUTO_ONE_SPINE: read_topology_spec(base).machine(),
                AUTO_DMODK: read_topology_spec(f"{base},spines={spines},routing=dmodk").machine()}
    if ibnet is not None:  # the fabric's own cabling: bw, taper and spines from the dump, ppn from the job
        machines[AUTO_IBNET] = read_topology_spec(f"{ibnet}:{nodelist}:ppn={ppn}").machine()
    return machines


def topology_row(method: str, graph: TaskGraph, machines: dict) -> tuple[np.ndarray, dict]:
    """Task -> processor of one row of a ``--described topology`` case (every mapping on the library's machines)."""
    if method in (AUTO, AUTO_ONE_SPINE, AUTO_DMODK, AUTO_IBNET):
        mapping = mpitaskmap.map(graph, machines[method], "auto")
        return np.asarray(mapping.task_to_proc), mapping.info
    if method in (GEOMETRIC, GREEDY):
        return np.asarray(mpitaskmap.map(graph, machines[AUTO], method).task_to_proc), {}
    return map_row(method, graph, machines[AUTO])


def run_topology_case(n: int, ppn: int, seed: int, taper: int, args, app: str, work: str) -> tuple[list[dict], None]:
    """One ``--described topology`` case: SimGrid's tree with its spines, the library's topology.conf view."""
    npl = args.nodes_per_leaf
    if npl % taper:
        raise SystemExit(f"--tapers: {taper} does not divide --nodes-per-leaf {npl}")
    spines, nodes = npl // taper, n // ppn
    leaves = max(2, 2 * nodes // npl)  # twice the job's nodes: scattered allocations
    truth = machine_from_spec(f"sim:fattree:leaves={leaves},nodes_per_leaf={npl},taper={taper},levels=2,"
                              f"nodes={nodes},ppn={ppn},seed={seed}", n).machine
    conf = os.path.join(work, f"topology_l{leaves}_npl{npl}.conf")
    with open(conf, "w", encoding="utf-8") as fh:
        fh.write(topology_conf(leaves, npl))
    names = shuffled_names(leaves, npl, seed) if args.cabling == "shuffled" else None
    ibnet = os.path.join(work, f"ibnetdiscover_l{leaves}_npl{npl}_s{spines}_{args.cabling}{seed}.txt")
    with open(ibnet, "w", encoding="utf-8") as fh:
        fh.write(ibnetdiscover_dump(leaves, npl, spines, names=names))
    machines = topology_machines(truth, conf, ppn, taper, spines, ibnet, names)
    key = {"taper": taper, "n": n, "ppn": ppn, "seed": seed, "spines": spines, "cabling": args.cabling}
    case = app_case(f"topo_{args.cabling}_t{taper}_s{spines}_n{n}_ppn{ppn}_seed{seed}", key, GRIDS[n], truth, HOSTS,
                    args, app, work, form="cluster")
    rows = run_methods(case, args.methods, lambda method, c: topology_row(method, c.graph, machines),
                       extra=lambda method, info: {"label": info.get("candidate") if method.startswith(AUTO)
                                                   else None})
    return rows, None


def run_case(n: int, ppn: int, seed: int, taper: int, args, app: str, work: str) -> tuple[list[dict], dict | None]:
    """Map and run every method of one case; return its rows and its candidate summary."""
    machine = machine_from_spec(spec(n, ppn, seed, taper), n).machine
    case = app_case(f"t{taper}_n{n}_ppn{ppn}_seed{seed}", {"taper": taper, "n": n, "ppn": ppn, "seed": seed},
                    GRIDS[n], machine, HOSTS, args, app, work, form="cluster")
    auto: dict = {}

    def on_mapped(method: str, t2p: np.ndarray, info: dict) -> None:
        if method == AUTO:
            auto.update(info=info, t2p=t2p)

    rows = run_methods(case, args.methods, lambda method, c: map_row(method, c.graph, c.machine), on_mapped=on_mapped,
                       extra=lambda method, info: {"label": info.get("label") if method == AUTO else None})
    cands = None
    if auto and (n <= args.all_candidates_up_to or args.top_candidates > 0):
        auto_row = next(r for r in rows if r["method"] == AUTO)
        top = None if n <= args.all_candidates_up_to else args.top_candidates
        cands = dict(taper=taper, ppn=ppn, seed=seed, **simulate_candidates(
            case.runs, case.graph, case.machine, auto["info"]["candidate_list"], auto_row, top=top,
            auto_t2p=auto["t2p"]))
    return rows, cands


CASE_KEYS = ("taper", "n", "ppn", "seed")
#: The case columns of both tables.
CASE_COLUMNS = [Column("taper", 5, lambda r: f"{r['taper']:>3}:1"), Column("ranks", 5, lambda r: r["n"]),
                Column("ppn", 3, lambda r: r["ppn"]), Column("seed", 4, lambda r: r["seed"])]
#: The per-method table (rows carry ``base``, the case's identity time).
COLUMNS = CASE_COLUMNS + method_columns(13, ('AvgHops', 'Latency(M)', 'PredTime', 'comm s', 'vs identity', 'map s'))


def print_table(rows: list[dict]) -> None:
    """The per-method table: metrics, simulated communication time and its change against identity."""
    groups = []
    for _, case in group_by(rows, CASE_KEYS):
        base = case.get(IDENTITY, {}).get("comm_s")
        groups.append([dict(r, base=base) for r in case.values()])
    print_columns(groups, COLUMNS, row_text=lambda r: None if r["metrics"] is not None else
                  f"{r['taper']:>3}:1 {r['n']:>5} {r['ppn']:>3} {r['seed']:>4}  {r['method']:<13} {r['error']}")


#: The per-method table of the ``--described topology`` cases (the spines after the taper).
TOPOLOGY_COLUMNS = [Column("cabling", 8, lambda r: r["cabling"])] + CASE_COLUMNS[:1] + \
    [Column("spines", 6, lambda r: r["spines"])] + CASE_COLUMNS[1:] + \
    method_columns(13, ('AvgHops', 'PredTime', 'comm s', 'vs identity', 'map s'))
TOPOLOGY_KEYS = ("cabling", "taper", "spines", "n", "ppn", "seed")


def with_cabling(rows: list[dict]) -> list[dict]:
    """``--described topology`` rows with their ``cabling`` (runs before ``--cabling`` were all ``names``)."""
    return [r if "cabling" in r else dict(r, cabling=CABLINGS[0]) for r in rows]


def print_topology_table(rows: list[dict]) -> None:
    """The ``--described topology`` cases' table: our model's metrics of the true tree, SimGrid's time."""
    groups = []
    rows = with_cabling(rows)
    for _, case in group_by(rows, TOPOLOGY_KEYS):
        base = case.get(IDENTITY, {}).get("comm_s")
        groups.append([dict(r, base=base) for r in case.values()])
    print_columns(groups, TOPOLOGY_COLUMNS, row_text=lambda r: None if r["metrics"] is not None else
                  f"{r['cabling']:<8} {r['taper']:>3}:1 {r['spines']:>6} {r['n']:>5} {r['ppn']:>3} {r['seed']:>4}  {r['method']:<13} "
                  f"{r['error']}")


def print_topology_verdicts(rows: list[dict]) -> None:
    """Issue 43's fat-tree targets, one line per case: auto at or below node packing, geometric and greedy+uwh,
    at least 30% below identity at 4:1, at or below every peer; and how the other descriptions did."""
    print(f"issue 43 (topology.conf view of a tree with spines): auto <= {', '.join(TOPOLOGY_BASELINES)} and every "
          f"peer; auto >= {100 * TARGET_BELOW:.0f}% below identity at 4:1")
    for key, case in group_by(with_cabling(rows), TOPOLOGY_KEYS):
        times = {m: r["comm_s"] for m, r in case.items() if r["comm_s"] is not None}
        cabling, key = key[0], key[1:]
        name = f"{CABLING_TEXT[cabling]}: taper {key[0]}:1 spines {key[1]} ranks {key[2]} ppn {key[3]} seed {key[4]}"
        if AUTO not in times or IDENTITY not in times:
            print(f"  {name}: identity or auto did not run")
            continue
        below = 1 - times[AUTO] / times[IDENTITY]
        target = (("meets" if below >= TARGET_BELOW else "misses") + f" {100 * TARGET_BELOW:.0f}%") if key[0] == 4 \
            else f"no target at {key[0]}:1"
        others = [m for m in TOPOLOGY_BASELINES + (SCOTCH, KAHIP) if m in times]
        beaten = [m for m in others if times[AUTO] > times[m]]
        verdict = "yes" if not beaten else "no: " + ", ".join(
            f"{m} {gap_percent(times[AUTO], times[m]):+.1f}%" for m in beaten)
        extra = "; ".join(f"{m} {gap_percent(times[m], times[IDENTITY]):+.1f}% vs identity"
                          for m in (AUTO_ONE_SPINE, AUTO_DMODK, AUTO_IBNET) if m in times)
        if AUTO_IBNET in times:
            beaten_ib = [m for m in (SCOTCH, KAHIP) if m in times and times[AUTO_IBNET] > times[m]]
            extra += "; auto ibnet <= every peer: " + ("yes" if not beaten_ib else "no: " + ", ".join(
                f"{m} {gap_percent(times[AUTO_IBNET], times[m]):+.1f}%" for m in beaten_ib))
        print(f"  {name}: auto {100 * below:.1f}% below identity ({target}); auto <= {', '.join(others)}: {verdict}"
              + (f"; {extra}" if extra else ""))


def print_candidates(cands: list[dict]) -> None:
    """Per case: the distinct generated candidates simulated, the fastest, auto's gap to it."""
    print_candidates_table(cands, f"generated candidates of {AUTO!r} (both stages), one SMPI run per distinct rank "
                           "order simulated (all of them up to --all-candidates-up-to ranks, else the "
                           "--top-candidates best by the objective, each metric's pick and auto's own):",
                           CASE_COLUMNS + candidate_columns())


def print_verdicts(rows: list[dict], cands: list[dict]) -> None:
    """Issue 30's three targets, one line per case."""
    print(f"issue 30: auto >= {100 * TARGET_BELOW:.0f}% below identity on every 4:1 case; auto <= every peer; "
          f"auto within {100 * WITHIN:.0f}% of the fastest generated candidate")
    by_case = {(c["taper"], c["n"], c["ppn"], c["seed"]): c for c in cands}
    for key, case in group_by(rows, CASE_KEYS):
        auto, base = case.get(AUTO), case.get(IDENTITY)
        if auto is None or base is None or auto["comm_s"] is None or base["comm_s"] is None:
            print(f"  {key}: identity or auto did not run")
            continue
        below = 1 - auto["comm_s"] / base["comm_s"]
        target = (("meets" if below >= TARGET_BELOW else "misses") + f" {100 * TARGET_BELOW:.0f}%") if key[0] == 4 \
            else f"no target at {key[0]}:1"
        peers = {m: r for m, r in case.items() if m in PEERS and r["comm_s"] is not None}
        beaten = [m for m, r in peers.items() if auto["comm_s"] > r["comm_s"]]
        vs_peers = "n/a (no peer ran)" if not peers else "yes" if not beaten else "no: " + ", ".join(
            f"{m} {gap_percent(auto['comm_s'], peers[m]['comm_s']):+.1f}%" for m in beaten)
        print(f"  taper {key[0]}:1 ranks {key[1]} ppn {key[2]} seed {key[3]}: auto {100 * below:.1f}% below identity "
              f"({target}); auto <= every peer: {vs_peers}; within 2% of the fastest generated: "
              f"{candidates_verdict(by_case.get(key))}")


def main(argv=None) -> int:
    """Run the cases and print the tables; 1 when SimGrid is missing."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="512:8,512:16,4096:8,4096:16", help="RANKS:PPN,... (ranks in %s)" % sorted(LEAVES))
    ap.add_argument("--tapers", default="2,4", help="leaf up-link tapers (default 2,4: 2:1 and 4:1)")
    ap.add_argument("--seeds", default="1,2", help="allocation seeds (default 1,2)")
    ap.add_argument("--methods", help=f"comma list of {', '.join(METHODS)} (default all; under --described topology "
                                      f"of {', '.join(TOPOLOGY_METHODS)})")
    ap.add_argument("--all-candidates-up-to", type=int, default=512, metavar="RANKS",
                    help="simulate every distinct generated candidate up to this job size (default 512)")
    ap.add_argument("--top-candidates", type=int, default=4, metavar="K",
                    help="above it: the K best by the objective, each metric's pick and auto's own (default 4)")
    ap.add_argument("--described", choices=DESCRIPTIONS, default="sim",
                    help="what the library is told: the simulated tree exactly (sim, default) or a topology.conf "
                         "of it with one spine listed, the taper and the spine count (topology; issue 43)")
    ap.add_argument("--cabling", choices=CABLINGS, default=CABLINGS[0],
                    help="--described topology: the hosts cabled to their leaf's ports in name order (names, "
                         "default), or not (shuffled: the library's names permuted within every leaf)")
    ap.add_argument("--nodes-per-leaf", type=int, default=NODES_PER_LEAF,
                    help=f"--described topology: nodes a leaf (default {NODES_PER_LEAF}); spines = nodes / taper")
    add_app_arguments(ap)
    ap.add_argument("--report", metavar="JSON,JSON", help="print the tables of earlier runs' --json files (merged) "
                                                           "and run nothing")
    args = ap.parse_args(argv)
    if args.report:
        rows, cands = read_json(args.report.split(","), "candidates")
        sim_rows, topo_rows = [r for r in rows if "spines" not in r], [r for r in rows if "spines" in r]
        if sim_rows:
            print_table(sim_rows)
            print_candidates(cands)
            print_verdicts(sim_rows, cands)
        if topo_rows:
            print_topology_table(topo_rows)
            print_topology_verdicts(topo_rows)
        return 0
    missing = simgrid_missing()
    if missing:
        print(f"app_time_fattree: {missing}", file=sys.stderr)
        return 1
    topology = args.described == "topology"
    known = TOPOLOGY_METHODS if topology else METHODS
    args.methods = [m.strip() for m in (args.methods or ",".join(known)).split(",") if m.strip()]
    for method in list(args.methods):
        if method not in known:
            raise SystemExit(f"--methods: unknown {method!r}; valid: {', '.join(known)}")
        reason = peer_missing(method)
        if reason:
            print(reason)
            args.methods.remove(method)
    work, app = build_halo3d(args, "app_time_fattree_")
    print(f"SMPI, smpi/simulate-computation:no; SimGrid FAT_TREE cluster, 2 levels, {args.nodes_per_leaf} nodes per leaf, "
          "12.5 GB/s links, d-mod-k")
    cases = [(n, ppn, seed, taper) for taper in parse_ints(args.tapers) for n, ppn in parse_cases(args.cases)
             for seed in parse_ints(args.seeds)]
    if topology:
        rows, _ = run_cases(cases, lambda c: run_topology_case(*c, args, app, work), args.json, candidates=False)
        print_topology_table(rows)
        print_topology_verdicts(rows)
        return 0
    rows, cands = run_cases(cases, lambda c: run_case(*c, args, app, work), args.json)
    print_table(rows)
    print_candidates(cands)
    print_verdicts(rows, cands)
    return 0


if __name__ == "__main__":
    sys.exit(main())
