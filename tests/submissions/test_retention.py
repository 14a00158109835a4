"""Files of rejected and failed submissions go after CUPBOARD_RUN_FILE_RETENTION_DAYS; nothing
else does, and never a file a leaderboard row depends on."""
from datetime import timedelta
from io import StringIO

from django.conf import settings
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from cupboard.competitions.models import private_storage
from cupboard.leaderboards.models import LeaderboardRow
from cupboard.submissions.models import RunFile, Submission
from cupboard.submissions.retention import Purged, run_files_purge
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from cupboard.submissions.tasks import purge_run_files
from tests.personas import client_for

from .conftest import good_sw, run_bytes, upload

DAYS = settings.CUPBOARD_RUN_FILE_RETENTION_DAYS


def final(world, name: str, status: str, *, days_ago: float, team=None, user=None) -> Submission:
    """A submission in `status` whose last activity was `days_ago` days ago."""
    run = upload(f"{name}.sw.txt", run_bytes({"1": ["10#0"]}, tag=name))
    submission = submission_create(phase=world.dev, team=team or world.team_a, user=user or world.participant,
                                   method_name=name, files=[(run, "sw")])
    then = timezone.now() - timedelta(days=days_ago)
    Submission.objects.filter(pk=submission.pk).update(status=status, created_at=then, queued_at=then,
                                                       claimed_at=then, heartbeat_at=then)
    return submission


def stored(submission) -> str:
    return submission.run_files.get().file.name


def test_it_removes_the_files_of_rejected_and_failed_submissions_after_the_retention_period(world):
    old = [final(world, "retention-r", Submission.Status.REJECTED, days_ago=DAYS + 1),
           final(world, "retention-f", Submission.Status.FAILED, days_ago=DAYS + 1)]
    names = [stored(s) for s in old]
    size = sum(private_storage().size(name) for name in names)

    assert run_files_purge() == Purged(files=2, bytes=size)
    assert not any(private_storage().exists(name) for name in names)
    assert list(RunFile.objects.filter(submission__in=old).values_list("file", flat=True)) == ["", ""]
    assert run_files_purge() == Purged(files=0, bytes=0)


def test_it_keeps_recent_ones_and_every_other_status(world):
    kept = [final(world, "retention-young", Submission.Status.REJECTED, days_ago=DAYS - 1),
            final(world, "retention-scored", Submission.Status.SCORED, days_ago=DAYS * 10),
            final(world, "retention-queued", Submission.Status.QUEUED, days_ago=DAYS * 10)]
    retried = final(world, "retention-retried", Submission.Status.FAILED, days_ago=DAYS * 10)
    Submission.objects.filter(pk=retried.pk).update(heartbeat_at=timezone.now() - timedelta(days=1))

    assert run_files_purge() == Purged(files=0, bytes=0)
    assert all(private_storage().exists(stored(s)) for s in [*kept, retried])


def test_it_never_removes_a_file_a_leaderboard_row_depends_on(world):
    ranked = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="ranked",
                               files=[(upload("retention-ranked.sw.txt", good_sw()), "sw")])
    assert submission_score(submission_id=ranked.pk) == "scored"
    assert LeaderboardRow.objects.filter(submission=ranked).exists()
    # Re-scored later, and that attempt failed: the leaderboard still shows the earlier scores.
    then = timezone.now() - timedelta(days=DAYS * 10)
    Submission.objects.filter(pk=ranked.pk).update(status=Submission.Status.FAILED, created_at=then, queued_at=then,
                                                   claimed_at=then, heartbeat_at=then)

    assert run_files_purge(now=timezone.now() + timedelta(days=365)) == Purged(files=0, bytes=0)
    for row in LeaderboardRow.objects.all():
        assert all(f.file and private_storage().exists(f.file.name) for f in row.submission.run_files.all())


def test_the_command_and_the_periodic_task_report_what_they_freed(world):
    name = stored(final(world, "retention-cmd", Submission.Status.REJECTED, days_ago=DAYS + 1))
    out = StringIO()
    size = private_storage().size(name)
    call_command("purge_run_files", stdout=out)
    assert f"Freed {size} bytes: 1 run file(s)" in out.getvalue()
    name = stored(final(world, "retention-task", Submission.Status.FAILED, days_ago=DAYS + 1))
    size = private_storage().size(name)
    assert purge_run_files() == {"files": 1, "bytes": size}
    schedule = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "cupboard.submissions.tasks.purge_run_files" in schedule


def test_a_removed_file_is_gone_for_its_team_too(world):
    submission = final(world, "retention-page", Submission.Status.REJECTED, days_ago=DAYS + 1)
    run_files_purge()
    teammate = client_for(world.teammate)
    gone = teammate.get(reverse("submissions:download", args=[submission.pk, "sw"]))
    assert gone.status_code == 410 and gone["Content-Type"].startswith("text/html")  # the site's page, not bare text
    assert "<h1>This file is gone</h1>" in gone.content.decode() and 'class="site"' in gone.content.decode()
    assert f"retention-page.sw.txt was removed: files of rejected and failed submissions are kept {DAYS} days" \
        in gone.content.decode()
    page = teammate.get(reverse("submissions:detail", args=[submission.pk])).content.decode()
    assert "retention-page.sw.txt" in page and "removed" in page


def test_a_page_kept_before_the_purge_says_the_file_is_removed_at_once(world):
    """The purge writes the row by a bulk update, which tells the kept pages (cupboard/bulk_writes.py)."""
    submission = final(world, "retention-kept", Submission.Status.REJECTED, days_ago=DAYS + 1)
    teammate, url = client_for(world.teammate), reverse("submissions:detail", args=[submission.pk])
    for _ in range(2):  # the first answer sets the CSRF cookie, the second is kept for the browser
        assert "(file removed" not in teammate.get(url).content.decode()
    run_files_purge()
    assert "retention-kept.sw.txt <span class=\"muted\">(file removed" in teammate.get(url).content.decode()
