"""The API's yes/no fields (release_consent, is_baseline) through the real upload endpoint:
each spelling of yes and of no, and a refusal naming the field for anything else. Django's
BooleanField read "0", "no" and "off" as ticked."""
import pytest
from django.test import Client
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.submissions.models import Submission

from .conftest import good_sw, run_bytes, upload

pytestmark = pytest.mark.django_db

YES = ["1", "true", "on", "yes", "TRUE", " Yes ", "True"]  # "True": Python's str(True), as requests sends it
NO = ["0", "false", "off", "no", "", "FALSE", " No "]
NEITHER = ["maybe", "2", "-1", "ja", "y", "t", "truee"]


def _post(world, user, tag: str, **fields):
    client = Client(HTTP_AUTHORIZATION=f"Token {api_token_create(user=user)}")
    data = {"method_name": "BM25", "files": [upload("run.sw.txt", run_bytes(good_sw(), tag=tag))], **fields}
    return client.post(reverse("submissions:api_upload", args=[world.competition.slug, "dev"]), data)


@pytest.mark.parametrize(("said", "consent"), [*((s, True) for s in YES), *((s, False) for s in NO)])
def test_release_consent_reads_each_spelling(world, said, consent):
    response = _post(world, world.participant, "a", release_consent=said)
    assert response.status_code == 201, response.json()
    assert Submission.objects.get(pk=response.json()["id"]).release_consent is consent


def test_release_consent_left_out_is_no(world):
    response = _post(world, world.participant, "none")
    assert Submission.objects.get(pk=response.json()["id"]).release_consent is False


@pytest.mark.parametrize("said", YES)
def test_is_baseline_yes_makes_an_organizer_s_baseline(world, said):
    response = _post(world, world.organizer, "a", is_baseline=said)
    assert response.status_code == 201, response.json()
    submission = Submission.objects.get(pk=response.json()["id"])
    assert submission.is_baseline is True and submission.team is None


@pytest.mark.parametrize("said", NO)
def test_is_baseline_no_makes_a_team_s_run(world, said):
    response = _post(world, world.participant, "a", is_baseline=said)
    assert response.status_code == 201, response.json()
    submission = Submission.objects.get(pk=response.json()["id"])
    assert submission.is_baseline is False and submission.team == world.team_a


@pytest.mark.parametrize("field", ["release_consent", "is_baseline"])
@pytest.mark.parametrize("said", NEITHER)
def test_anything_else_is_refused_naming_the_field(world, field, said):
    response = _post(world, world.organizer if field == "is_baseline" else world.participant, "x", **{field: said})
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [(e["code"], e["file"], e["line"]) for e in errors] == [("bad_boolean", None, None)]
    assert errors[0]["message"] == f"{field}: say true or false (1/0, yes/no, on/off), not {said!r}"
    assert not Submission.objects.exists()
