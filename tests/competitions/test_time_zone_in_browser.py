"""Deadlines in the viewer's time zone, with a live countdown, in a real browser (Debian's
chromium) told it is in Tokyo: the server sends UTC instants, the page's script does the rest."""
import re
import time
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import pytest
from django.utils import timezone

from tests.factories import make_competition
from tests.waiting import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TOKYO = dt_timezone(timedelta(hours=9))  # no daylight saving time


@pytest.fixture
def closes_at(live_server) -> datetime:
    competition = make_competition(slug="clock", known=["sw"], surprise=[])
    closes = (timezone.now() + timedelta(days=2, hours=3)).replace(second=0, microsecond=0)
    competition.phases.filter(slug="dev").update(closes_at=closes)
    return closes


# Requested after `closes_at`: playwright runs an event loop in this thread, and Django
# refuses database calls from a thread with a running loop.
@pytest.fixture
def page(closes_at):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        context = browser.new_context(timezone_id="Asia/Tokyo", locale="en-US")
        yield context.new_page()
        browser.close()


def seconds(countdown: str) -> int:
    days, clock = re.fullmatch(r"(?:(\d+)d )?(\d\d:\d\d:\d\d)", countdown).groups()
    h, m, s = map(int, clock.split(":"))
    return int(days or 0) * 86400 + h * 3600 + m * 60 + s


def test_it_shows_the_deadline_in_tokyo_time_and_counts_down(live_server, closes_at, page):
    page.goto(f"{live_server.url}/c/clock/")
    assert page.locator("footer .tz-name").inner_text() == "Asia/Tokyo"

    deadline = page.locator(f'time[datetime="{closes_at.isoformat()}"]').first
    local = closes_at.astimezone(TOKYO)
    assert deadline.inner_text() == local.strftime("%b %-d, %Y, %I:%M %p GMT+9")  # e.g. Nov 25, 2026, 02:07 AM GMT+9

    countdown = page.locator("[data-countdown]").first
    started = time.monotonic()
    first = seconds(countdown.inner_text())
    expected = (closes_at - timezone.now()).total_seconds()
    assert abs(first - expected) < 30, (countdown.inner_text(), expected)
    wait_until(lambda: seconds(countdown.inner_text()) <= first - 2, what="the countdown to tick twice")
    ticked, elapsed = first - seconds(countdown.inner_text()), time.monotonic() - started
    assert 2 <= ticked <= elapsed + 1, (ticked, elapsed)  # it ticks once a second, never faster
