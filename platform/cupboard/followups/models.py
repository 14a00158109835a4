"""The outbox: one row per piece of work that must follow a committed change.

A `FollowUp` is written in the transaction of the change it follows (a run's scores stored, a
disqualification, a qrels release), so the change and what must follow it are committed
together or not at all. Once committed, the row is carried out at once by the process that
made it and, if that fails or the process dies, by a worker (a job kind of cupboard.jobs,
services.FOLLOW_UP). The row, not anybody's memory, says what is still owed.
"""
from django.db import models
from django.utils import timezone

from cupboard.jobs.models import JobRow


class FollowUp(JobRow):
    class Status(models.TextChoices):
        WAITING = "waiting"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"  # out of attempts: left with its problem for an operator

    event = models.CharField(max_length=100, help_text="What it follows, e.g. 'run scored'")
    handler = models.CharField(max_length=200, help_text="The dotted path of the function that carries it out")
    what = models.CharField(max_length=200, help_text="What it does, in words: the team's leaderboard row")
    arguments = models.JSONField(default=dict, help_text="The event its handler is called with, its dataclass and fields (rows by their id), followups/codec.py")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.WAITING)
    problem = models.TextField(blank=True, help_text="The last failed attempt's error (kept once done)")
    # The job engine's columns come from JobRow (cupboard.jobs).
    created_at = models.DateTimeField(default=timezone.now)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "created_at"], name="followup_status_created")]

    def __str__(self):
        return f"{self.handler.rsplit('.', 1)[-1]} after {self.event} ({self.status})"
