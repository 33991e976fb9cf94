#!/bin/bash
# MiniGhost-style demo on a Fujitsu A64FX machine (Tofu-D 6-D torus: Fugaku, FX1000/FX700)
# under the Fujitsu job manager (pjsub) and Fujitsu MPI's mpiexec.
#
# Provider `fjmpi`: every rank asks Fujitsu MPI (FJMPI_Topology_get_coords, in the MPI library
# mpi4py loaded, or MPITASKMAP_FJMPI_LIB) for the Tofu coordinate (X, Y, Z, A, B, C) of its
# node.  The torus's X x Y x Z: MPITASKMAP_FJMPI_SHAPE (or fjmpi:shape=24x23x24); unset, the
# job's bounding box is used, as a mesh (the job cannot assume the wrap-around links of a
# box it only part-fills).
#
# EDIT: the #PJM lines (group, resource group, nodes and their shape), the venv path (a
# Python whose mpi4py is built with Fujitsu MPI's mpifcc), RPN and the task grid.
# Submit with:  pjsub launch_scripts/fugaku_pjsub.sh
#PJM -g EDIT_ME
#PJM -L "rscgrp=small"
#PJM -L "node=2x3x2:torus"
#PJM -L "elapse=00:20:00"
#PJM --mpi "max-proc-per-node=4"
#PJM -s

set -euo pipefail

NODES=12                             # EDIT: the product of node=
RPN=4                                # EDIT: ranks per node (the --mpi max-proc-per-node)
NP=$((NODES * RPN))
GRID=${GRID:-4x4x3}                  # EDIT: PX*PY*PZ = NP
PROVIDER=${PROVIDER:-fjmpi}          # EDIT: fjmpi:shape=XxYxZ for a torus of known size
. "${VENV:-$HOME/venvs/mpitaskmap}/bin/activate"

export MPITASKMAP_LOG=info

# -x passes the variable to every rank (Fujitsu MPI's mpiexec).
mpiexec -n "$NP" -x MPITASKMAP_LOG \
    python -m mpi4py examples/minighost.py --provider "$PROVIDER" --grid "$GRID" --steps 20
