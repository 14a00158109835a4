"""A refused ?as_of= in a real browser (Debian's chromium) at 1366 and 390 px: the site's
error page naming the problem, in the site's look, within the screen, without a script error.
It was a bare line of text (issue 24 item 8)."""
import pytest
from django.conf import settings
from django.test import override_settings

from cupboard.envconfig import rates_from_env
from tests.browser import chromium, page_width, watch_errors
from tests.factories import make_competition
from tests.rate_windows import at_a_window_start

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def board(live_server):
    make_competition(slug="refusals", known=["sw"], surprise=[])
    return f"{live_server.url}/c/refusals/dev/leaderboard/"


@pytest.mark.parametrize("width", [1366, 390])
def test_a_bad_and_a_throttled_as_of_are_pages_of_the_site(board, width):
    rates = rates_from_env("as-of-address=1/m", settings.CUPBOARD_RATES)
    with override_settings(CUPBOARD_RATES=rates), at_a_window_start(), chromium() as browser:
        page = browser.new_page(viewport={"width": width, "height": 800})
        errors = watch_errors(page)
        response = page.goto(board + "?as_of=garbage")
        assert response.status == 400
        assert page.inner_text("h1") == "This request could not be read"
        assert "as_of: 'garbage' is not an ISO 8601 date" in page.inner_text("#bad-request")
        assert page.locator("header.site").is_visible()  # the site's look, its navigation
        assert page_width(page) <= width

        assert page.goto(board + "?as_of=2026-01-01").status == 200
        response = page.goto(board + "?as_of=2026-01-02")
        assert response.status == 429 and int(response.headers["retry-after"]) > 0
        assert page.inner_text("h1") == "Too many requests"
        assert "Too many past leaderboards were asked for from this address. Try again in" in page.inner_text("#throttled")
        assert page_width(page) <= width
        assert not errors, errors
