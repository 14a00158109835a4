"""Tests of a rate limit ask a few times and expect the last one refused. The limiter counts in
windows (cupboard.throttle): when a window's edge falls between two asks, the later one counts
in a new window, where the earlier weighs a little less than one, and is let through, as it
would be for any client. On a busy machine a browser's two page loads can straddle a minute's
edge (a CI run failed so, 2026-12-06). So these tests start at a window's edge: the clock goes
back to the start of the current window (at most one window) and runs on from there."""
from __future__ import annotations

import contextlib
import math
import time

import time_machine


@contextlib.contextmanager
def at_a_window_start(seconds: int = 60):
    """Run the block with the clock set back to the start of the current `seconds`-long window,
    ticking: a block that takes less than `seconds` stays inside one window."""
    with time_machine.travel(math.floor(time.time() / seconds) * seconds, tick=True):
        yield
