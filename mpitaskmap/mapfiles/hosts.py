"""Host names and node slots shared by the Open MPI and Slurm formats.

Part of :mod:`mpitaskmap.mapfiles`; the formats are documented there.
"""

from __future__ import annotations


import numpy as np

from ..machines import Machine, as_machine
from ..machines.hosts import DEFAULT_HOST_FORMAT, host_names  # noqa: F401 (re-exported)
from ..mapping import Mapping, as_mapping


def _node_of_host(machine: Machine, hosts) -> dict[str, int]:
    names = host_names(machine, hosts)
    return {names[k]: k for k in machine.node_view().nodes.tolist()}


def node_slots(machine: Machine) -> np.ndarray:
    """Return the slot of every processor on its node (0, 1, ... in processor-id order).

    Parameters
    ----------
    machine : Machine
        The processors.

    Returns
    -------
    (n_procs,) ndarray of intp
        Position of each processor among the processors of its node: the logical core
        index written to an Open MPI rankfile.

    Examples
    --------
    >>> from mpitaskmap.machines import FlatMachine
    >>> node_slots(FlatMachine([3, 3, 0, 3, 0])).tolist()
    [0, 1, 0, 2, 1]
    """
    as_machine(machine)
    return machine.node_view().slot_in_node.copy()


def _node_procs(machine: Machine) -> dict[int, np.ndarray]:
    """Processors of every node id, ascending."""
    view = machine.node_view()
    return {int(k): p for k, p in zip(view.nodes.tolist(), np.split(view.procs, view.proc_ptr[1:-1]))}


def _procs_of_nodes(task_node: np.ndarray, machine: Machine) -> np.ndarray:
    """Place the tasks of every node on its processors in ascending task order."""
    procs = _node_procs(machine)
    ttp = np.empty(task_node.size, dtype=np.intp)
    order = np.argsort(task_node, kind="stable")
    nodes, starts, counts = np.unique(task_node[order], return_index=True, return_counts=True)
    for k, a, c in zip(nodes.tolist(), starts.tolist(), counts.tolist()):
        p = procs[k]
        tasks = order[a:a + c]
        # more ranks than cores: deal them round-robin (the capacity check of Mapping decides)
        ttp[tasks] = p[np.arange(c) % p.size]
    return ttp


def node_canonical(mapping: Mapping) -> Mapping:
    """Return ``mapping`` with the ranks of every node on its processors in ascending order.

    Every task keeps its node, so every metric of a machine whose nodes each sit on one
    router is unchanged; this is what a node-level file (:func:`write_slurm_hostfile`)
    can express, and what :func:`read_slurm_hostfile` returns.

    Parameters
    ----------
    mapping : Mapping
        Any mapping.

    Returns
    -------
    Mapping
        Same machine, graph and method.

    Examples
    --------
    >>> from mpitaskmap.machines import FlatMachine
    >>> node_canonical(Mapping([1, 0, 2], FlatMachine([0, 0, 1]))).task_to_proc.tolist()
    [0, 1, 2]
    """
    as_mapping(mapping)
    machine = mapping.machine
    ttp = _procs_of_nodes(machine.node_ids[mapping.task_to_proc], machine)
    return Mapping(ttp, machine, mapping.graph, capacity=mapping.capacity, method=mapping.method,
                   info=mapping.info)
