"""A systems phase's topics reach no team: not its topics URLs, the topics zip, the sample
submission, the API's definition, How to submit, nor a run upload; its organizers still get them."""
from __future__ import annotations

import pytest
from django.urls import reverse

from cupboard.competitions.viewer import Viewer
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.services import submission_create
from tests.personas import client_for
from tests.submissions.conftest import good_sw, upload
from tests.systems.conftest import QUERY_MARKER

pytestmark = pytest.mark.django_db

TEAM_SIDE = ("participant", "teammate", "outsider", "other_organizer", "anonymous")


def _urls(cast) -> list[str]:
    slug, phase = cast.competition.slug, cast.dev.slug
    return [reverse("competitions:topics", args=[slug, phase, "sw"]),
            reverse("competitions:topics_variant", args=[slug, phase, "sw", "default"]),
            reverse("competitions:topics_archive", args=[slug, phase]),
            reverse("competitions:sample_submission", args=[slug, phase])]


def test_no_team_url_serves_the_topics_of_a_systems_phase(blind):
    for persona in TEAM_SIDE:
        client = client_for(getattr(blind, persona))
        for url in _urls(blind):
            assert client.get(url).status_code == 404, (persona, url)
        for url in (reverse("competitions:detail", args=[blind.competition.slug]),
                    reverse("competitions:how_to_submit", args=[blind.competition.slug])):
            body = client.get(url).content.decode()
            assert QUERY_MARKER not in body and "topics.cup-sw-dev.tsv" not in body, (persona, url)


def test_how_to_submit_leads_a_team_to_the_system_form(blind):
    body = client_for(blind.participant).get(reverse("competitions:how_to_submit", args=[blind.competition.slug]))
    text = body.content.decode()
    assert "A blind phase" in text and reverse("systems:upload", args=[blind.competition.slug, "dev"]) in text


def test_its_organizers_still_download_them(blind):
    client = client_for(blind.organizer)
    answer = client.get(_urls(blind)[0])
    assert answer.status_code == 200 and QUERY_MARKER in b"".join(answer.streaming_content).decode()
    assert client.get(_urls(blind)[2]).status_code == 200


def test_the_api_definition_lists_no_topics_file(blind):
    from cupboard.accounts.services import api_token_create

    token = api_token_create(user=blind.participant)
    answer = client_for(None).get(reverse("submissions:api_definition", args=[blind.competition.slug, blind.dev.slug]),
                                  HTTP_AUTHORIZATION=f"Token {token}").json()
    assert answer["topics"] == [] and {s["code"] for s in answer["subsets"]} >= {"sw", "te"}


def test_the_viewer_rule(blind):
    assert not Viewer(blind.participant, blind.competition).sees_topics(blind.dev)
    assert Viewer(blind.organizer, blind.competition).sees_topics(blind.dev)


def test_a_team_cannot_upload_runs_to_it(blind):
    with pytest.raises(SubmissionRefused) as refused:
        submission_create(phase=blind.dev, team=blind.team_a, user=blind.participant, method_name="by hand",
                          files=[(upload("run.sw.txt", good_sw()), None)])
    assert refused.value.code == "systems_phase" and "system" in refused.value.message
    page = client_for(blind.participant).get(reverse("submissions:upload", args=[blind.competition.slug, "dev"]))
    assert page.status_code == 302 and page.url == reverse("systems:upload", args=[blind.competition.slug, "dev"])
