"""What a real `celery -A cupboard worker` has imported when it is ready, and how it ends.

A worker restarts on every deploy and the test suite starts about a hundred: it imports the
task modules, not the URL config and the views (nor pyarrow through them), which a task
imports when it needs them (cupboard/celery.py). Its warm shutdown ends the process with the
command's own exit status once its exit handlers ran, without the interpreter's teardown."""
import os
import subprocess
import sys

import pytest

# The worker's own program, with a receiver that reports the imported modules once the worker is
# ready and then asks it for a warm shutdown (SIGTERM, as an orchestrator does), an exit handler
# that says it ran and an object that says when the interpreter's teardown deletes it.
PROGRAM = """
import atexit, os, signal, sys
from celery import signals
from celery.__main__ import main

@signals.worker_ready.connect
def report(**kwargs):
    names = sorted(name for name in sys.modules if name.split(".")[0] in ("cupboard", "pyarrow"))
    print("imported: " + " ".join(names), flush=True)  # one write: the worker logs each write as a line
    os.kill(os.getpid(), signal.SIGTERM)

atexit.register(lambda: print("exit handlers ran", flush=True))

class Teardown:
    def __del__(self):
        os.write(1, b"interpreter teardown\\n")

kept = Teardown()  # deleted when the interpreter tears its modules down
sys.argv = ["celery", "-A", "cupboard", "worker", "--pool=solo", "--without-mingle", "--without-gossip",
            "-n", "start-%d@testhost" % os.getpid()]
main()
"""


@pytest.mark.slow
def test_a_ready_worker_has_its_tasks_not_the_views_and_ends_cleanly(tmp_path):
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("DATABASE_URL", "CELERY_BROKER_URL", "CUPBOARD_VAR_DIR", "CELERY_SKIP_CHECKS"))}
    env.update(CUPBOARD_VAR_DIR=str(tmp_path))
    worker = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=120,
                            start_new_session=True)
    assert worker.returncode == 0, worker.stdout[-3000:] + worker.stderr[-3000:]
    output = worker.stdout + worker.stderr  # the worker logs what its tasks and receivers print
    (line,) = [line for line in output.splitlines() if "imported:" in line]
    imported = set(line.split("imported:")[1].split())
    assert {"cupboard.submissions.tasks", "cupboard.notifications.tasks", "cupboard.systems.tasks"} <= imported
    assert not imported & {"cupboard.urls", "cupboard.submissions.views", "cupboard.leaderboards.views", "pyarrow"}
    assert "exit handlers ran" in output and "interpreter teardown" not in output
