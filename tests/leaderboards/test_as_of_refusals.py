"""A bad ?as_of= and a past board asked for too often are refused in one shape
(cupboard/refusals.py): the leaderboard page answers the site's error page naming the problem,
the CSV and JSON exports the API's error shape; never a bare line of text. Issue 24 item 8."""
import pytest
from django.conf import settings
from django.test import Client, override_settings

from cupboard.envconfig import rates_from_env
from tests.personas import client_for
from tests.rate_windows import at_a_window_start

pytestmark = pytest.mark.django_db

PAGE, CSV, JSON = "/c/cup/dev/leaderboard/", "/c/cup/dev/leaderboard.csv", "/c/cup/dev/leaderboard.json"


def _is_site_page(response) -> bool:
    """An HTML page in the site's look (base.html's header and stylesheet), not bare text."""
    body = response.content.decode()
    return response["Content-Type"].startswith("text/html") and "<header" in body and 'rel="stylesheet"' in body


def _api_error(response) -> dict:
    """The one error of an answer in the API's shape (evaluator/client/api.py ERROR_FIELDS)."""
    assert response["Content-Type"] == "application/json"
    [error] = response.json()["errors"]
    assert set(error) == {"file", "line", "column", "code", "message"}
    return error


def test_a_bad_as_of_on_the_page_is_the_site_s_400_page_naming_it(cast):
    response = client_for(cast.anonymous).get(PAGE, {"as_of": "garbage"})
    assert response.status_code == 400 and _is_site_page(response)
    assert "as_of: &#x27;garbage&#x27; is not an ISO 8601 date" in response.content.decode()
    assert "Nothing was changed" in response.content.decode()


def test_a_bad_as_of_is_escaped_on_the_page(cast):
    response = client_for(cast.participant).get(PAGE, {"as_of": "<b>x</b>"})
    assert response.status_code == 400 and _is_site_page(response)
    assert "<b>x</b>" not in response.content.decode() and "&lt;b&gt;x&lt;/b&gt;" in response.content.decode()


@pytest.mark.parametrize("path", [CSV, JSON])
def test_a_bad_as_of_on_an_export_is_the_api_s_error_shape(cast, path):
    response = client_for(cast.anonymous).get(path, {"as_of": "garbage"})
    assert response.status_code == 400
    error = _api_error(response)
    assert error["code"] == "bad-as-of" and error["message"].startswith("as_of: 'garbage' is not an ISO 8601")
    assert "Content-Disposition" not in response  # no CSV file to save


@pytest.fixture
def one_past_board_a_minute():
    with override_settings(CUPBOARD_RATES=rates_from_env("as-of-address=1/m", settings.CUPBOARD_RATES)), \
            at_a_window_start():
        yield


def test_a_throttled_as_of_on_the_page_is_the_site_s_429_page(cast, one_past_board_a_minute):
    client = Client(REMOTE_ADDR="192.0.2.31")
    assert client.get(PAGE, {"as_of": "2026-01-01"}).status_code == 200
    response = client.get(PAGE, {"as_of": "2026-01-02"})
    assert response.status_code == 429 and _is_site_page(response)
    wait = int(response["Retry-After"])
    assert 0 < wait <= 60
    assert "Too many past leaderboards were asked for from this address. Try again in" in response.content.decode()


@pytest.mark.parametrize("path", [CSV, JSON])
def test_a_throttled_as_of_on_an_export_is_the_api_s_error_shape(cast, one_past_board_a_minute, path):
    client = Client(REMOTE_ADDR="192.0.2.32" if path == CSV else "192.0.2.33")  # a count of its own
    assert client.get(path, {"as_of": "2026-01-01"}).status_code == 200
    response = client.get(path, {"as_of": "2026-01-02"})
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    error = _api_error(response)
    assert error["code"] == "throttled" and f"try again in {response['Retry-After']} s" in error["message"]
