"""A baseline's run files on a phase whose judgments are hidden are the organizers' until
the judgments are public: organizers build baselines knowing them (the demo generates its
baselines from them), so a good baseline run would list the hidden relevant documents."""
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse

from cupboard.submissions.services import submission_create
from tests.personas import client_for

from .conftest import upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def baseline(world):
    return submission_create(phase=world.test_b, team=None, user=world.organizer, method_name="BM25",
                             files=[(upload("bm25.sw.txt", {"1": ["10#0"]}), None)], is_baseline=True)


def _download(user, submission):
    return client_for(user).get(reverse("submissions:download", args=[submission.pk, "sw"]))


def test_it_keeps_baseline_runs_of_a_phase_with_hidden_judgments_from_participants(world, baseline):
    assert _download(world.anonymous, baseline).status_code == 404
    assert _download(world.participant, baseline).status_code == 404
    page = client_for(world.anonymous).get(reverse("submissions:detail", args=[baseline.pk])).content.decode()
    assert "bm25.sw.txt" not in page
    assert _download(world.organizer, baseline).status_code == 200


def test_it_serves_them_once_the_judgments_are_public(world, baseline):
    with time_machine.travel(world.test_b.reveal_at + timedelta(minutes=1)):
        assert _download(world.anonymous, baseline).status_code == 200
