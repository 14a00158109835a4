"""The official results of a final phase, frozen at its reveal: CSV and JSON as the public
sees them then, their SHA-256 in the public audit log, never overwritten by a re-scoring,
and a second engine's verification asked for, once however often the beat task runs."""
import hashlib
from datetime import timedelta

import pytest
import time_machine

from cupboard.audit.models import AuditEvent
from cupboard.flows.tasks import publish_due_events_task
from cupboard.leaderboards.models import FrozenSnapshot
from cupboard.leaderboards.releases import final_results_release_due
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.models import Score, Verification
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def final(cast):
    phase = cast.competition.phases.get(slug="test-b")
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.6, te=0.6, yo=0.6), method="dense")
    make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.4, te=0.4, yo=0.4), method="sparse")
    leaderboard_refresh(phase=phase)
    return phase


def test_nothing_is_frozen_before_the_reveal(cast, final):
    assert final_results_release_due() == 0
    assert not FrozenSnapshot.objects.exists() and not Verification.objects.exists()
    assert client_for(cast.anonymous).get("/c/cup/test-b/official.csv").status_code == 404


def test_the_reveal_freezes_once_and_publishes_the_hashes(cast, final):
    with time_machine.travel(final.reveal_at + timedelta(seconds=1), tick=False):
        assert final_results_release_due() == 2  # this cup's test B, and the other cup's (empty)
        publish_due_events_task()  # the beat task again: nothing new
        assert final_results_release_due() == 0
    snapshot = FrozenSnapshot.objects.get(phase=final)
    assert snapshot.csv.splitlines()[1].startswith("1,Team A,dense")
    assert Verification.objects.filter(phase=final, reason=Verification.Reason.REVEAL).count() == 1
    [event] = AuditEvent.objects.filter(action=AuditEvent.Action.RESULTS_FROZEN, competition=cast.competition)
    assert event.is_public
    assert event.details["csv_sha256"] == hashlib.sha256(snapshot.csv.encode()).hexdigest() == snapshot.csv_sha256
    assert event.details["json_sha256"] == hashlib.sha256(snapshot.json.encode()).hexdigest()
    with pytest.raises(ValueError):
        snapshot.save()


def test_a_later_rescoring_shows_beside_it_and_never_overwrites_it(cast, final):
    with time_machine.travel(final.reveal_at + timedelta(seconds=1), tick=False):
        final_results_release_due()
    frozen = FrozenSnapshot.objects.get(phase=final)
    with time_machine.travel(final.reveal_at + timedelta(days=1), tick=False):
        Score.objects.filter(submission__team=cast.team_b).update(value=0.9)  # new judgments favour team B
        leaderboard_refresh(phase=final)
        final_results_release_due()
        client = client_for(cast.anonymous)
        csv = client.get("/c/cup/test-b/official.csv")
        assert csv.status_code == 200 and hashlib.sha256(csv.content).hexdigest() == frozen.csv_sha256
        assert "official-" in csv["Content-Disposition"]
        assert client.get("/c/cup/test-b/official.json").json()["rows"][0]["team"] == "Team A"
        assert client.get("/c/cup/test-b/leaderboard.json").json()["rows"][0]["team"] == "Team B"  # the live one
        page = client.get("/c/cup/test-b/leaderboard/").content.decode()
        assert f"Official results, frozen {frozen.frozen_at:%Y-%m-%d %H:%M} UTC" in page and frozen.csv_sha256 in page
    assert FrozenSnapshot.objects.get(phase=final).csv == frozen.csv


def test_a_draft_competition_is_not_frozen(cast, final):
    cast.competition.is_published = False
    cast.competition.save()
    with time_machine.travel(final.reveal_at + timedelta(seconds=1), tick=False):
        final_results_release_due()
    assert not FrozenSnapshot.objects.filter(phase=final).exists()
    assert not Verification.objects.filter(phase=final).exists()
