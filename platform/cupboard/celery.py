"""The Celery app. Workers find tasks in each app's tasks.py."""
import os
from typing import Any

from celery import Celery

from cupboard import broker
from cupboard.heartbeat import HeartbeatStep

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cupboard.settings")
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
