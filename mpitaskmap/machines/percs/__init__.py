"""The PERCS network kind: IBM PERCS's two-level network, the whole system (:class:`PercsMachine`).

:mod:`~.network` its constants and link tables, :mod:`~.routing` its direct and indirect
routes, :mod:`~.percs` the machine, :mod:`~.kind` the kind's registration and its one spec
builder :func:`~.kind.percs_from_options`.
"""

from .percs import EMBEDDING_SPACING, PercsMachine, as_percs_machine, is_percs_machine
from .kind import PERCS_DEFAULTS, PERCS_KEYS, percs_from_options

__all__ = ["PercsMachine", "EMBEDDING_SPACING", "as_percs_machine", "is_percs_machine", "percs_from_options",
           "PERCS_KEYS", "PERCS_DEFAULTS"]
