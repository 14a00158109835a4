"""The judging page: one passage at a time, labels posted in turn, back to change one, resumes
where the assessor stopped; its bytes never carry the run, team, rank or score of a passage."""
from __future__ import annotations

import re

import pytest
from django.urls import reverse

from cupboard.judging.models import JudgingItem
from tests.judging.test_assessment import ready
from tests.personas import client_for

pytestmark = pytest.mark.django_db


def test_an_assessor_judges_in_turn_goes_back_and_resumes(scene):
    judging_round, ann, bo = ready(scene, overlap=0)
    task = judging_round.assignments.get(assessor=ann)
    url = reverse("judging:judge", args=[scene.competition.slug, task.pk])
    client = client_for(ann)
    first = client.get(url)
    assert first.status_code == 200 and b'data-position="1"' in first.content
    # Arabic or Persian queries and passages take their own direction (issue 33, item 13).
    assert b'<article class="passage" lang="sw">' in first.content and b'<p dir="auto">The text of passage' in first.content
    assert b'<bdi lang="sw" dir="auto">' in first.content
    shown = re.search(rb'name="shown" value="([^"]+)"', first.content).group(1).decode()
    answer = client.post(url, {"position": "1", "label": "1", "shown": shown})
    assert answer.status_code == 302 and answer.url.endswith("?at=2")
    client.post(url, {"position": "2", "label": "0", "shown": shown})
    # Back to the first (the undo), a changed mind, and on to the first passage not judged yet.
    back = client.get(url + "?at=1")
    assert b"you labelled it 1" in back.content
    assert client.post(url, {"position": "1", "label": "0"}).url.endswith("?at=3")
    labels = list(task.items.order_by("position").values_list("label", flat=True))
    assert labels[:2] == [0, 0] and set(labels[2:]) == {None}
    assert task.items.get(position=2).seconds is not None and task.items.get(position=1).seconds is None  # unsigned: not timed
    # A new visit resumes at the first passage not judged yet.
    assert b'data-position="3"' in client_for(ann).get(url).content
    assert client.post(url, {"position": "3", "label": "7"}).status_code == 400
    # Another assessor's task is not found; the tasks page lists one's own.
    assert client_for(bo).get(url).status_code == 404
    assert client_for(scene.participant).get(url).status_code == 403
    tasks = client.get(reverse("judging:tasks", args=[scene.competition.slug]))
    assert b"2 / " in tasks.content and b"Resume" in tasks.content


def test_the_page_never_says_which_run_or_team_retrieved_a_passage(scene):
    judging_round, ann, bo = ready(scene, overlap=100)
    client = client_for(ann)
    task = judging_round.assignments.get(assessor=ann)
    url = reverse("judging:judge", args=[scene.competition.slug, task.pk])
    pages = [client.get(url + f"?at={item.position}").content for item in task.items.all()]
    pages.append(client.get(reverse("judging:tasks", args=[scene.competition.slug])).content)
    assert all(b"The text of passage" in page for page in pages[:-1]) and len(pages) == 7
    words = [b"Team A", b"Team B", b"method A", b"method B", b"method base", b"baseline", b"rank", b"ranked",
             b"score", b"scores", b"run", b"runs", b"team", b"submission"]
    for page in pages:
        for word in words:
            assert not re.search(rb"\b" + word + rb"\b", page, re.IGNORECASE), word
        for submission in (scene.sub_a, scene.sub_b, scene.baseline):
            assert f"/submissions/{submission.pk}/".encode() not in page
    assert JudgingItem.objects.filter(assignment__round=judging_round).count() == 12


@pytest.mark.parametrize("position", ["1e3", "²", "9" * 5_000, "-1", " 1", ""])
def test_a_position_that_is_no_number_is_not_found(scene, position):
    """`position=1e3` in a judging POST, `?at=²` or a 5,000-digit one were a 500."""
    judging_round, ann, _ = ready(scene, overlap=0)
    task = judging_round.assignments.get(assessor=ann)
    url = reverse("judging:judge", args=[scene.competition.slug, task.pk])
    client = client_for(ann)
    assert client.post(url, {"position": position, "label": "1"}).status_code == 404
    if position:
        assert client.get(url, {"at": position}).status_code == 404
    assert not task.items.filter(label__isnull=False).exists()
