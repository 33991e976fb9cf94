"""What :func:`mpitaskmap.remap` did: :class:`RemapReport`, identical on every rank, and its text.

``mpitaskmap.RemapReport`` is this class.  It imports no MPI: a report can be built, read
and printed anywhere (the tests build them by hand).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..mapping import IDENTITY
from ..metrics import change_text
from ..search.judge import DEFAULT_ORDER, TIED, judge_change
from ..sim.fluid import DEFAULT_NETWORK_MODEL

__all__ = ["RemapReport"]


@dataclass
class RemapReport:
    """What :func:`~mpitaskmap.runtime.remapping.remap` did, identical on every rank.

    Attributes
    ----------
    status : str
        "remapped", "identity" (the default order won, or was returned after an error
        with ``on_error="identity"``) or "disabled".
    provider : str
        Provider that located the ranks.
    machine : str
        Description of the assembled machine.
    metric : str
        Metric optimised.
    n_candidates : int
        Candidates evaluated, both stages.
    n_refused : int
        Of those, candidates that did not apply (a precondition, or a size bound: the
        logger says which); the summary counts the others.
    n_refined : int
        Of those, second-stage refinements of the best first-stage candidates.
    winner : str
        Label of the winning candidate.
    winner_index : int
        Its index in the candidate list (0 = identity).
    before, after : float
        Metric of the default order and of the result.
    seconds : dict
        Wall seconds per phase on rank 0 (``gather``, ``map_max`` = slowest rank's
        candidate evaluation, ``judge`` when the judge ran, ``bcast``, ``split``,
        ``total``).
    candidates_per_rank : list of int
        How many candidates each rank evaluated.
    gathered_bytes : int
        Bytes each rank (each node leader with ``shared_memory=True``) received in the
        collectives that gather the job's data.
    shared_bytes : int
        Bytes of the node's shared-memory windows holding the task graph and machine
        (``shared_memory=True``; 0 without).
    error : str
        The agreed error, when one happened.
    new_rank_of : list of int
        ``new_rank_of[old_rank]``: the new rank of every process.
    judge : str or None
        The judge that picked the winner among the objective's best and the default order
        (``"fluid"``), None when the objective decided alone; ``judge_why`` says why.
    judged : list of dict
        The mappings the judge replayed (:class:`~mpitaskmap.search.judge.JudgeOutcome`), the
        default order's among them: ``index``, ``candidate``, ``score`` (objective),
        ``simulated_s`` (replayed seconds of an exchange step: the fluid judge's mean over its
        steps), ``objective_rank``, ``simulated_rank``, ``chosen_by``.
    default_simulated_s : float
        The default order's replayed seconds (nan when the judge did not replay it).  Where
        the judge decided, :meth:`summary` leads with it beside the winner's, and says "no
        gain found" when the default order is kept.
    objective_winner : str
        The objective's own pick (the winner when no judge ran).
    nothing_to_map : str
        Why there was nothing to map ("" otherwise): all ranks on one node, where every
        order costs the same and the default order is kept; the summary says so instead
        of the metric before and after.
    call : str
        The call that mapped: ``"remap"``, ``"create_cart"``, ``"cart_order"``, ... (the first
        words of :meth:`summary` and of the log lines).
    task_coords : str
        Where the tasks' coordinates came from when the ranks gave none
        (:meth:`~mpitaskmap.search.problem.Problem.describe_task_coords`: the grid the traffic
        forms, or none); "" when the ranks gave them.
    message_sizes : str
        "" when the task graph has message sizes or the objective reads none (a hop
        metric); else the size the search assumed for them
        (:func:`~mpitaskmap.metrics.describe_sizes`): the summary's last line.
    """

    status: str = IDENTITY
    provider: str = ""
    machine: str = ""
    metric: str = ""
    n_candidates: int = 0
    n_refused: int = 0
    n_refined: int = 0
    winner: str = ""
    winner_index: int = 0
    before: float = float("nan")
    after: float = float("nan")
    seconds: dict = field(default_factory=dict)
    candidates_per_rank: list = field(default_factory=list)
    gathered_bytes: int = 0
    shared_bytes: int = 0
    error: str = ""
    new_rank_of: list = field(default_factory=list)
    judge: str | None = None
    judge_why: str = ""
    judged: list = field(default_factory=list)
    default_simulated_s: float = float("nan")
    objective_winner: str = ""
    nothing_to_map: str = ""
    call: str = "remap"
    task_coords: str = ""
    message_sizes: str = ""

    def _applied(self) -> int:
        """Candidates that applied: what the summary counts."""
        return self.n_candidates - self.n_refused

    def _refused_text(self) -> str:
        return f"{self.n_refused} more did not apply" if self.n_refused else ""

    def summary(self) -> str:
        """Return a short multi-line text report.

        Where the judge decided, the first figures are the replayed step of the default
        order and of the winner (or "no gain found" when the default order is kept), the
        objective's change second, labelled as predicted
        (:func:`~mpitaskmap.search.judge.judge_change`); otherwise the objective's change.
        """
        lines = [f"mpitaskmap.{self.call}: {self.status}"]
        if self.error:
            lines.append(f"  error: {self.error}")
        if self.provider:
            lines.append(f"  provider: {self.provider}; machine: {self.machine}")
        if self.task_coords:
            lines.append(f"  tasks: {self.task_coords}")
        if self.nothing_to_map:
            lines.append(f"  nothing to map: {self.nothing_to_map}")
        elif self.n_candidates and self.judge:
            replayed, objective = judge_change(self.judge, self.judged, self.winner_index, self.metric)
            refined = ", ".join(x for x in (f"{self.n_refined} refined" if self.n_refined else "",
                                            self._refused_text()) if x)
            if self.winner_index:
                lines.append(f"  {replayed}; winner #{self.winner_index} {self.winner} of {self._applied()} "
                             "candidates" + (f" ({refined})" if refined else ""))
            else:
                lines.append(f"  {replayed} ({self._applied()} candidates" + (f", {refined})" if refined else ")"))
            lines.append(f"  {objective}")
        elif self.n_candidates:
            gain = change_text(self.before, self.after) if self.before > 0 or self.after == self.before else "higher"
            # every printed time names its model: the objective's seconds are "predicted"
            unit, model = (" s", "predicted, ") if self.metric == "predicted_time" else ("", "")
            lines.append(
                f"  {self.metric}: default {self.before:.6g}{unit} -> {self.after:.6g}{unit} ({model}{gain}); "
                f"winner #{self.winner_index} {self.winner} of {self._applied()} candidates"
                + (f" ({self.n_refined} refined)" if self.n_refined else "")
                + (f" ({self._refused_text()})" if self.n_refused else "")
            )
        if self.judge:
            best = [j for j in self.judged if j.get("chosen_by") not in (TIED, DEFAULT_ORDER)]
            tied = [j for j in self.judged if j.get("chosen_by") == TIED]
            times = ", ".join(f"#{j['index']} {j['simulated_s']:.4g} s" for j in best)
            if tied:
                fastest = min(tied, key=lambda j: (j["simulated_s"], j["index"]))
                times += (f"; {len(tied)} more tied with the last of them, the fastest #{fastest['index']} "
                          f"{fastest['simulated_s']:.4g} s")
            also = " and the default order" if any(j.get("chosen_by") == DEFAULT_ORDER for j in self.judged) else ""
            lines.append(f"  judge: {self.judge} replay ({DEFAULT_NETWORK_MODEL.name} network model) of the "
                         f"objective's {len(best)} best{also}, replayed {times}; "
                         f"the objective's pick: {self.objective_winner}")
        elif self.judge_why:
            lines.append(f"  judge: none ({self.judge_why})")
        if self.seconds:
            lines.append("  seconds: " + ", ".join(f"{k} {v:.3f}" for k, v in self.seconds.items()))
        if self.message_sizes and not self.nothing_to_map:  # no search, no assumption to state
            lines.append(f"  messages: {self.message_sizes}")
        return "\n".join(lines)
