"""The results archive of a final phase: built by a worker's job from the frozen results, it
holds the qrels versions, topics, the runs released by their teams (and the baselines), the
official results and the paper's tables, with a manifest whose every hash matches its file;
the zip's hash is in the public audit log. Nothing of it exists before the results are public,
and a run whose team did not consent is never in it."""
import hashlib
import io
import json
import zipfile
from datetime import timedelta

import pytest
import time_machine

from cupboard.audit.models import AuditEvent
from cupboard.leaderboards.archive import ArchiveRefused, results_archive_build, results_archive_create
from cupboard.leaderboards.models import ResultsArchive
from cupboard.leaderboards.releases import final_results_release_due
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.factories import make_qrels_release
from tests.personas import client_for
from tests.submissions.conftest import JUDGMENTS, _worlds, good_sw, run_bytes, upload, world  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db


def _run(world, *, team, user, tag: str, consent: bool, baseline: bool = False):
    files = [(upload("run.sw.txt", run_bytes(good_sw(), tag=tag)), None),
             (upload("run.te.txt", run_bytes({"1": ["10#1"], "2": ["20#1"]}, tag=tag)), None)]
    submission = submission_create(phase=world.test_b, team=team, user=user, files=files, method_name=f"{tag} run",
                                   release_consent=consent, is_baseline=baseline)
    submission_score(submission_id=submission.pk)
    return submission


@pytest.fixture
def revealed(world):
    """Test B with judgments, team A's run released, team B's not, a baseline; frozen at the reveal."""
    make_qrels_release(world.test_b, JUDGMENTS)
    world.released = _run(world, team=world.team_a, user=world.participant, tag="dense_v1", consent=True)
    world.kept = _run(world, team=world.team_b, user=world.outsider, tag="secret", consent=False)
    world.baseline = _run(world, team=None, user=world.organizer, tag="bm25", consent=False, baseline=True)
    leaderboard_refresh(phase=world.test_b)
    world.at_reveal = world.test_b.reveal_at + timedelta(seconds=1)
    with time_machine.travel(world.at_reveal, tick=False):
        final_results_release_due()
    return world


def _build(world) -> ResultsArchive:
    with time_machine.travel(world.at_reveal + timedelta(hours=1), tick=False):
        archive = results_archive_create(phase=world.test_b, actor=world.organizer)
        assert results_archive_build(archive_id=archive.pk) == "done"
    archive.refresh_from_db()
    return archive


def test_nothing_before_the_results_are_public(world):
    make_qrels_release(world.test_b, JUDGMENTS)
    _run(world, team=world.team_a, user=world.participant, tag="dense_v1", consent=True)
    leaderboard_refresh(phase=world.test_b)
    with pytest.raises(ArchiveRefused, match="no frozen official results"):
        results_archive_create(phase=world.test_b, actor=world.organizer)
    for user in (world.organizer, world.participant, world.anonymous):
        client = client_for(user)
        for path in ("results/", "results/averages.tex", "results/languages.md", "results/archive-1.zip"):
            assert client.get(f"/c/cup/test-b/{path}").status_code == 404, (user, path)
    assert client_for(world.organizer).post("/c/cup/test-b/results/archive/").status_code == 302
    assert not ResultsArchive.objects.exists()


def test_the_manifest_matches_every_file_and_only_released_runs_are_in_it(revealed):
    archive = _build(revealed)
    with time_machine.travel(revealed.at_reveal + timedelta(hours=2), tick=False):
        response = client_for(revealed.anonymous).get(f"/c/cup/test-b/results/archive-{archive.number}.zip")
        assert response.status_code == 200
        body = b"".join(response.streaming_content)
    assert hashlib.sha256(body).hexdigest() == archive.sha256 and len(body) == archive.size
    zipped = zipfile.ZipFile(io.BytesIO(body))
    names = zipped.namelist()
    manifest = zipped.read("MANIFEST.sha256").decode()
    assert hashlib.sha256(manifest.encode()).hexdigest() == archive.manifest_sha256
    listed = {line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in manifest.splitlines()}
    assert set(listed) == set(names) - {"MANIFEST.sha256"} and len(listed) == archive.files
    for name, digest in listed.items():
        assert hashlib.sha256(zipped.read(name)).hexdigest() == digest, name
    runs = [n for n in names if n.startswith("runs/") and n != "runs/runs.json"]
    assert sorted(runs) == ["runs/Team_A/1-dense_v1_run/sw/run.sw.txt", "runs/Team_A/1-dense_v1_run/te/run.te.txt",
                            "runs/baselines/1-bm25_run/sw/run.sw.txt", "runs/baselines/1-bm25_run/te/run.te.txt"]
    assert zipped.read("runs/Team_A/1-dense_v1_run/sw/run.sw.txt") == run_bytes(good_sw(), tag="dense_v1")
    assert b"secret" not in b"".join(zipped.read(n) for n in names if not n.startswith(("results/", "runs/runs.json")))
    # the record holds every counted run (issue 34): Team B's scores and per-topic values, not its files
    listed_runs = json.loads(zipped.read("runs/runs.json"))["runs"]
    assert [(r["team"], r["baseline"], r["released"]) for r in listed_runs] == [
        ("Team A", False, True), ("Team B", False, False), (None, True, True)]
    kept = listed_runs[1]
    assert kept["scores"]["sw"] == {s.metric: s.value for s in revealed.kept.scores.filter(subset__code="sw")}
    stored = revealed.kept.query_scores.get(subset__code="sw").values
    assert kept["per_topic"]["sw"] == stored and stored["nDCG@10"]
    assert all(f["path"] is None and f["sha256"] for f in kept["files"])
    assert {"qrels/v1/sw/qrels.cup-sw-test-b.tsv", "topics/sw/topics.cup-sw-test-b.tsv",
            "results/tables/averages.tex", "results/tables/languages.md", "README.md", "CITATION.bib"} <= set(names)
    snapshot = revealed.test_b.frozen_snapshot
    assert zipped.read("results/official.csv").decode() == snapshot.csv
    assert hashlib.sha256(zipped.read("results/official.json")).hexdigest() == snapshot.json_sha256


def test_its_hash_is_in_the_public_audit_log_and_its_page_gives_a_citation(revealed):
    archive = _build(revealed)
    [event] = AuditEvent.objects.filter(action=AuditEvent.Action.RESULTS_ARCHIVED)
    assert event.is_public and event.details["sha256"] == archive.sha256
    assert event.details["manifest_sha256"] == archive.manifest_sha256
    with time_machine.travel(revealed.at_reveal + timedelta(hours=2), tick=False):
        page = client_for(revealed.anonymous).get("/c/cup/test-b/results/").content.decode()
        assert archive.sha256 in page and "@misc{cup-test-b-results-v1," in page
        assert f"/c/cup/test-b/results/archive-{archive.number}.zip" in page
        assert "Build the archive" not in page and "Build a new version" not in page
        assert "Build a new version" in client_for(revealed.organizer).get("/c/cup/test-b/results/").content.decode()
        audit = client_for(revealed.anonymous).get("/c/cup/audit/").content.decode()
        assert archive.sha256 in audit


def test_a_second_request_while_one_is_pending_returns_it(revealed):
    with time_machine.travel(revealed.at_reveal + timedelta(hours=1), tick=False):
        first = results_archive_create(phase=revealed.test_b, actor=revealed.organizer)
        assert results_archive_create(phase=revealed.test_b, actor=revealed.organizer) == first
        assert results_archive_build(archive_id=first.pk) == "done"
        assert results_archive_build(archive_id=first.pk) == "skipped"  # a duplicate delivery
        assert results_archive_create(phase=revealed.test_b, actor=revealed.organizer).number == 2


def test_a_language_still_hidden_at_the_reveal_stays_out(world):
    """yo's group revealed only after Test B's: nothing of yo in the archive, scores neither."""
    world.competition.groups.filter(name="surprise").update(reveal_at=world.test_b.reveal_at + timedelta(days=5))
    make_qrels_release(world.test_b, JUDGMENTS)
    files = [(upload("run.sw.txt", run_bytes(good_sw(), tag="dense")), None),
             (upload("run.yo.txt", run_bytes({"1": ["10#2"]}, tag="dense")), None)]
    submission = submission_create(phase=world.test_b, team=None, user=world.organizer, files=files,
                                   method_name="bm25", is_baseline=True)
    submission_score(submission_id=submission.pk)
    assert submission.scores.filter(subset__code="yo").exists()
    leaderboard_refresh(phase=world.test_b)
    world.at_reveal = world.test_b.reveal_at + timedelta(seconds=1)
    with time_machine.travel(world.at_reveal, tick=False):
        final_results_release_due()
    archive = _build(world)
    with archive.file.open("rb") as stored:
        zipped = zipfile.ZipFile(io.BytesIO(stored.read()))
    assert not [n for n in zipped.namelist() if "/yo/" in n]
    [run] = json.loads(zipped.read("runs/runs.json"))["runs"]
    assert "yo" not in run["scores"] and "sw" in run["scores"] and [f["subset"] for f in run["files"]] == ["sw"]
