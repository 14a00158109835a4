"""My submissions: every submission of the viewer's team in one competition, all phases, with
the scores the Viewer allows (Test B before its reveal: only "valid and scored"), final
selection, and filters by phase and status."""
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse

from cupboard.competitions.models import Phase
from cupboard.submissions.models import Submission
from tests.module_rows import module_rows
from tests.personas import client_for
from tests.rules.world import build_world

pytestmark = pytest.mark.django_db

URL = reverse("submissions:mine", args=["cup"])


def _world():
    world = build_world()
    Phase.objects.filter(pk=world.test_b.pk).update(before_reveal=Phase.BeforeReveal.STATUS)
    Submission.objects.filter(pk=world.sub_a_test_b.pk).update(selected_for_final=True)
    return world


_worlds = module_rows({"world": _world})  # built once for the module (tests/module_rows.py)


@pytest.fixture
def world(_worlds, db):
    return _worlds.get("world", _world)


def _page(user, query: str = "") -> str:
    response = client_for(user).get(URL + query)
    assert response.status_code == 200
    return response.content.decode()


def _rows(html: str) -> list[str]:
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    return [row for row in body.split("<tr>")[1:]]


def test_it_lists_the_team_s_submissions_of_every_phase_with_what_the_viewer_may_see(world):
    html = _page(world.participant)

    dev_row, test_b_row = _rows(html)[1], _rows(html)[0]  # newest first
    assert "Development" in dev_row and "Avg 1.000" in dev_row and "Scored" in dev_row
    assert "Test B" in test_b_row and "valid and scored" in test_b_row and "Avg" not in test_b_row
    assert "selected" in test_b_row and "selected" not in dev_row
    assert "method 2.2" not in html  # team B's run
    assert world.sub_b_dev.get_absolute_url() not in html


def test_it_shows_test_b_scores_from_the_reveal_on(world):
    with time_machine.travel(world.test_b.reveal_at + timedelta(minutes=1), tick=False):
        test_b_row = _rows(_page(world.participant))[0]
    assert "valid and scored" not in test_b_row and "Avg " in test_b_row


def test_it_filters_by_phase_and_status(world):
    assert len(_rows(_page(world.participant, "?phase=dev"))) == 1
    assert "No submissions match these filters." in _page(world.participant, "?status=rejected")
    assert len(_rows(_page(world.participant, "?phase=test-b&status=scored"))) == 1


def test_another_team_sees_only_its_own_and_a_stranger_is_told_to_join_one(world):
    assert len(_rows(_page(world.outsider))) == 1 and "method 2.2" in _page(world.outsider)
    assert "You are not in a team of this competition" in _page(world.other_organizer)


def test_the_competition_page_links_to_it(world):
    response = client_for(world.participant).get(reverse("competitions:detail", args=["cup"]))
    assert f'href="{URL}"' in response.content.decode()
