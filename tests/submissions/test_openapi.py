"""The JSON API's OpenAPI document: valid OpenAPI 3.1, joined from the apps' parts, checked in as
generated, served, and naming everything the CLI's contract names. (Every API answer in
tests/submissions is checked against it by conftest.py's autouse fixture; every operation it
describes is called by tests/operations/test_api_exercised.py.)"""
import json
from pathlib import Path

import pytest
from django.test import Client, override_settings
from openapi_spec_validator import validate

from cupboard.accounts.services import api_token_create
from cupboard.operations.openapi import openapi_document
from cupboard.submissions import api
from evaluator.client import api as contract

from .conftest import good_sw, upload
from .openapi_check import check_answer

CHECKED_IN = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


def test_it_is_valid_openapi_3_1():
    document = openapi_document()
    validate(document)
    assert document["openapi"].startswith("3.1")


def test_the_checked_in_copy_is_the_generated_one():
    assert json.loads(CHECKED_IN.read_text(encoding="utf-8")) == openapi_document(), (
        "docs/openapi.json is stale: python manage.py openapi > docs/openapi.json")


def test_it_names_every_route_and_field_of_the_contract():
    text = json.dumps(openapi_document())
    schemas = openapi_document()["components"]["schemas"]
    for route in (contract.UPLOAD_ROUTE, contract.STATUS_ROUTE, contract.DEFINITION_ROUTE):
        assert contract.path_of(route, competition_slug="{competition_slug}", phase_slug="{phase_slug}",
                                pk="{pk}").replace("%7B", "{").replace("%7D", "}") in openapi_document()["paths"]
    assert schemas["Submission"]["required"] == list(contract.ANSWER_FIELDS)
    assert schemas["Upload"]["required"] == list(contract.UPLOAD_ANSWER_FIELDS)
    assert schemas["Error"]["required"] == list(contract.ERROR_FIELDS)
    assert schemas["Definition"]["required"] == list(contract.DEFINITION_FIELDS)
    assert schemas["Submission"]["properties"]["status"]["enum"] == list(contract.STATUSES)
    body = openapi_document()["paths"][next(iter(openapi_document()["paths"]))]["post"]["requestBody"]
    fields = body["content"]["multipart/form-data"]["schema"]
    for name in (contract.METHOD_NAME, contract.DESCRIPTION, contract.PAPER_URL, contract.CODE_URL,
                 contract.IS_BASELINE, contract.FILES):
        assert name in fields["properties"]
    assert fields["required"] == [contract.METHOD_NAME]
    assert fields["properties"][contract.FILES]["type"] == "array"
    assert any(p.startswith(f"^{contract.FILE_PREFIX}") for p in fields["patternProperties"])
    assert any(p.startswith(f"^{contract.META_PREFIX}") for p in fields["patternProperties"])
    assert f"{contract.AUTH_SCHEME} <token>" in text and contract.TOKEN_ENV in text
    for methods in openapi_document()["paths"].values():
        for op in methods.values():
            for code in contract.TRY_LATER:
                assert op["responses"][str(code)]["headers"]["Retry-After"]


def test_the_site_serves_it_and_a_page_for_people(db):
    served = Client().get("/api/openapi.json")
    assert served.status_code == 200 and served.json() == openapi_document()
    page = Client().get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<script" not in html.split("</main>")[0].split("<main")[-1]
    for name in ("/submissions/api/{pk}/", contract.FILE_PREFIX, "Retry-After", *contract.ERROR_FIELDS,
                 "/c/{competition_slug}/{phase_slug}/leaderboard/history.json", "as_of", "meta_", "LeaderboardRow"):
        assert name in html


def test_it_joins_each_apps_part_and_refuses_a_clash(monkeypatch):
    from cupboard.leaderboards.openapi import openapi_part as leaderboards_part
    from cupboard.operations import openapi
    from cupboard.submissions.openapi import openapi_part as submissions_part

    document = openapi_document()
    for part in (submissions_part(), leaderboards_part()):
        assert set(part["paths"]) <= set(document["paths"]) and set(part["schemas"]) <= set(document["components"]["schemas"])
    assert contract.page_path(contract.HISTORY_ROUTE, competition_slug="{competition_slug}", phase_slug="{phase_slug}") \
        .replace("%7B", "{").replace("%7D", "}") in document["paths"]
    monkeypatch.setattr(openapi, "PARTS", (submissions_part, submissions_part))
    with pytest.raises(ValueError, match="Two parts of the OpenAPI document describe the path"):
        openapi.openapi_document()


def test_a_try_later_answer_matches_it(world):
    token = api_token_create(user=world.participant)
    path = contract.path_of(contract.STATUS_ROUTE, pk=1)
    with override_settings(CUPBOARD_RATES={"api-token": "1/m"}):
        client = Client(HTTP_AUTHORIZATION=f"Token {token}")
        statuses = [client.get(path) for _ in range(3)]
    throttled = [r for r in statuses if r.status_code == 429]
    assert throttled and check_answer("GET", path, throttled[-1])


def test_an_outage_answer_matches_it(world, monkeypatch):
    from django.db import OperationalError

    def refused(raw):
        raise OperationalError("connection failed")
    monkeypatch.setattr(api, "user_from_token", refused)
    path = contract.path_of(contract.UPLOAD_ROUTE, competition_slug=world.competition.slug, phase_slug="dev")
    response = Client().post(path, {"method_name": "x", "files": [upload("run.sw.txt", good_sw())]},
                             HTTP_AUTHORIZATION="Token abc")
    assert response.status_code == 503 and check_answer("POST", path, response)


def test_a_wrong_answer_would_be_caught(world):
    """The checker is not a rubber stamp: a body missing a contract field fails it."""
    from django.http import JsonResponse

    path = contract.path_of(contract.STATUS_ROUTE, pk=1)
    with pytest.raises(AssertionError, match="does not match"):
        check_answer("GET", path, JsonResponse({"id": 1}))
    with pytest.raises(AssertionError, match="omits"):
        check_answer("GET", path, JsonResponse({}, status=418))
