"""Exception classes of mpitaskmap.

Every error the library raises on purpose is a :class:`MappingError`.  The subclasses are
also the matching builtin exceptions, so ``except ValueError`` keeps working for callers
who do not know the library.
"""

__all__ = ["MappingError", "InvalidInputError", "ProviderError", "NotApplicableError"]


class MappingError(Exception):
    """Raised when a mapping cannot be computed or agreed on.

    In collective code every rank raises the same ``MappingError`` with the same message,
    which names the first failing rank and the reason.
    """


class InvalidInputError(MappingError, ValueError):
    """Raised when an argument has the wrong shape, dtype, range or value.

    The message names the argument, what is wrong, the offending index and the value.
    """


class ProviderError(MappingError, RuntimeError):
    """Raised when a coordinate provider cannot tell where this process runs."""


class NotApplicableError(InvalidInputError):
    """Raised by a candidate whose method does not apply to this input.

    For example PERCS mod-colouring on a task grid whose P is not a multiple of 32.  The
    candidate search (``best_of``, ``search_candidates``, ``remap``) records such a
    candidate as skipped (score infinity) instead of failing; any other exception is a
    failure.  It is an :class:`InvalidInputError` too: a direct call of the method with
    such an input is a caller error.
    """

