"""Waiting in tests for what they need: poll a condition until it holds, with a deadline
generous enough for a busy host (2 shared cores, other work beside the suite). A test never
sleeps a fixed time for something to happen. Where a deadline is what a test checks (the
30 s recovery of a killed worker's work), the test says so in its own assertion instead."""
from __future__ import annotations

import time
from collections.abc import Callable

# Seconds: long enough that only something broken exceeds it on a loaded machine. Passing
# tests do not wait for it; a failing one reports after it.
PATIENCE = 300.0


def wait_until(check, *, what: str | Callable[[], str], seconds: float = PATIENCE, every: float = 0.2):
    """Poll `check()` until it returns something truthy (returned); fail after `seconds` with
    `what` (a callable is called then: a log's tail as it is at the failure, not at the start)."""
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {seconds:.0f}s waiting for {what() if callable(what) else what}")
        time.sleep(every)
