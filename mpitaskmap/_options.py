"""Spec strings' ``key=value`` options and their values (private): the one parser of them.

Every spec the library reads from text -- provider specs (``sim:titan:ppn=1,seed=1``),
the command line's machines (``percs:ns=2,nd=1``), task graphs (``stencil3d:4x4x2:points=7``)
and methods (``geometric:ordering=z,box=2x2x8``) -- splits its options with
:func:`parse_options` and reads their values with the ``parse_*`` helpers here, so a key
given twice, an unknown key or a malformed value gets the same error everywhere.

Every error is an :class:`~mpitaskmap.errors.InvalidInputError` that starts with ``what``:
the caller's name for the spec, e.g. ``"provider 'sim:titan:ppn=0'"`` or
``"--method 'geometric:box=2x'"``.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from .errors import InvalidInputError

__all__ = ["parse_options", "parse_int", "parse_float", "parse_flag", "parse_choice", "parse_ints", "parse_lengths",
           "parse_names", "parse_wrap", "TRUE_WORDS", "FALSE_WORDS"]

#: Spellings of a true / false flag (case-insensitive).
TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


def parse_options(text: str, valid: Iterable[str], what: str) -> dict[str, str]:
    """Split ``"k=v,k=v"`` into a dict, checking every key against ``valid``.

    Parameters
    ----------
    text : str
        The options part of a spec (may be empty).  Keys are case-insensitive (stored
        lower-case); values are stripped.
    valid : iterable of str
        The keys allowed.
    what : str
        Names the spec in errors, e.g. ``"provider 'sim:titan:ppn=1'"``.

    Returns
    -------
    dict of str to str
        In the order given.

    Raises
    ------
    InvalidInputError
        On an item without ``=`` or value, an unknown key, or a key given twice.

    Examples
    --------
    >>> parse_options("ppn=1, seed=2", ("ppn", "seed"), "demo")
    {'ppn': '1', 'seed': '2'}
    >>> parse_options("ppn=1,ppn=2", ("ppn",), "demo")
    Traceback (most recent call last):
    ...
    mpitaskmap.errors.InvalidInputError: demo: key 'ppn' given twice
    """
    valid = tuple(valid)
    out: dict[str, str] = {}
    for item in filter(None, (t.strip() for t in (text or "").split(","))):
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if not sep or not key or not value.strip():
            raise InvalidInputError(f"{what}: expected key=value; got {item!r}")
        if key not in valid:
            keys = f"valid keys: {sorted(valid)}" if valid else "it takes no options"
            raise InvalidInputError(f"{what}: unknown key {key!r}; {keys}")
        if key in out:  # the last one silently winning hides a typo in a long spec
            raise InvalidInputError(f"{what}: key {key!r} given twice")
        out[key] = value.strip()
    return out


def parse_int(value, key: str, what: str, *, minimum: int | None = 1) -> int:
    """Return ``value`` (text or an integer) as an int >= ``minimum`` (None: any).

    Examples
    --------
    >>> parse_int("16", "ppn", "demo")
    16
    """
    if isinstance(value, (bool, np.bool_)) or isinstance(value, (float, np.floating)):
        raise InvalidInputError(f"{what}: {key} must be an integer; got {value!r}")
    try:
        out = int(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{what}: {key} must be an integer; got {value!r}") from None
    if minimum is not None and out < minimum:
        raise InvalidInputError(f"{what}: {key} must be >= {minimum}; got {out}")
    return out


def parse_float(value, key: str, what: str, *, positive: bool = False) -> float:
    """Return ``value`` (text or a number) as a finite float (> 0 with ``positive``).

    Examples
    --------
    >>> parse_float("0.5", "busy", "demo")
    0.5
    """
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{what}: {key} must be a number; got {value!r}") from None
    if not np.isfinite(out):
        raise InvalidInputError(f"{what}: {key} must be finite; got {value!r}")
    if positive and out <= 0:
        raise InvalidInputError(f"{what}: {key} must be positive; got {out:g}")
    return out


def parse_flag(value, key: str, what: str) -> bool:
    """Return ``value`` (a bool, or one of :data:`TRUE_WORDS` / :data:`FALSE_WORDS`) as a bool.

    Examples
    --------
    >>> parse_flag("off", "shift", "demo")
    False
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    word = str(value).strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise InvalidInputError(f"{what}: {key} is a flag, one of {'/'.join(TRUE_WORDS + FALSE_WORDS)}; got {value!r}")


def parse_choice(value, key: str, what: str, choices: Sequence[str]) -> str:
    """Return ``value`` (case-insensitive) if it is one of ``choices``.

    Examples
    --------
    >>> parse_choice("Direct", "routing", "demo", ("direct", "indirect"))
    'direct'
    """
    word = str(value).strip().lower()
    if word not in choices:
        raise InvalidInputError(f"{what}: {key} must be one of {list(choices)}; got {value!r}")
    return word


def parse_ints(value, key: str, what: str, *, n: int | None = None, minimum: int = 0,
               word: str = "integers") -> tuple[int, ...]:
    """Return ``"2x0x1"`` (or a sequence of ints) as a tuple of ints >= ``minimum``.

    ``n`` is the count required (None: any); ``word`` names the values in errors.

    Examples
    --------
    >>> parse_ints("2x0x1", "proc_perm", "demo")
    (2, 0, 1)
    """
    parts = str(value).lower().split("x") if isinstance(value, str) else list(np.atleast_1d(value))
    example = "x".join([str(max(minimum, 4))] * (n or 3))
    try:
        out = tuple(parse_int(p, key, what, minimum=minimum) for p in parts)
    except InvalidInputError:  # name the whole value, not the one part
        raise InvalidInputError(f"{what}: {key} needs {word} >= {minimum} like {example}; got {value!r}") from None
    if n is not None and len(out) != n:
        raise InvalidInputError(f"{what}: {key} needs {n} {word} like {example}; got {value!r}")
    return out


def parse_lengths(value, key: str, what: str, *, n: int | None = None) -> tuple[int, ...]:
    """Return ``"4x4x2"`` (or a sequence of ints) as a tuple of positive ints.

    Examples
    --------
    >>> parse_lengths("4x4x2", "dims", "demo")
    (4, 4, 2)
    """
    return parse_ints(value, key, what, n=n, minimum=1, word="lengths")


def parse_names(value, key: str, what: str, choices: Sequence[str] | None = None) -> tuple[str, ...]:
    """Return ``"fz/hilbert"`` (or a sequence of str) as a tuple of names, each one of ``choices``.

    A slash separates the names: commas separate a spec's options.

    Examples
    --------
    >>> parse_names("fz/Hilbert", "orderings", "demo", ("fz", "hilbert", "z"))
    ('fz', 'hilbert')
    """
    parts = str(value).split("/") if isinstance(value, str) else list(value)
    out = tuple(str(p).strip().lower() for p in parts if str(p).strip())
    if not out:
        raise InvalidInputError(f"{what}: {key} needs at least one name; got {value!r}")
    if choices is not None:
        bad = [p for p in out if p not in choices]
        if bad:
            raise InvalidInputError(f"{what}: {key}: unknown {bad[0]!r}; valid: {list(choices)}")
    return out


def parse_wrap(value, key: str, what: str, n: int) -> tuple[bool, ...]:
    """Return ``"1"``, ``"0"``, ``"1x1x0"`` (or bools) as ``n`` wrap flags.

    Examples
    --------
    >>> parse_wrap("1x0", "wrap", "demo", 2)
    (True, False)
    >>> parse_wrap("1", "wrap", "demo", 3)
    (True, True, True)
    """
    if isinstance(value, (bool, np.bool_)):
        return (bool(value),) * n
    parts = value.lower().split("x") if isinstance(value, str) else [str(int(bool(v))) for v in value]
    flags = []
    for p in parts:
        if p not in ("1", "true", "yes", "0", "false", "no"):
            raise InvalidInputError(f"{what}: {key} flags are 0 or 1; got {value!r}")
        flags.append(p in ("1", "true", "yes"))
    if len(flags) == 1:
        return (flags[0],) * n
    if len(flags) != n:
        raise InvalidInputError(f"{what}: {key} needs 1 or {n} flags; got {value!r}")
    return tuple(flags)
