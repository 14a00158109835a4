"""CSV and JSON exports: same visibility and rounding as the page, never anything per query."""
import csv
import io
import json
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse

from cupboard.competitions.models import Phase
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.models import QueryScores
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def dev(cast):
    phase = cast.competition.phases.get(slug="dev")
    submission = make_scored(phase, team=cast.team_a, method="a-run",
                             scores={"sw": {"nDCG@10": 0.123456, "R@100": 0.5}, "te": {"nDCG@10": 0.654321, "R@100": 0.7},
                                     "yo": {"nDCG@10": 0.246813, "R@100": 0.9}})
    QueryScores.objects.create(submission=submission, subset=phase.competition.subsets.get(code="sw"),
                               values={"nDCG@10": {"secret-qid-17": 0.123456}})
    make_scored(phase, method="BM25", scores=ndcg(sw=0.1, te=0.1))
    leaderboard_refresh(phase=phase)
    return phase


def _csv(user, phase):
    response = client_for(user).get(reverse("leaderboards:export_csv", args=[phase.competition.slug, phase.slug]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def _json(user, phase, status=200):
    response = client_for(user).get(reverse("leaderboards:export_json", args=[phase.competition.slug, phase.slug]))
    assert response.status_code == status
    return response.json()


def test_it_exports_csv_without_surprise_columns_before_the_reveal(cast, dev):
    rows = _csv(cast.participant, dev)

    header = list(rows[0])
    assert header[:13] == ["rank", "team", "method", "baseline", "qrels_version",
                           "nDCG@10 K.Avg", "nDCG@10 Avg", "nDCG@10 sw", "nDCG@10 te",
                           "R@100 K.Avg", "R@100 Avg", "R@100 sw", "R@100 te"]
    # sw has per-query values: rank bands and intervals follow, per visible column (test_rank_bands.py)
    assert header[13:18] == [f"nDCG@10 K.Avg {f}" for f in ("rank_low", "rank_high", "tier", "ci_low", "ci_high")]
    assert len(header) == 13 + 4 * 5 and not any("yo" in h or "S.Avg" in h for h in header)
    assert rows[0]["rank"] == "1" and rows[0]["team"] == "Team A" and rows[0]["nDCG@10 sw"] == "0.123"
    assert rows[0]["nDCG@10 Avg"] == "0.389"
    assert rows[1]["rank"] == "" and rows[1]["baseline"] == "yes" and rows[1]["method"] == "BM25"


def test_it_exports_csv_with_surprise_columns_from_the_reveal_on(cast, dev):
    reveal_at = cast.competition.groups.get(name="surprise").reveal_at
    with time_machine.travel(reveal_at, tick=False):
        rows = _csv(cast.anonymous, dev)

    assert rows[0]["nDCG@10 yo"] == "0.247" and rows[0]["R@100 S.Avg"] == "0.900"
    assert rows[0]["nDCG@10 Avg"] == "0.342"


def test_it_rounds_the_csv_for_organizers_too(cast, dev):
    rows = _csv(cast.organizer, dev)

    assert rows[0]["nDCG@10 yo"] == "0.247"
    assert rows[0]["nDCG@10 sw"] == "0.123"


def test_it_exports_rounded_json_without_surprise_subsets_before_the_reveal(cast, dev):
    data = _json(cast.anonymous, dev)

    assert data["rounded_to"] == 3
    assert [s["code"] for s in data["subsets"]] == ["sw", "te"]
    assert data["averages"] == ["K.Avg", "Avg"]
    first = data["rows"][0]
    assert first["values"] == {"sw": {"nDCG@10": 0.123, "R@100": 0.5}, "te": {"nDCG@10": 0.654, "R@100": 0.7}}
    assert first["averages"] == {"K.Avg": {"nDCG@10": 0.389, "R@100": 0.6}, "Avg": {"nDCG@10": 0.389, "R@100": 0.6}}
    assert "yo" not in json.dumps(data) and "S.Avg" not in json.dumps(data)


def test_it_exports_full_precision_json_to_organizers_only(cast, dev):
    data = _json(cast.organizer, dev)

    assert data["rounded_to"] is None
    assert data["rows"][0]["values"]["yo"]["nDCG@10"] == 0.246813
    assert data["rows"][0]["averages"]["Avg"]["nDCG@10"] == pytest.approx((0.123456 + 0.654321 + 0.246813) / 3)
    assert data["rows"][0]["averages"]["S.Avg"]["nDCG@10"] == 0.246813


@pytest.mark.parametrize("persona", ["anonymous", "participant", "organizer"])
def test_it_never_exports_anything_per_query(cast, dev, persona):
    for response in (client_for(getattr(cast, persona)).get(reverse(name, args=["cup", "dev"]))
                     for name in ("leaderboards:export_csv", "leaderboards:export_json", "leaderboards:phase")):
        assert b"secret-qid-17" not in response.content


@pytest.mark.parametrize("persona", ["anonymous", "participant"])
def test_it_refuses_exports_of_a_closed_phase(cast, persona):
    phase = cast.competition.phases.get(slug="test-b")
    make_scored(phase, team=cast.team_a, method="hidden-run", scores=ndcg(sw=0.5))
    leaderboard_refresh(phase=phase)

    data = _json(getattr(cast, persona), phase, status=403)
    csv_response = client_for(getattr(cast, persona)).get(reverse("leaderboards:export_csv", args=["cup", "test-b"]))

    assert data["errors"][0]["code"] == "leaderboard-not-public"
    assert "hidden-run" not in json.dumps(data)
    assert csv_response.status_code == 403 and b"hidden-run" not in csv_response.content
    assert csv_response.json()["errors"][0]["code"] == "leaderboard-not-public"  # the API's shape, not bare text
    with time_machine.travel(phase.reveal_at + timedelta(seconds=1), tick=False):
        assert _json(getattr(cast, persona), phase)["rows"][0]["method"] == "hidden-run"


def test_it_exports_a_hidden_phase_to_organizers_only(cast, dev):
    Phase.objects.filter(pk=dev.pk).update(visibility=Phase.Visibility.HIDDEN)

    assert _json(cast.participant, dev, status=403)["errors"][0]["code"] == "leaderboard-not-public"
    assert _json(cast.organizer, dev)["rows"][0]["method"] == "a-run"
