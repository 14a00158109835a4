"""The matrices the bands are tested on (leaderboards/standings.py, `_matrices`): one row per board
row, one column per query of the union, a query a row lacks counts 0, a row without values on a
subset is NaN there, whatever order each row's values were stored in."""
import numpy as np
import pytest

from cupboard.leaderboards.models import LeaderboardRow
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.leaderboards.standings import _matrices
from cupboard.submissions.models import QueryScores
from tests.leaderboards.conftest import make_scored

pytestmark = pytest.mark.django_db


def _scored(phase, team, values: dict[str, dict[str, float]]):
    submission = make_scored(phase, team=team, scores={c: {"nDCG@10": float(np.mean(list(v.values())))}
                                                        for c, v in values.items()})
    subsets = {s.code: s for s in phase.competition.subsets.all()}
    for code, by_query in values.items():
        QueryScores.objects.create(submission=submission, subset=subsets[code], values={"nDCG@10": by_query})


def test_rows_are_aligned_on_the_union_of_queries_with_zeros_and_nan(cast):
    phase = cast.competition.phases.get(slug="dev")
    reversed_order = {f"q{i}": 0.1 * i for i in reversed(range(1, 12))}  # q1..q11 (q10 sorts before q2)
    _scored(phase, cast.team_a, {"sw": reversed_order, "te": {"t1": 0.5}})
    _scored(phase, cast.team_b, {"sw": {"q3": 0.9, "q12": 0.4}})  # two queries only, one nobody else has
    leaderboard_refresh(phase=phase)
    rows = list(LeaderboardRow.objects.filter(phase=phase).order_by("team__name"))
    matrices = _matrices(rows, ["sw", "te"], "nDCG@10")

    qids = sorted([*reversed_order, "q12"])
    expected_a = [reversed_order.get(q, 0.0) for q in qids]
    expected_b = [{"q3": 0.9, "q12": 0.4}.get(q, 0.0) for q in qids]
    assert matrices["sw"].tolist() == [expected_a, expected_b]
    assert matrices["te"][0].tolist() == [0.5] and np.isnan(matrices["te"][1]).all()
