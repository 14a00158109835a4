"""The columns the engine reads and writes, the same in every kind's row: one abstract model.

A model whose rows are jobs inherits `JobRow`, so its kind (`JobKind`) declares behaviour (its
states, its task, its limits), never column names. Imported by the apps' models.py, not by this
package's __init__ (which is imported before the apps are ready).
"""
from django.db import models


class JobRow(models.Model):
    """One name per idea: a row's message is *sent* (`queued_at`: when it was last put on the
    broker's queue, none: at its creation); a worker *claims* it (`claimed_at`, the claim's
    fencing token; `claimed_by`, the claiming process); the worker *beats* while it works
    (`heartbeat_at`); every claim is an *attempt*."""

    queued_at = models.DateTimeField(null=True, blank=True,
                                     help_text="When its message was last sent (none: at its creation); the sweep "
                                               "sends it again after the kind's resend period")
    claimed_at = models.DateTimeField(null=True, blank=True,
                                      help_text="When a worker last claimed it: the claim's fencing token")
    claimed_by = models.CharField(max_length=255, blank=True,
                                  help_text="host:pid of the worker process that last claimed it (cupboard.jobs)")
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="When its worker last said it is alive")
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Claims so far")

    # Written by every claim, beat and sweep: a bulk update of these alone tells no page
    # (cupboard/bulk_writes.py).
    QUIET_FIELDS: tuple[str, ...] = ("queued_at", "claimed_at", "claimed_by", "heartbeat_at", "attempts")

    class Meta:
        abstract = True
