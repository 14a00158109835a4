"""Rank bands and intervals: computed by the refresh (not per request), stored on the rows,
shown on the page and in the exports to those who may see them, never per-query values."""
import csv
import io
from datetime import timedelta

import numpy as np
import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from cupboard.leaderboards.bands import bands_compute
from cupboard.leaderboards.models import BandsJob, LeaderboardRow
from cupboard.leaderboards.selectors import leaderboard_for
from cupboard.leaderboards.services import leaderboard_refresh, leaderboard_update, leaderboards_retested_once
from cupboard.leaderboards.standings import REVEALED_ALL
from cupboard.submissions.models import QueryScores
from tests.leaderboards.conftest import make_scored
from tests.personas import client_for

pytestmark = pytest.mark.django_db

QUERIES = 120


def _per_query(level: float, seed: int, noise: float = 0.03) -> dict[str, float]:
    """Per-query nDCG@10: shared query difficulty plus a little noise, so levels 0.1 apart differ clearly."""
    difficulty = np.random.default_rng(0).normal(0, 0.2, QUERIES)
    values = level + difficulty + np.random.default_rng(seed).normal(0, noise, QUERIES)
    return {f"q{i}": float(v) for i, v in enumerate(values)}


def scored_with_queries(phase, *, team=None, method="run", levels: dict[str, float], seed=1):
    """A scored submission whose Score rows are the means of its stored per-query values."""
    per_query = {code: _per_query(level, seed + k) for k, (code, level) in enumerate(levels.items())}
    submission = make_scored(phase, team=team, method=method,
                             scores={c: {"nDCG@10": float(np.mean(list(v.values())))} for c, v in per_query.items()})
    subsets = {s.code: s for s in phase.competition.subsets.all()}
    for code, values in per_query.items():
        QueryScores.objects.create(submission=submission, subset=subsets[code], values={"nDCG@10": values})
    return submission


@pytest.fixture
def board(cast):
    """Team A clearly ahead; B and C tied by noise; a baseline last; yo (surprise) still hidden."""
    phase = cast.competition.phases.get(slug="dev")
    from tests.factories import make_team, make_user

    team_c = make_team(cast.competition, name="Team C", members=[make_user()])
    scored_with_queries(phase, team=cast.team_a, levels={"sw": 0.7, "te": 0.7, "yo": 0.2}, seed=1)
    scored_with_queries(phase, team=cast.team_b, levels={"sw": 0.5, "te": 0.5, "yo": 0.9}, seed=2)
    scored_with_queries(phase, team=team_c, levels={"sw": 0.5, "te": 0.5, "yo": 0.3}, seed=3)
    scored_with_queries(phase, method="BM25", levels={"sw": 0.3, "te": 0.3}, seed=4)
    leaderboard_refresh(phase=phase)
    return phase


def test_the_refresh_stores_bands_tiers_and_intervals(board):
    rows = {r.team.name if r.team else "BM25": r.standings for r in LeaderboardRow.objects.filter(phase=board)}
    assert (rows["Team A"]["sw"]["low"], rows["Team A"]["sw"]["high"], rows["Team A"]["sw"]["tier"]) == (1, 1, 1)
    assert {rows["Team B"]["sw"]["tier"], rows["Team C"]["sw"]["tier"]} == {2}
    assert rows["Team B"]["sw"]["low"] == 2 and rows["Team B"]["sw"]["high"] == 3
    # Avg over every subset (organizers) and over the revealed ones (everyone else, before the reveal).
    assert rows["Team A"][REVEALED_ALL]["low"] == 1 and rows["Team A"]["all"]["low"] >= 1
    low, high = rows["Team A"]["known"]["ci"]
    assert low < 0.7 < high
    assert rows["BM25"]["sw"]["tier"] == 0 and rows["BM25"]["sw"]["ci"][0] < 0.3 < rows["BM25"]["sw"]["ci"][1]


def test_an_update_after_one_scoring_re_tests_the_whole_board(cast, board):
    team_c = cast.competition.teams.get(name="Team C")
    better = scored_with_queries(board, team=team_c, method="better", levels={"sw": 0.9, "te": 0.9, "yo": 0.3}, seed=5)
    leaderboard_update(phase=board, submission=better)
    assert bands_compute(job_id=BandsJob.objects.get(phase=board).pk) == "landed"  # the job the update sent
    standings = {r.team.name: r.standings[REVEALED_ALL] for r in LeaderboardRow.objects.filter(phase=board, is_baseline=False)}
    assert standings["Team C"]["low"] == standings["Team C"]["high"] == 1
    assert standings["Team A"]["low"] == 2 and standings["Team B"]["tier"] == 3


def test_writes_in_a_retested_once_block_leave_the_bands_to_its_end_then_test_once(cast, board, monkeypatch):
    from cupboard.leaderboards import standings

    team_c = cast.competition.teams.get(name="Team C")
    tested = []
    monkeypatch.setattr(standings, "band_settings", lambda c, real=standings.band_settings: tested.append(c) or real(c))
    with leaderboards_retested_once():
        for seed, level in ((5, 0.8), (6, 0.9)):
            better = scored_with_queries(board, team=team_c, method=f"better {seed}", seed=seed,
                                         levels={"sw": level, "te": level, "yo": 0.3})
            leaderboard_update(phase=board, submission=better)
        assert tested == [] and BandsJob.objects.get(phase=board).wanted == 0, "no re-test, no job"
        row = LeaderboardRow.objects.get(phase=board, team=team_c)
        assert row.standings[REVEALED_ALL]["low"] == 2, "a row written in the block keeps its bands until its end"
    assert len(tested) == 1, "one re-test for the two writes"
    row = LeaderboardRow.objects.get(phase=board, team=team_c)
    assert row.standings[REVEALED_ALL]["low"] == row.standings[REVEALED_ALL]["high"] == 1


def test_the_page_shows_bands_shading_and_the_averages_note(cast, board):
    html = client_for(cast.outsider).get(board.get_absolute_url()).content.decode()
    assert "<th class=\"num band\"" in html and 'class="num band" data-value="2">2-3</td>' in html
    assert 'tier-odd tied-leader" data-tier="1"' in html
    assert "tested on the per-query values of all their languages together" in html
    assert "paired randomization test (10,000 trials)" in html and "Holm-Bonferroni" in html
    assert "rank band 1 · 95% interval" in html
    # Another metric: no band column, a pointer to the primary one.
    other = client_for(cast.outsider).get(board.get_absolute_url() + "?metric=R%40100").content.decode()
    assert '<th class="num band"' not in other and "computed on nDCG@10" in other


def test_participants_see_the_revealed_average_s_bands_before_a_reveal(cast, board):
    leaderboard = leaderboard_for(phase=board, user=cast.participant)
    by_team = {e.team: e for e in leaderboard.entries}
    # Team B leads on yo (hidden): its Avg over every subset would tie it with A; over sw and te it is second.
    assert by_team["Team A"].overall.band == "1" and by_team["Team B"].overall.low >= 2
    assert "yo" not in by_team["Team A"].standings and "surprise" not in by_team["Team A"].standings
    organizer = {e.team: e for e in leaderboard_for(phase=board, user=cast.organizer).entries}
    stored = LeaderboardRow.objects.get(phase=board, team=cast.team_b).standings["all"]
    assert organizer["Team B"].overall.low == stored["low"] and "yo" in organizer["Team A"].standings


def test_the_exports_carry_bands_and_intervals(cast, board):
    args = [board.competition.slug, board.slug]
    rows = list(csv.DictReader(io.StringIO(client_for(cast.anonymous).get(
        reverse("leaderboards:export_csv", args=args)).content.decode())))
    assert rows[0]["team"] == "Team A" and rows[0]["nDCG@10 Avg rank_low"] == rows[0]["nDCG@10 Avg rank_high"] == "1"
    assert rows[1]["nDCG@10 sw tier"] == "2" and float(rows[0]["nDCG@10 sw ci_low"]) < 0.7
    assert rows[-1]["baseline"] == "yes" and rows[-1]["nDCG@10 sw tier"] == "" and rows[-1]["nDCG@10 sw ci_low"]
    data = client_for(cast.anonymous).get(reverse("leaderboards:export_json", args=args)).json()
    assert data["significance"]["test"] == "randomization" and data["significance"]["correction"] == "holm"
    assert data["significance"]["alpha"] == 0.05 and "queries are the units" in data["significance"]["averages"]
    first = data["rows"][0]["standings"]
    assert first["Avg"]["band"] == "1" and first["Avg"]["tied_with_leader"] and first["K.Avg"]["rank_low"] == 1
    assert "yo" not in first and "S.Avg" not in first
    assert "q1" not in str(data)  # no per-query value, nor a query id


def test_the_organizer_s_choices_in_the_yaml_are_used(cast, board):
    cast.competition.significance = {"test": "t-test", "correction": "none", "alpha": 0.01}
    cast.competition.save()
    leaderboard_refresh(phase=board)
    bands = leaderboard_for(phase=board, user=cast.anonymous).bands
    assert (bands.test, bands.correction, bands.alpha, bands.confidence) == ("t-test", "none", 0.01, 99)
    html = client_for(cast.anonymous).get(board.get_absolute_url()).content.decode()
    assert "paired t-test" in html and "99% confidence" in html


def test_a_hidden_phase_shows_no_bands_to_participants_until_its_reveal(cast):
    phase = cast.competition.phases.get(slug="test-b")
    scored_with_queries(phase, team=cast.team_a, levels={"sw": 0.7, "te": 0.7}, seed=1)
    scored_with_queries(phase, team=cast.team_b, levels={"sw": 0.5, "te": 0.5}, seed=2)
    leaderboard_refresh(phase=phase)
    assert leaderboard_for(phase=phase, user=cast.organizer).bands is not None
    for user in (cast.participant, cast.anonymous):
        leaderboard = leaderboard_for(phase=phase, user=user)
        assert not leaderboard.visible and leaderboard.bands is None and not leaderboard.entries
    response = client_for(cast.participant).get(reverse("leaderboards:export_json", args=[phase.competition.slug, phase.slug]))
    assert response.status_code == 403 and "standings" not in response.content.decode()
    with time_machine.travel(phase.reveal_at + timedelta(minutes=1), tick=False):
        leaderboard = leaderboard_for(phase=phase, user=cast.participant)
        assert leaderboard.bands is not None and leaderboard.entries[0].overall.band == "1"


def test_a_viewer_whose_phase_hides_scores_gets_no_bands(cast, board):
    from cupboard.competitions.viewer import Viewer

    phase = cast.competition.phases.get(slug="test-b")
    with time_machine.travel(phase.reveal_at - timedelta(days=1), tick=False):
        assert not Viewer(cast.participant, cast.competition).sees_standings(phase)
        assert Viewer(cast.organizer, cast.competition).sees_standings(phase)
    assert Viewer(cast.anonymous, cast.competition).sees_standings(board)


def test_it_tests_the_top_teams_only_and_still_gives_baselines_intervals(cast, board, monkeypatch):
    monkeypatch.setattr("cupboard.leaderboards.standings.MAX_TEAMS", 2)
    leaderboard_refresh(phase=board)
    rows = list(LeaderboardRow.objects.filter(phase=board).order_by("is_baseline", "rank"))
    assert [bool(r.standings) for r in rows] == [True, True, False, True]
    assert rows[1].standings["sw"]["high"] == 2 and rows[3].standings["sw"]["tier"] == 0


def test_a_live_phase_with_hidden_judgments_shows_no_bands_until_they_are_public(cast):
    """Test A: live (its scores public) but judged by hidden qrels. Bands, tiers and intervals
    come from per-query values of those judgments, so they wait with the judgments (as
    Judged@10 does), on the page, in its cell titles, its charts and both exports."""
    from tests.factories import make_phase

    phase = make_phase(cast.competition, slug="test-a", hidden_qrels=True, per_query_visible=False,
                       reveal_at=timezone.now() + timedelta(days=5))
    scored_with_queries(phase, team=cast.team_a, levels={"sw": 0.7, "te": 0.7}, seed=1)
    scored_with_queries(phase, team=cast.team_b, levels={"sw": 0.5, "te": 0.5}, seed=2)
    leaderboard_refresh(phase=phase)
    args = [phase.competition.slug, phase.slug]

    def shown(user) -> list[str]:
        """Where `user` finds a band, a tier or an interval of this phase."""
        client, found = client_for(user), []
        html = client.get(phase.get_absolute_url()).content.decode()
        found += [what for what in ('class="num band"', "data-tier=", "% interval", "intervals") if what in html]
        data = client.get(reverse("leaderboards:export_json", args=args)).json()
        found += [key for key in ("significance", "standings") if data.get(key) or data["rows"][0].get(key)]
        header = client.get(reverse("leaderboards:export_csv", args=args)).content.decode().splitlines()[0]
        found += [column for column in ("rank_low", "rank_high", "tier", "ci_low") if column in header]
        return found

    assert leaderboard_for(phase=phase, user=cast.organizer).bands is not None
    assert shown(cast.organizer)
    for user in (cast.participant, cast.anonymous, cast.outsider):
        assert leaderboard_for(phase=phase, user=user).visible
        assert leaderboard_for(phase=phase, user=user).bands is None
        assert shown(user) == []
    with time_machine.travel(phase.reveal_at + timedelta(minutes=1), tick=False):
        assert "standings" in shown(cast.anonymous) and "rank_low" in shown(cast.participant)
