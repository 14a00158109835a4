"""Every counted run in the official results (issue 34, Found 3): the frozen CSV and JSON, the
paper tables (every measure, chosen columns), the Judged@10 table and the second engine's
list carry each team's every scored, not disqualified run, not only its board row; the live
board stays one row per team."""
import csv
import io
import json
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.models import FrozenSnapshot
from cupboard.leaderboards.paper_tables import TableError, paper_table
from cupboard.leaderboards.releases import final_results_release_due
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.models import Score, Submission
from tests.factories import make_team, make_user
from tests.leaderboards.test_paper_tables import _md_rows
from tests.leaderboards.test_rank_bands import scored_with_queries

pytestmark = pytest.mark.django_db


@pytest.fixture
def runs(cast):
    """Test B: Team A with three runs, Team C with two, Team B with one, a baseline, one of
    Team C's runs disqualified; R@100 scored beside nDCG@10; frozen at its reveal."""
    phase = cast.competition.phases.get(slug="test-b")
    team_c = make_team(cast.competition, name="Team C", members=[make_user()])
    made = {
        "a1": scored_with_queries(phase, team=cast.team_a, method="a-dense", levels={"sw": 0.8, "te": 0.8, "yo": 0.8}, seed=1),
        "a2": scored_with_queries(phase, team=cast.team_a, method="a-sparse", levels={"sw": 0.5, "te": 0.5, "yo": 0.5}, seed=2),
        "a3": scored_with_queries(phase, team=cast.team_a, method="a-hybrid", levels={"sw": 0.7, "te": 0.6, "yo": 0.6}, seed=3),
        "c1": scored_with_queries(phase, team=team_c, method="c-one", levels={"sw": 0.6, "te": 0.4, "yo": 0.5}, seed=4),
        "c2": scored_with_queries(phase, team=team_c, method="c-gone", levels={"sw": 0.9, "te": 0.9, "yo": 0.9}, seed=5),
        "b1": scored_with_queries(phase, team=cast.team_b, method="b-only", levels={"sw": 0.4, "te": 0.3, "yo": 0.3}, seed=6),
        "bm25": scored_with_queries(phase, method="BM25", levels={"sw": 0.4, "te": 0.3, "yo": 0.3}, seed=7),
    }
    Submission.objects.filter(pk=made["c2"].pk).update(disqualified=True)
    Score.objects.bulk_create([Score(submission=s.submission, subset=s.subset, metric="R@100", value=s.value / 2)
                               for s in Score.objects.filter(submission__phase=phase, metric="nDCG@10")])
    leaderboard_refresh(phase=phase)
    with time_machine.travel(phase.reveal_at + timedelta(seconds=1), tick=False):
        final_results_release_due()
    return phase, made


def test_the_board_keeps_a_row_per_team_and_the_official_results_list_every_run(runs):
    phase, made = runs
    assert phase.leaderboard_rows.count() == 4  # Team A, Team C, Team B, the baseline
    data = json.loads(FrozenSnapshot.objects.get(phase=phase).json)
    methods = [row["method"] for row in data["rows"]]
    assert sorted(methods) == sorted(["a-dense", "a-sparse", "a-hybrid", "c-one", "b-only", "BM25"])
    assert "c-gone" not in methods  # disqualified: not counted
    # in score order; the teams' board rows keep their board ranks, the other runs are unranked
    board = {row.submission.method_name: row.rank for row in phase.leaderboard_rows.select_related("submission")}
    assert len(board) == 4 and "a-hybrid" in board  # test-b counts a team's last run (its `ranking`)
    ranks = {row["method"]: (row["rank"], row["board_row"]) for row in data["rows"]}
    assert ranks == {method: (board[method], True) if method in board else (None, False) for method in methods}
    assert ranks["a-dense"] == (None, False) and ranks["a-sparse"] == (None, False)
    averages = [row["averages"]["Avg"]["nDCG@10"] for row in data["rows"]]
    assert averages == sorted(averages, reverse=True)
    lines = list(csv.DictReader(io.StringIO(FrozenSnapshot.objects.get(phase=phase).csv)))
    assert [line["method"] for line in lines] == methods
    assert {line["method"]: line["board_row"] for line in lines}["a-sparse"] == ""


def test_the_paper_tables_have_a_row_per_run_and_every_measure(runs):
    phase, made = runs
    snapshot = FrozenSnapshot.objects.get(phase=phase)
    data = json.loads(snapshot.json)
    header, *body = _md_rows(paper_table(snapshot, table="measures", fmt="md", metadata=[]))
    assert header[-2:] == ["nDCG@10", "R@100"] and len(body) == 6
    by_run = {row[header.index("Run")]: row for row in body}
    frozen = {row["method"]: row for row in data["rows"]}
    for method in ("a-sparse", "a-hybrid", "a-dense"):
        for measure in ("nDCG@10", "R@100"):
            assert by_run[method][header.index(measure)] == f"{frozen[method]['averages']['Avg'][measure]:.3f}"
    tex = paper_table(snapshot, table="measures", fmt="tex", metadata=[])
    assert tex.count(r" \\") - 1 == 6  # the header line, then one line per run


def test_the_tables_take_chosen_columns(runs, client):
    phase, _ = runs
    snapshot = FrozenSnapshot.objects.get(phase=phase)
    header, *_ = _md_rows(paper_table(snapshot, table="measures", fmt="md", metadata=[], columns=["R@100"]))
    assert header[-1] == "R@100" and "nDCG@10" not in header
    header, *_ = _md_rows(paper_table(snapshot, table="languages", fmt="md", metadata=[], columns=["te", "sw"]))
    assert header[-2:] == ["te", "sw"] and "yo" not in header
    with pytest.raises(TableError, match="no column P@5 in the measures table"):
        paper_table(snapshot, table="measures", fmt="md", metadata=[], columns=["P@5"])
    url = reverse("leaderboards:paper_table", args=[phase.competition.slug, phase.slug, "measures", "md"])
    with time_machine.travel(phase.reveal_at + timedelta(seconds=2), tick=False):
        answer = client.get(url + "?column=R@100")
        refused = client.get(url + "?column=MAP")
    assert answer.status_code == 200 and "| nDCG@10 |" not in answer.content.decode()
    assert refused.status_code == 400 and "no column MAP" in refused.content.decode()


def test_the_judged_table_lists_every_run_once_the_results_are_out(runs):
    from cupboard.judging.judged import phase_judged

    phase, made = runs
    with time_machine.travel(phase.reveal_at + timedelta(seconds=2), tick=False):
        rows = phase_judged(phase, Viewer(None, phase.competition))["rows"]
    methods = [row["method"] or row["label"] for row in rows]
    assert len(rows) == 6 and "c-gone" not in methods
    # Team A's board row (its last run), its two other runs right below it (unranked)
    first = methods.index("a-hybrid")
    assert set(methods[first + 1:first + 3]) == {"a-sparse", "a-dense"}
    assert rows[first]["label"].endswith(". Team A") and rows[first + 1]["label"] == "Team A"
    before = phase.reveal_at - timedelta(days=1)
    with time_machine.travel(before, tick=False):  # the public sees no official results yet: the board's rows
        assert len(phase_judged(phase, Viewer(None, phase.competition))["rows"]) == 4


def test_a_board_of_every_run_ranks_each_run_and_keeps_its_history(cast):
    """`ranking: runs` (issue 34): the live board itself lists every scored run, ranked run
    against run; a team's new run adds a row, replacing none; the board as it stood at an
    instant has the runs of then; its official results rank every run (each its own board row)."""
    from cupboard.leaderboards.history import rows_at
    from cupboard.leaderboards.services import leaderboard_update
    from tests.leaderboards.conftest import make_scored, ndcg

    phase = cast.competition.phases.get(slug="dev")
    phase.ranking = "runs"
    phase.save()
    first = make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.5, te=0.5, yo=0.5), minutes_ago=30, method="a1")
    make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.6, te=0.6, yo=0.6), minutes_ago=20, method="b1")
    leaderboard_refresh(phase=phase)
    refreshed = timezone.now()
    with time_machine.travel(first.created_at + timedelta(hours=1), tick=False):
        second = make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.9, te=0.9, yo=0.9), method="a2")
        leaderboard_update(phase=phase, submission=second)
    rows = list(phase.leaderboard_rows.filter(is_baseline=False).order_by("rank")
                .values_list("rank", "submission__method_name"))
    assert rows == [(1, "a2"), (2, "b1"), (3, "a1")]
    then = sorted(row.method for row in rows_at(phase, refreshed + timedelta(seconds=1)))
    assert then == ["a1", "b1"]
    assert sorted(row.method for row in rows_at(phase, second.created_at + timedelta(seconds=1))) == ["a1", "a2", "b1"]
    from cupboard.competitions.ranking_rules import phase_rule

    assert "every scored run is its own row" in phase_rule(phase).lower()
