"""leaderboard_refresh: which submission counts, ranks, averages, baselines, idempotency."""
import pytest
import time_machine

from cupboard.competitions.models import Competition, Phase
from cupboard.leaderboards.models import LeaderboardRow
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.models import Submission
from tests.factories import make_qrels_release, make_team
from tests.leaderboards.conftest import make_scored, ndcg

pytestmark = pytest.mark.django_db


def _phase(cast, *, ranking: str | None = None, **competition_fields):
    if competition_fields:
        Competition.objects.filter(pk=cast.competition.pk).update(**competition_fields)
    if ranking:
        Phase.objects.filter(competition=cast.competition, slug="dev").update(ranking=ranking)
    return cast.competition.phases.get(slug="dev")


def _rows(phase):
    return list(LeaderboardRow.objects.filter(phase=phase).order_by("is_baseline", "rank", "pk"))


def test_it_ranks_each_team_by_its_best_submission(cast):
    phase = _phase(cast)
    make_scored(phase, team=cast.team_a, method="weak", scores=ndcg(sw=0.2, te=0.2, yo=0.2), minutes_ago=30)
    best = make_scored(phase, team=cast.team_a, method="strong", scores=ndcg(sw=0.9, te=0.6, yo=0.3), minutes_ago=20)
    other = make_scored(phase, team=cast.team_b, method="mid", scores=ndcg(sw=0.5, te=0.5, yo=0.5), minutes_ago=10)

    leaderboard_refresh(phase=phase)

    rows = _rows(phase)
    assert [(r.rank, r.submission_id) for r in rows] == [(1, best.pk), (2, other.pk)]
    # Before the surprise reveal, ranks use the known subsets only (see the next tests).
    assert rows[0].primary_value == pytest.approx(0.75)
    assert rows[0].averages["all"]["nDCG@10"] == pytest.approx(0.6)
    assert rows[0].values == {"sw": {"nDCG@10": 0.9}, "te": {"nDCG@10": 0.6}, "yo": {"nDCG@10": 0.3}}
    assert rows[0].averages["known"]["nDCG@10"] == pytest.approx(0.75)
    assert rows[0].averages["surprise"]["nDCG@10"] == pytest.approx(0.3)
    assert rows[0].team_id == cast.team_a.pk


def test_it_breaks_ties_by_the_earlier_submission(cast):
    phase = _phase(cast)
    later = make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.5, te=0.5, yo=0.5), minutes_ago=5)
    earlier = make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.5, te=0.5, yo=0.5), minutes_ago=50)
    team_c = make_team(cast.competition, name="Team C")
    third = make_scored(phase, team=team_c, scores=ndcg(sw=0.5, te=0.5, yo=0.5), minutes_ago=25)

    leaderboard_refresh(phase=phase)

    assert [r.submission_id for r in _rows(phase)] == [earlier.pk, third.pk, later.pk]
    assert [r.rank for r in _rows(phase)] == [1, 2, 3]


def test_it_breaks_ties_within_a_team_by_the_earlier_submission(cast):
    phase = _phase(cast)
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.5, te=0.5, yo=0.5), minutes_ago=5)
    first = make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.5, te=0.5, yo=0.5), minutes_ago=9)

    leaderboard_refresh(phase=phase)

    assert [r.submission_id for r in _rows(phase)] == [first.pk]


def test_it_counts_the_last_submission_when_configured(cast):
    phase = _phase(cast, ranking=Phase.Ranking.LAST)
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.9, te=0.9, yo=0.9), minutes_ago=30)
    last = make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.1, te=0.1, yo=0.1), minutes_ago=10)
    make_scored(phase, team=cast.team_a, status=Submission.Status.SCORING, minutes_ago=1)

    leaderboard_refresh(phase=phase)

    assert [r.submission_id for r in _rows(phase)] == [last.pk]


def test_it_counts_the_best_selected_submission_else_the_last(cast):
    phase = _phase(cast, ranking=Phase.Ranking.SELECTED)
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.9, te=0.9, yo=0.9), minutes_ago=40)
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.2, te=0.2, yo=0.2), minutes_ago=30, selected=True)
    chosen = make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.4, te=0.4, yo=0.4), minutes_ago=20, selected=True)
    make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.8, te=0.8, yo=0.8), minutes_ago=30)
    last_b = make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.3, te=0.3, yo=0.3), minutes_ago=10)

    leaderboard_refresh(phase=phase)

    assert [r.submission_id for r in _rows(phase)] == [chosen.pk, last_b.pk]


def test_it_leaves_out_disqualified_and_unscored_submissions(cast):
    phase = _phase(cast)
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=1.0, te=1.0, yo=1.0), disqualified=True)
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.9, te=0.9, yo=0.9), status=Submission.Status.FAILED)
    counted = make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.1, te=0.1, yo=0.1))
    make_scored(phase, team=cast.team_b, status=Submission.Status.QUEUED)

    leaderboard_refresh(phase=phase)

    assert [(r.rank, r.submission_id) for r in _rows(phase)] == [(1, counted.pk)]


def test_it_keeps_baselines_as_unranked_rows(cast):
    phase = _phase(cast)
    bm25 = make_scored(phase, method="BM25", scores=ndcg(sw=0.4, te=0.4, yo=0.4))
    mdpr = make_scored(phase, method="mDPR", scores=ndcg(sw=0.9, te=0.9, yo=0.9))
    team = make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.5, te=0.5, yo=0.5))

    leaderboard_refresh(phase=phase)

    rows = _rows(phase)
    assert [(r.rank, r.is_baseline, r.submission_id) for r in rows] == [
        (1, False, team.pk), (None, True, mdpr.pk), (None, True, bm25.pk)]
    assert all(r.team_id is None for r in rows[1:])


def test_it_counts_a_missing_subset_as_zero_by_default(cast):
    phase = _phase(cast)
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.6, te=0.3))

    leaderboard_refresh(phase=phase)

    (row,) = _rows(phase)
    assert row.averages["known"]["nDCG@10"] == pytest.approx(0.45)
    assert row.averages["surprise"]["nDCG@10"] == 0
    assert row.averages["all"]["nDCG@10"] == pytest.approx(0.3)
    assert row.primary_value == pytest.approx(0.45)


def test_it_marks_averages_incomplete_and_ranks_them_last_when_configured(cast):
    phase = _phase(cast, missing_subset=Competition.MissingSubset.INCOMPLETE)
    partial = make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.9), minutes_ago=50)
    complete = make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.1, te=0.1, yo=0.1), minutes_ago=5)

    leaderboard_refresh(phase=phase)

    rows = _rows(phase)
    assert [(r.rank, r.submission_id) for r in rows] == [(1, complete.pk), (2, partial.pk)]
    assert rows[1].averages["known"]["nDCG@10"] is None
    assert rows[1].averages["all"]["nDCG@10"] is None
    assert rows[1].primary_value is None


def test_it_ranks_on_the_subsets_revealed_at_the_refresh(cast):
    # Nobody can upload yo before its reveal: under the "incomplete" rule an Avg over every
    # subset would be incomplete for everyone and "best" would mean nothing.
    phase = _phase(cast, missing_subset=Competition.MissingSubset.INCOMPLETE)
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.2, te=0.2), minutes_ago=50)
    best = make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.8, te=0.6), minutes_ago=40)
    other = make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.5, te=0.5), minutes_ago=30)

    leaderboard_refresh(phase=phase)

    rows = _rows(phase)
    assert [(r.rank, r.submission_id, r.primary_value) for r in rows] == [(1, best.pk, 0.7), (2, other.pk, 0.5)]
    assert rows[0].averages["all"]["nDCG@10"] is None


def test_it_ranks_on_every_subset_after_the_reveal(cast):
    phase = _phase(cast)
    a = make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.6, te=0.6, yo=0.0), minutes_ago=50)
    b = make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.5, te=0.5, yo=0.5), minutes_ago=40)
    leaderboard_refresh(phase=phase)
    assert [r.submission_id for r in _rows(phase)] == [a.pk, b.pk]

    with time_machine.travel(cast.competition.groups.get(name="surprise").reveal_at, tick=False):
        leaderboard_refresh(phase=phase)

    assert [(r.submission_id, r.primary_value) for r in _rows(phase)] == [(b.pk, 0.5), (a.pk, pytest.approx(0.4))]


def test_it_averages_every_metric(cast):
    phase = _phase(cast)
    make_scored(phase, team=cast.team_a, scores={"sw": {"nDCG@10": 0.5, "R@100": 0.8}, "te": {"nDCG@10": 0.3, "R@100": 0.6},
                                                 "yo": {"nDCG@10": 0.1, "R@100": 0.4}})

    leaderboard_refresh(phase=phase)

    (row,) = _rows(phase)
    assert row.averages["all"]["R@100"] == pytest.approx(0.6)
    assert row.averages["known"]["R@100"] == pytest.approx(0.7)


def test_it_is_idempotent_and_follows_score_changes(cast):
    phase = _phase(cast)
    a = make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.5, te=0.5, yo=0.5))
    b = make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.4, te=0.4, yo=0.4))
    leaderboard_refresh(phase=phase)
    first = [(r.rank, r.submission_id, r.values, r.averages) for r in _rows(phase)]

    leaderboard_refresh(phase=phase)

    assert [(r.rank, r.submission_id, r.values, r.averages) for r in _rows(phase)] == first
    b.scores.filter(subset__code="sw").update(value=0.99)
    leaderboard_refresh(phase=phase)
    assert [r.submission_id for r in _rows(phase)] == [b.pk, a.pk]


def test_it_stores_the_qrels_release_each_row_was_scored_against(cast):
    phase = _phase(cast)
    v1 = make_qrels_release(phase, {"sw": {"q1": {"d1": 1}}})
    v2 = make_qrels_release(phase, {"sw": {"q1": {"d2": 1}}})
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.5), release=v2)
    make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.4), release=v1)

    leaderboard_refresh(phase=phase)

    assert [r.qrels_release_number for r in _rows(phase)] == [2, 1]


def test_it_returns_the_rows_in_rank_order_and_touches_only_its_phase(cast):
    dev = _phase(cast)
    test_b = cast.competition.phases.get(slug="test-b")
    make_scored(test_b, team=cast.team_a, scores=ndcg(sw=0.5))
    leaderboard_refresh(phase=test_b)
    make_scored(dev, team=cast.team_b, scores=ndcg(sw=0.2))
    make_scored(dev, team=cast.team_a, scores=ndcg(sw=0.3))

    rows = leaderboard_refresh(phase=dev)

    assert [r.rank for r in rows] == [1, 2]
    assert LeaderboardRow.objects.filter(phase=test_b).count() == 1
