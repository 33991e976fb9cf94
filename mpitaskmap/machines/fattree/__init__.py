"""The fat-tree network kind: trees of switches (:class:`FatTreeMachine`), regular or from Slurm.

:mod:`~.fattree` the machine, :mod:`~.presets` simulated allocations (Frontera, SuperMUC-NG),
:mod:`~.slurm_topology` Slurm's switch trees and topology addresses, :mod:`~.hostlist` its host
lists, :mod:`~.kind` the kind's registration (:mod:`mpitaskmap.machines.kinds`).
"""

from .fattree import FAT_TREE_ROUTINGS, FatTreeMachine
from .presets import FATTREE_PRESETS, fattree_machine, fattree_preset
from .kind import fattree_network

__all__ = ["FatTreeMachine", "FAT_TREE_ROUTINGS", "fattree_machine", "fattree_preset", "FATTREE_PRESETS",
           "fattree_network"]
