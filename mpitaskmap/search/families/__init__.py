"""Mapper families as plain modules of the candidate search.

Each module here turns one mapper family into candidates and back into mappings with two
functions and nothing else:

* ``candidates(problem, **options) -> list[Candidate]``: the family's candidates for this
  :class:`~mpitaskmap.search.problem.Problem`, in a fixed order (the same list on every MPI rank);
  an empty list when the family does not apply;
* ``apply(candidate, problem) -> Mapping``: compute one of them; raises
  :class:`~mpitaskmap.errors.NotApplicableError` when its preconditions fail (the search
  records it as skipped), any other exception is a real error.

The modules import the mappers below them and :mod:`mpitaskmap.search.problem`, never the search
layer (:mod:`mpitaskmap.search.scoring`), which holds the table of families and the one scoring
loop.
"""
