"""The Celery tasks: thin, late-acknowledged, named as the beat schedule expects."""
from django.conf import settings

from cupboard.celery import app
from cupboard.flows.tasks import sweep_jobs_task
from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_sweep_stale
from cupboard.submissions.services import submission_create
from cupboard.submissions.tasks import score_submission

from .conftest import good_sw, upload


def test_it_acks_late_and_survives_a_lost_worker():
    assert score_submission.acks_late and score_submission.reject_on_worker_lost
    assert score_submission.time_limit == settings.CELERY_TASK_TIME_LIMIT
    assert app.conf.worker_prefetch_multiplier == 1


def test_it_registers_the_sweeper_of_every_kind_under_the_scheduled_name():
    scheduled = settings.CELERY_BEAT_SCHEDULE["sweep-jobs"]["task"]
    assert scheduled == sweep_jobs_task.name == "cupboard.flows.tasks.sweep_jobs"
    assert [entry for entry in settings.CELERY_BEAT_SCHEDULE if "sweep" in entry] == ["sweep-jobs"]


def test_a_periodic_task_a_busy_worker_did_not_take_within_its_interval_expires():
    """Not piled up behind a long run (a solo worker scoring for minutes got one sweep per
    interval meanwhile, each run once it was free): every one is idempotent and the next is
    at most an interval away (30 s at least: a slow delivery must not expire them all). Beat
    passes the options to every message it sends."""
    from celery.beat import ScheduleEntry

    for name, entry in settings.CELERY_BEAT_SCHEDULE.items():
        sent = ScheduleEntry(name=name, app=app, **entry)
        assert 0 < sent.options["expires"] <= max(30, entry["schedule"]), name


def test_it_scores_by_id_when_run(world):
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                                   files=[(upload("run.sw.txt", good_sw()), None)])
    assert score_submission(submission.pk) == "scored"
    assert score_submission(submission.pk) == "skipped"
    assert Submission.objects.get().status == Submission.Status.SCORED
    assert submission_sweep_stale() == {"put_back": 0, "resent": 0, "failed": 0}
    assert sweep_jobs_task()["scoring"] == {"put_back": 0, "resent": 0, "failed": 0}
