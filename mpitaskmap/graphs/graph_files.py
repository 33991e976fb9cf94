"""Task-graph files parsed to arrays: communication matrices, traffic recordings, Open MPI's monitoring.

The one parser of each graph file form, below :class:`~mpitaskmap.graphs.taskgraph.TaskGraph`
(which builds graphs from what it returns: :meth:`~.taskgraph.TaskGraph.from_file`), used by
the command line's ``-t`` forms and by :mod:`~.recording` (the :class:`~.recording.Recording`
of a recorded run).  Forms:

* a communication matrix: Matrix Market ``matrix coordinate`` or dense rows of numbers
  (:func:`matrix_edges`);
* the PMPI recorder's recording ``PATH``, ``PATH.counts.mtx``, ``PATH.json``
  (:func:`parse_recording`);
* Open MPI's pml monitoring files ``PREFIX.<rank>.prof`` (:func:`parse_ompi_monitoring`).

A recording is turned into the graph of one round of the run by :func:`round_edges` (the
message model: :mod:`~.recording`).  Every error names the file and, where there is one, the
line and its text.
"""

from __future__ import annotations

import glob
import io
import json
import os
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InvalidInputError

__all__ = ["RECORDING_FORMAT", "RECORDING_VERSIONS", "OMPI_KINDS", "MatrixEntries", "RecordedPairs", "is_matrix_market",
           "read_number_rows", "read_matrix_entries", "matrix_edges", "is_recording", "parse_recording",
           "ompi_monitoring_files", "is_ompi_monitoring", "parse_ompi_monitoring", "round_edges", "read_graph_edges", "is_pattern_matrix"]


def is_matrix_market(path: str | os.PathLike) -> bool:
    """Return whether the file's first line is a Matrix Market header (``%%MatrixMarket``).

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    bool
    """
    with open(path, encoding="utf-8") as fh:
        return fh.readline().lower().startswith("%%matrixmarket")


def read_number_rows(path: str | os.PathLike) -> tuple[np.ndarray, list[int]]:
    """Read rows of numbers (separated by spaces or commas); ``#`` comments and blank lines skipped.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    rows : (n_rows, n_columns) ndarray of float64
    lines : list of int
        The file's line number of every row (for messages).

    Raises
    ------
    InvalidInputError
        On a row that is not numbers, rows of different lengths, or no row at all (naming the
        file and the line).
    """
    rows: list[list[float]] = []
    lines: list[int] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            line = raw.split("#", 1)[0].replace(",", " ").split()
            if not line:
                continue
            try:
                row = [float(v) for v in line]
            except ValueError:
                raise InvalidInputError(f"{path}:{lineno}: expected numbers; got {raw.strip()!r}") from None
            if rows and len(row) != len(rows[0]):
                raise InvalidInputError(f"{path}:{lineno}: expected {len(rows[0])} numbers like the first row; "
                                        f"got {len(row)}")
            rows.append(row)
            lines.append(lineno)
    if not rows:
        raise InvalidInputError(f"{path}: no rows of numbers found")
    return np.asarray(rows, dtype=np.float64), lines


@dataclass(frozen=True)
class MatrixEntries:
    """The entries of a square Matrix Market ``matrix coordinate`` file, as written (0-based).

    Attributes
    ----------
    n : int
        Rows (= columns) of the size line.
    rows, cols : (n_entries,) ndarray of int64
        0-based row and column of every entry, in file order (symmetric files: as stored).
    values : (n_entries,) ndarray of float64
        The values (1.0 for ``pattern`` files).
    lines : (n_entries,) ndarray of int64
        The file's line number of every entry (for messages).
    field : str
        The header's field: ``real``, ``integer``, ``pattern`` ...
    symmetry : str
        The header's symmetry: ``general``, ``symmetric`` ...
    """

    n: int
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    lines: np.ndarray
    field: str
    symmetry: str


def read_matrix_entries(path: str | os.PathLike, *, fields: tuple[str, ...] | None = None) -> MatrixEntries:
    """Read a square Matrix Market ``matrix coordinate`` file: its size and entries, checked.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    fields : tuple of str, optional
        The header fields accepted (e.g. ``("integer",)`` for message counts); default any.

    Returns
    -------
    MatrixEntries

    Raises
    ------
    InvalidInputError
        Naming the file and line: a header other than ``%%MatrixMarket matrix coordinate FIELD
        SYMMETRY`` (or a field not in ``fields``), a missing or malformed size line, a matrix
        that is not square, an entry that is not ``ROW COLUMN VALUE``, a non-finite value, an
        index outside the size line's range.
    """
    with open(path, encoding="utf-8") as fh:
        first = fh.readline()
        header = first.lower().split()
        if len(header) < 5 or header[0] != "%%matrixmarket" or header[1] != "matrix" or header[2] != "coordinate":
            raise InvalidInputError(f"{path}:1: only Matrix Market 'matrix coordinate' files are read; "
                                    f"got {' '.join(header)!r}")
        value_field, symmetry = header[3], header[4]
        if fields is not None and value_field not in fields:
            raise InvalidInputError(f"{path}:1: expected a Matrix Market 'matrix coordinate "
                                    f"{'|'.join(fields)} ...' file; got {first.strip()!r}")
        size_line, size_text = 1, ""
        for size_line, size_text in enumerate(fh, start=2):  # comments and blank lines before the size line
            if size_text.strip() and not size_text.startswith("%"):
                break
        else:
            raise InvalidInputError(f"{path}: no size line")
        body = fh.read()
    try:
        n_rows, n_cols, _ = (int(v) for v in size_text.split()[:3])
    except ValueError:
        raise InvalidInputError(f"{path}:{size_line}: expected the size line 'ROWS COLUMNS ENTRIES'; "
                                f"got {size_text.strip()!r}") from None
    if n_rows != n_cols:
        raise InvalidInputError(f"{path}:{size_line}: a communication matrix is square; got {n_rows} x {n_cols}")
    fast = _entries_at_once(body, size_line, value_field, n_rows)
    if fast is not None:
        return MatrixEntries(n_rows, *fast, value_field, symmetry)
    lines = [(i, ln) for i, ln in enumerate(body.splitlines(), start=size_line + 1)
             if ln.strip() and not ln.startswith("%")]
    src_l, dst_l, w_l, line_l = [], [], [], []
    want = 2 if value_field == "pattern" else 3
    for lineno, text in lines:  # line by line: the first bad line, named
        e = text.split()
        try:
            i, j = int(e[0]), int(e[1])
            w_l.append(1.0 if value_field == "pattern" else float(e[2]))
        except (ValueError, IndexError):
            raise InvalidInputError(f"{path}:{lineno}: expected {want} numbers 'ROW COLUMN"
                                    f"{'' if want == 2 else ' VALUE'}' (1-based indices); got {text.strip()!r}") from None
        if not np.isfinite(w_l[-1]):
            raise InvalidInputError(f"{path}:{lineno}: the value must be finite (a volume); got {text.strip()!r}")
        if not (1 <= i <= n_rows and 1 <= j <= n_cols):
            raise InvalidInputError(f"{path}:{lineno}: index outside 1..{n_rows} (the size line's); "
                                    f"got {text.strip()!r}")
        src_l.append(i - 1)
        dst_l.append(j - 1)
        line_l.append(lineno)
    return MatrixEntries(n_rows, np.asarray(src_l, dtype=np.int64), np.asarray(dst_l, dtype=np.int64),
                         np.asarray(w_l, dtype=np.float64), np.asarray(line_l, dtype=np.int64), value_field, symmetry)


def _entries_at_once(body: str, size_line: int, value_field: str, n: int) -> tuple | None:
    """The entries after the size line parsed by NumPy in one pass (a million in about a second),
    with their line numbers; None when the body holds comments or blank lines, or any line is not
    as it should be: the line-by-line loop then reads it and names the line at fault."""
    if not body.strip() or "\n%" in body or body.startswith("%") or "\n\n" in body.rstrip("\n") + "\n":
        return None
    pattern = value_field == "pattern"
    kinds = [("i", np.int64), ("j", np.int64)] + ([] if pattern else [("v", np.float64)])
    try:
        rows = np.loadtxt(io.StringIO(body), dtype=kinds, usecols=range(len(kinds)), ndmin=1, comments=None)
    except ValueError:
        return None
    i, j = rows["i"], rows["j"]
    v = np.ones(i.size) if pattern else rows["v"]
    if not (np.isfinite(v).all() and (i >= 1).all() and (i <= n).all() and (j >= 1).all() and (j <= n).all()):
        return None
    return i - 1, j - 1, v.astype(np.float64), size_line + 1 + np.arange(i.size, dtype=np.int64)


def matrix_edges(path: str | os.PathLike) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """Read a communication matrix file: Matrix Market ``matrix coordinate``, else dense rows.

    Parameters
    ----------
    path : str or os.PathLike
        Matrix Market (``real``, ``integer`` or ``pattern``; ``general`` or ``symmetric``,
        1-based, row sends to column) when the first line says so; else dense rows of numbers
        (row ``i``, column ``j`` = volume task ``i`` sends to task ``j``; ``#`` comments).

    Returns
    -------
    (n, src, dst, weights)
        Tasks and the edges (0-based; not merged): zeros dropped; from Matrix Market also the
        diagonal (a task to itself), a symmetric file's entries stored both ways, a value's
        sign dropped.

    Raises
    ------
    InvalidInputError
        Naming the file and the line (:func:`read_matrix_entries`, :func:`read_number_rows`);
        a dense matrix that is not square or holds a negative or non-finite number.
    """
    if not is_matrix_market(path):
        m, rows = read_number_rows(path)
        if m.shape[0] != m.shape[1]:
            raise InvalidInputError(f"{path}: a communication matrix is square; got {m.shape[0]} rows of "
                                    f"{m.shape[1]} numbers")
        bad = ~np.isfinite(m) | (m < 0)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            raise InvalidInputError(f"{path}:{rows[i]}: number {j + 1} of the row must be finite and >= 0 (a volume); "
                                    f"got {float(m[i, j])!r}")
        src, dst = np.nonzero(m)
        return m.shape[0], src.astype(np.int64), dst.astype(np.int64), m[src, dst]
    e = read_matrix_entries(path)
    src, dst, w = e.rows, e.cols, e.values
    if e.symmetry in ("symmetric", "skew-symmetric", "hermitian"):
        off = src != dst
        src, dst, w = np.concatenate([src, dst[off]]), np.concatenate([dst, src[off]]), np.concatenate([w, np.abs(w[off])])
    keep = (src != dst) & (w != 0)
    return e.n, src[keep], dst[keep], np.abs(w[keep])


#: The ``format`` of a recording's JSON sidecar.
RECORDING_FORMAT = "mpitaskmap traffic recording"
#: The sidecar versions this reader knows.
RECORDING_VERSIONS = (1,)
#: Line kinds of Open MPI's monitoring files (``common_monitoring.c``): what each one counts.
OMPI_KINDS = {
    "E": "point-to-point messages of the application (tags >= 0; with pml_monitoring_enable 1 every message)",
    "I": "internal messages (tags < 0: collectives' and protocol messages; pml_monitoring_enable 2)",
    "S": "one-sided data sent (osc monitoring)",
    "R": "one-sided data received (osc monitoring)",
    "C": "collectives' data per peer (coll monitoring)",
}


@dataclass(frozen=True)
class RecordedPairs:
    """What a recording holds, parsed: the (sender, receiver) pairs, their bytes and messages, the job.

    Attributes
    ----------
    path : str
        The file read (the bytes matrix, or Open MPI's prefix).
    source : str
        ``"mpitaskmap"`` (the PMPI recorder) or ``"openmpi-monitoring"``.
    n : int
        Ranks.
    src, dst : (n_pairs,) ndarray of int64
        Sender and receiver (0-based world ranks), every pair once (a rank to itself included).
    nbytes : (n_pairs,) ndarray of float64
        Bytes of every pair.
    msgs : (n_pairs,) ndarray of int64 or None
        Messages of every pair (None: the recording has no counts).
    job : dict
        The JSON sidecar's fields (empty without one).
    left_out : str
        What the source recorded and the pairs leave out (empty if nothing).
    """

    path: str
    source: str
    n: int
    src: np.ndarray
    dst: np.ndarray
    nbytes: np.ndarray
    msgs: np.ndarray | None
    job: dict
    left_out: str = ""


def round_edges(pairs: RecordedPairs) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, float]:
    """The edges of one round of a recorded run (the message model of :mod:`~.recording`).

    Parameters
    ----------
    pairs : RecordedPairs

    Returns
    -------
    (src, dst, weights, rounds, self_bytes)
        The pairs of distinct ranks with weight = bytes / ``rounds``; ``rounds`` K = the most
        messages of such a pair (1 without counts, or without such pairs); the bytes of ranks
        to themselves (left out).

    Examples
    --------
    >>> p = RecordedPairs("t", "mpitaskmap", 2, np.array([0, 1, 1]), np.array([1, 0, 1]),
    ...                   np.array([30.0, 10.0, 7.0]), np.array([3, 1, 9]), {})
    >>> src, dst, w, k, own = round_edges(p)
    >>> w.tolist(), k, own
    ([10.0, 3.3333333333333335], 3, 7.0)
    """
    off = pairs.src != pairs.dst
    rounds = int(pairs.msgs[off].max()) if pairs.msgs is not None and off.any() else 1
    rounds = max(rounds, 1)
    return (pairs.src[off], pairs.dst[off], pairs.nbytes[off] / rounds, rounds,
            float(pairs.nbytes[~off].sum()))


def _sidecar(path: str) -> dict[str, Any] | None:
    """The recording's JSON sidecar ``PATH.json`` checked (None when there is none)."""
    name = f"{path}.json"
    if not os.path.exists(name):
        return None
    try:
        with open(name, encoding="utf-8") as fh:
            job = json.load(fh)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{name}:{exc.lineno}: not JSON: {exc.msg}") from None
    if not isinstance(job, dict) or job.get("format") != RECORDING_FORMAT:
        got = job.get("format") if isinstance(job, dict) else type(job).__name__
        raise InvalidInputError(f"{name}: expected \"format\": {RECORDING_FORMAT!r}; got {got!r}")
    if job.get("version") not in RECORDING_VERSIONS:
        raise InvalidInputError(f"{name}: unknown recording version {job.get('version')!r}; this reader knows "
                                f"{', '.join(map(str, RECORDING_VERSIONS))} (a newer mpitaskmap wrote it?)")
    return job


def is_recording(path: str | os.PathLike) -> bool:
    """Return whether ``path`` is a recording: a file with ``PATH.json`` or ``PATH.counts.mtx`` beside it.

    Parameters
    ----------
    path : str or os.PathLike
        The bytes matrix.

    Returns
    -------
    bool
    """
    p = os.fspath(path)
    return os.path.isfile(p) and (os.path.exists(f"{p}.json") or os.path.exists(f"{p}.counts.mtx"))


def parse_recording(path: str | os.PathLike) -> RecordedPairs:
    """Parse a traffic recording of the PMPI recorder: ``PATH``, ``PATH.counts.mtx``, ``PATH.json``.

    Parameters
    ----------
    path : str or os.PathLike
        The bytes matrix (``PATH.json`` also names it).  The counts file and the sidecar are
        read when they exist: without counts the graph is the run's bytes (1 round), without
        the sidecar the job's fields are None.

    Returns
    -------
    RecordedPairs

    Raises
    ------
    InvalidInputError
        Naming the file and the line: a header other than Matrix Market ``matrix coordinate``
        (real or integer for the bytes, integer for the counts; ``general``), an entry out of
        range, negative bytes or counts, a pair twice, a counts entry without bytes (or bytes
        without a count), sizes that differ between the two matrices and the sidecar's
        ``ranks``, totals that differ from the sidecar's, a sidecar of another format or an
        unknown version.
    """
    p = os.fspath(path)
    if p.endswith(".json") and os.path.isfile(p[:-5]):
        p = p[:-5]
    if not os.path.isfile(p):
        raise InvalidInputError(f"{p}: no such recording (the bytes matrix PATH beside PATH.json)")
    job = _sidecar(p)
    e = read_matrix_entries(p, fields=("real", "integer"))
    _check_pairs(p, e, "bytes")
    counts_path = f"{p}.counts.mtx"
    msgs = None
    if os.path.exists(counts_path):
        c = read_matrix_entries(counts_path, fields=("integer",))
        if c.n != e.n:
            raise InvalidInputError(f"{counts_path}: {c.n} ranks (its size line) but {p} has {e.n}")
        _check_pairs(counts_path, c, "messages")
        if np.any(c.values != np.round(c.values)):
            k = int(np.flatnonzero(c.values != np.round(c.values))[0])
            raise InvalidInputError(f"{counts_path}:{int(c.lines[k])}: a message count is a whole number; "
                                    f"got {float(c.values[k])!r}")
        msgs = _align(p, e, counts_path, c)
    if job is not None and job.get("ranks") != e.n:
        raise InvalidInputError(f"{p}.json: \"ranks\": {job.get('ranks')!r} but {p} has {e.n} (its size line)")
    if job is not None:
        for key, mine in (("bytes", float(e.values.sum())), ("messages", None if msgs is None else int(msgs.sum())),
                          ("nonzeros", e.rows.size)):
            if key in job and mine is not None and job[key] != mine:
                raise InvalidInputError(f"{p}.json: \"{key}\": {job[key]!r} but the matrices hold {mine:g}")
    return RecordedPairs(p, "mpitaskmap", e.n, e.rows, e.cols, e.values, msgs, job or {}, _collectives_left_out(job))


def _collectives_left_out(job: dict | None) -> str:
    """The recorder's collective totals (``collectives_total``), which the graph leaves out; "" when none."""
    total = (job or {}).get("collectives_total")
    if not isinstance(total, dict) or not isinstance(total.get("calls"), dict):
        return ""
    calls = sum(int(v) for v in total["calls"].values())
    return f"collectives {calls:,} calls, {int(total.get('bytes', 0)):,} bytes" if calls else ""


def _check_pairs(path: str, e, what: str) -> None:
    """Non-negative values, ``general`` symmetry, no pair twice."""
    if e.symmetry != "general":
        raise InvalidInputError(f"{path}:1: a recording is 'general' (row sends to column); got {e.symmetry!r}")
    neg = np.flatnonzero(e.values < 0)
    if neg.size:
        k = int(neg[0])
        raise InvalidInputError(f"{path}:{int(e.lines[k])}: {what} must be >= 0; got {float(e.values[k])!r}")
    key = e.rows * e.n + e.cols
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[order][1:] == key[order][:-1])
    if dup.size:
        a, b = order[dup[0]], order[dup[0] + 1]
        raise InvalidInputError(f"{path}:{int(e.lines[b])}: the pair ({int(e.rows[b]) + 1}, {int(e.cols[b]) + 1}) "
                                f"again (first on line {int(e.lines[a])})")


def _align(bytes_path: str, e, counts_path: str, c) -> np.ndarray:
    """The message count of every bytes entry: the two files must hold the same pairs (each once)."""
    kb = e.rows * e.n + e.cols
    kc = c.rows * c.n + c.cols
    order = np.argsort(kb, kind="stable")
    at = np.searchsorted(kb[order], kc)
    found = at < kb.size
    found[found] = kb[order][at[found]] == kc[found]
    if not found.all():
        j = int(np.flatnonzero(~found)[0])
        raise InvalidInputError(f"{counts_path}:{int(c.lines[j])}: messages from rank {int(c.rows[j]) + 1} to "
                                f"{int(c.cols[j]) + 1} but {bytes_path} has no bytes for that pair")
    where = order[at]  # the bytes entry of every counts entry
    msgs = np.zeros(kb.size, dtype=np.int64)
    seen = np.zeros(kb.size, dtype=bool)
    msgs[where] = c.values.astype(np.int64)
    seen[where] = True
    if not seen.all():
        i = int(np.flatnonzero(~seen)[0])
        raise InvalidInputError(f"{bytes_path}:{int(e.lines[i])}: bytes from rank {int(e.rows[i]) + 1} to "
                                f"{int(e.cols[i]) + 1} but {counts_path} has no message count for that pair")
    return msgs


# -- Open MPI's monitoring ----------------------------------------------------------------------------

_PROF = re.compile(r"\.(\d+)\.prof$")
_LINE = re.compile(r"^([A-Z])\t(\d+)\t(\d+)\t(\d+) bytes\t(\d+) msgs sent(?:\t.*)?$")


def ompi_monitoring_files(prefix: str | os.PathLike) -> dict[int, str]:
    """Return Open MPI's monitoring files of ``prefix``: ``{rank: "PREFIX.<rank>.prof"}`` (empty if none).

    Parameters
    ----------
    prefix : str or os.PathLike
        What ``--mca pml_monitoring_filename`` was given.

    Returns
    -------
    dict of int to str
        The files found, by rank (gaps are :func:`read_ompi_monitoring`'s error).
    """
    pre = os.fspath(prefix)
    found = {}
    for name in glob.glob(glob.escape(pre) + ".*.prof"):
        m = _PROF.search(name)
        if m and name == f"{pre}.{m.group(1)}.prof" and m.group(1) == str(int(m.group(1))):
            found[int(m.group(1))] = name
    return dict(sorted(found.items()))


def parse_ompi_monitoring(prefix: str | os.PathLike, kinds: str = "E") -> RecordedPairs:
    """Parse Open MPI's pml monitoring output (``PREFIX.<rank>.prof``, one file per rank) as a recording.

    Open MPI (4.x, 5.x: ``ompi/mca/common/monitoring/common_monitoring.c``) writes, with
    ``--mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 --mca
    pml_monitoring_filename PREFIX``, lines ``KIND<tab>SENDER<tab>PEER<tab>N bytes<tab>M msgs
    sent[<tab>size histogram]`` in world ranks from 0 (:data:`OMPI_KINDS`), and per
    communicator ``D``/``O2A``/``A2O``/``A2A`` collective summaries.

    Parameters
    ----------
    prefix : str or os.PathLike
        ``PREFIX`` (or one of the files, ``PREFIX.0.prof``).
    kinds : str, optional
        The line kinds added into the graph (default ``"E"``: the application's point-to-point
        messages, what the PMPI recorder counts; with ``pml_monitoring_enable 1`` Open MPI
        writes every message, collectives' included, as ``E``).

    Returns
    -------
    RecordedPairs
        ``n`` = the number of files; ``left_out`` names the bytes and messages of the other kinds.

    Raises
    ------
    InvalidInputError
        No file, a rank's file missing, a line of a known kind not in Open MPI's form, a
        sender other than the file's rank, a peer outside the ranks (naming file and line),
        an unknown kind asked for.
    """
    unknown = sorted(set(kinds) - set(OMPI_KINDS))
    if unknown or not kinds:
        raise InvalidInputError(f"kinds: expected letters of {''.join(OMPI_KINDS)}; got {kinds!r}")
    pre = os.fspath(prefix)
    m = _PROF.search(pre)
    if m and os.path.isfile(pre):
        pre = pre[: m.start()]
    files = ompi_monitoring_files(pre)
    if not files:
        raise InvalidInputError(f"{pre}: no Open MPI monitoring files {pre}.<rank>.prof (mpirun --mca "
                                "pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 --mca "
                                f"pml_monitoring_filename {pre} ...)")
    n = max(files) + 1
    missing = [r for r in range(n) if r not in files]
    if missing:
        raise InvalidInputError(f"{pre}: the file of rank {missing[0]} ({pre}.{missing[0]}.prof) is missing; found "
                                f"{len(files)} files up to {files[n - 1]}")
    totals: dict[str, list[int]] = {k: [0, 0] for k in OMPI_KINDS}
    pairs: dict[tuple[int, int], list[int]] = {}
    for r, f in files.items():
        with open(f, encoding="utf-8") as fh:
            for lineno, raw in enumerate(fh, start=1):
                line = raw.rstrip("\n")
                kind = line[:1]
                if kind not in OMPI_KINDS or not line[1:2] == "\t":
                    continue  # comments, the collective summaries (D, O2A, A2O, A2A)
                mm = _LINE.match(line)
                if not mm:
                    raise InvalidInputError(f"{f}:{lineno}: expected '{kind}<tab>SENDER<tab>PEER<tab>N bytes<tab>M "
                                            f"msgs sent' (Open MPI's monitoring); got {line[:80]!r}")
                sender, peer, nbytes, nmsgs = (int(v) for v in mm.groups()[1:])
                if sender != r:
                    raise InvalidInputError(f"{f}:{lineno}: sender {sender} in the file of rank {r}")
                if peer >= n:
                    raise InvalidInputError(f"{f}:{lineno}: peer {peer} outside the {n} ranks (files {pre}.0.prof .. "
                                            f"{pre}.{n - 1}.prof)")
                totals[kind][0] += nbytes
                totals[kind][1] += nmsgs
                if kind in kinds:
                    acc = pairs.setdefault((sender, peer), [0, 0])
                    acc[0] += nbytes
                    acc[1] += nmsgs
    keys = sorted(pairs)
    src = np.array([k[0] for k in keys], dtype=np.int64)
    dst = np.array([k[1] for k in keys], dtype=np.int64)
    nbytes_a = np.array([pairs[k][0] for k in keys], dtype=np.float64)
    msgs = np.array([pairs[k][1] for k in keys], dtype=np.int64)
    left = [f"{k} {b:,} bytes in {c:,} messages" for k, (b, c) in totals.items() if k not in kinds and c]
    return RecordedPairs(pre, "openmpi-monitoring", n, src, dst, nbytes_a, msgs, {}, "; ".join(left))


def is_ompi_monitoring(path: str | os.PathLike) -> bool:
    """Return whether ``path`` names Open MPI's monitoring output: ``PREFIX`` with ``PREFIX.0.prof``, or such a file.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    bool
    """
    p = os.fspath(path)
    return bool(_PROF.search(p) and os.path.isfile(p)) or (not os.path.exists(p) and os.path.isfile(f"{p}.0.prof"))


def read_graph_edges(path: str | os.PathLike) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, RecordedPairs | None]:
    """Read any task-graph file the library knows: its edges, and its recording when it is one.

    Parameters
    ----------
    path : str or os.PathLike
        A recording (``PATH`` with ``PATH.json`` and/or ``PATH.counts.mtx`` beside it:
        :func:`parse_recording`, one round of the run: :func:`round_edges`); Open MPI's monitoring
        output (``PREFIX`` with ``PREFIX.0.prof`` beside it, or one of those files:
        :func:`parse_ompi_monitoring`); else a communication matrix, Matrix Market or dense
        (:func:`matrix_edges`).

    Returns
    -------
    (n, src, dst, weights, pairs)
        ``pairs`` None for a plain matrix; ``weights`` None for a ``pattern`` Matrix Market
        file (who talks to whom, no volumes).

    Raises
    ------
    InvalidInputError
        No such file, or what the parser of its form raises.
    """
    p = os.fspath(path)
    pairs = None
    if is_recording(p):
        pairs = parse_recording(p)
    elif is_ompi_monitoring(p):
        pairs = parse_ompi_monitoring(p)
    if pairs is not None:
        src, dst, w, _, _ = round_edges(pairs)
        return pairs.n, src, dst, w, pairs
    if not os.path.isfile(p):
        raise InvalidInputError(f"{p}: no such task-graph file (a recording, Open MPI's PREFIX.<rank>.prof, or a "
                                "matrix)")
    if p.endswith(".json") and not is_matrix_market(p):
        raise InvalidInputError(f"{p}: a recording's sidecar; give the matrix beside it ({p[:-5]})")
    n, src, dst, w = matrix_edges(p)
    return n, src, dst, (None if is_pattern_matrix(p) else w), None


def is_pattern_matrix(path: str | os.PathLike) -> bool:
    """Return whether ``path`` is a Matrix Market file of the ``pattern`` field (who talks to whom, no volumes).

    Parameters
    ----------
    path : str or os.PathLike
        An existing file.

    Returns
    -------
    bool
        Its banner's fourth word is ``pattern`` (``%%MatrixMarket matrix coordinate pattern general``).
    """
    if not is_matrix_market(path):
        return False
    with open(path, encoding="utf-8", errors="replace") as f:
        banner = f.readline().split()
    return len(banner) > 3 and banner[3].lower() == "pattern"
