"""Run metadata on the leaderboard: a column per field, a filter by choice and yes/no fields
through the query string that the charts, the CSV and the JSON follow, cached per filter,
and nothing of a leaderboard the viewer may not see (not even how many rows match)."""
import csv
import io

import pytest
from django.core.cache import cache
from django.urls import reverse

from cupboard.leaderboards.selectors import leaderboard_for
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.models import Submission
from tests.factories import make_team, set_run_metadata
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db

PAGE, JSON, CSV = "leaderboards:phase", "leaderboards:export_json", "leaderboards:export_csv"
ZERO_SHOT = {"meta_zero_shot": "yes"}


def _scored(phase, team, method, value, **metadata):
    submission = make_scored(phase, team=team, method=method, scores=ndcg(sw=value, te=value))
    Submission.objects.filter(pk=submission.pk).update(metadata=metadata)
    return submission


@pytest.fixture
def dev(cast):
    """Team A's best run is trained (its zero-shot run scores lower and does not count); team B
    and team C run zero-shot; the baseline says nothing."""
    set_run_metadata(cast.competition)
    phase = cast.competition.phases.get(slug="dev")
    team_c = make_team(cast.competition, name="Team C")
    _scored(phase, cast.team_a, "trained", 0.9, run_type="automatic", zero_shot=False, model="mT5",
            parameters_m=580)
    _scored(phase, cast.team_a, "a zero-shot try", 0.2, run_type="automatic", zero_shot=True)
    _scored(phase, cast.team_b, "zero-shot dense", 0.6, run_type="automatic", zero_shot=True, model="mDPR")
    _scored(phase, team_c, "by hand", 0.5, run_type="manual", zero_shot=True)
    make_scored(phase, team=None, method="BM25", scores=ndcg(sw=0.3, te=0.3))
    leaderboard_refresh(phase=phase)
    return phase


def _get(user, name, phase, query=None):
    return client_for(user).get(reverse(name, args=[phase.competition.slug, phase.slug]), query or {})


def _rows(user, phase, query=None) -> list[dict]:
    response = _get(user, CSV, phase, query)
    assert response.status_code == 200
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_the_board_shows_a_column_per_field_and_a_filter_menu(cast, dev):
    page = _get(None, PAGE, dev).content.decode()
    assert '<th class="meta" data-sort="text" title="Run type">Run type</th>' in page and ">Code</th>" not in page
    assert '<th class="meta" data-sort="num" title="Parameters (M)">' in page
    assert 'name="meta_zero_shot"' in page and 'name="meta_run_type"' in page and 'name="meta_model"' not in page
    rows = _rows(None, dev)
    assert [(r["team"], r["meta:run_type"], r["meta:zero_shot"], r["meta:model"]) for r in rows] == [
        ("Team A", "Automatic", "no", "mT5"), ("Team B", "Automatic", "yes", "mDPR"), ("Team C", "Manual", "yes", ""),
        ("Baseline", "", "", "")]


def test_zero_shot_only_keeps_counted_rows_that_say_so_with_their_ranks(cast, dev):
    rows = _rows(None, dev, ZERO_SHOT)
    # Team A's zero-shot run is not its counted one: it is never brought up (its score is not public).
    assert [(r["rank"], r["team"], r["method"]) for r in rows] == [("2", "Team B", "zero-shot dense"),
                                                                  ("3", "Team C", "by hand")]
    both = _rows(None, dev, {**ZERO_SHOT, "meta_run_type": "manual"})
    assert [r["team"] for r in both] == ["Team C"]
    data = _get(None, JSON, dev, ZERO_SHOT).json()
    assert data["filter"] == {"zero_shot": "yes"} and data["unfiltered_rows"] == 4
    assert [(row["team"], row["metadata"]) for row in data["rows"]] == [
        ("Team B", {"run_type": "automatic", "zero_shot": True, "model": "mDPR"}),
        ("Team C", {"run_type": "manual", "zero_shot": True})]
    page = _get(None, PAGE, dev, ZERO_SHOT).content.decode()
    assert "Showing 2 of 4 rows: those whose run says Zero-shot: yes." in page
    assert f'{dev.slug}/leaderboard.csv?meta_zero_shot=yes">CSV' in page and f'{dev.slug}/leaderboard.json?meta_zero_shot=yes">JSON' in page
    assert "?metric=R%40100&amp;meta_zero_shot=yes" in page  # another metric keeps the filter
    assert "a zero-shot try" not in page and "trained" not in page
    board = leaderboard_for(phase=dev, user=None, filters={"zero_shot": "yes"})
    assert [e.team for e in board.entries] == ["Team B", "Team C"]
    # The leaderboard as it stood at an instant (?as_of=) is filtered the same way, and its links keep both.
    past = _get(None, JSON, dev, {**ZERO_SHOT, "as_of": "2100-01-01"}).json()
    assert [row["team"] for row in past["rows"]] == ["Team B", "Team C"] and past["filter"] == {"zero_shot": "yes"}
    page = _get(None, PAGE, dev, {**ZERO_SHOT, "as_of": "2100-01-01"}).content.decode()
    assert "Showing 2 of 4 rows" in page and '&amp;meta_zero_shot=yes">CSV' in page and "as_of=" in page


def test_the_chart_follows_the_filter(cast, dev):
    page = _get(None, PAGE, dev, ZERO_SHOT).content.decode()
    assert "2. Team B: zero-shot dense" in page and "1. Team A" not in page


def test_junk_and_unknown_values_are_ignored_and_share_the_unfiltered_entry(cast, dev):
    cache.clear()
    plain = _get(None, JSON, dev)
    junk = _get(None, JSON, dev, {"meta_zero_shot": "maybe", "meta_model": "mT5", "meta_nope": "1", "x": "y"})
    assert junk.json() == plain.json() and junk["ETag"] == plain["ETag"] and junk.json()["filter"] == {}
    filtered = _get(None, JSON, dev, ZERO_SHOT)
    assert filtered["ETag"] != plain["ETag"]
    # Cached per filter: the unfiltered board after a filtered one still has every row, and back.
    assert len(_get(None, JSON, dev).json()["rows"]) == 4 and len(_get(None, JSON, dev, ZERO_SHOT).json()["rows"]) == 2
    assert len(_rows(None, dev)) == 4 and len(_rows(None, dev, ZERO_SHOT)) == 2


def test_a_filter_reveals_nothing_of_a_board_the_viewer_may_not_see(cast):
    set_run_metadata(cast.competition)
    test_b = cast.competition.phases.get(slug="test-b")  # private until its reveal
    _scored(test_b, cast.team_a, "secret sauce", 0.7, run_type="manual", zero_shot=True, model="modelSecretXyz")
    leaderboard_refresh(phase=test_b)
    for user in (None, cast.participant, cast.outsider):
        for query in ({}, ZERO_SHOT, {"meta_run_type": "automatic"}):
            page = _get(user, PAGE, test_b, query).content.decode()
            assert "not public" in page and "Showing" not in page and "modelSecretXyz" not in page
            assert 'name="meta_zero_shot"' not in page and "No row matches" not in page
            assert _get(user, CSV, test_b, query).status_code == 403
            assert _get(user, JSON, test_b, query).status_code == 403
    organizer = _get(cast.organizer, PAGE, test_b, ZERO_SHOT).content.decode()
    assert "modelSecretXyz" in organizer and "Showing 1 of 1 rows" in organizer
