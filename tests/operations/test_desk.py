"""A competition's operations desk: the queue per phase, workers, the last hour's throughput and
problems, for its organizers, without naming another competition."""
import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from cupboard.submissions.models import Submission
from cupboard.submissions.services import submission_create
from tests.factories import make_topics
from tests.submissions.conftest import _worlds, good_sw, run_bytes, upload, world  # noqa: F401 - world is a fixture

pytestmark = pytest.mark.django_db


def _run(world, name: str, phase=None, user=None, **fields) -> Submission:
    submission = submission_create(phase=phase or world.dev, team=None, user=user or world.organizer, method_name=name,
                                   is_baseline=True, files=[(upload("run.sw.txt", run_bytes(good_sw(), tag=name)), None)])
    Submission.objects.filter(pk=submission.pk).update(**fields)
    return submission


def _desk(client, slug: str) -> dict:
    response = client.get(f"/c/{slug}/manage/operations/?format=json")
    assert response.status_code == 200
    return json.loads(response.content)


def test_it_counts_the_queue_the_hour_and_the_problems(world):
    now = timezone.now()
    _run(world, "waiting1", waiting_since=now - timedelta(seconds=200))
    _run(world, "waiting2")
    _run(world, "judgments", status_reason=Submission.WAITING_FOR_JUDGMENTS)
    _run(world, "scoring", status=Submission.Status.SCORING, claimed_by="w:1", claimed_at=now, heartbeat_at=now)
    for seconds in (4, 8):
        _run(world, f"done{seconds}", status=Submission.Status.SCORED, claimed_by="w:2",
             claimed_at=now - timedelta(minutes=8, seconds=seconds), scored_at=now - timedelta(minutes=8))
    _run(world, "broken", status=Submission.Status.FAILED, claimed_at=now - timedelta(minutes=5),
         status_reason="Gave up after 3 scoring attempts. Last problem: disk full")
    elsewhere = world.other_competition.phases.first()
    make_topics(elsewhere, "sw", ["1", "2", "3"])
    _run(world, "elsewhere", phase=elsewhere, user=world.other_organizer)  # in the site's line, not named
    client = Client()
    client.force_login(world.organizer)
    desk = _desk(client, world.competition.slug)
    dev = next(p for p in desk["phases"] if p["slug"] == "dev")
    assert (dev["in_line"], dev["waiting_for_judgments"], dev["scoring"]) == (2, 1, 1)
    assert 200 <= dev["oldest_wait_seconds"] < 260
    assert (dev["scored_last_hour"], dev["median_scoring_seconds"], dev["failed_last_hour"]) == (2, 6, 1)
    assert desk["site"] == {"workers_live": 2, "scoring": 1, "in_line": 3}
    assert [f["reason"] for f in desk["failed_last_hour"]] == ["Gave up after 3 scoring attempts. Last problem: disk full"]
    page = client.get(f"/c/{world.competition.slug}/manage/operations/")
    text = page.content.decode()
    assert 'http-equiv="refresh"' in text and "disk full" in text and "plotly-chart" in text
    assert world.other_competition.title not in text and world.other_competition.slug not in text


def test_it_is_for_the_competition_s_organizers(world):
    participant = Client()
    participant.force_login(world.participant)
    assert participant.get(f"/c/{world.competition.slug}/manage/operations/").status_code == 403
    other = Client()
    other.force_login(world.other_organizer)
    assert other.get(f"/c/{world.competition.slug}/manage/operations/").status_code == 403
