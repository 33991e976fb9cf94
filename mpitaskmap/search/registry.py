"""The table of methods: every method of :func:`mpitaskmap.map`, declared once.

:data:`METHOD_TABLE` holds, for each method name, what it computes, whether it is written
``NAME:ARG`` and with which ``ARG`` s, its keyword options (and how a spec string spells
each value), whether it refines by weighted-hop swaps (UWH) and by congestion (UMC/UMMC),
and the mapper family it belongs to.  Everything that handles methods by name reads it:
:data:`mpitaskmap.search.methods.METHODS` (name -> description), :func:`method_candidate`
(one method as a search :class:`~mpitaskmap.search.problem.Candidate`, what
:func:`mpitaskmap.best_of` and ``remap(candidates=...)`` evaluate), :func:`mpitaskmap.map`
(option checks, progress callbacks) and the command line (``--method NAME[:ARG][:k=v,...]``
through :func:`parse_method`, its progress bars, its help).

Option values written in a spec (the command line's ``geometric:ordering=z,box=2x2x8``):
flags ``0/1`` (also ``true/false``, ``yes/no``, ``on/off``), integers, numbers, names of a
fixed set, integer sequences ``2x2x8`` and name lists ``fz/hilbert`` (a slash: commas
separate the options).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from .._options import (parse_choice, parse_flag, parse_float, parse_int, parse_ints, parse_lengths, parse_names,
                        parse_options)
from ..errors import InvalidInputError
from ..mappers.geometric.mj import ORDERINGS
from ..mappers.geometric.options import GEOMETRIC_OPTIONS
from ..mappers.grid.heuristics import GRID_METHODS
from ..mappers.grid.onto_2d import HEURISTICS_2D
from ..mappers.grid.onto_3d import CURVES
from ..mappers.percs import STRATEGIES as PERCS_STRATEGIES
from ..mapping import IDENTITY
from .families import geometric as geometric_family
from .families import graph as graph_family
from .families import identity as identity_family
from .families import rubik as rubik_family
from .problem import Candidate

__all__ = ["Option", "Method", "METHOD_TABLE", "OPTION_KINDS", "find_method", "method_candidate", "as_candidate",
           "parse_method", "format_method"]

#: How a spec string spells an option's value (:meth:`Option.parse`), with the hint shown in help.
OPTION_KINDS = {
    "flag": "0|1",
    "int": "N",
    "float": "X",
    "choice": "",  # the choices themselves
    "lengths": "AxBxC",
    "ints": "IxJ",
    "names": "A/B",
}


@dataclass(frozen=True)
class Option:
    """One keyword option of a method.

    Attributes
    ----------
    name : str
        The keyword (as :func:`mpitaskmap.map` takes it and a spec writes it).
    kind : str
        How a spec spells the value, a key of :data:`OPTION_KINDS`: ``flag``, ``int``
        (>= 0), ``float``, ``choice`` (one of ``choices``), ``lengths`` (positive
        ``AxBxC``), ``ints`` (non-negative ``IxJxK``), ``names`` (``A/B``, each of
        ``choices``).
    help : str
        What it does, in a few words.
    choices : tuple of str
        The valid values of ``choice`` and ``names``.
    """

    name: str
    kind: str
    help: str
    choices: tuple = ()

    def __post_init__(self) -> None:
        if self.kind not in OPTION_KINDS:
            raise ValueError(f"option {self.name}: unknown kind {self.kind!r}; valid: {list(OPTION_KINDS)}")

    def parse(self, text, what: str):
        """Return the value written ``text`` in a spec; an error starts with ``what`` and names the option.

        Examples
        --------
        >>> METHOD_TABLE["geometric"].option("box").parse("2x2x8", "--method")
        (2, 2, 8)
        """
        if self.kind == "flag":
            return parse_flag(text, self.name, what)
        if self.kind == "int":
            return parse_int(text, self.name, what, minimum=0)
        if self.kind == "float":
            return parse_float(text, self.name, what)
        if self.kind == "choice":
            return parse_choice(text, self.name, what, self.choices)
        if self.kind == "lengths":
            return parse_lengths(text, self.name, what)
        if self.kind == "ints":
            return parse_ints(text, self.name, what)
        return parse_names(text, self.name, what, self.choices or None)

    def format(self, value) -> str:
        """Write ``value`` as a spec spells it (the inverse of :meth:`parse`).

        Examples
        --------
        >>> METHOD_TABLE["geometric"].option("shift").format(False)
        '0'
        """
        if self.kind == "flag":
            return "1" if value else "0"
        if self.kind in ("lengths", "ints"):
            return "x".join(str(int(v)) for v in value)
        if self.kind == "names":
            return "/".join([value] if isinstance(value, str) else value)
        return str(value)

    def spelling(self) -> str:
        """How a spec writes it, e.g. ``box=AxBxC`` or ``ordering=fz|mfz|z|gray|hilbert``."""
        hint = "|".join(self.choices) if self.kind == "choice" else OPTION_KINDS[self.kind]
        if self.kind == "names" and self.choices:
            hint = "/".join(self.choices[:2]) + "/..."
        return f"{self.name}={hint}"


@dataclass(frozen=True)
class Method:
    """One method of :func:`mpitaskmap.map` (a row of :data:`METHOD_TABLE`).

    Attributes
    ----------
    name : str
        ``NAME`` of ``NAME`` / ``NAME:ARG``.
    description : str
        What it computes, one line.
    family : str
        The family of :data:`~mpitaskmap.search.scoring.FAMILIES` its candidate belongs to
        (``regular``: the family it searches; ``auto``: ``""``, every applicable one).
    options : tuple of Option
        Its keyword options.
    args : tuple of str
        The valid ``ARG`` s of ``NAME:ARG``; empty when it takes none.
    arg_label : str
        What an ``ARG`` is, for errors ("grid heuristic").
    arg_options : mapping of str to tuple of str
        Per ``ARG``, the names of the options it takes (default: all of ``options``).
    uwh : bool
        It refines by weighted-hop swaps (UWH): ``progress`` reports the passes.
    congestion : bool
        It then refines congestion (UMC/UMMC): ``congestion_progress`` reports the iterations.
    needs_coords : bool
        It needs task coordinates.
    search : bool
        A search over many candidates (``regular``, ``auto``), not one candidate.
    """

    name: str
    description: str
    family: str
    options: tuple = ()
    args: tuple = ()
    arg_label: str = ""
    arg_options: Mapping[str, tuple] = field(default_factory=dict)
    uwh: bool = False
    congestion: bool = False
    needs_coords: bool = False
    search: bool = False

    def option(self, name: str) -> Option:
        """The option called ``name``; KeyError if the method has none."""
        for o in self.options:
            if o.name == name:
                return o
        raise KeyError(name)

    def option_names(self, arg: str = "") -> tuple[str, ...]:
        """The options of ``NAME[:arg]``, in table order.

        Examples
        --------
        >>> METHOD_TABLE["rubik"].option_names("tilt")
        ('axis', 'direction')
        """
        names = tuple(o.name for o in self.options)
        return tuple(n for n in names if n in self.arg_options[arg]) if arg in self.arg_options else names

    def check_options(self, arg: str, options: Mapping) -> None:
        """Raise :class:`~mpitaskmap.errors.InvalidInputError` naming the first option ``NAME[:arg]`` does not take."""
        allowed = self.option_names(arg)
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            label = f"{self.name}:{arg}" if arg else self.name
            raise InvalidInputError(f"{unknown[0]}: not an option of method {label!r}; valid: {sorted(allowed)}")

    def summary(self) -> str:
        """The description with the options: the public :data:`~mpitaskmap.search.methods.METHODS` text."""
        if not self.options:
            return self.description
        words = []
        for o in self.options:  # an option only some arguments take says which (or which not)
            takers = [a for a in self.args if o.name in self.option_names(a)] if self.arg_options else self.args
            others = [a for a in self.args if a not in takers]
            if not others:
                words.append(o.name)
            elif len(others) < len(takers):
                words.append(f"{o.name} (not {', '.join(others)})")
            else:
                words.append(f"{o.name} ({', '.join(takers)})")
        return f"{self.description}; options {', '.join(words)}"


_DELTA = Option("delta", "int", "refinement neighbourhood (default 8)")
#: The geometric mapper's options (declared once, :mod:`mpitaskmap.mappers.geometric.options`).
_GEOMETRIC = {o.name: Option(o.name, o.kind, o.help, o.choices) for o in GEOMETRIC_OPTIONS}
_ORDERING = _GEOMETRIC["ordering"]
_GRAPH = dict(family="graph", options=(_DELTA,))
_UWH = dict(_GRAPH, uwh=True)
_FOLD_ONLY = ("fold_dim",)

#: Method name -> :class:`Method`, in the order of the documentation.
METHOD_TABLE: dict[str, Method] = {m.name: m for m in (
    Method(IDENTITY, "the default order: task t on processor t", IDENTITY),
    Method("geometric", "geometric (Multi-Jagged) mapping", "geometric", needs_coords=True,
           options=tuple(_GEOMETRIC.values())),
    Method("greedy", "greedy graph growth (UG)", **_GRAPH),
    Method("greedy+uwh", "greedy growth, then weighted-hop swap refinement (UWH)", **_UWH),
    Method("geometric+uwh", "geometric (option ordering), then weighted-hop swap refinement", needs_coords=True,
           **dict(_UWH, options=(_ORDERING, _DELTA))),
    Method("identity+uwh", "the default order, then weighted-hop swap refinement", **_UWH),
    Method("umc", "greedy+uwh, then refinement of the max link latency Latency(M)", congestion=True, **_UWH),
    Method("ummc", "greedy+uwh, then refinement of the max message count MMC", congestion=True, **_UWH),
    Method("bisection", "dual recursive bisection of tasks and processors (Scotch-like), then UWH", **_UWH),
    Method("packing", "greedy+uwh on the nodes with the network ignored (node packing, MPI's reorder at best)",
           **_UWH),
    Method("balance", "packing, then the nodes dealt over the groups so group pairs carry even shares (dragonflies)",
           **_UWH),
    Method("grid", "one regular-grid heuristic grid:NAME (affn, fold, stack, sfc, block, ...)", "grid",
           args=GRID_METHODS, arg_label="grid heuristic", options=(
               Option("fold_dim", "int", "mesh dimension the cores of a router fold into"),
               Option("variant", "int", "stack/fold: (stack, cut) dimension pair; block: block shape, by index"),
               Option("curve", "choice", "sfc: the curve (default hilbert)", CURVES),
               Option("seed", "int", "pairs: random seed (default 0)"),
           ), arg_options={**{h: _FOLD_ONLY for h in HEURISTICS_2D}, "stack": ("fold_dim", "variant"),
                           "fold": ("fold_dim", "variant"), "sfc": ("fold_dim", "curve"), "block": ("variant",),
                           "pairs": ("seed",)}),
    Method("regular", "regular-grid analyser, every grid heuristic, the best refined by PAIRS", "grid", search=True,
           options=(
               Option("threshold", "float", "analyser: light-traffic threshold (default 0.2)"),
               Option("root", "int", "analyser: the task the grid is grown from (default 0)"),
               Option("pairs", "flag", "refine the best by PAIRS (default 1)"),
               Option("pairs_seed", "int", "PAIRS seed (default 0)"),
               Option("pairs_proposals", "int", "PAIRS proposal budget (default 64 n)"),
               Option("pairs_seconds", "float", "PAIRS wall-time cap (default none)"),
               Option("include_identity", "flag", "also evaluate the default order, first (default 1)"),
           )),
    Method("percs", "one PERCS strategy percs:NAME (blocking, mod_colouring, transpose; PERCS machines)", "percs",
           args=tuple(PERCS_STRATEGIES), arg_label="PERCS strategy",
           options=(Option("seed", "int", "random strategies: seed (default 0)"),)),
    Method("rubik", "Rubik's box mapping rubik:map|tilt|zorder (regular grids on box allocations)", "rubik",
           args=rubik_family.METHODS, arg_label="rubik method",
           options=(Option("axis", "int", "tilt: the axis tilted (default 0)"),
                    Option("direction", "int", "tilt: the axis it is tilted along (default 1)")),
           arg_options={"map": (), "tilt": ("axis", "direction"), "zorder": ()}),
    Method("auto", "best of every applicable candidate family by the metric (identity included)", "", search=True,
           options=(
               Option("orderings", "names", "geometric candidates: the orderings tried (default all)", ORDERINGS),
               Option("rotate", "flag", "geometric candidates: dimension rotations too (default 1)"),
               Option("variants", "choice", "geometric candidates: processor-coordinate variants (default auto)",
                      ("auto", "basic")),
               Option("max_all_rotations", "int", "geometric candidates: every rotation up to this many dims"),
               Option("refine", "int", "second stage: candidates refined (default 4)"),
           )),
)}


def find_method(method: str, what: str = "method") -> tuple[Method, str]:
    """Split ``NAME`` / ``NAME:ARG`` into its table row and ``ARG`` (``""`` when none), checked.

    Parameters
    ----------
    method : str
        The method as :func:`mpitaskmap.map` takes it.
    what : str, optional
        Names the input in errors (default "method"; the command line's "--method").

    Raises
    ------
    InvalidInputError
        On an unknown name, an argument to a method that takes none, a missing or unknown
        argument.

    Examples
    --------
    >>> m, arg = find_method("grid:affn")
    >>> m.family, arg
    ('grid', 'affn')
    """
    if not isinstance(method, str):
        raise InvalidInputError(f"{what}: expected a name like 'geometric' or 'grid:affn'; got {method!r}")
    name, _, arg = method.strip().partition(":")
    name, arg = name.strip().lower(), arg.strip()
    if name not in METHOD_TABLE:
        raise InvalidInputError(f"{what}: unknown {name!r}; valid: {list(METHOD_TABLE)}")
    m = METHOD_TABLE[name]
    if arg and not m.args:
        raise InvalidInputError(f"{what}: {name} takes no ':' argument; got {method!r} (options are keywords)")
    if not m.args:
        return m, ""
    if not arg:
        raise InvalidInputError(f"{what}: {name} needs a name, {name}:NAME with NAME in {sorted(m.args)}")
    if arg not in m.args:
        raise InvalidInputError(f"{what}: unknown {m.arg_label} {arg!r}; valid: {sorted(m.args)}")
    return m, arg


def method_candidate(method: str, **options) -> Candidate:
    """Return the candidate that computes ``method`` (every method but the searches ``regular`` and ``auto``).

    ``map(g, m, method, **options)`` and ``best_of(g, m, [method_candidate(method, **options)])``
    give the same mapping.

    Parameters
    ----------
    method : str
        A name of :data:`METHOD_TABLE` (``grid:NAME``, ``percs:NAME``, ``rubik:NAME`` with
        their argument).
    **options
        The method's options (:meth:`Method.option_names`).

    Returns
    -------
    Candidate

    Raises
    ------
    InvalidInputError
        On an unknown method or option, or for ``regular`` / ``auto`` (searches, not one
        candidate).

    Examples
    --------
    >>> method_candidate("geometric", ordering="z").label()
    'geometric z T* P* shift'
    >>> method_candidate("rubik:tilt", axis=1).label()
    'rubik tilt axis=1'
    """
    m, arg = find_method(method)
    if m.search:
        raise InvalidInputError(f"method: {m.name!r} is a search, not one candidate; call map(..., method={m.name!r})")
    m.check_options(arg, options)
    if m.family == IDENTITY:
        return identity_family.CANDIDATE
    if m.family == "geometric":
        return geometric_family.candidate(**options)
    if m.family == "graph":
        return graph_family.candidate(m.name, **options)
    return Candidate.make(m.family, arg, **options)


def as_candidate(item: Candidate | str) -> Candidate:
    """A candidate as given, or the one of a method name (:func:`method_candidate`, no options).

    What lets :func:`~mpitaskmap.search.scoring.best_of` and ``remap(candidates=...)`` take
    method names beside candidates.

    Examples
    --------
    >>> as_candidate("greedy+uwh").label()
    'greedy+uwh'
    """
    if isinstance(item, Candidate):
        return item
    if isinstance(item, str):
        return method_candidate(item)
    raise InvalidInputError(f"candidates: expected a Candidate or a method name; got {type(item).__name__}")


def parse_method(spec: str, what: str = "--method") -> tuple[str, dict]:
    """Read a method written ``NAME[:ARG][:k=v,...]`` (the command line's spelling).

    Methods with an argument take their options after it (``grid:sfc:curve=snake``), the
    others right after the name (``geometric:ordering=z,box=2x2x8``).

    Parameters
    ----------
    spec : str
        The text.
    what : str, optional
        Names the input in errors (default "--method").

    Returns
    -------
    (method, options) : (str, dict)
        What :func:`mpitaskmap.map` takes: ``NAME`` or ``NAME:ARG``, and the keyword
        options with their values parsed (:meth:`Option.parse`).

    Raises
    ------
    InvalidInputError
        As :func:`find_method`; on an option the method does not take (the message names
        it and lists the valid ones), a key given twice, or a malformed value.

    Examples
    --------
    >>> parse_method("geometric:ordering=z,shift=0,box=2x2x8")
    ('geometric', {'ordering': 'z', 'shift': False, 'box': (2, 2, 8)})
    >>> parse_method("grid:sfc:curve=snake")
    ('grid:sfc', {'curve': 'snake'})
    """
    text = spec.strip()
    name, _, rest = text.partition(":")
    head = METHOD_TABLE.get(name.strip().lower())
    if head is not None and head.args:
        arg, _, opt_text = rest.partition(":")
        method = f"{name}:{arg}" if arg else name
    else:
        method, opt_text = name, rest
    m, arg = find_method(method, what)
    where = f"{what} {text!r}"
    raw = parse_options(opt_text, m.option_names(arg), where)
    return (f"{m.name}:{arg}" if arg else m.name), {k: m.option(k).parse(v, where) for k, v in raw.items()}


def format_method(method: str, options: Mapping | None = None) -> str:
    """Write a method and its options as :func:`parse_method` reads them (its inverse).

    Examples
    --------
    >>> format_method("geometric", {"ordering": "z", "shift": False, "box": (2, 2, 8)})
    'geometric:ordering=z,shift=0,box=2x2x8'
    >>> format_method("grid:sfc", {"curve": "snake"})
    'grid:sfc:curve=snake'
    """
    m, arg = find_method(method)
    m.check_options(arg, options or {})
    text = f"{m.name}:{arg}" if arg else m.name
    if options:
        text += ":" + ",".join(f"{k}={m.option(k).format(v)}" for k, v in options.items())
    return text
