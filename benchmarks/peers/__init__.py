"""The optional peers of the benchmarks (Zoltan2, Scotch, KaHIP), apart from the studies.

``bash benchmarks/peers/install_peers.sh`` installs them; each module says whether its peer is
available.  Import them as ``from benchmarks.peers import zoltan2`` (from the repository root);
the studies reach them through :mod:`benchmarks.harness.peers`.
"""
