"""`leaderboard_update` (after one scoring) leaves exactly the rows a whole-phase
`leaderboard_refresh` would, for every ranking policy, and costs the same number of
queries however many submissions the phase holds."""
import random
from datetime import timedelta

import pytest
import time_machine
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from cupboard.leaderboards.models import LeaderboardRow
from cupboard.leaderboards.services import leaderboard_refresh, leaderboard_update
from tests.factories import make_team
from tests.leaderboards.conftest import make_scored, ndcg

pytestmark = pytest.mark.django_db


def _snapshot(phase) -> list[tuple]:
    return list(LeaderboardRow.objects.filter(phase=phase).order_by("is_baseline", "rank", "submission_id").values_list(
        "rank", "team_id", "submission_id", "is_baseline", "primary_value", "values", "averages",
        "qrels_release_number"))


def _rebuilt(phase) -> list[tuple]:
    """The rows a full rebuild would write, without keeping them."""
    with transaction.atomic():
        leaderboard_refresh(phase=phase)
        rows = _snapshot(phase)
        transaction.set_rollback(True)
    return rows


def _random_scores(rng: random.Random) -> dict:
    codes = [code for code in ("sw", "te", "yo") if rng.random() < 0.85]  # some runs miss a subset
    return ndcg(**{code: rng.choice([0.1, 0.3, 0.5, 0.7, rng.random()]) for code in codes})


@pytest.mark.parametrize("ranking", ["best", "last", "selected", "runs"])
@pytest.mark.parametrize("missing", ["zero", "incomplete"])
def test_it_equals_a_full_rebuild_after_every_scoring(cast, ranking, missing):
    cast.competition.missing_subset = missing
    cast.competition.save()
    phase = cast.competition.phases.get(slug="dev")
    phase.ranking = ranking
    phase.save()
    teams = [cast.team_a, cast.team_b] + [make_team(cast.competition, name=f"Team {i}") for i in range(3)]
    rng = random.Random(f"{ranking}-{missing}")
    for step in range(40):
        team = None if rng.random() < 0.1 else rng.choice(teams)  # None: a baseline
        submission = make_scored(phase, team=team, scores=_random_scores(rng), minutes_ago=rng.randrange(30),
                                 selected=rng.random() < 0.3, method=f"run{step}")
        leaderboard_update(phase=phase, submission=submission)
        assert _snapshot(phase) == _rebuilt(phase), step


def test_it_rebuilds_rows_computed_before_a_reveal(cast):
    phase = cast.competition.phases.get(slug="dev")
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.8, te=0.8, yo=0.0), minutes_ago=20)
    make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.6, te=0.6, yo=0.9), minutes_ago=10)
    leaderboard_refresh(phase=phase)
    with time_machine.travel(cast.competition.groups.get(name="surprise").reveal_at + timedelta(minutes=1)):
        late = make_scored(phase, team=make_team(cast.competition, name="Team C"), scores=ndcg(sw=0.1))
        leaderboard_update(phase=phase, submission=late)
        assert _snapshot(phase) == _rebuilt(phase)
        assert [r[1] for r in _snapshot(phase)[:2]] == [cast.team_b.pk, cast.team_a.pk]  # yo counts now


def _queries_of_one_update(cast, *, per_team: int) -> int:
    phase = cast.competition.phases.get(slug="dev")
    teams = [cast.team_a, cast.team_b, make_team(cast.competition, name=f"Team {per_team}")]
    for team in teams:
        for n in range(per_team):
            make_scored(phase, team=team, scores=ndcg(sw=0.1 * (n % 5), te=0.2), minutes_ago=n)
    leaderboard_refresh(phase=phase)
    best = make_scored(phase, team=teams[-1], scores=ndcg(sw=0.99, te=0.99))  # moves every rank
    with CaptureQueriesContext(connection) as queries:
        leaderboard_update(phase=phase, submission=best)
    return len(queries)


def test_its_query_count_does_not_grow_with_the_submissions(cast):
    few = _queries_of_one_update(cast, per_team=2)
    LeaderboardRow.objects.all().delete()
    cast.competition.phases.get(slug="dev").submissions.all().delete()
    many = _queries_of_one_update(cast, per_team=30)
    assert few == many


@pytest.mark.parametrize("ranking", ["best", "selected"])
def test_a_selection_or_disqualification_leaves_what_a_full_rebuild_would(cast, ranking,
                                                                          django_capture_on_commit_callbacks):
    from cupboard.submissions.services import submission_disqualify, submission_select_final

    phase = cast.competition.phases.get(slug="dev")
    phase.ranking = ranking
    phase.save()
    runs = [make_scored(phase, team=team, scores=ndcg(sw=value, te=value), minutes_ago=minutes)
            for team, value, minutes in ((cast.team_a, 0.9, 30), (cast.team_a, 0.5, 20), (cast.team_b, 0.7, 10))]
    baseline = make_scored(phase, scores=ndcg(sw=0.2, te=0.2), method="bm25")
    leaderboard_refresh(phase=phase)
    before = _snapshot(phase)
    with django_capture_on_commit_callbacks(execute=True):
        submission_select_final(submission=runs[1], user=cast.participant, selected=True)
    assert _snapshot(phase) == _rebuilt(phase)
    with django_capture_on_commit_callbacks(execute=True):
        submission_disqualify(submission=runs[0], actor=cast.organizer, reason="copied")
    assert _snapshot(phase) == _rebuilt(phase)
    with django_capture_on_commit_callbacks(execute=True):
        submission_disqualify(submission=baseline, actor=cast.organizer, reason="wrong file")
    assert _snapshot(phase) == _rebuilt(phase) != before
    assert baseline.pk not in [row[2] for row in _snapshot(phase)]
