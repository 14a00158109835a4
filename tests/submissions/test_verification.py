"""A second engine behind the official numbers: pytrec_eval recomputes every leaderboard
submission's scores from the stored runs and the current judgments and is compared with
the stored Score rows (float32-aware); the outcome is audited once."""
import pytest

from cupboard.audit.models import AuditEvent
from cupboard.leaderboards.models import LeaderboardRow
from cupboard.submissions.models import Score, Verification
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from cupboard.submissions.verification import verification_request, verification_run

from .conftest import good_sw, upload

pytestmark = pytest.mark.django_db


def scored(world, *, team=None, rankings=None, name="run.sw.txt", method="BM25"):
    owner = {"team": team, "user": world.participant} if team else {"team": None, "user": world.organizer,
                                                                       "is_baseline": True}
    submission = submission_create(phase=world.dev, method_name=method,
                                   files=[(upload(name, rankings or good_sw()), None)], **owner)
    assert submission_score(submission_id=submission.pk) == "scored"
    return submission


def verified(world) -> Verification:
    verification = verification_request(phase=world.dev, actor=world.organizer, reason=Verification.Reason.ORGANIZER)
    verification_run(verification_id=verification.pk)
    verification.refresh_from_db()
    return verification


def test_it_passes_when_both_engines_agree_and_says_so_in_the_audit_log(world):
    scored(world, team=world.team_a)
    scored(world, rankings={"1": ["10#0", "12#0"], "2": ["20#0"]}, method="baseline")
    assert LeaderboardRow.objects.filter(phase=world.dev).count() == 2
    verification = verified(world)
    assert verification.status == Verification.Status.PASSED, verification.differences
    # 2 submissions x 3 subsets (te and yo have no run: 0 on every query, still checked) x 2 metrics
    assert (verification.total, verification.done, verification.scores) == (2, 2, 12)
    assert verification.max_difference < 1e-9 and verification.float32_ties == 0
    event = AuditEvent.objects.get(action=AuditEvent.Action.VERIFIED)
    assert not event.is_public  # asked by an organizer: theirs
    assert "verified by a second engine (pytrec_eval): 2 submissions, 12 scores" in event.summary


def test_it_fails_loudly_on_a_stored_score_the_second_engine_does_not_give(world):
    submission = scored(world, team=world.team_a)
    Score.objects.filter(submission=submission, subset__code="sw", metric="nDCG@10").update(value=0.25)
    verification = verified(world)
    assert verification.status == Verification.Status.FAILED
    [difference] = verification.differences
    assert (difference["subset"], difference["metric"], difference["stored"]) == ("sw", "nDCG@10", 0.25)
    assert difference["pytrec_eval"] == pytest.approx((1 + 1 / 1.5849625007211563) / 3)
    event = AuditEvent.objects.get(action=AuditEvent.Action.VERIFIED)
    assert "SECOND ENGINE DISAGREES on 1 of 6 scores" in event.summary and "Team A #1" in event.summary


def test_a_float32_tie_is_counted_apart_not_failed(world):
    # 10#0 (label 1) above 11#0 (label 2) by 1e-8: float64 keeps that order, float32 ties them,
    # and trec_eval then puts 11#0 first (docid descending): nDCG 1 instead of less.
    run = b"1 Q0 10#0 1 1.00000001 t\n1 Q0 11#0 2 1.0 t\n2 Q0 20#0 1 1 t\n"
    scored(world, team=world.team_a, rankings=run)
    verification = verified(world)
    assert verification.status == Verification.Status.PASSED
    assert verification.float32_ties == 1  # sw nDCG@10; R@100 does not depend on the order


def test_it_is_idempotent(world):
    scored(world, team=world.team_a)
    verification = verified(world)
    assert verification_run(verification_id=verification.pk) == "finished, or running elsewhere"
    assert AuditEvent.objects.filter(action=AuditEvent.Action.VERIFIED).count() == 1


def test_asking_again_while_one_waits_returns_it(world):
    first = verification_request(phase=world.dev, actor=world.organizer, reason=Verification.Reason.ORGANIZER)
    again = verification_request(phase=world.dev, actor=world.organizer, reason=Verification.Reason.ORGANIZER)
    assert first.pk == again.pk and Verification.objects.count() == 1


def test_the_scoring_page_asks_for_it_and_shows_its_outcome(world):
    from tests.personas import client_for

    scored(world, team=world.team_a)
    client = client_for(world.organizer)
    response = client.post("/c/cup/manage/dev/verify/")
    assert response.status_code == 302
    verification = Verification.objects.get()
    assert verification.requested_by == world.organizer and verification.status == Verification.Status.QUEUED
    page = client.get("/c/cup/manage/dev/scoring/").content.decode()
    assert "Verify with a second engine" in page and 'http-equiv="refresh"' in page
    verification_run(verification_id=verification.pk)
    page = client.get("/c/cup/manage/dev/scoring/").content.decode()
    assert "Verified: 1 submissions, 6 scores" in page and 'http-equiv="refresh"' not in page


def test_a_second_delivery_leaves_a_running_check_alone_but_takes_over_a_silent_one(world, settings):
    from datetime import timedelta

    from django.utils import timezone

    scored(world, team=world.team_a)
    verification = verification_request(phase=world.dev, actor=world.organizer, reason=Verification.Reason.ORGANIZER)
    now = timezone.now()
    # Claimed long ago, but its worker beat a second ago: alive.
    Verification.objects.filter(pk=verification.pk).update(status=Verification.Status.RUNNING, attempts=1,
                                                           claimed_at=now - timedelta(minutes=5),
                                                           heartbeat_at=now - timedelta(seconds=1))
    assert verification_run(verification_id=verification.pk) == "finished, or running elsewhere"
    silent_since = now - timedelta(seconds=settings.CUPBOARD_STALE_AFTER + 1)
    Verification.objects.filter(pk=verification.pk).update(heartbeat_at=silent_since)
    assert verification_run(verification_id=verification.pk) == "passed"
    assert AuditEvent.objects.filter(action=AuditEvent.Action.VERIFIED).count() == 1
    verification.refresh_from_db()
    assert verification.attempts == 2


def test_the_sweeper_sends_a_waiting_check_again_at_most_once_per_period(world, settings, django_capture_on_commit_callbacks):
    from datetime import timedelta

    from cupboard.submissions.verification import verifications_sweep

    settings.CUPBOARD_RESEND_AFTER = 120
    verification = verification_request(phase=world.dev, actor=world.organizer, reason=Verification.Reason.ORGANIZER)
    asked = verification.created_at
    with django_capture_on_commit_callbacks() as sent:
        assert verifications_sweep(now=asked + timedelta(seconds=60))["resent"] == 0  # its message is on its way
        assert verifications_sweep(now=asked + timedelta(minutes=3))["resent"] == 1
        assert verifications_sweep(now=asked + timedelta(minutes=4))["resent"] == 0  # not again so soon
        assert verifications_sweep(now=asked + timedelta(minutes=5, seconds=1))["resent"] == 1
    assert len(sent) == 2
    verification.refresh_from_db()
    assert verification.queued_at == asked + timedelta(minutes=5, seconds=1)


def test_a_check_out_of_attempts_fails_and_says_so_in_the_audit_log(world, settings):
    from datetime import timedelta

    from django.utils import timezone

    from cupboard.submissions.verification import verifications_sweep

    verification = verification_request(phase=world.dev, actor=None, reason=Verification.Reason.REVEAL)
    Verification.objects.filter(pk=verification.pk).update(
        status=Verification.Status.RUNNING, attempts=settings.CUPBOARD_MAX_ATTEMPTS,
        claimed_at=timezone.now() - timedelta(minutes=5))
    assert verifications_sweep()["failed"] == 1
    verification.refresh_from_db()
    assert verification.status == Verification.Status.FAILED and "gave up after 3 attempts" in str(verification.differences)
    event = AuditEvent.objects.get(action=AuditEvent.Action.VERIFIED)
    assert event.is_public and "FAILED: gave up after 3 attempts" in event.summary


def test_it_checks_every_counted_run_not_only_each_team_s_best(world):
    """Issue 34: a team's second run is verified too; a disqualified one is not counted."""
    scored(world, team=world.team_a)
    scored(world, team=world.team_a, rankings={"1": ["12#0", "10#0"], "2": ["21#0"]}, method="second")
    gone = scored(world, team=world.team_a, rankings={"1": ["11#0"]}, method="gone")
    gone.__class__.objects.filter(pk=gone.pk).update(disqualified=True)
    assert LeaderboardRow.objects.filter(phase=world.dev).count() == 1  # one row for the team
    verification = verified(world)
    assert verification.status == Verification.Status.PASSED, verification.differences
    assert (verification.total, verification.done, verification.scores) == (2, 2, 12)


def test_it_lists_a_line_per_counted_run_on_the_scoring_page(world):
    """Issue 34: the check's list has one line per counted run (who, scores compared,
    differences), the one that differs among them, shown on the scoring page."""
    from tests.personas import client_for

    first = scored(world, team=world.team_a)
    second = scored(world, team=world.team_a, rankings={"1": ["12#0", "10#0"], "2": ["21#0"]}, method="second")
    scored(world, rankings={"1": ["10#0", "12#0"], "2": ["20#0"]}, method="baseline")
    Score.objects.filter(submission=second, subset__code="sw", metric="nDCG@10").update(value=0.25)
    verification = verified(world)
    lines = {line["submission"]: line for line in verification.runs}
    assert len(lines) == 3 and sum(line["scores"] for line in lines.values()) == verification.scores == 18
    assert lines[first.pk]["differences"] == 0 and lines[second.pk]["differences"] == 1
    assert lines[second.pk]["who"] == "Team A #2: second"
    page = client_for(world.organizer).get("/c/cup/manage/dev/scoring/").content.decode()
    listed = page.split("Every run checked (3)")[1].split("</details>")[0]
    assert "Team A #1: BM25" in listed and "Team A #2: second" in listed and "baseline #" in listed
