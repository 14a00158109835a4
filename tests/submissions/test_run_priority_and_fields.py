"""Teams say at upload which topic fields a run used and its judging priority (issue 34,
Found 3 and 4), in the form, the API, the command line and the Python client; the run's page
shows both; a pool can be built per priority, each to its own depth."""
import io
import zipfile
from datetime import timedelta

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cupboard.judging.pools import pool_export_build, pool_export_create
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from cupboard.submissions.topic_fields import phase_topic_fields
from tests.factories import make_user
from tests.personas import client_for
from tests.submissions.test_campaign_example import a_run, campaign, judged, submitted  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def test_the_form_offers_the_topics_fields_and_the_page_shows_what_was_said(campaign):  # noqa: F811
    competition, rounds, team, user = campaign
    assert phase_topic_fields(rounds[1]) == ["query", "question", "narrative"]
    url = reverse("submissions:upload", args=[competition.slug, "round-1"])
    client = client_for(user)
    with time_machine.travel(rounds[1].opens_at + timedelta(days=1)):
        page = client.get(url).content.decode()
        for name in ("query", "question", "narrative"):
            assert f'name="topic_fields" value="{name}"' in page
        answer = client.post(url, {"method_name": "qq", "judging_priority": "1", "topic_fields": ["query", "question"],
                                   "files": SimpleUploadedFile("qq.txt", a_run(["1"], seed=3, earlier_rounds=()).encode())})
        assert answer.status_code == 302, answer.content.decode()[-3000:]
        submission = Submission.objects.get(team=team)
        assert (submission.judging_priority, submission.topic_fields) == (1, ["query", "question"])
        page = client.get(submission.get_absolute_url()).content.decode()
    assert '<dd id="topic-fields">query, question</dd>' in page and '<dd id="judging-priority">1</dd>' in page


def test_a_field_the_topics_do_not_have_or_a_bad_priority_is_refused(campaign):  # noqa: F811
    competition, rounds, team, user = campaign
    with time_machine.travel(rounds[1].opens_at + timedelta(days=1)):
        with pytest.raises(SubmissionRefused, match="title is not one of this phase's topics: they have query, "
                                                    "question, narrative") as refused:
            submission_create(phase=rounds[1], team=team, user=user, method_name="t", topic_fields=["title"],
                              files=[(SimpleUploadedFile("t.txt", a_run(["1"], 1, ()).encode()), None)])
        assert refused.value.code == "unknown-topic-field"
        with pytest.raises(SubmissionRefused, match="1 \\(judge first\\) to 9, not 12"):
            submission_create(phase=rounds[1], team=team, user=user, method_name="t", judging_priority=12,
                              files=[(SimpleUploadedFile("t.txt", a_run(["1"], 1, ()).encode()), None)])
    assert not Submission.objects.exists()


def test_the_command_line_and_the_client_say_them(relayed, tmp_path):
    """Through the real API view (the client's body posted by Django's test client)."""
    from evaluator.cli import main
    from evaluator.client import cupboard as client_module

    from .conftest import good_sw, run_bytes

    world = relayed
    run = tmp_path / "run.sw.txt"
    run.write_bytes(run_bytes(good_sw()))
    assert main(["submit", "--server", "http://cup.invalid", "--competition", world.competition.slug, "--phase", "dev",
                 "--method", "BM25", "--run", str(run), "--token", "t", "--priority", "2", "--topic-fields", "query"]) == 0
    first = Submission.objects.get()
    assert (first.judging_priority, first.topic_fields) == (2, ["query"])  # TSV topics: one field, query
    run.write_bytes(run_bytes({**good_sw(), "1": ["12#0"]}))
    client_module.Cupboard("http://cup.invalid", "t").upload(world.competition.slug, "dev", [str(run)],
                                                             method_name="dense", judging_priority=1)
    second = Submission.objects.exclude(pk=first.pk).get()
    assert (second.judging_priority, second.topic_fields) == (1, [])


def _tops(text: str, k: int, removed: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Each query's top k documents of a run in rank order, without the `removed` ones."""
    kept: dict[str, list[str]] = {}
    for line in text.splitlines():
        qid, _, docid, _, _, _ = line.split()
        if docid not in removed.get(qid, ()):
            kept.setdefault(qid, []).append(docid)
    return {(qid, docid) for qid, docs in kept.items() for docid in docs[:k]}


def test_a_pool_by_priority_takes_each_priority_to_its_depth(campaign):  # noqa: F811
    competition, rounds, team, user = campaign
    texts = {priority: a_run(["1", "2", "4"], seed=20 + (priority or 0), earlier_rounds=(1,)) for priority in (1, 2, None)}
    runs = {}
    for priority, text in texts.items():
        with time_machine.travel(rounds[2].opens_at + timedelta(days=1)):
            runs[priority] = submission_create(phase=rounds[2], team=team, user=user, method_name=f"p{priority}",
                                               judging_priority=priority,
                                               files=[(SimpleUploadedFile("r.txt", text.encode()), None)])
        assert submission_score(submission_id=runs[priority].pk) == "scored"
    export = pool_export_create(phase=rounds[2], actor=None, depth=5, selection="priority",
                                priority_depths={1: 8, 2: 3}, with_baselines=False)
    assert export.submission_ids == [runs[1].pk, runs[2].pk]  # the run given no priority is left out
    assert export.depths == {str(runs[1].pk): 8, str(runs[2].pk): 3} and export.depth == 8
    assert pool_export_build(export_id=export.pk) == "done"
    export.refresh_from_db()
    with export.file.open("rb") as stored, zipfile.ZipFile(io.BytesIO(stored.read())) as archive:
        pooled = {(row[0], row[2]) for name in archive.namelist()
                  for row in (line.split("\t") for line in archive.read(name).decode().splitlines()[1:])}
    first, second = judged(1), judged(2)  # round 2 removes round 1's; the pool skips what round 2 holds
    expected = {(q, d) for q, d in _tops(texts[1], 8, first) | _tops(texts[2], 3, first) if d not in second.get(q, ())}
    assert pooled == expected and pooled
    organizer = make_user()
    competition.organizers.add(organizer)
    page = client_for(organizer).get(reverse("judging:pool", args=[competition.slug, "round-2"])).content.decode()
    assert "by judging priority (priority 1 to depth 8, priority 2 to depth 3)" in page
