"""A phase's runs as one zip for its organizers: every submission's run files as uploaded,
and a manifest (submission, team, method, status, subset, file, SHA-256), streamed while it is
written so that a Cup's test B (~1.7 M lines per submission) is never held in memory."""
import csv
import gzip
import hashlib
import io
import tracemalloc
import zipfile

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from cupboard.submissions.models import RunFile
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.personas import client_for

from .conftest import good_sw, run_bytes, upload


def runs_url(world, phase="dev"):
    return reverse("competitions:manage_runs", args=[world.competition.slug, phase])


def fetch(client, url) -> tuple:
    response = client.get(url)
    assert response.status_code == 200 and response.streaming
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    manifest = list(csv.DictReader(io.StringIO(archive.read("manifest.csv").decode())))
    return response, archive, manifest


def test_it_holds_every_run_as_uploaded_and_a_manifest(world):
    sw, te = run_bytes(good_sw()), run_bytes({"1": ["10#1"], "2": ["20#1"]})
    first = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                              files=[(upload("run.a.sw.txt", sw), None), (upload("run.a.te.txt.gz", te, gz=True), None)])
    submission_score(submission_id=first.pk)
    second = submission_create(phase=world.dev, team=world.team_b, user=world.outsider, method_name="=SPLADE",
                               files=[(upload("run.b.sw.txt", sw), None)])
    response, archive, manifest = fetch(client_for(world.organizer), runs_url(world))
    assert response["Content-Disposition"] == 'attachment; filename="cup-dev-runs.zip"'
    assert archive.read(f"{first.pk}/run.a.sw.txt") == sw and archive.read(f"{second.pk}/run.b.sw.txt") == sw
    assert gzip.decompress(archive.read(f"{first.pk}/run.a.te.txt.gz")) == te  # a gzipped upload stays gzipped
    assert [(r["submission"], r["team"], r["method"], r["status"], r["subset"], r["file"]) for r in manifest] == [
        (str(first.pk), "Team A", "BM25", "scored", "sw", f"{first.pk}/run.a.sw.txt"),
        (str(first.pk), "Team A", "BM25", "scored", "te", f"{first.pk}/run.a.te.txt.gz"),
        (str(second.pk), "Team B", "'=SPLADE", "queued", "sw", f"{second.pk}/run.b.sw.txt")]
    for row in manifest:
        assert row["sha256"] == hashlib.sha256(archive.read(row["file"])).hexdigest()
    assert archive.testzip() is None


def test_a_removed_file_is_listed_without_a_name_and_another_phase_stays_out(world):
    kept = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="kept",
                             files=[(upload("run.sw.txt", good_sw()), None)])
    gone = submission_create(phase=world.dev, team=world.team_b, user=world.outsider, method_name="gone",
                             files=[(upload("run.sw.txt", good_sw()), None)])
    RunFile.objects.filter(submission=gone).update(file="")  # as the retention rule leaves it
    submission_create(phase=world.test_b, team=world.team_a, user=world.participant, method_name="other phase",
                      files=[(upload("run.sw.txt", good_sw()), None)])
    _, archive, manifest = fetch(client_for(world.organizer), runs_url(world))
    assert [(r["method"], r["file"]) for r in manifest] == [("kept", f"{kept.pk}/run.sw.txt"), ("gone", "")]
    assert archive.namelist() == [f"{kept.pk}/run.sw.txt", "manifest.csv"]


def test_a_large_run_is_streamed_not_built_in_memory(world, tmp_path):
    """A 35 MB run (1 M lines) goes out in chunks while it is read: the memory Python holds
    while the whole archive is produced stays under half the archive, and the run comes out whole."""
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="big",
                                   files=[(upload("run.sw.txt", good_sw()), None)])
    big = b"".join(f"{q % 3 + 1} Q0 {n}#0 {n % 1000 + 1} {1000 - n % 1000}.5 big-run-tag\n".encode()
                   for q in range(1000) for n in range(q * 1000, q * 1000 + 1000))
    run_file = RunFile(submission=submission, subset=world.competition.subsets.get(code="te"), original_name="big.te.txt",
                       sha256=hashlib.sha256(big).hexdigest(), size=len(big))
    run_file.file.save("big.te.txt", ContentFile(big), save=True)
    del big
    response = client_for(world.organizer).get(runs_url(world))
    chunks = 0
    tracemalloc.start()
    try:
        with open(tmp_path / "runs.zip", "wb") as out:
            for chunk in response.streaming_content:
                out.write(chunk)
                chunks += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # ~2.7 MB at the peak for a 7 MB archive: holding the archive (or the run) could not pass.
    assert run_file.size > 35_000_000 and chunks > 5 and peak < (tmp_path / "runs.zip").stat().st_size / 2
    digest = hashlib.sha256()
    with zipfile.ZipFile(tmp_path / "runs.zip") as archive, archive.open(f"{submission.pk}/big.te.txt") as member:
        while block := member.read(1 << 20):
            digest.update(block)
    assert digest.hexdigest() == run_file.sha256


def test_a_head_reads_no_run(world, monkeypatch):
    """Asked outside the test client (which drops every HEAD's body itself), as a WSGI server
    asks: the HEAD's body is empty and no run is read; the GET reads each."""
    from django.test import RequestFactory

    from cupboard.submissions.views_manage import phase_runs

    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                                   files=[(upload("run.sw.txt", good_sw()), None)])
    read = []
    monkeypatch.setattr("cupboard.submissions.archive.uploaded_chunks", lambda run_file: read.append(run_file) or [])

    def answer(method: str):
        request = getattr(RequestFactory(), method)(runs_url(world))
        request.user = world.organizer
        response = phase_runs(request, world.competition.slug, "dev")
        return response, b"".join(response.streaming_content)

    (head, head_body), (get, get_body) = answer("head"), answer("get")
    assert head.status_code == get.status_code == 200 and head.headers == get.headers
    assert head_body == b"" and zipfile.ZipFile(io.BytesIO(get_body)).namelist() == [f"{submission.pk}/run.sw.txt",
                                                                                         "manifest.csv"]
    assert len(read) == 1  # the GET's


@pytest.mark.parametrize("persona, status", [("participant", 403), ("other_organizer", 403), ("staff", 200)])
def test_it_is_for_the_competition_organizers_and_staff(world, persona, status):
    assert client_for(getattr(world, persona)).get(runs_url(world)).status_code == status


def test_the_organizer_area_and_the_scoring_page_link_it(world):
    client = client_for(world.organizer)
    for page in (reverse("competitions:manage", args=["cup"]), reverse("competitions:manage_scoring", args=["cup", "dev"])):
        assert f'href="{runs_url(world)}"' in client.get(page).content.decode()
