"""How long run files are kept: those of rejected and failed submissions go after
CUPBOARD_RUN_FILE_RETENTION_DAYS; every other run file is kept for good.

A rejected or failed submission is final (nothing moves it back to the queue) and counts
nowhere, so after the retention period its files only take disk. The rows stay (name,
SHA-256, size, line count): the submission's page still says what was sent. A submission
that a leaderboard row names keeps its files whatever its status, so a leaderboard can
always be traced back to the runs it ranks.
"""
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef, QuerySet
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from cupboard.competitions.models import Phase, private_storage

from .models import RunFile, Submission


@dataclass(frozen=True)
class Purged:
    files: int
    bytes: int


def _last_activity():
    """The latest moment a worker or the upload touched a submission (SQLite's MAX is null if any
    argument is, hence the Coalesce on each nullable field)."""
    created = "submission__created_at"
    return Greatest(created, *(Coalesce(f"submission__{field}", created)
                               for field in ("claimed_at", "heartbeat_at", "queued_at")))


def expired_run_files(*, now: datetime) -> QuerySet:
    """Stored run files of rejected and failed submissions untouched for the retention period,
    except those of any submission a leaderboard row names."""
    cutoff = now - timedelta(days=settings.CUPBOARD_RUN_FILE_RETENTION_DAYS)
    # A leaderboard row of its phase names it: read through the relation leaderboards declares on
    # Phase (leaderboard_rows), as that app sits on the floor above.
    on_a_leaderboard = Phase.objects.filter(leaderboard_rows__submission=OuterRef("submission"))
    return (RunFile.objects.exclude(file="")
            .filter(submission__status__in=(Submission.Status.REJECTED, Submission.Status.FAILED))
            .alias(last_activity=_last_activity()).filter(last_activity__lt=cutoff)
            .exclude(Exists(on_a_leaderboard)))


def run_files_purge(*, now: datetime | None = None) -> Purged:
    """Delete the expired run files from private storage; returns how many and their stored bytes.
    The row forgets the name before the file goes: a crash in between leaves an orphan file,
    never a row naming a missing one."""
    storage = private_storage()
    files = size = 0
    for pk, name in expired_run_files(now=now or timezone.now()).values_list("pk", "file"):
        if not RunFile.objects.filter(pk=pk, file=name).update(file=""):
            continue  # purged meanwhile by another run of this task
        try:
            size += storage.size(name)
            storage.delete(name)
        except FileNotFoundError:
            pass
        files += 1
    return Purged(files=files, bytes=size)
