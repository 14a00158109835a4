"""A submission's chart reads the baselines alone (leaderboard_for(baselines_only=True)), not
the whole board its scoring just changed: what it shows of them must be what the whole board
shows each viewer, on a live board, a frozen one and one with a language still hidden."""
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.charts import baselines_of
from cupboard.leaderboards.selectors import leaderboard_for
from cupboard.leaderboards.services import leaderboard_refresh
from tests.leaderboards.conftest import make_scored, ndcg

pytestmark = pytest.mark.django_db


def _both(phase, user) -> tuple[list, list]:
    viewer = Viewer(user, phase.competition, timezone.now())
    metric = phase.competition.primary_metric
    whole = baselines_of(leaderboard_for(phase=phase, viewer=viewer), metric=metric)
    alone = baselines_of(leaderboard_for(phase=phase, viewer=viewer, baselines_only=True), metric=metric)
    return whole, alone


@pytest.mark.parametrize("frozen", [False, True])
def test_the_baselines_alone_are_what_the_whole_board_shows_each_viewer(cast, frozen):
    phase, start = cast.competition.phases.get(slug="dev"), timezone.now()
    with time_machine.travel(start - timedelta(hours=2), tick=False):
        make_scored(phase, method="BM25", scores=ndcg(sw=0.3, te=0.2, yo=0.1))
        make_scored(phase, team=cast.team_a, method="a-run", scores=ndcg(sw=0.5, te=0.4, yo=0.3))
        make_scored(phase, method="mDPR", scores=ndcg(sw=0.35, te=0.25, yo=0.15))
        leaderboard_refresh(phase=phase)
    if frozen:
        phase.freeze_at, phase.closes_at = start - timedelta(hours=1), start + timedelta(days=1)
        phase.save()
    make_scored(phase, team=cast.team_b, method="b-run", scores=ndcg(sw=0.6, te=0.1, yo=0.2))
    make_scored(phase, method="late baseline", scores=ndcg(sw=0.2, te=0.2, yo=0.2))
    leaderboard_refresh(phase=phase)
    for user in (None, cast.participant, cast.outsider, cast.organizer):
        whole, alone = _both(phase, user)
        assert alone == whole
    whole, _ = _both(phase, cast.participant)
    assert {method for method, _, _ in whole} == {"BM25", "mDPR"} | (set() if frozen else {"late baseline"})
    assert all("yo" not in cells for _, _, cells in whole)  # the surprise language is not revealed yet
    assert any("yo" in cells for _, _, cells in _both(phase, cast.organizer)[0])
