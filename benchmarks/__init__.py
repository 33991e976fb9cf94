"""The benchmark studies of mpitaskmap, run from the repository root as ``python -m benchmarks.NAME``.

Each module of this package but :mod:`benchmarks.harness` and the shared input modules
(``_inputs13``) is one study: it declares its cases, its methods and its table's columns and
hands them to the harness, which runs cases x methods, the SMPI runs, prints the tables
and writes the JSON.  A study never imports another study.  ``benchmarks/peers`` holds the
optional peers (Zoltan2, Scotch, KaHIP) apart; studies reach them through
:mod:`benchmarks.harness.peers`.
"""
