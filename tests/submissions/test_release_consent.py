"""Consent to a run's release in the results archive: a box at upload (not released unless
ticked), changeable by the team's members on the run's page until the reveal, fixed after."""
from datetime import timedelta

import pytest
import time_machine

from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.models import Submission
from cupboard.submissions.services import submission_release_consent
from tests.personas import client_for

from .conftest import good_sw, run_bytes, upload

pytestmark = pytest.mark.django_db


def _upload(world, *, consent: bool | None, tag: str = "a") -> Submission:
    data = {"method_name": "dense", "files": [upload("run.sw.txt", run_bytes(good_sw(), tag=tag))]}
    if consent is not None:
        data["release_consent"] = "on" if consent else ""
    response = client_for(world.participant).post("/c/cup/test-b/upload/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return Submission.objects.filter(phase=world.test_b).latest("pk")


def test_a_run_is_not_released_unless_the_box_is_ticked(world):
    assert _upload(world, consent=None).release_consent is False
    page = client_for(world.participant).get("/c/cup/test-b/upload/").content.decode()
    assert "Release this run in the results archive" in page and 'name="release_consent"' in page
    ticked = _upload(world, consent=True, tag="b")
    assert ticked.release_consent is True


def test_members_change_it_until_the_reveal_then_it_is_fixed(world):
    submission = _upload(world, consent=False)
    page = client_for(world.teammate).get(f"/submissions/{submission.pk}/").content.decode()
    assert "Release it in the archive" in page and "not released" in page
    assert client_for(world.teammate).post(f"/submissions/{submission.pk}/release/", {"consent": "1"}).status_code == 302
    submission.refresh_from_db()
    assert submission.release_consent is True
    with pytest.raises(SubmissionRefused) as caught:
        submission_release_consent(submission=submission, user=world.outsider, consent=False)
    assert caught.value.code == "not_member"
    with time_machine.travel(world.test_b.reveal_at + timedelta(seconds=1)):
        with pytest.raises(SubmissionRefused) as caught:
            submission_release_consent(submission=submission, user=world.participant, consent=False)
        assert caught.value.code == "consent_fixed" and "can no longer change" in caught.value.message
        client = client_for(world.participant)
        response = client.post(f"/submissions/{submission.pk}/release/", {"consent": "0"}, follow=True)
        page = response.content.decode()
        assert "can no longer change" in page and "(fixed at the reveal)" in page
        assert "Do not release it" not in page
    submission.refresh_from_db()
    assert submission.release_consent is True


def test_only_a_clear_yes_gives_consent():
    """The browser's box reads as the API does (tests/submissions/test_api_booleans.py), and a
    form shown again after another field's error shows the box as it was read."""
    from cupboard.submissions.forms import UploadForm

    field = UploadForm().fields["release_consent"]
    for value, consent in [("on", True), ("1", True), ("true", True), ("Yes", True), ("0", False), ("no", False),
                           ("off", False), ("false", False), ("", False)]:
        assert field.clean(field.widget.value_from_datadict({"release_consent": value}, {}, "release_consent")) \
            is consent, value
    assert field.clean(field.widget.value_from_datadict({}, {}, "release_consent")) is False
    assert "checked" not in field.widget.render("release_consent", "0")
    assert "checked" in field.widget.render("release_consent", "on")
