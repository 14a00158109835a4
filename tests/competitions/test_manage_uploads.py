"""Organizer area uploads: new qrels versions (re-scoring) and topics, all or nothing, errors by file and line."""
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cupboard.audit.models import AuditEvent
from cupboard.competitions.models import QrelsRelease, TopicSet
from cupboard.submissions.models import Submission
from tests.factories import make_qrels_release
from tests.personas import personas  # noqa: F401

DATA = Path(__file__).resolve().parents[1] / "data" / "competitions" / "miracl-v1.0-dev"


def upload(path_or_name, content: bytes | None = None) -> SimpleUploadedFile:
    if content is None:
        path = DATA / path_or_name
        return SimpleUploadedFile(path.name, path.read_bytes())
    return SimpleUploadedFile(path_or_name, content)


@pytest.fixture
def organizer_client(personas):
    return personas.client_for(personas.organizer)


def qrels_url(personas, phase="test-b"):
    return reverse("competitions:manage_qrels", args=[personas.competition.slug, phase])


def topics_url(personas, phase="dev"):
    return reverse("competitions:manage_topics", args=[personas.competition.slug, phase])


def test_it_releases_a_qrels_version_from_several_files_named_by_subset(personas, organizer_client):
    response = organizer_client.post(qrels_url(personas), {
        "files": [upload("qrels.miracl-v1.0-sw-dev.tsv"), upload("qrels.miracl-v1.0-yo-dev.tsv")],
        "note": "first judgments"})
    assert response.status_code == 302 and response.url == reverse("competitions:manage", args=["cup"])
    release = QrelsRelease.objects.get(phase__slug="test-b", phase__competition=personas.competition)
    shown = organizer_client.get(response.url).content.decode()
    assert all(f"SHA-256 {f.sha256}" in shown for f in release.files.all())
    assert (release.number, release.note, release.created_by) == (1, "first judgments", personas.organizer)
    assert sorted(release.files.values_list("subset__code", "original_name")) == [
        ("sw", "qrels.miracl-v1.0-sw-dev.tsv"), ("yo", "qrels.miracl-v1.0-yo-dev.tsv")]
    event = AuditEvent.objects.get(action=AuditEvent.Action.QRELS_UPLOADED)
    assert event.actor == personas.organizer and event.details["release"] == 1


def test_it_uses_the_chosen_subset_for_a_single_file_without_one_in_its_name(personas, organizer_client):
    response = organizer_client.post(qrels_url(personas), {
        "files": [upload("judgments.tsv", (DATA / "qrels.miracl-v1.0-te-dev.tsv").read_bytes())], "subset": "te"})
    assert response.status_code == 302
    assert QrelsRelease.objects.get().files.get().subset.code == "te"


def test_it_rescores_the_phase_with_a_new_version(personas, organizer_client, django_capture_on_commit_callbacks):
    phase = personas.competition.phases.get(slug="test-b")
    make_qrels_release(phase, {"sw": {"1": {"d1": 1}}})
    scored = Submission.objects.create(phase=phase, team=personas.team_a, number=1, method_name="bm25",
                                       status=Submission.Status.SCORED)
    with django_capture_on_commit_callbacks(execute=True):
        response = organizer_client.post(qrels_url(personas), {"files": [upload("qrels.miracl-v1.0-sw-dev.tsv")]})
    assert response.status_code == 302
    assert phase.qrels_releases.order_by("-number").first().number == 2
    scored.refresh_from_db()
    assert scored.status == Submission.Status.QUEUED
    assert AuditEvent.objects.filter(action=AuditEvent.Action.RESCORED, actor=personas.organizer).exists()


def test_it_shows_every_bad_line_with_file_and_line_and_stores_nothing(personas, organizer_client):
    bad = b"1\tQ0\td1\t1\n2\tQ0\td2\n3 Q0 d3 high\n"
    response = organizer_client.post(qrels_url(personas), {
        "files": [upload("qrels.miracl-v1.0-sw-dev.tsv"), upload("qrels.broken-te.tsv", bad)]})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was changed" in page and "invalid-qrels" in page
    problems = response.context["refusal"]["problems"]
    assert {(p["file"], p["line"]) for p in problems} == {("qrels.broken-te.tsv", 2), ("qrels.broken-te.tsv", 3)}
    assert all(p["message"] and p["code"] for p in problems)
    assert not QrelsRelease.objects.exists()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.QRELS_UPLOADED).exists()


def test_it_refuses_files_whose_names_say_no_subset_or_the_same_one(personas, organizer_client):
    response = organizer_client.post(qrels_url(personas), {
        "files": [upload("qrels.miracl-v1.0-sw-dev.tsv"), upload("judgments.tsv", b"1\tQ0\td1\t1\n"),
                  upload("qrels.other-sw.tsv", b"1\tQ0\td1\t1\n")]})
    assert response.status_code == 400
    codes = {e.code for e in response.context["form"].errors.as_data()["files"]}
    assert codes == {"no_subset_in_name", "duplicate_subset"}
    assert "judgments.tsv" in response.content.decode()
    assert not QrelsRelease.objects.exists()


def test_it_says_when_identical_files_make_no_new_version(personas, organizer_client):
    files = lambda: {"files": [upload("qrels.miracl-v1.0-sw-dev.tsv")]}  # noqa: E731
    organizer_client.post(qrels_url(personas), files())
    response = organizer_client.post(qrels_url(personas), files(), follow=True)
    assert "Nothing new: the files are those of qrels v1" in response.content.decode()
    assert QrelsRelease.objects.count() == 1


def test_it_imports_topics_for_several_subsets(personas, organizer_client):
    response = organizer_client.post(topics_url(personas), {
        "files": [upload("topics.miracl-v1.0-sw-dev.tsv"), upload("topics.miracl-v1.0-te-dev.tsv")]}, follow=True)
    assert response.status_code == 200
    stored = {t.subset.code: t for t in TopicSet.objects.select_related("subset")}
    assert set(stored) == {"sw", "te"}
    sw_lines = (DATA / "topics.miracl-v1.0-sw-dev.tsv").read_text().splitlines()
    assert stored["sw"].query_count == len(sw_lines)
    page = response.content.decode()
    assert f"sw: {len(sw_lines)} queries, SHA-256 {stored['sw'].sha256}" in page  # the whole hash, once stored
    assert len(stored["sw"].sha256) == 64 and stored["sw"].sha256 in page
    assert AuditEvent.objects.filter(action=AuditEvent.Action.TOPICS_UPLOADED, actor=personas.organizer).count() == 2


def test_it_stores_no_topics_when_one_file_is_bad(personas, organizer_client):
    response = organizer_client.post(topics_url(personas), {
        "files": [upload("topics.miracl-v1.0-sw-dev.tsv"), upload("topics.x-te.tsv", b"1\tfine\nno tab here\n")]})
    assert response.status_code == 400
    assert [(p["file"], p["line"]) for p in response.context["refusal"]["problems"]] == [("topics.x-te.tsv", 2)]
    assert not TopicSet.objects.exists()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.TOPICS_UPLOADED).exists()


def test_it_refuses_a_subset_of_another_competition(personas, organizer_client):
    response = organizer_client.post(topics_url(personas), {"files": [upload("topics.miracl-v1.0-de-dev.tsv")]})
    assert response.status_code == 400
    assert response.context["form"].errors.as_data()["files"][0].code == "no_subset_in_name"
    assert not TopicSet.objects.exists()


def test_it_accepts_gzipped_files_and_keeps_their_published_names(personas, organizer_client):
    import gzip
    import hashlib

    content = gzip.compress((DATA / "qrels.miracl-v1.0-te-dev.tsv").read_bytes())
    response = organizer_client.post(qrels_url(personas), {"files": [upload("qrels.miracl-v1.0-te-dev.tsv.gz", content)]})
    assert response.status_code == 302
    stored = QrelsRelease.objects.get().files.get()
    assert (stored.subset.code, stored.original_name) == ("te", "qrels.miracl-v1.0-te-dev.tsv.gz")
    assert stored.sha256 == hashlib.sha256(content).hexdigest() and stored.judged_queries > 0


def test_it_carries_unchanged_subsets_into_the_new_version(personas, organizer_client):
    phase = personas.competition.phases.get(slug="test-b")
    first = make_qrels_release(phase, {"sw": {"1": {"d1": 1}}, "te": {"1": {"d2": 1}}})
    organizer_client.post(qrels_url(personas), {"files": [upload("qrels.miracl-v1.0-te-dev.tsv")], "note": "te fixed"})
    second = phase.qrels_releases.get(number=2)
    assert second.files.get(subset__code="sw").sha256 == first.files.get(subset__code="sw").sha256
    assert second.files.get(subset__code="te").sha256 != first.files.get(subset__code="te").sha256
    page = organizer_client.get(reverse("competitions:manage", args=["cup"])).content.decode()
    assert "qrels v2" in page and "te fixed" in page


def test_it_takes_each_topic_variant_by_file_name_or_the_choice(personas, organizer_client):
    from tests.factories import set_topic_variants

    set_topic_variants(personas.competition, {"en": "English queries", "native": "Native-language queries"})
    english = (DATA / "topics.miracl-v1.0-sw-dev.tsv").read_bytes()
    response = organizer_client.post(topics_url(personas), {
        "files": [upload("topics.x-sw.en.tsv", english), upload("topics.x-sw.native.tsv", english)]}, follow=True)
    assert response.status_code == 200 and "sw (native): 3 queries" in response.content.decode()
    organizer_client.post(topics_url(personas), {"files": [upload("queries-te.tsv", english)], "subset": "te",
                                                 "variant": "native"})
    stored = {(t.subset.code, t.variant) for t in TopicSet.objects.select_related("subset")}
    assert stored == {("sw", "en"), ("sw", "native"), ("te", "native")}
    page = organizer_client.get(reverse("competitions:manage", args=["cup"])).content.decode()
    assert page.count("native <code class=\"sha\"") == 2
    mismatch = organizer_client.post(topics_url(personas), {
        "files": [upload("topics.x-te.en.tsv", b"9\tanother query\n")]})
    assert mismatch.status_code == 400
    assert "topics.x-te.en.tsv and queries-te.tsv hold different query ids" in mismatch.content.decode()
