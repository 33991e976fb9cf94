"""Slurm's view of the network: host lists, ``topology.conf``, topology addresses, and the fat tree they give.

Slurm describes a cluster's switches in three forms, all read here (no MPI, no Slurm
needed):

* **Host lists** (``node[0400-0431,0500]``, ``rack[1-2]n[01-03]``, ``a1,b[2-3]``):
  :func:`expand_hostlist` and :func:`compress_hostlist`, with Slurm's rules: the digits of
  a range keep the width of its first number (``[08-10]`` gives ``08 09 10``), several
  bracket groups multiply (the last one varies fastest), text may follow the last ``]``,
  and commas or white space outside brackets separate the entries.
* **topology.conf** and the text of ``scontrol show topology`` (:func:`parse_topology_conf`):
  ``SwitchName=s12 Nodes=node[0400-0431]``, ``SwitchName=s0 Switches=s[10-17]``
  (topology/tree), or ``BlockName=b1 Nodes=node[1-32]`` with ``BlockSizes=32,128``
  (topology/block).  Keys are case-insensitive, ``#`` starts a comment, a line ending in
  ``\\`` continues on the next, values may be quoted, as Slurm's own parser reads them.
  ``scontrol show topology`` prints the same records with ``Level=``, and lists every node
  below an upper switch in its ``Nodes=`` (checked against its children); its
  ``AggregatedBlock=`` lines (the block plugin's allocation groups) are accepted and not
  modelled: at run time a task sees ``block.node`` only.
* **Topology addresses** (:func:`parse_topology_addr`): ``SLURM_TOPOLOGY_ADDR`` with its
  ``SLURM_TOPOLOGY_ADDR_PATTERN``, set in every task's environment: ``s0.s12.node0417`` with
  ``switch.switch.node`` (topology/tree: one component per switch level, top first),
  ``b3.node12`` with ``block.node``, ``pod1:1:2:0.node05`` with ``torus:x:y:z.node``
  (topology/torus3d), or just the node name with ``node`` (no topology).

**Levels** are Slurm's: a switch with nodes is level 0, a switch above others is one more
than its highest child.  A node's path (:func:`node_paths`) has, for every level from the
top down, the switches of that level above it -- exactly the components of its
``SLURM_TOPOLOGY_ADDR``.  A switch below several parents of one level (the spines of a
two-level fat tree) gives the set of them, written as a host list (``s[3-5]``), which the
machine models as one switch group.

**The machine** (:func:`fattree_from_node_paths`, :func:`fattree_from_topology`): a
:class:`~mpitaskmap.machines.fattree.FatTreeMachine` built from the switch paths of the
job's nodes (:meth:`~mpitaskmap.machines.fattree.FatTreeMachine.from_paths`): a node's link
has ``bandwidth`` GB/s, a switch's up-link the capacity of the job's links below it over
``taper`` (the job's share of a tapered tree; Slurm does not say how many other nodes hang
below a switch at run time, so the offline form models the same part of the tree as
``remap()`` does).  Tree nodes are numbered in the order of their paths (natural order of
the names), so nodes under one leaf switch are consecutive; ranks fill the nodes in the
order of the node list, ``ppn`` each (Slurm's block distribution).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

from ..._options import parse_choice, parse_float, parse_int, parse_options
from ...errors import InvalidInputError
from .fattree import FAT_TREE_ROUTINGS, FatTreeMachine
from .hostlist import compress_hostlist, expand_hostlist, natural_key
from .iblinkinfo import is_iblinkinfo, parse_iblinkinfo
from .ibnetdiscover import fabric_topology, is_ibnetdiscover, parse_ibnetdiscover

#: Characters a switch or block name may not hold (they separate host lists, addresses and records).
_NAME_FORBIDDEN = set("[],.") | set(" \t\n\r\"=")

__all__ = [
    "Switch", "SwitchTree", "parse_topology_conf",
    "node_paths", "TopologyAddress", "parse_topology_addr", "fattree_from_node_paths", "fattree_from_topology",
    "TOPOLOGY_KEYS", "TOPOLOGY_DEFAULTS", "TopologySpec", "is_topology_spec", "read_topology_spec", "host_numbers",
]

@dataclass(frozen=True)
class Switch:
    """One switch (topology/tree) or block (topology/block) and where its line is.

    Attributes
    ----------
    name : str
    line : int
        Line of its ``SwitchName=`` / ``BlockName=`` in the source.
    level : int
        Slurm's level: 0 for a switch with nodes (and for every block), else one more than
        its highest child switch.
    nodes : tuple of str
        Nodes directly below (a leaf switch or a block).
    switches : tuple of str
        Child switches.
    parents : tuple of str
        Switches that list this one in their ``Switches=``, in file order.
    link_speed : int or None
        ``LinkSpeed=`` as given (Slurm: arbitrary units, unused; so here too).
    """

    name: str
    line: int
    level: int = 0
    nodes: tuple = ()
    switches: tuple = ()
    parents: tuple = ()
    link_speed: int | None = None


class SwitchTree:
    """A parsed ``topology.conf`` or ``scontrol show topology`` text (:func:`parse_topology_conf`).

    Attributes
    ----------
    kind : {"tree", "block"}
        Which Slurm plugin the text is for.
    source : str
        Where the text came from (a path), as errors name it.
    switches : dict of str to Switch
        Every switch (or block), in the order of the text.
    leaf_of : dict of str to str
        The leaf switch (or block) of every node.
    levels : int
        Switch levels: the top level + 1 (1 for blocks).
    block_sizes : tuple of int
        ``BlockSizes=`` (blocks only; empty when not given).
    aggregated : tuple of str
        Names of the ``AggregatedBlock=`` lines of ``scontrol show topology`` (not modelled).
    """

    def __init__(self, kind: str, source: str, switches: dict, block_sizes: tuple = (), aggregated: tuple = ()) -> None:
        self.kind = kind
        self.source = source
        self.switches = dict(switches)
        self.block_sizes = tuple(block_sizes)
        self.aggregated = tuple(aggregated)
        self.leaf_of = {node: s.name for s in self.switches.values() for node in s.nodes}
        self.levels = 1 + max(s.level for s in self.switches.values())

    @property
    def nodes(self) -> tuple:
        """Every node of the topology, in the order of the text."""
        return tuple(self.leaf_of)

    @property
    def roots(self) -> tuple:
        """The switches no other switch lists (every block), in the order of the text.

        Slurm accepts several (``slurmctld`` warns "no switch can reach all nodes through
        its descendants"), but places no job across switches without a common parent
        (unless ``TopologyParam=TopoOptional``): :func:`node_paths` refuses such a job.
        """
        return tuple(s.name for s in self.switches.values() if not s.parents)

    def __repr__(self) -> str:
        return (f"SwitchTree(kind={self.kind!r}, source={self.source!r}, switches={len(self.switches)}, "
                f"nodes={len(self.leaf_of)}, levels={self.levels})")


class _Token(NamedTuple):
    key: str
    value: str
    line: int


#: Keys of every record, first key lower-case -> the keys allowed after it.
_RECORDS = {
    "switchname": ("linkspeed", "nodes", "switches", "level"),
    "blockname": ("nodes", "blockindex", "blocksize"),
    "aggregatedblock": ("nodes", "blockindex", "blocksize"),
    "blocksizes": (),
}
_SPELLING = {"switchname": "SwitchName", "blockname": "BlockName", "aggregatedblock": "AggregatedBlock",
             "blocksizes": "BlockSizes", "linkspeed": "LinkSpeed", "nodes": "Nodes", "switches": "Switches",
             "level": "Level", "blockindex": "BlockIndex", "blocksize": "BlockSize"}
_KEY_VALUE = re.compile(r'([A-Za-z0-9_.]+)[ \t]*=[ \t]*(?:"([^"]*)"|([^\s"]\S*))(?=\s|$)')


def _statements(text: str):
    """Yield ``(chars, line_of_char)`` of every statement: comments cut, continuations joined, escapes removed.

    As Slurm's parser: ``#`` after an even number of backslashes starts a comment; a line
    whose last non-blank characters are an odd number of backslashes continues on the next
    (the last backslash goes); a backslash keeps the character after it.
    """
    chars: list[str] = []
    lines: list[int] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        backslashes, cut = 0, len(raw)
        for i, c in enumerate(raw):
            if c == "#" and backslashes % 2 == 0:
                cut = i
                break
            backslashes = backslashes + 1 if c == "\\" else 0
        body = raw[:cut].rstrip()
        trailing = len(body) - len(body.rstrip("\\"))
        continued = trailing % 2 == 1
        if continued:
            body = body[:-1]
        chars.extend(body)
        lines.extend([lineno] * len(body))
        if continued:
            continue
        yield _unescape(chars, lines)
        chars, lines = [], []
    if chars:
        yield _unescape(chars, lines)


def _unescape(chars: list, lines: list) -> tuple[str, list]:
    out, out_lines, i = [], [], 0
    while i < len(chars):
        if chars[i] == "\\":
            i += 1
            if i == len(chars):
                break
        out.append(chars[i])
        out_lines.append(lines[i])
        i += 1
    return "".join(out), out_lines


def _tokens(text: str, lines: list, source: str) -> list[_Token]:
    out, at = [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return out
        m = _KEY_VALUE.match(text, at)
        if m is None:
            bad = text[at:].split()[0]
            raise InvalidInputError(f"{source}:{lines[at]}: expected Key=Value; got {bad!r}")
        value = m.group(2) if m.group(2) is not None else m.group(3)
        out.append(_Token(m.group(1), value, lines[at]))
        at = m.end()


def _check_name(token: _Token, source: str, what: str) -> str:
    name = token.value
    bad = sorted(set(name) & _NAME_FORBIDDEN)
    if not name or bad:
        why = ("'.' separates the components of Slurm's topology address" if "." in bad
               else f"it holds {''.join(bad)!r}" if bad else "it is empty")
        raise InvalidInputError(f"{source}:{token.line}: {what} {name!r} cannot name a switch: {why}")
    if len(name) > 64:
        raise InvalidInputError(f"{source}:{token.line}: {what} {name!r} is longer than 64 characters (Slurm's limit)")
    return name


def _host_values(token: _Token, source: str) -> list[str]:
    try:
        names = expand_hostlist(token.value)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{source}:{token.line}: {_SPELLING[token.key.lower()]}=: {exc}") from None
    seen: dict[str, int] = {}
    for k, name in enumerate(names):
        if name in seen:
            raise InvalidInputError(f"{source}:{token.line}: {_SPELLING[token.key.lower()]}= lists {name!r} twice "
                                    f"(entries {seen[name] + 1} and {k + 1})")
        seen[name] = k
    return names


def _count(token: _Token, source: str) -> int:
    if not token.value.isdigit() or not token.value.isascii():
        raise InvalidInputError(f"{source}:{token.line}: {_SPELLING[token.key.lower()]} must be an integer >= 0; "
                                f"got {token.value!r}")
    return int(token.value)


def parse_topology_conf(text: str, source: str = "topology.conf") -> SwitchTree:
    """Parse Slurm's ``topology.conf`` or the output of ``scontrol show topology``.

    Parameters
    ----------
    text : str
        The file's text (module notes: records, comments, continuations).
    source : str, optional
        Its name in errors (a path; default ``"topology.conf"``).

    Returns
    -------
    SwitchTree

    Raises
    ------
    InvalidInputError
        Starting with ``source:LINE:`` and naming the token at fault: a malformed token, an
        unknown key, a key given twice, a switch (block) defined twice, a switch with both
        ``Nodes=`` and ``Switches=`` in ``topology.conf``, a node under two leaf switches
        (blocks), a child switch that no line defines, switches that form a cycle, switches
        that share a child switch but not all of them (several parents are fine when they
        are parallel: the same children), a ``Level=`` or an upper switch's ``Nodes=`` that
        its children contradict, tree and
        block records in one text, bad ``BlockSizes=``; or ``source:`` when there is no
        record at all.

    Examples
    --------
    >>> tree = parse_topology_conf('''
    ... SwitchName=s10 Nodes=node[01-02]   # leaf switches
    ... SwitchName=s11 Nodes=node[03-04]
    ... SwitchName=s0 Switches=s[10-11] LinkSpeed=100
    ... ''')
    >>> tree.kind, tree.levels, tree.switches["s0"].switches, tree.leaf_of["node03"]
    ('tree', 2, ('s10', 's11'), 's11')
    >>> parse_topology_conf("SwitchName=s1 Nodes=a1 Nodez=a2", "t.conf")
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.InvalidInputError: t.conf:1: unknown key 'Nodez' in a SwitchName= line; valid: Level, LinkSpeed, Nodes, Switches
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"{source}: expected the text of a topology file; got {type(text).__name__}")
    records: list[tuple[str, _Token, dict]] = []
    for chars, lines in _statements(text):
        tokens = _tokens(chars, lines, source)
        if not tokens:
            continue
        head = tokens[0]
        kind = head.key.lower()
        if kind not in _RECORDS:
            raise InvalidInputError(
                f"{source}:{head.line}: unknown key {head.key!r}; a line starts with SwitchName=, BlockName= or "
                "BlockSizes= (or AggregatedBlock=, from scontrol show topology)")
        options: dict[str, _Token] = {}
        for tok in tokens[1:]:
            key = tok.key.lower()
            if key not in _RECORDS[kind]:
                valid = ", ".join(sorted(_SPELLING[k] for k in _RECORDS[kind])) or "none"
                raise InvalidInputError(f"{source}:{tok.line}: unknown key {tok.key!r} in a {_SPELLING[kind]}= line; "
                                        f"valid: {valid}")
            if key in options:
                raise InvalidInputError(f"{source}:{tok.line}: {_SPELLING[key]}= given twice in one line")
            options[key] = tok
        records.append((kind, head, options))
    if not records:
        raise InvalidInputError(f"{source}: no SwitchName= or BlockName= line")
    first = records[0][0] == "switchname"
    for kind, head, _ in records:
        if (kind == "switchname") != first:
            plugin = "topology/tree (SwitchName=)" if first else "topology/block (BlockName=, BlockSizes=)"
            raise InvalidInputError(f"{source}:{head.line}: {_SPELLING[kind]}= in a file for {plugin}: one topology "
                                    "describes switches or blocks, not both")
    return _tree(records, source) if first else _blocks(records, source)


def _tree(records: list, source: str) -> SwitchTree:
    defined: dict[str, int] = {}
    raw: dict[str, dict] = {}
    leaf_line: dict[str, tuple[str, int]] = {}
    for _, head, opts in records:
        name = _check_name(head, source, "SwitchName")
        if name in defined:
            raise InvalidInputError(f"{source}:{head.line}: switch {name!r} is already defined on line {defined[name]}")
        defined[name] = head.line
        scontrol = "level" in opts
        if "nodes" in opts and "switches" in opts and not scontrol:
            raise InvalidInputError(f"{source}:{head.line}: switch {name!r} has both Nodes= and Switches=; a switch "
                                    "has nodes or switches below it, not both (as Slurm requires)")
        children = _host_values(opts["switches"], source) if "switches" in opts else []
        nodes = _host_values(opts["nodes"], source) if "nodes" in opts else []
        if not children:
            for node in nodes:
                if node in leaf_line:
                    other, line = leaf_line[node]
                    raise InvalidInputError(f"{source}:{opts['nodes'].line}: node {node!r} is under two leaf "
                                            f"switches: {other!r} (line {line}) and {name!r}")
                leaf_line[node] = (name, head.line)
        raw[name] = dict(line=head.line, children=children, nodes=[] if children else nodes,
                         listed=nodes if children and "nodes" in opts else None, listed_line=opts["nodes"].line if "nodes" in opts else 0,
                         level=_count(opts["level"], source) if scontrol else None, level_line=opts.get("level", head).line,
                         speed=_count(opts["linkspeed"], source) if "linkspeed" in opts else None,
                         children_line=opts["switches"].line if "switches" in opts else head.line)
    parents: dict[str, list[str]] = {name: [] for name in raw}
    for name, r in raw.items():
        for child in r["children"]:
            if child not in raw:
                raise InvalidInputError(f"{source}:{r['children_line']}: switch {name!r} lists child switch {child!r}, "
                                        "which no SwitchName= line defines")
            parents[child].append(name)
    _check_parallel(raw, parents, source)
    levels = _levels(raw, source)
    below: dict[str, frozenset] = {}
    for name in sorted(raw, key=lambda s: levels[s]):
        r = raw[name]
        below[name] = frozenset(r["nodes"]).union(*(below[c] for c in r["children"]))
        if r["level"] is not None and r["level"] != levels[name]:
            raise InvalidInputError(f"{source}:{r['level_line']}: switch {name!r} has Level={r['level']} but its "
                                    f"child switches put it at level {levels[name]}")
        if r["listed"] is not None and frozenset(r["listed"]) != below[name]:
            extra = sorted(frozenset(r["listed"]) - below[name], key=natural_key)
            missing = sorted(below[name] - frozenset(r["listed"]), key=natural_key)
            what = (f"lists node {extra[0]!r}, which none of its child switches has" if extra
                    else f"does not list node {missing[0]!r}, which is below its child switches")
            raise InvalidInputError(f"{source}:{r['listed_line']}: switch {name!r} {what}")
    switches = {name: Switch(name, r["line"], levels[name], tuple(r["nodes"]), tuple(r["children"]),
                             tuple(parents[name]), r["speed"]) for name, r in raw.items()}
    return SwitchTree("tree", source, switches)


def _check_parallel(raw: dict, parents: dict, source: str) -> None:
    """Switches that share a child must share all their children (parallel spines), or it is no tree."""
    for p, r in raw.items():
        first = r["children"][0] if r["children"] else None
        for child in r["children"][1:]:
            if set(parents[child]) == set(parents[first]):
                continue
            q = next(q for q in raw if (q in parents[first]) != (q in parents[child]))
            above, not_above = (first, child) if q in parents[first] else (child, first)
            raise InvalidInputError(
                f"{source}:{raw[q]['children_line']}: switch {q!r} is above {above!r} but not above {not_above!r}, "
                f"though both are below {p!r}: switches that share a child switch must share all of them (parallel "
                "spines), else the network is no tree")


def _levels(raw: dict, source: str) -> dict[str, int]:
    """Slurm's level of every switch (0 = nodes below, else 1 + the highest child); raises on a cycle."""
    level: dict[str, int] = {}
    for root in raw:
        if root in level:
            continue
        stack, on_path = [(root, iter(raw[root]["children"]))], [root]
        while stack:
            name, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                on_path.pop()
                level[name] = 1 + max((level[c] for c in raw[name]["children"]), default=-1)
                continue
            if child in on_path:
                cycle = on_path[on_path.index(child):] + [child]
                raise InvalidInputError(f"{source}:{raw[name]['children_line']}: switches form a cycle: "
                                        + " -> ".join(cycle))
            if child not in level:
                stack.append((child, iter(raw[child]["children"])))
                on_path.append(child)
    return level


def _blocks(records: list, source: str) -> SwitchTree:
    blocks: dict[str, Switch] = {}
    block_of: dict[str, tuple[str, int]] = {}
    sizes: tuple = ()
    sizes_line = 0
    aggregated = []
    for kind, head, opts in records:
        for key in ("blockindex", "blocksize"):
            if key in opts:
                _count(opts[key], source)
        if kind == "blocksizes":
            if sizes_line:
                raise InvalidInputError(f"{source}:{head.line}: BlockSizes= given twice (first on line {sizes_line})")
            sizes, sizes_line = _block_sizes(head, source), head.line
            continue
        if kind == "aggregatedblock":
            aggregated.append(head.value)
            continue
        name = _check_name(head, source, "BlockName")
        if name in blocks:
            raise InvalidInputError(f"{source}:{head.line}: block {name!r} is already defined on line {blocks[name].line}")
        nodes = _host_values(opts["nodes"], source) if "nodes" in opts else []
        for node in nodes:
            if node in block_of:
                other, line = block_of[node]
                raise InvalidInputError(f"{source}:{opts['nodes'].line}: node {node!r} is in two blocks: {other!r} "
                                        f"(line {line}) and {name!r}")
            block_of[node] = (name, head.line)
        blocks[name] = Switch(name, head.line, 0, tuple(nodes))
    if not blocks:
        raise InvalidInputError(f"{source}: no BlockName= line")
    return SwitchTree("block", source, blocks, sizes, tuple(aggregated))


def _block_sizes(token: _Token, source: str) -> tuple[int, ...]:
    """``BlockSizes=30,120``: the base block's node count, then larger sizes, each a power-of-two multiple."""
    sizes = []
    for item in token.value.split(","):
        if not item.strip().isdigit() or int(item) < 1:
            raise InvalidInputError(f"{source}:{token.line}: BlockSizes= needs positive integers; got {item!r}")
        sizes.append(int(item))
    for prev, size in zip(sizes, sizes[1:]):
        ratio = size // sizes[0]
        if size <= prev or size % sizes[0] or ratio & (ratio - 1):
            raise InvalidInputError(f"{source}:{token.line}: BlockSizes= {size} must be larger than {prev} and "
                                    f"{sizes[0]} times a power of two")
    return tuple(sizes)


# -- paths -------------------------------------------------------------------------------------
def _leaf_path(tree: SwitchTree, leaf: str) -> tuple[str, ...]:
    if tree.kind == "block":
        return (leaf,)
    by_level: dict[int, set] = {}
    todo, seen = [leaf], {leaf}
    while todo:
        name = todo.pop()
        by_level.setdefault(tree.switches[name].level, set()).add(name)
        for parent in tree.switches[name].parents:
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    top = tree.levels - 1
    path = []
    for level in range(top, -1, -1):
        group = by_level.get(level)
        if not group:
            sw = tree.switches[leaf]
            raise InvalidInputError(
                f"{tree.source}:{sw.line}: the nodes of leaf switch {leaf!r} have no switch at level {level} (the top "
                f"is level {top}); Slurm gives them an empty address component there, and a tree whose leaves hang "
                "at different depths is not modelled")
        path.append(compress_hostlist(sorted(group, key=natural_key)))
    return tuple(path)


def _node_names(nodes, what: str) -> list[str]:
    try:
        names = expand_hostlist(nodes) if isinstance(nodes, str) else [str(n) for n in nodes]
    except InvalidInputError as exc:
        raise InvalidInputError(f"{what}: {exc}") from None
    if not names:
        raise InvalidInputError(f"{what}: the node list is empty; got {nodes!r}")
    seen: dict[str, int] = {}
    for k, name in enumerate(names):
        if name in seen:
            raise InvalidInputError(f"{what}: node {name!r} is listed twice (entries {seen[name] + 1} and {k + 1})")
        seen[name] = k
    return names


def node_paths(tree: SwitchTree, nodes) -> list[tuple[str, ...]]:
    """Return the switch path of every node, top down, as its ``SLURM_TOPOLOGY_ADDR`` gives it.

    Parameters
    ----------
    tree : SwitchTree
    nodes : str or sequence of str
        Node names, or a host list (``node[0400-0431]``).

    Returns
    -------
    list of tuple of str
        One component per level from the top (level ``tree.levels - 1``) down to the leaf:
        the switches of that level above the node, as a host list (one name unless a switch
        has several parents of that level); ``(block,)`` for blocks.  What
        :meth:`~mpitaskmap.machines.fattree.FatTreeMachine.from_paths` takes.

    Raises
    ------
    InvalidInputError
        On a node the topology does not list, a node listed twice (naming them), a leaf
        without a switch at some level (leaves at different depths), or (topology/tree)
        nodes below switches without a common ancestor, naming the nodes, those switches
        and their lines: Slurm places no job across them (:attr:`SwitchTree.roots`).

    Examples
    --------
    >>> tree = parse_topology_conf("SwitchName=s1 Nodes=n[1-2]\\nSwitchName=s2 Nodes=n3\\nSwitchName=s0 Switches=s[1-2]")
    >>> node_paths(tree, "n[2-3]")
    [('s0', 's1'), ('s0', 's2')]
    """
    if not isinstance(tree, SwitchTree):
        raise InvalidInputError(f"tree: expected a SwitchTree; got {type(tree).__name__}")
    names = _node_names(nodes, f"{tree.source}: nodes")
    for name in names:
        if name not in tree.leaf_of:
            raise InvalidInputError(f"{tree.source}: node {name!r} is not in the topology (no Nodes= lists it)")
    if tree.kind == "tree":
        _check_common_ancestor(tree, names)
    paths: dict[str, tuple] = {}
    out = []
    for name in names:
        leaf = tree.leaf_of[name]
        if leaf not in paths:
            paths[leaf] = _leaf_path(tree, leaf)
        out.append(paths[leaf])
    return out


def _ancestors(tree: SwitchTree, leaf: str) -> set:
    """The leaf switch and every switch above it."""
    seen, todo = {leaf}, [leaf]
    while todo:
        for parent in tree.switches[todo.pop()].parents:
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return seen


def _check_common_ancestor(tree: SwitchTree, names: list) -> None:
    """Raise unless one switch is above every node of ``names`` (Slurm's rule for placing a job)."""
    leaves = list(dict.fromkeys(tree.leaf_of[n] for n in names))
    above = {leaf: _ancestors(tree, leaf) for leaf in leaves}
    if set.intersection(*above.values()):
        return
    groups: dict[tuple, list] = {}  # the roots above a node -> the job's nodes below them
    for n in names:
        roots = tuple(s for s in tree.roots if s in above[tree.leaf_of[n]])
        groups.setdefault(roots, []).append(n)
    parts = []
    for roots, nodes in groups.items():
        lines = ", ".join(str(tree.switches[r].line) for r in roots)
        parts.append(f"{compress_hostlist(nodes)} below {compress_hostlist(list(roots))!r} "
                     f"(line{'s' if len(roots) > 1 else ''} {lines})")
    tops = compress_hostlist(sorted({r for roots in groups for r in roots}, key=natural_key))
    raise InvalidInputError(
        f"{tree.source}: the job's nodes hang below switches without a common ancestor: {'; '.join(parts)}; Slurm "
        f"places no job across switches without a common parent (unless TopologyParam=TopoOptional), and the file "
        f"does not say how they connect: add a switch above them (SwitchName=top Switches={tops}) or take nodes "
        "below one of them")


# -- topology addresses ---------------------------------------------------------------------------
class TopologyAddress(NamedTuple):
    """One parsed ``SLURM_TOPOLOGY_ADDR`` (:func:`parse_topology_addr`).

    Attributes
    ----------
    plugin : {"tree", "block", "torus3d", "node"}
        The topology plugin the pattern belongs to (``"node"``: no topology).
    path : tuple of str
        The switch components, top first (tree); ``(block,)``; ``(torus name,)``; ``()``.
    coords : tuple of int
        ``(x, y, z)`` on the torus (torus3d), else ``()``.
    node : str
        The node name (the address's last component).
    """

    plugin: str
    path: tuple
    coords: tuple
    node: str


def parse_topology_addr(addr: str, pattern: str) -> TopologyAddress:
    """Parse a task's ``SLURM_TOPOLOGY_ADDR`` by its ``SLURM_TOPOLOGY_ADDR_PATTERN``.

    Parameters
    ----------
    addr : str
        ``s0.s12.node0417``, ``b3.node12``, ``pod1:1:2:0.node05`` or ``node0417``.
    pattern : str
        ``switch.switch.node`` (any number of ``switch``), ``block.node``,
        ``torus:x:y:z.node`` or ``node``, as Slurm's tree, block, torus3d and flat plugins
        write them.

    Returns
    -------
    TopologyAddress
        A tree component may be empty (Slurm's address for a leaf with no switch at that
        level) or a host list (several switches of a level).

    Raises
    ------
    InvalidInputError
        On a pattern of another plugin (e.g. topology/ring) or one not ending in ``node``,
        an address with fewer components than the pattern, a torus component that is not
        ``NAME:X:Y:Z`` with integers >= 0, or an empty node name; naming both strings.

    Examples
    --------
    >>> parse_topology_addr("s0.s12.node0417", "switch.switch.node")
    TopologyAddress(plugin='tree', path=('s0', 's12'), coords=(), node='node0417')
    >>> parse_topology_addr("pod1:1:2:0.node05", "torus:x:y:z.node")
    TopologyAddress(plugin='torus3d', path=('pod1',), coords=(1, 2, 0), node='node05')
    >>> parse_topology_addr("s0.node1", "switch.switch.node")
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.InvalidInputError: SLURM_TOPOLOGY_ADDR 's0.node1' has 2 components but SLURM_TOPOLOGY_ADDR_PATTERN 'switch.switch.node' has 3
    """
    if not isinstance(addr, str) or not isinstance(pattern, str):
        raise InvalidInputError(f"SLURM_TOPOLOGY_ADDR: expected strings; got {addr!r} and {pattern!r}")
    addr, pattern = addr.strip(), pattern.strip()
    kinds = pattern.split(".")
    if kinds[-1] != "node" or len(kinds) < 1:
        raise InvalidInputError(f"SLURM_TOPOLOGY_ADDR_PATTERN {pattern!r} does not end in 'node'")
    head = kinds[:-1]
    if all(k == "switch" for k in head):
        plugin = "tree" if head else "node"
    elif head == ["block"]:
        plugin = "block"
    elif head == ["torus:x:y:z"]:
        plugin = "torus3d"
    else:
        raise InvalidInputError(f"SLURM_TOPOLOGY_ADDR_PATTERN {pattern!r} is none of Slurm's topology/tree "
                                "(switch.switch.node), topology/block (block.node), topology/torus3d "
                                "(torus:x:y:z.node) or flat (node) patterns")
    parts = addr.split(".", len(kinds) - 1)
    if len(parts) != len(kinds) or not parts[-1]:
        have = f"{len(parts)} components" if parts[-1] else "no node name"
        raise InvalidInputError(f"SLURM_TOPOLOGY_ADDR {addr!r} has {have} but SLURM_TOPOLOGY_ADDR_PATTERN "
                                f"{pattern!r} has {len(kinds)}")
    node = parts[-1]
    if plugin == "torus3d":
        fields = parts[0].split(":")
        if len(fields) != 4 or not fields[0] or not all(f.isdigit() and f.isascii() for f in fields[1:]):
            raise InvalidInputError(f"SLURM_TOPOLOGY_ADDR {addr!r}: expected NAME:X:Y:Z (integers >= 0) before the "
                                    f"node, as the pattern {pattern!r} says; got {parts[0]!r}")
        return TopologyAddress(plugin, (fields[0],), tuple(int(f) for f in fields[1:]), node)
    if plugin == "block" and not parts[0]:
        raise InvalidInputError(f"SLURM_TOPOLOGY_ADDR {addr!r}: empty block name (pattern {pattern!r})")
    return TopologyAddress(plugin, tuple(parts[:-1]), (), node)


# -- the machine ---------------------------------------------------------------------------------
def fattree_from_node_paths(paths: Sequence[Sequence[str]], node_names: Sequence[str], proc_nodes, *,
                            bandwidth: float = 12.5, taper: float = 1.0, routing: str = "dmodk",
                            name: str | None = None, what: str = "paths", spines: int = 1,
                            host_numbers=None, leaf_nodes=None) -> FatTreeMachine:
    """Build the fat tree of a job from the switch path of each of its nodes (Slurm's form).

    The one builder behind the ``topology.conf:NODELIST`` spec (:func:`fattree_from_topology`)
    and the machine ``remap()`` assembles from every rank's ``SLURM_TOPOLOGY_ADDR``.

    Parameters
    ----------
    paths : sequence of sequences of str
        Switch components of every node, top first (:func:`node_paths`,
        :attr:`TopologyAddress.path`); a component may be a host list of parallel switches.
    node_names : sequence of str
        Distinct name of every node, one per path.
    proc_nodes : (n_procs,) array_like of int
        Node (index into ``paths``) of every processor.
    bandwidth : float, optional
        GB/s of a node's link to its leaf (default 12.5).
    taper : float, optional
        Down-link over up-link capacity of every switch (default 1.0).
    routing : {"dmodk", "ecmp", "unknown"}, optional
    name : str, optional
        The machine's description.
    what : str, optional
        Names the input in errors (a file, ``"locations"``).
    spines : int, optional
        Parallel up-links of every switch below the top level
        (:meth:`~mpitaskmap.machines.fattree.FatTreeMachine.from_paths`; default 1).
    host_numbers : sequence of int, optional
        The host number d-mod-k follows for every node, one per path (default the tree node
        numbers).
    leaf_nodes : sequence of int, optional
        Nodes below every node's leaf switch in the whole cluster, one per path: the leaves'
        physical capacity instead of the job's share (:meth:`FatTreeMachine.from_paths`).

    Returns
    -------
    FatTreeMachine
        Tree nodes in the natural order of (path, name): nodes under one leaf consecutive;
        processor ``p`` on the tree node of ``node_names[proc_nodes[p]]``.  Parallel switches
        are one group (``s[3-5]``).

    Raises
    ------
    InvalidInputError
        Starting with ``what``: an empty component (a leaf without a switch at some level),
        a switch in two different groups or at two levels, paths of different depths, a
        repeated node name, a bad bandwidth, taper or routing.

    Examples
    --------
    >>> m = fattree_from_node_paths([("s0", "s2"), ("s0", "s1"), ("s0", "s1")], ["c", "a", "b"], [0, 1, 2])
    >>> m.node_ids.tolist(), m.node_names, m.hops([0, 1], [1, 2]).tolist()
    ([2, 0, 1], ('a', 'b', 'c'), [4, 2])
    """
    paths = [tuple(str(c) for c in p) for p in paths]
    names = [str(n) for n in node_names]
    if len(paths) != len(names) or not paths:
        raise InvalidInputError(f"{what}: expected one switch path per node name ({len(names)}); got {len(paths)}")
    first_of: dict[str, int] = {}
    for v, node in enumerate(names):
        if node in first_of:
            raise InvalidInputError(f"{what}: node {node!r} is given twice, under {'.'.join(paths[first_of[node]])} "
                                    f"and {'.'.join(paths[v])}")
        first_of[node] = v
    canonical: dict[tuple[int, str], str] = {}  # (index in the path, component) -> its group's name
    member_of: dict[str, tuple[int, str, str]] = {}  # switch -> (index in the path, its group, a node below)
    clean = []
    for v, path in enumerate(paths):
        out = []
        for level, component in enumerate(path):
            if (level, component) not in canonical:
                if not component:
                    raise InvalidInputError(
                        f"{what}: node {names[v]!r} has no switch at level {len(path) - 1 - level} of its address "
                        f"{'.'.join(path + (names[v],))!r}: a tree whose leaves hang at different depths is not modelled")
                try:
                    members = sorted(set(expand_hostlist(component)), key=natural_key)
                except InvalidInputError as exc:
                    raise InvalidInputError(f"{what}: node {names[v]!r}: switch component {component!r}: {exc}") from None
                group = canonical[level, component] = compress_hostlist(members)
                for s in members:
                    known = member_of.setdefault(s, (level, group, names[v]))
                    if known[:2] != (level, group):
                        raise InvalidInputError(
                            f"{what}: switch {s!r} is in {known[1]!r} at level {len(path) - 1 - known[0]} above node "
                            f"{known[2]!r} but in {group!r} at level {len(path) - 1 - level} above node "
                            f"{names[v]!r}: not a tree")
            out.append(canonical[level, component])
        clean.append(tuple(out))
    order = sorted(range(len(clean)), key=lambda v: (tuple(natural_key(c) for c in clean[v]), natural_key(names[v])))
    rank_of = np.empty(len(order), dtype=np.int64)
    rank_of[order] = np.arange(len(order))
    proc = np.asarray(proc_nodes)
    if proc.ndim != 1 or proc.size == 0 or proc.dtype.kind not in "iu" or proc.min() < 0 or proc.max() >= len(order):
        raise InvalidInputError(f"{what}: proc_nodes must be node indices in [0, {len(order)}); got {proc_nodes!r}")
    try:
        bandwidth = float(bandwidth)
        numbering = None if host_numbers is None else np.asarray(host_numbers, dtype=np.int64)[order]
        full = None if leaf_nodes is None else np.asarray(leaf_nodes, dtype=np.int64)[order]
        return FatTreeMachine.from_paths([clean[v] for v in order], [names[v] for v in order], rank_of[proc],
                                         bandwidth=bandwidth, taper=taper, routing=routing, name=name,
                                         spines=spines, numbering=numbering, leaf_nodes=full)
    except (InvalidInputError, TypeError, ValueError) as exc:
        raise InvalidInputError(f"{what}: {exc}") from None


def fattree_from_topology(tree: SwitchTree, nodes, *, ppn: int = 1, taper: float = 1.0, bandwidth: float = 12.5,
                          routing: str = "dmodk", name: str | None = None, spines: int = 1,
                          numbering: dict | None = None) -> FatTreeMachine:
    """Return the fat tree of a job on the nodes ``nodes`` of a Slurm topology.

    With ``spines`` > 1 the up-links are physical links: a leaf's capacity is every node the
    file lists below it times ``bandwidth`` over ``taper``, shared by its ``spines`` links (with
    one up-link, the job's share: the job's nodes below it, as ``remap()`` sees them); d-mod-k
    numbers the hosts of the whole topology in the order of their switch paths and names
    (natural order: ``node9`` before ``node10``), as a subnet manager that numbers the hosts by
    name does, and as SimGrid's ``FAT_TREE`` cluster numbers hosts ``PREFIX0 ..``; under
    ``"unknown"`` routing the numbering is left to chance
    (:class:`~mpitaskmap.machines.fattree.FatTreeMachine`).

    Parameters
    ----------
    tree : SwitchTree
        :func:`parse_topology_conf`.
    nodes : str or sequence of str
        The job's nodes (a host list such as ``SLURM_JOB_NODELIST``), in rank order.
    ppn : int, optional
        Ranks per node (default 1): rank ``r`` runs on node ``r // ppn`` (Slurm's block
        distribution).
    taper, bandwidth, routing, name, spines
        As :func:`fattree_from_node_paths`.
    numbering : dict of str to int, optional
        Every host's number for d-mod-k (default: the file's hosts in name order, :func:`host_numbers`).

    Returns
    -------
    FatTreeMachine
        ``len(nodes) * ppn`` processors; the machine ``remap()`` builds from those nodes'
        ``SLURM_TOPOLOGY_ADDR``.

    Raises
    ------
    InvalidInputError
        As :func:`node_paths` and :func:`fattree_from_node_paths`, starting with the source.

    Examples
    --------
    >>> tree = parse_topology_conf('''SwitchName=l1 Nodes=n[1-2]
    ... SwitchName=l2 Nodes=n[3-4]
    ... SwitchName=top Switches=l[1-2]''')
    >>> m = fattree_from_topology(tree, "n[1-3]", ppn=2)
    >>> m.node_ids.tolist(), m.hops([0, 0, 0], [1, 2, 4]).tolist()
    ([0, 0, 1, 1, 2, 2], [0, 2, 4])
    """
    ppn = parse_int(ppn, "ppn", tree.source if isinstance(tree, SwitchTree) else "tree")
    paths = node_paths(tree, nodes)
    names = _node_names(nodes, f"{tree.source}: nodes")
    return fattree_from_node_paths(paths, names, np.repeat(np.arange(len(names)), ppn), bandwidth=bandwidth,
                                   taper=taper, routing=routing, name=name, what=tree.source, spines=spines,
                                   host_numbers=(None if spines == 1 else host_numbers(tree, names) if numbering is None
                                                 else [numbering[n] for n in names]),
                                   leaf_nodes=[len(tree.switches[tree.leaf_of[n]].nodes) for n in names]
                                   if spines > 1 else None)


def host_numbers(tree: SwitchTree, names: Sequence[str]) -> list[int]:
    """The number of each of ``names`` among every host of ``tree``, hosts in the natural order of (switch path, name).

    Examples
    --------
    >>> tree = parse_topology_conf("SwitchName=l2 Nodes=n[10-11]\\nSwitchName=l1 Nodes=n[8-9]\\n"
    ...                            "SwitchName=top Switches=l[1-2]")
    >>> host_numbers(tree, ["n10", "n9"])
    [2, 1]
    """
    everyone = list(tree.nodes)
    leaf_paths = {leaf: tuple(natural_key(c) for c in _leaf_path(tree, leaf)) for leaf in set(tree.leaf_of.values())}
    key = {n: (leaf_paths[tree.leaf_of[n]], natural_key(n)) for n in everyone}
    rank = {n: k for k, n in enumerate(sorted(everyone, key=key.__getitem__))}
    return [rank[n] for n in names]


# -- the topology.conf:NODELIST spec --------------------------------------------------------------
#: Keys of a ``topology.conf:NODELIST:k=v,...`` spec: ranks per node, taper, node link GB/s, routing, and the
#: parallel up-links of every switch below the top (``spines``: one to each top switch; ``uplinks``: that many,
#: spread over the top switches; the same for the model, give one).
TOPOLOGY_KEYS = ("ppn", "taper", "bw", "routing", "spines", "uplinks")
#: Their values when a spec leaves them out (``routing``: ``dmodk`` with one up-link, ``unknown`` with several).
TOPOLOGY_DEFAULTS = {"ppn": 1, "taper": 1.0, "bw": 12.5, "routing": None, "spines": None, "uplinks": None}


def is_topology_spec(text: str) -> bool:
    """Whether ``text`` reads as ``PATH:NODELIST[:OPTIONS]`` rather than a file path.

    True when it holds a ``:`` with text on both sides and is not itself an existing file.

    Examples
    --------
    >>> is_topology_spec("topology.conf:node[01-04]"), is_topology_spec("machine.txt")
    (True, False)
    """
    path, sep, rest = str(text).partition(":")
    return bool(sep and path.strip() and rest.strip()) and not os.path.exists(text)


@dataclass(frozen=True)
class TopologySpec:
    """A job on a Slurm topology: ``PATH:NODELIST[:ppn=,taper=,bw=,routing=,spines=]`` read (:func:`read_topology_spec`).

    Attributes
    ----------
    path : str
        The ``topology.conf`` or saved ``scontrol show topology`` text.
    tree : SwitchTree
    nodes : tuple of str
        The job's nodes, in rank order.
    ppn : int
    taper : float
    bandwidth : float
    routing : str
    spines : int
        Parallel up-links of every switch below the top level.
    numbering : dict of str to int or None
        Every host's number for d-mod-k when the source says it (an ``ibnetdiscover`` dump's or
        ``iblinkinfo``'s cabling order); None: the hosts of the file in name order.
    """

    path: str
    tree: SwitchTree
    nodes: tuple
    ppn: int
    taper: float
    bandwidth: float
    routing: str
    spines: int = 1
    numbering: dict | None = None

    @property
    def n_ranks(self) -> int:
        """Ranks of the job: nodes times ``ppn``."""
        return len(self.nodes) * self.ppn

    @property
    def pattern(self) -> str:
        """The ``SLURM_TOPOLOGY_ADDR_PATTERN`` of the topology (``switch.switch.node``, ``block.node``)."""
        return "block.node" if self.tree.kind == "block" else "switch." * self.tree.levels + "node"

    def addresses(self) -> list[str]:
        """The ``SLURM_TOPOLOGY_ADDR`` of every node of the job, in node-list order."""
        return [".".join(path + (node,)) for path, node in zip(node_paths(self.tree, self.nodes), self.nodes)]

    def machine(self, name: str | None = None) -> FatTreeMachine:
        """The job's fat tree (:func:`fattree_from_topology`)."""
        label = name or (f"{self.path}: {len(self.nodes)} nodes x {self.ppn}, taper {self.taper:g}:1, "
                         f"{self.bandwidth:g} GB/s, " + (f"{self.spines} spines, " if self.spines > 1 else "")
                         + self.routing)
        return fattree_from_topology(self.tree, list(self.nodes), ppn=self.ppn, taper=self.taper,
                                     bandwidth=self.bandwidth, routing=self.routing, name=label, spines=self.spines,
                                     numbering=self.numbering)


def read_topology_spec(text: str, what: str = "topology") -> TopologySpec:
    """Read ``PATH:NODELIST[:ppn=8,taper=4,bw=12.5,routing=dmodk]`` (the file, the node list, the options).

    Parameters
    ----------
    text : str
        ``PATH`` names a ``topology.conf``, a saved ``scontrol show topology`` or a saved
        ``ibnetdiscover`` or ``iblinkinfo`` (:mod:`~mpitaskmap.machines.fattree.ibnetdiscover`,
        :mod:`~mpitaskmap.machines.fattree.iblinkinfo`: the tree, ``bw``, ``taper``, ``spines``
        and the hosts' numbering from its cabling, an option given winning); ``NODELIST``
        the job's nodes in host-list syntax (``SLURM_JOB_NODELIST``), in rank order; the
        options (:data:`TOPOLOGY_KEYS`, defaults :data:`TOPOLOGY_DEFAULTS`) are ranks per
        node, taper, a node link's GB/s and the routing.
    what : str, optional
        Names the spec in errors (``"--machine 'x.conf:n[1-4]'"``).

    Returns
    -------
    TopologySpec

    Raises
    ------
    InvalidInputError
        On a missing part, an unreadable file, a parse error (``PATH:LINE: ...``), a bad
        option (starting with ``what``), or a node the topology lacks.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "topology.conf")
    ...     _ = open(path, "w").write("SwitchName=s1 Nodes=n[1-4]\\n")
    ...     spec = read_topology_spec(path + ":n[2-3]:ppn=2,taper=2")
    ...     spec.nodes, spec.n_ranks, spec.pattern, spec.addresses()
    (('n2', 'n3'), 4, 'switch.node', ['s1.n2', 's1.n3'])
    """
    path, _, rest = str(text).partition(":")
    nodelist, _, opt_text = rest.partition(":")
    if not path.strip() or not nodelist.strip():
        raise InvalidInputError(f"{what}: expected TOPOLOGY_FILE:NODELIST[:ppn=N,taper=T,bw=GBPS,"
                                f"routing=dmodk|ecmp|unknown,spines=K]; got {text!r}")
    given_opts = parse_options(opt_text, TOPOLOGY_KEYS, what)
    try:
        with open(path, encoding="utf-8") as fh:
            content = fh.read()
    except OSError as exc:
        raise InvalidInputError(f"{what}: cannot read the topology file {path!r} ({exc.strerror or exc})") from None
    derived, numbering = {}, None
    if is_ibnetdiscover(content) or is_iblinkinfo(content):  # an InfiniBand fabric: the tree, speeds, taper,
        # up-links and numbering from its cabling
        parse = parse_ibnetdiscover if is_ibnetdiscover(content) else parse_iblinkinfo
        fabric = fabric_topology(parse(content, path))
        tree = parse_topology_conf(fabric.topology, f"{path} (its fat tree)")
        derived = {"bw": fabric.bandwidth, "taper": fabric.taper, "spines": fabric.spines}
        numbering = fabric.host_numbers
    else:
        tree = parse_topology_conf(content, path)
    opts = {**TOPOLOGY_DEFAULTS, **derived, **given_opts}
    ppn = parse_int(opts["ppn"], "ppn", what)
    taper = parse_float(opts["taper"], "taper", what)
    bw = parse_float(opts["bw"], "bw", what)
    if taper <= 0 or bw <= 0:
        key, value = ("taper", taper) if taper <= 0 else ("bw", bw)
        raise InvalidInputError(f"{what}: {key} must be positive; got {value:g}")
    given = {k: parse_int(opts[k], k, what) for k in ("spines", "uplinks") if opts[k] is not None}
    if "spines" in derived and "uplinks" in given_opts:  # the user's count wins over the cabling's
        given.pop("spines")
    if len(given) == 2 and given["spines"] != given["uplinks"]:
        raise InvalidInputError(f"{what}: spines={given['spines']} and uplinks={given['uplinks']} disagree: both are "
                                "the parallel up-links of every switch below the top; give one")
    for key, value in given.items():
        if value < 1:
            raise InvalidInputError(f"{what}: {key} must be >= 1; got {value}")
    nodes = tuple(_node_names(nodelist.strip(), f"{what}: NODELIST"))
    paths = node_paths(tree, nodes)  # every node in the topology, at one depth: fail here, naming the node
    # the top switches the topology lists above the job's leaves: that many parallel up-links, unless told
    listed = {len(expand_hostlist(p[0])) for p in paths} if tree.kind == "tree" and tree.levels > 1 else {1}
    spines = next(iter(given.values())) if given else (listed.pop() if len(listed) == 1 else 1)
    # several up-links: d-mod-k follows the cabling's numbering where the source gives it, else it is not known
    default = "unknown" if spines > 1 and numbering is None else "dmodk"
    routing = parse_choice(opts["routing"] or default, "routing", what, FAT_TREE_ROUTINGS)
    return TopologySpec(path, tree, nodes, ppn, taper, bw, routing, spines, numbering)
