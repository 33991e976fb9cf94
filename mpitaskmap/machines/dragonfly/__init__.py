"""The dragonfly network kind: HPE Slingshot and Cray Aries dragonflies (:class:`DragonflyMachine`).

:mod:`~.dragonfly` the machine, :mod:`~.loads` its routed link loads, :mod:`~.presets`
simulated allocations (Frontier, Perlmutter, Aries), :mod:`~.xname` HPE Cray EX xnames as
places, :mod:`~.machine_file` the ``network dragonfly`` file form, :mod:`~.kind` the kind's
registration (:mod:`mpitaskmap.machines.kinds`).
"""

from .dragonfly import DRAGONFLY_GROUP_RULE, DRAGONFLY_ROUTINGS, DragonflyMachine, GroupPaths, group_paths
from .presets import DRAGONFLY_PRESETS, dragonfly_machine, dragonfly_preset
from .kind import dragonfly_network

__all__ = ["DragonflyMachine", "DRAGONFLY_ROUTINGS", "DRAGONFLY_GROUP_RULE", "GroupPaths", "group_paths", "dragonfly_machine",
           "dragonfly_preset", "DRAGONFLY_PRESETS", "dragonfly_network"]
