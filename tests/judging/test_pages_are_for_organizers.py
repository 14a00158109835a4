"""The judging pages with real content behind them (a built pool, a release with a "what
changed"): the organizer and staff see them; everyone else gets the organizer pages' 403,
or the log-in page."""
import pytest
from django.urls import reverse

from cupboard.competitions.services import qrels_release_create
from cupboard.judging.pools import pool_export_build, pool_export_create
from tests.factories import qrels_text
from tests.judging.conftest import JUDGMENTS, D
from tests.personas import client_for

pytestmark = pytest.mark.django_db


def test_only_organizers_and_staff_open_them(scene):
    export = pool_export_create(phase=scene.dev, actor=scene.organizer)
    pool_export_build(export_id=export.pk)
    sw = {q: {**docs, D["u1"]: 1} for q, docs in JUDGMENTS["sw"].items()}
    qrels_release_create(phase=scene.dev, files={"sw": qrels_text(sw)}, actor=scene.organizer)
    urls = [reverse("judging:pool", args=["cup", "dev"]), reverse("judging:pool_zip", args=["cup", "dev", export.number]),
            reverse("judging:pool_tsv", args=["cup", "dev", export.number, "sw"]),
            reverse("judging:qrels_changes", args=["cup", "dev", 2])]
    expected = {"organizer": 200, "staff": 200, "participant": 403, "teammate": 403, "outsider": 403,
                "other_organizer": 403, "anonymous": 302}
    for persona, status in expected.items():
        client = client_for(getattr(scene, persona))
        for url in urls:
            response = client.get(url)
            assert response.status_code == status, (persona, url)
            if status != 200:
                assert D["u2"] not in response.content.decode(), (persona, url)  # a pooled docid
