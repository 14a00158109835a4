"""Pool exports: the chosen runs' top k per query, minus what is judged, as TSV files in a
zip, built by the worker's service with progress; counts and unique relevant documents."""
import io
import zipfile
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from cupboard.jobs import job_claim
from cupboard.judging.models import PoolExport
from cupboard.judging.pools import POOL_EXPORT, chosen_submission_ids, pool_export_build, pool_export_create, pool_exports_sweep
from tests.judging.conftest import D
from tests.personas import client_for

pytestmark = pytest.mark.django_db


def built(scene, **options) -> PoolExport:
    export = pool_export_create(phase=scene.dev, actor=scene.organizer, **options)
    assert pool_export_build(export_id=export.pk) == "done"
    export.refresh_from_db()
    return export


def members(export) -> dict[str, list[list[str]]]:
    with export.file.open("rb") as stored, zipfile.ZipFile(io.BytesIO(stored.read())) as archive:
        return {name: [line.split("\t") for line in archive.read(name).decode().splitlines()]
                for name in archive.namelist()}


def test_it_pools_the_unjudged_top_documents_with_the_query_text(scene):
    export = built(scene, depth=3)
    files = members(export)
    assert list(files) == ["pool.cup-dev-sw.top3.tsv"]  # no run has te
    rows = files["pool.cup-dev-sw.top3.tsv"]
    assert rows[0] == ["qid", "query", "docid"]
    # top 3: A q1 a1 u1 u2, q2 b1 u3; B q1 a2 u1 x1, q2 x3 x4; baseline q1 a1 a2 n1, q2 b1
    assert rows[1:] == [["1", "mvua inanyesha", D[d]] for d in ("u1", "u2", "x1")] + \
        [["2", "'=formula looking query", D[d]] for d in ("u3", "x3", "x4")]
    assert export.counts == [{"code": "sw", "queries": 2, "documents": 6, "runs": 3}]
    assert (export.status, export.progress, export.qrels_release.number) == ("done", 100, 1)


def test_it_counts_relevant_documents_only_one_team_found(scene):
    export = built(scene, depth=10)
    found = {c["group"]: (c["unique"], c["relevant"]) for c in export.contributions}
    # relevant: a1 a2 (q1), b1 (q2). A: a1 b1; B: a2; baseline: a1 a2 b1 -> nobody alone.
    assert found == {"Team A": (0, 2), "Team B": (0, 1), "Baseline: method base": (0, 3)}
    without_baselines = built(scene, depth=10, with_baselines=False)
    found = {c["group"]: (c["unique"], c["relevant"]) for c in without_baselines.contributions}
    assert found == {"Team A": (2, 2), "Team B": (1, 1)}


def test_the_top_n_choice_takes_the_counted_runs_of_the_best_teams(scene):
    first = scene.dev.leaderboard_rows.get(rank=1).submission_id
    assert chosen_submission_ids(phase=scene.dev, selection="top", top_teams=1, with_baselines=False) == [first]
    export = built(scene, depth=2, selection="top", top_teams=1, with_baselines=False)
    assert export.submission_ids == [first] and export.counts[0]["runs"] == 1


def test_building_twice_builds_once(scene):
    export = built(scene)
    assert pool_export_build(export_id=export.pk) == "skipped"


def test_a_silent_build_is_taken_over_and_its_old_builder_writes_nothing(scene, django_capture_on_commit_callbacks):
    export = pool_export_create(phase=scene.dev, actor=scene.organizer)
    silent = job_claim(POOL_EXPORT, export.pk, now=timezone.now() - timedelta(minutes=5))
    with django_capture_on_commit_callbacks() as sent:
        assert pool_exports_sweep()["put_back"] == 1
    assert len(sent) == 1 and pool_export_build(export_id=export.pk) == "done"
    assert not silent.update(status=PoolExport.Status.FAILED)
    export.refresh_from_db()
    assert export.status == PoolExport.Status.DONE and export.attempts == 2


def test_a_lost_build_message_is_sent_again(scene, django_capture_on_commit_callbacks):
    export = pool_export_create(phase=scene.dev, actor=scene.organizer)
    with django_capture_on_commit_callbacks() as sent:
        assert pool_exports_sweep(now=export.created_at + timedelta(seconds=1))["resent"] == 0
        assert pool_exports_sweep(now=export.created_at + timedelta(minutes=5))["resent"] == 1
    assert len(sent) == 1


def test_the_organizer_builds_and_downloads_it_from_the_pages(scene, django_capture_on_commit_callbacks):
    client = client_for(scene.organizer)
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(reverse("judging:pool_create", args=["cup", "dev"]),
                               {"depth": "3", "selection": "selected", "with_baselines": "on"})
    assert response.status_code == 302
    export = PoolExport.objects.get()
    page = client.get(reverse("judging:pool", args=["cup", "dev"])).content.decode()
    assert "queued" in page and 'http-equiv="refresh"' in page
    assert client.get(reverse("judging:pool_zip", args=["cup", "dev", export.number])).status_code == 404  # not built
    pool_export_build(export_id=export.pk)
    page = client.get(reverse("judging:pool", args=["cup", "dev"])).content.decode()
    assert 'http-equiv="refresh"' not in page and "Documents to judge" in page
    archive = client.get(reverse("judging:pool_zip", args=["cup", "dev", export.number]))
    assert archive["Content-Type"] == "application/zip"
    tsv = client.get(reverse("judging:pool_tsv", args=["cup", "dev", export.number, "sw"]))
    assert tsv.content.decode().splitlines()[1] == f"1\tmvua inanyesha\t{D['u1']}"
    assert client.get(reverse("judging:pool_tsv", args=["cup", "dev", export.number, "te"])).status_code == 404


def test_a_bad_form_names_the_field(scene):
    response = client_for(scene.organizer).post(reverse("judging:pool_create", args=["cup", "dev"]),
                                                {"depth": "0", "selection": "top"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "N is required for the top N" in page and not PoolExport.objects.exists()
