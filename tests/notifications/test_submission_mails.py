"""A submission scored, rejected or failed: one mail to each member of its team, with what
that member may see of it (competitions/viewer.py), never more."""
from django.core import mail
from django.test import override_settings

from cupboard.competitions.models import Phase
from cupboard.notifications.models import Notification
from cupboard.notifications.preferences import mail_preferences_set
from cupboard.notifications.services import notify_submission
from cupboard.submissions import scoring
from cupboard.submissions.models import Score, Submission
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.scoring_jobs import RunRejected
from cupboard.submissions.services import submission_create
from tests.factories import make_qrels_release
from tests.submissions.conftest import JUDGMENTS

from .conftest import good_sw, send_recorded, upload


def submit(world, phase, *, rankings=None, method="BM25"):
    return submission_create(phase=phase, team=world.team_a, user=world.participant, method_name=method,
                             files=[(upload("run.sw.txt", rankings or good_sw()), None)])


def test_each_member_gets_the_scores_they_may_see(world):
    submission = submit(world, world.dev)
    assert submission_score(submission_id=submission.pk) == "scored"
    assert send_recorded() == {"sent": 2, "skipped": 0, "failed": 0}
    assert sorted(m.to[0] for m in mail.outbox) == ["participant@example.org", "teammate@example.org"]
    message = mail.outbox[0]
    assert message.subject == f"[{world.competition.title}] Development: submission #1 (BM25) is scored"
    score = Score.objects.get(submission=submission, subset__code="sw", metric="nDCG@10").value
    assert f"sw     nDCG@10 {score:.3f}" in message.body and "K.Avg" in message.body
    assert f"/submissions/{submission.pk}/" in message.body
    # Sent means stamped: sending again sends nothing.
    assert send_recorded() == {"sent": 0, "skipped": 0, "failed": 0} and len(mail.outbox) == 2


def test_a_phase_showing_only_the_status_mails_no_score(world):
    Phase.objects.filter(pk=world.test_b.pk).update(before_reveal=Phase.BeforeReveal.STATUS)
    make_qrels_release(world.test_b, JUDGMENTS)
    submission = submit(world, world.test_b)
    assert submission_score(submission_id=submission.pk) == "scored"
    send_recorded()
    body = mail.outbox[0].body
    assert "valid and scored" in body and "hidden until" in body
    values = [f"{s.value:.3f}" for s in Score.objects.filter(submission=submission)]
    assert values and not [v for v in values if v in body] and "nDCG@10" not in body


def test_a_surprise_language_is_not_named_before_its_reveal(world):
    submission = submit(world, world.dev)
    assert submission_score(submission_id=submission.pk) == "scored"
    assert Score.objects.filter(submission=submission, subset__code="yo").exists()  # scored (0), but hidden
    send_recorded()
    assert mail.outbox and all("yo " not in m.body and "S.Avg" not in m.body for m in mail.outbox)


def test_a_rejection_says_why(world, monkeypatch):
    submission = submit(world, world.dev)

    def reject(**kwargs):  # as when the phase's topics changed after the upload
        raise RunRejected("sw: line 3: query 9 is not a topic of this phase")

    monkeypatch.setattr(scoring, "_score_subsets", reject)
    assert submission_score(submission_id=submission.pk) == "rejected"
    send_recorded()
    assert len(mail.outbox) == 2 and "was rejected" in mail.outbox[0].subject
    assert "line 3: query 9 is not a topic" in mail.outbox[0].body


@override_settings(CUPBOARD_MAX_ATTEMPTS=1)
def test_a_failure_is_mailed_once_and_a_mail_failure_keeps_the_submission(world, monkeypatch):
    submission = submit(world, world.dev)
    monkeypatch.setattr(scoring, "_score_subsets", lambda **kwargs: 1 / 0)
    assert submission_score(submission_id=submission.pk) == "failed"
    monkeypatch.setattr("cupboard.notifications.services._record", lambda rows: 1 / 0)  # recording breaks
    assert notify_submission(submission_id=submission.pk, event="failed") == []
    monkeypatch.setattr("cupboard.notifications.services._members", lambda team: 1 / 0)  # so does reading
    assert notify_submission(submission_id=submission.pk, event="failed") == []
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    send_recorded()
    assert len(mail.outbox) == 2 and "could not be scored" in mail.outbox[0].subject


def test_a_member_who_turned_them_off_gets_none(world):
    mail_preferences_set(user=world.teammate, wanted={"submission": False})
    submission = submit(world, world.dev)
    submission_score(submission_id=submission.pk)
    send_recorded()
    assert [m.to for m in mail.outbox] == [["participant@example.org"]]
    assert not Notification.objects.filter(user=world.teammate).exists()


def test_a_member_who_turns_them_off_before_the_send_gets_none(world):
    submission = submit(world, world.dev)
    submission_score(submission_id=submission.pk)
    mail_preferences_set(user=world.teammate, wanted={"submission": False})
    assert send_recorded() == {"sent": 1, "skipped": 1, "failed": 0}
    assert Notification.objects.get(user=world.teammate).skipped == "turned off"


def test_right_to_left_names_are_isolated_in_the_plain_text(world):
    """An Arabic team and a Persian method between Unicode's isolates (cupboard/bidi.py): plain text
    holds no <bdi>, and unisolated the quotes and "#1" beside them are drawn on their other side."""
    from cupboard.bidi import FSI, PDI
    from cupboard.teams.models import Team

    team, method = "فريق البحث 2", "بازیابی چندزبانه"
    Team.objects.filter(pk=world.team_a.pk).update(name=team)
    submission = submit(world, world.dev, method=method)
    assert submission_score(submission_id=submission.pk) == "scored"
    send_recorded()
    message = mail.outbox[0]
    assert f"Submission #1 of {FSI}{team}{PDI} to Development (\"{FSI}{method}{PDI}\") is scored." in message.body
    assert message.subject.endswith(f"Development: submission #1 ({FSI}{method}{PDI}) is scored")
