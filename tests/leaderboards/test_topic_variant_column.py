"""With English and native topics, the leaderboard says which each counted run answered (the
`topics` column) and filters on it, in the page, the CSV and the JSON."""
import csv
import io

import pytest
from django.urls import reverse

from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.models import Submission
from tests.factories import set_topic_variants
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def dev(cast):
    set_topic_variants(cast.competition, {"en": "English queries", "native": "Native-language queries"})
    phase = cast.competition.phases.get(slug="dev")
    for team, value, variant in ((cast.team_a, 0.9, "native"), (cast.team_b, 0.6, "en")):
        submission = make_scored(phase, team=team, method=f"{variant} run", scores=ndcg(sw=value, te=value))
        Submission.objects.filter(pk=submission.pk).update(metadata={"topics": variant})
    leaderboard_refresh(phase=phase)
    return phase


def _get(name, phase, query=None):
    return client_for(None).get(reverse(name, args=[phase.competition.slug, phase.slug]), query or {})


def test_the_board_shows_and_filters_the_topics_each_run_used(cast, dev):
    page = _get("leaderboards:phase", dev).content.decode()
    assert '<th class="meta" data-sort="text" title="Which topics your run answered' in page
    assert ">Topics used</th>" in page and 'name="meta_topics"' in page
    rows = list(csv.DictReader(io.StringIO(_get("leaderboards:export_csv", dev).content.decode())))
    assert [(r["team"], r["meta:topics"]) for r in rows] == [("Team A", "Native-language queries"),
                                                             ("Team B", "English queries")]
    native = _get("leaderboards:export_json", dev, {"meta_topics": "native"}).json()
    assert [(row["team"], row["metadata"]) for row in native["rows"]] == [("Team A", {"topics": "native"})]
