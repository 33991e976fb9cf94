"""The map-file formats by name: each format's writer and reader.

Part of :mod:`mpitaskmap.mapfiles`; the formats are documented there.  A module of its own so
that :mod:`~mpitaskmap.mapfiles.detect` names the formats without importing the package.
"""

from __future__ import annotations

from typing import Callable

from .bluegene import read_bluegene_map, write_bluegene_map
from .cray import read_mpich_rank_order, write_mpich_rank_order
from .csvfile import read_mapping_csv, write_mapping_csv
from .openmpi import read_openmpi_rankfile, write_openmpi_rankfile
from .slurm import read_slurm_hostfile, write_slurm_hostfile
from .smpi import read_smpi_hostfile, write_smpi_hostfile

__all__ = ["MAP_FORMATS"]

#: Every map-file format: name -> (writer, reader).
MAP_FORMATS: dict[str, tuple[Callable, Callable]] = {
    "bluegene": (write_bluegene_map, read_bluegene_map),
    "mpich_rank_order": (write_mpich_rank_order, read_mpich_rank_order),
    "csv": (write_mapping_csv, read_mapping_csv),
    "openmpi_rankfile": (write_openmpi_rankfile, read_openmpi_rankfile),
    "slurm_hostfile": (write_slurm_hostfile, read_slurm_hostfile),
    "smpi_hostfile": (write_smpi_hostfile, read_smpi_hostfile),
}
