#!/bin/bash
# MiniGhost-style demo on an IBM Blue Gene/Q (5-D torus A-E) with runjob, under Cobalt
# (ALCF Mira/Cetus/Vesta style: `qsub -A PROJECT -n 512 -t 30 --mode script bgq_runjob.sh`).
# For LoadLeveler sites (JUQUEEN, FERMI) put runjob in a LoadLeveler script instead.
#
# Provider `bgq`: every rank calls MPIX_Rank2torus (IBM's MPICH/PAMI, already loaded by
# mpi4py) for its A..E coordinate.  The torus lengths come from MPITASKMAP_BGQ_SHAPE;
# set it to the block's shape (unset, the job's bounding box is used, which equals the
# block when the job fills it).  Common block shapes (nodes: AxBxCxDxE):
#     32: 2x2x2x2x2   64: 2x2x4x2x2   128: 2x2x4x4x2   256: 4x2x4x4x2
#    512: 4x4x4x4x2 (midplane)   1024: 4x4x4x8x2 (rack)   2048: 4x4x8x8x2
# Wrap flags: MPITASKMAP_BGQ_WRAP (default all 1; blocks of a midplane or more are tori).
# If the MPIX symbols are not found, set MPITASKMAP_BGQ_LIB to the MPI library path.
#
# EDIT: NODES, RPN, the shape, the task grid, the Python path (a BG/Q build of Python with
# mpi4py compiled by the BG/Q MPI wrappers, e.g. mpicc from /bgsys/drivers/ppcfloor/comm).
set -euo pipefail

NODES=${COBALT_PARTSIZE:-512}           # EDIT if not run under Cobalt
RPN=16                                  # EDIT: ranks per node (1..64)
NP=$((NODES * RPN))
SHAPE=${SHAPE:-4x4x4x4x2}               # EDIT: the block's AxBxCxDxE (table above)
GRID=${GRID:-32x16x16}                  # EDIT: PX*PY*PZ = NP
BLOCK=${COBALT_PARTNAME:-EDIT_ME}       # EDIT if not run under Cobalt
PYTHON=${PYTHON:-/soft/interpreters/python/bin/python}   # EDIT: BG/Q Python with mpi4py
SRC=$(cd "$(dirname "$0")/.." && pwd)

# --mapping ABCDET is runjob's default rank order (T fastest: a node's ranks are consecutive).
runjob --block "$BLOCK" --np "$NP" --ranks-per-node "$RPN" --mapping ABCDET \
    --envs MPITASKMAP_PROVIDER=bgq --envs MPITASKMAP_BGQ_SHAPE="$SHAPE" \
    --envs MPITASKMAP_LOG=info --envs PYTHONPATH="$SRC" \
    : "$PYTHON" -m mpi4py "$SRC/examples/minighost.py" --provider bgq --grid "$GRID" --steps 20
