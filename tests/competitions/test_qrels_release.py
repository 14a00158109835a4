"""Releasing qrels versions: validated first, hashed, carried forward, audited, re-scoring."""
import hashlib
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.competitions import services
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import QrelsFile, QrelsRelease
from cupboard.competitions.services import qrels_release_create
from tests.factories import stored_private_files
from tests.personas import personas  # noqa: F401

DATA = Path(__file__).resolve().parents[1] / "data" / "competitions" / "miracl-v1.0-dev"
SW = DATA / "qrels.miracl-v1.0-sw-dev.tsv"
TE = DATA / "qrels.miracl-v1.0-te-dev.tsv"


@pytest.fixture
def phase(personas):
    return personas.competition.phases.get(slug="test-b")


def test_it_stores_each_file_with_its_sha256(phase, personas):
    release = qrels_release_create(phase=phase, files={"sw": SW, "te": TE}, actor=personas.organizer,
                                   names={"sw": SW.name, "te": TE.name})
    assert release.number == 1
    sw = release.files.get(subset__code="sw")
    assert sw.sha256 == hashlib.sha256(SW.read_bytes()).hexdigest()
    assert sw.file.read() == SW.read_bytes()
    assert (sw.original_name, sw.judged_queries, sw.judgments) == (SW.name, 3, 32)
    event = AuditEvent.objects.get(action=AuditEvent.Action.QRELS_UPLOADED)
    assert not event.is_public and event.actor == personas.organizer
    assert event.details["files"]["sw"] == sw.sha256


def test_it_carries_unchanged_subsets_forward(phase, personas):
    first = qrels_release_create(phase=phase, files={"sw": SW, "te": TE}, actor=personas.organizer)
    second = qrels_release_create(phase=phase, files={"te": b"1\tQ0\td9\t1\n"}, actor=personas.organizer,
                                  note="fixed te")
    assert second.number == 2
    old_sw, new_sw = first.files.get(subset__code="sw"), second.files.get(subset__code="sw")
    assert (new_sw.sha256, new_sw.file.name) == (old_sw.sha256, old_sw.file.name)
    assert second.files.get(subset__code="te").judgments == 1
    assert first.files.get(subset__code="te").judgments == 3  # an old version stays as it was


def test_it_does_not_make_a_version_of_identical_files(phase, personas):
    first = qrels_release_create(phase=phase, files={"sw": SW}, actor=personas.organizer)
    assert qrels_release_create(phase=phase, files={"sw": SW}, actor=personas.organizer) == first
    assert phase.qrels_releases.count() == 1


def test_a_failure_after_the_files_are_stored_leaves_neither_rows_nor_files(phase, personas, monkeypatch):
    first = qrels_release_create(phase=phase, files={"sw": SW}, actor=personas.organizer,
                                 names={"sw": "qrels.carried-forward.sw.tsv"})

    def broken(**_):  # the last step inside the transaction, after the new te file was written
        raise RuntimeError("publishing failed")
    monkeypatch.setattr(services, "competition_publish_due", broken)
    with pytest.raises(RuntimeError):
        qrels_release_create(phase=phase, files={"te": TE}, actor=personas.organizer,
                             names={"te": "qrels.rolled-back-qrels.te.tsv"})
    assert list(phase.qrels_releases.all()) == [first]
    assert stored_private_files("rolled-back-qrels") == []
    assert len(stored_private_files("carried-forward")) == 1  # the file the old release names stays
    assert first.files.get(subset__code="sw").file.read() == SW.read_bytes()


def test_it_changes_nothing_when_one_file_is_bad(phase, personas):
    bad = b"1\tQ0\td1\t1\n2\tQ0\td2\n3 Q0 d3 high\n"
    with pytest.raises(CompetitionError) as caught:
        qrels_release_create(phase=phase, files={"sw": SW, "te": bad}, actor=personas.organizer,
                             names={"te": "qrels.te.tsv"})
    assert caught.value.code == "invalid-qrels"
    assert any("qrels.te.tsv:2" in str(p) for p in caught.value.problems)
    assert any("qrels.te.tsv:3" in str(p) for p in caught.value.problems)
    assert not QrelsRelease.objects.exists() and not QrelsFile.objects.exists()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.QRELS_UPLOADED).exists()


def test_it_refuses_a_subset_of_another_competition(phase, personas):
    with pytest.raises(CompetitionError) as caught:
        qrels_release_create(phase=phase, files={"de": SW}, actor=personas.organizer)
    assert caught.value.code == "unknown-subset"


def test_it_commits_hidden_qrels_publicly_without_naming_surprise_subsets(phase, personas):
    qrels_release_create(phase=phase, files={"sw": SW, "yo": DATA / "qrels.miracl-v1.0-yo-dev.tsv"},
                         actor=personas.organizer)
    event = AuditEvent.objects.get(action=AuditEvent.Action.QRELS_COMMITTED)
    assert event.is_public
    assert [f["subset"] for f in event.details["files"]] == ["sw", None]
    assert "yo" not in event.summary


def test_it_rescores_a_phase_with_scored_submissions(phase, personas, django_capture_on_commit_callbacks):
    from cupboard.submissions.models import Submission

    submission = Submission.objects.create(phase=phase, team=personas.team_a, number=1, method_name="bm25",
                                           status=Submission.Status.SCORED)
    with django_capture_on_commit_callbacks(execute=True):
        qrels_release_create(phase=phase, files={"sw": SW}, actor=personas.organizer)
    submission.refresh_from_db()
    assert submission.status != Submission.Status.SCORED
    assert AuditEvent.objects.filter(action=AuditEvent.Action.RESCORED).exists()


def test_the_first_judgments_start_the_scoring_of_submissions_waiting_for_them(phase, personas, monkeypatch,
                                                                                django_capture_on_commit_callbacks):
    from cupboard.submissions import services as submission_services
    from cupboard.submissions.models import Submission

    long_ago = timezone.now() - timedelta(hours=1)
    waiting = Submission.objects.create(phase=phase, team=personas.team_a, number=1, method_name="bm25",
                                        status=Submission.Status.QUEUED, queued_at=long_ago,
                                        status_reason="Waiting for judgments.")
    sent = []
    monkeypatch.setattr(submission_services, "submission_enqueue", lambda submission_ids: sent.extend(submission_ids))
    with django_capture_on_commit_callbacks(execute=True):
        qrels_release_create(phase=phase, files={"sw": SW}, actor=personas.organizer)
    waiting.refresh_from_db()
    assert sent == [waiting.pk]  # a scoring message now, not at the next stale sweep
    assert waiting.status == Submission.Status.QUEUED and waiting.queued_at > long_ago
    assert AuditEvent.objects.get(action=AuditEvent.Action.RESCORED).details["nudged"] == 1
