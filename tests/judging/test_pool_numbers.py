"""Pools are numbered within their phase (pool #1, #2, ...): the number is in the page, the
file names and the addresses, so one phase's (or competition's) pools never show another's
count; a number belongs to one phase only."""
import pytest
from django.urls import reverse

from cupboard.judging.pools import pool_export_build, pool_export_create
from tests.personas import client_for

pytestmark = pytest.mark.django_db


def _built(scene, phase):
    export = pool_export_create(phase=phase, actor=scene.organizer, depth=3)
    assert pool_export_build(export_id=export.pk) == "done"
    export.refresh_from_db()
    return export


def test_each_phase_counts_its_own_pools(scene):
    first, second = _built(scene, scene.dev), _built(scene, scene.dev)
    other = _built(scene, scene.test_b)
    assert (first.number, second.number, other.number) == (1, 2, 1)
    assert other.pk > second.pk  # the row id runs on across phases; the number does not
    client = client_for(scene.organizer)
    page = client.get(reverse("judging:pool", args=["cup", "test-b"])).content.decode()
    assert "Pool #1:" in page and f"Pool #{other.pk}:" not in page
    archive = client.get(reverse("judging:pool_zip", args=["cup", "test-b", 1]))
    assert archive.status_code == 200 and 'filename="pool-cup-test-b-1.zip"' in archive["Content-Disposition"]
    assert other.file.name.rsplit("/", 1)[-1].startswith("pool-cup-test-b-1")
    # test B has no pool #2: dev's second is dev's only
    assert client.get(reverse("judging:pool_zip", args=["cup", "test-b", 2])).status_code == 404
    assert client.get(reverse("judging:pool_tsv", args=["cup", "dev", 2, "sw"])).status_code == 200
