"""The average columns' headings on a rendered leaderboard: every benchmark's read as MIRACL's
K.Avg and S.Avg do (a short name of the group, then .Avg). CLIRMatrix's mixed-pool average
was headed "Mixed.Avg"."""
import re

import pytest
from django.urls import reverse

from cupboard.competitions.definition import DEFINITIONS_DIR
from cupboard.competitions.services import competition_load
from cupboard.leaderboards.services import leaderboard_refresh
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db
AVERAGE_HEADING = re.compile(r'<th class="num avg"[^>]*title="([^"]*)"[^>]*>([^<]*)</th>')


def _average_headings(definition: str) -> list[tuple[str, str]]:
    """(title, heading) of each average column of the first phase's board, a baseline scored on every subset."""
    competition = competition_load(data=DEFINITIONS_DIR / definition)
    phase = competition.phases.order_by("opens_at").first()
    make_scored(phase, method="BM25", scores=ndcg(**{s.code: 0.5 for s in competition.subsets.all()}))
    leaderboard_refresh(phase=phase)
    response = client_for(competition.organizers.first()).get(
        reverse("leaderboards:phase", args=[competition.slug, phase.slug]))
    assert response.status_code == 200
    return AVERAGE_HEADING.findall(response.content.decode())


def test_clirmatrix_s_mixed_pool_average_reads_as_miracl_s_do():
    columns = _average_headings("clirmatrix.yaml")
    assert [heading for _, heading in columns] == ["ar.Avg", "de.Avg", "en.Avg", "es.Avg", "fr.Avg", "ja.Avg", "ru.Avg",
                                                   "zh.Avg", "M.Avg", "Avg"]
    assert columns[-2] == ("Average over mixed", "M.Avg")


def test_miracl_s_averages_are_the_model():
    assert [heading for _, heading in _average_headings("miracl-wsdm-cup.yaml")] == ["K.Avg", "S.Avg", "Avg"]
