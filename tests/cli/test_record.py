"""``mpitaskmap record`` (mpitaskmap/cli/record.py): the command runs with the recorder, its status kept.

A fake launcher (a shell script) writes down the environment it got and writes a recording
where ``MPITASKMAP_RECORD`` says; one real run records tests/pmpi_programs/traffic.c's ring
under the MPICH wheel's ``mpiexec -n 4``.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mpitaskmap.cli import COMMANDS, main
from mpitaskmap.cli.record import summary
from mpitaskmap.graphs.recording import read_recording
from mpitaskmap.runtime import pmpi

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
try:
    MPICC: str | None = pmpi.find_mpicc()
except FileNotFoundError:
    MPICC = None
NO_MPICH = None if (BIN / "mpiexec").is_file() and MPICC else "no mpiexec/mpicc next to this Python (pip install mpich)"
pytestmark = [pytest.mark.timeout(600), pytest.mark.skipif(NO_MPICH is not None, reason=str(NO_MPICH))]

#: What the fake launcher writes: 3 ranks, 0 -> 1 900 bytes in 3 messages, 1 -> 2 90 in 3, 2 -> 0 30 in 1,
#: 1 -> 1 8 in 1 (to itself).
BYTES = "3 3 4\n1 2 900\n2 2 8\n2 3 90\n3 1 30\n"
COUNTS = "3 3 4\n1 2 3\n2 2 1\n2 3 3\n3 1 1\n"
JOB = ('{"format": "mpitaskmap traffic recording", "version": 1, "ranks": 3, "nodes": 1, "ranks_per_node": 3, '
       '"mpi_library": "Fake MPI 1.0", "duration_s": 2.5, "window": null}')


def fake_launcher(tmp_path: Path, status: int = 0, write: bool = True) -> Path:
    """A launcher that saves its environment's LD_PRELOAD and MPITASKMAP_RECORD, writes a recording, exits ``status``."""
    script = tmp_path / "fake-mpiexec"
    body = ['#!/bin/sh', f'printf "%s\\n%s\\n" "$LD_PRELOAD" "$MPITASKMAP_RECORD" > "{tmp_path}/env.txt"',
            'echo "app output $*"']
    if write:
        body += [f'printf "%%%%MatrixMarket matrix coordinate real general\\n{BYTES}" > "$MPITASKMAP_RECORD"',
                 f'printf "%%%%MatrixMarket matrix coordinate integer general\\n{COUNTS}" > '
                 '"$MPITASKMAP_RECORD.counts.mtx"',
                 f"printf '%s\\n' '{JOB}' > \"$MPITASKMAP_RECORD.json\""]
    body.append(f"exit {status}")
    script.write_text("\n".join(body) + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.fixture(scope="module")
def lib() -> str:
    return str(pmpi.pmpi_library())


def test_record_is_a_registered_subcommand_with_examples(capsys):
    assert "record" in COMMANDS
    assert main(["record", "--help"]) == 0
    out = capsys.readouterr().out
    assert "mpitaskmap record -o traffic.mtx -- mpiexec -n 64 ./app input.deck" in out and "exit status:" in out


def test_the_command_gets_the_library_and_the_path_and_its_status_is_returned(tmp_path, capfd, lib, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LD_PRELOAD", "libm.so.6")  # one already there: the library goes first
    script = fake_launcher(tmp_path, status=3)
    assert main(["record", "-o", "traffic.mtx", "--", str(script), "-n", "3", "./app"]) == 3
    preload, record = (tmp_path / "env.txt").read_text().splitlines()
    assert preload == f"{lib}:libm.so.6" and record == str(tmp_path / "traffic.mtx")
    out, err = capfd.readouterr()
    assert out == "app output -n 3 ./app\n"
    path = tmp_path / "traffic.mtx"
    # K = 3: the most messages of a pair of distinct ranks (1 -> 1's are its own)
    assert err == (
        f"mpitaskmap record: wrote {path}: 3 ranks on 1 node (Fake MPI 1.0), 2.5 s\n"
        "  recorded 1,028 bytes in 8 messages between 3 pairs (8 bytes to themselves left out); 3 rounds (the most "
        "messages of a pair): one round = bytes / 3\n"
        "  top 3 pairs by bytes (ranks from 0):\n"
        "         0 -> 1      900 bytes in 3 messages\n"
        "         1 -> 2       90 bytes in 3 messages\n"
        "         2 -> 0       30 bytes in 1 messages\n")
    assert read_recording(path).graph.weights.tolist() == [300.0, 30.0, 10.0]


def test_no_recording_is_one_line_and_the_status_unchanged(tmp_path, capfd, monkeypatch):
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    out = tmp_path / "t.mtx"
    assert main(["record", "-o", str(out), "--", str(fake_launcher(tmp_path, status=0, write=False))]) == 0
    err = capfd.readouterr().err
    assert err.startswith(f"mpitaskmap record: no recording was written to {out}: the ranks did not reach "
                          "MPI_Finalize with the library loaded") and err.count("\n") == 1
    assert main(["record", "-o", str(out), "--", str(fake_launcher(tmp_path, status=5, write=False))]) == 5
    assert capfd.readouterr().err == (f"mpitaskmap record: no recording was written to {out}: the command exited "
                                      "with status 5 (the recording is written at MPI_Finalize)\n")
    # an old recording of the same name is not taken for a new one
    (tmp_path / "w").mkdir()
    fake = fake_launcher(tmp_path / "w", status=0)
    assert main(["record", "-q", "-o", str(out), "--", str(fake)]) == 0 and out.is_file()
    old = out.stat().st_mtime - 10
    for p in (out, Path(f"{out}.json")):
        os.utime(p, (old, old))
    assert main(["record", "-o", str(out), "--", str(fake_launcher(tmp_path, write=False))]) == 0
    assert "no recording was written" in capfd.readouterr().err


def test_bad_command_lines_and_commands_that_cannot_start(tmp_path, capfd):
    assert main(["record", "-o", "t.mtx", "mpiexec"]) == 2
    assert "expected '-- LAUNCHER ARGS...'" in capfd.readouterr().err
    assert main(["record", "-o", str(tmp_path / "t.mtx"), "--", str(tmp_path / "no-such-launcher")]) == 127
    assert "cannot start" in capfd.readouterr().err
    assert main(["record", "-o", str(tmp_path / "nodir" / "t.mtx"), "--", "true"]) == 2
    assert "no such directory" in capfd.readouterr().err


def test_a_library_that_cannot_be_built_runs_nothing(tmp_path, capfd):
    script = fake_launcher(tmp_path)
    assert main(["record", "-o", str(tmp_path / "t.mtx"), "--mpicc", "/no/such/mpicc", "--", str(script)]) == 1
    assert capfd.readouterr().err == ("mpitaskmap record: error: cannot build the PMPI library, nothing was run: the "
                                      "MPI C compiler '/no/such/mpicc' (the argument) is not an executable file or on "
                                      "PATH\n")
    assert not (tmp_path / "env.txt").exists()


def test_a_real_ring_under_mpiexec(tmp_path):
    # traffic ring: r sends (r + 1) ints to r + 1 four times (tests/pmpi_programs/traffic.c)
    exe = tmp_path / "traffic"
    subprocess.run([MPICC, "-O2", "-pthread", "-o", str(exe), str(ROOT / "tests/pmpi_programs/traffic.c")],
                   check=True, capture_output=True, timeout=120)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MPITASKMAP_") and k != "LD_PRELOAD"}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    out = tmp_path / "ring.mtx"
    res = subprocess.run([sys.executable, "-m", "mpitaskmap", "record", "-o", str(out), "--", "mpiexec", "-n", "4",
                          str(exe), "ring"], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert res.returncode == 0 and res.stdout == "done ring\n", (res.stdout, res.stderr)
    lines = res.stderr.splitlines()
    assert lines[0].startswith(f"mpitaskmap record: wrote {out}: 4 ranks on 1 node (MPICH Version:"), lines
    assert lines[1:] == [
        "  recorded 160 bytes in 16 messages between 4 pairs; 4 rounds (the most messages of a pair): one round = "
        "bytes / 4",
        "  top 4 pairs by bytes (ranks from 0):",
        "         3 -> 0      64 bytes in 4 messages",
        "         2 -> 3      48 bytes in 4 messages",
        "         1 -> 2      32 bytes in 4 messages",
        "         0 -> 1      16 bytes in 4 messages"]
    rec = read_recording(out)
    assert {(int(s), int(d)): w for s, d, w in zip(rec.graph.sources(), rec.graph.indices, rec.graph.weights)} == {
        (r, (r + 1) % 4): 4.0 * (r + 1) for r in range(4)}
    assert summary(str(out)).splitlines()[1:] == lines[1:]
