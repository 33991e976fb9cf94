"""Mapping algorithms: each takes a TaskGraph and a Machine and returns a Mapping.

A mapper never talks MPI; the runtime layer spreads candidates over ranks.
"""
