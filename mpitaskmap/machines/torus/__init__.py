"""The torus network kind: routers on an n-D torus or mesh (:class:`TorusMachine`).

:mod:`~.torus` the machine, :mod:`~.presets` simulated Titan, BG/Q and torus allocations,
:mod:`~.machine_file` the headerless machine-file form (and the bundled Hopper allocation),
:mod:`~.kind` the kind's registration (:mod:`mpitaskmap.machines.kinds`).
"""

from .torus import TorusMachine, gemini_bandwidth
from .presets import BGQ_ORDERS, TITAN_DIMS, bgq_machine, titan_machine, torus_machine
from .machine_file import hopper_machine
from . import kind  # noqa: F401  (registers the "torus" kind)

__all__ = ["TorusMachine", "gemini_bandwidth", "torus_machine", "titan_machine", "bgq_machine", "hopper_machine",
           "TITAN_DIMS", "BGQ_ORDERS"]
