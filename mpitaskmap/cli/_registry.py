"""The subcommand table of the command line (private): :func:`register` and :data:`COMMANDS`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["register", "COMMANDS", "Command", "GLOBAL_OPTIONS"]


@dataclass(frozen=True)
class Command:
    """A registered subcommand: its function and one-line summary."""

    name: str
    run: Callable[[list], int]
    summary: str


#: Options every subcommand takes that may also come before it (``mpitaskmap -q map ...``, as in pip
#: and git): spelling -> the subcommand's long form.
GLOBAL_OPTIONS = {"-q": "--quiet", "--quiet": "--quiet", "--debug": "--debug"}

#: Subcommand name -> Command, in registration order.
COMMANDS: dict[str, Command] = {}


def register(name: str, summary: str) -> Callable:
    """Return a decorator that registers ``run(argv) -> exit status`` as subcommand ``name``.

    Parameters
    ----------
    name : str
        The subcommand (``mpitaskmap NAME ...``).
    summary : str
        One line for ``mpitaskmap --help``.

    Returns
    -------
    callable
        The decorator; it returns the function unchanged.
    """

    def decorate(run: Callable[[list], int]) -> Callable[[list], int]:
        COMMANDS[name] = Command(name, run, summary)
        return run

    return decorate
