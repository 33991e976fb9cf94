"""The in-job runtime: :func:`mpitaskmap.remap` (:mod:`~.remapping`), what a rank states
(:mod:`~.rank_task`), what it gathers (:mod:`~.gather`), its search over the ranks
(:mod:`~.mpi_search`) and its report (:mod:`~.report`).

Only :mod:`~.remapping`, :mod:`~.rank_task` and :mod:`~.mpi_search` import mpi4py at module
level; this package imports nothing so that ``import mpitaskmap`` does not initialise MPI.
"""
