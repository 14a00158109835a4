"""Uploading a system: through the form and the API, its image kept with its SHA-256 and an
execution queued; refused (nothing stored) for what is no image, too large, another kind of
phase, a closed window, a stranger, a second system while the first still waits."""
from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.test import override_settings
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.submissions.errors import SubmissionRefused
from cupboard.systems.models import Execution, System
from cupboard.systems.services import system_determinism_check, system_rerun, system_upload
from tests.personas import client_for
from tests.systems.conftest import image_tar, image_upload

pytestmark = pytest.mark.django_db


def test_the_form_keeps_the_image_and_queues_its_execution(blind):
    client = client_for(blind.participant)
    url = reverse("systems:upload", args=[blind.competition.slug, "dev"])
    assert client.get(url).status_code == 200
    answer = client.post(url, {"image": image_upload(), "method_name": "BM25 in a box"})
    system = System.objects.get()
    assert answer.status_code == 302 and answer.url == system.get_absolute_url()
    assert system.sha256 == hashlib.sha256(image_tar()).hexdigest() and system.team == blind.team_a
    with system.image.open("rb") as stored:
        assert stored.read() == image_tar()
    execution = system.executions.get()
    assert execution.status == Execution.Status.QUEUED and execution.reason == Execution.Reason.UPLOAD
    page = client.get(system.get_absolute_url()).content.decode()
    assert system.sha256 in page and "queued" in page
    assert client_for(blind.outsider).get(system.get_absolute_url()).status_code == 404
    assert client_for(blind.teammate).get(reverse("systems:status", args=[system.pk])).json()["executions"][0][
        "status"] == "queued"


def test_the_api_takes_an_image_with_a_token(blind):
    token = api_token_create(user=blind.participant)
    url = reverse("systems:api_upload", args=[blind.competition.slug, "dev"])
    answer = client_for(None).post(url, {"image": image_upload(), "method_name": "BM25"},
                                   HTTP_AUTHORIZATION=f"Token {token}")
    assert answer.status_code == 201 and answer.json()["sha256"] == hashlib.sha256(image_tar()).hexdigest()
    again = client_for(None).post(url, {"image": image_upload(), "method_name": "BM25"},
                                  HTTP_AUTHORIZATION=f"Token {token}")
    assert again.status_code == 400 and again.json()["errors"][0]["code"] == "system_pending"


@pytest.mark.parametrize(("content", "code"), [(b"not a tar at all", "not_an_image"),
                                               (image_tar(manifest=False), "not_an_image")])
def test_what_is_no_image_is_refused(blind, content, code):
    with pytest.raises(SubmissionRefused) as refused:
        system_upload(phase=blind.dev, team=blind.team_a, user=blind.participant, method_name="x",
                      image=image_upload(content))
    assert refused.value.code == code and "image.tar" in refused.value.message
    assert not System.objects.exists()


def test_a_refused_form_says_nothing_was_stored_as_the_run_form_does(blind):
    """Both upload forms show the team's quota and a refusal from one include, so they cannot drift apart."""
    client = client_for(blind.participant)
    url = reverse("systems:upload", args=[blind.competition.slug, "dev"])
    answer = client.post(url, {"image": image_upload(b"not a tar at all"), "method_name": "x"})
    page = answer.content.decode()
    assert answer.status_code == 400 and not System.objects.exists()
    assert 'id="errors"' in page and "Nothing was stored" in page and "image.tar: not a tar file" in page
    assert 'id="quota"' in page and blind.team_a.name in page and "One include" not in page  # its comment unshown
    runs = client.get(reverse("submissions:upload", args=[blind.competition.slug, "test-b"]))
    for shown in (answer, runs):
        assert "submissions/_upload_head.html" in [t.name for t in shown.templates]


@override_settings(CUPBOARD_SYSTEM_IMAGE_MAX_BYTES=1000)
def test_an_image_over_the_limit_is_refused(blind):
    with pytest.raises(SubmissionRefused) as refused:
        system_upload(phase=blind.dev, team=blind.team_a, user=blind.participant, method_name="x",
                      image=image_upload())
    assert refused.value.code == "too_large" and not System.objects.exists()


def test_only_a_systems_phase_its_window_and_its_teams(blind, time_machine):
    test_b = blind.competition.phases.get(slug="test-b")
    cases = [(dict(phase=test_b, team=blind.team_a, user=blind.participant), "not_systems_phase"),
             (dict(phase=blind.dev, team=blind.team_b, user=blind.participant), "not_member"),
             (dict(phase=blind.dev, team=None, user=blind.participant, as_organizers=True), "not_organizer")]
    for arguments, code in cases:
        with pytest.raises(SubmissionRefused) as refused:
            system_upload(method_name="x", image=image_upload(), **arguments)
        assert refused.value.code == code
    time_machine.move_to(blind.dev.closes_at + timedelta(seconds=1), tick=False)
    with pytest.raises(SubmissionRefused) as refused:
        system_upload(phase=blind.dev, team=blind.team_a, user=blind.participant, method_name="x",
                      image=image_upload())
    assert refused.value.code == "phase_closed" and not System.objects.exists()


def test_organizers_run_it_again_and_check_determinism(blind):
    system = system_upload(phase=blind.dev, team=blind.team_a, user=blind.participant, method_name="x",
                           image=image_upload())
    with pytest.raises(SubmissionRefused):
        system_rerun(system=system, actor=blind.participant)
    client = client_for(blind.organizer)
    assert client.post(reverse("systems:rerun", args=[system.pk])).status_code == 302
    assert client.post(reverse("systems:determinism", args=[system.pk])).status_code == 302
    reasons = sorted(system.executions.values_list("reason", flat=True))
    assert reasons == ["determinism", "determinism", "rerun", "upload"]
    second = system.executions.get(compared_with__isnull=False)
    assert second.compared_with.reason == "determinism"
    assert client_for(blind.participant).post(reverse("systems:rerun", args=[system.pk])).status_code == 403
    first, other = system_determinism_check(system=system, actor=blind.organizer)
    assert other.compared_with == first
    image = client.get(reverse("systems:image", args=[system.pk]))
    assert image.status_code == 200 and b"".join(image.streaming_content) == image_tar()
    assert client_for(blind.participant).get(reverse("systems:image", args=[system.pk])).status_code == 403
