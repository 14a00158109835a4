"""A one-line progress bar on stderr for long CLI work, with no dependency.

It draws only when asked (`--progress`) or when stderr is a terminal, so logs and
pipes never fill with carriage returns, and at most ten times a second, so drawing
never costs more than the work it reports.
"""
from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30
# Units of the amount shown, the largest first: a 40 kB file read "0.0/0.0 MB".
UNITS = ((1e9, "GB"), (1e6, "MB"), (1e3, "kB"))


def amount(done: int, total: int) -> str:
    """"12.0/30.0 MB", "3.2/40.1 kB", "512/900 B": in the unit of the larger figure."""
    scale, unit = next(((s, u) for s, u in UNITS if max(done, total) >= s), (1, "B"))

    def shown(n: int) -> str:
        return str(n) if scale == 1 else f"{n / scale:.1f}"
    return shown(done) + (f"/{shown(total)}" if total else "") + f" {unit}"


class Progress:
    """`update(done, total)` redraws "label [####      ] 40% 12.0/30.0 MB"; `close()` ends the line.
    A total of 0 (unknown size, e.g. gzip) shows the amount done only."""

    def __init__(self, label: str, *, enabled: bool | None = None, stream: TextIO | None = None,
                 interval: float = 0.1):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.label = label
        self.interval = interval
        self._last = 0.0
        self._drawn = False

    def update(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self._last < self.interval and done < total):
            return
        self._last = now
        mb = amount(done, total)
        if total:
            share = min(done / total, 1.0)
            bar = "#" * int(share * WIDTH)
            line = f"{self.label} [{bar:<{WIDTH}}] {share:4.0%} {mb}"
        else:
            line = f"{self.label} {mb}"
        self.stream.write(f"\r{line}\x1b[K")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
