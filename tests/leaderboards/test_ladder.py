"""The Ladder (leaderboards/ladder.py, Blum & Hardt 2015): on a phase with `ladder`, a
team's shown run changes only when a new run beats it by more than the standard error of
their paired per-query differences, i.e. when the paired t statistic exceeds 1 (checked
against scipy's ttest_rel), and the update after one scoring equals a whole rebuild."""
import numpy as np
import pytest
from scipy.stats import ttest_rel

from cupboard.leaderboards.ladder import climbs, query_vectors
from cupboard.leaderboards.models import LeaderboardRow
from cupboard.leaderboards.services import leaderboard_refresh, leaderboard_update
from cupboard.submissions.models import QueryScores
from tests.leaderboards.conftest import make_scored

QUERIES = 120
BASE = 0.3 + 0.4 * np.random.default_rng(7).random(QUERIES)  # a run's per-query nDCG@10 on each subset
# Higher on average (+0.001) but by far less than its noise: t ~ 0.3.
NOISY = BASE + np.where(np.arange(QUERIES) % 2 == 0, 0.05, -0.048)
# Clearly better: +0.1 on every query, give or take 0.01.
CLEAR = BASE + np.where(np.arange(QUERIES) % 2 == 0, 0.11, 0.09)


def _scored(phase, team, values: np.ndarray, minutes_ago: int):
    """A run with the same per-query values on sw and te (the revealed subsets), and their means as scores."""
    per_query = {f"q{i}": float(v) for i, v in enumerate(values)}
    submission = make_scored(phase, team=team, minutes_ago=minutes_ago,
                             scores={code: {"nDCG@10": float(values.mean())} for code in ("sw", "te")})
    for subset in phase.competition.subsets.filter(code__in=["sw", "te"]):
        QueryScores.objects.create(submission=submission, subset=subset, values={"nDCG@10": per_query})
    return submission


def _shown(phase, team):
    row = LeaderboardRow.objects.get(phase=phase, team=team)
    return row.submission_id, row.primary_value


def _t(new: np.ndarray, old: np.ndarray) -> float:
    return float(ttest_rel(np.tile(new, 2), np.tile(old, 2)).statistic)


@pytest.fixture
def phase(cast):
    phase = cast.competition.phases.get(slug="dev")
    phase.ladder = True
    phase.save()
    return phase


def test_climbing_is_a_paired_t_statistic_above_one():
    assert 0 < NOISY.mean() - BASE.mean() and _t(NOISY, BASE) < 1 < _t(CLEAR, BASE)
    for new in (NOISY, CLEAR, BASE, 2 * BASE - CLEAR):
        assert climbs(new, BASE) == (_t(new, BASE) > 1 if not np.array_equal(new, BASE) else False)


def test_vectors_are_weighted_so_their_mean_is_the_average_of_subset_means():
    vectors = query_vectors({1: {"sw": {"a": 1.0, "b": 0.0}, "te": {"c": 0.5}}, 2: {"sw": {"a": 0.5}}},
                            ["sw", "te", "yo"])
    assert vectors[1].mean() == pytest.approx((0.5 + 0.5 + 0) / 3)
    assert vectors[2].mean() == pytest.approx((0.25 + 0 + 0) / 3)  # missing queries and subsets count 0


def test_a_run_within_the_margin_leaves_the_shown_score_and_a_clearly_better_one_moves_it(cast, phase):
    first = _scored(phase, cast.team_a, BASE, minutes_ago=30)
    leaderboard_update(phase=phase, submission=first)
    assert _shown(phase, cast.team_a) == (first.pk, pytest.approx(BASE.mean()))

    noisy = _scored(phase, cast.team_a, NOISY, minutes_ago=20)
    leaderboard_update(phase=phase, submission=noisy)
    assert _shown(phase, cast.team_a) == (first.pk, pytest.approx(BASE.mean()))  # its better mean is noise

    clear = _scored(phase, cast.team_a, CLEAR, minutes_ago=10)
    leaderboard_update(phase=phase, submission=clear)
    assert _shown(phase, cast.team_a) == (clear.pk, pytest.approx(CLEAR.mean()))

    leaderboard_refresh(phase=phase)  # a whole rebuild replays the team's runs to the same shown one
    assert _shown(phase, cast.team_a) == (clear.pk, pytest.approx(CLEAR.mean()))
    assert phase.leaderboard_history.filter(team=cast.team_a).count() == 2  # shown: first, then clear


def test_without_the_ladder_the_noisy_run_would_be_shown(cast, phase):
    phase.ladder = False
    phase.save()
    for values, minutes_ago in ((BASE, 30), (NOISY, 20)):
        latest = _scored(phase, cast.team_a, values, minutes_ago=minutes_ago)
        leaderboard_update(phase=phase, submission=latest)
    assert _shown(phase, cast.team_a)[0] == latest.pk


def test_the_ladder_compares_with_the_shown_run_not_the_latest(cast, phase):
    """BASE, then NOISY (kept out), then NOISY + 0.002: against BASE that is still noise."""
    for values, minutes_ago in ((BASE, 30), (NOISY, 20), (NOISY + 0.002, 10)):
        leaderboard_update(phase=phase, submission=_scored(phase, cast.team_a, values, minutes_ago=minutes_ago))
    assert _t(NOISY + 0.002, BASE) < 1
    assert _shown(phase, cast.team_a)[1] == pytest.approx(BASE.mean())


def test_the_upload_page_says_the_ladder_decides(cast, phase):
    from django.urls import reverse

    from tests.personas import client_for

    upload = client_for(cast.participant).get(reverse("submissions:upload", args=[cast.competition.slug, phase.slug]))
    assert "Your best run counts, by the Ladder" in upload.content.decode()


def test_every_update_equals_a_rebuild_and_a_direct_replay(cast, phase):
    """Random runs of three teams, each scored in turn: after every update the rows are what
    a whole rebuild writes, and each team shows the run a direct replay with scipy picks."""
    from tests.factories import make_team
    from tests.leaderboards.test_incremental_update import _rebuilt, _snapshot

    teams = [cast.team_a, cast.team_b, make_team(cast.competition, name="Team C")]
    rng = np.random.default_rng(11)
    runs: dict[int, list[tuple[int, np.ndarray]]] = {team.pk: [] for team in teams}
    for step in range(24):
        team = teams[step % 3]
        values = np.clip(BASE + rng.normal(rng.choice([0.0, 0.003, 0.05]), 0.04, QUERIES), 0, 1)
        submission = _scored(phase, team, values, minutes_ago=100 - step)
        runs[team.pk].append((submission.pk, values))
        leaderboard_update(phase=phase, submission=submission)
        assert _snapshot(phase) == _rebuilt(phase), step
    for team in teams:
        shown_pk, shown_values = runs[team.pk][0]
        for pk, values in runs[team.pk][1:]:
            if _t(values, shown_values) > 1:
                shown_pk, shown_values = pk, values
        assert _shown(phase, team)[0] == shown_pk
    shown = {_shown(phase, t)[0] for t in teams}
    assert shown != {runs[t.pk][0][0] for t in teams}  # some climbed
    assert shown != {max(runs[t.pk], key=lambda run: run[1].mean())[0] for t in teams}  # not simply each best


def test_the_team_sees_its_true_score_on_its_own_page_while_the_board_keeps_the_shown_one(cast, phase):
    from django.urls import reverse

    from tests.personas import client_for

    first = _scored(phase, cast.team_a, BASE, minutes_ago=30)
    leaderboard_update(phase=phase, submission=first)
    noisy = _scored(phase, cast.team_a, NOISY, minutes_ago=20)
    leaderboard_update(phase=phase, submission=noisy)
    true, shown = f"{NOISY.mean():.3f}", f"{BASE.mean():.3f}"
    assert true != shown
    own = client_for(cast.participant).get(reverse("submissions:detail", args=[noisy.pk]))
    assert own.status_code == 200 and true in own.content.decode()
    assert client_for(cast.outsider).get(reverse("submissions:detail", args=[noisy.pk])).status_code in (403, 404)
    board = client_for(cast.anonymous).get(phase.get_absolute_url()).content.decode()
    assert shown in board and true not in board
