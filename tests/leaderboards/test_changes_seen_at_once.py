"""What a board and its history show changes at once for everyone, in this process and the
others (leaderboards/cache.py keys them on the phase's leaderboard version): a team renamed, by
a save or in bulk; a re-score opened, for this process's visitors whose board state it keeps."""
import pytest
from django.urls import reverse

from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.services import phase_rescore
from cupboard.teams.models import Team
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def dev(cast, settings):
    settings.CUPBOARD_BOARD_STATE_SECONDS = 3600  # this process keeps its board states the whole test
    phase = cast.competition.phases.get(slug="dev")
    make_scored(phase, team=cast.team_a, method="mine", scores=ndcg(sw=0.5, te=0.5))
    leaderboard_refresh(phase=phase)
    return phase


def _pages(phase, user=None) -> list[str]:
    """The board, its JSON and its history as `user` sees them (None: a visitor without cookies)."""
    client = client_for(user)
    args = [phase.competition.slug, phase.slug]
    return [client.get(reverse(name, args=args)).content.decode()
            for name in ("leaderboards:phase", "leaderboards:export_json", "leaderboards:history")]


@pytest.mark.parametrize("how", ["save", "bulk update"])
def test_a_renamed_team_is_seen_on_its_board_and_history_at_once(cast, dev, how):
    for user in (None, cast.participant):
        assert all("Renamed Team" not in page for page in _pages(dev, user))
    if how == "save":  # as the admin renames one
        cast.team_a.name = "Renamed Team"
        cast.team_a.save()
    else:
        Team.objects.filter(pk=cast.team_a.pk).update(name="Renamed Team")
    for user in (None, cast.participant, cast.outsider):
        assert all("Renamed Team" in page for page in _pages(dev, user)), user


def test_a_rescore_is_seen_at_once_by_this_process_s_visitors(cast, dev):
    before = client_for(None).get(reverse("leaderboards:phase", args=["cup", "dev"]))
    phase_rescore(phase=dev, actor=cast.organizer)
    after = client_for(None).get(reverse("leaderboards:phase", args=["cup", "dev"]))
    assert after["ETag"] != before["ETag"] and "re-scored" in after.content.decode()
