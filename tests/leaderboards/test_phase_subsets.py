"""Averages over the subsets a phase has: MIRACL's Test A has 11 of the Cup's 18 languages,
so its K.Avg and Avg divide by the languages it has topics for, and it shows no S.Avg.

The cup here: known sw, te, bn; surprise yo, revealed yesterday. Test A has topics for sw
and te only; the team scores 0.61 and 0.43 there. Over the competition's subsets the row
would read K.Avg 0.347, S.Avg 0.000, Avg 0.260; over the phase's, K.Avg = Avg = 0.520."""
import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from cupboard.leaderboards.models import LeaderboardRow
from cupboard.leaderboards.services import leaderboard_refresh
from tests.factories import make_competition, make_phase, make_team, make_topics, make_user
from tests.leaderboards.conftest import make_scored
from tests.personas import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def test_a():
    organizer, member = make_user("organizer"), make_user("member")
    cup = make_competition(slug="cup", organizers=[organizer], known=["sw", "te", "bn"], phases=False,
                           surprise_reveal_at=timezone.now() - timedelta(days=1))
    phase = make_phase(cup, slug="test-a", name="Test A")
    for code in ("sw", "te"):
        make_topics(phase, code, ["1", "2"])
    team = make_team(cup, name="Lighthouse", members=[member])
    submission = make_scored(phase, team=team, method="run",
                             scores={"sw": {"nDCG@10": 0.61, "R@100": 0.9}, "te": {"nDCG@10": 0.43, "R@100": 0.7}})
    make_scored(phase, method="BM25", scores={"sw": {"nDCG@10": 0.2, "R@100": 0.5}, "te": {"nDCG@10": 0.1, "R@100": 0.3}})
    leaderboard_refresh(phase=phase)
    return phase, submission, organizer, member


def _get(user, name, *args):
    """A page with the user's session; the JSON API with their token (it takes nothing else)."""
    from cupboard.accounts.services import api_token_create

    headers = {"HTTP_AUTHORIZATION": f"Token {api_token_create(user=user)}"} if name.startswith("submissions:api_") else {}
    response = client_for(user).get(reverse(name, args=args), **headers)
    assert response.status_code == 200
    return response


def test_it_stores_averages_over_the_phase_subsets_only(test_a):
    phase, *_ = test_a
    row = LeaderboardRow.objects.get(phase=phase, is_baseline=False)

    assert row.averages == {"known": {"nDCG@10": pytest.approx(0.52), "R@100": pytest.approx(0.8)},
                            "all": {"nDCG@10": pytest.approx(0.52), "R@100": pytest.approx(0.8)}}
    assert row.primary_value == pytest.approx(0.52)


@pytest.mark.parametrize("persona", ["anonymous", "organizer"])
def test_it_shows_only_the_phase_columns_and_averages_on_the_page(test_a, persona):
    phase, _, organizer, _ = test_a
    html = _get(organizer if persona == "organizer" else None, "leaderboards:phase", "cup", "test-a").content.decode()

    assert ">K.Avg</th>" in html and ">Avg</th>" in html and ">sw</th>" in html and ">te</th>" in html
    assert "S.Avg" not in html and ">bn</th>" not in html and ">yo</th>" not in html
    assert ">0.520<" in html and ">0.347<" not in html and ">0.260<" not in html and ">0.000<" not in html
    assert '"x":["sw","te"]' in html  # the chart's columns


def test_it_exports_the_phase_averages(test_a):
    rows = list(csv.DictReader(io.StringIO(_get(None, "leaderboards:export_csv", "cup", "test-a").content.decode())))
    data = _get(None, "leaderboards:export_json", "cup", "test-a").json()

    assert [name for name in rows[0] if name.startswith("nDCG@10")] == ["nDCG@10 K.Avg", "nDCG@10 Avg",
                                                                         "nDCG@10 sw", "nDCG@10 te"]
    assert rows[0]["nDCG@10 K.Avg"] == rows[0]["nDCG@10 Avg"] == "0.520"
    assert data["averages"] == ["K.Avg", "Avg"]
    assert data["rows"][0]["averages"] == {"K.Avg": {"nDCG@10": 0.52, "R@100": 0.8}, "Avg": {"nDCG@10": 0.52, "R@100": 0.8}}


def test_it_gives_the_submission_page_and_api_the_phase_averages(test_a):
    _, submission, _, member = test_a
    status = _get(member, "submissions:api_status", submission.pk).json()
    html = _get(member, "submissions:detail", submission.pk).content.decode()

    assert status["averages"] == {"known": {"nDCG@10": 0.52, "R@100": 0.8}, "all": {"nDCG@10": 0.52, "R@100": 0.8}}
    assert set(status["scores"]) == {"sw", "te"}
    assert ">0.520<" in html and "S.Avg" not in html and ">0.347<" not in html


def test_it_keeps_every_subset_while_a_phase_has_no_topics_yet(test_a):
    phase, *_ = test_a
    phase.topic_sets.all().delete()
    leaderboard_refresh(phase=phase)

    row = LeaderboardRow.objects.get(phase=phase, is_baseline=False)
    assert set(row.averages) == {"known", "surprise", "all"}
    assert row.averages["all"]["nDCG@10"] == pytest.approx(0.26)
