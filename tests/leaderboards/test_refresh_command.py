"""`manage.py refresh_leaderboards`: rows stored by older code are rebuilt with today's rules."""
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from cupboard.leaderboards.models import LeaderboardRow
from cupboard.leaderboards.services import leaderboard_refresh
from tests.leaderboards.conftest import make_scored, ndcg

pytestmark = pytest.mark.django_db


def test_it_rebuilds_rows_a_changed_ranking_rule_no_longer_implies(cast):
    dev = cast.competition.phases.get(slug="dev")
    best = make_scored(dev, team=cast.team_a, scores=ndcg(sw=0.9, te=0.9), minutes_ago=30)
    last = make_scored(dev, team=cast.team_a, scores=ndcg(sw=0.0, te=0.0), minutes_ago=1)
    leaderboard_refresh(phase=dev)
    LeaderboardRow.objects.filter(phase=dev).update(submission=last)  # as the old "selected" rule stored it
    out = StringIO()

    call_command("refresh_leaderboards", "--competition", "cup", stdout=out)

    assert LeaderboardRow.objects.get(phase=dev).submission_id == best.pk
    assert "cup/dev: 1 rows" in out.getvalue()
    with pytest.raises(CommandError):
        call_command("refresh_leaderboards", "--competition", "nope")
