"""The Celery app. Workers find tasks in each app's tasks.py."""
import atexit
import os
import sys
from typing import Any

from celery import Celery, signals

from cupboard import broker
from cupboard.heartbeat import HeartbeatStep

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cupboard.settings")
# A worker does not run Django's system checks at start-up: the URL check imports the URL config
# and with it every view (and pyarrow through them), which no task needs before it renders a
# link. The same checks ran on the same code in `manage.py migrate`, which every worker waits for
# (docker/compose.yaml); a task that needs the URL config imports it when it runs.
os.environ.setdefault("CELERY_SKIP_CHECKS", "1")
broker.register()  # filesystem:// in order (broker.py)

app = Celery("cupboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.steps["worker"].add(HeartbeatStep)  # liveness for orchestrators (heartbeat.py)


# Seconds a send waits for a Redis that accepts connections but does not answer (frozen,
# partitioned). Only for sends: a worker's own connection keeps the transport's defaults, so
# a busy machine never turns its blocking reads into reconnections.
SEND_SOCKET_TIMEOUT = 3


def send_task_message(task, *args: Any) -> None:
    """Send `task(*args)` now, on a connection of its own that gives up within seconds when the
    broker cannot answer (retries: CELERY_TASK_PUBLISH_RETRY_POLICY). Raises on failure."""
    options = {"socket_timeout": SEND_SOCKET_TIMEOUT} if app.conf.broker_url.startswith("redis") else {}
    with app.connection_for_write(transport_options=options) as connection:
        task.apply_async(args, connection=connection)


@signals.worker_shutdown.connect
def exit_without_teardown(sender, **kwargs) -> None:
    """End a `celery worker` process as soon as its shutdown is done, skipping the interpreter's
    teardown of every module and object, which a worker pays for nothing on each restart.

    Celery sends this signal last, after the warm shutdown finished its tasks, acked or returned
    their messages and closed its connections (a cold shutdown does not send it). The exit handlers run
    (logging's flush, a pid file's removal, child processes' reaping); the exit status is the one
    the command would have returned. Only the command's worker: a worker embedded in another
    program (celery.contrib.testing) is left to that program."""
    from celery.apps.worker import Worker

    if not isinstance(sender, Worker):
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    code = sender.exitcode
    os._exit(code if isinstance(code, int) else int(bool(code)))
