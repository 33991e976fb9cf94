"""The command line's progress bar (private)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """A one-line progress bar on a stream: ``label [#####.....] 12/49 1.3 s``.

    On a terminal it redraws in place; otherwise it prints one final line (so logs and
    captured output stay short).  ``quiet`` silences it.
    """

    def __init__(self, label: str, *, stream: TextIO | None = None, quiet: bool = False, width: int = 30) -> None:
        self.label, self.quiet, self.width = label, quiet, width
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.t0 = time.perf_counter()
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        """Report ``done`` of ``total`` items finished."""
        if self.quiet:
            return
        now = time.perf_counter()
        final = done >= total
        if self.tty and (final or now - self._last > 0.1):
            fill = int(self.width * done / max(total, 1))
            bar = "#" * fill + "." * (self.width - fill)
            self.stream.write(f"\r{self.label} [{bar}] {done}/{total} {now - self.t0:.1f} s")
            self._last = now
            if final:
                self.stream.write("\n")
            self.stream.flush()
        elif not self.tty and final:
            self.stream.write(f"{self.label}: {done}/{total} done in {now - self.t0:.1f} s\n")
