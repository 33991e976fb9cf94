"""The flat network kind: processors grouped into nodes, no coordinates (:class:`FlatMachine`)."""

from .flat import FlatMachine
from . import kind  # noqa: F401  (registers the "flat" kind)

__all__ = ["FlatMachine"]
