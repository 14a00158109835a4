"""A single-average board: subsets defined without groups (or all in one group, as Mr. TyDi's)
show ONE Avg column, on the page, in the JSON and CSV exports, in the frozen official results,
on the submission's page and its charts, and the significance note names no K.Avg or S.Avg.
A competition with two groups keeps a column per group beside Avg."""
import csv
import io
import json
import re
from datetime import timedelta

import numpy as np
import pytest
import time_machine
from django.urls import reverse

from cupboard.competitions.definition import DEFINITIONS_DIR, EXAMPLES_DIR
from cupboard.competitions.services import competition_load
from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.charts import bands_figure
from cupboard.leaderboards.models import FrozenSnapshot
from cupboard.leaderboards.releases import final_results_release_due
from cupboard.leaderboards.selectors import leaderboard_for
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.models import QueryScores
from cupboard.submissions.selectors import score_tables
from tests.factories import make_team, make_user
from tests.leaderboards.conftest import make_scored
from tests.personas import client_for

pytestmark = pytest.mark.django_db

METRIC = "nDCG@20"  # the example's primary metric


def _scored(phase, team, level: float, seed: int):
    """A scored run with per-query values (so the board has rank bands), means as stored."""
    per_query = {code: {f"q{i}": float(v) for i, v in enumerate(level + np.random.default_rng(seed + k).normal(0, 0.05, 60))}
                 for k, code in enumerate(("ha", "so", "sw", "yo"))}
    submission = make_scored(phase, team=team, scores={c: {METRIC: float(np.mean(list(v.values())))}
                                                       for c, v in per_query.items()})
    subsets = {s.code: s for s in phase.competition.subsets.all()}
    for code, values in per_query.items():
        QueryScores.objects.create(submission=submission, subset=subsets[code], values={METRIC: values})
    return submission


@pytest.fixture
def ciral():
    """The reference's generic example: four subsets, no groups; two teams on each phase."""
    competition = competition_load(data=EXAMPLES_DIR / "ciral-like.yaml")
    teams = [make_team(competition, name=f"Team {n}", members=[make_user()]) for n in "AB"]
    for phase in competition.phases.all():
        for team, level, seed in zip(teams, (0.6, 0.3), (1, 2), strict=True):
            _scored(phase, team, level, seed)
        leaderboard_refresh(phase=phase)
    return competition


def _header_averages(html: str) -> list[str]:
    return re.findall(r'<th class="num avg"[^>]*>([^<]*)</th>', html)


def test_subsets_without_groups_load_into_one_average(ciral):
    assert [(g.name, g.label) for g in ciral.groups.all()] == [("all", "Avg")]
    assert set(ciral.subsets.values_list("group__name", flat=True)) == {"all"}


def test_the_page_shows_one_avg_and_a_note_naming_only_it(ciral):
    response = client_for(None).get(reverse("leaderboards:phase", args=[ciral.slug, "dev"]) + f"?metric={METRIC}")
    html = response.content.decode()
    assert _header_averages(html) == ["Avg"]
    assert "Avg is tested on the per-query values of all its languages together" in html
    assert "K.Avg" not in html and "S.Avg" not in html


def test_the_exports_have_one_avg(ciral):
    client = client_for(None)
    data = json.loads(client.get(reverse("leaderboards:export_json", args=[ciral.slug, "dev"])).content)
    assert data["averages"] == ["Avg"]
    assert all(list(row["averages"]) == ["Avg"] for row in data["rows"]) and len(data["rows"]) == 2
    header = next(csv.reader(io.StringIO(client.get(reverse("leaderboards:export_csv",
                                                            args=[ciral.slug, "dev"])).content.decode())))
    assert _averages_in(header) == [f"{METRIC} Avg", "R@100 Avg"]  # was each twice: "Avg | Avg"


def test_the_frozen_official_results_have_one_avg(ciral):
    final = ciral.phases.get(slug="test")
    with time_machine.travel(final.reveal_at + timedelta(seconds=1), tick=False):
        final_results_release_due()
    snapshot = FrozenSnapshot.objects.get(phase=final)
    assert _averages_in(next(csv.reader(io.StringIO(snapshot.csv)))) == [f"{METRIC} Avg", "R@100 Avg"]
    assert json.loads(snapshot.json)["averages"] == ["Avg"]


def _averages_in(header: list[str]) -> list[str]:
    """The CSV's value columns of averages (not their rank band and interval columns)."""
    return [h for h in header if h.endswith("Avg")]


def test_the_charts_and_the_submission_page_name_one_avg(ciral):
    dev = ciral.phases.get(slug="dev")
    board = leaderboard_for(phase=dev, viewer=Viewer(None, ciral))
    assert [c.label for c in board.average_columns] == ["Avg"] and board.bands is not None
    assert bands_figure(board, metric=METRIC)["layout"]["title"]["text"].startswith(f"{METRIC} Avg with")
    submission = dev.submissions.first()
    organizer = make_user(is_staff=True)
    _, averages = score_tables(Viewer(organizer, ciral), submission)
    assert [a["label"] for a in averages] == ["Avg"]


def test_mr_tydi_shows_one_avg():
    competition = competition_load(data=DEFINITIONS_DIR / "mrtydi.yaml")
    phase = competition.phases.first()
    team = make_team(competition, name="Team A", members=[make_user()])
    make_scored(phase, team=team, scores={code: {"MRR@100": 0.5} for code in ("ar", "bn")})
    leaderboard_refresh(phase=phase)
    board = leaderboard_for(phase=phase, viewer=Viewer(make_user(is_staff=True), competition))
    assert [c.label for c in board.average_columns] == ["Avg"]
    assert list(board.entries[0].averages) == ["all"]


def test_two_groups_keep_their_columns(cast):
    dev = cast.competition.phases.get(slug="dev")
    board = leaderboard_for(phase=dev, viewer=Viewer(cast.organizer, cast.competition))
    assert [c.label for c in board.average_columns] == ["K.Avg", "S.Avg", "Avg"]
