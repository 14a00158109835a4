"""The Rules page says how the leaderboards rank: the tie rule, checked here against the
ranking code it describes (leaderboards/ranking.py), and each phase's own rules."""
from datetime import datetime, timedelta, timezone

import pytest
from django.urls import reverse

from cupboard.competitions.ranking_rules import TIE_RULE
from cupboard.leaderboards.ranking import Candidate, ranked
from tests.personas import build_cast, client_for

NOON = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)


def _candidate(pk: int, value: float | None, minutes: int) -> Candidate:
    return Candidate(submission_id=pk, team_id=pk, created_at=NOON + timedelta(minutes=minutes),
                     selected_for_final=False, values={}, averages={}, primary_value=value)


def test_the_tie_rule_says_what_the_ranking_does():
    rows = [_candidate(1, None, 0), _candidate(2, 0.5, 9), _candidate(3, 0.5, 3), _candidate(4, 0.5000001, 20),
            _candidate(5, 0.5, 3), _candidate(6, 0.7, 30)]
    assert [c.submission_id for c in ranked(rows)] == [6, 4, 3, 5, 2, 1]
    # higher first; exact values (0.5000001 above 0.5, equal on a page of 3 decimals); equal: submitted
    # first; same instant: received first (the lower id); incomplete last; no shared rank
    for words in ("higher first", "incomplete average", "after every number", "exactly as stored",
                  "submitted first keeps the higher place", "order they were received", "never share a rank"):
        assert words in TIE_RULE


@pytest.mark.django_db
def test_the_rules_page_states_the_tie_rule_and_each_phases_rules_even_without_organizer_text():
    cast = build_cast()
    phase = cast.competition.phases.get(slug="dev")
    phase.ladder, phase.freeze_at = True, phase.closes_at - timedelta(days=3)
    phase.save()
    assert not cast.competition.pages.get("rules")
    body = client_for(cast.anonymous).get(reverse("competitions:page", args=[cast.competition.slug, "rules"]))
    text = body.content.decode()
    assert body.status_code == 200 and "How the leaderboards rank" in text
    assert "submitted first keeps the higher place" in text
    assert f"{phase.name}: Each team&#x27;s best run counts; the Ladder (Blum &amp; Hardt 2015) is on" in text
    assert f"frozen from {phase.freeze_at:%Y-%m-%d %H:%M} UTC until {phase.closes_at:%Y-%m-%d %H:%M} UTC" in text
    detail = client_for(cast.anonymous).get(cast.competition.get_absolute_url()).content.decode()
    assert reverse("competitions:page", args=[cast.competition.slug, "rules"]) in detail
