"""The leaderboard table's body, built in Python (leaderboards/table.py): numbers as the
template's `floatformat` wrote them, every name escaped, the viewer's own row marked."""
import random

import pytest
from django.template.defaultfilters import floatformat
from django.urls import reverse

from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.leaderboards.table import fixed
from tests.factories import make_team
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for


def test_it_rounds_as_floatformat_does():
    rng = random.Random(7)
    values = [rng.random() for _ in range(2000)] + [0.5125, 0.0005, 0.9995, 1.0, 0.0, 0.1235, 0.12345678]
    for decimals in (2, 3, 4):
        assert [fixed(v, decimals) for v in values] == [floatformat(v, decimals) for v in values]


@pytest.mark.django_db
def test_it_escapes_what_teams_wrote_and_marks_the_own_row(cast):
    phase = cast.competition.phases.get(slug="dev")
    evil = make_team(cast.competition, name='<img src=x onerror="alert(1)">')
    make_scored(phase, team=evil, method="<script>alert(2)</script>", scores=ndcg(sw=0.9, te=0.9))
    make_scored(phase, team=cast.team_a, method="mine & yours", scores=ndcg(sw=0.5))  # te missing
    leaderboard_refresh(phase=phase)
    html = client_for(cast.participant).get(reverse("leaderboards:phase", args=[cast.competition.slug, phase.slug]))
    html = html.content.decode()
    assert "<img src=x" not in html and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    assert "<script>alert(2)" not in html and "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    own = html[html.index('<tr class=" own">'):]
    own = own[:own.index("</tr>")]
    assert "mine &amp; yours" in own and 'title="incomplete"' in own and 'data-value="0.5">0.500<' in own
