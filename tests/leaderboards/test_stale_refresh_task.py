"""The beat task that rebuilds leaderboards computed before a surprise reveal, unattended."""
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings

from cupboard.leaderboards.models import LeaderboardRow
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.leaderboards.staleness import stale_phase_ids
from cupboard.leaderboards.tasks import refresh_stale_leaderboards
from tests.leaderboards.conftest import make_scored, ndcg

pytestmark = pytest.mark.django_db


def _scored_dev(cast):
    """dev: team_a strong on the known languages, team_b strong on the surprise one (yo)."""
    phase = cast.competition.phases.get(slug="dev")
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.8, te=0.8, yo=0.0), minutes_ago=20)
    make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.6, te=0.6, yo=0.9), minutes_ago=10)
    leaderboard_refresh(phase=phase)
    return phase


def _ranked_submissions(phase):
    return list(LeaderboardRow.objects.filter(phase=phase, is_baseline=False).order_by("rank")
                .values_list("team__name", flat=True))


def test_it_is_scheduled_by_beat():
    entry = settings.CELERY_BEAT_SCHEDULE["refresh-stale-leaderboards"]
    assert entry["task"] == refresh_stale_leaderboards.name


def test_it_leaves_fresh_leaderboards_alone(cast):
    phase = _scored_dev(cast)
    computed = list(LeaderboardRow.objects.filter(phase=phase).values_list("computed_at", flat=True))

    assert stale_phase_ids() == []
    assert refresh_stale_leaderboards() == []
    assert list(LeaderboardRow.objects.filter(phase=phase).values_list("computed_at", flat=True)) == computed


def test_it_reranks_on_every_column_once_the_surprise_group_is_revealed(cast):
    phase = _scored_dev(cast)
    assert _ranked_submissions(phase) == [cast.team_a.name, cast.team_b.name]  # known languages only
    reveal = cast.competition.groups.get(name="surprise").reveal_at

    with time_machine.travel(reveal - timedelta(seconds=1), tick=False):
        assert refresh_stale_leaderboards() == []
    with time_machine.travel(reveal + timedelta(seconds=30), tick=False):
        assert stale_phase_ids() == [phase.pk]
        assert refresh_stale_leaderboards() == [phase.pk]
        # 0.7 average over sw, te, yo beats 0.533: yo now counts.
        assert _ranked_submissions(phase) == [cast.team_b.name, cast.team_a.name]
        assert refresh_stale_leaderboards() == []  # refreshed after the reveal: nothing left to do
