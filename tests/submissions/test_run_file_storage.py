"""Run files are stored gzipped and read back transparently: scoring, downloads and duplicate
detection see exactly the bytes the team uploaded."""
import gzip
import hashlib

from django.urls import reverse

from cupboard.submissions.models import Score
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.personas import client_for

from .conftest import good_sw, run_bytes, upload


def create(world, name: str, content: bytes, *, team=None, user=None):
    return submission_create(phase=world.dev, team=team or world.team_a, user=user or world.participant,
                             method_name="BM25", files=[(upload(name, content), "sw")])


def stored_bytes(submission) -> bytes:
    with submission.run_files.get().file.open("rb") as stored:
        return stored.read()


def test_it_stores_a_plain_run_gzipped_with_the_uploaded_sha256_and_size(world):
    content = run_bytes(good_sw())
    run_file = create(world, "storage-plain.sw.txt", content).run_files.get()
    with run_file.file.open("rb") as stored:
        raw = stored.read()
    assert run_file.compressed and run_file.file.name.endswith(".gz")
    assert raw[:2] == b"\x1f\x8b" and gzip.decompress(raw) == content
    assert (run_file.sha256, run_file.size) == (hashlib.sha256(content).hexdigest(), len(content))


def test_it_stores_a_gzip_upload_as_it_came(world):
    content = gzip.compress(run_bytes(good_sw()))
    submission = create(world, "storage-packed.sw.txt.gz", content)
    assert not submission.run_files.get().compressed
    assert stored_bytes(submission) == content


def test_scoring_reads_the_stored_copy_whatever_its_form(world):
    plain = create(world, "storage-a.sw.txt", run_bytes(good_sw()))
    packed = create(world, "storage-b.sw.txt.gz", gzip.compress(run_bytes(good_sw())), team=world.team_b,
                    user=world.outsider)
    assert submission_score(submission_id=plain.pk) == submission_score(submission_id=packed.pk) == "scored"
    scores = [dict(Score.objects.filter(submission=s, subset__code="sw").values_list("metric", "value")) for s in (plain, packed)]
    assert scores[0] == scores[1] and scores[0]["nDCG@10"] > 0


def test_the_download_hands_back_the_uploaded_bytes(world):
    for name, content in (("storage-c.sw.txt", run_bytes(good_sw())),
                          ("storage-d.sw.txt.gz", gzip.compress(run_bytes({"1": ["10#0"]})))):
        submission = create(world, name, content)
        response = client_for(world.teammate).get(reverse("submissions:download", args=[submission.pk, "sw"]))
        assert response.status_code == 200
        assert b"".join(response.streaming_content) == content
        assert response["Content-Length"] == str(len(content))
        assert f'filename="{name}"' in response["Content-Disposition"]


def test_the_same_content_again_is_the_same_submission(world):
    first = create(world, "storage-e.sw.txt", run_bytes(good_sw()))
    again = create(world, "storage-f.sw.txt", run_bytes(good_sw()))
    assert again.pk == first.pk
