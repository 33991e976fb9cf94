"""The in-job runtime: :func:`mpitaskmap.remap` (:mod:`~.remapping`) and what it gathers (:mod:`~.gather`).

Only :mod:`~.remapping` imports mpi4py at module level; this package imports nothing so
that ``import mpitaskmap`` does not initialise MPI.
"""
