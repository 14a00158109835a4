"""The Cup's own pages (from its YAML) and its How to submit page in a real browser (Debian's
chromium), on a laptop (1366 px) and a phone (390 px): none wider than the screen, no console
error or failed request (the competition page, which links them, too), and the tabs lead from
one page to the next."""
from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from cupboard.competitions.pages import PAGES
from cupboard.competitions.services import competition_load
from cupboard.demo.plan import COMPETITIONS
from tests.browser import too_wide, watch_errors
from tests.factories import make_team, make_topics, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1366, 390)


@pytest.fixture
def session_cookie(live_server) -> dict:
    """The Cup as the demo loads it (dates around now), topics on dev, and a logged-in participant."""
    organizer = make_user("organizer")
    cup = competition_load(data=COMPETITIONS[0].definition_data(now=timezone.now()), actor=organizer)
    dev = cup.phases.get(slug="dev")
    for code in ("sw", "te", "yo"):
        make_topics(dev, code, [f"{code}-{n}" for n in range(1, 30)])
    alice = make_user("alice")
    make_team(cup, name="Lighthouse", members=[alice])
    client = Client()
    client.force_login(alice)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}


@pytest.fixture
def browser(session_cookie):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        yield browser
        browser.close()


def test_the_cup_pages_fit_a_laptop_and_a_phone(live_server, session_cookie, browser):
    paths = ["/c/miracl-wsdm-cup/"] + [f"/c/miracl-wsdm-cup/{name}/" for name in PAGES] + \
            ["/c/miracl-wsdm-cup/how-to-submit/"]
    problems = []
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900})
        context.add_cookies([session_cookie])
        page = context.new_page()
        errors = watch_errors(page, failed_requests=True)
        problems += too_wide(page, live_server.url, paths, width)
        problems += [f"console at {width} px: {e}" for e in errors]
        context.close()
    assert not problems, "\n".join(problems)


def test_the_tabs_lead_to_rules_and_to_how_to_submit(live_server, session_cookie, browser):
    context = browser.new_context(viewport={"width": 390, "height": 900})
    context.add_cookies([session_cookie])
    page = context.new_page()
    page.goto(live_server.url + "/c/miracl-wsdm-cup/")
    page.locator("nav.tabs").get_by_role("link", name="Rules").click()
    assert page.locator("article.prose h2").inner_text() == "Rules"
    assert "final_selection_max" not in page.content()  # Markdown rendered, not the YAML
    page.locator("nav.tabs").get_by_role("link", name="How to submit").click()
    dev = page.locator("#phase-dev")
    assert "sw-1 Q0 1000#0 1 3.0 mine" in dev.locator("pre.example-run").inner_text()
    assert "--phase dev" in dev.locator("pre.command").inner_text()
    assert "Left for your team" in dev.inner_text()
    with page.expect_download() as download:
        dev.get_by_role("link", name="Sample submission (zip)").click()
    assert download.value.suggested_filename == "sample-submission.miracl-wsdm-cup.dev.zip"
    context.close()
