"""A change to a running phase's topics (issue 32): previewed with the queries it adds, removes
and changes, refused while runs exist when the organizer says so (nothing changed), or
confirmed: a new topics version (the old file kept), audited, told to the teams, and the runs
scored again so the board is scored on the new topics."""
import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from cupboard.audit.models import AuditEvent
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import TopicSet, TopicsFile, TopicsVersion
from cupboard.competitions.topic_files import topics_import_files, topics_preview
from cupboard.competitions.topics_changes import REFUSE, RESCORE
from cupboard.leaderboards.models import LeaderboardRow
from cupboard.notifications.models import Notification
from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.personas import client_for

from .conftest import good_sw, upload

# Query 2's text changes, query 3 leaves, query 9 comes (not judged: it scores nothing yet).
NEW_SW = b"1\tquery 1\n2\ta better query 2\n9\tquery 9\n"
NDCG_ALL = (1 + 1 / 1.5849625007211563 + 0) / 3  # queries 1, 2, 3 (test_submission_score.py)
NDCG_NEW = (1 + 1 / 1.5849625007211563) / 2  # queries 1 and 2: 3 left the topics, 9 is unjudged


@pytest.fixture
def scored(world, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                                       files=[(upload("run.sw.txt", good_sw()), None)])
    with django_capture_on_commit_callbacks(execute=True):
        assert submission_score(submission_id=submission.pk) == "scored"
    return submission


def board_value(world) -> float:
    row = LeaderboardRow.objects.get(phase=world.dev, team=world.team_a)
    return row.values["sw"]["nDCG@10"]


def test_a_preview_names_the_queries_added_removed_and_changed_and_stores_nothing(world, scored):
    change = topics_preview(phase=world.dev, files={"sw": NEW_SW}, names={"sw": "topics.sw.v2.tsv"})
    (sw,) = change.files
    assert (sw.subset, sw.added, sw.removed, sw.changed, sw.kept) == ("sw", ["9"], ["3"], ["2"], 1)
    assert change.replaces and change.runs == 1 and change.version == 2
    assert sw.line() == "sw: 1 added (9); 1 removed (3); 1 changed (2); 1 unchanged"
    assert not TopicsVersion.objects.filter(phase=world.dev).exists()


def test_refused_while_runs_exist_it_changes_nothing(world, scored):
    before = TopicSet.objects.get(phase=world.dev, subset__code="sw")
    with pytest.raises(CompetitionError) as refused:
        topics_import_files(phase=world.dev, files={"sw": NEW_SW}, names={"sw": "topics.sw.v2.tsv"},
                            actor=world.organizer, when_runs=REFUSE)
    assert refused.value.code == "runs-exist"
    assert "1 run(s) of" in refused.value.message and "score them again" in refused.value.message
    assert [p["message"] for p in refused.value.problem_rows()] == [
        "sw: 1 added (9); 1 removed (3); 1 changed (2); 1 unchanged"]
    after = TopicSet.objects.get(phase=world.dev, subset__code="sw")
    assert (after.sha256, after.file.name, after.version) == (before.sha256, before.file.name, before.version)
    assert not TopicsVersion.objects.filter(phase=world.dev).exists()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.TOPICS_UPLOADED).exists()
    assert Submission.objects.get(pk=scored.pk).status == Submission.Status.SCORED
    assert board_value(world) == pytest.approx(NDCG_ALL)


def test_a_confirmed_change_is_versioned_audited_told_and_rescored(world, scored, django_capture_on_commit_callbacks):
    old = TopicSet.objects.get(phase=world.dev, subset__code="sw")
    old_name = old.file.name
    assert board_value(world) == pytest.approx(NDCG_ALL)
    with django_capture_on_commit_callbacks(execute=True):
        (stored,) = topics_import_files(phase=world.dev, files={"sw": NEW_SW}, names={"sw": "topics.sw.v2.tsv"},
                                        actor=world.organizer, when_runs=RESCORE)
    # Versioned: v2 holds the new file, the old file is still stored and readable.
    assert stored.version == 2 and stored.query_count == 3 and stored.file.name != old_name
    version = TopicsVersion.objects.get(phase=world.dev, number=2)
    assert version.rescored and version.created_by == world.organizer
    assert version.changes[0]["removed"] == ["3"] and version.changes[0]["added"] == ["9"]
    assert TopicsFile.objects.get(version=version).sha256 == stored.sha256
    assert old.file.storage.exists(old_name)
    # Audited (publicly: sw is a revealed subset), with what changed.
    event = AuditEvent.objects.get(action=AuditEvent.Action.TOPICS_UPLOADED)
    assert event.summary == ("Topics v2 of Development/sw: 3 queries (1 added (9); 1 removed (3); 1 changed (2); 1 unchanged); "
                             "1 run(s) to be scored again")
    assert event.is_public and event.actor == world.organizer
    # Told: every team member who wants change mails, once.
    told = Notification.objects.filter(event="topics", phase=world.dev)
    assert told.exists() and all("1 removed (3)" in n.text and n.key.endswith(":rescored") for n in told)
    # Re-scored: queued again, then scored on queries 1 and 2 only; the board follows.
    assert Submission.objects.get(pk=scored.pk).status == Submission.Status.QUEUED
    assert AuditEvent.objects.filter(action=AuditEvent.Action.RESCORED).exists()
    with django_capture_on_commit_callbacks(execute=True):
        assert submission_score(submission_id=scored.pk) == "scored"
    assert board_value(world) == pytest.approx(NDCG_NEW)


def test_the_same_file_again_is_no_new_version(world, scored, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        topics_import_files(phase=world.dev, files={"sw": NEW_SW}, names={"sw": "a.tsv"}, when_runs=RESCORE)
        topics_import_files(phase=world.dev, files={"sw": NEW_SW}, names={"sw": "a.tsv"})  # refuse: but nothing changes
    assert list(TopicsVersion.objects.filter(phase=world.dev).values_list("number", flat=True)) == [2]


def test_a_bad_file_names_file_and_line_and_changes_nothing(world, scored):
    with pytest.raises(CompetitionError) as refused:
        topics_import_files(phase=world.dev, files={"sw": b"1\tfine\nno tab here\n"}, names={"sw": "bad.tsv"},
                            when_runs=RESCORE)
    assert [(p["file"], p["line"]) for p in refused.value.problem_rows()] == [("bad.tsv", 2)]
    assert not TopicsVersion.objects.exists()


def test_the_organizer_page_previews_then_confirms_or_refuses(world, scored, django_capture_on_commit_callbacks):
    client = client_for(world.organizer)
    url = reverse("competitions:manage_topics", args=[world.competition.slug, "dev"])
    preview = client.post(url, {"files": [upload("topics.x-sw.tsv", NEW_SW)]})
    assert preview.status_code == 200 and preview.context["preview"]["runs"] == 1
    page = preview.content.decode()
    assert "Confirm the topics change" in page and "Removed: 3" in page and "Changed text: 2" in page
    assert "Added: 9" in page and 'value="rescore"' in page and 'value="refuse"' in page
    assert not TopicsVersion.objects.exists()  # shown, not stored
    token = preview.context["preview"]["token"]

    refused = client.post(url, {"confirm": "1", "token": token, "when_runs": "refuse"})
    assert refused.status_code == 400 and refused.context["refusal"]["code"] == "runs-exist"
    assert "Nothing was changed" in refused.content.decode()
    assert not TopicsVersion.objects.exists() and board_value(world) == pytest.approx(NDCG_ALL)

    with django_capture_on_commit_callbacks(execute=True):
        confirmed = client.post(url, {"confirm": "1", "token": token, "when_runs": "rescore"}, follow=True)
    assert "Topics of Development: sw: 3 queries, SHA-256" in confirmed.content.decode() and "(topics v2)" in confirmed.content.decode()
    assert Submission.objects.get(pk=scored.pk).status == Submission.Status.QUEUED
    again = client.post(url, {"confirm": "1", "token": token, "when_runs": "rescore"})
    assert again.status_code == 400 and again.context["refusal"]["code"] == "preview-expired"


def test_the_command_shows_the_change_refuses_by_default_and_rescores_when_told(world, scored, tmp_path,
                                                                                 django_capture_on_commit_callbacks):
    path = tmp_path / "topics.x-sw.tsv"
    path.write_bytes(NEW_SW)
    args = ["import_topics", "--competition", world.competition.slug, "--phase", "dev", str(path)]
    out = io.StringIO()
    call_command(*args, "--dry-run", stdout=out)
    assert "sw: 1 added (9); 1 removed (3); 1 changed (2); 1 unchanged" in out.getvalue()
    assert "1 run(s) were checked" in out.getvalue() and "dry run: nothing stored" in out.getvalue()
    with pytest.raises(CommandError, match="no topics were stored: 1 run"):
        call_command(*args, stdout=io.StringIO())
    assert not TopicsVersion.objects.exists()
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command(*args, "--when-runs", "rescore", stdout=out)
    assert "sw: 3 queries from topics.x-sw.tsv (topics v2)" in out.getvalue()
    assert Submission.objects.get(pk=scored.pk).status == Submission.Status.QUEUED


def test_a_download_names_its_version(world, scored, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        topics_import_files(phase=world.dev, files={"sw": NEW_SW}, names={"sw": "topics.x-sw.tsv"}, when_runs=RESCORE)
    response = client_for(world.participant).get(
        reverse("competitions:topics", args=[world.competition.slug, "dev", "sw"]))
    assert response["X-Topics-Version"] == "2"
    assert 'filename="topics.x-sw.v2.tsv"' in response["Content-Disposition"]
    page = client_for(world.participant).get(reverse("competitions:detail", args=[world.competition.slug]))
    assert "(3, topics v2)" in page.content.decode()


def test_the_teams_mail_says_what_changed_and_a_surprise_language_is_nobodys_news(world, scored,
                                                                                  django_capture_on_commit_callbacks):
    from django.utils import timezone

    from cupboard.notifications.mails import notification_render

    with django_capture_on_commit_callbacks(execute=True):
        topics_import_files(phase=world.dev, files={"sw": NEW_SW, "yo": b"1\tquery 1\n"},
                            names={"sw": "topics.x-sw.tsv", "yo": "topics.x-yo.tsv"}, when_runs=RESCORE)
    told = Notification.objects.filter(event="topics", phase=world.dev)
    assert told.exists() and not any("yo" in n.text for n in told)  # yo is revealed later: not named
    mail = notification_render(told.first(), now=timezone.now())
    assert mail.subject.endswith("Topics of Development changed: sw: 1 added (9); 1 removed (3); 1 changed (2); "
                                 "1 unchanged")
    assert "changed the topics of Development" in mail.body and "scored again" in mail.body


def test_every_change_is_listed_and_its_files_stay_downloadable_for_organizers(world, scored,
                                                                               django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        topics_import_files(phase=world.dev, files={"sw": NEW_SW}, names={"sw": "topics.x-sw.tsv"}, when_runs=RESCORE)
        topics_import_files(phase=world.dev, files={"sw": b"1\tquery 1\n"}, names={"sw": "topics.y-sw.tsv"},
                            when_runs=RESCORE)
    assert TopicSet.objects.get(phase=world.dev, subset__code="sw").version == 3
    organizer = client_for(world.organizer)
    page = organizer.get(reverse("competitions:manage_topics", args=[world.competition.slug, "dev"]))
    changes = [item["version"].number for item in page.context["changes"]]
    assert changes == [3, 2] and "sw: 2 removed (2, 9); 1 unchanged" in page.content.decode()  # newest first, with what it did
    old = reverse("competitions:manage_topics_file", args=[world.competition.slug, "dev", 2, "sw", "default"])
    response = organizer.get(old)
    assert b"".join(response.streaming_content) == NEW_SW and response["X-Topics-Change"] == "2"  # replaced, kept
    assert client_for(world.participant).get(old).status_code in (403, 404)
