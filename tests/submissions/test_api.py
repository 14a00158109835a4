"""The JSON API: token auth, upload with errors as data, repeats, status."""
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.submissions.models import Score, Submission
from cupboard.submissions.scoring import submission_score

from .conftest import good_sw, run_bytes, upload


@pytest.fixture
def api(world):
    token = api_token_create(user=world.participant)
    return Client(HTTP_AUTHORIZATION=f"Token {token}")


def url(world, phase="dev"):
    return reverse("submissions:api_upload", args=[world.competition.slug, phase])


def test_it_creates_a_submission_and_returns_it(world, api):
    response = api.post(url(world), {"method_name": "BM25", "files": [upload("run.sw.txt", good_sw())],
                                      "file_te": upload("whatever.txt", {"1": ["10#1"]})})
    assert response.status_code == 201
    data = response.json()
    assert data["status"] == "queued" and data["number"] == 1 and data["url"].endswith(f"/submissions/{data['id']}/")
    assert {f.subset.code for f in Submission.objects.get().run_files.all()} == {"sw", "te"}


def test_it_returns_the_existing_submission_for_a_repeat(world, api):
    first = api.post(url(world), {"method_name": "BM25", "files": [upload("run.sw.txt", good_sw())]})
    again = api.post(url(world), {"method_name": "BM25", "files": [upload("run.sw.txt", good_sw())]})
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["id"] == again.json()["id"] and Submission.objects.count() == 1


def test_it_returns_validation_errors_as_data(world, api):
    content = run_bytes({"1": ["10#0"]}) + b"1 Q0 bad-doc 2 1.0 t\n"
    response = api.post(url(world), {"method_name": "BM25", "files": [upload("run.sw.txt", content)]})
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors and errors[0]["file"] == "run.sw.txt" and errors[0]["line"] == 2
    assert set(errors[0]) == {"file", "line", "column", "code", "message"}


def test_it_returns_refusals_as_data(world, api):
    response = api.post(url(world), {"method_name": "BM25", "files": [upload("run.txt", good_sw())]})
    assert response.status_code == 400 and response.json()["errors"][0]["code"] == "subset_not_named"


def test_it_refuses_a_bad_token_without_csrf_trouble(world):
    response = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION="Token nope").post(url(world), {})
    assert response.status_code == 401 and response.json()["errors"][0]["code"] == "bad_token"


def test_it_stops_accepting_a_replaced_token(world):
    old = api_token_create(user=world.participant)
    api_token_create(user=world.participant)
    response = Client(HTTP_AUTHORIZATION=f"Token {old}").get(reverse("submissions:api_status", args=[1]))
    assert response.status_code == 401


def test_it_shows_status_only_to_those_who_may_see_it(world, api):
    created = api.post(url(world), {"method_name": "BM25", "files": [upload("run.sw.txt", good_sw())]}).json()
    submission_score(submission_id=created["id"])
    data = api.get(reverse("submissions:api_status", args=[created["id"]])).json()
    assert data["status"] == "scored" and data["scores"]["sw"]["nDCG@10"] == 0.544
    outsider = Client(HTTP_AUTHORIZATION=f"Token {api_token_create(user=world.outsider)}")
    assert outsider.get(reverse("submissions:api_status", args=[created["id"]])).status_code == 404


def test_it_gives_group_averages_over_the_languages_the_caller_may_see(world, api):
    created = api.post(url(world), {"method_name": "BM25", "files": [upload("run.sw.txt", good_sw())]}).json()
    submission_score(submission_id=created["id"])
    sw = Score.objects.get(submission_id=created["id"], subset__code="sw", metric="nDCG@10").value
    status_url = reverse("submissions:api_status", args=[created["id"]])

    answer = api.get(status_url).json()
    averages = answer["averages"]
    assert set(averages) == {"known", "all"}  # yo is still a surprise: no group, no share of the Avg
    assert answer["average_labels"] == {"known": "K.Avg", "all": "Avg"}  # the site's headings, for the CLI
    assert averages["known"]["nDCG@10"] == round(sw / 2, 3)  # te has no run: it counts 0
    assert averages["all"] == averages["known"]
    with time_machine.travel(world.competition.groups.get(name="surprise").reveal_at + timedelta(seconds=1)):
        averages = api.get(status_url).json()["averages"]
    assert averages["surprise"]["nDCG@10"] == 0.0
    assert averages["all"]["nDCG@10"] == round(sw / 3, 3)


def test_too_many_files_in_one_upload_answer_the_api_s_json_error(world, api):
    """Django refuses more than DATA_UPLOAD_MAX_NUMBER_FILES before the view sees them, with its
    HTML 400; a script gets the API's error as data, and nothing is stored."""
    files = [upload(f"run.sw.{i}.txt", good_sw()) for i in range(150)]
    response = api.post(url(world), {"method_name": "BM25", "files": files})
    assert response.status_code == 400 and response["Content-Type"] == "application/json"
    [error] = response.json()["errors"]
    assert error["code"] == "too_many_files" and "100" in error["message"] and set(error) == {
        "file", "line", "column", "code", "message"}
    assert not Submission.objects.exists()


def test_the_submission_s_url_is_on_the_site_s_address(world, api, settings):
    """Not on the Host a client sent: anyone may write that header."""
    settings.SITE_URL, settings.ALLOWED_HOSTS = "https://cup.example.org", ["*"]
    response = api.post(url(world), {"method_name": "BM25", "files": [upload("run.sw.txt", good_sw())]},
                        HTTP_HOST="evil.example:8080")
    assert response.status_code == 201
    assert response.json()["url"] == f"https://cup.example.org/submissions/{response.json()['id']}/"
