"""README.md's output blocks, regenerated from real runs of README.md's own commands, or checked.

    python -m benchmarks.readme_outputs --write   # rerun every generator, rewrite README.md's output blocks
    python -m benchmarks.readme_outputs --check   # rerun them; exit 1 with the stale lines when a block differs
    python -m benchmarks.readme_outputs --check --only offline-compare --readme /tmp/README.md

Every output block README.md shows is marked by an HTML comment on the line before its fence
(GitHub does not render it), and so is every shell block a generator runs:

    <!-- shell: offline -->      the commands (tests/test_readme.py runs them at a small size)
    <!-- output: offline-compare -->   the stdout of one of those commands, at the size shown

A generator (:data:`OUTPUTS`) names its shell block, the setup commands it runs first and the
command whose standard output is the block, each found by a piece of its text; it runs them
with ``bash`` exactly as README.md writes them, in a fresh directory (``examples/`` linked
into it), with this Python's directory first on ``PATH`` (``python``, ``mpiexec``,
``mpitaskmap`` are this virtualenv's), ``OMP_NUM_THREADS=1`` and no ``MPITASKMAP_*``
variable.  Of a chain ``a && b && c`` only the part containing the text runs (the demo's
install is not rerun).

``--check`` compares every field but the ones that vary between runs: the table columns a
generator lists (wall-clock seconds: the demo's ``laptop wall s``, ``compare``'s
``seconds``) and the text after a line prefix (the demo's ``seconds:`` line).  Spaces do
not count (a column may widen).  SimGrid's simulated times are deterministic
(``--cfg=smpi/simulate-computation:no``: the same run gives the same digits) and are
compared.  A generator that needs SimGrid is skipped with SimGrid's reason where it is
missing (CI installs it).  Exit status: 0 current, 1 a block is stale, 2 a marker is
missing or unknown, or a command failed.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

#: The command that rewrites every block (printed when a check fails).
WRITE_COMMAND = "python -m benchmarks.readme_outputs --write"

_FENCE = re.compile(r"^```(\w*)\s*$")
_MARKER = re.compile(r"^<!--\s*(output|shell):\s*([\w.+-]+)\s*-->\s*$")
#: A table cell that is a value: a number (thousands commas, exponent, percent, sign), n/a or -.
_VALUE = re.compile(r"^([-+]?(\d[\d,]*\.?\d*|\.\d+)(e[-+]?\d+)?%?|n/a|-|[-+]?inf|nan)$", re.IGNORECASE)


@dataclass(frozen=True)
class Block:
    """One fenced block of README.md.

    Attributes
    ----------
    lang : str
        The fence's language ("python", "bash", "" for an output block).
    kind, name : str
        Its marker (``<!-- KIND: NAME -->`` on the line before the fence); "" when unmarked.
    start : int
        Line number (1-based) of the opening fence.
    text : str
        The content, fences excluded, one trailing newline.
    """

    lang: str
    kind: str
    name: str
    start: int
    text: str

    @property
    def first_line(self) -> int:
        """Line number (1-based) of the block's first content line."""
        return self.start + 1

    @property
    def end(self) -> int:
        """Line number (1-based) of the closing fence."""
        return self.start + 1 + len(self.text.splitlines())


@dataclass(frozen=True)
class Output:
    """How one output block is produced.

    Attributes
    ----------
    name : str
        The ``<!-- output: NAME -->`` marker's name.
    shell : str
        The ``<!-- shell: NAME -->`` block whose commands run.
    command : str
        Text of the command whose standard output is the block.
    setup : tuple of str
        Texts of the commands run before it, in order, in the same directory.
    simgrid : bool
        Needs SimGrid (and a C++ compiler for the in-process replay program).
    vary_columns : str
        Regular expression of the table headers whose cells vary between runs ("" for none).
    vary_lines : str
        Regular expression; on a line it matches, what follows the match varies ("" for none).
    """

    name: str
    shell: str
    command: str
    setup: tuple[str, ...] = ()
    simgrid: bool = False
    vary_columns: str = ""
    vary_lines: str = ""


#: Every generator, in README order.
OUTPUTS: dict[str, Output] = {
    o.name: o
    for o in (
        Output("demo", shell="demo", command="examples/minighost.py", simgrid=True,
               vary_columns=r"\bwall\b", vary_lines=r"^\s*seconds:"),
        Output("unmodified-record", shell="unmodified", command="mpitaskmap record", setup=("mpicc",),
               vary_lines=r"^max_comm_time|^mpitaskmap record: wrote "),
        Output("unmodified-compare", shell="unmodified", command="mpitaskmap compare",
               setup=("mpicc", "mpitaskmap record"), vary_columns=r"^seconds$"),
        Output("unmodified-launch", shell="unmodified", command="mpitaskmap launch",
               setup=("mpicc", "mpitaskmap record"), vary_lines=r"^\s*SLURM_HOSTFILE=|^file "),
        Output("dragonfly-demo", shell="dragonfly", command="minighost.py --provider sim:frontier", simgrid=True,
               vary_columns=r"\bwall\b", vary_lines=r"^\s*seconds:"),
        Output("simgrid", shell="simgrid", command="mpitaskmap simgrid", setup=("smpicc",), simgrid=True),
        Output("offline-compare", shell="offline", command="mpitaskmap compare", setup=("mpitaskmap map ",),
               vary_columns=r"^seconds$"),
    )
}


class ReadmeError(Exception):
    """A marker that is missing, unknown or twice, or a generator's command that failed."""


def read_blocks(text: str, path: str = "README.md") -> list[Block]:
    """Return the fenced blocks of a Markdown text, with their markers.

    Parameters
    ----------
    text : str
        The Markdown.
    path : str, optional
        Names the file in errors.

    Raises
    ------
    ReadmeError
        On a fence that is never closed.

    Examples
    --------
    >>> b = read_blocks("<!-- output: demo -->\\n```\\nx 1\\n```\\n")[0]
    >>> (b.lang, b.kind, b.name, b.start, b.text, b.end)
    ('', 'output', 'demo', 2, 'x 1\\n', 4)
    """
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, body = i, []
        i += 1
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise ReadmeError(f"{path}:{start + 1}: a ``` block that is never closed")
        marker = _MARKER.match(lines[start - 1]) if start else None
        out.append(Block(m.group(1), marker.group(1) if marker else "", marker.group(2) if marker else "",
                         start + 1, "".join(line + "\n" for line in body)))
        i += 1
    return out


def marked(blocks: list[Block], kind: str, path: str = "README.md") -> dict[str, Block]:
    """Return the blocks marked ``<!-- KIND: NAME -->`` by name.

    Raises
    ------
    ReadmeError
        When a name is marked twice, or (``kind="output"``) an unfenced-language block has
        no marker or one that names no generator of :data:`OUTPUTS`.
    """
    out: dict[str, Block] = {}
    for b in blocks:
        if kind == "output" and b.lang == "" and b.kind != "output":
            raise ReadmeError(f"{path}:{b.start}: an output block without '<!-- output: NAME -->' on the line before "
                              f"it (every output block is produced by a generator of {Path(__file__).name})")
        if b.kind != kind:
            continue
        if kind == "output" and b.name not in OUTPUTS:
            raise ReadmeError(f"{path}:{b.start}: '<!-- output: {b.name} -->' names no generator; "
                              f"known: {list(OUTPUTS)}")
        if b.name in out:
            raise ReadmeError(f"{path}:{b.start}: '<!-- {kind}: {b.name} -->' also marks line {out[b.name].start}")
        out[b.name] = b
    return out


def shell_commands(text: str) -> list[str]:
    """Return a shell block's commands: continuation lines joined, comments and blank lines dropped.

    Examples
    --------
    >>> shell_commands("# 1. map\\nmpitaskmap map -m X \\\\\\n    -o Y\\n\\nls\\n")
    ['mpitaskmap map -m X -o Y', 'ls']
    """
    out, pending = [], ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1].strip() + " "
            continue
        out.append(pending + line.strip())
        pending = ""
    if pending:
        out.append(pending.strip())
    return out


def find_command(commands: list[str], text: str, where: str = "README.md") -> str:
    """Return the one command containing ``text``; of a chain ``a && b``, only the part containing it.

    Raises
    ------
    ReadmeError
        When no command, or more than one, contains ``text``.

    Examples
    --------
    >>> find_command(["pip install . && mpiexec -n 16 python demo.py"], "demo.py")
    'mpiexec -n 16 python demo.py'
    """
    parts = [p.strip() for c in commands for p in c.split(" && ") if text in p]
    if len(parts) != 1:
        raise ReadmeError(f"{where}: expected one command containing {text!r}; found {len(parts)}: {parts}")
    return parts[0]


def command_env() -> dict[str, str]:
    """The environment the commands run in: this Python's directory first on PATH, one thread, no MPITASKMAP_*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MPITASKMAP_")}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["OMP_NUM_THREADS"] = "1"
    return env


def run_command(command: str, cwd: str | Path, *, env: dict[str, str] | None = None, timeout: float = 900,
                where: str = "README.md") -> str:
    """Run one README command with bash in ``cwd``; return its standard output.

    Raises
    ------
    ReadmeError
        When it exits non-zero or outlives ``timeout`` seconds (the message holds its stderr).
    """
    try:
        proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=env or command_env(), capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ReadmeError(f"{where}: {command!r} ran past {timeout:g} s") from None
    if proc.returncode != 0:
        raise ReadmeError(f"{where}: {command!r} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def skip_reason(output: Output) -> str | None:
    """Why ``output`` cannot be generated here (SimGrid missing), or None."""
    if not output.simgrid:
        return None
    from mpitaskmap.sim.simgrid import simgrid_missing

    return simgrid_missing(compiler=True)


def generate(output: Output, shells: dict[str, Block], *, timeout: float = 900, path: str = "README.md") -> str:
    """Run ``output``'s commands as README.md writes them; return the block's new text.

    Raises
    ------
    ReadmeError
        When its shell block is missing or a command fails.
    """
    if output.shell not in shells:
        raise ReadmeError(f"{path}: no '<!-- shell: {output.shell} -->' block, which output {output.name!r} runs")
    block = shells[output.shell]
    where = f"{path}:{block.start} (shell: {output.shell})"
    commands = shell_commands(block.text)
    with tempfile.TemporaryDirectory(prefix=f"readme-{output.name}-") as work:
        os.symlink(ROOT / "examples", os.path.join(work, "examples"))
        env = command_env()
        for text in output.setup:
            run_command(find_command(commands, text, where), work, env=env, timeout=timeout, where=where)
        stdout = run_command(find_command(commands, output.command, where), work, env=env, timeout=timeout,
                             where=where)
    lines = [line.rstrip() for line in stdout.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(line + "\n" for line in lines)


def header_cells(header: str) -> list[tuple[int, str]]:
    """Return (end, text) of each cell of a table header (cells are apart by two spaces or more).

    Examples
    --------
    >>> header_cells("method   WH  laptop wall s")
    [(6, 'method'), (11, 'WH'), (26, 'laptop wall s')]
    """
    return [(m.end(), m.group()) for m in re.finditer(r"\S+(?: \S+)*", header)]


def row_spans(cells: list[tuple[int, str]], line: str) -> list[tuple[int, int]]:
    """Return the (start, end) of each cell of a row under a header of :func:`header_cells`.

    The first column (the name) is left-aligned and may run past its header; every other
    column is right-aligned under its header, so it spans from the end of the cell before it
    (or of the name) to its header's end.

    Examples
    --------
    >>> line = "geometric  17,008    0.001"
    >>> [line[a:b].strip() for a, b in row_spans(header_cells("method         WH  seconds"), line)]
    ['geometric', '17,008', '0.001']
    """
    name_end = len(line) - len(line.lstrip()) + len(line.split()[0]) if line.strip() else 0
    spans, start = [], 0
    for i, (end, _) in enumerate(cells):
        if i == 0:
            spans.append((0, name_end))
            start = name_end
        else:
            spans.append((min(start, end), end))
            start = end
    return spans


def is_row(line: str) -> bool:
    """Whether a line is a table row: a name, then values only (numbers, ``n/a``, ``-``).

    Examples
    --------
    >>> is_row("geometric  17,008  0.7382  8.766e-06  -64.3%"), is_row("times of one step: ...")
    (True, False)
    """
    tokens = line.split()
    return len(tokens) >= 2 and all(_VALUE.match(t) for t in tokens[1:])


def masked(text: str, output: Output) -> list[list[str]]:
    """Return the lines of an output as token lists, the fields that vary replaced by ``*``.

    In the rows (:func:`is_row`) under a header with a cell matching ``output.vary_columns``,
    that column's text (:func:`row_spans`) becomes ``*``.  On a line matching
    ``output.vary_lines``, everything after the match becomes ``*``.

    Examples
    --------
    >>> o = Output("x", "x", "x", vary_columns=r"^seconds$", vary_lines=r"^took:")
    >>> masked("name   WH  seconds\\nid  1,024    0.003\\ntook: 3 s\\n", o)
    [['name', 'WH', 'seconds'], ['id', '1,024', '*'], ['took:', '*']]
    """
    out, cells, vary = [], [], []
    for line in text.rstrip("\n").splitlines():
        line = line.rstrip()
        if output.vary_lines:
            m = re.search(output.vary_lines, line)
            if m:
                line = line[:m.end()] + " *"
        if output.vary_columns:
            here = header_cells(line)
            hit = [i for i, (_, cell) in enumerate(here) if i and re.search(output.vary_columns, cell)]
            if hit:
                cells, vary = here, hit
            elif vary and is_row(line):
                spans = row_spans(cells, line)
                for i in reversed(vary):
                    lo, hi = spans[i]
                    if line[lo:hi].strip():
                        line = line[:lo] + " * " + line[hi:]
        out.append(line.split())
    return out


def stale_lines(readme_text: str, fresh: str, output: Output, first_line: int, path: str = "README.md") -> list[str]:
    """Return the differences between README.md's copy and a fresh run, fields that vary excepted.

    Each difference is ``PATH:LINE: README: ... | run: ...`` ([] when current); lines are
    aligned as ``diff`` aligns them, so one added line is one difference, ``(no line)`` on the
    README's side.

    Examples
    --------
    >>> o = OUTPUTS["offline-compare"]
    >>> stale_lines("m  WH  seconds\\nid  8    0.1\\n", "m  WH  seconds\\nid  9    0.2\\n", o, 10)
    ["README.md:11: README: 'id  8    0.1' | run: 'id  9    0.2'"]
    >>> stale_lines("a\\nc\\n", "a\\nb\\nc\\n", o, 10)
    ["README.md:11: README: '(no line)' | run: 'b'"]
    """
    old, new = masked(readme_text, output), masked(fresh, output)
    raw_old, raw_new = readme_text.splitlines(), fresh.splitlines()
    out = []
    matcher = difflib.SequenceMatcher(None, [tuple(t) for t in old], [tuple(t) for t in new], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            was = raw_old[i1 + k].rstrip() if i1 + k < i2 else "(no line)"
            now = raw_new[j1 + k].rstrip() if j1 + k < j2 else "(no line)"
            out.append(f"{path}:{first_line + min(i1 + k, max(i2 - 1, i1))}: README: {was!r} | run: {now!r}")
    return out


def replace_block(text: str, block: Block, new: str) -> str:
    """Return ``text`` with ``block``'s content replaced by ``new``."""
    lines = text.splitlines(keepends=True)
    return "".join(lines[:block.start]) + new + "".join(lines[block.end - 1:])


def main(argv=None) -> int:
    """Run the generators; write README.md's output blocks or check them (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the output blocks from fresh runs")
    mode.add_argument("--check", action="store_true", help="compare them with fresh runs; exit 1 when one is stale")
    ap.add_argument("--readme", default=str(README), help="the Markdown file (default: the repository's README.md)")
    ap.add_argument("--only", default="", help=f"comma-separated generators (default all: {','.join(OUTPUTS)})")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per command (default 900)")
    args = ap.parse_args(argv)
    name = Path(args.readme).name
    only = [n for n in args.only.split(",") if n] or list(OUTPUTS)
    unknown = [n for n in only if n not in OUTPUTS]
    if unknown:
        ap.error(f"--only: unknown generator {unknown[0]!r}; known: {list(OUTPUTS)}")
    text = Path(args.readme).read_text(encoding="utf-8")
    try:
        blocks = read_blocks(text, name)
        outputs, shells = marked(blocks, "output", name), marked(blocks, "shell", name)
        missing = [n for n in OUTPUTS if n not in outputs]
        if missing:
            raise ReadmeError(f"{name}: no '<!-- output: {missing[0]} -->' block (generators: {list(OUTPUTS)})")
    except ReadmeError as exc:
        print(f"readme_outputs: {exc}", file=sys.stderr)
        return 2
    status, new_text = 0, text
    for n in only:
        output, block = OUTPUTS[n], outputs[n]
        why = skip_reason(output)
        if why:
            print(f"readme_outputs: skipped {n} ({name}:{block.start}): {why}", file=sys.stderr)
            continue
        try:
            fresh = generate(output, shells, timeout=args.timeout, path=name)
        except ReadmeError as exc:
            print(f"readme_outputs: {n}: {exc}", file=sys.stderr)
            status = 2
            continue
        if args.write:
            current = marked(read_blocks(new_text, name), "output", name)[n]
            new_text = replace_block(new_text, current, fresh)
            print(f"readme_outputs: {n} ({name}:{current.start}): {'unchanged' if fresh == block.text else 'rewritten'}")
            continue
        diff = stale_lines(block.text, fresh, output, block.first_line, name)
        if diff:
            status = max(status, 1)
            print(f"readme_outputs: {n} ({name}:{block.start}) is stale, {len(diff)} line(s) differ "
                  f"(beyond the fields that vary):", file=sys.stderr)
            for line in diff:
                print("  " + line, file=sys.stderr)
        else:
            print(f"readme_outputs: {n} ({name}:{block.start}): current")
    if args.write and new_text != text:
        Path(args.readme).write_text(new_text, encoding="utf-8")
    if status == 1:
        print(f"readme_outputs: regenerate with: {WRITE_COMMAND}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
