"""Limits per team per phase: per UTC day and in total, grants, and what does not count."""
from datetime import date, datetime, timedelta
from datetime import timezone as dt_timezone

import pytest
import time_machine

from cupboard.competitions.models import Phase
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.models import Submission
from cupboard.submissions.quota import quota_grant, quota_status
from cupboard.submissions.services import submission_create

from .conftest import upload

NOON = datetime(2030, 5, 10, 12, 0, tzinfo=dt_timezone.utc)


@pytest.fixture
def limited(world):
    Phase.objects.filter(pk=world.dev.pk).update(daily_limit=2, total_limit=3, opens_at=NOON - timedelta(days=5),
                                                 closes_at=NOON + timedelta(days=5))
    world.dev.refresh_from_db()
    return world


def send(world, n: int):
    # Distinct content each time, or the service would return the earlier submission.
    return submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name=f"m{n}",
                             files=[(upload("run.sw.txt", {"1": [f"{n}#0"]}), None)])


def test_it_caps_a_day_and_names_the_next_slot(limited):
    with time_machine.travel(NOON, tick=False):
        send(limited, 1), send(limited, 2)
        with pytest.raises(SubmissionRefused) as caught:
            send(limited, 3)
        assert caught.value.code == "daily_limit" and "2030-05-11 00:00 UTC" in caught.value.message
        status = quota_status(phase=limited.dev, team=limited.team_a, now=NOON)
        assert tuple(status) == (2, 2, 2, 3, datetime(2030, 5, 11, tzinfo=dt_timezone.utc))
    with time_machine.travel(datetime(2030, 5, 11, 0, 0, 1, tzinfo=dt_timezone.utc), tick=False):
        send(limited, 3)
        with pytest.raises(SubmissionRefused) as caught:
            send(limited, 4)
        assert caught.value.code == "total_limit"
        assert quota_status(phase=limited.dev, team=limited.team_a, now=NOON + timedelta(hours=13)).next_slot_at is None
    assert Submission.objects.filter(team=limited.team_a).count() == 3


def test_it_does_not_count_rejected_or_failed_submissions(limited):
    with time_machine.travel(NOON, tick=False):
        first, second = send(limited, 1), send(limited, 2)
        Submission.objects.filter(pk=first.pk).update(status=Submission.Status.REJECTED)
        Submission.objects.filter(pk=second.pk).update(status=Submission.Status.FAILED)
        assert quota_status(phase=limited.dev, team=limited.team_a, now=NOON).used_today == 0
        send(limited, 3), send(limited, 4)


def test_it_costs_no_quota_for_an_invalid_upload(limited):
    with time_machine.travel(NOON, tick=False):
        for _ in range(3):
            with pytest.raises(SubmissionRefused):
                submission_create(phase=limited.dev, team=limited.team_a, user=limited.participant,
                                  method_name="bad", files=[(upload("run.sw.txt", b"garbage\n"), None)])
        assert quota_status(phase=limited.dev, team=limited.team_a, now=NOON).used_today == 0


def test_it_adds_granted_slots_and_records_the_grant(limited):
    with time_machine.travel(NOON, tick=False):
        send(limited, 1), send(limited, 2)
        quota_grant(team=limited.team_a, phase=limited.dev, extra=1, day=date(2030, 5, 10), reason="outage",
                    actor=limited.organizer)
        send(limited, 3)
        quota_grant(team=limited.team_a, phase=limited.dev, extra=1, day=None, reason="bonus",
                    actor=limited.organizer)
        status = quota_status(phase=limited.dev, team=limited.team_a, now=NOON)
        assert (status.daily_limit, status.total_limit, status.used_today) == (3, 4, 3)
    events = limited.competition.audit_events.filter(action="limit_granted")
    assert events.count() == 2 and "outage" in events.last().summary


def test_it_lets_only_organizers_grant(limited):
    with pytest.raises(SubmissionRefused) as caught:
        quota_grant(team=limited.team_a, phase=limited.dev, extra=5, day=None, reason="me", actor=limited.participant)
    assert caught.value.code == "not_organizer"
