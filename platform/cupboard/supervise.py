"""`python -m cupboard.supervise COMMAND...`: run a worker and start it again whenever it exits by itself.

Why: with Redis as the broker, celery 5.7 / kombu 5.7 can end a worker with
`Unrecoverable error: AttributeError("'NoneType' object has no attribute 'hostname'")`
inside kombu's `restore_unacked` after `Connection to broker lost` (a known family of
celery/kombu reconnection bugs; no released version is free of them). Nothing is lost when
that happens (runs are acknowledged late and the stale sweeper re-queues them), but nothing
is scored either until the worker runs again. Compose's restart policy hides this; a plain
service unit or `make demo` does not, so the image and the demo start workers through this.

SIGTERM or SIGINT to the supervisor is passed on to the worker as one SIGTERM (celery's warm
shutdown), and the supervisor exits with the worker's status: stopping is never mistaken for
a crash. The worker stays in the supervisor's process group, so killing the group (as
scripts/run-demo does when a shutdown takes too long) leaves nothing running.
A worker that keeps failing at once is started again after a growing pause (1 s doubling
to 30 s), reset once it has stayed up for a minute.
"""
from __future__ import annotations

import signal
import subprocess
import sys
import time

FIRST_PAUSE, LONGEST_PAUSE, STEADY = 1.0, 30.0, 60.0


class Supervisor:
    def __init__(self, argv: list[str], *, first_pause: float = FIRST_PAUSE):
        self.argv = argv
        self.first_pause = first_pause
        self.child: subprocess.Popen | None = None
        self.stopping = False

    def stop(self, _signum=None, _frame=None) -> None:
        """Ask the worker to stop, once; from then on its exit ends the supervisor."""
        if self.stopping:
            return
        self.stopping = True
        if self.child is not None and self.child.poll() is None:
            self.child.terminate()

    def run(self) -> int:
        pause = self.first_pause
        while True:
            started = time.monotonic()
            self.child = subprocess.Popen(self.argv)
            if self.stopping:  # the signal came while it was being started
                self.child.terminate()
            code = self.child.wait()
            if self.stopping:
                return code
            if time.monotonic() - started > STEADY:
                pause = self.first_pause
            print(f"supervise: {self.argv[0]} exited with status {code}; starting it again in {pause:.0f} s",
                  file=sys.stderr, flush=True)
            deadline = time.monotonic() + pause
            while not self.stopping and time.monotonic() < deadline:
                time.sleep(0.1)
            if self.stopping:
                return code
            pause = min(pause * 2, LONGEST_PAUSE)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print("usage: python -m cupboard.supervise COMMAND [ARG...]", file=sys.stderr)
        return 2
    supervisor = Supervisor(argv)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, supervisor.stop)
    return supervisor.run()


if __name__ == "__main__":
    sys.exit(main())
