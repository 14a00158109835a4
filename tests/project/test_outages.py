"""Database, broker and storage (S3 endpoint) errors answer 503 with Retry-After, JSON on the API, a short page on
the site; an error raised by a middleware (below OutageMiddleware) too. The real thing, a
stopped PostgreSQL under gunicorn, is tests/e2e/test_database_outage.py; an S3 endpoint down,
tests/e2e/test_storage_outage.py."""
import json

import pytest
from botocore.exceptions import ConnectTimeoutError, EndpointConnectionError
from django.core.handlers.exception import convert_exception_to_response
from django.db import InterfaceError, OperationalError
from django.test import Client, RequestFactory
from kombu.exceptions import OperationalError as BrokerError

from cupboard.outages import OutageMiddleware
from cupboard.submissions import api


@pytest.mark.django_db
def test_the_api_answers_json_503_when_the_token_cannot_be_looked_up(monkeypatch):
    def refused(raw):
        raise OperationalError('connection failed: connection to server at "127.0.0.1", port 5432 failed')
    monkeypatch.setattr(api, "user_from_token", refused)
    response = Client().post("/submissions/api/cup/dev/", {"method_name": "x"}, HTTP_AUTHORIZATION="Token abc")
    assert (response.status_code, response["Retry-After"]) == (503, "30")
    assert json.loads(response.content)["errors"][0]["code"] == "unavailable"


@pytest.mark.django_db
@pytest.mark.parametrize("error", [InterfaceError("connection already closed"), BrokerError("Error 111"),
                                   EndpointConnectionError(endpoint_url="http://s3.internal:9000/cupboard"),
                                   ConnectTimeoutError(endpoint_url="http://s3.internal:9000/cupboard")])
def test_a_page_answers_a_short_html_503(monkeypatch, error):
    def broken(*args, **kwargs):
        raise error
    monkeypatch.setattr("cupboard.competitions.views.render", broken)  # the page's queries run while rendering
    response = Client().get("/", HTTP_ACCEPT="text/html")
    assert (response.status_code, response["Retry-After"]) == (503, "30")
    assert b"Back in a moment" in response.content and response["Content-Type"].startswith("text/html")


def test_an_error_raised_by_a_middleware_below_is_a_503_too():
    def session_save_fails(request):
        raise OperationalError("server closed the connection unexpectedly")
    handler = OutageMiddleware(convert_exception_to_response(session_save_fails))
    response = handler(RequestFactory().get("/c/cup/", HTTP_ACCEPT="application/json"))
    assert (response.status_code, response["Retry-After"]) == (503, "30")
    assert json.loads(response.content)["errors"][0]["code"] == "unavailable"


@pytest.mark.django_db
def test_a_leaderboards_json_answers_json_503_to_a_browser_too(monkeypatch):
    """leaderboard.json (a script's read, linked from the page) answers the API's shape even
    to a client that asks for HTML: a parser never meets the outage page."""
    def unreachable(**kwargs):
        raise OperationalError("connection refused")
    monkeypatch.setattr("cupboard.leaderboards.views.board_state", unreachable)
    response = Client().get("/c/cup/dev/leaderboard.json", HTTP_ACCEPT="text/html")
    assert (response.status_code, response["Retry-After"]) == (503, "30")
    assert json.loads(response.content)["errors"][0]["code"] == "unavailable"


def test_other_errors_are_left_to_django():
    def bug(request):
        raise ZeroDivisionError
    handler = OutageMiddleware(convert_exception_to_response(bug))
    assert handler(RequestFactory().get("/")).status_code == 500


@pytest.mark.django_db(transaction=True)
def test_an_outage_after_the_change_was_committed_says_it_is_saved_not_that_nothing_changed(monkeypatch):
    """The disqualification is committed (its follow-up recorded and carried out), then the page
    meets an outage: the answer must not invite sending it again."""
    from django.urls import reverse

    from cupboard.audit.models import AuditEvent
    from cupboard.submissions.models import Submission
    from tests.leaderboards.conftest import make_scored
    from tests.personas import build_cast, client_for

    cast = build_cast()
    run = make_scored(cast.competition.phases.get(slug="dev"), team=cast.team_a)

    def unreachable(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")
    monkeypatch.setattr("cupboard.submissions.views.messages.success", unreachable)
    response = client_for(cast.organizer).post(reverse("submissions:disqualify", args=[run.pk]), {"reason": "leak"})
    assert response.status_code == 500 and "Retry-After" not in response
    assert b"Your change was saved" in response.content and b"Nothing was changed" not in response.content
    assert Submission.objects.get(pk=run.pk).disqualified
    assert AuditEvent.objects.filter(action=AuditEvent.Action.DISQUALIFIED).count() == 1
