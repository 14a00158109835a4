"""The Celery app. Workers find tasks in each app's tasks.py."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cupboard.settings")

app = Celery("cupboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
