"""A phase's freeze and Ladder set in the organizer area (competitions/board_rules.py): shown
as a diff first, then applied, audited publicly, the leaderboard rebuilt; refused where the
definition would refuse them or where the public board would roll back."""
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.competitions.board_rules import phase_board_rules_change
from cupboard.competitions.errors import CompetitionError
from cupboard.leaderboards.models import LeaderboardRow
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import personas  # noqa: F401

INSTANT = "%Y-%m-%d %H:%M:%S"


def _url(phase="dev"):
    return reverse("competitions:manage_board_rules", args=["cup", phase])


def test_the_organizer_sees_the_change_then_confirms_it(personas):
    phase = personas.competition.phases.get(slug="dev")
    make_scored(phase, team=personas.team_a, scores=ndcg(sw=0.5, te=0.5))
    freeze_at = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    client = personas.client_for(personas.organizer)
    data = {"freeze_at": freeze_at.strftime(INSTANT), "ladder": "on"}
    preview = client.post(_url(), data)
    assert preview.status_code == 200 and "phases.dev.freeze_at: none -&gt; " in preview.content.decode()
    phase.refresh_from_db()
    assert (phase.freeze_at, phase.ladder) == (None, False)  # nothing saved yet
    assert client.post(_url(), data | {"confirm": "1"}).status_code == 302
    phase.refresh_from_db()
    assert (phase.freeze_at, phase.ladder) == (freeze_at, True)
    event = AuditEvent.objects.get(action=AuditEvent.Action.PHASE_CHANGED)
    assert event.is_public and "phases.dev.ladder: False -> True" in event.summary
    assert LeaderboardRow.objects.filter(phase=phase, team=personas.team_a).exists()  # rebuilt
    page = client.get(reverse("competitions:manage", args=["cup"])).content.decode()
    assert "Public board frozen from" in page and "the Ladder decides" in page


def test_a_freeze_in_the_past_would_roll_the_public_board_back_and_is_refused(personas):
    phase = personas.competition.phases.get(slug="dev")
    response = personas.client_for(personas.organizer).post(_url(), {
        "freeze_at": (timezone.now() - timedelta(hours=1)).strftime(INSTANT), "confirm": "1"})
    assert response.status_code == 400 and "cannot start in the past" in response.content.decode()
    phase.refresh_from_db()
    assert phase.freeze_at is None and not AuditEvent.objects.filter(action=AuditEvent.Action.PHASE_CHANGED).exists()


@pytest.mark.parametrize(("phase_slug", "change", "code"), [
    ("test-b", {"ladder": True}, "ladder-needs-best"),  # a final phase ranked by the runs teams select
    ("dev", {"freeze_at": "after-close"}, "freeze-outside-phase"),
])
def test_it_refuses_what_the_definition_refuses(personas, phase_slug, change, code):
    phase = personas.competition.phases.get(slug=phase_slug)
    values = {"freeze_at": None, "ladder": False} | change
    if values["freeze_at"] == "after-close":
        values["freeze_at"] = phase.closes_at + timedelta(days=1)
    with pytest.raises(CompetitionError) as refused:
        phase_board_rules_change(phase=phase, actor=personas.organizer, **values)
    assert refused.value.code == code


def test_lifting_a_freeze_is_allowed_and_only_organizers_reach_the_page(personas):
    phase = personas.competition.phases.get(slug="dev")
    phase.freeze_at = timezone.now() - timedelta(hours=1)
    phase.save()
    phase_board_rules_change(phase=phase, actor=personas.organizer, freeze_at=None, ladder=False)
    phase.refresh_from_db()
    assert phase.freeze_at is None
    assert personas.client_for(personas.participant).get(_url()).status_code == 403
