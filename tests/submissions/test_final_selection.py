"""Final selection, disqualification and phase rescoring."""
from datetime import timedelta

import pytest
import time_machine

from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import phase_rescore, submission_create, submission_disqualify, submission_select_final
from tests.queries import messages

from .conftest import upload


def scored(world, n: int) -> Submission:
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name=f"m{n}",
                                   files=[(upload("run.sw.txt", {"1": [f"1{n}#0"]}), None)])
    submission_score(submission_id=submission.pk)
    submission.refresh_from_db()
    return submission


def test_it_allows_up_to_the_configured_number(world):
    first, second, third = scored(world, 1), scored(world, 2), scored(world, 3)
    submission_select_final(submission=first, user=world.participant, selected=True)
    submission_select_final(submission=second, user=world.teammate, selected=True)
    with pytest.raises(SubmissionRefused) as caught:
        submission_select_final(submission=third, user=world.participant, selected=True)
    assert caught.value.code == "selection_full"
    submission_select_final(submission=first, user=world.participant, selected=False)
    submission_select_final(submission=third, user=world.participant, selected=True)
    assert set(Submission.objects.filter(selected_for_final=True).values_list("pk", flat=True)) == {second.pk,
                                                                                                      third.pk}


def test_it_refuses_other_teams_and_a_closed_phase(world):
    submission = scored(world, 1)
    with pytest.raises(SubmissionRefused) as caught:
        submission_select_final(submission=submission, user=world.outsider, selected=True)
    assert caught.value.code == "not_member"
    with time_machine.travel(world.dev.closes_at + timedelta(seconds=1)):
        with pytest.raises(SubmissionRefused) as caught:
            submission_select_final(submission=submission, user=world.participant, selected=True)
    assert caught.value.code == "phase_closed"


def test_it_disqualifies_for_organizers_only_and_audits(world):
    submission = scored(world, 1)
    with pytest.raises(SubmissionRefused):
        submission_disqualify(submission=submission, actor=world.participant, reason="cheating")
    submission_disqualify(submission=submission, actor=world.organizer, reason="used the qrels")
    submission.refresh_from_db()
    assert submission.disqualified and submission.disqualified_reason == "used the qrels"
    assert world.competition.audit_events.filter(action="disqualified").count() == 1
    with pytest.raises(SubmissionRefused) as caught:
        submission_select_final(submission=submission, user=world.participant, selected=True)
    assert caught.value.code == "not_selectable"


def test_it_queues_scored_work_again_on_rescore_and_audits(world, django_capture_on_commit_callbacks):
    first, second = scored(world, 1), scored(world, 2)
    Submission.objects.filter(pk=second.pk).update(status=Submission.Status.REJECTED)
    with django_capture_on_commit_callbacks() as callbacks:
        assert phase_rescore(phase=world.dev, actor=world.organizer) == 1
    first.refresh_from_db()
    assert first.status == Submission.Status.QUEUED and first.attempts == 0
    assert len(messages(callbacks)) == 1
    assert world.competition.audit_events.filter(action="rescored").count() == 1
    assert submission_score(submission_id=first.pk) == "scored"
